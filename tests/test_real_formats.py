"""The formats of the real data added to the mirror for issue 12: TwitterAAE's unannotated heads, XNLI test
text with labels from a row-aligned file, the re-formatted Belebele layout; and each on the real mirror
(skipped when ../shared/data is absent)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from dialectbench.data import DataFormatError, open_source
from dialectbench.data.readers import read_conllu, read_multiple_choice, read_pairs
from dialectbench.data.readers.conllu import UNANNOTATED
from dialectbench.metrics import score_task

AAE = ("1\tlol\t_\t_\t_\t_\t2\tdiscourse\t_\t_\n"
       "2\tyes\t_\t_\t_\t_\t0\troot\t_\t_\n"
       "3\t!\t_\t_\t_\t_\t_\t_\t_\t_\n")


def test_unannotated_heads_are_read_only_when_asked_and_skipped_when_scored(tmp_path):
    path = tmp_path / "aae.conllu"
    path.write_text(AAE, encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"aae.conllu:3: HEAD '_'"):
        list(read_conllu(path))
    (sent,) = read_conllu(path, unannotated_heads=True)
    assert sent.heads == (2, 0, UNANNOTATED)
    # the '!' gets a wrong head and still UAS is 100: it has no gold head to be wrong against
    result = score_task("dep", [sent], [((2, 0, 1), ("discourse", "root", "punct"))])
    assert result.score == 100.0 and result.extra["n_words"] == 2
    wrong = score_task("dep", [sent], [((0, 0, 1), ("discourse", "root", "punct"))])
    assert wrong.score == 50.0


def test_pairs_take_labels_from_a_row_aligned_file(tmp_path):
    text = tmp_path / "test-ar.tsv"
    text.write_text("p1\th1\np2\th2\n", encoding="utf-8")
    labels = tmp_path / "labels.csv"
    labels.write_text('gold_label,sentence1,pairID\nneutral,"x, y",7\ncontradiction,z,9\n', encoding="utf-8")
    got = list(read_pairs(text, premise_column=0, hypothesis_column=1, header=False, quoting=False,
                          label_column="gold_label", id_column="pairID", labels_path=labels))
    assert [(g.example_id, g.premise, g.label) for g in got] == [("test-ar:7", "p1", "neutral"),
                                                                 ("test-ar:9", "p2", "contradiction")]
    labels.write_text("gold_label,pairID\nneutral,7\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="not row-aligned"):
        list(read_pairs(text, premise_column=0, hypothesis_column=1, header=False, label_column="gold_label",
                        labels_path=labels))


def test_belebele_passage_layout(tmp_path):
    record = {"text": "The passage.", "items": [
        {"question": "Q1?", "answers": [{"text": "a", "correct": False}, {"text": "b", "correct": True}]},
        {"question": "Q2?", "answers": [{"text": "c", "correct": True}, {"text": "d", "correct": False}]}],
        "metadata": {"extra": {"url": "https://x/y"}}}
    path = tmp_path / "eng_Latn.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    got = list(read_multiple_choice(path, layout="passages"))
    assert [(g.example_id, g.question, g.options, g.answer) for g in got] == [
        ("eng_Latn:https://x/y#1", "Q1?", ("a", "b"), 1), ("eng_Latn:https://x/y#2", "Q2?", ("c", "d"), 0)]
    record["items"][0]["answers"][0]["correct"] = True
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="2 answers marked correct"):
        list(read_multiple_choice(path, layout="passages"))


@pytest.fixture(scope="module")
def mirror(shared_data):
    return open_source(shared_data)


def test_twitteraae_all500(mirror):
    sents = mirror.load("dep", "african american vernacular english", "test")
    assert len(sents) == 500 and sum(len(s.words) for s in sents) == 6596
    assert sum(h == UNANNOTATED for s in sents for h in s.heads) == 645  # SOURCE.txt's count


def test_english_ner_source_is_the_panx_split(mirror):
    assert mirror.splits("ner", "english") == {"train", "dev", "test"}
    assert [len(mirror.load("ner", "english", s)) for s in ("train", "dev", "test")] == [20000, 10000, 10000]


def test_xnli_english_and_the_aligned_languages(mirror):
    train = mirror.load("nli", "english", "train")
    test = mirror.load("nli", "english", "test")
    assert len(train) == 2490 and len(test) == 5010
    arabic = mirror.load("nli", "standard arabic", "test")
    assert [ex.label for ex in arabic] == [ex.label for ex in test]  # labels of the row-aligned English rows
    assert Counter(ex.label for ex in arabic) == {"entailment": 1670, "neutral": 1670, "contradiction": 1670}


def test_belebele_english_and_sdqa_goldp(mirror):
    mrc = mirror.load("mrc", "english", "test")
    assert len(mrc) == 900 and len({ex.passage for ex in mrc}) == 488
    assert len(mirror.varieties("eqa")) == 24
    usa = mirror.load("eqa", "southeast american english", "test")
    assert len(usa) == 494 and all(ex.answers for ex in usa)


def test_a_mirror_run_names_the_varieties_it_has_no_data_for(mirror):
    from dialectbench.runner import build_plan

    plan = build_plan(mirror, model="m", tasks=["sa", "mrc", "eqa"])
    by_task = {(s.task, s.setting): s.reason for s in plan.skips}
    assert "algerian arabic" in by_task[("sa", None)] and "data list --tasks sa" in by_task[("sa", None)]
    assert {j.setting for j in plan.jobs if j.task == "sa"} == {"in-variety"}
    # MRC and EQA have test sets but no training data: one line each, saying where to get it
    assert "belebele" in by_task[("mrc", "combined")].lower()
    assert "tydiqa-goldp-v1.1-train.json" in by_task[("eqa", "zero-shot")]
    assert not [j for j in plan.jobs if j.task in ("mrc", "eqa")]
