"""Issue 17, a researcher's workflow: run folders and results.json, quick/controlled runs, `models`,
model load failing once, `results export --metrics all`, library warnings once."""

from __future__ import annotations

import csv
import importlib
import io
import json
import logging

import pytest
from runner_fakes import FakeBackend, FakeSource
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.runner import RunError, Store, run
from dialectbench.runner.options import LimitedSource, OptionError, RunOptions
from dialectbench.runner.results_file import all_metrics

run_mod = importlib.import_module("dialectbench.runner.run")


@pytest.fixture
def fake_cli(monkeypatch):
    backend = FakeBackend(0.0)
    monkeypatch.setattr(run_mod, "_open_source", lambda data_dir: FakeSource())
    monkeypatch.setattr(run_mod, "_get_backend", lambda model, *opts: backend)
    return backend


def _run_cli(*args):
    return CliRunner().invoke(app, ["run", *args])


def test_run_folder_holds_the_store_results_json_and_its_own_report(tmp_path, fake_cli):
    out = tmp_path / "res"
    first = _run_cli("--tasks", "tc", "--out", str(out))
    assert first.exit_code == 0, first.output
    second = _run_cli("--tasks", "pos", "--out", str(out))
    assert second.exit_code == 0, second.output
    assert (out / "results.sqlite").is_file()  # one store shared by both runs
    runs = sorted((out / "runs").iterdir(), key=lambda p: p.stat().st_mtime)
    assert len(runs) == 2 and (out / "latest").read_text().strip() == runs[1].name
    docs = [json.loads((r / "results.json").read_text()) for r in runs]
    assert [{j["task"] for j in d["jobs"]} for d in docs] == [{"tc"}, {"pos"}]
    doc = docs[0]
    assert doc["run_id"] == runs[0].name and doc["status"] == "finished"
    assert doc["config"]["tasks"] == ["tc"] and "pandas" in doc["library_versions"]
    done = [j for j in doc["jobs"] if j["status"] == "done"]
    assert done and all(j["metric"] in j["metrics"] and j["data_fingerprint"] for j in done)
    assert any(j["status"] == "skipped" and j["message"] for j in doc["jobs"])  # moroccan arabic: empty test
    assert all(s["reason"] for s in doc["skips"])
    # each run's report holds that run's tasks only: no stale or mixed tables
    tables = [{p.name for p in (r / "report" / "tables").glob("leaderboard_*.csv")} for r in runs]
    assert tables == [{"leaderboard_tc.csv"}, {"leaderboard_pos.csv"}]


def test_limit_cuts_test_splits_and_keeps_limited_scores_apart(tmp_path):
    store = tmp_path / "r.sqlite"
    full = run(tasks=["tc"], source=FakeSource(), backend=FakeBackend(0.0), store=store)
    small = run(tasks=["tc"], source=FakeSource(), backend=FakeBackend(0.0), store=store,
                options=RunOptions(limit=2))
    assert not set(full.job_keys) & set(small.job_keys)  # a limited run never reuses or shadows a full one
    with Store(store) as db:
        rows = db.scores(latest=True)
    limited = [r for r in rows if r["model"].endswith("(limit 2)")]
    assert limited and all(r["n"] <= 2 for r in limited)
    assert any(r["n"] > 2 for r in rows if r not in limited)
    assert LimitedSource(FakeSource(), 1).load("tc", "english", "train") == FakeSource().load("tc", "english", "train")


def test_a_shortened_run_is_stored_under_a_marked_name_and_shadows_no_plain_run(tmp_path):
    store = tmp_path / "r.sqlite"
    run(tasks=["dep"], varieties=["english"], settings=["in-variety"], store=store)
    run(tasks=["dep"], varieties=["english"], settings=["in-variety"], store=store,
        options=RunOptions(epochs=1, max_train_minutes=0.05))
    with Store(store) as db:
        models = sorted(r["model"] for r in db.scores(latest=True))
    assert models == ["baseline", "baseline (epochs 1, max 0.05 min)"]  # both kept, the short one marked
    assert RunOptions(limit=5, batch_size=8).marks() == "limit 5, batch 8" and RunOptions().marks() == ""


def test_plain_runs_keep_their_job_keys():
    """Options left unset add nothing to the job config, so stores written before them still resume."""
    assert RunOptions().key_config() == {}
    assert RunOptions(limit=3).key_config() == {"limit": 3, "limit_sample": "stratified"}
    assert RunOptions(limit=3, limit_first=True).key_config() == {"limit": 3, "limit_sample": "first"}


