"""Graph-based dependency parsing pieces shared by every parser backend.

Any encoder (the baseline's char+word BiLSTM, a transformer) that produces one vector per position, with
position 0 standing for the artificial ROOT and positions 1..n for the words, plugs into `ParserHead`:

    head = ParserHead(in_dim=encoder_dim, n_labels=len(label_vocab))
    loss = head.loss(states, mask, gold_heads, gold_labels)       # training
    heads, labels = head.decode(states, mask)                     # test time: exact MST per sentence

Score convention used throughout (as in Dozat & Manning 2017 and supar): `scores[d, h]` is the score
of the arc from head `h` to dependent `d`; row 0 (ROOT as a dependent) is ignored.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


class MaskDropout(nn.Module):
    """Inverted dropout whose mask is `torch.rand(shape) < 1 - p`: the same distribution as nn.Dropout,
    but nn.Dropout's CPU kernel (bernoulli_) draws ~10 ns an element against ~3.5 ns for torch.rand, and
    dropout masks were ~6% of a CPU parser step (issue 41). Other random numbers than nn.Dropout's, so
    other scores: opt-in (`ParserConfig.fast_dropout`)."""

    def __init__(self, p: float):
        super().__init__()
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return x
        keep = 1.0 - self.p
        return x * (torch.rand(x.shape, device=x.device) < keep).to(x.dtype) * (1.0 / keep)


def make_dropout(p: float, fast: bool = False) -> nn.Module:
    return MaskDropout(p) if fast else nn.Dropout(p)


class _MLP(nn.Module):
    def __init__(self, in_dim: int, out_dim: int, dropout: float, fast_dropout: bool = False):
        super().__init__()
        self.linear = nn.Linear(in_dim, out_dim)
        self.dropout = make_dropout(dropout, fast_dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(F.leaky_relu(self.linear(x), 0.1))


def word_char_features(encoder: nn.Module, word_ids: torch.Tensor, type_chars: torch.Tensor,
                       type_index: torch.Tensor) -> torch.Tensor:
    """The input every baseline parser encoder starts from: word embeddings beside a char CNN (max over
    characters) run once per word type; `encoder` holds `words`, `chars` and `char_cnn`."""
    c = encoder.chars(type_chars).transpose(1, 2)
    c = torch.relu(encoder.char_cnn(c)).max(-1).values
    return torch.cat([encoder.words(word_ids), c[type_index]], -1)


def tag_classifier(in_dim: int, n_tags: int, hidden: int = 0, dropout: float = 0.0, fast_dropout: bool = False
                   ) -> nn.Module:
    """A tag classifier on encoder states (the parser's auxiliary UPOS loss): linear, or with `hidden` an
    MLP as the arc and label scorers use."""
    if not hidden:
        return nn.Linear(in_dim, n_tags)
    return nn.Sequential(_MLP(in_dim, hidden, dropout, fast_dropout), nn.Linear(hidden, n_tags))


class BiaffineArcScorer(nn.Module):
    """Deep biaffine arc scorer: s[b, d, h] = dep_d^T U head_h + head_h . u  (Dozat & Manning 2017).

    forward(x (B, T, in_dim), mask (B, T) bool, True for ROOT and real words) -> (B, T, T) scores with
    padded head positions set to -inf.

    max_distance > 0 adds a learned score for the signed distance h - d, clipped at +-max_distance: an
    encoder without recurrence (self-attention) does not tell the biaffine product how far apart two
    words are, and most heads are near their dependents.
    """

    def __init__(self, in_dim: int, hidden: int = 400, dropout: float = 0.33, fast_dropout: bool = False,
                 max_distance: int = 0):
        super().__init__()
        self.dep_mlp = _MLP(in_dim, hidden, dropout, fast_dropout)
        self.head_mlp = _MLP(in_dim, hidden, dropout, fast_dropout)
        self.weight = nn.Parameter(torch.zeros(hidden, hidden))  # zero init: uniform scores at start
        self.head_bias = nn.Parameter(torch.zeros(hidden))
        self.max_distance = max_distance
        if max_distance:  # only then: the state dicts of existing parsers stay loadable
            self.distance = nn.Parameter(torch.zeros(2 * max_distance + 1))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        dep, head = self.dep_mlp(x), self.head_mlp(x)
        scores = torch.einsum("bdi,ij,bhj->bdh", dep, self.weight, head)
        scores = scores + (head @ self.head_bias).unsqueeze(1)
        if self.max_distance:
            pos = torch.arange(x.shape[1])
            k = self.max_distance
            scores = scores + self.distance[(pos.unsqueeze(0) - pos.unsqueeze(1)).clamp(-k, k) + k]
        return scores.masked_fill(~mask.unsqueeze(1), float("-inf"))


class BiaffineLabelScorer(nn.Module):
    """Biaffine label scorer for given arcs: s[b, d, l] = dep_d^T U_l head_{h(d)} + W [dep_d; head_h] + b.

    forward(x (B, T, in_dim), heads (B, T) long) -> (B, T, n_labels).
    """

    def __init__(self, in_dim: int, n_labels: int, hidden: int = 100, dropout: float = 0.33,
                 fast_dropout: bool = False):
        super().__init__()
        self.dep_mlp = _MLP(in_dim, hidden, dropout, fast_dropout)
        self.head_mlp = _MLP(in_dim, hidden, dropout, fast_dropout)
        self.n_labels = n_labels
        self.weight = nn.Parameter(torch.zeros(hidden, n_labels * hidden))
        self.linear = nn.Linear(2 * hidden, n_labels)

    def forward(self, x: torch.Tensor, heads: torch.Tensor) -> torch.Tensor:
        dep, head = self.dep_mlp(x), self.head_mlp(x)
        head = head.gather(1, heads.clamp(min=0).unsqueeze(-1).expand_as(head))
        # dep U_l head for all labels as one matmul (nn.Bilinear's kernel is far slower on CPU)
        left = (dep @ self.weight).unflatten(-1, (self.n_labels, -1))
        return (left * head.unsqueeze(-2)).sum(-1) + self.linear(torch.cat([dep, head], -1))


class ParserHead(nn.Module):
    """Arc + label scorers with their training loss and exact MST decoding."""

    def __init__(self, in_dim: int, n_labels: int, arc_hidden: int = 400, label_hidden: int = 100,
                 dropout: float = 0.33, fast_dropout: bool = False, arc_max_distance: int = 0):
        super().__init__()
        self.arc = BiaffineArcScorer(in_dim, arc_hidden, dropout, fast_dropout, arc_max_distance)
        self.label = BiaffineLabelScorer(in_dim, n_labels, label_hidden, dropout, fast_dropout)

    def loss(self, x: torch.Tensor, mask: torch.Tensor, heads: torch.Tensor,
             labels: torch.Tensor) -> torch.Tensor:
        """Cross-entropy over heads and over labels of the gold arcs. `mask` is True for ROOT and words;
        `heads`/`labels` are ignored at ROOT (position 0) and at padding."""
        word = mask.clone()
        word[:, 0] = False
        arc_scores = self.arc(x, mask)
        label_scores = self.label(x, heads)
        arc_loss = F.cross_entropy(arc_scores[word], heads[word])
        label_loss = F.cross_entropy(label_scores[word], labels[word])
        return arc_loss + label_loss

    @torch.no_grad()
    def decode(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[list[list[int]], list[list[int]]]:
        """Per sentence: MST heads (1-based, 0 = ROOT, one per word) and label ids for those arcs."""
        arc_scores = self.arc(x, mask).log_softmax(-1).cpu().numpy()
        lengths = mask.sum(1).tolist()
        all_heads = [mst_decode(arc_scores[b, :n, :n]) for b, n in enumerate(lengths)]
        padded = torch.zeros(mask.shape, dtype=torch.long, device=x.device)
        for b, heads in enumerate(all_heads):
            padded[b, 1:len(heads) + 1] = torch.tensor(heads, dtype=torch.long)
        label_ids = self.label(x, padded).argmax(-1).cpu().tolist()
        return all_heads, [ids[1:len(h) + 1] for ids, h in zip(label_ids, all_heads)]


def mst_decode(scores: np.ndarray) -> list[int]:
    """Exact maximum spanning arborescence with exactly one word attached to ROOT.

    `scores` is (n+1, n+1) with scores[d, h] = score of arc h -> d, index 0 = ROOT (row 0 ignored);
    -inf marks forbidden arcs. Returns the head of each word 1..n (so `len == n`, 0 = ROOT).
    Chu-Liu/Edmonds; the single-root constraint is exact by the root-penalty reduction (Zmigrod et al.
    2020): every tree needs >= 1 root arc, and a penalty larger than any score spread makes a tree with
    one root arc always beat any with more, while leaving the ranking of single-root trees unchanged.
    """
    s = np.array(scores, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"mst_decode needs a square (n+1, n+1) score matrix, got shape {s.shape}")
    if np.isnan(s).any():
        raise ValueError("mst_decode: score matrix contains NaN")
    n = s.shape[0] - 1
    if n <= 0:
        return []
    greedy = _greedy_tree(s)
    if greedy is not None:  # each word's best head already forms a single-root tree: that is the MST
        return greedy
    finite = s[np.isfinite(s)]
    spread = float(finite.max() - finite.min()) if finite.size else 0.0
    # forbidden arcs become merely very bad, so a tree always exists
    s = np.where(np.isfinite(s), s, (finite.min() if finite.size else 0.0) - (n + 1) * (spread + 1.0))
    spread = float(s.max() - s.min())
    s[1:, 0] -= (n + 1) * (spread + 1.0)
    np.fill_diagonal(s, -np.inf)
    s[0, :] = -np.inf
    heads = _chu_liu_edmonds(s)
    return [int(h) for h in heads[1:]]


def _greedy_tree(s: np.ndarray) -> list[int] | None:
    """Each word's highest-scoring head (self-loops excluded), when those arcs form a tree with exactly
    one root arc; else None. Most parses of a trained model are such trees, and then no maximum
    spanning tree can score higher, so Chu-Liu/Edmonds (~15 recursive calls a sentence) is skipped."""
    g = s.copy()
    np.fill_diagonal(g, -np.inf)
    heads = g[1:].argmax(1)
    if not np.isfinite(g[np.arange(1, len(g)), heads]).all() or (heads == 0).sum() != 1:
        return None
    full = np.concatenate([[-1], heads])
    return None if _find_cycle(full) is not None else [int(h) for h in heads]


def _find_cycle(heads: np.ndarray) -> list[int] | None:
    """A cycle in the head graph (nodes 1..n, node 0 is the root), or None."""
    n = len(heads)
    state = np.zeros(n, dtype=np.int8)  # 0 unseen, 1 on current path, 2 done
    for start in range(1, n):
        path, node = [], start
        while node != 0 and state[node] == 0:
            state[node] = 1
            path.append(node)
            node = heads[node]
        if node != 0 and state[node] == 1:
            return path[path.index(node):]
        for p in path:
            state[p] = 2
    return None


def _chu_liu_edmonds(s: np.ndarray) -> np.ndarray:
    """Maximum arborescence rooted at 0 over s[d, h] (s[0, :] and the diagonal are -inf)."""
    heads = s.argmax(1)
    heads[0] = -1
    cycle = _find_cycle(heads)
    if cycle is None:
        return heads
    n = s.shape[0]
    in_cycle = np.zeros(n, dtype=bool)
    in_cycle[cycle] = True
    rest = np.flatnonzero(~in_cycle)  # includes root 0; contracted graph = rest + one cycle node
    cyc = np.array(cycle)
    m = len(rest)
    sub = np.full((m + 1, m + 1), -np.inf)
    sub[:m, :m] = s[np.ix_(rest, rest)]
    # arcs entering the cycle: break the cycle arc into the entered node
    enter = s[np.ix_(cyc, rest)] - s[cyc, heads[cyc]][:, None]  # (|C|, m)
    best_enter = enter.argmax(0)
    sub[m, :m] = enter[best_enter, np.arange(m)]
    # arcs leaving the cycle: best head inside the cycle for each outside dependent
    leave = s[np.ix_(rest, cyc)]  # (m, |C|)
    best_leave = leave.argmax(1)
    sub[:m, m] = leave[np.arange(m), best_leave]
    sub[0, :] = -np.inf
    sub[m, m] = -np.inf
    sub_heads = _chu_liu_edmonds(sub)
    out = heads.copy()
    for i, node in enumerate(rest):
        if node == 0:
            continue
        h = sub_heads[i]
        out[node] = cyc[best_leave[i]] if h == m else rest[h]
    entry_head = sub_heads[m]
    entered = cyc[best_enter[entry_head]]
    out[entered] = rest[entry_head]
    return out


def is_single_root_tree(heads: Sequence[int]) -> bool:
    """True when `heads` (1-based, 0 = ROOT) form a tree over all words with exactly one root arc."""
    n = len(heads)
    if sum(1 for h in heads if h == 0) != 1 or any(h < 0 or h > n for h in heads):
        return False
    arr = np.array([-1, *heads])
    return all(h != i + 1 for i, h in enumerate(heads)) and _find_cycle(arr) is None
