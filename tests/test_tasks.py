"""The task registry (seed 000 Tables 1-2) and cluster representatives (Table 9)."""

from __future__ import annotations

import csv
from importlib import resources

import pytest
from pydantic import ValidationError

from dialectbench.scores import SETTINGS
from dialectbench.tasks import (
    TASK_IDS,
    TASKS,
    Task,
    UnknownTaskError,
    expand_tasks,
    get_task,
    representative,
    representatives,
    zero_shot_source,
)
from dialectbench.varieties import registry

SEED = "000_3f95e8a354fa2acd.txt"
TABLE2_COLUMNS = ("in-variety", "in-cluster", "combined", "zero-shot", "no-reference", "icl")
TABLE2_ROWS = {"DEP": ["dep"], "POS": ["pos"], "NER": ["ner"], "EQA": ["eqa"], "MRC": ["mrc"], "NLI": ["nli"],
               "TC": ["tc"], "SA": ["sa"], "DId": ["did"], "MT": ["mt-dialect", "mt-region"]}
TABLE9_HEADINGS = {"DEP. Parsing": "dep", "POS Tagging": "pos", "NER": "ner", "EQA": "eqa", "MRC": "mrc",
                   "TC": "tc", "SC": "sa", "MT-Dialect": "mt-dialect", "MT-Region": "mt-region", "DId": "did",
                   "NLI": "nli"}


def _packaged_representatives() -> list[dict[str, str]]:
    path = resources.files("dialectbench.tasks").joinpath("representatives.csv")
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_ten_tasks_with_mt_split():
    assert tuple(TASKS) == TASK_IDS
    assert len({t.metadata_name for t in TASKS.values()}) == 10  # MT's two flavours share one dataset family
    assert expand_tasks("mt") == ["mt-dialect", "mt-region"]
    assert expand_tasks(" POS ") == ["pos"]


def test_categories_and_metrics_follow_table1():
    by_category = {}
    for t in TASKS.values():
        by_category.setdefault(t.category, []).append(t.id)
    assert by_category == {"structured prediction": ["dep", "pos", "ner"],
                           "sentence classification": ["did", "sa", "tc", "nli"],
                           "question answering": ["mrc", "eqa"],
                           "text generation": ["mt-dialect", "mt-region"]}
    # SA: Table 1 prints F1, but the scores of Table 29 are accuracy (south levantine 58.9), which is
    # what score_task stores; the task spec names the metric the scores carry
    assert {t.id: t.metric for t in TASKS.values() if t.metric != "f1"} == {
        "dep": "uas", "did": "macro_f1", "sa": "accuracy", "tc": "macro_f1", "nli": "macro_f1",
        "mrc": "macro_f1", "mt-dialect": "bleu", "mt-region": "bleu"}
    assert {t.id: t.paper_metric for t in TASKS.values() if t.paper_metric != "f1"} == {
        "dep": "uas", "mt-dialect": "bleu", "mt-region": "bleu"}
    assert get_task("sa").summary_metrics == ("accuracy", "f1") and get_task("ner").summary_metrics == ("f1",)
    assert get_task("eqa").metric_label == "span F1"


def test_settings_match_table2_in_seed(seeds):
    lines = (seeds / SEED).read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("Task\tIn-variety FT"))
    seen = set()
    for line in lines[start + 1:start + 11]:
        cells = line.strip("\n").lstrip(" ").split("\t")
        marked = {TABLE2_COLUMNS[i] for i, c in enumerate(cells[1:]) if "checkmark" in c}
        for task_id in TABLE2_ROWS[cells[0]]:
            task = get_task(task_id)
            assert set(task.settings) == marked - {"no-reference"}, task_id
            assert task.pseudo_references is ("no-reference" in marked)
            seen.add(task_id)
    assert seen == set(TASK_IDS)


def test_task_settings_are_known_settings():
    for t in TASKS.values():
        assert t.settings and set(t.settings) <= set(SETTINGS)
        assert t.datasets


