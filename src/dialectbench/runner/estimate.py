"""`dialectbench plan --estimate`: the full DialectBench job list for a model and what running it costs.

The plan is built over the whole dataset catalogue (every task, every catalogued variety, each task's
Table 2 settings), whether or not the data is on this machine. Split sizes are counted where the split
is on disk (a mirror or the download cache); elsewhere they are the task's median over the counted
splits, else the published size in `FALLBACK_SIZES`; such rows say `assumed`.

Costs come from the current machine: one training step and one inference batch of a BERT-base-sized
encoder with random weights and the model's vocabulary size (the embedding matrix is most of what
differs between mBERT and XLM-R), timed at the task's sequence length. A fit costs
epochs x train examples x (seconds per training example), plus a dev pass per epoch (early stopping can
only shorten it, so the estimate is an upper bound); an evaluation costs test examples x (seconds per
inference example). MT (NLLB, generation) is listed but not costed.
"""

from __future__ import annotations

import hashlib
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dialectbench.extras import require
from dialectbench.runner.plan import DATA_ERRORS, Plan, build_plan
from dialectbench.tasks import MT_TASKS

VOCAB = {"mbert": 119547, "xlmr": 250002}  # bert-base-multilingual-cased, xlm-roberta-base
# published split sizes used when a split is on no disk here (train, dev, test examples)
FALLBACK_SIZES: dict[str, tuple[int, int, int]] = {
    "tc": (701, 99, 204),        # SIB-200 per language
    "mrc": (0, 0, 900),          # Belebele: 900 questions per variety, trained on English MRC data
    "nli": (392702, 2490, 5010),  # MultiNLI train (English), XNLI dev/test
    "pos": (2000, 500, 1000),    # a typical mid-size UD treebank (sentences)
    "dep": (2000, 500, 1000),
    "ner": (20000, 10000, 10000),  # WikiANN
    "sa": (5000, 500, 1000),
    "did": (5000, 500, 1000),
    "eqa": (3696, 440, 1000),    # TyDi-QA GoldP English train / SD-QA dev / test
}
SPLITS = ("train", "dev", "test")


class CatalogueSource:
    """Every catalogued (task, variety, split), on disk or not: what the benchmark *would* run."""

    def __init__(self, disk: Any) -> None:
        self.disk = disk  # a DataSource over a mirror and/or the download cache

    def varieties(self, task: str) -> list[str]:
        try:
            return [e.variety for e in self.disk.entries(task)]
        except DATA_ERRORS:
            return []

    def splits(self, task: str, variety: str) -> set[str]:
        return set(self.disk.entry(task, variety).split_names()) & set(SPLITS)

    def load(self, task: str, variety: str, split: str) -> list[Any]:
        return self.disk.load(task, variety, split)

    def fingerprint(self, task: str, variety: str, split: str) -> str:
        entry = self.disk.entry(task, variety)
        # one dataset file serving several varieties (DId) must keep one fingerprint, as in a real plan
        files = sorted(ref.path for p in (entry.splits.get(split) or entry.splits.get("all") or [])
                       for ref in p.file_args().values())
        return hashlib.sha256(f"{task}|{split}|{files or variety}".encode()).hexdigest()[:16]


@dataclass
class Sizes:
    counts: dict[tuple[str, str, str], int]
    assumed: set[tuple[str, str, str]]

    def get(self, task: str, variety: str, split: str) -> int:
        return self.counts.get((task, variety, split), 0)


def count_sizes(source: CatalogueSource, plan: Plan) -> Sizes:
    """Examples per (task, variety, split) the plan reads: counted where on disk, else assumed."""
    counts: dict[tuple[str, str, str], int] = {}
    missing: set[tuple[str, str, str]] = set()
    by_fp: dict[str, int] = {}
    for group in plan.groups:
        wanted = [(v, s) for v in group.training.members for s in ("train", "dev")]
        wanted += [(j.variety, "test") for j in group.jobs]
        for variety, split in wanted:
            key = (group.task, variety, split)
            if key in counts or key in missing or split not in source.splits(group.task, variety):
                continue
            fp = group.fingerprints.get((variety, split), "")
            if fp not in by_fp and split in source.disk.splits(group.task, variety):
                try:
                    by_fp[fp] = len(source.load(group.task, variety, split))
                except DATA_ERRORS:
                    pass
            if fp in by_fp:
                counts[key] = by_fp[fp]
            else:
                missing.add(key)
    for task, variety, split in missing:
        known = [n for (t, _, s), n in counts.items() if t == task and s == split]
        fallback = FALLBACK_SIZES.get(task, (1000, 200, 500))[SPLITS.index(split)]
        counts[(task, variety, split)] = int(statistics.median(known)) if known else fallback
    return Sizes(counts, missing)


