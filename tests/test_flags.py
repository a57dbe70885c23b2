"""No silent artefacts: SA in-variety by default, in-cluster SA over the shared label space, and the job flags
(unseen test labels, below the majority rate, fallbacks) in the store, the terminal, the export and the report."""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

import pytest
from runner_fakes import FakeSource
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.data.examples import TextExample
from dialectbench.runner import Store, build_plan, run
from dialectbench.runner.flags import evaluation_flags, flag_text, majority_score, shared_labels

run_mod = importlib.import_module("dialectbench.runner.orchestrate")


def _texts(prefix: str, labels: Sequence[str]) -> list[TextExample]:
    return [TextExample(f"{prefix}-{i}", f"{label} text {i}", label) for i, label in enumerate(labels)]


def sa_data() -> dict:
    """Standard arabic (the SA representative) has `objective`; tunisian has only positive/negative and a
    test label (`neutral`) that its train split lacks; moroccan is 80% negative."""
    return {
        ("sa", "standard arabic"): {"train": _texts("msa-tr", ["positive", "negative", "objective"] * 4),
                                    "test": _texts("msa-te", ["positive", "negative", "objective"] * 2)},
        ("sa", "tunisian arabic"): {"train": _texts("tun-tr", ["positive", "negative"] * 5),
                                    "test": _texts("tun-te", ["positive", "negative", "positive", "neutral"])},
        ("sa", "moroccan arabic"): {"train": _texts("mar-tr", ["positive", "negative"] * 5),
                                    "test": _texts("mar-te", ["negative"] * 8 + ["positive"] * 2)},
    }


class _Model:
    """Predicts the first word of the text (the gold label) except for `wrong`, which it always answers;
    counts the examples where it 'fell back' (texts of the label `fallback_on`)."""

    def __init__(self, labels: set[str], wrong: str | None, fallback_on: str | None) -> None:
        self.labels, self.wrong, self.fallback_on = labels, wrong, fallback_on
        self.fallbacks = 0

    def predict(self, examples: Sequence[Any]) -> list[str]:
        out = []
        for ex in examples:
            gold = ex.text.split()[0]
            if gold == self.fallback_on:
                self.fallbacks += 1
            out.append(self.wrong if self.wrong else (gold if gold in self.labels else min(self.labels)))
        return out


class LabelBackend:
    name = "labels"
    config: ClassVar[dict] = {}

    def __init__(self, wrong_for: dict[str, str] | None = None, fallback_on: str | None = None) -> None:
        self.fits: list[Counter] = []
        self.wrong_for, self.fallback_on = wrong_for or {}, fallback_on

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None, *, seed: int = 0) -> _Model:
        labels = Counter(ex.label for ex in train)
        self.fits.append(labels)
        first = train[0].example_id.split("-")[0]
        return _Model(set(labels), self.wrong_for.get(first), self.fallback_on)


def _run(tmp_path, **kw):
    kw.setdefault("source", FakeSource(sa_data()))
    kw.setdefault("backend", LabelBackend())
    return run(store=tmp_path / "r.sqlite", tasks=["sa"], **kw)


def _extras(store) -> dict[tuple[str, str], dict]:
    import json

    with Store(store) as db:
        rows = db.conn.execute("SELECT setting, variety, extra FROM scores").fetchall()
    return {(r[0], r[1]): json.loads(r[2]) for r in rows}


def test_sa_runs_in_variety_by_default_and_in_cluster_only_when_asked():
    src = FakeSource(sa_data())
    plan = build_plan(src, model="m")
    assert {(j.setting, j.variety, j.train_on) for j in plan.jobs} == {
        ("in-variety", v, v) for v in ("standard arabic", "tunisian arabic", "moroccan arabic")}
    asked = build_plan(src, model="m", settings=["in-cluster"])
    assert {j.train_on for j in asked.jobs} == {"standard arabic"} and len(asked.jobs) == 3
    # in-cluster SA is keyed apart from a plain fit on the same training set (it trains on fewer labels)
    iv = {j.variety: j.key for j in plan.jobs}
    assert {j.key for j in asked.jobs}.isdisjoint(iv.values())


