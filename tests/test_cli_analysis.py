"""`dialectbench analyze` and `dialectbench fairness`: outputs, formats and errors on bad input."""

from __future__ import annotations

import csv
import io
import json
import re

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from dialectbench.cli import analysis_cmds

# Only this module's commands, registered as main.py does, so other command groups cannot break these tests.
app = typer.Typer()
analysis_cmds.register(app)

HEADER = "task,cluster,variety,model,setting,train_on,metric,score,n"
# A small table with hand-checkable figures: anglic POS with english (the representative) and singlish.
SCORES = f"""{HEADER}
pos,anglic,english,mbert,zero-shot,english,f1,80,
pos,anglic,singlish,mbert,zero-shot,english,f1,60,
pos,anglic,singlish,mbert,in-variety,singlish,f1,70,
pos,anglic,english,xlmr,zero-shot,english,f1,90,
pos,arabic,standard arabic,mbert,zero-shot,english,f1,40,
"""


def run(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _error(result) -> str:
    assert result.exit_code == 2, result.output
    return _flat(result.stderr)


# ---------------------------------------------------------------------------------------------- analyze

def test_analyze_writes_the_four_tables(tmp_path):
    scores = _write(tmp_path, "scores.csv", SCORES)
    result = run("analyze", scores, "--out", tmp_path / "out", "--format", "json")
    assert result.exit_code == 0, result.output
    out = tmp_path / "out"
    best = pd.read_csv(out / "max_scores.csv")
    assert best.set_index("variety").loc["english", "score"] == 90  # best over models
    assert best.set_index("variety").loc["singlish", "score"] == 70  # best over settings
    clusters = pd.read_csv(out / "cluster_summary.csv")
    assert list(clusters.columns) == list(analysis_cmds.CLUSTER_COLUMNS)
    anglic = clusters.set_index("cluster").loc["anglic"]
    assert anglic.n_varieties == 2 and anglic.linguistic_utility == 80 and anglic.min_variety == "singlish"
    assert abs(anglic["std"] - 14.1421) < 1e-4  # sample std of 90 and 70
    gap_table = pd.read_csv(out / "gaps.csv")
    assert list(gap_table.columns[:6]) == ["task", "model", "cluster", "gap", "value", "n_varieties"]
    eng_rep = gap_table.query("model == 'mbert' and cluster == 'anglic' and gap == 'eng_rep'")
    assert eng_rep.value.tolist() == [25.0]  # (80 - 60) / 80
    assert set(pd.read_csv(out / "task_summary.csv").task) == {"pos"}
    rows = json.loads(result.stdout)  # json: the cluster summary and nothing else on stdout
    assert [r["cluster"] for r in rows] == ["anglic", "arabic"]
    assert rows[1]["std"] is None  # one-variety cluster: undefined, not 0


def test_analyze_speakers_file_weights_the_demographic_utility(tmp_path):
    scores = _write(tmp_path, "scores.csv", SCORES)
    speakers = _write(tmp_path, "speakers.csv", "variety,speakers\nenglish,3\nsinglish,1\n")
    result = run("analyze", scores, "--out", tmp_path, "--speakers", speakers, "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = {r["cluster"]: r for r in csv.DictReader(io.StringIO(result.stdout))}
    assert float(rows["anglic"]["demographic_utility"]) == pytest.approx((3 * 90 + 70) / 4)
    assert rows["arabic"]["demographic_utility"] == ""  # no count for standard arabic in this file


def test_analyze_paper_shortcut_reproduces_table_23(tmp_path):
    result = run("analyze", "paper", "--out", tmp_path, "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = {(r["task"], r["cluster"]): r for r in csv.DictReader(io.StringIO(result.stdout))}
    anglic = rows[("dep", "anglic")]
    assert round(float(anglic["linguistic_utility"]), 1) == 75.5
    assert anglic["min_variety"] == "african american vernacular english"
    assert {t for t, _ in rows} == {"dep", "pos", "ner", "nli", "tc", "did", "sa", "mrc", "eqa", "mt-dialect",
                                    "mt-region"}
    assert (tmp_path / "gaps.csv").is_file()


def test_analyze_table_output_shows_both_summaries(tmp_path):
    result = run("analyze", _write(tmp_path, "s.csv", SCORES), "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output
    assert "Task summary" in result.stdout and "Cluster summary" in result.stdout
    assert "wrote max_scores.csv" in _flat(result.stderr)


@pytest.mark.parametrize("text,expected", [
    (SCORES.replace(",score,", ",value,"), r"missing column\(s\) score"),
    (SCORES.replace(",60,", ",sixty,"), r":3: row 2: score 'sixty' is not a number"),
    # an unregistered variety is accepted only with its cluster given (a user's own variety)
    (SCORES.replace("anglic,singlish,mbert,zero", ",singlsh,mbert,zero"), r":3: row 2: .*unknown variety 'singlsh'"),
    (SCORES + "pos,anglic,english,mbert,zero-shot,english,f1,81,\n", r":7: row 6: .*duplicate of row 1"),
    (SCORES.replace("zero-shot,english,f1,40", "few-shot,english,f1,40"), r":6: row 5: .*unknown setting"),
])
def test_analyze_bad_scores_name_file_row_and_problem(tmp_path, text, expected):
    path = _write(tmp_path, "bad.csv", text)
    message = _error(run("analyze", path, "--out", tmp_path / "o"))
    assert "bad.csv" in message and re.search(expected, message), message
    assert not (tmp_path / "o").exists()  # nothing written on error


def test_analyze_missing_file_and_bad_speakers(tmp_path):
    assert "nope.csv: no such file" in _error(run("analyze", tmp_path / "nope.csv", "--out", tmp_path))
    scores = _write(tmp_path, "scores.csv", SCORES)
    bad = _write(tmp_path, "sp.csv", "variety,speakers\nenglish,many\n")
    message = _error(run("analyze", scores, "--out", tmp_path, "--speakers", bad))
    assert "sp.csv:2: row 1: column 'speakers' is 'many', not a finite number" in message
    bad = _write(tmp_path, "sp2.csv", "name,speakers\nenglish,3\n")
    assert "sp2.csv: missing column(s) 'variety'" in _error(run("analyze", scores, "--out", tmp_path,
                                                                "--speakers", bad))
    bad = _write(tmp_path, "sp3.csv", "variety,speakers\nenglish,3\nEnglish,4\n")
    assert ":3: row 2: variety 'English' is listed twice" in _error(run("analyze", scores, "--out", tmp_path,
                                                                     "--speakers", bad))


# --------------------------------------------------------------------------------------------- fairness

VALUES = "id,variety,f1\n1,a,1\n2,a,1\n3,b,3\n4,b,3\n5,c,2\n6,c,2\n"


def test_fairness_json_decomposes_total_into_within_and_between(tmp_path):
    path = _write(tmp_path, "values.csv", VALUES)
    result = run("fairness", path, "--group", "variety", "--value", "f1", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    overall, groups = rows[0], {r["group"]: r for r in rows[1:]}
    # mu = 2; E^2 = 1/(n*2) * sum((b/mu)^2 - 1) = (2*(0.25-1) + 2*(2.25-1) + 0) / 12 = 1/12
    assert overall["group"] == "(all)" and overall["total"] == pytest.approx(1 / 12)
    assert overall["within"] == pytest.approx(0) and overall["between"] == pytest.approx(1 / 12)
    assert set(groups) == {"a", "b", "c"}
    assert sum(g["between"] for g in groups.values()) == pytest.approx(overall["between"])
    assert groups["a"]["between"] < 0 < groups["b"]["between"]  # below / above the overall mean
    assert groups["c"]["n"] == 2 and groups["c"]["mean"] == 2


def test_fairness_alpha_and_csv(tmp_path):
    path = _write(tmp_path, "values.csv", "g,v\nx,1\nx,3\ny,2\ny,2\n")
    result = run("fairness", path, "--group", "g", "--value", "v", "--alpha", "3", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert rows[0]["group"] == "(all)" and float(rows[0]["alpha"]) == 3
    # alpha = 3, mu = 2: 1/(4*3*2) * ((1/2)^3 + (3/2)^3 + 1 + 1 - 4) = 1.5/24
    assert float(rows[0]["total"]) == pytest.approx(1.5 / 24)
    assert float(rows[0]["within"]) + float(rows[0]["between"]) == pytest.approx(float(rows[0]["total"]))


def test_fairness_table_output(tmp_path):
    result = run("fairness", _write(tmp_path, "v.csv", VALUES), "--group", "variety", "--value", "f1")
    assert result.exit_code == 0, result.output
    assert "Generalized entropy" in _flat(result.stdout) and "(all)" in result.stdout


@pytest.mark.parametrize("text,args,expected", [
    (VALUES, ["--group", "dialect", "--value", "f1"], r"missing column\(s\) 'dialect'"),
    (VALUES.replace("5,c,2", "5,c,n/a"), ["--group", "variety", "--value", "f1"],
     r"values.csv:6: row 5: column 'f1' is 'n/a', not a finite number"),
    (VALUES.replace("5,c,2", "5,c,"), ["--group", "variety", "--value", "f1"], r":6: row 5: column 'f1' is empty"),
    (VALUES.replace("5,c,2", "5,,2"), ["--group", "variety", "--value", "f1"],
     r":6: row 5: column 'variety' is empty"),
    (VALUES, ["--group", "variety", "--value", "f1", "--alpha", "1"], r"--alpha must be .* other than 0 and 1"),
    ("g,v\nx,0\ny,0\n", ["--group", "g", "--value", "v"], r"values.csv: mean benefit is 0"),
])
def test_fairness_bad_input(tmp_path, text, args, expected):
    message = _error(run("fairness", _write(tmp_path, "values.csv", text), *args))
    assert re.search(expected, message), message


def test_fairness_missing_file(tmp_path):
    assert "absent.csv: no such file" in _error(run("fairness", tmp_path / "absent.csv", "-g", "a", "-v", "b"))


def test_analyze_paper_checks_every_cell_of_dialectbench_table_3(tmp_path):
    result = run("analyze", "paper", "--out", tmp_path, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert "DialectBench Table 3: 76 of 77 cells reproduced" in result.stderr
    line = next(x for x in result.stderr.splitlines() if x.startswith("  - did varieties"))
    assert "ours 45, paper 49" in line and "0-9 test examples" in line  # the reason, on the same line
    cells = pd.read_csv(tmp_path / "table3_check.csv", keep_default_na=False)
    assert len(cells) == 77 and cells["match"].sum() == 76
    table = run("analyze", "paper", "--out", tmp_path)  # the table format shows the cell in a table
    assert "cells not reproduced" in table.stdout and "varieties" in table.stdout
