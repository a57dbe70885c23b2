"""Shared pieces of the baseline models: the fitted-model base class and input checks."""

from __future__ import annotations

import pickle
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dialectbench.backends.base import FittedModel, TrainingDataError


class BaselineModel(FittedModel):
    """A fitted baseline model. Picklable; `save`/`load` wrap pickle for the runner's cache."""

    task: str = ""
    reports_as: str | None = None  # e.g. "copy" for the MT no-translation baseline

    def predict(self, examples: Sequence[Any]) -> list[Any]:
        raise NotImplementedError

    def save(self, path: str | Path) -> None:
        with open(path, "wb") as f:
            pickle.dump(self, f, protocol=pickle.HIGHEST_PROTOCOL)

    @staticmethod
    def load(path: str | Path) -> BaselineModel:
        with open(path, "rb") as f:
            model = pickle.load(f)
        if not isinstance(model, BaselineModel):
            raise TypeError(f"{path}: not a saved baseline model ({type(model).__name__})")
        return model


def check_examples(task: str, examples: Sequence[Any], kind: type | tuple[type, ...], what: str) -> list:
    """The examples as a list; a clear error when empty or of the wrong type for the task."""
    examples = list(examples)
    if not examples and what == "training":
        raise TrainingDataError(f"{task}: the training set is empty; nothing to fit")
    for i, ex in enumerate(examples):
        if not isinstance(ex, kind):
            names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            raise TypeError(f"{task}: {what} example {i} is a {type(ex).__name__}, expected {names}")
    return examples


_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lower-cased word and punctuation tokens (any script)."""
    return [t.lower() for t in _TOKEN.findall(text)]


def token_spans(text: str) -> list[tuple[int, int]]:
    """Character (start, end) of each token `tokenize` would return."""
    return [m.span() for m in _TOKEN.finditer(text)]
