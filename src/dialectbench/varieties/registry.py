"""Loading the packaged variety table and looking varieties up by name."""

from __future__ import annotations

import csv
import difflib
import functools
import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

# aliases needs the Registry only as a type (under TYPE_CHECKING there): no import circle at run time
from dialectbench.varieties import aliases
from dialectbench.varieties.model import Variety
from dialectbench.varieties.naming import MalformedVarietyName, VarietyError, parse_name

TASK_IDS = ("dep", "pos", "ner", "did", "sa", "tc", "nli", "mrc", "eqa", "mt-dialect", "mt-region")
# Columns of varieties.csv; `code_mt` holds the MT code whichever MT flavour the variety belongs to.
CODE_COLUMNS = ("dep", "pos", "ner", "did", "sa", "tc", "nli", "mrc", "eqa", "mt")
COLUMNS = ("cluster", "name", "glottocode", "mbert_seen", "tasks", "speakers", "speakers_note", "nllb_code",
           "original_id") + tuple(f"code_{t}" for t in CODE_COLUMNS)
_BOOL = {"yes": True, "no": False}
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})


class UnknownVarietyError(VarietyError, LookupError):
    """No registered variety has this name; `.suggestions` holds the closest known names."""

    def __init__(self, name: str, suggestions: list[str], problem: str | None = None, ambiguous: bool = False):
        self.name = name
        self.suggestions = suggestions
        self.problem = problem  # set when the name is malformed, e.g. "'(' is never closed"
        why = f" (malformed: {problem})" if problem else ""
        hint = f"; did you mean: {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
        if ambiguous:  # a Glottocode or dataset code that several varieties share
            super().__init__(f"{name!r} names {len(suggestions)} varieties; give one of: "
                             + ", ".join(repr(s) for s in suggestions))
            return
        super().__init__(f"unknown variety {name!r}{why}{hint}")


class RegistryDataError(ValueError):
    """The packaged (or a user-supplied) variety table is inconsistent; names file, line and problem."""

    def __init__(self, path: str, line: int, problem: str):
        super().__init__(f"{path}, line {line}: {problem}")


def lookup_key(name: str) -> str:
    """Case-, whitespace-, quote- and attribute-order-insensitive key of a name."""
    text = re.sub(r"\s+", " ", name.translate(_QUOTES)).strip().casefold()
    try:
        return str(parse_name(text))
    except MalformedVarietyName:
        return text


class Registry:
    """All varieties of the benchmark, in table order."""

    def __init__(self, varieties: Iterable[Variety], source: str = "<memory>"):
        self._varieties = list(varieties)
        self._by_key: dict[str, Variety] = {}
        for line, v in enumerate(self._varieties, start=2):
            key = lookup_key(v.name)
            if key in self._by_key:
                raise RegistryDataError(source, line, f"duplicate variety name {v.name!r}")
            self._by_key[key] = v

    def __len__(self) -> int:
        return len(self._varieties)

    def add(self, variety: Variety) -> None:
        """Declare a variety the packaged table does not have (a user catalogue's); re-adding one with
        the same name and cluster merges its tasks."""
        key = lookup_key(variety.name)
        old = self._by_key.get(key)
        if old is not None:
            if old.cluster != variety.cluster:
                raise RegistryDataError("<user catalogue>", 0, f"variety {variety.name!r} is already in cluster "
                                        f"{old.cluster!r}, not {variety.cluster!r}")
            from dataclasses import replace

            variety = replace(variety, tasks=old.tasks | variety.tasks, codes={**old.codes, **variety.codes})
            self._varieties[self._varieties.index(old)] = variety
        else:
            self._varieties.append(variety)
        self._by_key[key] = variety

    def __iter__(self):
        return iter(self._varieties)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and lookup_key(name) in self._by_key

    def get(self, name: str) -> Variety:
        """The variety called `name`; raises UnknownVarietyError with `.suggestions` (and `.problem` when the
        name is malformed, so callers need catch one error type)."""
        try:
            parse_name(name)
        except MalformedVarietyName as exc:
            other = self._other_name(name)
            if other is not None:
                return other
            raise UnknownVarietyError(name, self.suggest(name), exc.problem) from None
        try:
            return self._by_key[lookup_key(name)]
        except KeyError:
            other = self._other_name(name)
            if other is not None:
                return other
            raise UnknownVarietyError(name, self.suggest(name)) from None

    def _other_name(self, name: str) -> Variety | None:
        """A common name, ISO code, Glottocode or dataset code (aliases.py); ambiguous ones raise with
        the candidates as suggestions."""
        found = aliases.resolve(self, name)
        if len(found) > 1:
            raise UnknownVarietyError(name, [v.name for v in found], ambiguous=True)
        return found[0] if found else None

    def by_code(self, task: str, code: str) -> Variety:
        """The variety whose dataset code for `task` (or `mt`) is `code`, e.g. ("dep", "UD_English-EWT")."""
        tasks = _task_filter(task)
        for v in self._varieties:
            if any(v.codes.get(t) == code for t in tasks):
                return v
        known = sorted(v.codes[t] for v in self._varieties for t in tasks if t in v.codes)
        close = difflib.get_close_matches(code, known, n=5, cutoff=0.5)
        raise UnknownVarietyError(f"{code} (as a {task} dataset code)", close)

    def suggest(self, name: str, n: int = 5) -> list[str]:
        """Closest registered names (difflib ratio on the normalised form)."""
        key = lookup_key(name)
        keys = difflib.get_close_matches(key, list(self._by_key), n=n, cutoff=0.5)
        # by spelling and by meaning ("swiss germna" -> the common name swiss german -> central alemannic),
        # the closer match first
        scored = [(difflib.SequenceMatcher(None, key, k).ratio(), self._by_key[k].name) for k in keys]
        scored += aliases.by_meaning_scored(self, name)
        scored.sort(key=lambda pair: -pair[0])
        return aliases.merge([v for _, v in scored], n=n)

    def varieties(self, task: str | None = None, cluster: str | None = None) -> list[Variety]:
        """Varieties, optionally only those in `task` (a task id, or `mt` for both MT flavours) and `cluster`."""
        tasks = _task_filter(task)
        if cluster is not None:
            cluster = self.cluster_name(cluster)
        return [v for v in self._varieties
                if (tasks is None or v.tasks & tasks) and (cluster is None or v.cluster == cluster)]

    def clusters(self, task: str | None = None) -> list[str]:
        """Cluster names (sorted), optionally only those with at least one variety in `task`."""
        return sorted({v.cluster for v in self.varieties(task=task)})

    def cluster_name(self, cluster: str) -> str:
        """Canonical cluster name (case/space-insensitive); ValueError listing near matches if unknown."""
        key = re.sub(r"\s+", " ", cluster).strip().casefold()
        known = {c.casefold(): c for c in {v.cluster for v in self._varieties}}
        if key in known:
            return known[key]
        close = difflib.get_close_matches(key, list(known), n=5, cutoff=0.5)
        hint = f"; did you mean: {', '.join(known[c] for c in close)}?" if close else ""
        raise UnknownClusterError(f"unknown cluster {cluster!r}{hint}")


