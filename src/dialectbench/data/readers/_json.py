"""JSON and JSON Lines records with line numbers for error messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dialectbench.data.errors import DataFormatError
from dialectbench.data.readers._io import numbered_lines, read_text


def load_json(path: Path) -> Any:
    """The parsed document; a syntax error names its line."""
    return _parse(path, read_text(path, max_line=None), None)  # a document may be one long line


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


def field(path: Path, line: int | None, record: Any, key: str, where: str) -> Any:
    """record[key], or a DataFormatError naming the record when it is missing or not an object."""
    if not isinstance(record, dict):
        raise DataFormatError(path, line, f"{where}: expected an object, found {kind(record)}")
    if key not in record:
        raise DataFormatError(path, line, f"{where}: missing field {key!r}")
    return record[key]


def kind(value: Any) -> str:
    """What a JSON value is, for messages ("a list", "null")."""
    return "null" if value is None else {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
                                          int: "a number", float: "a number"}.get(type(value), "a value")


def text_field(path: Path, line: int | None, record: Any, key: str, where: str) -> str:
    """record[key] when it is a string; else a DataFormatError (a null or a list must not become "None")."""
    value = field(path, line, record, key, where)
    if not isinstance(value, str):
        raise DataFormatError(path, line, f"{where}: {key!r} is {kind(value)}, not a string")
    return value


def list_field(path: Path, line: int | None, record: Any, key: str, where: str) -> list:
    """record[key] when it is a list; else a DataFormatError."""
    value = field(path, line, record, key, where)
    if not isinstance(value, list):
        raise DataFormatError(path, line, f"{where}: {key!r} is {kind(value)}, not a list")
    return value
