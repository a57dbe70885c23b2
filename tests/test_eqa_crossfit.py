"""EQA without TyDi QA training data: a reader cross-fitted by passage on the typed (gold) questions of the
test set itself. No question may be answered by a model that was trained on its passage."""

from __future__ import annotations

import csv
import json
from typing import ClassVar

import pytest

from dialectbench.backends.crossfit import CrossFitted, passage_folds, passage_key
from dialectbench.data.examples import QAExample

PEOPLE = [("Amara Okafor", "Lagos", "1931"), ("Birgit Halvorsen", "Bergen", "1947"), ("Chen Wei", "Chengdu", "1958"),
          ("Dmitri Volkov", "Kazan", "1962"), ("Elena Ruiz", "Seville", "1975"), ("Farid Haddad", "Beirut", "1940"),
          ("Greta Lind", "Uppsala", "1951"), ("Hiro Tanaka", "Sendai", "1969"), ("Ines Costa", "Porto", "1983"),
          ("Jonas Berg", "Malmo", "1937"), ("Kofi Mensah", "Kumasi", "1944"), ("Lena Vogel", "Leipzig", "1978"),
          ("Mateo Silva", "Cusco", "1959"), ("Nadia Karim", "Sylhet", "1966"), ("Omar Said", "Tangier", "1972"),
          ("Priya Nair", "Kochi", "1988"), ("Rosa Marin", "Bilbao", "1934"), ("Sami Aalto", "Oulu", "1949"),
          ("Tomas Novak", "Brno", "1961"), ("Ursula Frei", "Basel", "1955")]


def _example(i: int, kind: str, question: str | None = None) -> QAExample:
    name, city, year = PEOPLE[i]
    context = (f"{name} is a writer. {name} was born in {city} in the year {year}. "
               f"Later {name.split()[0]} moved abroad and wrote many books.")
    typed, answer = ((f"When was {name} born?", year) if kind == "when" else (f"Where was {name} born?", city))
    return QAExample(f"q{i}{kind}", context, question or typed, (answer,), (context.find(answer),), typed)


def _questions() -> list[QAExample]:
    return [_example(i, kind) for i in range(len(PEOPLE)) for kind in ("when", "where")]


class _Recorder:
    """A fake backend fit: remembers its training set and answers with its own number."""

    fitted: ClassVar[list[list[QAExample]]] = []

    def __init__(self, train):
        self.number, self.train = len(_Recorder.fitted), list(train)
        _Recorder.fitted.append(self.train)

    def predict(self, examples):
        return [str(self.number) for _ in examples]


def test_every_passage_is_in_one_fold_and_questions_sharing_a_passage_go_together():
    exs = _questions()
    folds = passage_folds(exs, k=4, seed=3)
    assert set(folds) == {passage_key(e) for e in exs} and len(folds) == len(PEOPLE)  # 2 questions per passage
    sizes = sorted(list(folds.values()).count(f) for f in range(4))
    assert sizes == [5, 5, 5, 5]
    assert folds == passage_folds(list(reversed(exs)), k=4, seed=3)  # the order of the questions does not matter
    assert folds != passage_folds(exs, k=4, seed=4)  # the seed does
    with pytest.raises(ValueError, match="at least 2"):
        passage_folds(exs, k=1)


def test_no_question_is_answered_by_a_model_trained_on_its_passage():
    _Recorder.fitted = []
    exs = _questions()
    cf = CrossFitted(_Recorder, exs, k=5, seed=0)
    assert len(_Recorder.fitted) == 5 and all(len(t) == 32 for t in _Recorder.fitted)  # 4 of 5 folds each
    answered_by = [int(p) for p in cf.predict(exs)]
    for ex, model in zip(exs, answered_by):
        assert model == cf.fold_of(ex)
        assert passage_key(ex) not in {passage_key(t) for t in _Recorder.fitted[model]}
    # and every training passage is tested exactly once, by the one model that lacks it
    assert sorted(answered_by) == sorted(cf.folds[passage_key(e)] for e in exs)
    assert cf.passage_leaks(exs) == 0 and cf.text_overlap(exs).shared == 0
    assert cf.cross_fit_extra(exs) == {"folds": 5, "by": "passage", "train_questions": 40, "passages": 20,
                                "passages_seen": 0}
    # a model asked about a passage it trained on would be counted: the checks can fail
    wrong = next(i for i in range(5) if i != cf.fold_of(exs[0]))
    cf.folds[passage_key(exs[0])] = wrong
    assert cf.passage_leaks(exs[:1]) == 1 and cf.text_overlap(exs[:1]).shared == 1


def test_too_few_passages_for_the_folds_is_an_error():
    with pytest.raises(ValueError, match="cannot fill 5 folds"):
        CrossFitted(_Recorder, _questions()[:6], k=5)


def test_the_learned_span_ranker_answers_held_out_passages_better_than_its_heuristic():
    from dialectbench.backends.baseline.qa import ExtractiveQA
    from dialectbench.metrics.qa import squad_scores

    exs = _questions()
    cf = CrossFitted(lambda train: ExtractiveQA(seed=0).fit(train), exs, k=5, seed=0)
    learned = squad_scores([e.answers for e in exs], cf.predict(exs)).score
    heuristic = squad_scores([e.answers for e in exs], ExtractiveQA().predict(exs)).score
    assert learned >= 90 and learned > heuristic + 20, (learned, heuristic)
    # ASR-like questions (lower case, no "?") are answered by the same held-out models
    asr = [_example(i, kind, f"{kind} was {PEOPLE[i][0].lower()} born") for i in range(len(PEOPLE))
           for kind in ("when", "where")]
    assert squad_scores([e.answers for e in asr], cf.predict(asr)).score >= 80


