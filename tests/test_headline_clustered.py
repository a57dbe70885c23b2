"""A headline's item-level SE clustered by shared test item: SD-QA's dialects answer the same questions and
several training sources of one variety are scored on one test set, so their errors are correlated and the
independence formula sqrt(sum se_i^2) / k understated the SE of their mean."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dialectbench.analysis.headline import ITEM_DELTA, ITEM_DELTA_CLUSTERED, headlines
from dialectbench.analysis.intervals import score_influence
from dialectbench.data.items import item_key
from dialectbench.runner.store import JobRecord, Store


def _row(variety, score, psi=None, se=None, train_on=None):
    if se is None:
        se = math.sqrt(sum(v * v for v in psi.values()))
    return {"task": "eqa", "variety": variety, "model": "m", "setting": "in-variety", "metric": "f1",
            "score": score, "se": se, "psi": psi, "train_on": train_on or variety}


def _from_values(variety, values, ids):
    found = score_influence(100.0 * float(np.mean(values)), {"values": values})
    return _row(variety, 100.0 * float(np.mean(values)), dict(zip(ids, found["psi"].tolist())))


def test_no_shared_item_gives_exactly_the_independent_formula():
    rng = np.random.default_rng(0)
    rows = [_from_values("a", rng.random(7).tolist(), [f"a-test:{i}" for i in range(7)]),
            _from_values("a", rng.random(5).tolist(), [f"a-other:{i}" for i in range(5)]),
            _from_values("b", rng.random(9).tolist(), [f"b-test:{i}" for i in range(9)])]
    (entry,) = headlines(rows)
    se_a = math.sqrt(rows[0]["se"] ** 2 + rows[1]["se"] ** 2) / 2
    old = math.sqrt(se_a ** 2 + rows[2]["se"] ** 2) / 2
    assert entry["stderr"] == old and entry["stderr_method"] == ITEM_DELTA
    # ... which is the clustered sum over items when every item is its own cluster
    weights = (0.25, 0.25, 0.5)
    clustered = math.sqrt(sum((w * v) ** 2 for r, w in zip(rows, weights) for v in r["psi"].values()))
    assert clustered == pytest.approx(old, rel=1e-12)
    # rows without influence values (se only) are taken as independent, as before
    (plain,) = headlines([{**r, "psi": None} for r in rows])
    assert plain["stderr"] == old and plain["stderr_method"] == ITEM_DELTA


def test_two_varieties_with_the_same_items_and_values_have_one_varietys_se():
    """Perfect correlation: the mean of two identical scores is as uncertain as one of them, not 1/sqrt(2)
    of it (what independence gave)."""
    values = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.5, 0.0, 1.0, 1.0]
    items = [f"sdqa:english-{i}" for i in range(10)]
    a, b = _from_values("a", values, items), _from_values("b", values, items)
    (entry,) = headlines([a, b])
    assert entry["stderr"] == pytest.approx(a["se"], rel=1e-12)
    assert entry["stderr"] > math.sqrt(a["se"] ** 2 + b["se"] ** 2) / 2 * 1.4
    assert entry["stderr_method"] == ITEM_DELTA_CLUSTERED


def test_hand_computed_clustered_se():
    """a: two training sources (weights 1/4 each), b: one (1/2); items x, y, z."""
    rows = [_row("a", 50.0, {"x": 1.0, "y": -1.0}, train_on="s1"),
            _row("a", 60.0, {"x": 2.0, "z": 1.0}, train_on="s2"),
            _row("b", 70.0, {"x": -1.0, "y": 3.0})]
    (entry,) = headlines(rows)
    # x: 1/4 + 2/4 - 1/2 = 1/4; y: -1/4 + 3/2 = 5/4; z: 1/4 -> 1/16 + 25/16 + 1/16 = 27/16
    assert entry["stderr"] == pytest.approx(math.sqrt(27 / 16), rel=1e-12)
    assert entry["stderr_method"] == ITEM_DELTA_CLUSTERED
    # independence said 2/16 + 5/16 + 10/4 = 47/16
    # a fourth score (variety c) with se only: independent, w = 1/3 now for b and c, 1/6 for a's two
    rows = [*rows, _row("c", 40.0, None, se=3.0)]
    (entry,) = headlines(rows)
    x, y, z = 1 / 6 + 2 / 6 - 1 / 3, -1 / 6 + 1.0, 1 / 6
    assert entry["stderr"] == pytest.approx(math.sqrt(x * x + y * y + z * z + 1.0), rel=1e-12)


def test_item_key_names_an_sdqa_question_across_dialects_and_nothing_else():
    """Real goldp ids (sd-qa-goldp/dev/sdqa-dev-english-aus.json, ...-usa.json): one TyDi question."""
    aus = item_key("goldp", "sdqa-dev-english-aus:english--2349744557816850487-aus")
    usa = item_key("goldp", "sdqa-dev-english-usa:english--2349744557816850487-usa")
    assert aus == usa == "sdqa:english--2349744557816850487"
    assert item_key("sdqa", "6037841464917965779:kenya") == item_key("sdqa", "6037841464917965779:nga")
    # another format's ids, or an id whose stem does not carry its dialect, are taken as they are
    assert item_key("labelled", "AJGT:10") == "AJGT:10" != item_key("labelled", "ASTD:10")
    assert item_key("goldp", "other-file:english-1-aus") == "other-file:english-1-aus"


def _record(key, variety, values, ids, *, task="eqa", train_on=None):
    return JobRecord(job_key=key, task=task, variety=variety, cluster="c", model="m", setting="in-variety",
                     train_on=train_on or variety, status="done", data_fingerprint=f"fp-{key}", metric="f1",
                     score=100.0 * float(np.mean(values)), n=len(values), signature=task, extra={},
                     example_ids=ids, predictions=["x"] * len(values), values=values)


def _store(path, records):
    with Store(path) as db:
        db.start_run("r", seed=0, config={}, package_version="0", library_versions={}, git_hash="x")
        for r in records:
            assert db.commit_job("r", r)
        db.finish_run("r", "finished", {"done": len(records)})


def _psi(values):
    v = np.asarray(values)
    return 100.0 * (v - v.mean()) / len(v)


def test_store_headlines_clusters_sdqa_dialects_by_question(tmp_path):
    """Two SD-QA dialects (catalogue format goldp) with the reader's ids: the same 8 questions."""
    from dialectbench.runner.headline import store_headlines

    aus = [1.0, 0.0, 1.0, 0.5, 1.0, 0.0, 1.0, 1.0]
    usa = [1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.5, 1.0]
    tydi = ["6037841464917965779", "-2349744557816850487", "11", "12", "13", "14", "15", "16"]
    path = tmp_path / "s.sqlite"
    _store(path, [_record("k1", "australian english", aus, [f"sdqa-dev-english-aus:english-{t}-aus" for t in tydi]),
                  _record("k2", "southeast american english", usa,
                          [f"sdqa-dev-english-usa:english-{t}-usa" for t in tydi])])
    with Store(path, readonly=True) as db:
        (entry,) = store_headlines(db)
    psi_a, psi_b = _psi(aus), _psi(usa)
    expected = math.sqrt(np.sum((0.5 * psi_a + 0.5 * psi_b) ** 2))
    independent = math.sqrt(np.sum(psi_a ** 2) + np.sum(psi_b ** 2)) / 2
    assert entry["n"] == 2 and entry["stderr_method"] == ITEM_DELTA_CLUSTERED
    assert entry["stderr"] == pytest.approx(expected, rel=1e-9)
    assert entry["stderr"] > independent * 1.2


def test_store_headlines_clusters_training_sources_scored_on_one_test_set(tmp_path):
    """One variety, two training sources, the same test file (identical example ids): one item each."""
    from dialectbench.runner.headline import store_headlines

    s1 = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    s2 = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0]
    ids = [f"a-test:{i}" for i in range(6)]
    path = tmp_path / "s.sqlite"
    _store(path, [_record("k1", "a", s1, ids, task="tc", train_on="x"),
                  _record("k2", "a", s2, ids, task="tc", train_on="y")])
    with Store(path, readonly=True) as db:
        (entry,) = store_headlines(db)
    assert entry["stderr"] == pytest.approx(math.sqrt(np.sum((0.5 * _psi(s1) + 0.5 * _psi(s2)) ** 2)), rel=1e-9)
    assert entry["stderr_method"] == ITEM_DELTA_CLUSTERED
