"""`run(...)`: plan, execute and store a benchmark run; the library call behind `dialectbench run`."""

from __future__ import annotations

import re
import subprocess
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

from dialectbench import __version__
from dialectbench.backends.base import Backend, BackendUnavailableError, declared
from dialectbench.data.user_catalogue import with_user_data
from dialectbench.runner import progress
from dialectbench.runner.local_executor import InProcessExecutor
from dialectbench.runner.once import warnings_once
from dialectbench.runner.options import (
    LimitedSource,
    MarkedBackend,
    OptionError,
    RunOptions,
    SampleLoggingBackend,
)
from dialectbench.runner.plan import Catalogue, Group, Job, Plan, build_plan, split_names
from dialectbench.runner.store import DEFAULT_STORE, JobRecord, Store, StoreError


class RunError(RuntimeError):
    """The run cannot start (bad model name, unreadable data directory...)."""


class RunEvents(Protocol):
    """What a progress display hears about (all methods optional to act on)."""

    def planned(self, plan: Plan, pending: int) -> None: ...
    def group_started(self, group: Group, jobs: Sequence[Job]) -> None: ...
    def job_started(self, job: Job) -> None: ...
    def job_finished(self, record: JobRecord, written: bool) -> None: ...


class QuietEvents:
    def planned(self, plan: Plan, pending: int) -> None:
        pass

    def group_started(self, group: Group, jobs: Sequence[Job]) -> None:
        pass

    def job_started(self, job: Job) -> None:
        pass

    def job_finished(self, record: JobRecord, written: bool) -> None:
        pass


@dataclass
class RunResult:
    run_id: str
    store: Path
    plan: Plan
    counts: Counter = field(default_factory=Counter)  # done, reused, skipped, failed, raced
    problems: list[JobRecord] = field(default_factory=list)  # skipped or failed jobs, with their message

    @property
    def job_keys(self) -> list[str]:
        return [job.key for job in self.plan.jobs]


# extras whose libraries can change a score (a model backend, ASR, a fit): recorded when installed
SCORING_EXTRAS = ("hf", "llm", "speech", "stats")


def library_versions() -> dict[str, str]:
    """Versions of the package's declared dependencies as installed: every core one, and those of the
    scoring extras that are installed."""
    versions = {}
    try:
        requirements = metadata.requires("dialectbench") or []
    except metadata.PackageNotFoundError:
        requirements = []
    for req in requirements:
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)", req)
        if extra and extra.group(1) not in SCORING_EXTRAS:
            continue
        name = re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0]
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            if not extra:
                versions[name] = "missing"
    return versions


