"""LLM backend (OpenAI-compatible, in-context learning) against a local fake server: offline and fast."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from dialectbench.backends import get_backend
from dialectbench.backends.base import InvalidAnswer, UnsupportedTaskError
from dialectbench.backends.llm import LLMConnectionError, pick_demos
from dialectbench.backends.llm.prompts import parse_label, parse_option
from dialectbench.data.examples import MultipleChoiceExample, QAExample, TaggedSentence, TextExample


class _QuietServer(ThreadingHTTPServer):
    """A handler still answering a client that gave up (a timeout test) must not print its broken pipe into a
    later test's captured output (CliRunner takes sys.stderr): such errors are the point of those tests."""

    def handle_error(self, request, client_address):
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeServer:
    """Records every request; chat: answers `reply(prompt)` (None = `content: null`), or the next scripted
    HTTP status; completions without logprobs: `reply(prompt)` as text; with logprobs (loglikelihood):
    per-token log-probs of the echoed prompt from `logprob(token)` when `logprobs` is on, else 404."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.statuses: list[int] = []  # consumed one per chat request before answering normally
        self.reply = lambda prompt: "positive"
        self.logprobs = False
        self.logprob = lambda token: -1.0
        self.misaligned = False
        self.error_body = None  # a callable(headers) -> str: the body of scripted error statuses
        self.error_headers: dict[str, str] = {}  # sent with scripted error statuses (Retry-After)
        self.raw_reply: str | None = None  # a chat reply body sent as it is (not JSON)
        self.delay = 0.0
        self.drip = 0.0  # > 0: a POST reply's body is sent one byte per `drip` seconds (headers at once)
        self.get_statuses: list[int] = []  # consumed one per GET /models before answering normally
        self.stopping = threading.Event()  # ends a dripping reply when the server closes
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest output clean
                pass

            def _send(self, status: int, body, headers: dict[str, str] | None = None) -> None:
                data = (body if isinstance(body, str) else json.dumps(body)).encode()
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if not (server.drip and self.command == "POST"):
                    self.wfile.write(data)
                    return
                try:
                    for i in range(len(data)):
                        if server.stopping.wait(server.drip):
                            return
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                except OSError:  # the client gave up
                    return

            def do_GET(self):
                if server.get_statuses:
                    self._send(server.get_statuses.pop(0), {"error": "scripted"}, server.error_headers)
                    return
                self._send(200, {"data": [{"id": "fake-model"}]} if self.path == "/v1/models" else {})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "body": body,
                                        "headers": {k.lower(): v for k, v in self.headers.items()}})
                if server.delay:
                    time.sleep(server.delay)
                if server.statuses:
                    detail = server.error_body(dict(self.headers)) if server.error_body else {"error": "scripted"}
                    self._send(server.statuses.pop(0), detail, server.error_headers)
                    return
                if server.raw_reply is not None and self.path == "/v1/chat/completions":
                    self._send(200, server.raw_reply)
                    return
                if self.path == "/v1/completions":
                    self._completion(body)
                    return
                text = server.reply(body["messages"][-1]["content"])
                self._send(200, {"choices": [{"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant", "content": text}}]})

            def _completion(self, body):
                if body.get("logprobs") is None:  # a plain text completion (no chat template)
                    self._send(200, {"id": "c", "object": "text_completion", "created": 0, "model": "fake-model",
                                     "choices": [{"index": 0, "text": server.reply(body["prompt"]),
                                                  "finish_reason": "stop", "logprobs": None}]})
                    return
                if not server.logprobs:
                    self._send(404, {"error": "not found"})
                    return
                if body.get("echo") is False:  # one greedy token and its log-prob
                    tokens, offsets = [" positive"], [len(body["prompt"])]
                    values = [server.logprob(" positive")]
                    self._send(200, {"id": "c", "object": "text_completion", "created": 0, "model": "fake-model",
                                     "choices": [{"index": 0, "text": tokens[0], "finish_reason": "length",
                                                  "logprobs": {"tokens": tokens, "text_offset": offsets,
                                                               "token_logprobs": values, "top_logprobs": None}}]})
                    return
                tokens = re.findall(r"\s*\S+", body["prompt"])
                offsets = [sum(map(len, tokens[:i])) for i in range(len(tokens))]
                values = [None] + [server.logprob(t) for t in tokens[1:]]
                if server.misaligned:  # each token given its predecessor's value (llama-cpp-python, no BOS)
                    values = [None] + [server.logprob(t) for t in tokens[:-1]]
                self._send(200, {"id": "c", "object": "text_completion", "created": 0, "model": "fake-model",
                                 "choices": [{"index": 0, "text": body["prompt"], "finish_reason": "length",
                                              "logprobs": {"tokens": tokens, "text_offset": offsets,
                                                           "token_logprobs": values, "top_logprobs": None}}]})

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def chats(self) -> list[dict]:
        return [r for r in self.requests if r["path"] == "/v1/chat/completions"]

    def close(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    fake = FakeServer()
    yield fake
    fake.close()


def _sa_train(n: int = 12) -> list[TextExample]:
    labels = ["positive"] * (n - 4) + ["negative"] * 4  # imbalanced on purpose: positive is the majority
    return [TextExample(f"t{i}", f"sentence number {i}", label) for i, label in enumerate(labels)]


def _query(prompt: str) -> str:
    """The test input of a prompt (the last "Sentence:" block)."""
    return prompt.rsplit("Sentence: ", 1)[1].split("\n", 1)[0]


def _backend(server: FakeServer, **options):
    options.setdefault("mode", "generate")
    return get_backend(f"llm:{server.url}", model="m-1", backoff=0.0, **options)


def test_request_format_and_no_key_unless_set(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = _backend(server, k_shots=2, temperature=0.3, max_tokens=7).fit("sa", _sa_train(), None, seed=0)
    assert model.predict([TextExample("x", "the test input", "positive")]) == ["positive"]
    req = server.requests[-1]
    assert req["path"] == "/v1/chat/completions" and len(server.requests) == 1  # generate mode: no probe
    body = req["body"]
    assert body["model"] == "m-1" and body["temperature"] == 0.3 and body["max_tokens"] == 7
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert body["messages"][0]["content"].rstrip().endswith("Sentence: the test input\n\nLabel:")
    assert "authorization" not in req["headers"]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    model.predict([TextExample("y", "another", "positive")])
    assert server.requests[-1]["headers"]["authorization"] == "Bearer sk-test-123"


def test_demonstrations_in_prompt_seeded_and_balanced(server):
    train = _sa_train(20)
    backend = _backend(server, k_shots=4)
    model = backend.fit("sa", train, None, seed=3)
    model.predict([TextExample("x", "query text", "positive")])
    prompt = server.requests[-1]["body"]["messages"][0]["content"]
    assert prompt.count("Label:") == 5  # 4 answered demonstrations + the empty slot
    for demo in model.demos:
        assert f"Sentence: {demo.text}\n\nLabel: {demo.label}" in prompt
    assert Counter(d.label for d in model.demos) == {"positive": 2, "negative": 2}  # balanced, not 4 x majority
    again = backend.fit("sa", train, None, seed=3).demos
    assert [d.example_id for d in again] == [d.example_id for d in model.demos]
    draws = {tuple(d.example_id for d in pick_demos("sa", train, 4, s)) for s in range(6)}
    assert len(draws) > 1  # the seed changes the draw


def test_label_parsing_and_invalid_answers(server):
    labels = ["negative", "neutral", "positive"]
    assert parse_label("positive", labels) == "positive"
    assert parse_label("  Negative.\n", labels) == "negative"
    assert parse_label("Label: NEUTRAL", labels) == "neutral"
    assert parse_label("I think it is positive, not negative", labels) == "positive"
    assert parse_label("no idea", labels) is None
    assert parse_label("entailment", ["entailment", "not entailment"]) == "entailment"
    assert parse_label("not entailment", ["entailment", "not entailment"]) == "not entailment"
    replies = {"q0": "Negative!", "q1": "banana", "q2": "POSITIVE"}  # by input: requests run concurrently
    server.reply = lambda prompt: replies[_query(prompt)]
    model = _backend(server).fit("sa", _sa_train(), None, seed=0)
    preds = model.predict([TextExample(str(i), f"q{i}", "negative") for i in range(3)])
    assert preds == ["negative", InvalidAnswer("unparseable"), "positive"]  # never the majority label


def test_mrc_and_eqa_answers(server):
    options = ("the red house", "a blue car", "green")
    assert parse_option("2", options) == 1 and parse_option("Option 3.", options) == 2
    assert parse_option("Green", options) == 2 and parse_option("I'd say a blue car", options) == 1
    assert parse_option("9 or none", options) is None
    mc = [MultipleChoiceExample(f"m{i}", f"passage {i}", "q?", ("a", "b", "c", "d"), i % 4) for i in range(6)]
    server.reply = lambda prompt: "The answer is 3."
    model = _backend(server, k_shots=2).fit("mrc", mc, None, seed=0)
    assert model.predict(mc[:1]) == [2]
    assert server.requests[-1]["body"]["messages"][0]["content"].count("Answer:") == 3
    server.reply = lambda prompt: "nothing useful"
    assert model.predict(mc[1:2]) == [InvalidAnswer("unparseable")]  # (mc[0] would come from the cache)
    qa = [QAExample(f"q{i}", f"Paris is in France {i}.", "Where?", ("France",), (12,)) for i in range(4)]
    server.reply = lambda prompt: "Answer: France\nbecause the passage says so"
    eqa = _backend(server).fit("eqa", qa, None, seed=0)
    assert len(eqa.demos) == 2  # seed 000 Appendix I: k = 2 for EQA
    assert eqa.predict(qa[:1]) == ["France"]


def test_retry_on_500_then_success(server):
    server.statuses = [500, 503]
    model = _backend(server, retries=3).fit("sa", _sa_train(), None, seed=0)
    assert model.predict([TextExample("x", "q", "positive")]) == ["positive"]
    assert len(server.requests) == 3


@pytest.fixture
def dead_url():
    """A URL whose port is bound but not listening: connections are refused, and no other process can
    take the port while the test runs (a closed free port could be reused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def test_server_down_ends_the_run_once_in_one_line(tmp_path, dead_url):
    from typer.testing import CliRunner

    from dialectbench.cli.main import app
    from dialectbench.runner import RunError, Store, run

    url = dead_url
    backend = get_backend(f"llm:{url}", model="m", mode="generate", retries=1, backoff=0.0, timeout=2,
                          concurrency=1)
    with pytest.raises(RunError, match="no usable reply from the LLM server at .* after 2 attempts") as info:
        run(tasks=["sa", "eqa"], settings=["icl"], backend=backend, store=tmp_path / "s.db")
    assert "\n" not in str(info.value)
    assert backend.client.requests_sent == 2  # one request and its retry; not every job's
    with Store(tmp_path / "s.db") as db:
        assert not [j for j in db.jobs() if j["status"] == "failed"]  # no job blamed for the server
    result = CliRunner().invoke(app, ["run", "--model", f"llm:{url}", "--tasks", "sa", "--settings", "icl",
                                      "--store", str(tmp_path / "c.db"), "--no-report"],
                                env={"DIALECTBENCH_LLM_MODEL": "m", "COLUMNS": "60"})
    assert result.exit_code != 0
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert "Traceback" not in result.output and len(errors) == 1 and "no usable reply" in errors[0]


def test_a_server_that_answered_then_went_away_is_named_so(server):
    model = _backend(server, retries=1, concurrency=1).fit("sa", _sa_train(), None, seed=0)
    assert model.predict([TextExample("x", "q", "positive")]) == ["positive"]
    server.close()  # it stops accepting connections mid-run
    with pytest.raises(LLMConnectionError, match="went away: it answered earlier in this run") as info:
        model.predict([TextExample("y", "another input", "positive")])
    assert "is an OpenAI-compatible server running there" not in str(info.value)


@pytest.mark.parametrize("header, waited", [("7", [7.0]), ("86400", [60.0]), ("soon", [0.0])])
def test_429_waits_for_retry_after_within_a_bound(server, header, waited):
    from dialectbench.backends.llm.client import ChatClient

    server.statuses, server.error_headers = [429], {"Retry-After": header}
    pauses: list[float] = []
    client = ChatClient(server.url, retries=2, backoff=0.0, sleep=pauses.append)
    messages = [{"role": "user", "content": "Sentence: q"}]
    assert client.complete(messages, model="m", temperature=0.0, max_tokens=3) == "positive"
    assert pauses == waited  # the server's wait (at most 60 s); no header: the usual backoff (0 here)


def test_a_reply_that_is_not_json_is_a_server_error_not_a_traceback(server):
    from dialectbench.backends.llm.client import LLMError

    server.raw_reply = "<html>502 Bad Gateway</html>"
    model = _backend(server, retries=0, concurrency=1).fit("sa", _sa_train(), None, seed=0)
    with pytest.raises(LLMError, match="not JSON, a server error rather than an answer"):
        model.predict([TextExample("x", "q", "positive")])


def test_hanging_server_is_bounded(server):
    server.delay = 1.5
    model = _backend(server, retries=1, timeout=0.3, concurrency=1).fit("sa", _sa_train(), None, seed=0)
    with pytest.raises(LLMConnectionError, match="no reply within 0.3 s"):
        model.predict([TextExample("x", "q", "positive")])
    assert len(server.requests) == 2


def test_job_time_budget_stops_a_slow_job(server, tmp_path):
    from dialectbench.runner import Store, run

    # each request takes >= 50 ms; the budget (0.1 s) runs out within the first chunk. The model is named:
    # asking the server for it (GET /models) is bounded by the same budget, which a loaded machine may spend
    server.delay = 0.05
    run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=tmp_path / "s.db",
        backend_options={"mode": "generate", "concurrency": 1, "job_budget_s": 0.1, "model": "m"})
    with Store(tmp_path / "s.db") as db:
        jobs = db.jobs()
    assert jobs and all(j["status"] == "failed" for j in jobs)
    assert all("time budget of 0.1 s ran out" in j["message"] for j in jobs)
    # the budget bounds each request too (not only the gaps between chunks): stopped within the first chunk
    assert len(server.chats()) <= 4 * len(jobs)


