"""The papers' tables laid out from `ReportData`, rendered as markdown, LaTeX (booktabs) and CSV.

A `Table` holds raw values; rendering only formats them (one decimal as the papers print, "–" for a
missing value - never 0). CSV keeps the values unrounded (10 significant digits) with empty cells for missing ones and
machine-readable column keys; markdown and LaTeX use the human labels.
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any

import pandas as pd

from dialectbench.report.layout import Column, Table
from dialectbench.report.model import ReportData

MISSING = "–"
# Seed 000 numbers its per-task cluster tables 23-31 in this order.
CLUSTER_TABLE_NUMBER = {"dep": 23, "pos": 24, "ner": 25, "nli": 26, "tc": 27, "did": 28, "sa": 29, "mrc": 30,
                        "eqa": 31}
GAP_LABELS = {"eng_eng": "G_eng(eng, C)", "eng_rep": "G_eng(v̄, C)", "ft_rep": "G_ft(v̄, C)"}


def missing(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float):  # numpy's float64 too; the common cases skip pd.isna, a report's hot loop
        return math.isnan(value)
    if isinstance(value, (str, int)):
        return False
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def format_cell(row: dict[str, Any], col: Column, missing_text: str = MISSING) -> str:
    """One cell as text: numbers to `digits` decimals, intervals as [low, high], missing as `missing_text`."""
    if col.kind == "ci":
        lo, hi = (row.get(k) for k in col.key)
        if missing(lo) or missing(hi):
            return missing_text
        return f"[{lo:.{col.digits}f}, {hi:.{col.digits}f}]"
    value = row.get(col.key)
    if missing(value):
        return missing_text
    if col.kind == "num":
        return f"{float(value):.{col.digits}f}"
    if col.kind == "int":
        return str(int(value))
    if col.kind == "bool":
        return "yes" if value else "no"
    return str(value)


def sort_key(row: dict[str, Any], col: Column) -> str:
    """The raw value the HTML page sorts a column by ('' = missing, which always sorts last)."""
    value = row.get(col.key[0] if isinstance(col.key, tuple) else col.key)
    if missing(value):
        return ""
    if col.kind in ("num", "int", "ci"):
        return repr(float(value))
    return str(value)


# ------------------------------------------------------------------------------------------- renderers

def to_csv(table: Table) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([k for c in table.columns for k in c.csv_keys])
    for row in table.rows:
        cells = []
        for c in table.columns:
            for k in c.csv_keys:
                v = row.get(k)
                if missing(v):
                    cells.append("")
                elif c.kind in ("num", "ci") and isinstance(v, (int, float)):
                    cells.append(f"{float(v):.10g}")
                elif c.kind == "bool":
                    cells.append("yes" if v else "no")
                else:
                    cells.append(str(v))
        writer.writerow(cells)
    return buf.getvalue()


def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def to_markdown(table: Table) -> str:
    head = "| " + " | ".join(_md_escape(c.label) for c in table.columns) + " |"
    rule = "|" + "|".join("---:" if c.kind in ("num", "int") else "---" for c in table.columns) + "|"
    body = ["| " + " | ".join(_md_escape(format_cell(r, c)) for c in table.columns) + " |" for r in table.rows]
    parts = [f"### {_md_escape(table.title)}", ""]
    if table.note:
        parts += [_md_escape(table.note), ""]
    return "\n".join(parts + [head, rule, *body]) + "\n"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "–": "--"}


def latex_escape(text: str) -> str:
    out = "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)
    return out.replace("v\u0304", r"$\bar{v}$")  # the gap labels' v-bar (combining macron)


def to_latex(table: Table) -> str:
    spec = "".join("r" if c.kind in ("num", "int", "ci") else "l" for c in table.columns)
    lines = [r"\begin{table}[ht]", r"\centering", r"\small", f"\\caption{{{latex_escape(table.title)}}}",
             f"\\label{{tab:{table.key}}}", f"\\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(latex_escape(c.label) for c in table.columns) + r" \\", r"\midrule"]
    lines += [" & ".join(latex_escape(format_cell(r, c)) for c in table.columns) + r" \\" for r in table.rows]
    lines += [r"\bottomrule", r"\end{tabular}"]
    if table.note:
        lines.append(f"\\par\\footnotesize {latex_escape(table.note)}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


RENDERERS = {"md": (to_markdown, "md"), "latex": (to_latex, "tex"), "csv": (to_csv, "csv")}


# ------------------------------------------------------------------------------------------ the tables

def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return df.to_dict("records")


def _task_label(task: str) -> str:
    try:
        from dialectbench.tasks import get_task
        t = get_task(task)
        return f"{t.name} ({t.metric_label})"
    except (ImportError, LookupError):
        return task


def table3(data: ReportData) -> Table:
    cols = [Column("task", "Task"), Column("n_clusters", "Clusters", "int"), Column("n_varieties", "Varieties", "int"),
            Column("average", "Average", "num"), Column("max_variety", "Max variety"),
            Column("max_cluster", "Max cluster"), Column("max_score", "Max", "num"),
            Column("min_variety", "Min variety"), Column("min_cluster", "Min cluster"),
            Column("min_score", "Min", "num")]
    rows = [{**r, "source": "ours"} for r in _records(data.task_summary)]
    note = "Max-obtainable score per variety (best over models and settings), summarised per task."
    if data.paper is not None:
        cols.insert(1, Column("source", "Source"))
        paper = {r["task"]: {**r, "average": r["avg_score"], "source": "paper"}
                 for r in _records(data.paper["task_summary"])}
        rows = [x for r in rows for x in ([r, paper[r["task"]]] if r["task"] in paper else [r])]
        note += " Paper rows: DialectBench Table 3 as printed."
    return Table("table3_task_summary", "DialectBench Table 3: task summary", cols, rows, note=note)


def _gap_protocols(scores, task: str, model: str, gap: str, sample_models) -> str:
    """The protocols (report/compare.py) of the rows a gap rests on: zero-shot rows for eng_eng and eng_rep,
    the fine-tuned settings' rows for ft_rep."""
    from dialectbench.analysis.gaps import FT_SETTINGS
    from dialectbench.report.compare import protocol

    settings = ("zero-shot",) if gap != "ft_rep" else FT_SETTINGS
    rows = scores[(scores["task"] == task) & (scores["model"] == model) & scores["setting"].isin(settings)]
    found = {protocol(s, t, sample=model in sample_models) for s, t in zip(rows["setting"], rows["train_on"])}
    return "; ".join(sorted(found))


