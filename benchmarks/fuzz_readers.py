"""Fuzz every data reader with mutated real files: nothing but DataFormatError may come out.

Seeds are real files from ../shared/data when it is there (else the bundled sample suite), cut to a few
kilobytes so that a million inputs fit in minutes. Each input is one seed put through 1-4 random mutations:
byte flips, inserted/deleted/duplicated chunks, splices of two seeds, "interesting" tokens (Unicode digits
① ² ١, NUL, quotes, tabs, CR, very long fields, deep JSON nesting, 5,000-digit numbers), line-ending
conversions (LF, CRLF, CR), and for JSON seeds a structural mutation (a value replaced by another type).
The reader is run to the end on each input; the outcome is one of
  ok        the reader accepted it;
  named     DataFormatError (counted separately when it has no line: JSON documents give no positions);
  escape    any other exception - a bug: the first few of each kind are printed with the input that caused it.
OSError for paths is not expected (the input files exist); DataWarning (several roots) is counted, not raised.

Run:  nice .venv/bin/python benchmarks/fuzz_readers.py [--inputs 1000000] [--workers 2] [--seed 0]
Prints per reader: inputs, ok, named errors, named errors without a line, escapes, and the slowest input.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable
from multiprocessing import Pool
from pathlib import Path

from dialectbench.data import errors
from dialectbench.data.errors import DataFormatError
from dialectbench.data.readers import (
    XNLI_LABEL_IDS,
    read_conllu,
    read_iob,
    read_labelled,
    read_multiple_choice,
    read_pairs,
    read_parallel,
    read_sdqa,
    read_squad,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
SAMPLE = Path(__file__).resolve().parents[1] / "src" / "dialectbench" / "data" / "sample"
SEED_BYTES = 800
_SEPARATOR = re.compile(r"[\t,\n:]")

INTERESTING = ["①", "²", "¹", "١٢", "1-²", "0", "-1", "99999999999999999999", "9" * 5000, "\x00", '"', '""',
               "\t", "\r", "\r\n", "\n", "\n\n", "#", "# sent_id = x", "=", "-", ".", "1.0", "1-2", "\ufeff",
               "x" * 140_000, "é", "\u2028", "\x1c", "null", "true", "[]", "{}", "[" * 3000, "{\"a\":" * 3000,
               "\"data\"", "\"answers\"", "\"id\"", ",", ";", "_", "B-PER", "I-", "O", "name=B-PER", "ID",
               "-gold", "kenya-en-KE", "x" * 300 + "-en-US"]


# ---------------------------------------------------------------------------------------------- seeds
def _cut(text: str, blank_lines: bool) -> str:
    """The start of a file, at most SEED_BYTES long, cut at a sentence (blank line) or line boundary."""
    if len(text) <= SEED_BYTES:
        return text
    head = text[:SEED_BYTES]
    cut = head.rfind("\n\n") if blank_lines else -1
    return head[:cut + 2] if cut > 0 else head[:head.rfind("\n") + 1]


def _json_seed(path: Path) -> str:
    """A SQuAD document with its first article's first paragraph and two questions."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    article = doc["data"][0]
    paragraph = dict(article["paragraphs"][0])
    paragraph["qas"] = paragraph["qas"][:2]
    paragraph["context"] = paragraph["context"]
    return json.dumps({"data": [{"title": article.get("title", ""), "paragraphs": [paragraph]}]},
                      ensure_ascii=False, indent=1)


def _files(pattern: str, limit: int) -> list[Path]:
    root = SHARED if SHARED.is_dir() else SAMPLE
    return sorted(root.glob(pattern))[:limit]


