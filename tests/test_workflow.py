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

run_mod = importlib.import_module("dialectbench.runner.orchestrate")


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
    # lm-eval-shaped keys (issue 28): the task's aggregate, direction, versions with the plan's data hashes
    headline = [e for by_model in doc["results"]["tc"]["by_setting"].values() for e in by_model.values()]
    assert doc["format_version"] == 3 and sum(e["n"] for e in headline) == len(done)
    assert doc["higher_is_better"]["tc"]["macro_f1"] is True
    assert doc["versions"]["tasks"]["tc"]["data_fingerprints"] and doc["command_line"]
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


# -- results.json in lm-evaluation-harness's shape (issue 28, item 3): a small run with known scores

def _record(key, task, variety, score, *, setting="in-variety", metric=None, status="done", signature="",
            extra=None):
    from dialectbench.runner.store import JobRecord
    from dialectbench.tasks import TASKS

    return JobRecord(job_key=key, task=task, variety=variety, cluster="c", model="baseline", setting=setting,
                     train_on=variety, status=status, data_fingerprint=f"fp-{key}",
                     metric=metric or TASKS[task].metric if status == "done" else "", score=score, n=10,
                     signature=signature, extra=extra or {}, message="" if status == "done" else "boom")


POS_SIG = "pos-f1|seqeval:default-mode-on-raw-upos (DialectBench)|accuracy:token"
BLEU_SIG = "ref:human|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
CHRF_SIG = "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0"


@pytest.fixture
def small_run(tmp_path):
    """pos: 70, 80, 90 in-variety and 60 zero-shot; dep: 50 and an undefined score (NaN), a CER beside
    it; mt-dialect: one BLEU; did: per-variety class F1 (stored as `f1`, declared macro_f1); a failed job."""
    store = tmp_path / "s.sqlite"
    records = [
        _record("k1", "pos", "a", 70.0, signature=POS_SIG, extra={"accuracy": 71.0}),
        _record("k2", "pos", "b", 80.0, signature=POS_SIG, extra={"accuracy": 81.0}),
        _record("k3", "pos", "c", 90.0, signature=POS_SIG, extra={"accuracy": 91.0}),
        _record("k4", "pos", "a", 60.0, setting="zero-shot", signature=POS_SIG),
        _record("k5", "dep", "a", 50.0, signature="uas|punct:excluded|deprel:universal|pooled:words",
                extra={"las": 40.0, "cer": 5.0}),
        _record("k6", "dep", "b", float("nan"), signature="uas|punct:excluded|deprel:universal|pooled:words"),
        _record("k7", "mt-dialect", "a", 30.0, signature=BLEU_SIG, extra={"chrf": 55.0, "chrf_signature": CHRF_SIG}),
        _record("k8", "did", "a", 40.0, metric="f1",
                signature="did|class f1 on the pooled cluster test|classification|primary:macro_f1|sklearn|"
                          "zero_division:0"),
        _record("k9", "pos", "d", None, status="failed"),
    ]
    with Store(store) as db:
        db.start_run("r1", seed=0, config={"tasks": ["pos"]}, package_version="9.9.9",
                     library_versions={"scikit-learn": "1.9.1", "seqeval": "1.2.2"}, git_hash="abc")
        for r in records:
            assert db.commit_job("r1", r)
        db.finish_run("r1", "finished", {"done": 8})
    return store, [r.job_key for r in records]


def _tables(store):
    with Store(store) as db:
        return ([dict(r) for r in db.conn.execute("SELECT * FROM scores ORDER BY job_key")],
                [dict(r) for r in db.conn.execute("SELECT * FROM jobs ORDER BY job_key")])


def _write(store, keys, tmp_path, **kw):
    from dialectbench.runner.results_file import write_results

    path = write_results(store, tmp_path / "out", "r1", keys, **kw)
    return json.loads(path.read_text(encoding="utf-8"))


def test_results_block_is_one_headline_per_task_and_setting_by_hand(small_run, tmp_path):
    """Issue 36 item 1 (format 3): settings are never averaged together; the spread over varieties is named
    for what it is; an item-level stderr only where per-example evidence exists (none in this store)."""
    store, keys = small_run
    doc = _write(store, keys, tmp_path, argv=["dialectbench", "run"])
    assert doc["format_version"] == doc["results_version"] == 3
    pos = doc["results"]["pos"]
    assert pos["metric"] == "f1" and pos["aggregation"] == "mean" and pos["higher_is_better"] is True
    assert "mean" not in pos  # no mean of in-variety with zero-shot (was 75.0)
    # in-variety 70, 80, 90: mean 80, sd 10 over the three varieties; zero-shot: one score, no spread
    iv = pos["by_setting"]["in-variety"]["baseline"]
    assert iv["mean"] == pytest.approx(80.0) and iv["n"] == 3 and iv["varieties"] == ["a", "b", "c"]
    assert iv["std_over_varieties"] == pytest.approx(10.0) and iv["stderr"] is None and iv["stderr_method"] is None
    zs = pos["by_setting"]["zero-shot"]["baseline"]
    assert zs["mean"] == 60.0 and zs["std_over_varieties"] is None and zs["n_excluded"] == 0
    dep = doc["results"]["dep"]["by_setting"]["in-variety"]["baseline"]  # the NaN score is named apart, not averaged
    assert dep["mean"] == 50.0 and dep["n"] == 1 and dep["undefined"] == ["b"]
    assert doc["results"]["mt-dialect"]["by_setting"]["in-variety"]["baseline"]["mean"] == 30.0
    assert doc["results"]["did"]["metric"] == "f1"  # the declared stored metric (the dialect-identification kind's per-variety metric)
    assert set(doc["results"]) == {"pos", "dep", "mt-dialect", "did"}  # the failed job adds nothing
    # lm-eval fields: examples scored, per-task configs, the model's revision (not recorded: null)
    assert doc["n-samples"]["pos"] == {"effective": 4 * 10, "original": 4 * 10}
    assert doc["configs"]["pos"]["declaration"]["metric"] == "f1" and doc["n-shot"]["pos"] == {
        "in-variety": None, "zero-shot": None}
    assert doc["models"]["baseline"]["revision"] is None


