"""Data sources: where the examples of a (task, variety, split) come from.

`open_source()` is the one entry point:

- ``open_source()`` (no `$DIALECTBENCH_DATA`): the bundled sample suite (our own small texts, every task);
- ``open_source(Path("../shared/data"))`` or `$DIALECTBENCH_DATA`: a local mirror laid out as the catalogue's
  `path`s say; files missing there are looked up in the download cache (`dialectbench data fetch`).
  With downloads only (no mirror), point it at the cache itself: ``open_source(fetch.cache_root() / "files")``.

A source answers `varieties(task)`, `splits(task, variety)`, `load(task, variety, split)` (typed examples via
the format readers) and `fingerprint(task, variety, split)` (sha256 of the files' bytes and the reading
options: equal fingerprints mean equal examples, so the runner can train once per training set).

>>> src = open_source(None)
>>> "english" in src.varieties("pos") and "train" in src.splits("pos", "english")
True
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import warnings
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from dialectbench.data.catalogue import (
    TASK_IDS,
    Entry,
    FileRef,
    Part,
    TaskCatalogue,
    canonical_variety,
    load_catalogue,
    load_catalogue_file,
)
from dialectbench.data.catalogue.models import Derive
from dialectbench.data.errors import DataError, DataFormatError, DataNotAvailable, DataWarning, shown
from dialectbench.data.examples import (
    MultipleChoiceExample,
    PairExample,
    QAExample,
    Sentence,
    SpokenQuestion,
    TaggedSentence,
    TextExample,
    TranslationExample,
)
from dialectbench.data.overlap import example_text, normalise
from dialectbench.data.tags import to_iob2
from dialectbench.varieties import task_ids

ENV_DATA = "DIALECTBENCH_DATA"
STATUS_ORDER = ("sample", "mirror", "cached", "remote", "missing")  # best to worst


def sample_dir() -> Path:
    """Folder of the bundled sample suite."""
    return Path(str(resources.files("dialectbench.data") / "sample"))


def open_source(data_dir: str | Path | None = None) -> DataSource:
    """The bundled sample suite (None and no $DIALECTBENCH_DATA) or a local mirror at `data_dir`."""
    if data_dir is None and os.environ.get(ENV_DATA):
        data_dir = os.environ[ENV_DATA]
    if data_dir is None:
        return DataSource(sample_dir(), _sample_catalogues(), kind="sample")
    root = Path(data_dir).expanduser()
    if not root.is_dir():
        raise DataNotAvailable(f"data directory {str(root)!r} does not exist or is not a directory",
                               how_to_obtain="point --data-dir (or $DIALECTBENCH_DATA) at a local mirror "
                                             "laid out like the catalogue's paths")
    from dialectbench.data.fetch import cache_root

    return DataSource(root, {t: load_catalogue(t) for t in TASK_IDS}, kind="mirror", cache=cache_root() / "files")


def _sample_catalogues() -> dict[str, TaskCatalogue]:
    root = sample_dir()
    return {t: load_catalogue_file(root / f"{t}.yaml") for t in TASK_IDS if (root / f"{t}.yaml").is_file()}


# --------------------------------------------------------------------------------------------- hashing
_HASHES: dict[tuple[str, int, int], str] = {}


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes, cached by (path, mtime, size)."""
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    if key not in _HASHES:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        _HASHES[key] = h.hexdigest()
    return _HASHES[key]