@functools.lru_cache(maxsize=1)
def seeds() -> dict[str, list[tuple[str, ...]]]:
    """reader name -> seed texts (a tuple: one text per file the reader takes)."""
    shared = SHARED.is_dir()
    text = lambda p: p.read_text(encoding="utf-8", errors="replace")
    out: dict[str, list[tuple[str, ...]]] = {}
    out["conllu"] = [(_cut(text(p), True),) for p in _files("ud/*/*-test.conllu" if shared else "ud/**/*.conllu", 8)]
    out["iob"] = [(_cut(text(p), True),) for p in
                  (_files("wikiann-og/*.bio", 4) + _files("norwegian-ner-johansen/*/*.bioes", 2)
                   if shared else _files("ner/**/*.bio", 6))]
    out["labelled"] = [(_cut(text(p), False),) for p in
                       (_files("gdi-vardial2017/GDI-TRAIN.txt", 1) + _files("dmt-mandarin-vardial2019/*/train.txt", 1)
                        + _files("astd/Tweets.txt", 1) if shared else _files("did/**/*.tsv", 4))]
    out["pairs"] = [(_cut(text(p), False),) for p in
                    (_files("xnli/xtreme-format/dev-e*.tsv", 2) if shared else _files("nli/**/*.tsv", 3))]
    # ../shared/data's Belebele copy is a reformatted layout the reader does not take: the sample suite's
    # Belebele-layout files (JSON lists) are the seeds, as JSON Lines (which carry line numbers)
    out["multiple_choice"] = [("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                       for r in json.loads(text(p))[:6]),) for p in sorted(SAMPLE.glob("mrc/*.json"))[:3]]
    out["squad"] = [(_json_seed(p),) for p in (_files("sd-qa-goldp/dev/*.json", 3) if shared else _files("eqa/**/*.json", 2))]
    pairs = [p for p in _files("til-mt-xwmt/test/*/*", 40) if p.suffix != ".md"][:6] if shared \
        else _files("mt/**/*.txt", 6)
    out["parallel"] = [(_cut(text(a), False), _cut(text(b), False)) for a, b in zip(pairs[::2], pairs[1::2])]
    sdqa = (SHARED / "sd-qa" / "dev" / "eng") if shared else None
    if sdqa is not None and sdqa.is_dir():
        question = next(sdqa.glob("*.dev.csv"))
        out["sdqa"] = [(_cut(text(question), False), _cut(text(sdqa / "kenya" / "metadata.csv"), False))]
    return {k: v for k, v in out.items() if v}


# ------------------------------------------------------------------------------------------ mutations
def _mutate_text(rng: random.Random, text: str, others: list[str]) -> str:
    kind = rng.randrange(9)
    n = len(text)
    at = rng.randrange(n + 1) if n else 0
    if kind == 0:  # replace one character
        return text[:at] + rng.choice(INTERESTING[:20] + [chr(rng.randrange(1, 0x3000))]) + text[at + 1:]
    if kind == 1:  # insert an interesting token
        return text[:at] + rng.choice(INTERESTING) + text[at:]
    if kind == 2:  # delete a chunk
        return text[:at] + text[at + rng.randrange(1, 200):]
    if kind == 3:  # duplicate a chunk
        chunk = text[at:at + rng.randrange(1, 400)]
        return text[:at] + chunk * rng.randrange(1, 4) + text[at:]
    if kind == 4:  # splice with another seed
        other = rng.choice(others) if others else text
        return text[:at] + other[rng.randrange(len(other) + 1):]
    if kind == 5:  # line endings
        return text.replace("\n", rng.choice(["\r\n", "\r", "\n\r", "\n\n"]))
    if kind == 6:  # truncate
        return text[:at]
    if kind == 7:  # replace a field between separators by an interesting token
        cut = [m.start() for m in _SEPARATOR.finditer(text)]
        if len(cut) >= 2:
            i = rng.randrange(len(cut) - 1)
            return text[:cut[i] + 1] + rng.choice(INTERESTING) + text[cut[i + 1]:]
        return text
    return _mutate_json(rng, text)


def _mutate_json(rng: random.Random, text: str) -> str:
    """Parse (a document or the first line) and replace one value somewhere with a value of another type."""
    lines = text.split("\n")
    index = rng.randrange(len(lines)) if len(lines) > 1 else 0
    try:
        value = json.loads(text if len(lines) == 1 or text.lstrip().startswith("{\n") else lines[index])
        whole = len(lines) == 1 or text.lstrip().startswith("{\n")
    except (ValueError, RecursionError):
        return text[::-1] if rng.random() < 0.01 else text + rng.choice(INTERESTING)
    holders = []

    def walk(v):
        if isinstance(v, dict):
            holders.extend((v, k) for k in v)
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            holders.extend((v, i) for i in range(len(v)))
            for x in v:
                walk(x)
    walk(value)
    if holders:
        box, key = rng.choice(holders)
        box[key] = rng.choice([None, 1, -5, 2.5, True, "", "²", [], [1], {}, {"text": 1}, "x" * 50, [None],
                               {"answer_start": "3"}, 10 ** 30])
    dumped = json.dumps(value, ensure_ascii=rng.random() < 0.5)
    if whole:
        return dumped
    lines[index] = dumped
    return "\n".join(lines)


def _mutated(rng: random.Random, seed: tuple[str, ...], all_seeds: list[tuple[str, ...]]) -> list[bytes]:
    files = list(seed)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(files))
        files[i] = _mutate_text(rng, files[i], [s[i] for s in all_seeds if len(s) > i])
    out = []
    for f in files:
        data = f.encode("utf-8", errors="surrogatepass")
        if rng.random() < 0.03 and data:  # raw byte damage: invalid UTF-8
            at = rng.randrange(len(data))
            data = data[:at] + bytes([rng.randrange(128, 256)]) + data[at + 1:]
        out.append(data)
    return out


# ---------------------------------------------------------------------------------------- the readers
def _run(name: str, folder: Path, data: list[bytes]) -> None:
    """Write the input files and read them to the end with `name`'s reader."""
    def put(rel: str, content: bytes) -> Path:
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content)
        return p

    readers: dict[str, Callable[[], object]] = {
        "conllu": lambda: list(read_conllu(put("x-ud-test.conllu", data[0]))),
        "iob": lambda: list(read_iob(put("x.bio", data[0]))),
        "labelled": lambda: list(read_labelled(put("x.txt", data[0]))),
        "pairs": lambda: list(read_pairs(put("x.tsv", data[0]), premise_column=0, hypothesis_column=1,
                                         label_column=2, header=False, label_map=XNLI_LABEL_IDS, labels=None)),
        "multiple_choice": lambda: list(read_multiple_choice(put("x.jsonl", data[0]))),
        "squad": lambda: list(read_squad(put("x.json", data[0]))),
        "parallel": lambda: list(read_parallel(put("x.src", data[0]), put("x.ref", data[1]))),
        "sdqa": lambda: (put("dev/eng/english.dev.csv", data[0]), put("dev/eng/kenya/metadata.csv", data[1]),
                         list(read_sdqa(folder, "eng", "dev"))),
    }
    readers[name]()


