"""The bundled sample suite: every task, two clusters of two varieties, representatives, English sources."""

from __future__ import annotations

import dataclasses
from collections import defaultdict

import pytest

from dialectbench.data import open_source, sample_dir
from dialectbench.data.catalogue import TASK_IDS
from dialectbench.data.examples import (
    MultipleChoiceExample,
    PairExample,
    QAExample,
    Sentence,
    TaggedSentence,
    TextExample,
    TranslationExample,
)
from dialectbench.tasks import get_task, representatives
from dialectbench.varieties import registry

EXAMPLE_TYPE = {"dep": Sentence, "pos": Sentence, "ner": TaggedSentence, "did": TextExample, "sa": TextExample,
                "tc": TextExample, "nli": PairExample, "mrc": MultipleChoiceExample, "eqa": QAExample,
                "mt-dialect": TranslationExample, "mt-region": TranslationExample}
ZERO_SHOT_TRAINED = [t for t in TASK_IDS if "zero-shot" in get_task(t).settings and not t.startswith("mt")]


@pytest.fixture(scope="module", autouse=True)
def _no_env_mirror():
    """open_source() falls back to $DIALECTBENCH_DATA; these tests are about the bundled suite."""
    mp = pytest.MonkeyPatch()
    mp.delenv("DIALECTBENCH_DATA", raising=False)
    yield
    mp.undo()


@pytest.fixture(scope="module")
def src():
    return open_source()