# ---------------------------------------------------------------------------------------------- source
class DataSource:
    """Examples of the catalogued (task, variety, split)s, read from `root` (then from `cache`)."""

    def __init__(self, root: Path, catalogues: dict[str, TaskCatalogue], *, kind: str,
                 cache: Path | None = None) -> None:
        self.root = root
        self.catalogues = catalogues
        self.kind = kind
        self.cache = cache

    def __repr__(self) -> str:
        return f"DataSource({self.kind}: {self.root})"

    def __str__(self) -> str:  # what messages show ("the mirror at ../shared/data"), never the repr
        return f"the {self.kind} at {self.root}" if self.kind != "sample" else "the bundled sample suite"

    def data_kind(self, task: str, variety: str) -> str:
        """Where a variety's data comes from: "sample" (the bundled suite: our own texts, so its scores never
        compare with published ones), "mirror" or "cached"."""
        return self.kind

    # -- catalogue lookups
    def catalogue(self, task: str) -> TaskCatalogue:
        if task in self.catalogues:  # a user file's own task is known to its catalogue before it is registered
            return self.catalogues[task]
        if task not in task_ids():
            raise ValueError(f"unknown task {task!r}; valid task ids: {', '.join(task_ids())}")
        if task not in self.catalogues:
            raise DataNotAvailable(f"{self}: no data for task {task}", how_to_obtain=_fetch_hint(task))
        return self.catalogues[task]

    def entries(self, task: str) -> list[Entry]:
        return list(self.catalogue(task).entries)

    def entry(self, task: str, variety: str) -> Entry:
        cat = self.catalogue(task)
        found = cat.entry(variety) or cat.entry(canonical_variety(variety))
        if found is None:
            raise DataNotAvailable(f"{task}: no dataset for variety {variety!r} in the {self.kind} catalogue",
                                   how_to_obtain=f"varieties with {task} data: "
                                                 f"{', '.join(e.variety for e in cat.entries[:8])}...")
        return found

    def label_meanings(self, task: str, variety: str) -> tuple[str, bool]:
        """(dataset, whether the catalogue declares what its labels mean) of a variety's data: two
        datasets that both declare them score one label set (catalogue/models.py TASK_LABELS)."""
        entry = self.entry(task, variety)
        return entry.dataset, self.catalogue(task).meanings_declared(entry.dataset)

    # -- file resolution
    def locate(self, ref: FileRef) -> tuple[str, Path | None]:
        """(status, local path): sample/mirror (under root), cached, or remote/missing (no local file)."""
        local = self.root / ref.path
        if local.is_file():
            return self.kind, local
        if self.cache is not None and (self.cache / ref.path).is_file():
            return "cached", self.cache / ref.path
        return ("remote" if ref.remote else "missing"), None

    def split_status(self, task: str, variety: str, split: str) -> str:
        """The worst status over the files of one split (see STATUS_ORDER)."""
        entry = self.entry(task, variety)
        parts = _parts_of(entry, split)
        if parts is None:
            return "missing"
        statuses = [self.locate(ref)[0] for p in parts for ref in p.file_args().values()]
        return max(statuses, key=STATUS_ORDER.index)

    # -- the Source protocol
    def varieties(self, task: str) -> list[str]:
        """Canonical names of the varieties with at least one split on disk."""
        return [e.variety for e in self.entries(task) if self.splits(task, e.variety)]

    def splits(self, task: str, variety: str) -> set[str]:
        """The splits of a variety whose files are all on disk."""
        entry = self.entry(task, variety)
        return {s for s in entry.split_names()
                if self.split_status(task, entry.variety, s) in (self.kind, "cached")}

    def load(self, task: str, variety: str, split: str) -> list[Any]:
        """The examples of one split, read by the format's reader; DataNotAvailable says what is missing."""
        entry = self.entry(task, variety)
        dataset = self.catalogue(task).datasets[entry.dataset]
        parts = _parts_of(entry, split)
        if parts is None:
            raise DataNotAvailable(f"{task}/{entry.variety}: {dataset.name} has no {split!r} split "
                                   f"(splits: {', '.join(sorted(entry.split_names()))})", dataset=dataset.name)
        examples: list[Any] = []
        for p in parts:
            examples.extend(self._read_part(task, entry, p))
        examples = _postprocess(entry, examples)
        if entry.derive is not None:
            examples = [ex for ex in examples if _derived_split(entry.derive, ex) == split]
        return examples

    def fingerprint(self, task: str, variety: str, split: str) -> str:
        """sha256 over the split's file digests and everything that shapes its examples."""
        entry = self.entry(task, variety)
        parts = _parts_of(entry, split)
        if parts is None:
            raise DataNotAvailable(f"{task}/{entry.variety}: no {split!r} split")
        h = hashlib.sha256()
        spec = entry.model_dump(include={"format", "options", "keep_labels", "label_map", "derive"})
        h.update(json.dumps({"split": split, **spec}, sort_keys=True, default=str).encode())
        for p in parts:
            h.update(json.dumps(p.options, sort_keys=True, default=str).encode())
            for arg, ref in sorted(p.file_args().items()):
                h.update(f"{arg}={file_sha256(self._path(task, entry, ref))};".encode())
        return h.hexdigest()

    def split_bytes(self, task: str, variety: str, split: str) -> int:
        """Bytes of the split's files on disk (a cheap size for scheduling and ETAs; a derived split counts
        its whole source file). DataNotAvailable when a file is missing."""
        entry = self.entry(task, variety)
        parts = _parts_of(entry, split)
        if parts is None:
            raise DataNotAvailable(f"{task}/{entry.variety}: no {split!r} split")
        return sum(self._path(task, entry, ref).stat().st_size for p in parts for ref in p.file_args().values())

    # -- internals
    def _path(self, task: str, entry: Entry, ref: FileRef) -> Path:
        _status, path = self.locate(ref)
        if path is not None:
            return path
        dataset = self.catalogue(task).datasets[entry.dataset]
        raise DataNotAvailable(
            f"{task}/{entry.variety}: {dataset.name}: {ref.path} is not in {self.root}"
            + (f" nor in the download cache {self.cache}" if self.cache else ""),
            dataset=dataset.name, how_to_obtain=how_to_obtain(task, entry.variety, dataset, ref, self.kind))

    def _read_part(self, task: str, entry: Entry, p: Part) -> list[Any]:
        paths = {arg: self._path(task, entry, ref) for arg, ref in p.file_args().items()}
        options = {**entry.options, **p.options}
        from dialectbench.data.readers import READERS

        try:
            return list(READERS[entry.format](**paths, **options))
        except (DataError, OSError):
            raise
        except Exception as err:  # noqa: BLE001 - a reader bug on odd input: this variety fails, the run goes on
            first = next(iter(paths.values()), self.root)
            raise DataFormatError(first, None, f"the {entry.format} reader failed ({type(err).__name__}: "
                                               f"{shown(str(err), quote=False)})") from None