def _sorted_by_label(n_pos: int, n_neg: int):
    from dialectbench.data.examples import TextExample

    labels = ["positive"] * n_pos + ["negative"] * n_neg  # as TSAC's test file: all positives first
    return [TextExample(f"t{i}", f"text {i}", label) for i, label in enumerate(labels)]


@pytest.mark.parametrize("n_pos, n_neg, limit, want", [(60, 40, 10, {"positive": 6, "negative": 4}),
                                                       (2, 998, 10, {"positive": 0, "negative": 10}),
                                                       (5, 5, 3, {"positive": 1, "negative": 2}),  # a tie: by label name
                                                       (33, 33, 66, {"positive": 33, "negative": 33})])
def test_limit_is_a_seeded_label_stratified_sample_in_file_order(n_pos, n_neg, limit, want):
    from collections import Counter

    class Sorted:
        def load(self, task, variety, split):
            return _sorted_by_label(n_pos, n_neg)

    picked = LimitedSource(Sorted(), limit, seed=7).load("sa", "tunisian arabic", "test")
    assert dict(Counter(ex.label for ex in picked)) == {k: v for k, v in want.items() if v}
    ids = [int(ex.example_id[1:]) for ex in picked]
    assert ids == sorted(ids) and len(set(ids)) == limit  # file order, no repeats
    again = LimitedSource(Sorted(), limit, seed=7).load("sa", "tunisian arabic", "test")
    other = LimitedSource(Sorted(), limit, seed=8).load("sa", "tunisian arabic", "test")
    assert again == picked and (other != picked or limit == n_pos + n_neg)  # seeded: same seed, same sample
    first = LimitedSource(Sorted(), limit, seed=7, first=True).load("sa", "tunisian arabic", "test")
    assert first == _sorted_by_label(n_pos, n_neg)[:limit]  # --limit-first: the old behaviour, on request


def test_limit_without_labels_is_a_seeded_sample_not_the_first_n():
    from dialectbench.data.examples import TaggedSentence

    class Tagged:
        def load(self, task, variety, split):
            return [TaggedSentence(f"s{i}", ("w",), ("O",)) for i in range(50)]

    picked = LimitedSource(Tagged(), 5, seed=1).load("ner", "english", "test")
    assert len(picked) == 5 and [s.example_id for s in picked] != [f"s{i}" for i in range(5)]


def test_training_options_reach_the_backends_and_their_configs():
    from dialectbench.backends import get_backend

    base = get_backend("baseline", **RunOptions(epochs=2, max_train_minutes=0.5).backend_options("baseline"))
    assert base.config["parser"]["max_epochs"] == 2 and base.config["parser"]["max_seconds"] == 30.0
    assert RunOptions().backend_options("baseline") == {}
    hf = RunOptions(epochs=1, batch_size=4, max_train_minutes=2, device="cpu").backend_options("xlmr")
    assert hf == {"overrides": {"epochs": 1, "batch_size": 4, "max_minutes": 2.0}, "device": "cpu"}
    with pytest.raises(OptionError, match="batch-size"):
        RunOptions(batch_size=8).backend_options("baseline")
    with pytest.raises(OptionError, match="CPU"):
        RunOptions(device="cuda").backend_options("baseline")
    with pytest.raises(OptionError, match="at least 1"):
        RunOptions(limit=0)
    with pytest.raises(OptionError, match="cuda:N"):
        RunOptions(device="gpu0")


def test_hf_time_cap_is_a_training_option():
    from dialectbench.backends.hf.config import task_config

    assert task_config("pos", {"max_minutes": 1.5, "epochs": 2}).max_minutes == 1.5


