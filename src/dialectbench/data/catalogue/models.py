"""Pydantic models of the dataset catalogue: one YAML file per task, unknown keys rejected.

A catalogue file binds each (variety, split) of a task to the files a reader turns into examples.
Every file has a `path` in the data-directory layout (the layout of a local mirror such as
`../shared/data`, and of the download cache); where the file can be downloaded, `url` (+ `sha256`, `size`)
or `hf` (a Hugging Face dataset repository pinned to a revision) says from where. Datasets that are
not public carry an `obtain` text saying how to get them by hand.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from dialectbench.data.errors import near, shown
from dialectbench.varieties import TASK_IDS, task_ids  # noqa: F401 - TASK_IDS: data.catalogue re-exports it

SPLITS = ("train", "dev", "test")
FORMATS = ("conllu", "iob", "labelled", "pairs", "multiple_choice", "squad", "goldp", "parallel", "sdqa")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class HFFile(_Strict):
    """A Hugging Face dataset source: one file of the repository (`file`, fetched with huggingface_hub), or a
    (config, split) of the dataset (exported with the `datasets` library when it is installed)."""

    repo: str
    revision: str
    file: str | None = None
    config: str | None = None
    split: str | None = None

    @model_validator(mode="after")
    def _file_or_split(self) -> HFFile:
        if not self.file and not (self.config and self.split):
            raise ValueError(f"{shown(self.repo, quote=False)}: give `file`, or `config` and `split`")
        return self

    @property
    def pinned(self) -> bool:
        return bool(re.fullmatch(r"[0-9a-f]{40}", self.revision))


class FileRef(_Strict):
    """Where one file lives: `path` in the data-directory layout, and optionally where to download it."""

    path: str
    url: str | None = None
    sha256: str | None = None
    size: int | None = Field(None, ge=0, strict=True, description="bytes of the url download: a longer or "
                             "differently declared response is refused while streaming")
    member: str | None = Field(None, description="file inside the downloaded archive (zip/tar)")
    hf: HFFile | None = None

    @field_validator("path", "member")
    @classmethod
    def _relative(cls, v: str | None) -> str | None:
        if v is None:
            return v
        if v.startswith("/") or ".." in v.split("/") or "\\" in v:
            raise ValueError(f"must be a relative path without '..': {shown(v)}")
        if not v or _CONTROL.search(v) or any(len(part.encode()) > 255 for part in v.split("/")):
            raise ValueError(f"not a usable file name (empty, a control character, or a part over 255 bytes): "
                             f"{shown(v)}")
        return v

    @field_validator("sha256")
    @classmethod
    def _hex(cls, v: str | None) -> str | None:
        if v is not None and not _SHA256.match(v):
            raise ValueError(f"sha256 must be 64 lower-case hex digits, got {shown(v)}")
        return v

    @model_validator(mode="after")
    def _one_remote(self) -> FileRef:
        if self.url and self.hf:
            raise ValueError("give either url or hf, not both")
        if self.member and not self.url:
            raise ValueError("member needs a url (it names a file inside a downloaded archive)")
        if self.sha256 and not self.url:
            raise ValueError("sha256 belongs to a url download")
        if self.size is not None and not self.url:
            raise ValueError("size belongs to a url download")
        return self

    @property
    def remote(self) -> bool:
        return bool(self.url or self.hf)


class Part(_Strict):
    """One reader call: the files passed as the reader's arguments, plus part-specific options."""

    file: FileRef | None = None
    files: dict[str, FileRef] | None = None
    options: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _exactly_one(self) -> Part:
        if (self.file is None) == (self.files is None):
            raise ValueError("a part needs exactly one of `file` or `files`")
        return self

    def file_args(self) -> dict[str, FileRef]:
        """Reader keyword -> file (a single `file` is the reader's first argument, `path`)."""
        return {"path": self.file} if self.file is not None else dict(self.files or {})


class Derive(_Strict):
    """Splits derived from an unsplit dataset (split `all`): a seeded, order-independent partition.

    An example goes to `test` with probability `test`, else to `dev` with probability `dev`
    (of the remainder), else to `train`; the draw is a hash of (seed, the example's normalised text), so
    that repeated texts (retweets, copied comments) land in one split instead of leaking from train into
    test. `portion` [lo, hi) keeps only the examples whose (seed-free) text hash falls in it: two varieties
    cut from one file take disjoint portions, so neither ever trains on the other's test set."""

    test: float = Field(0.3, gt=0, lt=1)
    dev: float = Field(0.1, ge=0, lt=1)
    seed: int = 0
    portion: tuple[float, float] = (0.0, 1.0)

    @model_validator(mode="after")
    def _portion_in_unit_interval(self) -> Derive:
        lo, hi = self.portion
        if not 0.0 <= lo < hi <= 1.0:
            raise ValueError(f"portion [{lo}, {hi}) must satisfy 0 <= lo < hi <= 1")
        return self


