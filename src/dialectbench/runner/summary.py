"""End-of-run tables, computed by `dialectbench.analysis` from the store: the task summary (DialectBench
Table 3 layout, on maximum obtainable scores) and the cluster gap table (DialectBench Table 4 metrics)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dialectbench.runner.store import Store


def scores_frame(store: str | Path, keys: Sequence[str] | None = None) -> Any:
    """The scores table of `store` (only `keys`' jobs when given) as a pandas DataFrame."""
    import pandas as pd

    from dialectbench.scores import SCORE_COLUMNS

    with Store(store, readonly=True) as db:
        rows = db.scores(keys)
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


def _records(frame: Any) -> list[dict[str, Any]]:
    if frame is None:
        return []
    if hasattr(frame, "to_dict"):
        frame = frame.reset_index(drop=True) if getattr(frame.index, "name", None) is None else frame.reset_index()
        return [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
                for r in frame.to_dict("records")]
    return list(frame)


HEADLINE_TITLE = ("Headline: mean per task and setting over the real varieties whose scores enter summaries"
                  " (synthetic and flagged ones left out, named)")
GAP_HEADERS = {"eng_eng": "G_eng(eng,C)", "eng_rep": "G_eng(rep,C)", "ft_rep": "G_ft(rep,C)"}


def _num(value: Any) -> str | None:
    """One decimal, as the paper prints; None (shown "-") where undefined."""
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else f"{float(value):.1f}"


def task_rows(summary: Any) -> list[dict[str, Any]]:
    """analysis.task_summary -> the columns of DialectBench Table 3 (#C clusters, #V varieties; a variety
    name is unique, so it is shown without its cluster: the table then fits 80 columns)."""
    return [{"task": r["task"], "#C": r["n_clusters"], "#V": r["n_varieties"],
             "avg": _num(r["average"]), "max at": r["max_variety"],
             "max": _num(r["max_score"]), "min at": r["min_variety"],
             "min": _num(r["min_score"])} for r in _records(summary)]


def gap_rows(gaps: Any) -> list[dict[str, Any]]:
    """analysis.gaps (long) -> one row per task, model and cluster with the three gaps in percent
    ("-" where undefined; `dialectbench analyze` gives the reasons)."""
    rows: dict[tuple, dict[str, Any]] = {}
    for r in _records(gaps):
        row = rows.setdefault((r["task"], r["model"], r["cluster"]),
                              {"task": r["task"], "model": r["model"], "cluster": r["cluster"]})
        row[GAP_HEADERS.get(r["gap"], r["gap"])] = _num(r["value"])
    return list(rows.values())


def summary_tables(store: str | Path, keys: Sequence[str] | None = None) -> list[tuple[str, list[dict[str, Any]]]]:
    """[(title, rows)] for the terminal: the task summary and the cluster gaps."""
    from dialectbench.analysis import gaps, task_summary
    from dialectbench.analysis.headline import headline_rows
    from dialectbench.perturb.summary import TITLE, split_synthetic, synthetic_rows
    from dialectbench.runner.headline import store_headlines

    frame = scores_frame(store, keys)
    if frame.empty:
        return []
    with Store(store, readonly=True) as db:  # the headline results.json and the report give: one function
        head = [(HEADLINE_TITLE, headline_rows(store_headlines(db, keys)))]
    real, synthetic = split_synthetic(frame)  # synthetic varieties never enter the real rankings
    extra = [(TITLE, synthetic_rows(frame))] if not synthetic.empty else []
    if real.empty:
        return head + extra
    frame = real
    return head + [("Task summary: maximum obtainable scores (DialectBench Table 3 layout; #C clusters, #V varieties)", task_rows(task_summary(frame))),
            ("Cluster dialect gaps in % (DialectBench Table 4; rep = cluster representative)", gap_rows(gaps(frame)))] + extra
