"""The result store under faults: a held write lock is waited for, announced and given up on in bounded time;
readers never take the write lock; runs whose process died are marked interrupted by the next run; a bad
--store path, or a store damaged deep inside, is one line, not a traceback; a store on read-only media is
read."""

from __future__ import annotations

import dataclasses
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.runner.store import JobRecord, Store, StoreError, StoreLocked


def _record(key: str = "tc|english|baseline|in-variety|english", score: float = 50.0) -> JobRecord:
    return JobRecord(job_key=key, task="tc", variety="english", cluster="anglic", model="baseline",
                     setting="in-variety", train_on="english", status="done", metric="accuracy", score=score, n=2,
                     example_ids=["a", "b"], predictions=["x", "y"], values=[1.0, 0.0])


def _start(db: Store, run_id: str) -> list[str]:
    return db.start_run(run_id, seed=0, config={}, package_version="0", library_versions={}, git_hash=None)


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "results.sqlite"
    with Store(path) as db:
        _start(db, "r0")
        db.commit_job("r0", _record())
        db.finish_run("r0", "finished", {})
    return path


def _hold_write_lock(path):
    """Another connection in the middle of a write transaction (what a busy run looks like)."""
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    return other


def test_a_held_write_lock_is_announced_once_and_given_up_on_in_bounded_time(store):
    other = _hold_write_lock(store)
    said = []
    try:
        db = Store(store, timeout=0.6, on_wait=said.append)  # opening an up-to-date store takes no lock
        with pytest.raises(StoreLocked) as err:
            db.commit_job("r0", _record(score=1.0))
        db.close()
    finally:
        other.rollback()
        other.close()
    # it waited (on_wait said so, once) and gave up after the store's own timeout (the message's 0.6 s)
    assert len(said) == 1 and str(store) in said[0] and "write lock" in said[0]
    assert "0.6 s" in str(err.value) and "\n" not in str(err.value)


def test_the_lock_timeout_comes_from_the_environment(store, monkeypatch):
    monkeypatch.setenv("DIALECTBENCH_LOCK_TIMEOUT", "0.3")
    assert Store(store, readonly=True).timeout == 0.3
    monkeypatch.setenv("DIALECTBENCH_LOCK_TIMEOUT", "soon")
    with pytest.raises(StoreError, match="not a number"):
        Store(store)


def test_a_waiting_write_goes_through_when_the_lock_is_released(store):
    other = _hold_write_lock(store)
    said = []
    db = Store(store, timeout=30, on_wait=said.append)

    def release():
        time.sleep(0.5)
        other.rollback()
        other.close()

    releaser = threading.Thread(target=release)
    releaser.start()
    try:
        assert db.commit_job("r0", _record("other-key"))  # waited, then written
    finally:
        releaser.join()
        db.close()
    assert len(said) == 1


def test_readers_work_while_another_process_holds_the_write_lock(store, monkeypatch):
    # a lock timeout of 0.05 s: a reader that waited for the write lock would fail, so passing shows it
    # never waits (no clock read)
    monkeypatch.setenv("DIALECTBENCH_LOCK_TIMEOUT", "0.05")
    other = _hold_write_lock(store)
    try:
        result = CliRunner().invoke(app, ["results", "export", "--store", str(store), "--format", "csv"])
        with Store(store, readonly=True, timeout=0.05) as db:
            rows = db.scores()
    finally:
        other.rollback()
        other.close()
    assert result.exit_code == 0, result.output
    assert "tc,anglic,english" in result.stdout and len(rows) == 1


def test_a_read_only_store_refuses_writes_and_missing_or_foreign_files(tmp_path, store):
    with Store(store, readonly=True) as db, pytest.raises(StoreError, match="read-only"):
        db.commit_job("r1", _record())
    with pytest.raises(StoreError, match="no result store"):
        Store(tmp_path / "absent.sqlite", readonly=True)
    assert not (tmp_path / "absent.sqlite").exists()
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(StoreError, match="not a dialectbench result store"):
        Store(other, readonly=True)


