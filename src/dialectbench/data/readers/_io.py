"""Shared plumbing: decode a file with a precise error, split it into numbered lines, make ids."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from dialectbench.data.errors import DataFormatError

PathLike = str | Path


def existing(path: PathLike) -> Path:
    """The path as a Path; FileNotFoundError now (not when the lazy reader is first iterated)."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such file")
    return p


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """The whole file decoded, without a leading BOM; a decoding error names the line it is on."""
    data = path.read_bytes()
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as err:
        newline = b"\n" if b"\n" in data else b"\r"
        line = data.count(newline, 0, err.start) + 1
        raise DataFormatError(path, line, f"not valid {encoding} text ({err.reason})") from None
    text = text.removeprefix("\ufeff")
    if "\r" in text and "\n" not in text:  # classic Mac (CR-only) line ends: one line per CR, as editors show
        text = text.replace("\r", "\n")
    return text


def ascii_int(text: str) -> int | None:
    """The value of a plain decimal number ("12"), else None. str.isdigit() is also true for "²" and "①",
    which int() refuses, and int() refuses more than 4,300 digits: neither may escape as a ValueError."""
    if text.isascii() and text.isdigit() and len(text) <= 18:
        return int(text)
    return None


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, line without its end-of-line) for every physical line; CRLF is accepted (and
    CR-only files, by `read_text`). A final newline does not start an extra empty line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, 1):
        yield number, line.removesuffix("\r")


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
