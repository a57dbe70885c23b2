"""Dependency parsing baseline: a graph-based parser trained from scratch on CPU.

Encoder: word embeddings + a character CNN (so unseen dialectal spellings still get a representation)
-> 2-layer BiLSTM (`ParserConfig.arch="bilstm"`, the default) or residual gated dilated convolutions
(`arch="cnn"`, issue 41: cheaper per word, but less accurate per CPU-second; see ParserConfig) or
self-attention blocks (`arch="transformer"`, attention.py). Head: the shared biaffine arc/label scorers with exact MST decoding
(`dialectbench.backends.parsing`).

UPOS is never an input. Gold tags would not exist for a real user's text, and in the zero-shot setting
a tagger trained on the source treebank is itself a large source of error on other varieties, which
would be hidden if gold tags were fed. Instead UPOS prediction is an auxiliary training loss on the
BiLSTM states (multi-task), which helps the encoder without needing tags at test time.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence, pad_sequence

from dialectbench import progress
from dialectbench.backends.base import TrainingDataError
from dialectbench.backends.baseline.attention import AttentionEncoder
from dialectbench.backends.baseline.common import BaselineModel, check_examples
from dialectbench.backends.baseline.configs import ParserConfig
from dialectbench.backends.parsing import ParserHead, make_dropout, tag_classifier, word_char_features
from dialectbench.data.examples import Sentence

PAD, UNK, ROOT = 0, 1, 2
ROOT_FORM = "\x00root"


SMALL_TREEBANK_WORDS = 20_000


class _Vocab:
    def __init__(self, items: Sequence[str], reserved: int):
        self.itos = list(items)
        self.stoi = {s: i + reserved for i, s in enumerate(self.itos)}
        self.reserved = reserved

    def __len__(self) -> int:
        return len(self.itos) + self.reserved

    def get(self, s: str, default: int = UNK) -> int:
        return self.stoi.get(s, default)


class _Encoder(nn.Module):
    def __init__(self, cfg: ParserConfig, n_words: int, n_chars: int, n_upos: int):
        super().__init__()
        self.words = nn.Embedding(n_words, cfg.word_dim, padding_idx=PAD)
        self.chars = nn.Embedding(n_chars, cfg.char_dim, padding_idx=PAD)
        self.char_cnn = nn.Conv1d(cfg.char_dim, cfg.char_filters, kernel_size=3, padding=1)
        self.dropout = make_dropout(cfg.dropout, cfg.fast_dropout)
        if cfg.fast_dropout:
            # one nn.LSTM a layer, so the dropout between layers is ours (nn.LSTM's own uses bernoulli_)
            self.layers = nn.ModuleList(
                nn.LSTM(cfg.word_dim + cfg.char_filters if i == 0 else 2 * cfg.lstm_hidden, cfg.lstm_hidden,
                        batch_first=True, bidirectional=True) for i in range(cfg.lstm_layers))
        else:
            self.lstm = nn.LSTM(cfg.word_dim + cfg.char_filters, cfg.lstm_hidden, cfg.lstm_layers,
                                batch_first=True, bidirectional=True, dropout=cfg.dropout)
        self.upos = tag_classifier(2 * cfg.lstm_hidden, n_upos, cfg.upos_hidden, cfg.dropout, cfg.fast_dropout)
        self.out_dim = 2 * cfg.lstm_hidden

    def forward(self, word_ids, type_chars, type_index, lengths):
        """word_ids/type_index (B, T); type_chars (n_types, L): char CNN runs once per word type."""
        x = word_char_features(self, word_ids, type_chars, type_index)
        packed = pack_padded_sequence(self.dropout(x), lengths.cpu(), batch_first=True,
                                      enforce_sorted=False)
        if hasattr(self, "lstm"):
            out, _ = self.lstm(packed)
        else:
            out = packed
            for i, layer in enumerate(self.layers):
                if i:  # dropout on the packed words only, not on padding
                    out = PackedSequence(self.dropout(out.data), out.batch_sizes, out.sorted_indices,
                                         out.unsorted_indices)
                out, _ = layer(out)
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=word_ids.shape[1])
        return self.dropout(out)


class _ConvEncoder(nn.Module):
    """Word + char features -> residual gated dilated 1-D convolutions (kernel 3, one block per entry of
    `conv_dilations`). Every block is one matrix multiply over all positions of the batch at once, where
    the BiLSTM steps through a sentence word by word and leaves the CPU mostly idle.

    The convolution is written as shift-and-concatenate + nn.Linear rather than nn.Conv1d: the same GEMM
    as every other layer, not oneDNN's convolution kernels, which choose algorithms by CPU. Positions
    past a sentence's end are zeroed before every block, so a sentence's states do not depend on the
    batch it is padded in."""

    def __init__(self, cfg: ParserConfig, n_words: int, n_chars: int, n_upos: int):
        super().__init__()
        d = cfg.conv_dim
        self.words = nn.Embedding(n_words, cfg.word_dim, padding_idx=PAD)
        self.chars = nn.Embedding(n_chars, cfg.char_dim, padding_idx=PAD)
        self.char_cnn = nn.Conv1d(cfg.char_dim, cfg.char_filters, kernel_size=3, padding=1)
        self.dropout = nn.Dropout(cfg.dropout)
        self.proj = nn.Linear(cfg.word_dim + cfg.char_filters, d)
        self.dilations = tuple(cfg.conv_dilations)
        self.blocks = nn.ModuleList(nn.Linear(3 * d, 2 * d) for _ in self.dilations)  # GLU: value, gate
        self.norms = nn.ModuleList(nn.LayerNorm(d) for _ in self.dilations)
        self.upos = tag_classifier(d, n_upos, cfg.upos_hidden, cfg.dropout, cfg.fast_dropout)
        self.out_dim = d

    def forward(self, word_ids, type_chars, type_index, lengths):
        x = word_char_features(self, word_ids, type_chars, type_index)
        keep = (torch.arange(word_ids.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(-1).to(x.dtype)
        h = self.proj(self.dropout(x)) * keep
        for block, norm, dil in zip(self.blocks, self.norms, self.dilations):
            y = block(torch.cat([_shift(h, dil), h, _shift(h, -dil)], -1))
            y = nn.functional.glu(y, -1)
            h = norm(h + self.dropout(y)) * keep
        return self.dropout(h)


def _shift(h: torch.Tensor, k: int) -> torch.Tensor:
    """h (B, T, d) moved k positions along T (k > 0: each position sees the one k to its left), zeros in."""
    if k == 0:
        return h
    if abs(k) >= h.shape[1]:
        return torch.zeros_like(h)
    pad = h.new_zeros(h.shape[0], abs(k), h.shape[2])
    return torch.cat([pad, h[:, :-k]], 1) if k > 0 else torch.cat([h[:, -k:], pad], 1)


ENCODERS = {"bilstm": _Encoder, "cnn": _ConvEncoder, "transformer": AttentionEncoder}


class _Net(nn.Module):
    def __init__(self, cfg: ParserConfig, n_words: int, n_chars: int, n_upos: int, n_labels: int):
        super().__init__()
        if cfg.arch not in ENCODERS:
            raise ValueError(f"ParserConfig.arch: unknown encoder {cfg.arch!r}; known: {', '.join(ENCODERS)}")
        self.encoder = ENCODERS[cfg.arch](cfg, n_words, n_chars, n_upos)
        self.head = ParserHead(self.encoder.out_dim, n_labels, cfg.arc_hidden, cfg.label_hidden,
                               cfg.dropout, cfg.fast_dropout, cfg.arc_max_distance)


class BiaffineParser(BaselineModel):
    """Fitted char+word BiLSTM biaffine parser; predicts (heads, deprels) per sentence."""

    def __init__(self, task: str = "dep", seed: int = 0, config: ParserConfig | None = None):
        self.task, self.seed = task, seed
        self.config = config or ParserConfig()
        self.history: list[dict] = []

    # -- vocabularies and batches -------------------------------------------------------------
    def _build_vocabs(self, train: list[Sentence]) -> None:
        counts = Counter(w.lower() for s in train for w in s.words)
        self.word_counts = counts
        self.words = _Vocab([w for w, c in counts.most_common() if c >= self.config.min_word_count], 3)
        self.chars = _Vocab(sorted({ch for s in train for w in s.words for ch in w}), 3)
        self.labels = _Vocab(sorted({r for s in train for r in s.deprels}), 0)
        self.upos = _Vocab(sorted({t for s in train for t in s.upos}) or ["X"], 0)

    def _encode(self, sents: list[Sentence], train: bool) -> _Encoded:
        """Each sentence's ids as tensors, built once per fit or parse: batches then only gather and pad
        (a per-token Python loop in every batch cost ~12% of a fit)."""
        types: dict[str, int] = {ROOT_FORM: 0}
        alpha = self.config.word_dropout
        out = _Encoded(types)
        for s in sents:
            forms = [ROOT_FORM, *s.words]
            out.type_ids.append(torch.tensor([types.setdefault(w, len(types)) for w in forms]))
            lows = [w.lower() for w in s.words]
            out.word_ids.append(torch.tensor([ROOT, *(self.words.get(w) for w in lows)]))
            if not train:
                continue
            # p(unk) = alpha / (alpha + count) for words in the vocabulary, never for ROOT or UNK
            out.drop_p.append(torch.tensor([0.0, *(alpha / (alpha + self.word_counts[w])
                                                   if self.words.get(w) != UNK else 0.0 for w in lows)]))
            out.heads.append(torch.tensor([0, *s.heads]))
            out.labels.append(torch.tensor([0, *(self.labels.get(r, 0) for r in s.deprels)]))
            has_upos = len(s.upos) == len(s.words)
            out.has_upos.append(has_upos)
            out.upos.append(torch.tensor([0, *(self.upos.get(t, 0) for t in s.upos)]) if has_upos
                            else torch.zeros(len(forms), dtype=torch.long))
        chars = [[ROOT]] + [[self.chars.get(ch) for ch in t] for t in list(types)[1:]]
        out.type_chars = _pad([torch.tensor(c) for c in chars])
        out.type_lengths = torch.tensor([len(c) for c in chars])
        return out

    def _batch(self, enc: _Encoded, idx: list[int], gen: torch.Generator | None = None) -> dict:
        """A padded batch of the encoded sentences `idx`; with `gen`, training targets and word dropout."""
        type_ids = _pad([enc.type_ids[i] for i in idx])
        word_ids = _pad([enc.word_ids[i] for i in idx])
        lengths = torch.tensor([len(enc.word_ids[i]) for i in idx])
        mask = torch.arange(word_ids.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)
        # the char CNN runs once per distinct form in the batch, padded to the batch's longest form
        uniq, type_index = torch.unique(type_ids.masked_fill(~mask, 0), return_inverse=True)
        type_chars = enc.type_chars[uniq, :int(enc.type_lengths[uniq].max())]
        batch = {"word_ids": word_ids, "type_chars": type_chars, "type_index": type_index,
                 "lengths": lengths, "mask": mask}
        if gen is not None:
            drop = torch.rand(word_ids.shape, generator=gen) < _pad([enc.drop_p[i] for i in idx])
            batch["word_ids"] = word_ids.masked_fill(drop, UNK)
            for key in ("heads", "labels", "upos"):
                batch[key] = _pad([getattr(enc, key)[i] for i in idx])
            batch["has_upos"] = torch.tensor([enc.has_upos[i] for i in idx])
        return batch

    def _batches(self, sents: list[Sentence], rng: random.Random | None = None) -> list[list[int]]:
        """Indices grouped by similar length, about batch_tokens words each (shuffled when rng)."""
        order = sorted(range(len(sents)), key=lambda i: (len(sents[i].words),
                                                         rng.random() if rng else i))
        batches, cur, tokens = [], [], 0
        for i in order:
            cur.append(i)
            tokens += len(sents[i].words) + 1
            if tokens >= self.config.batch_tokens:
                batches.append(cur)
                cur, tokens = [], 0
        if cur:
            batches.append(cur)
        if rng:
            rng.shuffle(batches)
        return batches

    # -- training -----------------------------------------------------------------------------
    def fit(self, train: Sequence[Sentence], dev: Sequence[Sentence] | None = None) -> BiaffineParser:
        train = [s for s in check_examples(self.task, train, Sentence, "training") if s.words]
        if not train:
            raise TrainingDataError(f"{self.task}: every training sentence is empty; nothing to fit")
        for s in train:
            _check_tree(s)
        dev = [s for s in check_examples(self.task, dev or [], Sentence, "dev") if s.words]
        cfg = self.config
        # small treebanks make small matrices: extra intra-op threads only add synchronisation, and on a
        # busy machine they thrash (a 120-sentence fit went from ~10 s to ~170 s with 2 threads under load)
        threads = cfg.threads
        if threads is None and sum(len(s.words) for s in train) < SMALL_TREEBANK_WORDS:
            threads = 1
        with _threads(threads):
            torch.manual_seed(self.seed)
            rng = random.Random(self.seed)
            self._build_vocabs(train)
            self.net = _Net(cfg, len(self.words), len(self.chars), len(self.upos), len(self.labels))
            # fused: one kernel updates all parameters (a per-tensor loop was ~9% of a fit, the foreach
            # ops another ~9%; same losses to 1e-9 on UD_English-EWT)
            opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr, betas=(0.9, 0.9), fused=True)
            self._train_loop(train, dev, opt, rng)
        return self

    def _train_loop(self, train, dev, opt, rng) -> None:
        """Epochs until max_epochs, the work budget, or `patience` epochs without a dev UAS gain; keeps
        the best-on-dev weights (the last ones without dev)."""
        cfg = self.config
        encoded = self._encode(train, train=True)
        gen = torch.Generator().manual_seed(self.seed)  # word dropout
        budget = _Budget(cfg)
        # -inf: without dev the score is minus the training loss, below any finite start (a start of
        # -1 stopped every treebank without a dev split after `patience` epochs, however its loss fell)
        best, best_state, bad_epochs = float("-inf"), None, 0
        total = self._planned_words(train)
        # progress against the words the fit likely goes through (patience stops a fit with dev early), as
        # the runner's ETA weighs the fit (BaselineBackend.fit_weight); past them it reads as done
        expected = self.config.expected_words(sum(len(s.words) for s in train), len(self._batches(train)),
                                              bool(dev))
        budget.schedule = (opt, cfg.lr, total if cfg.lr_decay else None, cfg.warmup_share * total)
        budget.set_lr(0)
        for epoch in range(1, cfg.max_epochs + 1):
            loss = self._epoch(train, encoded, opt, rng, gen, budget,
                               lambda epoch=epoch: progress.report("fit", done=budget.words, total=expected,
                                                                   unit="words", epoch=epoch,
                                                                   epochs=cfg.max_epochs))
            score = self._uas(dev) if dev else -loss
            self.history.append({"epoch": epoch, "loss": loss, "dev_uas": score if dev else None,
                                 **budget.elapsed()})
            if cfg.verbose:
                print(f"  parser epoch {epoch}: {self.history[-1]}", file=sys.stderr)
            if score > best:
                best, bad_epochs = score, 0
                best_state = {k: v.detach().clone() for k, v in self.net.state_dict().items()}
            else:
                bad_epochs += 1
            if budget.spent or bad_epochs >= cfg.patience or (dev and score >= 100.0):
                break
        if dev and best_state is not None:
            self.net.load_state_dict(best_state)
        self.net.eval()

    def _planned_words(self, train: list[Sentence]) -> float:
        return self.config.planned_words(sum(len(s.words) for s in train), len(self._batches(train)))

    def _epoch(self, train, encoded, opt, rng, gen, budget: _Budget, report=lambda: None) -> float:
        """One pass (repeated up to min_steps_per_epoch updates on tiny data); mean loss. `report()`
        after each update tells the driver how far the fit is (throttled by `progress`)."""
        self.net.train()
        steps, loss_sum = 0, 0.0
        while not budget.spent and (steps < self.config.min_steps_per_epoch or steps == 0):
            for idx in self._batches(train, rng):
                loss_sum += self._step(self._batch(encoded, idx, gen), opt)
                steps += 1
                spent = budget.spend(sum(len(train[i].words) for i in idx))
                report()
                if spent:
                    break
        return loss_sum / steps

    def _step(self, b: dict, opt) -> float:
        enc = self.net.encoder
        states = enc(b["word_ids"], b["type_chars"], b["type_index"], b["lengths"])
        loss = self.net.head.loss(states, b["mask"], b["heads"], b["labels"])
        words = b["mask"].clone()
        words[:, 0] = False
        words &= b["has_upos"].unsqueeze(1)
        if words.any():
            upos_loss = nn.functional.cross_entropy(enc.upos(states[words]), b["upos"][words])
            loss = loss + (upos_loss if self.config.upos_weight == 1.0 else self.config.upos_weight * upos_loss)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.net.parameters(), 5.0)
        opt.step()
        return loss.item()

    def _uas(self, sents: list[Sentence]) -> float:
        pred = self._parse(sents)
        total = sum(len(s.words) for s in sents)
        return 100.0 * sum(h == g for s, (hs, _) in zip(sents, pred) for h, g in zip(hs, s.heads)) / total

    # -- prediction ---------------------------------------------------------------------------
    @torch.no_grad()
    def _parse(self, sents: list[Sentence]) -> list[tuple[tuple[int, ...], tuple[str, ...]]]:
        self.net.eval()
        out: list = [None] * len(sents)
        encoded = self._encode(sents, train=False)
        for idx in self._batches(sents):
            b = self._batch(encoded, idx)
            states = self.net.encoder(b["word_ids"], b["type_chars"], b["type_index"], b["lengths"])
            heads, labels = self.net.head.decode(states, b["mask"])
            for i, h, lab in zip(idx, heads, labels):
                out[i] = (tuple(h), tuple(self.labels.itos[k] for k in lab))
        return out

    @torch.no_grad()
    def predict_upos(self, examples: Sequence[Sentence]) -> list[tuple[str, ...]]:
        """UPOS from the auxiliary tagging loss's classifier on the parser's encoder (issue 41: how far a
        joint tagger-parser would get without the CRF fit). Not a job's prediction; a measurement."""
        examples = check_examples(self.task, examples, Sentence, "test")
        out: list = [()] * len(examples)
        nonempty = [i for i, s in enumerate(examples) if s.words]
        sents = [examples[i] for i in nonempty]
        with _threads(self.config.threads):
            self.net.eval()
            encoded = self._encode(sents, train=False)
            for idx in self._batches(sents):
                b = self._batch(encoded, idx)
                states = self.net.encoder(b["word_ids"], b["type_chars"], b["type_index"], b["lengths"])
                ids = self.net.encoder.upos(states).argmax(-1).tolist()
                for k, i in enumerate(idx):
                    out[nonempty[i]] = tuple(self.upos.itos[t] for t in ids[k][1:len(sents[i].words) + 1])
        return out

    def predict(self, examples: Sequence[Sentence]) -> list[tuple[tuple[int, ...], tuple[str, ...]]]:
        examples = check_examples(self.task, examples, Sentence, "test")
        nonempty = [i for i, s in enumerate(examples) if s.words]
        out: list = [((), ())] * len(examples)
        with _threads(self.config.threads):
            for i, parse in zip(nonempty, self._parse([examples[i] for i in nonempty])):
                out[i] = parse
        return out

    # -- pickling: store weights, rebuild the module on load ------------------------------------
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        if "net" in state:
            state["net"] = {k: v.clone() for k, v in self.net.state_dict().items()}
        state["config"] = asdict(self.config)
        return state

    def __setstate__(self, state: dict) -> None:
        net_state = state.pop("net", None)
        self.__dict__.update(state)
        self.config = ParserConfig(**state["config"])
        if net_state is not None:
            self.net = _Net(self.config, len(self.words), len(self.chars), len(self.upos), len(self.labels))
            self.net.load_state_dict(net_state)
            self.net.eval()


