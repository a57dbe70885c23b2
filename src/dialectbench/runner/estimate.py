"""`dialectbench plan --estimate`: the full DialectBench job list for a model and what running it costs.

The plan is built over the whole dataset catalogue (every task, every catalogued variety, each task's
Table 2 settings), whether or not the data is on this machine. Split sizes are counted where the split
is on disk (a mirror or the download cache); elsewhere they are the task's median over the counted
splits, else the published size in `FALLBACK_SIZES`; such rows say `assumed`.

Each backend estimates its own cost (`backends.cost_estimator`): the CPU baseline from per-word costs
measured on UD (backends/baseline/costs.py; split words counted where on disk); the transformer encoders
from the current machine: one training step and one inference batch of a BERT-base-sized encoder with random weights and the model's vocabulary size (the embedding matrix is most of what
differs between mBERT and XLM-R), timed at the task's sequence length. A fit costs
epochs x train examples x (seconds per training example), plus a dev pass per epoch (early stopping can
only shorten it, so the estimate is an upper bound); an evaluation costs test examples x (seconds per
inference example). MT (NLLB, generation), icl jobs and in-context families are listed but not costed.
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
from dialectbench.runner.plan import DATA_ERRORS, MT_TASKS, Plan, build_plan

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

    def __init__(self, disk: Any, users: dict[tuple[str, str], Any] | None = None) -> None:
        self.disk = disk  # a DataSource over a mirror and/or the download cache
        self.users = users or {}  # (task, variety) -> the DataSource of a user catalogue (--catalogue)

    def on_disk(self, task: str, variety: str) -> Any:
        return self.users.get((task, variety), self.disk)

    def varieties(self, task: str) -> list[str]:
        try:
            found = [e.variety for e in self.disk.entries(task)]
        except DATA_ERRORS:
            found = []
        return found + [v for (t, v) in self.users if t == task and v not in found]

    def splits(self, task: str, variety: str) -> set[str]:
        return set(self.on_disk(task, variety).entry(task, variety).split_names()) & set(SPLITS)

    def load(self, task: str, variety: str, split: str) -> list[Any]:
        return self.on_disk(task, variety).load(task, variety, split)

    def fingerprint(self, task: str, variety: str, split: str) -> str:
        entry = self.on_disk(task, variety).entry(task, variety)
        # one dataset file serving several varieties (DId) must keep one fingerprint, as in a real plan
        files = sorted(ref.path for p in (entry.splits.get(split) or entry.splits.get("all") or [])
                       for ref in p.file_args().values())
        return hashlib.sha256(f"{task}|{split}|{files or variety}".encode()).hexdigest()[:16]


@dataclass
class Sizes:
    counts: dict[tuple[str, str, str], int]
    assumed: set[tuple[str, str, str]]
    words: dict[tuple[str, str, str], int] | None = None  # words of sentence splits where counted

    def get(self, task: str, variety: str, split: str) -> int:
        return self.counts.get((task, variety, split), 0)

    def get_words(self, task: str, keys: Sequence[tuple[str, str]]) -> float | None:
        """Words of these (variety, split)s when every one was counted, else None."""
        found = [(self.words or {}).get((task, v, s)) for v, s in keys]
        return float(sum(found)) if found and all(w is not None for w in found) else None  # type: ignore[arg-type]


def _words(examples: Sequence[Any]) -> int | None:
    if examples and all(hasattr(ex, "words") for ex in examples):
        return sum(len(ex.words) for ex in examples)
    return None


def count_sizes(source: CatalogueSource, plan: Plan) -> Sizes:
    """Examples per (task, variety, split) the plan reads: counted where on disk, else assumed."""
    counts: dict[tuple[str, str, str], int] = {}
    missing: set[tuple[str, str, str]] = set()
    by_fp: dict[str, int] = {}
    words: dict[tuple[str, str, str], int] = {}
    words_by_fp: dict[str, int | None] = {}
    for group in plan.groups:
        wanted = [(v, s) for v in group.training.members for s in ("train", "dev")]
        wanted += [(j.variety, "test") for j in group.jobs]
        for variety, split in wanted:
            key = (group.task, variety, split)
            if key in counts or key in missing or split not in source.splits(group.task, variety):
                continue
            fp = group.fingerprints.get((variety, split), "")
            disk = getattr(source, "users", {}).get((group.task, variety), source.disk)
            if fp not in by_fp and split in disk.splits(group.task, variety):
                try:
                    examples = source.load(group.task, variety, split)
                    by_fp[fp], words_by_fp[fp] = len(examples), _words(examples)
                except DATA_ERRORS:
                    pass
            if fp in by_fp:
                counts[key] = by_fp[fp]
                if words_by_fp.get(fp) is not None:
                    words[key] = words_by_fp[fp]  # type: ignore[assignment]
            else:
                missing.add(key)
    for task, variety, split in missing:
        known = [n for (t, _, s), n in counts.items() if t == task and s == split]
        fallback = FALLBACK_SIZES.get(task, (1000, 200, 500))[SPLITS.index(split)]
        counts[(task, variety, split)] = int(statistics.median(known)) if known else fallback
    return Sizes(counts, missing, words)


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


def _encoder_seconds(costs: Costs, task: str, n_train: int, n_dev: int, n_test: int,
                     **_: Any) -> tuple[float | None, float | None]:
    """A transformer encoder's (fit, eval) seconds from the timed BERT-base step; MT is not costed."""
    from dialectbench.backends.hf.config import task_config

    if task in MT_TASKS:
        return None, None
    cfg = task_config(task)
    train_s, infer_s = costs.scaled(cfg.max_length)
    fit = cfg.epochs * (n_train * train_s + min(cfg.max_dev, n_dev) * infer_s) if n_train else 0.0
    return fit, n_test * infer_s


