"""The plan: (tasks, varieties, model, settings) -> jobs, as DialectBench Table 2 implies.

One *job* is one evaluation: a model trained on a training set, scored on one variety's test split under
one setting. Jobs that share a training set (same task, same pooled varieties, same mode) form a
*group*: the executor fits the group's model once and evaluates it on every variety of the group. This
is how `in-variety` on English, `in-cluster` for the anglic cluster and `zero-shot` share one fit.

Settings (DialectBench §3.2):
- `zero-shot`: train on the task's English source, evaluate every variety (MT: no fine-tuning at all,
  the pretrained system translates; Table 2 "no reference").
- `in-variety`: train on the variety's own train split, evaluate on that variety.
- `in-cluster`: train on the cluster representative (Table 9), evaluate on every variety of the cluster.
  Dialect identification instead fits one classifier per cluster on all its varieties' train splits
  (DialectBench §3.2 item 2: "one dialect-identification model for each language cluster").
- `combined`: train on the union of every train split the task has (SD-QA's nine standard varieties for
  EQA, Belebele's English training data for MRC), evaluate on every variety.
- `icl`: only for a backend that does in-context learning (an LLM). The demonstrations come from
  `--fewshot-from`: the variety's own training split (`variety`), its cluster representative's (`cluster`)
  or the task's English training data (`english`). The default follows the paper: SA's Appendix I prompt
  shows a dataset's own labels (Positive, negative, neutral), which differ between SA datasets, so SA draws
  from the variety's own split (the split its in-variety fine-tuning uses); every other task from English
  (§3.2 item 5, "examples in English"). A source with no train split but a test split (SD-QA: the mirror
  ships its dev files, read as test) gives its demonstrations from that split, and the executor holds
  every test example that shares a demonstration's passage or text out of scoring.

Whatever cannot run (setting not in Table 2 for the task, no train or test split, no representative) is
a `Skip` with a reason, not an error. Unknown task, variety, cluster or setting names are user errors
(`PlanError`, with suggestions).
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from dialectbench.runner.flags import SHARED_LABEL_SPACE
from dialectbench.scores import SETTINGS

ENGLISH = "english"
PRETRAINED = "none (pretrained)"
TRAINING_FREE = "none (training-free)"  # a backend's model that needs no training data (MRC's sliding window)
FEWSHOT_SOURCES = ("variety", "cluster", "english")
DEFAULT_FEWSHOT = {"sa": "variety"}  # every other task: english (see the module doc)
# EQA without TyDi QA: each test question's typed (gold) form trains the reader, cross-fitted by passage
CROSS_FITTED = "the test set's gold questions, cross-fitted by passage"
KEY_VERSION = 1  # bump when what goes into a job key changes: stored jobs then no longer match


def _data_errors() -> tuple[type[BaseException], ...]:
    """What a data source raises when data is missing or unreadable (a skip, not a crash)."""
    try:
        from dialectbench.data import DataError
    except ImportError:
        return (OSError,)
    return (DataError, OSError)


DATA_ERRORS = _data_errors()


class PlanError(ValueError):
    """A name the user gave is unknown; the message carries the closest known names."""


def did_you_mean(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name.strip().lower(), [k.lower() for k in known], n=3, cutoff=0.5)
    return f" Did you mean: {', '.join(close)}?" if close else ""


def split_names(values: Iterable[str] | None) -> list[str] | None:
    """`["pos,dep", "ner"]` -> `["pos", "dep", "ner"]`; None stays None (= everything)."""
    if values is None:
        return None
    if isinstance(values, str):
        values = [values]
    # variety names contain commas inside their parentheses: split only outside them
    out: list[str] = []
    for value in values:
        depth, start = 0, 0
        for i, ch in enumerate(value):
            depth += ch == "("
            depth -= ch == ")"
            if ch in ",;" and depth == 0:
                out.append(value[start:i])
                start = i + 1
        out.append(value[start:])
    return [v.strip() for v in out if v.strip()] or None


class Source(Protocol):
    """What the plan and executor need from `dialectbench.data.open_source(...)`."""

    def varieties(self, task: str) -> list[str]: ...
    def splits(self, task: str, variety: str) -> set[str]: ...
    def load(self, task: str, variety: str, split: str) -> list[Any]: ...
    def fingerprint(self, task: str, variety: str, split: str) -> str: ...


class Catalogue(Protocol):
    """Registry lookups the plan needs (see `RegistryCatalogue`)."""

    def tasks(self) -> list[str]: ...
    def expand_task(self, name: str) -> list[str]: ...
    def settings(self, task: str) -> tuple[str, ...]: ...
    def canonical(self, variety: str) -> str: ...
    def cluster(self, variety: str) -> str: ...
    def clusters(self) -> list[str]: ...
    def representative(self, cluster: str, task: str) -> str | None: ...
    def english(self, task: str) -> str | None: ...
    def in_task(self, variety: str, task: str) -> bool: ...


class RegistryCatalogue:
    """`Catalogue` over `dialectbench.varieties` and `dialectbench.tasks` (the packaged registry)."""

    def __init__(self) -> None:
        from dialectbench import tasks as tasks_mod
        from dialectbench.varieties import registry

        self._tasks = tasks_mod
        self._reg = registry()

    def tasks(self) -> list[str]:
        return list(self._tasks.TASKS)

    def expand_task(self, name: str) -> list[str]:
        try:
            return list(self._tasks.expand_tasks(name))
        except LookupError as err:
            raise PlanError(str(err).strip("'\"") + "." + did_you_mean(name, [*self.tasks(), "mt"])) from None

    def settings(self, task: str) -> tuple[str, ...]:
        return tuple(self._tasks.get_task(task).all_settings)

    def default_settings(self, task: str) -> tuple[str, ...]:
        return tuple(self._tasks.get_task(task).defaults)

    def canonical(self, variety: str) -> str:
        from dialectbench.varieties import UnknownVarietyError

        try:
            return self._reg.get(variety).name
        except UnknownVarietyError as err:
            hints = list(getattr(err, "suggestions", []) or [])
            hint = f" Did you mean: {', '.join(hints[:3])}?" if hints else ""
            raise PlanError(f"unknown variety {variety!r}.{hint}") from None

    def cluster(self, variety: str) -> str:
        try:
            return self._reg.get(variety).cluster
        except LookupError:  # a variety only the user's data directory knows
            return "unregistered"

    def clusters(self) -> list[str]:
        return list(self._reg.clusters())

    def representative(self, cluster: str, task: str) -> str | None:
        try:
            return self._tasks.representative(cluster, task).name
        except LookupError:
            return None

    def english(self, task: str) -> str | None:
        source = self._tasks.zero_shot_source(task)
        return None if source is None else source.name

    def in_task(self, variety: str, task: str) -> bool:
        try:
            return task in self._reg.get(variety).tasks
        except LookupError:
            return False

    def task_varieties(self, task: str) -> list[str]:
        return [v.name for v in self._reg.varieties(task=task)]


@dataclass(frozen=True)
class TrainingSet:
    """The pooled train splits of `members` (empty = no fine-tuning); `label` is the scores' train_on."""

    task: str
    members: tuple[str, ...]
    label: str
    mode: str = "finetune"  # or "icl": the backend gets the data as exemplars, not to fit on
    pool: tuple[str, ...] = ()  # DId: the varieties whose test splits are scored together
    fewshot: str = ""  # icl: where the demonstrations come from (variety, cluster, english)
    split: str = "train"  # icl: the split demonstrations are drawn from ("test": held out of scoring)

    @property
    def demos(self) -> str:
        """The demonstration source as the score's signature names it ("" when not icl)."""
        if self.mode != "icl":
            return ""
        return f"demos:{self.fewshot}" + ("" if self.split == "train" else f"+{self.split}-held-out")