@dataclass
class _Encoded:
    """Per-sentence id tensors (position 0 = ROOT) and the char ids of each distinct form."""

    types: dict[str, int]
    type_ids: list[torch.Tensor] = field(default_factory=list)
    word_ids: list[torch.Tensor] = field(default_factory=list)
    drop_p: list[torch.Tensor] = field(default_factory=list)
    heads: list[torch.Tensor] = field(default_factory=list)
    labels: list[torch.Tensor] = field(default_factory=list)
    upos: list[torch.Tensor] = field(default_factory=list)
    has_upos: list[bool] = field(default_factory=list)
    type_chars: torch.Tensor | None = None
    type_lengths: torch.Tensor | None = None


def _pad(rows: list[torch.Tensor]) -> torch.Tensor:
    return pad_sequence(rows, batch_first=True, padding_value=0)


def _check_tree(s: Sentence) -> None:
    n = len(s.words)
    if len(s.heads) != n or len(s.deprels) != n:
        raise TrainingDataError(f"dep: sentence {s.example_id} has {n} words but {len(s.heads)} heads "
                                f"and {len(s.deprels)} deprels")
    bad = [h for h in s.heads if not 0 <= h <= n]
    if bad:
        raise TrainingDataError(f"dep: sentence {s.example_id} has head {bad[0]} outside 0..{n}")