class UnknownClusterError(VarietyError, LookupError):
    """No variety belongs to a cluster of this name."""


class UnknownTaskError(ValueError, LookupError):
    """A task id that is not one of TASK_IDS (or `mt`)."""

    def __init__(self, task: str):
        self.task = task
        super().__init__(f"unknown task {task!r}; valid task ids: {', '.join(TASK_IDS)} (or 'mt' for both MT)")


def _task_filter(task: str | None) -> frozenset[str] | None:
    if task is None:
        return None
    t = task.strip().lower()
    if t == "mt":
        return frozenset({"mt-dialect", "mt-region"})
    if t not in TASK_IDS:
        raise UnknownTaskError(task)
    return frozenset({t})


def _row_to_variety(row: dict[str, str], path: str, line: int) -> Variety:
    def fail(problem: str) -> RegistryDataError:
        return RegistryDataError(path, line, problem)

    if row.get("mbert_seen") not in _BOOL:
        raise fail(f"mbert_seen must be yes or no, not {row.get('mbert_seen')!r}")
    tasks = row["tasks"].split()
    bad = [t for t in tasks if t not in TASK_IDS]
    if bad:
        raise fail(f"unknown task id(s) {bad}; valid: {', '.join(TASK_IDS)}")
    speakers = row["speakers"].strip()
    if speakers and not speakers.isdigit():
        raise fail(f"speakers must be a whole number or empty (use speakers_note for text), not {speakers!r}")
    codes = {}
    for t in CODE_COLUMNS:
        code = row[f"code_{t}"].strip()
        if code:
            flavour = [x for x in tasks if x.startswith("mt")] if t == "mt" else [t]
            if not flavour or flavour[0] not in tasks:
                raise fail(f"code_{t} is set but the variety is not in task {t!r}")
            codes[flavour[0]] = code
    try:
        parsed = parse_name(row["name"])
    except MalformedVarietyName as exc:
        raise fail(str(exc)) from None
    canonical = str(parsed).lower()  # the paper writes every name in lower case
    if canonical != row["name"]:
        raise fail(f"name {row['name']!r} is not canonical; write it as {canonical!r}")
    if not row["cluster"].strip():
        raise fail("empty cluster")
    return Variety(parsed.glottolog_name, **parsed.attributes, cluster=row["cluster"].strip(),
                   glottocode=row["glottocode"].strip() or None, tasks=frozenset(tasks),
                   mbert_seen=_BOOL[row["mbert_seen"]], speakers=int(speakers) if speakers else None,
                   speakers_note=row["speakers_note"].strip() or None,
                   nllb_code=row["nllb_code"].strip() or None, original_id=row["original_id"].strip() or None,
                   codes=codes)


def load_registry(path: str | Path | None = None) -> Registry:
    """Read a variety table (default: the packaged varieties.csv); errors name file, line and problem."""
    source = resources.files("dialectbench.varieties").joinpath("varieties.csv") if path is None else Path(path)
    with source.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise RegistryDataError(str(source), 1, f"missing column(s) {missing}")
        varieties = [_row_to_variety(row, str(source), reader.line_num) for row in reader]
    return Registry(varieties, str(source))


@functools.cache
def registry() -> Registry:
    """The packaged registry (loaded once)."""
    return load_registry()