def _parts_of(entry: Entry, split: str) -> list[Part] | None:
    if entry.derive is not None:
        return entry.splits["all"] if split in entry.split_names() else None
    return entry.splits.get(split)  # type: ignore[call-overload]


def _derived_split(d: Derive, example: Any) -> str | None:
    """Seeded, order-independent assignment of an example to train/dev/test by its normalised text (None:
    outside the entry's portion of the file)."""
    text = normalise(example_text(example))
    lo, hi = d.portion
    if (lo, hi) != (0.0, 1.0) and not lo <= _unit(f"portion:{text}") < hi:
        return None
    u = _unit(f"{d.seed}:{text}")
    if u < d.test:
        return "test"
    return "dev" if (u - d.test) / (1 - d.test) < d.dev else "train"


def _unit(key: str) -> float:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2**64


def _postprocess(entry: Entry, examples: list[Any]) -> list[Any]:
    """Keep the wanted raw labels, then rename labels (TextExample / PairExample); NER tags become IOB2
    over the entry's entity types (`label_map` renames types: data/tags.py)."""
    if examples and isinstance(examples[0], TaggedSentence):
        return [dataclasses.replace(ex, tags=to_iob2(ex.tags, entry.label_map)) for ex in examples]
    if entry.keep_labels is not None:
        keep = set(entry.keep_labels)
        examples = [ex for ex in examples if getattr(ex, "label", None) in keep]
    if entry.label_map:
        m = entry.label_map
        examples = [dataclasses.replace(ex, label=m.get(ex.label, ex.label)) if hasattr(ex, "label") else ex
                    for ex in examples]
    return examples


