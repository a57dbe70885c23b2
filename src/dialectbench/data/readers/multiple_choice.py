"""Belebele-style multiple choice: JSON (a list) or JSON Lines records with a passage, a question, the
options mc_answer1..4 and correct_answer_num (1-based, a number or a numeric string)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from dialectbench.data.errors import DataFormatError
from dialectbench.data.examples import MultipleChoiceExample
from dialectbench.data.readers._io import IdMaker, PathLike, ascii_int, existing
from dialectbench.data.readers._json import field, kind, list_field, load_records, text_field

BELEBELE_OPTIONS = ("mc_answer1", "mc_answer2", "mc_answer3", "mc_answer4")


def read_multiple_choice(path: PathLike, *, passage_key: str = "flores_passage", question_key: str = "question",
                         option_keys: Sequence[str] = BELEBELE_OPTIONS,
                         answer_key: str = "correct_answer_num", answer_base: int = 1,
                         id_keys: Sequence[str] = ("link", "question_number"),
                         layout: Literal["questions", "passages"] = "questions") -> Iterator[MultipleChoiceExample]:
    """Yield MultipleChoiceExamples; `answer` is 0-based (the file's number minus `answer_base`).
    layout "passages": one record per passage, `{"text", "items": [{"question", "answers": [{"text",
    "correct"}...]}...], "metadata": {"extra": {"url"}}}` (a re-formatted Belebele copy); the ids are then
    "<file stem>:<url>#<question number>", as the official layout gives them.
    example_id: "<file stem>:<values of id_keys joined by '#'>" when the record has them all (Belebele:
    link and question_number), else "<file stem>:<record index>". A missing field or an answer that is not
    an option number raises DataFormatError."""
    p = existing(path)
    if layout == "passages":
        return _passage_examples(p)
    if layout != "questions":
        raise ValueError(f"unknown multiple-choice layout {layout!r} (questions or passages)")
    return _examples(p, passage_key, question_key, tuple(option_keys), answer_key, answer_base, tuple(id_keys))


def _examples(path: Path, passage_key: str, question_key: str, option_keys: tuple[str, ...], answer_key: str,
              answer_base: int, id_keys: tuple[str, ...]) -> Iterator[MultipleChoiceExample]:
    ids = IdMaker(path)  # two records with one id: the later gets "@<record index>"
    for position, (line, record) in enumerate(load_records(path)):
        where = f"record {position}"
        options = tuple(text_field(path, line, record, key, where) for key in option_keys)
        answer = _answer(path, line, field(path, line, record, answer_key, where), answer_base, len(options),
                         where)
        key = "#".join(_id_part(path, line, record, k, where) for k in id_keys) \
            if id_keys and all(k in record for k in id_keys) else str(position)
        yield MultipleChoiceExample(ids(key, position), text_field(path, line, record, passage_key, where),
                                    text_field(path, line, record, question_key, where), options, answer)


def _id_part(path: Path, line: int | None, record: dict, key: str, where: str) -> str:
    """An id value: a string or a whole number (Belebele's question_number), never a null or a list."""
    value = record[key]
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    raise DataFormatError(path, line, f"{where}: {key!r} is {kind(value)}, not a string or a whole number")


def _answer(path: Path, line: int | None, raw: object, base: int, n_options: int, where: str) -> int:
    number = ascii_int(str(raw).strip()) if isinstance(raw, (str, int)) and not isinstance(raw, bool) else None
    if number is None or not 0 <= number - base < n_options:
        text = str(raw) if isinstance(raw, (str, int)) else type(raw).__name__
        raise DataFormatError(path, line, f"{where}: answer {text[:40]!r} is not an option number "
                                          f"{base}..{n_options - 1 + base}")
    return number - base


def _passage_examples(path: Path) -> Iterator[MultipleChoiceExample]:
    """Every container is checked for its JSON type: a null `answers`, an `items` entry that is a string or a
    `metadata` that is a list is a DataFormatError at its line, never a TypeError (nor a silent skip)."""
    ids, count = IdMaker(path), 0  # two passages with one url: the later questions get "@<question index>"
    for position, (line, record) in enumerate(load_records(path)):
        where = f"record {position}"
        passage = text_field(path, line, record, "text", where)
        items = list_field(path, line, record, "items", where)
        link = _link(path, line, record, where) or str(position)
        for number, item in enumerate(items, 1):
            here = f"{where}, question {number}"
            answers = list_field(path, line, item, "answers", here)
            options = tuple(text_field(path, line, a, "text", f"{here}, answer {i}")
                            for i, a in enumerate(answers, 1))
            correct = [i for i, a in enumerate(answers) if a.get("correct") is True]
            if len(correct) != 1:
                raise DataFormatError(path, line, f"{here}: {len(correct)} answers marked correct (expected 1)")
            count += 1
            yield MultipleChoiceExample(ids(f"{link}#{number}", count - 1), passage,
                                        text_field(path, line, item, "question", here), options, correct[0])


def _link(path: Path, line: int | None, record: dict, where: str) -> str | None:
    """metadata.extra.url, the passage's id in the official layout (None when the record has none)."""
    value: Any = record
    name = ""
    for key, want in (("metadata", dict), ("extra", dict), ("url", str)):
        value, name = value.get(key), f"{name}.{key}" if name else key
        if value is None:
            return None
        if not isinstance(value, want):
            raise DataFormatError(path, line, f"{where}: {name} is {kind(value)}, not "
                                              f"{'an object' if want is dict else 'a string'}")
    return value or None
