"""One output convention for every command that lists or reports.

`--format table` (default) prints a rich table; `csv` and `json` print machine-readable rows on stdout
and nothing else (progress and warnings go to stderr).
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import re
import sys
from collections.abc import Iterable, Sequence
from enum import Enum
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

# soft_wrap: messages are never re-flowed, so paths and names stay copy-pasteable in a pipe or a narrow
# terminal (rich would otherwise wrap at 80 columns when stderr is not a terminal). markup off: messages
# carry paths, names and error texts, whose brackets are text (style goes through Text, see warn()); emoji
# codes off: `--model hf-causal:x: ...` must not print as `hf-causal❌ ...`.
stderr = Console(stderr=True, soft_wrap=True, markup=False, emoji=False)


class Format(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"


FORMAT_OPTION = typer.Option(Format.table, "--format", "-f", help="Output format: table, csv or json.")


_NUMBER = re.compile(r"^(-|[-+]?\d+(\.\d+)?(e[-+]?\d+)?%?)$")


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value) if isinstance(value, (set, frozenset)) else list(value)
    return value


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        # Scores (0-100) read best with two decimals; small indices (GE, gaps as fractions) need digits.
        return f"{value:.2f}" if value == 0 or abs(value) >= 1 else f"{value:.4g}"
    if isinstance(value, (list, tuple, set, frozenset)):
        return ",".join(str(v) for v in (sorted(value) if isinstance(value, (set, frozenset)) else value))
    return str(value)


def emit(rows: Sequence[dict[str, Any]], fmt: Format, *, title: str | None = None,
         columns: Iterable[str] | None = None, whole: Iterable[str] = ()) -> None:
    """Print `rows` (a list of flat dicts) in the requested format; in a table, the words of the `whole`
    columns (identifiers such as a hub model id) are never folded where the terminal has room for them."""
    cols = list(columns) if columns is not None else (list(rows[0]) if rows else [])
    if fmt == Format.json:
        json.dump([{c: _jsonable(r.get(c)) for c in cols} for r in rows], sys.stdout, ensure_ascii=False,
                  indent=2)
        sys.stdout.write("\n")
    elif fmt == Format.csv:
        writer = csv.DictWriter(sys.stdout, fieldnames=cols, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for r in rows:
            writer.writerow({c: _cell(r.get(c)) if isinstance(r.get(c), (list, set, frozenset, tuple))
                             else ("" if r.get(c) is None else r.get(c)) for c in cols})
    else:
        _print_table(rows, cols, title, [cols.index(c) for c in whole if c in cols])


def emit_to(out: Path | None, rows: Sequence[dict[str, Any]], fmt: Format, *, title: str | None = None,
            columns: Iterable[str] | None = None, what: str = "row(s)") -> None:
    """`emit` on stdout, or into the file `out` (then one line on stderr says where)."""
    if out is None:
        emit(rows, fmt, title=title, columns=columns)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8", newline="") as fh, contextlib.redirect_stdout(fh):
        emit(rows, fmt, columns=columns)
    stderr.print(f"{len(rows)} {what} written to {out}")


_SNAKE = re.compile(r"^[a-z]+(_[a-z]+)+$")


def _print_table(rows: Sequence[dict[str, Any]], cols: list[str], title: str | None,
                 whole: Sequence[int] = ()) -> None:
    console = Console(emoji=False)
    cells = [[_display(r.get(c)) for c in cols] for r in rows]
    # snake_case headers print as words, so a narrow column breaks them between words, not inside one
    heads = [c.replace("_", " ") if _SNAKE.match(c) else c for c in cols]
    if sum(max([len(h), *(len(row[i]) for row in cells)]) for i, h in enumerate(heads)) > console.width - 3 * len(
            cols) - 1 and len(rows) > 1:
        # too wide: a column with one value in every row says it once, in the title, and makes room
        same = [i for i in range(len(cols)) if len({row[i] for row in cells}) == 1]
        if same and len(same) < len(cols):
            said = "; ".join(f"{heads[i]}: {cells[0][i]}" for i in same)
            title = f"{title} ({said})" if title else said
            keep = [i for i in range(len(cols)) if i not in same]
            heads, cells = [heads[i] for i in keep], [[row[i] for i in keep] for row in cells]
            whole = [keep.index(i) for i in whole if i in keep]
    room = console.width - 3 * len(heads) - 1  # borders and padding
    widths, tight = _column_widths(heads, cells, room, whole), False
    if len(heads) > 1 and not _keeps_words(widths, heads, cells, room):
        # too narrow for the boxed table's words (at 60 columns the headline read 'in-var|iety', '100.|0'):
        # no vertical rules and one space between columns give each column 2 more characters
        tight_room = console.width - (len(heads) - 1)
        tight_widths = _column_widths(heads, cells, tight_room, whole)
        if _keeps_words(tight_widths, heads, cells, tight_room):
            widths, tight = tight_widths, True
    # the title as Text: it quotes names and models (`hf-causal:x:`, `[x]`), which are neither markup nor emoji
    table = Table(title=Text(title, style="italic") if title else None, header_style="bold",
                  **({"box": box.SIMPLE_HEAD, "padding": 0, "show_edge": False} if tight else {}))
    for h, fixed in zip(heads, widths):
        table.add_column(h, overflow="fold", width=fixed)
    for row in cells:  # Text, not markup: a name or dataset string such as '[x]' prints as it is
        table.add_row(*(Text(v) for v in row))
    console.print(table)


def _display(value: Any) -> str:
    # lists as "a, b": a narrow terminal then wraps them between items, not inside one
    return _cell(value).replace(",", ", ") if isinstance(value, (list, tuple, set, frozenset)) else _cell(value)


def _keeps_words(widths: list[int | None], heads: list[str], rows: list[list[str]], room: int) -> bool:
    """Whether a layout from `_column_widths` folds no word of a cell, but for words over 12 characters in a
    column at least 12 wide (all None: either every row fits on one line, or nothing fits and rich folds)."""
    if all(w is None for w in widths):
        return sum(max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(heads)) <= room
    return all(w is None or w >= 12 or all(len(word) <= w for row in rows for word in row[i].split())
               for i, w in enumerate(widths))


def _column_widths(heads: list[str], rows: list[list[str]], room: int,
                   whole_words: Sequence[int] = ()) -> list[int | None]:
    """Fixed column widths, given the `room` the cells have, such that numbers never wrap and text wraps
    between words, not inside one, when there is room for that (None: let rich decide, folding long words
    as before)."""
    need, whole, cells_only, short_words, short_headed, numeric_cols = [], [], [], [], [], []
    for i, c in enumerate(heads):
        cells = [row[i] for row in rows]
        numeric = bool(rows) and all(_NUMBER.match(v) for v in cells)
        numeric_cols.append(numeric)
        full = max([len(c), *(len(v) for v in cells)])
        words = max([len(w) for v in [c, *cells] for w in v.split()] or [1])
        cell_words = max([len(w) for v in cells for w in v.split()] or [1])
        cap = 1000 if i in whole_words else 24  # an identifier column: its words whole, however long
        need.append(full)
        whole.append(full if numeric else min(words, cap))  # headers and cells whole
        cells_only.append(max(len(v) for v in cells) if numeric and cells else min(cell_words, cap))
        short_words.append(cells_only[-1] if numeric or i in whole_words else min(cell_words, 12))  # long words fold
        short_headed.append(max(short_words[-1], min(len(c), 12)) if numeric else short_words[-1])
    if sum(need) <= room:
        return [None] * len(heads)  # everything fits on one line: rich's own layout
    # headers whole if possible, else only the cells (a long header may then fold), else words of up to 12
    # characters whole, else rich's folding
    least = next((w for w in (whole, cells_only, short_headed, short_words) if sum(w) <= room), None)
    if least is None:
        return _solid_first(heads, rows, numeric_cols, need, room)
    widths = list(least)
    spare = room - sum(widths)
    for i in sorted(range(len(heads)), key=lambda i: need[i] - widths[i]):  # short numeric headers whole first
        if numeric_cols[i] and need[i] - widths[i] <= spare:
            spare -= need[i] - widths[i]
            widths[i] = need[i]
    wants = [n - w for n, w in zip(need, widths)]
    total = sum(wants) or 1
    for i, want in enumerate(wants):  # the rest in proportion to what each column still lacks
        widths[i] += min(want, spare * want // total)
    return widths


def _solid_first(heads: list[str], rows: list[list[str]], numeric: list[bool], need: list[int],
                 room: int) -> list[int | None]:
    """The last resort of a terminal too narrow for every word whole: columns of single tokens (numbers,
    codes such as a Glottocode `alge1239`) keep their cells whole, and only the text columns, sharing
    what is left, fold their long words (None: not even that fits, rich decides)."""
    solid = [numeric[i] or all(" " not in row[i] for row in rows) for i in range(len(heads))]
    widths = [max(len(row[i]) for row in rows) if solid[i] and rows else 0 for i in range(len(heads))]
    text = [i for i in range(len(heads)) if not solid[i]]
    spare = room - sum(widths)
    if spare < 4 * len(text) or (not text and spare < 0):
        return [None] * len(heads)
    total = sum(need[i] for i in text) or 1
    for i in text:
        widths[i] = max(4, spare * need[i] // total)
    return widths


def warn(message: str, *, label: str = "warning:", style: str = "yellow") -> None:
    """A warning on stderr; the message is text, not markup (error texts and paths print as they are)."""
    stderr.print(Text.assemble((label, style), " ", message), highlight=False)


def fail(message: str, code: int = 2) -> None:
    """Print a clear error on stderr and exit (no traceback for user errors)."""
    # the message is text, not markup: names such as 'dialectbench[ray]' print as they are
    stderr.print(Text.assemble(("error:", "bold red"), " ", message), highlight=False)
    raise typer.Exit(code)
