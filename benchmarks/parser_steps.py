"""Per-step CPU cost and losses of the parser under variants of the same step (issue 41), one thread:
the same initial weights, batches and random numbers for each variant, interleaved in one process, so
the CPU ratios are comparable on a loaded machine and the loss columns show whether the numerics change.

    PYTHONPATH=src:benchmarks .venv/bin/python benchmarks/parser_steps.py [--sentences 3000] [--steps 40]
"""

from __future__ import annotations

import argparse
import copy
import random
import time

import torch
from baseline_ud import DEFAULT_DIR, split

from dialectbench.backends.baseline.configs import ParserConfig
from dialectbench.backends.baseline.parser import BiaffineParser, _Net

VARIANTS = {
    "default": {},
    "mkldnn off": {"mkldnn": False},
}


def run(model: BiaffineParser, net0, batches, encoded, variant: dict, seed: int) -> tuple[float, list[float]]:
    model.net = copy.deepcopy(net0)
    opt = torch.optim.Adam(model.net.parameters(), lr=2e-3, betas=(0.9, 0.9), fused=True)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    losses = []
    model.net.train()
    with torch.backends.mkldnn.flags(enabled=variant.get("mkldnn", True)):
        c0 = time.process_time()
        for idx in batches:
            losses.append(model._step(model._batch(encoded, idx, gen), opt))
        cpu = time.process_time() - c0
    return cpu, losses


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sentences", type=int, default=3000)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(1)
    train = split(DEFAULT_DIR, "train")[:args.sentences]
    model = BiaffineParser(config=ParserConfig(threads=1))
    model._build_vocabs(train)
    torch.manual_seed(0)
    cfg = model.config
    net0 = _Net(cfg, len(model.words), len(model.chars), len(model.upos), len(model.labels))
    encoded = model._encode(train, train=True)
    batches = model._batches(train, random.Random(0))[:args.steps]
    cpu = {name: 0.0 for name in VARIANTS}
    losses = {}
    for _ in range(args.rounds):
        for name, variant in VARIANTS.items():
            c, losses[name] = run(model, net0, batches, encoded, variant, seed=1)
            cpu[name] += c
    ref = losses["default"]
    for name in VARIANTS:
        diff = max(abs(a - b) for a, b in zip(losses[name], ref))
        print(f"{name:12} {cpu[name] / args.rounds:6.2f} CPU-s / {len(batches)} steps  ratio {cpu[name] / cpu['default']:.2f}"
              f"  max |loss - default's| {diff:.2e}  last loss {losses[name][-1]:.6f}")


if __name__ == "__main__":
    main()
