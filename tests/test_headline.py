"""Issue 36 item 1: one headline per (task, setting, model), over the real varieties whose scores enter
summaries, computed by one function (analysis.headline) for results.json, the terminal and the report.
Inputs are stores built from the formats: a synthetic variety, a flagged (overlap) job, two settings,
per-example values for an item-level stderr."""

from __future__ import annotations

import json
import math

import pytest

from dialectbench.analysis.headline import headline_rows, headlines
from dialectbench.perturb.synthetic import synthetic_name
from dialectbench.runner.store import JobRecord, Store

AAVE = synthetic_name("aave")


def _record(key, variety, score, *, setting="in-variety", values=None, extra=None, ids=None, task="tc",
            train_on=None):
    """Example ids as readers name them, "<file stem>:<row>": each variety's own test file, no item shared."""
    values = values if values is not None else [1.0] * 10
    return JobRecord(job_key=key, task=task, variety=variety, cluster="c", model="m", setting=setting,
                     train_on=train_on or variety, status="done", data_fingerprint=f"fp-{key}", metric="macro_f1",
                     score=score, n=len(values), signature=task, extra=extra or {},
                     example_ids=ids or [f"{variety}-test:{i}" for i in range(len(values))],
                     predictions=["x"] * len(values),
                     values=values)


@pytest.fixture
def store(tmp_path):
    """tc in-variety: a 60.0, b 80.0 (each the mean of its per-example values, so a bootstrap reproduces
    it: per-example values on 0-1), the synthetic AAVE variety 100.0 and a flagged job (c, 90.0, 40% of its test in training);
    zero-shot: a 50.0 (no per-example values)."""
    path = tmp_path / "s.sqlite"
    a = [1.0] * 6 + [0.0] * 4
    b = [1.0] * 8 + [0.0] * 2
    records = [_record("k1", "a", 60.0, values=a),
               _record("k2", "b", 80.0, values=b),
               _record("k3", AAVE, 100.0, values=[1.0] * 10),
               _record("k4", "c", 90.0, extra={"flags": {"overlap": {"share": 0.4, "test": 10}}}),
               _record("k5", "a", 50.0, setting="zero-shot", values=[])]
    with Store(path) as db:
        db.start_run("r1", seed=0, config={}, package_version="0", library_versions={}, git_hash="x")
        for r in records:
            assert db.commit_job("r1", r)
        db.finish_run("r1", "finished", {"done": 5})
    return path, [r.job_key for r in records]


def test_headline_leaves_out_synthetic_and_flagged_names_them_and_never_mixes_settings(store):
    from dialectbench.runner.headline import store_headlines

    path, keys = store
    with Store(path) as db:
        entries = {e["setting"]: e for e in store_headlines(db, keys)}
    iv = entries["in-variety"]
    assert iv["mean"] == pytest.approx(70.0) and iv["varieties"] == ["a", "b"] and iv["n"] == 2
    assert {x["variety"]: x["reason"] for x in iv["excluded"]} == {
        AAVE: "synthetic variety", "c": "test overlaps training by 40.0% > 5%"}
    assert iv["n_excluded"] == 2
    assert iv["std_over_varieties"] == pytest.approx(math.sqrt(200.0))
    zs = entries["zero-shot"]
    assert zs["mean"] == 50.0 and zs["stderr"] is None and zs["stderr_method"] is None


def test_item_level_stderr_combines_each_varietys_se_over_its_examples(store):
    from dialectbench.runner.headline import store_headlines

    path, keys = store
    with Store(path) as db:
        iv = next(e for e in store_headlines(db, keys) if e["setting"] == "in-variety")
    # each variety: a mean of 10 0/1 values: SE sqrt(p(1-p)/n) x 100 (a 15.5, b 12.6); the mean's SE
    # sqrt(se_a^2 + se_b^2) / 2
    se_a, se_b = 100 * math.sqrt(0.24 / 10), 100 * math.sqrt(0.16 / 10)
    assert iv["stderr_method"] == "item_delta"
    assert iv["stderr"] == pytest.approx(math.sqrt(se_a ** 2 + se_b ** 2) / 2)


