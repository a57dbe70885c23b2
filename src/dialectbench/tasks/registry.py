"""Task specs (DialectBench Tables 1-2, from tasks.yaml) and cluster representatives (Table 9)."""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from importlib import resources
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from dialectbench.scores import SETTINGS
from dialectbench.varieties import TASK_IDS, UnknownTaskError, Variety, registry
from dialectbench.varieties.registry import RegistryDataError

Category = Literal["structured prediction", "sentence classification", "question answering", "text generation"]
MT_TASKS = ("mt-dialect", "mt-region")
ENGLISH = "english"  # the zero-shot source variety: English training data (DialectBench section 3.2, setting 4)
# Table 2: zero-shot means fine-tuning on English and testing on the variety, except for MT, where a
# pretrained translation model is applied without any fine-tuning (there is no source variety).
_NO_ENGLISH_SOURCE = frozenset(MT_TASKS)


class Task(BaseModel):
    """One task of the benchmark; unknown fields are rejected so typos in tasks.yaml fail loudly."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: str
    category: Category
    metric: str
    metric_label: str
    higher_is_better: bool = True
    # the metric name each per-variety score is stored under when it is not `metric` (DId: every variety's
    # score is its own class's F1 on the pooled cluster test, stored as `f1`; `metric` is the task's macro F1)
    variety_metric: str | None = None
    aggregation: Literal["mean"] = "mean"
    paper_metric: str
    published_metrics: tuple[str, ...] = ()
    # further metrics (not counts) each score of the task carries in its extra, with the task's direction
    secondary_metrics: tuple[str, ...] = ()
    settings: tuple[str, ...]
    # settings the original benchmark ran beyond Table 2 (its metadata and result files; docs/protocol.md)
    extra_settings: tuple[str, ...] = ()
    # what `dialectbench run` runs when no --settings is given (None: every setting of the task)
    default_settings: tuple[str, ...] | None = None
    datasets: tuple[str, ...]
    table8_column: str
    metadata_name: str
    pseudo_references: bool = False

    @field_validator("id")
    @classmethod
    def _known_id(cls, value: str) -> str:
        if value not in TASK_IDS:
            raise ValueError(f"task id {value!r} is not one of {', '.join(TASK_IDS)}")
        return value

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
        """The metric the task's per-variety scores are stored (and summarised) under."""
        return self.variety_metric or self.metric

    @property
    def declared_metrics(self) -> tuple[str, ...]:
        """Every metric tasks.yaml names for the task: only these carry a direction in results files
        (counts a score keeps beside them, sys_len or pooled_n, are not metrics)."""
        names = (self.metric, self.stored_metric, self.paper_metric, *self.published_metrics, *self.secondary_metrics)
        return tuple(dict.fromkeys(names))

    @property
    def summary_metrics(self) -> tuple[str, ...]:
        """The metric columns the paper's summaries read: the larger of `published_metrics` where given."""
        return self.published_metrics or (self.paper_metric,)

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
    missing = set(TASK_IDS) - set(tasks)
    if missing:
        raise ValueError(f"{path}: no spec for task(s) {sorted(missing)}")
    return {t: tasks[t] for t in TASK_IDS}


TASKS: dict[str, Task] = _load_tasks()


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
    tasks = TASK_IDS if task is None else expand_tasks(task)
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
