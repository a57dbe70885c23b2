"""Bootstrap intervals for stored scores, from the per-example evidence a run keeps.

A corpus score is only resampled by a statistic that reproduces it: pooled counts (UAS = correct/words,
tagging accuracy = correct/tokens, entity F1 = 2 tp / (predicted + gold)) or the mean of per-example values
(accuracy-like metrics). When none reproduces the stored score (to 1e-6 points) (macro F1, BLEU,
DId's class F1) the score gets no interval rather than an interval around a different number.
"""

from __future__ import annotations

from collections.abc import Callable
from statistics import NormalDist
from typing import Any

import numpy as np

from dialectbench.analysis.stats import bootstrap_ci

TOLERANCE = 1e-6  # points: the statistic must give the stored number itself, not a near miss


def _first_over_last(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """sum(first column) / sum(last column): UAS from (uas, las, words), accuracy from (correct, n)."""
    s = np.sum(x, axis=axis - 1 if axis < 0 else axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        return s[..., 0] / s[..., -1]


def _f1_of_sums(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """2 tp / (predicted + gold) from rows (tp, n_predicted, n_gold)."""
    s = np.sum(x, axis=axis - 1 if axis < 0 else axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 2.0 * s[..., 0] / (s[..., 1] + s[..., 2])


def _mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis)


# the statistic read from evidence["values"]; every other candidate reads evidence["stats"]
MEAN_OF_VALUES = "mean of per-example values"


def _candidates(evidence: dict[str, Any]) -> list[tuple[str, np.ndarray, Callable]]:
    out = []
    if "stats" in evidence:
        stats = np.asarray(evidence["stats"], dtype=float)
        # entity F1 first: when predicted = gold entities, F1 = tp / gold = "pooled counts" too (recall),
        # whose SE is another statistic's; a UAS row (uas, las, words) reproduces F1 only when all are right
        if stats.shape[1] == 3:
            out.append(("pooled entity counts", stats, _f1_of_sums))
        out.append(("pooled counts", stats, _first_over_last))
    if "values" in evidence:
        out.append((MEAN_OF_VALUES, np.asarray(evidence["values"], dtype=float), _mean))
    return out


def score_interval(score: float, evidence: dict[str, Any] | None, n_resamples: int = 1000,
                   confidence: float = 0.95, seed: int = 0) -> dict[str, Any] | None:
    """{low, high, se, how} in points for a stored score, or None when no statistic reproduces it."""
    for how, data, stat in _candidates(evidence or {}):
        with np.errstate(divide="ignore", invalid="ignore"):
            estimate = 100.0 * float(stat(data[None, ...], axis=1)[0])
        if not np.isfinite(estimate) or abs(estimate - score) > TOLERANCE:
            continue
        res = bootstrap_ci(data, n_resamples=n_resamples, confidence=confidence, seed=seed, statistic=stat)
        if np.isfinite(res.low) and np.isfinite(res.high):
            return {"low": 100.0 * res.low, "high": 100.0 * res.high, "se": 100.0 * res.std_error, "how": how}
    return None


def mean_interval(ses: list[float], mean: float, confidence: float = 0.95) -> tuple[float, float] | None:
    """Normal interval of a mean of k independently measured scores from their bootstrap standard errors
    (SE = sqrt(sum se_i^2) / k); None unless every score has one."""
    if not ses or any(s is None or not np.isfinite(s) for s in ses):
        return None
    se = float(np.sqrt(np.sum(np.square(ses)))) / len(ses)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    return mean - z * se, mean + z * se


def _ratio_parts(how: str, data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-example numerator and denominator of the statistic: every candidate is a ratio of sums."""
    if how == MEAN_OF_VALUES:
        return data, np.ones_like(data)
    if how == "pooled entity counts":
        return 2.0 * data[:, 0], data[:, 1] + data[:, 2]
    return data[:, 0], data[:, -1]


def score_se(score: float, evidence: dict[str, Any] | None) -> dict[str, Any] | None:
    """{se, how} in points: the item-level standard error of a stored score, by the delta method for a
    ratio of sums, sqrt(sum (a_i - R b_i)^2) / sum b_i (for a mean of per-example values, sd / sqrt(n)):
    the large-sample value the item bootstrap estimates, in O(n) and without draws (a headline reads one
    per score of a run; a report of 50,000 scores cannot bootstrap each). None when no statistic
    reproduces the stored score."""
    found = score_influence(score, evidence)
    return None if found is None else {"se": found["se"], "how": found["how"]}


def score_influence(score: float, evidence: dict[str, Any] | None) -> dict[str, Any] | None:
    """`score_se` with the per-example influence values behind it: {se, how, psi, rows}, psi[j] =
    100 (a_j - R b_j) / sum b (points), one per row of the evidence named by `rows` ("values" or "stats"),
    so that se = sqrt(sum psi_j^2). A mean of several scores that share examples sums its scores' psi per
    shared example before squaring (analysis.headline). None when no statistic reproduces the score."""
    for how, data, stat in _candidates(evidence or {}):
        with np.errstate(divide="ignore", invalid="ignore"):
            estimate = 100.0 * float(stat(data[None, ...], axis=1)[0])
        if not np.isfinite(estimate) or abs(estimate - score) > TOLERANCE:
            continue
        a, b = _ratio_parts(how, data)
        total = float(np.sum(b))
        if total <= 0:
            continue
        ratio = float(np.sum(a)) / total
        psi = a - ratio * b
        return {"se": 100.0 * float(np.sqrt(np.sum(psi ** 2))) / total, "how": how, "psi": 100.0 * psi / total,
                "rows": "values" if how == MEAN_OF_VALUES else "stats"}
    return None
