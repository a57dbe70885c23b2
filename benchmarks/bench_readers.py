"""Sentences per second: our CoNLL-U reader vs `conllu.parse` used directly, on UD_English-EWT, same run.

Both sides decode the same files from disk each repeat and produce every sentence; the baseline builds
conllu's TokenList objects (all ten columns), ours builds `Sentence` examples and validates as it goes.
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

from dialectbench.data.readers import read_conllu

REPO = Path(__file__).resolve().parents[1]
DEFAULT = Path(os.environ.get("DIALECTBENCH_SHARED_DATA", REPO.parent / "shared" / "data")) / "ud" / "UD_English-EWT"


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


if __name__ == "__main__":
    main()
