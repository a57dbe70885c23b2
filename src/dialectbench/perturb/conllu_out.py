"""Writing perturbed data back: CoNLL-U and IOB (token TAB tag, a blank line between sentences).

CoNLL-U keeps the source file's own lines wherever the rules left them alone. A sentence no rule changed is
copied line for line (comments, multiword tokens, empty nodes, every column). In a changed one every comment
stays but `# text`, which is rewritten to the new words; a word whose form and UPOS are unchanged keeps its
LEMMA, XPOS, FEATS and MISC, and a word a rule inserted or rewrote has `_` there (its morphology is not
known). IDs and HEADs are renumbered. DEPS are renumbered where the word's basic arc, the words its enhanced
relations point at and its case/mark/cc words (which enhanced labels such as `obl:to` spell out) all
survive, and are the basic arc otherwise; EWT's CxnElt word ids in MISC are renumbered too. A multiword token is kept when all its words are, unchanged and
still adjacent; empty nodes go. SpaceAfter=No follows the new text: the source's spacing between words that
are still neighbours, English spacing (`do n't` -> don't, no space before punctuation) elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from dialectbench.data.examples import Sentence, TaggedSentence
from dialectbench.data.readers._io import read_text
from dialectbench.perturb.engine import Applied
from dialectbench.perturb.text import glued

_NO_SPACE = "SpaceAfter=No"


@dataclass
class SourceBlock:
    """One sentence of a CoNLL-U file as written: its lines, comments, word lines and multiword tokens."""

    lines: list[str]
    comments: list[str]
    words: list[list[str]]  # the 10 columns of each word line
    ranges: dict[int, list[str]]  # first word id -> the columns of its multiword-token line


def source_blocks(path: Path) -> list[SourceBlock]:
    """The sentences of a CoNLL-U file, split as the package's reader splits them (blank lines)."""
    blocks, lines = [], []
    for line in [*read_text(Path(path)).split("\n"), ""]:
        line = line.removesuffix("\r")
        if line and not line.isspace():
            lines.append(line)
        elif lines:
            blocks.append(_block(lines))
            lines = []
    return blocks


def _block(lines: list[str]) -> SourceBlock:
    block = SourceBlock(lines, [], [], {})
    for line in lines:
        cols = line.split("\t")
        if line.startswith("#"):
            block.comments.append(line)
        elif cols[0].isdigit():
            block.words.append(cols)
        elif "-" in cols[0]:
            block.ranges[int(cols[0].split("-")[0])] = cols
    return block


def _last(range_cols: list[str]) -> int:
    return int(range_cols[0].split("-")[1])


def _source_spacing(src: SourceBlock) -> list[bool]:
    """Whether a space follows each source word (inside a multiword token: never)."""
    space = [_NO_SPACE not in w[9].split("|") for w in src.words]
    for first, cols in src.ranges.items():
        for j in range(first - 1, _last(cols) - 1):
            space[j] = False
        space[_last(cols) - 1] = _NO_SPACE not in cols[9].split("|")
    return space


def _misc(misc: str, space: bool | None, new_id: dict[int, int]) -> str:
    """MISC with SpaceAfter=No set by `space` (None: inside a multiword token, left out) and the word ids in
    EWT's CxnElt values renumbered (an element whose word is gone is dropped)."""
    items = []
    for item in misc.split("|"):
        key, _, value = item.partition("=")
        if key == "CxnElt":
            elts = [f"{new_id[int(i)]}:{label}" for i, _, label in (e.partition(":") for e in value.split(","))
                    if i.isdigit() and int(i) in new_id]
            item = f"CxnElt={','.join(elts)}" if elts else ""
        if item not in ("", "_", _NO_SPACE):
            items.append(item)
    return "|".join(items + ([_NO_SPACE] if space is False else [])) or "_"


