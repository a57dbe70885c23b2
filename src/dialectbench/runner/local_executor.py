"""The local executors (in this process, or a pool of local processes) and the unit of work every executor
runs, `run_group` (runner/ray_executor.py builds on it; runner/executors.py chooses between them).

Executors: run the plan's groups (fit once, evaluate each pending job) and hand back job records.

The unit of work is `run_group(group, jobs, source, backend, ...)`: a pure function of its arguments
that yields one `JobRecord` per job and touches no store. The in-process executor calls it in a loop;
a distributed executor (e.g. Ray) can ship the same function to workers and feed the records it gets
back to the same `sink`, so that only the driver writes to the store (SQLite wants few writers).
"""

from __future__ import annotations

import inspect
import os
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any, Protocol

from dialectbench.backends.base import BackendUnavailableError, declared, model_capability
from dialectbench.data.overlap import demo_key, overlap, text_set
from dialectbench.runner import flags as jobflags
from dialectbench.runner import icl_scores, progress
from dialectbench.runner import invalid as invalid_answers
from dialectbench.runner.lifeline import die_with_parent, watch_driver
from dialectbench.runner.plan import DATA_ERRORS, Group, Job
from dialectbench.runner.store import JobRecord
from dialectbench.tasks import kind_of, representative

Sink = Callable[[JobRecord], None]


class EmptySplit(Exception):
    """A split exists but holds no examples: a data problem, reported as a skip."""


class Events(Protocol):
    """Progress callbacks (the CLI's rich display implements them; all optional)."""

    def group_started(self, group: Group, jobs: Sequence[Job]) -> None: ...
    def job_started(self, job: Job) -> None: ...
    # optional: progress inside a group (`progress.report` in the fit, the evaluation's job count)
    # def job_progress(self, group: Group, info: dict) -> None: ...


def progress_callback(events: Any, group: Group) -> progress.Callback | None:
    """`events.job_progress(group, info)` as a `progress.reporting` callback, None if events lack it."""
    hook = getattr(events, "job_progress", None)
    if hook is None:
        return None
    return lambda info: hook(group, info)


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
    own = group.training.split  # icl may draw its demonstrations from a test split (held out of scoring)
    for variety in group.training.members:
        for split, out in ((own, train), ("dev", dev)):
            if split == "dev" and (own != "train" or "dev" not in source.splits(group.task, variety)):
                continue
            fp = group.fingerprints.get((variety, split), "missing")
            if fp in seen:
                continue
            if fp != "missing":
                seen.add(fp)
            out += source.load(group.task, variety, split)
    if group.training.members and not train:
        raise EmptySplit(f"the {own} split of {', '.join(group.training.members)} is empty")
    return train, dev or None


def _score(task: str, golds: Sequence[Any], predictions: Sequence[Any]) -> dict[str, Any]:
    from dialectbench.metrics import score_task

    # an unanswered example (InvalidAnswer) is scored as wrong and counted, never guessed
    scorable, options = invalid_answers.score_options(task, golds, predictions)
    result = score_task(task, golds, scorable, **options)
    extra = dict(result.extra or {})
    if options:
        extra.update(invalid_answers.invalid_extra(predictions))
    return {"metric": result.metric, "score": float(result.score), "signature": str(result.signature or ""),
            "extra": extra, "values": result.per_example}


