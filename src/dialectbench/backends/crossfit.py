"""Cross-fitting by passage: score a reader on the very questions whose passages it could otherwise only
have been trained on, without ever answering a question about a passage it was trained on.

The distinct passages (normalised context texts) of the training questions are ordered by a seeded hash
and dealt round-robin into K folds; model k is fitted on the training questions of every fold but k, and a
test question whose passage is in fold k is answered by model k. A test passage that no training question
has is answered by the model its hash picks (none was trained on it). Disjointness is therefore a property
of the construction, and `passage_leaks` counts it anyway, per answered question, for the job's flags.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from dialectbench.backends.base import FittedModel
from dialectbench.data.overlap import Overlap, normalise, overlap, text_set

DEFAULT_FOLDS = 5


def passage_key(example: Any) -> str:
    return normalise(example.context)


def _rank(seed: int, key: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{key}".encode()).digest()[:8], "big")


def passage_folds(examples: Sequence[Any], k: int = DEFAULT_FOLDS, seed: int = 0) -> dict[str, int]:
    """Passage key -> fold (0..k-1): every passage in exactly one fold, fold sizes differing by at most 1."""
    if k < 2:
        raise ValueError(f"cross-fitting needs at least 2 folds, got {k}")
    keys = sorted({passage_key(ex) for ex in examples}, key=lambda p: (_rank(seed, p), p))
    return {p: i % k for i, p in enumerate(keys)}


class CrossFitted(FittedModel):
    """K models fitted by `fit` on passage-disjoint folds of `train`; `predict` answers each example with
    the model that never saw its passage. `signature` says so wherever the scores are stored."""

    def __init__(self, fit: Callable[[list[Any]], Any], train: Sequence[Any], k: int = DEFAULT_FOLDS,
                 seed: int = 0, trained_on: str = "gold questions"):
        self.k, self.seed = k, seed
        self.folds = passage_folds(train, k, seed)
        if len(set(self.folds.values())) < k:
            raise ValueError(f"{len(self.folds)} distinct passages cannot fill {k} folds")
        self.trained_passages = [frozenset(p for p, f in self.folds.items() if f != i) for i in range(k)]
        parts = [[ex for ex in train if self.folds[passage_key(ex)] != i] for i in range(k)]
        self.train_texts = [text_set(part) for part in parts]
        self.n_train = len(train)
        self.models = [fit(part) for part in parts]
        self.signature = f"cross-fitted:{k} passage folds on {trained_on}"

    def fold_of(self, example: Any) -> int:
        key = passage_key(example)
        return self.folds[key] if key in self.folds else _rank(self.seed, key) % self.k

    def predict(self, examples: Sequence[Any]) -> list[Any]:
        examples = list(examples)
        out: list[Any] = [None] * len(examples)
        for i in range(self.k):
            idx = [j for j, ex in enumerate(examples) if self.fold_of(ex) == i]
            if idx:
                for j, pred in zip(idx, self.models[i].predict([examples[j] for j in idx])):
                    out[j] = pred
        return out

    def passage_leaks(self, examples: Sequence[Any]) -> int:
        """Examples whose passage the model that answers them was trained on (0 by construction)."""
        return sum(passage_key(ex) in self.trained_passages[self.fold_of(ex)] for ex in examples)

    def text_overlap(self, examples: Sequence[Any]) -> Overlap:
        """The leak check of data/overlap.py, per fold: test texts found in the answering model's training."""
        shared = 0
        for i in range(self.k):
            mine = [ex for ex in examples if self.fold_of(ex) == i]
            if mine:
                shared += overlap(mine, self.train_texts[i]).shared
        return Overlap(shared, len(examples))

    def cross_fit_extra(self, examples: Sequence[Any]) -> dict[str, Any]:
        """What a stored score says of the cross-fit: folds, sizes, and the passages its models had seen (0)."""
        return {"folds": self.k, "by": "passage", "train_questions": self.n_train,
                "passages": len(self.folds), "passages_seen": self.passage_leaks(examples)}
