"""Writing sentences back as CoNLL-U (the columns a `Sentence` keeps; the others are `_`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from dialectbench.data.examples import Sentence


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
