"""Max-obtainable scores and the summaries of DialectBench Table 3 and Tables 23-31."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dialectbench.analysis.fairness import avg_pop
from dialectbench.analysis.scores_io import variety_registry
from dialectbench.tasks import TASKS


def _merit(df: pd.DataFrame) -> pd.Series:
    """The score signed by the task's declared direction (tasks.yaml `higher_is_better`): "best" and
    "worst" below are its max and min, whichever way the task's metric runs."""
    sign = df["task"].map(lambda t: 1.0 if t not in TASKS or TASKS[t].higher_is_better else -1.0)
    return df["score"] * sign

MAX_COLUMNS = ["task", "cluster", "variety", "score", "model", "setting", "train_on"]
CLUSTER_COLUMNS = ["task", "cluster", "n_varieties", "linguistic_utility", "demographic_utility",
                   "min_variety", "min_score", "std"]
TASK_COLUMNS = ["task", "n_clusters", "n_varieties", "average", "max_cluster", "max_variety", "max_score",
                "min_cluster", "min_variety", "min_score"]


def max_scores(df: pd.DataFrame) -> pd.DataFrame:
    """Max-obtainable score per (task, cluster, variety): the best over all models, settings and training
    sets, with the row that attains it (the first such row in table order on ties)."""
    if df.empty:
        return pd.DataFrame(columns=MAX_COLUMNS)
    work = df.reset_index(drop=True)
    best = work.assign(_merit=_merit(work)).groupby(["task", "cluster", "variety"], sort=False)["_merit"].idxmax()
    out = work.loc[best.to_numpy(), MAX_COLUMNS]
    return out.sort_values(["task", "cluster", "score"], ascending=[True, True, False]).reset_index(drop=True)


def task_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Seed 000 Table 3 per task: number of clusters and varieties, the mean of the varieties' max scores,
    and the varieties (with their clusters) of the highest and lowest max score."""
    rows = []
    for task, g in max_scores(df).groupby("task", sort=True):
        merit = _merit(g)
        hi, lo = g.loc[merit.idxmax()], g.loc[merit.idxmin()]
        rows.append({"task": task, "n_clusters": g["cluster"].nunique(), "n_varieties": len(g),
                     "average": g["score"].mean(), "max_cluster": hi["cluster"], "max_variety": hi["variety"],
                     "max_score": hi["score"], "min_cluster": lo["cluster"], "min_variety": lo["variety"],
                     "min_score": lo["score"]})
    return pd.DataFrame(rows, columns=TASK_COLUMNS)


def _speaker_map(speakers: Any) -> Mapping[str, float] | None:
    """Speaker counts as {variety: count}; None means 'take them from the registry'."""
    if speakers is None:
        return None
    if isinstance(speakers, (str, Path)):
        speakers = pd.read_csv(speakers)
    if isinstance(speakers, pd.DataFrame):
        if not {"variety", "speakers"} <= set(speakers.columns):
            raise ValueError("a speakers table needs columns 'variety' and 'speakers'")
        speakers = dict(zip(speakers["variety"], speakers["speakers"]))
    if isinstance(speakers, pd.Series):
        speakers = speakers.to_dict()
    return {str(k).strip().lower(): _count(v) for k, v in dict(speakers).items()}


def _count(v: Any) -> float:
    """A speaker count, or NaN for '-', 'written', 'historical' and other non-numbers (as the metadata has)."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return float("nan")
    return x if math.isfinite(x) and x >= 0 else float("nan")


def _speakers_for(varieties: list[str], mapping: Mapping[str, float] | None) -> list[float]:
    if mapping is not None:
        return [mapping.get(v.strip().lower(), float("nan")) for v in varieties]
    reg = variety_registry()
    out = []
    for v in varieties:
        try:
            out.append(_count(reg.get(v).speakers) if reg is not None else float("nan"))
        except LookupError:
            out.append(float("nan"))
    return out


def cluster_summary(df: pd.DataFrame, speakers: Any = None) -> pd.DataFrame:
    """Seed 000 Tables 23-31 per (task, cluster), on the varieties' max-obtainable scores:
    linguistic utility (plain mean), demographic utility (speaker-weighted mean over the varieties that have
    a speaker count; NaN - printed "-" - when none has), the minimum variety and its score, and the sample
    standard deviation (n - 1; NaN for a one-variety cluster).

    `speakers`: None (use the variety registry), a mapping variety -> count, a Series, or a table/CSV path
    with columns variety, speakers. Non-numeric counts ('written', '-') count as missing.
    """
    mapping = _speaker_map(speakers)
    rows = []
    for (task, cluster), g in max_scores(df).groupby(["task", "cluster"], sort=True):
        scores = g["score"].to_numpy(dtype=float)
        lo = g.loc[_merit(g).idxmin()]
        rows.append({"task": task, "cluster": cluster, "n_varieties": len(g),
                     "linguistic_utility": float(scores.mean()),
                     "demographic_utility": avg_pop(scores, _speakers_for(list(g["variety"]), mapping)),
                     "min_variety": lo["variety"], "min_score": float(lo["score"]),
                     "std": float(np.std(scores, ddof=1)) if len(scores) > 1 else float("nan")})
    return pd.DataFrame(rows, columns=CLUSTER_COLUMNS)
