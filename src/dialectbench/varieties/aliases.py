"""Other names a user may type for a variety: common names, ISO 639-3 codes, Glottocodes, dataset codes.

The registry's names follow the paper's convention (the Glottolog name plus attributes), which is not how
most people call a variety: "Swiss German" is Glottolog's *central alemannic*, "AAVE" is *african american
vernacular english*. `resolve(registry, text)` turns such a name into registry varieties; `by_meaning`
offers the registry names behind the aliases closest in spelling, so that a misspelt common name
("swiss germna") still suggests the right variety.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dialectbench.varieties.model import Variety
    from dialectbench.varieties.registry import Registry

# common name (lower case) -> canonical registry name. Kept to names whose meaning is not in doubt.
COMMON_NAMES: dict[str, str] = {
    "swiss german": "central alemannic",
    "schwyzerdütsch": "central alemannic",
    "schweizerdeutsch": "central alemannic",
    "zurich german": "central alemannic (a:zh)",
    "bernese german": "central alemannic (a:be)",
    "basel german": "central alemannic (a:bs)",
    "lucerne german": "central alemannic (a:lu)",
    "aave": "african american vernacular english",
    "african american english": "african american vernacular english",
    "ebonics": "african american vernacular english",
    "singapore english": "singlish",
    "colloquial singapore english": "singlish",
    "standard english": "english",
    "scottish english": "english (a:scotland)",
    "british english": "english (a:uk)",
    "american english": "north american english",
    "us english": "north american english",
    "jamaican patois": "jamaican creole english",
    "msa": "standard arabic",
    "modern standard arabic": "standard arabic",
    "egyptian": "egyptian arabic",
    "tunisian": "tunisian arabic",
    "moroccan": "moroccan arabic",
    "darija": "moroccan arabic",
    "levantine": "levantine arabic",
    "gulf": "gulf arabic",
    "bokmål": "norwegian bokmål (m:written)",
    "bokmal": "norwegian bokmål (m:written)",
    "nynorsk": "norwegian nynorsk (m:written)",
    "european portuguese": "portuguese (a:european)",
    "mandarin": "mandarin chinese",
    "standard greek": "modern greek",
    "flemish": "western flemish",
    "west flemish": "western flemish",
}
# ISO 639-3 codes that name one registry variety (the datasets' own codes are read from the registry)
ISO_CODES: dict[str, str] = {
    "gsw": "central alemannic", "eng": "english", "arb": "standard arabic", "arz": "egyptian arabic",
    "aeb": "tunisian arabic", "ary": "moroccan arabic", "apc": "levantine arabic", "afb": "gulf arabic",
    "ajp": "south levantine arabic", "nob": "norwegian bokmål (m:written)",
    "nno": "norwegian nynorsk (m:written)", "yue": "cantonese", "cmn": "mandarin chinese",
    "ell": "modern greek", "vls": "western flemish"
}
_GLOTTOCODE = re.compile(r"^[a-z]{4}\d{4}$")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def resolve(reg: Registry, text: str) -> list[Variety]:
    """The varieties `text` names other than by their registry name (empty list: none). More than one
    means the name is ambiguous (a Glottocode shared by several varieties with no bare-named one)."""
    key = _norm(text)
    target = COMMON_NAMES.get(key) or ISO_CODES.get(key)
    if target is not None and target in reg:
        return [reg.get(target)]
    if _GLOTTOCODE.match(key):
        found = [v for v in reg if v.glottocode == key]
    else:  # the datasets' own codes (UD treebank, FLORES-200, corpus labels), case-sensitive first
        found = [v for v in reg if text.strip() in v.codes.values() or v.nllb_code == text.strip()]
        found = found or [v for v in reg if key in {c.casefold() for c in v.codes.values()}
                          or (v.nllb_code or "").casefold() == key]
    bare = [v for v in found if not v.attributes]  # "swis1247" -> "central alemannic", not one canton
    return bare if len(found) > 1 and len(bare) == 1 else found


def by_meaning(reg: Registry, text: str, n: int = 3) -> list[str]:
    """Registry names behind the common names closest to `text` in spelling."""
    key = _norm(text)
    names = list(COMMON_NAMES) + list(ISO_CODES)
    close = difflib.get_close_matches(key, names, n=n, cutoff=0.6)
    targets = [COMMON_NAMES.get(c) or ISO_CODES[c] for c in close]
    return [t for t in dict.fromkeys(targets) if t in reg]


def by_meaning_scored(reg: Registry, text: str, n: int = 3) -> list[tuple[float, str]]:
    """(similarity of `text` to a common name, the registry name behind it) for the closest ones."""
    key = _norm(text)
    names = list(COMMON_NAMES) + list(ISO_CODES)
    close = difflib.get_close_matches(key, names, n=n, cutoff=0.6)
    out = [(difflib.SequenceMatcher(None, key, c).ratio(), COMMON_NAMES.get(c) or ISO_CODES[c]) for c in close]
    return [(r, t) for r, t in out if t in reg]


def merge(*lists: Iterable[str], n: int = 5) -> list[str]:
    """Suggestions from several sources, first occurrence wins, at most `n`."""
    return list(dict.fromkeys(s for lst in lists for s in lst))[:n]
