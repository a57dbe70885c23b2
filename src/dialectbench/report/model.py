"""Every number a report shows, computed once by `dialectbench.analysis` (the tables, figures and HTML page
only lay these frames out; nothing is recomputed in a template)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dialectbench import analysis
from dialectbench.analysis.scores_io import TASK_IDS
from dialectbench.report.inputs import KEY, ReportInput
from dialectbench.report.intervals import mean_interval, score_interval


@dataclass
class ReportData:
    """Analysis frames for one scores table (see `build_data`)."""

    source: str
    scores: pd.DataFrame
    tasks: list[str]
    models: list[str]
    best: pd.DataFrame                 # max_scores + ci_low, ci_high, ci_how, mbert_seen, representative
    task_summary: pd.DataFrame         # Table 3
    clusters: pd.DataFrame             # Tables 23-31 (+ lu_low, lu_high)
    gaps: pd.DataFrame                 # gaps(df), cluster level
    gap_summary: pd.DataFrame          # Table 4: per task, model, gap: mean over clusters and extremes
    leaderboard: pd.DataFrame          # per task and model: average, Rawlsian minimum, coverage, rank
    model_matrix: pd.DataFrame         # per task, cluster, variety: each model's best score (NaN = missing)
    cluster_unseen: dict[tuple[str, str], bool] = field(default_factory=dict)  # (task, cluster) -> no mBERT variety
    paper: dict[str, pd.DataFrame] | None = None
    sdqa: dict[str, Any] | None = None
    n_resamples: int = 1000
    comparison: Any = None  # report.compare.Comparison with --compare paper: published rows beside ours
    flags: list[dict[str, Any]] = field(default_factory=list)  # flagged scores (runner/flags.py), store only
    synthetic: list[dict[str, Any]] = field(default_factory=list)  # perturb.summary.synthetic_rows: own table
    sample_models: set[str] = field(default_factory=set)  # models scored on the bundled sample suite
    notices: list[str] = field(default_factory=list)  # said at the top of the report (HTML) and in its notes
    headline: list[dict[str, Any]] = field(default_factory=list)  # analysis.headline_rows: as the terminal


def _task_order(tasks) -> list[str]:
    return sorted(set(tasks), key=lambda t: TASK_IDS.index(t) if t in TASK_IDS else len(TASK_IDS))


@functools.cache
def _registry():
    from dialectbench.analysis.scores_io import variety_registry
    return variety_registry()


def _mbert_seen(variety: str) -> bool | None:
    reg = _registry()
    try:
        return bool(reg.get(variety).mbert_seen) if reg is not None else None
    except LookupError:
        return None


def _representative(cluster: str, task: str) -> str | None:
    try:
        from dialectbench.tasks import representative
        return representative(cluster, task).name
    except (ImportError, LookupError):
        return None


def _cluster_unseen(task: str, cluster: str, shown: list[str]) -> bool:
    """True when mBERT saw none of the cluster's varieties of this task (registry; else the shown ones)."""
    reg = _registry()
    names = shown
    if reg is not None:
        try:
            names = [v.name for v in reg.varieties(task=task, cluster=cluster)] or shown
        except LookupError:
            names = shown
    seen = [_mbert_seen(v) for v in names]
    return bool(seen) and all(s is False for s in seen)


def _with_intervals(best: pd.DataFrame, inp: ReportInput, n_resamples: int) -> pd.DataFrame:
    lows, highs, ses, hows = [], [], [], []
    for row in best.itertuples(index=False):
        key = tuple(getattr(row, k) for k in KEY)
        ci = score_interval(row.score, inp.evidence.get(key), n_resamples=n_resamples) if inp.evidence else None
        lows.append(ci["low"] if ci else np.nan)
        highs.append(ci["high"] if ci else np.nan)
        ses.append(ci["se"] if ci else np.nan)
        hows.append(ci["how"] if ci else "")
    return best.assign(ci_low=lows, ci_high=highs, ci_se=ses, ci_how=hows)


def _cluster_intervals(clusters: pd.DataFrame, best: pd.DataFrame) -> pd.DataFrame:
    lows, highs = [], []
    for row in clusters.itertuples(index=False):
        ses = best[(best["task"] == row.task) & (best["cluster"] == row.cluster)]["ci_se"].tolist()
        ci = mean_interval(ses, row.linguistic_utility)
        lows.append(ci[0] if ci else np.nan)
        highs.append(ci[1] if ci else np.nan)
    return clusters.assign(lu_low=lows, lu_high=highs)




def _gap_summary(gap_table: pd.DataFrame) -> pd.DataFrame:
    """Table 4 layout: per task, model and gap, the mean of the cluster gaps and the extreme clusters."""
    return analysis.gap_summary(gap_table)


LEADERBOARD_COLUMNS = ["task", "model", "group", "family", "average", "rawlsian_min", "min_variety", "n_varieties",
                       "n_task_varieties", "complete", "rank_average", "rank_min"]