def test_an_unloadable_model_fails_once_before_any_job(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    store = tmp_path / "r.sqlite"
    out = _run_cli("--tasks", "tc", "--model", "hf:no-such-org/no-such-model", "--store", str(store))
    assert out.exit_code == 2
    errors = [line for line in out.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "cannot load model" in errors[0] and "hf download" in errors[0]
    assert not store.exists() or not Store(store).jobs()


def test_bad_option_for_the_backend_is_one_line(tmp_path):
    out = _run_cli("--tasks", "tc", "--batch-size", "8", "--store", str(tmp_path / "r.sqlite"))
    assert out.exit_code == 2 and "--batch-size does not apply to the baseline" in " ".join(out.output.split())


def test_models_lists_presets_and_backends_with_their_tasks():
    out = CliRunner().invoke(app, ["models", "--format", "json"])
    assert out.exit_code == 0
    rows = {r["model"]: r for r in json.loads(out.stdout)}
    assert {"baseline", "mbert", "xlmr", "nllb-600m", "nllb-1.3b"} <= set(rows)
    assert rows["nllb-600m"]["tasks"] == ["mt-dialect", "mt-region"] and "pos" in rows["xlmr"]["tasks"]
    assert "copy" in rows["baseline"]["note"] and "mt-dialect" not in rows["mbert"]["tasks"]


def test_every_stored_metric_is_exported_and_in_results(tmp_path, fake_cli):
    assert all_metrics("uas", 80.0, {"las": 70.0, "per_label": {"x": 1}, "flag": True}) == {"uas": 80.0,
                                                                                             "las": 70.0}
    store = tmp_path / "r.sqlite"
    assert _run_cli("--tasks", "tc", "--store", str(store), "--no-report").exit_code == 0
    out = CliRunner().invoke(app, ["results", "export", "--store", str(store), "--metrics", "all", "-f", "json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    extra_columns = {k for r in rows for k in r if k.startswith("metric:")}
    assert "metric:accuracy" in extra_columns and len(extra_columns) > 1  # the fake backend scores macro F1
    assert all(r[f"metric:{r['metric']}"] == r["score"] for r in rows)
    # 8 scored jobs: english, standard and egyptian arabic in-cluster and zero-shot, both azerbaijanis
    # zero-shot (moroccan arabic's test split is empty, najdi arabic has none)
    assert len(rows) == 8
    got = {(r["variety"], r["setting"]): r for r in rows}
    # the fake, fitted on english (labels science/sports/politics x 4: majority "science"), answers
    # right on ids ending 0/2/4 and "science" elsewhere. english test (sci spo pol sci spo pol): right
    # on 0, 2, 3, 4 -> accuracy 4/6; science P 2/4 R 2/2, sports and politics P 1 R 1/2: each F1 2/3
    en = got["english", "in-cluster"]
    assert en["n"] == 6 and en["metric"] == "macro_f1"
    assert en["score"] == pytest.approx(200 / 3) and en["metric:accuracy"] == pytest.approx(400 / 6)
    # north azerbaijani (sci spo pol sci): right on 0, 2, 3 -> 3/4; F1 science 0.8, sports 0, politics 1
    az = got["north azerbaijani", "zero-shot"]
    assert az["n"] == 4 and az["score"] == pytest.approx(60.0) and az["metric:accuracy"] == pytest.approx(75.0)
    assert az["metric:weighted_f1"] == pytest.approx(100 * (2 * 0.8 + 0 + 1) / 4)  # supports 2/1/1
    # the same numbers in the CSV export: the round trip through either format loses nothing
    as_csv = CliRunner().invoke(app, ["results", "export", "--store", str(store), "--metrics", "all", "-f", "csv"])
    csv_rows = {(r["variety"], r["setting"]): r for r in csv.DictReader(io.StringIO(as_csv.stdout))}
    assert set(csv_rows) == set(got)
    assert all(float(csv_rows[k][c]) == pytest.approx(float(got[k][c])) for k in got for c in got[k]
               if c.startswith("metric:") or c in ("score", "n"))
    bad = CliRunner().invoke(app, ["results", "export", "--store", str(store), "--metrics", "some"])
    assert bad.exit_code == 2


def test_library_warnings_are_shown_once_per_run(caplog):
    from dialectbench.runner.once import warnings_once

    log = logging.getLogger("sacrebleu")
    with caplog.at_level(logging.WARNING, logger="sacrebleu"), warnings_once():
        for _ in range(12):
            log.warning("It looks like you forgot to detokenize your test data")
        log.warning("another message")
    assert [r.getMessage() for r in caplog.records].count(
        "It looks like you forgot to detokenize your test data") == 1
    assert len(caplog.records) == 2


def test_unloadable_model_check_happens_before_planning(tmp_path):
    class Broken(FakeBackend):
        def preflight(self):
            raise OSError("cannot load model 'x': download it first")

    with pytest.raises(RunError, match="download it first"):
        run_mod._preflight(Broken(0.0))