def test_invalid_replies_are_wrong_counted_and_fail_the_job(server, tmp_path):
    from dialectbench.data import open_source
    from dialectbench.metrics import score_task
    from dialectbench.runner import Store, run

    server.reply = lambda prompt: ""  # the reported bug: 30 empty replies stored as accuracy 50.0
    run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=tmp_path / "a.db",
        backend_options={"mode": "generate"}, fewshot="english")
    with Store(tmp_path / "a.db") as db:
        jobs, rows = db.jobs(), db.scores()
    assert jobs and not rows and all(j["status"] == "failed" for j in jobs)
    for j in jobs:
        assert re.search(r"(\d+) of \1 answers invalid \(\1 empty\): more than --max-invalid 10%", j["message"])
    # every other reply unparseable, allowed by max_invalid=1.0: scored with those as wrong, counted
    replies = {}

    def reply(prompt):
        q = _query(prompt)
        replies.setdefault(q, "banana" if len(replies) % 2 else "positive")
        return replies[q]
    server.reply = reply
    run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=tmp_path / "b.db",
        backend_options={"mode": "generate", "max_invalid": 1.0, "concurrency": 1}, fewshot="english")
    source = open_source()
    with Store(tmp_path / "b.db") as db:
        rows = db.scores(detail=True)
        assert rows
        for row in rows:
            test = source.load("sa", row["variety"], "test")
            preds = ["positive" if replies[ex.text] == "positive" else "\x00" for ex in test]
            assert row["score"] == pytest.approx(score_task("sa", test, preds).score)
            extra = json.loads(db.conn.execute("SELECT extra FROM scores WHERE job_key = ?",
                                               (row["job_key"],)).fetchone()[0])
            assert extra["invalid"] == preds.count("\x00") and extra["invalid_reasons"] == {
                "unparseable": extra["invalid"]}
            stored = [p["prediction"] for p in db.predictions(row["job_key"])]
            assert stored.count(None) == extra["invalid"]  # an invalid answer is stored as null
            assert "mode:generate" in row["signature"]