def test_higher_is_better_per_task_and_metric_from_the_declarations(small_run, tmp_path):
    store, keys = small_run
    hib = _write(store, keys, tmp_path, argv=[])["higher_is_better"]
    # issue 36: only metrics tasks.yaml declares carry a direction (dep's cer here is not)
    assert hib["pos"] == {"f1": True, "accuracy": True}
    assert hib["dep"] == {"uas": True, "las": True}
    assert hib["mt-dialect"] == {"bleu": True, "chrf": True}
    assert hib["did"] == {"macro_f1": True, "f1": True}


def test_versions_hash_each_task_declaration_jobs_and_data(small_run, tmp_path):
    import hashlib
    from types import SimpleNamespace

    from dialectbench.runner.plan import KEY_VERSION
    from dialectbench.tasks import TASKS

    def digest(value):
        return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]

    store, keys = small_run
    plan = SimpleNamespace(groups=[SimpleNamespace(task="pos", fingerprints={("b", "test"): "fb", ("a", "test"): "fa"})])
    v = _write(store, keys, tmp_path, plan=plan, argv=[])["versions"]
    assert v["package"] == "9.9.9" and v["git_hash"] == "abc" and v["job_key_version"] == KEY_VERSION
    assert v["tasks"]["pos"]["declaration"] == digest(TASKS["pos"].model_dump(mode="json"))
    assert v["tasks"]["pos"]["jobs"] == digest(["k1", "k2", "k3", "k4", "k9"])
    assert v["tasks"]["pos"]["data_fingerprints"] == {"a/test": "fa", "b/test": "fb"}
    assert v["tasks"]["pos"]["data"] == digest({"a/test": "fa", "b/test": "fb"})
    assert "data" not in v["tasks"]["dep"]  # not in the plan given: job hashes only
    assert v["tasks"]["dep"]["declaration"] != v["tasks"]["pos"]["declaration"]


def test_signatures_gain_a_structured_form_and_keep_their_strings(small_run, tmp_path):
    store, keys = small_run
    jobs = {j["job_key"]: j for j in _write(store, keys, tmp_path, argv=[])["jobs"]}
    assert jobs["k7"]["signature"] == BLEU_SIG
    assert jobs["k7"]["signature_parsed"] == {
        "name": "bleu", "library": "sacrebleu", "version": "2.6.0", "components": [],
        "options": {"ref": "human", "nrefs": "1", "case": "mixed", "eff": "no", "tok": "13a", "smooth": "exp"}}
    assert jobs["k7"]["extra_signatures_parsed"]["chrf"]["options"]["nc"] == "6"
    assert jobs["k1"]["signature_parsed"]["library"] == "seqeval"
    assert jobs["k1"]["signature_parsed"]["version"] == "1.2.2"  # the run's recorded library version
    assert jobs["k8"]["signature_parsed"]["library"] == "sklearn"
    assert jobs["k8"]["signature_parsed"]["version"] == "1.9.1"
    assert jobs["k8"]["signature_parsed"]["options"] == {"primary": "macro_f1", "zero_division": "0"}
    assert jobs["k5"]["signature_parsed"] == {
        "name": "uas", "library": "dialectbench", "version": "9.9.9", "components": ["uas"],
        "options": {"punct": "excluded", "deprel": "universal", "pooled": "words"}}
    assert "signature_parsed" not in jobs["k9"]  # failed: no score, no signature


def test_real_metric_signatures_parse():
    from importlib import metadata

    from dialectbench.metrics.generation import bleu
    from dialectbench.metrics.signature import Signature

    res = bleu(["the cat sat"], ["the cat sat"])
    sig = res.signature_object  # issue 39 item 4: the object replaces parse_signature
    assert sig.metric == "bleu" and sig.library == "sacrebleu" and sig.options["tok"] == "13a"
    assert sig.version == metadata.version("sacrebleu") and str(sig) == res.signature
    assert Signature.from_string("a:1|a:2|b", "m").options == {"a": ["1", "2"]}
    assert Signature.from_string("", "m").as_dict() == {"name": "m", "library": None, "version": None,
                                                        "options": {}, "components": []}


