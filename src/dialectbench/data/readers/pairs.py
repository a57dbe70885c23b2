"""Sentence-pair reader (NLI): delimited text with a header, or JSON / JSON Lines records."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

from dialectbench.data.errors import DataFormatError, shown
from dialectbench.data.examples import PairExample
from dialectbench.data.readers._io import IdMaker, PathLike, existing
from dialectbench.data.readers._json import kind, load_records
from dialectbench.data.readers._table import Column, read_table

NLI_LABELS = ("entailment", "neutral", "contradiction")
XNLI_LABEL_IDS = {"0": "entailment", "1": "neutral", "2": "contradiction"}  # (M/X)NLI integer labels
_JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")


def read_pairs(path: PathLike, *, premise_column: Column = "premise", hypothesis_column: Column = "hypothesis",
               label_column: Column = "label", id_column: Column | None = None, delimiter: str = "\t",
               header: bool = True, quoting: bool | None = None,
               label_map: Mapping[str, str] | None = None,
               labels: Collection[str] | None = NLI_LABELS,
               labels_path: PathLike | None = None) -> Iterator[PairExample]:
    """Yield PairExamples. For .json/.jsonl files the columns are keys and delimiter/header/quoting are unused.

    labels_path: a CSV file with a header, row-aligned with `path`, that holds the labels (`label_column`)
    and ids (`id_column`) of a file that has only the text (XTREME's unlabelled XNLI test files, whose
    labels are those of the English rows).

    label_map: raw label -> label (XNLI_LABEL_IDS for 0/1/2); labels: allowed labels after mapping
    (None = any). example_id: "<file stem>:<id value>" or "<file stem>:<row index>".
    A missing field or empty/unknown label raises DataFormatError naming the line.
    """
    p = existing(path)
    if labels_path is not None:
        rows = _aligned_rows(p, existing(labels_path), (premise_column, hypothesis_column),
                             (label_column, id_column), delimiter, header, quoting)
        return _pairs(p, rows, label_map, labels)
    columns = (premise_column, hypothesis_column, label_column, id_column)
    rows = _json_rows(p, columns) if p.suffix.lower() in _JSON_SUFFIXES else _table_rows(
        p, columns, delimiter, header, quoting)
    return _pairs(p, rows, label_map, labels)


def _table_rows(path: Path, columns: tuple, delimiter: str, header: bool, quoting: bool | None):
    table = read_table(path, delimiter=delimiter, header=header, quoting=quoting)
    if table.width is None:
        return
    names = ("premise", "hypothesis", "label", "id")
    index = [None if col is None else table.column(path, col, name) for col, name in zip(columns, names)]
    for row in table.rows:
        if len(row.fields) != table.width:
            what = "missing label; " if index[2] >= len(row.fields) else ""
            raise DataFormatError(path, row.line, f"{what}expected {table.width} fields, found {len(row.fields)}")
        values = [None if i is None else row.fields[i].strip() for i in index]
        yield row.line, row.index, values


def _aligned_rows(path: Path, labels_path: Path, text_columns: tuple, label_columns: tuple, delimiter: str,
                  header: bool, quoting: bool | None):
    """Text from `path`, label and id from the same row of `labels_path` (a headed CSV)."""
    text = read_table(path, delimiter=delimiter, header=header, quoting=quoting)
    gold = read_table(labels_path, delimiter=",", header=True, quoting=True)
    if len(text.rows) != len(gold.rows):
        raise DataFormatError(path, None, f"{len(text.rows)} rows, but the label file {labels_path.name} has "
                                          f"{len(gold.rows)}: the files are not row-aligned")
    if text.width is None:
        return
    t_index = [text.column(path, c, n) for c, n in zip(text_columns, ("premise", "hypothesis"))]
    g_index = [None if c is None else gold.column(labels_path, c, n) for c, n in zip(label_columns, ("label", "id"))]
    for row, grow in zip(text.rows, gold.rows):
        if len(row.fields) != text.width:
            raise DataFormatError(path, row.line, f"expected {text.width} fields, found {len(row.fields)}")
        if len(grow.fields) != gold.width:  # a short row would have no label column (an IndexError once)
            raise DataFormatError(labels_path, grow.line, f"expected {gold.width} fields, found {len(grow.fields)}")
        values = [row.fields[i].strip() for i in t_index]
        values += [None if i is None else grow.fields[i].strip() for i in g_index]
        yield row.line, row.index, values


def _json_rows(path: Path, columns: tuple):
    for position, (line, record) in enumerate(load_records(path)):
        values = []
        for key in columns:
            if key is None:
                values.append(None)
            elif key not in record or record[key] is None:
                raise DataFormatError(path, line, f"record {position}: missing field {key!r}")
            elif isinstance(record[key], str) or (key in columns[2:] and _integer(record[key])):
                values.append(str(record[key]).strip())  # an integer label (XNLI's 0/1/2) or id: its digits
            else:  # a list or an object must not become the text "['x']"
                raise DataFormatError(path, line, f"record {position}: {key!r} is {kind(record[key])}, not a "
                                                  "string")
        yield line, position, values


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _pairs(path: Path, rows, label_map, labels) -> Iterator[PairExample]:
    ids = IdMaker(path)  # an id column that repeats a value: the later rows get "@<row index>", not one id
    for line, index, (premise, hypothesis, label, ident) in rows:
        if not label:
            raise DataFormatError(path, line, "missing label (empty label field)")
        if label_map is not None:
            label = label_map.get(label, label)
        if labels is not None and label not in labels:
            raise DataFormatError(path, line, f"label {shown(label)} is not one of {sorted(labels)}")
        yield PairExample(ids(ident, index), premise, hypothesis, label)
