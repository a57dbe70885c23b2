"""The backend interface every model family implements (baseline, hf, llm).

A backend turns a training set into a fitted model; a fitted model predicts on examples. Predictions
per task:
  dep  -> tuple[heads tuple[int], deprels tuple[str]]   pos -> tuple[str] (UPOS per word)
  ner  -> tuple[str] (tag per token)                    did/sa/tc/nli -> str (label)
  mrc  -> int (option index)                            eqa -> str (answer text)
  mt-* -> str (translation)

Capabilities are declared on the base classes below, each with its default; a backend subclasses
`Backend` (its fitted models `FittedModel`) and overrides what it has. The runner reads them as plain
attributes. An object that does not subclass them (a script's own duck-typed backend or model) is read
through `declared(backend)` and `model_capability(model, name)`, the one place that still looks attributes
up, each with the default declared here. Fitted baseline models are also plain picklable objects.
`fit` raises TrainingDataError when the training set cannot be used (empty, wrong example type), and
`train` may be empty only for tasks whose model needs no training (the MT copy baseline).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from dialectbench.data.examples import Example


class TrainingDataError(ValueError):
    """The training set cannot be used to fit the model (e.g. it is empty)."""


class UnsupportedTaskError(ValueError):
    """The backend has no model for this task."""


class FittedModel:
    """A fitted model: `predict(examples)`, and what the runner may read about how it answered."""

    reports_as: str | None = None  # a label under which scores are reported instead of the backend name
    signature: str = ""  # how it answered (e.g. "icl|hf-causal|mode:loglikelihood|k:4"); heads the score's
    max_invalid: float | None = None  # a model that may leave examples unanswered (InvalidAnswer): the
    #                                   share above which the runner fails the job; the count is stored
    prompt_note: str = ""  # a remark on the prompts (stored with the score)
    fallbacks: int = 0  # predictions made by a fallback rule (stored with the score when > 0)
    log_samples: bool = False  # --log-samples: the runner stores `last_samples` with the job
    last_samples: Sequence[Any] = ()
    last_rankings: dict[str, Any] | None = None  # loglikelihood mode: per-example answer rankings
    demos: Sequence[Any] | None = None  # icl: the demonstrations used (None: the training set)
    cross_fit_extra: Any = None  # a cross-fitted model: golds -> its folds and what it had seen (crossfit.py)

    def predict(self, examples: Sequence[Example]) -> list[Any]:
        raise NotImplementedError


class Backend:
    """A model family's backend: `fit(task, train, dev, seed=0) -> FittedModel`, and its capabilities.

    Override what applies; the defaults are those of a CPU backend that trains on every task it fits.
    """

    name: str = ""
    supports_icl: bool = False  # fits in-context learners (setting icl); the runner runs them in process
    training_free_tasks: tuple[str, ...] = ()  # evaluated without training data when a task has none
    cross_fit_tasks: tuple[str, ...] = ()  # without training data: cross-fitted on the test sets
    device: str = "cpu"  # a cuda/mps device keeps jobs in the main process

    # JSON-able settings that change results (the runner keys its cache on them): a property, or a plain
    # attribute set in __init__
    config: Mapping[str, Any] = MappingProxyType({})

    def fit(self, task: str, train: Sequence[Example], dev: Sequence[Example] | None, *,
            seed: int = 0) -> FittedModel:
        raise NotImplementedError

    def preflight(self) -> None:
        """Fail here, once, before any job, when the model cannot be loaded."""

    def attach_store(self, path: Any) -> None:
        """The runner hands over the result store before reading `config` (the LLM request cache lives there)."""

    def fit_weight(self, task: str, train_bytes: float, *, dev: bool = False) -> float | None:
        """The relative cost of a fit on `train_bytes` of data (scheduling and the ETA); None: by its size."""
        return None

    def job_seconds(self, task: str, n_train: int, n_dev: int, n_test: int, **words: Any) -> Any:
        """`plan --estimate`'s (fit s, evaluation s) of a job with this backend (entry `cost="backend"`);
        None: no estimate of its own."""
        return None


_DEFAULTS = {name: getattr(Backend, name) for name in ("name", "supports_icl", "training_free_tasks",
                                                         "cross_fit_tasks", "device")}
_MODEL_DEFAULTS = {name: getattr(FittedModel, name) for name in (
    "reports_as", "signature", "max_invalid", "prompt_note", "fallbacks", "log_samples", "last_samples",
    "last_rankings", "demos", "cross_fit_extra")}


class Declared(Backend):
    """A duck-typed backend (one that does not subclass `Backend`) with its capabilities read once, each
    defaulting as `Backend` declares; everything else is the wrapped object's."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        for name, default in _DEFAULTS.items():
            setattr(self, name, getattr(backend, name, default))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_backend":
            raise AttributeError(name)
        return getattr(self._backend, name)

    @property
    def config(self) -> Mapping[str, Any]:  # type: ignore[override]
        return getattr(self._backend, "config", {})

    def fit(self, *args: Any, **kwargs: Any) -> Any:
        return self._backend.fit(*args, **kwargs)

    def preflight(self) -> None:
        check = getattr(self._backend, "preflight", None)
        if check is not None:
            check()

    def attach_store(self, path: Any) -> None:
        attach = getattr(self._backend, "attach_store", None)
        if attach is not None:
            attach(path)

    def fit_weight(self, task: str, train_bytes: float, *, dev: bool = False) -> float | None:
        weigh = getattr(self._backend, "fit_weight", None)
        return weigh(task, train_bytes, dev=dev) if callable(weigh) else None

    def job_seconds(self, task: str, n_train: int, n_dev: int, n_test: int, **words: Any) -> Any:
        estimate = getattr(self._backend, "job_seconds", None)
        return estimate(task, n_train, n_dev, n_test, **words) if callable(estimate) else None


def declared(backend: Any) -> Backend:
    """`backend` as a `Backend`: itself when it subclasses it, else wrapped in `Declared`."""
    return backend if isinstance(backend, Backend) else Declared(backend)


def model_capability(model: Any, name: str) -> Any:
    """A fitted model's declared `name` (one of `FittedModel`'s attributes): a duck-typed model that
    lacks it gets `FittedModel`'s default."""
    default = _MODEL_DEFAULTS[name]  # a KeyError for a name FittedModel does not declare
    return getattr(model, name) if isinstance(model, FittedModel) else getattr(model, name, default)


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
