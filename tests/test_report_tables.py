"""Golden tests of the report tables on a small hand-made scores fixture (tests/fixtures/report/scores.csv).

Every expected number below is worked out by hand from the fixture (see the comments), and the tables are
checked by parsing their CSV and markdown, not by comparing whitespace.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.report import ReportInputError, build_report
from dialectbench.report.inputs import load_input
from dialectbench.report.model import build_data
from dialectbench.report.tables import (
    all_tables,
    cluster_table,
    latex_escape,
    leaderboard_table,
    model_matrix_table,
    table3,
    table4,
    to_csv,
    to_latex,
    to_markdown,
)

FIXTURE = Path(__file__).parent / "fixtures" / "report" / "scores.csv"


@pytest.fixture(scope="module")
def data():
    return build_data(load_input(FIXTURE), n_resamples=200)


def rows_of(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def md_rows(text: str) -> list[dict[str, str]]:
    """Parse the markdown table of a rendered Table (header row, rule, body) into dicts."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in line.strip("|").split(" | ")] for line in lines]
    return [dict(zip(cells[0], r)) for r in cells[2:]]


def close(a: str, b: float, tol: float = 1e-3) -> bool:
    return math.isclose(float(a), b, abs_tol=tol)


def test_table3_task_summary_csv(data):
    rows = {r["task"]: r for r in rows_of(to_csv(table3(data)))}
    dep, pos = rows["dep"], rows["pos"]
    # dep max scores: english 92 (in-variety), singlish 80, aave 50, komi-zyrian 36, komi-permyak 27
    assert (dep["n_clusters"], dep["n_varieties"]) == ("2", "5")
    assert close(dep["average"], (92 + 80 + 50 + 36 + 27) / 5)
    assert (dep["max_variety"], dep["max_cluster"]) == ("english", "anglic") and close(dep["max_score"], 92)
    assert (dep["min_variety"], dep["min_cluster"]) == ("komi-permyak", "komi") and close(dep["min_score"], 27)
    # pos: english max(95, 96) = 96, singlish 85
    assert close(pos["average"], (96 + 85) / 2) and pos["min_variety"] == "singlish"


def test_table3_markdown_matches_csv(data):
    md = {r["Task"]: r for r in md_rows(to_markdown(table3(data)))}
    assert md["dep"]["Average"] == "57.0" and md["dep"]["Min variety"] == "komi-permyak"
    assert md["pos"]["Max"] == "96.0"


def test_cluster_utility_table(data):
    rows = {r["cluster"]: r for r in rows_of(to_csv(cluster_table(data, "dep")))}
    anglic, komi = rows["anglic"], rows["komi"]
    assert close(anglic["linguistic_utility"], (92 + 80 + 50) / 3)
    assert close(anglic["std"], math.sqrt((18**2 + 6**2 + 24**2) / 2))  # sample std around 74
    assert anglic["min_variety"] == "african american vernacular english" and close(anglic["min_score"], 50)
    assert close(komi["linguistic_utility"], 31.5) and close(komi["std"], 9 / math.sqrt(2))
    # no per-example evidence in a CSV: no interval, shown as empty (CSV) / "–" (markdown), never 0
    assert anglic["lu_low"] == "" and anglic["lu_high"] == ""
    md = {r["Cluster"]: r for r in md_rows(to_markdown(cluster_table(data, "dep")))}
    assert md["anglic"]["95% CI"] == "–" and md["anglic"]["Linguistic utility"] == "74.0"


def test_demographic_utility_lies_between_min_and_max(data):
    for r in rows_of(to_csv(cluster_table(data, "dep"))):
        if r["demographic_utility"]:
            scores = data.best[(data.best.task == "dep") & (data.best.cluster == r["cluster"])]["score"]
            assert scores.min() - 1e-9 <= float(r["demographic_utility"]) <= scores.max() + 1e-9


