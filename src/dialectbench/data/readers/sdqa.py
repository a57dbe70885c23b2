"""SD-QA (Faisal et al. 2021) text layout: gold questions, per-dialect ASR transcripts, speaker metadata.

<root>/<split>/<lang>/<language>.<split>.csv has a leading unnamed index column, "ID" (the TyDi example id),
the XOR-TyDi subset marker "in XOR <split>" ("in XOR dev", "in XOR test"), "<language>-gold", then one column
per dialect and ASR model, named "<dialect>-<locale>" (in any order):
"kenya-en-KE" is the Kenyan recording transcribed by the localized en-KE model, "kenya-en-US" by the general
en-US model (dialect folder names use "_", never "-": "ind_n-en-IN").
<root>/<split>/<lang>/<dialect>/metadata.csv has one row per recording (example_id, user_id, gender, age...).
An (example, dialect) is yielded when it was recorded (its id is in the dialect's metadata) or has a
transcript; a recorded question whose ASR output is empty keeps "" for that model (the system heard nothing,
which scores as an error), while questions never recorded (Kenyan English: 28) are skipped. Without a
metadata file, "recorded" means "has a non-empty transcript".
Speaker fields are joined by example id; "na"/"n/a"/empty and ages outside 1-120 (e.g. "2021") become None,
and when a question was recorded more than once by speakers who differ in a field, that field is None.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from pathlib import Path, PurePath

from dialectbench.data.errors import DataFormatError, shown
from dialectbench.data.examples import QAExample, SpokenQuestion
from dialectbench.data.readers._io import PathLike, ascii_int, check_header, existing, read_text
from dialectbench.data.readers._table import csv_rows
from dialectbench.data.readers.squad import read_squad

_FIXED = ("", "ID")
_SPLIT_MARKER = re.compile(r"in XOR \S+")  # "in XOR dev" / "in XOR test": which rows XOR-TyDi also holds
_MISSING = {"", "na", "n/a", "nan", "none", "null"}
_DIALECT = re.compile(r"[A-Za-z0-9_]{1,64}")  # a dialect names a folder: no separators, no "..", short


@dataclass(frozen=True)
class _Speaker:
    speaker_id: str | None
    gender: str | None
    age: str | None


def read_sdqa(root: PathLike, lang: str = "eng", split: str = "dev", *,
              dialects: Collection[str] | None = None, keep_missing: bool = False) -> Iterator[SpokenQuestion]:
    """Yield one SpokenQuestion per (example, dialect), example by example in file order.

    root: the SD-QA folder (holding <split>/<lang>/); lang: "eng", "swa", ... (the folder name).
    dialects: only these dialect folders (default: every dialect with a transcript column).
    keep_missing: also yield (example, dialect) pairs never recorded (with empty `transcripts`).
    example_id is the dataset's TyDi "ID", shared by all dialects of a question; `transcripts` maps the ASR
    locale ("en-US", "en-KE") to its text. Bad layout raises DataFormatError; a missing folder,
    FileNotFoundError.
    """
    folder = Path(root) / split / lang
    table = _question_file(folder, split)
    header, rows = _rows(table)
    gold, columns = _columns(table, header)
    wanted = set(columns) if dialects is None else set(dialects)
    unknown = wanted - set(columns)
    if unknown:
        raise DataFormatError(table, 1, f"no transcript columns for dialect(s) "
                                        f"{shown(', '.join(sorted(unknown)), quote=False)}; available: "
                                        f"{shown(', '.join(sorted(columns)), quote=False)}")
    speakers = {d: _speakers(folder / d / "metadata.csv") for d in columns if d in wanted}
    return _questions(table, header, rows, gold, {d: columns[d] for d in columns if d in wanted}, speakers,
                      keep_missing)


def sdqa_dialects(root: PathLike, lang: str = "eng", split: str = "dev") -> list[str]:
    """The dialects with transcript columns in the question file, in column order."""
    table = _question_file(Path(root) / split / lang, split)
    header, _ = _rows(table)
    return list(_columns(table, header)[1])


def _question_file(folder: Path, split: str) -> Path:
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such SD-QA folder")
    found = sorted(folder.glob(f"*.{split}.csv"))
    if len(found) != 1:
        raise FileNotFoundError(f"{folder}: expected one <language>.{split}.csv, found {[f.name for f in found]}")
    return found[0]


def _rows(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    check_header(path)
    rows = list(csv_rows(path, read_text(path)))
    if not rows:
        raise DataFormatError(path, 1, "empty file (expected a header row)")
    return rows[0][1], [r for r in rows[1:] if any(f.strip() for f in r[1])]


def _columns(path: Path, header: list[str]) -> tuple[int, dict[str, dict[str, int]]]:
    """Index of the gold column and {dialect: {ASR locale: column index}}."""
    if "ID" not in header:
        raise DataFormatError(path, 1, "no 'ID' column in the header")
    golds = [i for i, name in enumerate(header) if name.endswith("-gold")]
    if len(golds) != 1:
        raise DataFormatError(path, 1, f"expected one '<language>-gold' column, found {len(golds)}")
    columns: dict[str, dict[str, int]] = {}
    for i, name in enumerate(header):
        if name in _FIXED or i == golds[0] or _SPLIT_MARKER.fullmatch(name):
            continue
        dialect, dash, model = name.partition("-")
        if not dash or not model or not _DIALECT.fullmatch(dialect):
            raise DataFormatError(path, 1, f"column {name[:80]!r} is not '<dialect>-<ASR locale>' (a dialect is "
                                           "1-64 letters, digits or '_')")
        columns.setdefault(dialect, {})[model] = i
    return golds[0], columns


def _questions(path: Path, header: list[str], rows: list[tuple[int, list[str]]], gold: int,
               columns: dict[str, dict[str, int]], speakers: dict[str, dict[str, _Speaker]],
               keep_missing: bool) -> Iterator[SpokenQuestion]:
    id_col, seen = header.index("ID"), set()
    for line, fields in rows:
        if len(fields) != len(header):
            raise DataFormatError(path, line, f"expected {len(header)} fields, found {len(fields)}")
        qid, question = fields[id_col].strip(), fields[gold].strip()
        if not qid or not question:
            raise DataFormatError(path, line, "missing ID or gold question")
        if qid in seen:
            raise DataFormatError(path, line, f"duplicate ID {shown(qid)}")
        seen.add(qid)
        for dialect, models in columns.items():
            transcripts = {m: fields[i].strip() for m, i in models.items()}
            recorded = qid in speakers[dialect] or any(transcripts.values())
            if recorded or keep_missing:
                if not recorded:
                    transcripts = {}
                who = speakers[dialect].get(qid, _Speaker(None, None, None))
                yield SpokenQuestion(qid, dialect, question, transcripts, speaker_gender=who.gender,
                                     speaker_age=who.age, speaker_id=who.speaker_id)


def _speakers(path: Path) -> dict[str, _Speaker]:
    """example_id -> speaker, from a dialect's metadata.csv (empty when the file is absent)."""
    if not path.is_file():
        return {}
    header, rows = _rows(path)
    need = ("example_id", "user_id", "gender", "age")
    missing = [c for c in need if c not in header]
    if missing:
        raise DataFormatError(path, 1, f"missing column(s) {', '.join(missing)} in the header")
    index = [header.index(c) for c in need]
    grouped: dict[str, list[_Speaker]] = {}
    for line, fields in rows:
        if len(fields) != len(header):
            raise DataFormatError(path, line, f"expected {len(header)} fields, found {len(fields)}")
        qid, user, gender, age = (fields[i].strip() for i in index)
        grouped.setdefault(qid, []).append(_Speaker(_value(user), _value(gender), _age(age)))
    return {qid: _agree(found) for qid, found in grouped.items()}


