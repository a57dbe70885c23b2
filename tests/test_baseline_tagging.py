"""CRF tagger (pos, ner) learns synthetic affix and context rules and generalises to unseen words."""

from __future__ import annotations

import random

import pytest

from dialectbench.backends.base import TrainingDataError
from dialectbench.backends.baseline import BaselineBackend, BaselineModel, CRFConfig
from dialectbench.data.examples import Sentence, TaggedSentence

FAST = CRFConfig(max_iterations=60)


def _stem(rng: random.Random) -> str:
    return "".join(rng.choice("bdgklmnprst") + rng.choice("aeiou") for _ in range(2))


def _pos_corpus(n: int, seed: int) -> list[Sentence]:
    """Tag from the suffix (-ing VERB, -ly ADV, -s NOUN) except after "to", where any word is a VERB:
    needs affix features (test stems are new) and context (the "to" rule)."""
    rng = random.Random(seed)
    suffix = {"ing": "VERB", "ly": "ADV", "s": "NOUN"}
    out = []
    for k in range(n):
        words, tags = [], []
        for _ in range(rng.randint(3, 8)):
            if rng.random() < 0.2:
                words += ["to", _stem(rng) + rng.choice(list(suffix))]
                tags += ["PART", "VERB"]
            else:
                suf = rng.choice(list(suffix))
                words.append(_stem(rng) + suf)
                tags.append(suffix[suf])
        out.append(Sentence(f"{seed}-{k}", tuple(words), tuple(tags), (0,) * len(words), ("dep",) * len(words)))
    return out


def _accuracy(gold, pred) -> float:
    pairs = [(g, p) for gs, ps in zip(gold, pred) for g, p in zip(gs, ps)]
    return sum(g == p for g, p in pairs) / len(pairs)


def test_pos_crf_learns_affix_and_context_rule():
    model = BaselineBackend(crf=FAST).fit("pos", _pos_corpus(150, 1), None)
    test = _pos_corpus(80, 2)
    pred = model.predict(test)
    assert [len(p) for p in pred] == [len(s.words) for s in test]
    assert _accuracy([s.upos for s in test], pred) > 0.97
    after_to = [p[i + 1] for s, p in zip(test, pred) for i, w in enumerate(s.words) if w == "to"]
    assert after_to.count("VERB") / len(after_to) > 0.9


def test_a_fit_depends_only_on_its_data_and_seed():
    """The perceptron (opt-in) shuffles with the C library's rand(): a second fit in the same process (a
    reused worker) must not see the state the first one left."""
    train = _pos_corpus(150, 1)
    perceptron = BaselineBackend(crf=CRFConfig(algorithm="ap", max_iterations=10))
    first, again = (perceptron.fit("pos", train, None).crf.state_features_ for _ in range(2))
    assert first == again
    assert perceptron.fit("pos", train, None, seed=1).crf.state_features_ != first


def _ner_corpus(n: int, seed: int) -> list[TaggedSentence]:
    """Capitalised runs after "in" are B-LOC I-LOC..., after "met" B-PER I-PER...; the rest O."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        toks, tags = [], []
        for _ in range(rng.randint(1, 3)):
            trigger = rng.choice(["in", "met", "saw"])
            toks += [_stem(rng), trigger]
            tags += ["O", "O"]
            span = [_stem(rng).capitalize() for _ in range(rng.randint(1, 2))]
            kind = {"in": "LOC", "met": "PER", "saw": None}[trigger]
            toks += span if kind else [w.lower() for w in span]
            tags += [f"{'B' if i == 0 else 'I'}-{kind}" if kind else "O" for i in range(len(span))]
        out.append(TaggedSentence(f"{seed}-{k}", tuple(toks), tuple(tags)))
    return out


def test_ner_crf_learns_trigger_and_shape_rule():
    model = BaselineBackend(crf=FAST).fit("ner", _ner_corpus(150, 1), None)
    test = _ner_corpus(60, 2)
    assert _accuracy([s.tags for s in test], model.predict(test)) > 0.97


def test_tiny_empty_and_pickle(tmp_path):
    one = [TaggedSentence("a", ("x", "y"), ("O", "O")), TaggedSentence("b", (), ())]
    model = BaselineBackend(crf=FAST).fit("ner", one, None)
    assert model.predict([TaggedSentence("t", ("q",), ("O",)), TaggedSentence("e", (), ())]) == [("O",), ()]
    model.save(tmp_path / "crf.pkl")
    assert BaselineModel.load(tmp_path / "crf.pkl").predict(one) == model.predict(one)
    with pytest.raises(TrainingDataError, match="empty"):
        BaselineBackend().fit("pos", [], None)
    with pytest.raises(TrainingDataError, match="empty"):
        BaselineBackend().fit("ner", [TaggedSentence("e", (), ())], None)
