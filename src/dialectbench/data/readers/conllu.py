"""CoNLL-U (Universal Dependencies) reader: a streaming, validating hand parser.

Each sentence becomes a `Sentence` of syntactic words: a multiword-token line ("3-4  du") only records the
surface token, its words (3, 4) are kept; empty nodes ("5.1") are dropped. Validation, per line:
10 tab-separated columns; word ids run 1, 2, 3... without gaps; a range "a-b" starts at the next word and
has b > a; an empty node "n.k" follows word n; HEAD is a non-negative integer; comments come before the
first token line. Any failure raises DataFormatError(path, line, problem).

A sentence whose HEADs do not form a tree (a cycle, a word that is its own head, a HEAD beyond the
sentence) is real data, not a format error: released treebanks have them (Singlish `train.conll`). It is
kept, with `Sentence.tree_problem` saying "path:line: problem"; dependency training leaves it out, POS uses
it, and a test set scores it as given (runner/local_executor.py). One warning per file counts them.

The parser is about an order of magnitude faster than `conllu.parse` (benchmarks/bench_readers.py), as it
builds only the columns DialectBench needs. CoNLL-X files (10 columns, no ranges) read the same way.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from dialectbench.data.errors import DataFormatError, DataWarning, shown
from dialectbench.data.examples import Sentence
from dialectbench.data.readers._io import IdMaker, PathLike, ascii_int, existing, read_text


@dataclass
class _Block:
    """One sentence being read: the columns kept plus what validation needs."""

    start: int  # line number of the sentence's first line (comments included)
    sent_id: str | None = None
    text: str = ""
    n_tokens: int = 0  # surface tokens: a multiword token counts once
    range_end: int = 0  # last word id covered by the current multiword token
    words: list[str] = field(default_factory=list)
    upos: list[str] = field(default_factory=list)
    heads: list[int] = field(default_factory=list)
    deprels: list[str] = field(default_factory=list)
    head_lines: list[int] = field(default_factory=list)
    tree_problem: str = ""  # "path:line: problem" when the HEADs are not a tree


@dataclass(frozen=True)
class ConlluStats:
    """Counts as UD's stats give them: sentences, surface tokens, syntactic words."""

    sentences: int
    tokens: int
    words: int


UNANNOTATED = -1  # the head of a word the treebank left unannotated (HEAD "_"); scorers skip it


def read_conllu(path: PathLike, *, unannotated_heads: bool = False) -> Iterator[Sentence]:
    """Yield the sentences of a CoNLL-U file lazily. `example_id` is "<file stem>:<sent_id>" (the sentence's
    0-based index when it has no sent_id; "@<index>" appended to a repeated sent_id).

    unannotated_heads: accept HEAD "_" (TwitterAAE leaves most punctuation out of its trees) and give
    such words the head UNANNOTATED, which the attachment scores skip instead of counting wrong."""
    return _sentences(existing(path), unannotated_heads)


def _sentences(path: Path, unannotated_heads: bool = False) -> Iterator[Sentence]:
    ids = IdMaker(path)
    multi_root: list[int] = []  # start lines of sentences with several roots
    broken: list[str] = []  # where each sentence that is not a tree goes wrong
    for index, block in enumerate(_blocks(path, unannotated_heads)):
        if block.tree_problem:
            broken.append(block.tree_problem)
        elif block.heads.count(0) > 1:
            multi_root.append(block.start)
        yield _sentence(block, ids(block.sent_id, index))
    if multi_root:
        warnings.warn(DataWarning(f"{path}:{multi_root[0]}: {len(multi_root)} sentence(s) with more than one "
                                  "root word (HEAD 0), kept and scored as given"), stacklevel=2)
    if broken:
        warnings.warn(DataWarning(f"{broken[0]}; {len(broken)} sentence(s) in this file are not trees (HEAD "
                                  "cycle, self-loop or out of range): left out of dependency training, kept "
                                  "for POS, scored as given in a test set"), stacklevel=2)


def conllu_stats(path: PathLike) -> ConlluStats:
    """Sentence, surface-token and word counts of a CoNLL-U file, from the same validating parser."""
    sentences = tokens = words = 0
    for block in _blocks(existing(path)):
        sentences += 1
        tokens += block.n_tokens
        words += len(block.words)
    return ConlluStats(sentences, tokens, words)


def _sentence(block: _Block, example_id: str) -> Sentence:
    return Sentence(example_id=example_id, words=tuple(block.words), upos=tuple(block.upos),
                    heads=tuple(block.heads), deprels=tuple(block.deprels), text=block.text,
                    tree_problem=block.tree_problem)


