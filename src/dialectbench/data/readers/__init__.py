"""Readers, one per data format; each yields typed examples (dialectbench.data.examples) lazily and raises
DataFormatError ("path:line: problem") on malformed input. `READERS` maps a format name to its reader."""

from __future__ import annotations

from dialectbench.data.readers.conllu import ConlluStats, conllu_stats, read_conllu
from dialectbench.data.readers.iob import read_iob
from dialectbench.data.readers.labelled import read_labelled
from dialectbench.data.readers.multiple_choice import BELEBELE_OPTIONS, read_multiple_choice
from dialectbench.data.readers.pairs import NLI_LABELS, XNLI_LABEL_IDS, read_pairs
from dialectbench.data.readers.parallel import read_parallel
from dialectbench.data.readers.sdqa import read_goldp, read_sdqa, read_sdqa_qa, sdqa_dialects
from dialectbench.data.readers.squad import read_squad

READERS = {
    "conllu": read_conllu,
    "iob": read_iob,
    "labelled": read_labelled,
    "pairs": read_pairs,
    "multiple_choice": read_multiple_choice,
    "squad": read_squad,
    "parallel": read_parallel,
    "goldp": read_goldp,  # SD-QA gold-passage SQuAD files with each question's typed (gold) form
    "sdqa": read_sdqa_qa,  # the catalogue's format: SD-QA transcripts joined to TyDi GoldP passages
}

__all__ = [
    "BELEBELE_OPTIONS",
    "NLI_LABELS",
    "READERS",
    "XNLI_LABEL_IDS",
    "ConlluStats",
    "conllu_stats",
    "read_conllu",
    "read_goldp",
    "read_iob",
    "read_labelled",
    "read_multiple_choice",
    "read_pairs",
    "read_parallel",
    "read_sdqa",
    "read_sdqa_qa",
    "read_squad",
    "sdqa_dialects",
]
