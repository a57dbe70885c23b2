"""`run(...)` and `dialectbench run`: train once / evaluate many, resume, --rerun, bad input, the summary."""

from __future__ import annotations

import importlib
import json

import pytest
from runner_fakes import FailingBackend, FakeBackend, FakeSource
from sklearn.metrics import f1_score
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.data.examples import TextExample
from dialectbench.runner import Store, run

run_mod = importlib.import_module("dialectbench.runner.orchestrate")  # the module (the package exports the function)


def _flat(text: str) -> str:
    """rich wraps long messages at the terminal width; compare with whitespace collapsed."""
    return " ".join(text.split())


def _run(tmp_path, **kw):
    kw.setdefault("source", FakeSource())
    kw.setdefault("backend", FakeBackend(0.0))
    kw.setdefault("tasks", ["tc", "pos"])
    return run(store=tmp_path / "results.sqlite", **kw)


def test_each_training_set_is_fitted_once_and_every_planned_job_is_stored(tmp_path):
    backend = FakeBackend(0.0)
    result = _run(tmp_path, backend=backend)
    assert len(backend.fits) == len(result.plan.groups)
    with Store(result.store) as db:
        done = db.done_keys()
        jobs = {j["job_key"]: j for j in db.jobs()}
    empty = {j.key for j in result.plan.jobs if j.variety == "moroccan arabic"}
    assert done == set(result.job_keys) - empty
    assert all(jobs[k]["status"] == "skipped" and "empty" in jobs[k]["message"] for k in empty)
    assert result.counts["done"] == len(done) and result.counts["skipped"] == len(empty)


def test_the_english_dev_split_reaches_the_backend(tmp_path):
    backend = FakeBackend(0.0)
    _run(tmp_path, backend=backend, tasks=["tc"], settings=["zero-shot"])
    assert backend.fits == [("tc", 12, 3)]


def test_rerunning_skips_done_jobs_and_rerun_forces_them(tmp_path):
    first = _run(tmp_path)
    again_backend = FakeBackend(0.0)
    again = _run(tmp_path, backend=again_backend)
    assert again_backend.fits == [] and again.counts["done"] == 0
    assert again.counts["reused"] == first.counts["done"]
    forced_backend = FakeBackend(0.0)
    forced = _run(tmp_path, backend=forced_backend, rerun=True)
    assert len(forced_backend.fits) == len(forced.plan.groups)
    with Store(forced.store) as db:
        assert {j["completions"] for j in db.jobs() if j["status"] == "done"} == {2}
        assert len(db.runs()) == 3 and all(r["status"] == "finished" for r in db.runs())


def test_a_changed_seed_makes_new_jobs(tmp_path):
    _run(tmp_path, tasks=["tc"], settings=["zero-shot"])
    other = _run(tmp_path, tasks=["tc"], settings=["zero-shot"], seed=7)
    assert other.counts["reused"] == 0 and other.counts["done"] > 0
    with Store(other.store) as db:
        assert {r["seed"] for r in db.scores(latest=False, detail=True)} == {0, 7}


def test_a_backend_error_fails_its_jobs_and_the_rest_of_the_run_continues(tmp_path):
    result = _run(tmp_path, backend=FailingBackend("pos"))
    failed = [p for p in result.problems if p.status == "failed"]
    assert failed and all(p.task == "pos" and "boom" in p.message for p in failed)
    with Store(result.store) as db:
        assert {r["task"] for r in db.scores(result.job_keys)} == {"tc"}


def test_the_run_records_versions_seed_config_and_skips(tmp_path):
    result = _run(tmp_path, seed=3)
    with Store(result.store) as db:
        [row] = db.runs()
        skips = db.conn.execute("SELECT task, variety, setting, reason FROM skips").fetchall()
    config = json.loads(row["config"])
    assert row["seed"] == 3 and row["package_version"] and config["tasks"] == ["tc", "pos"]
    assert config["model"] == "fake" and config["backend"] == {"kind": "majority"}
    assert "numpy" in json.loads(row["library_versions"])
    assert len(skips) == len(result.plan.skips) and any(s["reason"] == "no test split" for s in skips)


def _did_source(shared: bool) -> FakeSource:
    """Three anglic varieties; `shared`: one dataset for the cluster (labels = variety names), as the
    DialectBench DId sets are; else one file per variety holding only its own label."""
    names = ("english", "english (a:uk)", "north american english")
    def texts(prefix, n):  # the prefix is in the text too: test texts are not training texts (no leak)
        return [TextExample(f"{prefix}{i}", f"{names[i % 3]} {prefix} text {i}", names[i % 3]) for i in range(n)]
    train, test = texts("tr", 30), texts("te", 12)
    if shared:
        return FakeSource(data={("did", v): {"train": train, "test": test} for v in names})
    return FakeSource(data={("did", v): {"train": [e for e in train if e.label == v],
                                         "test": [e for e in test if e.label == v]} for v in names})


