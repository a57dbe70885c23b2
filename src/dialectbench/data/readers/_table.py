"""Delimited-text rows with line numbers, shared by the labelled-text and sentence-pair readers."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from dialectbench.data.errors import DataFormatError, near, shown
from dialectbench.data.readers._io import check_header, numbered_lines, read_text

Column = int | str


@dataclass(frozen=True)
class Row:
    line: int  # 1-based physical line where the row starts
    index: int  # 0-based data-row index (header excluded, blank lines counted): stable ids and subsets
    fields: list[str]


@dataclass
class Table:
    header: list[str] | None
    rows: list[Row]
    width: int | None  # number of fields every row should have (header's or first row's), None if empty

    def column(self, path: Path, column: Column, what: str) -> int:
        """Resolve a column name (needs a header) or index (negative counts from the end) to an index."""
        if isinstance(column, str):
            if self.header is None:
                raise DataFormatError(path, 1, f"{what} column {shown(column)} is named but the file has no header")
            if column not in self.header:
                raise DataFormatError(path, 1, f"{what} column {shown(column)} not in header "
                                               f"{_columns(self.header)}{near(column, self.header)}")
            return self.header.index(column)
        width = self.width or 0
        index = column + width if column < 0 else column
        if not 0 <= index < max(width, 1):
            raise DataFormatError(path, 1, f"{what} column {column} does not exist (rows have {width} fields)")
        return index


def read_table(path: Path, *, delimiter: str, header: bool, quoting: bool | None,
               encoding: str = "utf-8") -> Table:
    """All rows of a delimited file. quoting None = CSV-style quotes only when the delimiter is ','.
    Blank lines are skipped but counted in `Row.index`."""
    if header:
        check_header(path)
    text = read_text(path, encoding)
    use_quotes = delimiter == "," if quoting is None else quoting
    raw = _quoted_rows(path, text, delimiter) if use_quotes else _plain_rows(text, delimiter)
    head: list[str] | None = None
    rows: list[Row] = []
    index = 0
    for line, fields in raw:
        if head is None and header:
            head = [f.strip() for f in fields] if fields is not None else None
            if head is None:
                raise DataFormatError(path, line, "expected a header row, found a blank line")
            continue
        if fields is not None:
            rows.append(Row(line, index, fields))
        index += 1
    width = len(head) if head is not None else (len(rows[0].fields) if rows else None)
    return Table(head, rows, width)


def _columns(header: list[str]) -> str:
    """The header's names for a message, at most ~80 characters of them."""
    text = ", ".join(repr(name) for name in header[:20])
    return f"[{shown(text, quote=False)}{', ...' if len(header) > 20 else ''}] ({len(header)} columns)"


def _plain_rows(text: str, delimiter: str) -> Iterator[tuple[int, list[str] | None]]:
    for line, content in numbered_lines(text):
        yield line, (content.split(delimiter) if content.strip() else None)


def _quoted_rows(path: Path, text: str, delimiter: str) -> Iterator[tuple[int, list[str] | None]]:
    for line, fields in csv_rows(path, text, delimiter):
        yield line, (fields if any(f.strip() for f in fields) else None)


def csv_rows(path: Path, text: str, delimiter: str = ",") -> Iterator[tuple[int, list[str]]]:
    """(line where the record starts, fields) of `read_text`'s CSV text (every line end is "\n" there, also
    inside quoted fields), and every csv.Error (bad quoting, a field over csv's 131,072-character limit, a
    NUL) is a DataFormatError at the line it is on."""
    reader = csv.reader(io.StringIO(text, newline="\n"), delimiter=delimiter, strict=True)
    line = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            raise DataFormatError(path, reader.line_num or line, f"bad CSV ({err})") from None
        yield line, fields
        line = reader.line_num + 1
