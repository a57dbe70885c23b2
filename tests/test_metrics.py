"""Metrics against hand-computed cases and against the reference libraries' own outputs."""

from __future__ import annotations

import math

import jiwer
import pytest
import sacrebleu
from seqeval.metrics import f1_score as seqeval_f1
from seqeval.scheme import IOB2, IOBES
from sklearn.metrics import accuracy_score, f1_score

from dialectbench.data.examples import (
    MultipleChoiceExample,
    PairExample,
    QAExample,
    Sentence,
    TaggedSentence,
    TextExample,
    TranslationExample,
)
from dialectbench.metrics import (
    attachment_scores,
    bleu,
    cer,
    chrf,
    classification_scores,
    detect_scheme,
    entity_f1,
    normalize_answer,
    pos_scores,
    score_task,
    squad_scores,
    wer,
)

# --- dependency parsing -------------------------------------------------------------------------------

GOLD = Sentence("s1", ("Dogs", "bark", "loudly", "."), ("NOUN", "VERB", "ADV", "PUNCT"), (2, 0, 2, 2),
                ("nsubj", "root", "advmod", "punct"))


def test_uas_las_counts_every_word_by_default():
    # head of "loudly" wrong; relation of "Dogs" differs only in its subtype; "." attached wrongly.
    res = attachment_scores([GOLD.heads], [GOLD.deprels], [(2, 0, 1, 3)], [("nsubj:pass", "root", "advmod",
                                                                            "punct")])
    assert res.metric == "uas"
    assert res.score == pytest.approx(50.0)          # 2 of 4 heads
    assert res.extra["las"] == pytest.approx(50.0)   # subtype ignored: nsubj:pass == nsubj
    assert res.extra["stats"] == [[2, 2, 4]]
    assert "punct:included" in res.signature


def test_uas_excluding_punct_and_full_relations():
    res = attachment_scores([GOLD.heads], [GOLD.deprels], [(2, 0, 1, 3)], [("nsubj:pass", "root", "advmod",
                                                                            "punct")],
                            gold_upos=[GOLD.upos], exclude_punct=True, deprel_subtypes=True)
    assert res.score == pytest.approx(200 / 3)
    assert res.extra["las"] == pytest.approx(100 / 3)  # only "bark"/root counts now


def test_uas_pools_words_not_sentences():
    short = ((0,), ("root",))
    res = attachment_scores([GOLD.heads, short[0]], [GOLD.deprels, short[1]],
                            [GOLD.heads, (1,)], [GOLD.deprels, ("root",)])
    assert res.score == pytest.approx(80.0)            # 4 of 5 words
    assert res.per_example == [1.0, 0.0]               # the sentence mean would be 50


def test_uas_rejects_misaligned_predictions():
    with pytest.raises(ValueError, match="4 gold words but 3"):
        attachment_scores([GOLD.heads], [GOLD.deprels], [(2, 0, 2)], [("a", "b", "c")])
    with pytest.raises(ValueError, match="needs gold_upos"):
        attachment_scores([GOLD.heads], [GOLD.deprels], [GOLD.heads], [GOLD.deprels], exclude_punct=True)


# --- tagging ----------------------------------------------------------------------------------------

POS_GOLD = [["NOUN", "NOUN", "VERB", "PUNCT"], ["PRON", "VERB", "ADP", "DET", "NOUN"]]
POS_PRED = [["NOUN", "ADJ", "VERB", "PUNCT"], ["PRON", "VERB", "ADP", "DET", "PROPN"]]


def test_pos_f1_is_the_papers_seqeval_figure_and_accuracy_is_token_accuracy():
    res = pos_scores(POS_GOLD, POS_PRED)
    with pytest.warns(UserWarning):  # seqeval itself complains that UPOS are not NE tags
        expected = seqeval_f1(POS_GOLD, POS_PRED)
    assert res.score == pytest.approx(100 * expected)
    assert res.extra["accuracy"] == pytest.approx(100 * 7 / 9)
    assert res.score != pytest.approx(res.extra["accuracy"])  # the two differ, as in seed 000 Table 11
    assert res.per_example == pytest.approx([0.75, 0.8])


def test_pos_micro_f1_equals_accuracy():
    res = pos_scores(POS_GOLD, POS_PRED, f1="micro")
    assert res.score == pytest.approx(100 * 7 / 9)
    with pytest.raises(ValueError, match="unknown POS f1"):
        pos_scores(POS_GOLD, POS_PRED, f1="macro")


NER_GOLD = [["B-GEO", "I-GEO", "O", "B-GPE_LOC"], ["O", "B-PER", "I-PER", "O"]]
NER_PRED = [["B-GEO", "I-GEO", "O", "I-GPE_LOC"], ["O", "B-PER", "O", "O"]]


