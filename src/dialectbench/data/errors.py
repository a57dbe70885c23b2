"""Errors raised by the data layer.

`DataFormatError` is what every reader raises on malformed input: it names the file, the 1-based line (when
the format has lines) and the problem, so a user can open the file at the right place.
`DataNotAvailable` says that a dataset (or one variety/split of it) cannot be found and how to supply it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

QUOTE_LIMIT = 80  # characters of the input a message quotes


def shown(text: str, limit: int = QUOTE_LIMIT, *, quote: bool = True) -> str:
    """`text` for a message (its repr with `quote`), cut to its first `limit` characters: whatever the file
    holds, a message stays one short line (a 1 GB line once made a 4-billion-character message)."""
    cut = text[:limit]
    out = repr(cut) if quote else cut
    while len(out) > limit + 2 and len(cut) > 1:  # escapes ("\x00" is 4 characters) count towards the limit
        cut = cut[:len(cut) // 2]
        out = repr(cut) if quote else cut
    return out if len(cut) == len(text) else f"{out}... ({len(text):,} characters)"


def near(name: str, choices: Iterable[str], n: int = 3) -> str:
    """"; did you mean 'x'?" for the choices closest to a misspelt name (difflib), or ""."""
    if len(name) > 2 * QUOTE_LIMIT:  # no name is that long, and difflib's time grows with it
        return ""
    close = difflib.get_close_matches(name, list(choices), n=n, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


class DataError(Exception):
    """Base class of the data layer's errors."""


class DataFormatError(DataError, ValueError):
    """Malformed input: `str(err)` is "path:line: problem" ("path: problem" when no line applies)."""

    def __init__(self, path: str | Path, line: int | None, problem: str) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")

    def __reduce__(self):  # keep the three fields through pickling (multiprocessing executors)
        return (type(self), (self.path, self.line, self.problem))


class DataWarning(UserWarning):
    """Input that is read and used but deserves a look (e.g. a treebank sentence with several roots)."""


def plain_data_warnings() -> None:
    """Print a DataWarning as one line, "warning: path:line: ...", instead of Python's two-line format that
    quotes our source line (the CLI and every worker process call this; other warnings keep their format)."""
    import warnings

    default = getattr(warnings.formatwarning, "default", warnings.formatwarning)

    def formatwarning(message, category, filename, lineno, line=None):
        if issubclass(category, DataWarning):
            return f"warning: {message}\n"
        return default(message, category, filename, lineno, line)

    formatwarning.default = default  # type: ignore[attr-defined]  # calling this twice wraps once
    warnings.formatwarning = formatwarning


class DataNotAvailable(DataError, LookupError):
    """A dataset or one of its splits is missing; the message says which and how to obtain it."""

    def __init__(self, message: str, *, dataset: str | None = None, how_to_obtain: str | None = None) -> None:
        self.message = message
        self.dataset = dataset
        self.how_to_obtain = how_to_obtain
        text = message if not how_to_obtain else f"{message} ({how_to_obtain})"
        super().__init__(text)

    def __reduce__(self):
        return (_rebuild_not_available, (self.message, self.dataset, self.how_to_obtain))


def _rebuild_not_available(message: str, dataset: str | None, how_to_obtain: str | None) -> DataNotAvailable:
    return DataNotAvailable(message, dataset=dataset, how_to_obtain=how_to_obtain)