@dataclass(frozen=True)
class Job:
    task: str
    variety: str
    cluster: str
    model: str
    setting: str
    train_on: str
    key: str = ""


@dataclass(frozen=True)
class Skip:
    task: str
    variety: str | None
    setting: str | None
    reason: str


@dataclass
class Group:
    """One training set, fitted once, evaluated on each of `jobs`."""

    training: TrainingSet
    model: str
    jobs: list[Job] = field(default_factory=list)
    fingerprint: str = ""
    fingerprints: dict[tuple[str, str], str] = field(default_factory=dict)  # (variety, split) -> data hash
    sizes: dict[tuple[str, str], int] = field(default_factory=dict)  # (variety, split) -> bytes, where known
    fit_weight: float | None = None  # the backend's estimate of the fit's cost (see progress.group_weights)

    @property
    def task(self) -> str:
        return self.training.task


@dataclass
class Plan:
    groups: list[Group]
    skips: list[Skip]
    tasks: list[str]
    settings: list[str]

    @property
    def jobs(self) -> list[Job]:
        return [job for group in self.groups for job in group.jobs]


def _resolve_tasks(catalogue: Catalogue, names: Sequence[str] | None) -> list[str]:
    if not names:
        return catalogue.tasks()
    out: list[str] = []
    for name in names:
        out += [t for t in catalogue.expand_task(name) if t not in out]
    return out


