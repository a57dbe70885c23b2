"""Readers on hand-written fixtures (tests/fixtures/readers), including malformed input."""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path

import conllu
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dialectbench.data.errors import DataFormatError, DataNotAvailable, DataWarning
from dialectbench.data.examples import Sentence, TextExample
from dialectbench.data.readers import (
    READERS,
    XNLI_LABEL_IDS,
    conllu_stats,
    read_conllu,
    read_iob,
    read_labelled,
    read_multiple_choice,
    read_pairs,
    read_parallel,
    read_sdqa,
    read_squad,
    sdqa_dialects,
)

FIX = Path(__file__).parent / "fixtures" / "readers"


def _error(fn, *args, **kwargs) -> DataFormatError:
    with pytest.raises(DataFormatError) as info:
        list(fn(*args, **kwargs))
    return info.value


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _row(*cols: str) -> str:
    return "\t".join(cols) + "\n"


def _word(i: int, form: str, head: int | str, rel: str = "dep", upos: str = "X") -> str:
    return _row(str(i), form, form.lower(), upos, "_", "_", str(head), rel, "_", "_")


# --- errors ---------------------------------------------------------------------------------------------

def test_error_message_names_file_line_problem_and_pickles():
    err = DataFormatError("data/x.conllu", 12, "HEAD 9 points outside the sentence")
    assert str(err) == "data/x.conllu:12: HEAD 9 points outside the sentence"
    assert str(DataFormatError("q.json", None, "bad")) == "q.json: bad"
    again = pickle.loads(pickle.dumps(err))
    assert (again.path, again.line, again.problem) == ("data/x.conllu", 12, err.problem)
    missing = pickle.loads(pickle.dumps(DataNotAvailable("no MADAR", dataset="madar", how_to_obtain="ask")))
    assert missing.dataset == "madar" and "ask" in str(missing)


def test_readers_registry_lists_every_format():
    from dialectbench.data.catalogue.models import FORMATS

    assert set(READERS) == set(FORMATS) == {"conllu", "iob", "labelled", "pairs", "multiple_choice", "squad",
                                           "goldp", "parallel", "sdqa"}
    assert READERS["conllu"] is read_conllu


def test_missing_file_fails_when_called_not_when_iterated(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_conllu(tmp_path / "nope.conllu")


# --- CoNLL-U --------------------------------------------------------------------------------------------

def test_conllu_expands_multiword_tokens_and_drops_empty_nodes():
    first, second, third = read_conllu(FIX / "good.conllu")
    assert isinstance(first, Sentence)
    assert first.example_id == "good:picnic-1" and first.text == "We went to the lake."
    assert first.heads == (2, 0, 5, 5, 2, 2) and first.upos[1] == "VERB"
    assert second.words == ("Ils", "parlent", "de", "le", "pique-nique", ".")  # "du" -> de + le
    assert second.deprels[4] == "obl:arg"
    assert third.example_id == "good:2"  # no sent_id: the sentence index
    assert "ate" not in third.words[2:] and len(third.words) == 7  # empty node 5.1 dropped
    stats = conllu_stats(FIX / "good.conllu")
    assert (stats.sentences, stats.tokens, stats.words) == (3, 18, 19)


def test_conllu_matches_the_conllu_library_on_the_fixture():
    ours = list(read_conllu(FIX / "good.conllu"))
    theirs = conllu.parse((FIX / "good.conllu").read_text(encoding="utf-8"))
    for mine, ref in zip(ours, theirs, strict=True):
        words = [t for t in ref if isinstance(t["id"], int)]
        assert mine.words == tuple(t["form"] for t in words)
        assert mine.heads == tuple(t["head"] for t in words)
        assert mine.upos == tuple(t["upos"] for t in words)


def test_conllu_wrong_column_count_names_file_and_line():
    err = _error(read_conllu, FIX / "bad_columns.conllu")
    assert err.line == 5 and "10 tab-separated columns, found 8" in err.problem
    assert str(err).startswith(f"{FIX / 'bad_columns.conllu'}:5: ")


def test_conllu_head_outside_sentence_is_kept_and_named():
    with pytest.warns(DataWarning, match="not trees"):
        (sentence,) = read_conllu(FIX / "bad_head.conllu")
    assert sentence.tree_problem.endswith("bad_head.conllu:5: HEAD 7 of word 3 points outside the sentence "
                                          "(4 words)")


@pytest.mark.parametrize(("body", "line", "problem"), [
    (_word(1, "a", 0) + _word(3, "b", 1), 2, "word id 3 out of order"),
    (_word(1, "a", 0) + _row("2-2", "bc", *"_" * 8) + _word(2, "b", 1), 2, "range 2-2"),
    (_word(1, "a", 0) + _row("3-4", "cd", *"_" * 8) + _word(2, "b", 1), 2, "does not start at word 2"),
    (_word(1, "a", 0) + _row("2.1", "x", *"_" * 8), 2, "empty node 2.1 does not follow word 1"),
    (_word(1, "a", 0) + "# late comment\n", 2, "comment line inside a sentence"),
    (_word(1, "a", "_"), 1, "HEAD '_' of word 1"),
    (_row("one", "a", *"_" * 8), 1, "bad id 'one'"),
    ("# sent_id = lonely\n\n", 1, "sentence has no words"),
    (_word(1, "a", 0) + _row("2-3", "bc", *"_" * 8) + _word(2, "b", 1), 1, "multiword token ends at word 3"),
])
def test_conllu_malformed(tmp_path, body, line, problem):
    err = _error(read_conllu, _write(tmp_path, "bad.conllu", body))
    assert err.line == line and problem in err.problem


def test_conllu_crlf_bom_no_final_blank_line(tmp_path):
    path = tmp_path / "win.conllu"
    path.write_bytes(("\ufeff# sent_id = w1\r\n" + _word(1, "Hi", 0).replace("\n", "\r\n")).encode())
    (sentence,) = read_conllu(path)
    assert sentence.example_id == "win:w1" and sentence.words == ("Hi",) and sentence.deprels == ("dep",)


def test_conllu_repeated_sent_id_gets_unique_id(tmp_path):
    block = "# sent_id = s\n" + _word(1, "a", 0) + "\n"
    ids = [s.example_id for s in read_conllu(_write(tmp_path, "dup.conllu", block * 2))]
    assert ids == ["dup:s", "dup:s@1"]


def test_invalid_utf8_names_the_line(tmp_path):
    path = tmp_path / "latin1.conllu"
    path.write_bytes(_word(1, "ok", 0).encode() + b"\n" + _word(1, "café", 0).encode("latin-1"))
    err = _error(read_conllu, path)
    assert err.line == 3 and "not valid utf-8" in err.problem


_FORM = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp", "Zs")), min_size=1,
                max_size=6)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.tuples(_FORM, st.integers(0, 30)), min_size=1, max_size=12), min_size=1,
                max_size=5))