def _leaderboard(df: pd.DataFrame, task_sum: pd.DataFrame) -> pd.DataFrame:
    """Per task, each model's mean and minimum over its varieties' best scores (Table 3's figures per model).
    Models that miss some of the task's varieties are ranked after the complete ones: their averages are
    over a different set and not comparable. With `--compare paper` the scores carry a comparison `group`
    (split · protocol, report/compare.py) and models are ranked only within their group."""
    total = dict(zip(task_sum["task"], task_sum["n_varieties"]))
    group_of = ({(t, m): (g, f) for t, m, g, f in zip(df["task"], df["model"], df["group"], df["family"])}
                if "group" in df else {})
    rows = []
    for model, g in df.groupby("model", sort=True):
        for r in analysis.task_summary(g).itertuples(index=False):
            group, fam = group_of.get((r.task, model), ("", ""))
            rows.append({"task": r.task, "model": model, "group": group, "family": fam,
                         "average": r.average, "rawlsian_min": r.min_score,
                         "min_variety": r.min_variety, "n_varieties": r.n_varieties,
                         "n_task_varieties": total[r.task], "complete": r.n_varieties == total[r.task]})
    out = pd.DataFrame(rows, columns=LEADERBOARD_COLUMNS[:-2])
    ranked = []
    for _, g in out.groupby(["task", "group"], sort=False):
        g = g.copy()
        for col, rank in (("average", "rank_average"), ("rawlsian_min", "rank_min")):
            order = g.sort_values(["complete", col, "model"], ascending=[False, False, True]).index
            g.loc[order, rank] = range(1, len(g) + 1)
        ranked.append(g)
    out = pd.concat(ranked) if ranked else out.assign(rank_average=[], rank_min=[])
    out[["rank_average", "rank_min"]] = out[["rank_average", "rank_min"]].astype(int)
    return out.sort_values(["task", "group", "rank_average"], ignore_index=True)[LEADERBOARD_COLUMNS]


def _model_matrix(df: pd.DataFrame, best: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """Per variety the best score of each model (over its settings); NaN where a model has no result."""
    per = [analysis.max_scores(g).assign(model=m) for m, g in df.groupby("model", sort=True)]
    wide = pd.concat(per).pivot_table(index=["task", "cluster", "variety"], columns="model", values="score",
                                      aggfunc="max")
    base = best[["task", "cluster", "variety", "score"]].rename(columns={"score": "max"})
    out = base.merge(wide.reset_index(), on=["task", "cluster", "variety"], how="left")
    return out[["task", "cluster", "variety", "max", *models]]


def _paper_tables(tasks: list[str]) -> dict[str, pd.DataFrame]:
    from dialectbench.analysis.reference import paper_gaps, paper_summaries, paper_task_summary
    def keep(df: pd.DataFrame) -> pd.DataFrame:
        return df[df["task"].isin(tasks)].reset_index(drop=True)
    return {"task_summary": keep(paper_task_summary()), "summaries": keep(paper_summaries()),
            "gaps": keep(paper_gaps())}


def build_data(inp: ReportInput, *, compare_paper: bool = False, speakers: Any = None,
               n_resamples: int = 1000, sdqa: dict[str, Any] | None = None) -> ReportData:
    """Run the analysis package over one scores table (synthetic varieties set aside: own table only)."""
    from dialectbench.analysis.headline import headline_rows, headlines
    from dialectbench.perturb.summary import split_synthetic, synthetic_rows

    synthetic = synthetic_rows(inp.scores)
    # the headline results.json and the terminal show (a store's), else the same function on the table
    head = headline_rows(inp.headline if inp.headline is not None else headlines(inp.scores.to_dict("records")))
    df = split_synthetic(inp.scores)[0]
    tasks = _task_order(df["task"])
    models = sorted(df["model"].unique())
    best = analysis.max_scores(df)
    best = best.merge(df[[*KEY, "metric"]], on=list(KEY), how="left")  # which metric each maximum is
    best = _with_intervals(best, inp, n_resamples)
    shown = best.groupby(["task", "cluster"])["variety"].apply(list).to_dict()
    best["mbert_seen"] = [_mbert_seen(v) for v in best["variety"]]
    best["representative"] = [v == _representative(c, t) for t, c, v in best[["task", "cluster", "variety"]]
                              .itertuples(index=False)]
    task_sum = analysis.task_summary(df)
    clusters = _cluster_intervals(analysis.cluster_summary(df, speakers=speakers), best)
    gap_table = analysis.gaps(df)
    leaderboard, matrix, comparison = _leaderboard(df, task_sum), _model_matrix(df, best, models), None
    if compare_paper:  # the published models ranked beside ours, on the varieties both have
        from dialectbench.report.compare import paper_comparison

        comparison = paper_comparison(df, not_comparable=inp.sample_models)
        both = comparison.scores
        if not both.empty:
            leaderboard = _leaderboard(both, analysis.task_summary(both))
            matrix = _model_matrix(both, best, sorted(set(both["model"])))
    return ReportData(
        source=inp.source, scores=df, tasks=tasks, models=models, best=best, task_summary=task_sum,
        clusters=clusters, gaps=gap_table, gap_summary=_gap_summary(gap_table),
        leaderboard=leaderboard, model_matrix=matrix,
        cluster_unseen={k: _cluster_unseen(k[0], k[1], v) for k, v in shown.items()},
        paper=_paper_tables(tasks) if compare_paper else None, sdqa=sdqa, n_resamples=n_resamples,
        comparison=comparison, flags=list(inp.flags), synthetic=synthetic, sample_models=set(inp.sample_models),
        notices=_notices(inp), headline=head)


SAMPLE_NOTICE = ("Scores of {models} are on the bundled sample suite (our own texts): they check the pipeline "
                 "and are not comparable with published results.")


def _notices(inp: ReportInput) -> list[str]:
    """What the terminal says once at the end of a run, said again at the top of the report."""
    if not inp.sample_models:
        return []
    return [SAMPLE_NOTICE.format(models=", ".join(sorted(inp.sample_models)))]
