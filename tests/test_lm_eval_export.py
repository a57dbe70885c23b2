"""`dialectbench export lm-eval` on the bundled sample suite (no lm_eval needed): the folder's layout, names,
prompts, groups, sources; and that it refuses to write into the repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from dialectbench.backends.llm import prompts
from dialectbench.cli.main import app
from dialectbench.interop.lm_eval_export import EXPORTABLE, export_lm_eval, slug, task_name

REPO = Path(__file__).resolve().parents[1]


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!function", lambda loader, node: f"!function {loader.construct_scalar(node)}")


def test_every_exportable_task_gets_tasks_groups_and_sources(tmp_path):
    summary = export_lm_eval(tmp_path / "out")
    assert {e.task for e in summary.tasks} == set(EXPORTABLE)
    for e in summary.tasks:
        folder = tmp_path / "out" / e.folder
        config = yaml.load((folder / f"{e.name}.yaml").read_text(encoding="utf-8"), Loader=_Loader)
        assert config["task"] == e.name == task_name(e.task, e.variety)
        assert config["description"] == prompts.instruction(e.task, e.variety) + "\n\n"
        assert config["num_fewshot"] == e.n_fewshot and config["fewshot_config"] == {"sampler": "first_n"}
        assert config["custom_dataset"] == "!function utils.load_docs" and (folder / "utils.py").is_file()
        assert config["metadata"]["licence"] and config["metadata"]["variety"] == e.variety
        test = [json.loads(line) for line in (folder / "test.jsonl").open(encoding="utf-8")]
        assert len(test) == e.n_test > 0
        assert all(d["query"].endswith(("Label:", "Answer:")) for d in test)
        if e.task != "eqa":
            assert config["output_type"] == "multiple_choice"
            assert all(d["target"] in d["choices"] for d in test)
        metrics = {m["metric"] for m in config["metric_list"]}
        assert ("f1" in metrics) == (e.task in ("tc", "nli", "mrc", "did", "eqa"))
    assert "dialectbench_sa" in summary.groups and "dialectbench" in summary.groups
    top = yaml.safe_load((tmp_path / "out" / "_dialectbench.yaml").read_text(encoding="utf-8"))
    assert top["task"] == [g for g in summary.groups if g.count("_") == 1]
    readme = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "Sources and licences" in readme and "acc_norm" in readme


def test_did_demonstrations_show_the_cluster_varieties(tmp_path):
    summary = export_lm_eval(tmp_path / "out", tasks=["did"])
    for e in summary.tasks:  # the label set is the cluster's varieties, not English's
        assert e.variety in e.labels, (e.variety, e.labels)


def test_cli_writes_outside_and_refuses_the_repository(tmp_path):
    runner = CliRunner()
    done = runner.invoke(app, ["export", "lm-eval", "--tasks", "sa", "--limit", "3", "--out", str(tmp_path / "o"),
                               "--format", "json"])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "o" / "sa" / slug("standard arabic") / "test.jsonl").is_file()
    refused = runner.invoke(app, ["export", "lm-eval", "--tasks", "sa", "--out", str(REPO / "lm_eval_export")])
    assert refused.exit_code != 0 and "inside the repository" in refused.output
    assert not (REPO / "lm_eval_export").exists()


def test_unknown_or_token_task_is_refused(tmp_path):
    done = CliRunner().invoke(app, ["export", "lm-eval", "--tasks", "pos", "--out", str(tmp_path / "o")])
    assert done.exit_code != 0 and "token-level" in done.output


def _results(folder, sample_lines, acc=0.5):
    folder.mkdir(parents=True, exist_ok=True)
    name = "dialectbench_sa_tunisian_arabic"
    meta = {"dialectbench_task": "sa", "variety": "tunisian arabic", "cluster": "arabic", "setting": "icl",
            "train_on": "tunisian arabic"}
    (folder / "results_2026-01-01T00-00-00.json").write_text(json.dumps(
        {"results": {name: {"acc,none": acc}}, "configs": {name: {"metadata": meta, "num_fewshot": 4}},
         "n-shot": {name: 4}, "config": {"model_args": "pretrained=m,revision=abc"}, "model_name": "m"}))
    (folder / f"samples_{name}_2026-01-01T00-00-00.jsonl").write_text("\n".join(sample_lines) + "\n")


def _sample(i, target, lls):
    doc = {"id": f"x{i}", "query": "Sentence: s\n\nLabel:", "choices": ["negative", "positive"], "target": target}
    return json.dumps({"doc_id": i, "doc": doc, "filtered_resps": [[v, False] for v in lls],
                       "arguments": {"gen_args_0": {"arg_0": "ctx", "arg_1": " negative"}}})


def test_import_stores_scores_per_example_and_names_bad_lines(tmp_path):
    from dialectbench.interop.lm_eval_import import LmEvalImportError, import_lm_eval
    from dialectbench.runner.store import Store

    _results(tmp_path / "ok", [_sample(0, "positive", [-2.0, -1.0]), _sample(1, "positive", [-1.0, -3.0])])
    (row,) = import_lm_eval(tmp_path / "ok", tmp_path / "s.db")
    assert row["status"] == "imported" and row["model"] == "lm-eval:m@abc" and row["score"] == 50.0  # percent, as every stored score
    db = Store(tmp_path / "s.db")
    try:
        (score,) = db.scores(detail=True)
        assert [p["value"] for p in db.predictions(score["job_key"])] == [1.0, 0.0]
    finally:
        db.close()
    _results(tmp_path / "wrong_acc", [_sample(0, "positive", [-2.0, -1.0])], acc=0.0)
    with pytest.raises(LmEvalImportError, match="not the accuracy of its logged samples"):
        import_lm_eval(tmp_path / "wrong_acc", tmp_path / "s2.db")
    _results(tmp_path / "bad", [_sample(0, "positive", [-2.0, -1.0]), '{"doc_id": 1, "doc": {}}'])
    with pytest.raises(LmEvalImportError, match=r"samples_.*\.jsonl:2: "):
        import_lm_eval(tmp_path / "bad", tmp_path / "s3.db")
    _results(tmp_path / "nan", [_sample(0, "positive", [float("nan"), -1.0])])
    with pytest.raises(LmEvalImportError, match=":1: .*finite"):
        import_lm_eval(tmp_path / "nan", tmp_path / "s4.db")


@pytest.mark.parametrize("content", ['[1]', '{"configs": 3}', '{"configs": {"dialectbench_sa_english": 3}}',
                                     '{"configs": {"dialectbench_sa_english": {"metadata": "x"}}}',
                                     '{"results": [1], "configs": {}}'])
def test_import_of_a_malformed_results_file_is_one_line_naming_it(tmp_path, content):
    # a config that was not an object ended in AttributeError: 'int' object has no attribute 'get'
    (tmp_path / "results_x.json").write_text(content, encoding="utf-8")
    result = CliRunner().invoke(app, ["import", "lm-eval", str(tmp_path), "--store", str(tmp_path / "s.db")])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {tmp_path / 'results_x.json'}"), result.output
    assert "not an object" in lines[0]
