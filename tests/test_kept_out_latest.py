"""A kept-out score (a leak, unaligned label meanings) that is the newest of its (task, variety, model,
setting, train_on, metric) leaves that row out of the latest scores: an older, superseded score of the
same row never stands in for it in summaries, reports or headlines."""

from __future__ import annotations

from dialectbench.runner.store import JobRecord, Store


def _record(key, score, extra=None):
    return JobRecord(job_key=key, task="tc", variety="a", cluster="c", model="m", setting="in-variety",
                     train_on="a", status="done", data_fingerprint=f"fp-{key}", metric="macro_f1", score=score,
                     n=10, signature="tc", extra=extra or {}, example_ids=[str(i) for i in range(10)],
                     predictions=["x"] * 10, values=[1.0] * 10)


def test_an_older_score_does_not_stand_in_for_a_newer_kept_out_one(tmp_path):
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
