"""Crash safety: `dialectbench run` killed with SIGKILL mid-way and restarted ends with the same scores as
an uninterrupted run and redoes no finished job; two runs writing one store at once lose nothing.

The subprocesses run the real CLI, plan, executor and store; only the data source and backend are the
small stand-ins of runner_fakes (a fixed delay per fit/predict makes "mid-way" reliable).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dialectbench.runner.store import Store

TESTS = Path(__file__).resolve().parent
DRIVER = f"""
import importlib, sys
sys.path.insert(0, {str(TESTS)!r})
from runner_fakes import FakeBackend, FakeSource
module = importlib.import_module("dialectbench.runner.orchestrate")
module._open_source = lambda data_dir: FakeSource()
module._get_backend = lambda model: FakeBackend()
from dialectbench.cli.main import app
app(sys.argv[1:], prog_name="dialectbench")
"""
ARGS = ["run", "--tasks", "tc,pos", "--no-report"]


def _start(store: Path, delay: float) -> subprocess.Popen:
    env = {**os.environ, "FAKE_BACKEND_DELAY": str(delay), "COLUMNS": "120"}
    return subprocess.Popen([sys.executable, "-c", DRIVER, *ARGS, "--store", str(store)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _done(store: Path) -> int:
    if not store.exists():
        return 0
    conn = sqlite3.connect(store, timeout=30)
    try:
        return conn.execute("SELECT COUNT(*) FROM jobs WHERE status = 'done'").fetchone()[0]
    except sqlite3.OperationalError:  # schema not created yet
        return 0
    finally:
        conn.close()


# Bounds generous enough for a loaded machine (process start-up imports torch): they only end a hung test.
WAIT_S = 600


def _wait_done(store: Path, proc: subprocess.Popen, n: int) -> None:
    """Until `n` jobs are stored (the kill must land after them), bounded; fail if the run ended first."""
    deadline = time.time() + WAIT_S
    while _done(store) < n and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert _done(store) >= n, f"no {n} finished job(s) within {WAIT_S} s (exit code {proc.poll()})"


def _finish(proc: subprocess.Popen) -> str:
    _, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 0, err
    return err


def _scores(store: Path) -> list[tuple]:
    with Store(store) as db:
        return sorted(tuple(r.values()) for r in db.scores())


def _jobs(store: Path) -> dict[str, dict]:
    with Store(store) as db:
        return {j["job_key"]: j for j in db.jobs() if j["status"] == "done"}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The same run, uninterrupted and alone."""
    store = tmp_path_factory.mktemp("reference") / "reference.sqlite"
    _finish(_start(store, 0.0))
    return store


def test_sigkill_mid_run_then_restart_matches_an_uninterrupted_run(tmp_path, reference):
    total = len(_jobs(reference))

    store = tmp_path / "killed.sqlite"
    proc = _start(store, 0.25)
    _wait_done(store, proc, 2)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    before = _jobs(store)
    assert 2 <= len(before) < total, "the kill must land mid-way"
    with Store(store) as db:
        assert db.integrity_check() == "ok"
        assert db.conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == len(before)
        # per-job atomicity: every committed job has all its predictions, nothing else is there
        n_preds = db.conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0]
        assert n_preds == sum(r["n"] for r in db.scores(latest=False))

    err = _finish(_start(store, 0.0))
    assert f"{len(before)} already in the store" in " ".join(err.split())
    after = _jobs(store)
    assert _scores(store) == _scores(reference)
    for key, job in before.items():  # no finished job was redone
        assert (after[key]["finished_at"], after[key]["run_id"]) == (job["finished_at"], job["run_id"])
    assert {j["completions"] for j in after.values()} == {1}
    with Store(store) as db:
        assert db.integrity_check() == "ok"
        # the killed run is found stale (its lock is gone) and marked interrupted by the restart
        assert [r["status"] for r in db.runs()] == ["interrupted", "finished"]


def test_two_runs_writing_one_store_at_once_both_finish_and_lose_nothing(tmp_path, reference):
    store = tmp_path / "shared.sqlite"
    procs = [_start(store, 0.05), _start(store, 0.05)]
    for proc in procs:
        _finish(proc)
    assert _scores(store) == _scores(reference)
    jobs = _jobs(store)
    assert set(jobs) == set(_jobs(reference))
    assert {j["completions"] for j in jobs.values()} == {1}  # a job finished by both is stored once
    with Store(store) as db:
        assert db.integrity_check() == "ok"
        assert [r["status"] for r in db.runs()] == ["finished", "finished"]


def test_sigterm_marks_the_run_interrupted_and_keeps_finished_jobs(tmp_path):
    store = tmp_path / "terminated.sqlite"
    proc = _start(store, 0.25)
    _wait_done(store, proc, 1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 130 and "the same command resumes" in " ".join(err.split())
    with Store(store) as db:
        assert [r["status"] for r in db.runs()] == ["interrupted"]
        assert len(db.done_keys()) >= 1 and db.integrity_check() == "ok"