def test_null_and_huge_replies_are_invalid():
    from dialectbench.backends.llm import interpret

    ex = TextExample("x", "q", "positive")
    assert interpret("sa", None, ex, ["negative", "positive"]) == InvalidAnswer("null")
    assert interpret("sa", "positive " * 600_000, ex, ["negative", "positive"]) == InvalidAnswer("too long")
    assert interpret("sa", "  \n", ex, ["negative", "positive"]) == InvalidAnswer("empty")
    qa = QAExample("q", "ctx", "Q?", ("a",), (0,))
    assert interpret("eqa", "Answer:\n", qa, []) == InvalidAnswer("empty")
    assert interpret("eqa", "Answer: Paris", qa, []) == "Paris"


def test_macro_f1_with_invalid_has_no_phantom_class():
    from dialectbench.runner.local_executor import _score

    golds = [TextExample(str(i), "t", lab) for i, lab in enumerate(["a", "b", "a", "b"])]
    scored = _score("tc", golds, ["a", "b", InvalidAnswer("empty"), "b"])
    # labels {a, b}: a P=1 R=.5 F1=.667, b P=1... b R=1 P=1 F1=1 -> macro 83.3 (a phantom third class: 55.6)
    assert scored["score"] == pytest.approx(100 * (2 / 3 + 1) / 2, abs=0.05)
    assert scored["values"] == [1.0, 1.0, 0.0, 1.0] and scored["extra"]["invalid"] == 1


