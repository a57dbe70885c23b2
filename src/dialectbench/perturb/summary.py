"""Synthetic varieties in tables: split them off the real ones, and show them against English.

Every aggregate over varieties (averages, Rawlsian minima, cluster gaps, leaderboards) is computed on
the real varieties only; the synthetic ones get this table of their own: the score, the English score
of the same model, task and setting, and the gap (English - synthetic).
"""

from __future__ import annotations

import math
from typing import Any

from dialectbench.perturb.synthetic import BASE_VARIETY, is_synthetic

TITLE = ("Synthetic varieties: English test sets rewritten by eWAVE dialect profiles (not real data; kept "
         "out of every ranking and aggregate above)")


def split_synthetic(frame: Any) -> tuple[Any, Any]:
    """(real rows, synthetic rows) of a scores DataFrame."""
    if frame is None or frame.empty or "variety" not in frame:
        return frame, frame.iloc[0:0] if frame is not None else frame
    names = frame["variety"].astype(str)
    synthetic = {name: is_synthetic(name) for name in names.unique()}  # a name once, not once per score
    mask = names.map(synthetic).astype(bool)
    return frame[~mask].reset_index(drop=True), frame[mask].reset_index(drop=True)


def _num(value: Any) -> str | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else f"{float(value):.1f}"


def synthetic_rows(frame: Any) -> list[dict[str, Any]]:
    """One row per synthetic score, beside the English score it was derived from."""
    real, synth = split_synthetic(frame)
    if synth is None or synth.empty:
        return []
    keys = ["task", "model", "setting", "train_on"]
    english = {tuple(r[k] for k in keys): r["score"] for r in real[real["variety"] == BASE_VARIETY].to_dict("records")}
    rows = []
    for r in synth.sort_values(["task", "variety", "model"]).to_dict("records"):
        eng = english.get(tuple(r[k] for k in keys))
        rows.append({"task": r["task"], "variety": r["variety"], "model": r["model"], "setting": r["setting"],
                     "score": _num(r["score"]), "eng": _num(eng),
                     "gap": _num(None if eng is None else eng - r["score"])})
    return rows
