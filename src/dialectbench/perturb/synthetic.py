"""Synthetic varieties in a benchmark run: names, registry entries, and the data source that serves them.

A synthetic variety is the English test set of a task rewritten by a profile. Its name follows the
naming convention with the identifier attribute: ``english (i:synthetic-aave)``; it parses, formats
back to itself, and the ``synthetic-`` identifier is the mark every table and export carries. Its
cluster is ``synthetic``, so no real cluster's averages, minima or gaps ever include it; the terminal
summary and the report show synthetic varieties in a block of their own.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from dialectbench.perturb.catalogue import PerturbError, get_profile
from dialectbench.perturb.engine import perturb_all
from dialectbench.varieties.naming import MalformedVarietyName, format_name, parse_name

BASE_VARIETY = "english"
SYNTHETIC_CLUSTER = "synthetic"
SYNTHETIC_TASKS = ("dep", "pos")  # UD tasks: the rules need trees (NER and text tasks: see docs)
MARK = "synthetic-"
PERTURB_VERSION = 2  # bump when what a synthetic variety is changes beyond the rule code (hashed below)
_CODE = ("rules.py", "rules.yaml", "tree.py", "morph.py", "engine.py")


def code_hash() -> str:
    """sha256 of the rule code and data: an edited rule makes new job keys, never a stale stored score."""
    from importlib import resources

    h = hashlib.sha256()
    for name in _CODE:
        h.update(resources.files("dialectbench.perturb").joinpath(name).read_bytes())
    return h.hexdigest()


def synthetic_name(profile: str) -> str:
    return format_name(BASE_VARIETY, {"identifier": MARK + get_profile(profile).id})


def profile_of(variety: str) -> str | None:
    """The profile id of a synthetic variety name; None for a real variety."""
    try:
        ident = parse_name(variety).attributes.get("identifier", "")
    except MalformedVarietyName:
        return None
    return ident[len(MARK):] if ident.startswith(MARK) else None


def is_synthetic(variety: str) -> bool:
    return profile_of(str(variety)) is not None


def parse_profiles(values: Sequence[str] | None) -> list[str]:
    """`["aave,singlish"]` -> profile ids (PerturbError for unknown ones)."""
    out: list[str] = []
    for value in values or []:
        for name in value.split(","):
            if name.strip():
                pid = get_profile(name).id
                if pid not in out:
                    out.append(pid)
    return out


def register(profiles: Sequence[str]) -> list[str]:
    """Add the synthetic varieties to the registry (cluster `synthetic`); returns their names."""
    from dialectbench.varieties import Variety, registry

    reg, names = registry(), []
    for pid in profiles:
        name = synthetic_name(pid)
        if name not in reg:
            reg.add(Variety.parse(name, cluster=SYNTHETIC_CLUSTER, tasks=frozenset(SYNTHETIC_TASKS)))
        names.append(name)
    return names


class SyntheticSource:
    """`base` plus one synthetic test split per profile for each UD task whose English test split exists."""

    def __init__(self, base: Any, profiles: Sequence[str], seed: int = 0) -> None:
        self._base, self._seed = base, seed
        self._names = {synthetic_name(p): get_profile(p) for p in profiles}
        self._cache: dict[tuple[str, str], list] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_base", "_seed", "_names", "_cache"):
            raise AttributeError(name)
        return getattr(self._base, name)

    def __str__(self) -> str:
        return str(self._base)

    def _has_base(self, task: str) -> bool:
        try:
            return task in SYNTHETIC_TASKS and "test" in self._base.splits(task, BASE_VARIETY)
        except Exception:  # noqa: BLE001 - no English data for the task: no synthetic variety either
            return False

    def varieties(self, task: str) -> list[str]:
        base = list(self._base.varieties(task))
        return base + [n for n in self._names if self._has_base(task) and n not in base]

    def splits(self, task: str, variety: str) -> set[str]:
        if variety in self._names:
            return {"test"} if self._has_base(task) else set()
        return self._base.splits(task, variety)

    def load(self, task: str, variety: str, split: str) -> list[Any]:
        if variety not in self._names:
            return self._base.load(task, variety, split)
        if split != "test" or not self._has_base(task):
            from dialectbench.data.errors import DataNotAvailable

            raise DataNotAvailable(f"{task}/{variety}: a synthetic variety has only a test split")
        if (task, variety) not in self._cache:
            rates = self._names[variety].rates()
            self._cache[task, variety] = perturb_all(self._base.load(task, BASE_VARIETY, "test"), rates,
                                                     seed=self._seed)[0]
        return self._cache[task, variety]

    def fingerprint(self, task: str, variety: str, split: str) -> str:
        if variety not in self._names:
            return self._base.fingerprint(task, variety, split)
        spec = self._names[variety].model_dump()
        payload = {"base": self._base.fingerprint(task, BASE_VARIETY, "test"), "profile": spec,
                   "seed": self._seed, "version": PERTURB_VERSION, "code": code_hash()}
        return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def with_synthetic(source: Any, profiles: Sequence[str] | None, seed: int = 0) -> Any:
    """`source` plus the synthetic varieties of `profiles` (registered in the registry); `source` itself
    when there are none. Raises PerturbError for an unknown profile."""
    ids = parse_profiles(profiles)
    if not ids:
        return source
    register(ids)
    return SyntheticSource(source, ids, seed)


__all__ = ["BASE_VARIETY", "MARK", "SYNTHETIC_CLUSTER", "PerturbError", "SyntheticSource", "is_synthetic",
           "profile_of", "register", "synthetic_name", "with_synthetic"]
