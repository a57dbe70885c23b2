"""Workers end with the driver, however it ends: `dialectbench run` killed with SIGKILL leaves no process
behind (fork server, workers, resource tracker), also while the killed driver is an unreaped zombie; and
the portable guard alone (the lifeline pipe, without Linux's parent-death signal) ends a worker too.

Processes are found and watched in /proc (Linux); each wait polls in short steps up to a generous bound
that only ends a hung test."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dialectbench.runner.local_executor import usable_cores

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")

BOUND_S = 120  # a loaded machine starting a run (imports, fork server) is slow; only a hang reaches this
DEATH_S = 10  # how long the killed driver's processes may take to end (they take milliseconds)


def _stat(pid: int) -> tuple[str, int, str] | None:
    """(state, parent pid, start time) of a process, None when there is no such process."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2:].split()
    return fields[0], int(fields[1]), fields[19]


def _descendants(root: int) -> dict[int, str]:
    """pid -> start time of every process below `root`."""
    procs = {int(d): s for d in os.listdir("/proc") if d.isdigit() and (s := _stat(int(d))) is not None}
    found: dict[int, str] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (_, ppid, start) in procs.items():
            if ppid == parent and pid not in found:
                found[pid] = start
                frontier.append(pid)
    return found


def _alive(pid: int, start: str) -> bool:
    """Still running: the same process (not a reused pid) and not a zombie (exited, holding nothing)."""
    s = _stat(pid)
    return s is not None and s[0] != "Z" and s[2] == start


def _poll(condition, bound: float) -> bool:
    deadline = time.monotonic() + bound
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _assert_all_end(procs: dict[int, str]) -> float:
    """Seconds until every process in `procs` has ended; fails (and kills the survivors) after DEATH_S."""
    t0 = time.monotonic()
    ended = _poll(lambda: not any(_alive(p, s) for p, s in procs.items()), DEATH_S)
    took = time.monotonic() - t0
    survivors = [p for p, s in procs.items() if _alive(p, s)]
    for pid in survivors:  # leave nothing behind, whatever the outcome
        os.kill(pid, signal.SIGKILL)
    assert ended, f"still alive {DEATH_S} s after the driver died: " + ", ".join(
        f"{p} {Path(f'/proc/{p}/cmdline').read_bytes()[:120]!r}" for p in survivors)
    return took


@pytest.mark.skipif(usable_cores() < 2, reason="the local executor uses worker processes from 2 cores on")
def test_a_run_killed_with_sigkill_leaves_no_worker_alive(tmp_path):
    driver = subprocess.Popen([sys.executable, "-m", "dialectbench.cli.main", "run", "--no-report", "--out",
                               str(tmp_path / "out")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env={**os.environ, "DIALECTBENCH_CACHE": str(tmp_path / "cache")})
    try:
        # workers started: processes two levels down (driver -> fork server -> workers)
        started = _poll(lambda: driver.poll() is not None or any(
            (s := _stat(p)) is not None and s[1] != driver.pid for p in _descendants(driver.pid)), BOUND_S)
        assert started and driver.poll() is None, f"no worker started (exit code {driver.poll()})"
        procs = _descendants(driver.pid)
        os.kill(driver.pid, signal.SIGKILL)
        # not reaped yet: the driver is a zombie, which a pid check alone would take for alive
        assert _poll(lambda: (_stat(driver.pid) or ("Z",))[0] == "Z", DEATH_S)
        _assert_all_end(procs)
        assert len(procs) >= 3  # the fork server and at least one worker were watched
    finally:
        driver.kill()
        driver.communicate(timeout=BOUND_S)
    assert driver.returncode == -signal.SIGKILL


_LIFELINE_ONLY = """
import multiprocessing, os, sys, time
from dialectbench.runner.lifeline import watch_driver

def worker(driver_pid, lifeline, ready):
    watch_driver(driver_pid, lifeline, every=3600)  # the pid check never comes: only the pipe can tell
    open(ready, "w").close()
    time.sleep(3600)

if __name__ == "__main__":
    ctx = multiprocessing.get_context("forkserver")
    lifeline, alive = ctx.Pipe(duplex=False)
    p = ctx.Process(target=worker, args=(os.getpid(), lifeline, sys.argv[1]))
    p.start()
    print(p.pid, flush=True)
    time.sleep(3600)
"""


def test_the_lifeline_alone_ends_a_worker_whose_driver_is_killed(tmp_path):
    script = tmp_path / "driver.py"
    script.write_text(_LIFELINE_ONLY)
    ready = tmp_path / "watching"
    driver = subprocess.Popen([sys.executable, str(script), str(ready)], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(driver.stdout.readline())
        assert _poll(ready.exists, BOUND_S), "the worker never started watching"
        procs = _descendants(driver.pid)
        assert worker in procs
        os.kill(driver.pid, signal.SIGKILL)
        _assert_all_end(procs)
    finally:
        driver.kill()
        driver.communicate(timeout=BOUND_S)
