"""Executors: run the plan's groups (fit once, evaluate each pending job) and hand back job records.

The unit of work is `run_group(group, jobs, source, backend, ...)`: a pure function of its arguments
that yields one `JobRecord` per job and touches no store. The in-process executor calls it in a loop;
a distributed executor (e.g. Ray) can ship the same function to workers and feed the records it gets
back to the same `sink`, so that only the driver writes to the store (SQLite wants few writers).
"""

from __future__ import annotations

import inspect
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any, Protocol

from dialectbench.runner import flags as jobflags
from dialectbench.runner.plan import DATA_ERRORS, Group, Job
from dialectbench.runner.store import JobRecord
from dialectbench.tasks import representative

Sink = Callable[[JobRecord], None]


class EmptySplit(Exception):
    """A split exists but holds no examples: a data problem, reported as a skip."""


class Events(Protocol):
    """Progress callbacks (the CLI's rich display implements them; all optional)."""

    def group_started(self, group: Group, jobs: Sequence[Job]) -> None: ...
    def job_started(self, job: Job) -> None: ...


class NoEvents:
    def group_started(self, group: Group, jobs: Sequence[Job]) -> None:
        pass

    def job_started(self, job: Job) -> None:
        pass


def _record(job: Job, group: Group, status: str, *, seed: int, config: dict[str, Any], **fields: Any) -> JobRecord:
    model = fields.pop("model", None) or job.model
    return JobRecord(job_key=job.key, task=job.task, variety=job.variety, cluster=job.cluster, model=model,
                     setting=job.setting, train_on=job.train_on, status=status,
                     train_members=group.training.members, data_fingerprint=group.fingerprint, config=config,
                     seed=seed, **fields)


def _load_training(group: Group, source: Any) -> tuple[list[Any], list[Any] | None]:
    """The pooled train (and dev) splits of the group's members; a split shared by several members
    (one DId dataset per cluster) is loaded once, by its fingerprint."""
    train: list[Any] = []
    dev: list[Any] = []
    seen: set[str] = set()
    for variety in group.training.members:
        for split, out in (("train", train), ("dev", dev)):
            if split == "dev" and "dev" not in source.splits(group.task, variety):
                continue
            fp = group.fingerprints.get((variety, split), "missing")
            if fp in seen:
                continue
            if fp != "missing":
                seen.add(fp)
            out += source.load(group.task, variety, split)
    if group.training.members and not train:
        raise EmptySplit(f"the train split of {', '.join(group.training.members)} is empty")
    return train, dev or None


def _score(task: str, golds: Sequence[Any], predictions: Sequence[Any]) -> dict[str, Any]:
    from dialectbench.metrics import score_task

    result = score_task(task, golds, predictions)
    return {"metric": result.metric, "score": float(result.score), "signature": str(result.signature or ""),
            "extra": dict(result.extra or {}), "values": result.per_example}


def _did_scores(pooled: tuple[list[Any], list[Any]], own: list[Any], variety: str) -> dict[str, Any]:
    """DId per variety (DialectBench Table 16): the F1 of the variety's own class on the pooled cluster test,
    which the cluster's one classifier predicted in full. The class is the variety's name when the
    dataset's labels are variety names (one dataset per cluster), else the majority label of its own split."""
    from dialectbench.metrics import score_task

    golds, preds = pooled
    own_labels = Counter(str(ex.label) for ex in own)
    if variety in {str(ex.label) for ex in golds}:
        label = variety
    elif len(own_labels) == 1:
        label = next(iter(own_labels))
    else:
        raise EmptySplit(f"the pooled dialect-identification test has no example of {variety!r}")
    result = score_task("did", golds, preds)
    per_label = result.extra.get("per_label", {})
    mine = [(ex, p) for ex, p in zip(golds, preds) if str(ex.label) == label]
    return {"metric": "f1", "score": float(per_label[label]["f1"]),
            "signature": f"did|class f1 on the pooled cluster test|{result.signature}",
            "extra": {"class": label, "pooled_n": len(golds), "pooled_macro_f1": result.extra.get("macro_f1")},
            "golds": [ex for ex, _ in mine], "predictions": [p for _, p in mine],
            "values": [float(str(p) == label) for _, p in mine]}


def _predict(model: Any, examples: Sequence[Any], variety: str | None = None) -> list[Any]:
    # models that condition on the input's variety (NLLB's source-language code) declare a `variety` argument
    takes_variety = "variety" in inspect.signature(model.predict).parameters
    predictions = list(model.predict(examples, variety=variety) if takes_variety else model.predict(examples))
    if len(predictions) != len(examples):
        raise ValueError(f"the model returned {len(predictions)} predictions for {len(examples)} examples")
    return predictions


