"""`dialectbench perturb`, `perturb-rules` and `run --synthetic`: synthetic varieties are named in the
convention, go through plan/store/report, and stay out of every real ranking."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from dialectbench.analysis import task_summary
from dialectbench.cli.main import app
from dialectbench.data import open_source, user_catalogue
from dialectbench.data.readers.conllu import read_conllu
from dialectbench.perturb.summary import split_synthetic, synthetic_rows
from dialectbench.perturb.synthetic import SyntheticSource, is_synthetic, profile_of, synthetic_name
from dialectbench.varieties import parse_name


@pytest.fixture(autouse=True)
def clean_registry():
    """`run --synthetic` adds varieties to the process-wide registry: forget them after each test."""
    yield
    user_catalogue.reset()


def _sample_conllu() -> str:
    return str(open_source(None).root / "ud" / "en_sample-test.conllu")


def test_names_round_trip_and_carry_the_mark():
    name = synthetic_name("aave")
    assert name == "english (i:synthetic-aave)"
    assert str(parse_name(name)) == name
    assert is_synthetic(name) and profile_of(name) == "aave"
    assert not is_synthetic("english") and not is_synthetic("english (a:scotland)")
    assert not is_synthetic("not a (valid name")


def test_perturb_writes_a_readable_conllu(tmp_path):
    out = tmp_path / "deep" / "aave.conllu"
    res = CliRunner().invoke(app, ["perturb", "--profile", "singlish", "--task", "dep", "--input",
                                   _sample_conllu(), "--out", str(out), "--seed", "1"])
    assert res.exit_code == 0, res.output
    original = list(read_conllu(_sample_conllu()))
    perturbed = list(read_conllu(out))  # the validating reader accepts it: still trees
    assert len(perturbed) == len(original)
    assert [s.words for s in perturbed] != [s.words for s in original]
    assert "sentence(s) changed" in res.output
    again = tmp_path / "again.conllu"
    CliRunner().invoke(app, ["perturb", "-p", "singlish", "-t", "dep", "-i", _sample_conllu(), "-o", str(again),
                             "--seed", "1"])
    assert again.read_text() == out.read_text()


SOURCE = """\
# newdoc id = d1
# sent_id = s1
# text = She's smart.
1-2	She's	_	_	_	_	_	_	_	_
1	She	she	PRON	PRP	Case=Nom|Number=Sing|Person=3	3	nsubj	3:nsubj	_
2	's	be	AUX	VBZ	Mood=Ind|Tense=Pres	3	cop	3:cop	_
3	smart	smart	ADJ	JJ	Degree=Pos	0	root	0:root	SpaceAfter=No
4	.	.	PUNCT	.	_	3	punct	3:punct	_

# sent_id = s2
# text = They walked.
1	They	they	PRON	PRP	Case=Nom|Number=Plur	2	nsubj	2:nsubj	_
2	walked	walk	VERB	VBD	Tense=Past	0	root	0:root	SpaceAfter=No
3	.	.	PUNCT	.	_	2	punct	2:punct	_

# sent_id = s3
# text = I'm here:
1-2	I'm	_	_	_	_	_	_	_	_
1	I	I	PRON	PRP	Case=Nom|Number=Sing|Person=1	3	nsubj	3:nsubj	_
2	'm	be	AUX	VBP	Mood=Ind|Tense=Pres	3	cop	3:cop	_
3	here	here	ADV	RB	PronType=Dem	0	root	0:root	SpaceAfter=No
4	:	:	PUNCT	:	_	3	punct	3:punct	_

"""
# Written by hand from the label policy: the copula goes with its multiword token, `She` keeps every column
# and the text loses the 's; s2's walked -> walk loses its morphology (LEMMA, XPOS, FEATS) but keeps its
# arc and DEPS; a particle (which one: a hash of the words) is a leaf with only the columns its rule names;
# SpaceAfter=No moves to the word that now precedes the full stop; s3 (no site: am is not F177's, and a
# colon closes no sentence a particle can end) is copied as it was, multiword token and all.
EXPECTED = """\
# newdoc id = d1
# sent_id = s1
# text = She smart leh.
1	She	she	PRON	PRP	Case=Nom|Number=Sing|Person=3	2	nsubj	2:nsubj	_
2	smart	smart	ADJ	JJ	Degree=Pos	0	root	0:root	_
3	leh	_	INTJ	_	_	2	discourse	2:discourse	SpaceAfter=No
4	.	.	PUNCT	.	_	2	punct	2:punct	_