def test_conllu_agrees_with_conllu_library_on_generated_treebanks(tmp_path_factory, sentences):
    text = ""
    for words in sentences:
        # word i's head is an earlier word or 0: always a tree (a random HEAD may make a cycle)
        text += "".join(_word(i, form, head % i) for i, (form, head) in enumerate(words, 1)) + "\n"
    path = tmp_path_factory.mktemp("gen") / "gen.conllu"
    path.write_text(text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)  # several roots: read as given, with a warning
        ours = list(read_conllu(path))
    theirs = conllu.parse(text)
    assert [s.words for s in ours] == [tuple(t["form"] for t in s) for s in theirs]
    assert [s.heads for s in ours] == [tuple(t["head"] for t in s) for s in theirs]


# --- IOB / NER ------------------------------------------------------------------------------------------

def test_wikiann_style_tag_is_last_field_and_hash_token_is_not_a_comment():
    first, second = read_iob(FIX / "wikiann-xx.bio")
    assert first.tokens == ("Marta", "Ruiz", "visita", "Porto", ".")
    assert first.tags == ("B-PER", "I-PER", "O", "B-LOC", "O")
    assert second.tokens[:2] == ("#", "1990") and second.example_id == "wikiann-xx:1"


def test_norwegian_bioes_keeps_its_tag_set_and_sent_ids():
    first, second = read_iob(FIX / "no_test-ud-dev.bioes")
    assert first.example_id == "no_test-ud-dev:000101"
    assert first.tokens == ("Kari", "bur", "i", "Bergen", ".") and first.tags[0] == "S-PRS"
    assert second.tags == ("B-ORG", "E-ORG", "O", "S-OTH", "O")  # "# newpar" skipped, GEO/OTH kept as is


def test_norne_tags_from_misc_column():
    (sentence,) = read_iob(FIX / "norne-style.conllu", misc_key="name")
    assert sentence.tags == ("B-PER", "I-PER", "O", "B-GPE_LOC", "O") and sentence.tokens[3] == "Tromsø"


def test_iob_bad_tag_and_missing_tag(tmp_path):
    err = _error(read_iob, FIX / "bad_tag.bio")
    assert err.line == 5 and "bad tag 'PLACE'" in err.problem
    err = _error(read_iob, _write(tmp_path, "x.bio", "Ola B-PER\nlonely\n"))
    assert err.line == 2 and "found 1 field" in err.problem


# --- labelled text --------------------------------------------------------------------------------------

