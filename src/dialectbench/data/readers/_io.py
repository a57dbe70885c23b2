"""Shared plumbing: decode a file with a precise error, split it into numbered lines, make ids.

Line ends, for every text format: LF, CRLF and a lone CR each end a line (Python's universal newlines), so
a file reads the same whatever mix of them it has; other characters (U+2028, U+0085, form feeds) are text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from dialectbench.data.errors import QUOTE_LIMIT, DataFormatError, shown

PathLike = str | Path
MAX_HEADER = 65_536  # bytes: no real header row is near this; a file whose first line is longer is not a table


def existing(path: PathLike) -> Path:
    """The path as a Path; FileNotFoundError now (not when the lazy reader is first iterated)."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such file")
    return p


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """The whole file decoded, without a leading BOM, every line end made "\n"; a decoding error names the
    line it is on."""
    data = path.read_bytes()
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as err:
        before = data[:err.start]
        line = before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1
        raise DataFormatError(path, line, f"not valid {encoding} text ({err.reason})") from None
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


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
        if base in self.seen:
            base = f"{base}@{index}"
        self.seen.add(base)
        return base
