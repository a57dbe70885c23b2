"""Learnability of the token heads (POS, NER) and the biaffine parser on tiny random models.

The synthetic tags depend on a word's *first* syllable while most words have several sub-tokens, so only
labels placed on the first sub-token and reassembled per word reach ~100%; parsing needs the arc scorer
to find "the closest verb on the left" over word (not sub-token) positions.
"""

from __future__ import annotations

import pytest

from dialectbench.backends.hf import HFBackend, synthetic
from dialectbench.backends.hf.heads import first_subtokens
from dialectbench.backends.hf.tiny import make_tiny_model

FAST = {"lr": 1e-3, "head_lr": 1e-3, "batch_size": 16, "epochs": 8, "patience": 2}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    text = synthetic.corpus(300)
    return {kind: make_tiny_model(tmp_path_factory.mktemp(kind), kind, text, vocab_size=60) for kind in ("bert", "xlmr")}


def _word_accuracy(golds, preds) -> float:
    pairs = [(g, p) for gold, pred in zip(golds, preds) for g, p in zip(gold, pred)]
    assert all(len(gold) == len(pred) for gold, pred in zip(golds, preds)), "one prediction per word"
    return sum(g == p for g, p in pairs) / len(pairs)


def test_first_subtoken_map():
    assert first_subtokens([None, 0, 0, 1, None, 2, 2, None], 4) == [1, 3, 5, -1]


@pytest.mark.parametrize("kind", ["bert", "xlmr"])
def test_pos_learns_with_first_subtoken_labels(tiny, kind):
    train, dev, test = synthetic.tagging(300, 0), synthetic.tagging(40, 1), synthetic.tagging(60, 2)
    model = HFBackend(f"hf:{tiny[kind]}", device="cpu", overrides=FAST).fit("pos", train, dev, seed=0)
    split = [len(model.tokenizer(list(s.words), is_split_into_words=True)["input_ids"]) - 2 > len(s.words)
             for s in test]
    assert sum(split) > len(test) // 2, "the synthetic words must be split into several sub-tokens"
    assert _word_accuracy([s.upos for s in test], model.predict(test)) >= 0.97
    assert model.log is not None and model.log.best_epoch is not None


def test_ner_tags_per_token(tiny):
    train, test = synthetic.tagging(300, 0, ner=True), synthetic.tagging(60, 2, ner=True)
    model = HFBackend(f"hf:{tiny['xlmr']}", device="cpu", overrides=FAST).fit("ner", train, None, seed=0)
    preds = model.predict(test)
    assert all(isinstance(p, tuple) and set(p) <= {"B-PER", "B-LOC", "O"} for p in preds)
    assert _word_accuracy([s.tags for s in test], preds) >= 0.95


def test_dependency_arcs_and_labels(tiny):
    train, dev, test = synthetic.parsing(300, 0), synthetic.parsing(40, 1), synthetic.parsing(60, 2)
    overrides = {**FAST, "epochs": 15, "patience": 3}
    model = HFBackend(f"hf:{tiny['bert']}", device="cpu", overrides=overrides).fit("dep", train, dev, seed=0)
    preds = model.predict(test)
    uas = _word_accuracy([s.heads for s in test], [p[0] for p in preds])
    las = _word_accuracy([list(zip(s.heads, s.deprels)) for s in test], [list(zip(*p)) for p in preds])
    assert uas >= 0.95 and las >= 0.95
    assert all(sum(h == 0 for h in p[0]) == 1 for p in preds), "MST decoding gives one root per sentence"
