"""The value every metric returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dialectbench.metrics.signature import Signature

# metrics where less is better; every other metric (accuracy, F1, UAS, BLEU, chrF...) is higher-is-better
LOWER_IS_BETTER = frozenset({"wer", "cer"})


@dataclass(frozen=True)
class MetricResult:
    """One metric on one evaluation set.

    `score` is the corpus figure in 0-100 (as the papers print it). `per_example` holds one value per
    example in 0-1 (a fraction: sentence UAS, QA F1, exact match, correctness, utterance WER...) or is
    None when the metric has no per-example decomposition (BLEU, chrF, macro F1). Corpus figures that pool
    counts (UAS, WER) are not the mean of `per_example`; their per-example sufficient statistics are in
    `extra["stats"]` (rows of counts, see each metric) so bootstrap intervals can resample them.
    `signature_object` names the metric and every option that changes the number (the metric builds it,
    metrics/signature.py); `signature` is its string, the one stored. Compare two scores only when their
    signatures match.
    """

    metric: str
    score: float
    per_example: list[float] | None = None
    signature_object: Signature | str = ""  # a string (a plugin's own metric) is read into the object
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def signature(self) -> str:
        """The signature string stored with the score: `str(signature_object)`."""
        return str(self.signature_object)

    @property
    def higher_is_better(self) -> bool:
        """The metric's direction, so that a WER never sorts like an F1."""
        return self.metric not in LOWER_IS_BETTER

    def __post_init__(self) -> None:
        if isinstance(self.signature_object, str):  # frozen: set once, here
            object.__setattr__(self, "signature_object", Signature.from_string(self.signature_object, self.metric))
        if self.score != self.score:  # NaN is allowed (empty input) but never silently: say so in extra
            self.extra.setdefault("note", "undefined (no scorable items)")


def check_lengths(golds, predictions, what: str = "predictions") -> None:
    """Raise a clear error when golds and predictions do not pair up one to one."""
    if len(golds) != len(predictions):
        raise ValueError(f"{len(golds)} gold items but {len(predictions)} {what}; they must pair one to one")


def pct(x: float) -> float:
    return 100.0 * float(x)