def _pooled_scores(task: str, pooled: tuple[list[Any], list[Any]], own: list[Any], variety: str) -> dict[str, Any]:
    """A pooling kind's score per variety (DId, DialectBench Table 16): the F1 of the variety's own class on
    the pooled cluster test, which the cluster's one classifier predicted in full. The class is the variety's
    name when the dataset's labels are variety names (one dataset per cluster), else the majority label of
    its own split."""
    from dialectbench.metrics import score_task

    golds, preds = pooled
    own_labels = Counter(str(ex.label) for ex in own)
    if variety in {str(ex.label) for ex in golds}:
        label = variety
    elif len(own_labels) == 1:
        label = next(iter(own_labels))
    else:
        raise EmptySplit(f"the pooled dialect-identification test has no example of {variety!r}")
    result = score_task(task, golds, preds)
    metric = kind_of(task).per_variety_metric or "f1"
    per_label = result.extra.get("per_label", {})
    mine = [(ex, p) for ex, p in zip(golds, preds) if str(ex.label) == label]
    return {"metric": metric, "score": float(per_label[label][metric]),
            "signature": f"{task}|class {metric} on the pooled cluster test|{result.signature}",
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


def _icl_extra(job: Job, model: Any, golds: list[Any], predictions: list[Any], scored: dict[str, Any],
               rankings: dict[str, list[Any]], seed: int) -> dict[str, Any]:
    """acc / acc_norm (loglikelihood mode), the bootstrap stderr and how the prompt reached the model."""
    def rescore(idx: list[int]) -> float:
        return _score(job.task, [golds[i] for i in idx], [predictions[i] for i in idx])["score"]

    extra = icl_scores.ranking_accuracies(rankings, golds)
    extra.update(icl_scores.bootstrap_stderr(scored["score"], scored["values"], len(golds), rescore, seed))
    note = model_capability(model, "prompt_note")
    return {**extra, "prompt_format": note} if note else extra


def _evaluate(job: Job, model: Any, golds: list[Any], pool: tuple | None, demos: str = "",
              seed: int = 0) -> dict[str, Any]:
    """Predict and score one job: metric fields plus the golds and predictions to store."""
    if pool is not None:
        return _pooled_scores(job.task, pool, golds, job.variety)
    predictions = _predict(model, golds, job.variety)
    # --log-samples: the exact prompts and raw answers, taken before MT's pseudo-references predict again
    samples = list(model_capability(model, "last_samples")) if model_capability(model, "log_samples") else []
    samples = samples if len(samples) == len(predictions) else []  # one per example, or none
    rankings = dict(model_capability(model, "last_rankings") or {})
    pseudo = any(getattr(g, "pseudo_reference", False) for g in golds)
    golds = _with_pseudo_references(job, model, golds)
    samples = [{**sample, "gold": icl_scores.gold_of(g)} for sample, g in zip(samples, golds)]
    scored = _score(job.task, golds, predictions)
    signature = model_capability(model, "signature")
    if str(signature).startswith("icl|"):
        scored["extra"].update(_icl_extra(job, model, golds, predictions, scored, rankings, seed))
    if kind_of(job.task).pseudo_references:  # two BLEUs compare only against the same kind of reference
        scored["signature"] = f"ref:{'pseudo' if pseudo else 'human'}|{scored['signature']}"
    if model_capability(model, "max_invalid") is not None:  # a model that can leave examples unanswered: the count, even 0
        scored["extra"].update(invalid_answers.invalid_extra(predictions))
    head = "|".join(filter(None, [signature, demos]))
    if head:  # how the model answered (icl scoring mode, k, demonstration source) heads the signature
        scored["signature"] = f"{head}|{scored['signature']}"
    cross_fit_extra = model_capability(model, "cross_fit_extra")
    if cross_fit_extra is not None:  # a cross-fitted model: its folds, the passages it had seen (0)
        scored["extra"]["cross_fit"] = cross_fit_extra(golds)
    return {**scored, "golds": golds, "predictions": predictions, "samples": samples}


def _with_pseudo_references(job: Job, model: Any, golds: list[Any]) -> list[Any]:
    """DialectBench's MT protocol (DialectBench, Table 2 text): where a dialect sentence x has no English
    reference, its reference field holds the standard-variety sentence x-bar, and the system's own
    translation of x-bar is the pseudo-reference its translation of x is scored against."""
    if not kind_of(job.task).pseudo_references or not any(getattr(g, "pseudo_reference", False) for g in golds):
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


def _cluster_pool(group: Group, model: Any, source: Any, tests: dict[str, list]) -> tuple[list, list]:
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
    if group.training.mode == "crossfit":
        yield from _run_cross_fitted(group, jobs, tests, backend, seed=seed, config=config, events=events)
        return
    t0 = time.perf_counter()
    try:
        train, dev = _load_training(group, source)
    except (*data_errors, EmptySplit) as err:
        for job in jobs:
            yield _record(job, group, "skipped", seed=seed, config=config, message=f"training data: {err}")
        return
    kind = kind_of(group.task)
    train_not_trees: dict[str, Any] = {}
    if kind.trees_only:  # a sentence whose HEADs are not a tree teaches no parser: left out, counted
        train, dev, train_not_trees = _trees_only(train, dev)
        if not train:
            for job in jobs:
                yield _record(job, group, "skipped", seed=seed, config=config,
                              message=f"training data: no sentence is a tree ({train_not_trees['first']})")
            return
    try:
        model = backend.fit(group.task, train, dev, seed=seed)
    except BackendUnavailableError:
        raise  # the server is down: every job would fail alike, so the run stops once
    except Exception as err:  # noqa: BLE001 - a backend bug: report it, go on with the other groups
        for job in jobs:
            yield _record(job, group, "failed", seed=seed, config=config,
                          message=f"fit failed: {type(err).__name__}: {err}\n{traceback.format_exc(limit=3)}")
        return
    fit_seconds = time.perf_counter() - t0
    pool = None
    if kind.pools_cluster and group.training.mode == "finetune":
        try:
            pool = _cluster_pool(group, model, source, tests)
        except (*data_errors, EmptySplit) as err:
            for job in jobs:
                yield _record(job, group, "skipped", seed=seed, config=config, message=str(err))
            return
    scored: dict[Any, dict[str, Any]] = {}  # a variety evaluated under two settings is predicted once
    # what the model learned from: the leak check of every job (icl: only the demonstrations it is shown)
    demos = model_capability(model, "demos")
    icl_demos = list(train if demos is None else demos) if group.training.mode == "icl" else None
    seen = text_set(icl_demos if icl_demos is not None else [*train, *(dev or [])])
    train_labels = jobflags.label_counts(train)
    train_tags = jobflags.tag_counts(train, group.task)
    narrowed = _Narrowed(group, backend, train, dev, seed)
    data_kind = getattr(source, "data_kind", None)  # the bundled sample suite's scores compare with nothing published
    sample = {v for v in {*group.training.members, *(j.variety for j in jobs)}
              if callable(data_kind) and data_kind(group.task, v) == "sample"}
    meanings = _LabelMeanings(source, group)
    for k, job in enumerate(jobs):
        events.job_started(job)
        progress.report("evaluate", done=k, total=len(jobs), unit="jobs")
        try:
            job_model, golds, space = narrowed.for_job(job, model, train_labels, tests[job.variety])
            golds, held_out = _without_demos(golds, icl_demos)
        except EmptySplit as err:
            yield _record(job, group, "skipped", seed=seed, config=config, message=str(err))
            continue
        except Exception as err:  # noqa: BLE001 - the narrowed fit is a fit: report it, go on
            yield _record(job, group, "failed", seed=seed, config=config,
                          message=f"fit on the shared label space failed: {type(err).__name__}: {err}")
            continue
        yield _evaluate_job(job, group, job_model, golds, pool, seed, config, fit_seconds, scored,
                            train_labels=space["train_labels"] if space else train_labels, label_space=space,
                            train_tags=train_tags, train_not_trees=train_not_trees, seen=seen, held_out=held_out,
                            sample_suite=job.variety in sample or bool(sample & set(group.training.members)),
                            meanings=meanings.gap(job.variety))


class _LabelMeanings:
    """The `label_meanings` flag of each job of a group: its training datasets against its test set's
    (runner/flags.py); a source that cannot say (a test double, a variety without an entry) flags nothing."""

    def __init__(self, source: Any, group: Group) -> None:
        self.source, self.task = source, group.task
        self.train = [m for m in (self._of(v) for v in group.training.members) if m is not None]

    def _of(self, variety: str) -> tuple[str, bool] | None:
        lookup = getattr(self.source, "label_meanings", None)
        if lookup is None:
            return None
        try:
            return lookup(self.task, variety)
        except DATA_ERRORS:
            return None

    def gap(self, variety: str) -> dict[str, Any] | None:
        return jobflags.label_meanings_gap(self.train, self._of(variety)) if self.train else None


def _without_demos(golds: list[Any], demos: list[Any] | None) -> tuple[list[Any], int]:
    """The test examples a job scores: icl holds out every one that shares a demonstration's passage or
    text (the prompt shows its answer: SD-QA's dialect files share passages and answers); and how many."""
    if not demos:
        return golds, 0
    shown = {demo_key(d) for d in demos}
    kept = [g for g in golds if demo_key(g) not in shown]
    if not kept:
        raise EmptySplit("every test example shares a passage or text with a demonstration")
    return kept, len(golds) - len(kept)


def _run_cross_fitted(group: Group, jobs: Sequence[Job], tests: dict[str, list], backend: Any, *, seed: int,
                      config: dict[str, Any], events: Events) -> Iterator[JobRecord]:
    """Each job's reader is cross-fitted by passage on its own test set's typed questions (SD-QA: the gold
    question of each transcribed one); test sets asking the same typed questions about the same passages
    (every dialect of a language) share one set of fold models. The leak check compares each question
    with what the model that answered it was trained on."""
    from dialectbench.backends.crossfit import CrossFitted

    fitted: dict[frozenset, tuple[CrossFitted, float]] = {}
    scored: dict[Any, dict[str, Any]] = {}
    for k, job in enumerate(jobs):
        events.job_started(job)
        progress.report("evaluate", done=k, total=len(jobs), unit="jobs")
        golds = tests[job.variety]
        train = [replace(ex, question=ex.typed_question) for ex in golds if getattr(ex, "typed_question", "")]
        if not train:
            yield _record(job, group, "skipped", seed=seed, config=config,
                          message="no typed (gold) questions in the test set to cross-fit a reader on")
            continue
        key = text_set(train) | {f"n={len(train)}"}
        if key not in fitted:
            t0 = time.perf_counter()
            try:
                model = CrossFitted(lambda part: backend.fit(group.task, part, None, seed=seed), train, seed=seed,
                                    trained_on="the test set's gold questions")
            except BackendUnavailableError:
                raise
            except Exception as err:  # noqa: BLE001 - a backend bug or too few passages: this job fails, others go on
                yield _record(job, group, "failed", seed=seed, config=config,
                              message=f"cross-fitted fit failed: {type(err).__name__}: {err}")
                continue
            fitted[key] = (model, time.perf_counter() - t0)
        model, fit_seconds = fitted[key]
        yield _evaluate_job(job, group, model, golds, None, seed, config, fit_seconds, scored,
                            leak=model.text_overlap(golds))


def _trees_only(train: list[Any], dev: list[Any] | None) -> tuple[list[Any], list[Any] | None, dict[str, Any]]:
    """DEP training and early-stopping sets without the sentences that are not trees (readers/conllu.py),
    and what was left out: {"train_left_out": n, "first": "path:line: problem"} ({} when nothing was)."""
    broken = [s for s in [*train, *(dev or [])] if getattr(s, "tree_problem", "")]
    if not broken:
        return train, dev, {}
    kept = [s for s in train if not s.tree_problem]
    kept_dev = [s for s in dev if not s.tree_problem] if dev else dev
    return kept, kept_dev or None, {"train_left_out": len(broken), "first": broken[0].tree_problem}


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
    value = model_capability(model, "fallbacks")
    return value if isinstance(value, int) else 0


def _evaluate_job(job: Job, group: Group, model: Any, golds: list[Any], pool: tuple | None, seed: int,
                  config: dict[str, Any], fit_seconds: float, cache: dict[Any, dict[str, Any]], *,
                  train_labels: Counter | None = None, label_space: dict[str, Any] | None = None,
                  train_tags: Counter | None = None, train_not_trees: dict[str, Any] | None = None,
                  seen: frozenset[str] = frozenset(), held_out: int = 0, sample_suite: bool = False,
                  leak: Any = None, meanings: dict[str, Any] | None = None) -> JobRecord:
    t0 = time.perf_counter()
    gap = jobflags.entity_type_gap(train_tags or Counter(), golds, job.task)
    if gap:  # the model cannot name one gold entity: a 0 would be a mapping gap, not a score
        return _record(job, group, "failed", seed=seed, config=config, message=gap, fit_seconds=fit_seconds)
    key = (job.variety, None if label_space is None else tuple(label_space["labels"]))
    try:
        if key not in cache:
            before = _fallbacks(model)
            cache[key] = _evaluate(job, model, golds, pool, group.training.demos, seed)
            cache[key]["fallbacks"] = _fallbacks(model) - before
        scored = cache[key]
    except EmptySplit as err:
        return _record(job, group, "skipped", seed=seed, config=config, message=str(err))
    except BackendUnavailableError:
        raise
    except Exception as err:  # noqa: BLE001 - a backend or metric error here: the other jobs go on
        return _record(job, group, "failed", seed=seed, config=config,
                       message=f"{type(err).__name__}: {err}\n{traceback.format_exc(limit=3)}")
    golds = scored["golds"]
    too_many = _too_many_invalid(model, scored["predictions"])
    if too_many:
        return _record(job, group, "failed", seed=seed, config=config, message=too_many,
                       fit_seconds=fit_seconds, eval_seconds=time.perf_counter() - t0,
                       samples=scored.get("samples", []), example_ids=_example_ids(golds))
    extra = dict(scored["extra"])
    if held_out:
        extra["demos_held_out"] = held_out
    # a pooled kind (DId) scores one class of a pooled test: its own examples share one label, no majority rate
    flags = jobflags.evaluation_flags(train_labels or Counter(), golds, scored["score"], scored["metric"],
                                      fallbacks=scored.get("fallbacks", 0), majority=pool is None,
                                      task=job.task, train_tags=train_tags, predictions=scored["predictions"])
    if label_space is not None:
        flags["label_space"] = {k: v for k, v in label_space.items() if k != "train_labels"}
    if meanings:
        flags["label_meanings"] = meanings
    leak = overlap(golds, seen) if leak is None else leak  # a cross-fitted model checks per fold
    if leak.shared:
        flags["overlap"] = {"share": round(leak.shared / leak.total, 4), "test": leak.shared}
    if sample_suite:
        flags["sample_suite"] = True
    not_trees = jobflags.not_trees(golds, train_not_trees or {}) if kind_of(job.task).trees_only else None
    if not_trees:
        flags["not_trees"] = not_trees
    if flags:
        extra[jobflags.FLAGS_KEY] = flags
    # a baseline that is not a trained model (MT copies its input) is stored under what it is: "copy"
    return _record(job, group, "done", seed=seed, config=config, model=model_capability(model, "reports_as"),
                   metric=scored["metric"], score=scored["score"],
                   n=len(golds), signature=scored["signature"], extra=extra,
                   example_ids=_example_ids(golds),
                   predictions=invalid_answers.stored(scored["predictions"]), values=scored["values"], fit_seconds=fit_seconds,
                   samples=scored.get("samples", []),
                   eval_seconds=time.perf_counter() - t0)


def _example_ids(golds: Sequence[Any]) -> list[str]:
    return [getattr(ex, "example_id", str(i)) for i, ex in enumerate(golds)]


def _too_many_invalid(model: Any, predictions: Sequence[Any]) -> str:
    """The failure message when the share of invalid answers exceeds the model's `max_invalid`, else ""."""
    limit = model_capability(model, "max_invalid")
    count = len(invalid_answers.invalid_positions(predictions))
    if limit is None or not predictions or count <= limit * len(predictions):
        return ""
    reasons = invalid_answers.invalid_extra(predictions).get("invalid_reasons", {})
    why = ", ".join(f"{n} {reason}" for reason, n in reasons.items())
    return (f"{count} of {len(predictions)} answers invalid ({why}): more than --max-invalid "
            f"{limit:.0%}; not scored")


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
            with progress.reporting(progress_callback(events, group)):
                for record in run_group(group, jobs, source, backend, seed=seed, config=config, events=events):
                    sink(record)


# ------------------------------------------------------------------------------------- parallel executors
# Groups are independent (each fits its own model), so they can run side by side; only the driver (the
# process that calls `execute`) writes the store. Both parallel executors keep a bounded window of
# groups in flight and ask `pending(group)` when a group is submitted, not up front, so that a concurrent
# run that finished some jobs meanwhile is still seen (and a race is settled by the store as before).

def usable_cores() -> int:
    """The CPU cores this process may run on (a container's or taskset's limit, not the host's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def limit_threads(n: int) -> None:
    """Cap this worker's math libraries at `n` threads: two workers each spawning one thread per core
    would oversubscribe the cores and run slower than one worker alone."""
    n = max(1, int(n))
    for var in THREAD_VARS:
        os.environ[var] = str(n)
    # torch only when loaded (importing it costs seconds a worker of other tasks never needs); one imported
    # later reads OMP_NUM_THREADS, set above
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(n)


def uses_gpu(backend: Any) -> bool:
    """Whether the backend computes on a GPU (the hf backend's `device`)."""
    return str(declared(backend).device).startswith(("cuda", "mps"))


_PROGRESS_QUEUE: Any = None  # in a local worker: the driver's progress queue (set by `init_worker`)


def init_worker(driver_pid: int, queue: Any = None, lifeline: Any = None) -> None:
    """Pool initializer: end with the driver, however it ends (`lifeline`), and keep its progress queue
    for the groups."""
    global _PROGRESS_QUEUE
    _PROGRESS_QUEUE = queue
    if queue is not None:
        queue.cancel_join_thread()  # a worker's exit never waits for the driver to read its last reports
    die_with_parent()
    watch_driver(driver_pid, lifeline)
    from dialectbench.data.errors import plain_data_warnings

    plain_data_warnings()


def run_group_list(group: Group, jobs: Sequence[Job], source: Any, backend: Any, seed: int,
                   config: dict[str, Any], threads: int | None = None,
                   env: dict[str, str] | None = None, token: Any = None) -> list[JobRecord]:
    """`run_group`, collected: what a worker process sends back to the driver. `env` is the driver's
    environment when it submitted the group (a worker forked from a server started earlier would
    otherwise miss a variable set since: an API key, an offline switch, a cache folder). With a
    `token`, progress reports go to the driver's queue tagged with it."""
    if env is not None:
        os.environ.update(env)
    if threads:
        limit_threads(threads)
    queue = _PROGRESS_QUEUE if token is not None else None
    with progress.reporting(None if queue is None else progress.QueueReporter(queue, token)):
        return list(run_group(group, jobs, source, backend, seed=seed, config=config))


def failed_records(group: Group, jobs: Sequence[Job], reason: str, *, seed: int,
                   config: dict[str, Any]) -> list[JobRecord]:
    """The group's jobs stored as failed with `reason` (a worker died, a task could not be run)."""
    return [_record(job, group, "failed", seed=seed, config=config, message=reason) for job in jobs]


def drive(groups: Sequence[Group], *, pending: Callable[[Group], list[Job]], sink: Sink, events: Events,
          submit: Callable[[Group, list[Job]], Any], wait: Callable[[list[Any]], tuple[Any, list[JobRecord]]],
          window: int) -> None:
    """Keep up to `window` groups in flight: `submit(group, jobs)` returns a handle, `wait(handles)`
    blocks until one is done and returns (that handle, its records). Records go to `sink` in the driver.

    The costliest fits go first (by `progress.group_weights`: the backend's estimate, else data size):
    with the long fits started early the small ones fill the gaps, instead of one big fit starting last
    on one core while the others sit idle."""
    todo = iter(sorted(groups, key=lambda g: -sum(_weights(g))))
    in_flight: list[Any] = []
    exhausted = False
    while True:
        while not exhausted and len(in_flight) < window:
            group = next(todo, None)
            if group is None:
                exhausted = True
                break
            jobs = pending(group)
            if jobs:
                events.group_started(group, jobs)
                in_flight.append(submit(group, jobs))
        if not in_flight:
            return
        handle, records = wait(in_flight)
        in_flight.remove(handle)
        for record in records:
            sink(record)


def _weights(group: Group) -> tuple[float, float]:
    fit, evals = progress.group_weights(group, group.jobs)
    return fit, sum(evals.values())


# what every local worker imports (light: the metrics and the backends load their heavy libraries on
# demand); `worker_preload` adds what the plan's fits and metrics need
PRELOAD = ("dialectbench.runner._fork_server", "dialectbench.runner.local_executor", "dialectbench.data",
           "dialectbench.metrics")  # the first binds the server's life to the driver's (runner/lifeline.py)


def worker_preload(backend: Any, tasks: Sequence[str] | None) -> list[str]:
    """PRELOAD, plus the modules that fitting and scoring `tasks` (None: all) with `backend` (an object or
    a model name, see `backends.worker_modules`) import."""
    from dialectbench.backends import worker_modules
    from dialectbench.metrics.tasks import metric_modules

    return list(dict.fromkeys([*PRELOAD, *worker_modules(backend, tasks), *metric_modules(tasks)]))


class ProcessExecutor:
    """Runs independent groups in `workers` local processes, each limited to `threads` math threads.

    Workers start from a fork server (a clean process, not a fork of the driver, whose threads and any
    initialised OpenMP pool a plain fork would copy half-alive); they read the data themselves, since
    they share the driver's disk. A worker that dies fails its group's jobs with the reason; the pool is
    rebuilt and the run goes on.
    """

    def __init__(self, workers: int | None = None, threads: int = 1) -> None:
        self.threads = max(1, int(threads))
        self.workers = max(1, workers or usable_cores() // self.threads)

    def prepare(self, backend: Any, tasks: Sequence[str] | None = None) -> None:
        """Start the workers' fork server now, in the background, importing what `backend` (an object or
        a model name) needs for `tasks`: the runner calls this before it builds the backend and the plan,
        so that the server's imports (seconds: torch, scikit-learn) overlap the driver's own, and forked
        workers start with them loaded. A no-op when no pool will be used, or once a server runs."""
        if self.workers == 1:
            return
        if isinstance(backend, str) and backend.strip().partition(":")[0] != "baseline":
            return  # an hf model may run on a GPU, in the driver: whether a pool is used is known once built
        if not isinstance(backend, str) and (uses_gpu(backend) or declared(backend).supports_icl):
            return
        import multiprocessing
        from multiprocessing import forkserver

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(worker_preload(backend, tasks))
        forkserver.ensure_running()  # spawns the server and returns; the first fork waits for its imports

    def execute(self, groups: Sequence[Group], *, source: Any, backend: Any, seed: int,
                config: dict[str, Any], pending: Callable[[Group], list[Job]], sink: Sink,
                events: Events | None = None) -> None:
        import concurrent.futures as cf
        import multiprocessing

        events = events or NoEvents()
        # a GPU backend stays in one process: local workers would each load a model onto the same GPU
        # with no resource accounting (packing fine-tunes on a GPU is the Ray executor's --gpus-per-job);
        # so does an icl backend: one model or server connection pool (--concurrency) and one request cache
        if self.workers == 1 or len(groups) < 2 or uses_gpu(backend) or declared(backend).supports_icl:
            InProcessExecutor().execute(groups, source=source, backend=backend, seed=seed, config=config,
                                        pending=pending, sink=sink, events=events)
            return
        context = multiprocessing.get_context("forkserver")
        # the server imports these once; each worker forked from it starts with them loaded (no effect
        # once this process's server runs: `prepare` started it, or an earlier run did)
        context.set_forkserver_preload(worker_preload(backend, sorted({g.task for g in groups})))
        # progress inside the groups comes back on a queue the driver drains while it waits for results
        queue = context.Queue(maxsize=10_000) if getattr(events, "job_progress", None) else None
        # the workers' lifeline: only this process holds the write end, so they see end-of-file when it ends
        lifeline, alive = context.Pipe(duplex=False)
        watched = {"initializer": init_worker, "initargs": (os.getpid(), queue, lifeline)}
        # the last pool is the current one (a dead worker breaks a pool: a new one takes over)
        pools = [cf.ProcessPoolExecutor(self.workers, mp_context=context, **watched)]
        submitted: dict[Any, tuple[Group, list[Job], Any]] = {}
        tokens: dict[int, Group] = {}
        args = (source, backend, seed, config, self.threads)

        def submit(group: Group, jobs: list[Job]) -> Any:
            token = len(tokens)
            tokens[token] = group
            call = (run_group_list, group, jobs, *args, dict(os.environ), token)
            try:
                future = pools[-1].submit(*call)
            except cf.process.BrokenProcessPool:
                pools.append(cf.ProcessPoolExecutor(self.workers, mp_context=context, **watched))
                future = pools[-1].submit(*call)
            submitted[future] = (group, jobs, pools[-1])
            return future

        def deliver(token: int, info: dict[str, Any]) -> None:
            if token in tokens:
                events.job_progress(tokens[token], info)  # type: ignore[attr-defined]

        def wait(futures: list[Any]) -> tuple[Any, list[JobRecord]]:
            done: set[Any] = set()
            while not done:  # short waits: the progress queue is drained in between
                done, _ = cf.wait(futures, timeout=0.25, return_when=cf.FIRST_COMPLETED)
                if queue is not None:
                    progress.drain(queue, deliver)
            future = next(iter(done))
            group, jobs, pool = submitted.pop(future)
            try:
                return future, future.result()
            except cf.process.BrokenProcessPool:
                # a dead worker breaks the whole pool: every group in flight lands here, not only the one
                # that killed it. Each gets a second try alone, so only the culprit is failed.
                if pool is pools[-1]:
                    pools.append(cf.ProcessPoolExecutor(self.workers, mp_context=context, **watched))
                return future, _alone(context, group, jobs, args, lifeline)
            except Exception as err:  # noqa: BLE001 - e.g. a backend that cannot be pickled
                reason = f"the worker could not run the group: {type(err).__name__}: {err}"
                return future, failed_records(group, jobs, reason, seed=seed, config=config)

        try:
            # one group queued beyond the workers: a worker that finishes starts the next group at once
            # instead of idling while the driver stores the results and submits (many small groups)
            drive(groups, pending=pending, sink=sink, events=events, submit=submit, wait=wait,
                  window=self.workers + 1)
        except BaseException:  # Ctrl-C, SIGTERM: stop now; finished jobs are already committed
            for pool in pools:
                _stop(pool)
            raise
        else:
            for pool in pools:
                pool.shutdown(wait=True)
        finally:
            if queue is not None:
                queue.cancel_join_thread()  # undelivered reports are stale: never wait on them
                queue.close()
            lifeline.close()
            alive.close()  # after the workers ended: closing it ends any that are left


def _stop(pool: Any) -> None:
    """Cancel what has not started and end the workers: without that, the interpreter's exit would wait
    for each running group (a parser fit can take minutes) before an interrupted run could exit."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # no public API before 3.14
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()


def _alone(context: Any, group: Group, jobs: list[Job], args: tuple, lifeline: Any) -> list[JobRecord]:
    """Run one group in a fresh worker of its own; its jobs fail with the reason if that worker dies too."""
    import concurrent.futures as cf

    seed, config = args[2], args[3]
    with cf.ProcessPoolExecutor(1, mp_context=context, initializer=init_worker,
                                initargs=(os.getpid(), None, lifeline)) as pool:
        try:
            return pool.submit(run_group_list, group, jobs, *args, dict(os.environ)).result()
        except cf.process.BrokenProcessPool:
            reason = "the worker process died (killed, out of memory or crashed) twice on this training set"
    return failed_records(group, jobs, reason, seed=seed, config=config)