def test_labelled_id_text_label_tsv_keeps_quotes_literally():
    examples = list(read_labelled(FIX / "dialects.tsv", text_column=1, id_column=0))
    assert [e.label for e in examples] == ["EN-GB", "EN-US", "EN"]
    assert examples[0] == TextExample("dialects:17", "The lorry driver queued for petrol on the motorway.", "EN-GB")
    assert examples[2].text.startswith('"We will see,"')


def test_labelled_csv_with_header_quotes_and_filter():
    examples = list(read_labelled(FIX / "reviews.csv", delimiter=",", header=True, text_column="text",
                                  label_column="label", where={"source": "web"}))
    assert [(e.text, e.label) for e in examples] == [("Great food, slow service", "positive"),
                                                     ("It was fine I guess", "neutral")]
    assert examples[1].example_id == "reviews:2"


def test_labelled_csv_missing_label_names_line():
    err = _error(read_labelled, FIX / "missing_label.csv", delimiter=",", header=True, text_column="text",
                 label_column="label")
    assert err.line == 3 and "missing label" in err.problem


def test_labelled_empty_label_and_unknown_label(tmp_path):
    err = _error(read_labelled, FIX / "empty_label.tsv")
    assert err.line == 2 and "missing label" in err.problem
    err = _error(read_labelled, FIX / "tweets.txt", labels={"POS", "NEG"})
    assert err.line == 2 and "'OBJ' is not one of" in err.problem


def test_labelled_one_file_per_label_and_blank_lines():
    examples = list(read_labelled(FIX / "train_pos.txt", delimiter=None, label="positive"))
    assert [e.text for e in examples] == ["Walked the dog by the river", "Made pancakes for everyone"]
    assert [e.example_id for e in examples] == ["train_pos:0", "train_pos:2"]  # ids count the blank line
    assert len(list(read_labelled(FIX / "train_pos.txt", delimiter=None, label="positive",
                                  keep_empty=True))) == 3


def test_labelled_subset_file_and_label_map():
    examples = list(read_labelled(FIX / "tweets.txt", subset=FIX / "tweets-train-ids.txt",
                                  label_map={"POS": "positive", "NEG": "negative"}))
    assert [(e.example_id, e.label) for e in examples] == [("tweets:2", "negative"), ("tweets:0", "positive"),
                                                           ("tweets:3", "NEUTRAL")]
    err = _error(read_labelled, FIX / "tweets.txt", subset=FIX / "bad-ids.txt")
    assert err.path.endswith("bad-ids.txt") and err.line == 2 and "'seven'" in err.problem
    err = _error(read_labelled, FIX / "tweets.txt", subset=[9])
    assert "row index 9 is not a data row" in err.problem


def test_labelled_split_on_last_delimiter():
    examples = list(read_labelled(FIX / "semicolon.txt", delimiter=";", split_last=True))
    assert [(e.text, e.label) for e in examples] == [("trop bien", "1"), ("nul; vraiment nul", "-1")]
    err = _error(read_labelled, FIX / "semicolon.txt", delimiter=";")
    assert err.line == 2 and "expected 2 fields, found 3" in err.problem


def test_labelled_unlabelled_file_and_unknown_header_column():
    examples = list(read_labelled(FIX / "train_pos.txt", delimiter=None, label_column=None))
    assert {e.label for e in examples} == {""}
    err = _error(read_labelled, FIX / "reviews.csv", delimiter=",", header=True, text_column="body")
    assert err.line == 1 and "'body' not in header" in err.problem
    err = _error(read_labelled, FIX / "train_pos.txt")  # one column: no label column to read
    assert "the label column is the text column" in err.problem


# --- pairs, multiple choice, QA, parallel -----------------------------------------------------------------

def test_pairs_tsv_and_jsonl_with_integer_labels():
    tsv = list(read_pairs(FIX / "nli.tsv"))
    assert [p.label for p in tsv] == ["entailment", "contradiction", "neutral"]
    assert tsv[0].premise == "A man plays guitar on stage." and tsv[0].example_id == "nli:0"
    js = list(read_pairs(FIX / "nli.jsonl", id_column="id", label_map=XNLI_LABEL_IDS))
    assert [(p.example_id, p.label) for p in js] == [("nli:p1", "entailment"), ("nli:p2", "contradiction")]
    err = _error(read_pairs, FIX / "nli.jsonl")
    assert err.line == 1 and "'0' is not one of" in err.problem


def test_pairs_unknown_label():
    err = _error(read_pairs, FIX / "nli_bad_label.tsv")
    assert err.line == 2 and "'agreement'" in err.problem


