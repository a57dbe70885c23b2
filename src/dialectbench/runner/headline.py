"""A run's headlines from its store (analysis.headline): the terminal's headline table, the report's and
`results.json`'s `results` all call `store_headlines`, so the three show one number per (task, setting).
Each score comes with its influence values keyed by test item (`data.items.item_key` under the reader
format of the job's catalogue entry), so a headline over varieties that share test items (SD-QA's
dialects: one set of questions) or training sources scored on one test set gets a clustered SE."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dialectbench.analysis.headline import headlines
from dialectbench.analysis.intervals import score_influence
from dialectbench.data.overlap import MAX_OVERLAP
from dialectbench.runner.flags import kept_out, leaked


def job_evidence(db: Any, job_key: str, *, ids: bool = False) -> dict[str, Any]:
    """Per-example values and sufficient statistics of one stored job (empty when it has neither); with
    `ids`, also the example ids of their rows, "values_ids" and "stats_ids" (stats rows are one per stored
    prediction, in order; none when their counts differ)."""
    rows = db.conn.execute("SELECT value, example_id FROM predictions WHERE job_key = ? ORDER BY idx",
                           (job_key,)).fetchall()
    kept = [r for r in rows if r[0] is not None and math.isfinite(r[0])]
    values = [r[0] for r in kept]
    row = db.conn.execute("SELECT extra FROM scores WHERE job_key = ?", (job_key,)).fetchone()
    extra = json.loads(row[0]) if row and row[0] else {}
    stats = extra.get("stats") if isinstance(extra, dict) else None
    out: dict[str, Any] = {}
    if values:
        out["values"] = values
        if ids:
            out["values_ids"] = [r[1] for r in kept]
    if stats and _is_matrix(stats):
        out["stats"] = stats
        if ids and len(stats) == len(rows):
            out["stats_ids"] = [r[1] for r in rows]
    return out


def _formats(task: str) -> dict[str, str]:
    """{variety: reader format} of the task's packaged catalogue entries ({} when it has none)."""
    from dialectbench.data.catalogue import load_catalogue

    try:
        return {e.variety: e.format for e in load_catalogue(task).entries}
    except (OSError, ValueError):  # an unknown or unreadable catalogue: ids are taken as they are
        return {}


def score_psi(score: float, evidence: dict[str, Any], fmt: str | None) -> dict[str, Any] | None:
    """{se, psi}: the score's item-level SE and its influence values summed per test item
    (`data.items.item_key`); psi is None when the evidence has no example ids for its rows."""
    from dialectbench.data.items import item_key

    found = score_influence(score, evidence)
    if found is None:
        return None
    ids = evidence.get(f"{found['rows']}_ids")
    if ids is None or len(ids) != len(found["psi"]):
        return {"se": found["se"], "psi": None}
    psi: dict[str, float] = {}
    for example_id, value in zip(ids, found["psi"].tolist()):
        key = item_key(fmt, str(example_id))
        psi[key] = psi.get(key, 0.0) + value
    return {"se": found["se"], "psi": psi}


def _is_matrix(stats: Any) -> bool:
    try:
        arr = np.asarray(stats, dtype=float)
    except (TypeError, ValueError):
        return False
    return arr.ndim == 2 and arr.shape[0] > 0 and arr.shape[1] >= 2 and bool(np.all(np.isfinite(arr)))


def store_headlines(db: Any, keys: Sequence[str] | None = None, *, item_se: bool = True) -> list[dict[str, Any]]:
    """analysis.headlines over the store's latest scores of `keys`' jobs (all when None), each score with
    its item-level standard error and influence values by test item (`score_psi`) where its evidence
    reproduces it (`item_se`), and the jobs the store keeps out of summaries (flags.kept_out: a leak, unaligned label meanings) named as excluded."""
    rows = db.scores(keys, latest=True, detail=True)
    formats: dict[str, dict[str, str]] = {}
    for r in rows:
        if item_se and r.get("score") is not None and math.isfinite(float(r["score"])):
            fmt = formats.setdefault(r["task"], _formats(r["task"])).get(r["variety"])
            found = score_psi(float(r["score"]), job_evidence(db, r["job_key"], ids=True), fmt)
            r["se"] = found["se"] if found else None
            r["psi"] = found["psi"] if found else None
    excluded = [{**{k: r[k] for k in ("task", "setting", "model", "variety")}, "reason": _kept_out_reason(r["flags"])}
                for r in db.flagged(keys) if kept_out(r["flags"])]
    return headlines(rows, excluded)


def _kept_out_reason(flags: dict[str, Any]) -> str:
    if leaked(flags):
        return f"test overlaps training by {100.0 * float(flags['overlap']['share']):.1f}% > {MAX_OVERLAP:g}%"
    return "training and test label meanings not known to align"
