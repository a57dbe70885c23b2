"""Where a parser fit's CPU goes (issue 41): one reduced-budget UD_English-EWT fit, one thread, under
torch.profiler; prints the top operators by self CPU time and the share of the fit's phases.

    PYTHONPATH=src .venv/bin/python benchmarks/profile_parser.py [--words 30000] [--set k=v ...]
"""

from __future__ import annotations

import argparse
import ast
import time

import torch
from baseline_ud import DEFAULT_DIR, split
from torch.profiler import ProfilerActivity, profile, record_function

from dialectbench.backends.baseline import parser as parser_mod
from dialectbench.backends.baseline.configs import ParserConfig


def _phases() -> None:
    """Label the step's phases, so the profile attributes time to them (forward, backward, clip, Adam)."""
    step = parser_mod.BiaffineParser._step

    def labelled(self, b, opt):
        enc = self.net.encoder
        with record_function("phase: encoder forward"):
            states = enc(b["word_ids"], b["type_chars"], b["type_index"], b["lengths"])
        with record_function("phase: head forward + loss"):
            loss = self.net.head.loss(states, b["mask"], b["heads"], b["labels"])
            words = b["mask"].clone()
            words[:, 0] = False
            words &= b["has_upos"].unsqueeze(1)
            loss = loss + self.config.upos_weight * torch.nn.functional.cross_entropy(
                enc.upos(states[words]), b["upos"][words])
        opt.zero_grad()
        with record_function("phase: backward"):
            loss.backward()
        with record_function("phase: clip_grad_norm"):
            torch.nn.utils.clip_grad_norm_(self.net.parameters(), 5.0)
        with record_function("phase: adam"):
            opt.step()
        return loss.item()

    labelled.original = step
    parser_mod.BiaffineParser._step = labelled


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--words", type=int, default=30_000)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--rows", type=int, default=25)
    args = ap.parse_args()
    torch.set_num_threads(1)
    overrides = {k: ast.literal_eval(v) for k, v in (kv.split("=", 1) for kv in args.set)}
    cfg = ParserConfig(max_train_words=args.words, max_epochs=1, threads=1, **overrides)
    train = split(DEFAULT_DIR, "train")
    _phases()
    model = parser_mod.BiaffineParser(config=cfg)
    c0 = time.process_time()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        model.fit(train)
    cpu = time.process_time() - c0
    events = prof.key_averages()
    total = sum(e.self_cpu_time_total for e in events)
    print(f"fit: {args.words} words, {cpu:.1f} CPU-s under the profiler")
    for e in sorted(events, key=lambda e: e.key):
        if e.key.startswith("phase:"):
            print(f"  {e.key:34} {100 * e.cpu_time_total / total:5.1f}% (inclusive)")
    print(events.table(sort_by="self_cpu_time_total", row_limit=args.rows, max_name_column_width=40))


if __name__ == "__main__":
    main()