def test_entity_f1_strict_iob2_matches_seqeval():
    res = entity_f1(NER_GOLD, NER_PRED)
    # strict: only GEO is right; the I-GPE_LOC chunk is ill-formed, PER is truncated -> P 1/2, R 1/3
    assert res.score == pytest.approx(100 * 2 * (1 / 2) * (1 / 3) / (1 / 2 + 1 / 3))
    assert res.score == pytest.approx(100 * seqeval_f1(NER_GOLD, NER_PRED, mode="strict", scheme=IOB2))
    assert res.extra["stats"] == [[1, 1, 2], [0, 1, 1]]
    assert "mode:strict" in res.signature and "scheme:IOB2" in res.signature


def test_entity_f1_lenient_matches_seqeval_default():
    res = entity_f1(NER_GOLD, NER_PRED, mode="lenient")
    assert res.score == pytest.approx(100 * seqeval_f1(NER_GOLD, NER_PRED))
    assert res.score > entity_f1(NER_GOLD, NER_PRED).score  # lenient repairs the leading I-


def test_entity_f1_bioes_as_in_the_norwegian_files():
    gold = [["S-PER", "O", "B-GPE_LOC", "E-GPE_LOC"]]
    pred = [["S-PER", "O", "B-GPE_LOC", "I-GPE_LOC"]]
    assert detect_scheme(gold) == "IOBES"
    res = entity_f1(gold, pred, scheme="BIOES")
    assert res.score == pytest.approx(100 * seqeval_f1(gold, pred, mode="strict", scheme=IOBES))
    assert res.extra["precision"] == pytest.approx(100.0) and res.extra["recall"] == pytest.approx(50.0)


def test_entity_f1_rejects_bad_tags_and_schemes():
    with pytest.raises(ValueError, match="sentence 0, token 0: tag 'GEO'"):
        entity_f1([["GEO"]], [["O"]])
    with pytest.raises(ValueError, match="unknown tagging scheme"):
        entity_f1([["O"]], [["O"]], scheme="XYZ")
    with pytest.raises(ValueError, match="sentence 0: 2 gold tags but 1"):
        entity_f1([["O", "O"]], [["O"]])


# --- classification and multiple choice ----------------------------------------------------------------

Y = ["pos", "neg", "neu", "pos", "pos", "neg"]
P = ["pos", "pos", "neu", "neg", "pos", "neg"]


def test_classification_matches_sklearn():
    res = classification_scores(Y, P)
    assert res.metric == "macro_f1"
    assert res.score == pytest.approx(100 * f1_score(Y, P, average="macro"))
    assert res.extra["weighted_f1"] == pytest.approx(100 * f1_score(Y, P, average="weighted"))
    assert res.extra["accuracy"] == pytest.approx(100 * accuracy_score(Y, P))
    assert res.extra["per_label"]["neu"] == {"precision": 100.0, "recall": 100.0, "f1": 100.0, "support": 1}
    assert res.per_example == [1.0, 0.0, 1.0, 0.0, 1.0, 1.0]
    assert classification_scores(Y, P, primary="accuracy").score == pytest.approx(400 / 6)


def test_classification_rejects_length_mismatch_and_unknown_primary():
    with pytest.raises(ValueError, match="6 gold items but 5"):
        classification_scores(Y, P[:5])
    with pytest.raises(ValueError, match="unknown primary"):
        classification_scores(Y, P, primary="top5")


# --- extractive QA ------------------------------------------------------------------------------------


def test_squad_normalization_is_the_official_one():
    assert normalize_answer("The  Eiffel-Tower!") == "eiffeltower"
    assert normalize_answer("an apple, a pear") == "apple pear"


def test_squad_f1_and_em_hand_computed():
    res = squad_scores([["the cat sat"], ["Paris", "in Paris"]], ["a cat sat down", "in Paris"])
    # q1: pred tokens cat sat down vs cat sat -> P 2/3 R 1 F1 0.8; q2: exact match with the 2nd gold
    assert res.per_example == pytest.approx([0.8, 1.0])
    assert res.score == pytest.approx(90.0)
    assert res.extra["exact_match"] == pytest.approx(50.0)


def test_squad_character_level_for_scripts_without_spaces():
    gold, pred = [["北京大学"]], ["北京"]
    assert squad_scores(gold, pred, segmentation="word").score == 0.0  # one "word" each, no overlap
    res = squad_scores(gold, pred, language="zh")                     # auto -> char: P 1, R 1/2
    assert res.extra["segmentation"] == "char"
    assert res.score == pytest.approx(100 * 2 / 3)
    assert squad_scores([["北京。"]], ["北京"], segmentation="char").extra["exact_match"] == 100.0


# --- MT and ASR -------------------------------------------------------------------------------------

HYP = ["the cat sat on a mat", "there is a dog in the garden"]
REF = ["the cat sat on the mat", "a dog is in the garden"]