def test_table4_gaps(data):
    rows = {(r["model"], r["gap_label"]): r for r in rows_of(to_csv(table4(data))) if r["task"] == "dep"}
    eng = rows[("mbert", "G_eng(eng, C)")]
    # English zero-shot (mbert) = 90: anglic mean of (90-60)/90 and (90-50)/90; komi of (90-30)/90, (90-27)/90
    anglic, komi = (100 * 30 / 90 + 100 * 40 / 90) / 2, (100 * 60 / 90 + 100 * 63 / 90) / 2
    assert close(eng["avg"], (anglic + komi) / 2) and eng["n_clusters"] == "2"
    assert (eng["max_cluster"], eng["min_cluster"]) == ("komi", "anglic") and close(eng["max_value"], komi)
    # within cluster, komi representative komi-zyrian (m:spoken) = 30 zero-shot: (30 - 27) / 30
    assert close(rows[("mbert", "G_eng(v̄, C)")]["min_value"], 10.0)
    # fine-tuned: english in-variety 92, singlish in-variety 80; komi has no fine-tuned rows
    ft = rows[("mbert", "G_ft(v̄, C)")]
    assert close(ft["avg"], 100 * 12 / 92) and ft["n_clusters"] == "1"


def test_leaderboard_ranks_complete_models_first_and_keeps_missing_missing(data):
    lb = rows_of(to_csv(leaderboard_table(data, "pos")))
    # xlmr has the higher average (96) but no singlish result: ranked after the complete mbert (90)
    assert [r["model"] for r in lb] == ["mbert", "xlmr"]
    assert close(lb[0]["average"], 90) and close(lb[0]["rawlsian_min"], 85) and lb[1]["coverage"] == "1/2"
    dep = {r["model"]: r for r in rows_of(to_csv(leaderboard_table(data, "dep")))}
    assert close(dep["mbert"]["average"], (92 + 80 + 50 + 30 + 27) / 5) and close(dep["xlmr"]["rawlsian_min"], 24)
    matrix = {r["variety"]: r for r in rows_of(to_csv(model_matrix_table(data, "pos")))}
    assert matrix["singlish"]["xlmr"] == "" and close(matrix["singlish"]["mbert"], 85)
    md = {r["Variety"]: r for r in md_rows(to_markdown(model_matrix_table(data, "pos")))}
    assert md["singlish"]["xlmr"] == "–"


def test_latex_is_booktabs_and_escaped(data):
    tex = to_latex(table4(data))
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    assert r"$\bar{v}$" in tex and "v\u0304" not in tex
    assert latex_escape("a_b & 50% #1 {x}") == r"a\_b \& 50\% \#1 \{x\}"
    body = [line for line in tex.splitlines() if line.startswith("dep & mbert")]
    assert len(body) == 3 and all(line.count(" & ") == 10 for line in body)  # 10: with "Rests on (protocol)" (issue 36)


def test_compare_paper_rows_alongside(data):
    paper = build_data(load_input(FIXTURE), compare_paper=True, n_resamples=10)
    t3 = [r for r in rows_of(to_csv(table3(paper))) if r["task"] == "dep"]
    assert [r["source"] for r in t3] == ["ours", "paper"]
    assert close(t3[1]["average"], 64.3) and t3[1]["n_varieties"] == "40"  # seed 000 Table 3, dep
    anglic = {r["cluster"]: r for r in rows_of(to_csv(cluster_table(paper, "dep")))}["anglic"]
    assert close(anglic["paper_linguistic_utility"], 75.5) and close(anglic["linguistic_utility"], 74.0)
    t4 = [r for r in rows_of(to_csv(table4(paper))) if r["source"] == "paper" and r["task"] == "dep"]
    assert {r["gap"] for r in t4} == {"eng_eng", "eng_rep", "ft_rep"}