def _resolve_settings(names: Sequence[str] | None) -> list[str]:
    if not names:
        return list(SETTINGS)
    out = []
    for name in names:
        key = name.strip().lower()
        if key not in SETTINGS:
            raise PlanError(f"unknown setting {name!r}; settings: {', '.join(SETTINGS)}."
                            + did_you_mean(key, SETTINGS))
        out.append(key)
    return out


def _resolve_clusters(catalogue: Catalogue, names: Sequence[str] | None) -> set[str] | None:
    if not names:
        return None
    known = catalogue.clusters()
    by_lower = {c.lower(): c for c in known}
    out = set()
    for name in names:
        key = " ".join(name.strip().lower().split())
        if key not in by_lower:
            raise PlanError(f"unknown cluster {name!r}." + did_you_mean(key, known))
        out.add(by_lower[key])
    return out


class _Builder:
    """Collects groups (deduplicated by training set) and skips for one plan."""

    def __init__(self, source: Source, catalogue: Catalogue, model: str, config_hash: str) -> None:
        self.source, self.catalogue, self.model, self.config_hash = source, catalogue, model, config_hash
        self.groups: dict[TrainingSet, Group] = {}
        self.skips: list[Skip] = []
        self._splits: dict[tuple[str, str], set[str]] = {}
        self.pending_notes: list[tuple] = []  # (task, available, clusters) for _note_missing

    def splits(self, task: str, variety: str) -> set[str]:
        if (task, variety) not in self._splits:
            try:
                self._splits[task, variety] = set(self.source.splits(task, variety))
            except DATA_ERRORS:  # DataNotAvailable or an unreadable mirror: treated as "no splits"
                self._splits[task, variety] = set()
        return self._splits[task, variety]

    def skip(self, task: str, variety: str | None, setting: str | None, reason: str) -> None:
        self.skips.append(Skip(task, variety, setting, reason))

    def add(self, training: TrainingSet, variety: str, setting: str) -> None:
        group = self.groups.setdefault(training, Group(training, self.model))
        job = Job(training.task, variety, self.catalogue.cluster(variety), self.model, setting, training.label)
        if job not in group.jobs:
            group.jobs.append(job)


# Training data the mirror and the catalogue lack, and where to get it (DialectBench §3.2, docs/protocol.md).
TRAINING_HINTS = {
    "mrc": "Belebele's English training set (the assembled multiple-choice data of Bandarkar et al. 2024) is "
           "not in the catalogue: get it from https://github.com/facebookresearch/belebele and add it as the "
           "train split of 'english' in a user catalogue",
    "eqa": "the TyDi QA GoldP training set (English for zero-shot, the nine SD-QA languages for combined) is not "
           "in the catalogue: download tydiqa-goldp-v1.1-train.json from "
           "https://storage.googleapis.com/tydiqa/v1.1/ and add it as the train split in a user catalogue",
}


def training_hint(task: str) -> str:
    hint = TRAINING_HINTS.get(task)
    return f"; {hint}" if hint else ""


def _training_label(members: Sequence[str]) -> str:
    return members[0] if len(members) == 1 else f"combined ({len(members)} varieties)"


def _english_source(b: _Builder, task: str, available: list[str]) -> str | None:
    """The English training data zero-shot uses (the registry's zero-shot source, `english`)."""
    candidates = [b.catalogue.english(task), ENGLISH]
    for name in candidates:
        if name and name in available and "train" in b.splits(task, name):
            return name
    return None


def _plan_zero_shot(b: _Builder, task: str, evals: list[str], available: list[str]) -> None:
    from dialectbench.tasks import MT_TASKS

    if task in MT_TASKS:  # evaluated zero-shot with the pretrained system, no training
        training = TrainingSet(task, (), PRETRAINED)
    else:
        english = _english_source(b, task, available)
        if english is None:
            b.skip(task, None, "zero-shot", "no English training data (a train split of 'english') for this "
                   "task" + training_hint(task))
            return
        training = TrainingSet(task, (english,), english)
    for v in evals:
        b.add(training, v, "zero-shot")


