"""Readers under hostile input: nothing but DataFormatError (with the file and, where the format has lines, the
line) comes out, whatever the bytes; messages quote at most ~80 characters of the input; LF, CRLF and a lone CR
are each a line end, so a file reads the same whatever mix it has; a sentence that is not a tree is kept with its
problem and one warning per file, and several roots a warning. Each reader also gets a bounded hypothesis run
over mutated seeds."""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dialectbench.data.errors import DataFormatError, DataWarning
from dialectbench.data.readers import (
    _io,
    _table,
    read_conllu,
    read_iob,
    read_labelled,
    read_multiple_choice,
    read_pairs,
    read_parallel,
    read_sdqa,
    read_squad,
)

CONLLU = ("# sent_id = s1\n# text = the cat sat\n"
          "1\tthe\tthe\tDET\t_\t_\t2\tdet\t_\t_\n"
          "2\tcat\tcat\tNOUN\t_\t_\t3\tnsubj\t_\t_\n"
          "3\tsat\tsit\tVERB\t_\t_\t0\troot\t_\t_\n\n")


def _write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return p


def _error(fn, *args, **kwargs) -> DataFormatError:
    with pytest.raises(DataFormatError) as err:
        list(fn(*args, **kwargs))
    return err.value


# ------------------------------------------------------------------------------------------ CoNLL-U
@pytest.mark.parametrize("bad, line", [
    ("1\tthe\tthe\tDET\t_\t_\t²\tdet\t_\t_", 3),   # str.isdigit() is true for "²", int() refuses it
    ("①\tthe\tthe\tDET\t_\t_\t2\tdet\t_\t_", 3),
    ("1-²\tthe\t_\t_\t_\t_\t_\t_\t_\t_", 3),
    ("1\tthe\tthe\tDET\t_\t_\t" + "9" * 5000 + "\tdet\t_\t_", 3),  # over int()'s 4,300-digit limit
])
def test_conllu_unicode_and_huge_numbers_are_format_errors(tmp_path, bad, line):
    text = CONLLU.replace("1\tthe\tthe\tDET\t_\t_\t2\tdet\t_\t_", bad)
    err = _error(read_conllu, _write(tmp_path, "x.conllu", text))
    assert err.line == line and err.path.endswith("x.conllu")


