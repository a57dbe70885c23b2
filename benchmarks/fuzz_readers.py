"""Fuzz every data reader and the user catalogue with mutated inputs: nothing but DataFormatError (for the
catalogue: `file:line: problem` lines) may come out.

Reader seeds are real files from ../shared/data when it is there (else the bundled sample suite), cut to a
few kilobytes so that a million inputs fit in minutes; the Belebele passages layout also gets seeds built
from its structure. Each input is one seed put through 1-4 random mutations: byte flips, inserted/deleted/
duplicated chunks, splices of two seeds, "interesting" tokens (Unicode digits ① ² ١, NUL, quotes, tabs, CR,
very long fields and NUL runs, deep JSON nesting, 5,000-digit numbers), line-ending conversions (LF, CRLF,
CR, mixed), and for JSON seeds a structural mutation (a value replaced by another type).
Catalogue seeds are one valid catalogue per format, built from the schema, with their data files; they are
mutated in structure (a value replaced from a pool of wrong types and near-miss names, a key deleted, added
or misspelt, a reader option added, a list item repeated), then as text (the mutations above plus YAML
aliases, alias bombs, tags and deep nesting), and their data files as above; `validate_file` reads them.
The outcome is one of
  ok        the reader accepted it (for the catalogue: no problem);
  named     DataFormatError (counted separately when it has no line: JSON documents give no positions);
  escape    a bug: any other exception; a message over 600 characters (messages quote at most ~80 of the
            input); a catalogue problem that is not one `file:line: problem` line; or an accepted input
            that reads differently once its line ends are made CRLF (a lone CR, LF and CRLF are one line
            end each). The first few of each kind are printed with the input that caused it.
OSError for paths is not expected (the input files exist); DataWarning (several roots) is counted, not raised.

Run:  nice .venv/bin/python benchmarks/fuzz_readers.py [--inputs 1000000] [--workers 2] [--seed 0]
Prints per reader: inputs, ok, named errors, named errors without a line, escapes, the slowest input, and
inputs per second.
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

import yaml

from dialectbench.data import errors, user_catalogue
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
MAX_MESSAGE = 600
_SEPARATOR = re.compile(r"[\t,\n:]")
_LINE_END = re.compile(rb"\r\n|\r|\n")

INTERESTING = ["①", "²", "¹", "١٢", "1-²", "0", "-1", "99999999999999999999", "9" * 5000, "\x00", '"', '""',
               "\t", "\r", "\r\n", "\n", "\n\n", "#", "# sent_id = x", "=", "-", ".", "1.0", "1-2", "\ufeff",
               "x" * 140_000, "é", "\u2028", "\x1c", "null", "true", "[]", "{}", "[" * 3000, "{\"a\":" * 3000,
               "\"data\"", "\"answers\"", "\"id\"", ",", ";", "_", "B-PER", "I-", "O", "name=B-PER", "ID",
               "-gold", "kenya-en-KE", "x" * 300 + "-en-US", "\x00" * 70_000, "\r\r\n", "\n\r"]
YAML_TOKENS = ["9" * 4301, "1" + "0" * 5000, "\ntask: sa\n", "\nformat: iob\n", "\n  encoding: punycode\n",
               "\u200b", "\u202e", "\u2066", "&a ", "*a", "*b", "!!python/object/apply:os.system ['x']", "!!binary x", "? ", "- ", ": ", "{",
               "[", "%YAML 1.1\n", "---\n", "...\n", "<<: *a\n", "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
               + "".join(f"a{i}: &a{i} [{', '.join(['*a' if i == 1 else f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)),
               "{a: " * 200, "[" * 100_000, "\t", "'", '"', "\\", "@", "`", "|\n", ">\n"]


# ------------------------------------------------------------------------ seeds built from structure
PASSAGE_SEEDS = [  # the reformatted Belebele layout: {"text", "items": [{"question", "answers"}], "metadata"}
    {"text": "the passage", "items": [{"question": "q?", "answers": [{"text": "a", "correct": False},
                                                                      {"text": "b", "correct": True}]}],
     "metadata": {"dataset": "belebele", "extra": {"url": "https://x/1", "language": "eng_Latn"}}},
    {"text": "another", "items": [{"question": "one?", "answers": [{"text": "x", "correct": True}]},
                                  {"question": "two?", "answers": [{"text": "y", "correct": True},
                                                                   {"text": "z", "correct": None}]}]},
]
_TSV = "index_id\tcategory\ttext\n0\thealth\tsleep is good\n1\tsports\tthey won\n"
_CONLLU = "# sent_id = s1\n1\tthe\tthe\tDET\t_\t_\t2\tdet\t_\t_\n2\tcat\tcat\tNOUN\t_\t_\t0\troot\t_\t_\n\n"
_SQUAD = json.dumps({"data": [{"paragraphs": [{"context": "abc def", "qas": [
    {"id": "english-11-0", "question": "?", "answers": [{"text": "def", "answer_start": 4}]}]}]}]})
_SDQA = ",ID,in XOR dev,english-gold,kenya-en-KE,kenya-en-US\n0,11,False,who?,who,who\n"
# issue 37's classes: a text file with its labels in a second, row-aligned CSV; JSON pairs whose text fields
# the mutations make null, lists, numbers; IOB files whose first token is a number, in the column layouts on
# hand (WikiANN space/tab, Johansen "ID FORM LEMMA UPOS TAG")
PAIRS_LABELS_SEEDS = [("premise\thypothesis\nhe ran\the moved\nit rained\tthe sun shone\n",
                       "id,label\nx1,0\nx2,2\n"),
                      ("premise\thypothesis\n1\t2\n\t\n", "label,id\n1,a\n1,a\n")]
PAIRS_JSON_SEEDS = ["".join(json.dumps(r) + "\n" for r in (
    {"premise": "he ran", "hypothesis": "he moved", "label": 0, "id": "a"},
    {"premise": "it rained", "hypothesis": "sun", "label": "2", "id": 7},
    {"premise": "x", "hypothesis": "y", "label": "neutral", "id": "a"}))]
IOB_LAYOUT_SEEDS = ["1999\tCD\tO\nParis\tNNP\tB-LOC\n\n2\tCD\tO\n",
                    "1999 O\nParis B-LOC\n\n",
                    "1\tJohn\tjohn\tPROPN\tB-PER\n2\tran\trun\tVERB\tO\n\n1\tOslo\toslo\tPROPN\tS-GEO\n",
                    "# sent_id = 1\n1\t12\t12\tNUM\tO\n2\tmen\tman\tNOUN\tO\n\n",
                    "1\t2\t3\t4\tO\n3\tx\tx\tX\tO\n\n"]


def _catalogue(task: str, fmt: str, parts: list, options: dict, cluster: str = "anglic") -> dict:
    return {"task": task, "description": "fuzz",
            "varieties": [{"name": "testish (a:north)", "cluster": cluster, "speakers": 10},
                          {"name": "testish (a:south)", "cluster": cluster, "mbert_seen": True}],
            "datasets": {"d": {"name": "d", "licence": "CC0-1.0", "citation": "me"}},
            "entries": [{"variety": v, "dataset": "d", "format": fmt, "options": options,
                         "splits": {"train": parts, "test": parts}} for v in ("testish (a:north)", "testish (a:south)")]}


# name -> (catalogue, data files): one valid catalogue per format, from the schema (data/catalogue/models.py)
CATALOGUE_SEEDS: dict[str, tuple[dict, dict[str, str]]] = {
    "labelled": (_catalogue("tc", "labelled", [{"file": {"path": "t.tsv"}}],
                            {"text_column": "text", "label_column": "category", "id_column": "index_id",
                             "header": True, "where": {"category": ["health", "sports"]},
                             "label_map": {"health": "health"}, "encoding": "utf-8"}), {"t.tsv": _TSV}),
    "conllu": (_catalogue("pos", "conllu", [{"file": {"path": "t.conllu"}}], {"unannotated_heads": True}),
               {"t.conllu": _CONLLU}),
    "iob": (_catalogue("ner", "iob", [{"file": {"path": "t.bio"}, "options": {"tag_column": -1}}], {}),
            {"t.bio": "John B-PER\nsaw O\n\nParis S-LOC\n"}),
    "pairs": (_catalogue("nli", "pairs", [{"file": {"path": "p.tsv"}}],
                         {"premise_column": 0, "hypothesis_column": 1, "label_column": 2, "header": False,
                          "label_map": {"0": "entailment", "1": "neutral", "2": "contradiction"}}),
              {"p.tsv": "a\tb\t0\nc\td\t1\n"}),
    "multiple_choice": (_catalogue("mrc", "multiple_choice", [{"file": {"path": "m.jsonl"}}],
                                   {"layout": "passages"}),
                        {"m.jsonl": "".join(json.dumps(r) + "\n" for r in PASSAGE_SEEDS)}),
    "squad": (_catalogue("eqa", "squad", [{"file": {"path": "q.json"}}], {"check_spans": True}), {"q.json": _SQUAD}),
    "parallel": (_catalogue("mt-dialect", "parallel", [{"files": {"source": {"path": "s.txt"},
                                                                  "reference": {"path": "r.txt"}}}],
                            {"pseudo_reference": False}, cluster="testic"), {"s.txt": "a\nb\n", "r.txt": "x\ny\n"}),
    "sdqa": (_catalogue("eqa", "sdqa", [{"files": {"questions": {"path": "sd/dev/eng/english.dev.csv"},
                                                   "contexts": {"path": "c.json"},
                                                   "metadata": {"path": "sd/dev/eng/kenya/metadata.csv"}}}],
                        {"dialect": "kenya", "asr_locale": "en-KE"}),
             {"sd/dev/eng/english.dev.csv": _SDQA, "c.json": _SQUAD,
              "sd/dev/eng/kenya/metadata.csv": "example_id,user_id,gender,age\n11,u1,female,30\n"}),
}
for _variety in CATALOGUE_SEEDS["parallel"][0]["varieties"]:
    _variety["new_cluster"] = True
CATALOGUE_SEEDS["parallel"][0]["varieties"][0]["representative"] = True


def _schema_keys() -> list[str]:
    """Every key the schema and the readers know: the names a misspelt or misplaced key comes from."""
    from dialectbench.data.catalogue import models
    from dialectbench.data.readers import arguments

    keys = set(user_catalogue.UserVariety.model_fields) | set(user_catalogue.UserTaskCatalogue.model_fields)
    for model in (models.Entry, models.Part, models.FileRef, models.Dataset, models.Derive, models.HFFile):
        keys |= set(model.model_fields)
    for fmt in models.FORMATS:
        keys |= set(arguments.arguments(fmt).options) | set(arguments.arguments(fmt).files)
    return sorted(keys)


CATALOGUE_VALUES = [None, 0, -1, 1.5, True, False, "", "x", [], {}, ["a"], {"a": "b"}, {"a": [1]}, {"a": {"b": 1}},
                    [None], "x" * 300, "../up", "/abs", "a\x00b", "d" * 300 + "/x", "anglik", "anglic", "testic",
                    "english", "standard arabic", "utf8x", "rot13", "latin-1", "utf-16", "passages", "pasages",
                    "punycode", "idna", "utf_7", "unicode_escape", "raw_unicode_escape", "hex", "cp1252", "UTF8",
                    "testish (a:north)\u200b", "testish (a:\u202enorth)", "testish\u2066 (a:north)", 2 ** 70,
                    "questions", "all", "train", "test", "dev", "labelled", "sdqa", "squad", "conllu", "iob",
                    "text", "category", "index_id", "²", 10 ** 30, ",", ";", "", "\t", "\n", '"', "kenya",
                    "english (a:north)", "testish (a:north)", "Testish (A:North)", "en-KE", "t.tsv", "c.json",
                    "sd/dev/eng/english.dev.csv", "english.dev.csv", [0, 1], [-1, 99], {"test": 0.5},
                    [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["deep"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]


def _mutate_catalogue(rng: random.Random, data: dict, keys: list[str]) -> dict:
    """One structural mutation anywhere in the catalogue's data (a deep copy)."""
    data = json.loads(json.dumps(data))
    boxes: list = []

    def walk(v):
        if isinstance(v, (dict, list)):
            boxes.append(v)
            for x in (v.values() if isinstance(v, dict) else v):
                walk(x)
    walk(data)
    box = rng.choice(boxes)
    kind = rng.randrange(6)
    if isinstance(box, dict) and box and kind < 4:
        key = rng.choice(list(box))
        if kind == 0:  # a value of another type, or a near-miss name
            box[key] = rng.choice(CATALOGUE_VALUES)
        elif kind == 1:
            del box[key]
        elif kind == 2:  # a misspelt key: a character dropped, doubled or swapped
            i = rng.randrange(len(key)) if key else 0
            typo = rng.choice([key[:i] + key[i + 1:], key[:i] + key[i:i + 1] * 2 + key[i + 1:],
                               key[:i] + key[i + 1:i + 2] + key[i:i + 1] + key[i + 2:]])
            box[typo] = box.pop(key)
        else:  # a key the schema has elsewhere (misplaced), or a reader option
            box[rng.choice(keys)] = rng.choice(CATALOGUE_VALUES)
    elif isinstance(box, list) and box and kind < 4:
        i = rng.randrange(len(box))
        if kind == 0:
            box[i] = rng.choice(CATALOGUE_VALUES)
        elif kind == 1:
            del box[i]
        else:  # a repeated item: a variety declared twice, an entry listed twice
            box.insert(i, json.loads(json.dumps(box[i])))
    else:  # an option added where the readers take them
        entry = rng.choice(data.get("entries") or [{}]) if isinstance(data.get("entries"), list) else {}
        if isinstance(entry, dict):
            options = entry.setdefault("options", {})
            if isinstance(options, dict):
                options[rng.choice(keys)] = rng.choice(CATALOGUE_VALUES)
    return data