def test_bleu_and_chrf_match_sacrebleu():
    res = bleu(REF, HYP)
    assert res.score == pytest.approx(sacrebleu.corpus_bleu(HYP, [REF]).score)
    assert res.extra["chrf"] == pytest.approx(sacrebleu.corpus_chrf(HYP, [REF]).score)
    assert "tok:13a" in res.signature and "version:" in res.signature
    assert chrf(REF, HYP).score == pytest.approx(res.extra["chrf"])
    two = bleu([[r, r] for r in REF], HYP)  # two (identical) references per hypothesis
    assert two.score == pytest.approx(res.score) and two.signature.startswith("nrefs:2")


def test_wer_corpus_pooling_matches_jiwer_and_mean_differs():
    refs, hyps = ["a b c d", "x y"], ["a c d", "x z w"]
    res = wer(refs, hyps, normalization="none")
    assert res.score == pytest.approx(100 * jiwer.wer(refs, hyps))          # (1 + 2) / 6 pooled
    assert res.extra["mean_utterance"] == pytest.approx(100 * (1 / 4 + 2 / 2) / 2)
    assert wer(refs, hyps, normalization="none", pooling="mean").score == pytest.approx(62.5)
    assert res.per_example == pytest.approx([0.25, 1.0])


def test_wer_normalization_is_selectable():
    refs, hyps = ["Hello, World!"], ["hello world"]
    assert wer(refs, hyps, normalization="basic").score == 0.0
    assert wer(refs, hyps, normalization="none").score == pytest.approx(100.0)
    with pytest.raises(ValueError, match="utterance 0: reference is empty"):
        wer(["..."], ["a"])
    with pytest.raises(ValueError, match="unknown normalization"):
        wer(refs, hyps, normalization="whisper")


def test_cer_matches_jiwer():
    refs, hyps = ["abc de"], ["abd de"]
    assert cer(refs, hyps, normalization="none").score == pytest.approx(100 * jiwer.cer(refs, hyps))


# --- score_task dispatch --------------------------------------------------------------------------


def test_score_task_uses_each_tasks_primary_metric():
    assert score_task("dep", [GOLD], [(GOLD.heads, GOLD.deprels)]).score == 100.0
    assert score_task("pos", [GOLD], [GOLD.upos]).extra["accuracy"] == 100.0
    ner = score_task("ner", [TaggedSentence("n", ("Oslo", "."), ("S-GEO", "O"))], [("S-GEO", "O")])
    assert ner.score == 100.0 and "scheme:IOBES" in ner.signature
    texts = [TextExample(str(i), "t", y) for i, y in enumerate(Y)]
    assert score_task("sa", texts, P).metric == "accuracy"
    assert score_task("did", texts, P).metric == "macro_f1"
    nli = score_task("nli", [PairExample("p", "a", "b", "entailment")], ["neutral"])
    assert nli.score == 0.0 and nli.metric == "macro_f1"
    mc = [MultipleChoiceExample(str(i), "p", "q", ("a", "b", "c", "d"), i % 4) for i in range(4)]
    mrc = score_task("mrc", mc, [0, 1, 2, 0])
    assert mrc.extra["accuracy"] == 75.0 and mrc.metric == "macro_f1"
    qa = score_task("eqa", [QAExample("q", "ctx", "?", ("Paris",), (0,))], ["paris"])
    assert qa.score == 100.0
    mt = score_task("mt-region", [TranslationExample(str(i), "s", r) for i, r in enumerate(REF)], HYP)
    assert mt.metric == "bleu" and "chrf" in mt.extra


def test_scorers_report_what_tasks_yaml_declares_and_a_disagreement_fails(monkeypatch):
    import dialectbench.metrics.tasks as mt
    from dialectbench.tasks import TASKS

    texts = [TextExample(str(i), "t", y) for i, y in enumerate(Y)]
    assert score_task("tc", texts, P).metric == TASKS["tc"].metric == "macro_f1"
    assert all(t.higher_is_better and t.aggregation == "mean" for t in TASKS.values())
    # a scorer that drifts from the declaration is an error, not a silently relabelled score
    monkeypatch.setitem(mt._SCORERS, "sa", mt._labels("macro"))
    with pytest.raises(RuntimeError, match="tasks.yaml declares 'accuracy'"):
        score_task("sa", texts, P)
    # an explicit metric choice is the caller's: no error
    assert score_task("sa", texts, P, primary="macro").metric == "macro_f1"


def test_metric_direction_travels_with_the_result():
    assert not wer(["a b c"], ["a x c"]).higher_is_better
    assert score_task("sa", [TextExample("1", "t", "pos")], ["pos"]).higher_is_better


def test_score_task_errors_are_clear():
    with pytest.raises(ValueError, match="unknown task 'mt'"):
        score_task("mt", [], [])
    with pytest.raises(ValueError, match="1 gold items but 2"):
        score_task("sa", [TextExample("1", "t", "pos")], ["pos", "neg"])
    with pytest.raises(TypeError, match="dep prediction 0 must be"):
        score_task("dep", [GOLD], [GOLD.heads])
    assert math.isnan(classification_scores([], []).score)
