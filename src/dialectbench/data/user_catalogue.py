"""Your own datasets, by config, outside the package: one YAML file per task in the packaged catalogue's
schema (data/catalogue/models.py), plus an optional `varieties:` list declaring varieties the registry
does not have. File paths are relative to the YAML file's folder.

    task: sa
    description: Yorkshire sentiment, collected for my paper
    varieties:
      - name: english (a:yorkshire)   # the naming convention: glottolog name (a:area, r:register, ...)
        cluster: anglic               # an existing cluster, or a new one
        glottocode: stan1293          # optional; speakers, mbert_seen and representative are too
    datasets:
      yorks: {name: Yorkshire sentiment, licence: CC-BY-4.0, citation: "Me (2026)"}
    entries:
      - variety: english (a:yorkshire)
        dataset: yorks
        format: labelled
        splits:
          test: [{file: {path: yorkshire/test.tsv}}]

`dialectbench run --catalogue my.yaml` (repeatable; or $DIALECTBENCH_CATALOGUE, paths joined by ':')
loads such files: the declared varieties join the registry (plan, analysis, report), a new cluster's
`representative: true` variety is its in-cluster training source, and the entries join the data source.
`dialectbench data validate my.yaml` checks a file, its data paths and its data, with line numbers.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dialectbench.data.catalogue import TaskCatalogue, load_catalogue
from dialectbench.data.errors import DataError

ENV_CATALOGUE = "DIALECTBENCH_CATALOGUE"
_GLOTTOCODE = r"^[a-z0-9]{4}\d{4}$"


class UserCatalogueError(ValueError):
    """A user catalogue that cannot be used: `path:line: problem` (one line per problem)."""


class UserVariety(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    cluster: str
    glottocode: str | None = Field(None, pattern=_GLOTTOCODE)
    speakers: int | None = Field(None, ge=0)
    mbert_seen: bool = False
    representative: bool = False  # the in-cluster training source of a new cluster for this task
    note: str | None = None


class UserTaskCatalogue(TaskCatalogue):
    varieties: list[UserVariety] = Field(default_factory=list)


@dataclass(frozen=True)
class Loaded:
    path: Path
    catalogue: UserTaskCatalogue

    @property
    def root(self) -> Path:
        return self.path.parent


# ------------------------------------------------------------------------------------- line numbers
def _line_of(node: Any, loc: tuple[Any, ...]) -> int | None:
    """1-based line of the YAML node at pydantic location `loc` (the deepest node that exists)."""
    line = None if node is None else node.start_mark.line + 1
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            child = next(((k, v) for k, v in node.value if k.value == part), None)
            if child is None:
                break
            node = child[1]
            line = child[0].start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def _where(path: Path, node: Any, loc: tuple[Any, ...]) -> str:
    line = _line_of(node, loc)
    return f"{path}:{line}" if line else str(path)


def _pydantic_problems(path: Path, node: Any, err: ValidationError) -> list[str]:
    out = []
    for e in err.errors():
        loc = tuple(p for p in e["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        field = ".".join(str(p) for p in loc) or "(top level)"
        out.append(f"{_where(path, node, loc)}: {field}: {e['msg']}")
    return out


# ------------------------------------------------------------------------------------------- checks
def parse_file(path: Path) -> tuple[UserTaskCatalogue | None, Any, list[str]]:
    """(catalogue or None, YAML node tree, problems) for one file; schema problems carry line numbers."""
    if not path.is_file():
        return None, None, [f"{path}: no such file"]
    text = path.read_text(encoding="utf-8")
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        return None, None, [f"{where}: not valid YAML: {getattr(err, 'problem', None) or err}"]
    if not isinstance(data, dict):
        return None, node, [f"{path}:1: a catalogue is a mapping with task, description, datasets, entries"]
    try:
        return UserTaskCatalogue.model_validate(data), node, []
    except ValidationError as err:
        return None, node, _pydantic_problems(path, node, err)


def _variety_problems(path: Path, node: Any, cat: UserTaskCatalogue) -> list[str]:
    from dialectbench.varieties import MalformedVarietyName, parse_name, registry
    from dialectbench.varieties.registry import lookup_key

    reg, problems = registry(), []
    declared = {}
    for i, v in enumerate(cat.varieties):
        where = _where(path, node, ("varieties", i, "name"))
        try:
            canonical = str(parse_name(v.name)).lower()
        except MalformedVarietyName as err:
            problems.append(f"{where}: variety name {v.name!r}: {err.problem}")
            continue
        if canonical != v.name:
            problems.append(f"{where}: write the variety name as {canonical!r} (the naming convention)")
        if v.name in reg and lookup_key(v.name) not in _declared_keys():
            problems.append(f"{where}: {v.name!r} is already a registry variety; use it in entries "
                            "without declaring it")
        if not re.fullmatch(r"[a-z][a-z' -]*", v.cluster):
            problems.append(f"{_where(path, node, ('varieties', i, 'cluster'))}: cluster names are lower-case "
                            f"words ({v.cluster!r})")
        known_cluster = v.cluster in reg.clusters() and v.cluster not in _user_clusters()
        if v.representative and known_cluster:
            problems.append(f"{_where(path, node, ('varieties', i, 'representative'))}: {v.cluster!r} is a "
                            "paper cluster; its representative is fixed by DialectBench Table 9")
        declared[lookup_key(v.name)] = v
    reps = [v for v in cat.varieties if v.representative]
    for cluster in {v.cluster for v in reps}:
        if sum(v.cluster == cluster for v in reps) > 1:
            problems.append(f"{path}: cluster {cluster!r} has more than one representative for {cat.task}")
    for i, e in enumerate(cat.entries):
        if lookup_key(e.variety) not in declared and e.variety in reg and reg.get(e.variety).name != e.variety:
            problems.append(f"{_where(path, node, ('entries', i, 'variety'))}: write the variety as its "
                            f"registry name {reg.get(e.variety).name!r}")
        if lookup_key(e.variety) not in declared and e.variety not in reg:
            hints = reg.suggest(e.variety, n=3)
            hint = f"; did you mean: {', '.join(repr(h) for h in hints)}?" if hints else ""
            problems.append(f"{_where(path, node, ('entries', i, 'variety'))}: unknown variety {e.variety!r} "
                            f"(declare it under varieties:){hint}")
    return problems


def _entry_problems(path: Path, node: Any, cat: UserTaskCatalogue, read: bool) -> list[str]:
    """Entries that clash with the packaged catalogue, files that are not there, data that does not read."""
    from dialectbench.data.source import DataSource

    problems = []
    packaged = {e.variety for e in load_catalogue(cat.task).entries}
    src = DataSource(path.parent, {cat.task: cat}, kind="mirror")  # files under the YAML folder
    for i, e in enumerate(cat.entries):
        if e.variety in packaged:
            problems.append(f"{_where(path, node, ('entries', i, 'variety'))}: {e.variety!r} already has "
                            f"{cat.task} data in the packaged catalogue; declare a new variety for your dataset "
                            "(e.g. with an i: identifier)")
        missing = False
        for split, parts in e.splits.items():
            for j, part in enumerate(parts):
                for arg, ref in part.file_args().items():
                    if not (path.parent / ref.path).is_file():
                        key = ("file",) if arg == "path" and part.file is not None else ("files", arg)
                        loc = ("entries", i, "splits", split, j, *key, "path")
                        problems.append(f"{_where(path, node, loc)}: {ref.path}: no such file under "
                                        f"{path.parent}")
                        missing = True
        if "test" not in e.split_names():
            problems.append(f"{_where(path, node, ('entries', i, 'splits'))}: {e.variety!r} has no test split; "
                            "nothing can be evaluated on it")
        if read and not missing:
            for split in sorted(e.split_names()):
                try:
                    if not src.load(cat.task, e.variety, split):
                        problems.append(f"{_where(path, node, ('entries', i, 'splits'))}: {e.variety}: the "
                                        f"{split} split is empty")
                except (DataError, OSError, ValueError, TypeError) as err:
                    problems.append(str(err).splitlines()[0])
    return problems


def validate_file(path: str | Path, *, read: bool = True) -> tuple[UserTaskCatalogue | None, list[str]]:
    """(catalogue, problems): schema, names, clusters, data paths and (with `read`) the data itself."""
    path = Path(path).expanduser()
    cat, node, problems = parse_file(path)
    if cat is None:
        return None, problems
    problems += _variety_problems(path, node, cat)
    problems += _entry_problems(path, node, cat, read)
    return cat, problems


# ------------------------------------------------------------------------------------- registration
_LOADED: dict[Path, Loaded] = {}


def _declared_keys() -> set[str]:
    from dialectbench.varieties.registry import lookup_key

    return {lookup_key(v.name) for item in _LOADED.values() for v in item.catalogue.varieties}


def _user_clusters() -> set[str]:
    from dialectbench.varieties import registry

    packaged = {v.cluster for v in registry() if not _is_user(v.name)}
    return {v.cluster for item in _LOADED.values() for v in item.catalogue.varieties} - packaged


def _is_user(name: str) -> bool:
    from dialectbench.varieties.registry import lookup_key

    return lookup_key(name) in _declared_keys()


def catalogue_paths(paths: list[Path] | None = None) -> list[Path]:
    """`paths` then those of $DIALECTBENCH_CATALOGUE (os.pathsep-separated), each once."""
    env = [Path(p) for p in os.environ.get(ENV_CATALOGUE, "").split(os.pathsep) if p.strip()]
    out: list[Path] = []
    for p in [*(paths or []), *env]:
        p = p.expanduser().resolve()
        if p not in out:
            out.append(p)
    return out


def use_user_catalogues(paths: list[Path] | None = None) -> list[Loaded]:
    """Load, check and register the user catalogues (`paths` and $DIALECTBENCH_CATALOGUE); files
    already loaded are skipped. Raises UserCatalogueError listing every problem of the first bad file."""
    for path in catalogue_paths(paths):
        if path in _LOADED:
            continue
        cat, problems = validate_file(path, read=False)
        if problems or cat is None:
            more = f" (and {len(problems) - 1} more problem(s); run `dialectbench data validate {path}`)" \
                if len(problems) > 1 else ""
            raise UserCatalogueError(problems[0] + more)
        _register(cat)
        _LOADED[path] = Loaded(path, cat)
    return list(_LOADED.values())


def _register(cat: UserTaskCatalogue) -> None:
    from dialectbench import tasks as tasks_mod
    from dialectbench.varieties import Variety, registry

    reg = registry()
    for v in cat.varieties:
        variety = Variety.parse(v.name, cluster=v.cluster, glottocode=v.glottocode, tasks=frozenset({cat.task}),
                                mbert_seen=v.mbert_seen, speakers=v.speakers)
        reg.add(variety)
        if v.representative:
            tasks_mod.registry.USER_REPRESENTATIVES[(cat.task, v.cluster)] = reg.get(v.name)
    for e in cat.entries:  # a registry variety that gains a task through the user's data
        known = reg.get(e.variety)
        if cat.task not in known.tasks:
            reg.add(Variety.parse(known.name, **{**_fields(known), "tasks": known.tasks | {cat.task}}))


def _fields(v: Any) -> dict[str, Any]:
    return {"cluster": v.cluster, "glottocode": v.glottocode, "tasks": v.tasks, "mbert_seen": v.mbert_seen,
            "speakers": v.speakers, "speakers_note": v.speakers_note, "nllb_code": v.nllb_code,
            "original_id": v.original_id, "codes": dict(v.codes)}


def loaded() -> list[Loaded]:
    return list(_LOADED.values())


def reset() -> None:
    """Forget the user catalogues (tests): the packaged registry and Table 9 are reloaded."""
    from dialectbench import tasks as tasks_mod
    from dialectbench.varieties import registry

    _LOADED.clear()
    tasks_mod.registry.USER_REPRESENTATIVES.clear()
    registry.cache_clear()
    tasks_mod.registry._table9.cache_clear()


# -------------------------------------------------------------------------------------------- source
class UserDataSource:
    """The run's data source plus the user catalogues' entries (each read from its YAML's folder)."""

    def __init__(self, base: Any, items: list[Loaded]) -> None:
        from dialectbench.data.source import DataSource

        self._base = base
        self._user: dict[tuple[str, str], Any] = {}
        for item in items:
            src = DataSource(item.root, {item.catalogue.task: item.catalogue}, kind="mirror")  # files under the YAML folder
            for e in item.catalogue.entries:
                self._user[(item.catalogue.task, e.variety)] = src

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_base", "_user"):
            raise AttributeError(name)
        return getattr(self._base, name)

    def __repr__(self) -> str:
        return f"{self._base!r} + {len({id(s) for s in self._user.values()})} user catalogue(s)"

    def _of(self, task: str, variety: str) -> Any:
        return self._user.get((task, variety), self._base)

    def varieties(self, task: str) -> list[str]:
        try:
            base = list(self._base.varieties(task))
        except DataError:
            base = []
        mine = [v for (t, v), src in self._user.items() if t == task and src.splits(t, v)]
        return base + [v for v in mine if v not in base]

    def splits(self, task: str, variety: str) -> set[str]:
        return self._of(task, variety).splits(task, variety)

    def data_kind(self, task: str, variety: str) -> str:
        return self._of(task, variety).data_kind(task, variety)

    def load(self, task: str, variety: str, split: str) -> list[Any]:
        return self._of(task, variety).load(task, variety, split)

    def fingerprint(self, task: str, variety: str, split: str) -> str:
        return self._of(task, variety).fingerprint(task, variety, split)


def with_user_data(source: Any) -> Any:
    """`source` plus the loaded user catalogues' entries (`source` itself when none is loaded)."""
    items = loaded()
    return UserDataSource(source, items) if items else source
