"""Wall time and peak memory of the main job, `dialectbench run`, on the bundled sample suite.

Each command runs in its own subprocess (fresh store in a temporary folder); its peak resident memory
comes from the kernel's accounting for that child (os.wait4). The same run also times two baselines,
so the figures can be read on any machine as ratios:
  import     python -c "import dialectbench.cli.main"    (the fixed cost of starting the CLI)
  one task   dialectbench run --tasks <first task>         (the cost of one task end to end)
Target (issue 5): the full run under 60 s and 1.5 GB on 2 cores.

--eta adds one more fresh run (in this process, through the CLI's executor and the same `Tracker` its
progress bar shows) that records every ETA the bar would show, and prints the ETA shown once 10% of
the work is done (and once 10% of the wall time has passed) beside the time that actually remained.
Target (issue 27): within a factor of 2 of the truth.

    .venv/bin/python benchmarks/bench_run.py [--data-dir DIR] [--tasks dep,pos] [--single sa] [--repeats 1]
        [--eta [--eta-only] [--varieties V,...] [--settings S,...] [--limit N]]
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


class EtaRecorder:
    """Run events -> the progress bar's Tracker, sampled after each: (seconds since the plan, share of
    the work done, the ETA the bar shows then)."""

    def __init__(self) -> None:
        from dialectbench.runner.progress import Tracker

        self.tracker = Tracker()
        self.samples: list[tuple[float, float, float | None]] = []

    def _sample(self) -> None:
        t = self.tracker
        self.samples.append((t.clock() - t.start, t.done / t.total if t.total else 1.0, t.eta()))

    def planned(self, plan, pending: int) -> None:
        self.tracker.planned(plan, pending)

    def group_started(self, group, jobs) -> None:
        self.tracker.group_started(group, jobs)
        self._sample()

    def job_started(self, job) -> None:
        pass

    def job_progress(self, group, info) -> None:
        self.tracker.job_progress(group, info)
        self._sample()

    def job_finished(self, record, written: bool) -> None:
        self.tracker.job_finished(record.job_key)
        self._sample()


def eta_check(store: Path, args: argparse.Namespace) -> None:
    """One fresh run; the ETA shown at 10% of the work and at 10% of the wall time against the truth."""
    from dialectbench.runner import run
    from dialectbench.runner.executors import make_executor
    from dialectbench.runner.options import RunOptions
    from dialectbench.runner.plan import split_names

    recorder = EtaRecorder()
    run(tasks=split_names(args.tasks), varieties=split_names(args.varieties), settings=split_names(args.settings),
        data_dir=args.data_dir, store=store, events=recorder, executor=make_executor("local"),
        options=RunOptions(limit=args.limit))
    end = recorder.samples[-1][0]  # the last job done: what the ETA promises

    def shown(pick) -> tuple[float, float | None]:
        at = next((s for s in recorder.samples if pick(s)), recorder.samples[-1])
        return at[0], at[2]

    first = next(((t, eta) for t, _, eta in recorder.samples if eta is not None), (end, None))
    print(f"ETA check ({end:.1f} s of work from the plan to the last job; first ETA "
          f"{_secs(first[1])} at {first[0]:.1f} s, {_ratio(first[1], end - first[0])})")
    for label, pick in (("10% of the work", lambda s: s[1] >= 0.1 and s[2] is not None),
                        ("10% of the wall time", lambda s: s[0] >= 0.1 * end and s[2] is not None)):
        t, eta = shown(pick)
        print(f"  at {label:<20} ({t:5.1f} s): ETA {_secs(eta)}, actually {end - t:5.1f} s left "
              f"-> {_ratio(eta, end - t)}")


def _secs(eta: float | None) -> str:
    return "none" if eta is None else f"{eta:5.1f} s"


def _ratio(eta: float | None, truth: float) -> str:
    """ETA / truth, and whether it is within the factor of 2 of issue 27."""
    if eta is None or truth <= 0:
        return "no ratio"
    r = eta / truth
    return f"{r:.2f}x the truth ({'within' if 0.5 <= r <= 2.0 else 'NOT within'} 2x)"


def run_cmd(store: Path, extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "dialectbench.cli.main", "run", "--store", str(store), "--no-report", *extra]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None, help="data mirror (default: bundled sample suite)")
    ap.add_argument("--tasks", default=None, help="tasks of the full run (default: all)")
    ap.add_argument("--single", default="sa", help="the task of the one-task baseline")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--eta", action="store_true", help="also check the ETA of a fresh run (see above)")
    ap.add_argument("--eta-only", action="store_true", help="only the ETA check")
    ap.add_argument("--varieties", default=None, help="ETA check: varieties (default: all)")
    ap.add_argument("--settings", default=None, help="ETA check: settings (default: each task's own)")
    ap.add_argument("--limit", type=int, default=None, help="ETA check: --limit N")
    args = ap.parse_args()
    if args.eta_only:
        with tempfile.TemporaryDirectory() as tmp:
            eta_check(Path(tmp) / "eta.sqlite", args)
        return
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
    if args.eta:
        with tempfile.TemporaryDirectory() as tmp:
            eta_check(Path(tmp) / "eta.sqlite", args)


if __name__ == "__main__":
    main()