def estimate_rows(plan: Plan, sizes: Sizes, costs: Any) -> list[dict[str, Any]]:
    """One row per job: sizes and expected seconds (the group's fit is charged to its first job). `costs`:
    a backend's own estimate (`job_seconds(task, n_train, n_dev, n_test, ...)`), or the timed encoder step
    (`Costs`), or None (listed, not costed). Only fine-tuned jobs are costed (icl: the model server's)."""
    def job_seconds(task: str, n_train: int, n_dev: int, n_test: int, **words: Any) -> tuple[Any, Any]:
        if costs is None:
            return None, None
        if isinstance(costs, Costs):
            return _encoder_seconds(costs, task, n_train, n_dev, n_test)
        return costs.job_seconds(task, n_train, n_dev, n_test, **words)

    rows = []
    for group in plan.groups:
        members = group.training.members
        n_train = sum(sizes.get(group.task, v, "train") for v in members)
        n_dev = sum(sizes.get(group.task, v, "dev") for v in members)
        finetune = group.training.mode == "finetune"
        fit, _ = job_seconds(group.task, n_train, n_dev, 0,
                             train_words=sizes.get_words(group.task, [(v, "train") for v in members]))
        for i, job in enumerate(group.jobs):
            n_test = sizes.get(group.task, job.variety, "test")
            _, evaluate = job_seconds(group.task, n_train, n_dev, n_test,
                                      test_words=sizes.get_words(group.task, [(job.variety, "test")]))
            costed = finetune and evaluate is not None
            assumed = any((group.task, v, s) in sizes.assumed for v, s in
                          [(job.variety, "test"), *((m, "train") for m in members)])
            rows.append({"task": job.task, "setting": job.setting, "variety": job.variety,
                         "train_on": job.train_on, "n_train": n_train, "n_test": n_test,
                         "seconds": round(((fit or 0.0) if i == 0 else 0.0) + evaluate, 1) if costed else None,
                         "sizes": "assumed" if assumed else "counted"})
    return rows


def full_plan(model: str, tasks: Sequence[str] | None = None, data_dir: str | Path | None = None,
              settings: Sequence[str] | None = None) -> tuple[Plan, CatalogueSource]:
    """The plan over the whole catalogue; `settings` as `run --settings` (icl jobs for in-context families);
    user catalogues (--catalogue) read their files beside their YAML."""
    from dialectbench.backends import supports_icl
    from dialectbench.data.source import DataSource, catalogue_source
    from dialectbench.data.user_catalogue import loaded

    users = {(item.catalogue.task, e.variety): DataSource(item.root, {item.catalogue.task: item.catalogue},
                                                          kind="mirror")
             for item in loaded() for e in item.catalogue.entries}
    source = CatalogueSource(catalogue_source(data_dir), users)
    return build_plan(source, model=model, tasks=tasks, settings=settings, supports_icl=supports_icl(model),
                      config={"model": model, "estimate": True}), source


def totals(rows: Sequence[dict[str, Any]], concurrent: float = 1.0) -> dict[str, float]:
    """Device-seconds over the costed jobs, and the wall time with `concurrent` jobs at once."""
    seconds = sum(r["seconds"] or 0.0 for r in rows)
    return {"jobs": len(rows), "costed": sum(r["seconds"] is not None for r in rows),
            "device_hours": seconds / 3600, "wall_hours": seconds / 3600 / max(concurrent, 1e-9)}