def _blocks(path: Path, unannotated_heads: bool = False) -> Iterator[_Block]:
    block: _Block | None = None
    for number, line in enumerate(read_text(path).split("\n"), 1):
        if not line or line.isspace():
            if block is not None:
                yield _finish(path, block)
                block = None
            continue
        if block is None:
            block = _Block(start=number)
        if line[0] == "#":
            _comment(path, number, line, block)
        else:
            _token_line(path, number, line, block, unannotated_heads)
    if block is not None:
        yield _finish(path, block)


def _comment(path: Path, number: int, line: str, block: _Block) -> None:
    if block.words or block.n_tokens:
        raise DataFormatError(path, number, "comment line inside a sentence (comments must come first)")
    key, eq, value = line[1:].partition("=")
    if eq:
        key = key.strip()
        if key == "sent_id":
            block.sent_id = value.strip()
        elif key == "text":
            block.text = value.strip()


def _token_line(path: Path, number: int, line: str, block: _Block, unannotated_heads: bool = False) -> None:
    cols = line.split("\t")
    if len(cols) != 10:
        raise DataFormatError(path, number, f"expected 10 tab-separated columns, found {len(cols)}")
    tid = cols[0]
    expected = len(block.words) + 1
    if tid.isdigit():
        if ascii_int(tid) != expected:
            raise DataFormatError(path, number, f"word id {shown(tid, quote=False)} out of order (expected {expected})")
        _word(path, number, cols, block, expected, unannotated_heads)
    elif "-" in tid:
        _range(path, number, tid, block, expected)
    elif "." in tid:
        _empty_node(path, number, tid, expected - 1)
    else:
        raise DataFormatError(path, number, f"bad id {shown(tid)} (expected an integer, a range a-b or n.k)")


def _word(path: Path, number: int, cols: list[str], block: _Block, wid: int,
          unannotated_heads: bool = False) -> None:
    head = UNANNOTATED if cols[6] == "_" and unannotated_heads else ascii_int(cols[6])
    if head is None:
        raise DataFormatError(path, number, f"HEAD {shown(cols[6])} of word {wid} is not a non-negative integer")
    if wid > block.range_end:
        block.n_tokens += 1
    block.words.append(cols[1])
    block.upos.append(cols[3])
    block.heads.append(head)
    block.deprels.append(cols[7])
    block.head_lines.append(number)


def _range(path: Path, number: int, tid: str, block: _Block, expected: int) -> None:
    first, last = (ascii_int(part) for part in tid.partition("-")[::2])
    if first is None or last is None:
        raise DataFormatError(path, number, f"bad multiword-token range {shown(tid)}")
    if first != expected or last <= first:
        raise DataFormatError(path, number, f"multiword-token range {shown(tid, quote=False)} does not start at word {expected} "
                                            "or does not span two words or more")
    if expected <= block.range_end:
        raise DataFormatError(path, number, f"multiword-token range {shown(tid, quote=False)} overlaps the previous one")
    block.range_end = last
    block.n_tokens += 1


def _empty_node(path: Path, number: int, tid: str, last_word: int) -> None:
    major, minor = (ascii_int(part) for part in tid.partition(".")[::2])
    if major is None or minor is None or major != last_word or minor == 0:
        raise DataFormatError(path, number, f"empty node {shown(tid, quote=False)} does not follow word {last_word}")


def _finish(path: Path, block: _Block) -> _Block:
    n = len(block.words)
    if n == 0:
        raise DataFormatError(path, block.start, "sentence has no words")
    if block.range_end > n:
        raise DataFormatError(path, block.start, f"multiword token ends at word {block.range_end} "
                                                 f"but the sentence has {n} words")
    block.tree_problem = _tree_problem(path, block)
    return block


def _tree_problem(path: Path, block: _Block) -> str:
    """Where the sentence's HEADs stop being a tree rooted at 0 ("" when they are one). Several roots are
    not a problem here: CoNLL-X treebanks and some UD releases have them, the arcs are still a tree rooted
    at 0 and attachment scores stay well defined (`_sentences` warns about them once per file)."""
    n = len(block.heads)
    for wid, (head, line) in enumerate(zip(block.heads, block.head_lines), 1):
        if head > n:
            return f"{path}:{line}: HEAD {head} of word {wid} points outside the sentence ({n} words)"
        if head == wid:
            return f"{path}:{line}: word {wid} is its own HEAD"
    state = [0] * (n + 1)  # 0 unseen, 1 on the current path, 2 known to reach the root
    state[0] = 2
    for start in range(1, len(state)):
        path_ = []
        node = start
        while state[node] == 0:
            state[node] = 1
            path_.append(node)
            node = max(block.heads[node - 1], 0)  # an unannotated head (UNANNOTATED) ends a fragment
        if state[node] == 1:
            return f"{path}:{block.head_lines[node - 1]}: HEAD cycle through word {node}"
        for visited in path_:
            state[visited] = 2
    return ""
