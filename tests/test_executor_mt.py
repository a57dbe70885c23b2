"""MT scoring in the executor: the variety reaches models that need it, and pseudo-references follow
DialectBench's protocol (the system's own translation of the standard-variety sentence)."""

from __future__ import annotations

from dialectbench.data.examples import TranslationExample
from dialectbench.runner.local_executor import _evaluate
from dialectbench.runner.plan import Job


class UpperCaser:
    """A 'translator' that upper-cases its input and records the varieties it was asked about."""

    def __init__(self):
        self.varieties = []

    def predict(self, examples, variety=None):
        self.varieties.append(variety)
        return [ex.source.upper() for ex in examples]


def _job(variety="norwegian nynorsk"):
    return Job(task="mt-dialect", variety=variety, cluster="norwegian", model="m", setting="zero-shot",
               train_on="none (pretrained)")


def test_pseudo_references_are_the_systems_translation_of_the_standard_sentence():
    golds = [TranslationExample("a:0", "eg er her no", "jeg er her nå", pseudo_reference=True),
             TranslationExample("a:1", "kva heiter du", "what is your name", pseudo_reference=False)]
    model = UpperCaser()
    scored = _evaluate(_job(), model, golds, None)
    assert [g.reference for g in scored["golds"]] == ["JEG ER HER NÅ", "what is your name"]
    assert scored["predictions"] == ["EG ER HER NO", "KVA HEITER DU"]
    # the dialect input is translated as its own variety, the standard sentence as the representative
    assert model.varieties[0] == "norwegian nynorsk"
    assert model.varieties[1] is not None and model.varieties[1] != "norwegian nynorsk"


def test_a_system_that_translates_both_sides_identically_scores_100_on_pseudo_references():
    golds = [TranslationExample(f"a:{i}", s, s, pseudo_reference=True)
             for i, s in enumerate(["one two three four", "five six seven eight"])]
    scored = _evaluate(_job(), UpperCaser(), golds, None)
    assert abs(scored["score"] - 100.0) < 1e-9


def test_models_without_a_variety_argument_are_called_plainly():
    class Copy:
        def predict(self, examples):
            return [ex.source for ex in examples]

    golds = [TranslationExample("a:0", "a b c d", "a b c e")]
    scored = _evaluate(_job(), Copy(), golds, None)
    assert scored["predictions"] == ["a b c d"] and 0 < scored["score"] < 100
