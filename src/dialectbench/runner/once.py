"""Library warnings once per run: sacrebleu's "forgot to detokenize" (one per MT job otherwise), and
Python warnings from the libraries the backends call (a deprecation notice per fit otherwise)."""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Iterator

LOGGERS = ("sacrebleu", "transformers", "datasets", "sklearn_crfsuite")


class OnceFilter(logging.Filter):
    """Passes each distinct (logger, level, message) the first time only."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[tuple[str, int, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, record.levelno, record.getMessage())
        if key in self.seen:
            return False
        self.seen.add(key)
        return True


@contextlib.contextmanager
def warnings_once() -> Iterator[OnceFilter]:
    """Within the block, every library log message and Python warning is shown once."""
    once = OnceFilter()
    loggers = [logging.getLogger(name) for name in LOGGERS]
    for logger in loggers:
        logger.addFilter(once)
    with warnings.catch_warnings():
        warnings.simplefilter("once")
        try:
            yield once
        finally:
            for logger in loggers:
                logger.removeFilter(once)