class Entry(_Strict):
    """The data of one variety for one task."""

    variety: str
    dataset: str
    format: Literal[FORMATS]  # type: ignore[valid-type]
    options: dict[str, Any] = Field(default_factory=dict, description="reader keyword arguments")
    splits: dict[Literal["train", "dev", "test", "all"], list[Part]]
    derive: Derive | None = None
    keep_labels: list[str] | None = Field(None, description="keep only examples with these raw labels")
    label_map: dict[str, str] | None = Field(None, description="raw label -> label the task uses")
    note: str | None = None

    @model_validator(mode="after")
    def _derive_needs_all(self) -> Entry:
        if ("all" in self.splits) != (self.derive is not None):
            raise ValueError(f"{shown(self.variety, quote=False)}: split `all` and `derive` go together")
        if "all" in self.splits and len(self.splits) > 1:
            raise ValueError(f"{shown(self.variety, quote=False)}: split `all` cannot be mixed with named splits")
        if any(not parts for parts in self.splits.values()):
            raise ValueError(f"{shown(self.variety, quote=False)}: a split needs at least one part")
        return self

    def split_names(self) -> set[str]:
        if self.derive is not None:
            return {"train", "test"} | ({"dev"} if self.derive.dev > 0 else set())
        return set(self.splits)


# The one label set of each task whose datasets declare label meanings (`Dataset.labels`), with what each
# label means: every dataset maps its own labels onto it, so a label name means one thing across datasets.
# SA: ASTD's NEUTRAL is "subjective mixed" and its OBJ "objective" (Nabil et al. 2015), where MAC, TUNIZI
# and the Saudi Bank dataset call a text without sentiment "neutral": one name, two meanings.
TASK_LABELS: dict[str, dict[str, str]] = {
    "sa": {"positive": "subjective, positive sentiment",
           "negative": "subjective, negative sentiment",
           "neutral": "no sentiment expressed (objective)",
           "mixed": "subjective, both positive and negative sentiment"},
}


class LabelMeanings(_Strict):
    """What a dataset's labels mean: each of its labels (as its files write them) -> the task's label set
    (TASK_LABELS), with the source's own definition quoted and cited."""

    map: dict[str, str] = Field(description="the dataset's label -> the task-level label it means")
    definition: str = Field(description="the source's own definition of its labels, with where it says so")


class Dataset(_Strict):
    name: str
    licence: str
    citation: str
    homepage: str | None = None
    public: bool = True
    obtain: str | None = Field(None, description="how to obtain it by hand (required when not public)")
    labels: LabelMeanings | None = Field(None, description="what its labels mean (scored on the task's set)")

    @model_validator(mode="after")
    def _obtain_if_private(self) -> Dataset:
        if not self.public and not self.obtain:
            raise ValueError(f"{shown(self.name, quote=False)}: a dataset that is not public needs `obtain`")
        return self


class TaskCatalogue(_Strict):
    task: str  # a packaged task id, or one a user catalogue declares (`new_task:`)
    description: str
    datasets: dict[str, Dataset]
    entries: list[Entry]

    @field_validator("task")
    @classmethod
    def _known_task(cls, value: str, info: Any) -> str:
        declared = (info.context or {}).get("declared_task")  # a user file's own `new_task:`
        if value not in task_ids() and value != declared:
            raise ValueError(f"unknown task {shown(value)}; valid task ids: {', '.join(task_ids())}"
                             " (or declare your own with `new_task:`)")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> TaskCatalogue:
        seen: set[str] = set()
        for e in self.entries:
            if e.dataset not in self.datasets:
                raise ValueError(f"{self.task}/{shown(e.variety, quote=False)}: unknown dataset {shown(e.dataset)}"
                                 + near(e.dataset, self.datasets))
            if e.variety in seen:
                raise ValueError(f"{self.task}: variety {shown(e.variety)} listed twice")
            seen.add(e.variety)
            self._check_meanings(e)
        for key, d in self.datasets.items():
            task_labels = TASK_LABELS.get(self.task)
            if d.labels is None:
                continue
            if task_labels is None:
                raise ValueError(f"{self.task}/{shown(key, quote=False)}: `labels` declares label meanings, but "
                                 f"task {self.task} has no task-level label set (tasks with one: "
                                 f"{', '.join(TASK_LABELS)})")
            bad = sorted(set(d.labels.map.values()) - set(task_labels))
            if bad:
                raise ValueError(f"{self.task}/{shown(key, quote=False)}: labels {', '.join(map(shown, bad))} are not "
                                 f"in the task's label set ({', '.join(task_labels)})" + near(bad[0], task_labels))
        return self

    def _check_meanings(self, e: Entry) -> None:
        """An entry reads its dataset's labels into the declared task labels (its `label_map`, or the raw
        labels as they are): the scored labels are the declared ones, never a second mapping."""
        d = self.datasets[e.dataset].labels
        if d is None:
            return
        for raw, meant in d.map.items():
            read = (e.label_map or {}).get(raw, raw)
            if read != meant:
                raise ValueError(f"{self.task}/{shown(e.variety, quote=False)}: dataset {shown(e.dataset)} declares "
                                 f"label {shown(raw)} as {shown(meant)}, but the entry reads it as {shown(read)} "
                                 "(make label_map agree with the dataset's labels.map)")

    def meanings_declared(self, dataset: str) -> bool:
        """Whether `dataset` declares what its labels mean (or the task has no task-level label set)."""
        d = self.datasets.get(dataset)
        return self.task not in TASK_LABELS or (d is not None and d.labels is not None)

    def entry(self, variety: str) -> Entry | None:
        return next((e for e in self.entries if e.variety == variety), None)
