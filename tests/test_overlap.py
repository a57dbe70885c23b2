"""Train/test overlap (data/overlap.py), the `overlap` job flag, leaked jobs kept out of summaries, and
`data audit`, on inputs whose overlap is known by construction."""

from __future__ import annotations

from typing import ClassVar

import pytest

from dialectbench.data.examples import PairExample, QAExample, Sentence, TextExample
from dialectbench.data.overlap import MIN_TOKENS, duplicates, example_text, normalise, overlap, text_set


def _texts(prefix, texts, label="positive"):
    return [TextExample(f"{prefix}-{i}", t, label) for i, t in enumerate(texts)]


def test_normalised_texts_match_across_case_width_and_spacing():
    assert normalise("Ｆｕｌｌ  Width\tTEXT ") == "full width text"
    seen = text_set(_texts("tr", ["the food was very good today", "short one"]))
    test = _texts("te", ["THE food  was very good today", "short one", "a different sentence of six words"])
    got = overlap(test, seen)
    assert (got.shared, got.total) == (1, 3) and got.percent == pytest.approx(100 / 3)
    assert "short one" not in seen and MIN_TOKENS == 5  # short texts recur naturally: never counted


def test_every_example_type_has_its_input_text():
    s = Sentence("s", ("a", "b"), ("X", "X"), (0, 1), ("root", "dep"))
    p = PairExample("p", "it rains", "it is wet", "entailment")
    q = QAExample("q", "the context", "what?", ("context",), (4,))
    assert [example_text(x) for x in (s, p, q)] == ["a b", "it rains || it is wet", "the context || what?"]
    with pytest.raises(TypeError):
        example_text(object())


def test_duplicates_inside_a_split_are_counted_once_per_repeat():
    texts = ["one two three four five", "ONE two three four five", "one two three four five", "x y"]
    assert duplicates(_texts("a", texts)) == 2


# ---- the flag on real jobs, and what reads the store

def _leaky_data():
    """Egyptian's test set: 6 of its 10 texts are in standard arabic's training split (a leak by
    construction); standard arabic's own test shares 1 of 20 long texts (a released split's duplicate)."""
    long = [f"tweet number {i} says something rather long" for i in range(40)]
    msa_train = _texts("msa-tr", long[:20], "positive") + _texts("msa-trn", long[20:30], "negative")
    return {
        ("sa", "standard arabic"): {"train": msa_train,
                                    "test": _texts("msa-te", [long[0]] + [f"new msa text {i} with many words"
                                                                          for i in range(19)])},
        ("sa", "egyptian arabic"): {"train": _texts("arz-tr", [f"arz train {i} with many words" for i in range(8)]),
                                    "test": _texts("arz-te", long[:6] + [f"arz test {i} with many words"
                                                                         for i in range(4)])},
    }


class _Echo:
    def predict(self, examples):
        return ["positive"] * len(examples)


class EchoBackend:
    name = "echo"
    config: ClassVar[dict] = {}

    def fit(self, task, train, dev, *, seed=0):
        return _Echo()


def test_a_leaky_job_is_flagged_warned_and_kept_out_of_every_summary(tmp_path):
    import json

    from runner_fakes import FakeSource

    from dialectbench.runner import Store, run
    from dialectbench.runner.flags import flag_text, needs_warning
    from dialectbench.runner.summary import scores_frame

    store = tmp_path / "r.sqlite"
    run(store=store, tasks=["sa"], settings=["in-variety", "in-cluster"], source=FakeSource(_leaky_data()),
        backend=EchoBackend())
    with Store(store) as db:
        extras = {(r["setting"], r["variety"]): json.loads(r["extra"]) for r in
                  db.conn.execute("SELECT setting, variety, extra FROM scores").fetchall()}
        kept = {(r["setting"], r["variety"]) for r in db.scores()}
        everything = {(r["setting"], r["variety"]) for r in db.scores(include_overlap=True)}
    leak = extras[("in-cluster", "egyptian arabic")]
    assert leak["flags"]["overlap"] == {"share": 0.6, "test": 6}
    assert needs_warning(leak) and "60.0% of test examples (6) are in the training data (a leak" in flag_text(leak)
    own = extras[("in-variety", "standard arabic")]
    assert own["flags"]["overlap"] == {"share": 0.05, "test": 1} and not needs_warning(own)  # 5%: recorded
    assert "overlap" not in extras[("in-variety", "egyptian arabic")].get("flags", {})
    assert ("in-cluster", "egyptian arabic") in everything - kept and len(kept) == len(everything) - 1
    frame = scores_frame(store)
    assert not ((frame["variety"] == "egyptian arabic") & (frame["setting"] == "in-cluster")).any()


