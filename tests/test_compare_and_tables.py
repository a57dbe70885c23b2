"""Issue 17: your model ranked beside the published ones (`report --compare paper`), and terminal tables
that stay readable in 80 columns and in a pipe."""

from __future__ import annotations

import pandas as pd

from dialectbench.analysis.reference import paper_scores
from dialectbench.cli.output import Format, emit
from dialectbench.report import build_data, load_input
from dialectbench.report.compare import paper_comparison


def _ours() -> pd.DataFrame:
    paper = paper_scores()
    tc = paper[(paper["task"] == "tc") & (paper["model"] == "mbert")].drop_duplicates("variety").head(6)
    mine = tc.assign(model="mine", score=50.0)[["task", "cluster", "variety", "model", "setting", "train_on",
                                                  "metric", "score", "n"]]
    extra = mine.iloc[[0]].assign(variety="english (a:nowhere)")  # a variety the paper does not have
    return pd.concat([mine, extra], ignore_index=True)


def test_published_rows_join_the_leaderboard_on_shared_varieties_only():
    ours = _ours()
    cmp = paper_comparison(ours)
    assert cmp.shared["tc"] == 6 and cmp.only_ours["tc"] == 1
    assert cmp.only_paper["tc"] == paper_scores().query("task == 'tc'")["variety"].nunique() - 6
    assert set(cmp.scores["variety"]) == set(ours["variety"]) - {"english (a:nowhere)"}
    assert {"mbert (published)", "xlmr (published)"} <= set(cmp.published_models)
    data = build_data(load_input(ours), compare_paper=True, n_resamples=10)
    board = data.leaderboard[data.leaderboard["task"] == "tc"]
    assert {"mine", "mbert (published)"} <= set(board["model"])
    assert (board["n_varieties"] == 6).all()  # every model over the same six varieties
    assert "mbert (published)" in data.model_matrix.columns
    from dialectbench.report.tables import leaderboard_table

    assert "1 of ours are not in the paper" in leaderboard_table(data, "tc").note


def test_without_compare_only_our_models_are_ranked():
    data = build_data(load_input(_ours()), n_resamples=10)
    assert set(data.leaderboard["model"]) == {"mine"} and data.comparison is None


