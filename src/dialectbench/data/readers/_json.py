"""JSON and JSON Lines records with line numbers for error messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dialectbench.data.errors import DataFormatError
from dialectbench.data.readers._io import numbered_lines, read_text


def load_json(path: Path) -> Any:
    """The parsed document; a syntax error names its line."""
    return _parse(path, read_text(path), None)


def _parse(path: Path, text: str, line: int | None) -> Any:
    """json.loads with every failure as a DataFormatError: syntax errors (with their line), nesting too deep
    for the parser (RecursionError) and integers too long to convert (ValueError)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise DataFormatError(path, err.lineno if line is None else line, f"invalid JSON ({err.msg})") from None
    except RecursionError:
        raise DataFormatError(path, line, "invalid JSON (nested too deeply)") from None
    except ValueError as err:
        raise DataFormatError(path, line, f"invalid JSON ({err})") from None


def load_records(path: Path) -> list[tuple[int | None, dict]]:
    """(line, object) for each record: JSON Lines (one object per line; .jsonl/.ndjson) or a JSON document
    that is a list of objects (line None: JSON gives no positions for parsed values)."""
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return _json_lines(path)
    document = load_json(path)
    if not isinstance(document, list):
        raise DataFormatError(path, 1, "expected a JSON list of objects (or a .jsonl file)")
    records = []
    for position, record in enumerate(document):
        if not isinstance(record, dict):
            raise DataFormatError(path, None, f"item {position} of the list is not an object")
        records.append((None, record))
    return records


def _json_lines(path: Path) -> list[tuple[int | None, dict]]:
    records: list[tuple[int | None, dict]] = []
    for line, content in numbered_lines(read_text(path)):
        if not content.strip():
            continue
        record = _parse(path, content, line)
        if not isinstance(record, dict):
            raise DataFormatError(path, line, "expected a JSON object on this line")
        records.append((line, record))
    return records


def field(path: Path, line: int | None, record: dict, key: str, where: str) -> Any:
    """record[key], or a DataFormatError naming the record when it is missing."""
    if key not in record:
        raise DataFormatError(path, line, f"{where}: missing field {key!r}")
    return record[key]
