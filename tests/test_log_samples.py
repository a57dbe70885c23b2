"""`run --log-samples` stores each example's exact prompt and raw answer; `results samples` shows them
(short in the table, in full in JSON/CSV) and `results export --all` includes them; older stores gain the
table safely. Against the fake OpenAI-compatible server of test_llm_backend (offline, fast)."""

from __future__ import annotations

import csv
import io
import json
import sqlite3

import pytest
from test_llm_backend import FakeServer, _query
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.runner import Store, run

LONG = "x" * 300


@pytest.fixture
def server():
    fake = FakeServer()
    # a long reply for one input, an invalid one for another: both must come back exactly as given
    fake.reply = lambda prompt: {0: "positive", 1: "banana " + LONG, 2: "Negative."}[len(_query(prompt)) % 3]
    yield fake
    fake.close()


def _run(server, store, rerun=False, **options):
    return run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=store, rerun=rerun,
               backend_options={"mode": "generate", "max_invalid": 1.0, "concurrency": 2, **options})


def _cli(*args: str):
    return CliRunner().invoke(app, list(args), env={"DIALECTBENCH_LLM_MODEL": "m", "COLUMNS": "80"})


def test_samples_are_the_exact_prompts_and_raw_replies(server, tmp_path):
    store = tmp_path / "s.db"
    result = _run(server, store, log_samples=True)
    assert result.counts["done"] > 0
    with Store(store) as db:
        samples = db.samples()
        jobs = {r["job_key"]: r for r in db.scores(detail=True)}
        n_predictions = {k: len(db.predictions(k)) for k in jobs}
    sent = {r["body"]["messages"][0]["content"] for r in server.chats()}
    assert samples and {s["job_key"] for s in samples} == set(jobs)
    for key in jobs:  # one sample per stored prediction, in order
        assert [s["idx"] for s in samples if s["job_key"] == key] == list(range(n_predictions[key]))
    for s in samples:
        assert s["prompt"] in sent  # the user turn exactly as the server got it
        assert s["response"] == server.reply(s["prompt"])  # the raw reply, the long one in full
        parsed = {"positive": "positive", "negative.": "negative"}.get(s["response"].lower())
        assert s["prediction"] == parsed  # "banana ..." is invalid: stored as null


def test_without_the_option_nothing_is_logged(server, tmp_path):
    store = tmp_path / "s.db"
    _run(server, store)
    with Store(store) as db:
        assert db.samples() == [] and db.sample_counts() == {}
    result = _cli("results", "samples", "--store", str(store))
    assert result.exit_code == 1 and "--log-samples" in result.output


def test_results_samples_views(server, tmp_path):
    store = tmp_path / "s.db"
    _run(server, store, log_samples=True)
    with Store(store) as db:
        samples = db.samples()
    variety = samples[0]["variety"]
    table = _cli("results", "samples", "--store", str(store), "--variety", variety)
    assert table.exit_code == 0, table.output
    assert all(len(line) <= 80 for line in table.output.splitlines())  # readable in 80 columns
    assert LONG not in table.output and "…" in table.output  # long text is shortened in the table

    as_json = _cli("results", "samples", "--store", str(store), "--variety", variety, "-f", "json")
    rows = json.loads(as_json.stdout)
    assert rows and {r["variety"] for r in rows} == {variety}
    assert rows == [s for s in samples if s["variety"] == variety]  # every field, in full
    assert any(LONG in r["response"] for r in rows)

    key = samples[0]["job_key"]
    as_csv = _cli("results", "samples", "--store", str(store), "--job", key[:8], "-f", "csv")
    read = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert {r["job_key"] for r in read} == {key} and read[0]["prompt"] == samples[0]["prompt"]

    wrong = _cli("results", "samples", "--store", str(store), "--task", "ssa")
    assert wrong.exit_code == 1 and "did you mean 'sa'" in wrong.output and "Traceback" not in wrong.output


