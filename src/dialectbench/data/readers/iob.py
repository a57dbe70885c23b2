"""IOB / CoNLL-style NER reader: one token per line, a blank line between sentences.

Formats on hand, all read with the defaults:
- WikiANN (original release): "TOKEN [wiki-title mention type confidence en-title] TAG", space-separated;
  the tag is the last field.
- Norwegian NER (Johansen 2019, .bioes): "ID FORM LEMMA UPOS TAG", tab-separated, CoNLL-U-style comments.
- NorNE (CoNLL-U): pass `misc_key="name"`; the tag is read from "name=B-PER" in the MISC column and
  multiword-token ranges and empty nodes are skipped (NorNE tags syntactic words).
Tags are kept exactly as the dataset has them (PER/ORG/LOC, PRS/ORG/GEO/OTH, BIO or BIOES); a tag must be
"O" or "<prefix>-<type>" with prefix in B, I, E, S, L, U.

Comment lines are "# key = value", "# newpar", "# newdoc": a WikiANN token line that starts with "#"
("# None O") is a token, not a comment.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from dialectbench.data.errors import DataFormatError, shown
from dialectbench.data.examples import TaggedSentence
from dialectbench.data.readers._io import IdMaker, PathLike, existing, numbered_lines, read_text

_COMMENT = re.compile(r"#\s*(?:[\w.:-]+\s*=|newpar\b|newdoc\b)")
_TAG = re.compile(r"O|[BIESLU]-\S+")


def read_iob(path: PathLike, *, token_column: int | None = None, tag_column: int = -1,
             delimiter: str | None = None, misc_key: str | None = None) -> Iterator[TaggedSentence]:
    """Yield the tagged sentences of a CoNLL-style NER file lazily.

    token_column: column of the token; None = decided once per file from its first sentence: 1 when its
      lines are tab-separated with at least 4 fields and their first fields count 1, 2, 3... (the token ids
      of Johansen's .bioes: "ID FORM LEMMA UPOS TAG"), else 0 (WikiANN; a first token that is a number, as
      in "1999\tCD\tO", is a token, not an id).
    tag_column: column of the tag (default last); ignored with `misc_key`.
    delimiter: None = a tab when the line has one, else runs of whitespace.
    misc_key: read the tag from "misc_key=TAG" in column 10 of a CoNLL-U file (NorNE: "name").
    example_id: "<file stem>:<sent_id>" or the sentence's 0-based index.
    """
    return _sentences(existing(path), token_column, tag_column, delimiter, misc_key)


def _sentences(path: Path, token_column: int | None, tag_column: int, delimiter: str | None,
               misc_key: str | None) -> Iterator[TaggedSentence]:
    ids = IdMaker(path)
    tokens: list[str] = []
    tags: list[str] = []
    sent_id: str | None = None
    index = 0
    lines = list(numbered_lines(read_text(path)))
    if token_column is None and misc_key is None:
        token_column = _token_column(lines, delimiter)
    for number, line in lines:
        if not line.strip():
            if tokens:
                yield TaggedSentence(ids(sent_id, index), tuple(tokens), tuple(tags))
                index += 1
            tokens, tags, sent_id = [], [], None
            continue
        if not tokens and _COMMENT.match(line):
            key, _, value = line[1:].partition("=")
            if key.strip() == "sent_id":
                sent_id = value.strip()
            continue
        fields = _split(line, delimiter)
        if misc_key is not None:
            pair = _misc_token(path, number, fields, misc_key)
        else:
            pair = _column_token(path, number, fields, token_column or 0, tag_column)
        if pair is not None:
            tokens.append(pair[0])
            tags.append(pair[1])
    if tokens:
        yield TaggedSentence(ids(sent_id, index), tuple(tokens), tuple(tags))


def _token_column(lines: list[tuple[int, str]], delimiter: str | None) -> int:
    """1 when the first sentence's token lines carry ids 1, 2, 3... in column 0 (tab-separated, 4+ fields),
    else 0. One line is not evidence enough: a WikiANN-style "1999<TAB>CD<TAB>O" also starts with digits."""
    expected = 1
    for _number, line in lines:
        if not line.strip():
            if expected > 1:
                break
            continue
        if expected == 1 and _COMMENT.match(line):
            continue
        fields = _split(line, delimiter)
        if "\t" not in line or len(fields) < 4 or fields[0] != str(expected):
            return 0
        expected += 1
    return 1 if expected > 1 else 0


def _split(line: str, delimiter: str | None) -> list[str]:
    if delimiter is None:
        return line.split("\t") if "\t" in line else line.split()
    return line.split(delimiter)


def _column_token(path: Path, number: int, fields: list[str], token_column: int,
                  tag_column: int) -> tuple[str, str]:
    if len(fields) < 2:
        raise DataFormatError(path, number, f"expected a token and a tag, found {len(fields)} field(s)")
    try:
        token, tag = fields[token_column], fields[tag_column]
    except IndexError:
        raise DataFormatError(path, number, f"line has {len(fields)} fields; token column {token_column} "
                                            f"or tag column {tag_column} is missing") from None
    return token, _check_tag(path, number, tag)


def _misc_token(path: Path, number: int, fields: list[str], key: str) -> tuple[str, str] | None:
    if len(fields) != 10:
        raise DataFormatError(path, number, f"expected 10 tab-separated CoNLL-U columns, found {len(fields)}")
    if not fields[0].isdigit():
        return None  # multiword-token range or empty node: NER tags are on the words
    prefix = key + "="
    for item in fields[9].split("|"):
        if item.startswith(prefix):
            return fields[1], _check_tag(path, number, item[len(prefix):])
    raise DataFormatError(path, number, f"no '{prefix}TAG' in the MISC column")


def _check_tag(path: Path, number: int, tag: str) -> str:
    if not _TAG.fullmatch(tag):
        raise DataFormatError(path, number, f"bad tag {shown(tag)} (expected O or B-/I-/E-/S-TYPE)")
    return tag
