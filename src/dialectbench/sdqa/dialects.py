"""The SD-QA dialects (SD-QA Tables 1, 6, 7): the data's folder codes, the paper's labels, the
country whose localized ASR model serves each dialect, and the Ethnologue populations (millions) used
for the population-weighted average avg_pop, read from the packaged `dialects.csv` (which names its
source)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass


class SDQAError(ValueError):
    """Bad input to the SD-QA pipeline (unknown dialect, missing file, unmatched ids...)."""


class SDQAMissing(SDQAError):
    """A language has no files for the split (an absence, where SDQAError is a fault)."""


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
    population: float  # millions, SD-QA Table 7 (Ethnologue); see dialects.csv
    region: str = ""   # the paper's region name (Table 7)


def _load_rows() -> list[tuple]:
    """The packaged dialect table (dialects.csv: labels, locales and Ethnologue populations with their
    source in the file's header)."""
    import csv
    from importlib.resources import files

    text = (files("dialectbench.sdqa") / "dialects.csv").read_text(encoding="utf-8")
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    return [(r["code"], r["lang"], r["label"], r["country"], float(r["population_millions"]), r["region"])
            for r in rows]


_ROWS = _load_rows()
DIALECTS: dict[tuple[str, str], Dialect] = {(r[1], r[0]): Dialect(*r) for r in _ROWS}

# SD-QA language code -> (file stem of the released csv, ISO 639-1, language name)
LANGUAGES = {"eng": ("english", "en", "english"), "ara": ("arabic", "ar", "arabic"),
             "ben": ("bengali", "bn", "bengali"), "kor": ("korean", "ko", "korean"),
             "swa": ("swahili", "sw", "swahili")}


POPULATION_SOURCE = ("Faisal et al. (2021) SD-QA, Table 7 (from Ethnologue, Eberhard et al. 2019); "
                     "packaged as dialectbench/sdqa/dialects.csv")


def label(lang: str, code: str) -> str:
    """The paper's label for a dialect folder (the folder code itself when the paper has none)."""
    info = DIALECTS.get((lang, code))
    return info.label if info else code


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