def test_export_all_includes_the_samples(server, tmp_path):
    store = tmp_path / "s.db"
    _run(server, store, log_samples=True)
    rows = json.loads(_cli("results", "export", "--all", "--store", str(store), "-f", "json").stdout)
    with Store(store) as db:
        counts = db.sample_counts()
    assert rows and all(r["samples"] == counts[r["job_key"]] == len(r["logged_samples"]) == r["n"] for r in rows)
    flat = list(csv.DictReader(io.StringIO(_cli("results", "export", "--all", "--store", str(store)).stdout)))
    assert {r["job_key"]: int(r["samples"]) for r in flat} == counts and "logged_samples" not in flat[0]


def test_a_job_failed_for_invalid_answers_keeps_its_samples(server, tmp_path):
    store = tmp_path / "s.db"
    result = _run(server, store, log_samples=True, max_invalid=0.0)
    assert result.counts["failed"] > 0
    with Store(store) as db:
        failed = {j["job_key"] for j in db.jobs() if j["status"] == "failed"}
        samples = db.samples()
    assert failed and failed <= {s["job_key"] for s in samples}
    assert all(s["prediction"] is None and s["status"] == "failed" for s in samples if s["job_key"] in failed)


def test_rerun_from_the_cache_logs_samples_for_stored_jobs(server, tmp_path):
    store = tmp_path / "s.db"
    _run(server, store)
    asked = len(server.chats())
    _run(server, store, rerun=True, log_samples=True, cache_only=True)
    with Store(store) as db:
        assert db.samples()
    assert len(server.chats()) == asked  # the samples came from the request cache


def test_a_store_from_before_samples_is_read_and_upgraded(server, tmp_path):
    store = tmp_path / "s.db"
    _run(server, store)
    with sqlite3.connect(store) as conn:  # what an older dialectbench wrote: no samples table
        conn.execute("DROP TABLE samples")
    before = _cli("results", "export", "--all", "--store", str(store), "-f", "json")
    assert before.exit_code == 0 and all(r["samples"] == 0 for r in json.loads(before.stdout))
    with Store(store, readonly=True) as db:
        assert db.samples() == [] and db.scores()  # read-only: nothing created, nothing lost
    _run(server, store, rerun=True, log_samples=True, cache_only=True)  # the next writable open adds the table
    with Store(store) as db:
        assert db.samples() and db.scores()


def test_rescore_without_log_samples_keeps_the_stored_samples(server, tmp_path):
    """Issue 36 item 7: rescoring never loses data. A --rescore (cache only, rerun) without --log-samples
    keeps each job's logged prompts and raw answers; a rerun that logs samples again replaces them."""
    store = tmp_path / "s.db"
    _run(server, store, log_samples=True)
    with Store(store) as db:
        before = [(s["job_key"], s["idx"], s["prompt"], s["response"]) for s in db.samples()]
    assert before
    result = _run(server, store, rerun=True, cache_only=True)
    assert result.counts["done"] > 0
    with Store(store) as db:
        after = [(s["job_key"], s["idx"], s["prompt"], s["response"]) for s in db.samples()]
    assert after == before
    _run(server, store, rerun=True, cache_only=True, log_samples=True)
    with Store(store) as db:
        assert len(db.samples()) == len(before)  # replaced, not doubled


@pytest.mark.parametrize("task", ["tc", "pos"])
def test_the_baseline_logs_each_examples_input_and_prediction(tmp_path, task):
    """--log-samples with a backend that has no prompts (issue 39: a TypeError before): one sample per
    test example, its input text and the prediction, as lm-evaluation-harness logs for every model."""
    store = tmp_path / "r.sqlite"
    result = run(tasks=[task], model="baseline", store=store,
                 backend_options={"log_samples": True})
    assert result.counts["done"] > 0 and result.counts["failed"] == 0
    with Store(store, readonly=True) as db:
        samples, predictions = db.samples(), db.conn.execute("SELECT count(*) FROM predictions").fetchone()[0]
    assert samples and len(samples) == predictions  # every scored example, once
    for s in samples:
        assert s["prompt"].strip() and s["gold"] is not None
        assert s["response"] == s["prediction"]  # what the model answered is what was scored