def _evaluate(job: Job, model: Any, golds: list[Any], did_pool: tuple | None) -> dict[str, Any]:
    """Predict and score one job: metric fields plus the golds and predictions to store."""
    if did_pool is not None:
        return _did_scores(did_pool, golds, job.variety)
    predictions = _predict(model, golds, job.variety)
    golds = _with_pseudo_references(job, model, golds)
    return {**_score(job.task, golds, predictions), "golds": golds, "predictions": predictions}


def _with_pseudo_references(job: Job, model: Any, golds: list[Any]) -> list[Any]:
    """DialectBench's MT protocol (DialectBench, Table 2 text): where a dialect sentence x has no English
    reference, its reference field holds the standard-variety sentence x-bar, and the system's own
    translation of x-bar is the pseudo-reference its translation of x is scored against."""
    if not job.task.startswith("mt") or not any(getattr(g, "pseudo_reference", False) for g in golds):
        return golds
    try:
        standard = representative(job.cluster, job.task).name
    except (KeyError, LookupError, ValueError):
        standard = None
    marked = [g for g in golds if g.pseudo_reference]
    translated = iter(_predict(model, [replace(g, source=g.reference) for g in marked], standard))
    return [replace(g, reference=next(translated)) if g.pseudo_reference else g for g in golds]


def _load_tests(group: Group, jobs: Sequence[Job], source: Any,
                data_errors: tuple) -> tuple[dict[str, list], dict[str, str]]:
    """Each job's test split, loaded before the fit so that a group whose tests are all empty or missing
    is not trained for nothing (a split shared by several varieties is read once); returns
    (tests by variety, problem by variety)."""
    tests: dict[str, list] = {}
    problems: dict[str, str] = {}
    by_fp: dict[str, list] = {}
    for variety in dict.fromkeys(j.variety for j in jobs):
        fp = group.fingerprints.get((variety, "test"), "missing")
        try:
            tests[variety] = by_fp[fp] if fp in by_fp else source.load(group.task, variety, "test")
        except data_errors as err:
            problems[variety] = f"test data: {err}"
            continue
        if fp != "missing":
            by_fp[fp] = tests[variety]
        if not tests[variety]:
            problems[variety] = f"the test split of {variety!r} ({group.task}) is empty"
    return tests, problems


def _did_pool(group: Group, model: Any, source: Any, tests: dict[str, list]) -> tuple[list, list]:
    """(golds, predictions) over the distinct test splits of the cluster's varieties."""
    golds: list[Any] = []
    seen: set[str] = set()
    for v in group.training.pool or sorted(tests):
        fp = group.fingerprints.get((v, "test"), v)
        if fp in seen:
            continue
        seen.add(fp)
        golds += tests[v] if v in tests else source.load(group.task, v, "test")
    return golds, _predict(model, golds)


def run_group(group: Group, jobs: Sequence[Job], source: Any, backend: Any, *, seed: int = 0,
              config: dict[str, Any] | None = None, events: Events | None = None) -> Iterator[JobRecord]:
    """Fit `group`'s training set once, then evaluate and yield a record for each of `jobs`."""
    events = events or NoEvents()
    config = config or {}
    data_errors = DATA_ERRORS
    tests, problems = _load_tests(group, jobs, source, data_errors)
    for job in jobs:
        if job.variety in problems:
            yield _record(job, group, "skipped", seed=seed, config=config, message=problems[job.variety])
    jobs = [j for j in jobs if j.variety not in problems]
    if not jobs:
        return
    t0 = time.perf_counter()
    try:
        train, dev = _load_training(group, source)
    except (*data_errors, EmptySplit) as err:
        for job in jobs:
            yield _record(job, group, "skipped", seed=seed, config=config, message=f"training data: {err}")
        return
    try:
        model = backend.fit(group.task, train, dev, seed=seed)
    except Exception as err:  # noqa: BLE001 - a backend bug: report it, go on with the other groups
        for job in jobs:
            yield _record(job, group, "failed", seed=seed, config=config,
                          message=f"fit failed: {type(err).__name__}: {err}\n{traceback.format_exc(limit=3)}")
        return
    fit_seconds = time.perf_counter() - t0
    did_pool = None
    if group.task == "did" and group.training.mode == "finetune":
        try:
            did_pool = _did_pool(group, model, source, tests)
        except (*data_errors, EmptySplit) as err:
            for job in jobs:
                yield _record(job, group, "skipped", seed=seed, config=config, message=str(err))
            return
    scored: dict[Any, dict[str, Any]] = {}  # a variety evaluated under two settings is predicted once
    train_labels = jobflags.label_counts(train)
    narrowed = _Narrowed(group, backend, train, dev, seed)
    for job in jobs:
        events.job_started(job)
        try:
            job_model, golds, space = narrowed.for_job(job, model, train_labels, tests[job.variety])
        except EmptySplit as err:
            yield _record(job, group, "skipped", seed=seed, config=config, message=str(err))
            continue
        except Exception as err:  # noqa: BLE001 - the narrowed fit is a fit: report it, go on
            yield _record(job, group, "failed", seed=seed, config=config,
                          message=f"fit on the shared label space failed: {type(err).__name__}: {err}")
            continue
        yield _evaluate_job(job, group, job_model, golds, did_pool, seed, config, fit_seconds, scored,
                            train_labels=space["train_labels"] if space else train_labels, label_space=space)


