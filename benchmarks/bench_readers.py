"""Sentences per second: our CoNLL-U reader vs `conllu.parse` used directly, on UD_English-EWT, same run;
then examples per second of every other text reader on the real files of ../shared/data (where present).

Both sides decode the same files from disk each repeat and produce every sentence; the baseline builds
conllu's TokenList objects (all ten columns), ours builds `Sentence` examples and validates as it goes.
The other readers' rates are for comparing two checkouts (run this script with each one's PYTHONPATH):
a robustness change must not slow the normal path.
Usage: python benchmarks/bench_readers.py [--data DIR] [--repeats N]
(DIR defaults to ../shared/data/ud/UD_English-EWT, or $DIALECTBENCH_SHARED_DATA/ud/UD_English-EWT.)
"""

from __future__ import annotations

import argparse
import os
import time
from importlib.metadata import version
from pathlib import Path

import conllu

from dialectbench.data.readers import (
    read_conllu,
    read_iob,
    read_labelled,
    read_multiple_choice,
    read_pairs,
    read_parallel,
    read_squad,
)

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DIALECTBENCH_SHARED_DATA", REPO.parent / "shared" / "data"))
DEFAULT = SHARED / "ud" / "UD_English-EWT"
# reader name -> (files under SHARED, examples of one file), with the catalogue's options for those files
OTHERS = {
    "iob (WikiANN)": ("wikiann-og/*.bio", read_iob),
    "labelled (GDI)": ("gdi-vardial2017/GDI-TRAIN.txt", read_labelled),
    "pairs (XNLI tsv)": ("xnli/xtreme-format/dev-*.tsv",
                         lambda f: read_pairs(f, premise_column=0, hypothesis_column=1, label_column=2,
                                              header=False, quoting=False)),
    "multiple_choice (Belebele passages)": ("belebele-eng-reformatted/*.jsonl",
                                            lambda f: read_multiple_choice(f, layout="passages")),
    "squad (SD-QA GoldP)": ("sd-qa-goldp/dev/*.json", lambda f: read_squad(f, check_spans=False)),
    "parallel (X-WMT)": ("til-mt-xwmt/test/*/*.en", lambda f: read_parallel(f, f)),
}


def ours(files: list[Path]) -> int:
    return sum(1 for f in files for _ in read_conllu(f))


def baseline(files: list[Path]) -> int:
    return sum(len(conllu.parse(f.read_text(encoding="utf-8"))) for f in files)


def best_rates(fns, files: list[Path], repeats: int) -> list[tuple[float, int]]:
    """Sentences per second of each reader's fastest repeat; repeats alternate between the readers so a
    burst of other load on the machine hits both alike."""
    best, counts = [float("inf")] * len(fns), [0] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            counts[i] = fn(files)
            best[i] = min(best[i], time.perf_counter() - start)
    return [(count / seconds, count) for count, seconds in zip(counts, best)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    files = sorted(args.data.glob("*.conllu"))
    if not files:
        raise SystemExit(f"no .conllu files in {args.data}")
    (ours_rate, n_ours), (base_rate, n_base) = best_rates([ours, baseline], files, args.repeats)
    if n_ours != n_base:
        raise SystemExit(f"sentence counts differ: ours {n_ours}, conllu {n_base}")
    print(f"UD_English-EWT: {n_ours} sentences in {len(files)} files, best of {args.repeats}")
    print(f"dialectbench read_conllu: {ours_rate:10.0f} sentences/s")
    print(f"conllu.parse ({version('conllu')}) : {base_rate:10.0f} sentences/s")
    print(f"ratio (ours / conllu.parse): {ours_rate / base_rate:.1f}x")
    for name, (pattern, reader) in OTHERS.items():
        found = sorted(SHARED.glob(pattern))
        if found:
            [(rate, n)] = best_rates([lambda fs, r=reader: sum(1 for f in fs for _ in r(f))], found, args.repeats)
            print(f"{name:36} {rate:10.0f} examples/s ({n} examples, {len(found)} files)")


if __name__ == "__main__":
    main()
