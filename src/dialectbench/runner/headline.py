"""A run's headlines from its store (analysis.headline): the terminal's headline table, the report's and
`results.json`'s `results` all call `store_headlines`, so the three show one number per (task, setting)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dialectbench.analysis.headline import headlines
from dialectbench.analysis.intervals import score_se
from dialectbench.data.overlap import MAX_OVERLAP
from dialectbench.runner.flags import kept_out, leaked


def job_evidence(db: Any, job_key: str) -> dict[str, Any]:
    """Per-example values and sufficient statistics of one stored job (empty when it has neither)."""
    rows = db.conn.execute("SELECT value FROM predictions WHERE job_key = ? ORDER BY idx", (job_key,)).fetchall()
    values = [r[0] for r in rows if r[0] is not None and math.isfinite(r[0])]
    row = db.conn.execute("SELECT extra FROM scores WHERE job_key = ?", (job_key,)).fetchone()
    extra = json.loads(row[0]) if row and row[0] else {}
    stats = extra.get("stats") if isinstance(extra, dict) else None
    out: dict[str, Any] = {}
    if values:
        out["values"] = values
    if stats and _is_matrix(stats):
        out["stats"] = stats
    return out


def _is_matrix(stats: Any) -> bool:
    try:
        arr = np.asarray(stats, dtype=float)
    except (TypeError, ValueError):
        return False
    return arr.ndim == 2 and arr.shape[0] > 0 and arr.shape[1] >= 2 and bool(np.all(np.isfinite(arr)))


def store_headlines(db: Any, keys: Sequence[str] | None = None, *, item_se: bool = True) -> list[dict[str, Any]]:
    """analysis.headlines over the store's latest scores of `keys`' jobs (all when None), each score with
    its item-level standard error (analysis.intervals.score_se) where its evidence reproduces it (`item_se`), and the jobs the store keeps
    out of summaries (flags.kept_out: a leak, unaligned label meanings) named as excluded."""
    rows = db.scores(keys, latest=True, detail=True)
    for r in rows:
        if item_se and r.get("score") is not None and math.isfinite(float(r["score"])):
            found = score_se(float(r["score"]), job_evidence(db, r["job_key"]))
            r["se"] = found["se"] if found else None
    excluded = [{**{k: r[k] for k in ("task", "setting", "model", "variety")}, "reason": _kept_out_reason(r["flags"])}
                for r in db.flagged(keys) if kept_out(r["flags"])]
    return headlines(rows, excluded)


def _kept_out_reason(flags: dict[str, Any]) -> str:
    if leaked(flags):
        return f"test overlaps training by {100.0 * float(flags['overlap']['share']):.1f}% > {MAX_OVERLAP:g}%"
    return "training and test label meanings not known to align"
