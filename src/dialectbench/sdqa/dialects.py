"""The SD-QA dialects (seed 001 Tables 1, 6, 7): the data's folder codes, the paper's labels, the
country whose localized ASR model serves each dialect, and the Ethnologue populations (millions) used
for the population-weighted average avg_pop."""

from __future__ import annotations

import difflib
from dataclasses import dataclass


class SDQAError(ValueError):
    """Bad input to the SD-QA pipeline (unknown dialect, missing file, unmatched ids...)."""


class UnknownDialectError(SDQAError):
    def __init__(self, code: str, known: list[str]):
        self.code = code
        self.suggestions = difflib.get_close_matches(code.lower(), known, n=3, cutoff=0.4)
        hint = f" Did you mean: {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"unknown SD-QA dialect code {code!r}.{hint} Known: {', '.join(sorted(known))}")


@dataclass(frozen=True)
class Dialect:
    code: str        # folder name in the data (e.g. "gbr")
    lang: str        # SD-QA language code (eng, ara, ben, kor, swa)
    label: str       # the paper's column label (e.g. "SCO")
    country: str     # ISO 3166 alpha-2 of the localized ASR model's locale (e.g. "GB" -> en-GB)
    population: float  # millions, seed 001 Table 7


_ROWS = [
    # English
    ("aus", "eng", "AUS", "AU", 25.36), ("ind_s", "eng", "IND-S", "IN", 39.41),
    ("ind_n", "eng", "IND-N", "IN", 154.69), ("irl", "eng", "IRE", "IE", 4.904),
    ("nzl", "eng", "NZL", "NZ", 4.917), ("nga", "eng", "NGA", "NG", 178.0),
    ("phl", "eng", "PHI", "PH", 64.0), ("gbr", "eng", "SCO", "GB", 5.46),
    ("zaf", "eng", "ZAF", "ZA", 58.56), ("kenya", "eng", "KEN", "KE", 52.6),
    ("usa", "eng", "USA-SE", "US", 125.6),
    # Arabic
    ("dza", "ara", "DZA", "DZ", 29.0), ("bhr", "ara", "BHR", "BH", 1.0), ("egy", "ara", "EGY", "EG", 62.3),
    ("jor", "ara", "JOR", "JO", 3.59), ("mar", "ara", "MAR", "MA", 24.8), ("sau", "ara", "SAU", "SA", 14.1),
    ("tun", "ara", "TUN", "TN", 10.8),
    # Bengali, Korean, Kiswahili
    ("dhaka", "ben", "BGD", "BD", 163.0), ("ind", "ben", "IND", "IN", 80.0),
    ("korn", "kor", "KOR-C", "KR", 47.0), ("kors", "kor", "KOR-SE", "KR", 2.8),
    ("kenya", "swa", "KEN", "KE", 52.6), ("tanzania", "swa", "TZA", "TZ", 58.0),
]
DIALECTS: dict[tuple[str, str], Dialect] = {(r[1], r[0]): Dialect(*r) for r in _ROWS}

# SD-QA language code -> (file stem of the released csv, ISO 639-1, language name)
LANGUAGES = {"eng": ("english", "en", "english"), "ara": ("arabic", "ar", "arabic"),
             "ben": ("bengali", "bn", "bengali"), "kor": ("korean", "ko", "korean"),
             "swa": ("swahili", "sw", "swahili")}


def dialect_info(lang: str, code: str) -> Dialect | None:
    """The paper's facts about a dialect folder, or None for a dialect the paper does not list."""
    return DIALECTS.get((lang, code))


def check_dialects(requested: list[str], known: list[str]) -> list[str]:
    """Validate dialect codes against those present; unknown ones raise with near-match suggestions."""
    out = []
    for code in requested:
        c = code.strip().lower()
        if c not in known:
            raise UnknownDialectError(code, known)
        out.append(c)
    return out


def localized_model(lang: str, dialect: str, models: list[str]) -> str | None:
    """The dialect's own ASR locale among `models` (e.g. kenya -> en-KE); a dialect with a single model
    (usa -> en-US) is served by it."""
    info = dialect_info(lang, dialect)
    if info is not None:
        for m in models:
            if m.upper().endswith("-" + info.country):
                return m
    return models[0] if len(models) == 1 else None
