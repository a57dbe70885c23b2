"""Unfairness measures of SD-QA §3: the generalized entropy index with its exact within/between
decomposition, population-weighted averages and max - min.

E^a(b) = 1/(n a (a-1)) * sum_i[(b_i/mu)^a - 1]. For groups g with n_g members, mean mu_g, r_g = mu_g/mu:
  within  = sum_g w_g E^a(b^g),  w_g = (n_g/n) r_g^a
  between = sum_g (n_g/(n a (a-1))) (r_g^a - 1)   (= E^a of the vector with each b_i replaced by mu_g)
and total = within + between exactly. The per-group components are laid out as SD-QA Tables 16-18:
each group's *weighted* within term (the Table 16 en-US row: the eleven per-dialect within values plus
the between value add up to the printed total 0.02456) and its between term (negative when the group is
below the overall mean - "treated unfairly with respect to the rest").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

COMPONENT_COLUMNS = ["group", "n", "mean", "ge", "weight", "within", "between"]


@dataclass(frozen=True)
class GEResult:
    """total = within + between; `components` has one row per group with columns group, n, mean, ge (the
    group's own index E^a(b^g)), weight (w_g), within (w_g * ge) and between (the group's between term);
    the within and between columns sum to the totals."""

    alpha: float
    total: float
    within: float
    between: float
    components: pd.DataFrame


def _check_benefits(b: np.ndarray, alpha: float) -> None:
    if alpha in (0, 1):
        raise ValueError(f"alpha={alpha:g}: the index is defined here for alpha != 0, 1 (those are the "
                         "mean log deviation and Theil limits)")
    if b.size == 0:
        raise ValueError("no benefit values")
    if not np.all(np.isfinite(b)):
        raise ValueError("benefit values must be finite numbers (found NaN or inf)")
    if b.mean() <= 0:
        raise ValueError(f"mean benefit is {b.mean():g}; the index needs a positive mean")
    if np.any(b < 0) and float(alpha) != int(alpha):
        raise ValueError(f"negative benefits (min {b.min():g}) are undefined for non-integer alpha={alpha:g}")
    if alpha < 0 and np.any(b == 0):
        raise ValueError(f"zero benefits are undefined for negative alpha={alpha:g}")


def generalized_entropy(values: Sequence[float] | np.ndarray, groups: Sequence[Any] | None = None,
                        alpha: float = 2.0) -> GEResult:
    """Generalized entropy index of the benefits `values` (e.g. F1 per question, 1 - WER per utterance),
    decomposed over `groups` (one label per value; None = a single group)."""
    b = np.asarray(values, dtype=float).ravel()
    alpha = float(alpha)
    _check_benefits(b, alpha)
    n, mu, k = b.size, b.mean(), alpha * (alpha - 1.0)
    labels = np.zeros(n, dtype=int) if groups is None else None
    if groups is not None:
        g = groups.to_numpy() if isinstance(groups, pd.Series) else np.asarray(groups)
        if g.shape != (n,):
            raise ValueError(f"{n} values but {g.size} group labels")
        missing = pd.isna(g)
        if missing.any():
            raise ValueError(f"group label missing for value {int(np.flatnonzero(missing)[0])}")
        labels, names = pd.factorize(g, sort=True)
    else:
        names = pd.Index(["all"])
    r = b / mu
    n_g = np.bincount(labels, minlength=len(names)).astype(float)
    rho = np.bincount(labels, weights=r, minlength=len(names)) / n_g          # mu_g / mu
    t_g = np.bincount(labels, weights=r ** alpha, minlength=len(names))       # sum_i (b_i/mu)^a
    within_g = (t_g / n - (n_g / n) * rho ** alpha) / k                       # w_g * E_g, stable at mu_g = 0
    between_g = (n_g / n) * (rho ** alpha - 1.0) / k
    weight = (n_g / n) * rho ** alpha
    with np.errstate(divide="ignore", invalid="ignore"):
        ge_g = np.where(weight > 0, within_g / weight, np.nan)
    comps = pd.DataFrame({"group": list(names), "n": n_g.astype(int), "mean": rho * mu, "ge": ge_g,
                          "weight": weight, "within": within_g, "between": between_g},
                         columns=COMPONENT_COLUMNS)
    total = float(((r ** alpha).mean() - 1.0) / k)
    return GEResult(alpha, total, float(within_g.sum()), float(between_g.sum()), comps)


def avg_pop(values: Sequence[float], populations: Sequence[float | None]) -> float:
    """Population-weighted mean (demographic utility). Pairs whose population is missing (None/NaN) are
    left out; NaN when no pair has a population or all populations are zero."""
    v = np.asarray(values, dtype=float)
    p = np.asarray([np.nan if x is None else x for x in populations], dtype=float)
    if v.shape != p.shape:
        raise ValueError(f"{v.size} values but {p.size} populations")
    if np.any(p < 0):
        raise ValueError("populations must be non-negative")
    keep = ~np.isnan(p) & ~np.isnan(v)
    if not keep.any() or p[keep].sum() == 0:
        return float("nan")
    return float(np.average(v[keep], weights=p[keep]))


def max_min(values: Sequence[float]) -> float:
    """max - min: the simplest unfairness proxy of SD-QA §3 (NaN values ignored)."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    return float(v.max() - v.min()) if v.size else float("nan")