# sent_id = s2
# text = They walk ah.
1	They	they	PRON	PRP	Case=Nom|Number=Plur	2	nsubj	2:nsubj	_
2	walk	_	VERB	_	_	0	root	0:root	_
3	ah	_	INTJ	_	_	2	discourse	2:discourse	SpaceAfter=No
4	.	.	PUNCT	.	_	2	punct	2:punct	_

# sent_id = s3
# text = I'm here:
1-2	I'm	_	_	_	_	_	_	_	_
1	I	I	PRON	PRP	Case=Nom|Number=Sing|Person=1	3	nsubj	3:nsubj	_
2	'm	be	AUX	VBP	Mood=Ind|Tense=Pres	3	cop	3:cop	_
3	here	here	ADV	RB	PronType=Dem	0	root	0:root	SpaceAfter=No
4	:	:	PUNCT	:	_	3	punct	3:punct	_

"""


def test_perturb_keeps_every_column_and_comment_of_what_it_does_not_change(tmp_path):
    source, out = tmp_path / "in.conllu", tmp_path / "out.conllu"
    source.write_text(SOURCE, encoding="utf-8")
    res = CliRunner().invoke(app, ["perturb", "-r", "copula_deletion_adj", "-r", "zero_past", "-r",
                                   "discourse_particle", "-i", str(source), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert out.read_text(encoding="utf-8") == EXPECTED


def test_perturbed_ewt_keeps_the_columns_of_unchanged_words(shared_data, tmp_path):
    """EWT test through the AAVE profile: every unchanged sentence is line-identical, every `# newdoc`
    survives, and in changed sentences each word whose form and UPOS are the source's keeps its LEMMA,
    XPOS and FEATS (all were blanked before) while rewritten and inserted words have `_`; what the reader
    reads back is what the rules made."""
    from dialectbench.perturb import get_profile, perturb_all
    from dialectbench.perturb.conllu_out import source_blocks

    path = shared_data / "ud" / "UD_English-EWT" / "en_ewt-ud-test.conllu"
    if not path.is_file():
        pytest.skip("UD_English-EWT test is not in ../shared/data")
    out = tmp_path / "aave.conllu"
    res = CliRunner().invoke(app, ["perturb", "-p", "aave", "-i", str(path), "-o", str(out)])
    assert res.exit_code == 0, res.output
    before, after = source_blocks(path), source_blocks(out)
    originals, details = list(read_conllu(path)), []
    expected, _ = perturb_all(originals, get_profile("aave").rates(), details=details)
    assert [(s.words, s.upos, s.heads, s.deprels) for s in read_conllu(out)] == \
        [(s.words, s.upos, s.heads, s.deprels) for s in expected]
    newdoc = [sum(c.startswith("# newdoc") for b in blocks for c in b.comments) for blocks in (before, after)]
    assert newdoc[0] == newdoc[1] > 300
    changed = 0
    kept = 0
    for a, b, orig, new, d in zip(before, after, originals, expected, details):
        if not d.origins:
            assert a.lines == b.lines
            continue
        changed += 1
        for w, o in zip(b.words, d.origins):
            same = o is not None and (w[1], w[3]) == (orig.words[o], orig.upos[o])
            assert (w[2], w[4], w[5]) == ((a.words[o][2], a.words[o][4], a.words[o][5]) if same else ("_",) * 3)
            kept += same
    assert 500 < changed < len(before)
    assert kept > 10_000


def test_perturb_single_rule(tmp_path):
    out = tmp_path / "o.conllu"
    res = CliRunner().invoke(app, ["perturb", "--rule", "zero_definite_article", "-t", "pos", "-i",
                                   _sample_conllu(), "-o", str(out)])
    assert res.exit_code == 0, res.output
    def count_the(path):
        return sum(w.lower() == "the" for s in read_conllu(path) for w in s.words)
    assert "zero_definite_article:" in res.output
    assert count_the(out) < count_the(_sample_conllu())


@pytest.mark.parametrize("args,message", [
    (["--profile", "aavee"], "Did you mean: aave"),
    (["--rule", "copula_delet"], "unknown rule"),
    (["--profile", "aave", "--task", "mt"], "--tasks is one of pos, dep, ner, tc, sa, nli"),
    (["--profile", "aave", "--task", "sa"], "--tasks sa needs --analyzer-train"),
    ([], "give --profile or --rule"),
])
def test_perturb_user_errors_are_one_line(tmp_path, args, message):
    res = CliRunner().invoke(app, ["perturb", "-i", _sample_conllu(), "-o", str(tmp_path / "x"), *args])
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output


def test_perturb_rules_listing():
    res = CliRunner().invoke(app, ["perturb-rules", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert len(rows) >= 25 and {"rule", "ewave", "feature", "aave", "singlish"} <= set(rows[0])
    res = CliRunner().invoke(app, ["perturb-rules", "--profile", "nigerian", "--format", "csv"])
    assert res.exit_code == 0 and "singlish" not in res.output.splitlines()[0]


def test_synthetic_source_serves_a_perturbed_english_test():
    base = open_source(None)
    src = SyntheticSource(base, ["aave"], seed=0)
    name = synthetic_name("aave")
    assert name in src.varieties("pos") and name in src.varieties("dep")
    assert name not in src.varieties("sa")
    assert src.splits("pos", name) == {"test"}
    assert len(src.load("pos", name, "test")) == len(base.load("pos", "english", "test"))
    assert src.fingerprint("pos", name, "test") != SyntheticSource(base, ["aave"], seed=1).fingerprint(
        "pos", name, "test")


def test_run_synthetic_goes_through_plan_store_and_report(tmp_path):
    out = tmp_path / "res"
    res = CliRunner().invoke(app, ["run", "-t", "pos", "-s", "zero-shot", "--synthetic", "aave", "--out",
                                   str(out)])
    assert res.exit_code == 0, res.output
    assert "Synthetic varieties" in res.output
    export = CliRunner().invoke(app, ["results", "export", "--store", str(out / "results.sqlite"),
                                      "--format", "json"])
    scores = json.loads(export.output[export.output.index("["):])
    synth = [r for r in scores if is_synthetic(r["variety"])]
    assert len(synth) == 1 and synth[0]["cluster"] == "synthetic" and synth[0]["setting"] == "zero-shot"
    report = next(out.glob("runs/*/report/tables/synthetic_varieties.csv"))
    assert "english (i:synthetic-aave)" in report.read_text()
    table3 = next(out.glob("runs/*/report/tables/table3_task_summary.csv")).read_text()
    assert "synthetic" not in table3


def test_run_unknown_synthetic_profile_fails_cleanly(tmp_path):
    res = CliRunner().invoke(app, ["run", "-t", "pos", "--synthetic", "singlsh", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "unknown profile" in res.output and "Traceback" not in res.output


def test_synthetic_rows_never_join_real_aggregates():
    rows = [{"task": "pos", "cluster": "anglic", "variety": "english", "model": "m", "setting": "zero-shot",
             "train_on": "english", "metric": "f1", "score": 90.0, "n": 10},
            {"task": "pos", "cluster": "anglic", "variety": "singlish", "model": "m", "setting": "zero-shot",
             "train_on": "english", "metric": "f1", "score": 60.0, "n": 10},
            {"task": "pos", "cluster": "synthetic", "variety": "english (i:synthetic-aave)", "model": "m",
             "setting": "zero-shot", "train_on": "english", "metric": "f1", "score": 10.0, "n": 10}]
    frame = pd.DataFrame(rows)
    real, synth = split_synthetic(frame)
    assert len(real) == 2 and len(synth) == 1
    summary = task_summary(real)
    assert summary.iloc[0]["min_score"] == 60.0  # the Rawlsian minimum is over real varieties only
    (row,) = synthetic_rows(frame)
    assert row["gap"] == "80.0" and row["eng"] == "90.0"


class _StubTagger:
    def tag(self, sentences):  # every token a NOUN, the rules' plural sites fire on -s words
        return [tuple("NOUN" for _ in s) for s in sentences]


class _StubParser:
    def predict(self, sentences):  # a right-branching chain: word 1 is the root
        return [(tuple(range(len(s.words))), ("root", *("dep",) * (len(s.words) - 1))) for s in sentences]


def test_perturb_ner_keeps_entity_spans(tmp_path, monkeypatch):
    from dialectbench.data.readers.iob import read_iob
    from dialectbench.perturb import analyzer

    monkeypatch.setattr(analyzer, "train_analyzer",
                        lambda *a, **k: analyzer.Analyzer(_StubTagger(), _StubParser()))
    source = open_source(None).root / "ner" / "en-test.bio"
    out = tmp_path / "ner.bio"
    ud = open_source(None).root / "ud" / "en_sample-train.conllu"
    res = CliRunner().invoke(app, ["perturb", "-t", "ner", "-r", "optional_plural", "-r", "invariant_tag",
                                   "-i", str(source), "-o", str(out), "--analyzer-train", str(ud)])
    assert res.exit_code == 0, res.output
    before, after = list(read_iob(source)), list(read_iob(out))
    assert len(before) == len(after) and [s.tokens for s in before] != [s.tokens for s in after]

    def spans(s):
        return [(tok, tag) for tok, tag in zip(s.tokens, s.tags) if tag != "O"]
    assert [spans(s) for s in before] == [spans(s) for s in after]


def test_perturb_ner_needs_an_analyzer_treebank(tmp_path):
    source = open_source(None).root / "ner" / "en-test.bio"
    res = CliRunner().invoke(app, ["perturb", "-t", "ner", "-p", "aave", "-i", str(source), "-o",
                                   str(tmp_path / "x")])
    assert res.exit_code == 2 and "--analyzer-train" in res.output


def test_analyze_sets_synthetic_rows_aside(tmp_path):
    scores = tmp_path / "scores.csv"
    pd.DataFrame([
        {"task": "pos", "cluster": "anglic", "variety": "english", "model": "m", "setting": "zero-shot",
         "train_on": "english", "metric": "f1", "score": 90.0, "n": 10},
        {"task": "pos", "cluster": "anglic", "variety": "singlish", "model": "m", "setting": "zero-shot",
         "train_on": "english", "metric": "f1", "score": 60.0, "n": 10},
        {"task": "pos", "cluster": "synthetic", "variety": "english (i:synthetic-aave)", "model": "m",
         "setting": "zero-shot", "train_on": "english", "metric": "f1", "score": 10.0, "n": 10}]).to_csv(
        scores, index=False)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a synthetic name is not reported as an unregistered typo
        res = CliRunner().invoke(app, ["analyze", str(scores), "--out", str(tmp_path / "a"), "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert "1 synthetic-variety row(s) set aside" in res.output
    summary = pd.read_csv(tmp_path / "a" / "task_summary.csv")
    assert summary.iloc[0]["min_score"] == 60.0 and "synthetic" not in (tmp_path / "a" / "gaps.csv").read_text()


def test_tokenize_and_detokenize_round_trip_english_text():
    from dialectbench.perturb.text import detokenize, tokenize

    text = "He doesn't know (yet) if it's 5 o'clock, does he?"
    words = tokenize(text)
    assert words[:4] == ["He", "does", "n't", "know"] and "'s" in words and words[-1] == "?"
    assert detokenize(words) == text


@pytest.mark.parametrize("task, name, columns", [("tc", "tc/eng_Latn/test.tsv", ["text"]),
                                                 ("sa", "sa/en_test.tsv", ["0"]),
                                                 ("nli", "nli/eng_Latn/test.tsv", ["premise", "hypothesis"])])
def test_perturb_text_tasks_rewrite_the_text_and_copy_the_labels(tmp_path, monkeypatch, task, name, columns):
    import csv

    from dialectbench.perturb import analyzer

    monkeypatch.setattr(analyzer, "train_analyzer",
                        lambda *a, **k: analyzer.Analyzer(_StubTagger(), _StubParser()))
    source = open_source(None).root / name
    out = tmp_path / "out.tsv"
    ud = open_source(None).root / "ud" / "en_sample-train.conllu"
    res = CliRunner().invoke(app, ["perturb", "-t", task, "-r", "optional_plural", "-r", "discourse_particle", "-i",
                                   str(source), "-o", str(out), "--analyzer-train", str(ud)])
    assert res.exit_code == 0, res.output

    def table(path):
        with path.open(encoding="utf-8", newline="") as fh:
            return list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))

    before, after = table(source), table(out)
    header = columns != ["0"]
    text_cols = [before[0].index(c) if header else int(c) for c in columns]
    assert len(before) == len(after) and (not header or before[0] == after[0])
    for old, new in zip(before[header:], after[header:]):  # every other column (the label) exactly as it was
        assert [v for k, v in enumerate(old) if k not in text_cols] == [v for k, v in enumerate(new)
                                                                         if k not in text_cols]
    changed = [k for k, (old, new) in enumerate(zip(before, after)) if old != new]
    assert changed and "row(s) changed" in res.output


def test_perturb_text_names_a_missing_column(tmp_path, monkeypatch):
    from dialectbench.perturb import analyzer

    monkeypatch.setattr(analyzer, "train_analyzer",
                        lambda *a, **k: analyzer.Analyzer(_StubTagger(), _StubParser()))
    ud = open_source(None).root / "ud" / "en_sample-train.conllu"
    res = CliRunner().invoke(app, ["perturb", "-t", "tc", "-p", "aave", "-c", "body", "-i",
                                   str(open_source(None).root / "tc/eng_Latn/test.tsv"), "-o", str(tmp_path / "o"),
                                   "--analyzer-train", str(ud)])
    assert res.exit_code == 2 and "no text column 'body'" in res.output and "category" in res.output
