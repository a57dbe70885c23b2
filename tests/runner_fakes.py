"""Small stand-ins for the runner tests: an in-memory data source and a counting, optionally slow backend.

The source mirrors `dialectbench.data.open_source(...)` (varieties/splits/load/fingerprint); the backend
mirrors the Backend protocol. Variety names are real registry names so the real catalogue plans them.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dialectbench.data import DataNotAvailable
from dialectbench.data.examples import Sentence, TextExample


def _texts(prefix: str, labels: Sequence[str], n: int) -> list[TextExample]:
    return [TextExample(f"{prefix}-{i}", f"{labels[i % len(labels)]} words {prefix} {i}", labels[i % len(labels)])
            for i in range(n)]


def _sentences(prefix: str, n: int) -> list[Sentence]:
    words = ("the", "cat", "sat")
    return [Sentence(f"{prefix}-{i}", words, ("DET", "NOUN", "VERB"), (2, 3, 0), ("det", "nsubj", "root"))
            for i in range(n)]


def default_data() -> dict[tuple[str, str], dict[str, list[Any]]]:
    labels = ("science", "sports", "politics")
    tc = {
        "english": {"train": _texts("en-tr", labels, 12), "dev": _texts("en-dev", labels, 3),
                    "test": _texts("en-te", labels, 6)},
        "standard arabic": {"train": _texts("ar-tr", labels, 9), "test": _texts("ar-te", labels, 6)},
        "egyptian arabic": {"test": _texts("arz-te", labels, 5)},
        "moroccan arabic": {"test": []},                 # empty test split
        "north azerbaijani": {"test": _texts("az-te", labels, 4)},  # representative without train
        "south azerbaijani": {"test": _texts("azb-te", labels, 4)},
        "najdi arabic": {"dev": _texts("najdi-dev", labels, 3)},    # no test split
    }
    pos = {
        "english": {"train": _sentences("pos-en-tr", 5), "test": _sentences("pos-en-te", 3)},
        "singlish": {"test": _sentences("pos-sg-te", 3)},
        "albanian": {"train": _sentences("pos-sq-tr", 4), "test": _sentences("pos-sq-te", 3)},
        "gheg albanian": {"test": _sentences("pos-gheg-te", 2)},
    }
    data = {("tc", v): splits for v, splits in tc.items()}
    data.update({("pos", v): splits for v, splits in pos.items()})
    return data


@dataclass
class FakeSource:
    data: dict[tuple[str, str], dict[str, list[Any]]] = field(default_factory=default_data)
    loads: Counter = field(default_factory=Counter)

    def varieties(self, task: str) -> list[str]:
        return sorted(v for (t, v) in self.data if t == task)

    def splits(self, task: str, variety: str) -> set[str]:
        return set(self.data.get((task, variety), {}))

    def load(self, task: str, variety: str, split: str) -> list[Any]:
        try:
            examples = self.data[(task, variety)][split]
        except KeyError:
            raise DataNotAvailable(f"no {split} split for {variety} ({task})") from None
        self.loads[(task, variety, split)] += 1
        return list(examples)

    def fingerprint(self, task: str, variety: str, split: str) -> str:
        examples = self.data.get((task, variety), {}).get(split, [])
        return hashlib.sha256(json.dumps([repr(e) for e in examples]).encode()).hexdigest()[:16]


class _Majority:
    def __init__(self, task: str, label: str, delay: float) -> None:
        self.task, self.label, self.delay = task, label, delay

    def predict(self, examples: Sequence[Any]) -> list[Any]:
        time.sleep(self.delay)
        if self.task in ("pos",):
            return [tuple("NOUN" for _ in ex.words) for ex in examples]
        # right on examples whose text starts with the majority label, so scores differ per variety
        return [ex.text.split()[0] if ex.example_id.endswith(("0", "2", "4")) else self.label for ex in examples]


class FakeBackend:
    """Majority-label classifier / all-NOUN tagger; counts fits; `delay` seconds per fit and predict."""

    name = "fake"

    def __init__(self, delay: float | None = None) -> None:
        self.delay = float(os.environ.get("FAKE_BACKEND_DELAY", "0")) if delay is None else delay
        self.fits: list[tuple[str, int, int]] = []
        self.config = {"kind": "majority"}

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None, *, seed: int = 0) -> _Majority:
        time.sleep(self.delay)
        self.fits.append((task, len(train), len(dev or [])))
        labels = Counter(getattr(ex, "label", "NOUN") for ex in train)
        return _Majority(task, labels.most_common(1)[0][0] if labels else "NOUN", self.delay)


class FailingBackend(FakeBackend):
    """Raises in fit for one task: a backend bug must not stop the other groups."""

    def __init__(self, bad_task: str) -> None:
        super().__init__(0.0)
        self.bad_task = bad_task

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None, *, seed: int = 0) -> _Majority:
        if task == self.bad_task:
            raise RuntimeError("boom")
        return super().fit(task, train, dev, seed=seed)
