"""Scores-table validation, max-obtainable scores, task/cluster summaries, gaps, bootstrap, Spearman."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from dialectbench.analysis import (
    ScoresError,
    bootstrap_ci,
    cluster_summary,
    gaps,
    max_scores,
    paired_bootstrap,
    ratio_of_sums,
    read_scores,
    spearman,
    task_summary,
    validate_scores,
    variety_gaps,
)

HEADER = "task,cluster,variety,model,setting,train_on,score\n"


def _write(tmp_path, text: str, name: str = "scores.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- read_scores ------------------------------------------------------------------------------------


def test_read_scores_fills_cluster_from_registry_and_keeps_extra_columns(tmp_path):
    path = _write(tmp_path, "task,variety,model,setting,train_on,score,note\n"
                            "dep,English,mbert,zero-shot,english,91.55,x\n"
                            "dep,singlish,mbert,zero-shot,english,69.88,\n")
    df = read_scores(path)
    assert df["cluster"].tolist() == ["anglic", "anglic"]
    assert df["variety"].tolist() == ["english", "singlish"]      # canonical names
    assert df["score"].dtype == float and df["note"].tolist() == ["x", ""]
    assert list(df.columns[:9]) == ["task", "cluster", "variety", "model", "setting", "train_on", "metric",
                                    "score", "n"]


@pytest.mark.parametrize("body, row, problem", [
    ("dep,anglic,english,mbert,zero-shot,english,high\n", 1, "score 'high' is not a number"),
    ("dep,anglic,english,mbert,zero-shot,english,\n", 1, "is not a number"),
    ("dep,anglic,english,mbert,zero-shot,english,91\ndep,anglic,english,mbert,zero-shot,english,92\n", 2,
     "duplicate of row 1"),
    ("dep,anglic,english,mbert,zero-shot,english,191\n", 1, "not a percentage in 0-100"),
    ("dep,anglic,english,mbert,few-shot,english,91\n", 1, "unknown setting 'few-shot'"),
    ("mt,anglic,english,nllb,zero-shot,,20\n", 1, "unknown task 'mt' (use mt-dialect or mt-region)"),
    ("dep,anglic,english,,zero-shot,english,91\n", 1, "empty 'model'"),
])
def test_read_scores_names_file_row_and_problem(tmp_path, body, row, problem):
    path = _write(tmp_path, HEADER + body)
    with pytest.raises(ScoresError) as err:
        read_scores(path)
    assert err.value.row == row
    assert str(path) in str(err.value) and f":{row + 1}: row {row}" in str(err.value)
    assert problem in str(err.value)


def test_read_scores_missing_column(tmp_path):
    path = _write(tmp_path, "task,cluster,variety,model,setting,score\ndep,anglic,english,m,zero-shot,1\n")
    with pytest.raises(ScoresError, match=r"scores.csv: missing column\(s\) train_on"):
        read_scores(path)


def test_read_scores_unknown_variety_without_cluster_suggests_names(tmp_path):
    path = _write(tmp_path, "task,variety,model,setting,train_on,score\n"
                            "dep,english,mbert,zero-shot,english,91\ndep,englsh,mbert,zero-shot,english,60\n")
    with pytest.raises(ScoresError, match=r":3: row 2: unknown variety 'englsh'.*did you mean 'english'"):
        read_scores(path)


def test_read_scores_unregistered_variety_is_fine_with_a_cluster(tmp_path):
    df = read_scores(_write(tmp_path, HEADER + "dep,mycluster,my dialect,m,in-variety,,50\n"))
    assert df.loc[0, "cluster"] == "mycluster" and df.loc[0, "train_on"] == ""


def test_read_scores_second_metric_for_same_evaluation(tmp_path):
    text = ("task,cluster,variety,model,setting,train_on,metric,score\n"
            "tc,anglic,english,m,zero-shot,english,accuracy,90\ntc,anglic,english,m,zero-shot,english,f1,89\n")
    with pytest.raises(ScoresError, match="a second metric \\('accuracy' there, 'f1' here\\) for row 1"):
        read_scores(_write(tmp_path, text))


def test_read_scores_empty_and_missing_files(tmp_path):
    with pytest.raises(ScoresError, match="file is empty"):
        read_scores(_write(tmp_path, ""))
    with pytest.raises(ScoresError, match="no score rows"):
        read_scores(_write(tmp_path, HEADER))
    with pytest.raises(ScoresError, match="file not found"):
        read_scores(tmp_path / "nope.csv")


# --- max scores and summaries -----------------------------------------------------------------------

def _table(rows) -> pd.DataFrame:
    cols = ["task", "cluster", "variety", "model", "setting", "train_on", "score"]
    return validate_scores(pd.DataFrame(rows, columns=cols))


# Seed 000 Table 10 (DEP, UAS), anglic and albanian rows: zero-shot mBERT/XLM-R and in-variety fine-tuning.
DEP = _table([
    ("dep", "albanian", "albanian", "mbert", "zero-shot", "english", 81.78),
    ("dep", "albanian", "albanian", "xlmr", "zero-shot", "english", 83.08),
    ("dep", "albanian", "gheg albanian", "mbert", "zero-shot", "english", 38.14),
    ("dep", "albanian", "gheg albanian", "xlmr", "zero-shot", "english", 43.50),
    ("dep", "anglic", "english", "mbert", "zero-shot", "english", 91.55),
    ("dep", "anglic", "english", "xlmr", "zero-shot", "english", 91.10),
    ("dep", "anglic", "english", "mbert", "in-variety", "english", 91.55),
    ("dep", "anglic", "english", "xlmr", "in-variety", "english", 91.10),
    ("dep", "anglic", "singlish", "mbert", "zero-shot", "english", 69.88),
    ("dep", "anglic", "singlish", "xlmr", "zero-shot", "english", 68.55),
    ("dep", "anglic", "singlish", "mbert", "in-variety", "singlish", 82.36),
    ("dep", "anglic", "singlish", "xlmr", "in-variety", "singlish", 11.0),
    ("dep", "anglic", "african american vernacular english", "mbert", "zero-shot", "english", 50.53),
    ("dep", "anglic", "african american vernacular english", "xlmr", "zero-shot", "english", 52.53),
])


def test_max_scores_takes_best_over_models_and_settings():
    best = max_scores(DEP).set_index("variety")
    assert best.loc["singlish", "score"] == 82.36
    assert (best.loc["singlish", "model"], best.loc["singlish", "setting"]) == ("mbert", "in-variety")
    assert best.loc["gheg albanian", "score"] == 43.50 and len(best) == 5


def test_cluster_summary_matches_table_23_rows():
    speakers = {"albanian": 7_500_000, "gheg albanian": 4_100_000, "english": 1_350_000_000,
                "singlish": 3_900_000, "african american vernacular english": 30_000_000}
    cs = cluster_summary(DEP, speakers=speakers).set_index("cluster")
    # Table 23: albanian 63.3 / 69.1 / (gheg albanian, 43.5) / 28.0; anglic 75.5 / 90.7 / (aave, 52.5) / 20.4
    assert cs.loc["albanian", "linguistic_utility"] == pytest.approx(63.29)
    assert cs.loc["albanian", "demographic_utility"] == pytest.approx(69.09, abs=0.005)
    assert cs.loc["albanian", "std"] == pytest.approx(27.99, abs=0.005)   # sample std (n - 1)
    assert (cs.loc["anglic", "min_variety"], cs.loc["anglic", "min_score"]) == (
        "african american vernacular english", 52.53)
    assert cs.loc["anglic", "demographic_utility"] == pytest.approx(90.68, abs=0.005)
    assert cs.loc["anglic", "n_varieties"] == 3


def test_cluster_summary_dashes_one_variety_and_missing_speakers():
    df = _table([("pos", "sabellic", "umbrian", "m", "zero-shot", "english", 11.9),
                 ("pos", "sinitic", "a", "m", "zero-shot", "english", 60.0),
                 ("pos", "sinitic", "b", "m", "zero-shot", "english", 70.0)])
    cs = cluster_summary(df, speakers={"a": "written", "b": None}).set_index("cluster")
    assert math.isnan(cs.loc["sabellic", "std"])
    assert math.isnan(cs.loc["sinitic", "demographic_utility"])
    assert cs.loc["sinitic", "std"] == pytest.approx(np.std([60, 70], ddof=1))
    partial = cluster_summary(df, speakers={"a": 10}).set_index("cluster")
    assert partial.loc["sinitic", "demographic_utility"] == 60.0          # weighted over known counts only


def test_cluster_summary_reads_speakers_from_the_registry_by_default():
    cs = cluster_summary(DEP).set_index("cluster")
    assert cs.loc["albanian", "demographic_utility"] == pytest.approx(69.09, abs=0.005)


def test_task_summary_like_table_3():
    ts = task_summary(DEP).iloc[0]
    assert (ts["n_clusters"], ts["n_varieties"]) == (2, 5)
    assert ts["average"] == pytest.approx(np.mean([83.08, 43.50, 91.55, 82.36, 52.53]))
    assert (ts["max_variety"], ts["max_score"]) == ("english", 91.55)
    assert (ts["min_cluster"], ts["min_variety"], ts["min_score"]) == ("albanian", "gheg albanian", 43.50)


# --- gaps -------------------------------------------------------------------------------------------


def test_gaps_reproduce_table_4_anglic_dep():
    g = gaps(DEP).set_index(["model", "cluster", "gap"])
    # eng_rep: the representative (english) is left out: mean of Singlish and AAVE = 34.2 with mBERT
    assert g.loc[("mbert", "anglic", "eng_rep"), "value"] == pytest.approx(34.2, abs=0.05)
    assert g.loc[("mbert", "anglic", "eng_rep"), "n_varieties"] == 2
    eng_alb = np.mean([(91.55 - 81.78) / 91.55, (91.55 - 38.14) / 91.55]) * 100
    assert g.loc[("mbert", "albanian", "eng_eng"), "value"] == pytest.approx(eng_alb)
    ft = (91.55 - 82.36) / 91.55 * 100                                   # in-variety special case
    assert g.loc[("mbert", "anglic", "ft_rep"), "value"] == pytest.approx(ft)
    assert g.loc[("mbert", "albanian", "ft_rep"), "reason"].startswith("no variety other than 'albanian'")
    assert list(gaps(DEP).columns[:6]) == ["task", "model", "cluster", "gap", "value", "n_varieties"]


def test_gaps_zero_or_missing_baseline_is_undefined_not_inf():
    df = _table([("dep", "c", "rep", "m", "zero-shot", "english", 0.0),
                 ("dep", "c", "v", "m", "zero-shot", "english", 10.0),
                 ("dep", "d", "v2", "m", "zero-shot", "english", 10.0)])
    g = gaps(df, representatives={"c": "rep", "d": "missing rep"}, english="nobody").set_index(
        ["cluster", "gap"])
    assert not np.isinf(g["value"].to_numpy(dtype=float)).any()
    assert math.isnan(g.loc[("c", "eng_rep"), "value"])
    assert "scores 0" in g.loc[("c", "eng_rep"), "reason"]
    assert "no score for baseline 'missing rep'" in g.loc[("d", "eng_rep"), "reason"]
    assert "no score for baseline 'nobody'" in g.loc[("c", "eng_eng"), "reason"]


def test_variety_gaps_level():
    v = gaps(DEP, level="variety")
    row = v[(v.model == "xlmr") & (v.variety == "singlish") & (v.gap == "ft_rep")].iloc[0]
    assert row["value"] == pytest.approx((91.10 - 11.0) / 91.10 * 100)
    assert not ((v.variety == "english") & (v.gap == "eng_rep")).any()  # baseline against itself is skipped
    with pytest.raises(ValueError, match="unknown level"):
        gaps(DEP, level="country")


@given(st.floats(min_value=0.01, max_value=100), st.floats(min_value=0, max_value=100))
@settings(max_examples=30, deadline=None)
def test_gap_of_a_variety_with_itself_is_zero(same, other):
    df = _table([("pos", "c", "rep", "m", "zero-shot", "english", same),
                 ("pos", "c", "twin", "m", "zero-shot", "english", same),
                 ("pos", "c", "twin", "m", "in-variety", "twin", other),
                 ("pos", "c", "rep", "m", "in-variety", "rep", other)])
    v = variety_gaps(df, representatives={"c": "rep"}, english="twin")
    assert (v[v.gap == "eng_rep"]["value"] == 0).all() and len(v[v.gap == "eng_rep"]) == 1
    eng = v[v.gap == "eng_eng"]
    assert eng["variety"].tolist() == ["rep"] and eng["value"].tolist() == [0.0]
    ft = v[v.gap == "ft_rep"]
    assert ft["value"].isna().all() if other == 0 else (ft["value"] == 0).all()


# --- bootstrap and Spearman ----------------------------------------------------------------------------


def test_bootstrap_ci_is_seeded_and_covers_the_mean():
    x = np.random.default_rng(1).random(500)
    a = bootstrap_ci(x, n_resamples=2000, seed=3)
    b = bootstrap_ci(x, n_resamples=2000, seed=3)
    assert a == b
    assert a.estimate == pytest.approx(x.mean()) and a.low < a.estimate < a.high
    assert a.std_error == pytest.approx(x.std(ddof=1) / np.sqrt(500), rel=0.15)
    assert bootstrap_ci(x, n_resamples=2000, seed=4) != a


def test_bootstrap_chunking_bounds_memory_without_changing_the_distribution():
    x = np.random.default_rng(2).random(300)
    small = bootstrap_ci(x, n_resamples=3000, seed=0, max_cells=1000)   # 3 resamples per chunk
    big = bootstrap_ci(x, n_resamples=3000, seed=0)
    assert small.low == pytest.approx(big.low, abs=0.01) and small.high == pytest.approx(big.high, abs=0.01)


def test_bootstrap_pooled_statistic_from_counts():
    stats = np.array([[3, 4], [0, 1], [5, 5]])     # (correct, words) per sentence -> UAS 8/10
    res = bootstrap_ci(stats, n_resamples=500, statistic=ratio_of_sums)
    assert res.estimate == pytest.approx(0.8) and 0 <= res.low <= 0.8 <= res.high <= 1


def test_paired_bootstrap():
    rng = np.random.default_rng(0)
    a = rng.random(400)
    same = paired_bootstrap(a, a, n_resamples=500)
    assert same.estimate == 0.0 and same.p_value == 1.0
    better = paired_bootstrap(a + 0.1, a, n_resamples=500)
    assert better.estimate == pytest.approx(0.1) and better.p_value < 0.01
    noisy = paired_bootstrap(a, rng.permutation(a), n_resamples=500)
    assert noisy.p_value > 0.05 and noisy.low < 0 < noisy.high
    with pytest.raises(ValueError, match="same examples"):
        paired_bootstrap(a, a[:-1])
    with pytest.raises(ValueError, match="finite"):
        bootstrap_ci([1.0, float("nan")])


def test_spearman_matches_scipy_and_handles_small_inputs():
    wer_, f1 = [10.0, 12.0, 30.0, 25.0, 11.0], [70.0, 69.0, 40.0, 50.0, 60.0]
    res = spearman(wer_, f1)
    assert res.rho == pytest.approx(sps.spearmanr(wer_, f1).statistic) and res.n == 5
    assert spearman([10.0, 20.0], [5.0, 1.0]).rho == pytest.approx(-1.0)  # two dialects (Korean, Table 15)
    assert spearman([1.0, float("nan"), 3.0], [3.0, 2.0, 1.0]).n == 2
    assert math.isnan(spearman([1.0], [2.0]).rho)


def test_english_baseline_falls_back_to_its_in_variety_score_only():
    df = _table([("pos", "anglic", "english", "m", "in-variety", "english", 80.0),
                 ("pos", "c", "v", "m", "zero-shot", "english", 60.0),
                 ("eqa", "anglic", "english", "m", "combined", "combined", 80.0),
                 ("eqa", "c", "v", "m", "zero-shot", "english", 60.0)])
    g = gaps(df, representatives={"c": "v", "anglic": "english"}).set_index(["task", "cluster", "gap"])
    assert g.loc[("pos", "c", "eng_eng"), "value"] == pytest.approx(25.0)
    assert math.isnan(g.loc[("eqa", "c", "eng_eng"), "value"])  # combined training is not "English only"


def test_an_unregistered_variety_with_a_cluster_is_kept_but_warned_about_with_near_matches(tmp_path):
    from dialectbench.analysis.scores_io import UnregisteredVarietyWarning

    path = tmp_path / "scores.csv"
    path.write_text("task,cluster,variety,model,setting,train_on,score\n"
                    "pos,anglic,english,m,zero-shot,english,90\n"
                    "pos,anglic,singlsh,m,zero-shot,english,70\n")
    with pytest.warns(UnregisteredVarietyWarning, match=r"'singlsh' at row 2 \(did you mean 'singlish'"):
        df = read_scores(path)
    assert set(df["variety"]) == {"english", "singlsh"}
    assert set(df["cluster"]) == {"anglic"}


def test_summaries_follow_the_declared_direction(monkeypatch):
    """Max-obtainable and the minimum variety read tasks.yaml's higher_is_better: were DEP's metric an
    error rate, its best row would be the smallest."""
    import pandas as pd

    from dialectbench.analysis import max_scores, task_summary
    from dialectbench.tasks import TASKS

    rows = [("dep", "c", "a", 10.0, "m1"), ("dep", "c", "a", 30.0, "m2"), ("dep", "c", "b", 20.0, "m1")]
    df = pd.DataFrame([{"task": t, "cluster": c, "variety": v, "score": s, "model": m, "setting": "zero-shot",
                        "train_on": "english"} for t, c, v, s, m in rows])
    assert max_scores(df).set_index("variety").loc["a", "model"] == "m2"
    monkeypatch.setitem(TASKS, "dep", TASKS["dep"].model_copy(update={"higher_is_better": False}))
    assert max_scores(df).set_index("variety").loc["a", "model"] == "m1"
    summary = task_summary(df).iloc[0]
    assert (summary.max_variety, summary.max_score, summary.min_variety, summary.min_score) == ("a", 10.0, "b", 20.0)