def test_secrets_never_stored_or_printed(server, tmp_path, monkeypatch):
    from dialectbench.runner import Store, run

    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-4242")
    server.statuses = [400] * 1000  # a server that echoes the request headers in its error body
    server.error_body = lambda headers: json.dumps({"error": f"bad request; headers were {headers}"})
    for name, url in (("key", server.url), ("url", f"http://alice:hunter2pw@127.0.0.1:{server.port}/v1")):
        run(tasks=["sa"], settings=["icl"], model=f"llm:{url}", store=tmp_path / "s.db",
            backend_options={"mode": "generate"})
        sent = json.dumps(server.requests[-1]["headers"])
        assert ("sk-secret-4242" if name == "key" else "Basic ") in sent  # the server got it, and echoes it
    blob = b"".join(p.read_bytes() for p in tmp_path.rglob("s.db*") if p.is_file())  # store, WAL, run locks
    assert b"sk-secret-4242" not in blob and b"hunter2pw" not in blob and b"alice" not in blob
    assert b"YWxpY2U6aHVudGVyMnB3" not in blob  # base64 of alice:hunter2pw, as httpx sends it
    with Store(tmp_path / "s.db") as db:
        jobs = db.jobs()
    assert jobs and all(j["status"] == "failed" and "HTTP 400" in j["message"] for j in jobs)
    assert {j["model"] for j in jobs} == {f"llm:{server.url}", f"llm:http://***@127.0.0.1:{server.port}/v1"}