@dataclass(frozen=True)
class Costs:
    """Seconds per example at `seq_len` sub-word tokens on `device`, for one model."""

    model: str
    device: str
    seq_len: int
    train: float
    infer: float

    def scaled(self, length: int) -> tuple[float, float]:
        # cost grows about linearly with the sequence length at these lengths (the feed-forward layers
        # dominate attention below ~512 tokens)
        f = length / self.seq_len
        return self.train * f, self.infer * f


def measure_costs(model: str, device: str = "cpu", seq_len: int = 128, batch: int = 8, steps: int = 2,
                  layers: int = 12, hidden: int = 768) -> Costs:
    """Time training steps and an inference batch of a randomly initialised BERT-base-sized encoder."""
    require("plan --estimate", "transformers")
    import torch
    from transformers import BertConfig, BertForTokenClassification

    torch.manual_seed(0)
    config = BertConfig(vocab_size=VOCAB.get(model, VOCAB["mbert"]), hidden_size=hidden, num_hidden_layers=layers,
                        num_attention_heads=max(1, hidden // 64), intermediate_size=4 * hidden, num_labels=17)
    net = BertForTokenClassification(config).to(device)
    optim = torch.optim.AdamW(net.parameters(), lr=1e-5)
    ids = torch.randint(0, config.vocab_size, (batch, seq_len), device=device)
    labels = torch.randint(0, 17, (batch, seq_len), device=device)

    def sync() -> None:
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    def step() -> None:
        optim.zero_grad()
        net(input_ids=ids, labels=labels).loss.backward()
        optim.step()

    step()  # warm-up: allocations, kernels
    sync()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    sync()
    train = (time.perf_counter() - t0) / (steps * batch)
    with torch.no_grad():
        net(input_ids=ids)
        sync()
        t0 = time.perf_counter()
        for _ in range(steps):
            net(input_ids=ids)
        sync()
    infer = (time.perf_counter() - t0) / (steps * batch)
    return Costs(model, device, seq_len, train, infer)


def estimate_rows(plan: Plan, sizes: Sizes, costs: Costs) -> list[dict[str, Any]]:
    """One row per job: sizes and expected seconds (the group's fit is charged to its first job)."""
    from dialectbench.backends.hf.config import task_config

    rows = []
    for group in plan.groups:
        cfg = task_config(group.task)
        train_s, infer_s = costs.scaled(cfg.max_length)
        n_train = sum(sizes.get(group.task, v, "train") for v in group.training.members)
        n_dev = min(cfg.max_dev, sum(sizes.get(group.task, v, "dev") for v in group.training.members))
        costed = group.task not in MT_TASKS and group.training.mode == "finetune"
        fit = cfg.epochs * (n_train * train_s + n_dev * infer_s) if costed and n_train else 0.0
        for i, job in enumerate(group.jobs):
            n_test = sizes.get(group.task, job.variety, "test")
            assumed = any((group.task, v, s) in sizes.assumed for v, s in
                          [(job.variety, "test"), *((m, "train") for m in group.training.members)])
            rows.append({"task": job.task, "setting": job.setting, "variety": job.variety,
                         "train_on": job.train_on, "n_train": n_train, "n_test": n_test,
                         "seconds": round((fit if i == 0 else 0.0) + n_test * infer_s, 1) if costed else None,
                         "sizes": "assumed" if assumed else "counted"})
    return rows


def full_plan(model: str, tasks: Sequence[str] | None = None,
              data_dir: str | Path | None = None) -> tuple[Plan, CatalogueSource]:
    from dialectbench.data.source import catalogue_source

    source = CatalogueSource(catalogue_source(data_dir))
    return build_plan(source, model=model, tasks=tasks, config={"model": model, "estimate": True}), source


def totals(rows: Sequence[dict[str, Any]], concurrent: float = 1.0) -> dict[str, float]:
    """Device-seconds over the costed jobs, and the wall time with `concurrent` jobs at once."""
    seconds = sum(r["seconds"] or 0.0 for r in rows)
    return {"jobs": len(rows), "costed": sum(r["seconds"] is not None for r in rows),
            "device_hours": seconds / 3600, "wall_hours": seconds / 3600 / max(concurrent, 1e-9)}
