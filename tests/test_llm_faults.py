"""The llm: backend against a hostile OpenAI-compatible server (issue 37 items 1, 2, 5): a body dripped one
byte at a time, a huge Retry-After, log-probabilities that are not log-probabilities, a server echoing the
API key, 5 MB replies, SIGTERM while a request hangs.

Every bound here is a hang guard (a thread join or subprocess timeout of tens of seconds), never a speed
claim: before the fix these cases waited for minutes or forever.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_llm_backend import FakeServer, _backend, _sa_train

from dialectbench.backends.base import InvalidAnswer
from dialectbench.data.examples import TextExample

GUARD_S = 60  # a hang guard: the run under test would otherwise wait for minutes or forever
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def server():
    fake = FakeServer()
    yield fake
    fake.close()


def _bounded(fn, guard: float = GUARD_S):
    """fn() in a thread, failing the test if it has not returned within `guard` seconds (a hang)."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(guard)
    assert not thread.is_alive(), f"still waiting after {guard} s: no overall deadline"
    if "error" in box:
        raise box["error"]
    return box["value"]


# -- item 1: every wait bounded ---------------------------------------------------------------------------

def test_a_body_dripped_one_byte_at_a_time_is_timed_out(server):
    from dialectbench.backends.llm import LLMConnectionError

    server.drip = 0.3  # each read returns (a byte every 0.3 s < timeout): only a total deadline ends it
    model = _backend(server, retries=1, timeout=1.0, concurrency=1).fit("sa", _sa_train(), None, seed=0)
    with pytest.raises(LLMConnectionError, match="no reply within 1 s"):
        _bounded(lambda: model.predict([TextExample("x", "q", "positive")]))
    assert len(server.requests) == 2  # the request and its one retry, each cut at its deadline


def test_a_dripped_body_is_cut_at_the_job_budget(server, tmp_path):
    from dialectbench.runner import Store, run

    server.drip = 0.3
    _bounded(lambda: run(tasks=["sa"], varieties=["english"], settings=["icl"], model=f"llm:{server.url}",
                         store=tmp_path / "s.db",
                         backend_options={"mode": "generate", "timeout": 600, "job_budget_s": 1.0}))
    with Store(tmp_path / "s.db") as db:
        jobs = db.jobs()
    assert jobs and all(j["status"] == "failed" and "time budget of 1 s ran out" in j["message"] for j in jobs)


def test_retry_after_is_capped_by_the_job_budget_and_announced(server, caplog):
    from dialectbench.backends.llm.client import ChatClient, TimeBudgetExceeded

    messages = [{"role": "user", "content": "Sentence: q"}]
    pauses: list[float] = []
    client = ChatClient(server.url, retries=2, backoff=0.0, sleep=pauses.append)
    server.statuses, server.error_headers = [429], {"Retry-After": "7"}
    reply = client.complete(messages, model="m", temperature=0.0, max_tokens=3, deadline=time.monotonic() + 30)
    assert reply == "positive" and pauses == [7.0]
    assert "HTTP 429 from the LLM server at" in caplog.text and "waiting 7 s as its Retry-After asks" in caplog.text
    server.statuses, server.error_headers = [429] * 5, {"Retry-After": "86400"}
    with pytest.raises(TimeBudgetExceeded, match=r"asks to wait 60 s \(Retry-After\), more than the \d+ s left"):
        client.complete(messages, model="m", temperature=0.0, max_tokens=3, deadline=time.monotonic() + 30)
    assert pauses == [7.0] and len(server.chats()) == 3  # 2 above, 1 here: no wait it cannot afford, no retry


def test_a_huge_retry_after_at_start_up_ends_the_run_within_the_budget(server, tmp_path):
    from dialectbench.runner import RunError, run

    server.get_statuses, server.error_headers = [429] * 10, {"Retry-After": "86400"}  # GET /models
    with pytest.raises(RunError, match="did not list its models within the time budget.*Retry-After") as info:
        _bounded(lambda: run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=tmp_path / "s.db",
                             backend_options={"mode": "generate", "job_budget_s": 30.0}))
    assert "\n" not in str(info.value)


def test_a_huge_retry_after_in_the_log_probability_probe_fails_the_job_and_is_not_cached(server, tmp_path):
    from dialectbench.backends.llm.cache import cached_requests
    from dialectbench.runner import Store, run

    server.logprobs = True
    server.statuses, server.error_headers = [429] * 1000, {"Retry-After": "86400"}
    _bounded(lambda: run(tasks=["sa"], varieties=["english"], settings=["icl"], model=f"llm:{server.url}",
                         store=tmp_path / "s.db", backend_options={"model": "m", "job_budget_s": 30.0}))
    with Store(tmp_path / "s.db") as db:
        jobs = db.jobs()
    assert jobs and all(j["status"] == "failed" and "Retry-After" in j["message"] for j in jobs)
    assert not [r for r in cached_requests(tmp_path / "s.db") if r["endpoint"] == "probe"]  # asked again next run