def test_score_se_is_the_large_sample_item_bootstrap_for_each_kind_of_evidence():
    """The delta-method SE agrees with the item bootstrap (score_interval) on pooled counts, entity counts
    and per-example values; a statistic that does not reproduce the score gives none."""
    import numpy as np

    from dialectbench.analysis.intervals import score_interval, score_se

    rng = np.random.default_rng(1)
    words = rng.integers(5, 30, size=400)
    right = np.round(words * rng.uniform(0.5, 1.0, size=400))
    pooled = {"stats": np.stack([right, words], axis=1).tolist()}
    tp = rng.integers(0, 4, size=400)
    entities = {"stats": np.stack([tp, tp + rng.integers(0, 2, size=400), tp + rng.integers(0, 2, size=400)],
                                  axis=1).tolist()}
    values = {"values": (rng.random(400) < 0.7).astype(float).tolist()}
    for evidence, score in ((pooled, 100 * right.sum() / words.sum()),
                            (entities, 100 * 2 * tp.sum() / (np.sum(entities["stats"], axis=0)[1:].sum())),
                            (values, 100 * np.mean(values["values"]))):
        se = score_se(float(score), evidence)["se"]
        boot = score_interval(float(score), evidence, n_resamples=2000)["se"]
        assert se == pytest.approx(boot, rel=0.1)
    assert score_se(12.3, values) is None


def test_one_missing_evidence_means_no_item_stderr_only_the_named_spread():
    rows = [{"task": "tc", "variety": "a", "model": "m", "setting": "in-variety", "metric": "macro_f1",
             "score": 60.0, "se": 2.0},
            {"task": "tc", "variety": "b", "model": "m", "setting": "in-variety", "metric": "macro_f1",
             "score": 80.0, "se": None}]
    (entry,) = headlines(rows)
    assert entry["stderr"] is None and entry["std_over_varieties"] == pytest.approx(math.sqrt(200.0))
    row = headline_rows([entry])[0]
    assert row["mean"] == "70.0" and row["spread"] == "sd 14.1 over varieties"


def test_results_json_terminal_and_report_show_the_same_headline(store, tmp_path):
    from dialectbench.runner.results_file import write_results
    from dialectbench.runner.summary import summary_tables

    path, keys = store
    doc = json.loads(write_results(path, tmp_path / "out", "r1", keys, argv=[]).read_text())
    iv = doc["results"]["tc"]["by_setting"]["in-variety"]["m"]
    assert iv["mean"] == pytest.approx(70.0) and iv["n_excluded"] == 2
    # a 10 + b 10 (zero-shot a stored n = 0); the synthetic and the flagged jobs are not counted
    assert doc["n-samples"]["tc"] == {"effective": 20, "original": 20}
    terminal = dict(summary_tables(path, keys))
    title = next(t for t in terminal if t.startswith("Headline"))
    printed = {r["setting"]: r for r in terminal[title]}
    assert printed["in-variety"]["mean"] == f"{iv['mean']:.1f}" == "70.0"
    assert printed["zero-shot"]["mean"] == "50.0"
    assert "c (test overlaps training" in printed["in-variety"]["left out"]

    from dialectbench.report.inputs import load_input
    from dialectbench.report.model import build_data

    data = build_data(load_input(path))
    report = {r["setting"]: r for r in data.headline}
    assert report["in-variety"]["mean"] == "70.0" and report["in-variety"]["spread"] == printed["in-variety"]["spread"]


def test_n_shot_and_model_identity_come_from_the_backend_config():
    from dialectbench.runner.results_file import models, n_samples, n_shot

    icl = {"task": "sa", "setting": "icl", "model": "hf-causal:x", "variety": "a", "status": "done", "n": 8,
           "config": {"model": "hf-causal:x", "backend": {"k": 4, "revision": "abc123", "model": "x"},
                      "limit": 8}}
    ft = {"task": "sa", "setting": "in-variety", "model": "baseline", "variety": "a", "status": "done", "n": 9,
          "config": {"model": "baseline", "backend": {"parser": {}}, "seed": 0}}
    assert n_shot([icl, ft]) == {"sa": {"icl": 4, "in-variety": None}}
    assert models([icl, ft]) == {"hf-causal:x": {"revision": "abc123", "model_id": "x"},
                                 "baseline": {"revision": None}}
    entries = [{"task": "sa", "setting": "icl", "model": "hf-causal:x", "varieties": ["a"]}]
    assert n_samples([icl, ft], entries) == {"sa": {"effective": 8, "original": None, "limit": 8}}


