"""Optional SD-QA section (SD-QA): WER and F1 per dialect with avg_L, avg_pop and max - min, the
generalized-entropy unfairness of per-example benefits, and the WER-F1 scatter with Spearman's rho.

Inputs (CSV files or DataFrames):
- per dialect: columns `dialect` and at least one of `wer`, `f1` (percent); optional `model` (one table per
  model; default "all"; `row` wins over it: `sdqa wer` writes the Table 2 row there, "localized" being one
  system whose concrete model varies by dialect), `lang` (one summary per language and model) and
  `population` (speakers, for avg_pop; for SD-QA dialects the packaged Ethnologue figures fill it in);
  `label` (the paper's dialect label) replaces the folder code everywhere it is shown. Rows of the dialect
  `gold` (typed questions) are listed but left out of the averages and correlations.
  `sdqa wer --lang all --view dialects --format csv` and `sdqa goldp --view f1 --format csv` write this.
- per example (optional): columns `dialect` and `benefit` (F1 per question, or 1 - WER per utterance),
  optional `lang` and `row`/`model`: one index per language and system, never pooled across systems.
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
        raise ReportInputError(f"{name}:{i + 2}: row {i + 1}: column {col!r} is {df[col].iloc[i]!r}, "
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
    if "row" in df.columns:
        df["model"] = df["row"].astype(str)
    if "model" not in df.columns:
        df["model"] = "all"
    df["dialect"] = df["dialect"].astype(str)
    df = _paper_labels(df)
    out: dict[str, Any] = {"dialects": df, "metrics": metrics, "summary": _summary(df, metrics),
                           "spearman": _spearman(df) if len(metrics) == 2 else None}
    if examples is not None:
        out["unfairness"] = _unfairness(_frame(examples, "SD-QA per-example benefits"))
    return out


def _paper_labels(df: pd.DataFrame) -> pd.DataFrame:
    """Show the paper's dialect labels (SCO, not gbr) and fill SD-QA populations from the packaged table."""
    from dialectbench.sdqa.dialects import dialect_info

    if "lang" in df.columns:
        df["lang"] = df["lang"].astype(str)
        infos = [dialect_info(lg, d) for lg, d in zip(df["lang"], df["dialect"])]
        if "label" not in df.columns:
            df["label"] = [i.label if i else d for i, d in zip(infos, df["dialect"])]
        if "population" not in df.columns:
            df["population"] = [i.population * 1e6 if i else np.nan for i in infos]
    if "label" in df.columns:
        df["code"] = df["dialect"]
        df["dialect"] = df["label"].fillna(df["code"]).astype(str)
    return df


def _series(df: pd.DataFrame) -> list[str]:
    """Summaries are per (language, model) when a language column is present."""
    return ["lang", "model"] if "lang" in df.columns else ["model"]


def _summary(df: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    rows = []
    df = df[df["dialect"] != "gold"]
    for key, g in df.groupby(_series(df), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        model = " ".join(map(str, key))
        pops = g["population"].tolist() if "population" in g.columns else [None] * len(g)
        for metric in metrics:
            vals = g[metric].to_numpy(dtype=float)
            rows.append({"model": model, "metric": metric, "avg_l": float(np.nanmean(vals)),
                         "avg_pop": analysis.avg_pop(vals, pops), "max_min": analysis.max_min(vals),
                         "n_dialects": int(np.isfinite(vals).sum())})
    return pd.DataFrame(rows)


def _spearman(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    df = df[df["dialect"] != "gold"].dropna(subset=["wer", "f1"])
    for key, g in df.groupby(_series(df), sort=False):
        model = " ".join(map(str, key if isinstance(key, tuple) else (key,)))
        if len(g) < 2:
            continue
        res = analysis.spearman(g["wer"].to_numpy(dtype=float), g["f1"].to_numpy(dtype=float))
        rows.append({"model": model, "rho": res.rho, "p_value": res.p_value, "n": res.n})
    return pd.DataFrame(rows)


def _unfairness(ex: pd.DataFrame) -> list[dict[str, Any]]:
    """One generalized-entropy decomposition per language (or one in all without `lang`)."""
    if not {"dialect", "benefit"} <= set(ex.columns):
        raise ReportInputError("SD-QA per-example benefits need columns 'dialect' and 'benefit'")
    system = next((c for c in ("row", "model") if c in ex.columns), None)
    ex = ex[ex["dialect"].astype(str) != "gold"].copy()
    ex["dialect"] = ex["dialect"].astype(str)
    if "lang" in ex.columns:
        ex = _paper_labels(ex.assign(lang=ex["lang"].astype(str))) if "label" not in ex.columns else \
            ex.assign(dialect=ex["label"].astype(str))
    benefit = _numeric(ex.reset_index(drop=True), "benefit", "<sdqa examples>")
    ex = ex.reset_index(drop=True).assign(benefit=benefit)
    # one index per language and system (two ASR models are never pooled into one index)
    keys = [c for c in ("lang", system) if c is not None and c in ex.columns]
    parts = list(ex.groupby(keys, sort=False)) if keys else [("", ex)]
    out = []
    for key, g in parts:
        lang = " ".join(map(str, key if isinstance(key, tuple) else (key,)))
        ge = analysis.generalized_entropy(g["benefit"].to_numpy(dtype=float), g["dialect"].to_numpy())
        out.append({"lang": lang, "total": ge.total, "within": ge.within, "between": ge.between,
                    "alpha": ge.alpha, "components": ge.components})
    return out


def sdqa_layout(sdqa: dict[str, Any]) -> list:
    from dialectbench.report.layout import Column, Table

    df, metrics = sdqa["dialects"], sdqa["metrics"]
    cols = [*([Column("lang", "Language")] if "lang" in df.columns else []), Column("model", "Model"),
            Column("dialect", "Dialect")]
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
        rows = []
        for u in sdqa["unfairness"]:
            rows.append({"lang": u["lang"], "group": "(all)", "within": u["within"], "between": u["between"],
                         "total": u["total"]})
            rows += [{"lang": u["lang"], **r, "total": None} for r in u["components"].to_dict("records")]
        lang_col = [Column("lang", "Language")] if any(u["lang"] for u in sdqa["unfairness"]) else []
        alpha = sdqa["unfairness"][0]["alpha"]
        tables.append(Table("sdqa_unfairness", f"SD-QA: generalized entropy (alpha={alpha:g}) of the benefit",
                            [*lang_col, Column("group", "Dialect"), Column("n", "n", "int"), Column("mean", "Mean", "num", 4),
                             Column("within", "Within", "num", 5), Column("between", "Between", "num", 5),
                             Column("total", "Total", "num", 5)], rows, row_variety="group",
                            note="total = within + between; a dialect's between term is negative when its "
                                 "mean benefit is below the overall mean."))
    return tables
