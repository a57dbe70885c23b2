"""Shared plumbing: decode a file with a precise error, split it into numbered lines, make ids.

Line ends, for every text format: LF, CRLF and a lone CR each end a line (Python's universal newlines), so
a file reads the same whatever mix of them it has; other characters (U+2028, U+0085, form feeds) are text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from dialectbench.data.errors import QUOTE_LIMIT, DataFormatError, shown

PathLike = str | Path
MAX_HEADER = 65_536  # bytes: no real header row is near this; a file whose first line is longer is not a table
# bytes of one line of a line-based file (tables, CoNLL, IOB, JSON Lines), checked while the file is read: the
# longest line of ../shared/data's line-based files is 9,793 bytes (a treebank); a 400 MiB file with no line end fails
# after 1 MiB, not after the whole file is in memory. A .json document (one value, any layout) has no bound.
MAX_LINE = 1 << 20
_CHUNK = 1 << 20


def existing(path: PathLike) -> Path:
    """The path as a Path; FileNotFoundError now (not when the lazy reader is first iterated)."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such file")
    return p


def read_text(path: Path, encoding: str = "utf-8", *, max_line: int | None = MAX_LINE) -> str:
    """The whole file decoded, without a leading BOM, every line end made "\n"; a decoding error names the
    line it is on. A line over `max_line` bytes is refused as soon as it has been read (None: no bound)."""
    data = path.read_bytes() if max_line is None else _bounded_bytes(path, max_line)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as err:
        before = data[:err.start]
        line = before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1
        raise DataFormatError(path, line, f"not valid {encoding} text ({err.reason})") from None
    except (UnicodeError, LookupError) as err:  # a codec that is no file encoding (punycode, idna) or none
        raise DataFormatError(path, None, f"cannot read as {shown(encoding)} text ({shown(str(err), quote=False)})"
                              ) from None
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _bounded_bytes(path: Path, max_line: int) -> bytes:
    """The file's bytes, read in chunks; DataFormatError at the first line longer than `max_line` bytes (its
    line number is counted only then: counting line ends costs more than reading)."""
    chunks: list[bytes] = []
    run = 0  # bytes since the last line end
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            last = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
            if last < 0:
                run += len(chunk)
                too_long = run > max_line
            else:
                # a line wholly inside a chunk is no longer than the chunk: split only when the bound is smaller
                too_long = run + _first_end(chunk) > max_line or (len(chunk) > max_line
                                                                  and _longest(chunk[:last + 1]) > max_line)
                run = len(chunk) - last - 1
                too_long = too_long or run > max_line
            chunks.append(chunk)
            if too_long:
                raise DataFormatError(path, _first_long_line(b"".join(chunks), max_line),
                                      f"a line over {max_line:,} bytes: not a line-based text file")
    return b"".join(chunks)


def _first_long_line(data: bytes, max_line: int) -> int:
    """1-based number of the first line of `data` longer than `max_line` bytes (or its last line)."""
    number = 0
    for number, piece in enumerate(_ENDS.split(data), 1):
        if len(piece) > max_line:
            return number
    return number


_ENDS = re.compile(rb"\r\n|\r|\n")


def _first_end(chunk: bytes) -> int:
    found = _ENDS.search(chunk)
    return found.start() if found else len(chunk)


def _longest(block: bytes) -> int:
    return max((len(x) for x in _ENDS.split(block)), default=0)


def check_header(path: Path) -> None:
    """Refuse a file whose first line (its header) is over MAX_HEADER bytes before reading it whole: a
    1 GB file of NULs where a headed table belongs must fail at once, not after seconds and gigabytes."""
    with path.open("rb") as fh:
        head = fh.read(MAX_HEADER + 1)
    if len(head) > MAX_HEADER and b"\n" not in head and b"\r" not in head:
        start = head[:QUOTE_LIMIT // 4].decode("utf-8", errors="replace")  # enough to tell what the file is
        raise DataFormatError(path, 1, f"the header line is over {MAX_HEADER:,} bytes long (it starts "
                                       f"{shown(start)}): not a delimited table")


def ascii_int(text: str) -> int | None:
    """The value of a plain decimal number ("12"), else None. str.isdigit() is also true for "²" and "①",
    which int() refuses, and int() refuses more than 4,300 digits: neither may escape as a ValueError."""
    if text.isascii() and text.isdigit() and len(text) <= 18:
        return int(text)
    return None


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, line without its end-of-line) for every line of `read_text`'s text. A final
    newline does not start an extra empty line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return enumerate(lines, 1)


class IdMaker:
    """Stable example ids "<stem>:<key>"; a key seen before in the same file gets "@<index>" appended so
    ids stay unique (e.g. a concatenated treebank that repeats sent_ids)."""

    def __init__(self, path: Path) -> None:
        self.stem = path.stem
        self.seen: set[str] = set()

    def __call__(self, key: str | None, index: int) -> str:
        base = f"{self.stem}:{key if key else index}"
        made, n = base, 0
        while made in self.seen:  # "x@2" may itself be a real id seen before: count on until unused
            made = f"{base}@{index}" if n == 0 else f"{base}@{index}.{n}"
            n += 1
        self.seen.add(made)
        return made