def _catalogue_input(rng: random.Random, name: str) -> list[tuple[str, bytes]]:
    """(relative path, bytes) of the catalogue (my.yaml) and its data files, mutated."""
    data, files = CATALOGUE_SEEDS[name]
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        data = _mutate_catalogue(rng, data, _SCHEMA_KEYS)
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=rng.random() < 0.5,
                          default_flow_style=rng.choice([False, None]))
    for _ in range(rng.choice([0, 0, 1, 2])):
        if rng.random() < 0.5:
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(YAML_TOKENS) + text[at:]
        else:
            text = _mutate_text(rng, text, [])
    out = [("my.yaml", text)]
    for rel, body in files.items():
        if rng.random() < 0.2:
            body = _mutate_text(rng, body, list(files.values()))
        out.append((rel, body))
    encoded = []
    for rel, body in out:
        raw = body.encode("utf-8", errors="surrogatepass")
        if rng.random() < 0.02 and raw:
            at = rng.randrange(len(raw))
            raw = raw[:at] + bytes([rng.randrange(128, 256)]) + raw[at + 1:]
        encoded.append((rel, raw))
    return encoded


_SCHEMA_KEYS: list[str] = []


def _check_problems(folder: Path, problems: list[str]) -> str | None:
    """Why the problems break the `file:line: problem` form (None when they keep it)."""
    yaml_path = f"{folder / 'my.yaml'}:"
    for p in problems:
        if not isinstance(p, str) or "\n" in p or len(p) > MAX_MESSAGE:
            return f"not one short line: {str(p)[:120]!r}"
        if not p.startswith(str(folder)):
            return f"names no file: {p[:120]!r}"
        if p.startswith(yaml_path) and not re.match(r"\d+: ", p[len(yaml_path):]):
            return f"names no line of the catalogue: {p[:120]!r}"
    return None


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
    out["multiple_choice_passages"] = [("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in PASSAGE_SEEDS),)]
    belebele = SHARED / "belebele-eng-reformatted" / "eng_Latn.jsonl"
    if belebele.is_file():
        out["multiple_choice_passages"].append(("\n".join(text(belebele).split("\n")[:2]) + "\n",))
    out["pairs_labels"] = list(PAIRS_LABELS_SEEDS)
    out["pairs_json"] = [(t,) for t in PAIRS_JSON_SEEDS]
    out["iob_layouts"] = [(t,) for t in IOB_LAYOUT_SEEDS]
    out["catalogue"] = [(name,) for name in CATALOGUE_SEEDS]
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
def _run(name: str, folder: Path, data: list[bytes]) -> object:
    """Write the input files and read them to the end with `name`'s reader; what it read."""
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
        "pairs_labels": lambda: list(read_pairs(put("x.tsv", data[0]), labels_path=put("x.csv", data[1]),
                                                id_column="id", label_map=XNLI_LABEL_IDS, labels=None)),
        "pairs_json": lambda: list(read_pairs(put("x.jsonl", data[0]), id_column="id", label_map=XNLI_LABEL_IDS,
                                              labels=None)),
        "iob_layouts": lambda: _iob_checked(list(read_iob(put("x.bio", data[0])))),
        "multiple_choice": lambda: list(read_multiple_choice(put("x.jsonl", data[0]))),
        "multiple_choice_passages": lambda: list(read_multiple_choice(put("x.jsonl", data[0]), layout="passages")),
        "squad": lambda: list(read_squad(put("x.json", data[0]))),
        "parallel": lambda: list(read_parallel(put("x.src", data[0]), put("x.ref", data[1]))),
        "sdqa": lambda: (put("dev/eng/english.dev.csv", data[0]), put("dev/eng/kenya/metadata.csv", data[1]),
                         list(read_sdqa(folder, "eng", "dev")))[2],
    }
    return readers[name]()


class _Escape(Exception):
    """An input read without error but wrongly (counted as an escape)."""


def _iob_checked(sentences: list) -> list:
    """The sentences, after checking what the readers promise of them: unique ids, and no token that is a
    tag (the POS or tag column taken as the tokens)."""
    ids = [s.example_id for s in sentences]
    if len(set(ids)) != len(ids):
        raise _Escape(f"colliding example ids: {ids[:6]}")
    for s in sentences:
        if len(s.tokens) != len(s.tags):
            raise _Escape("tokens and tags differ in number")
    return sentences


def _catalogue(folder: Path, files: list[tuple[str, bytes]]) -> list[str]:
    """Write a catalogue and its data files into a fresh folder and validate it, data read."""
    shutil.rmtree(folder, ignore_errors=True)
    for rel, content in files:
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content)
    return user_catalogue.validate_file(folder / "my.yaml")[1]


