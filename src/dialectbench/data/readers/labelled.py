"""Labelled-text reader (dialect identification, sentiment, topic): delimited rows or one text per line.

The real layouts and the options that read them:
- "text<TAB>label", no header (GDI 2017, DMT, ASTD Tweets.txt): the defaults.
- "id<TAB>text<TAB>label" (DSL-TL): text_column=1, id_column=0.
- header rows (AJGT "ID Feed Sentiment", SIB-200 "index_id category text", Saudi bank "... Final annotation",
  MAC "tweets,type,class"): header=True and columns by name; MAC: delimiter=",", where={"class": "dialectal"}.
- "text;label" split on the last ';' (TUNIZI): delimiter=";", split_last=True.
- one text per line, label from the file name (TSAC train_pos.txt, Greek cg_*.txt): delimiter=None, label=...
- index lists into another file (ASTD 4class-*-train.txt): subset=<index file>.
- unlabelled test files (DSL-TL-test, DMT test_unlabeled): label_column=None; the label is "".
Text and labels are stripped of surrounding whitespace.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from dialectbench.data.errors import DataFormatError, shown
from dialectbench.data.examples import TextExample
from dialectbench.data.readers._io import IdMaker, PathLike, ascii_int, existing, numbered_lines, read_text
from dialectbench.data.readers._table import Column, Row, Table, read_table


def read_labelled(path: PathLike, *, text_column: Column = 0, label_column: Column | None = -1,
                  id_column: Column | None = None, delimiter: str | None = "\t", header: bool = False,
                  label: str | None = None, quoting: bool | None = None, split_last: bool = False,
                  keep_empty: bool = False, label_map: Mapping[str, str] | None = None,
                  labels: Collection[str] | None = None,
                  where: Mapping[Column, str | Collection[str]] | None = None,
                  subset: PathLike | Sequence[int] | None = None,
                  encoding: str = "utf-8") -> Iterator[TextExample]:
    """Yield TextExamples from a delimited file or a one-text-per-line file.

    text_column / label_column / id_column: 0-based index (negative from the end) or a header name.
      label_column=None with label=None reads an unlabelled file (label "").
    delimiter: field separator; None = the whole line is the text (then give `label`).
    header: the first non-blank line names the columns.
    label: one label for every row of the file (one-file-per-label layouts); label_column is then unused.
    quoting: CSV-style double quotes; None = only when delimiter is ','.
    split_last: the text (column 0) may contain the delimiter; fields are split off from the right.
    keep_empty: with delimiter=None, blank lines become examples with empty text (else they are skipped).
    label_map: raw label -> label (e.g. ASTD "POS" -> "positive"); labels: allowed labels after mapping.
    where: keep only rows whose raw value in a column is the given value (or one of the values).
    subset: 0-based data-row indices (header excluded), a sequence or a file with one index per line;
      rows are yielded in subset order.
    example_id: "<file stem>:<id column value>" or "<file stem>:<data-row index>".
    Malformed rows (wrong field count, missing or unknown label) raise DataFormatError.
    """
    p = existing(path)
    if delimiter is None:
        table = _line_table(p, keep_empty, encoding)
    else:
        table = read_table(p, delimiter=delimiter, header=header, quoting=quoting, encoding=encoding)
    spec = _Spec.build(p, table, text_column, None if label is not None else label_column, id_column,
                       where, split_last, delimiter or "")
    rows = _select(table.rows, subset, p) if subset is not None else table.rows
    return _examples(p, rows, spec, table.width, label, label_map, labels)


@dataclass(frozen=True)
class _Spec:
    """Resolved column indices and filters."""

    text: int
    label: int | None
    ident: int | None
    where: list[tuple[int, frozenset[str]]]
    split_last: bool
    delimiter: str

    @classmethod
    def build(cls, path: Path, table: Table, text: Column, label: Column | None, ident: Column | None,
              where: Mapping[Column, str | Collection[str]] | None, split_last: bool, delimiter: str) -> _Spec:
        if table.width is None:
            return cls(0, None, None, [], split_last, delimiter)
        conditions = [(table.column(path, col, "where"),
                       frozenset([want] if isinstance(want, str) else want))
                      for col, want in (where or {}).items()]
        spec = cls(table.column(path, text, "text"),
                   None if label is None else table.column(path, label, "label"),
                   None if ident is None else table.column(path, ident, "id"), conditions, split_last, delimiter)
        if split_last and spec.text != 0:
            raise DataFormatError(path, 1, f"split_last needs the text in column 0 (the text column is {spec.text})")
        if spec.label == spec.text:
            raise DataFormatError(path, 1, f"the label column is the text column (rows have {table.width} "
                                           "field(s)); give label=..., label_column=None or a delimiter")
        return spec


def _line_table(path: Path, keep_empty: bool, encoding: str) -> Table:
    rows = [Row(line, index, [content]) for index, (line, content) in
            enumerate(numbered_lines(read_text(path, encoding))) if keep_empty or content.strip()]
    return Table(None, rows, 1)


def _select(rows: list[Row], subset: PathLike | Sequence[int], path: Path) -> list[Row]:
    by_index = {row.index: row for row in rows}
    picked = []
    for source, line, index in _subset_indices(subset):
        if index not in by_index:
            where = source if source is not None else path
            raise DataFormatError(where, line, f"row index {index} is not a data row of {path.name}")
        picked.append(by_index[index])
    return picked


def _subset_indices(subset: PathLike | Sequence[int]) -> Iterator[tuple[Path | None, int | None, int]]:
    if isinstance(subset, (str, Path)):
        source = existing(subset)
        for line, content in numbered_lines(read_text(source)):
            if content.strip():
                index = ascii_int(content.strip())
                if index is None:
                    raise DataFormatError(source, line, f"expected a row index, found {shown(content.strip())}")
                yield source, line, index
    else:
        for index in subset:
            yield None, None, int(index)


def _examples(path: Path, rows: list[Row], spec: _Spec, width: int | None, label: str | None,
              label_map: Mapping[str, str] | None, labels: Collection[str] | None) -> Iterator[TextExample]:
    ids = IdMaker(path)  # an id column that repeats a value: the later rows get "@<row index>", not one id
    for row in rows:
        fields = _fit(path, row, width, spec)
        if any(fields[col].strip() not in want for col, want in spec.where):
            continue
        value = label if label is not None else _label(path, row, fields, spec)
        if label_map is not None:
            value = label_map.get(value, value)
        if labels is not None and value not in labels:
            raise DataFormatError(path, row.line, f"label {shown(value)} is not one of {sorted(labels)}")
        key = fields[spec.ident].strip() if spec.ident is not None else None
        yield TextExample(ids(key, row.index), fields[spec.text].strip(), value)


def _fit(path: Path, row: Row, width: int | None, spec: _Spec) -> list[str]:
    fields = row.fields
    if width is None or len(fields) == width:
        return fields
    if len(fields) > width and spec.split_last:
        cut = len(fields) - width + 1
        return [spec.delimiter.join(fields[:cut])] + fields[cut:]
    if len(fields) < width and spec.label is not None and spec.label >= len(fields):
        raise DataFormatError(path, row.line, f"missing label (row has {len(fields)} fields, expected {width})")
    raise DataFormatError(path, row.line, f"expected {width} fields, found {len(fields)}")


def _label(path: Path, row: Row, fields: list[str], spec: _Spec) -> str:
    if spec.label is None:
        return ""
    value = fields[spec.label].strip()
    if not value:
        raise DataFormatError(path, row.line, "missing label (empty label field)")
    return value
