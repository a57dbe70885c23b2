"""`sdqa goldp` by default: each language's reader cross-fitted by passage on its gold (typed) questions;
Spearman of WER and F1 across dialects with n and p (undefined for two dialects); SD-QA Table 5's scale."""

from __future__ import annotations

import csv
import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.sdqa import SDQAError
from dialectbench.sdqa.fairness import ge_decomposition
from dialectbench.sdqa.goldp import GOLD, CrossFitReader, Reader, run_goldp, unfairness_table

NAMES = ["Amara Okafor", "Birgit Halvorsen", "Chen Wei", "Dmitri Volkov", "Elena Ruiz", "Farid Haddad",
         "Greta Lind", "Hiro Tanaka", "Ines Costa", "Jonas Berg", "Kofi Mensah", "Lena Vogel", "Mateo Silva",
         "Nadia Karim", "Omar Said"]
CITIES = ["Lagos", "Bergen", "Chengdu", "Kazan", "Seville", "Beirut", "Uppsala", "Sendai", "Porto", "Malmo",
          "Kumasi", "Leipzig", "Cusco", "Sylhet", "Tangier"]
# how each dialect's "ASR" garbles the typed question: usa keeps it, gbr drops the name's first word, aus
# also turns "when"/"where" into "what" (a question that no longer says whether a year or a place is asked)
DIALECTS = {"usa": lambda q, n: q.lower(), "gbr": lambda q, n: q.replace(n.split()[0] + " ", "").lower(),
            "aus": lambda q, n: q.replace(n.split()[0] + " ", "").replace("When", "What").replace("Where", "What").lower()}