def test_every_metric_builds_its_signature_as_the_object_its_stored_string_reads_back_as():
    """Each metric builds a Signature (no string parsed); reading the stored string back (`from_string`,
    with the installed versions) gives the same object, so an old store and a new score agree."""
    from dialectbench.metrics import score_task
    from dialectbench.metrics.classification import classification_scores, multiple_choice_accuracy
    from dialectbench.metrics.generation import bleu, chrf
    from dialectbench.metrics.parsing import attachment_scores
    from dialectbench.metrics.qa import squad_scores
    from dialectbench.metrics.signature import LIBRARIES, Signature, library_version
    from dialectbench.metrics.speech import wer
    from dialectbench.metrics.tagging import entity_f1, pos_scores

    class Mc:
        answer = 1

    results = [bleu(["the cat sat"], ["the cat sat"]), chrf(["the cat"], ["the cat"]),
               classification_scores(["a", "b"], ["a", "a"], primary="macro"),
               multiple_choice_accuracy([0, 1], [0, 0]), score_task("mrc", [Mc(), Mc()], [1, 0]),
               attachment_scores([[0, 1]], [["root", "x"]], [[0, 1]], [["root", "x"]], gold_upos=[["X", "X"]]),
               squad_scores([["a b"]], ["a"]), pos_scores([["X"]], [["X"]]), pos_scores([["X"]], [["X"]], f1="micro"),
               entity_f1([["B-PER", "O"]], [["B-PER", "O"]]), wer(["a b"], ["a c"])]
    versions = {dist: library_version(lib) for lib, dist in LIBRARIES.items()}
    for res in results:
        sig = res.signature_object
        assert isinstance(sig, Signature) and str(sig) == res.signature and sig.metric == res.metric
        assert sig == Signature.from_string(res.signature, res.metric, library_versions=versions,
                                            package_version=library_version("dialectbench")), res.signature
    assert results[4].signature.startswith("multiple-choice|classification|primary:macro_f1|sklearn")


def test_stored_scores_and_job_keys_are_unchanged_by_the_results_file(small_run, tmp_path):
    store, keys = small_run
    before = _tables(store)
    doc = _write(store, keys, tmp_path, argv=["dialectbench", "run", "--api-key", "sk-" + "x" * 24])
    assert _tables(store) == before
    scores = {r["job_key"]: r for r in before[0]}
    for job in doc["jobs"]:
        if job["status"] == "done" and job["job_key"] != "k6":
            assert job["score"] == scores[job["job_key"]]["score"]
            assert job["signature"] == scores[job["job_key"]]["signature"]
    assert "x" * 24 not in json.dumps(doc)


@pytest.mark.parametrize("argv, want", [
    (["--api-key", "abc123"], ["--api-key", "<redacted>"]),
    (["--api-key=abc123"], ["--api-key=<redacted>"]),
    (["--hf-token", "hf_" + "a" * 30], ["--hf-token", "<redacted>"]),
    (["-m", "llm:https://bob:s3cret@host.example/v1"], ["-m", "llm:https://<redacted>@host.example/v1"]),
    (["-m", "llm:http://host/v1?api_key=zz&x=1"], ["-m", "llm:http://host/v1?api_key=<redacted>&x=1"]),
    (["--model-args", "token=abc,dtype=bf16"], ["--model-args", "token=<redacted>,dtype=bf16"]),
    (["OPENAI_API_KEY=sk-abc"], ["OPENAI_API_KEY=<redacted>"]),
    (["sk-" + "A1" * 12], ["<redacted>"]),
    (["--system-prompt", "Authorization: Bearer abc.def"], ["--system-prompt", "Authorization: Bearer <redacted>"]),
    # not secrets: left as they are
    (["--max-tokens", "32", "--tokenize", "13a", "-m", "llm:http://localhost:8000/v1", "--tasks", "pos"],
     ["--max-tokens", "32", "--tokenize", "13a", "-m", "llm:http://localhost:8000/v1", "--tasks", "pos"]),
])
def test_command_line_redacts_what_looks_like_a_secret(argv, want):
    from dialectbench.runner.results_file import redact_argv

    assert redact_argv(["dialectbench", "run", *argv]) == ["dialectbench", "run", *want]


def test_results_file_records_command_line_python_and_platform(small_run, tmp_path, monkeypatch):
    import platform
    import sys

    store, keys = small_run
    monkeypatch.setattr(sys, "argv", ["/home/someone/.venv/bin/dialectbench", "run", "--tasks", "pos", "--api-key", "k"])
    doc = _write(store, keys, tmp_path)
    assert doc["command_line"] == ["dialectbench", "run", "--tasks", "pos", "--api-key", "<redacted>"]
    assert doc["environment"]["python"] == platform.python_version()
    assert doc["environment"]["platform"] == platform.platform()
