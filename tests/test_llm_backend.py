"""LLM backend (OpenAI-compatible, in-context learning) against a local fake server: offline and fast."""

from __future__ import annotations

import json
import socket
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from dialectbench.backends import get_backend
from dialectbench.backends.base import UnsupportedTaskError
from dialectbench.backends.llm import LLMConnectionError, pick_demos
from dialectbench.backends.llm.prompts import parse_label, parse_option
from dialectbench.data.examples import MultipleChoiceExample, QAExample, TaggedSentence, TextExample


class FakeServer:
    """Records every request; answers with `reply(prompt)`, or with the next scripted HTTP status."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.statuses: list[int] = []  # consumed one per chat request before answering normally
        self.reply = lambda prompt: "positive"
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest output clean
                pass

            def _send(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._send(200, {"data": [{"id": "fake-model"}]} if self.path == "/v1/models" else {})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
                if server.statuses:
                    self._send(server.statuses.pop(0), {"error": "scripted"})
                    return
                text = server.reply(body["messages"][-1]["content"])
                self._send(200, {"choices": [{"message": {"role": "assistant", "content": text}}]})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
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


def _backend(server: FakeServer, **options):
    return get_backend(f"llm:{server.url}", model="m-1", backoff=0.0, **options)


def test_request_format_and_no_key_unless_set(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = _backend(server, k_shots=2, temperature=0.3, max_tokens=7).fit("sa", _sa_train(), None, seed=0)
    assert model.predict([TextExample("x", "the test input", "positive")]) == ["positive"]
    req = server.requests[-1]
    assert req["path"] == "/v1/chat/completions"
    body = req["body"]
    assert body["model"] == "m-1" and body["temperature"] == 0.3 and body["max_tokens"] == 7
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert body["messages"][0]["content"].rstrip().endswith("Sentence: the test input\n\nLabel:")
    assert "Authorization" not in req["headers"]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    model.predict([TextExample("y", "another", "positive")])
    assert server.requests[-1]["headers"]["Authorization"] == "Bearer sk-test-123"


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


def test_label_parsing_and_counted_fallback(server):
    labels = ["negative", "neutral", "positive"]
    assert parse_label("positive", labels) == "positive"
    assert parse_label("  Negative.\n", labels) == "negative"
    assert parse_label("Label: NEUTRAL", labels) == "neutral"
    assert parse_label("I think it is positive, not negative", labels) == "positive"
    assert parse_label("no idea", labels) is None
    assert parse_label("entailment", ["entailment", "not entailment"]) == "entailment"
    assert parse_label("not entailment", ["entailment", "not entailment"]) == "not entailment"
    replies = iter(["Negative!", "banana", "POSITIVE"])
    server.reply = lambda prompt: next(replies)
    model = _backend(server).fit("sa", _sa_train(), None, seed=0)
    preds = model.predict([TextExample(str(i), f"q{i}", "negative") for i in range(3)])
    assert preds == ["negative", "positive", "positive"]  # "banana" -> the majority train label
    assert model.fallbacks == 1


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
    assert model.predict(mc[:1]) == [0] and model.fallbacks == 1
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


def test_clear_error_when_server_down():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    model = get_backend(f"llm:{url}", model="m", retries=1, backoff=0.0, timeout=2).fit(
        "sa", _sa_train(), None, seed=0)
    with pytest.raises(LLMConnectionError, match=f"{url}/chat/completions"):
        model.predict([TextExample("x", "q", "positive")])


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

    result = run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=tmp_path / "s.db")
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
    assert len(server.requests) == sum(r["n"] for r in rows)
