"""The backend interface every model family implements (baseline, hf, llm).

A backend turns a training set into a fitted model; a fitted model predicts on examples. Predictions
per task:
  dep  -> tuple[heads tuple[int], deprels tuple[str]]   pos -> tuple[str] (UPOS per word)
  ner  -> tuple[str] (tag per token)                    did/sa/tc/nli -> str (label)
  mrc  -> int (option index)                            eqa -> str (answer text)
  mt-* -> str (translation)

Conventions (optional attributes; read them with getattr(..., default)):
  Backend.config -> dict        JSON-able settings that change results (the runner keys its cache on it).
  FittedModel.reports_as        None, or a label under which scores are reported instead of the backend
                                name (the MT copy baseline says "copy").
  FittedModel.save(path) / load Fitted baseline models are also plain picklable objects.
  FittedModel.signature         how it answered (e.g. "icl|hf-causal|mode:loglikelihood|k:4"); heads the
                                score's signature.
  FittedModel.max_invalid       a model that may leave examples unanswered (InvalidAnswer predictions):
                                the share above which the runner fails the job; the count is stored.
  Backend.attach_store(path)    the runner hands over the result store (the LLM request cache lives there).
`fit` raises TrainingDataError when the training set cannot be used (empty, wrong example type), and
`train` may be empty only for tasks whose model needs no training (the MT copy baseline).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from dialectbench.data.examples import Example


class TrainingDataError(ValueError):
    """The training set cannot be used to fit the model (e.g. it is empty)."""


class UnsupportedTaskError(ValueError):
    """The backend has no model for this task."""


class FittedModel(Protocol):
    def predict(self, examples: Sequence[Example]) -> list[Any]: ...


class Backend(Protocol):
    name: str

    def fit(self, task: str, train: Sequence[Example], dev: Sequence[Example] | None, *,
            seed: int = 0) -> FittedModel: ...


class BackendUnavailableError(RuntimeError):
    """The model server cannot be reached: every further job would fail the same way, so the run stops
    (once, with this one-line message) instead of failing each job after its own retries."""


class InvalidAnswer:
    """A prediction for an example the model did not answer (empty, null, unparseable or over-long reply).

    Scored as wrong (never replaced by a guess such as the majority label), stored as null, counted per
    job in the score's extra["invalid"]; a job whose invalid share exceeds the model's `max_invalid` fails.
    """

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"InvalidAnswer({self.reason!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, InvalidAnswer) and other.reason == self.reason

    def __hash__(self) -> int:
        return hash(("InvalidAnswer", self.reason))