def _work(job: tuple[str, int, int, int]) -> dict:
    name, start, count, seed = job
    all_seeds = seeds()[name]
    rng = random.Random(seed * 1_000_003 + start)
    tally: Counter = Counter()
    escapes: dict[str, str] = {}
    slowest = (0.0, "")
    base = Path(tempfile.mkdtemp(prefix="fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    warnings.simplefilter("ignore", getattr(errors, "DataWarning", UserWarning))
    try:
        for i in range(count):
            data = _mutated(rng, rng.choice(all_seeds), all_seeds)
            folder = base  # the same file names every time: overwritten, not re-created
            t0 = time.perf_counter()
            try:
                _run(name, folder, data)
                tally["ok"] += 1
            except DataFormatError as err:
                tally["named"] += 1
                if err.line is None:
                    tally["no_line"] += 1
                if not err.path.startswith(str(folder)):
                    tally["no_file"] += 1
            except Exception as err:  # noqa: BLE001 - that is what we count
                kind = f"{type(err).__name__}: {str(err)[:80]}"
                tally["escape"] += 1
                if kind not in escapes and len(escapes) < 20:
                    escapes[kind] = f"{traceback.format_exc(limit=-3)}input: {[d[:300] for d in data]!r}"
            spent = time.perf_counter() - t0
            if spent > slowest[0]:
                slowest = (spent, f"{[len(d) for d in data]} bytes")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return {"name": name, "tally": tally, "escapes": escapes, "slowest": slowest}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=1_000_000, help="inputs in total, shared by the readers")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=5000)
    args = parser.parse_args()
    available = seeds()
    print(f"seeds from {SHARED if SHARED.is_dir() else SAMPLE}: "
          + ", ".join(f"{k} {len(v)}" for k, v in available.items()))
    per_reader = args.inputs // len(available)
    jobs = [(name, start, min(args.chunk, per_reader - start), args.seed)
            for name in available for start in range(0, per_reader, args.chunk)]
    t0 = time.perf_counter()
    totals: dict[str, Counter] = {name: Counter() for name in available}
    escapes: dict[str, dict[str, str]] = {name: {} for name in available}
    slowest: dict[str, tuple[float, str]] = {name: (0.0, "") for name in available}
    done = Counter()
    with Pool(args.workers) as pool:
        for out in pool.imap_unordered(_work, jobs):
            done.update(out["tally"])
            print(f"  ... {done['ok'] + done['named'] + done['escape']:,} inputs, {done['escape']} escapes "
                  f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
            totals[out["name"]].update(out["tally"])
            for k, v in out["escapes"].items():
                escapes[out["name"]].setdefault(k, v)
            slowest[out["name"]] = max(slowest[out["name"]], out["slowest"])
    elapsed = time.perf_counter() - t0
    print(f"{'reader':16} {'inputs':>9} {'ok':>8} {'named':>9} {'no line':>8} {'no file':>8} {'escapes':>8}"
          f" {'slowest':>9}")
    grand = Counter()
    for name, t in totals.items():
        n = t["ok"] + t["named"] + t["escape"]
        grand.update(t)
        grand["inputs"] += n
        print(f"{name:16} {n:9,} {t['ok']:8,} {t['named']:9,} {t['no_line']:8,} {t['no_file']:8,} "
              f"{t['escape']:8,} {slowest[name][0]:8.3f}s")
    print(f"{'total':16} {grand['inputs']:9,} {grand['ok']:8,} {grand['named']:9,} {grand['no_line']:8,} "
          f"{grand['no_file']:8,} {grand['escape']:8,}   in {elapsed:.0f} s with {args.workers} worker(s)")
    for name, found in escapes.items():
        for kind, detail in found.items():
            print(f"\nESCAPE in {name}: {kind}\n{detail}", file=sys.stderr)
    return 1 if grand["escape"] else 0


if __name__ == "__main__":
    sys.exit(main())