def table4(data: ReportData) -> Table:
    cols = [Column("task", "Task"), Column("model", "Model"), Column("gap", "Gap"), Column("gap_label", "Definition"),
            Column("avg", "Average", "num"), Column("n_clusters", "Clusters", "int"),
            Column("max_cluster", "Max cluster"), Column("max_value", "Max", "num"),
            Column("min_cluster", "Min cluster"), Column("min_value", "Min", "num")]
    cols.insert(4, Column("rests_on", "Rests on (protocol)"))
    rows = [{**r, "gap_label": GAP_LABELS.get(r["gap"], r["gap"]), "source": "ours",
             "rests_on": _gap_protocols(data.scores, r["task"], r["model"], r["gap"], data.sample_models)}
            for r in _records(data.gap_summary)]
    note = ("Relative gap G(u, v) = (S(u) - S(v)) / S(u) in percent, averaged over the cluster's varieties, "
            "then over clusters; clusters where it is undefined are left out (see gaps_by_cluster).")
    if data.paper is not None:
        cols.insert(1, Column("source", "Source"))
        for r in _records(data.paper["gaps"]):
            rows.append({**r, "model": "mbert", "gap_label": GAP_LABELS.get(r["gap"], r["gap"]),
                         "n_clusters": None, "source": "paper", "rests_on": "fine-tuned (mBERT, test split)"})
        order = {g: i for i, g in enumerate(GAP_LABELS)}
        rows.sort(key=lambda r: (data.tasks.index(r["task"]) if r["task"] in data.tasks else 99,
                                 order.get(r["gap"], 9), r["source"] == "paper", r["model"]))
        note += (" Paper rows: DialectBench Table 4 (mBERT) as printed; they average only the clusters with all "
                 "three gaps defined (analysis.gap_summary(..., clusters='complete') rebuilds them; "
                 "`dialectbench analyze paper` checks each cell), ours every cluster with that gap.")
    return Table("table4_gap_summary", "DialectBench Table 4: cluster-level dialect gaps", cols, rows, note=note)


