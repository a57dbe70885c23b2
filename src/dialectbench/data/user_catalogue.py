"""Your own datasets, by config, outside the package: one YAML file per task in the packaged catalogue's
schema (data/catalogue/models.py), plus an optional `varieties:` list declaring varieties the registry
does not have. File paths are relative to the YAML file's folder.

    task: sa
    description: Yorkshire sentiment, collected for my paper
    varieties:
      - name: english (a:yorkshire)   # the naming convention: glottolog name (a:area, r:register, ...)
        cluster: anglic               # a DialectBench cluster (or a new one, with `new_cluster: true`)
        glottocode: stan1293          # optional; speakers, mbert_seen and representative are too
    datasets:
      yorks: {name: Yorkshire sentiment, licence: CC-BY-4.0, citation: "Me (2026)"}
    entries:
      - variety: english (a:yorkshire)
        dataset: yorks
        format: labelled
        splits:
          test: [{file: {path: yorkshire/test.tsv}}]

A file may also declare a task of its own, of a kind the package already has (tasks/kinds.py: classification,
pair-classification, tagging, entity-tagging, multiple-choice): `task:` names it, `new_task:` says the rest, and run, results, analyze and report
treat it like a packaged task.

    task: formality
    new_task:
      kind: classification
      name: Formality classification
      metric: macro_f1                 # or accuracy
      labels: [formal, informal]       # the label set; data with another label is an error
      settings: [in-variety, in-cluster]

`dialectbench run --catalogue my.yaml` (repeatable; or $DIALECTBENCH_CATALOGUE, paths joined by ':')
loads such files: the declared varieties join the registry (plan, analysis, report), a new cluster's
`representative: true` variety is its in-cluster training source, and the entries join the data source.
`dialectbench data validate my.yaml` checks a file, its data paths and its data, with line numbers.

Nothing a user file says may change what the packaged benchmark does unless it says so: a cluster not in
DialectBench is new only with `new_cluster: true` (else the near match is suggested), a user variety is a
representative only with `representative: true`, and a variety that already has data for the task (in the
packaged catalogue or the bundled sample suite) cannot get entries.
"""

from __future__ import annotations

import functools
import os
import re
import typing
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from dialectbench.data.catalogue import TaskCatalogue, duplicate_key, load_catalogue, load_catalogue_file
from dialectbench.data.errors import DataError, DataFormatError, near, shown

ENV_CATALOGUE = "DIALECTBENCH_CATALOGUE"
_GLOTTOCODE = r"^[a-z0-9]{4}\d{4}$"
MAX_DEPTH = 32  # levels of YAML nesting; the schema needs 8
MAX_NODES = 100_000  # YAML values, aliases expanded (a few "billion laughs" lines would be billions)


class UserCatalogueError(ValueError):
    """A user catalogue that cannot be used: `path:line: problem` (one line per problem)."""


