"""Text classification (did/sa/tc) and NLI baselines learn synthetic rules and degrade gracefully."""

from __future__ import annotations

import random

import pytest

from dialectbench.backends.base import TrainingDataError
from dialectbench.backends.baseline import BaselineBackend, BaselineModel
from dialectbench.data.examples import PairExample, TextExample

STEMS = [f"{a}{b}{c}" for a in "bdgklmnprst" for b in "aeiou" for c in "lmnrst"]


def _dialect_corpus(n: int, seed: int) -> list[TextExample]:
    """Two 'dialects' sharing all stems but spelling endings differently (-ao vs -um), plus a third
    marked only by a function word: learnable from character n-grams, not from whole words."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        label = rng.choice(["north", "south", "west"])
        words = rng.sample(STEMS, 6)
        if label == "north":
            words = [w + "ao" for w in words]
        elif label == "south":
            words = [w + "um" for w in words]
        else:
            words.insert(rng.randrange(6), "xel")
        out.append(TextExample(f"{seed}-{k}", " ".join(words), label))
    return out


@pytest.mark.parametrize("task", ["did", "sa", "tc"])
def test_text_classifier_generalises_to_unseen_words(task):
    model = BaselineBackend().fit(task, _dialect_corpus(120, 1), None)
    test = _dialect_corpus(100, 2)
    acc = sum(p == ex.label for ex, p in zip(test, model.predict(test))) / len(test)
    assert acc > 0.9, acc


def test_one_class_and_tiny_training_sets():
    one = [TextExample(str(k), f"text {k}", "pos") for k in range(5)]
    model = BaselineBackend().fit("sa", one, None)
    assert model.predict([TextExample("x", "anything", "neg")]) == ["pos"]
    blank = [TextExample("a", "", "a"), TextExample("b", " ", "b")]
    assert len(BaselineBackend().fit("did", blank, None).predict(blank)) == 2
    assert model.predict([]) == []


def test_empty_training_set_and_wrong_type_are_clear_errors():
    with pytest.raises(TrainingDataError, match="empty"):
        BaselineBackend().fit("tc", [], None)
    with pytest.raises(TypeError, match="PairExample"):
        BaselineBackend().fit("nli", [TextExample("a", "b", "c")], None)


def _nli(n: int, seed: int) -> list[PairExample]:
    """entailment: hypothesis is a subset of the premise; contradiction: the subset plus a negation;
    neutral: the hypothesis brings new words."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        premise = rng.sample(STEMS, 8)
        sub = rng.sample(premise, 3)
        label = rng.choice(["entailment", "neutral", "contradiction"])
        if label == "contradiction":
            sub.insert(1, "not")
        elif label == "neutral":
            sub += rng.sample([s for s in STEMS if s not in premise], 2)
        out.append(PairExample(f"{seed}-{k}", " ".join(premise), " ".join(sub), label))
    return out


def test_nli_learns_overlap_and_negation():
    model = BaselineBackend().fit("nli", _nli(150, 1), None)
    test = _nli(100, 2)
    acc = sum(p == ex.label for ex, p in zip(test, model.predict(test))) / len(test)
    assert acc > 0.9, acc


def test_models_pickle(tmp_path):
    model = BaselineBackend().fit("nli", _nli(30, 3), None)
    model.save(tmp_path / "m.pkl")
    test = _nli(10, 4)
    assert BaselineModel.load(tmp_path / "m.pkl").predict(test) == model.predict(test)
