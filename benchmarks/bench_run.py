"""Wall time and peak memory of the main job, `dialectbench run`, on the bundled sample suite.

Each command runs in its own subprocess (fresh store in a temporary folder); its peak resident memory
comes from the kernel's accounting for that child (os.wait4). The same run also times two baselines,
so the figures can be read on any machine as ratios:
  import     python -c "import dialectbench.cli.main"    (the fixed cost of starting the CLI)
  one task   dialectbench run --tasks <first task>         (the cost of one task end to end)
Target (issue 5): the full run under 60 s and 1.5 GB on 2 cores.

    .venv/bin/python benchmarks/bench_run.py [--data-dir DIR] [--tasks dep,pos] [--single sa] [--repeats 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 60.0
TARGET_MB = 1536.0


def measure(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """(wall seconds, peak RSS in MB, exit code, stderr tail) of one subprocess."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024.0, proc.returncode, err[-2000:]


def fit_seconds_by_task(store: Path) -> dict[str, tuple[float, float]]:
    """{task: (fit seconds over distinct training sets, evaluation seconds)} from a run's store."""
    from dialectbench.runner import Store

    fits: dict[tuple[str, str], float] = {}
    evals: dict[str, float] = {}
    with Store(store) as db:
        for job in db.jobs():
            fits[job["task"], job["data_fingerprint"]] = job["fit_seconds"] or 0.0
            evals[job["task"]] = evals.get(job["task"], 0.0) + (job["eval_seconds"] or 0.0)
    return {task: (sum(v for (t, _), v in fits.items() if t == task), evals[task]) for task in evals}


def run_cmd(store: Path, extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "dialectbench.cli.main", "run", "--store", str(store), "--no-report", *extra]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None, help="data mirror (default: bundled sample suite)")
    ap.add_argument("--tasks", default=None, help="tasks of the full run (default: all)")
    ap.add_argument("--single", default="sa", help="the task of the one-task baseline")
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    common = ["--data-dir", args.data_dir] if args.data_dir else []
    env = {**os.environ, "COLUMNS": "120"}
    cases = {"import": lambda store: [sys.executable, "-c", "import dialectbench.cli.main"],
             "one task": lambda store: run_cmd(store, [*common, "--tasks", args.single]),
             "full run": lambda store: run_cmd(store, [*common, *(["--tasks", args.tasks] if args.tasks else [])])}
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            for name, make in cases.items():
                wall, mb, code, err = measure(make(Path(tmp) / f"{name}-{i}.sqlite".replace(" ", "-")), env)
                if code != 0:
                    sys.exit(f"{name} failed (exit {code}):\n{err}")
                results[name].append((wall, mb))
        breakdown = fit_seconds_by_task(Path(tmp) / "full-run-0.sqlite")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"dialectbench run benchmark ({args.repeats} repeat(s), median; {cores} cores available)")
    print(f"{'case':<10} {'wall s':>8} {'peak MB':>9} {'wall / import':>14} {'wall / one task':>16}")
    med = {n: (statistics.median(w for w, _ in r), max(m for _, m in r)) for n, r in results.items()}
    for name, (wall, mb) in med.items():
        print(f"{name:<10} {wall:>8.2f} {mb:>9.0f} {wall / med['import'][0]:>14.1f} "
              f"{wall / med['one task'][0]:>16.2f}")
    wall, mb = med["full run"]
    ok = wall < TARGET_SECONDS and mb < TARGET_MB
    print(f"target: full run < {TARGET_SECONDS:.0f} s and < {TARGET_MB:.0f} MB -> {'met' if ok else 'NOT met'}")
    print("where the full run's time went (seconds; each training set counted once):")
    for task, (fit, evaluate) in sorted(breakdown.items(), key=lambda kv: -sum(kv[1])):
        print(f"  {task:<11} fit {fit:7.1f}  evaluate {evaluate:6.1f}")
    print(f"  {'rest':<11} {wall - sum(f + e for f, e in breakdown.values()):7.1f} (start-up, imports, plan, store)")


if __name__ == "__main__":
    main()
