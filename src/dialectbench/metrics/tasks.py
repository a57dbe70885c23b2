"""`score_task`: the primary metric of each DialectBench task, computed from gold examples and the
predictions a backend returns (types in dialectbench.backends.base).

Primary metric per task (declared in tasks/tasks.yaml, which every layer reads; score_task checks that
each scorer reports the declared metric), chosen to match what DialectBench prints (checked against its Tables 3 and 23-31
and the original result files in dialectbench-original/results):
  dep  UAS (LAS in extra)                      - Table 10 "We report UAS"
  pos  F1 = seqeval on raw UPOS (accuracy in extra) - Table 11 values are the script's f1, not accuracy
  ner  entity F1, seqeval strict; scheme IOBES when the gold uses E-/S- tags, else IOB2
  did  macro F1; each variety's Table 16 score is its own class F1: extra["per_label"][label]["f1"]
  sa   accuracy - Table 29 (south levantine 58.9 = accuracy; its F1 is 34.6)
  tc   macro F1 - Table 17 caption; note Table 27 takes the max over accuracy and F1 columns
  nli  macro F1 - Table 26 (southern sotho 34.6 = mBERT F1; its accuracy is 39.4); the run_xnli script
       used evaluate's f1 with average="macro"
  mrc  macro F1 over answer options - Tables 3 and 30 (moroccan arabic 37.6 = XLM-R F1, accuracy 37.7);
       accuracy in extra (the usual Belebele figure)
  eqa  SQuAD span F1 (EM in extra)
  mt-* BLEU (chrF in extra)
Any option of the underlying metric can be passed through as a keyword argument.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from dialectbench.metrics.result import MetricResult, check_lengths
from dialectbench.tasks import TASKS

# the scorers import their metric module when they run (see metrics/__init__.py: sklearn and seqeval are
# slow imports); each task kind names its module, so that a worker pool can import them once, up front


def metric_modules(tasks: Sequence[str] | None = None) -> list[str]:
    """The modules that score `tasks` (None: all; unknown tasks are left to `score_task` to report)."""
    tasks = list(TASKS) if tasks is None else tasks
    return list(dict.fromkeys(f"dialectbench.metrics.{TASKS[t].protocol.metric_module}" for t in tasks
                              if t in TASKS))


def _field(golds, name: str, task: str) -> list:
    try:
        return [getattr(g, name) for g in golds]
    except AttributeError as e:
        raise TypeError(f"task {task!r} needs gold examples with a {name!r} field: {e}") from None


def _dep(golds, preds, **kw) -> MetricResult:
    for i, p in enumerate(preds):
        if not (isinstance(p, (tuple, list)) and len(p) == 2):
            raise TypeError(f"dep prediction {i} must be (heads, deprels), got {type(p).__name__}")
    from dialectbench.metrics.parsing import attachment_scores

    return attachment_scores(_field(golds, "heads", "dep"), _field(golds, "deprels", "dep"),
                             [p[0] for p in preds], [p[1] for p in preds],
                             gold_upos=_field(golds, "upos", "dep"), **kw)


def _pos(golds, preds, **kw) -> MetricResult:
    from dialectbench.metrics.tagging import pos_scores

    return pos_scores(_field(golds, "upos", "pos"), preds, **kw)


def _ner(golds, preds, **kw) -> MetricResult:
    from dialectbench.metrics.tagging import detect_scheme, entity_f1

    tags = _field(golds, "tags", "ner")
    kw.setdefault("scheme", detect_scheme(tags))
    return entity_f1(tags, preds, **kw)


def _labels(primary: str) -> Callable[..., MetricResult]:
    def score(golds, preds, **kw) -> MetricResult:
        from dialectbench.metrics.classification import classification_scores

        kw.setdefault("primary", primary)
        return classification_scores(_field(golds, "label", "classification"), preds, **kw)
    return score


def _mrc(golds, preds, **kw) -> MetricResult:
    from dialectbench.metrics.classification import classification_scores

    kw.setdefault("primary", "macro")
    res = classification_scores([int(a) for a in _field(golds, "answer", "mrc")],
                                [int(p) for p in preds], **kw)
    return MetricResult(res.metric, res.score, res.per_example, res.signature_object.prefixed("multiple-choice"),
                        res.extra)


def _eqa(golds, preds, **kw) -> MetricResult:
    from dialectbench.metrics.qa import squad_scores

    return squad_scores(_field(golds, "answers", "eqa"), preds, **kw)


def _mt(golds, preds, **kw) -> MetricResult:
    from dialectbench.metrics.generation import bleu

    return bleu(_field(golds, "reference", "mt"), preds, **kw)


# scorer (a task kind's `scorer`, tasks/kinds.py) -> function; a label task's primary (accuracy or macro
# F1) is the metric its declaration names
SCORERS: dict[str, Callable[..., MetricResult]] = {
    "parsing": _dep, "upos": _pos, "entities": _ner, "multiple-choice": _mrc, "squad": _eqa, "bleu": _mt}
_PRIMARY = {"accuracy": "accuracy", "macro_f1": "macro"}


def _scorer(task: str) -> Callable[..., MetricResult]:
    spec = TASKS[task]
    if spec.protocol.scorer == "labels":
        return _labels(_PRIMARY[spec.metric])
    return SCORERS[spec.protocol.scorer]


def score_task(task: str, golds: Sequence[Any], predictions: Sequence[Any], **options) -> MetricResult:
    """Score `predictions` against `golds` with the task's primary metric (see module doc)."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; known: {', '.join(TASKS)}")
    check_lengths(golds, predictions)
    result = _scorer(task)(list(golds), list(predictions), **options)
    declared = TASKS[task]
    if "primary" not in options and result.metric != declared.metric:  # tasks.yaml is the one declaration
        raise RuntimeError(f"{task}: scored {result.metric!r}, tasks.yaml declares {declared.metric!r}")
    return result
