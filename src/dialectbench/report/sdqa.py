"""Optional SD-QA section (SD-QA): WER and F1 per dialect with avg_L, avg_pop and max - min, the
generalized-entropy unfairness of per-example benefits, and the WER-F1 scatter with Spearman's rho.

Inputs (CSV files or DataFrames):
- per dialect: columns `dialect` and at least one of `wer`, `f1` (percent); optional `model` (one table per
  model; default "all") and `population` (speakers, for avg_pop);
- per example (optional): columns `dialect` and `benefit` (F1 per question, or 1 - WER per utterance).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dialectbench import analysis
from dialectbench.report.inputs import ReportInputError

METRICS = ("wer", "f1")


def _frame(source: Any, what: str) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        return source.copy()
    path = Path(source)
    if not path.is_file():
        raise ReportInputError(f"{path}: no such file ({what})")
    try:
        return pd.read_csv(path, keep_default_na=False, na_values=[""])
    except (ValueError, UnicodeDecodeError) as exc:
        raise ReportInputError(f"{path}: not a readable CSV file ({exc})") from None


def _numeric(df: pd.DataFrame, col: str, name: str) -> pd.Series:
    values = pd.to_numeric(df[col], errors="coerce")
    bad = values.isna() & df[col].notna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise ReportInputError(f"{name}, row {i + 1} (line {i + 2}): column {col!r} is {df[col].iloc[i]!r}, "
                               "not a number")
    return values


def load_sdqa_results(dialects: Any, examples: Any = None) -> dict[str, Any]:
    """Validate the SD-QA inputs and compute their summaries with `dialectbench.analysis`."""
    name = str(dialects) if not isinstance(dialects, pd.DataFrame) else "<sdqa dialects>"
    df = _frame(dialects, "SD-QA results per dialect")
    metrics = [m for m in METRICS if m in df.columns]
    if "dialect" not in df.columns or not metrics:
        raise ReportInputError(f"{name}: SD-QA results need a 'dialect' column and a 'wer' and/or 'f1' column; "
                               f"found {', '.join(map(str, df.columns))}")
    for col in [*metrics, *(["population"] if "population" in df.columns else [])]:
        df[col] = _numeric(df, col, name)
    if "model" not in df.columns:
        df["model"] = "all"
    df["dialect"] = df["dialect"].astype(str)
    out: dict[str, Any] = {"dialects": df, "metrics": metrics, "summary": _summary(df, metrics),
                           "spearman": _spearman(df) if len(metrics) == 2 else None}
    if examples is not None:
        out["unfairness"] = _unfairness(_frame(examples, "SD-QA per-example benefits"))
    return out


def _summary(df: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    rows = []
    for model, g in df.groupby("model", sort=True):
        pops = g["population"].tolist() if "population" in g.columns else [None] * len(g)
        for metric in metrics:
            vals = g[metric].to_numpy(dtype=float)
            rows.append({"model": model, "metric": metric, "avg_l": float(np.nanmean(vals)),
                         "avg_pop": analysis.avg_pop(vals, pops), "max_min": analysis.max_min(vals),
                         "n_dialects": int(np.isfinite(vals).sum())})
    return pd.DataFrame(rows)


def _spearman(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for model, g in df.groupby("model", sort=True):
        res = analysis.spearman(g["wer"].to_numpy(dtype=float), g["f1"].to_numpy(dtype=float))
        rows.append({"model": model, "rho": res.rho, "p_value": res.p_value, "n": res.n})
    return pd.DataFrame(rows)


def _unfairness(ex: pd.DataFrame) -> dict[str, Any]:
    if not {"dialect", "benefit"} <= set(ex.columns):
        raise ReportInputError("SD-QA per-example benefits need columns 'dialect' and 'benefit'")
    benefit = _numeric(ex, "benefit", "<sdqa examples>")
    ge = analysis.generalized_entropy(benefit.to_numpy(dtype=float), ex["dialect"].astype(str).to_numpy())
    return {"total": ge.total, "within": ge.within, "between": ge.between, "alpha": ge.alpha,
            "components": ge.components}


def sdqa_layout(sdqa: dict[str, Any]) -> list:
    from dialectbench.report.tables import Column, Table

    df, metrics = sdqa["dialects"], sdqa["metrics"]
    cols = [Column("model", "Model"), Column("dialect", "Dialect")]
    cols += [Column(m, m.upper(), "num", 2) for m in metrics]
    if "population" in df.columns:
        cols.append(Column("population", "Population", "int"))
    tables = [Table("sdqa_dialects", "SD-QA: results per dialect", cols, df.to_dict("records"),
                    row_variety="dialect", note="WER and F1 in percent.")]
    scols = [Column("model", "Model"), Column("metric", "Metric"), Column("avg_l", "avg_L", "num", 2),
             Column("avg_pop", "avg_pop", "num", 2), Column("max_min", "max − min", "num", 2),
             Column("n_dialects", "Dialects", "int")]
    tables.append(Table("sdqa_summary", "SD-QA: averages and spread over dialects", scols,
                        sdqa["summary"].to_dict("records"),
                        note="avg_L: mean over dialects; avg_pop: population-weighted mean (missing without "
                             "populations); max − min over dialects."))
    if sdqa.get("spearman") is not None:
        tables.append(Table("sdqa_spearman", "SD-QA: Spearman correlation of WER and F1 over dialects",
                            [Column("model", "Model"), Column("rho", "rho", "num", 3),
                             Column("p_value", "p", "num", 4), Column("n", "Dialects", "int")],
                            sdqa["spearman"].to_dict("records")))
    if sdqa.get("unfairness"):
        u = sdqa["unfairness"]
        rows = [{"group": "(all)", "within": u["within"], "between": u["between"], "total": u["total"]}]
        rows += [{**r, "total": None} for r in u["components"].to_dict("records")]
        tables.append(Table("sdqa_unfairness", f"SD-QA: generalized entropy (alpha={u['alpha']:g}) of the benefit",
                            [Column("group", "Dialect"), Column("n", "n", "int"), Column("mean", "Mean", "num", 4),
                             Column("within", "Within", "num", 5), Column("between", "Between", "num", 5),
                             Column("total", "Total", "num", 5)], rows, row_variety="group",
                            note="total = within + between; a dialect's between term is negative when its "
                                 "mean benefit is below the overall mean."))
    return tables