def gaps_by_cluster(data: ReportData, task: str) -> Table:
    g = data.gaps[data.gaps["task"] == task]
    wide = g.pivot_table(index=["model", "cluster"], columns="gap", values="value", aggfunc="first", dropna=False)
    wide = wide.reindex(columns=list(GAP_LABELS)).reset_index()
    cols = [Column("model", "Model"), Column("cluster", "Cluster")] + [Column(k, v, "num") for k, v in GAP_LABELS.items()]
    return Table(f"gaps_by_cluster_{task}", f"Dialect gaps per cluster: {_task_label(task)}", cols,
                 _records(wide), task=task, note="Missing: the gap is undefined (no baseline score or nothing "
                 "to compare).")


def cluster_table(data: ReportData, task: str) -> Table:
    number = CLUSTER_TABLE_NUMBER.get(task)
    cols = [Column("cluster", "Cluster"), Column("n_varieties", "Varieties", "int"),
            Column("linguistic_utility", "Linguistic utility", "num"),
            Column(("lu_low", "lu_high"), "95% CI", "ci"),
            Column("demographic_utility", "Demographic utility", "num"), Column("min_variety", "Rawlsian min variety"),
            Column("min_score", "Rawlsian min", "num"), Column("std", "Std", "num")]
    rows = _records(data.clusters[data.clusters["task"] == task])
    note = ("Over the varieties' max-obtainable scores: linguistic utility = mean, demographic utility = "
            "speaker-weighted mean, std = sample standard deviation (n - 1). 95% CI: normal interval from "
            "the varieties' bootstrap standard errors, where every variety has per-example values.")
    if data.paper is not None:
        paper = data.paper["summaries"]
        paper = {r["cluster"]: r for r in _records(paper[paper["task"] == task])}
        for r in rows:
            p = paper.get(r["cluster"], {})
            r.update({f"paper_{k}": p.get(k) for k in ("linguistic_utility", "demographic_utility", "min_score", "std")})
        cols += [Column("paper_linguistic_utility", "Paper LU", "num"),
                 Column("paper_demographic_utility", "Paper DU", "num"),
                 Column("paper_min_score", "Paper min", "num"), Column("paper_std", "Paper std", "num")]
        note += f" Paper columns: DialectBench Table {number} as printed."
    title = f"DialectBench Table {number}: " if number else ""
    return Table(f"table{number or ''}_cluster_utility_{task}", f"{title}cluster utilities, {_task_label(task)}",
                 cols, rows, task=task, note=note)


def max_score_table(data: ReportData, task: str) -> Table:
    cols = [Column("cluster", "Cluster"), Column("variety", "Variety"), Column("score", "Max score", "num", 2),
            Column(("ci_low", "ci_high"), "95% CI", "ci", 2), Column("model", "Model"), Column("setting", "Setting"),
            Column("train_on", "Trained on"), Column("representative", "Representative", "bool"),
            Column("mbert_seen", "mBERT saw it", "bool")]
    rows = _records(data.best[data.best["task"] == task])
    return Table(f"max_scores_{task}", f"Max-obtainable score per variety: {_task_label(task)}", cols, rows,
                 task=task, row_variety="variety",
                 note=f"95% CI: percentile bootstrap ({data.n_resamples} resamples) of the best row's per-example "
                      "evidence, only where it reproduces the stored score.")


def leaderboard_table(data: ReportData, task: str) -> Table:
    lb = data.leaderboard[data.leaderboard["task"] == task]
    rows = [{**r, "coverage": f"{r['n_varieties']}/{r['n_task_varieties']}"} for r in _records(lb)]
    cols = [Column("rank_average", "Rank (avg)", "int"), Column("model", "Model"),
            Column("average", "Average", "num", 2), Column("rank_min", "Rank (min)", "int"),
            Column("rawlsian_min", "Rawlsian min", "num", 2), Column("min_variety", "Worst variety"),
            Column("coverage", "Varieties")]
    note = ("Per model: mean and minimum of its best score per variety. Models missing some "
            "varieties rank after complete ones (their averages cover fewer varieties).")
    if data.comparison is not None:  # --compare paper: "(published)" rows are DialectBench's
        note += " " + data.comparison.note(task)
        cols[2:2] = [Column("group", "Compared as (split · protocol)"), Column("family", "Model family")]
    return Table(f"leaderboard_{task}", f"Leaderboard: {_task_label(task)}", cols, rows, task=task, note=note)


