"""The SQLite result store: WAL, atomic per-job commits, done jobs kept, concurrent writers, export."""

from __future__ import annotations

import json
import multiprocessing as mp
import sqlite3

import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.runner.store import JobRecord, Store
from dialectbench.scores import SCORE_COLUMNS


def _record(key: str, *, score: float = 50.0, status: str = "done", variety: str = "english",
            setting: str = "zero-shot", n: int = 3) -> JobRecord:
    return JobRecord(job_key=key, task="pos", variety=variety, cluster="anglic", model="fake", setting=setting,
                     train_on="english", status=status, metric="f1", score=score, n=n, signature="sig",
                     example_ids=[f"e{i}" for i in range(n)], predictions=[("NOUN", "VERB")] * n,
                     values=[1.0, 0.0, None][:n] + [0.5] * max(0, n - 3), seed=0)


@pytest.fixture
def store(tmp_path):
    db = Store(tmp_path / "sub" / "results.sqlite")
    db.start_run("r1", seed=0, config={"tasks": ["pos"]}, package_version="0.1.0",
                 library_versions={"numpy": "x"}, git_hash=None)
    yield db
    db.close()


def test_store_uses_wal_and_a_busy_timeout(store):
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 10_000
    assert store.integrity_check() == "ok"


def test_a_committed_job_has_its_score_and_every_prediction(store):
    assert store.commit_job("r1", _record("k1"))
    assert store.done_keys() == {"k1"}
    [row] = store.scores()
    assert list(row) == list(SCORE_COLUMNS)
    assert (row["task"], row["variety"], row["score"], row["n"]) == ("pos", "english", 50.0, 3)
    preds = store.predictions("k1")
    assert [p["example_id"] for p in preds] == ["e0", "e1", "e2"]
    assert preds[0]["prediction"] == ["NOUN", "VERB"] and [p["value"] for p in preds] == [1.0, 0.0, None]


def test_a_failure_inside_the_commit_leaves_nothing_of_the_job(store, monkeypatch):
    def explode(c, run_id, record):
        c.execute("INSERT INTO scores (job_key, task, variety, model, setting, train_on, metric) "
                  "VALUES ('k1', 'pos', 'english', 'fake', 'zero-shot', 'english', 'f1')")
        raise RuntimeError("disk full")

    monkeypatch.setattr(Store, "_write_results", staticmethod(explode))
    with pytest.raises(RuntimeError):
        store.commit_job("r1", _record("k1"))
    assert store.conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0] == 0
    assert store.conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == 0


def test_done_jobs_are_kept_unless_forced_and_completions_count_rewrites(store):
    assert store.commit_job("r1", _record("k1", score=10.0))
    assert not store.commit_job("r1", _record("k1", score=99.0))
    assert not store.commit_job("r2", _record("k1", status="failed"), force=True)
    assert store.scores()[0]["score"] == 10.0
    store.start_run("r2", seed=0, config={}, package_version="0.1.0", library_versions={}, git_hash=None)
    assert store.commit_job("r2", _record("k1", score=99.0), force=True)
    [job] = store.jobs()
    assert (job["completions"], job["run_id"], store.scores()[0]["score"]) == (2, "r2", 99.0)
    assert len(store.predictions("k1")) == 3


def test_a_skipped_job_is_retried_and_its_later_success_replaces_it(store):
    assert store.commit_job("r1", _record("k1", status="skipped"))
    assert store.done_keys() == set() and store.scores() == []
    assert store.commit_job("r1", _record("k1"))
    assert store.done_keys() == {"k1"} and store.jobs()[0]["completions"] == 1


def test_scores_keep_the_latest_row_per_natural_key_unless_all_are_asked_for(store):
    store.commit_job("r1", _record("old", score=1.0))
    store.commit_job("r1", _record("new", score=2.0))
    store.commit_job("r1", _record("other", score=3.0, variety="singlish"))
    assert sorted((r["variety"], r["score"]) for r in store.scores()) == [("english", 2.0), ("singlish", 3.0)]
    detailed = store.scores(latest=False, detail=True)
    assert len(detailed) == 3 and {"job_key", "run_id", "seed", "signature"} <= set(detailed[0])
    assert [r["score"] for r in store.scores(["old"])] == [1.0]


def test_runs_record_versions_seed_and_config(store):
    store.finish_run("r1", "finished", {"done": 1})
    [run] = store.runs()
    assert run["package_version"] == "0.1.0" and run["seed"] == 0 and run["status"] == "finished"
    assert json.loads(run["config"]) == {"tasks": ["pos"]} and json.loads(run["library_versions"]) == {"numpy": "x"}
    assert run["finished_at"] >= run["started_at"]


def _writer(path: str, prefix: str, n: int) -> None:
    db = Store(path)
    db.start_run(prefix, seed=0, config={}, package_version="0", library_versions={}, git_hash=None)
    for i in range(n):
        # every writer also commits the shared keys: exactly one result per key must survive
        db.commit_job(prefix, _record(f"{prefix}-{i}", score=float(i), n=20))
        db.commit_job(prefix, _record(f"shared-{i}", score=float(i), n=20))
    db.close()


def test_concurrent_writers_lose_no_result(tmp_path):
    path = str(tmp_path / "results.sqlite")
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, f"w{p}", 40)) for p in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    with Store(path) as db:
        keys = db.done_keys()
        assert keys == {f"w{p}-{i}" for p in range(3) for i in range(40)} | {f"shared-{i}" for i in range(40)}
        completions = {r["job_key"]: r["completions"] for r in db.jobs()}
        assert set(completions.values()) == {1}
        assert db.conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] == len(keys) * 20
        assert db.integrity_check() == "ok"


def test_results_export_writes_the_contract_columns_as_csv_and_json(store, tmp_path):
    store.commit_job("r1", _record("k1", score=42.5))
    path = str(store.path)
    csv_out = CliRunner().invoke(app, ["results", "export", "--store", path, "--format", "csv"])
    assert csv_out.exit_code == 0, csv_out.output
    lines = csv_out.stdout.strip().splitlines()
    assert lines[0] == ",".join(SCORE_COLUMNS) and "42.5" in lines[1]
    json_out = CliRunner().invoke(app, ["results", "export", "--store", path, "--format", "json"])
    rows = json.loads(json_out.stdout)
    assert rows == [{"task": "pos", "cluster": "anglic", "variety": "english", "model": "fake",
                     "setting": "zero-shot", "train_on": "english", "metric": "f1", "score": 42.5, "n": 3}]
    target = tmp_path / "out" / "scores.csv"
    to_file = CliRunner().invoke(app, ["results", "export", "--store", path, "--out", str(target)])
    assert to_file.exit_code == 0 and target.read_text().splitlines()[0] == ",".join(SCORE_COLUMNS)


def test_results_export_without_a_store_is_a_clear_error(tmp_path):
    out = CliRunner().invoke(app, ["results", "export", "--store", str(tmp_path / "none.sqlite")])
    assert out.exit_code == 2 and "no result store" in out.output


def test_the_store_file_is_plain_sqlite(store):
    store.commit_job("r1", _record("k1"))
    other = sqlite3.connect(store.path)
    assert other.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == 1
    other.close()
