"""Text-level tasks (TC, SA, NLI): the text columns of a delimited file are tokenized, analysed by the
EWT-trained tagger and parser (analyzer.py), rewritten by the rules and joined back; every other column,
the label among them, is copied unchanged, so the labels stay right by construction."""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from dialectbench.perturb.catalogue import PerturbError
from dialectbench.perturb.engine import perturb_sentence

# UD English tokenization: clitics split off ("don't" -> "do n't", "it's" -> "it 's"), punctuation alone
_CLITIC = r"'(?:s|re|ve|ll|d|m)\b"
_TOKEN = re.compile(rf"\w+(?=n't\b)|n't\b|\w+(?={_CLITIC})|{_CLITIC}|\w+(?:[-'.]\w+)*|[^\w\s]", re.IGNORECASE)
_NO_SPACE_BEFORE = re.compile(r"^(?:[.,!?;:%)\]}]|n't|'(?:s|re|ve|ll|d|m))$", re.IGNORECASE)
_NO_SPACE_AFTER = {"(", "[", "{", "$", "#"}


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text)


def glued(prev: str, word: str) -> bool:
    """Whether `word` follows `prev` without a space in English text (`do` + `n't`, `home` + `.`)."""
    return bool(_NO_SPACE_BEFORE.match(word)) or prev in _NO_SPACE_AFTER


def detokenize(words: Sequence[str]) -> str:
    out = ""
    for i, word in enumerate(words):
        out += word if i == 0 or glued(words[i - 1], word) else " " + word
    return out


def perturb_texts(texts: Sequence[str], ids: Sequence[str], analyzer, rates: dict[str, float], *,
                  seed: int = 0) -> tuple[list[str], Counter]:
    """Each text rewritten (a text no rule fires on is returned exactly as it was) and the fired counts."""
    tokens = [tokenize(t) for t in texts]
    analyses = analyzer.analyze(tokens, ids)
    out, fired = [], Counter()
    for text, analysis in zip(texts, analyses):
        new, applied = perturb_sentence(analysis, rates, seed=seed)
        fired.update(applied.fired)
        out.append(detokenize(new.words) if applied.fired else text)
    return out, fired


def perturb_table(path: Path, out: Path, columns: Sequence[str], analyzer, rates: dict[str, float], *,
                  seed: int = 0, header: bool = True) -> tuple[int, int, Counter]:
    """Rewrite the text `columns` (header names, or 0-based indices) of a TSV/CSV file into `out`;
    returns (rows, rows changed, fired counts)."""
    delimiter = "," if path.suffix.lower() == ".csv" else "\t"
    quoting = csv.QUOTE_MINIMAL if delimiter == "," else csv.QUOTE_NONE
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh, delimiter=delimiter, quoting=quoting))
    head = rows[0] if header and rows else None
    body = rows[1:] if head is not None else rows
    where = [_column(c, head, path) for c in columns]
    changed = set()
    fired = Counter()
    for k in where:
        texts = [r[k] if k < len(r) else "" for r in body]
        ids = [f"{path.name}:{i}:{k}" for i in range(len(body))]
        new, counts = perturb_texts(texts, ids, analyzer, rates, seed=seed)
        fired.update(counts)
        for i, (old, text) in enumerate(zip(texts, new)):
            if text != old:
                body[i][k] = text
                changed.add(i)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter=delimiter, quoting=quoting, escapechar=None if delimiter == "," else "\\",
                            lineterminator="\n")
        writer.writerows(([head] if head is not None else []) + body)
    return len(body), len(changed), fired


def _column(name: str, head: list[str] | None, path: Path) -> int:
    if head is not None and name in head:
        return head.index(name)
    if name.lstrip("-").isdecimal():
        return int(name)
    known = f"; its columns: {', '.join(head)}" if head else ""
    raise PerturbError(f"{path}: no text column {name!r}{known}")