@pytest.mark.parametrize("shared", [True, False])
def test_dialect_identification_scores_each_variety_by_its_class_f1_on_the_pooled_test(tmp_path, shared):
    source, backend = _did_source(shared), FakeBackend(0.0)
    result = _run(tmp_path, source=source, backend=backend, tasks=["did"])
    assert backend.fits == [("did", 30, 0)]  # one classifier, the shared train split read once
    pooled = _did_source(True).data[("did", "english")]["test"]
    model = FakeBackend(0.0).fit("did", _did_source(True).data[("did", "english")]["train"], None)
    preds = model.predict(pooled)
    with Store(result.store) as db:
        rows = {r["variety"]: r for r in db.scores()}
    assert set(rows) == {"english", "english (a:uk)", "north american english"}
    for variety, row in rows.items():
        expected = 100 * f1_score([e.label for e in pooled], preds, labels=[variety], average=None)[0]
        assert row["score"] == pytest.approx(expected) and row["n"] == 4 and row["metric"] == "f1"


@pytest.fixture
def fake_cli(monkeypatch):
    """`dialectbench run` on the fake source and backend."""
    backend = FakeBackend(0.0)
    monkeypatch.setattr(run_mod, "_open_source", lambda data_dir: FakeSource())
    monkeypatch.setattr(run_mod, "_get_backend", lambda model: backend)
    return backend


def test_cli_run_prints_the_summary_and_tally(tmp_path, fake_cli):
    store = tmp_path / "r.sqlite"
    out = CliRunner().invoke(app, ["run", "--tasks", "tc,pos", "--store", str(store), "--no-report"])
    assert out.exit_code == 0, out.output
    assert "Task summary" in out.stdout and "Cluster dialect gaps" in out.stdout
    assert "no test split" in out.stderr and "jobs" in out.stderr
    with Store(store) as db:
        assert f"{len(db.done_keys())} job(s) run, 0 already in the store" in out.stderr


@pytest.mark.parametrize("args, needle", [
    (["--tasks", "pos,nerr"], "Did you mean: ner"),
    (["--settings", "in_cluster"], "Did you mean: in-cluster"),
    (["--varieties", "singlsh"], "singlish"),
    (["--varieties", "singlish", "--clusters", "anglic"], "not both"),
])
def test_cli_bad_names_exit_2_with_a_clear_message(tmp_path, fake_cli, args, needle):
    out = CliRunner().invoke(app, ["run", *args, "--store", str(tmp_path / "r.sqlite")])
    assert out.exit_code == 2 and needle in _flat(out.output)


def test_cli_run_with_nothing_runnable_says_why(tmp_path, fake_cli):
    out = CliRunner().invoke(app, ["run", "--tasks", "ner", "--store", str(tmp_path / "r.sqlite")])
    assert out.exit_code == 1
    assert "nothing to run" in _flat(out.output) and "ner" in out.output


def test_cli_missing_data_dir_is_a_clear_error(tmp_path):
    out = CliRunner().invoke(app, ["run", "--data-dir", str(tmp_path / "nowhere"), "--store",
                                   str(tmp_path / "r.sqlite")])
    assert out.exit_code == 2 and "does not exist" in _flat(out.output)


def test_report_hook_is_called_when_the_report_package_has_build_report(tmp_path, fake_cli, monkeypatch):
    from dialectbench import report

    calls = []
    monkeypatch.setattr(report, "build_report", lambda store, out, keys=None: calls.append((store, out, keys)),
                        raising=False)
    store = tmp_path / "r.sqlite"
    CliRunner().invoke(app, ["run", "--tasks", "tc", "--store", str(store), "--no-report"])
    assert calls == []
    CliRunner().invoke(app, ["run", "--tasks", "tc", "--store", str(store)])
    # the report of this run only (its job keys), in the run's own folder
    ((path, out, keys),) = calls
    assert path == store and out.parent.parent == tmp_path / "runs" and out.name == "report"
    with Store(store) as db:
        assert db.done_keys() and db.done_keys() <= set(keys)