def _icl_english(b: _Builder, task: str, available: list[str]) -> str | None:
    """The English demonstrations of `task`: the registry's zero-shot source, else the English cluster's
    representative (SD-QA has no plain `english`: Table 9 names southeast american english)."""
    candidates = [b.catalogue.english(task), ENGLISH, b.catalogue.representative(b.catalogue.cluster(ENGLISH), task)]
    with_data = [name for name in candidates if name and name in available]
    return next((name for name in with_data if "train" in b.splits(task, name)), None) or \
        next((name for name in with_data if "test" in b.splits(task, name)), None)


def _plan_icl(b: _Builder, task: str, evals: list[str], available: list[str], fewshot: str | None) -> None:
    kind = fewshot or DEFAULT_FEWSHOT.get(task, "english")
    english = _icl_english(b, task, available) if kind == "english" else None
    for v in evals:
        if kind == "variety":
            source, where = v, "the variety"
        elif kind == "cluster":
            source = b.catalogue.representative(b.catalogue.cluster(v), task)
            where = f"its cluster representative {source!r}"
            if source is None:
                b.skip(task, v, "icl", f"cluster {b.catalogue.cluster(v)} has no representative for {task} "
                                       "(DialectBench Table 9); try --fewshot-from variety or english")
                continue
        else:
            source, where = english, "English"
            if source is None:
                b.skip(task, v, "icl", "no English data for this task to draw demonstrations from"
                       + training_hint(task))
                continue
        splits = b.splits(task, source) if source in available else set()
        split = "train" if "train" in splits else "test" if "test" in splits else None
        if split is None:
            b.skip(task, v, "icl", f"{where} has no train or test split to draw demonstrations from "
                                   f"(--fewshot-from {kind}); try another --fewshot-from")
            continue
        b.add(TrainingSet(task, (source,), source, "icl", fewshot=kind, split=split), v, "icl")


def _plan_in_variety(b: _Builder, task: str, evals: list[str]) -> None:
    for v in evals:
        if "train" in b.splits(task, v):
            b.add(TrainingSet(task, (v,), v), v, "in-variety")
        else:
            b.skip(task, v, "in-variety", "no train split for this variety")