@pytest.mark.parametrize("old, new, line, problem", [
    ("\t0\troot", "\t1\troot", (3, 4, 5), "cycle"),              # 1 -> 2 -> 3 -> 1: no root, a cycle
    ("\t3\tnsubj", "\t2\tnsubj", 4, "its own HEAD"),             # word 2 heads itself
    ("\t3\tnsubj", "\t4\tnsubj", 4, "outside the sentence"),     # HEAD 4 in a 3-word sentence
])
def test_a_sentence_that_is_not_a_tree_is_kept_with_its_problem_and_one_warning(tmp_path, old, new, line,
                                                                                 problem):
    bad = CONLLU.replace("s1", "s2").replace(old, new)
    path = _write(tmp_path, "broken.conllu", CONLLU + bad + bad.replace("s2", "s3"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        good, first, second = read_conllu(path)
    assert good.tree_problem == "" and first.words == ("the", "cat", "sat")  # POS can still use it
    lines = (line,) if isinstance(line, int) else line
    assert any(first.tree_problem.startswith(f"{path}:{n + 6}:") for n in lines), first.tree_problem
    assert problem in first.tree_problem and problem in second.tree_problem
    found = [str(w.message) for w in caught if issubclass(w.category, DataWarning)]
    assert len(found) == 1 and found[0].startswith(first.tree_problem) and "2 sentence(s)" in found[0]


def test_several_roots_are_kept_with_one_warning_naming_the_line(tmp_path):
    text = CONLLU + CONLLU.replace("s1", "s2").replace("\t3\tnsubj", "\t0\tnsubj")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sentences = list(read_conllu(_write(tmp_path, "roots.conllu", text)))
    assert len(sentences) == 2
    found = [w for w in caught if issubclass(w.category, DataWarning)]
    assert len(found) == 1 and "roots.conllu:7:" in str(found[0].message) and "1 sentence" in str(found[0].message)


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_conllu_line_numbers_hold_for_every_line_ending(tmp_path, eol):
    text = (CONLLU + CONLLU.replace("s1", "s2").replace("\t2\tdet", "\tX\tdet")).replace("\n", eol)
    err = _error(read_conllu, _write(tmp_path, "eol.conllu", text))
    assert err.line == 9  # the second sentence's first word


# ------------------------------------------------------------------------------------ delimited text
@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_tsv_reads_every_row_and_numbers_lines_for_every_line_ending(tmp_path, eol):
    rows = [f"text {i}\tlabel{i % 2}" for i in range(20)]
    good = _write(tmp_path, "good.tsv", eol.join(rows) + eol)
    assert len(list(read_labelled(good))) == 20  # CR-only used to read as 1 example
    rows[13] = "no label here"
    err = _error(read_labelled, _write(tmp_path, "bad.tsv", eol.join(rows) + eol))
    assert err.line == 14


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_csv_line_numbers_are_inside_the_file_for_every_line_ending(tmp_path, eol):
    lines = ["premise,hypothesis,label", '"a, quoted",b,entailment', "c,d,neutral", "e,f,nonsense", "g,h,neutral"]
    path = _write(tmp_path, "pairs.csv", eol.join(lines) + eol)
    err = _error(read_pairs, path, delimiter=",")
    assert err.line == 4


def test_a_csv_field_over_the_csv_limit_is_a_format_error_with_its_line(tmp_path):
    path = _write(tmp_path, "big.csv", "premise,hypothesis,label\na,b,neutral\n" + "x" * 140_000 + ",b,neutral\n")
    err = _error(read_pairs, path, delimiter=",")
    assert err.line == 3 and "CSV" in err.problem


def test_a_unicode_digit_in_a_subset_file_is_a_format_error(tmp_path):
    data = _write(tmp_path, "d.tsv", "a\tx\nb\ty\n")
    subset = _write(tmp_path, "subset.txt", "0\n²\n")
    err = _error(read_labelled, data, subset=subset)
    assert err.path.endswith("subset.txt") and err.line == 2


# --------------------------------------------------------------------------------------------- JSON
def test_json_nested_too_deep_is_a_format_error(tmp_path):
    err = _error(read_squad, _write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000))
    assert "nested too deeply" in err.problem
    err = _error(read_multiple_choice, _write(tmp_path, "deep.jsonl", '{"a": ' * 100_000 + "1" + "}" * 100_000))
    assert err.line == 1


@pytest.mark.parametrize("document", [
    {"data": [1]},
    {"data": [{"paragraphs": [{"context": "abc", "qas": [{"id": "q", "question": "?", "answers": None}]}]}]},
    {"data": [{"paragraphs": [{"context": 5, "qas": []}]}]},
    {"data": [{"paragraphs": "no"}]},
])
def test_squad_documents_with_wrong_types_are_format_errors(tmp_path, document):
    _error(read_squad, _write(tmp_path, "bad.json", json.dumps(document)))


@pytest.mark.parametrize("answers", [{"text": 1, "answer_start": [0]}, {"text": ["a"], "answer_start": 0},
                                     [1], [{"text": 1, "answer_start": 0}], "abc"])
def test_flat_qa_records_with_wrong_answer_types_are_format_errors_at_their_line(tmp_path, answers):
    records = [{"id": "q1", "context": "abc", "question": "?", "answers": {"text": ["a"], "answer_start": [0]}},
               {"id": "q2", "context": "abc", "question": "?", "answers": answers}]
    err = _error(read_squad, _write(tmp_path, "flat.jsonl", "\n".join(json.dumps(r) for r in records)))
    assert err.line == 2


@pytest.mark.parametrize("answer", ["²", "1" * 5000, None, [1], True])
def test_belebele_answer_that_is_not_a_plain_number_is_a_format_error(tmp_path, answer):
    record = {"flores_passage": "p", "question": "q", "mc_answer1": "a", "mc_answer2": "b", "mc_answer3": "c",
              "mc_answer4": "d", "correct_answer_num": answer}
    err = _error(read_multiple_choice, _write(tmp_path, "mc.jsonl", json.dumps(record) + "\n"))
    assert err.line == 1


# -------------------------------------------------------------------------------------------- SD-QA
SDQA_HEADER = ",ID,in XOR dev,english-gold,kenya-en-KE,kenya-en-US"


def _sdqa(tmp_path: Path, question_csv: str, metadata: str | None = None) -> Path:
    root = tmp_path / "sdqa"
    _write(root, "dev/eng/english.dev.csv", question_csv)
    if metadata is not None:
        _write(root, "dev/eng/kenya/metadata.csv", metadata)
    return root


def test_sdqa_reads_and_numbers_lines_for_cr_files(tmp_path):
    rows = [SDQA_HEADER, "0,11,False,who?,who,who", "1,12,False,what?,what,what", "2,,False,x,y,z"]
    text = "".join(row + "\r" for row in rows)
    err = _error(read_sdqa, _sdqa(tmp_path, text))
    assert err.line == 4 and "missing ID" in err.problem


@pytest.mark.parametrize("header, problem", [
    (",ID,in XOR dev,english-gold," + "k" * 300 + "-en-KE", "dialect"),  # used to be ENAMETOOLONG
    (",ID,in XOR dev,english-gold,../../etc-en-KE", "dialect"),          # a folder outside the root
])
def test_sdqa_dialect_columns_that_cannot_be_folder_names_are_format_errors(tmp_path, header, problem):
    err = _error(read_sdqa, _sdqa(tmp_path, header + "\n0,11,False,who?,who\n"))
    assert err.line == 1 and problem in err.problem


def test_sdqa_asked_for_a_dialect_without_columns_is_a_format_error(tmp_path):
    err = _error(read_sdqa, _sdqa(tmp_path, SDQA_HEADER + "\n0,11,False,who?,who,who\n"), dialects=["nga"])
    assert err.line == 1 and "nga" in err.problem


def test_sdqa_huge_field_and_unicode_age_do_not_escape(tmp_path):
    root = _sdqa(tmp_path, SDQA_HEADER + "\n0,11,False,who?,who,who\n",
                 "example_id,user_id,gender,age\n11,u1,female,²\n")
    [question] = [q for q in read_sdqa(root) if q.dialect == "kenya"]
    assert question.speaker_age is None  # "²" is not an age, and not an int() crash
    _write(root, "dev/eng/english.dev.csv", SDQA_HEADER + "\n0,11,False,who?," + "w" * 140_000 + ",who\n")
    assert _error(read_sdqa, root).line == 2


# --------------------------------------------------------------------------------- bounded fuzzing
SEEDS = {
    "conllu": CONLLU * 2,
    "iob": "# sent_id = a\nJohn\tB-PER\nsaw\tO\nParis\tB-LOC\n\nMary\tS-PER\n",
    "labelled": "a text\tpos\nanother text\tneg\n",
    "pairs": "premise\thypothesis\tlabel\na\tb\tentailment\nc\td\tneutral\n",
    "multiple_choice": json.dumps({"flores_passage": "p", "question": "q", "mc_answer1": "a", "mc_answer2": "b",
                                   "mc_answer3": "c", "mc_answer4": "d", "correct_answer_num": "2"}) + "\n",
    "squad": json.dumps({"data": [{"paragraphs": [{"context": "abc def", "qas": [
        {"id": "q1", "question": "?", "answers": [{"text": "def", "answer_start": 4}]}]}]}]}),
    "parallel": "one line\ntwo lines\n",
    "sdqa": SDQA_HEADER + "\n0,11,False,who?,who,who\n1,12,False,what?,what,\n",
}
TOKENS = ["²", "①", "١", "\x00", '"', "\t", "\r", "\r\n", "\n", "\n\n", "#", "-", ".", "0", "-1", "9" * 30, "[",
          "{", "}", "]", "null", ":", ",", "_", "\ufeff", "B-", "x" * 300 + "-en-US", "é"]


@st.composite
def mutated(draw, seed: str) -> bytes:
    text = seed
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "truncate"]))
        token = draw(st.sampled_from(TOKENS) | st.text(max_size=3))
        if op == "insert":
            text = text[:at] + token + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)):]
        elif op == "replace":
            text = text[:at] + token + text[at + 1:]
        else:
            text = text[:at]
    data = text.encode("utf-8", errors="surrogatepass")
    if draw(st.booleans()) and data:  # sometimes a byte that is not UTF-8
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([draw(st.integers(128, 255))]) + data[at + 1:]
    return data


