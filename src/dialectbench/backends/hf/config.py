"""Per-task fine-tuning and inference defaults, in one table.

Values follow common practice for base-size encoders (DialectBench does not print its hyper-parameters):
token tasks and parsing train longer with a larger head learning rate; QA uses SQuAD's 384/128 windows.
Any field can be overridden per backend (`HFBackend(..., overrides={"epochs": 1})`) or per task
(`overrides={"pos": {"epochs": 1}}`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class TaskConfig:
    lr: float = 3e-5  # encoder learning rate (AdamW)
    head_lr: float | None = None  # new task-head parameters; None = lr
    epochs: int = 5
    batch_size: int = 32
    eval_batch_size: int = 64
    max_length: int = 256  # sub-word tokens per input (per window for QA)
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    patience: int = 2  # epochs without dev improvement before stopping
    max_dev: int = 2000  # dev examples scored after each epoch (a fixed prefix)
    stride: int = 128  # QA: overlap between windows of a long context
    n_best: int = 20  # QA: start/end candidates per window
    max_answer_length: int = 30  # QA: sub-word tokens
    num_beams: int = 4  # MT
    max_new_tokens: int = 256  # MT
    target_code: str = "eng_Latn"  # MT: DialectBench translates every variety into English
    max_minutes: float | None = None  # wall-clock cap on one fine-tuning (`run --max-train-minutes`)


TASK_DEFAULTS: dict[str, TaskConfig] = {
    "pos": TaskConfig(lr=5e-5, head_lr=1e-3, epochs=10, batch_size=32, max_length=256),
    "ner": TaskConfig(lr=5e-5, head_lr=1e-3, epochs=10, batch_size=32, max_length=256),
    "dep": TaskConfig(lr=5e-5, head_lr=2e-3, epochs=10, batch_size=32, max_length=256),
    "did": TaskConfig(lr=3e-5, epochs=5, batch_size=32, max_length=128),
    "sa": TaskConfig(lr=3e-5, epochs=5, batch_size=32, max_length=128),
    "tc": TaskConfig(lr=3e-5, epochs=10, batch_size=32, max_length=128),
    "nli": TaskConfig(lr=2e-5, epochs=3, batch_size=32, max_length=128),
    "mrc": TaskConfig(lr=1e-5, epochs=3, batch_size=8, eval_batch_size=16, max_length=512),
    "eqa": TaskConfig(lr=3e-5, epochs=3, batch_size=16, eval_batch_size=32, max_length=384),
    "mt-dialect": TaskConfig(lr=5e-5, epochs=3, batch_size=16, eval_batch_size=32, max_length=256),
    "mt-region": TaskConfig(lr=5e-5, epochs=3, batch_size=16, eval_batch_size=32, max_length=256),
}

_FIELDS = {f.name for f in fields(TaskConfig)}


def task_config(task: str, overrides: dict[str, Any] | None = None) -> TaskConfig:
    """The task's defaults with `overrides` applied: flat keys apply to every task, a task id maps to a
    dict for that task only. Unknown keys are an error (a typo must not silently do nothing)."""
    if task not in TASK_DEFAULTS:
        raise KeyError(f"no defaults for task {task!r}; known: {', '.join(TASK_DEFAULTS)}")
    overrides = dict(overrides or {})
    flat = {k: v for k, v in overrides.items() if k not in TASK_DEFAULTS}
    per_task = overrides.get(task) or {}
    unknown = sorted((set(flat) | set(per_task)) - _FIELDS)
    if unknown:
        raise KeyError(f"unknown training option(s) {', '.join(unknown)}; known: {', '.join(sorted(_FIELDS))}")
    return replace(TASK_DEFAULTS[task], **flat, **per_task)