def _by_cluster(b: _Builder, varieties: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for v in varieties:
        out.setdefault(b.catalogue.cluster(v), []).append(v)
    return out


def _plan_in_cluster(b: _Builder, task: str, evals: list[str], available: list[str]) -> None:
    for cluster, members in _by_cluster(b, evals).items():
        training = _cluster_training(b, task, cluster, available)
        if isinstance(training, str):
            for v in members:
                b.skip(task, v, "in-cluster", training)
            continue
        for v in members:
            b.add(training, v, "in-cluster")


def _cluster_training(b: _Builder, task: str, cluster: str, available: list[str]) -> TrainingSet | str:
    """The in-cluster training set of `cluster`, or the reason there is none."""
    from dialectbench.tasks import kind_of

    if kind_of(task).pools_cluster:  # DId: one classifier per cluster over all its varieties (labels = varieties)
        members = [v for v in available if b.catalogue.cluster(v) == cluster]
        train = tuple(sorted(v for v in members if "train" in b.splits(task, v)))
        if not train:
            return f"no variety of {cluster} has a dialect-identification train split"
        pool = tuple(sorted(v for v in members if "test" in b.splits(task, v)))
        return TrainingSet(task, train, f"{cluster} (all varieties)", pool=pool)
    rep = b.catalogue.representative(cluster, task)
    if rep is None:
        return f"cluster {cluster} has no representative for {task} (DialectBench Table 9)"
    if rep not in available or "train" not in b.splits(task, rep):
        return f"the cluster representative {rep!r} has no train split"
    return TrainingSet(task, (rep,), rep)


def _plan_combined(b: _Builder, task: str, evals: list[str], available: list[str],
                   training_free: Collection[str] = (), cross_fit: Collection[str] = ()) -> None:
    pool = tuple(sorted(v for v in available if "train" in b.splits(task, v)))
    if not pool and task in cross_fit:  # trained on each test set's typed questions, never on its passages
        training = TrainingSet(task, (), CROSS_FITTED, mode="crossfit")
        for v in evals:
            b.add(training, v, "combined")
        return
    if not pool:
        b.skip(task, None, "combined", "no variety of this task has a train split" + training_hint(task))
        if task in training_free:  # still a labelled number: the backend's model that learns nothing
            training = TrainingSet(task, (), TRAINING_FREE)
            for v in evals:
                b.add(training, v, "zero-shot")
        return
    training = TrainingSet(task, pool, _training_label(pool))
    for v in evals:
        b.add(training, v, "combined")


def _select(b: _Builder, task: str, available: list[str], wanted: list[str] | None,
            clusters: set[str] | None) -> list[str]:
    """The varieties of `task` to evaluate (have data and a test split), skipping the rest with a reason."""
    if wanted is not None:
        for v in wanted:
            if v not in available and b.catalogue.in_task(v, task):
                b.skip(task, v, None, "no data for this variety in the data source")
        chosen = [v for v in available if v in wanted]
    else:
        chosen = list(available)
    if clusters is not None:
        chosen = [v for v in chosen if b.catalogue.cluster(v) in clusters]
    evals = []
    for v in chosen:
        if "test" in b.splits(task, v):
            evals.append(v)
        else:
            b.skip(task, v, None, "no test split")
    return evals


def _note_missing(b: _Builder, task: str, available: list[str], clusters: set[str] | None) -> None:
    """One skip line for the task's registered varieties the data source has no file of."""
    listing = getattr(b.catalogue, "task_varieties", None)
    if listing is None or getattr(b.source, "kind", None) != "mirror":  # the sample suite is a sample
        return
    missing = [v for v in listing(task) if v not in available
               and (clusters is None or b.catalogue.cluster(v) in clusters)]
    if missing:
        shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        b.skip(task, None, None, f"{len(missing)} of its varieties have no data here ({shown}): "
                                 f"`dialectbench data list --tasks {task}` names the files each needs, "
                                 f"`dialectbench data fetch --tasks {task}` gets the public ones")


def _plan_task(b: _Builder, task: str, settings: list[str], wanted: list[str] | None,
               clusters: set[str] | None, supports_icl: bool, explicit: bool, fewshot: str | None,
               training_free: Collection[str] = (), cross_fit: Collection[str] = ()) -> None:
    try:
        available = list(b.source.varieties(task))
    except DATA_ERRORS as err:  # DataNotAvailable: a data-related problem, the rest continues
        b.skip(task, None, None, f"no data: {err}")
        return
    if not available:
        b.skip(task, None, None, f"no data for this task in {getattr(b.source, 'root', 'the data source')} "
                                 f"(see `dialectbench data list --tasks {task}`)")
        return
    if wanted is None:  # said after the task's other skips (see _note_missing)
        b.pending_notes.append((task, available, clusters))
    evals = _select(b, task, available, wanted, clusters)
    if not evals:
        if wanted is None and clusters is None:
            b.skip(task, None, None, "no variety of this task has a test split")
        return
    allowed = b.catalogue.settings(task)
    if not explicit:  # a catalogue without defaults (a test double) runs every allowed setting
        defaults = getattr(b.catalogue, "default_settings", None)
        settings = [s for s in settings if s in (defaults(task) if defaults else allowed)]
    for setting in settings:
        if setting not in allowed:
            if explicit:  # asked for by name: say why it does not apply; by default just leave it out
                b.skip(task, None, setting,
                       f"not a {task} setting (DialectBench Table 2; docs/protocol.md): {', '.join(allowed)}")
        elif setting == "icl" and not supports_icl:
            b.skip(task, None, setting, f"icl needs an in-context-learning (LLM) backend; {b.model!r} is not one")
        elif setting == "icl":
            _plan_icl(b, task, evals, available, fewshot)
        elif setting == "zero-shot":
            _plan_zero_shot(b, task, evals, available)
        elif setting == "in-variety":
            _plan_in_variety(b, task, evals)
        elif setting == "in-cluster":
            _plan_in_cluster(b, task, evals, available)
        else:
            _plan_combined(b, task, evals, available, training_free, cross_fit)


def config_hash(config: Any, length: int = 16) -> str:
    """A stable short hash of any JSON-able value."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:length]


def _fingerprint(b: _Builder, task: str, variety: str, split: str) -> str:
    try:
        return str(b.source.fingerprint(task, variety, split))
    except DATA_ERRORS:
        return "missing"


def _size(b: _Builder, task: str, variety: str, split: str) -> int | None:
    """The split's bytes on disk, for scheduling and the progress ETA (None: the source cannot tell)."""
    size = getattr(b.source, "split_bytes", None)
    try:
        return int(size(task, variety, split)) if size is not None else None
    except (*DATA_ERRORS, OSError, TypeError, ValueError, AttributeError):
        return None


def _assign_keys(b: _Builder, group: Group) -> None:
    """Job key = hash of what decides the result: names, setting, data fingerprints, config."""
    task = group.task
    fps = group.fingerprints
    own = group.training.split  # icl may draw its demonstrations from a test split
    wanted = [(v, own) for v in group.training.members]
    wanted += [(v, "dev") for v in group.training.members if own == "train" and "dev" in b.splits(task, v)]
    wanted += [(v, "test") for v in {*group.training.pool, *(j.variety for j in group.jobs)}]
    for v, split in wanted:
        fps[v, split] = _fingerprint(b, task, v, split)
        size = _size(b, task, v, split)
        if size is not None:
            group.sizes[v, split] = size
    train = [[v, fps[v, own], fps.get((v, "dev"))] for v in group.training.members]
    pool = [fps[v, "test"] for v in group.training.pool]  # DId scores depend on the whole pooled test
    group.fingerprint = config_hash({"train": train, "mode": group.training.mode, "config": b.config_hash})
    keyed = []
    for job in group.jobs:
        payload = {"v": KEY_VERSION, "task": job.task, "variety": job.variety, "model": job.model,
                   "setting": job.setting, "train_on": job.train_on, "train": train, "mode": group.training.mode,
                   "test": fps[job.variety, "test"], "pool": pool, "config": b.config_hash}
        if (job.task, job.setting) in SHARED_LABEL_SPACE:  # trained on the shared labels: another result
            payload["label_space"] = "shared"
        if group.training.demos:  # icl: where the demonstrations came from
            payload["demos"] = group.training.demos
        keyed.append(Job(**{**job.__dict__, "key": config_hash(payload, 32)}))
    group.jobs = keyed


def build_plan(source: Source, *, model: str, tasks: Sequence[str] | None = None,
               varieties: Sequence[str] | None = None, clusters: Sequence[str] | None = None,
               settings: Sequence[str] | None = None, supports_icl: bool = False,
               config: dict[str, Any] | None = None, catalogue: Catalogue | None = None,
               fewshot: str | None = None, training_free: Collection[str] = (),
               cross_fit: Collection[str] = ()) -> Plan:
    """Build the jobs for `model`; `config` (backend config, seed...) is part of every job key; `fewshot`
    (variety, cluster, english; None: each task's default) is where icl demonstrations come from;
    `training_free`: tasks the backend can evaluate without training data (as `zero-shot`, trained on
    TRAINING_FREE) when the data source has none for the task's combined setting. `cross_fit`: tasks whose
    combined setting, lacking training data, is cross-fitted on the test sets' typed questions instead
    (trained on CROSS_FITTED, mode "crossfit"; EQA on SD-QA)."""
    if fewshot is not None and fewshot not in FEWSHOT_SOURCES:
        raise PlanError(f"unknown --fewshot-from {fewshot!r}; choose {', '.join(FEWSHOT_SOURCES)}."
                        + did_you_mean(fewshot, FEWSHOT_SOURCES))
    catalogue = catalogue or RegistryCatalogue()
    task_ids = _resolve_tasks(catalogue, split_names(tasks))
    chosen_settings = _resolve_settings(split_names(settings))
    wanted_names = split_names(varieties)
    wanted = None if wanted_names is None else [catalogue.canonical(v) for v in wanted_names]
    wanted_clusters = _resolve_clusters(catalogue, split_names(clusters))
    b = _Builder(source, catalogue, model, config_hash(config or {}))
    for task in task_ids:
        _plan_task(b, task, chosen_settings, wanted, wanted_clusters, supports_icl,
                   explicit=split_names(settings) is not None, fewshot=fewshot, training_free=training_free,
                   cross_fit=cross_fit)
    for note in b.pending_notes:
        _note_missing(b, *note)
    for v in wanted or []:
        if not any(j.variety == v for g in b.groups.values() for j in g.jobs) and \
                not any(s.variety == v for s in b.skips):
            b.skip("-", v, None, f"not a variety of the selected tasks ({', '.join(task_ids)})")
    groups = [g for g in b.groups.values() if g.jobs]
    for group in groups:
        _assign_keys(b, group)
    return Plan(groups, b.skips, task_ids, chosen_settings)
