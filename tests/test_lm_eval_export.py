"""`dialectbench export lm-eval` on the bundled sample suite (no lm_eval needed): the folder's layout, names,
prompts, groups, sources; and that it refuses to write into the repository."""

from __future__ import annotations

import json
from pathlib import Path

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
