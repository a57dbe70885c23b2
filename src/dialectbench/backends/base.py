"""The backend interface every model family implements (baseline, hf, llm).

A backend turns a training set into a fitted model; a fitted model predicts on examples. Predictions
per task:
  dep  -> tuple[heads tuple[int], deprels tuple[str]]   pos -> tuple[str] (UPOS per word)
  ner  -> tuple[str] (tag per token)                    did/sa/tc/nli -> str (label)
  mrc  -> int (option index)                            eqa -> str (answer text)
  mt-* -> str (translation)
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

from dialectbench.data.examples import Example


class FittedModel(Protocol):
    def predict(self, examples: Sequence[Example]) -> list[Any]: ...


class Backend(Protocol):
    name: str

    def fit(self, task: str, train: Sequence[Example], dev: Sequence[Example] | None, *,
            seed: int = 0) -> FittedModel: ...
