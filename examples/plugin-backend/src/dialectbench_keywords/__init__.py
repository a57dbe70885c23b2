"""A keyword-overlap text classifier, as a dialectbench backend plugin (see the README)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from dialectbench.backends import Backend, BackendEntry, FittedModel
from dialectbench.backends.base import TrainingDataError, UnsupportedTaskError

TASKS = ("did", "sa", "tc")
_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


class KeywordModel(FittedModel):
    def __init__(self, keywords: dict[str, frozenset[str]], top: int) -> None:
        self.keywords = keywords
        self.signature = f"keywords:top{top}|ties:first-label"  # heads the stored score's signature
        self.fallbacks = 0  # texts with no keyword, or a tie: answered with the first tied label

    def predict(self, examples: Sequence[Any]) -> list[str]:
        out = []
        for ex in examples:
            words = _words(ex.text)
            hits = {label: len(words & kw) for label, kw in self.keywords.items()}
            best = max(hits.values())
            tied = sorted(label for label, n in hits.items() if n == best)
            self.fallbacks += best == 0 or len(tied) > 1
            out.append(tied[0])
        return out


class KeywordBackend(Backend):
    name = "keywords"

    def __init__(self, top: int = 20) -> None:
        if top < 1:
            raise ValueError(f"keywords: top must be at least 1 (got {top})")
        self.top = int(top)

    @property
    def config(self) -> dict[str, Any]:
        return {"top": self.top}

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None = None, *,
            seed: int = 0) -> KeywordModel:
        if task not in TASKS:
            raise UnsupportedTaskError(f"keywords: no model for {task!r} (tasks: {', '.join(TASKS)})")
        if not train:
            raise TrainingDataError(f"keywords: {task} needs training texts")
        per_label: dict[str, Counter] = {}
        for ex in train:
            per_label.setdefault(ex.label, Counter()).update(_words(ex.text))
        overall = sum(per_label.values(), Counter())
        keywords = {}
        for label, counts in per_label.items():
            # over-representation: the label's share of a word's documents (add-one smoothed), then frequency
            ranked = sorted(counts, key=lambda w: (-(counts[w] / (overall[w] + 1)), -counts[w], w))
            keywords[label] = frozenset(ranked[:self.top])
        return KeywordModel(keywords, self.top)


def make(arg: str, **options: Any) -> KeywordBackend:
    return KeywordBackend(**options)


ENTRY = BackendEntry("keywords", "dialectbench_keywords:make", options=("top",), tasks=TASKS,
                     description="keyword overlap per label (example plugin; ties: first label, counted "
                                 "as fallbacks)")