class UserVariety(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    cluster: str
    glottocode: str | None = Field(None, pattern=_GLOTTOCODE)
    speakers: int | None = Field(None, ge=0)
    mbert_seen: bool = False
    new_cluster: bool = False  # `cluster` is not a DialectBench cluster, on purpose (not a typo)
    representative: bool = False  # the in-cluster training source of a new cluster for this task
    note: str | None = None


class NewTask(BaseModel):
    """A user's task (`new_task:`); the id is the file's `task:`. See tasks/registry.py `Task`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    name: str
    metric: str
    metric_label: str | None = None  # default: the metric in words ("macro F1")
    higher_is_better: bool = True
    settings: tuple[str, ...] = ("in-variety",)
    default_settings: tuple[str, ...] | None = None
    labels: tuple[str, ...] = ()


class UserTaskCatalogue(TaskCatalogue):
    varieties: list[UserVariety] = Field(default_factory=list)
    new_task: NewTask | None = None

    @model_validator(mode="after")
    def _declared_task(self) -> UserTaskCatalogue:
        spec = self.task_spec()  # raises ValueError (kind, metric, settings), reported with its line
        if spec is None:
            return self
        kind = spec.protocol
        for e in self.entries:
            if e.format not in kind.formats:
                raise ValueError(f"{self.task}/{shown(e.variety, quote=False)}: a {kind.name} task reads "
                                 f"{' or '.join(kind.formats)} data, not {e.format}")
        return self

    def task_spec(self) -> Any:
        """The declared task as a tasks.Task (None when the file names a packaged task)."""
        if self.new_task is None:
            return None
        from dialectbench.tasks import KINDS, TASK_IDS, Task

        if self.task in TASK_IDS or self.task == "mt":
            raise ValueError(f"{self.task!r} is a packaged task: give your task its own id")
        kind = KINDS.get(self.new_task.kind)
        if kind is None or not kind.user_declarable:
            known = [k.name for k in KINDS.values() if k.user_declarable]
            raise ValueError(f"new_task: kind {self.new_task.kind!r} cannot be declared in a catalogue; "
                             f"kinds: {', '.join(known)}")
        fields = self.new_task.model_dump()
        fields["metric_label"] = fields["metric_label"] or kind.scored_by(fields["metric"])
        try:
            return Task(id=self.task, **fields)
        except ValidationError as err:
            raise ValueError("new_task: " + "; ".join(str(e["msg"]) for e in err.errors())) from None


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
        # a key with a line break or control character is quoted (escaped): the message stays one line
        field = ".".join(shown(str(p), quote=not str(p).isprintable()) for p in loc) or "(top level)"
        message = e["msg"]
        if e["type"] == "extra_forbidden" and loc:
            names = _keys_at(loc[:-1])
            message = f"unknown key{near(str(loc[-1]), names)} (keys here: {', '.join(names)})"
        out.append(f"{_where(path, node, loc)}: {field}: {message}")
    return out


def _keys_at(loc: tuple[Any, ...]) -> list[str]:
    """The keys the schema allows at a pydantic location (to suggest the near match of a typo'd key)."""
    hint: Any = UserTaskCatalogue
    for part in loc:
        if isinstance(hint, type) and issubclass(hint, BaseModel):
            if part not in hint.model_fields:
                return []
            hint = hint.model_fields[part].annotation
        else:  # list[X], dict[K, X], X | None: the element's type
            args = [a for a in typing.get_args(hint) if a is not type(None)]
            if not args:
                return []
            hint = args[-1]
        while typing.get_origin(hint) in (typing.Union, type(int | None)):
            hint = next(a for a in typing.get_args(hint) if a is not type(None))
    return list(hint.model_fields) if isinstance(hint, type) and issubclass(hint, BaseModel) else []


# ------------------------------------------------------------------------------------------- checks
def parse_file(path: Path) -> tuple[UserTaskCatalogue | None, Any, list[str]]:
    """(catalogue or None, YAML node tree, problems) for one file; schema problems carry line numbers.
    The text is read as every data file is (a bad byte names its line) and composed once; nesting and
    alias expansion are bounded before anything is built from it."""
    from dialectbench.data.readers._io import read_text

    if not path.is_file():
        return None, None, [f"{path}: no such file"]
    try:
        text = read_text(path)
    except DataFormatError as err:
        return None, None, [str(err)]
    loader = None
    try:
        loader = yaml.SafeLoader(text)  # refuses control characters here, before any parsing
        node = loader.get_single_node()
        too_big = _too_big(node) or duplicate_key(node)
        if too_big:
            return None, None, [f"{path}:{too_big}"]
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark else text.count("\n", 0, getattr(err, "position", 0)) + 1
        where = f"{path}:{line}"
        what = str(getattr(err, "problem", None) or err).splitlines()[0]
        if isinstance(err, yaml.reader.ReaderError):
            what = f"character #x{err.character:04x} is not allowed in YAML"
        return None, None, [f"{where}: not valid YAML: {shown(what, 200, quote=False)}"]
    except ValueError as err:  # the constructor's int(): more than 4,300 digits (sys.set_int_max_str_digits)
        line = _long_number_line(node) if node is not None else None
        return None, None, [f"{path}:{line or 1}: not a usable number ({shown(str(err), 120, quote=False)})"]
    except RecursionError:  # the composer recurses per level: it gives up before _too_big can look
        return None, None, [f"{path}:1: nested too deeply (a catalogue needs 8 levels; at most {MAX_DEPTH})"]
    finally:
        if loader is not None:
            loader.dispose()
    if not isinstance(data, dict):
        return None, node, [f"{path}:1: a catalogue is a mapping with task, description, datasets, entries"]
    own = data.get("task") if isinstance(data.get("new_task"), dict) else None  # a task the file declares
    try:
        return UserTaskCatalogue.model_validate(data, context={"declared_task": own}), node, []
    except ValidationError as err:
        return None, node, _pydantic_problems(path, node, err)


def _too_big(root: Any) -> str | None:
    """"line: problem" when the YAML nests deeper than MAX_DEPTH or holds more than MAX_NODES values once
    its aliases are expanded (walked without recursion, counting as it goes)."""
    stack, count = [(root, 1)], 0
    while stack:
        node, depth = stack.pop()
        if node is None:
            continue
        count += 1
        if depth > MAX_DEPTH:
            return f"{node.start_mark.line + 1}: nested more than {MAX_DEPTH} levels deep (a catalogue needs 8)"
        if count > MAX_NODES:
            return (f"{node.start_mark.line + 1}: more than {MAX_NODES:,} values once its aliases are expanded: "
                    "not a catalogue")
        if isinstance(node, yaml.MappingNode):
            stack.extend((child, depth + 1) for pair in node.value for child in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1) for child in node.value)
    return None


def _long_number_line(root: Any) -> int | None:
    """Line of the first scalar with more than 4,300 digits (the one int() refuses), or None."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.ScalarNode) and sum(c.isdigit() for c in str(node.value)) > 4300:
            return node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            stack.extend(child for pair in node.value for child in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return None


# bidi embeddings/overrides/isolates and zero-width characters: a name that shows as another name
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad\u061c\u180e]")


def _invisible(name: str) -> str | None:
    """Why a variety name with an invisible character is refused (None when it has none)."""
    found = _INVISIBLE.search(name)
    return None if found is None else (f"variety name {shown(name)} has the invisible character "
                                       f"U+{ord(found.group()):04X} (zero-width or bidi control): it would show "
                                       "as a name it is not")


def _variety_problems(path: Path, node: Any, cat: UserTaskCatalogue) -> list[str]:
    from dialectbench.varieties import MalformedVarietyName, parse_name, registry
    from dialectbench.varieties.registry import lookup_key

    reg, problems = registry(), []
    paper = _paper_clusters()
    declared: dict[str, int] = {}  # lookup key -> index of the declaration
    for i, v in enumerate(cat.varieties):
        where = _where(path, node, ("varieties", i, "name"))
        if _invisible(v.name):
            problems.append(f"{where}: {_invisible(v.name)}")
            continue
        try:
            canonical = str(parse_name(v.name)).lower()
        except MalformedVarietyName as err:
            problems.append(f"{where}: variety name {shown(v.name)}: {shown(err.problem, 200, quote=False)}")
            continue
        if canonical != v.name:
            problems.append(f"{where}: write the variety name as {shown(canonical)} (the naming convention)")
        key = lookup_key(v.name)
        if key in declared:
            first = _line_of(node, ("varieties", declared[key], "name"))
            problems.append(f"{where}: {shown(v.name)} is declared twice (first on line {first})")
            continue
        declared[key] = i
        if v.name in reg and key not in _declared_keys():
            problems.append(f"{where}: {shown(v.name)} is already a registry variety; use it in entries "
                            "without declaring it")
        problems += _cluster_problems(path, node, i, v, paper)
    first_rep: dict[str, int] = {}  # cluster -> its first representative
    for i, v in enumerate(cat.varieties):
        if v.representative and first_rep.setdefault(v.cluster, i) != i:
            problems.append(f"{_where(path, node, ('varieties', i, 'representative'))}: cluster "
                            f"{shown(v.cluster)} has more than one representative for {cat.task} (the first on "
                            f"line {_line_of(node, ('varieties', first_rep[v.cluster], 'name'))})")
    for i, e in enumerate(cat.entries):
        where = _where(path, node, ("entries", i, "variety"))
        if _invisible(e.variety):
            problems.append(f"{where}: {_invisible(e.variety)}")
            continue
        if lookup_key(e.variety) not in declared and e.variety in reg and reg.get(e.variety).name != e.variety:
            problems.append(f"{where}: write the variety as its registry name {reg.get(e.variety).name!r}")
        if lookup_key(e.variety) not in declared and e.variety not in reg:
            hints = reg.suggest(e.variety, n=3) if len(e.variety) < 200 else []
            hint = f"; did you mean: {', '.join(repr(h) for h in hints)}?" if hints else ""
            problems.append(f"{where}: unknown variety {shown(e.variety)} (declare it under varieties:){hint}")
    return problems


def _cluster_problems(path: Path, node: Any, i: int, v: UserVariety, paper: set[str]) -> list[str]:
    """A cluster is DialectBench's (then the file may not name its representative) or new on purpose."""
    where = _where(path, node, ("varieties", i, "cluster"))
    if not re.fullmatch(r"[a-z][a-z' -]*", v.cluster):
        return [f"{where}: cluster names are lower-case words ({shown(v.cluster)})"]
    if v.cluster not in paper:
        if v.new_cluster:
            return []
        hint = near(v.cluster, sorted(paper))
        return [f"{where}: unknown cluster {shown(v.cluster)}{hint} (a new cluster needs `new_cluster: true`)"]
    out = []
    if v.new_cluster:
        out.append(f"{_where(path, node, ('varieties', i, 'new_cluster'))}: {v.cluster!r} is a DialectBench "
                   "cluster, not a new one; remove new_cluster")
    if v.representative:
        out.append(f"{_where(path, node, ('varieties', i, 'representative'))}: {v.cluster!r} is a paper "
                   "cluster; its representative is fixed by DialectBench Table 9")
    return out


def _paper_clusters() -> set[str]:
    from dialectbench.varieties import registry
    from dialectbench.varieties.registry import lookup_key

    user = _declared_keys()
    return {v.cluster for v in registry() if lookup_key(v.name) not in user}


@functools.cache
def _taken(task: str) -> dict[str, str]:
    """Variety -> the catalogue that already has `task` data for it: a run reads one of them (the packaged
    catalogue over a mirror, the sample suite without one), so a user entry would replace published data."""
    from dialectbench.data.catalogue import catalogue_files
    from dialectbench.data.source import sample_dir

    if task not in catalogue_files():  # a task a user catalogue declares: no published data to protect
        return {}
    out = {e.variety: "the packaged catalogue" for e in load_catalogue(task).entries}
    sample = sample_dir() / f"{task}.yaml"
    if sample.is_file():
        for e in load_catalogue_file(sample).entries:
            out.setdefault(e.variety, "the bundled sample suite")
    return out


def _canonical(name: str) -> str:
    from dialectbench.varieties import registry

    reg = registry()
    return reg.get(name).name if name in reg else name


def _entry_problems(path: Path, node: Any, cat: UserTaskCatalogue, read: bool) -> list[str]:
    """Entries that clash with packaged data, reader arguments the format does not take, files that are not
    there, data that does not read."""
    from dialectbench.data.source import DataSource

    problems = []
    src = DataSource(path.parent, {cat.task: cat}, kind="mirror")  # files under the YAML folder
    for i, e in enumerate(cat.entries):
        owner = _taken(cat.task).get(_canonical(e.variety))
        if owner:
            problems.append(f"{_where(path, node, ('entries', i, 'variety'))}: {shown(e.variety)} already has "
                            f"{cat.task} data in {owner}; declare a new variety for your dataset (e.g. with an "
                            "i: identifier), so that the published data is never replaced")
        unusable = False
        for split, parts in e.splits.items():
            for j, part in enumerate(parts):
                found = _part_problems(path, node, e, ("entries", i, "splits", split, j), part)
                problems += found
                unusable |= bool(found)
        if "test" not in e.split_names():
            problems.append(f"{_where(path, node, ('entries', i, 'splits'))}: {shown(e.variety)} has no test "
                            "split; nothing can be evaluated on it")
        if read and not unusable:
            for split in sorted(e.split_names()):
                try:
                    examples = src.load(cat.task, e.variety, split)
                    if not examples:
                        problems.append(f"{_where(path, node, ('entries', i, 'splits'))}: "
                                        f"{shown(e.variety, quote=False)}: the {split} split is empty")
                    problems += _label_problems(path, node, cat, i, split, examples)
                except (DataError, OSError) as err:
                    problems.append(str(err).splitlines()[0])
    return list(dict.fromkeys(problems))  # an entry's option shared by several parts is named once


def _label_problems(path: Path, node: Any, cat: UserTaskCatalogue, i: int, split: str,
                    examples: list[Any]) -> list[str]:
    """A declared task's label set against the labels its data has (a typo would be a class of its own)."""
    spec = cat.task_spec()
    if spec is None or not spec.labels:
        return []
    other = sorted({x for ex in examples for x in _labels_of(spec.kind, ex)} - set(spec.labels))
    if not other:
        return []
    where = _where(path, node, ("entries", i, "splits", split))
    message = (f"{where}: {shown(cat.entries[i].variety, quote=False)} {split}: label(s) "
               f"{', '.join(map(repr, other))} not in the task's labels ({', '.join(spec.labels)})")
    return [message]


def _labels_of(kind: str, example: Any) -> tuple[str, ...]:
    """The labels of one example that a declared task's label set covers: its class (classification), its
    UPOS tags (tagging), its entity types, BIO prefix dropped and `O` left out (entity tagging)."""
    if kind == "tagging":
        return tuple(map(str, getattr(example, "upos", ())))
    if kind == "entity-tagging":
        return tuple(str(t).split("-", 1)[-1] for t in getattr(example, "tags", ()) if t != "O")
    return (str(example.label),) if hasattr(example, "label") else ()


def _part_problems(path: Path, node: Any, e: Any, loc: tuple[Any, ...], part: Any) -> list[str]:
    """One reader call's arguments (checked against the reader's signature) and files."""
    from dialectbench.data.readers import arguments
    from dialectbench.data.readers.sdqa import layout_problems

    files, options = part.file_args(), {**e.options, **part.options}
    out = []
    for at, problem in arguments.problems(e.format, files, options):
        if at[:1] == ("options",):
            at = (*loc, *at) if at[1] in part.options else (*loc[:2], *at)
        else:
            at = (*loc, "file" if part.file is not None else "files", *at[1:])
        out.append(f"{_where(path, node, at)}: {problem}")
    if e.format == "sdqa" and not out:
        meta = files.get("metadata")
        for arg, problem in layout_problems(PurePosixPath(files["questions"].path),
                                            PurePosixPath(meta.path) if meta else None, options["dialect"]):
            out.append(f"{_where(path, node, (*loc, 'files', arg, 'path'))}: {problem}")
    root = path.parent.resolve()
    for arg, ref in files.items():
        at = _where(path, node, (*loc, *(("file",) if part.file is not None else ("files", arg)), "path"))
        target = path.parent / ref.path
        if not _inside(target, root):  # a symbolic link out of the folder: never read, nor quoted
            out.append(f"{at}: {shown(ref.path, quote=False)} is a symbolic link that leaves {path.parent}; "
                       "data files must lie under the catalogue's folder")
            continue
        if not target.is_file():
            key = ("file",) if part.file is not None else ("files", arg)
            out.append(f"{_where(path, node, (*loc, *key, 'path'))}: {shown(ref.path, quote=False)}: no such file "
                       f"under {path.parent}")
    return out


def _inside(target: Path, root: Path) -> bool:
    """Whether `target` (a relative path without "..", joined to the catalogue's folder) stays under `root`
    once its symbolic links are followed; a link loop counts as leaving."""
    try:
        return target.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python 3.11)
        return False


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
        try:
            cat, problems = validate_file(path, read=False)
        except Exception as err:  # noqa: BLE001 - whatever a file makes the checks raise: one line, no traceback
            raise UserCatalogueError(f"{path}: cannot be read ({type(err).__name__}: "
                                     f"{shown(str(err), 200, quote=False)})") from None
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

    spec = cat.task_spec()
    if spec is not None:
        tasks_mod.register_task(spec)
    reg = registry()
    for v in cat.varieties:
        variety = Variety.parse(v.name, cluster=v.cluster, glottocode=v.glottocode, tasks=frozenset({cat.task}),
                                mbert_seen=v.mbert_seen, speakers=v.speakers)
        reg.add(variety)
        tasks_mod.registry.USER_VARIETIES.add(reg.get(v.name).name)
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
    tasks_mod.registry.USER_VARIETIES.clear()
    tasks_mod.forget_user_tasks()
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
        self._tasks = [spec for spec in (item.catalogue.task_spec() for item in items) if spec is not None]

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickled in a worker process (local pool, Ray): the tasks the catalogues declare are known there too."""
        from dialectbench import tasks as tasks_mod

        self.__dict__.update(state)
        for spec in state.get("_tasks", ()):
            tasks_mod.register_task(spec)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_base", "_user", "_tasks"):
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

    def label_meanings(self, task: str, variety: str) -> tuple[str, bool]:
        return self._of(task, variety).label_meanings(task, variety)

    def fingerprint(self, task: str, variety: str, split: str) -> str:
        return self._of(task, variety).fingerprint(task, variety, split)


def with_user_data(source: Any) -> Any:
    """`source` plus the loaded user catalogues' entries (`source` itself when none is loaded)."""
    items = loaded()
    return UserDataSource(source, items) if items else source
