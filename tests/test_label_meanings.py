"""Issue 36 items 3 and 4: label meanings declared in the catalogue (one task-level label set, a job whose
training and test label meanings are not known to align flagged and kept out of summaries), and predicted
label distributions far from gold flagged (`skewed_predictions`), every lone flag printed by the terminal."""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

import pytest
from runner_fakes import FakeSource
from typer.testing import CliRunner

from dialectbench.backends.base import InvalidAnswer
from dialectbench.cli.main import app
from dialectbench.data import user_catalogue
from dialectbench.data.catalogue import load_catalogue
from dialectbench.data.examples import Sentence, TextExample
from dialectbench.runner import Store, run
from dialectbench.runner.flags import (
    describe,
    evaluation_flags,
    kept_out,
    label_meanings_gap,
    needs_warning,
    skewed_predictions,
)

run_mod = importlib.import_module("dialectbench.runner.orchestrate")


def _texts(prefix: str, labels: Sequence[str]) -> list[TextExample]:
    return [TextExample(f"{prefix}-{i}", f"{label} text {i}", label) for i, label in enumerate(labels)]


def _ner(n: int, tags: Sequence[str]) -> list[Any]:
    from dialectbench.data.examples import TaggedSentence

    return [TaggedSentence(f"s{i}", tuple(f"w{j}" for j in range(len(tags))), tuple(tags)) for i in range(n)]


# ------------------------------------------------------------------------------------- skewed predictions
def test_class_shares_far_from_gold_are_flagged_with_the_accuracy_they_cap():
    golds = _texts("x", ["neg"] * 16 + ["pos"] * 4)  # 80% neg
    skewed = ["pos"] * 17 + ["neg"] * 3  # 85% pos: total variation 0.65, so at most 35% can be right
    flags = evaluation_flags(Counter(neg=5, pos=5), golds, 20.0, "accuracy", predictions=skewed)
    assert flags["skewed_predictions"] == {"kind": "class_shares", "distance": 0.65, "bound": 35.0, "n": 20}
    assert needs_warning({"flags": flags}) and "at most 35.0% can be right" in " ".join(describe(flags))
    # near gold (total variation 0.1): no flag, whatever the score
    near = ["neg"] * 14 + ["pos"] * 6
    assert "skewed_predictions" not in evaluation_flags(Counter(neg=5, pos=5), golds, 60.0, "accuracy",
                                                        predictions=near)
    # the threshold is strict: exactly 0.5 leaves half the set answerable
    half = _texts("h", ["a"] * 10 + ["b"] * 10)
    assert skewed_predictions(half, ["b"] * 15 + ["a"] * 5, "sa") is None  # tv 0.25
    assert skewed_predictions(half, ["c"] * 10 + ["a"] * 10, "sa") is None  # tv 0.5
    assert skewed_predictions(half, ["c"] * 11 + ["a"] * 9, "sa")["distance"] == 0.55


def test_one_label_replaces_skew_and_dids_pooled_class_and_small_sets_are_not_flagged():
    golds = _texts("x", ["neg"] * 16 + ["pos"] * 4)
    constant = evaluation_flags(Counter(neg=5, pos=5), golds, 20.0, "accuracy", predictions=["pos"] * 20)
    assert "one_label" in constant and "skewed_predictions" not in constant
    assert evaluation_flags(Counter(neg=5, pos=5), golds, 20.0, "f1", majority=False,
                            predictions=["pos"] * 17 + ["neg"] * 3) == {}
    assert skewed_predictions(golds[:9], ["pos"] * 9, "sa") is None
    # invalid answers are not a predicted label: 9 answered of 20 is too few to tell
    assert skewed_predictions(golds, ["pos"] * 9 + [InvalidAnswer("?")] * 11, "sa") is None