def _read(name: str, folder: Path, data: bytes) -> None:
    if name == "sdqa":
        _write(folder, "dev/eng/english.dev.csv", data)
        list(read_sdqa(folder))
        return
    suffix = {"conllu": ".conllu", "iob": ".bio", "multiple_choice": ".jsonl", "squad": ".json",
              "pairs": ".tsv"}.get(name, ".txt")
    path = _write(folder, "x" + suffix, data)
    readers = {"conllu": read_conllu, "iob": read_iob, "labelled": read_labelled, "pairs": read_pairs,
               "multiple_choice": read_multiple_choice, "squad": read_squad}
    if name == "parallel":
        list(read_parallel(path, _write(folder, "ref.txt", SEEDS["parallel"])))
    else:
        list(readers[name](path))


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_fuzzed_input_raises_nothing_but_a_format_error(name):
    @settings(max_examples=60, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=mutated(SEEDS[name]))
    def check(data: bytes) -> None:
        folder = Path(tempfile.mkdtemp(prefix="fuzz-"))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DataWarning)
                _read(name, folder, data)
        except DataFormatError as err:
            assert err.path.startswith(str(folder))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    check()


def test_data_warnings_print_as_one_plain_line():
    from dialectbench.data.errors import plain_data_warnings

    before = warnings.formatwarning
    try:
        plain_data_warnings()
        plain_data_warnings()  # twice: still one wrapper
        text = warnings.formatwarning(DataWarning("x.conllu:3: word 2 is its own HEAD"), DataWarning, "f.py", 9)
        other = warnings.formatwarning(UserWarning("u"), UserWarning, "f.py", 9)
    finally:
        warnings.formatwarning = before
    assert text == "warning: x.conllu:3: word 2 is its own HEAD\n"
    assert "f.py:9" in other  # other warnings keep Python's format


