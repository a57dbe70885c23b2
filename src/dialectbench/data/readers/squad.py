"""Extractive QA in SQuAD / TyDi-GoldP JSON, with every answer span checked against its context.

Accepted layouts: the SQuAD document {"data": [{"paragraphs": [{"context", "qas": [{"id", "question",
"answers": [{"text", "answer_start"}]}]}]}]}, and flat records (JSON list or JSON Lines, the Hugging Face
layout) {"id", "context", "question", "answers": {"text": [...], "answer_start": [...]}} (answers may also be
a list of {"text", "answer_start"}). Unanswerable questions (no answers) are kept with empty answers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dialectbench.data.errors import QUOTE_LIMIT, DataFormatError, shown
from dialectbench.data.examples import QAExample
from dialectbench.data.readers._io import PathLike, existing, read_text
from dialectbench.data.readers._json import field as _need
from dialectbench.data.readers._json import kind, load_json, load_records


def read_squad(path: PathLike, *, check_spans: bool = True) -> Iterator[QAExample]:
    """Yield QAExamples; example_id is "<file stem>:<question id>".

    check_spans: an answer whose text is not at `answer_start` in the context raises DataFormatError naming
    the file, the line of the question's id (when it can be found) and the example.
    """
    p = existing(path)
    return _examples(p, check_spans)


def _examples(path: Path, check_spans: bool) -> Iterator[QAExample]:
    seen: set[str] = set()
    for line, record, context in _records(path):
        qid = _scalar(path, line, _need(path, line, record, "id", "question"), "question id")
        where = f"example {qid!r}" if len(qid) <= QUOTE_LIMIT else f"example {shown(qid)}"  # per example: cheap
        if qid in seen:
            raise DataFormatError(path, line or _line_of(path, qid), f"{where}: duplicate question id")
        seen.add(qid)
        if context is None:
            context = _text(path, line, _need(path, line, record, "context", where), f"{where}: context")
        texts, starts = _answers(path, line, record, where)
        if check_spans:
            _check(path, line, qid, context, texts, starts)
        question = _text(path, line, _need(path, line, record, "question", where), f"{where}: question")
        yield QAExample(f"{path.stem}:{qid}", context, question, texts, starts)


def _records(path: Path) -> Iterator[tuple[int | None, dict, str | None]]:
    """(line, question record, context or None when the record carries its own)."""
    if path.suffix.lower() == ".json":
        document = load_json(path)
        if isinstance(document, dict) and "data" in document:
            for a, article in enumerate(_list(path, document["data"], "data")):
                for paragraph in _list(path, _need(path, None, article, "paragraphs", f"article {a}"),
                                       "paragraphs"):
                    context = _text(path, None, _need(path, None, paragraph, "context", "paragraph"),
                                    "paragraph context")
                    for qa in _list(path, _need(path, None, paragraph, "qas", "paragraph"), "qas"):
                        yield None, qa, context
            return
    for line, record in load_records(path):
        yield line, record, None


def _list(path: Path, value: Any, name: str) -> list:
    if not isinstance(value, list):
        raise DataFormatError(path, None, f"expected a list under {name!r}")
    return value


def _text(path: Path, line: int | None, value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise DataFormatError(path, line, f"{what} is {kind(value)}, not a string")
    return value


def _scalar(path: Path, line: int | None, value: Any, what: str) -> str:
    """An id: a string or an integer (some exports write numeric ids), as text."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise DataFormatError(path, line, f"{what} is {kind(value)}, not a string")
    return str(value)


def _answers(path: Path, line: int | None, record: dict, where: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    answers = record.get("answers", [])
    if isinstance(answers, dict):  # Hugging Face: {"text": [...], "answer_start": [...]}
        texts = _list_field(path, line, answers.get("text", []), f"{where}: answers.text")
        starts = _list_field(path, line, answers.get("answer_start", []), f"{where}: answers.answer_start")
        if len(texts) != len(starts):
            raise DataFormatError(path, line, f"{where}: {len(texts)} answer texts but {len(starts)} starts")
    elif isinstance(answers, list):
        texts = [_need(path, line, a, "text", f"{where}: answer") for a in answers]
        starts = [_need(path, line, a, "answer_start", f"{where}: answer") for a in answers]
    else:
        raise DataFormatError(path, line, f"{where}: answers is {kind(answers)}, not a list or an object")
    texts = [_text(path, line, t, f"{where}: answer text") for t in texts]
    for start in starts:
        if not isinstance(start, int) or isinstance(start, bool):
            raise DataFormatError(path, line, f"{where}: answer_start is {kind(start)}, not an integer")
    return tuple(texts), tuple(starts)


def _list_field(path: Path, line: int | None, value: Any, what: str) -> list:
    if not isinstance(value, list):
        raise DataFormatError(path, line, f"{what} is {kind(value)}, not a list")
    return value


def _check(path: Path, line: int | None, qid: str, context: str, texts: tuple[str, ...],
           starts: tuple[int, ...]) -> None:
    for text, start in zip(texts, starts):
        found = context[start:start + len(text)] if 0 <= start <= len(context) else ""
        if found != text:
            raise DataFormatError(path, line or _line_of(path, qid),
                                  f"example {shown(qid)}: answer {shown(text)} does not match the context at "
                                  f"answer_start {start} (context there: {shown(found)})")


def _line_of(path: Path, qid: str) -> int | None:
    """Line of '"id": <qid>' in the file, so a SQuAD document's error can point at the question."""
    pattern = re.compile(r'"id"\s*:\s*' + re.escape(json.dumps(qid)))
    text = read_text(path, max_line=None)
    match = pattern.search(text)
    return None if match is None else text.count("\n", 0, match.start()) + 1