def test_in_cluster_sa_trains_and_scores_over_the_shared_label_space(tmp_path):
    backend = LabelBackend()
    result = _run(tmp_path, backend=backend, settings=["in-cluster"])
    assert result.counts["done"] == 3
    # one fit on all of standard arabic's labels, one on the two labels the dialect sets share with it
    assert [sorted(f) for f in backend.fits] == [["negative", "objective", "positive"], ["negative", "positive"]]
    extras = _extras(result.store)
    tun = extras[("in-cluster", "tunisian arabic")]["flags"]["label_space"]
    assert tun == {"labels": ["negative", "positive"], "test_dropped": 1, "train_dropped": 4}
    assert "label_space" not in extras[("in-cluster", "standard arabic")].get("flags", {})
    with Store(result.store) as db:
        n = {r["variety"]: r["n"] for r in db.scores()}
    assert n["tunisian arabic"] == 3  # the `neutral` test example is not scored


def test_unseen_test_labels_and_below_majority_scores_are_flagged(tmp_path):
    backend = LabelBackend(wrong_for={"mar": "positive"})
    result = _run(tmp_path, backend=backend)
    extras = _extras(result.store)
    tun = extras[("in-variety", "tunisian arabic")]["flags"]
    assert tun["unseen_labels"] == {"share": 0.25, "labels": ["neutral"]}
    mar = extras[("in-variety", "moroccan arabic")]["flags"]["below_majority"]
    assert mar["majority_rate"] == 80.0 and mar["score"] == 20.0
    assert "flags" not in extras[("in-variety", "standard arabic")]


def test_fallbacks_are_counted_per_job(tmp_path):
    result = _run(tmp_path, backend=LabelBackend(fallback_on="negative"))
    extras = _extras(result.store)
    assert extras[("in-variety", "moroccan arabic")]["flags"]["fallbacks"] == 8
    assert extras[("in-variety", "standard arabic")]["flags"]["fallbacks"] == 2


def test_flag_helpers():
    assert shared_labels(Counter(a=1, b=1), Counter(a=1, b=2)) is None
    assert shared_labels(Counter(a=1, b=1, c=1), Counter(a=1)) == {"a"}
    golds = _texts("x", ["a", "a", "a", "b"])
    assert evaluation_flags(Counter(a=3, b=1), golds, 80.0, "accuracy") == {}
    flags = evaluation_flags(Counter(a=3), golds, 50.0, "accuracy", fallbacks=2)
    assert set(flags) == {"unseen_labels", "below_majority", "fallbacks"}
    text = flag_text({"flags": flags})
    assert "25.0% of test examples" in text and "below the majority-class rate 75.00" in text
    assert "2 prediction(s) fell back" in text and flag_text({}) == ""


def test_below_majority_compares_like_with_like():
    """The majority baseline is scored in the job's metric: a macro F1 above the majority label's macro F1
    but below its accuracy rate beats the baseline and is not flagged (it was, before)."""
    from sklearn.metrics import f1_score

    golds = _texts("x", ["a"] * 4 + ["b"] * 3 + ["c"] * 3)  # p = 0.4, K = 3
    always_a = ["a"] * 10
    want = 100 * f1_score([g.label for g in golds], always_a, average="macro")
    assert majority_score(Counter(a=4, b=3, c=3), "macro_f1") == pytest.approx(want)  # 19.05
    want_w = 100 * f1_score([g.label for g in golds], always_a, average="weighted")
    assert majority_score(Counter(a=4, b=3, c=3), "weighted_f1") == pytest.approx(want_w)
    assert majority_score(Counter(a=4, b=3, c=3), "accuracy") == pytest.approx(40.0)
    assert majority_score(Counter(a=4, b=3, c=3), "bleu") is None
    train = Counter(a=4, b=3, c=3)
    assert "below_majority" not in evaluation_flags(train, golds, 30.0, "macro_f1")
    assert "below_majority" not in evaluation_flags(train, golds, 30.0, "bleu")
    flag = evaluation_flags(train, golds, 15.0, "macro_f1")["below_majority"]
    assert flag == {"score": 15.0, "majority_score": 19.05, "majority_rate": 40.0, "metric": "macro_f1"}
    assert evaluation_flags(train, golds, 30.0, "accuracy")["below_majority"]["majority_score"] == 40.0
    assert flag_text({"flags": {"below_majority": flag}}).endswith(
        "score 15.00 is below the majority label's macro F1 19.05 (its rate: 40.00)")
    # a flag stored before majority_score existed still reads
    assert "below the majority-class rate 40.00" in flag_text({"flags": {"below_majority": {
        "score": 30.0, "majority_rate": 40.0, "metric": "accuracy"}}})


