"""Parallel text (MT): two line-aligned plain-text files, line i of one translating line i of the other.

Layouts on hand: TIL-MT X-WMT test/<src>-<tgt>/<src>-<tgt>.<lang> (source and target file per direction)
and CODET <Language>/<Variety>.<ext> with Reference.eng (or, without an English reference, Standard.<ext>
scored as DialectBench's pseudo-reference). An empty line means "no translation": such pairs are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator

from dialectbench.data.errors import DataFormatError
from dialectbench.data.examples import TranslationExample
from dialectbench.data.readers._io import PathLike, existing, numbered_lines, read_text


def read_parallel(source: PathLike, reference: PathLike, *, pseudo_reference: bool = False,
                  keep_empty: bool = False) -> Iterator[TranslationExample]:
    """Yield TranslationExamples for aligned line pairs; example_id is "<source stem>:<0-based line index>",
    so the same sentence has the same index in every variety's file.

    pseudo_reference: mark the reference as the standard-variety sentence (DialectBench's protocol).
    keep_empty: also yield pairs where one side is empty (skipped by default).
    Files with different numbers of lines raise DataFormatError.
    """
    src, ref = existing(source), existing(reference)
    src_lines = [line for _, line in numbered_lines(read_text(src))]
    ref_lines = [line for _, line in numbered_lines(read_text(ref))]
    if len(src_lines) != len(ref_lines):
        raise DataFormatError(ref, min(len(src_lines), len(ref_lines)) + 1,
                              f"{len(ref_lines)} lines but the source {src.name} has {len(src_lines)}")
    return _pairs(src.stem, src_lines, ref_lines, pseudo_reference, keep_empty)


def _pairs(stem: str, src_lines: list[str], ref_lines: list[str], pseudo: bool,
           keep_empty: bool) -> Iterator[TranslationExample]:
    for index, (s, r) in enumerate(zip(src_lines, ref_lines)):
        s, r = s.strip(), r.strip()
        if keep_empty or (s and r):
            yield TranslationExample(f"{stem}:{index}", s, r, pseudo_reference=pseudo)