def changed_block(sent: Sentence, origins: Sequence[int | None], src: SourceBlock) -> str:
    """The CoNLL-U lines of a perturbed sentence; `origins` maps each word to its 0-based source word."""
    n = len(sent.words)
    kept = [o is not None and (sent.words[i], sent.upos[i]) == (src.words[o][1], src.words[o][3])
            for i, o in enumerate(origins)]
    new_id = {o + 1: i + 1 for i, o in enumerate(origins) if o is not None}
    kept_src = {o + 1 for o, k in zip(origins, kept) if k}
    src_space, space = _source_spacing(src), []
    for i, o in enumerate(origins):
        nxt = origins[i + 1] if i + 1 < n else len(src.words)  # the end of the sentence counts as a neighbour
        if o is not None and nxt == o + 1:
            space.append(src_space[o])
        else:
            space.append(i + 1 == n or not glued(sent.words[i], sent.words[i + 1]))
    text = "".join(w + (" " if sp and i + 1 < n else "") for i, (w, sp) in enumerate(zip(sent.words, space)))

    ranges = {}  # new first id -> range line, for multiword tokens whose words all survive as they were
    in_range = set()
    for first, cols in src.ranges.items():
        ids = range(first, _last(cols) + 1)
        if all(j in kept_src and new_id[j] == new_id[first] + j - first for j in ids):
            a, b = new_id[first], new_id[_last(cols)]
            ranges[a] = "\t".join([f"{a}-{b}", *cols[1:9], _misc(cols[9], space[b - 1], new_id)])
            in_range.update(range(a, b + 1))

    has_deps = any(w[8] != "_" for w in src.words)
    lines = [f"# text = {text}" if c.startswith("# text") and "=" in c else c for c in src.comments]
    if not any(c.startswith("# text") for c in src.comments):
        lines.append(f"# text = {text}")
    for i, (word, upos, head, rel) in enumerate(zip(sent.words, sent.upos, sent.heads, sent.deprels)):
        o = origins[i]
        if i + 1 in ranges:
            lines.append(ranges[i + 1])
        basic = "_" if head < 0 else f"{head}:{rel}"
        deps = "_" if not has_deps else basic if o is None else _deps(sent, origins, src, i, new_id)
        misc = _misc(src.words[o][9] if kept[i] else "_", None if i + 1 in in_range else space[i], new_id)
        lemma, xpos, feats = (src.words[o][2], src.words[o][4], src.words[o][5]) if kept[i] else ("_",) * 3
        lines.append("\t".join([str(i + 1), word, lemma, upos or "_", xpos, feats, "_" if head < 0 else str(head),
                                rel or "_", deps, misc]))
    return "\n".join(lines)


def _deps(sent: Sentence, origins: Sequence[int | None], src: SourceBlock, i: int, new_id: dict[int, int]) -> str:
    """The word's DEPS renumbered, or its basic arc where the enhanced relations may no longer hold."""
    o, head, rel = origins[i], sent.heads[i], sent.deprels[i]
    basic = "_" if head < 0 else f"{head}:{rel}"
    cols = src.words[o]
    old_head = 0 if head == 0 else (origins[head - 1] + 1 if head > 0 and origins[head - 1] is not None else None)
    functional = [j + 1 for j, w in enumerate(src.words) if w[6] == str(o + 1)
                  and w[7].split(":")[0] in ("case", "mark", "cc")]
    refs = [item.partition(":") for item in cols[8].split("|")]
    if (str(old_head), rel) != (cols[6], cols[7]) or not all(j in new_id for j in functional) \
            or not all(ref == "0" or ref.isdigit() and int(ref) in new_id for ref, _, _ in refs):
        return basic
    return "|".join(f"{ref if ref == '0' else new_id[int(ref)]}:{label}" for ref, _, label in refs)


def write_conllu(path: Path, originals: Sequence[Sentence], perturbed: Sequence[Sentence],
                 details: Sequence[Applied], source: Sequence[SourceBlock]) -> int:
    """Write the `perturbed` copies of `originals` (read from the `source` blocks; `details`: their Applied
    records) to `path`."""
    if not len(originals) == len(perturbed) == len(details) == len(source):
        raise ValueError("sentences, details and source blocks do not line up")
    with path.open("w", encoding="utf-8") as fh:
        for orig, sent, applied, src in zip(originals, perturbed, details, source):
            if tuple(w[1] for w in src.words) != orig.words:
                raise ValueError(f"{orig.example_id}: the source block has other words")
            block = changed_block(sent, applied.origins, src) if applied.origins else "\n".join(src.lines)
            fh.write(block + "\n\n")
    return len(perturbed)


def write_iob(sentences: Iterable[TaggedSentence], path: Path) -> int:
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for sent in sentences:
            fh.write("".join(f"{tok}\t{tag}\n" for tok, tag in zip(sent.tokens, sent.tags)) + "\n")
            n += 1
    return n
