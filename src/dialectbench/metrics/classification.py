"""Sequence classification (DId, SA, TC, NLI) and multiple choice (MRC), on scikit-learn.

All figures come from one call to sklearn's `precision_recall_fscore_support` / `accuracy_score` over
the labels present in gold or predictions (`zero_division=0`, as sklearn's classification_report that
DialectBench's DId script printed). Per-label F1 is kept: DialectBench scores each DId variety by the F1
of its own class (DialectBench Table 16; e.g. portuguese (m:written) 17.4 in Table 28).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
from sklearn.metrics import accuracy_score, precision_recall_fscore_support

from dialectbench.metrics.result import MetricResult, check_lengths, pct
from dialectbench.metrics.signature import Signature

AVERAGES = ("accuracy", "macro", "weighted", "micro")


def classification_scores(golds: Sequence[Hashable], preds: Sequence[Hashable], *,
                          primary: str = "macro", labels: Sequence[Hashable] | None = None) -> MetricResult:
    """Accuracy, macro/weighted/micro F1 and per-label P/R/F1/support; `primary` picks the score.

    per_example: 1.0 where the prediction is right, else 0.0.
    """
    check_lengths(golds, preds)
    if primary not in AVERAGES:
        raise ValueError(f"unknown primary {primary!r}; choose one of {AVERAGES}")
    y, p = [str(x) for x in golds], [str(x) for x in preds]
    if not y:
        return MetricResult(_name(primary), float("nan"), [], _sig(primary), {})
    labs = [str(x) for x in labels] if labels is not None else sorted(set(y) | set(p))
    extra: dict = {"accuracy": pct(accuracy_score(y, p))}
    for avg in ("macro", "weighted", "micro"):
        _, _, f, _ = precision_recall_fscore_support(y, p, labels=labs, average=avg, zero_division=0)
        extra[f"{avg}_f1"] = pct(f)
    pr, rc, f, sup = precision_recall_fscore_support(y, p, labels=labs, average=None, zero_division=0)
    extra["per_label"] = {lab: {"precision": pct(pr[i]), "recall": pct(rc[i]), "f1": pct(f[i]),
                                "support": int(sup[i])} for i, lab in enumerate(labs)}
    score = extra["accuracy"] if primary == "accuracy" else extra[f"{primary}_f1"]
    per = (np.asarray(y, dtype=object) == np.asarray(p, dtype=object)).astype(float).tolist()
    return MetricResult(_name(primary), score, per, _sig(primary), extra)


def _name(primary: str) -> str:
    return "accuracy" if primary == "accuracy" else f"{primary}_f1"


def _sig(primary: str) -> Signature:
    return Signature.build(_name(primary), "classification", ("primary", _name(primary)), "sklearn",
                           ("zero_division", 0), library="sklearn")


def multiple_choice_accuracy(gold_indices: Sequence[int], pred_indices: Sequence[int], *,
                             primary: str = "accuracy") -> MetricResult:
    """Multiple-choice accuracy (Belebele); macro F1 over option indices in extra (what DialectBench Table 19
    and Table 30 print as F1). `primary="macro"` makes that F1 the score."""
    res = classification_scores([int(g) for g in gold_indices], [int(p) for p in pred_indices],
                                primary=primary)
    return MetricResult(res.metric, res.score, res.per_example,
                        Signature.build(res.metric, "multiple-choice", ("primary", res.metric), "sklearn",
                                        library="sklearn"), res.extra)
