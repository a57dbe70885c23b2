"""The local multi-core executor: independent groups in worker processes give the same stored scores as
one process; a worker that dies fails only its group's jobs, with the reason; --executor options."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from runner_fakes import FakeBackend, FakeSource
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.runner import InProcessExecutor, Store, run
from dialectbench.runner.executors import make_executor
from dialectbench.runner.local_executor import ProcessExecutor


def _scores(store) -> list[tuple]:
    with Store(store) as db:
        return sorted((r["task"], r["variety"], r["setting"], r["train_on"], r["metric"], r["score"], r["n"])
                      for r in db.scores())


def _run(store, executor, backend=None) -> Any:
    return run(store=store, source=FakeSource(), backend=backend or FakeBackend(0.0), tasks=["tc", "pos"],
               executor=executor)


class DiesOnPos(FakeBackend):
    """Kills its worker process while fitting a POS tagger (a segfault or OOM kill, as far as the pool
    can tell); text classification fits normally."""

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None, *, seed: int = 0) -> Any:
        if task == "pos":
            os._exit(3)
        return super().fit(task, train, dev, seed=seed)


def test_two_worker_processes_store_the_same_scores_as_one_process(tmp_path):
    local = _run(tmp_path / "one.sqlite", InProcessExecutor())
    parallel = _run(tmp_path / "two.sqlite", ProcessExecutor(workers=2))
    assert len(local.plan.groups) > 2  # there is something to run side by side
    assert _scores(tmp_path / "two.sqlite") == _scores(tmp_path / "one.sqlite") != []
    assert parallel.counts == local.counts


def test_a_dead_worker_fails_its_group_with_the_reason_and_the_run_goes_on(tmp_path):
    result = _run(tmp_path / "r.sqlite", ProcessExecutor(workers=2), backend=DiesOnPos(0.0))
    failed = [p for p in result.problems if p.status == "failed"]
    assert failed and {p.task for p in failed} == {"pos"}
    assert all("worker process died" in p.message and "twice" in p.message for p in failed)
    with Store(tmp_path / "r.sqlite") as db:
        assert {r["task"] for r in db.scores()} == {"tc"}  # every tc group still ran, possibly on a new pool


def test_make_executor_defaults_to_one_local_worker_per_core():
    executor = make_executor()
    assert isinstance(executor, ProcessExecutor) and executor.threads == 1
    assert executor.workers == len(os.sched_getaffinity(0))
    assert make_executor("local", cpus_per_job=2).threads == 2


@pytest.mark.parametrize("args, needle", [
    (["--executor", "dask"], "unknown executor 'dask'"),
    (["--ray-address", "auto"], "--ray-address needs --executor ray"),
    (["--gpus-per-job", "0.5"], "--gpus-per-job needs --executor ray"),
    (["--cpus-per-job", "1.5"], "whole number"),
])
def test_bad_executor_options_are_one_line_errors(tmp_path, args, needle):
    out = CliRunner().invoke(app, ["run", "--tasks", "pos", *args, "--store", str(tmp_path / "r.sqlite")])
    assert out.exit_code == 2 and needle in " ".join(out.output.split())
    assert "Traceback" not in out.output


def test_without_ray_the_ray_executor_says_how_to_install_it(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    out = CliRunner().invoke(app, ["run", "--executor", "ray", "--store", str(tmp_path / "r.sqlite")])
    assert out.exit_code == 2
    assert "pip install 'dialectbench[ray]'" in " ".join(out.output.split())
    assert not (tmp_path / "r.sqlite").exists()  # nothing started


SAMPLE_TASKS = ["pos", "tc", "did", "mt-dialect"]  # a tagger, a classifier, DId's pooled test, MT pseudo-refs


def test_the_sample_suite_scores_do_not_depend_on_the_executor(tmp_path):
    """The real baseline backend on the bundled sample suite (seeded): worker processes store the very
    scores one process does."""
    one = run(store=tmp_path / "one.sqlite", tasks=SAMPLE_TASKS, executor=InProcessExecutor())
    two = run(store=tmp_path / "two.sqlite", tasks=SAMPLE_TASKS, executor=ProcessExecutor(workers=2))
    assert one.counts["done"] > 10 and one.counts == two.counts
    assert _scores(tmp_path / "two.sqlite") == _scores(tmp_path / "one.sqlite")


def test_a_gpu_backend_stays_in_the_driver_process(tmp_path):
    class OnGpu(FakeBackend):
        device = "cuda:0"  # never touched: the fake only says where it would compute

    backend = OnGpu(0.0)
    result = _run(tmp_path / "r.sqlite", ProcessExecutor(workers=2), backend=backend)
    assert len(backend.fits) == len(result.plan.groups)  # fitted here, not in a worker's copy


KILLED_DRIVER = """
import os, sys, time  # a script file, not `python -c`: the workers import its backend class from it
sys.path.insert(0, {tests!r})
from runner_fakes import FakeBackend, FakeSource
from dialectbench.runner import run
from dialectbench.runner.local_executor import ProcessExecutor

class Slow(FakeBackend):
    def fit(self, task, train, dev, *, seed=0):
        open(os.path.join({pids!r}, str(os.getpid())), "w").close()
        time.sleep(600)

if __name__ == "__main__":
    run(store={store!r}, source=FakeSource(), backend=Slow(0.0), tasks=["tc"],
        executor=ProcessExecutor(workers=2))
"""


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a parent to reap it has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_workers_end_when_the_driver_is_killed(tmp_path):
    """SIGKILL leaves the driver no chance to stop its workers; they notice on their own."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs /proc to see whether a process has ended")
    import signal
    import subprocess
    import sys
    import time

    pids = tmp_path / "pids"
    pids.mkdir()
    code = KILLED_DRIVER.format(tests=str(Path(__file__).parent), pids=str(pids), store=str(tmp_path / "r.sqlite"))
    script = tmp_path / "driver.py"
    script.write_text(code)
    driver = subprocess.Popen([sys.executable, str(script)])
    deadline = time.monotonic() + 120
    while len(list(pids.iterdir())) < 2 and time.monotonic() < deadline and driver.poll() is None:
        time.sleep(0.2)
    workers = [int(p.name) for p in pids.iterdir()]
    assert len(workers) == 2, "two groups never started fitting at once"
    driver.send_signal(signal.SIGKILL)
    driver.wait(timeout=30)
    deadline = time.monotonic() + 60  # the watchdog looks every 2 s; a loaded machine may be slow
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in workers)
