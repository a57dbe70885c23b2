"""Reading and validating a scores table (the contract in dialectbench.scores / DESIGN.md)."""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from dialectbench.scores import SCORE_COLUMNS, SETTINGS
from dialectbench.tasks import task_ids

REQUIRED = ("task", "variety", "model", "setting", "train_on", "score")
KEY = ("task", "variety", "model", "setting", "train_on")


class ScoresError(ValueError):
    """A scores table that breaks the contract; the message names the file, the row and the problem.
    `row` is the 1-based data row (the header is not counted; the file line is row + 1)."""

    def __init__(self, source: str, row: int | None, problem: str):
        self.source, self.row, self.problem = source, row, problem
        where = f"{source}:{row + 1}: row {row}" if row is not None else str(source)
        super().__init__(f"{where}: {problem}")


def variety_registry() -> Any | None:
    """The variety registry (dialectbench.varieties.registry()) or None while it is not available."""
    try:
        from dialectbench.varieties import registry
    except ImportError:
        return None
    return registry()


def _lookup(reg: Any, name: str) -> tuple[Any | None, list[str]]:
    if reg is None:
        return None, []
    try:
        return reg.get(name), []
    except LookupError as e:  # UnknownVarietyError carries .suggestions
        return None, list(getattr(e, "suggestions", []) or [])


def _blank(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x)) or str(x).strip() == ""


def _check_row(i: int, row: dict, source: str, has_cluster: bool, reg: Any, memo: dict | None = None) -> dict:
    for col in ("task", "variety", "model", "setting"):
        if _blank(row[col]):
            raise ScoresError(source, i, f"empty {col!r}")
    task, setting = str(row["task"]).strip(), str(row["setting"]).strip()
    if task not in task_ids():
        hint = (" (use mt-dialect or mt-region)" if task == "mt" else
                " (a task of your own? pass its catalogue: --catalogue or $DIALECTBENCH_CATALOGUE)")
        raise ScoresError(source, i, f"unknown task {task!r}{hint}; known: {', '.join(task_ids())}")
    if setting not in SETTINGS:
        raise ScoresError(source, i, f"unknown setting {setting!r}; known: {', '.join(SETTINGS)}")
    try:
        score = float(str(row["score"]).strip())
    except ValueError:
        raise ScoresError(source, i, f"score {row['score']!r} is not a number") from None
    if math.isnan(score):
        raise ScoresError(source, i, f"score {row['score']!r} is not a number")
    if not math.isfinite(score) or not 0.0 <= score <= 100.0:
        raise ScoresError(source, i, f"score {row['score']!r} is not a percentage in 0-100")
    variety = str(row["variety"]).strip()
    cluster = None if not has_cluster or _blank(row["cluster"]) else str(row["cluster"]).strip()
    if memo is None:
        found, suggestions = _lookup(reg, variety)
    else:  # one registry lookup (with near-match search) per distinct name, not per row
        if variety not in memo:
            memo[variety] = _lookup(reg, variety)
        found, suggestions = memo[variety]
    if found is not None:
        variety = found.name
        cluster = cluster or found.cluster
    if cluster is None:
        hint = f"; did you mean {', '.join(repr(s) for s in suggestions[:3])}?" if suggestions else ""
        why = "is not a registered variety" if reg is not None else "cannot be looked up (no registry)"
        raise ScoresError(source, i, f"unknown variety {variety!r}: no cluster given and it {why}{hint}")
    train_on = "" if _blank(row["train_on"]) else str(row["train_on"]).strip()
    return {"task": task, "cluster": cluster, "variety": variety, "model": str(row["model"]).strip(),
            "setting": setting, "train_on": train_on, "score": score,
            "_unregistered": None if found is not None else (variety, suggestions[:3])}


def _synthetic(variety: str) -> bool:
    """A synthetic variety (dialectbench.perturb) is registered only in the run that made it: no typo."""
    from dialectbench.perturb.synthetic import is_synthetic

    return is_synthetic(variety)


