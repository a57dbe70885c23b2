"""The packaged rule and profile files (rules.yaml, profiles.yaml), validated, and name lookups."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from dialectbench.data.examples import Sentence

# eWAVE pervasiveness -> per-site application rate (profiles.yaml explains the reading).
RATING_RATES = {"A": 0.9, "B": 0.5, "C": 0.2}
EDIT_KINDS = ("replace", "delete", "insert", "move")


class PerturbError(ValueError):
    """A user-facing problem: unknown profile or rule, malformed example or input."""


class RuleExample(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    source: str  # `in` in the YAML: word/UPOS/HEAD/DEPREL ...
    out: str


class RuleSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    ewave: int | None  # None: a feature eWAVE does not list; `source` then says where it comes from
    feature: str
    description: str
    edits: tuple[Literal["replace", "delete", "insert", "move"], ...]
    examples: tuple[RuleExample, ...]
    source: str = ""
    # The share of the rule's sites that are contexts for the feature at all: 1 for a feature that rewrites a
    # StE construction in place (each copula is a copula-deletion context); under 1 for one that adds what
    # StE does not have there (a tag question suits only some declaratives); multiplies the profile's rate.
    base_rate: float = 1.0


class ProfileSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    ewave_variety: str
    real_variety: str
    features: dict[str, str | float]  # rule id -> eWAVE rating (A/B/C) or an explicit rate
    absent: dict[str, str] = {}  # rule id -> eWAVE rating D (attested absent) or X
    unknown: tuple[str, ...] = ()

    def rates(self) -> dict[str, float]:
        """Per-site rate of each rule: the rating's rate (or the explicit one) times the rule's base rate."""
        specs = rule_specs()
        return {rule: (RATING_RATES[v] if isinstance(v, str) else float(v)) * specs[rule].base_rate
                for rule, v in self.features.items()}


def _load(name: str) -> dict:
    text = resources.files("dialectbench.perturb").joinpath(name).read_text(encoding="utf-8")
    return yaml.safe_load(text)


@cache
def rule_specs() -> dict[str, RuleSpec]:
    """Rule id -> spec, in the file's order; every spec has a registered function and vice versa."""
    from dialectbench.perturb.rules import RULES

    raw = _load("rules.yaml")["rules"]
    try:
        specs = {rid: RuleSpec(id=rid, **{**body, "examples": [
            {"source": ex["in"], "out": ex["out"]} for ex in body.get("examples", [])]})
            for rid, body in raw.items()}
    except (ValidationError, KeyError, TypeError) as err:
        raise RuntimeError(f"rules.yaml is malformed: {err}") from None
    unsourced = [rid for rid, spec in specs.items() if spec.ewave is None and not spec.source]
    if unsourced:
        raise RuntimeError(f"rules.yaml: {', '.join(unsourced)}: no eWAVE number and no source")
    missing = set(specs) ^ set(RULES)
    if missing:
        raise RuntimeError(f"rules.yaml and rules.py disagree on: {', '.join(sorted(missing))}")
    return specs


@cache
def profile_specs() -> dict[str, ProfileSpec]:
    raw = _load("profiles.yaml")["profiles"]
    out = {pid: ProfileSpec(id=pid, **body) for pid, body in raw.items()}
    known = rule_specs()
    for p in out.values():
        bad = [r for r in p.features if r not in known]
        if bad:
            raise RuntimeError(f"profiles.yaml: profile {p.id} names unknown rules {', '.join(bad)}")
        for r, v in p.features.items():
            if isinstance(v, str) and v not in RATING_RATES:
                raise RuntimeError(f"profiles.yaml: {p.id}.{r}: rating {v!r} is not one of A, B, C")
    return out


def _hint(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name.lower(), known, n=3, cutoff=0.5)
    return f" Did you mean: {', '.join(close)}?" if close else ""


def get_profile(name: str) -> ProfileSpec:
    known = profile_specs()
    key = name.strip().lower()
    if key not in known:
        raise PerturbError(f"unknown profile {name!r} (profiles: {', '.join(known)})." + _hint(key, list(known)))
    return known[key]


def get_rule(name: str) -> RuleSpec:
    known = rule_specs()
    key = name.strip().lower()
    if key not in known:
        raise PerturbError(f"unknown rule {name!r}." + _hint(key, list(known)))
    return known[key]


@dataclass(frozen=True)
class _Word:
    form: str
    upos: str
    head: int
    deprel: str


def parse_analysis(text: str, example_id: str = "example") -> Sentence:
    """`word/UPOS/HEAD/DEPREL ...` -> Sentence (the rule examples' notation)."""
    words = []
    for item in text.split():
        parts = item.rsplit("/", 3)
        if len(parts) != 4 or not parts[2].isdigit():
            raise PerturbError(f"{example_id}: {item!r} is not word/UPOS/HEAD/DEPREL")
        words.append(_Word(parts[0], parts[1], int(parts[2]), parts[3]))
    return Sentence(example_id, tuple(w.form for w in words), tuple(w.upos for w in words),
                    tuple(w.head for w in words), tuple(w.deprel for w in words), " ".join(w.form for w in words))
