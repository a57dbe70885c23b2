"""What a report is built from: a scores table (from a result store, a CSV, a DataFrame or the packaged paper
results), plus, when a store is given, the per-example values that bootstrap intervals resample."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

PAPER = "paper"
KEY = ("task", "variety", "model", "setting", "train_on")
STORE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


class ReportInputError(ValueError):
    """An input a report cannot be built from; the message names the source and the problem."""


@dataclass
class ReportInput:
    """A validated scores table, where it came from, and (store only) per-example evidence per score row:
    `evidence[(task, variety, model, setting, train_on)] = {"values": [...], "stats": [[...], ...]}`."""

    scores: pd.DataFrame
    source: str
    evidence: dict[tuple, dict[str, Any]] = field(default_factory=dict)
    flags: list[dict[str, Any]] = field(default_factory=list)  # store only: flagged scores (runner/flags.py)
    sample_models: set[str] = field(default_factory=set)  # store only: models scored on the sample suite
    # store only: runner.headline.store_headlines, the headline the terminal and results.json show
    headline: list[dict[str, Any]] | None = None


def load_input(source: Any, keys: Any = None) -> ReportInput:
    """A store path (.sqlite/.db), a scores CSV path, 'paper', a DataFrame or an open runner Store;
    `keys`: with a store, only these job keys."""
    from dialectbench.analysis import ScoresError, read_scores, validate_scores

    if isinstance(source, pd.DataFrame):
        return ReportInput(validate_scores(source, "<scores table>"), "<scores table>")
    if hasattr(source, "scores") and hasattr(source, "conn"):  # an open dialectbench.runner.Store
        return _from_store(source, str(getattr(source, "path", "<store>")), keys)
    if isinstance(source, str) and source.strip().lower() == PAPER:
        from dialectbench.analysis.reference import paper_scores
        return ReportInput(validate_scores(paper_scores(), "paper (DialectBench Tables 10-20)"), "paper (DialectBench)")
    path = Path(source)
    if not path.is_file():
        raise ReportInputError(f"{path}: no such file (give a result store, a scores CSV or 'paper')")
    if path.suffix.lower() in STORE_SUFFIXES or _is_sqlite(path):
        from dialectbench.runner.store import Store, StoreError
        try:
            with Store(path, readonly=True) as db:  # read-only: a foreign SQLite file is refused untouched
                return _from_store(db, str(path), keys)
        except StoreError as exc:
            raise ReportInputError(str(exc)) from None
    try:
        return ReportInput(read_scores(path), str(path))
    except ScoresError as exc:
        raise ReportInputError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise ReportInputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _is_sqlite(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(16) == b"SQLite format 3\x00"


def _from_store(db: Any, name: str, keys: Any = None) -> ReportInput:
    from dialectbench.analysis import ScoresError, validate_scores

    rows = [r for r in db.scores(keys, latest=True, detail=True) if r.get("score") is not None]
    if not rows:
        raise ReportInputError(f"{name}: the store has no finished scores (run `dialectbench run` first)")
    raw = pd.DataFrame(rows)
    asked = keys  # the caller's jobs: the kept-out ones among them are named in the headline's "left out"
    keys = raw["job_key"].tolist()
    try:
        scores = validate_scores(raw.drop(columns=["signature", "seed", "run_id", "job_key", "flags"],
                                          errors="ignore"), name)
    except ScoresError as exc:
        raise ReportInputError(str(exc)) from None
    # Only the rows that are some variety's maximum are shown with an interval: load just their evidence.
    from dialectbench.analysis import max_scores
    job_of = dict(zip(scores[list(KEY)].itertuples(index=False, name=None), keys))
    evidence = {}
    for key in max_scores(scores)[list(KEY)].itertuples(index=False, name=None):
        found = _evidence(db, job_of[key])
        if found:
            evidence[key] = found
    latest = set(keys)
    flagged = [r for r in db.flagged() if r["job_key"] in latest] if hasattr(db, "flagged") else []
    # the sample suite is said once, by marking its models where they meet published rows, not per score
    sample_models = {r["model"] for r in flagged if r["flags"].get("sample_suite")}
    flags = [{**{k: r[k] for k in ("task", "setting", "variety", "model", "score")}, "flags": rest}
             for r in flagged if (rest := {k: v for k, v in r["flags"].items() if k != "sample_suite"})]
    from dialectbench.runner.headline import store_headlines

    return ReportInput(scores, name, evidence, flags, sample_models, store_headlines(db, asked))


def _evidence(db: Any, job_key: str) -> dict[str, Any]:
    """Per-example values and sufficient statistics of one stored job (empty when it has neither)."""
    from dialectbench.runner.headline import job_evidence

    return job_evidence(db, job_key)
