"""One folder per run: `<out>/runs/<run-id>/results.json` and that run's report.

    dialectbench-results/                 (--out; the default)
      results.sqlite                      the store, shared by every run into this folder (--store moves it)
      runs/<run-id>/results.json          config, versions, git hash, data fingerprints, per-job scores
                                          with every metric, skips with reasons
      runs/<run-id>/samples.jsonl         --log-samples: one line per example of this run's jobs: the
                                          prompt as the model got it, its raw answer, the prediction and
                                          the gold answer (only when some job logged samples)
      runs/<run-id>/report/index.html     the report of this run's jobs only (fresh folder: nothing stale)
      latest                              a text file: the id of the most recent run

The results file is written from the store (what was committed is what is reported), for the jobs of
this run's plan: those it ran and those it found already done.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dialectbench.runner.store import Store

RESULTS_VERSION = 1


def all_metrics(metric: str, score: float | None, extra: dict[str, Any] | None) -> dict[str, float]:
    """The primary metric and every numeric top-level value of `extra` (LAS, chrF, exact match,
    accuracy...), by name. Nested values (per-label tables) and flags stay in `extra`."""
    out: dict[str, float] = {}
    if metric and score is not None:
        out[metric] = float(score)
    for name, value in (extra or {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if isinstance(value, float) and not math.isfinite(value):
            continue
        out.setdefault(str(name), float(value))
    return out


def wide_rows(db: Store, rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """`rows` (scores with job_key) plus one column per metric any of them has, as `metric:<name>`."""
    extras = {r["job_key"]: r for r in db.conn.execute("SELECT job_key, metric, score, extra FROM scores")}
    names: list[str] = []
    out = []
    for row in rows:
        s = extras.get(row["job_key"])
        found = all_metrics(s["metric"], s["score"], json.loads(s["extra"] or "{}")) if s else {}
        names += [n for n in found if n not in names]
        out.append({**row, **{f"metric:{k}": v for k, v in found.items()}})
    return out, [f"metric:{n}" for n in sorted(names)]


def job_scores(db: Store, keys: Sequence[str]) -> list[dict[str, Any]]:
    """Per job of `keys`: its names, status, message, fingerprint, config and every metric."""
    wanted = set(keys)
    scores = {r["job_key"]: dict(r) for r in db.conn.execute("SELECT * FROM scores")
              if r["job_key"] in wanted}
    rows = []
    for job in db.jobs(list(keys)):
        row = {k: job[k] for k in ("task", "cluster", "variety", "model", "setting", "train_on", "status")}
        row["train_members"] = json.loads(job["train_members"] or "[]")
        s = scores.get(job["job_key"])
        if s is not None and job["status"] == "done":
            extra = json.loads(s["extra"] or "{}")
            row.update(metric=s["metric"], score=s["score"], n=s["n"], signature=s["signature"],
                       metrics=all_metrics(s["metric"], s["score"], extra))
        elif job["message"]:
            row["message"] = job["message"].splitlines()[0]
        row.update(job_key=job["job_key"], run_id=job["run_id"], seed=job["seed"],
                   data_fingerprint=job["data_fingerprint"], config=json.loads(job["config"] or "{}"),
                   fit_seconds=job["fit_seconds"], eval_seconds=job["eval_seconds"])
        rows.append(row)
    return rows


def results_document(db: Store, run_id: str, keys: Sequence[str]) -> dict[str, Any]:
    run = next((r for r in db.runs() if r["run_id"] == run_id), None)
    if run is None:
        raise KeyError(f"run {run_id} is not in {db.path}")
    skips = [{"task": r["task"], "variety": r["variety"], "setting": r["setting"], "reason": r["reason"]}
             for r in db.conn.execute("SELECT * FROM skips WHERE run_id = ?", (run_id,))]
    jobs = job_scores(db, keys)
    return {"results_version": RESULTS_VERSION, "run_id": run_id, "store": str(db.path),
            "started_at": run["started_at"], "finished_at": run["finished_at"], "status": run["status"],
            "package_version": run["package_version"], "git_hash": run["git_hash"],
            "library_versions": json.loads(run["library_versions"] or "{}"),
            "config": json.loads(run["config"] or "{}"), "summary": json.loads(run["summary"] or "{}"),
            "jobs": jobs, "skips": skips}


def run_folder(out: Path, run_id: str) -> Path:
    return out / "runs" / run_id


SAMPLE_FIELDS = ("job_key", "task", "variety", "setting", "model", "status", "idx", "example_id", "gold",
                 "prediction", "prompt", "response")


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_results(store: Path, out: Path, run_id: str, keys: Sequence[str]) -> Path:
    """Write `runs/<run-id>/results.json`, its `samples.jsonl` when there are logged samples (atomically)
    and `latest`; returns the results path."""
    folder = run_folder(out, run_id)
    folder.mkdir(parents=True, exist_ok=True)
    wanted = set(keys)
    with Store(store) as db:
        doc = results_document(db, run_id, keys)
        samples = [r for r in db.samples() if r["job_key"] in wanted]
    if samples:
        doc["samples_file"] = "samples.jsonl"
        _write_atomically(folder / "samples.jsonl", "".join(
            json.dumps({k: r[k] for k in SAMPLE_FIELDS}, ensure_ascii=False, default=str) + "\n" for r in samples))
    path = folder / "results.json"
    _write_atomically(path, json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=False, default=str) + "\n")
    (out / "latest").write_text(run_id + "\n", encoding="utf-8")
    return path

