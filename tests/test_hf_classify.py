"""Learnability of sequence classification (single text, text pair) and multiple choice on tiny models."""

from __future__ import annotations

import pytest

from dialectbench.backends.hf import HFBackend, HFFittedModel, synthetic
from dialectbench.backends.hf.tiny import make_tiny_model

FAST = {"lr": 1e-3, "head_lr": 1e-3, "batch_size": 16, "epochs": 12, "patience": 3}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    text = synthetic.corpus(300)
    return {kind: make_tiny_model(tmp_path_factory.mktemp(kind), kind, text, vocab_size=60) for kind in ("bert", "xlmr")}


def _accuracy(golds, preds) -> float:
    return sum(g == p for g, p in zip(golds, preds)) / len(golds)


def test_single_text_classification(tiny, tmp_path):
    train, dev, test = synthetic.texts(300, 0), synthetic.texts(60, 1), synthetic.texts(100, 2)
    model = HFBackend(f"hf:{tiny['xlmr']}", device="cpu", overrides=FAST).fit("sa", train, dev, seed=0)
    preds = model.predict(test)
    assert set(preds) <= {"yes", "no"}
    assert _accuracy([e.label for e in test], preds) >= 0.95
    model.save(tmp_path / "fitted")
    assert HFFittedModel.load(tmp_path / "fitted").predict(test) == preds


def test_pair_classification_needs_both_texts(tiny):
    train, dev, test = synthetic.pairs(400, 0), synthetic.pairs(60, 1), synthetic.pairs(100, 2)
    model = HFBackend(f"hf:{tiny['bert']}", device="cpu", overrides=FAST).fit("nli", train, dev, seed=0)
    golds = [e.label for e in test]
    # each text alone decides the label only for its extreme cases: a one-sided model stays far below
    assert _accuracy(golds, model.predict(test)) >= 0.95


def test_multiple_choice_scores_each_option(tiny):
    train, dev, test = synthetic.multiple_choice(300, 0), synthetic.multiple_choice(40, 1), synthetic.multiple_choice(80, 2)
    model = HFBackend(f"hf:{tiny['bert']}", device="cpu", overrides=FAST).fit("mrc", train, dev, seed=0)
    preds = model.predict(test)
    assert all(isinstance(p, int) and 0 <= p < 4 for p in preds)
    assert _accuracy([e.answer for e in test], preds) >= 0.95
    # a 3-option example next to 4-option ones: padded options are masked, never chosen
    short = [synthetic.MultipleChoiceExample("short", "ba ko", "which", ("mi", "zutu", "se"), 1)]
    assert model.predict(short + test[:3])[0] == 1
