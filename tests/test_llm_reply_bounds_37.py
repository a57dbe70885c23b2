"""The llm: client reads a reply body within its attempt's deadline and MAX_REPLY_BYTES (issue 37 leftovers):
a request given up at its deadline closes its connection at the server's next byte, instead of holding a
thread and a socket until the server stops; a huge reply is refused after MAX_REPLY_BYTES, not read whole.

A local fake server records when the client closed the connection (a write that fails). Every wait here is a
hang guard, never a speed claim: before the change these servers were read until they stopped (never)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("openai")

from dialectbench.backends.llm import client as client_module  # after the importorskip: openai is an extra
from dialectbench.backends.llm.backend import Generation
from dialectbench.backends.llm.client import TOO_LONG, ChatClient, LLMConnectionError

GUARD_S = 30


class Hostile:
    """POST answers 200 with a JSON prefix, then either drips one byte per `drip` s forever or writes
    `declare` bytes in 64 KiB blocks; `gone` is set when a write fails (the client closed the connection)."""

    def __init__(self, *, drip: float = 0.0, declare: int = 200 << 20) -> None:
        self.drip, self.declare, self.sent = drip, declare, 0
        self.gone, self.stopping = threading.Event(), threading.Event()
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                prefix = json.dumps({"choices": [{"index": 0, "text": "x"}]})[:-2].encode()  # never closed
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if not hostile.drip:
                    self.send_header("Content-Length", str(hostile.declare))
                self.end_headers()
                try:
                    self.wfile.write(prefix)
                    while not hostile.stopping.is_set():
                        if hostile.drip:
                            hostile.stopping.wait(hostile.drip)
                            self.wfile.write(b" ")
                        else:
                            if hostile.sent >= hostile.declare:
                                return
                            self.wfile.write(b" " * 65536)
                            hostile.sent += 65536
                        self.wfile.flush()
                except OSError:  # the client closed the connection
                    hostile.gone.set()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def hostile(request):
    server = Hostile(**getattr(request, "param", {}))
    yield server
    server.close()


def _request_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "llm-request"]


@pytest.mark.parametrize("hostile", [{"drip": 0.05}], indirect=True)
def test_a_request_given_up_at_its_deadline_closes_its_connection_and_its_thread_ends(hostile):
    before = set(_request_threads())
    client = ChatClient(hostile.url, api_key_env=None, timeout=0.5, retries=0)
    with pytest.raises(LLMConnectionError, match="no reply within 0.5 s"):
        client.complete([{"role": "user", "content": "q"}], model="m", temperature=0.0, max_tokens=5)
    assert hostile.gone.wait(GUARD_S), "the abandoned request still reads the dripping reply"
    for thread in set(_request_threads()) - before:
        thread.join(GUARD_S)
        assert not thread.is_alive()


@pytest.mark.parametrize("call", ["complete", "text_complete", "continuation_logprob"])
def test_a_reply_over_the_byte_bound_is_refused_while_it_is_read(hostile, monkeypatch, call):
    monkeypatch.setattr(client_module, "MAX_REPLY_BYTES", 100_000)
    client = ChatClient(hostile.url, api_key_env=None, timeout=GUARD_S, retries=2)
    if call == "complete":
        out = client.complete([{"role": "user", "content": "q"}], model="m", temperature=0.0, max_tokens=5)
    elif call == "text_complete":
        out = client.text_complete("q", model="m", temperature=0.0, max_tokens=5)
    else:
        out = client.continuation_logprob("Label:", " yes", model="m")
    if call == "continuation_logprob":
        assert out == {"invalid": "a reply of more than 100,000 bytes from the LLM server at "
                                  f"{client.base_url} (not read further)"}
    else:
        assert out == TOO_LONG and out["invalid"] == "too long"
    assert client.requests_sent == 1  # not retried: the server would send as much again
    assert hostile.gone.wait(GUARD_S)  # the connection was closed, not read to its 200 MiB end
    assert hostile.sent < hostile.declare


def test_an_invalid_answer_marker_passes_the_stop_string_cut():
    assert Generation(stop=("\n",)).cut(dict(TOO_LONG)) == TOO_LONG
    assert Generation(stop=("\n",)).cut("a\nb") == "a"