_KILLED_RUN = """
import os, sys
from dialectbench.runner.store import Store
db = Store(sys.argv[1])
db.start_run("killed", seed=0, config={}, package_version="0", library_versions={}, git_hash=None)
os.kill(os.getpid(), 9)
"""

_LIVE_RUN = """
import sys, time
from dialectbench.runner.store import Store
db = Store(sys.argv[1])
db.start_run("alive", seed=0, config={}, package_version="0", library_versions={}, git_hash=None)
print("started", flush=True)
sys.stdin.readline()
"""


def test_runs_whose_process_died_are_marked_interrupted_and_live_ones_are_not(store):
    live = subprocess.Popen([sys.executable, "-c", _LIVE_RUN, str(store)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert live.stdout.readline().strip() == "started"
        killed = subprocess.run([sys.executable, "-c", _KILLED_RUN, str(store)], capture_output=True, timeout=120,
                                check=False)
        assert killed.returncode == -9
        with Store(store) as db:
            assert _start(db, "next") == ["killed"]
            status = {r["run_id"]: r["status"] for r in db.runs()}
            db.finish_run("next", "finished", {})
    finally:
        live.communicate("\n", timeout=60)
    assert status == {"r0": "finished", "killed": "interrupted", "alive": "running", "next": "running"}
    assert not (store.parent / f"{store.name}.runs" / "killed.lock").exists()
    assert not (store.parent / f"{store.name}.runs" / "next.lock").exists()


@pytest.mark.parametrize("make", ["folder", "text"])
def test_a_bad_store_path_is_one_clear_line(tmp_path, make):
    bad = tmp_path / "bad"
    if make == "folder":
        bad.mkdir()
    else:
        bad.write_text("not a database\n" * 10)
    for args in (["results", "export", "--store", str(bad)],
                 ["run", "--tasks", "tc", "--store", str(bad), "--no-report"]):
        result = CliRunner().invoke(app, args, env={"COLUMNS": "60"})
        assert result.exit_code != 0
        lines = [ln for ln in result.output.splitlines() if ln.strip()]
        assert "Traceback" not in result.output and len(lines) == 1, result.output
        assert str(bad) in result.output.replace("\n", "")
    with pytest.raises(StoreError):
        Store(bad)
    if make == "text":
        assert bad.read_text() == "not a database\n" * 10  # left as it was


def test_export_as_a_table_is_limited_and_says_so(store, monkeypatch):
    from dialectbench.cli import run_cmds

    with Store(store) as db:
        _start(db, "r2")
        for i in range(4):
            db.commit_job("r2", dataclasses.replace(_record(f"key{i}", float(i)), variety=f"v{i}"))
        db.finish_run("r2", "finished", {})
    monkeypatch.setattr(run_cmds, "TABLE_LIMIT", 2)
    result = CliRunner().invoke(app, ["results", "export", "--store", str(store), "--format", "table"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "first 2 of 5 rows" in result.output
    full = CliRunner().invoke(app, ["results", "export", "--store", str(store), "--format", "csv"])
    assert len(full.stdout.strip().splitlines()) == 1 + 5


def test_no_job_is_lost_when_a_run_process_is_killed_and_the_store_reopened(store):
    """Kill a writer mid-way (SIGKILL); the store is intact and the next open needs no lock to read it."""
    code = ("import sys, os\nfrom dialectbench.runner.store import Store, JobRecord\n"
            "db = Store(sys.argv[1])\n"
            "db.conn.execute('BEGIN IMMEDIATE')\n"
            "db.conn.execute(\"INSERT INTO skips (run_id, task) VALUES ('r0', 'y')\")\n"
            "os.kill(os.getpid(), 9)\n")
    subprocess.run([sys.executable, "-c", code, str(store)], timeout=120, check=False)
    with Store(store, timeout=2) as db:
        assert db.integrity_check() == "ok"
        assert db.conn.execute("SELECT COUNT(*) FROM skips").fetchone()[0] == 0  # rolled back
        assert db.commit_job("r0", _record("after-kill"))
    assert os.path.exists(store)


def _garbage_in_the_middle(path) -> None:
    """Overwrite the middle third of the file's pages (header, schema and first pages intact): what a bad
    disk sector or a half-copied file leaves; SQLite only finds it when a query reaches those pages."""
    size, page = os.path.getsize(path), 4096
    with open(path, "r+b") as fh:
        for n in range(size // page // 3, 2 * size // page // 3):
            fh.seek(n * page)
            fh.write(bytes((i * 7 + n) % 256 for i in range(page)))


@pytest.fixture
def big_store(tmp_path):
    path = tmp_path / "big" / "results.sqlite"
    with Store(path) as db:
        _start(db, "r0")
        for i in range(200):
            db.commit_job("r0", dataclasses.replace(_record(f"tc|v{i}"), variety=f"v{i}", n=50,
                                                    example_ids=[str(j) for j in range(50)],
                                                    predictions=["x" * 20] * 50, values=[1.0] * 50))
        db.finish_run("r0", "finished", {})
    assert not path.with_name("results.sqlite-wal").exists()  # checkpointed: every row is in the file
    return path


def test_garbage_in_a_stores_middle_pages_is_one_line_for_every_reader(big_store, tmp_path):
    _garbage_in_the_middle(big_store)
    with Store(big_store, readonly=True) as db, pytest.raises(StoreError, match="malformed"):
        db.scores()
    for args in (["results", "export", "--store", str(big_store)],
                 ["report", "--store", str(big_store), "--out", str(tmp_path / "report")]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, result.output
        assert isinstance(result.exception, SystemExit)  # typer.Exit from fail(), not an escaped error
        assert result.stderr.strip() == (f"error: {big_store}: not a usable SQLite result store (database disk "
                                         "image is malformed)")


def _on_read_only_media(folder, argv: list[str]) -> subprocess.CompletedProcess:
    """Run `argv` with `folder` read-only for it: a folder without write permission, or (root ignores
    permissions) a read-only bind mount in a mount namespace of its own, as on a read-only disk."""
    run = {"capture_output": True, "text": True, "timeout": 300, "env": {**os.environ, "COLUMNS": "80"}}
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            return subprocess.run(argv, check=False, **run)
        finally:
            folder.chmod(0o755)
    if shutil.which("unshare") is None:
        pytest.skip("running as root without unshare: no way to make a folder read-only")
    script = 'mount --bind -o ro "$0" "$0" 2>/dev/null || exit 99; touch "$0/probe" 2>/dev/null && exit 98; exec "$@"'
    result = subprocess.run(["unshare", "-m", "sh", "-c", script, str(folder), *argv], check=False, **run)
    if result.returncode in (98, 99):
        pytest.skip("cannot mount a folder read-only here (no mount namespaces)")
    return result


def test_a_store_on_read_only_media_is_read_by_the_read_only_commands(big_store, tmp_path):
    folder = big_store.parent
    before = sorted(p.name for p in folder.iterdir())
    cli = [sys.executable, "-m", "dialectbench.cli.main"]
    export = _on_read_only_media(folder, [*cli, "results", "export", "--store", str(big_store), "-f", "csv"])
    assert export.returncode == 0, export.stderr
    assert len(export.stdout.strip().splitlines()) == 1 + 200 and "tc,anglic,v199," in export.stdout
    report = _on_read_only_media(folder, [*cli, "report", "--store", str(big_store), "--out", str(tmp_path / "r")])
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "r" / "index.html").is_file()
    assert sorted(p.name for p in folder.iterdir()) == before  # no -shm or -wal was made (nor could be)
