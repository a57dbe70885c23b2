"""CLI commands over the registries: varieties, clusters, tasks, show."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
import typer
from typer.testing import CliRunner

from dialectbench.cli import registry_cmds
from dialectbench.tasks import TASK_IDS

# Only this module's commands, registered as main.py does, so other command groups cannot break these tests.
app = typer.Typer()
registry_cmds.register(app)


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def run_json(*args: str) -> list[dict]:
    result = run(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_varieties_json_lists_281_rows():
    rows = run_json("varieties")
    assert len(rows) == 281 and len({r["name"] for r in rows}) == 281
    assert {"name", "cluster", "glottocode", "mbert_seen", "speakers", "tasks"} <= set(rows[0])


@pytest.mark.parametrize("task, expected", [("pos", 51), ("mt", 114), ("mt-region", 41), ("SA", 9)])
def test_varieties_filtered_by_task(task, expected):
    rows = run_json("varieties", "--task", task)
    assert len(rows) == expected
    assert all(r["code"] for r in rows)  # every listed variety has a dataset code for the task


def test_varieties_filtered_by_cluster_and_task():
    rows = run_json("varieties", "--cluster", "High German", "--task", "dep")
    assert [r["name"] for r in rows] == ["central alemannic (a:zh)", "german"]
    assert {r["code"] for r in rows} == {"UD_Swiss_German-UZH", "UD_German-LIT"}


def test_varieties_csv_has_header_and_281_rows():
    result = run("varieties", "--format", "csv")
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 281 and rows[0]["name"] == "albanian"


def test_varieties_table_is_default():
    result = run("varieties", "--task", "sa")
    assert result.exit_code == 0 and "9 varieties" in result.stdout and "tunisian" in result.stdout
    assert not result.stdout.lstrip().startswith("[")  # a rich table, not JSON


def test_unknown_task_is_a_clear_error_listing_ids():
    result = run("varieties", "--task", "parsing")
    assert result.exit_code == 2
    assert "unknown task 'parsing'" in result.stderr
    assert all(t in _flat(result.stderr) for t in TASK_IDS)
    assert run("clusters", "--task", "parsing").exit_code == 2


def test_unknown_cluster_suggests():
    result = run("varieties", "--cluster", "high germn")
    assert result.exit_code == 2 and "high german" in result.stderr


def test_clusters_json_lists_40_with_counts_and_representatives():
    rows = run_json("clusters")
    assert len(rows) == 40 and sum(r["varieties"] for r in rows) == 281
    anglic = next(r for r in rows if r["cluster"] == "anglic")
    assert anglic["representatives"]["eqa"] == "southeast american english"


@pytest.mark.parametrize("task, n_clusters, n_varieties", [("dep", 16, 40), ("did", 6, 49), ("mt-dialect", 12, 73)])
def test_clusters_per_task(task, n_clusters, n_varieties):
    rows = run_json("clusters", "--task", task)
    assert len(rows) == n_clusters and sum(r["varieties"] for r in rows) == n_varieties
    assert all(set(r["representatives"]) == {task} for r in rows)


def test_clusters_table_shows_single_task_representative():
    result = run("clusters", "--task", "mt-region")
    assert result.exit_code == 0 and "italian (a:umbria)" in _flat(result.stdout)


def test_tasks_json():
    rows = run_json("tasks")
    assert [r["id"] for r in rows] == list(TASK_IDS)
    dep = rows[0]
    assert (dep["metric"], dep["varieties"], dep["clusters"], dep["zero_shot_source"]) == ("UAS", 40, 16, "english")
    assert dep["settings"] == ["in-variety", "zero-shot"]
    sa = next(r for r in rows if r["id"] == "sa")  # in-variety is the original's SA protocol, run by default
    assert "in-variety" in sa["settings"] and sa["default_settings"] == ["in-variety", "icl"]


def test_tasks_table_fits_80_columns_with_whole_words():
    out = run("tasks").stdout
    assert max(len(line) for line in out.splitlines()) <= 80
    words = set(_flat(out).replace(",", " ").split())
    # every task's id and every setting print whole; SA's default in-variety setting is marked
    assert {"mt-dialect", "mt-region", "in-variety*", "zero-shot*", "in-cluster", "icl*", "Dependency"} <= words


def test_a_wide_table_states_a_constant_column_once_in_its_title():
    from dialectbench.cli.main import app as main_app

    out = CliRunner().invoke(main_app, ["plan", "--model", "baseline", "--tasks", "dep"]).stdout
    assert max(len(line) for line in out.splitlines()) <= 80
    title = out.splitlines()[0]
    assert "model: baseline" in title
    assert "baseline" not in "\n".join(out.splitlines()[1:])  # not repeated on every row


def test_show_json_has_everything_known():
    (row,) = run_json("show", "  English (A:Scotland) ")
    assert row["name"] == "english (a:scotland)" and row["area"] == "scotland"
    assert row["glottocode"] == "stan1293" and row["tasks"] == ["eqa"] and row["codes"] == {"eqa": "english--gbr"}
    assert row["cluster_representatives"] == {"eqa": "southeast american english"}
    assert row["representative_of_cluster_in"] == []


def test_show_marks_representatives():
    (row,) = run_json("show", "central alemannic (a:zh)")
    assert set(row["representative_of_cluster_in"]) == {"did", "mt-region"}


def test_show_table_and_csv():
    assert "stan1293" in run("show", "english").stdout
    rows = list(csv.DictReader(io.StringIO(run("show", "english", "--format", "csv").stdout)))
    assert len(rows) == 1 and rows[0]["glottocode"] == "stan1293"


def test_show_unknown_name_exits_2_with_suggestions():
    result = run("show", "englsh (a:scotlnd)")
    assert result.exit_code == 2 and result.stdout == ""
    assert "did you mean" in result.stderr and "english (a:scotland)" in _flat(result.stderr)


def test_show_malformed_name_names_the_problem():
    result = run("show", "english (x:uk)")
    assert result.exit_code == 2 and "unknown attribute key 'x'" in result.stderr


def test_show_takes_a_name_of_several_words_unquoted():
    # `show swiss german` was 'Got unexpected extra argument (german)'
    assert run_json("show", "english", "(a:scotland)") == run_json("show", "english (a:scotland)")
    assert run_json("show", "swiss", "german")[0]["name"] == run_json("show", "swiss german")[0]["name"]
