"""Self-attention encoder for the baseline parser (`ParserConfig.arch="transformer"`, issue 41).

The BiLSTM steps through a sentence word by word and leaves the CPU's matrix units mostly idle; here every
layer is a few matrix multiplies over all positions of the batch at once. Pre-LayerNorm blocks (trainable
from scratch without a long warmup), and position information as a learned per-head bias on the clipped
relative distance between two words in attention, plus learned absolute positions (sinusoidal ones are
weak for parsing); positions past attn_max_positions share the last embedding.

Attention is written out (softmax over masked scores) rather than F.scaled_dot_product_attention, whose
CPU kernel is chosen by CPU and shape; padded keys are masked, so a sentence's states do not depend on the
batch it is padded in.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from dialectbench.backends.baseline.configs import ParserConfig
from dialectbench.backends.parsing import make_dropout, tag_classifier, word_char_features

PAD = 0  # parser.PAD (not imported: parser imports this module)


class _Block(nn.Module):
    """x + Attn(LN(x)); x + FFN(LN(x)), dropout on attention weights and on each residual branch."""

    def __init__(self, d: int, heads: int, ffn: int, dropout: float, fast_dropout: bool):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ff1, self.ff2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.dropout = make_dropout(dropout, fast_dropout)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """x (B, T, d); bias (B or 1, H, T, T): relative-position bias, -inf at padded keys."""
        B, T, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(B, T, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) * (1.0 / math.sqrt(d // self.heads)) + bias, -1)
        y = (self.dropout(att) @ v).transpose(1, 2).reshape(B, T, d)
        x = x + self.dropout(self.out(y))
        return x + self.dropout(self.ff2(self.dropout(F.gelu(self.ff1(self.norm2(x))))))


class _ConvBlock(nn.Module):
    """x + GLU(W [LN(x)_{i-1}; LN(x)_i; LN(x)_{i+1}]): a local window before attention, as a shifted
    concatenation and one nn.Linear (plain GEMM, not oneDNN's CPU-dependent convolution algorithms)."""

    def __init__(self, d: int, dropout: float, fast_dropout: bool):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.linear = nn.Linear(3 * d, 2 * d)
        self.dropout = make_dropout(dropout, fast_dropout)

    def forward(self, x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        h = self.norm(x) * keep  # padding reads as zeros, so it never reaches a real word
        window = torch.cat([F.pad(h, (0, 0, 1, 0))[:, :-1], h, F.pad(h, (0, 0, 0, 1))[:, 1:]], -1)
        return x + self.dropout(F.glu(self.linear(window), -1))


class AttentionEncoder(nn.Module):
    """Word + char features -> `attn_conv_blocks` local convolution blocks -> `attn_layers` pre-LN
    transformer blocks, all of width `attn_dim`."""

    def __init__(self, cfg: ParserConfig, n_words: int, n_chars: int, n_upos: int):
        super().__init__()
        d = cfg.attn_dim
        if d % cfg.attn_heads:
            raise ValueError(f"ParserConfig.attn_dim {d} is not a multiple of attn_heads {cfg.attn_heads}")
        self.words = nn.Embedding(n_words, cfg.word_dim, padding_idx=PAD)
        self.chars = nn.Embedding(n_chars, cfg.char_dim, padding_idx=PAD)
        self.char_cnn = nn.Conv1d(cfg.char_dim, cfg.char_filters, kernel_size=3, padding=1)
        self.dropout = make_dropout(cfg.dropout, cfg.fast_dropout)
        self.proj = nn.Linear(cfg.word_dim + cfg.char_filters, d)
        # learned absolute positions as well: the biaffine head scores a pair of states, and without them
        # a state does not say where its word is, so nearer heads cannot be preferred
        self.positions = nn.Embedding(cfg.attn_max_positions, d)
        nn.init.normal_(self.positions.weight, std=0.02)
        self.max_distance = cfg.attn_max_distance
        # zero init: attention starts uniform, positions come in as the bias learns
        self.distance_bias = nn.Parameter(torch.zeros(cfg.attn_heads, 2 * cfg.attn_max_distance + 1))
        self.convs = nn.ModuleList(_ConvBlock(d, cfg.attn_dropout, cfg.fast_dropout)
                                   for _ in range(cfg.attn_conv_blocks))
        self.blocks = nn.ModuleList(_Block(d, cfg.attn_heads, cfg.attn_ffn, cfg.attn_dropout, cfg.fast_dropout)
                                    for _ in range(cfg.attn_layers))
        self.norm = nn.LayerNorm(d)
        self.upos = tag_classifier(d, n_upos, cfg.upos_hidden, cfg.dropout, cfg.fast_dropout)
        self.out_dim = d

    def forward(self, word_ids, type_chars, type_index, lengths):
        x = word_char_features(self, word_ids, type_chars, type_index)
        T = word_ids.shape[1]
        pos = torch.arange(T)
        rel = (pos.unsqueeze(0) - pos.unsqueeze(1)).clamp(-self.max_distance, self.max_distance)
        bias = self.distance_bias[:, rel + self.max_distance].unsqueeze(0)  # (1, H, T, T)
        pad = pos.unsqueeze(0) >= lengths.unsqueeze(1)  # (B, T)
        bias = bias.masked_fill(pad[:, None, None, :], float("-inf"))
        h = self.proj(self.dropout(x)) + self.positions(pos.clamp(max=self.positions.num_embeddings - 1))
        keep = (~pad).unsqueeze(-1).to(h.dtype)
        for conv in self.convs:
            h = conv(h, keep)
        for block in self.blocks:
            h = block(h, bias)
        return self.dropout(self.norm(h))