# ---- the runner: planned as a cross-fitted combined job when the task has no training data

def test_eqa_without_training_data_is_cross_fitted_and_stored_as_such(tmp_path):
    from runner_fakes import FakeSource

    from dialectbench.backends.baseline import BaselineBackend
    from dialectbench.runner import Store, run
    from dialectbench.runner.plan import CROSS_FITTED

    data = {("eqa", "english"): {"test": _questions()}}
    result = run(store=tmp_path / "e.sqlite", tasks=["eqa"], source=FakeSource(data), backend=BaselineBackend())
    (group,) = result.plan.groups
    assert (group.training.mode, group.training.label, group.training.members) == ("crossfit", CROSS_FITTED, ())
    with Store(tmp_path / "e.sqlite") as db:
        (row,) = db.scores(detail=True)
        (extra,) = [json.loads(r[0]) for r in db.conn.execute("SELECT extra FROM scores")]
    assert (row["setting"], row["train_on"]) == ("combined", CROSS_FITTED)
    assert row["signature"].startswith("cross-fitted:5 passage folds") and "tydi" not in row["signature"].lower()
    assert extra["cross_fit"]["passages_seen"] == 0 and extra["cross_fit"]["train_questions"] == 40
    assert "overlap" not in row["flags"]
    assert row["score"] >= 90 and row["n"] == 40


def test_a_test_set_without_typed_questions_is_skipped_with_the_reason(tmp_path):
    from dataclasses import replace

    from runner_fakes import FakeSource

    from dialectbench.backends.baseline import BaselineBackend
    from dialectbench.runner import run

    data = {("eqa", "english"): {"test": [replace(e, typed_question="") for e in _questions()]}}
    result = run(store=tmp_path / "e.sqlite", tasks=["eqa"], source=FakeSource(data), backend=BaselineBackend())
    assert result.counts["skipped"] == 1 and result.counts["done"] == 0
    assert "no typed (gold) questions" in result.problems[0].message


def test_without_cross_fitting_the_backend_still_skips_eqa():
    from runner_fakes import FakeSource

    from dialectbench.runner.plan import build_plan

    plan = build_plan(FakeSource({("eqa", "english"): {"test": _questions()}}), model="baseline", tasks=["eqa"])
    assert not plan.groups and any(s.setting == "combined" and "train split" in s.reason for s in plan.skips)


# ---- the catalogue's test split joins each question's typed form from SD-QA's question file

def test_the_goldp_test_split_carries_the_typed_questions(tmp_path):
    from dialectbench.data.catalogue.models import TaskCatalogue
    from dialectbench.data.source import DataSource

    (tmp_path / "sd-qa" / "dev" / "eng").mkdir(parents=True)
    with (tmp_path / "sd-qa" / "dev" / "eng" / "english.dev.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["", "ID", "in XOR dev", "english-gold", "usa-en-US"])
        w.writerow([0, "-17", "False", "Who wrote it?", "who wrote it"])
        w.writerow([1, "42", "False", "When was it?", "when was it"])
    ctx = "Ann wrote it in 1990."
    goldp = tmp_path / "sd-qa-goldp" / "dev"
    goldp.mkdir(parents=True)
    (goldp / "sdqa-dev-english-usa.json").write_text(json.dumps({"data": [{"title": "t", "paragraphs": [
        {"context": ctx, "qas": [{"id": "english--17-usa", "question": "who wrote it?",
                                  "answers": [{"text": "Ann", "answer_start": 0}]},
                                 {"id": "english-42-usa", "question": "when was it?",
                                  "answers": [{"text": "1990", "answer_start": 16}]}]}]}]}))
    cat = TaskCatalogue.model_validate({
        "task": "eqa", "description": "d", "datasets": {"g": {"name": "g", "licence": "l", "citation": "c"}},
        "entries": [{"variety": "american english (a:south-eastern)", "dataset": "g", "format": "goldp", "splits": {
            "test": [{"files": {"path": {"path": "sd-qa-goldp/dev/sdqa-dev-english-usa.json"},
                                "questions": {"path": "sd-qa/dev/eng/english.dev.csv"}},
                      "options": {"check_spans": False}}]}}]})
    src = DataSource(tmp_path, {"eqa": cat}, kind="mirror")
    got = src.load("eqa", "american english (a:south-eastern)", "test")
    assert [(e.question, e.typed_question) for e in got] == [("who wrote it?", "Who wrote it?"),
                                                             ("when was it?", "When was it?")]


def test_real_eqa_catalogue_pairs_every_transcript_with_its_typed_question(shared_data):
    from dialectbench.data import open_source

    src = open_source(shared_data)
    for variety in ("seoul (m:spoken)", "vanga (a:dhaka)"):
        exs = src.load("eqa", variety, "test")
        assert exs and all(e.typed_question for e in exs), variety