def test_loglikelihood_mode_ranks_labels(server, tmp_path):
    from dialectbench.runner import Store, run

    server.logprobs = True
    server.logprob = lambda token: 0.0 if token.strip() == "negative" else -3.0
    result = run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=tmp_path / "s.db")
    assert result.counts["done"] > 0 and not result.counts["failed"]
    assert not server.chats()  # the default for classification: no generation at all
    with Store(tmp_path / "s.db") as db:
        for row in db.scores(detail=True):
            assert row["signature"].startswith("icl|openai-server|mode:loglikelihood|k:4|")
            assert {p["prediction"] for p in db.predictions(row["job_key"])} == {"negative"}
    ll = [r for r in server.requests if r["path"] == "/v1/completions" and r["body"]["echo"]]
    assert all(r["body"]["logprobs"] == 1 for r in ll)
    assert [r for r in server.requests if r["body"].get("echo") is False]  # the alignment check was made
    assert ll[-1]["body"]["prompt"].endswith("Label: negative") or ll[-1]["body"]["prompt"].endswith(
        "Label: positive")


def test_misaligned_echo_logprobs_are_not_used(server, caplog):
    server.logprobs, server.misaligned = True, True
    server.logprob = lambda token: -len(token.strip()) / 10  # differs between neighbouring tokens
    model = get_backend(f"llm:{server.url}", model="m", backoff=0.0).fit("sa", _sa_train(), None, seed=0)
    assert model.mode == "generate" and "misaligned" in caplog.text  # auto: generate, and says why
    assert "offers no log-probabilities" not in caplog.text and len(caplog.records) == 1  # once, not twice
    strict = get_backend(f"llm:{server.url}", model="m", backoff=0.0, mode="loglikelihood")
    with pytest.raises(UnsupportedTaskError, match="misaligned"):
        strict.fit("sa", _sa_train(), None, seed=0)
    server.misaligned = False
    assert get_backend(f"llm:{server.url}", model="m", backoff=0.0).fit("sa", _sa_train(), None,
                                                                        seed=0).mode == "loglikelihood"


