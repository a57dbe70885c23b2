"""Writing perturbed data back: CoNLL-U (the columns a `Sentence` keeps; the others are `_`) and IOB
(token TAB tag, a blank line between sentences)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from dialectbench.data.examples import Sentence, TaggedSentence


def sentence_block(sent: Sentence) -> str:
    sent_id = sent.example_id.split(":", 1)[-1]
    lines = [f"# sent_id = {sent_id}", f"# text = {sent.text or ' '.join(sent.words)}"]
    for i, (word, upos, head, rel) in enumerate(zip(sent.words, sent.upos or ["_"] * len(sent.words),
                                                    sent.heads, sent.deprels), 1):
        lines.append("\t".join([str(i), word, "_", upos or "_", "_", "_", "_" if head < 0 else str(head),
                                rel or "_", "_", "_"]))
    return "\n".join(lines) + "\n"


def write_conllu(sentences: Iterable[Sentence], path: Path) -> int:
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for sent in sentences:
            fh.write(sentence_block(sent) + "\n")
            n += 1
    return n


def write_iob(sentences: Iterable[TaggedSentence], path: Path) -> int:
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for sent in sentences:
            fh.write("".join(f"{tok}\t{tag}\n" for tok, tag in zip(sent.tokens, sent.tags)) + "\n")
            n += 1
    return n