def _warn_unregistered(source: str, unregistered: dict[str, tuple[int, list[str]]]) -> None:
    """Varieties outside the registry are kept under the cluster the file gives (a new dataset may bring
    new varieties), but a typo would silently become a new variety: say so, with near matches."""
    parts = []
    for variety, (row, suggestions) in list(unregistered.items())[:5]:
        hint = f" (did you mean {', '.join(repr(s) for s in suggestions)}?)" if suggestions else ""
        parts.append(f"{variety!r} at row {row}{hint}")
    more = f" and {len(unregistered) - 5} more" if len(unregistered) > 5 else ""
    warnings.warn(f"{source}: not registered varieties, kept under their given cluster: {'; '.join(parts)}{more}",
                  UnregisteredVarietyWarning, stacklevel=3)


class UnregisteredVarietyWarning(UserWarning):
    """A scores row names a variety that is not in the registry."""


def validate_scores(raw: pd.DataFrame, source: str = "<scores>") -> pd.DataFrame:
    """Validate and normalise a raw scores table (all columns as read); see `read_scores`."""
    missing = [c for c in REQUIRED if c not in raw.columns]
    if missing:
        raise ScoresError(source, None, f"missing column(s) {', '.join(missing)}; a scores table needs "
                                        f"{', '.join(REQUIRED)} (and cluster unless varieties are registered)")
    has_cluster = "cluster" in raw.columns
    reg = variety_registry()
    rows, seen, unregistered, memo = [], {}, {}, {}
    # column lists zipped into dicts: the same records as to_dict("records"), without its per-cell boxing
    # (10x faster on pandas' Arrow-backed strings; the row loop below is then the cost)
    names = list(raw.columns)
    records = (dict(zip(names, values)) for values in zip(*(raw[c].tolist() for c in names)))
    for i, rec in enumerate(records, start=1):
        row = _check_row(i, rec, source, has_cluster, reg, memo)
        if (odd := row.pop("_unregistered")) is not None and not _synthetic(odd[0]):
            unregistered.setdefault(odd[0], (i, odd[1]))
        key = tuple(row[k] for k in KEY)
        if key in seen:
            first, metric = seen[key]
            now = "" if _blank(rec.get("metric")) else str(rec["metric"]).strip()
            what = (f"a second metric ({metric!r} there, {now!r} here) for" if now != metric else "a duplicate of")
            raise ScoresError(source, i, f"{what} row {first}: same (task, variety, model, setting, train_on) "
                                         f"= {key}; a scores table holds one score per evaluation")
        seen[key] = (i, "" if _blank(rec.get("metric")) else str(rec["metric"]).strip())
        extras = {c: rec[c] for c in names if c not in row}
        rows.append({**row, **extras})
    if not rows:
        raise ScoresError(source, None, "no score rows")
    if unregistered and reg is not None:
        _warn_unregistered(source, unregistered)
    df = pd.DataFrame(rows)
    if "metric" not in df.columns:
        df["metric"] = ""
    df["n"] = pd.to_numeric(df["n"], errors="coerce") if "n" in df.columns else float("nan")
    ordered = [c for c in SCORE_COLUMNS] + [c for c in df.columns if c not in SCORE_COLUMNS]
    return df[ordered]


def read_scores(path: str | Path) -> pd.DataFrame:
    """Read a scores CSV and validate it.

    Needs columns task, variety, model, setting, train_on, score; cluster may be omitted (or left blank)
    for registered varieties, whose names are also canonicalised. Extra columns are kept. Raises
    ScoresError naming the file, row and problem for: a missing column, a non-numeric or out-of-range
    score, an unknown task/setting/variety, a duplicate (task, variety, model, setting, train_on).
    """
    path = Path(path)
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except FileNotFoundError:
        raise ScoresError(str(path), None, "file not found") from None
    except pd.errors.EmptyDataError:
        raise ScoresError(str(path), None, "file is empty (no header)") from None
    except pd.errors.ParserError as e:
        raise ScoresError(str(path), None, f"not a valid CSV: {e}") from None
    raw.columns = [str(c).strip() for c in raw.columns]
    return validate_scores(raw, str(path))
