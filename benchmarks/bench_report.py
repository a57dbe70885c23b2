"""How `dialectbench report --store` scales with the store: a 5,000-row and a 50,000-row store, one run.

Both stores are synthetic but shaped like real ones, written with the package's own Store API: the full
benchmark's jobs for one model (`plan`: every task, variety and setting, 587 jobs) repeated for as many
models as the row count needs, each job with per-example values (`--examples`, 0/1 per example, so the
score is their mean and the maxima get bootstrap intervals) and, for dep and pos, pooled counts.
The CLI's own command builds each report in a subprocess (start-up included, as a user waits for it).
Target (issue 27): the 50k report <= 3x the 5k one, and under 60 s.

    .venv/bin/python benchmarks/bench_report.py [--rows 5000,50000] [--examples 40] [--profile FILE]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TARGET_RATIO, TARGET_SECONDS = 3.0, 60.0


def build_store(path: Path, rows: int, examples: int, seed: int = 0) -> None:
    """`rows` done jobs: the planned jobs of model m000, m001, ... until there are enough."""
    from dialectbench.runner import Store
    from dialectbench.runner.estimate import full_plan
    from dialectbench.runner.store import JobRecord

    plan, _ = full_plan("baseline")
    rng = np.random.default_rng(seed)
    metric = {"dep": "uas", "pos": "accuracy", "ner": "f1", "mt-dialect": "bleu", "mt-region": "bleu"}
    with Store(path) as db:
        db.conn.execute("PRAGMA synchronous = OFF")  # building the benchmark's input, not what it measures
        db.start_run("bench", seed=seed, config={}, package_version="bench", library_versions={}, git_hash=None)
        n = 0
        for m in range(rows // len(plan.jobs) + 1):
            for job in plan.jobs:
                if n == rows:
                    break
                p = rng.uniform(0.3, 0.95)
                values = (rng.random(examples) < p).astype(float)
                extra = {}
                if job.task in ("dep", "pos"):  # pooled counts (correct, words) reproduce the score too
                    words = rng.integers(5, 30, examples)
                    extra["stats"] = np.stack([np.round(words * values), words], axis=1).tolist()
                    score = 100.0 * float(np.sum(extra["stats"], axis=0)[0] / np.sum(words))
                else:
                    score = 100.0 * float(values.mean())
                db.commit_job("bench", JobRecord(
                    job_key=f"{job.key}-{m}", task=job.task, variety=job.variety, cluster=job.cluster,
                    model=f"m{m:03d}", setting=job.setting, train_on=job.train_on, status="done",
                    metric=metric.get(job.task, "accuracy"), score=score, n=examples, extra=extra,
                    example_ids=[str(i) for i in range(examples)], predictions=[0] * examples,
                    values=values.tolist()))
                n += 1
        db.finish_run("bench", "done", {})


def time_report(store: Path, out: Path, profile: Path | None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of `dialectbench report` in a subprocess: on a shared machine the CPU
    time says what the wall time would be on a quiet one."""
    cmd = ([sys.executable, "-m", "cProfile", "-o", str(profile)] if profile else [sys.executable])
    cmd += ["-m", "dialectbench.cli.main", "report", "--store", str(store), "--out", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "COLUMNS": "120"})
    err = proc.stderr.read() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"report failed:\n{err[-3000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="5000,50000", help="store sizes in score rows, comma-separated")
    ap.add_argument("--examples", type=int, default=40, help="per-example values stored per job")
    ap.add_argument("--profile", type=Path, default=None,
                    help="write a cProfile of the largest report to this file")
    args = ap.parse_args()
    sizes = [int(s) for s in args.rows.split(",")]
    times: dict[int, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for rows in sizes:
            store = Path(tmp) / f"store-{rows}.sqlite"
            t0 = time.perf_counter()
            build_store(store, rows, args.examples)
            built = time.perf_counter() - t0
            prof = args.profile if args.profile and rows == max(sizes) else None
            times[rows] = time_report(store, Path(tmp) / f"report-{rows}", prof)
            html = (Path(tmp) / f"report-{rows}" / "index.html").stat().st_size / 1e6
            wall, cpu = times[rows]
            print(f"{rows:>7,} rows: report {wall:6.1f} s wall, {cpu:6.1f} s CPU  (index.html {html:.1f} MB; "
                  f"store built in {built:.0f} s)", flush=True)
    small, large = min(sizes), max(sizes)
    ratio = times[large][0] / times[small][0]
    ok = ratio <= TARGET_RATIO and times[large][0] < TARGET_SECONDS
    print(f"ratio {large:,} / {small:,} rows: {ratio:.2f}x wall, {times[large][1] / times[small][1]:.2f}x CPU  "
          f"(target <= {TARGET_RATIO:g}x and < {TARGET_SECONDS:.0f} s wall -> {'met' if ok else 'NOT met'})")


if __name__ == "__main__":
    main()