def _input(name: str, rng: random.Random, seed: tuple[str, ...], all_seeds: list[tuple[str, ...]]) -> list:
    return _catalogue_input(rng, seed[0]) if name == "catalogue" else _mutated(rng, seed, all_seeds)


def _one(name: str, folder: Path, rng: random.Random, data: list) -> tuple[str, str | None]:
    """(outcome, what broke the rules or None) of one mutated input."""
    if name == "catalogue":
        problems = _catalogue(folder / "c", data)
        return ("named" if problems else "ok"), _check_problems(folder / "c", problems)
    try:
        result = _run(name, folder, data)
        if isinstance(result, list) and result and hasattr(result[0], "example_id"):
            # SD-QA yields one question per dialect under the question's shared id: (id, dialect) is its key
            ids = [(r.example_id, getattr(r, "dialect", None)) for r in result]
            if len(set(ids)) != len(ids):  # issue 37: a "@index" suffix equal to a real id, or repeated id values
                return "ok", f"colliding example ids: {sorted(i for i in ids if ids.count(i) > 1)[:4]}"
    except DataFormatError as err:
        if len(err.problem) > MAX_MESSAGE:
            return "named", f"message of {len(err.problem):,} characters: {err.problem[:120]!r}"
        return ("no_line" if err.line is None else "named"), None if err.path.startswith(str(folder)) \
            else "no_file"
    if rng.random() < 0.25:  # metamorphic: the same input with every line end made CRLF reads the same
        try:
            again = _run(name, folder, [_LINE_END.sub(b"\r\n", d) for d in data])
        except DataFormatError as err:
            again = err
        if again != result:
            return "ok", "reads differently with CRLF line ends"
    return "ok", None