def _value(text: str) -> str | None:
    return None if text.lower() in _MISSING else text


def _age(text: str) -> str | None:
    age = ascii_int(text)
    return text if age is not None and 1 <= age <= 120 else None


def _agree(found: list[_Speaker]) -> _Speaker:
    """One speaker per example: each field kept only where every recording of the example agrees."""
    def same(values: list[str | None]) -> str | None:
        return values[0] if len(set(values)) == 1 else None
    return _Speaker(same([s.speaker_id for s in found]), same([s.gender for s in found]),
                    same([s.age for s in found]))


def read_sdqa_qa(questions: PathLike, contexts: PathLike, metadata: PathLike | None = None, *, dialect: str,
                 asr_locale: str | None = None) -> Iterator[QAExample]:
    """The catalogue's `sdqa` format: one dialect's SD-QA transcripts joined to their TyDi QA GoldP passage
    and answers (`contexts`, SQuAD JSON); the question is the `asr_locale` transcript (default: the first).
    `questions` and `metadata` must lie in the released layout (`layout_problems`); example_id is
    "<TyDi id>:<dialect>"."""
    files = {"questions": PurePath(questions), "metadata": None if metadata is None else PurePath(metadata)}
    for arg, problem in layout_problems(files["questions"], files["metadata"], dialect):
        raise DataFormatError(files[arg] or questions, None, problem)
    return _joined(existing(questions), existing(contexts), dialect, asr_locale)


