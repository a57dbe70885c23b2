"""An audit of the SD-QA speaker metadata (`<split>/<lang>/<dialect>/metadata.csv`): what the reader
cannot use is counted per dialect and reported, never dropped in silence.

The reader (`dialectbench.data.readers.sdqa`) turns these values into a missing speaker field; the WER
breakdowns then put those utterances in the group "unknown". This module says how many there were and why:
ages that are not a plausible age (a year such as 2021, "na", empty, non-digits), genders that are missing,
questions recorded more than once, and repeated recordings whose speakers disagree (the field is then
unknown for that question)."""

from __future__ import annotations

import csv
import io
import unicodedata
from collections import Counter
from pathlib import Path

from dialectbench.data.errors import DataFormatError

_MISSING = {"", "na", "n/a", "nan", "none", "null"}
COLUMNS = ("lang", "dialect", "recordings", "questions", "recorded_twice", "age_missing", "age_invalid",
           "gender_missing", "conflicting", "invalid_examples")


def _age_ok(text: str) -> bool:
    # ASCII digits only: str.isdigit() also accepts "²" or Bengali digits, which int() may not read as an age
    return text.isascii() and text.isdigit() and 1 <= int(text) <= 120


def audit_metadata(path: Path | str, lang: str, dialect: str) -> dict:
    """Counts of unusable speaker fields in one metadata.csv (an absent file gives zeros)."""
    p = Path(path)
    rec = dict.fromkeys(COLUMNS, 0) | {"lang": lang, "dialect": dialect, "invalid_examples": ""}
    if not p.is_file():
        return rec
    text = unicodedata.normalize("NFC", p.read_bytes().decode("utf-8", errors="replace")).removeprefix("\ufeff")
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    need = ("example_id", "gender", "age")
    if header is None or any(c not in header for c in need):
        raise DataFormatError(p, 1, f"metadata header needs columns {', '.join(need)}")
    idx = {c: header.index(c) for c in (*need, "user_id") if c in header}
    seen: dict[str, list[tuple]] = {}
    invalid: Counter = Counter()
    for fields in reader:
        line = reader.line_num
        if not any(f.strip() for f in fields):
            continue
        if len(fields) != len(header):
            raise DataFormatError(p, line, f"expected {len(header)} fields, found {len(fields)}")
        qid, gender, age = (fields[idx[c]].strip() for c in need)
        rec["recordings"] += 1
        if age.lower() in _MISSING:
            rec["age_missing"] += 1
        elif not _age_ok(age):
            rec["age_invalid"] += 1
            invalid[age] += 1
        if gender.lower() in _MISSING:
            rec["gender_missing"] += 1
        user = fields[idx["user_id"]].strip() if "user_id" in idx else ""
        seen.setdefault(qid, []).append((gender, age, user))
    rec["questions"] = len(seen)
    rec["recorded_twice"] = sum(len(v) > 1 for v in seen.values())
    rec["conflicting"] = sum(len({(g, a) for g, a, _ in v}) > 1 for v in seen.values())
    rec["invalid_examples"] = " ".join(f"{v}x{n}" if n > 1 else v for v, n in invalid.most_common(5))
    return rec


def audit_corpus(root: Path | str, lang: str, split: str, dialects: list[str]) -> list[dict]:
    folder = Path(root) / split / lang
    return [audit_metadata(folder / d / "metadata.csv", lang, d) for d in dialects]