def test_ner_entity_rate_far_from_gold_is_flagged():
    # the Norwegian NER zero-shot shape: gold tags ~6% of tokens, the model ~53%
    gold_tags = ["B-PER"] + ["O"] * 15
    golds = _ner(12, gold_tags)
    over = [["B-PER", "I-PER"] * 4 + ["O"] * 8 for _ in golds]  # 50% of tokens
    flag = skewed_predictions(golds, over, "ner")
    assert flag["kind"] == "entity_rate" and flag["predicted_rate"] == 0.5 and flag["gold_rate"] == 0.0625
    assert flag["bound"] == pytest.approx(22.22, abs=0.01)  # 2 * 0.0625 / 0.5625
    assert "50.0% of tokens predicted as entities against 6.2% in gold" in describe({"skewed_predictions": flag})[0]
    within = [["B-PER", "I-PER", "I-PER"] + ["O"] * 13 for _ in golds]  # 3x gold: not beyond the bound
    assert skewed_predictions(golds, within, "ner") is None
    assert skewed_predictions(golds, [["O"] * 16 for _ in golds], "ner")["predicted_rate"] == 0.0  # tags nothing
    no_entities = _ner(12, ["O"] * 16)
    assert skewed_predictions(no_entities, over, "ner") is None  # no gold rate to compare with


def test_pos_tag_shares_far_from_gold_are_flagged():
    golds = [Sentence(f"s{i}", ("a", "b", "c", "d"), ("DET", "NOUN", "VERB", "PUNCT"), (2, 3, 0, 3),
                      ("det", "nsubj", "root", "punct")) for i in range(10)]
    assert skewed_predictions(golds, [["NOUN"] * 4 for _ in golds], "pos")["distance"] == 0.75
    assert skewed_predictions(golds, [["DET", "NOUN", "VERB", "NOUN"] for _ in golds], "pos") is None


# ------------------------------------------------------------------------------------------ label meanings
def test_the_sa_catalogue_declares_label_meanings_and_maps_astd_by_them():
    cat = load_catalogue("sa")
    astd = cat.datasets["astd"].labels
    # ASTD's NEUTRAL is subjective mixed, its OBJ objective: what MAC calls mixed and neutral
    assert astd.map == {"POS": "positive", "NEG": "negative", "NEUTRAL": "mixed", "OBJ": "neutral"}
    assert "subjective mixed" in astd.definition
    assert cat.entry("egyptian arabic").label_map == astd.map
    assert cat.datasets["mac"].labels.map["neutral"] == "neutral" and cat.datasets["mac"].labels.map["mixed"] == "mixed"
    # the datasets whose files no one here has read do not claim meanings
    assert not cat.meanings_declared("oclar") and not cat.meanings_declared("dzsentia")
    assert cat.meanings_declared("astd") and load_catalogue("ner").meanings_declared("anything")


def test_the_mirror_reads_astd_and_mac_onto_one_label_set(shared_data):
    from dialectbench.data import open_source

    src = open_source(shared_data)
    astd = Counter(ex.label for ex in src.load("sa", "egyptian arabic", "test"))
    mac = Counter(ex.label for ex in src.load("sa", "standard arabic", "train"))
    assert set(astd) == set(mac) == {"positive", "negative", "neutral", "mixed"}
    assert src.label_meanings("sa", "egyptian arabic") == ("astd", True)


def test_label_meanings_gap_flags_a_cross_dataset_job_with_an_undeclared_side():
    assert label_meanings_gap([("mac", True)], ("astd", True)) is None
    assert label_meanings_gap([("oclar", False)], ("oclar", False)) is None  # one dataset, one scheme
    gap = label_meanings_gap([("mac", True)], ("oclar", False))
    assert gap == {"train": ["mac"], "test": "oclar", "undeclared": ["oclar"]}
    flags = {"label_meanings": gap}
    assert kept_out(flags) and needs_warning({"flags": flags})
    assert "no declared label meanings for oclar" in describe(flags)[0]


def _sa_data() -> dict:
    return {("sa", "standard arabic"): {"train": _texts("msa-tr", ["positive", "negative"] * 6),
                                        "test": _texts("msa-te", ["positive", "negative"] * 3)},
            ("sa", "tunisian arabic"): {"train": _texts("tun-tr", ["positive", "negative"] * 5),
                                        "test": _texts("tun-te", ["positive", "negative"] * 2)},
            ("sa", "moroccan arabic"): {"test": _texts("mar-te", ["positive", "negative"] * 2)}}


