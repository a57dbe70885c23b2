"""Text normalization for WER, the same rules for the five SD-QA languages (SD-QA Table 2).

Both sides are put in Unicode NFC first (the mirror's Bengali is NFC: nukta letters decomposed) and split on
whitespace, so a word is a whitespace-separated token in every script: a Korean eojeol, a Bengali or Arabic
word with its clitics. Korean spacing is therefore significant ("누구 인가요" against "누구인가요" is one
substitution and one insertion), as in the paper's word-level WER.

Presets (`--normalize`):
- `paper` (default): lowercase (a no-op outside Latin script) and drop the gold question's final
  punctuation: any run of whitespace and sentence-final marks at its end in any script: "?", ".", "!",
  Arabic "؟" and "۔", the Bengali danda "।", full-width "？" and "。". ASR output has none of them. Nothing
  else: Arabic diacritics and hamza spellings, quotes and commas inside the question stay (they count as
  errors, as they did for the paper).
- `none`: the texts as they are; `lower`: lowercase only.
- `standard`: `paper` plus removing every punctuation or symbol character (Unicode categories P* and S*:
  Arabic "،" and "؛", the danda, quotes, brackets) on both sides; apostrophes inside words stay.
- `standard-numbers`: `standard` plus English digits written as cardinal words (English only).
- `arabic`: `standard` plus Arabic orthographic normalization on both sides: diacritics (tashkeel) and
  tatweel removed; alef with hamza/madda -> bare alef, teh marbuta -> heh, alef maqsura -> yeh (the ASR
  writes the bare forms). Not the paper's: it shows how much of the Arabic WER is spelling convention.

An empty transcript of a recorded question is scored as all deletions (see WerOptions.missing), and a
question recorded more than once in a dialect is scored once: the release has one transcript per question
and dialect.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_FINAL = re.compile(r"[\s?.!\u061f\u06d4\u0964\uff1f\u3002]+$")
_NUM = re.compile(r"\d[\d,]*")
_ARABIC_MARKS = re.compile("[\u064b-\u0652\u0670\u0640]")  # tashkeel, superscript alef, tatweel
_ARABIC_LETTERS = str.maketrans({"\u0623": "\u0627", "\u0625": "\u0627", "\u0622": "\u0627", "\u0671": "\u0627",
                                 "\u0629": "\u0647", "\u0649": "\u064a"})
NUMBER_LANGS = ("eng",)

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


def _strip_punct(text: str) -> str:
    """Punctuation and symbols (Unicode P*, S*) become spaces; an apostrophe between letters stays."""
    out = []
    for i, ch in enumerate(text):
        if unicodedata.category(ch)[0] in "PS":
            inner = ch == "'" and 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()
            out.append(ch if inner else " ")
        else:
            out.append(ch)
    return "".join(out)


def arabic_orthography(text: str) -> str:
    return _ARABIC_MARKS.sub("", text).translate(_ARABIC_LETTERS)


@dataclass(frozen=True)
class Normalization:
    lowercase: bool = True
    strip_final: bool = True      # drop the reference's final ?/./!/؟/। (the paper chops the gold's last char)
    remove_punct: bool = False    # remove punctuation and symbols on both sides (apostrophes inside words kept)
    numbers: str = "keep"         # "keep" or "words" (digits -> English cardinal words, both sides)
    arabic: bool = False          # Arabic diacritics, tatweel and hamza/teh-marbuta/alef-maqsura spellings unified

    def words(self, text: str, *, reference: bool = False) -> tuple[str, ...]:
        text = unicodedata.normalize("NFC", text)
        if reference and self.strip_final:
            text = _FINAL.sub("", text)
        if self.lowercase:
            text = text.lower()
        if self.arabic:
            text = arabic_orthography(text)
        if self.numbers == "words":
            text = _NUM.sub(lambda m: " " + number_words(int(m.group().replace(",", ""))) + " ", text)
        if self.remove_punct:
            text = _strip_punct(text)
        return tuple(text.split())

    def check_language(self, lang: str) -> None:
        """Refuse a rule that does not apply to `lang` (English number words on Arabic, say)."""
        if self.numbers == "words" and lang not in NUMBER_LANGS:
            raise ValueError(f"number words are English only; not for lang={lang} (use --normalize standard)")

    @property
    def signature(self) -> str:
        return (f"lc:{'yes' if self.lowercase else 'no'}|final:{'strip' if self.strip_final else 'keep'}"
                f"|punct:{'remove' if self.remove_punct else 'keep'}|num:{self.numbers}"
                + ("|arabic:unify" if self.arabic else "") + "|nfc")


NORMALIZATIONS: dict[str, Normalization] = {
    "paper": Normalization(),
    "none": Normalization(lowercase=False, strip_final=False),
    "lower": Normalization(strip_final=False),
    "standard": Normalization(remove_punct=True),
    "standard-numbers": Normalization(remove_punct=True, numbers="words"),
    "arabic": Normalization(remove_punct=True, arabic=True),
}


def get_normalization(name: str) -> Normalization:
    try:
        return NORMALIZATIONS[name]
    except KeyError:
        raise ValueError(f"unknown normalization {name!r}; choose from {', '.join(NORMALIZATIONS)}") from None

