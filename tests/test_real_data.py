"""The readers on the real public data in ../shared/data (skipped when absent).

Expected counts come from the data's own documentation: ud/INDEX.tsv (sentences; surface tokens, where a
multiword token counts once; syntactic words) and each folder's SOURCE.txt. Where SOURCE.txt gives `wc -l`
line counts and a file's last line has no newline, that file holds one more line than stated; the tests
add it explicitly (`_wc_lines`).
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

import pytest

from dialectbench.data.readers import (
    conllu_stats,
    read_conllu,
    read_iob,
    read_labelled,
    read_parallel,
    read_sdqa,
    sdqa_dialects,
)

SPLITS = ("train", "dev", "test")


def _wc_lines(path: Path) -> int:
    """Lines as `wc -l` counts them (newline characters)."""
    return path.read_bytes().count(b"\n")


def _unterminated(path: Path) -> int:
    """1 when the file's last line has no newline (wc -l does not count it), else 0."""
    data = path.read_bytes()
    return int(bool(data) and not data.endswith(b"\n"))


# --- Universal Dependencies ------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def ud_index(shared_data) -> list[dict[str, str]]:
    with open(shared_data / "ud" / "INDEX.tsv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


@pytest.fixture(scope="session")
def ud_files(shared_data, ud_index) -> dict[tuple[str, str], Path]:
    files = {}
    for row in ud_index:
        for path in (shared_data / "ud" / row["name"]).glob("*.conllu"):
            split = path.stem.rsplit("-", 1)[1]
            files[(row["name"], split)] = path
    return files


def test_ud_files_on_disk_match_index(ud_index, ud_files):
    for row in ud_index:
        present = {split for (name, split) in ud_files if name == row["name"]}
        stated = set() if row["files_present"] == "none" else set(row["files_present"].split(","))
        assert present == stated, row["name"]


def test_every_ud_treebank_parses_with_index_counts(ud_index, ud_files):
    """read_conllu gives INDEX's sentences and words; the same parser's token count gives its tokens."""
    wrong = []
    for row in ud_index:
        for split in SPLITS:
            path = ud_files.get((row["name"], split))
            if path is None:
                continue
            sentences = list(read_conllu(path))
            got = (len(sentences), conllu_stats(path).tokens, sum(len(s.words) for s in sentences))
            want = tuple(int(row[f"{kind}_{split}"]) for kind in ("sents", "tokens", "words"))
            if got != want:
                wrong.append(f"{path.name}: got {got}, INDEX {want}")
            assert len({s.example_id for s in sentences}) == len(sentences), path
    assert not wrong, wrong
    assert len(ud_files) >= 60  # the snapshot has 66 files; guards against a silently empty glob


# --- NER -------------------------------------------------------------------------------------------------

def test_wikiann_sentence_and_token_counts(shared_data):
    folder = shared_data / "wikiann-og"
    stated = {code: (int(s), int(t)) for code, s, t in
              re.findall(r"([a-z-]+) (\d+)/(\d+)", (folder / "SOURCE.txt").read_text(encoding="utf-8"))}
    assert len(stated) == 24
    for code, want in stated.items():
        sentences = list(read_iob(folder / f"wikiann-{code}.bio"))
        assert (len(sentences), sum(len(s.tokens) for s in sentences)) == want, code
        assert {t for s in sentences for t in s.tags} <= {"O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC",
                                                         "I-LOC"}


@pytest.mark.parametrize(("variant", "counts"), [("bokmaal", (2410, 1939)), ("nynorsk", (1890, 1511)),
                                                 ("samnorsk", (4300, 3450))])
def test_norwegian_ner_johansen(shared_data, variant, counts):
    folder = shared_data / "norwegian-ner-johansen" / variant
    tags = Counter()
    for split, want in zip(("dev", "test"), counts):
        sentences = list(read_iob(folder / f"no_{variant}-ud-{split}.bioes"))
        assert len(sentences) == want
        assert len({s.example_id for s in sentences}) == want  # samnorsk repeats sent_ids: ids stay unique
        tags.update(t for s in sentences for t in s.tags)
    assert {t.split("-", 1)[-1] for t in tags if t != "O"} == {"PRS", "ORG", "GEO", "OTH"}  # kept as is


def test_norne_from_misc(shared_data):
    stated = {("nob", "no_bokmaal", "dev"): 2410, ("nob", "no_bokmaal", "test"): 1939,
              ("nno", "no_nynorsk", "dev"): 1890, ("nno", "no_nynorsk", "test"): 1511}
    for (folder, stem, split), want in stated.items():
        path = shared_data / "norne" / folder / f"{stem}-ud-{split}.conllu"
        sentences = list(read_iob(path, misc_key="name"))
        assert len(sentences) == want
        assert [len(s.tokens) for s in sentences] == [len(s.words) for s in read_conllu(path)]
        assert any(t.endswith("GPE_LOC") for s in sentences for t in s.tags)


# --- SD-QA -----------------------------------------------------------------------------------------------

def _recorded(metadata: Path) -> set[str]:
    with open(metadata, encoding="utf-8", newline="") as handle:
        return {row["example_id"] for row in csv.DictReader(handle)}


def test_sdqa_english_dev(shared_data):
    root = shared_data / "sd-qa"
    folder = root / "dev" / "eng"
    with open(folder / "english.dev.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    gold = {row["ID"]: row["english-gold"] for row in rows}
    models = {}
    for column in rows[0]:
        if column.count("-") >= 2:
            dialect, model = column.split("-", 1)
            models.setdefault(dialect, set()).add(model)
    items = list(read_sdqa(root, "eng", "dev"))
    assert set(sdqa_dialects(root)) == set(models) and len(models) == 11
    per_dialect = Counter(q.dialect for q in items)
    assert len({(q.example_id, q.dialect) for q in items}) == len(items)  # one item per example and dialect
    for dialect in models:
        assert per_dialect[dialect] == len(_recorded(folder / dialect / "metadata.csv")), dialect
    assert per_dialect["kenya"] == 972 and per_dialect["usa"] == 1000  # SD-QA paper, Table 6
    for q in items:
        assert q.question == gold[q.example_id]
        assert set(q.transcripts) == models[q.dialect]  # one transcript per ASR model of the dialect
        assert q.speaker_gender in {"female", "male", "unspecified"} and q.speaker_id
    usa = next(q for q in items if q.dialect == "usa")
    assert usa.transcripts["en-US"]


# --- labelled text ---------------------------------------------------------------------------------------

def _labels(examples) -> Counter:
    return Counter(e.label for e in examples)


def test_ajgt(shared_data):
    examples = list(read_labelled(shared_data / "ajgt" / "AJGT.tsv", header=True, text_column="Feed",
                                  label_column="Sentiment", id_column="ID"))
    assert _labels(examples) == {"Positive": 900, "Negative": 900}
    assert len({e.example_id for e in examples}) == 1800


def test_astd_tweets_and_index_splits(shared_data):
    folder = shared_data / "astd"
    tweets = list(read_labelled(folder / "Tweets.txt"))
    assert _labels(tweets) == {"OBJ": 6691, "NEG": 1684, "NEUTRAL": 832, "POS": 799}
    stated = {"unbalanced-train": 6007, "unbalanced-validation": 1998, "unbalanced-test": 1998,
              "balanced-train": 1923, "balanced-validation": 635, "balanced-test": 635}
    for name, lines in stated.items():
        index_file = folder / f"4class-{name}.txt"
        split = list(read_labelled(folder / "Tweets.txt", subset=index_file))
        assert len(split) == lines + _unterminated(index_file), name
    balanced = _labels(read_labelled(folder / "Tweets.txt", subset=folder / "4class-balanced-train.txt"))
    assert len(set(balanced.values())) == 1  # balanced: the same count per class


def test_dsl_tl(shared_data):
    folder = shared_data / "dsl-tl"
    stated = {"EN_train": 2097, "EN_dev": 599, "ES_train": 3467, "ES_dev": 989, "PT_train": 3467, "PT_dev": 991}
    for stem, rows in stated.items():
        examples = list(read_labelled(folder / f"{stem}.tsv", text_column=1, id_column=0))
        assert len(examples) == rows and {e.label.split("-")[0] for e in examples} == {stem[:2]}
    assert _labels(read_labelled(folder / "EN_train.tsv", text_column=1)) == {"EN-US": 1069, "EN-GB": 755,
                                                                             "EN": 273}
    test = list(read_labelled(folder / "DSL-TL-test.tsv", delimiter=None, label_column=None))
    assert len(test) == 1290


def test_gdi(shared_data):
    examples = read_labelled(shared_data / "gdi-vardial2017" / "GDI-TRAIN.txt")
    assert _labels(examples) == {"BE": 3889, "BS": 3411, "LU": 3214, "ZH": 3964}


def test_greek_cg_smg_label_by_file(shared_data):
    stated = {"cg_fb": 83, "cg_other": 194, "cg_twitter": 152, "smg_fb": 41, "smg_other": 74, "smg_twitter": 204}
    for stem, rows in stated.items():
        label = stem.split("_")[0].upper()
        examples = list(read_labelled(shared_data / "greek-dialect-cg-smg" / f"{stem}.txt", delimiter=None,
                                      label=label))
        assert len(examples) == rows and _labels(examples) == {label: rows}


def test_mac(shared_data):
    path = shared_data / "mac" / "MAC_corpus.csv"
    options = {"delimiter": ",", "header": True, "text_column": "tweets", "label_column": "type"}
    assert _labels(read_labelled(path, **options)) == {"positive": 9897, "neutral": 4039, "negative": 3508,
                                                       "mixed": 643}
    by_class = {c: len(list(read_labelled(path, where={"class": c}, **options)))
                for c in ("standard", "dialectal", "diatectal")}
    assert by_class == {"standard": 12611, "dialectal": 5464, "diatectal": 12}


def test_saudi_bank(shared_data):
    examples = read_labelled(shared_data / "saudi-bank-sentiment" / "data_Saudi_banks.tsv", header=True,
                             text_column="Tweet", label_column="Final annotation", labels={"POS", "NEG", "NEU"})
    assert _labels(examples) == {"NEG": 8669, "POS": 2143, "NEU": 1236}


def test_sib200_every_language(shared_data):
    root = shared_data / "sib-200" / "annotated"
    languages = sorted(p for p in root.iterdir() if p.is_dir())
    assert len(languages) == 39
    reference = {}
    for folder in languages:
        allowed = set((folder / "labels.txt").read_text(encoding="utf-8").split("\n")) - {""}
        for split, rows in (("train", 701), ("dev", 99), ("test", 204)):
            examples = list(read_labelled(folder / f"{split}.tsv", header=True, text_column="text",
                                          label_column="category", id_column="index_id", labels=allowed))
            assert len(examples) == rows, (folder.name, split)
            ids = [(e.example_id, e.label) for e in examples]
            assert reference.setdefault(split, ids) == ids  # parallel: same index_id/category rows


def test_tsac(shared_data):
    stated = {"train_pos": 7154, "train_neg": 6515, "test_pos": 1700, "test_neg": 1700}
    for stem, rows in stated.items():
        path = shared_data / "tsac" / f"{stem}.txt"
        label = "positive" if stem.endswith("pos") else "negative"
        assert len(list(read_labelled(path, delimiter=None, label=label, keep_empty=True))) == rows
        blank = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if not line.strip())
        assert len(list(read_labelled(path, delimiter=None, label=label))) == rows - blank


def test_tunizi(shared_data):
    examples = read_labelled(shared_data / "tunizi" / "TUNIZI_V1.txt", delimiter=";", split_last=True,
                             label_map={"1": "positive", "-1": "negative"})
    assert _labels(examples) == {"positive": 4838, "negative": 4372}


@pytest.mark.parametrize("script", ["simplified", "traditional"])
def test_dmt_mandarin(shared_data, script):
    folder = shared_data / "dmt-mandarin-vardial2019" / script
    assert _labels(read_labelled(folder / "train.txt")) == {"M": 9385, "T": 9385}
    assert _labels(read_labelled(folder / "dev.txt")) == {"M": 1000, "T": 1000}
    assert len(list(read_labelled(folder / "test_unlabeled.txt", delimiter=None, label_column=None))) == 2000


# --- parallel text ---------------------------------------------------------------------------------------

TIL_ROWS = {"az-en": 600, "az-tr": 500, "ba-en": 1000, "ba-ru": 1000, "en-az": 600, "en-ba": 1000, "en-kaa": 300,
            "en-kk": 700, "en-ky": 500, "en-sah": 300, "en-tr": 700}


def test_til_mt_directions(shared_data):
    for direction, rows in TIL_ROWS.items():
        src, tgt = direction.split("-")
        folder = shared_data / "til-mt-xwmt" / "test" / direction
        pairs = list(read_parallel(folder / f"{direction}.{src}", folder / f"{direction}.{tgt}", keep_empty=True))
        assert len(pairs) == rows, direction
        assert sum(1 for p in pairs if p.source and p.reference) >= rows - 2


# (folder, lines per file as SOURCE.txt states, the file every variety is paired with)
CODET = {"Aranese": (476, "Reference.eng"), "Basque": (370, "Reference.eng"), "Bengali": (199, "Reference.eng"),
         "Farsi": (3071, "Reference.eng"), "French": (378, "Standard.fra"), "German": (5, "Standard.deu"),
         "Greek": (31, "Standard.ell"), "Griko": (970, "Standard.ita"), "Italian": (792, "Standard.ita"),
         "Kurdish": (300, "Reference.eng"), "Norwegian": (4, "Standard.nno"), "Swahili": (1919, "Reference.eng"),
         "Tigrinya": (3071, "Reference.eng"), "Yoruba": (24, "Reference.eng"), "Arabic": (12000, "Standard.arb")}


def test_codet_folders_are_line_aligned(shared_data):
    for name, (lines, partner) in CODET.items():
        folder = shared_data / "codet" / name
        files = sorted(p for p in folder.iterdir() if p.name != partner)
        assert files, name
        for path in files:
            pairs = list(read_parallel(path, folder / partner, keep_empty=True))
            assert len(pairs) == lines + _unterminated(path) == _wc_lines(path) + _unterminated(path), path


def test_codet_arabic_partial_cities_have_2000_sentences(shared_data):
    folder = shared_data / "codet" / "Arabic"
    full = {"Beirut", "Cairo", "Doha", "Rabat", "Tunis"}
    for path in sorted(folder.glob("*.arb")):
        if path.stem == "Standard":
            continue
        pairs = list(read_parallel(path, folder / "Standard.arb", pseudo_reference=True))
        assert len(pairs) == (12000 if path.stem in full else 2000), path.stem


def test_codet_swiss_german_locality_pairs(shared_data):
    folder = shared_data / "codet" / "Swiss_German"
    dialect_files = sorted(p for p in folder.glob("*.deu") if not p.stem.endswith("_standard"))
    assert len(dialect_files) == 368
    sizes = Counter()
    for path in dialect_files:
        pairs = list(read_parallel(path, folder / f"{path.stem}_standard.deu", keep_empty=True))
        assert len(pairs) == _wc_lines(path) + _unterminated(path), path.name
        sizes[109 <= len(pairs) <= 126] += 1
    # SOURCE.txt says "~109-126 lines each"; three localities (e.g. Bibern,SO) hold a single sentence
    assert sizes[False] <= 3


def test_norwegian_ner_reaches_a_run_as_iob2_over_the_declared_types(shared_data):
    """Through the catalogue, Johansen's BIOES PRS/GEO/OTH become IOB2 PER/LOC/MISC (ORG kept), and each
    entity keeps its extent: as many entities (B- tags) as the file's S- and B- tags."""
    from dialectbench.data.source import catalogue_source

    raw = list(read_iob(shared_data / "norwegian-ner-johansen" / "bokmaal" / "no_bokmaal-ud-test.bioes"))
    read = catalogue_source(shared_data).load("ner", "norwegian bokmål (m:written)", "test")
    tags = Counter(t for s in read for t in s.tags)
    assert {t.split("-", 1)[-1] for t in tags if t != "O"} == {"PER", "ORG", "LOC", "MISC"}
    assert not {t for t in tags if t[:2] in ("S-", "E-")}
    starts = sum(t[:2] in ("S-", "B-") for s in raw for t in s.tags)
    assert sum(n for t, n in tags.items() if t.startswith("B-")) == starts
    assert [s.tokens for s in read] == [s.tokens for s in raw]