def test_no_logprobs_falls_back_to_generate_and_says_so(server, caplog):
    backend = get_backend(f"llm:{server.url}", model="m", backoff=0.0)  # mode auto; the fake has no logprobs
    model = backend.fit("sa", _sa_train(), None, seed=0)
    assert model.mode == "generate" and "scored in generate mode" in caplog.text
    with pytest.raises(UnsupportedTaskError, match="log-probabilities"):
        get_backend(f"llm:{server.url}", model="m", backoff=0.0, mode="loglikelihood").fit(
            "sa", _sa_train(), None, seed=0)


def test_cache_resume_and_rescore_without_server(server, tmp_path):
    from dialectbench.backends.llm.cache import cached_requests
    from dialectbench.runner import RunError, Store, run

    store = tmp_path / "s.db"
    opts = {"mode": "generate", "model": "m"}
    run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=store, backend_options=opts)
    asked = len(server.chats())
    assert asked > 0 and len(cached_requests(store)) == asked
    with Store(store) as db:
        first = {r["job_key"]: r["score"] for r in db.scores(detail=True)}
    run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=store, backend_options=opts, rerun=True)
    assert len(server.chats()) == asked  # all from the cache
    url = server.url
    server.close()  # no server at all: --rescore re-scores from the cache
    run(tasks=["sa"], settings=["icl"], model=f"llm:{url}", store=store, rerun=True,
        backend_options={**opts, "cache_only": True})
    with Store(store) as db:
        assert {r["job_key"]: r["score"] for r in db.scores(detail=True)} == first
    with pytest.raises(RunError, match="not in the request cache"):
        run(tasks=["sa"], settings=["icl"], model=f"llm:{url}", store=store, rerun=True,
            backend_options={**opts, "cache_only": True, "k_shots": 2})


def test_concurrency_gives_the_same_predictions(server):
    server.reply = lambda prompt: "negative" if int(_query(prompt)[1:]) % 3 else "positive"
    tests = [TextExample(str(i), f"q{i}", "positive") for i in range(25)]
    one = _backend(server, concurrency=1).fit("sa", _sa_train(), None, seed=0).predict(tests)
    server.requests.clear()
    four = _backend(server, concurrency=4).fit("sa", _sa_train(), None, seed=0)
    four.cache = type(four.cache)()  # a fresh cache: really asked again
    assert four.predict(tests) == one and len(server.chats()) == 25