CONLLU = """# sent_id = {sid}
# text = {text}
1\t{w1}\t{w1}\tPRON\t_\t_\t2\tnsubj\t_\t_
2\t{w2}\t{w2}\tVERB\t_\t_\t0\troot\t_\t_
3\t{w3}\t{w3}\tNOUN\t_\t_\t2\tobj\t_\t_

"""


def _treebank(path, sentences):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(CONLLU.format(sid=i, text=" ".join(s), w1=s[0], w2=s[1], w3=s[2])
                            for i, s in enumerate(sentences)), encoding="utf-8")


def test_real_source_mirror_with_an_empty_test_split_and_missing_files(tmp_path):
    """A hand-made mirror: English train/test, Albanian test, Gheg test empty, nothing else."""
    mirror = tmp_path / "mirror"
    words = [("we", "eat", "bread"), ("they", "see", "dogs"), ("I", "like", "tea"), ("you", "read", "books")]
    _treebank(mirror / "ud/UD_English-EWT/en_ewt-ud-train.conllu", words * 3)
    _treebank(mirror / "ud/UD_English-EWT/en_ewt-ud-test.conllu", words[:2])
    _treebank(mirror / "ud/UD_Albanian-TSA/sq_tsa-ud-test.conllu", [("ne", "hamë", "bukë")])
    _treebank(mirror / "ud/UD_Gheg-GPS/aln_gps-ud-test.conllu", [])
    store = tmp_path / "r.sqlite"
    out = CliRunner().invoke(app, ["run", "--data-dir", str(mirror), "--tasks", "pos,ner", "--settings",
                                   "zero-shot", "--store", str(store), "--no-report"])
    assert out.exit_code == 0, out.output
    flat = _flat(out.stderr)
    assert "pos · zero-shot · gheg albanian: skipped: the test split of 'gheg albanian' (pos) is empty" in flat
    assert "ner: " in flat and "no data" in flat  # the NER files are absent: said, and the run went on
    with Store(store) as db:
        assert {r["variety"] for r in db.scores()} == {"english", "albanian"}

    empty = tmp_path / "empty"
    empty.mkdir()
    out = CliRunner().invoke(app, ["run", "--data-dir", str(empty), "--tasks", "pos", "--store", str(store)])
    assert out.exit_code == 1 and "nothing to run" in _flat(out.output) and "no data" in _flat(out.output)


def test_sample_suite_end_to_end_with_the_baselines(tmp_path):
    """The real pieces together (bundled sample suite, CPU baselines, metrics, analysis) on the fast tasks;
    the slow ones (dep/pos/ner training) are left to benchmarks/bench_run.py."""
    store = tmp_path / "r.sqlite"
    out = CliRunner().invoke(app, ["run", "--tasks", "tc,did,mt", "--store", str(store), "--no-report"])
    assert out.exit_code == 0, out.output
    assert "Task summary" in out.stdout and "Cluster dialect gaps" in out.stdout
    with Store(store) as db:
        jobs = db.jobs()
        scores = db.scores()
    assert jobs and all(j["status"] == "done" for j in jobs)
    assert {r["task"] for r in scores} == {"tc", "did", "mt-dialect", "mt-region"}
    assert {r["setting"] for r in scores if r["task"] == "tc"} == {"zero-shot", "in-cluster"}
    assert {r["train_on"] for r in scores if r["task"].startswith("mt")} == {"none (pretrained)"}
    # the MT baseline copies its input: it is reported as such, not as a trained "baseline"
    assert {r["model"] for r in scores if r["task"].startswith("mt")} == {"copy"}
    assert {r["model"] for r in scores if not r["task"].startswith("mt")} == {"baseline"}
    assert all(0 <= r["score"] <= 100 and r["n"] > 0 for r in scores)
    exported = CliRunner().invoke(app, ["results", "export", "--store", str(store), "--format", "json"])
    assert len(json.loads(exported.stdout)) == len(scores)


def test_the_package_run_is_the_function_after_every_runner_submodule_is_imported():
    """The function lives in runner/orchestrate.py: no submodule is named `run`, so importing them all
    never replaces the package's `run` with a module (the `_Package` workaround is gone)."""
    import pkgutil
    import types

    from dialectbench import runner

    names = [m.name for m in pkgutil.iter_modules(runner.__path__)]
    assert "run" not in names and "orchestrate" in names
    for name in names:
        if name not in ("ray_executor", "_fork_server"):  # ray: an optional extra; the fork server: a script
            importlib.import_module(f"dialectbench.runner.{name}")
    assert callable(runner.run) and not isinstance(runner.run, types.ModuleType)
    assert runner.run is run_mod.run and type(runner) is types.ModuleType