@pytest.fixture
def flagged_cli(monkeypatch):
    monkeypatch.setattr(run_mod, "_open_source", lambda data_dir: FakeSource(sa_data()))
    monkeypatch.setattr(run_mod, "_get_backend", lambda model: LabelBackend(wrong_for={"mar": "positive"}))


def test_cli_warns_exports_and_reports_the_flags(tmp_path, flagged_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    store = tmp_path / "r.sqlite"
    out = CliRunner().invoke(app, ["run", "--tasks", "sa", "--store", str(store), "--no-report"])
    assert out.exit_code == 0, out.output
    assert "2 score(s) flagged" in out.stderr
    # the flag list's line (progress lines in a pipe name the variety too)
    line = next(x for x in out.stderr.splitlines() if x.startswith("  - ") and "moroccan arabic:" in x)
    assert "below the majority-class rate 80.00" in line  # one line, never wrapped
    exported = CliRunner().invoke(app, ["results", "export", "--all", "--store", str(store), "-f", "json"])
    import json

    rows = {r["variety"]: r for r in json.loads(exported.stdout)}
    assert "labels unseen in training (neutral)" in rows["tunisian arabic"]["flags"]
    assert rows["standard arabic"]["flags"] == ""
    from dialectbench.report.inputs import load_input
    from dialectbench.report.model import build_data
    from dialectbench.report.tables import all_tables

    tables = all_tables(build_data(load_input(store), n_resamples=10))
    flagged = next(t for t in tables if t.key == "flagged_scores")
    assert {r["variety"] for r in flagged.rows} == {"tunisian arabic", "moroccan arabic"}


def test_in_cluster_sa_with_no_shared_label_is_a_skip_not_a_score(tmp_path):
    data = sa_data()
    data[("sa", "tunisian arabic")]["test"] = _texts("tun-te", ["neutral", "neutral"])
    result = _run(tmp_path, source=FakeSource(data), settings=["in-cluster"])
    (skipped,) = [r for r in result.problems if r.status == "skipped"]
    assert skipped.variety == "tunisian arabic" and "share no label" in skipped.message
    with Store(result.store) as db:
        assert "tunisian arabic" not in {r["variety"] for r in db.scores()}


def test_tagging_test_sets_with_tags_unseen_in_training_are_flagged():
    from dialectbench.data.examples import Sentence, TaggedSentence

    def sent(i, upos):
        return Sentence(f"s{i}", tuple(f"w{k}" for k in range(len(upos))), tuple(upos), (0,) * len(upos),
                        ("dep",) * len(upos))

    train = [sent(0, ["NOUN", "VERB"]), sent(1, ["DET", "NOUN"])]
    test = [sent(2, ["NOUN", "VERB"]), sent(3, ["PROPN", "VERB", "X"]), sent(4, ["DET", "NOUN"])]
    from dialectbench.runner.flags import tag_counts

    flags = evaluation_flags(Counter(), test, 70.0, "accuracy", task="pos", train_tags=tag_counts(train, "pos"))
    assert flags["unseen_labels"] == {"share": round(1 / 3, 4), "token_share": round(2 / 7, 4),
                                      "labels": ["PROPN", "X"]}
    assert "33.3% of test examples (28.6% of tokens) have labels unseen in training" in flag_text(
        {"flags": flags})
    # NER: entity types, whatever their BIO prefix; a test set with only seen types carries no flag
    ner_train = [TaggedSentence("t", ("a", "b"), ("B-PER", "I-PER"))]
    ner_test = [TaggedSentence("u", ("a", "b", "c"), ("B-PER", "O", "B-LOC"))]
    ner = evaluation_flags(Counter(), ner_test, 50.0, "f1", task="ner", train_tags=tag_counts(ner_train, "ner"))
    assert ner["unseen_labels"]["labels"] == ["LOC"] and ner["unseen_labels"]["token_share"] == round(1 / 3, 4)
    assert evaluation_flags(Counter(), ner_train, 50.0, "f1", task="ner", train_tags=tag_counts(ner_train, "ner")) == {}


# ---- DEP: gold HEADs that are not a tree

class _GoldHeads:
    def predict(self, examples: Sequence[Any]) -> list[tuple]:
        return [(s.heads, s.deprels) for s in examples]


class TreeBackend:
    """Records what each DEP fit saw; predicts the gold heads."""
    name = "trees"
    config: ClassVar[dict] = {}

    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None, *, seed: int = 0) -> _GoldHeads:
        self.seen.append([s.example_id for s in [*train, *(dev or [])]])
        return _GoldHeads()