def test_tables_fit_80_columns_and_never_cut_a_word(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    rows = [{"task": "tc", "model": "baseline (limit 5)", "cluster": "southwestern shifted romance",
             "G_eng(eng,C)": 50.7, "G_eng(rep,C)": -68.8, "G_ft(rep,C)": 0.0, "varieties": ["a", "b"]},
            {"task": "sa", "model": "baseline", "cluster": "arabic", "G_eng(eng,C)": None,
             "G_eng(rep,C)": 1.0, "G_ft(rep,C)": 30.0, "varieties": ["c"]}]
    def words(columns):
        emit(rows, Format.table, title="gaps", columns=columns)
        lines = capsys.readouterr().out.splitlines()
        assert max(len(line) for line in lines) <= 80
        return " ".join(line.replace("│", " ").replace("┃", " ") for line in lines).split()

    six = words(list(rows[0])[:-1])  # the end-of-run gap table: headers and cells whole
    for word in ("southwestern", "shifted", "romance", "baseline", "G_eng(eng,C)", "G_eng(rep,C)", "-68.80"):
        assert word in six, word
    seven = words(list(rows[0]))  # one more column: the cells stay whole, a long header may fold
    for word in ("southwestern", "shifted", "romance", "baseline", "-68.80", "50.70", "a,", "b"):
        assert word in seven, word


def test_a_rebuilt_report_folder_keeps_no_stale_figures(tmp_path):
    from dialectbench.report import build_report

    ours = _ours()
    both = pd.concat([ours, ours.assign(task="nli", metric="f1")], ignore_index=True)
    build_report(both, tmp_path, formats=["csv"], n_resamples=10)
    assert any("nli" in p.name for p in (tmp_path / "figures").iterdir())
    build_report(ours, tmp_path, formats=["csv"], n_resamples=10)
    assert not any("nli" in p.name for p in (tmp_path / "figures").iterdir())
    assert not any("nli" in p.name for p in (tmp_path / "tables").iterdir())
    assert any("tc" in p.name for p in (tmp_path / "figures").iterdir())


def test_sample_suite_models_are_marked_not_comparable_beside_published_rows(tmp_path):
    """A run on the bundled sample suite stores the sample_suite flag; the comparison then ranks that model
    only under a name that says it is not comparable, and the flagged-scores table is not flooded."""
    from dialectbench.report.compare import NOT_COMPARABLE
    from dialectbench.runner import Store, run
    from dialectbench.runner.flags import needs_warning

    store = tmp_path / "s.sqlite"
    run(store=store, tasks=["tc"], settings=["zero-shot"])  # the bundled sample suite
    with Store(store) as db:
        flagged = db.flagged()
    assert flagged and all(r["flags"].get("sample_suite") for r in flagged)
    assert not needs_warning({"flags": {"sample_suite": True}})  # a fact about the data, not a warning
    inp = load_input(store)
    assert inp.sample_models == {"baseline"} and not [f for f in inp.flags if "sample_suite" in f["flags"]]
    data = build_data(inp, compare_paper=True, n_resamples=10)
    board = set(data.leaderboard["model"])
    assert f"baseline{NOT_COMPARABLE}" in board and "baseline" not in board
    assert any(m.endswith("(published)") for m in board)
    mine = build_data(load_input(store), n_resamples=10)  # without the comparison: our own name
    assert set(mine.leaderboard["model"]) == {"baseline"}


def test_published_rows_compare_in_the_metric_we_store():
    """Our SA accuracy meets the paper's accuracy column, never its max(accuracy, F1); our macro F1 meets
    the paper's F1 columns."""
    import pandas as pd

    ours = pd.DataFrame([{"task": "sa", "cluster": "arabic", "variety": v, "model": "mine", "setting": "in-variety",
                          "train_on": v, "metric": "accuracy", "score": 50.0, "n": 10}
                         for v in ("tunisian arabic", "moroccan arabic")])
    cmp = paper_comparison(ours)
    published = cmp.scores[cmp.scores["model"].str.endswith("(published)")]
    assert not published.empty and set(published["metric"]) == {"accuracy"}
    acc = paper_scores(metrics="all").query("task == 'sa' and metric == 'accuracy'")
    row = published.iloc[0]
    match = acc[(acc["variety"] == row["variety"]) & (acc["model"] + " (published)" == row["model"]) &
                (acc["setting"] == row["setting"])]
    assert float(match["score"].iloc[0]) == row["score"]


# ---- issue 36 item 2: like with like

def _eqa_rows(model: str, train_on: str, setting: str = "combined") -> pd.DataFrame:
    paper = paper_scores(split="dev")
    eqa = paper[(paper["task"] == "eqa") & (paper["model"] == "mbert")].drop_duplicates("variety").head(4)
    return eqa.assign(model=model, score=30.0, setting=setting, train_on=train_on)[
        ["task", "cluster", "variety", "model", "setting", "train_on", "metric", "score", "n"]]


def test_eqa_is_compared_with_the_papers_dev_table_and_never_ranked_beside_fine_tuned_rows():
    from dialectbench.report.compare import CROSS_FITTED, FINE_TUNED
    from dialectbench.runner.plan import CROSS_FITTED as CROSS

    cmp = paper_comparison(_eqa_rows("baseline", CROSS))
    published = cmp.scores[cmp.scores["model"].str.endswith("(published)")]
    assert set(published["split"]) == {"dev"} and cmp.splits["eqa"] == "dev"  # Table 14, not Table 15 (test)
    dev = paper_scores(split="dev", metrics="all").query("task == 'eqa' and model == 'mbert' and setting == 'combined'")
    row = published[(published["model"] == "mbert (published)") & (published["setting"] == "combined")].iloc[0]
    assert row["score"] == float(dev[dev["variety"] == row["variety"]]["score"].iloc[0])
    ours = cmp.scores[cmp.scores["model"] == "baseline"]
    assert set(ours["protocol"]) == {CROSS_FITTED} and set(ours["family"]) == {"CPU baseline"}
    assert set(ours["split"]) == {"dev"}
    data = build_data(load_input(_eqa_rows("baseline", CROSS)), compare_paper=True, n_resamples=10)
    board = data.leaderboard[data.leaderboard["task"] == "eqa"]
    mine = board[board["model"] == "baseline"].iloc[0]
    assert mine["group"] == f"dev · {CROSS_FITTED}" and mine["rank_average"] == 1  # alone in its group
    fine = board[board["group"] == f"dev · {FINE_TUNED}"]
    assert "mbert (published)" in set(fine["model"]) and sorted(fine["rank_average"]) == list(range(1, len(fine) + 1))
    from dialectbench.report.tables import leaderboard_table

    table = leaderboard_table(data, "eqa")
    assert "dev split" in table.note and "not comparable" in table.note
    assert any(c.key == "group" for c in table.columns)


def test_a_model_with_rows_under_two_protocols_is_split_per_protocol():
    from dialectbench.runner.plan import TRAINING_FREE

    paper = paper_scores()
    mrc = paper[(paper["task"] == "mrc") & (paper["model"] == "mbert")].drop_duplicates("variety").head(4)
    cols = ["task", "cluster", "variety", "model", "setting", "train_on", "metric", "score", "n"]
    free = mrc.head(2).assign(model="hf:x", setting="zero-shot", train_on=TRAINING_FREE, score=40.0)[cols]
    tuned = mrc.tail(2).assign(model="hf:x", setting="zero-shot", train_on="english", score=40.0)[cols]
    cmp = paper_comparison(pd.concat([free, tuned], ignore_index=True))
    names = set(cmp.scores.loc[~cmp.scores["model"].str.endswith("(published)"), "model"])
    assert names == {"hf:x [training-free]", "hf:x [fine-tuned]"}


def test_sample_suite_report_html_says_not_comparable(tmp_path):
    """The terminal's end-of-run note on sample-suite scores is said at the top of the HTML report too."""
    from dialectbench.report import build_report
    from dialectbench.runner import run

    store = tmp_path / "s.sqlite"
    run(store=store, tasks=["tc"], settings=["zero-shot"])  # the bundled sample suite
    data = build_data(load_input(store), n_resamples=10)
    assert len(data.notices) == 1 and "not comparable" in data.notices[0] and "baseline" in data.notices[0]
    assert build_data(load_input(_ours()), n_resamples=10).notices == []
    build_report(store, tmp_path / "r", formats=["html"], n_resamples=10)
    html = (tmp_path / "r" / "index.html").read_text("utf-8")
    assert "Not comparable:" in html and "bundled sample suite" in html
