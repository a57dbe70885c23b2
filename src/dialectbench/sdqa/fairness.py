"""Generalized entropy with its within/between decomposition (SD-QA §3), per group: a thin view over
`dialectbench.analysis.generalized_entropy` keyed by group name, with an all-zero benefit (nobody
benefits) reported as undefined (NaN) instead of an error, so a table row can say so."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dialectbench.analysis import generalized_entropy


@dataclass(frozen=True)
class Decomposition:
    total: float
    within: float
    between: float
    within_parts: dict[str, float]   # group -> (n_g/n)(mu_g/mu)^a E^a(b^g); they sum to `within`
    between_parts: dict[str, float]  # group -> n_g/(n a(a-1)) [(mu_g/mu)^a - 1]; they sum to `between`
    means: dict[str, float]


def ge_decomposition(benefits, groups, alpha: float = 2.0) -> Decomposition:
    b = np.asarray(benefits, dtype=float)
    g = [str(x) for x in groups]
    if b.size and b.mean() == 0:
        nan = float("nan")
        return Decomposition(nan, nan, nan, {}, {}, {k: 0.0 for k in dict.fromkeys(g)})
    res = generalized_entropy(b, g, alpha=alpha)
    c = res.components
    order = list(dict.fromkeys(g))  # keep the caller's group order (the shared result is sorted)
    within, between, means = (dict(zip(c["group"], c[col])) for col in ("within", "between", "mean"))
    return Decomposition(res.total, res.within, res.between, {k: float(within[k]) for k in order},
                         {k: float(between[k]) for k in order}, {k: float(means[k]) for k in order})
