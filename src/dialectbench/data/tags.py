"""Entity tag schemes: every NER dataset is read into IOB2 over the entity types its catalogue entry maps
to, so that a model trained on one dataset is scored on another's entities (seqeval strict IOB2).

BIOES/IOBES (Johansen's Norwegian NER: S- single, E- end) become IOB2 (S- -> B-, E- -> I-); IOB1 (an
entity may start with I-) is repaired to IOB2 (an I- that does not continue an entity of its type starts
one: B-). IOB2 input comes out unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def to_iob2(tags: Sequence[str], types: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """`tags` in IOB2, each entity type renamed through `types` (unlisted types kept)."""
    out: list[str] = []
    previous = "O"
    for tag in tags:
        prefix, dash, kind = tag.partition("-")
        if not dash or prefix not in ("B", "I", "E", "S"):
            out.append(tag)  # "O", or a tag outside any scheme: left for the scorer to reject
            previous = "O"
            continue
        kind = (types or {}).get(kind, kind)
        continues = previous != "O" and previous[2:] == kind and prefix in ("I", "E")
        out.append(f"{'I' if continues else 'B'}-{kind}")
        previous = "O" if prefix in ("E", "S") else out[-1]
    return tuple(out)
