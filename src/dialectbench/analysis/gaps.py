"""Dialect gap metrics of DialectBench §3.3 and Table 4.

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
    """(cluster, task) -> representative variety name, or None when unknown (memoised: it is asked once per
    task, model and cluster)."""
    if callable(representatives):
        return representatives
    if representatives is not None:
        reps = dict(representatives)
        return lambda c, t: reps.get((c, t), reps.get(c))  # type: ignore[arg-type]
    memo: dict[tuple[str, str], str | None] = {}

    def from_registry(cluster: str, task: str) -> str | None:
        from dialectbench.tasks import representative
        if (cluster, task) not in memo:
            try:
                memo[cluster, task] = representative(cluster, task).name
            except LookupError:  # no representative for this cluster/task
                memo[cluster, task] = None
        return memo[cluster, task]
    return from_registry


def _zero_shot_source(task: str) -> str | None:
    """Standard English, the variety zero-shot transfer fine-tunes on (None for MT: no source)."""
    from dialectbench.tasks import zero_shot_source
    try:
        source = zero_shot_source(task)
    except LookupError:
        return None
    return source.name if source is not None else None


# The computation runs on plain dicts, one pass over the rows: per-group DataFrame filtering made it
# quadratic (90% of `report` time on 30,000 rows), and even grouped pandas calls cost ~1 ms per group.
def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


class _Group:
    """The rows of one (task, model): best score per variety and setting, (cluster, variety) pairs in order."""

    def __init__(self) -> None:
        self.best: dict[tuple[str, str], float] = {}  # (setting, variety) -> max score (NaN when all NaN)
        self.pairs: dict[tuple, None] = {}

    def add(self, cluster, variety: str, setting: str, score: float) -> None:
        self.pairs.setdefault((cluster, variety))
        key = (setting, variety)
        old = self.best.get(key)
        if old is None or np.isnan(old) or (not np.isnan(score) and score > old):
            self.best[key] = score

    def by_setting(self) -> tuple[dict[str, float], dict[str, float]]:
        """Zero-shot and fine-tuned score per variety (fine-tuned: the first of FT_SETTINGS it has)."""
        zs = {v: sc for (setting, v), sc in self.best.items() if setting == "zero-shot"}
        ft: dict[str, float] = {}
        for want in FT_SETTINGS:
            for (setting, v), sc in self.best.items():
                if setting == want:
                    ft.setdefault(v, float(sc))
        return zs, ft


def _groups(df: pd.DataFrame) -> dict[tuple[str, str], _Group]:
    groups: dict[tuple[str, str], _Group] = {}
    columns = [df[c].tolist() for c in ("task", "model", "cluster", "variety", "setting")]
    scores = pd.to_numeric(df["score"], errors="coerce").astype(float).tolist()
    for task, model, cluster, variety, setting, score in zip(*columns, scores):
        if _missing(task) or _missing(model):  # as groupby drops NaN keys
            continue
        groups.setdefault((task, model), _Group()).add(cluster, variety, setting, score)
    return dict(sorted(groups.items()))


def _one_gap(base_name, base_score, score) -> tuple[float, str]:
    if base_name is None:
        return np.nan, "no baseline variety for this task and cluster"
    if base_score is None or np.isnan(base_score):
        return np.nan, f"no score for baseline {base_name!r}"
    if base_score == 0:
        return np.nan, f"baseline {base_name!r} scores 0; a relative gap is undefined"
    return 100.0 * (base_score - score) / base_score, ""


def _variety_rows(task: str, model: str, group: _Group, rep_of, english: str | None) -> list[dict]:
    zs, ft = group.by_setting()
    # S_eng(eng): English tested after fine-tuning on English - its zero-shot row, else its in-variety row.
    own = group.best.get(("in-variety", english)) if english else None
    eng_base = zs.get(english, own) if english else None
    rows = []
    for (cluster, variety) in group.pairs:
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


def _english_for(english: str | Mapping[str, str] | None, task: str, sources: dict[str, str | None]) -> str | None:
    eng = english.get(task) if isinstance(english, Mapping) else english
    if eng:
        return eng
    if task not in sources:
        sources[task] = _zero_shot_source(task)
    return sources[task]


def _variety_records(df: pd.DataFrame, rep_of, english, sources: dict[str, str | None]) -> list[dict]:
    rows: list[dict] = []
    for (task, model), group in _groups(df).items():
        rows += _variety_rows(task, model, group, rep_of, _english_for(english, task, sources))
    return rows


def variety_gaps(df: pd.DataFrame, representatives: Representatives = None,
                 english: str | Mapping[str, str] | None = None) -> pd.DataFrame:
    """Variety-level gaps (one row per task, model, variety and gap that has the needed score).

    `representatives`: mapping cluster -> variety, (cluster, task) -> variety, or a callable; default
    dialectbench.tasks.representative. `english`: the zero-shot source variety (a name, or task -> name);
    default the anglic representative.
    """
    rows = _variety_records(df, _rep_lookup(representatives), english, {})
    return pd.DataFrame(rows, columns=VARIETY_COLUMNS)


def _cluster_row(key, found: list[dict], base: str | None) -> dict:
    values = [r["value"] for r in found if not np.isnan(r["value"])]
    task, model, cluster, gap = key
    if values:
        return {"task": task, "model": model, "cluster": cluster, "gap": gap,
                "value": float(np.mean(values)), "n_varieties": len(values), "baseline": base, "reason": ""}
    if found:
        reason = found[0]["reason"]
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
    rep_of = _rep_lookup(representatives)
    sources: dict[str, str | None] = {}
    by_key: dict[tuple, list[dict]] = {}
    for row in _variety_records(df, rep_of, english, sources):
        by_key.setdefault((row["task"], row["model"], row["cluster"], row["gap"]), []).append(row)
    keys = {(t, m, c) for t, m, c in zip(df["task"], df["model"], df["cluster"])
            if not (_missing(t) or _missing(m) or _missing(c))}  # as groupby drops NaN keys
    rows = []
    for (task, model, cluster) in sorted(keys):
        bases = {"eng_eng": _english_for(english, task, sources), "eng_rep": rep_of(cluster, task)}
        bases["ft_rep"] = bases["eng_rep"]
        for gap in GAPS:
            rows.append(_cluster_row((task, model, cluster, gap), by_key.get((task, model, cluster, gap), []),
                                     bases[gap]))
    return pd.DataFrame(rows, columns=CLUSTER_COLUMNS)


GAP_SUMMARY_COLUMNS = ["task", "model", "gap", "avg", "n_clusters", "max_cluster", "max_value", "min_cluster",
                       "min_value"]
CLUSTER_SETS = ("all", "complete")


def complete_clusters(gap_table: pd.DataFrame) -> pd.DataFrame:
    """The rows of the (task, model, cluster)s whose three gaps are all defined. This is the cluster set of
    DialectBench Table 4, found from its own cells: its DEP eng_eng average 34.0 and maxima (arabic 50.8,
    not tupi-guarani's 83.6) are those of the 8 DEP clusters with a fine-tuned representative, and likewise
    every DEP, NER and TC row; over all clusters only 37 of its 60 cells reproduce."""
    known = gap_table.dropna(subset=["value"])
    n = known.groupby(["task", "model", "cluster"])["gap"].nunique()
    full = set(n[n == len(GAPS)].index)
    keep = [k in full for k in zip(gap_table["task"], gap_table["model"], gap_table["cluster"])]
    return gap_table[keep]


def gap_summary(gap_table: pd.DataFrame, clusters: str = "all") -> pd.DataFrame:
    """Table 4 layout: per task, model and gap, the mean of the cluster gaps, their number and the extreme
    clusters. `clusters`: "all" - every cluster where that gap is defined; "complete" - only clusters with
    all three gaps defined (the paper's set, `complete_clusters`)."""
    if clusters not in CLUSTER_SETS:
        raise ValueError(f"clusters must be one of {', '.join(CLUSTER_SETS)}, not {clusters!r}")
    table = complete_clusters(gap_table) if clusters == "complete" else gap_table
    known = table.dropna(subset=["value"])
    if known.empty:
        return pd.DataFrame(columns=GAP_SUMMARY_COLUMNS)
    values = known.groupby(["task", "model", "gap"], sort=False)["value"]  # one pass, not one per group
    hi, lo = known.loc[values.idxmax()], known.loc[values.idxmin()]
    out = pd.DataFrame({"task": hi["task"].to_numpy(), "model": hi["model"].to_numpy(), "gap": hi["gap"].to_numpy(),
                        "avg": values.mean().to_numpy(dtype=float), "n_clusters": values.size().to_numpy(),
                        "max_cluster": hi["cluster"].to_numpy(), "max_value": hi["value"].to_numpy(dtype=float),
                        "min_cluster": lo["cluster"].to_numpy(), "min_value": lo["value"].to_numpy(dtype=float)},
                       columns=GAP_SUMMARY_COLUMNS)
    order = {g: i for i, g in enumerate(GAPS)}
    return out.sort_values(["task", "model", "gap"], key=lambda s: s.map(order) if s.name == "gap" else s,
                           ignore_index=True)
