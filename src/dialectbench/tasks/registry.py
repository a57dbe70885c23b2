"""Task specs (DialectBench Tables 1-2, from tasks.yaml) and cluster representatives (Table 9)."""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from importlib import resources
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from dialectbench.scores import SETTINGS
from dialectbench.tasks.kinds import KINDS, Kind
from dialectbench.varieties import MT_TASKS, TASK_IDS, UnknownTaskError, Variety, declare_task_id, registry
from dialectbench.varieties.registry import RegistryDataError

Category = Literal["structured prediction", "sentence classification", "question answering", "text generation"]
ENGLISH = "english"  # the zero-shot source variety: English training data (DialectBench section 3.2, setting 4)
# Table 2: zero-shot means fine-tuning on English and testing on the variety, except for MT, where a
# pretrained translation model is applied without any fine-tuning (there is no source variety).
_NO_ENGLISH_SOURCE = frozenset(MT_TASKS)


class Task(BaseModel):
    """One task of the benchmark; unknown fields are rejected so typos in tasks.yaml fail loudly."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    name: str
    kind: str  # one of tasks/kinds.py KINDS: how it trains, scores and pools
    category: Category | None = None  # Table 1's grouping (packaged tasks)
    metric: str
    metric_label: str
    higher_is_better: bool = True
    aggregation: Literal["mean"] = "mean"
    paper_metric: str | None = None  # None: the task's own `metric` (a user's task; no paper to follow)
    published_metrics: tuple[str, ...] = ()
    # further metrics (not counts) each score of the task carries in its extra, with the task's direction
    secondary_metrics: tuple[str, ...] = ()
    settings: tuple[str, ...]
    # settings the original benchmark ran beyond Table 2 (its metadata and result files; docs/protocol.md)
    extra_settings: tuple[str, ...] = ()
    # what `dialectbench run` runs when no --settings is given (None: every setting of the task)
    default_settings: tuple[str, ...] | None = None
    datasets: tuple[str, ...] = ()
    table8_column: str | None = None
    metadata_name: str | None = None
    pseudo_references: bool = False
    labels: tuple[str, ...] = ()  # the label set (a user's classification task; empty: whatever the data has)

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, value: str) -> str:
        if value not in KINDS:
            raise ValueError(f"unknown task kind {value!r}; known: {', '.join(KINDS)}")
        return value

    @model_validator(mode="after")
    def _metric_of_kind(self) -> Task:
        allowed = KINDS[self.kind].metrics
        if self.metric not in allowed:
            raise ValueError(f"a {self.kind} task scores {' or '.join(allowed)}, not {self.metric!r}")
        if self.paper_metric is None:
            object.__setattr__(self, "paper_metric", self.metric)
        return self

    @property
    def protocol(self) -> Kind:
        """The kind's protocol object (tasks/kinds.py)."""
        return KINDS[self.kind]

    @field_validator("settings", "extra_settings", "default_settings")
    @classmethod
    def _known_settings(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is None:
            return value
        bad = [s for s in value if s not in SETTINGS]
        if bad:
            raise ValueError(f"unknown setting(s) {bad}; valid: {', '.join(SETTINGS)}")
        return value

    @property
    def stored_metric(self) -> str:
        """The metric the task's per-variety scores are stored (and summarised) under: the kind's per-variety
        metric where it pools a cluster (DId: each variety's own class F1 on the pooled test, `f1`)."""
        return self.protocol.per_variety_metric or self.metric

    @property
    def declared_metrics(self) -> tuple[str, ...]:
        """Every metric tasks.yaml names for the task: only these carry a direction in results files
        (counts a score keeps beside them, sys_len or pooled_n, are not metrics)."""
        names = (self.metric, self.stored_metric, self.paper_metric, *self.published_metrics, *self.secondary_metrics)
        return tuple(dict.fromkeys(n for n in names if n))

    @property
    def scored_by(self) -> str:
        """What each variety's stored score is, in words: "macro F1", "span F1", "UAS"."""
        return self.protocol.scored_by(self.metric)

    @property
    def summary_metrics(self) -> tuple[str, ...]:
        """The metric columns the paper's summaries read: the larger of `published_metrics` where given."""
        return self.published_metrics or (self.paper_metric or self.metric,)

    @property
    def all_settings(self) -> tuple[str, ...]:
        """Table 2's settings plus those the original benchmark also ran."""
        return self.settings + tuple(s for s in self.extra_settings if s not in self.settings)

    @property
    def defaults(self) -> tuple[str, ...]:
        """The settings run when none is asked for."""
        return self.all_settings if self.default_settings is None else self.default_settings


@dataclass(frozen=True)
class Representative:
    """The cluster representative of `cluster` for `task`; `source` says where it comes from."""

    task: str
    cluster: str
    variety: Variety
    source: str  # "table 9", or "sole variety" for a one-variety cluster that Table 9 leaves out


def _load_tasks() -> dict[str, Task]:
    path = resources.files("dialectbench.tasks").joinpath("tasks.yaml")
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    tasks: dict[str, Task] = {}
    for i, entry in enumerate(entries):
        try:
            task = Task(**entry)
        except (ValidationError, TypeError) as exc:
            raise ValueError(f"{path}: entry {i + 1}: {exc}") from None
        tasks[task.id] = task
    return tasks


# the packaged tasks (the ids varieties.TASK_IDS reads from the same file), then those user catalogues declare
TASKS: dict[str, Task] = _load_tasks()


def register_task(task: Task) -> Task:
    """Add a user catalogue's task (`new_task:`): it then runs, stores and reports like a packaged one.
    A packaged id cannot be redeclared; the same declaration twice (two files of one task) is fine."""
    if task.id in TASK_IDS or task.id == "mt":
        raise ValueError(f"task {task.id!r} is a packaged task: give your task its own id")
    if not task.protocol.user_declarable:
        user = [k.name for k in KINDS.values() if k.user_declarable]
        raise ValueError(f"a user catalogue cannot declare a {task.kind} task (yet); kinds: {', '.join(user)}")
    if task.id in TASKS and TASKS[task.id] != task:
        raise ValueError(f"task {task.id!r} is declared twice, differently")
    declare_task_id(task.id, task.kind)
    TASKS[task.id] = task
    return task


def forget_user_tasks() -> None:
    """Drop the tasks user catalogues declared (tests; `user_catalogue.reset`)."""
    from dialectbench.varieties import forget_user_task_ids

    for task in [t for t in TASKS if t not in TASK_IDS]:
        del TASKS[task]
    forget_user_task_ids()


def expand_tasks(task: str) -> list[str]:
    """Task ids selected by `task`: `mt` selects both MT flavours; raises UnknownTaskError listing valid ids."""
    key = task.strip().lower()
    if key == "mt":
        return list(MT_TASKS)
    if key not in TASKS:
        raise UnknownTaskError(task)
    return [key]


def get_task(task: str) -> Task:
    """The spec of one task id (not `mt`, which names two tasks)."""
    ids = expand_tasks(task)
    if len(ids) != 1:
        raise UnknownTaskError(f"{task} (names {' and '.join(ids)}; pick one)")
    return TASKS[ids[0]]


@functools.cache
def _table9() -> dict[tuple[str, str], Variety]:
    """(task, cluster) -> representative, read from representatives.csv and checked against the registry."""
    reg = registry()
    path = resources.files("dialectbench.tasks").joinpath("representatives.csv")
    out: dict[tuple[str, str], Variety] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        for row in reader:
            def fail(problem: str) -> RegistryDataError:
                return RegistryDataError(str(path), reader.line_num, problem)
            if row["task"] not in TASKS:
                raise fail(f"unknown task {row['task']!r}")
            variety = reg.get(row["variety"])
            if variety.cluster != row["cluster"]:
                raise fail(f"{variety.name!r} belongs to cluster {variety.cluster!r}, not {row['cluster']!r}")
            if row["task"] not in variety.tasks:
                raise fail(f"{variety.name!r} is not a {row['task']} variety in the registry")
            if (row["task"], row["cluster"]) in out:
                raise fail(f"second representative for {row['cluster']!r} in {row['task']}")
            out[(row["task"], row["cluster"])] = variety
    return out


def representatives(task: str | None = None) -> list[Representative]:
    """The representative of every (task, cluster) pair with data, in task then cluster order."""
    tasks = list(TASKS) if task is None else expand_tasks(task)
    return [_representative(t, c) for t in tasks for c in registry().clusters(task=t)]


# (task, cluster) -> representative declared by a user catalogue for a cluster Table 9 does not have
USER_REPRESENTATIVES: dict[tuple[str, str], Variety] = {}
# names of the varieties user catalogues declared: never a cluster's representative by default
USER_VARIETIES: set[str] = set()


def _representative(task: str, cluster: str) -> Representative:
    table9 = _table9()
    if (task, cluster) in table9:
        return Representative(task, cluster, table9[(task, cluster)], "table 9")
    if (task, cluster) in USER_REPRESENTATIVES:
        return Representative(task, cluster, USER_REPRESENTATIVES[(task, cluster)], "user catalogue")
    members = [v for v in registry().varieties(task=task, cluster=cluster) if v.name not in USER_VARIETIES]
    if len(members) == 1:  # a user's variety represents a cluster only where its file says representative: true
        return Representative(task, cluster, members[0], "sole variety")
    raise LookupError(f"cluster {cluster!r} has {len(members)} {task} varieties and no Table 9 representative")


def representative(cluster: str, task: str) -> Variety:
    """The cluster representative of `cluster` for `task` (DialectBench Table 9).

    Table 9 leaves out clusters with a single variety in a task; that variety represents itself.
    Raises LookupError when the cluster has no variety in the task.
    """
    task_id = get_task(task).id
    cluster = registry().cluster_name(cluster)
    if not registry().varieties(task=task_id, cluster=cluster):
        raise LookupError(f"cluster {cluster!r} has no varieties in task {task_id!r}")
    return _representative(task_id, cluster).variety


def zero_shot_source(task: str) -> Variety | None:
    """The variety whose training data the zero-shot setting fine-tunes on (standard English), or None
    where the task has no zero-shot setting or zero-shot means applying a pretrained model as is (MT)."""
    spec = get_task(task)
    if "zero-shot" not in spec.settings or spec.id in _NO_ENGLISH_SOURCE:
        return None
    return registry().get(ENGLISH)
