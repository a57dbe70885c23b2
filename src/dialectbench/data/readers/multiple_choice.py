"""Belebele-style multiple choice: JSON (a list) or JSON Lines records with a passage, a question, the
options mc_answer1..4 and correct_answer_num (1-based, a number or a numeric string)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from dialectbench.data.errors import DataFormatError
from dialectbench.data.examples import MultipleChoiceExample
from dialectbench.data.readers._io import PathLike, ascii_int, existing
from dialectbench.data.readers._json import field, load_records

BELEBELE_OPTIONS = ("mc_answer1", "mc_answer2", "mc_answer3", "mc_answer4")


def read_multiple_choice(path: PathLike, *, passage_key: str = "flores_passage", question_key: str = "question",
                         option_keys: Sequence[str] = BELEBELE_OPTIONS,
                         answer_key: str = "correct_answer_num", answer_base: int = 1,
                         id_keys: Sequence[str] = ("link", "question_number"),
                         layout: str = "questions") -> Iterator[MultipleChoiceExample]:
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
    for position, (line, record) in enumerate(load_records(path)):
        where = f"record {position}"
        options = tuple(str(field(path, line, record, key, where)) for key in option_keys)
        answer = _answer(path, line, field(path, line, record, answer_key, where), answer_base, len(options),
                         where)
        key = "#".join(str(record[k]) for k in id_keys) if id_keys and all(k in record for k in id_keys) \
            else str(position)
        yield MultipleChoiceExample(f"{path.stem}:{key}", str(field(path, line, record, passage_key, where)),
                                    str(field(path, line, record, question_key, where)), options, answer)


def _answer(path: Path, line: int | None, raw: object, base: int, n_options: int, where: str) -> int:
    number = ascii_int(str(raw).strip()) if isinstance(raw, (str, int)) and not isinstance(raw, bool) else None
    if number is None or not 0 <= number - base < n_options:
        shown = str(raw) if isinstance(raw, (str, int)) else type(raw).__name__
        raise DataFormatError(path, line, f"{where}: answer {shown[:40]!r} is not an option number "
                                          f"{base}..{n_options - 1 + base}")
    return number - base



def _passage_examples(path: Path) -> Iterator[MultipleChoiceExample]:
    for position, (line, record) in enumerate(load_records(path)):
        where = f"record {position}"
        passage = str(field(path, line, record, "text", where))
        items = field(path, line, record, "items", where)
        extra = (record.get("metadata") or {}).get("extra") or {}
        link = str(extra.get("url") or position)
        for number, item in enumerate(items if isinstance(items, list) else [], 1):
            here = f"{where}, question {number}"
            answers = field(path, line, item, "answers", here)
            correct = [i for i, a in enumerate(answers) if isinstance(a, dict) and a.get("correct") is True]
            if len(correct) != 1:
                raise DataFormatError(path, line, f"{here}: {len(correct)} answers marked correct (expected 1)")
            options = tuple(str(field(path, line, a, "text", here)) for a in answers)
            yield MultipleChoiceExample(f"{path.stem}:{link}#{number}", passage,
                                        str(field(path, line, item, "question", here)), options, correct[0])