def test_task_spec_rejects_unknown_fields_and_ids():
    spec = get_task("pos").model_dump()
    with pytest.raises(ValidationError, match="extra"):
        Task(**spec, homepage="x")
    # any well-formed id is a task (user catalogues declare their own); its kind and metric are checked
    with pytest.raises(ValidationError, match="should match pattern"):
        Task(**{**spec, "id": "POS tags"})
    with pytest.raises(ValidationError, match="unknown task kind 'chunking'"):
        Task(**{**spec, "kind": "chunking"})
    with pytest.raises(ValidationError, match="a tagging task scores f1, not 'uas'"):
        Task(**{**spec, "metric": "uas"})
    with pytest.raises(ValidationError, match="unknown setting"):
        Task(**{**spec, "settings": ("few-shot",)})


def test_unknown_task_lists_valid_ids():
    with pytest.raises(UnknownTaskError, match="valid task ids: dep, pos, ner, did, sa, tc, nli, mrc, eqa"):
        get_task("parsing")
    with pytest.raises(UnknownTaskError, match="mt-dialect and mt-region"):
        get_task("mt")


def test_every_table9_representative_resolves_to_a_variety_of_its_cluster():
    reg = registry()
    rows = _packaged_representatives()
    assert len(rows) == 104
    for row in rows:
        variety = reg.get(row["variety"])
        assert variety.cluster == row["cluster"], row
        assert row["task"] in variety.tasks, row
        assert representative(row["cluster"], row["task"]) == variety


def test_packaged_representatives_transcribe_table9(seeds):
    lines = (seeds / SEED).read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("Task\tCluster Name\tCluster Representative"))
    found, task = [], None
    for line in lines[start + 1:]:
        if line.startswith("Table 9"):
            break
        if not line.strip():
            continue
        head, cluster, rep = line.split("\t")
        task = TABLE9_HEADINGS[head] if head else task
        found.append({"task": task, "cluster": cluster, "variety": rep})
    assert found == _packaged_representatives()


def test_every_task_cluster_has_exactly_one_representative():
    reg = registry()
    reps = representatives()
    pairs = [(r.task, r.cluster) for r in reps]
    assert len(pairs) == len(set(pairs)) == sum(len(reg.clusters(task=t)) for t in TASK_IDS)
    for r in reps:
        assert r.variety.cluster == r.cluster and r.task in r.variety.tasks
        if r.source == "sole variety":  # Table 9 omits only clusters with one variety in the task
            assert reg.varieties(task=r.task, cluster=r.cluster) == [r.variety]


def test_mt_split_representatives():
    assert representative("high german", "mt-dialect").name == "central bavarian"
    assert representative("high german", "mt-region").name == "central alemannic (a:zh)"
    assert representative("italian romance", "mt-region").name == "italian (a:umbria)"
    assert {r.task for r in representatives("mt")} == {"mt-dialect", "mt-region"}


def test_representatives_differ_by_task():
    assert representative("anglic", "eqa").name == "southeast american english"
    assert representative("anglic", "did").name == "english (a:uk)"
    assert representative("Tupi-Guarani Subgroup I.a", "dep").name == "old guarani"
    assert representative("tupi-guarani subgroup i.a", "pos").name == "mbyá guaraní (a:paraguay)"


def test_representative_of_cluster_without_the_task_is_an_error():
    with pytest.raises(LookupError, match="no varieties in task"):
        representative("basque", "pos")


def test_zero_shot_source_is_english_where_the_paper_fine_tunes_on_english():
    for task_id in TASK_IDS:
        source = zero_shot_source(task_id)
        if "zero-shot" in get_task(task_id).settings and not task_id.startswith("mt"):
            # EQA's English training data is TyDi QA's standard English, not one of SD-QA's test dialects.
            assert source is not None and source.name == "english"
        else:
            assert source is None


def test_docstring_examples_run():
    import doctest

    import dialectbench.tasks as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
