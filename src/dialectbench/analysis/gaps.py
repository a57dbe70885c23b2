"""Dialect gap metrics of seed 000 §3.3 and Table 4.

G_t(u, v) = (S_t(u) - S_t(v)) / S_t(u), reported in percent, per model, for three variants:
  eng_eng  G_eng(eng, v):  zero-shot scores; baseline = English (the anglic representative) in zero-shot.
  eng_rep  G_eng(v̄, v):   zero-shot scores; baseline = the cluster representative v̄ in zero-shot.
  ft_rep   G_t(v̄, v):     fine-tuned scores; baseline = v̄ fine-tuned. Each variety's fine-tuned score
           is taken from the first setting it has among in-variety, in-cluster, combined (Table 2 gives
           each task one of them), so for in-variety tasks this is the special case
           (S_v̄(v̄) - S_v(v)) / S_v̄(v̄).
Cluster level is the mean over the cluster's varieties that have the needed score, leaving the baseline
variety itself out (Table 4: anglic eng_rep DEP 34.2 = mean of Singlish and AAVE). A missing or zero
baseline, or a cluster with nothing to compare, gives value NaN and a `reason` - never inf or a crash.
If a variety has several rows in the same setting (different train_on), the best is used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

GAPS = ("eng_eng", "eng_rep", "ft_rep")
FT_SETTINGS = ("in-variety", "in-cluster", "combined")
CLUSTER_COLUMNS = ["task", "model", "cluster", "gap", "value", "n_varieties", "baseline", "reason"]
VARIETY_COLUMNS = ["task", "model", "cluster", "variety", "gap", "value", "baseline", "reason"]
_SETTING_WORD = {"eng_eng": "zero-shot", "eng_rep": "zero-shot", "ft_rep": "fine-tuned"}
Representatives = Mapping[str, str] | Mapping[tuple[str, str], str] | Callable[[str, str], str] | None


def _rep_lookup(representatives: Representatives) -> Callable[[str, str], str | None]:
    """(cluster, task) -> representative variety name, or None when unknown."""
    if callable(representatives):
        return representatives
    if representatives is not None:
        reps = dict(representatives)
        return lambda c, t: reps.get((c, t), reps.get(c))  # type: ignore[arg-type]

    def from_registry(cluster: str, task: str) -> str | None:
        from dialectbench.tasks import representative
        try:
            return representative(cluster, task).name
        except LookupError:  # no representative for this cluster/task
            return None
    return from_registry


def _zero_shot_source(task: str) -> str | None:
    """Standard English, the variety zero-shot transfer fine-tunes on (None for MT: no source)."""
    from dialectbench.tasks import zero_shot_source
    try:
        source = zero_shot_source(task)
    except LookupError:
        return None
    return source.name if source is not None else None


def _scores_by_setting(g: pd.DataFrame) -> tuple[dict[str, float], dict[str, float]]:
    """Zero-shot and fine-tuned score per variety for one (task, model)."""
    zs = g[g["setting"] == "zero-shot"].groupby("variety")["score"].max().to_dict()
    ft: dict[str, float] = {}
    for setting in FT_SETTINGS:
        for v, s in g[g["setting"] == setting].groupby("variety")["score"].max().items():
            ft.setdefault(v, float(s))
    return zs, ft


def _one_gap(base_name, base_score, score) -> tuple[float, str]:
    if base_name is None:
        return np.nan, "no baseline variety for this task and cluster"
    if base_score is None or np.isnan(base_score):
        return np.nan, f"no score for baseline {base_name!r}"
    if base_score == 0:
        return np.nan, f"baseline {base_name!r} scores 0; a relative gap is undefined"
    return 100.0 * (base_score - score) / base_score, ""


def _variety_rows(task: str, model: str, g: pd.DataFrame, rep_of, english: str | None) -> list[dict]:
    zs, ft = _scores_by_setting(g)
    # S_eng(eng): English tested after fine-tuning on English - its zero-shot row, else its in-variety row.
    own = g[(g["setting"] == "in-variety") & (g["variety"] == english)]["score"]
    eng_base = zs.get(english, float(own.max()) if len(own) else None) if english else None
    rows = []
    for (cluster, variety) in g[["cluster", "variety"]].drop_duplicates().itertuples(index=False):
        rep = rep_of(cluster, task)
        plan = (("eng_eng", english, eng_base, zs),
                ("eng_rep", rep, zs.get(rep) if rep else None, zs),
                ("ft_rep", rep, ft.get(rep) if rep else None, ft))
        for gap, base, base_score, table in plan:
            if variety not in table or variety == base:
                continue
            value, reason = _one_gap(base, base_score, table[variety])
            rows.append({"task": task, "model": model, "cluster": cluster, "variety": variety, "gap": gap,
                         "value": value, "baseline": base, "reason": reason})
    return rows


def variety_gaps(df: pd.DataFrame, representatives: Representatives = None,
                 english: str | Mapping[str, str] | None = None) -> pd.DataFrame:
    """Variety-level gaps (one row per task, model, variety and gap that has the needed score).

    `representatives`: mapping cluster -> variety, (cluster, task) -> variety, or a callable; default
    dialectbench.tasks.representative. `english`: the zero-shot source variety (a name, or task -> name);
    default the anglic representative.
    """
    rep_of = _rep_lookup(representatives)
    rows: list[dict] = []
    for (task, model), g in df.groupby(["task", "model"], sort=True):
        eng = english.get(task) if isinstance(english, Mapping) else english
        rows += _variety_rows(task, model, g, rep_of, eng or _zero_shot_source(task))
    return pd.DataFrame(rows, columns=VARIETY_COLUMNS)


def _cluster_row(key, g: pd.DataFrame, base: str | None) -> dict:
    ok = g["value"].notna()
    task, model, cluster, gap = key
    if ok.any():
        return {"task": task, "model": model, "cluster": cluster, "gap": gap,
                "value": float(g.loc[ok, "value"].mean()), "n_varieties": int(ok.sum()), "baseline": base,
                "reason": ""}
    if len(g):
        reason = g["reason"].iloc[0]
    elif base is None:
        reason = ("the task has no English zero-shot source" if gap == "eng_eng"
                  else "no representative for this cluster and task")
    else:
        reason = f"no variety other than {base!r} has a {_SETTING_WORD[gap]} score"
    return {"task": task, "model": model, "cluster": cluster, "gap": gap, "value": np.nan,
            "n_varieties": 0, "baseline": base, "reason": reason}


def gaps(df: pd.DataFrame, representatives: Representatives = None,
         english: str | Mapping[str, str] | None = None, level: str = "cluster") -> pd.DataFrame:
    """Gap metrics per task, model, cluster and gap (columns task, model, cluster, gap, value,
    n_varieties, baseline, reason); `level="variety"` returns `variety_gaps` instead.

    Every (task, model, cluster) present gets all three gaps; one that cannot be computed has value NaN
    and the reason.
    """
    if level == "variety":
        return variety_gaps(df, representatives, english)
    if level != "cluster":
        raise ValueError(f"unknown level {level!r}; choose 'cluster' or 'variety'")
    per = variety_gaps(df, representatives, english)
    rep_of = _rep_lookup(representatives)
    # one pass over the variety rows (not a re-filter of the whole frame per key: that was quadratic)
    by_key = dict(iter(per.groupby(["task", "model", "cluster", "gap"], sort=False)))
    empty = per.iloc[0:0]
    sources: dict[str, str | None] = {}
    rows = []
    for (task, model, cluster) in df.groupby(["task", "model", "cluster"], sort=True).groups:
        eng = english.get(task) if isinstance(english, Mapping) else english
        if task not in sources:
            sources[task] = _zero_shot_source(task)
        bases = {"eng_eng": eng or sources[task], "eng_rep": rep_of(cluster, task)}
        bases["ft_rep"] = bases["eng_rep"]
        for gap in GAPS:
            sel = by_key.get((task, model, cluster, gap), empty)
            rows.append(_cluster_row((task, model, cluster, gap), sel, bases[gap]))
    return pd.DataFrame(rows, columns=CLUSTER_COLUMNS)