def test_multiple_choice_belebele_layout():
    first, second = read_multiple_choice(FIX / "belebele-xx.jsonl")
    assert first.answer == 2 and first.options[2] == "At dusk" and second.answer == 0
    assert first.example_id == "belebele-xx:https://example.org/story-1#1"
    assert first.passage.startswith("The ferry")
    err = _error(read_multiple_choice, FIX / "belebele-bad.jsonl")
    assert err.line == 1 and "answer '5' is not an option number 1..4" in err.problem


def test_squad_reads_and_checks_spans():
    first, second = read_squad(FIX / "squad-xx.json")
    assert first.example_id == "squad-xx:q-harbour-1" and first.answers == ("1921", "in 1921")
    assert first.answer_starts == (31, 28) and second.answers == ("Fishing boats",)
    (hf,) = read_squad(FIX / "qa-hf.jsonl")
    assert hf.answers == ("on the roof",) and hf.answer_starts == (16,)


def test_squad_span_mismatch_names_file_line_and_example():
    err = _error(read_squad, FIX / "squad-bad.json")
    assert err.path.endswith("squad-bad.json") and err.line == 11
    assert "'q-garden-2'" in err.problem and "'south wall'" in err.problem
    assert len(list(read_squad(FIX / "squad-bad.json", check_spans=False))) == 2


def test_parallel_skips_untranslated_lines_and_checks_alignment():
    pairs = list(read_parallel(FIX / "Zurich.deu", FIX / "Zurich_standard.deu", pseudo_reference=True))
    assert [p.example_id for p in pairs] == ["Zurich:0", "Zurich:2"]
    assert pairs[1].source == "Mir gönd go schwimme." and pairs[1].reference == "Wir gehen schwimmen."
    assert all(p.pseudo_reference for p in pairs)
    assert len(list(read_parallel(FIX / "Zurich.deu", FIX / "Zurich_standard.deu", keep_empty=True))) == 3
    with pytest.raises(DataFormatError, match="1 lines but the source Zurich.deu has 3"):
        read_parallel(FIX / "Zurich.deu", FIX / "short.deu")


# --- SD-QA ----------------------------------------------------------------------------------------------

def test_sdqa_one_item_per_recorded_example_and_dialect():
    items = list(read_sdqa(FIX / "sdqa", "eng", "dev"))
    assert sdqa_dialects(FIX / "sdqa") == ["usa", "kenya", "ind_n"]
    by_key = {(q.example_id, q.dialect): q for q in items}
    assert len(items) == 8 and ("202", "kenya") not in by_key  # Kenyan 202 was never recorded
    kenya = by_key[("-101", "kenya")]
    assert kenya.question == "How tall is the lighthouse?"
    assert kenya.transcripts == {"en-KE": "how tall is the lighthouse", "en-US": "how tall is the light house"}
    assert (kenya.speaker_gender, kenya.speaker_age, kenya.speaker_id) == ("male", None, "K7")  # "na"
    assert by_key[("303", "kenya")].speaker_age is None  # "2021" is not an age
    assert by_key[("202", "ind_n")].transcripts == {"en-US": "who painted the blew door and when", "en-IN": ""}
    assert by_key[("202", "usa")].question == "Who painted the blue door, and when?"
    twice = by_key[("303", "ind_n")]  # recorded by two speakers who differ in gender and id, not in age
    assert (twice.speaker_gender, twice.speaker_id, twice.speaker_age) == (None, None, "29")


def test_sdqa_dialect_filter_keep_missing_and_bad_layout(tmp_path):
    kenya = list(read_sdqa(FIX / "sdqa", dialects=["kenya"], keep_missing=True))
    assert [(q.example_id, q.transcripts == {}) for q in kenya] == [("-101", False), ("202", True),
                                                                   ("303", False)]
    with pytest.raises(ValueError, match="scotland"):
        read_sdqa(FIX / "sdqa", dialects=["scotland"])
    folder = tmp_path / "dev" / "eng"
    folder.mkdir(parents=True)
    _write(folder, "english.dev.csv", ",ID,in XOR dev,english-gold,usa-en-US\n0,1,False,Why?,why\n1,2,False\n")
    err = _error(read_sdqa, tmp_path)
    assert err.line == 3 and "expected 5 fields, found 3" in err.problem


def test_real_singlish_treebank_reads_with_its_broken_trees_counted(shared_data):
    from dialectbench.data.source import catalogue_source

    src = catalogue_source(shared_data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        splits = {s: src.load("dep", "singlish", s) for s in ("train", "dev", "test")}
    broken = {s: [x.tree_problem for x in ex if x.tree_problem] for s, ex in splits.items()}
    assert [len(splits[s]) for s in ("train", "dev", "test")] == [900, 150, 150]
    assert {s: len(b) for s, b in broken.items()} == {"train": 2, "dev": 1, "test": 0}
    assert broken["train"][0].endswith("train.conll:1414: word 2 is its own HEAD")
