"""Executors compared in one run (issue 14); every figure is a ratio against a baseline measured alongside.

1. The sample suite end to end (`dialectbench run`, fresh store each): the local executor vs the Ray
   executor on a local Ray instance, same cores. Prints the overhead ratio (goal <= 1.15x) and whether the
   two stores hold identical scores.
2. A plan of many small independent groups (CPU-bound fits) with 1 vs 2 local workers, in one process
   each (speed-up, goal >= 1.7x on 2 cores). With --ray, the same with a Ray instance of 1 vs 2 CPUs.
3. With --ud DIR: the UD slice (POS and DEP, zero-shot and in-variety, every variety of the mirror) with
   one worker (today's behaviour) vs the local default (one per core). Slow: minutes to tens of minutes.

On a shared machine the load average is printed first: under load every speed-up shrinks.

    nice .venv/bin/python benchmarks/bench_executor.py [--ray] [--ud ../shared/data] [--groups 12]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))  # the fake source of the runner tests

OVERHEAD_GOAL = 1.15
SPEEDUP_GOAL = 1.7


def cli(store: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "dialectbench.cli.main", "run", "--store", str(store), "--no-report", *extra]


def timed(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env={**os.environ, "COLUMNS": "120"}, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=False)
    if proc.returncode not in (0, 1):  # 1 = some job failed: still a timing, reported by the scores check
        sys.exit(f"{' '.join(cmd[3:])} failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return time.perf_counter() - t0


def timed_phases(cmd: list[str], store: Path) -> tuple[float, str]:
    """Wall time, and where the fixed cost went, read from the store's job times: the seconds until the
    first fit began (process start, imports, planning, workers or Ray starting) and those after the last
    job was stored (pools or Ray stopping, the summary)."""
    started = time.time()
    wall = timed(cmd)
    with sqlite3.connect(store) as conn:
        rows = conn.execute("SELECT fit_seconds, eval_seconds, finished_at FROM jobs").fetchall()
    done = [datetime.fromisoformat(at).timestamp() - started for _, _, at in rows]
    begun = [at - (fit or 0) - (ev or 0) for (fit, ev, _), at in zip(rows, done)]
    return wall, f"start-up {min(begun):4.1f} s, after the last job {wall - max(done):4.1f} s"


def scores(store: Path) -> list[tuple]:
    with sqlite3.connect(store) as conn:
        return sorted(conn.execute("SELECT task, variety, setting, train_on, score FROM scores").fetchall())


def sample_suite(tmp: Path, use_ray: bool) -> None:
    print("1. sample suite, `dialectbench run` end to end")
    local, phases = timed_phases(cli(tmp / "local.sqlite"), tmp / "local.sqlite")
    print(f"   local executor (one worker per core) {local:7.1f} s   ({phases})")
    if not use_ray:
        print("   ray: skipped (pass --ray; needs the [ray] extra)")
        return
    ray, phases = timed_phases(cli(tmp / "ray.sqlite", "--executor", "ray"), tmp / "ray.sqlite")
    same = scores(tmp / "local.sqlite") == scores(tmp / "ray.sqlite")
    ratio = ray / local
    print(f"   ray executor (local instance)        {ray:7.1f} s   ({phases})")
    print(f"   overhead {ratio:.2f}x (goal <= {OVERHEAD_GOAL}x: {'met' if ratio <= OVERHEAD_GOAL else 'NOT met'}); "
          f"identical scores: {'yes' if same else 'NO'}")


def many_groups(groups: int, seconds: float) -> tuple[object, object]:
    """A source with `groups` in-variety groups whose fits each burn `seconds` of CPU."""
    from runner_fakes import FakeSource, _sentences

    from dialectbench.varieties import registry

    # POS in-variety: one training set per variety, so every group is independent of the others
    names = [v.name for v in registry().varieties("pos") if v.name != "english"][:groups]
    data = {("pos", n): {"train": _sentences(f"{i}-tr", 9), "test": _sentences(f"{i}-te", 6)}
            for i, n in enumerate(names)}
    return FakeSource(data), BurnBackend(seconds)


class BurnBackend:
    """A majority classifier whose fit keeps one core busy for `seconds` (pure Python: one thread)."""

    name = "burn"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.config = {"burn": seconds}

    def fit(self, task, train, dev, *, seed=0):
        import runner_fakes

        end = time.process_time() + self.seconds  # CPU time, so that a busy machine stretches wall time
        x = 0
        while time.process_time() < end:
            x += 1
        return runner_fakes.FakeBackend(0.0).fit(task, train, dev, seed=seed)


def time_plan(executor: object, groups: int, seconds: float, tmp: Path, name: str) -> float:
    from dialectbench.runner import run

    source, backend = many_groups(groups, seconds)
    t0 = time.perf_counter()
    result = run(store=tmp / f"{name}.sqlite", source=source, backend=backend, tasks=["pos"],
                 settings=["in-variety"], executor=executor)
    wall = time.perf_counter() - t0
    if result.counts["done"] != groups:
        sys.exit(f"{name}: {dict(result.counts)}; first problem: {result.problems[0].message}")
    return wall


def independent_groups(tmp: Path, groups: int, seconds: float, use_ray: bool) -> None:
    from dialectbench.runner.local_executor import ProcessExecutor

    print(f"2. {groups} independent groups, {seconds:.1f} CPU-s each")
    one = time_plan(ProcessExecutor(workers=1), groups, seconds, tmp, "one")
    two = time_plan(ProcessExecutor(workers=2), groups, seconds, tmp, "two")
    print(f"   local, 1 worker  {one:7.1f} s")
    print(f"   local, 2 workers {two:7.1f} s   speed-up {one / two:.2f}x "
          f"(goal >= {SPEEDUP_GOAL}x: {'met' if one / two >= SPEEDUP_GOAL else 'NOT met'})")
    if not use_ray:
        return
    import ray

    from dialectbench.runner.ray_executor import RayExecutor

    walls = {}
    for cpus in (1, 2):
        # the workers import the fake data source from tests/, like this script
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": {"PYTHONPATH": str(TESTS)}})
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
        walls[cpus] = time_plan(RayExecutor(), groups, seconds, tmp, f"ray{cpus}")
        ray.shutdown()
    print(f"   ray, 1 CPU       {walls[1]:7.1f} s")
    print(f"   ray, 2 CPUs      {walls[2]:7.1f} s   speed-up {walls[1] / walls[2]:.2f}x")


def ud_slice(tmp: Path, data_dir: str) -> None:
    print("3. UD slice: pos,dep x zero-shot,in-variety, every variety of the mirror")
    args = ["--data-dir", data_dir, "--tasks", "pos,dep", "--settings", "zero-shot,in-variety"]
    before = timed(cli(tmp / "ud1.sqlite", *args, "--cpus-per-job", str(len(os.sched_getaffinity(0)))))
    after = timed(cli(tmp / "ud2.sqlite", *args))
    with sqlite3.connect(tmp / "ud2.sqlite") as conn:
        ewt = conn.execute("SELECT task, score FROM scores WHERE variety = 'english' AND setting = 'in-variety'"
                           ).fetchall()
    print(f"   one worker, all cores' threads {before:7.1f} s")
    print(f"   one worker per core            {after:7.1f} s   speed-up {before / after:.2f}x "
          f"(goal: under 600 s: {'met' if after < 600 else 'NOT met'}); English in-variety: {ewt}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ray", action="store_true", help="also time the Ray executor")
    ap.add_argument("--ud", default=None, help="a data mirror with the UD treebanks (section 3)")
    ap.add_argument("--groups", type=int, default=12)
    ap.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per fit in section 2")
    ap.add_argument("--skip-sample", action="store_true")
    args = ap.parse_args()
    load = os.getloadavg()
    print(f"{len(os.sched_getaffinity(0))} cores; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} "
          "(a load above the core count makes every figure below noisy)")
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_sample:
            sample_suite(Path(tmp), args.ray)
        independent_groups(Path(tmp), args.groups, args.seconds, args.ray)
        if args.ud:
            ud_slice(Path(tmp), args.ud)


if __name__ == "__main__":
    main()
