"""Scoring with invalid answers (backends.base.InvalidAnswer): each one counts as wrong.

An unanswered example is replaced by a stand-in that cannot match its gold, and the label set the
classification metrics average over is the gold labels plus the valid predictions — so the stand-in is
neither a guess (the old majority-label fallback scored 50.0 on 30 empty replies) nor an extra class
that would drag macro-F1 down by a phantom label.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from dialectbench.backends.base import InvalidAnswer
from dialectbench.tasks import TASKS

_LABEL_STAND_IN = "\x00invalid"


def invalid_positions(predictions: Sequence[Any]) -> list[int]:
    return [i for i, p in enumerate(predictions) if isinstance(p, InvalidAnswer)]


def score_options(task: str, golds: Sequence[Any], predictions: Sequence[Any]) -> tuple[list[Any], dict[str, Any]]:
    """(predictions with stand-ins, extra keyword options for score_task)."""
    bad = set(invalid_positions(predictions))
    if not bad:
        return list(predictions), {}
    kind = TASKS[task].protocol if task in TASKS else None
    if kind is not None and kind.labelled:
        labels = {str(g.label) for g in golds} | {str(p) for i, p in enumerate(predictions) if i not in bad}
        return [_LABEL_STAND_IN if i in bad else p for i, p in enumerate(predictions)], {"labels": sorted(labels)}
    if kind is not None and kind.answer_index:
        labels = {int(g.answer) for g in golds} | {int(p) for i, p in enumerate(predictions) if i not in bad}
        return [-1 if i in bad else p for i, p in enumerate(predictions)], {"labels": sorted(labels)}
    if kind is not None and kind.invalid_stand_in is not None:
        return [kind.invalid_stand_in if i in bad else p for i, p in enumerate(predictions)], {}
    raise ValueError(f"{task}: the model returned invalid answers for a task that has no invalid-answer scoring")


def invalid_extra(predictions: Sequence[Any]) -> dict[str, Any]:
    """{"invalid": count, "invalid_reasons": {reason: count}}; {"invalid": 0} when all were answered."""
    reasons = Counter(p.reason for p in predictions if isinstance(p, InvalidAnswer))
    return {"invalid": sum(reasons.values()), **({"invalid_reasons": dict(sorted(reasons.items()))} if reasons else {})}


def stored(predictions: Sequence[Any]) -> list[Any]:
    """Predictions as stored: an invalid answer is null."""
    return [None if isinstance(p, InvalidAnswer) else p for p in predictions]
