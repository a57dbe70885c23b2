"""EQA (retrieval + span ranker), MRC (option overlap), the MT copy baseline and the backend registry."""

from __future__ import annotations

import random

import pytest

from dialectbench.backends import UnknownBackendError, get_backend
from dialectbench.backends.base import TrainingDataError, UnsupportedTaskError
from dialectbench.backends.baseline import BaselineBackend, BaselineModel, OptionOverlap
from dialectbench.backends.baseline.qa import split_sentences
from dialectbench.data.examples import MultipleChoiceExample, QAExample, TranslationExample


def _name(rng: random.Random) -> str:
    return "".join(rng.choice("bdgklmnprstz") + rng.choice("aeiou") for _ in range(3)).capitalize()


def _qa(n: int, seed: int) -> list[QAExample]:
    """Three facts per context; the question asks when a town was founded or who founded it."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        facts = [(_name(rng), _name(rng), str(rng.randint(1100, 1990))) for _ in range(3)]
        sents = [f"The town of {t} was founded by {p} in {y} after a long war." for t, p, y in facts]
        sents.insert(rng.randrange(4), f"Many people visit {_name(rng)} every summer.")
        context = " ".join(sents)
        town, founder, year = facts[rng.randrange(3)]
        if rng.random() < 0.5:
            question, answer = f"When was {town} founded?", year
        else:
            question, answer = f"Who founded the town of {town}?", founder
        out.append(QAExample(f"{seed}-{k}", context, question, (answer,), (context.index(answer),)))
    return out


def test_split_sentences_spans():
    text = "One two.  Three four? Five\nsix"
    assert [text[a:b] for a, b in split_sentences(text)] == ["One two.", "Three four?", "Five", "six"]


def test_eqa_learns_question_type_to_span():
    model = BaselineBackend().fit("eqa", _qa(80, 1), None)
    test = _qa(40, 2)
    pred = model.predict(test)
    assert all(p in ex.context for p, ex in zip(pred, test))
    em = sum(p == ex.answers[0] for p, ex in zip(pred, test)) / len(test)
    assert em > 0.85, em


def test_eqa_without_usable_training_falls_back_to_heuristic():
    unanswerable = [QAExample("u", "Nothing here.", "Who?", ("absent",), (0,))]
    model = BaselineBackend().fit("eqa", unanswerable, None)
    test = _qa(20, 3)
    pred = model.predict(test)
    # heuristic: the answer comes from the sentence about the asked town and avoids question words
    for p, ex in zip(pred, test):
        town = ex.question.split()[2] if ex.question.startswith("When") else ex.question.split()[-1][:-1]
        sentence = next(s for s in ex.context.split(". ") if town in s)
        assert p and p in sentence and town not in p
    assert model.predict([QAExample("e", "", "Who?", (), ())]) == [""]


def _mc(n: int, seed: int) -> list[MultipleChoiceExample]:
    rng = random.Random(seed)
    colours = ["red", "blue", "green", "yellow", "purple", "orange"]
    out = []
    for k in range(n):
        things = [_name(rng) for _ in range(4)]
        cols = rng.sample(colours, 4)
        passage = " ".join(f"The {t} is {c}." for t, c in zip(things, cols))
        ask = rng.randrange(4)
        options = tuple(rng.sample(cols, 4))
        out.append(MultipleChoiceExample(f"{seed}-{k}", passage, f"What colour is the {things[ask]}?",
                                         options, options.index(cols[ask])))
    return out


def test_mrc_overlap_scorer_trained_and_untrained():
    test = _mc(60, 2)
    for model in (BaselineBackend().fit("mrc", _mc(40, 1), None), OptionOverlap()):
        acc = sum(p == ex.answer for p, ex in zip(model.predict(test), test)) / len(test)
        assert acc > 0.9, acc


def test_mt_copy_baseline_needs_no_data():
    model = BaselineBackend().fit("mt-dialect", [], None)
    ex = [TranslationExample("1", "dat is goed", "that is good")]
    assert model.predict(ex) == ["dat is goed"] and model.reports_as == "copy"


def test_errors_and_registry(tmp_path):
    with pytest.raises(TrainingDataError, match="empty"):
        BaselineBackend().fit("eqa", [], None)
    with pytest.raises(UnsupportedTaskError, match="unknown task"):
        BaselineBackend().fit("asr", [], None)
    backend = get_backend("baseline")
    assert backend.name == "baseline" and isinstance(backend.config, dict)
    model = backend.fit("mrc", _mc(5, 4), None)
    model.save(tmp_path / "mrc.pkl")
    assert BaselineModel.load(tmp_path / "mrc.pkl").predict(_mc(5, 5)) == model.predict(_mc(5, 5))
    with pytest.raises(UnknownBackendError, match="known"):
        get_backend("nope")
    with pytest.raises(UnknownBackendError, match="needs an argument"):
        get_backend("hf")
