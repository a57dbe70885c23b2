"""`HFBackend`: the Backend protocol for any Hugging Face encoder or seq2seq checkpoint.

    backend = HFBackend("xlmr")                     # or "mbert", "nllb-600m", "hf:/path/to/model"
    model = backend.fit("pos", train, dev, seed=0)  # checks model/head/tokenizer, fine-tunes, keeps best epoch
    model.predict(test)                             # word-level UPOS per sentence
    mt = backend.fit("mt-dialect", [], None)        # MT: no training, the pretrained system translates
    mt.predict(test, variety="swiss german (zurich)")
"""

from __future__ import annotations

import inspect
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from dialectbench.backends.base import Backend, FittedModel, TrainingDataError, UnsupportedTaskError
from dialectbench.backends.hf.batching import Predictor, default_precision
from dialectbench.backends.hf.config import TASK_DEFAULTS, TaskConfig, task_config
from dialectbench.backends.hf.heads import HEADS, Head, Translation
from dialectbench.backends.hf.loading import ModelSpec, load_config, load_tokenizer, resolve
from dialectbench.backends.hf.train import TrainLog, fine_tune, seed_everything
from dialectbench.tasks import MT_TASKS


class HFBackend(Backend):
    """Fine-tunes (or, for MT, only loads) a checkpoint per training set.

    `device`: "cuda", "cpu" or None (cuda when available). `precision`: "bf16", "fp16", "fp32" or None
    (bf16 on a GPU that has it, else fp16; fp32 on CPU). `overrides`: training options (see config.py).
    """

    def __init__(self, model: str, *, device: str | None = None, precision: str | None = None,
                 overrides: dict[str, Any] | None = None, trust_remote_code: bool = False, verbose: bool = False):
        self.spec: ModelSpec = resolve(model, trust_remote_code=trust_remote_code)
        self.name = self.spec.name
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.precision = precision if precision is not None else default_precision(self.device)
        self.overrides = dict(overrides or {})
        for task in TASK_DEFAULTS:  # unknown option names fail now, not mid-run
            task_config(task, self.overrides)
        self.verbose = verbose

    def preflight(self) -> None:
        """Load the model's config and tokenizer once, before any job, so that a model that cannot be
        loaded fails the run up front (HFModelError) instead of once per job."""
        load_tokenizer(self.spec, load_config(self.spec))

    @property
    def config(self) -> dict[str, Any]:
        """What changes results (the runner keys its cache on it); the device does not belong here."""
        return {"model": self.spec.source, "overrides": self.overrides, "precision": self.precision,
                "trust_remote_code": self.spec.trust_remote_code}

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None = None, *,
            seed: int = 0) -> HFFittedModel:
        if task not in HEADS:
            raise UnsupportedTaskError(f"hf backend: unknown task {task!r}; known: {', '.join(HEADS)}")
        cfg = task_config(task, self.overrides)
        head = HEADS[task](task, cfg)
        train, dev = _checked(task, head, train, "training"), _checked(task, head, dev or [], "dev")
        if not train and task not in MT_TASKS:
            raise TrainingDataError(f"{task}: the training set is empty; nothing to fine-tune")
        # every check that can fail runs before the (slow) model load and training
        config = load_config(self.spec)
        head.check_model(self.spec, config)
        tokenizer = load_tokenizer(self.spec, config)
        head.check_tokenizer(tokenizer, self.spec)
        head.prepare(train)
        seed_everything(seed)
        model = head.build(self.spec, config, tokenizer).to(self.device).eval()
        fitted = HFFittedModel(head, model, tokenizer, self.device, self.precision, self.name, cfg)
        if train:
            fitted.log = self._train(fitted, train, dev, cfg)
        return fitted

    def _train(self, fitted: HFFittedModel, train: list, dev: list, cfg: TaskConfig) -> TrainLog:
        t0 = time.perf_counter()
        features = fitted.encode(train, train=True)
        dev = dev[:cfg.max_dev]
        dev_score = (lambda: fitted.score(dev)) if dev else None
        log = fine_tune(fitted.head, fitted.model, features, fitted.pad_id, cfg, device=self.device,
                        precision=self.precision, dev_score=dev_score, verbose=self.verbose)
        if self.verbose:
            print(f"[hf] {fitted.head.task}: trained on {len(train)} examples in {time.perf_counter() - t0:.1f}s "
                  f"(best epoch {log.best_epoch})", file=sys.stderr)
        return log


def _checked(task: str, head: Head, examples: Sequence[Any], what: str) -> list[Any]:
    examples = list(examples)
    for i, ex in enumerate(examples):
        if not isinstance(ex, head.example_type):
            kinds = head.example_type if isinstance(head.example_type, tuple) else (head.example_type,)
            raise TrainingDataError(f"{task}: {what} example {i} is a {type(ex).__name__}, expected "
                                    + "/".join(k.__name__ for k in kinds))
    return examples


class HFFittedModel(FittedModel):
    """A fine-tuned (or pretrained, for MT) model with its head; `predict` returns base.py's types."""

    reports_as: str | None = None

    def __init__(self, head: Head, model: torch.nn.Module, tokenizer: Any, device: torch.device,
                 precision: str | None, name: str, cfg: TaskConfig):
        self.head, self.model, self.tokenizer, self.name, self.cfg = head, model, tokenizer, name, cfg
        self.predictor = Predictor(device, cfg.eval_batch_size, precision)
        self.log: TrainLog | None = None

    @property
    def pad_id(self) -> int:
        return int(self.tokenizer.pad_token_id)

    @property
    def needs_variety(self) -> bool:
        """True when predictions depend on the source variety (NLLB language codes)."""
        return isinstance(self.head, Translation) and self.head.uses_codes

    def encode(self, examples: Sequence[Any], train: bool = False) -> list[dict[str, Any]]:
        return self.head.encode_many(self.tokenizer, list(examples), train)

    def predict(self, examples: Sequence[Any], variety: str | None = None) -> list[Any]:
        examples = _checked(self.head.task, self.head, examples, "test")
        if not examples:
            return []
        if isinstance(self.head, Translation):
            self.head.set_variety(variety)
        self.model.eval()
        features = self.encode(examples)
        outputs = self.predictor.run(features, lambda batch, chunk: self.head.step(self.model, batch, chunk),
                                     self.pad_id)
        return self.head.decode(examples, features, outputs)

    def score(self, examples: Sequence[Any]) -> float:
        """The task's primary metric (0-100) on `examples` (the dev score for early stopping)."""
        from dialectbench.metrics import score_task

        return float(score_task(self.head.task, examples, self.predict(examples)).score)

    def save(self, path: str | Path) -> None:
        """Weights, tokenizer and head state in a folder (torch.save of the whole object)."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        torch.save(self, path / "fitted.pt")

    @staticmethod
    def load(path: str | Path) -> HFFittedModel:
        model = torch.load(Path(path) / "fitted.pt", weights_only=False)
        if not isinstance(model, HFFittedModel):
            raise TypeError(f"{path}: not a saved HF model ({type(model).__name__})")
        return model


def accepts_variety(model: Any) -> bool:
    """Whether `model.predict` takes `variety=` (for the runner)."""
    try:
        return "variety" in inspect.signature(model.predict).parameters
    except (TypeError, ValueError):
        return False