def test_dep_sentences_that_are_not_trees_are_left_out_of_training_and_counted_in_test(tmp_path):
    from dialectbench.data.examples import Sentence
    from dialectbench.runner.flags import needs_warning

    def sent(sid, heads, problem=""):
        return Sentence(sid, ("a", "b", "c"), ("DET", "NOUN", "VERB"), heads, ("det", "nsubj", "root"),
                        tree_problem=problem)

    good = [sent(f"tr{i}", (2, 3, 0)) for i in range(4)]
    loop = sent("loop", (2, 2, 0), "train.conll:9: word 2 is its own HEAD")
    data = {("dep", "english"): {"train": [good[0], loop, *good[1:3]], "dev": [good[3]],
                                 "test": [sent("te1", (2, 3, 0)), sent("te2", (3, 1, 2), "test.conll:5: HEAD cycle")]}}
    backend = TreeBackend()
    result = run(store=tmp_path / "r.sqlite", tasks=["dep"], varieties=["english"], settings=["in-variety"],
                 source=FakeSource(data), backend=backend)
    assert backend.seen == [["tr0", "tr1", "tr2", "tr3"]]  # the self-loop was left out; dev kept
    (extra,) = _extras(result.store).values()
    flag = extra["flags"]["not_trees"]
    assert flag == {"test": 1, "train_left_out": 1, "first": "test.conll:5: HEAD cycle"}
    assert not needs_warning(extra)  # a fact about the data, recorded; the score is what it says
    assert "1 test sentence(s) scored as given, 1 training sentence(s) left out" in flag_text(extra)
    with Store(result.store) as db:
        (row,) = db.scores()
    assert row["n"] == 2 and row["score"] == 100.0  # the broken test sentence is scored, not dropped


def test_the_sample_suite_is_said_once_not_on_every_flag_line(tmp_path):
    out = CliRunner().invoke(app, ["run", "--tasks", "mrc", "--store", str(tmp_path / "s.sqlite"), "--no-report"])
    assert out.exit_code == 0, out.output
    assert out.stderr.count("bundled sample suite (our own texts)") == 1
    lines = [x for x in out.stderr.splitlines() if x.startswith("  - ")]
    assert lines and not any("sample suite" in x for x in lines)  # the flags that matter, alone


def test_one_label_flags_a_model_that_answers_the_same_whatever_the_input():
    from dialectbench.backends.base import InvalidAnswer
    from dialectbench.runner.flags import describe, evaluation_flags, needs_warning

    golds = [TextExample(str(i), "t", "neg" if i < 6 else "pos") for i in range(12)]  # majority 50%
    train = Counter({"neg": 5, "pos": 5})
    constant = evaluation_flags(train, golds, 50.0, "accuracy", predictions=["neg"] * 11 + [InvalidAnswer("?")])
    assert constant == {"one_label": {"label": "neg", "n": 11}}  # at the majority rate: no other flag says it
    assert needs_warning({"flags": constant}) and "every prediction (11) is 'neg'" in describe(constant)[0]
    assert evaluation_flags(train, golds, 58.3, "accuracy", predictions=["neg"] * 11 + ["pos"]) == {}
    # too few to tell, one gold label (answering it is right), a DId class of a pooled test: no flag
    assert evaluation_flags(train, golds[:9], 66.7, "accuracy", predictions=["neg"] * 9) == {}
    same = [TextExample(str(i), "t", "neg") for i in range(12)]
    assert evaluation_flags(train, same, 100.0, "accuracy", predictions=["neg"] * 12) == {}
    assert evaluation_flags(train, golds, 50.0, "f1", majority=False, predictions=["neg"] * 12) == {}