def test_sample_suite_is_under_two_megabytes():
    size = sum(p.stat().st_size for p in sample_dir().rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    assert 0 < size < 2 * 1024 * 1024


@pytest.mark.parametrize("task", TASK_IDS)
def test_every_task_loads_with_typed_examples(src, task):
    varieties = src.varieties(task)
    assert varieties
    for v in varieties:
        assert src.splits(task, v), v
        for split in src.splits(task, v):
            examples = src.load(task, v, split)
            assert examples and all(isinstance(ex, EXAMPLE_TYPE[task]) for ex in examples)
            assert len({ex.example_id for ex in examples}) == len(examples), (v, split)


@pytest.mark.parametrize("task", TASK_IDS)
def test_two_clusters_of_two_varieties_with_canonical_names(src, task):
    reg = registry()
    by_cluster = defaultdict(set)
    for v in src.varieties(task):
        assert reg.get(v).name == v
        by_cluster[reg.get(v).cluster].add(v)
    assert sum(1 for members in by_cluster.values() if len(members) >= 2) >= 2, dict(by_cluster)


@pytest.mark.parametrize("task", TASK_IDS)
def test_representatives_are_present_with_test_data(src, task):
    reg = registry()
    clusters = {reg.get(v).cluster for v in src.varieties(task)}
    reps = {r.cluster: r.variety.name for r in representatives(task) if r.cluster in clusters}
    assert reps, f"{task}: no cluster of the sample has a Table 9 representative"
    for cluster, rep in reps.items():
        assert rep in src.varieties(task), f"{task}/{cluster}: representative {rep} missing"
        assert "test" in src.splits(task, rep)


@pytest.mark.parametrize("task", ZERO_SHOT_TRAINED)
def test_english_source_for_zero_shot(src, task):
    assert {"train", "dev", "test"} <= src.splits(task, "english")
    assert len(src.load(task, "english", "train")) >= 16


@pytest.mark.parametrize("task", ["dep", "pos", "ner"])
def test_structured_english_training_size(src, task):
    assert 60 <= len(src.load(task, "english", "train")) <= 150


def test_classification_has_a_few_dozen_per_class(src):
    for task, variety in (("did", "english (a:uk)"), ("sa", "standard arabic"), ("tc", "english"),
                          ("nli", "english")):
        counts = defaultdict(int)
        for ex in src.load(task, variety, "train"):
            counts[ex.label] += 1
        assert len(counts) >= 2 and min(counts.values()) >= 15, (task, dict(counts))


def test_did_labels_are_the_variety_names_of_the_shared_dataset(src):
    labels = {ex.label for ex in src.load("did", "brazilian portuguese", "test")}
    assert labels == {"brazilian portuguese", "portuguese (a:european)"}
    fp = src.fingerprint("did", "brazilian portuguese", "train")
    assert fp == src.fingerprint("did", "portuguese (a:european)", "train")  # one model per dataset


def test_parse_trees_are_well_formed(src):
    for v in src.varieties("dep"):
        for split in src.splits("dep", v):
            for s in src.load("dep", v, split):
                assert s.heads.count(0) == 1 and all(0 <= h <= len(s.words) for h in s.heads)


def test_mt_dialect_uses_pseudo_references_except_x_wmt(src):
    assert all(ex.pseudo_reference for ex in src.load("mt-dialect", "gulf arabic (a:riy)", "test"))
    assert not any(ex.pseudo_reference for ex in src.load("mt-dialect", "kazakh", "test"))
    zh = src.load("mt-region", "central alemannic (a:zh)", "test")
    assert len({ex.example_id.split(":")[0] for ex in zh}) == 2  # two localities aggregated into the region


def test_fingerprints_are_stable_and_distinct(src):
    a = src.fingerprint("pos", "english", "train")
    assert a == open_source().fingerprint("pos", "english", "train")
    assert a != src.fingerprint("pos", "english", "test")
    assert a != src.fingerprint("ner", "english", "train")


def test_eqa_answers_are_spans_of_their_context(src):
    for v in src.varieties("eqa"):
        for ex in src.load("eqa", v, "test"):
            assert all(ex.context[s:s + len(a)] == a for a, s in zip(ex.answers, ex.answer_starts))
            assert dataclasses.asdict(ex)["question"]


def _audit_rows() -> list[dict]:
    import json

    from typer.testing import CliRunner

    from dialectbench.cli.main import app

    result = CliRunner().invoke(app, ["data", "audit", "--format", "json"])  # no --data-dir: the sample suite
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_no_test_set_shares_a_text_with_any_training_or_dev_set():
    """`data audit` of the bundled suite: no test set of any task shares a countable text with a train or dev
    set of that task (any variety: zero-shot and in-cluster jobs train on other varieties' sets), and no
    split of a task that trains repeats a text (so dev shares none with train either, _build.py draws them
    from one pool). The one repeat left is real: two Zürich localities write one sentence alike (MT, no
    training)."""
    rows = _audit_rows()
    overlaps = [r for r in rows if r["kind"] == "overlap"]
    assert overlaps == [], "\n".join(f"{r['task']} {r['variety']} test / {r['other']} {r['other_split']}: "
                                     f"{r['shared']} of {r['n']}" for r in overlaps)
    assert [(r["task"], r["variety"], r["split"]) for r in rows if r["kind"] == "duplicates"] == [
        ("mt-region", "central alemannic (a:zh)", "test")]


def test_dev_sets_share_no_text_with_training_sets(src):
    from dialectbench.data.overlap import text_set

    for task in TASK_IDS:
        trains = {v: text_set(src.load(task, v, "train")) for v in src.varieties(task)
                  if "train" in src.splits(task, v)}
        for v in src.varieties(task):
            if "dev" in src.splits(task, v):
                dev = text_set(src.load(task, v, "dev"))
                assert dev and all(not dev & seen for seen in trains.values()), (task, v)


@pytest.mark.parametrize("task", [t for t in TASK_IDS if not t.startswith("mt")])
def test_every_test_text_of_a_trained_variety_has_a_word_its_training_never_had(src, task):
    """Held-out slot values, not just unseen combinations: each test text of a variety that has training
    data contains a word that none of that variety's train or dev texts contains."""
    from dialectbench.data.overlap import example_text, normalise

    trained = [v for v in src.varieties(task) if {"train", "dev"} & src.splits(task, v)]
    assert trained
    for v in trained:
        vocab = {w for split in {"train", "dev"} & src.splits(task, v) for ex in src.load(task, v, split)
                 for w in normalise(example_text(ex)).split()}
        known = [ex.example_id for ex in src.load(task, v, "test")
                 if not set(normalise(example_text(ex)).split()) - vocab]
        assert known == [], (task, v)


def test_packaged_files_are_exactly_what_the_builder_writes(tmp_path):
    """The shipped files cannot drift from _build.py: build into a temporary folder, compare every byte
    (and that no file is missing or left over)."""
    from dialectbench.data.sample import _build

    _build.build(tmp_path)
    assert _build.leaks(tmp_path) == []

    def files(root):
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts and p.name not in ("_build.py", "README.md")}

    built, shipped = files(tmp_path), files(sample_dir())
    assert sorted(built) == sorted(shipped)
    assert [name for name in built if built[name] != shipped[name]] == []