class _Budget:
    """Training words and wall seconds spent against the config's caps."""

    def __init__(self, cfg: ParserConfig):
        self.cfg, self.words, self.spent = cfg, 0, False
        self.start, self.cpu_start = time.perf_counter(), time.process_time()
        # (optimizer, base lr, planned words or None: no decay, warmup words): linear warmup from 0, then
        # linear decay to 0 over the planned words
        self.schedule: tuple | None = None

    def set_lr(self, words: int) -> None:
        if self.schedule is None:
            return
        opt, lr, total, warmup = self.schedule
        if warmup:  # the step after `words` words: never 0 at the first update
            lr *= min(1.0, (words + 1) / warmup)
        if total is not None:
            lr *= max(0.0, 1.0 - words / total)
        for group in opt.param_groups:
            group["lr"] = lr

    def spend(self, words: int) -> bool:
        self.words += words
        self.set_lr(self.words)
        cap_words, cap_s = self.cfg.max_train_words, self.cfg.max_seconds
        self.spent = ((cap_words is not None and self.words >= cap_words)
                      or (cap_s is not None and time.perf_counter() - self.start > cap_s))
        return self.spent

    def elapsed(self) -> dict[str, float]:
        return {"words": self.words, "seconds": round(time.perf_counter() - self.start, 1),
                "cpu_seconds": round(time.process_time() - self.cpu_start, 1)}


class _threads:
    """Temporarily set torch's intra-op thread count."""

    def __init__(self, n: int | None):
        self.n, self.prev = n, None

    def __enter__(self):
        if self.n:
            self.prev = torch.get_num_threads()
            torch.set_num_threads(self.n)

    def __exit__(self, *exc):
        if self.prev:
            torch.set_num_threads(self.prev)

