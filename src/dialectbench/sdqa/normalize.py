"""Text normalization for WER. The preset `paper` reproduces seed 001 Table 2: lowercase both sides and
drop the gold question's final punctuation (its "?" — ASR output has none); nothing else."""

from __future__ import annotations

import re
from dataclasses import dataclass

_PUNCT = re.compile(r"[^\w\s']|(?<!\w)'|'(?!\w)")
_FINAL = re.compile(r"[\s?.!]+$")
_NUM = re.compile(r"\d[\d,]*")

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SCALES = ((10**9, "billion"), (10**6, "million"), (1000, "thousand"), (100, "hundred"))


def number_words(n: int) -> str:
    """Cardinal English words for a non-negative integer (1990 -> 'one thousand nine hundred ninety')."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else " " + _ONES[n % 10])
    for value, name in _SCALES:
        if n >= value:
            head, rest = divmod(n, value)
            return f"{number_words(head)} {name}" + ("" if rest == 0 else " " + number_words(rest))
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class Normalization:
    lowercase: bool = True
    strip_final: bool = True      # drop final ?/./! of the reference (the paper chops the gold's last char)
    remove_punct: bool = False    # remove punctuation on both sides (apostrophes inside words kept)
    numbers: str = "keep"         # "keep" or "words" (digits -> English cardinal words, both sides)

    def words(self, text: str, *, reference: bool = False) -> tuple[str, ...]:
        if reference and self.strip_final:
            text = _FINAL.sub("", text)
        if self.lowercase:
            text = text.lower()
        if self.numbers == "words":
            text = _NUM.sub(lambda m: " " + number_words(int(m.group().replace(",", ""))) + " ", text)
        if self.remove_punct:
            text = _PUNCT.sub(" ", text)
        return tuple(text.split())

    @property
    def signature(self) -> str:
        return (f"lc:{'yes' if self.lowercase else 'no'}|final:{'strip' if self.strip_final else 'keep'}"
                f"|punct:{'remove' if self.remove_punct else 'keep'}|num:{self.numbers}")


NORMALIZATIONS: dict[str, Normalization] = {
    "paper": Normalization(),
    "none": Normalization(lowercase=False, strip_final=False),
    "lower": Normalization(strip_final=False),
    "standard": Normalization(remove_punct=True),
    "standard-numbers": Normalization(remove_punct=True, numbers="words"),
}


def get_normalization(name: str) -> Normalization:
    try:
        return NORMALIZATIONS[name]
    except KeyError:
        raise ValueError(f"unknown normalization {name!r}; choose from {', '.join(NORMALIZATIONS)}") from None


def word_edits(ref: tuple[str, ...], hyp: tuple[str, ...]) -> int:
    """Levenshtein distance over words (substitutions + deletions + insertions)."""
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i]
        for j, h in enumerate(hyp, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h)))
        prev = cur
    return prev[-1]