def test_a_jobs_first_request_goes_alone_then_concurrently(server):
    """With concurrency, a job's first request is answered before the others are sent (a prefix-caching
    server then holds the shared demonstrations), later batches of the same job are not serialised, and a
    job with other demonstrations is warmed again."""
    lock, in_flight, events = threading.Lock(), [0], []

    def reply(prompt):
        with lock:
            in_flight[0] += 1
            events.append(("start", _query(prompt), in_flight[0]))
        time.sleep(0.3 if len(events) == 1 else 0.02)  # the others would arrive meanwhile if sent
        with lock:
            in_flight[0] -= 1
            events.append(("end", _query(prompt), in_flight[0]))
        return "positive"

    def check(n):
        assert events[0][:2] == ("start", "q0") and events[1] == ("end", "q0", 0)  # alone, and done first
        starts = [e for e in events if e[0] == "start"]
        assert len(starts) == n and max(e[2] for e in starts[-8:]) > 1  # later batches still overlap

    server.reply = reply
    tests = [TextExample(str(i), f"q{i}", "positive") for i in range(40)]
    _backend(server, concurrency=4).fit("sa", _sa_train(), None, seed=0).predict(tests)
    check(40)
    events.clear()
    _backend(server, concurrency=4).fit("sa", _sa_train(16), None, seed=1).predict(tests[:12])
    check(12)


def test_unsupported_task_and_bad_url(server):
    tagged = [TaggedSentence("s", ("a",), ("O",))]
    for task in ("pos", "ner", "dep"):
        with pytest.raises(UnsupportedTaskError, match="token-level"):
            _backend(server).fit(task, tagged, None, seed=0)
    with pytest.raises(ValueError, match="http"):
        get_backend("llm:127.0.0.1:8000")


def test_runner_end_to_end_icl_scores(server, tmp_path):
    from dialectbench.data import open_source
    from dialectbench.metrics import score_task
    from dialectbench.runner import Store, run

    result = run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=tmp_path / "s.db",
                 backend_options={"mode": "generate"}, fewshot="english")
    assert result.counts["done"] > 0 and not result.counts["failed"]
    with Store(tmp_path / "s.db") as db:
        rows = db.scores()
    assert rows and {r["setting"] for r in rows} == {"icl"}
    assert {r["model"] for r in rows} == {f"llm:{server.url}"}
    assert server.requests[0]["body"]["model"] == "fake-model"  # asked of GET /models
    source = open_source()
    for row in rows:  # the fake always answers "positive": the stored score is that constant prediction's
        test = source.load("sa", row["variety"], "test")
        expected = score_task("sa", test, ["positive"] * len(test))
        assert row["n"] == len(test) and row["score"] == pytest.approx(expected.score)
    prompts = [r["body"]["messages"][0]["content"] for r in server.chats()]
    assert len(prompts) == len(set(prompts)) <= sum(r["n"] for r in rows)  # each distinct prompt asked once


def test_cli_icl_options(server, tmp_path):
    from typer.testing import CliRunner

    from dialectbench.cli.main import app
    from dialectbench.runner import Store

    server.reply = lambda prompt: "banana" if len(_query(prompt)) % 2 else "positive"
    store = tmp_path / "s.db"
    base = ["run", "--tasks", "sa", "--settings", "icl", "--store", str(store), "--no-report"]
    env = {"DIALECTBENCH_LLM_MODEL": "m", "COLUMNS": "60"}
    result = CliRunner().invoke(app, [*base, "--model", f"llm:{server.url}", "--mode", "generate",
                                      "--max-invalid", "0.0", "--concurrency", "2"], env=env)
    with Store(store) as db:
        jobs = db.jobs()
    failed = [j for j in jobs if j["status"] == "failed"]
    assert result.exit_code == 1 and failed  # any invalid answer fails a job under --max-invalid 0
    assert all("more than --max-invalid 0%" in j["message"] for j in failed)
    result = CliRunner().invoke(app, [*base, "--model", "baseline", "--concurrency", "2"], env=env)
    assert result.exit_code != 0 and "does not take the option(s) --concurrency" in " ".join(result.output.split())
    assert "Traceback" not in result.output
