"""The dataset catalogue: every file validates, covers Table 8, and uses canonical registry names."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml

from dialectbench.data import DataNotAvailable, open_source
from dialectbench.data.catalogue import (
    TASK_IDS,
    CatalogueError,
    TaskCatalogue,
    catalogue_files,
    load_catalogue,
    load_catalogue_file,
)
from dialectbench.data.source import DataSource
from dialectbench.varieties import registry


@pytest.mark.parametrize("task", TASK_IDS)
def test_catalogue_validates_and_names_are_canonical(task):
    cat = load_catalogue(task)
    reg = registry()
    assert cat.task == task and cat.entries
    for e in cat.entries:
        variety = reg.get(e.variety)
        assert variety.name == e.variety, f"{task}: {e.variety!r} is not the canonical name"
        assert task in variety.tasks, f"{task}: {e.variety} does not have {task} in Table 8"


@pytest.mark.parametrize("task", TASK_IDS)
def test_catalogue_covers_every_table8_variety_of_the_task(task):
    listed = {e.variety for e in load_catalogue(task).entries}
    expected = {v.name for v in registry().varieties(task=task)}
    assert listed == expected


def test_private_datasets_say_how_to_obtain_them():
    private = [(t, d) for t in TASK_IDS for d in load_catalogue(t).datasets.values() if not d.public]
    assert any("MADAR" in d.name for _, d in private)
    assert all(d.obtain and len(d.obtain) > 20 for _, d in private)


def test_every_dataset_has_licence_and_citation():
    for t in TASK_IDS:
        for d in load_catalogue(t).datasets.values():
            assert d.licence.strip() and d.citation.strip(), d.name


def test_unknown_keys_are_rejected(tmp_path):
    data = yaml.safe_load(catalogue_files()["sa"].read_text(encoding="utf-8"))
    data["entries"][0]["splits_typo"] = {}
    bad = tmp_path / "sa.yaml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(CatalogueError, match="splits_typo"):
        load_catalogue_file(bad)


def test_a_file_reference_must_be_relative(tmp_path):
    data = yaml.safe_load(catalogue_files()["tc"].read_text(encoding="utf-8"))
    data["entries"][0]["splits"]["test"][0]["file"]["path"] = "../../etc/passwd"
    bad = tmp_path / "tc.yaml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(CatalogueError, match="relative path"):
        load_catalogue_file(bad)


def test_hf_sources_are_pinned_or_say_why_not():
    for t in TASK_IDS:
        for e in load_catalogue(t).entries:
            for parts in e.splits.values():
                for p in parts:
                    for ref in p.file_args().values():
                        if ref.hf and not ref.hf.pinned:
                            assert e.note and "not pinned" in e.note, (t, e.variety)
    belebele = load_catalogue("mrc").entry("egyptian arabic").splits["test"][0].file.hf
    assert belebele.pinned and belebele.file == "data/arz_Arab.jsonl"
    # English is the re-formatted GitHub copy the mirror has (one passage per line), read as such
    english = load_catalogue("mrc").entry("english").splits["test"][0]
    assert english.file.url and english.options == {"layout": "passages"}


def _tiny_catalogue(tmp_path: Path, n: int = 200) -> DataSource:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "all.tsv").write_text("".join(f"text {i}\t{'ab'[i % 2]}\n" for i in range(n)), "utf-8")
    data = {"task": "sa", "description": "t", "datasets": {"x": {"name": "X", "licence": "CC0", "citation": "c"}},
            "entries": [{"variety": "standard arabic", "dataset": "x", "format": "labelled",
                         "splits": {"all": [{"file": {"path": "d/all.tsv"}}]},
                         "derive": {"test": 0.3, "dev": 0.1, "seed": 0}, "label_map": {"a": "positive"}}]}
    (tmp_path / "sa.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    return DataSource(tmp_path, {"sa": load_catalogue_file(tmp_path / "sa.yaml")}, kind="mirror")


def test_derived_splits_partition_the_data_deterministically(tmp_path):
    src = _tiny_catalogue(tmp_path)
    assert src.splits("sa", "standard arabic") == {"train", "dev", "test"}
    parts = {s: [ex.example_id for ex in src.load("sa", "standard arabic", s)] for s in ("train", "dev", "test")}
    ids = [i for v in parts.values() for i in v]
    assert len(ids) == len(set(ids)) == 200
    assert 40 <= len(parts["test"]) <= 80 and len(parts["dev"]) < len(parts["train"])
    assert parts == {s: [ex.example_id for ex in src.load("sa", "standard arabic", s)] for s in parts}
    labels = {ex.label for ex in src.load("sa", "standard arabic", "train")}
    assert labels == {"positive", "b"}  # label_map applied, unmapped labels kept


def test_fingerprint_tracks_bytes_and_split(tmp_path):
    src = _tiny_catalogue(tmp_path)
    before = src.fingerprint("sa", "standard arabic", "train")
    assert before != src.fingerprint("sa", "standard arabic", "test")
    f = tmp_path / "d" / "all.tsv"
    f.write_text(f.read_text("utf-8") + "one more\ta\n", "utf-8")
    assert src.fingerprint("sa", "standard arabic", "train") != before


def test_missing_file_message_names_dataset_and_remedy(tmp_path):
    src = open_source(tmp_path)
    with pytest.raises(DataNotAvailable) as err:
        src.load("tc", "english", "test")
    text = str(err.value)
    assert "SIB-200" in text and "sib-200/annotated/eng_Latn/test.tsv" in text
    assert "https://raw.githubusercontent.com/dadelani/sib-200/" in text
    assert src.varieties("tc") == []


def test_mirror_files_match_the_pinned_sha256(shared_data):
    checked = 0
    for task in ("tc", "sa", "ner", "mt-dialect"):
        for e in load_catalogue(task).entries[:12]:
            for parts in e.splits.values():
                for ref in (r for p in parts for r in p.file_args().values()):
                    local = shared_data / ref.path
                    if ref.sha256 and local.is_file():
                        assert hashlib.sha256(local.read_bytes()).hexdigest() == ref.sha256, ref.path
                        checked += 1
    assert checked > 20


def test_packaged_catalogue_is_exactly_what_the_generator_writes(shared_data, tmp_path):
    """The shipped YAMLs cannot drift from _generate.py: generate from the mirror (it reads file names and
    sha256 digests there) into a temporary folder and compare every byte, and that no file is missing or
    left over."""
    from dialectbench.data.catalogue import _generate

    counts = _generate.write(tmp_path, shared_data)
    assert sorted(counts) == sorted(TASK_IDS)
    shipped = {p.name: p.read_bytes() for p in catalogue_files()["dep"].parent.glob("*.yaml")}
    built = {p.name: p.read_bytes() for p in tmp_path.glob("*.yaml")}
    assert sorted(built) == sorted(shipped)
    assert [name for name in built if built[name] != shipped[name]] == []


def test_mirror_sources_load_with_their_stated_counts(shared_data):
    src = open_source(shared_data)
    assert len(src.load("tc", "english", "train")) == 701  # SIB-200 SOURCE.txt: 701/99/204
    assert len(src.load("tc", "latvian", "test")) == 204
    assert len(src.load("ner", "adyghe", "test")) == 693  # wikiann-og SOURCE.txt: ady 693 sentences
    assert len(src.load("mt-dialect", "kazakh", "test")) == 700  # TIL-MT en-kk: 700 lines
    dsl = src.load("did", "english (a:uk)", "test")  # DSL-TL EN_dev: 599 rows, labels renamed
    assert len(dsl) == 599 and {ex.label for ex in dsl} == {"english (a:uk)", "north american english", "english"}
    tsac = src.load("sa", "tunisian arabic", "train")
    nonblank = sum(1 for f in ("train_pos.txt", "train_neg.txt")
                   for line in (shared_data / "tsac" / f).read_text("utf-8").splitlines() if line.strip())
    assert len(tsac) == nonblank and nonblank > 13000  # 7154 + 6515 lines, a few of them blank
    assert {ex.label for ex in tsac} == {"positive", "negative"}


def test_files_fetched_into_the_cache_complete_a_mirror(tmp_path, monkeypatch):
    monkeypatch.setenv("DIALECTBENCH_CACHE", str(tmp_path / "cache"))
    cached = tmp_path / "cache" / "files" / "sib-200" / "annotated" / "eng_Latn" / "test.tsv"
    cached.parent.mkdir(parents=True)
    cached.write_text("index_id\tcategory\ttext\n1\tsports\tThe team won.\n", encoding="utf-8")
    (tmp_path / "mirror").mkdir()
    src = open_source(tmp_path / "mirror")
    assert src.varieties("tc") == ["english"] and src.splits("tc", "english") == {"test"}
    assert src.split_status("tc", "english", "test") == "cached"
    assert src.split_status("tc", "english", "train") == "remote"
    assert [ex.label for ex in src.load("tc", "english", "test")] == ["sports"]


def test_sdqa_transcripts_join_their_tydi_passages(tmp_path):
    eng = tmp_path / "sd-qa" / "dev" / "eng"
    (eng / "kenya").mkdir(parents=True)
    (eng / "english.dev.csv").write_text(
        ",ID,in XOR dev,english-gold,kenya-en-KE,kenya-en-US\n"
        "0,-42,False,Where is the river?,where is d river,where is the liver\n"
        "1,77,False,Who built it?,who build it,who built it\n", encoding="utf-8")
    (eng / "kenya" / "metadata.csv").write_text(
        ",example_id,user_id,region,language,gender,age,device,lang_spoken,mother_tongue,audio_file\n"
        "0,-42,u1,kenya,eng,female,30,ios,n/a,swa,a.wav\n", encoding="utf-8")
    tydi = tmp_path / "tydiqa" / "tydiqa-goldp-v1.1-dev.json"
    tydi.parent.mkdir()
    context = "The river runs past the old mill."
    tydi.write_text(json.dumps({"data": [{"paragraphs": [{"context": context, "qas": [
        {"id": "english--42-0", "question": "Where is the river?",
         "answers": [{"text": "past the old mill", "answer_start": context.index("past")}]}]}]}]}),
        encoding="utf-8")
    # the packaged catalogue reads DialectBench's gold-passage files; the join stays for a mirror without them
    sdqa = {"task": "eqa", "description": "d", "datasets": {"sd-qa": {"name": "SD-QA", "licence": "x",
                                                                      "citation": "c"}},
            "entries": [{"variety": "kenyan english", "dataset": "sd-qa", "format": "sdqa",
                         "options": {"dialect": "kenya", "asr_locale": "en-KE"},
                         "splits": {"dev": [{"files": {
                             "questions": {"path": "sd-qa/dev/eng/english.dev.csv"},
                             "metadata": {"path": "sd-qa/dev/eng/kenya/metadata.csv"},
                             "contexts": {"path": "tydiqa/tydiqa-goldp-v1.1-dev.json"}}}]}}]}
    src = DataSource(tmp_path, {"eqa": TaskCatalogue.model_validate(sdqa)}, kind="mirror")
    (ex,) = src.load("eqa", "kenyan english", "dev")
    assert ex.question == "where is d river"  # the localized (en-KE) transcript
    assert ex.context == context and ex.answers == ("past the old mill",)
    assert ex.example_id == "-42:kenya"


def test_every_mirrored_dataset_reads_with_its_catalogue_options(shared_data):
    src = open_source(shared_data)
    read = set()
    for task in TASK_IDS:
        for e in src.entries(task):
            splits = src.splits(task, e.variety)
            if (task, e.dataset) in read or not splits:
                continue
            split = "test" if "test" in splits else min(splits)
            examples = src.load(task, e.variety, split)
            assert examples, (task, e.variety, split)
            read.add((task, e.dataset))
    expected = {("sa", d) for d in ("tsac", "tunizi", "astd", "mac", "ajgt", "saudibank")} | {
        ("did", d) for d in ("dsl-tl", "dmt", "greek", "gdi")} | {("ner", "wikiann-og"), ("ner", "norwegian-ner")}
    assert expected <= read