def test_build_report_writes_every_format(tmp_path):
    out = build_report(FIXTURE, tmp_path / "r", formats=("md", "csv", "latex"), n_resamples=10)
    assert out == tmp_path / "r" / "tables" and not (tmp_path / "r" / "index.html").exists()
    names = {p.name for p in out.iterdir()}
    for stem in ("headline", "table3_task_summary", "table4_gap_summary", "table23_cluster_utility_dep", "leaderboard_pos"):
        assert {f"{stem}.md", f"{stem}.csv", f"{stem}.tex"} <= names
    figs = {p.name for p in (tmp_path / "r" / "figures").iterdir()}
    assert {"fig3_max_scores_dep.png", "fig3_max_scores_dep.svg", "fig4_gaps_dep.svg"} <= figs
    assert "fig4_gaps_pos.png" not in figs  # pos has no zero-shot rows: no gap scatter, not an empty plot
    # the headline (issue 36), Tables 3 and 4, five per task
    assert len(all_tables(build_data(load_input(FIXTURE), n_resamples=10))) == 3 + 5 * 2


def test_bad_inputs_give_clear_errors(tmp_path):
    with pytest.raises(ReportInputError, match="no such file"):
        build_report(tmp_path / "nope.csv", tmp_path / "r")
    bad = tmp_path / "bad.csv"
    bad.write_text("task,cluster,variety,model,setting,train_on,score\ndep,anglic,english,m,zero-shot,en,abc\n")
    with pytest.raises(ReportInputError, match=r"bad.csv:2: row 1: .*not a number"):
        build_report(bad, tmp_path / "r")
    with pytest.raises(ReportInputError, match="unknown report format"):
        build_report(FIXTURE, tmp_path / "r", formats=("pdf",))