def how_to_obtain(task: str, variety: str, dataset: Any, ref: FileRef, kind: str) -> str:
    """A by-hand recipe for one missing file."""
    if kind == "sample":
        return "the bundled sample suite is incomplete; reinstall dialectbench"
    if dataset.obtain:
        return f"{dataset.obtain} (expected at <data-dir>/{ref.path})"
    if ref.url:
        return (f"run `dialectbench data fetch --tasks {task} --varieties \"{variety}\"`, or download {ref.url} "
                + (f"(file {ref.member} inside the archive) " if ref.member else "")
                + f"and save it as <data-dir>/{ref.path}")
    if ref.hf:
        where = ref.hf.file or f"config {ref.hf.config}, split {ref.hf.split}"
        return (f"on the Hugging Face hub: {ref.hf.repo}@{ref.hf.revision} ({where}); run `dialectbench data "
                f"fetch --hub --tasks {task}` where the hub is reachable, or export it to <data-dir>/{ref.path}")
    return f"place the file at <data-dir>/{ref.path}"


def _fetch_hint(task: str) -> str:
    return f"run `dialectbench data fetch --tasks {task}` or point --data-dir at a local mirror"


# ------------------------------------------------------------------------------------------------ stats
def count_tokens(example: Any) -> int:
    """Whitespace tokens of an example's input text (words for UD/NER, all text fields otherwise)."""
    if isinstance(example, Sentence):
        return len(example.words)
    if isinstance(example, TaggedSentence):
        return len(example.tokens)
    texts: Iterable[str]
    if isinstance(example, TextExample):
        texts = (example.text,)
    elif isinstance(example, PairExample):
        texts = (example.premise, example.hypothesis)
    elif isinstance(example, MultipleChoiceExample):
        texts = (example.passage, example.question, *example.options)
    elif isinstance(example, QAExample):
        texts = (example.context, example.question)
    elif isinstance(example, TranslationExample):
        texts = (example.source,)
    elif isinstance(example, SpokenQuestion):
        texts = (example.question,)
    else:
        raise TypeError(f"not an example: {type(example).__name__}")
    return sum(len(t.split()) for t in texts)


# --------------------------------------------------------------------------------------- inspection
def catalogue_source(data_dir: str | Path | None = None) -> DataSource:
    """The full catalogue over a mirror (+ the download cache), or over the cache alone (data_dir None)."""
    from dialectbench.data.fetch import cache_root

    catalogues = {t: load_catalogue(t) for t in TASK_IDS}
    files = cache_root() / "files"
    if data_dir is None:
        return DataSource(files, catalogues, kind="cached")
    root = Path(data_dir).expanduser()
    if not root.is_dir():
        raise DataNotAvailable(f"data directory {str(root)!r} does not exist or is not a directory")
    return DataSource(root, catalogues, kind="mirror", cache=files)


def status_rows(src: DataSource, tasks: Iterable[str]) -> list[dict[str, Any]]:
    """One row per (task, variety, split): where its files are (sample/mirror/cached/remote/missing)."""
    rows = []
    for task in tasks:
        cat = src.catalogue(task)
        for e in cat.entries:
            for split in sorted(e.split_names()):
                rows.append({"task": task, "variety": e.variety, "split": split,
                             "status": src.split_status(task, e.variety, split), "dataset": cat.datasets[e.dataset].name,
                             "format": e.format})
    return rows


def stats_rows(src: DataSource, task: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Examples and tokens per variety and split, for the splits on disk, and one "file:line: problem"
    per split that could not be read (the other splits are still counted)."""
    from dialectbench.varieties import UnknownVarietyError, registry

    rows, problems = [], []
    for variety in src.varieties(task):
        try:
            cluster = registry().get(variety).cluster
        except UnknownVarietyError:
            cluster = None
        for split in sorted(src.splits(task, variety), key=("train", "dev", "test").index):
            try:
                with warnings.catch_warnings():  # counting needs no word about sentences kept as given
                    warnings.simplefilter("ignore", DataWarning)
                    examples = src.load(task, variety, split)
            except (DataError, OSError) as err:
                problems.append(f"{err} ({task}, {variety}, {split})")
                continue
            rows.append({"task": task, "cluster": cluster, "variety": variety, "split": split,
                         "examples": len(examples), "tokens": sum(count_tokens(ex) for ex in examples)})
    return rows, problems