def _work(job: tuple[str, int, int, int]) -> dict:
    name, start, count, seed = job
    all_seeds = seeds()[name]
    _SCHEMA_KEYS[:] = _schema_keys()
    rng = random.Random(seed * 1_000_003 + start)
    tally: Counter = Counter()
    escapes: dict[str, str] = {}
    slowest = (0.0, "")
    base = Path(tempfile.mkdtemp(prefix="fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    warnings.simplefilter("ignore", getattr(errors, "DataWarning", UserWarning))
    try:
        for _ in range(count):
            folder = base  # the same file names every time: overwritten, not re-created
            t0 = time.perf_counter()
            data = _input(name, rng, rng.choice(all_seeds), all_seeds)
            try:
                outcome, broken = _one(name, folder, rng, data)
                if broken == "no_file":
                    tally["no_file"] += 1
                    broken = None
                if outcome == "no_line":
                    tally["no_line"] += 1
                    outcome = "named"
                kind = None if broken is None else broken[:60]
                tally[outcome if broken is None else "escape"] += 1
            except Exception as err:  # noqa: BLE001 - that is what we count
                kind = f"{type(err).__name__}: {str(err)[:80]}"
                broken = traceback.format_exc(limit=-3)
                tally["escape"] += 1
            if kind is not None and kind not in escapes and len(escapes) < 20:
                shown = [d[:300] if isinstance(d, bytes) else (d[0], d[1][:600]) for d in data]
                escapes[kind] = f"{broken}\ninput: {shown!r}"
            spent = time.perf_counter() - t0
            if spent > slowest[0]:
                slowest = (spent, name)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return {"name": name, "tally": tally, "escapes": escapes, "slowest": slowest}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=1_000_000, help="inputs in total, shared by the readers")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=5000)
    parser.add_argument("--only", help="comma-separated readers to fuzz (default: all, and the catalogue)")
    args = parser.parse_args()
    available = {k: v for k, v in seeds().items() if not args.only or k in args.only.split(",")}
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
    print(f"{'reader':24} {'inputs':>9} {'ok':>8} {'named':>9} {'no line':>8} {'no file':>8} {'escapes':>8}"
          f" {'slowest':>9}")
    grand = Counter()
    for name, t in totals.items():
        n = t["ok"] + t["named"] + t["escape"]
        grand.update(t)
        grand["inputs"] += n
        print(f"{name:24} {n:9,} {t['ok']:8,} {t['named']:9,} {t['no_line']:8,} {t['no_file']:8,} "
              f"{t['escape']:8,} {slowest[name][0]:8.3f}s")
    print(f"{'total':24} {grand['inputs']:9,} {grand['ok']:8,} {grand['named']:9,} {grand['no_line']:8,} "
          f"{grand['no_file']:8,} {grand['escape']:8,}   in {elapsed:.0f} s with {args.workers} worker(s), "
          f"{grand['inputs'] / elapsed:,.0f} inputs/s")
    for name, found in escapes.items():
        for kind, detail in found.items():
            print(f"\nESCAPE in {name}: {kind}\n{detail}", file=sys.stderr)
    return 1 if grand["escape"] else 0


if __name__ == "__main__":
    sys.exit(main())
