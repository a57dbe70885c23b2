"""Bootstrap intervals, paired bootstrap tests and rank correlation.

Resampling is vectorised: each chunk of resamples draws one (chunk, n) index matrix from a seeded
numpy Generator and evaluates the statistic along axis 1, so there is no Python loop per resample; the
chunk size bounds memory (about `max_cells` indices at a time). As in sacrebleu, corpus metrics that
pool counts are resampled from per-example sufficient statistics: pass a 2-D (n, k) array and a
statistic such as `ratio_of_sums` (e.g. rows (correct, total) for UAS, (errors, words) for WER).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

Statistic = Callable[..., np.ndarray]


def mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Mean of per-example values (the default statistic)."""
    return np.mean(x, axis=axis)


def ratio_of_sums(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """sum(column 0) / sum(column 1) over examples, for (n, 2) rows of (numerator, denominator) counts."""
    s = np.sum(x, axis=axis - 1 if axis < 0 else axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        return s[..., 0] / s[..., 1]


@dataclass(frozen=True)
class BootstrapResult:
    estimate: float
    low: float
    high: float
    confidence: float
    n_resamples: int
    std_error: float


@dataclass(frozen=True)
class PairedBootstrapResult:
    """estimate = statistic(a) - statistic(b); [low, high] its percentile interval; p_value two-sided for
    H0: no difference (the shifted-null test: how often a resampled difference lies at least |estimate|
    away from the estimate)."""

    estimate: float
    low: float
    high: float
    p_value: float
    confidence: float
    n_resamples: int
    estimate_a: float
    estimate_b: float


@dataclass(frozen=True)
class SpearmanResult:
    rho: float
    p_value: float
    n: int


def _as_data(values) -> np.ndarray:
    x = np.asarray(values, dtype=float)
    if x.ndim not in (1, 2) or x.shape[0] == 0:
        raise ValueError(f"need a non-empty 1-D array of values or 2-D (n, k) statistics, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("values must be finite (found NaN or inf)")
    return x


def _check(n_resamples: int, confidence: float) -> None:
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")


def _resampled(datas: Sequence[np.ndarray], statistic: Statistic, n_resamples: int, seed: int,
               max_cells: int) -> list[np.ndarray]:
    """Statistic of each data array on the same resampled indices: one array of n_resamples per input."""
    n = datas[0].shape[0]
    rng = np.random.default_rng(seed)
    chunk = max(1, min(n_resamples, max_cells // max(n, 1)))
    index_type = np.int32 if n < 2**31 else np.int64  # half the memory traffic of int64 indices
    outs: list[list[np.ndarray]] = [[] for _ in datas]
    for start in range(0, n_resamples, chunk):
        idx = rng.integers(0, n, size=(min(chunk, n_resamples - start), n), dtype=index_type)
        for out, data in zip(outs, datas):
            out.append(np.asarray(statistic(data[idx], axis=1), dtype=float))
    return [np.concatenate(o) for o in outs]


def _interval(samples: np.ndarray, confidence: float) -> tuple[float, float]:
    tail = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(samples, [tail, 1.0 - tail])
    return float(lo), float(hi)


def bootstrap_ci(values, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0,
                 statistic: Statistic = mean, *, max_cells: int = 4_000_000) -> BootstrapResult:
    """Percentile bootstrap interval of `statistic` over examples (seeded, vectorised)."""
    _check(n_resamples, confidence)
    x = _as_data(values)
    est = float(statistic(x[None, ...], axis=1)[0])
    (boot,) = _resampled([x], statistic, n_resamples, seed, max_cells)
    lo, hi = _interval(boot, confidence)
    return BootstrapResult(est, lo, hi, confidence, n_resamples, float(np.std(boot, ddof=1))
                           if n_resamples > 1 else float("nan"))


def paired_bootstrap(a, b, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0,
                     statistic: Statistic = mean, *, max_cells: int = 4_000_000) -> PairedBootstrapResult:
    """Paired bootstrap between two systems scored on the same examples (same resampled indices)."""
    _check(n_resamples, confidence)
    xa, xb = _as_data(a), _as_data(b)
    if xa.shape != xb.shape:
        raise ValueError(f"paired bootstrap needs the same examples: shapes {xa.shape} and {xb.shape}")
    ea = float(statistic(xa[None, ...], axis=1)[0])
    eb = float(statistic(xb[None, ...], axis=1)[0])
    sa, sb = _resampled([xa, xb], statistic, n_resamples, seed, max_cells)
    delta, est = sa - sb, ea - eb
    lo, hi = _interval(delta, confidence)
    extreme = np.count_nonzero(np.abs(delta - est) >= abs(est) - 1e-12)
    p = (extreme + 1) / (n_resamples + 1)
    return PairedBootstrapResult(est, lo, hi, float(min(1.0, p)), confidence, n_resamples, ea, eb)


def spearman(x: Sequence[float], y: Sequence[float]) -> SpearmanResult:
    """Spearman rank correlation (scipy) of paired values, e.g. per-variety WER vs downstream F1 (SD-QA
    Table 15). Pairs with a NaN are dropped; rho is NaN with fewer than 2 pairs or a constant side."""
    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xa.shape != ya.shape or xa.ndim != 1:
        raise ValueError(f"need two equally long 1-D sequences, got shapes {xa.shape} and {ya.shape}")
    keep = ~(np.isnan(xa) | np.isnan(ya))
    xa, ya = xa[keep], ya[keep]
    if xa.size < 2 or np.ptp(xa) == 0 or np.ptp(ya) == 0:
        return SpearmanResult(float("nan"), float("nan"), int(xa.size))
    from scipy import stats as sps  # here: importing scipy.stats costs every analysis and report ~1 s

    res = sps.spearmanr(xa, ya)
    return SpearmanResult(float(res.statistic), float(res.pvalue), int(xa.size))