def _cli(store: Path, url: str, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "DIALECTBENCH_LLM_MODEL": "m", "COLUMNS": "120"}
    env.pop("OPENAI_API_KEY", None)
    cli = "import sys; from dialectbench.cli.main import app; app(sys.argv[1:], prog_name='dialectbench')"
    return subprocess.Popen([sys.executable, "-c", cli, "run", "--model", f"llm:{url}",
                             "--tasks", "sa", "--settings", "icl", "--mode", "generate", "--store", str(store),
                             "--no-report", *extra], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


@pytest.mark.parametrize("concurrency", ["1", "4"])
def test_sigterm_during_a_hanging_request_ends_the_run_and_it_resumes(server, tmp_path, concurrency):
    from dialectbench.runner import Store

    server.drip = 0.5  # never finishes within the test; timeout 600 s: only SIGTERM can end the wait
    store = tmp_path / "s.db"
    proc = _cli(store, server.url, "--concurrency", concurrency, "--job-budget", "3600",
                "--varieties", "english")
    try:
        start = time.monotonic()
        while not server.requests and time.monotonic() - start < GUARD_S and proc.poll() is None:
            time.sleep(0.1)
        assert server.requests, f"the run never asked the server: {proc.communicate()[1][-2000:]}"
        time.sleep(0.5)  # in the middle of the dripping reply
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=GUARD_S)  # before the fix: waited on its threads (SIGKILL at 340 s)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
    with Store(store) as db:  # the store is consistent: the run is marked interrupted, nothing half-written
        runs = db.conn.execute("SELECT status FROM runs").fetchall()
        assert [r[0] for r in runs] == ["interrupted"]
        assert not [j for j in db.jobs() if j["status"] == "done"]
    server.drip = 0.0
    again = _cli(store, server.url, "--concurrency", concurrency, "--varieties", "english")
    try:
        _, err = again.communicate(timeout=GUARD_S * 5)
    finally:
        if again.poll() is None:
            again.kill()
    assert again.returncode == 0, err[-2000:]
    with Store(store) as db:
        assert db.jobs() and all(j["status"] == "done" for j in db.jobs())


# -- item 2: invalid numbers never scored -------------------------------------------------------------------

@pytest.mark.parametrize("bad, word", [(math.nan, "NaN"), (0.5, "positive"), (-math.inf, "infinite"),
                                       ("-1.5", "not numbers"), (math.inf, "infinite")])
def test_log_probabilities_that_are_not_log_probabilities_are_invalid_answers(server, bad, word):
    server.logprobs = True
    server.logprob = lambda token: bad if token.strip() == "negative" else -1.0  # the probe's " yes" is fine
    model = _backend(server, mode="loglikelihood").fit("sa", _sa_train(), None, seed=0)
    preds = model.predict([TextExample("x", "q", "positive"), TextExample("y", "r", "negative")])
    reason = f"invalid log-probabilities ({word}) from the LLM server at {server.url}"
    assert preds == [InvalidAnswer(reason)] * 2  # never ranked: -1.0 for "positive" would have won
    assert model.last_rankings["acc_norm"] == preds


def test_invalid_log_probabilities_count_against_max_invalid(server, tmp_path):
    from dialectbench.runner import Store, run

    server.logprobs = True
    server.logprob = lambda token: math.nan if token.strip() == "negative" else -1.0
    run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=tmp_path / "a.db",
        backend_options={"mode": "loglikelihood"})
    with Store(tmp_path / "a.db") as db:
        jobs, rows = db.jobs(), db.scores()
    assert jobs and not rows and all(j["status"] == "failed" for j in jobs)  # before: scored, accuracy 50.0
    for j in jobs:
        assert "invalid log-probabilities (NaN) from the LLM server at http://127.0.0.1" in j["message"]
        assert "more than --max-invalid 10%" in j["message"]
    run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=tmp_path / "b.db",
        backend_options={"mode": "loglikelihood", "max_invalid": 1.0})
    with Store(tmp_path / "b.db") as db:
        rows = db.scores(detail=True)
        assert rows
        for row in rows:
            extra = json.loads(db.conn.execute("SELECT extra FROM scores WHERE job_key = ?",
                                               (row["job_key"],)).fetchone()[0])
            assert extra["invalid"] == row["n"] and row["score"] == 0.0