def _layout(root, dialects=tuple(DIALECTS)):
    """SD-QA's question file (gold + one column per dialect) and one GoldP file per dialect."""
    rows = []
    for i, (name, city) in enumerate(zip(NAMES, CITIES)):
        year = str(1930 + 3 * i)
        ctx = f"{name} is a writer. {name} was born in {city} in the year {year}. Later {name} moved abroad."
        rows += [(f"{i}1", f"When was {name} born?", ctx, year, name), (f"{i}2", f"Where was {name} born?", ctx, city, name)]
    folder = root / "sd-qa" / "dev" / "eng"
    folder.mkdir(parents=True)
    with (folder / "english.dev.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["", "ID", "in XOR dev", "english-gold", *(f"{d}-en-US" for d in dialects), ])
        for k, (qid, typed, _, _, name) in enumerate(rows):
            w.writerow([k, qid, "False", typed, *(DIALECTS[d](typed, name).rstrip("?") for d in dialects)])
        w.writerow([len(rows), "999", "False", "A question without a GoldP answer?", *("x" for _ in dialects)])
    goldp = root / "sd-qa-goldp" / "dev"
    goldp.mkdir(parents=True)
    for d in dialects:
        data = {"data": [{"title": qid, "paragraphs": [{"context": ctx, "qas": [
            {"id": f"english-{qid}-{d}", "question": DIALECTS[d](typed, name).rstrip("?") + "?",
             "answers": [{"text": ans, "answer_start": ctx.find(ans)}]}]}]} for qid, typed, ctx, ans, name in rows]}
        (goldp / f"sdqa-dev-english-{d}.json").write_text(json.dumps(data))
    return root


def test_the_default_reader_is_cross_fitted_on_the_gold_questions_and_never_saw_a_passage(tmp_path):
    root = _layout(tmp_path)
    res = run_goldp(root / "sd-qa-goldp", sdqa_dir=root / "sd-qa", langs=["eng"], mixed=False)
    assert "cross-fitted" in res.system and "gold questions" in res.system
    q = res.questions
    assert not q["passage_seen"].any() and set(q["fold"]) == {0, 1, 2, 3, 4}
    # the two questions about one passage are always answered by the same held-out model
    assert (q.groupby(["dialect", q["example_id"].str[:-1]])["fold"].nunique() == 1).all()
    f1 = res.f1.set_index("dialect")["f1"]
    assert f1[GOLD] >= 90 and f1["usa"] >= 90 and f1["aus"] < f1["usa"]  # without the name: guesswork
    untrained = run_goldp(root / "sd-qa-goldp", sdqa_dir=root / "sd-qa", langs=["eng"], mixed=False, reader=Reader())
    assert f1[GOLD] > untrained.f1.set_index("dialect")["f1"][GOLD] + 20


def test_cross_fitting_without_the_typed_questions_says_where_to_get_them(tmp_path):
    root = _layout(tmp_path)
    with pytest.raises(SDQAError, match="--sdqa-dir"):
        run_goldp(root / "sd-qa-goldp", sdqa_dir=None, langs=["eng"], reader=CrossFitReader())


def test_spearman_across_dialects_has_n_and_p_and_is_undefined_for_two(tmp_path):
    root = _layout(tmp_path / "three")
    (sp,) = run_goldp(root / "sd-qa-goldp", sdqa_dir=root / "sd-qa", langs=["eng"], mixed=False).spearman
    assert sp["n_dialects"] == 3 and -1 <= sp["rho_dialects"] < 0 and 0 < sp["p_dialects"] <= 1
    assert sp["note"] == ""
    two = _layout(tmp_path / "two", dialects=("usa", "aus"))
    (sp2,) = run_goldp(two / "sd-qa-goldp", sdqa_dir=two / "sd-qa", langs=["eng"], mixed=False).spearman
    assert sp2["n_dialects"] == 2 and np.isnan(sp2["rho_dialects"]) and np.isnan(sp2["p_dialects"])
    assert "undefined" in sp2["note"] and sp2["n_questions"] == 60


def test_cli_goldp_defaults_to_the_cross_fitted_reader(tmp_path):
    root = _layout(tmp_path)
    res = CliRunner().invoke(app, ["sdqa", "goldp", "--data-dir", str(root / "sd-qa-goldp"), "--no-mixed",
                                   "--view", "unfairness", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert "cross-fitted" in res.stderr and "measure noise" not in res.stderr
    (row,) = json.loads(res.stdout)
    assert row["no_answer_questions"] == 3 and row["unfairness_sdqa_population"] < row["unfairness"]


# ---- SD-QA Table 5's scale

def _questions(dialects: int, answered: int, correct: int) -> pd.DataFrame:
    """Per dialect `answered` GoldP questions, the first `correct` of them with F1 1, the rest 0."""
    return pd.DataFrame([{"lang": "eng", "dialect": f"d{g}", "example_id": str(i), "empty": False,
                          "f1": float(i < correct)} for g in range(dialects) for i in range(answered)])


def test_table_5s_scale_is_the_per_question_index_over_a_population_half_without_answers():
    # binary benefits with mean M have E^2 = (1 - M) / (2M) exactly, whatever their scale
    b = np.repeat([1.0, 0.0], [356, 138])
    assert ge_decomposition(b, ["g"] * b.size).total == pytest.approx((1 - 356 / 494) / (2 * 356 / 494))
    assert ge_decomposition(100 * b, ["g"] * b.size).total == pytest.approx(ge_decomposition(b, ["g"] * b.size).total)
    # English as SD-QA has it: 11 dialects x 1000 dev questions, 506 of them without a TyDi answer (not in
    # GoldP), a correct abstention on those scoring 1; 356 of the 494 answered ones right
    (row,) = unfairness_table(_questions(11, 494, 356), {"eng": 506})
    m = (506 + 356) / 1000
    assert row["unfairness_sdqa_population"] == pytest.approx((1 - m) / (2 * m)) == pytest.approx(0.0800, abs=5e-5)
    assert row["unfairness"] == pytest.approx((1 - 356 / 494) / (2 * 356 / 494))  # GoldP alone: 0.194
    assert row["no_answer_questions"] == 11 * 506 and row["n"] == 11 * 494
    # Table 17's shape: equal dialects each contribute total/11 within, nothing between
    full = ge_decomposition(np.tile(np.r_[np.ones(506 + 356), np.zeros(138)], 11), np.repeat(range(11), 1000))
    assert all(v == pytest.approx(full.total / 11) for v in full.within_parts.values()) and full.between == pytest.approx(0)