def test_audit_names_every_overlapping_pair_and_repeated_split():
    from runner_fakes import FakeSource

    from dialectbench.data.overlap import audit

    data = _leaky_data()
    data[("sa", "egyptian arabic")]["train"].append(TextExample("dup", "arz train 0 with many words", "positive"))
    rows, problems = audit(FakeSource(data), "sa")
    got = {(r["kind"], r["variety"], r["split"], r["other"], r["other_split"]): (r["shared"], r["n"]) for r in rows}
    assert got == {("overlap", "egyptian arabic", "test", "standard arabic", "train"): (6, 10),
                   ("overlap", "standard arabic", "test", "standard arabic", "train"): (1, 20),
                   ("duplicates", "egyptian arabic", "train", "egyptian arabic", "train"): (1, 9)}
    assert rows[0]["percent"] == 60.0 and problems == []


def test_derived_splits_keep_repeated_texts_together_and_portions_disjoint(tmp_path):
    from dialectbench.data.catalogue.models import Derive
    from dialectbench.data.source import _derived_split

    texts = [f"a tweet with enough words number {i % 50}" for i in range(400)]  # every text 8 times
    examples = _texts("x", texts)
    whole = Derive(test=0.3, dev=0.1, seed=3)
    where = {}
    for ex in examples:
        where.setdefault(ex.text, set()).add(_derived_split(whole, ex))
    assert all(len(splits) == 1 for splits in where.values())  # a repeated text never straddles splits
    halves = [Derive(seed=3, portion=p) for p in ((0.0, 0.5), (0.5, 1.0))]
    kept = [{ex.text for ex in examples if _derived_split(d, ex) is not None} for d in halves]
    assert kept[0].isdisjoint(kept[1]) and kept[0] | kept[1] == set(texts) and all(kept)
    with pytest.raises(ValueError, match="portion"):
        Derive(portion=(0.6, 0.4))


def test_real_mirror_has_no_leak_between_varieties(shared_data):
    from dialectbench.data.overlap import MAX_OVERLAP, audit
    from dialectbench.data.source import open_source

    rows, problems = audit(open_source(shared_data), "sa")
    overlaps = [r for r in rows if r["kind"] == "overlap"]
    assert problems == [] and overlaps and all(r["percent"] <= MAX_OVERLAP for r in overlaps)
    assert not [r for r in overlaps if {r["variety"], r["other"]} == {"standard arabic", "egyptian arabic"}]


def test_cli_audit_and_export_leave_leaks_out_unless_asked(tmp_path):
    import json

    from runner_fakes import FakeSource
    from typer.testing import CliRunner

    from dialectbench.cli.main import app
    from dialectbench.runner import run

    store = tmp_path / "r.sqlite"
    run(store=store, tasks=["sa"], settings=["in-cluster"], source=FakeSource(_leaky_data()),
        backend=EchoBackend())
    plain = CliRunner().invoke(app, ["results", "export", "--store", str(store), "--format", "json"])
    asked = CliRunner().invoke(app, ["results", "export", "--store", str(store), "--format", "json",
                                     "--include-overlap"])
    assert plain.exit_code == asked.exit_code == 0, plain.output + asked.output
    assert "egyptian arabic" not in {r["variety"] for r in json.loads(plain.stdout)}
    assert "egyptian arabic" in {r["variety"] for r in json.loads(asked.stdout)}
    audit = CliRunner().invoke(app, ["data", "audit", "--task", "ner"])  # the bundled sample suite
    assert audit.exit_code == 0, audit.output
    assert "test/training pair(s) share texts" in audit.stderr and "Texts repeated" in audit.stdout
