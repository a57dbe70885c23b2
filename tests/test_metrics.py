"""Metrics against values computed by hand from tiny inputs (n-gram counts, chunks, edits), not against
the libraries they wrap: a library comparison is kept only where it checks one of our options."""

from __future__ import annotations

import math

import pytest
from seqeval.metrics import f1_score as seqeval_f1
from seqeval.scheme import IOB2, IOBES

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
    # seqeval's default mode reads a UPOS tag's first letter as a chunk prefix (NOUN -> type "OUN") and
    # merges runs of one type: gold chunks OUN(0-1) ERB UNCT | RON ERB DP ET OUN = 8; predicted
    # OUN(0) DJ ERB UNCT | RON ERB DP ET ROPN = 9; both: ERB UNCT RON ERB DP ET = 6 -> F1 2*6/(8+9)
    assert res.score == pytest.approx(100 * 12 / 17)
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
    assert res.score == pytest.approx(100 * 2 * (1 / 2) * (1 / 3) / (1 / 2 + 1 / 3))  # = 40
    assert res.score == pytest.approx(40.0)
    assert res.extra["precision"] == pytest.approx(50.0) and res.extra["recall"] == pytest.approx(100 / 3)
    # our mode/scheme options are seqeval's strict IOB2 (a check of the wrapper's options, not of seqeval)
    assert res.score == pytest.approx(100 * seqeval_f1(NER_GOLD, NER_PRED, mode="strict", scheme=IOB2))
    assert res.extra["stats"] == [[1, 1, 2], [0, 1, 1]]
    assert "mode:strict" in res.signature and "scheme:IOB2" in res.signature


def test_entity_f1_lenient_repairs_a_leading_i():
    res = entity_f1(NER_GOLD, NER_PRED, mode="lenient")
    # CoNLL-lenient: the lone I-GPE_LOC starts a chunk, so GEO and GPE_LOC match; PER(1-1) != PER(1-2).
    # 2 right of 3 predicted and 3 gold -> P = R = F1 = 2/3
    assert res.score == pytest.approx(200 / 3)
    assert res.extra["stats"] == [[2, 2, 2], [0, 1, 1]]
    assert "mode:lenient" in res.signature
    assert res.score > entity_f1(NER_GOLD, NER_PRED).score  # lenient repairs the leading I-


def test_entity_f1_bioes_as_in_the_norwegian_files():
    gold = [["S-PER", "O", "B-GPE_LOC", "E-GPE_LOC"]]
    pred = [["S-PER", "O", "B-GPE_LOC", "I-GPE_LOC"]]
    assert detect_scheme(gold) == "IOBES"
    res = entity_f1(gold, pred, scheme="BIOES")
    # B- then I- with no E- is no entity in strict IOBES: only PER is predicted, and it is right
    assert res.extra["precision"] == pytest.approx(100.0) and res.extra["recall"] == pytest.approx(50.0)
    assert res.score == pytest.approx(200 / 3)
    assert res.extra["stats"] == [[1, 1, 2]] and "scheme:BIOES" in res.signature
    # the "BIOES" spelling is seqeval's IOBES scheme (an option of ours, checked against the library)
    assert res.score == pytest.approx(100 * seqeval_f1(gold, pred, mode="strict", scheme=IOBES))


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


def test_classification_hand_computed():
    res = classification_scores(Y, P)
    assert res.metric == "macro_f1"
    # pos: 2 right of 3 predicted, 3 gold -> F1 2/3; neg: 1 of 2, 2 gold -> 1/2; neu: 1 of 1 -> 1
    assert res.score == pytest.approx(100 * (2 / 3 + 1 / 2 + 1) / 3)              # 72.2
    assert res.extra["weighted_f1"] == pytest.approx(100 * (3 * 2 / 3 + 2 * 1 / 2 + 1 * 1) / 6)  # supports 3/2/1
    assert res.extra["accuracy"] == pytest.approx(100 * 4 / 6)
    assert res.extra["micro_f1"] == pytest.approx(100 * 4 / 6)
    assert res.extra["per_label"]["pos"]["precision"] == pytest.approx(200 / 3)
    assert res.extra["per_label"]["neg"] == {"precision": 50.0, "recall": 50.0, "f1": 50.0, "support": 2}
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