def git_hash() -> str | None:
    """The commit of the source tree the package runs from, when it is a git checkout."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent, capture_output=True,
                             text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _open_source(data_dir: str | Path | None) -> Any:
    from dialectbench.data import DataError, open_source

    if data_dir is not None and not Path(data_dir).is_dir():
        raise RunError(f"data directory {str(data_dir)!r} does not exist or is not a directory")
    try:
        return open_source(None if data_dir is None else Path(data_dir))
    except DataError as err:
        raise RunError(str(err)) from None


def _with_synthetic(source: Any, profiles: Sequence[str], seed: int) -> Any:
    from dialectbench.perturb import PerturbError
    from dialectbench.perturb.synthetic import with_synthetic

    try:
        return with_synthetic(source, profiles, seed)
    except PerturbError as err:
        raise RunError(str(err)) from None


def _takes_option(model: str, option: str) -> bool:
    """Whether the backend `model` names declares `option` in its registry entry: the in-context backends
    log their own prompts and answers (log_samples); the others are wrapped to log inputs and predictions."""
    from dialectbench.backends.registry import entry

    found = entry(model)
    return found is not None and option in (found.options or ())


def _get_backend(model: str, options: dict[str, Any] | None = None) -> Any:
    from dialectbench.backends import BackendOptionError, get_backend

    try:
        return get_backend(model, **(options or {}))
    except BackendOptionError as err:  # an option the backend does not declare: named, with near matches
        raise RunError(str(err)) from None
    except TypeError as err:  # an option (--concurrency, --max-invalid...) this backend does not take
        raise RunError(f"model {model!r} does not take the option(s) {', '.join(sorted(options or {}))}: "
                       f"{err}") from None
    except (KeyError, ValueError, LookupError) as err:
        raise RunError(f"unknown model {model!r}: {err}") from None


def _preflight(backend: Any) -> None:
    """A model that cannot be loaded fails the run here, once, before any job."""
    try:
        backend.preflight()
    except (OSError, ValueError, LookupError) as err:
        raise RunError(str(err).splitlines()[0] if str(err) else type(err).__name__) from None


def run(*, tasks: Sequence[str] | None = None, varieties: Sequence[str] | None = None,
        clusters: Sequence[str] | None = None, model: str = "baseline", settings: Sequence[str] | None = None,
        data_dir: str | Path | None = None, store: str | Path = DEFAULT_STORE, seed: int = 0,
        rerun: bool = False, source: Any = None, backend: Any = None, catalogue: Catalogue | None = None,
        executor: Any = None, events: RunEvents | None = None, options: RunOptions | None = None,
        backend_options: dict[str, Any] | None = None, synthetic: Sequence[str] | None = None,
        fewshot: str | None = None) -> RunResult:
    """Plan the jobs, run the pending ones, commit each finished job to `store`; returns the tally.

    `source`, `backend`, `catalogue` and `executor` default to the bundled sample suite (or `data_dir`),
    `get_backend(model, **backend_options)`, the packaged registry and the in-process executor.
    `options` (limit, device, batch size, epochs, time cap; see options.py) join the job keys;
    `backend_options` (the icl options: mode, concurrency, max_invalid...) go to the backend as they are.
    `synthetic` (profile ids, e.g. ["aave"]) adds the synthetic varieties `english (i:synthetic-<id>)` of the
    UD tasks (dialectbench.perturb.synthetic). `fewshot` (variety, cluster, english; None: each task's
    default, see plan.py) is where icl demonstrations come from.
    Raises `PlanError` for unknown names and `RunError` when the run cannot start.
    """
    events = events or QuietEvents()
    options = options or RunOptions()
    backend = None if backend is None else declared(backend)  # a duck-typed backend: its capabilities read once
    source = source if source is not None else _open_source(data_dir)
    source = with_user_data(source)  # the datasets of --catalogue / $DIALECTBENCH_CATALOGUE files
    if synthetic:
        source = _with_synthetic(source, synthetic, seed)
    if options.limit is not None:
        source = LimitedSource(source, options.limit, seed=seed, first=options.limit_first)
    prepare = getattr(executor, "prepare", None)  # a parallel executor starts its workers meanwhile
    if prepare is not None:
        prepare(backend if backend is not None else model, split_names(tasks))
    try:
        return _plan_and_execute(tasks=tasks, varieties=varieties, clusters=clusters, model=model,
                                 settings=settings, data_dir=data_dir, store=store, seed=seed, rerun=rerun,
                                 source=source, backend=backend, catalogue=catalogue, executor=executor,
                                 events=events, options=options, backend_options=backend_options,
                                 synthetic=synthetic, fewshot=fewshot)
    finally:
        abandon = getattr(executor, "abandon", None)  # e.g. a plan error: stop what `prepare` started
        if abandon is not None:
            abandon()


def _plan_and_execute(*, tasks, varieties, clusters, model, settings, data_dir, store, seed, rerun, source,
                      backend, catalogue, executor, events, options, backend_options, synthetic,
                      fewshot) -> RunResult:
    if backend is None:  # (options only when given: tests and tools replace _get_backend(model))
        try:
            given = {**options.backend_options(model), **(backend_options or {})}
        except OptionError as err:
            raise RunError(str(err)) from None
        # --log-samples for every backend: one that has no prompts to log gets its predictions logged
        wrap = bool(given.get("log_samples")) and not _takes_option(model, "log_samples")
        if wrap:
            given = {k: v for k, v in given.items() if k != "log_samples"}
        backend = _get_backend(model, given) if given else _get_backend(model)
        backend = declared(SampleLoggingBackend(backend) if wrap else backend)
        _preflight(backend)
    model_name = backend.name or model
    if options.marks():  # a smoke test's or a shortened run's scores must never pass for (or shadow) a plain run's
        model_name = f"{model_name} ({options.marks()})"
        backend = MarkedBackend(backend, options.marks())
    try:
        db = Store(store)
    except StoreError as err:
        raise RunError(str(err)) from None
    try:
        return _plan_into(db, tasks=tasks, varieties=varieties, clusters=clusters, model_name=model_name,
                          settings=settings, data_dir=data_dir, store=store, seed=seed, rerun=rerun,
                          source=source, backend=backend, catalogue=catalogue, executor=executor, events=events,
                          options=options, synthetic=synthetic, fewshot=fewshot)
    finally:
        db.close()


def _plan_into(db: Store, *, tasks, varieties, clusters, model_name, settings, data_dir, store, seed, rerun,
               source, backend, catalogue, executor, events, options, synthetic, fewshot) -> RunResult:
    # the LLM backends keep their request cache in the store: attached before `config`, which may need the
    # served model id (asked of the server once, then found in the cache: --rescore asks nothing)
    backend.attach_store(db.path)
    try:
        backend_config = dict(backend.config or {})
    except BackendUnavailableError as err:
        raise RunError(str(err)) from None
    job_config = {"model": model_name, "backend": backend_config, "seed": seed, **options.key_config()}
    plan = build_plan(source, model=model_name, tasks=tasks, varieties=varieties, clusters=clusters,
                      settings=settings, supports_icl=bool(backend.supports_icl),
                      config=job_config, catalogue=catalogue, fewshot=fewshot,
                      training_free=tuple(backend.training_free_tasks),
                      cross_fit=tuple(backend.cross_fit_tasks))
    _weigh_fits(plan, backend, options.limit)
    with warnings_once():  # sacrebleu's detokenize notice once per run, not once per MT job
        return _execute(db, plan, source, backend, executor or InProcessExecutor(), events, job_config,
                        run_config={"tasks": plan.tasks, "varieties": varieties, "clusters": clusters,
                                    "model": model_name, "settings": plan.settings, "rerun": rerun,
                                    "data_dir": None if data_dir is None else str(data_dir),
                                    "store": str(store), "device": options.device,
                                    "synthetic": list(synthetic or []), "fewshot": fewshot, **job_config},
                        seed=seed, rerun=rerun)


def _weigh_fits(plan: Plan, backend: Backend | None, limit: int | None = None) -> None:
    """The backend's cost estimate of each fit whose training size is known (`fit_weight(task, bytes,
    dev=...)`; None: by its size): the longest fits are scheduled first and the ETA weighs them by it. Under
    `--limit N` a test split weighs what N of its examples do, not its full size."""
    if limit is not None:
        for group in plan.groups:
            for (variety, split), size in group.sizes.items():
                if split == "test":
                    group.sizes[variety, split] = min(size, limit * progress.example_bytes(group.task))
    if backend is None:
        return
    backend = declared(backend)
    for group in plan.groups:
        members = group.training.members
        if group.training.mode == "finetune" and members and all((v, "train") in group.sizes for v in members):
            group.fit_weight = backend.fit_weight(group.task, sum(group.sizes[v, "train"] for v in members),
                                     dev=any((v, "dev") in group.sizes for v in members))


def _execute(db: Store, plan: Plan, source: Any, backend: Any, executor: Any, events: RunEvents,
             job_config: dict[str, Any], run_config: dict[str, Any], seed: int, rerun: bool) -> RunResult:
    run_id = uuid.uuid4().hex
    result = RunResult(run_id, db.path, plan)
    db.start_run(run_id, seed=seed, config=run_config, package_version=__version__,
                 library_versions=library_versions(), git_hash=git_hash())
    db.record_skips(run_id, plan.skips)
    written_here: set[str] = set()

    def pending(group: Group) -> list[Job]:
        skip = written_here if rerun else db.done_keys([j.key for j in group.jobs])
        return [j for j in group.jobs if j.key not in skip]

    def sink(record: JobRecord) -> None:
        written = db.commit_job(run_id, record, force=rerun)
        if written:
            written_here.add(record.job_key)
        result.counts[record.status if written else "raced"] += 1
        if written and record.status != "done":
            result.problems.append(record)
        events.job_finished(record, written)

    already = 0 if rerun else len(db.done_keys(result.job_keys))
    result.counts["reused"] = already
    events.planned(plan, len(plan.jobs) - already)
    status = "interrupted"
    try:
        executor.execute(plan.groups, source=source, backend=backend, seed=seed, config=job_config,
                         pending=pending, sink=sink, events=events)
        status = "finished"
    except BackendUnavailableError as err:  # once, in one line, not once per job
        raise RunError(str(err)) from None
    finally:
        db.finish_run(run_id, status, dict(result.counts))
    return result
