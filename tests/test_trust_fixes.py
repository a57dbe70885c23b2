"""Numbers that say what their label says (issue 36 review): the latest scores and a score's item-level SE."""

from __future__ import annotations

from dialectbench.runner.store import JobRecord, Store


def _record(key, score, extra=None):
    return JobRecord(job_key=key, task="tc", variety="a", cluster="c", model="m", setting="in-variety",
                     train_on="a", status="done", data_fingerprint=f"fp-{key}", metric="macro_f1", score=score,
                     n=10, signature="tc", extra=extra or {}, example_ids=[str(i) for i in range(10)],
                     predictions=["x"] * 10, values=[1.0] * 10)


def test_an_older_score_does_not_stand_in_for_a_newer_kept_out_one(tmp_path):
    """A kept-out score (a leak, unaligned label meanings) that is the newest of its (task, variety, model,
    setting, train_on, metric) leaves that row out of the latest scores: an older, superseded score never
    stands in for it in summaries, reports or headlines."""
    from dialectbench.runner.headline import store_headlines

    path = tmp_path / "s.sqlite"
    with Store(path) as db:
        db.start_run("r", seed=0, config={}, package_version="0", library_versions={}, git_hash="x")
        assert db.commit_job("r", _record("old", 60.0))
        assert db.commit_job("r", _record("new", 90.0, {"flags": {"overlap": {"share": 0.4, "test": 10}}}))
        db.finish_run("r", "finished", {"done": 2})
    with Store(path, readonly=True) as db:
        assert db.scores() == []
        assert [r["score"] for r in db.scores(include_overlap=True)] == [90.0]
        (entry,) = store_headlines(db)
    assert entry["mean"] is None and entry["n"] == 0
    assert [x["variety"] for x in entry["excluded"]] == ["a"]


def test_entity_f1_equal_to_recall_gets_the_f1_standard_error():
    """NER stats rows (tp, predicted, gold) with as many predicted as gold entities: F1 = recall, and the
    SE must be F1's (delta method on 2 tp / (predicted + gold)), not recall's (tp / gold)."""
    import numpy as np
    import pytest

    from dialectbench.analysis.intervals import score_se

    stats = np.array([[1, 3, 1], [2, 2, 4], [0, 1, 1], [3, 3, 3], [1, 1, 1]], dtype=float)
    tp, pred, gold = stats.sum(axis=0)
    assert pred == gold
    score = 100.0 * 2 * tp / (pred + gold)
    found = score_se(score, {"stats": stats.tolist()})
    a, b = 2 * stats[:, 0], stats[:, 1] + stats[:, 2]
    expected = 100.0 * np.sqrt(np.sum((a - a.sum() / b.sum() * b) ** 2)) / b.sum()
    assert found["how"] == "pooled entity counts"
    assert found["se"] == pytest.approx(expected)