def test_cli_report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no dialectbench-results/ in the working folder
    runner = CliRunner()
    res = runner.invoke(app, ["report", "--scores", str(FIXTURE), "--out", str(tmp_path / "r"), "--formats", "csv",
                              "--compare", "paper"])
    assert res.exit_code == 0, res.output
    t3 = rows_of((tmp_path / "r" / "tables" / "table3_task_summary.csv").read_text())
    assert {r["source"] for r in t3} == {"ours", "paper"}
    res = runner.invoke(app, ["report", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and "no result store at dialectbench-results" in res.output
    res = runner.invoke(app, ["report", "--out", str(tmp_path / "x"), "--store", "s.db", "--scores", "paper"])
    assert res.exit_code == 2 and "not both" in res.output
    res = runner.invoke(app, ["report", "--scores", str(FIXTURE), "--out", str(tmp_path / "x"), "--compare", "x"])
    assert res.exit_code == 2 and "--compare takes 'paper'" in res.output


SDQA = FIXTURE.parent / "sdqa_dialects.csv"
SDQA_VALUES = FIXTURE.parent / "sdqa_values.csv"


def test_sdqa_tables_and_scatter(tmp_path):
    build_report(FIXTURE, tmp_path, formats=("csv",), sdqa=SDQA, sdqa_examples=SDQA_VALUES, n_resamples=10)
    tables = tmp_path / "tables"
    summary = {r["metric"]: r for r in rows_of((tables / "sdqa_summary.csv").read_text())}
    # WER 10, 20, 30, 5: mean 16.25, max - min 25; populations 25, 50, -, 300 weight the three that have one
    assert close(summary["wer"]["avg_l"], 16.25) and close(summary["wer"]["max_min"], 25)
    assert close(summary["wer"]["avg_pop"], (10 * 25 + 20 * 50 + 5 * 300) / 375)
    assert close(summary["f1"]["avg_l"], 57.0) and close(summary["f1"]["max_min"], 9)
    rho = rows_of((tables / "sdqa_spearman.csv").read_text())[0]
    assert close(rho["rho"], -1.0) and rho["n"] == "4"  # WER order is exactly the reverse of F1 order
    unfair = {r["group"]: r for r in rows_of((tables / "sdqa_unfairness.csv").read_text())}
    # benefits 1, .5 | .5, 0 | 1, 1: mean 2/3, E^2 = (sum (b/mu)^2 - n) / (2n) = (7.875 - 6) / 12
    total = float(unfair["(all)"]["total"])
    assert close(total, 0.15625, 1e-6)
    assert close(unfair["(all)"]["within"], total - float(unfair["(all)"]["between"]), 1e-6)
    assert float(unfair["ind-s"]["between"]) < 0 < float(unfair["nga"]["between"])  # below / above the mean
    assert (tmp_path / "figures" / "fig_sdqa_wer_f1.png").is_file()


def test_sdqa_bad_input(tmp_path):
    bad = tmp_path / "sdqa.csv"
    bad.write_text("dialect,score\naus,1\n")
    with pytest.raises(ReportInputError, match="'dialect' column and a 'wer' and/or 'f1'"):
        build_report(FIXTURE, tmp_path / "r", formats=("csv",), sdqa=bad)


def test_point_labels_land_where_they_were_placed_and_do_not_overlap():
    """40 points on one panel: every label is drawn where the placement measured it, and none overlaps another
    (the placement moves one measured box per candidate spot; a wrong shift would show up here)."""
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.text import Text

    from dialectbench.report import figures

    rng = np.random.default_rng(0)
    xs, ys = rng.normal(0, 10, 40), rng.normal(0, 10, 40)
    fig, ax = plt.subplots(figsize=(7, 7))
    ax.scatter(xs, ys)
    fig.tight_layout()
    figures._label_points(ax, xs, ys, [f"cluster {i}" for i in range(40)], figures._settled(fig))
    fig.canvas.draw()
    boxes = [Text.get_window_extent(t, fig.canvas.get_renderer()) for t in ax.texts]
    plt.close(fig)
    assert len(boxes) == 40
    assert sum(a.overlaps(b) for k, a in enumerate(boxes) for b in boxes[k + 1:]) == 0


def test_figures_lay_out_as_tight_layout_does_but_leave_no_layout_engine():
    """A layout engine left on a figure makes every savefig draw it an extra time (seconds for an 8-panel
    gap figure): the same spacing as fig.tight_layout(), and no engine."""
    import matplotlib.pyplot as plt

    from dialectbench.report import figures

    def panels():
        fig, axes = plt.subplots(1, 3, figsize=(9, 3))
        for ax in axes:
            ax.set_xlabel("gap against Standard English, G_eng(eng, C) (%)")
            ax.set_title("model: a long model name")
        return fig, axes

    (ours, our_axes), (theirs, their_axes) = panels(), panels()
    figures._tight(ours)
    theirs.tight_layout()
    assert ours.get_layout_engine() is None and theirs.get_layout_engine() is not None
    assert [a.get_position().bounds for a in our_axes] == [a.get_position().bounds for a in their_axes]
    plt.close(ours)
    plt.close(theirs)


def test_gap_summary_gives_each_gaps_mean_and_extreme_clusters():
    import pandas as pd

    from dialectbench.report.model import _gap_summary

    gaps = pd.DataFrame({"task": ["dep"] * 5 + ["pos"], "model": ["a", "a", "a", "b", "a", "a"],
                         "gap": ["eng_eng", "eng_eng", "eng_eng", "eng_eng", "eng_rep", "eng_eng"],
                         "cluster": ["x", "y", "z", "x", "x", "x"], "value": [10.0, -5.0, 25.0, 3.0, None, 7.0]})
    rows = _gap_summary(gaps).to_dict("records")
    assert [(r["task"], r["model"], r["gap"]) for r in rows] == [("dep", "a", "eng_eng"), ("dep", "b", "eng_eng"),
                                                                ("pos", "a", "eng_eng")]  # eng_rep: no value
    first = rows[0]
    assert (first["avg"], first["n_clusters"], first["max_cluster"], first["max_value"], first["min_cluster"],
            first["min_value"]) == (10.0, 3, "z", 25.0, "y", -5.0)
    assert rows[1]["max_cluster"] == rows[1]["min_cluster"] == "x" and rows[1]["n_clusters"] == 1


def test_report_without_store_or_scores_reports_the_store_run_writes(tmp_path, monkeypatch):
    # `run` then `report --out R` said 'give exactly one of --store FILE or --scores CSV'
    from dialectbench.runner.store import DEFAULT_STORE, Store

    monkeypatch.chdir(tmp_path)
    DEFAULT_STORE.parent.mkdir()
    Store(DEFAULT_STORE).close()
    res = CliRunner().invoke(app, ["report", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and f"{DEFAULT_STORE}: the store has no finished scores" in res.output, res.output