def test_bleu_hand_computed_from_clipped_ngram_counts():
    res = bleu(REF, HYP)
    # clipped matches / hypothesis n-grams, pooled over both sentences:
    #   1-grams 5/6 + 6/7 = 11/13, 2-grams 3/5 + 3/6 = 6/11, 3-grams 2/4 + 1/5 = 3/9, 4-grams 1/3 + 0/4 = 1/7;
    # no order is zero (no smoothing), 13 hypothesis words >= 12 reference words (BP 1)
    assert res.extra["precisions"] == pytest.approx([100 * 11 / 13, 100 * 6 / 11, 100 * 3 / 9, 100 / 7])
    assert (res.extra["sys_len"], res.extra["ref_len"], res.extra["bp"]) == (13, 12, 1.0)
    assert res.score == pytest.approx(100 * (11 / 13 * 6 / 11 * 3 / 9 * 1 / 7) ** 0.25)  # 38.50
    assert "tok:13a" in res.signature and "version:" in res.signature


def test_bleu_brevity_penalty_hand_computed():
    res = bleu(["the cat sat on the mat"], ["the cat sat on"])  # every n-gram right, 4 words for 6
    assert res.extra["precisions"] == pytest.approx([100.0] * 4)
    assert res.extra["bp"] == pytest.approx(math.exp(1 - 6 / 4))
    assert res.score == pytest.approx(100 * math.exp(-0.5))  # 60.65


def test_bleu_takes_several_references_per_hypothesis():
    # each hypothesis is covered only by the union of its own two references: clipping takes the max
    # count over them, so every n-gram matches (BLEU 100); pairing references with the wrong hypotheses
    # (sets not transposed into sacrebleu's streams) would not
    refs = [["the cat sat on the mat", "a cat sat on a mat"], ["there is a dog in the garden", "a dog is here"]]
    res = bleu(refs, ["the cat sat on a mat", "there is a dog in the garden"])
    assert res.score == pytest.approx(100.0) and res.signature.startswith("nrefs:2")
    assert bleu(["the cat sat on the mat", "there is a dog in the garden"],
                ["the cat sat on a mat", "there is a dog in the garden"]).score < 100.0
    two = bleu([[r, r] for r in REF], HYP)  # two identical references change nothing
    assert two.score == pytest.approx(100 * (2 / 91) ** 0.25)


def test_chrf_hand_computed():
    # characters (spaces dropped) abc vs abd: 1-grams 2/3, 2-grams 1/2, 3-grams 0/1, no 4-6-grams;
    # precision = recall = mean over the 3 orders present = 7/18, so chrF (beta 2) = 7/18
    assert chrf(["abd"], ["abc"]).score == pytest.approx(700 / 18)
    assert chrf(["a b d"], ["ab c"]).score == pytest.approx(700 / 18)
    assert bleu(["abd"], ["abc"]).extra["chrf"] == pytest.approx(700 / 18)
    assert chrf(["abd"], ["abc"], word_order=2).metric == "chrf++"


def test_wer_corpus_pooling_hand_counted_and_mean_differs():
    refs, hyps = ["a b c d", "x y"], ["a c d", "x z w"]
    res = wer(refs, hyps, normalization="none")
    # utterance 1: "b" deleted (1 edit, 4 words); utterance 2: y -> z and "w" inserted (2 edits, 2 words)
    assert res.extra["stats"] == [[1, 4], [2, 2]]
    assert res.score == pytest.approx(100 * (1 + 2) / (4 + 2))              # 50, pooled
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


def test_cer_hand_counted_with_spaces_as_characters():
    refs, hyps = ["abc de"], ["abd de"]
    res = cer(refs, hyps, normalization="none")
    assert res.score == pytest.approx(100 / 6) and res.extra["stats"] == [[1, 6]]  # c -> d, 6 characters
    assert cer(["abc de"], ["abcde"], normalization="none").score == pytest.approx(100 / 6)  # space deleted
    assert cer(["Ab, c"], ["ab c"]).score == 0.0  # basic: case and punctuation go first
    assert cer(["Ab, c"], ["ab c"], normalization="none").score == pytest.approx(200 / 5)  # A->a, "," deleted


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
    monkeypatch.setitem(mt._PRIMARY, "accuracy", "macro")
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
