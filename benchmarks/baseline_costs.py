"""Measure the CPU baseline's per-word costs that `plan --estimate --model baseline` uses
(backends/baseline/costs.py), on UD_English-EWT: the CRF tagger's fit and prediction, the parser's
prediction and its fit per training word on a shortened work budget (a full fit goes through
`ParserConfig.expected_words` words, so the cost per word is what scales).

    .venv/bin/python benchmarks/baseline_costs.py [--ud-dir ../shared/data/ud/UD_English-EWT]
        [--train 2000] [--parser-words 60000]

Prints CPU seconds per training word and per test word for each model, with the speed of a
BERT-base training step on the same machine for scale (the ratio the old estimate was off by)."""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import torch
from baseline_ud import DEFAULT_DIR, split

from dialectbench.backends.baseline import BaselineBackend
from dialectbench.backends.baseline.configs import CRFConfig, ParserConfig


def _cpu(fn):
    c0 = time.process_time()
    out = fn()
    return out, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ud-dir", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--train", type=int, default=2000, help="training sentences")
    ap.add_argument("--parser-words", type=int, default=60_000, help="the parser's shortened work budget")
    args = ap.parse_args()
    torch.set_num_threads(1)
    train, test = split(args.ud_dir, "train")[:args.train], split(args.ud_dir, "test")[:1000]
    train_words, test_words = sum(len(s.words) for s in train), sum(len(s.words) for s in test)
    print(f"{args.ud_dir.name}: {len(train)} train sentences ({train_words} words), {len(test)} test "
          f"({test_words} words)")
    backend = BaselineBackend(parser=replace(ParserConfig(), max_train_words=args.parser_words, patience=10**6),
                              crf=CRFConfig())
    tagger, fit = _cpu(lambda: backend.fit("pos", train, None))
    _, pred = _cpu(lambda: tagger.predict(test))
    print(f"crf    fit {fit / train_words * 1e3:.4f} ms/train word  predict {pred / test_words * 1e3:.4f} ms/test word")
    parser, fit = _cpu(lambda: backend.fit("dep", train, None))
    _, pred = _cpu(lambda: parser.predict(test))
    print(f"parser fit {fit / args.parser_words * 1e3:.4f} ms/trained word  predict {pred / test_words * 1e3:.4f} "
          f"ms/test word")


if __name__ == "__main__":
    main()
