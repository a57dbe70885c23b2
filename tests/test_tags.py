"""Tag schemes (data/tags.py): BIOES and IOB1 to IOB2, entity types renamed; cases derived from each
scheme's definition."""

from __future__ import annotations

import pytest

from dialectbench.data.tags import to_iob2


@pytest.mark.parametrize("tags, iob2", [
    (["S-PRS", "O", "B-GEO", "I-GEO", "E-GEO"], ("B-PRS", "O", "B-GEO", "I-GEO", "I-GEO")),  # BIOES
    (["S-ORG", "S-ORG"], ("B-ORG", "B-ORG")),              # two single-token entities stay two
    (["B-ORG", "E-ORG", "B-ORG", "E-ORG"], ("B-ORG", "I-ORG", "B-ORG", "I-ORG")),  # E- closes an entity
    (["I-PER", "I-PER", "O", "I-LOC"], ("B-PER", "I-PER", "O", "B-LOC")),  # IOB1: I- may start an entity
    (["B-PER", "I-LOC"], ("B-PER", "B-LOC")),              # a type change starts a new entity
    (["O", "B-MISC", "I-MISC"], ("O", "B-MISC", "I-MISC")),  # IOB2 unchanged
])
def test_schemes_become_iob2(tags, iob2):
    assert to_iob2(tags) == iob2
    assert to_iob2(iob2) == iob2  # idempotent


def test_entity_types_are_renamed_and_the_rest_kept():
    types = {"PRS": "PER", "GEO": "LOC", "OTH": "MISC"}
    assert to_iob2(["S-PRS", "B-GEO", "E-GEO", "S-ORG", "S-OTH"], types) == (
        "B-PER", "B-LOC", "I-LOC", "B-ORG", "B-MISC")
    # a renamed type continues an entity of the same new type
    assert to_iob2(["B-GPE_LOC", "I-GPE_LOC"], {"GPE_LOC": "LOC"}) == ("B-LOC", "I-LOC")


def test_a_ner_job_whose_types_share_nothing_with_training_fails_with_the_reason(tmp_path):
    from runner_fakes import FakeSource

    from dialectbench.data.examples import TaggedSentence
    from dialectbench.runner import Store, run

    class Tagger:
        def predict(self, examples):
            return [tuple("B-PER" if i == 0 else "O" for i in range(len(s.tokens))) for s in examples]

    class Backend:
        name, config = "tagger", {}

        def fit(self, task, train, dev, *, seed=0):
            return Tagger()

    def sent(i, tags):
        return TaggedSentence(f"s{i}", tuple(f"w{k}" for k in range(len(tags))), tuple(tags))

    data = {("ner", "english"): {"train": [sent(0, ["B-PER", "O"]), sent(1, ["B-LOC", "I-LOC"])],
                                 "test": [sent(2, ["B-PER", "O"])]},
            ("ner", "norwegian bokmål (m:written)"): {"test": [sent(3, ["B-PRS", "O"]), sent(4, ["B-GEO"])]}}
    store = tmp_path / "r.sqlite"
    run(store=store, tasks=["ner"], settings=["zero-shot"], source=FakeSource(data), backend=Backend())
    with Store(store) as db:
        jobs = {j["variety"]: j for j in db.jobs()}
        scored = {r["variety"] for r in db.scores()}
    gap = jobs["norwegian bokmål (m:written)"]
    assert gap["status"] == "failed" and "share none" in gap["message"] and "GEO, PRS" in gap["message"]
    assert scored == {"english"}  # no 0.0 stored for the gap; English, whose types match, is scored