class _Narrowed:
    """Models fitted on the label space a job's training and test sets share (in-cluster SA: the
    representative's dataset has labels, e.g. `objective`, that a variety's dataset lacks); one fit per
    distinct label space, only for the (task, setting) pairs of `flags.SHARED_LABEL_SPACE`."""

    def __init__(self, group: Group, backend: Any, train: list[Any], dev: list[Any] | None, seed: int) -> None:
        self.group, self.backend, self.train, self.dev, self.seed = group, backend, train, dev, seed
        self.models: dict[frozenset, Any] = {}

    def for_job(self, job: Job, model: Any, train_labels: Counter,
                golds: list[Any]) -> tuple[Any, list[Any], dict[str, Any] | None]:
        if (job.task, job.setting) not in jobflags.SHARED_LABEL_SPACE or self.group.training.mode != "finetune":
            return model, golds, None
        shared = jobflags.shared_labels(train_labels, jobflags.label_counts(golds))
        if shared is None:
            return model, golds, None
        if not shared:
            raise EmptySplit(f"the training and test sets of {job.variety!r} share no label")
        key = frozenset(shared)
        train = jobflags.restrict(self.train, shared)
        if key not in self.models:
            dev = jobflags.restrict(self.dev, shared) if self.dev else None
            self.models[key] = self.backend.fit(job.task, train, dev or None, seed=self.seed)
        kept = jobflags.restrict(golds, shared)
        return self.models[key], kept, {"labels": sorted(shared), "test_dropped": len(golds) - len(kept),
                                        "train_dropped": len(self.train) - len(train),
                                        "train_labels": jobflags.label_counts(train)}


def _fallbacks(model: Any) -> int:
    """A fitted model's running count of default predictions (backends/base.py), 0 if it keeps none."""
    value = getattr(model, "fallbacks", 0)
    return value if isinstance(value, int) else 0


def _evaluate_job(job: Job, group: Group, model: Any, golds: list[Any], did_pool: tuple | None, seed: int,
                  config: dict[str, Any], fit_seconds: float, cache: dict[Any, dict[str, Any]], *,
                  train_labels: Counter | None = None, label_space: dict[str, Any] | None = None) -> JobRecord:
    t0 = time.perf_counter()
    key = (job.variety, None if label_space is None else tuple(label_space["labels"]))
    try:
        if key not in cache:
            before = _fallbacks(model)
            cache[key] = _evaluate(job, model, golds, did_pool)
            cache[key]["fallbacks"] = _fallbacks(model) - before
        scored = cache[key]
    except EmptySplit as err:
        return _record(job, group, "skipped", seed=seed, config=config, message=str(err))
    except Exception as err:  # noqa: BLE001 - a backend or metric error here: the other jobs go on
        return _record(job, group, "failed", seed=seed, config=config,
                       message=f"{type(err).__name__}: {err}\n{traceback.format_exc(limit=3)}")
    golds = scored["golds"]
    extra = dict(scored["extra"])
    # DId scores one class of a pooled test: its own examples all share one label, so no majority rate
    flags = jobflags.evaluation_flags(train_labels or Counter(), golds, scored["score"], scored["metric"],
                                      fallbacks=scored.get("fallbacks", 0), majority=did_pool is None)
    if label_space is not None:
        flags["label_space"] = {k: v for k, v in label_space.items() if k != "train_labels"}
    if flags:
        extra[jobflags.FLAGS_KEY] = flags
    # a baseline that is not a trained model (MT copies its input) is stored under what it is: "copy"
    return _record(job, group, "done", seed=seed, config=config, model=getattr(model, "reports_as", None),
                   metric=scored["metric"], score=scored["score"],
                   n=len(golds), signature=scored["signature"], extra=extra,
                   example_ids=[getattr(ex, "example_id", str(i)) for i, ex in enumerate(golds)],
                   predictions=scored["predictions"], values=scored["values"], fit_seconds=fit_seconds,
                   eval_seconds=time.perf_counter() - t0)


class InProcessExecutor:
    """Runs groups one after another in this process."""

    def execute(self, groups: Sequence[Group], *, source: Any, backend: Any, seed: int,
                config: dict[str, Any], pending: Callable[[Group], list[Job]], sink: Sink,
                events: Events | None = None) -> None:
        events = events or NoEvents()
        for group in groups:
            jobs = pending(group)  # asked again per group: a concurrent run may have done some meanwhile
            if not jobs:
                continue
            events.group_started(group, jobs)
            for record in run_group(group, jobs, source, backend, seed=seed, config=config, events=events):
                sink(record)