class _MeaningSource(FakeSource):
    """Standard arabic and tunisian come from datasets that declare their label meanings, moroccan from one
    that does not."""

    DATASETS: ClassVar[dict] = {"standard arabic": ("mac", True), "tunisian arabic": ("tsac", True), "moroccan arabic": ("x", False)}

    def label_meanings(self, task: str, variety: str) -> tuple[str, bool]:
        return self.DATASETS[variety]


class _Echo:
    def fit(self, task: str, train: Sequence[Any], dev: Any, *, seed: int = 0) -> Any:
        class M:
            def predict(self, examples: Sequence[Any]) -> list[str]:
                return [ex.text.split()[0] for ex in examples]
        return M()

    name = "echo"
    config: ClassVar[dict] = {}


def test_a_cross_dataset_job_with_undeclared_meanings_is_flagged_and_kept_out_of_summaries(tmp_path):
    result = run(store=tmp_path / "r.sqlite", tasks=["sa"], settings=["in-cluster"],
                 source=_MeaningSource(_sa_data()), backend=_Echo())
    with Store(result.store) as db:
        flagged = {r["variety"]: r["flags"] for r in db.flagged()}
        kept = {r["variety"] for r in db.scores()}
        everything = {r["variety"] for r in db.scores(include_overlap=True)}
    assert flagged["moroccan arabic"]["label_meanings"] == {"train": ["mac"], "test": "x", "undeclared": ["x"]}
    assert "label_meanings" not in flagged.get("tunisian arabic", {})  # both declared: aligned
    assert kept == {"standard arabic", "tunisian arabic"} and "moroccan arabic" in everything


# --------------------------------------------------------------------------------------- user catalogues
USER = """task: sa
description: test
datasets:
  d:
    name: d
    licence: CC0-1.0
    citation: me
    labels:
      map: {P: positive, N: negative}
      definition: 'my README: P positive, N negative'
varieties:
  - {name: "egyptian arabic (i:mine)", cluster: arabic}
entries:
  - variety: egyptian arabic (i:mine)
    dataset: d
    format: labelled
    label_map: {P: positive, N: %s}
    splits:
      test: [{file: {path: t.tsv}}]
"""


@pytest.mark.usefixtures("forget_user_catalogues")
def test_a_user_catalogue_declares_label_meanings_and_a_disagreeing_map_is_a_line_error(tmp_path):
    (tmp_path / "t.tsv").write_text("good day\tP\nbad day\tN\n", encoding="utf-8")
    path = tmp_path / "my.yaml"
    path.write_text(USER % "negative", encoding="utf-8")
    cat, problems = user_catalogue.validate_file(path)
    assert problems == [] and cat.datasets["d"].labels.map == {"P": "positive", "N": "negative"}
    path.write_text(USER % "neutral", encoding="utf-8")
    problems = user_catalogue.validate_file(path)[1]
    assert problems and all(p.startswith(f"{path}:") for p in problems)
    assert any("declares label 'N' as 'negative'" in p for p in problems), problems
    path.write_text((USER % "negative").replace("N: negative}", "N: bad}"), encoding="utf-8")
    assert any("not in the task's label set" in p for p in user_catalogue.validate_file(path)[1])


# ------------------------------------------------------------------------------------------------ terminal
def test_the_terminal_prints_a_lone_flag_that_is_not_a_warning(tmp_path, monkeypatch):
    """An in-cluster SA job whose only flag is the narrowed label space (a recorded fact, not a warning)."""
    data = _sa_data()
    data[("sa", "standard arabic")]["train"] = _texts("msa-tr", ["positive", "negative", "objective"] * 4)
    monkeypatch.setattr(run_mod, "_open_source", lambda data_dir: FakeSource(data))
    monkeypatch.setattr(run_mod, "_get_backend", lambda model: _Echo())
    out = CliRunner().invoke(app, ["run", "--tasks", "sa", "--settings", "in-cluster", "--store",
                                   str(tmp_path / "r.sqlite"), "--no-report"])
    assert out.exit_code == 0, out.output
    assert "score(s) flagged" not in out.stderr
    lines = [x for x in out.stderr.splitlines() if x.startswith("  - ")]
    assert "note: 3 score(s) carry recorded facts" in out.stderr, out.stderr
    assert len(lines) == 3 and all("trained and scored on the shared labels negative, positive" in x for x in lines)