def _joined(questions: Path, contexts: Path, dialect: str, asr_locale: str | None) -> Iterator[QAExample]:
    gold = {_tydi_key(ex.example_id): ex for ex in read_squad(contexts)}
    root, lang, split = questions.parents[2], questions.parent.name, questions.parent.parent.name
    for sq in read_sdqa(root, lang, split, dialects=[dialect]):
        qa = gold.get(sq.example_id)
        if qa is not None:
            text = sq.transcripts.get(asr_locale, "") if asr_locale else next(iter(sq.transcripts.values()), "")
            yield QAExample(f"{sq.example_id}:{dialect}", qa.context, text, qa.answers, qa.answer_starts)


def read_goldp(path: PathLike, questions: PathLike, *, check_spans: bool = True) -> Iterator[QAExample]:
    """The catalogue's `goldp` format: SD-QA's gold-passage examples (SQuAD JSON, ids
    "<language>-<TyDi id>-<dialect>"), each with the typed question (`QAExample.typed_question`) of the SD-QA
    question file `questions` ("<language>-gold" column, released layout), joined by TyDi id ("" where the
    file has none). The typed questions train EQA's cross-fitted reader (backends/crossfit.py)."""
    q = PurePath(questions)
    for _, problem in layout_problems(q, None, "_"):
        raise DataFormatError(questions, None, problem)
    return _typed(existing(path), existing(questions), check_spans)


def _typed(path: Path, questions: Path, check_spans: bool) -> Iterator[QAExample]:
    root, lang, split = questions.parents[2], questions.parent.name, questions.parent.parent.name
    first = sdqa_dialects(root, lang, split)[:1]
    typed = {sq.example_id: sq.question for sq in read_sdqa(root, lang, split, dialects=first, keep_missing=True)}
    for ex in read_squad(path, check_spans=check_spans):
        qid = ex.example_id.split(":", 1)[-1]
        tydi = qid.split("-", 1)[-1].rpartition("-")[0]  # ids may be negative: "english--598...-usa"
        yield replace(ex, typed_question=typed.get(tydi, ""))


def layout_problems(questions: PurePath, metadata: PurePath | None, dialect: str) -> list[tuple[str, str]]:
    """(file argument, problem) where `read_sdqa_qa`'s files are not in the released layout
    <root>/<split>/<lang>/<language>.<split>.csv and <root>/<split>/<lang>/<dialect>/metadata.csv (read_sdqa
    finds the files by that layout, so a file elsewhere would be silently ignored)."""
    parts = questions.parts
    if len(parts) < 3 or not questions.name.endswith(f".{parts[-3]}.csv"):
        return [("questions", f"{shown(str(questions))} is not <root>/<split>/<lang>/<language>.<split>.csv "
                 + "(the released SD-QA layout, e.g. sd-qa/dev/eng/english.dev.csv)")]
    expected = questions.parent / dialect / "metadata.csv"
    if metadata is not None and metadata != expected:
        return [("metadata", f"{shown(str(metadata))} is not {shown(str(expected))} (the dialect's metadata "
                 + "beside its question file)")]
    return []


def goldp_question(example_id: str) -> str | None:
    """The SD-QA question a `goldp` example is, shared by every dialect's recording of it: "<language>-<TyDi
    id>" from "<file stem>:<language>-<TyDi id>-<dialect>" when the stem ends with the same "-<dialect>"
    (sdqa-dev-english-aus.json); None for an id of another shape."""
    stem, colon, qid = example_id.partition(":")
    head, dash, dialect = qid.rpartition("-")
    if not colon or not dash or not dialect or "-" not in head or not stem.endswith(f"-{dialect}"):
        return None
    language, _, tydi = head.partition("-")
    return head if language and tydi.lstrip("-").isdigit() else None


def sdqa_question(example_id: str) -> str | None:
    """The TyDi id of an `sdqa` example ("<TyDi id>:<dialect>", read_sdqa_qa), or None for another shape."""
    tydi, colon, dialect = example_id.rpartition(":")
    return tydi if colon and dialect and tydi.lstrip("-").isdigit() else None


def _tydi_key(example_id: str) -> str:
    """TyDi GoldP ids ("<stem>:english-<id>-<n>", ids may be negative) -> the SD-QA id."""
    qid = example_id.split(":", 1)[-1]
    qid = qid.split("-", 1)[1] if "-" in qid and not qid.startswith("-") else qid
    head, _, tail = qid.rpartition("-")
    return head if head and tail.isdigit() else qid