# ----------------------------------------------------------------- Belebele, reformatted (passages)
PASSAGE = {"text": "the passage", "items": [{"question": "q?", "answers": [
    {"text": "a", "correct": False}, {"text": "b", "correct": True}]}],
    "metadata": {"dataset": "belebele", "extra": {"url": "https://x/1", "language": "eng_Latn"}}}
MAY_BE_NULL = {("metadata",), ("metadata", "extra"), ("metadata", "extra", "url")}


def _locations(value, at=()):
    """Every (path, value) of a JSON structure: the places a wrong-typed value can be put."""
    yield at, value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield from _locations(child, (*at, key))


def _replaced(value, at, new):
    if not at:
        return new
    copy = json.loads(json.dumps(value))
    box = copy
    for key in at[:-1]:
        box = box[key]
    box[at[-1]] = new
    return copy


WRONG = [(at, new) for at, old in _locations(PASSAGE) for new in (None, 1, "s", [], {}, True)
         if type(new) is not type(old) and at not in (("items", 0, "answers", 0, "correct"),
                                                      ("items", 0, "answers", 1, "correct"))
         and at[:1] != ("metadata",) or at in MAY_BE_NULL and new is not None and type(new) is not type(old)]


@pytest.mark.parametrize("at, new", WRONG, ids=[f"{'.'.join(map(str, a)) or 'record'}={json.dumps(n)}"
                                                 for a, n in WRONG])
def test_passages_layout_with_a_wrong_typed_value_anywhere_is_a_format_error_at_its_line(tmp_path, at, new):
    """Derived from the layout's structure: each value, at each depth, replaced by one of another JSON type."""
    lines = [json.dumps(PASSAGE), json.dumps(_replaced(PASSAGE, at, new))]
    err = _error(read_multiple_choice, _write(tmp_path, "mc.jsonl", "\n".join(lines) + "\n"), layout="passages")
    assert err.line == 2 and err.path.endswith("mc.jsonl")