@pytest.mark.parametrize("with_keys", [True, False])
def test_report_headline_names_the_kept_out_jobs_as_the_terminal_does(store, with_keys):
    """The report read the headline of the store's kept-in jobs only, so a leaked job's variety vanished from
    its "left out" column while results.json and the terminal named it."""
    from dialectbench.report.inputs import load_input
    from dialectbench.report.model import build_data
    from dialectbench.runner.summary import summary_tables

    path, keys = store
    terminal = dict(summary_tables(path, keys))
    printed = {r["setting"]: r for r in terminal[next(t for t in terminal if t.startswith("Headline"))]}
    report = {r["setting"]: r for r in build_data(load_input(path, keys=keys if with_keys else None)).headline}
    assert "c (test overlaps training by 40.0% > 5%)" in report["in-variety"]["left out"]
    assert report["in-variety"]["left out"] == printed["in-variety"]["left out"]


def test_report_headline_note_names_the_stderr_method_results_json_uses():
    """The note said "bootstrap" while the headline's stderr is the delta method (stderr_method item_delta)."""
    from types import SimpleNamespace

    from dialectbench.analysis.headline import ITEM_DELTA
    from dialectbench.report.tables import headline_table

    note = headline_table(SimpleNamespace(headline=[])).note
    assert "bootstrap" not in note and "delta method" in note and ITEM_DELTA in note


def test_lm_eval_group_sample_len_counts_only_the_varieties_its_headline_averages(store):
    """`run --output-path`: a group's value is the headline (a, b), so its sample_len must not count the
    synthetic and the leaked varieties' examples (it summed every subtask: 40 for 20 averaged)."""
    from dialectbench.runner.lm_eval_output import lm_eval_documents
    from dialectbench.tasks.naming import lm_eval_group

    path, keys = store
    with Store(path, readonly=True) as db:
        doc, _ = lm_eval_documents(db, "r1", keys)["m"]
    group = doc["groups"][lm_eval_group("tc", "in-variety")]
    assert group["f1,none"] == pytest.approx(0.70) and group["varieties"] == 2
    assert group["sample_len"] == 20


def test_n_samples_original_counts_the_examples_an_icl_job_held_out_for_its_demos(tmp_path):
    """An icl job scores its test set less the examples sharing a demonstration's passage
    (`demos_held_out`): lm-eval's `original` is the full test set, `effective` what was scored."""
    from dialectbench.runner.lm_eval_output import lm_eval_documents
    from dialectbench.runner.results_file import n_samples

    icl = {"task": "sa", "setting": "icl", "model": "m", "variety": "a", "status": "done", "n": 8,
           "config": {}, "metrics": {"accuracy": 50.0, "demos_held_out": 2}}
    entries = [{"task": "sa", "setting": "icl", "model": "m", "varieties": ["a"]}]
    assert n_samples([icl], entries) == {"sa": {"effective": 8, "original": 10}}

    path = tmp_path / "s.sqlite"
    record = JobRecord(job_key="k", task="sa", variety="a", cluster="c", model="m", setting="icl", train_on="a",
                       status="done", data_fingerprint="fp", metric="accuracy", score=50.0, n=8, signature="sa",
                       extra={"demos_held_out": 2}, example_ids=[str(i) for i in range(8)],
                       predictions=["x"] * 8, values=[1.0] * 4 + [0.0] * 4)
    with Store(path) as db:
        db.start_run("r", seed=0, config={}, package_version="0", library_versions={}, git_hash="x")
        assert db.commit_job("r", record)
        db.finish_run("r", "finished", {"done": 1})
    with Store(path, readonly=True) as db:
        doc, _ = lm_eval_documents(db, "r", ["k"])["m"]
    (counts,) = doc["n-samples"].values()
    assert counts == {"original": 10, "effective": 8}
