"""Packing fine-tunes on one GPU with fractional Ray resources (issue 14, item 6).

N POS-sized fine-tunes of a BERT-base-sized token classifier (random weights, mBERT's vocabulary size,
17 UPOS labels, sequence length 128) run twice on one GPU, both through Ray:

  one at a time   each task asks for num_gpus=1, so Ray runs them back to back
  packed          each task asks for num_gpus=1/N, so all N share the GPU at once

and the script prints the examples/s of each and their ratio (goal: >= 2.5x for N = 4). The same
training step (AdamW, bf16 autocast on CUDA) is used by both; the first steps of every job are a
warm-up that is not timed. Meant for one H200 in under 5 minutes:

    .venv/bin/python benchmarks/gpu_packing.py [--jobs 4] [--steps 60] [--batch 32]
    .venv/bin/python benchmarks/gpu_packing.py --tiny        # a CPU smoke check of the script itself

Needs the [ray] extra and transformers (a core dependency).
"""

from __future__ import annotations

import argparse
import os
import time

MBERT_VOCAB = 119_547
N_UPOS = 17


class _Barrier:
    """Packed jobs start their timed steps together (model building and CUDA start-up differ per job)."""

    def __init__(self, n: int) -> None:
        self.n, self.arrived = n, 0

    def arrive(self) -> None:
        self.arrived += 1

    def ready(self) -> bool:
        return self.arrived >= self.n


def _fine_tune(steps: int, warmup: int, batch: int, seq_len: int, tiny: bool, seed: int,
               barrier=None) -> dict:
    """One fine-tune: `warmup` untimed steps, then (after the barrier, when packed) `steps` timed ones;
    returns examples and the timed window's start and end (wall clock, to combine packed jobs)."""
    import torch
    from transformers import BertConfig, BertForTokenClassification

    torch.manual_seed(seed)
    cuda = torch.cuda.is_available() and not tiny
    device = "cuda" if cuda else "cpu"
    if tiny:
        config = BertConfig(vocab_size=1000, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                            intermediate_size=64, num_labels=N_UPOS)
    else:  # BERT-base: 12 layers, 768 hidden, 12 heads; mBERT's embedding matrix
        config = BertConfig(vocab_size=MBERT_VOCAB, num_labels=N_UPOS)
    model = BertForTokenClassification(config).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5)
    ids = torch.randint(0, config.vocab_size, (batch, seq_len), device=device)
    labels = torch.randint(0, N_UPOS, (batch, seq_len), device=device)

    def step() -> None:
        with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=cuda):
            loss = model(input_ids=ids, labels=labels).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(warmup):
        step()
    if cuda:
        torch.cuda.synchronize()
    if barrier is not None:
        import ray

        ray.get(barrier.arrive.remote())
        deadline = time.monotonic() + 600  # bounded: a job that never started cannot hang the others
        while not ray.get(barrier.ready.remote()) and time.monotonic() < deadline:
            time.sleep(0.02)
    start = time.time()
    for _ in range(steps):
        step()
    if cuda:
        torch.cuda.synchronize()
    return {"examples": steps * batch, "start": start, "end": time.time(), "device": device}


def _run(ray, n: int, gpus_per_job: float, cpus_per_job: float, args: argparse.Namespace) -> float:
    """Training examples per second of n fine-tunes submitted at once with the given resources.

    Packed (several jobs fit at once): examples / the span from the first timed step to the last, all
    jobs starting together. One at a time: examples / the sum of each job's timed window. Start-up
    (Ray workers, imports, model building, warm-up) is excluded from both alike."""
    packed = gpus_per_job < 1.0
    barrier = ray.remote(num_cpus=0)(_Barrier).remote(n) if packed else None
    task = ray.remote(_fine_tune).options(num_gpus=gpus_per_job, num_cpus=cpus_per_job)
    t0 = time.perf_counter()
    results = ray.get([task.remote(args.steps, args.warmup, args.batch, args.seq_len, args.tiny, k, barrier)
                       for k in range(n)])
    wall = time.perf_counter() - t0
    examples = sum(r["examples"] for r in results)
    if packed:
        timed = max(r["end"] for r in results) - min(r["start"] for r in results)
    else:
        timed = sum(r["end"] - r["start"] for r in results)
    print(f"    {n} job(s), {gpus_per_job:g} GPU each: {timed:6.1f} s of training ({wall:.0f} s wall with "
          f"start-up), {examples / timed:8.1f} examples/s, device {results[0]['device']}")
    return examples / timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=4, help="concurrent fine-tunes (default 4)")
    ap.add_argument("--steps", type=int, default=60, help="timed training steps per job")
    ap.add_argument("--warmup", type=int, default=5, help="untimed steps per job (CUDA init, kernels)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq-len", type=int, default=128)
    ap.add_argument("--tiny", action="store_true", help="a tiny model on CPU: checks the script, not the GPU")
    args = ap.parse_args()
    if args.tiny:
        args.steps, args.warmup, args.batch, args.seq_len = min(args.steps, 3), 1, 4, 16
    import ray

    gpus = 0
    if not args.tiny:
        import torch

        gpus = torch.cuda.device_count()
        if gpus < 1:
            raise SystemExit("no GPU visible: run with --tiny for a CPU smoke check")
    cpus = os.cpu_count() or 1
    # one GPU only (the question is packing on *a* GPU); Ray's fake GPU lets --tiny exercise the fractions
    ray.init(num_cpus=cpus, num_gpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        n = args.jobs
        cpus_per_job = max(0.01, min(1.0, cpus / n))
        print(f"{n} POS-sized fine-tunes ({'tiny CPU model' if args.tiny else 'BERT-base, mBERT vocab'}), "
              f"{args.steps} steps x batch {args.batch} x {args.seq_len} tokens each; GPUs visible: {gpus}")
        print("  one at a time (num_gpus=1):")
        alone = _run(ray, n, 1.0, cpus_per_job, args)
        print(f"  packed (num_gpus=1/{n}):")
        packed = _run(ray, n, 1.0 / n, cpus_per_job, args)
    finally:
        ray.shutdown()
    print(f"packed / one at a time throughput: {packed / alone:.2f}x (goal >= 2.5x for 4 jobs on one H200)"
          + (" [--tiny: CPU smoke check, the ratio means nothing]" if args.tiny else ""))


if __name__ == "__main__":
    main()
