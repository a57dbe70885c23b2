"""Issue 40 item 4: `run --output-path` writes lm-evaluation-harness's layout beside runs/<id>/, and
`tasks --list` prints the lm-eval names; the names come from tasks/naming.py."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from sklearn.metrics import f1_score
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.runner import Store
from dialectbench.runner.lm_eval_output import sanitize_model_name
from dialectbench.tasks import TASKS
from dialectbench.tasks.naming import lm_eval_group, lm_eval_task, variety_slug
from dialectbench.varieties import registry

STAMP = r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(\.\d+)?"
LM_EVAL_KEYS = {"results", "groups", "group_subtasks", "configs", "versions", "n-shot", "higher_is_better",
                "n-samples", "config", "git_hash", "date", "task_hashes", "model_name", "model_name_sanitized",
                "start_time", "end_time", "total_evaluation_time_seconds", "model_source"}
SAMPLE_KEYS = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics", "doc_hash",
               "prompt_hash", "target_hash"}


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("lm_eval_out")
    out, lm = root / "results", root / "lm"
    result = CliRunner().invoke(app, ["run", "-t", "sa,tc,mrc,eqa,did", "-o", str(out), "--no-report",
                                      "--output-path", str(lm)])
    assert result.exit_code == 0, result.output
    return out, lm


def _results_file(lm: Path) -> Path:
    files = list((lm / "baseline").glob("results_*.json"))
    assert len(files) == 1, files
    return files[0]


def test_files_are_named_and_keyed_as_lm_eval_writes_them(sample_run):
    _, lm = sample_run
    assert [p.name for p in lm.iterdir()] == ["baseline"]  # one folder per model, named by lm-eval's rule
    path = _results_file(lm)
    stamp = re.fullmatch(rf"results_({STAMP})\.json", path.name).group(1)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert LM_EVAL_KEYS <= set(doc), LM_EVAL_KEYS - set(doc)
    assert doc["model_name"] == "baseline" and doc["model_name_sanitized"] == "baseline"
    tasks = [t for t in doc["results"] if t not in doc["groups"]]
    assert "dialectbench_sa_tunisian_arabic_r_casual__in_variety" in tasks
    assert {"dialectbench_sa__in_variety", "dialectbench_tc__in_cluster"} <= set(doc["groups"])
    samples = {p.name for p in (lm / "baseline").glob("samples_*.jsonl")}
    assert samples == {f"samples_{t}_{stamp}.jsonl" for t in tasks}
    for group, members in doc["group_subtasks"].items():
        assert set(members) <= set(tasks) and group in doc["configs"]
    for task in tasks:
        assert set(doc["results"][task]) >= {"alias", "sample_len"}
        assert any(k.endswith(",none") and "_stderr" not in k for k in doc["results"][task])
        assert doc["n-samples"][task]["effective"] == doc["results"][task]["sample_len"]


def test_every_sample_line_agrees_with_the_stored_prediction_and_the_score(sample_run):
    out, lm = sample_run
    path = _results_file(lm)
    doc = json.loads(path.read_text(encoding="utf-8"))
    stamp = path.name[len("results_"):-len(".json")]
    checked = {"acc": 0, "f1 pairs": 0, "f1 items": 0}
    with Store(out / "results.sqlite", readonly=True) as db:
        scores = {r["job_key"]: r for r in db.scores(latest=False, detail=True, include_overlap=True)}
        for task, result in doc["results"].items():
            if task in doc["groups"]:
                continue
            meta = doc["configs"][task]["metadata"]
            stored = scores[meta["job_key"]]
            metric = {"accuracy": "acc", "macro_f1": "f1", "f1": "f1"}[stored["metric"]]
            assert result[f"{metric},none"] == pytest.approx(stored["score"] / 100.0, abs=1e-12)
            predictions = db.predictions(meta["job_key"])
            lines = [json.loads(x) for x in (path.parent / f"samples_{task}_{stamp}.jsonl").read_text(
                encoding="utf-8").splitlines()]
            assert len(lines) == len(predictions) == result["sample_len"] == stored["n"]
            pairs = []
            for line, p in zip(lines, predictions, strict=True):
                assert SAMPLE_KEYS <= set(line) and line["metrics"] == [metric]
                assert line["doc_id"] == p["idx"] and line["doc"]["example_id"] == p["example_id"]
                shown = p["prediction"] if isinstance(p["prediction"], str) else json.dumps(p["prediction"])
                assert line["filtered_resps"] == [shown]
                assert line["doc_hash"] == hashlib.sha256(json.dumps(line["doc"], indent=2, ensure_ascii=False)
                                                          .encode()).hexdigest()
                assert line["target_hash"] == hashlib.sha256(line["target"].encode()).hexdigest()
                value = line[metric]
                if metric == "acc":
                    assert value == float(str(p["prediction"]) == line["target"]) == p["value"]
                    checked["acc"] += 1
                elif isinstance(value, list):  # a corpus metric: lm-eval's [target, prediction] item
                    assert value[1] == p["prediction"] and str(value[0]) == line["target"]
                    pairs.append(value)
                    checked["f1 pairs"] += 1
                else:  # span F1: the mean of the per-question values
                    assert value == p["value"]
                    checked["f1 items"] += 1
            if metric == "acc":
                assert sum(x["acc"] for x in lines) / len(lines) == pytest.approx(result["acc,none"])
            elif pairs and stored["metric"] == "macro_f1":  # the corpus metric recomputed from the items
                gold, pred = zip(*((str(a), str(b)) for a, b in pairs), strict=True)
                assert f1_score(gold, pred, average="macro") == pytest.approx(result["f1,none"])
            elif not pairs:
                assert sum(x["f1"] for x in lines) / len(lines) == pytest.approx(result["f1,none"])
    assert all(checked.values()), checked


def test_groups_are_the_results_json_headlines_and_hashes_cover_the_samples(sample_run):
    out, lm = sample_run
    doc = json.loads(_results_file(lm).read_text(encoding="utf-8"))
    run_id = (out / "latest").read_text().strip()
    ours = json.loads((out / "runs" / run_id / "results.json").read_text(encoding="utf-8"))
    assert doc["dialectbench"]["run_id"] == run_id
    for task, spec in ours["results"].items():
        for setting, by_model in spec["by_setting"].items():
            head = by_model["baseline"]
            group = doc["groups"][lm_eval_group(task, setting)]
            name = {"accuracy": "acc", "macro_f1": "f1", "f1": "f1"}[spec["metric"]]
            assert group[f"{name},none"] == pytest.approx(head["mean"] / 100.0)
    stamp = _results_file(lm).name[len("results_"):-len(".json")]
    for task, digest in doc["task_hashes"].items():
        lines = [json.loads(x) for x in (lm / "baseline" / f"samples_{task}_{stamp}.jsonl").read_text(
            encoding="utf-8").splitlines()]
        joined = "".join(x["doc_hash"] + x["prompt_hash"] + x["target_hash"] for x in lines)
        assert digest == hashlib.sha256(joined.encode()).hexdigest()


def test_names_are_unique_per_task_and_sanitised_as_lm_eval_does():
    reg = registry()
    for task in TASKS:
        names = [lm_eval_task(task, v.name) for v in reg.varieties(task=task)]
        assert len(set(names)) == len(names), task
        assert all(re.fullmatch(r"[a-z0-9_]+", n) and "__" not in n for n in names)
    assert variety_slug("Häme (a:Tavastian)") == "hame_a_tavastian"
    assert lm_eval_task("mt-dialect", "kölsch", "zero-shot") == "dialectbench_mt_dialect_kolsch__zero_shot"
    assert sanitize_model_name("hf-causal:HuggingFaceTB/SmolLM2-135M") == "hf-causal__HuggingFaceTB__SmolLM2-135M"


def test_tasks_list_prints_the_lm_eval_names():
    result = CliRunner().invoke(app, ["tasks", "--list", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names))
    assert {"dialectbench_sa", "dialectbench_sa_tunisian_arabic", "dialectbench_mt_dialect"} <= set(names)
    groups = [r for r in rows if r["type"] == "group"]
    assert len(groups) == len(TASKS)
    assert sum(r["type"] == "task" for r in rows) == sum(g["subtasks"] for g in groups)


@pytest.mark.parametrize("columns", ["40", "80", "200"])
def test_tasks_list_table_keeps_every_name_whole_on_its_line(columns):
    # a boxed table folded 'dialectbench_sa_nigerian_engl|ish' at 80 columns: the names are to be pasted
    names = [r["name"] for r in json.loads(CliRunner().invoke(app, ["tasks", "--list", "-f", "json"]).stdout)]
    result = CliRunner().invoke(app, ["tasks", "--list"], env={"COLUMNS": columns})
    assert result.exit_code == 0, result.output
    listed = [ln.strip().split()[0] for ln in result.stdout.splitlines()[1:]]
    assert listed == names


def test_a_model_with_an_id_is_named_by_it_as_lm_eval_names_pretrained():
    from dialectbench.runner.lm_eval_output import _model_args, _model_id

    backend = {"source": "hf-causal:HuggingFaceTB/SmolLM2-135M", "dtype": "auto", "k": {"sa": 4}}
    name = _model_id(backend, "hf-causal:HuggingFaceTB/SmolLM2-135M (limit 8)")
    assert name == "HuggingFaceTB/SmolLM2-135M" and sanitize_model_name(name) == "HuggingFaceTB__SmolLM2-135M"
    assert _model_args(backend, name, "x") == "pretrained=HuggingFaceTB/SmolLM2-135M,dtype=auto"
    assert _model_id({"served_model": "m", "source": "llm:http://h/v1"}, "llm:http://h/v1") == "m"
    assert _model_id({"crf": {}}, "baseline") == "baseline" and _model_args({}, "baseline", "baseline") is None


def test_lm_eval_reads_the_file_names_back(sample_run):
    utils = pytest.importorskip("lm_eval.utils")
    _, lm = sample_run
    files = [str(p) for p in (lm / "baseline").iterdir()]
    doc = json.loads(_results_file(lm).read_text(encoding="utf-8"))
    assert utils.get_results_filenames(files) == [str(_results_file(lm))]
    samples = utils.get_sample_results_filenames(files)
    assert {utils.get_file_task_name(Path(f).name) for f in samples} == set(doc["results"]) - set(doc["groups"])
    assert {utils.get_file_datetime(f) for f in samples} == {  # (it strips .jsonl only: samples files)
        _results_file(lm).name[len("results_"):-len(".json")]}
    assert utils.sanitize_model_name("hf-causal:a/b") == sanitize_model_name("hf-causal:a/b")