def test_a_probe_answered_with_nan_is_no_log_probability_support(server, caplog):
    server.logprobs = True
    server.logprob = lambda token: math.nan
    model = _backend(server, mode="auto").fit("sa", _sa_train(), None, seed=0)
    assert model.mode == "generate" and "not log-probabilities (invalid log-probabilities (NaN)" in caplog.text


# -- item 5: secrets and size in the store ------------------------------------------------------------------

def _store_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("s.db*") if p.is_file())  # store, WAL, locks


def test_a_server_echoing_the_key_leaves_no_credential_in_the_store(server, tmp_path, monkeypatch):
    from dialectbench.backends.llm.cache import cached_requests
    from dialectbench.runner import run

    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-4242")
    heard: list[str] = []

    def echo(prompt):  # the request's own Authorization header, echoed in the reply
        heard.append(server.requests[-1]["headers"].get("authorization", ""))
        return f"positive (you sent {heard[-1]})"

    server.reply = echo
    for name, url in (("key", server.url), ("url", f"http://alice:hunter2pw@127.0.0.1:{server.port}/v1")):
        run(tasks=["sa", "eqa"], varieties=["english"], settings=["icl"], model=f"llm:{url}",
            store=tmp_path / name / "s.db", backend_options={"mode": "generate", "model": "m"}, fewshot="english")
    assert any("sk-secret-4242" in h for h in heard) and any(h.startswith("Basic ") for h in heard)
    blob = _store_bytes(tmp_path)
    for secret in (b"sk-secret-4242", b"hunter2pw", b"YWxpY2U6aHVudGVyMnB3"):
        assert secret not in blob
    for name in ("key", "url"):
        replies = [r["response"] for r in cached_requests(tmp_path / name / "s.db") if r["endpoint"] == "generate"]
        assert replies and all("(you sent ***)" in r or "(you sent Basic ***)" in r for r in replies)


def test_urls_with_query_tokens_are_shown_and_scrubbed_without_them():
    from dialectbench.backends.llm.client import ChatClient

    client = ChatClient("http://u:pw-1234@127.0.0.1:9/v1?api-key=tok%2Fsecret")
    assert client.base_url == "http://***@127.0.0.1:9/v1?api-key=***"
    text = "a tok/secret b tok%2Fsecret c pw-1234 d"
    assert client.scrub(text) == "a *** b *** c *** d"
    assert client.scrub("the bearer of news") == "the bearer of news"  # a reply's words are not touched


def test_five_megabyte_replies_are_invalid_and_not_stored_in_full(server, tmp_path):
    from dialectbench.backends.llm.cache import cached_requests

    server.reply = lambda prompt: "positive " * 600_000  # 5.4 MB
    backend = _backend(server, concurrency=2)
    backend.attach_store(tmp_path / "s.db")
    model = backend.fit("sa", _sa_train(), None, seed=0)
    preds = model.predict([TextExample(str(i), f"q{i}", "positive") for i in range(6)])
    assert preds == [InvalidAnswer("too long")] * 6
    assert len(_store_bytes(tmp_path)) < 1_000_000  # before: 6 x 5.4 MB
    rows = cached_requests(tmp_path / "s.db")
    # refused while read: after MAX_REPLY_BYTES (4 MiB) of the 5.4 MB, the marker says so
    assert len(rows) == 6 and all(r["response"] == {"invalid": "too long", "over_bytes": 4 << 20} for r in rows)
    again = _backend(server)  # resumed from the store: the same invalid answers, no request
    again.attach_store(tmp_path / "s.db")
    server.requests.clear()
    assert again.fit("sa", _sa_train(), None, seed=0).predict(
        [TextExample(str(i), f"q{i}", "positive") for i in range(6)]) == preds
    assert not server.requests


def test_a_reply_over_the_character_bound_but_under_the_byte_bound_is_stored_as_a_marker(server, tmp_path):
    from dialectbench.backends.llm.cache import cached_requests

    server.reply = lambda prompt: "positive " * 5_000  # 45,000 characters: read whole, then refused
    backend = _backend(server)
    backend.attach_store(tmp_path / "s.db")
    preds = backend.fit("sa", _sa_train(), None, seed=0).predict([TextExample("0", "q", "positive")])
    assert preds == [InvalidAnswer("too long")]
    rows = cached_requests(tmp_path / "s.db")
    assert len(rows) == 1 and rows[0]["response"]["chars"] == 45_000