def test_passages_layout_metadata_may_be_absent_null_or_carry_other_members(tmp_path):
    records = [PASSAGE, {**PASSAGE, "metadata": None}, _replaced(PASSAGE, ("metadata", "extra"), None),
               _replaced(PASSAGE, ("metadata", "extra"), {"url": "https://x/2", "other": [1, {}]}),
               {k: v for k, v in PASSAGE.items() if k != "metadata"}]
    path = _write(tmp_path, "mc.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    ids = [ex.example_id for ex in read_multiple_choice(path, layout="passages")]
    assert ids == ["mc:https://x/1#1", "mc:1#1", "mc:2#1", "mc:https://x/2#1", "mc:4#1"]


def test_passages_layout_answers_null_is_named(tmp_path):
    record = _replaced(PASSAGE, ("items", 0, "answers"), None)
    err = _error(read_multiple_choice, _write(tmp_path, "mc.jsonl", json.dumps(record) + "\n"), layout="passages")
    assert err.line == 1 and "'answers' is null, not a list" in err.problem


# ------------------------------------------------------------------------------ size and messages
LONG = "x" * 1_000_000


@pytest.mark.parametrize("name, text, kwargs", [
    ("x.conllu", CONLLU.replace("\t2\tdet", f"\t{LONG}\tdet"), {}),
    ("x.conllu", CONLLU.replace("1\tthe", f"{'1' * 100_000}\tthe"), {}),
    ("x.bio", f"John\tQ-{LONG}\n", {}),
    ("x.tsv", f"a text\t{LONG}\n", {"labels": ["pos"]}),
    ("x.tsv", "\t".join(f"col{i}" for i in range(5000)) + "\nx\n", {"header": True, "text_column": "text"}),
    ("x.jsonl", json.dumps({**PASSAGE, "items": [{"question": "q", "answers": [{"text": LONG, "correct": 1}]}]}),
     {"layout": "passages"}),
])
def test_messages_quote_at_most_about_80_characters_of_the_input(tmp_path, name, text, kwargs):
    reader = {".conllu": read_conllu, ".bio": read_iob, ".tsv": read_labelled, ".jsonl": read_multiple_choice}
    path = _write(tmp_path, name, text)
    err = _error(reader[path.suffix], path, **kwargs)
    assert len(err.problem) < 400, err.problem[:500]


def test_squad_span_mismatch_quotes_are_bounded(tmp_path):
    record = {"id": "q" * 10_000, "context": "c" * 10_000, "question": "?",
              "answers": {"text": ["a" * 10_000], "answer_start": [0]}}
    err = _error(read_squad, _write(tmp_path, "flat.jsonl", json.dumps(record) + "\n"))
    assert err.line == 1 and len(err.problem) < 600 and "10,000 characters" in err.problem


@pytest.mark.parametrize("reader, kwargs", [
    (read_labelled, {"header": True, "text_column": "text", "label_column": "label"}),
    (read_pairs, {}),
    (read_sdqa, {}),
])
def test_a_header_line_over_the_limit_is_refused_before_the_file_is_read(tmp_path, monkeypatch, reader, kwargs):
    data = b"\x00" * (_io.MAX_HEADER + 1) + b"\nmore\n"
    if reader is read_sdqa:
        _write(tmp_path, "dev/eng/english.dev.csv", data)
        target = tmp_path
    else:
        target = _write(tmp_path, "nul.tsv", data)

    def never(*args, **kw):
        raise AssertionError("the whole file was read")
    for module in (_table, __import__("dialectbench.data.readers.sdqa", fromlist=["read_text"])):
        monkeypatch.setattr(module, "read_text", never)
    err = _error(reader, target, **kwargs)
    assert err.line == 1 and "header line is over 65,536 bytes" in err.problem and len(err.problem) < 400


def test_a_header_just_under_the_limit_still_reads(tmp_path):
    header = "text\tlabel\t" + "x" * (_io.MAX_HEADER - 20)
    path = _write(tmp_path, "wide.tsv", header + "\nhello\tpos\tz\n")
    [ex] = read_labelled(path, header=True, text_column="text", label_column="label")
    assert (ex.text, ex.label) == ("hello", "pos")


# ------------------------------------------------------------------------------------- line ends
def test_a_lone_cr_is_a_line_end(tmp_path):
    assert len(list(read_labelled(_write(tmp_path, "a.txt", "aa\rbb\ncc\n"), delimiter=None, label="x"))) == 3
    comment_cr = CONLLU.replace("# text = the cat sat\n", "# text = the cat sat\r")
    [sentence] = read_conllu(_write(tmp_path, "c.conllu", comment_cr))
    assert sentence.words == ("the", "cat", "sat") and sentence.text == "the cat sat"
    [tagged] = read_iob(_write(tmp_path, "w.bio", "John B-PER\rsaw O\nParis B-LOC\n"))
    assert tagged.tokens == ("John", "saw", "Paris") and tagged.tags == ("B-PER", "O", "B-LOC")


EOL_SEEDS = {  # reader -> (file name, LF text, keyword arguments); a seed reads, its "bad" twin fails at a line
    "conllu": ("x.conllu", CONLLU * 3, {}),
    "iob": ("x.bio", "# sent_id = a\nJohn\tB-PER\nsaw\tO\n\nMary\tS-PER\nran\tO\n", {}),
    "labelled": ("x.tsv", "id\ttext\tlabel\n1\ta b\tpos\n\n2\tc d\tneg\n3\te\tpos\n",
                 {"header": True, "text_column": "text", "label_column": "label", "id_column": "id"}),
    "csv": ("x.csv", 'premise,hypothesis,label\n"a, b",c,entailment\nd,"e ""f""",neutral\n', {"delimiter": ","}),
    "lines": ("x.txt", "one\n\ntwo\nthree\n", {"delimiter": None, "label": "z", "keep_empty": True}),
    "jsonl": ("x.jsonl", json.dumps(PASSAGE) + "\n\n" + json.dumps(PASSAGE) + "\n", {"layout": "passages"}),
    "squad": ("x.json", json.dumps(json.loads(SEEDS["squad"]), indent=2) + "\n", {}),
    "parallel": ("x.src", "one\ntwo\n\nfour\n", {}),
    "sdqa": ("dev/eng/english.dev.csv", SDQA_HEADER + "\n0,11,False,who?,who,who\n1,12,False,what?,what,\n", {}),
}
EOL_READERS = {"conllu": read_conllu, "iob": read_iob, "labelled": read_labelled, "csv": read_pairs,
               "lines": read_labelled, "jsonl": read_multiple_choice, "squad": read_squad}


def _with_line_ends(text: str, style: str, rng: random.Random) -> str:
    lines = text.split("\n")
    if style == "mixed":  # a seeded choice per line
        return "".join(line + rng.choice(["\n", "\r\n", "\r"]) for line in lines[:-1]) + lines[-1]
    return text.replace("\n", style)


def _outcome(name: str, folder: Path, text: str):
    file, _, kwargs = EOL_SEEDS[name]
    path = _write(folder, file, text)
    try:
        if name == "parallel":
            return list(read_parallel(path, _write(folder, "x.ref", text)))
        if name == "sdqa":
            return list(read_sdqa(folder))
        return list(EOL_READERS[name](path, **kwargs))
    except DataFormatError as err:
        return ("error", err.line, err.problem)


@pytest.mark.parametrize("style", ["\r\n", "\r", "mixed"])
@pytest.mark.parametrize("name", sorted(EOL_SEEDS))
def test_crlf_cr_and_mixed_line_ends_read_as_lf_does(tmp_path, name, style):
    """Metamorphic: the examples (and, for a broken twin, the error and its line) do not depend on line ends."""
    rng = random.Random(25)
    text = EOL_SEEDS[name][1]
    broken = text.replace("\n", "\n\x00\t{\n", 2)  # a bad line after the first two lines
    for variant in (text, broken):
        expected = _outcome(name, tmp_path / "lf", variant)
        assert _outcome(name, tmp_path / "other", _with_line_ends(variant, style, rng)) == expected
    assert _outcome(name, tmp_path / "lf", text) and not isinstance(_outcome(name, tmp_path / "lf", text), tuple)


def test_sdqa_qa_files_outside_the_released_layout_are_format_errors_not_index_errors(tmp_path):
    from dialectbench.data.readers import read_sdqa_qa

    shallow = _write(tmp_path, "english.dev.csv", SDQA_HEADER + "\n")
    contexts = _write(tmp_path, "c.json", SEEDS["squad"])
    err = _error(read_sdqa_qa, shallow, contexts, dialect="kenya")
    assert err.path == str(shallow) and "released SD-QA layout" in err.problem
    questions = _write(tmp_path, "sd/dev/eng/english.dev.csv", SDQA_HEADER + "\n0,11,False,who?,who,who\n")
    err = _error(read_sdqa_qa, questions, contexts, tmp_path / "elsewhere.csv", dialect="kenya")
    assert err.path.endswith("elsewhere.csv") and "beside its question file" in err.problem