def model_matrix_table(data: ReportData, task: str) -> Table:
    m = data.model_matrix[data.model_matrix["task"] == task]
    shown = [c for c in m.columns if c not in ("task", "cluster", "variety", "max")]
    models = [x for x in shown if m[x].notna().any()]
    cols = [Column("cluster", "Cluster"), Column("variety", "Variety"), Column("max", "Max", "num", 2)]
    cols += [Column(x, x, "num", 2) for x in models]
    return Table(f"variety_models_{task}", f"Best score per variety and model: {_task_label(task)}", cols,
                 _records(m[["cluster", "variety", "max", *models]]), task=task, row_variety="variety",
                 note="Missing (–): the model has no result for the variety; it is not a score of 0.")


def sdqa_tables(sdqa: dict[str, Any]) -> list[Table]:
    """SD-QA per-dialect WER/F1 with avg_L, avg_pop and max - min, and unfairness (see report.sdqa)."""
    from dialectbench.report.sdqa import sdqa_layout
    return sdqa_layout(sdqa)


def flags_table(data: ReportData) -> Table:
    """Scores that are less than they look: unseen test labels, below the majority rate, fallbacks, a
    narrowed label space (runner/flags.py)."""
    from dialectbench.runner.flags import describe

    cols = [Column("task", "Task"), Column("setting", "Setting"), Column("variety", "Variety"),
            Column("model", "Model"), Column("score", "Score", "num"), Column("flags", "Flags")]
    rows = [{**r, "flags": "; ".join(describe(r["flags"]))} for r in data.flags]
    return Table("flagged_scores", "Flagged scores", cols, rows, row_variety="variety",
                 note="Stored like any other score, but not to be read at face value.")


def synthetic_table(data: ReportData) -> Table:
    """Synthetic varieties (dialectbench.perturb) beside English; never in the rankings above."""
    from dialectbench.perturb.summary import TITLE

    cols = [Column("task", "Task"), Column("variety", "Synthetic variety"), Column("model", "Model"),
            Column("setting", "Setting"), Column("score", "Score"), Column("eng", "English"),
            Column("gap", "Gap")]
    return Table("synthetic_varieties", "Synthetic varieties", cols, data.synthetic, row_variety="variety",
                 note=TITLE + ". Gap = English - synthetic, same model, task and setting.")


def headline_table(data: ReportData) -> Table:
    """One headline per task, setting and model: the numbers the terminal and results.json give."""
    cols = [Column("task", "Task"), Column("setting", "Setting"), Column("model", "Model"),
            Column("metric", "Metric"), Column("mean", "Mean"), Column("spread", "Spread"),
            Column("n", "Varieties", "int"), Column("left out", "Left out")]
    return Table("headline", "Headline per task and setting", cols, data.headline,
                 note="Mean over the real varieties whose scores enter summaries; synthetic varieties and "
                      "flagged scores left out and named. Spread: the item-level standard error (delta method over "
                      "each variety's test examples, as results.json's stderr_method item_delta; clustered by "
                      "test item, item_delta_clustered, where scores share items, e.g. SD-QA's dialects ask "
                      "the same questions) where every score has per-example evidence, else the standard "
                      "deviation over varieties.")


def all_tables(data: ReportData) -> list[Table]:
    tables = [headline_table(data), table3(data), table4(data)] if data.headline else [table3(data), table4(data)]
    if data.flags:
        tables.insert(0, flags_table(data))
    for task in data.tasks:
        tables += [leaderboard_table(data, task), cluster_table(data, task), max_score_table(data, task),
                   model_matrix_table(data, task), gaps_by_cluster(data, task)]
    if data.sdqa:
        tables += sdqa_tables(data.sdqa)
    if data.synthetic:
        tables.append(synthetic_table(data))
    return tables


def write_tables(tables: list[Table], out_dir, formats) -> list:
    """Write each table once per format, plus one combined file per format; returns the paths written."""
    from pathlib import Path
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in formats:
        if fmt not in RENDERERS:
            continue
        render, ext = RENDERERS[fmt]
        texts = []
        for t in tables:
            text = render(t)
            (out / f"{t.key}.{ext}").write_text(text, encoding="utf-8")
            written.append(out / f"{t.key}.{ext}")
            texts.append(text if fmt != "csv" else "")
        if fmt != "csv":
            (out / f"all_tables.{ext}").write_text("\n\n".join(texts), encoding="utf-8")
            written.append(out / f"all_tables.{ext}")
    return written

