"""Real-data check of the baseline POS tagger (CRF) and dependency parser on UD_English-EWT.

    .venv/bin/python benchmarks/baseline_ud.py [--ud-dir ../shared/data/ud/UD_English-EWT]
        [--threads 2] [--skip-pos] [--skip-dep] [--set max_seconds=300 ...]
    .venv/bin/python benchmarks/baseline_ud.py --compare [--data-dir ../shared/data]
        [--varieties "english,brazilian portuguese"] [--skip-dep] [--also "upos_hidden=256;upos_weight=2.0" ...]

Prints POS accuracy, UAS and LAS on the test split (punctuation included, as the UD convention and
the paper's UAS), and training time of each model. Targets (issues 5, 12, 14): POS >= 93, UAS >= 83.
--compare fits a reference configuration (OLD: today's defaults) and a candidate (NEW, below, with --set)
on the same treebanks of a mirror, one after the other in this process (one thread), and prints each
UAS/LAS (or POS accuracy), the CPU seconds of each fit, the parser's auxiliary UPOS accuracy, and last
`cpu ratio new/old: X.XX` (issues 27, 41); each --also is one more candidate parser (defaults + those
fields) fitted in the same run, with its own `cpu ratio cN/old`.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import time
from pathlib import Path

import torch

from dialectbench.backends.baseline import BaselineBackend
from dialectbench.backends.baseline.configs import CRFConfig, ParserConfig
from dialectbench.data.examples import Sentence

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "ud" / "UD_English-EWT"


def load_conllu(path: Path) -> list[Sentence]:
    try:
        from dialectbench.data.readers import read_conllu
    except ImportError:
        read_conllu = None
    if read_conllu is not None:
        return list(read_conllu(path))
    import conllu  # stand-in until the data package's reader lands

    out = []
    with open(path, encoding="utf-8") as f:
        for k, sent in enumerate(conllu.parse_incr(f)):
            toks = [t for t in sent if isinstance(t["id"], int)]
            out.append(Sentence(f"{path.name}:{k}", tuple(t["form"] for t in toks),
                                tuple(t["upos"] for t in toks), tuple(int(t["head"]) for t in toks),
                                tuple(t["deprel"].split(":")[0] for t in toks)))
    return out


def split(ud_dir: Path, name: str) -> list[Sentence]:
    (path,) = ud_dir.glob(f"*-ud-{name}.conllu")
    return load_conllu(path)


# issue 41: the BiLSTM parser as it was before issue 41 (OLD) against today's default (NEW: a learned arc score
# by head distance, a smaller label scorer, torch.rand dropout masks at 0.2, lr 4e-3 after a warmup over the
# first of the planned passes, a 350k-word budget). --set overrides the new parser's settings (e.g. --set
# "arch='transformer'" --set attn_conv_blocks=3 for the round-3 hybrid). The CRF tagger is unchanged since
# issue 27.
OLD = {"crf": CRFConfig(), "parser": ParserConfig(label_hidden=64, arc_max_distance=0, dropout=0.33, fast_dropout=False,
                                                  lr=2e-3, warmup_share=0.0, max_train_words=900_000)}
NEW = {"crf": CRFConfig(), "parser": ParserConfig()}


def _fit_and_score(task: str, configs: dict, train, dev, test,
                   seed: int = 0) -> tuple[float, float | None, float, float | None]:
    """(score, LAS or None, CPU seconds of the fit, UPOS accuracy of the parser's auxiliary classifier or
    None): POS accuracy or UAS on `test`, in percent."""
    c0 = time.process_time()
    model = BaselineBackend(parser=configs["parser"], crf=configs["crf"]).fit(task, train, dev, seed=seed)
    cpu = time.process_time() - c0
    pred = model.predict(test)
    n = sum(len(s.words) for s in test)
    if task == "pos":
        right = sum(p == g for ex, tags in zip(test, pred) for p, g in zip(tags, ex.upos))
        return 100 * right / n, None, cpu, None
    tags = model.predict_upos(test)
    upos = 100 * sum(p == g for ex, ts in zip(test, tags) for p, g in zip(ts, ex.upos)) / n
    right = sum(h == g for ex, (hs, _) in zip(test, pred) for h, g in zip(hs, ex.heads))
    las = sum(h == g and r == gr for ex, (hs, rs) in zip(test, pred)
              for h, r, g, gr in zip(hs, rs, ex.heads, ex.deprels))
    return 100 * right / n, 100 * las / n, cpu, upos


def compare(data_dir: Path, varieties: list[str], tasks: list[str], extra: dict | None = None,
            seeds: tuple[int, ...] = (0,)) -> None:
    """OLD vs NEW (and each of `extra`, name -> configs, against OLD in the same run), each fitted once per
    seed; with several seeds, each treebank ends with every model's mean and sample standard deviation,
    since one seed's difference on a small test set can be noise (issue 41's Komi treebanks)."""
    import statistics

    from dialectbench.data import open_source

    source = open_source(data_dir)
    models = {"old": OLD, "new": NEW, **(extra or {})}
    totals = dict.fromkeys(models, 0.0)
    for name, configs in models.items():
        print(f"{name}: {configs}")
    print(f"{'task':4} {'treebank':34} {'model':5} {'UAS/POS':>7} {'LAS':>6} {'CPU s':>6} {'auxPOS':>6}")
    for task in tasks:
        key = "parser" if task == "dep" else "crf"
        if OLD[key] == NEW[key]:
            print(f"{task:4} {key} configuration unchanged: not compared")
            continue
        for variety in varieties:
            train, test = source.load(task, variety, "train"), source.load(task, variety, "test")
            dev = source.load(task, variety, "dev") if "dev" in source.splits(task, variety) else None
            scores: dict[str, list[float]] = {name: [] for name in models}
            for seed in seeds:
                for name, configs in models.items():
                    score, las, cpu, upos = _fit_and_score(task, configs, train, dev, test, seed)
                    totals[name] += cpu
                    scores[name].append(score)
                    las_s = f"{las:6.2f}" if las is not None else f"{'':6}"
                    upos_s = f"{upos:6.2f}" if upos is not None else ""
                    label = name if len(seeds) == 1 else f"{name}/{seed}"
                    print(f"{task:4} {variety[:34]:34} {label:5} {score:7.2f} {las_s} {cpu:6.0f} {upos_s}",
                          flush=True)
            if len(seeds) > 1:
                for name, values in scores.items():
                    print(f"{task:4} {variety[:34]:34} {name:5} mean {statistics.mean(values):6.2f} "
                          f"sd {statistics.stdev(values):5.2f} over seeds {','.join(map(str, seeds))}", flush=True)
    if totals["old"]:
        for name in list(models)[2:]:
            print(f"cpu ratio {name}/old: {totals[name] / totals['old']:.2f}")
        print(f"CPU seconds new / old: {totals['new']:.0f} / {totals['old']:.0f}")
        print(f"cpu ratio new/old: {totals['new'] / totals['old']:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--compare", action="store_true", help="old vs new default configuration (see above)")
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DIR.parents[1])
    ap.add_argument("--varieties", default="english,brazilian portuguese,portuguese (i:mix)")
    ap.add_argument("--ud-dir", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--skip-pos", action="store_true")
    ap.add_argument("--skip-dep", action="store_true")
    ap.add_argument("--train-limit", type=int, default=None, help="use the first N training sentences")
    ap.add_argument("--also", action="append", default=[], metavar="K=V;K=V",
                    help="with --compare: one more candidate parser (defaults + these fields), fitted in the same run")
    ap.add_argument("--seeds", default="0", help="with --compare: fit every model once per seed, e.g. 0,1,2")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a ParserConfig field, e.g. --set max_seconds=300 --set max_epochs=5")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if args.compare:
        torch.set_num_threads(1)
        overrides = {k: ast.literal_eval(v) for k, v in (kv.split("=", 1) for kv in args.set)}
        NEW["parser"] = dataclasses.replace(NEW["parser"], **overrides)
        extra = {f"c{i}": {**OLD, "parser": ParserConfig(**{k: ast.literal_eval(v) for k, v in
                                                              (kv.split("=", 1) for kv in group.split(";"))})}
                 for i, group in enumerate(args.also, 1)}
        compare(args.data_dir, [v.strip() for v in args.varieties.split(",") if v.strip()],
                [t for t, skip in (("pos", args.skip_pos), ("dep", args.skip_dep)) if not skip], extra,
                tuple(int(s) for s in args.seeds.split(",")))
        return
    train, dev, test = (split(args.ud_dir, s) for s in ("train", "dev", "test"))
    train = train[:args.train_limit]
    n_words = sum(len(s.words) for s in test)
    print(f"{args.ud_dir.name}: train {len(train)} dev {len(dev)} test {len(test)} sentences")
    if not args.skip_pos:
        t0, c0 = time.perf_counter(), time.process_time()
        tagger = BaselineBackend().fit("pos", train, dev)
        fit_s, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
        pred = tagger.predict(test)
        acc = sum(p == g for ex, tags in zip(test, pred) for p, g in zip(tags, ex.upos)) / n_words
        print(f"POS (CRF)      accuracy {100 * acc:.2f}   train {fit_s:.0f}s wall, {fit_cpu:.0f}s CPU")
    if not args.skip_dep:
        overrides = {k: ast.literal_eval(v) for k, v in (kv.split("=", 1) for kv in args.set)}
        config = ParserConfig(verbose=True, **overrides)
        print(f"parser config: {config}")
        backend = BaselineBackend(parser=config)
        t0, c0 = time.perf_counter(), time.process_time()
        parser = backend.fit("dep", train, dev)
        fit_s, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
        t0 = time.perf_counter()
        pred = parser.predict(test)
        pred_s = time.perf_counter() - t0
        uas = sum(h == g for ex, (hs, _) in zip(test, pred) for h, g in zip(hs, ex.heads))
        las = sum(h == g and r == gr for ex, (hs, rs) in zip(test, pred)
                  for h, r, g, gr in zip(hs, rs, ex.heads, ex.deprels))
        print(f"DEP (biaffine) UAS {100 * uas / n_words:.2f}  LAS {100 * las / n_words:.2f}   "
              f"train {fit_s:.0f}s wall, {fit_cpu:.0f}s CPU ({len(parser.history)} epochs)  "
              f"parse {pred_s:.1f}s ({len(test)} sentences)")
        tags = parser.predict_upos(test)
        right = sum(p == g for ex, ts in zip(test, tags) for p, g in zip(ts, ex.upos))
        print(f"POS from the parser's encoder (auxiliary classifier, no CRF) {100 * right / n_words:.2f}")


if __name__ == "__main__":
    main()
