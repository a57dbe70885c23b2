"""The Ray executor: each group is a Ray task with declared resources; records come back to the driver.

    RayExecutor(address=None)            a local Ray instance sized to this machine (stopped at the end)
    RayExecutor(address="auto")          the cluster this machine belongs to (`ray start --head` / `--address`)
    RayExecutor(address="HOST:PORT")     a given cluster

Only the driver writes the SQLite store, so resume, `--rerun` and concurrent runs behave as with the
local executors. Choices made here (issue 14):
- Data travels with the task: the driver reads each group's splits and ships the examples (a
  `ShippedSource`), so a worker never needs the data directory; a cluster without a shared file system
  works, and a split the driver cannot read is skipped with the same reason as in a local run.
- A worker that dies mid-task (killed, out of memory, node lost) is retried `max_retries` times by Ray;
  after that the group's jobs are stored as failed with the reason. Exceptions inside a job are not
  retried: `run_group` already stores them as that job's failure.
- Ctrl-C cancels the outstanding tasks; finished jobs were committed as they arrived.
"""

from __future__ import annotations

import contextlib
import logging
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from dialectbench.backends.base import declared
from dialectbench.runner import progress
from dialectbench.runner.lifeline import die_with_parent
from dialectbench.runner.local_executor import (
    Events,
    NoEvents,
    Sink,
    drive,
    failed_records,
    limit_threads,
    run_group,
)
from dialectbench.runner.plan import DATA_ERRORS, Group, Job
from dialectbench.runner.store import JobRecord

INSTALL_HINT = "the Ray executor needs Ray: pip install 'dialectbench[ray]'"
DEFAULT_RETRIES = 2


class RayUnavailable(RuntimeError):
    """Ray is not installed or the cluster cannot be reached (the message says which and what to do)."""


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable(INSTALL_HINT) from None
    return ray


@dataclass
class ShippedSource:
    """The splits one group reads, loaded by the driver: the part of the Source protocol `run_group`
    uses (`splits`, `load`). A split the driver failed to read keeps its error, raised again on the
    worker so that the job is skipped with the same message as in a local run."""

    task: str
    split_names: dict[str, set[str]] = field(default_factory=dict)
    examples: dict[tuple[str, str], list[Any]] = field(default_factory=dict)
    errors: dict[tuple[str, str], BaseException] = field(default_factory=dict)

    def splits(self, task: str, variety: str) -> set[str]:
        return set(self.split_names.get(variety, set()))

    def load(self, task: str, variety: str, split: str) -> list[Any]:
        if (variety, split) in self.errors:
            raise self.errors[(variety, split)]
        return list(self.examples[(variety, split)])


def ship(group: Group, jobs: Sequence[Job], source: Any) -> ShippedSource:
    """What `run_group(group, jobs, ...)` will read: train/dev of the members, test of the jobs' and the
    DId pool's varieties; a split shared by several varieties (same fingerprint) is read once."""
    task = group.task
    out = ShippedSource(task)
    wanted = [(v, s) for v in group.training.members for s in ("train", "dev")]
    wanted += [(v, "test") for v in dict.fromkeys([*(j.variety for j in jobs), *group.training.pool])]
    by_fp: dict[str, list[Any]] = {}
    for variety, split in wanted:
        if variety not in out.split_names:
            try:
                out.split_names[variety] = set(source.splits(task, variety))
            except DATA_ERRORS:
                out.split_names[variety] = set()
        if split == "dev" and "dev" not in out.split_names[variety]:
            continue
        fp = group.fingerprints.get((variety, split))
        try:
            examples = by_fp[fp] if fp in by_fp else source.load(task, variety, split)
        except DATA_ERRORS as err:
            out.errors[(variety, split)] = err
            continue
        if fp is not None:
            by_fp[fp] = examples
        out.examples[(variety, split)] = examples
    return out


def _run_remote(group: Group, jobs: Sequence[Job], source: ShippedSource, backend: Any, seed: int,
                config: dict[str, Any], threads: int, queue: Any = None,
                token: Any = None) -> tuple[str, list[JobRecord]]:
    """The body of one Ray task: (the node it ran on, the group's records). Progress reports go to the
    driver's Ray queue actor, tagged with `token`."""
    import ray

    die_with_parent()  # the raylet, which a local Ray instance ends with the driver (runner/lifeline.py)
    limit_threads(threads)
    with progress.reporting(None if queue is None else progress.QueueReporter(queue, token)):
        records = list(run_group(group, jobs, source, backend, seed=seed, config=config))
    return ray.get_runtime_context().get_node_id(), records


def _warm(modules: Sequence[str]) -> list[str]:
    """A start-up task: import what the groups' fits need into a Ray worker while the driver still plans
    (a worker runs many tasks: the real ones then find them loaded). Returns the modules it loaded."""
    import importlib

    die_with_parent()
    loaded = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:  # e.g. an optional backend's library: the group itself reports it
            continue
        loaded.append(name)
    return loaded


@contextlib.contextmanager
def _quiet_sigterm_notice() -> Iterator[None]:
    """ray.init outside the main thread warns that it sets no SIGTERM handler: expected here (the CLI
    keeps its own, which stores the run as interrupted), so the notice is not shown."""
    logger = logging.getLogger("ray._private.worker")
    drop = logging.Filter()
    drop.filter = lambda record: "SIGTERM handler" not in record.getMessage()  # type: ignore[method-assign]
    logger.addFilter(drop)
    try:
        yield
    finally:
        logger.removeFilter(drop)


WARM_TASKS_MAX = 16  # start-up imports in at most this many workers (a big cluster warms as tasks land)


def _progress_queue(events: Events) -> Any:
    """A Ray queue actor for the workers' progress reports when the display listens (no CPU reserved:
    it must never take a job's slot)."""
    if getattr(events, "job_progress", None) is None:
        return None
    from ray.util.queue import Queue

    return Queue(maxsize=10_000, actor_options={"num_cpus": 0})


def default_gpus(backend: Any, cluster_gpus: float) -> float:
    """A whole GPU for a transformer fine-tune when the cluster has GPUs; none for the CPU baselines.
    Pass a fraction (`--gpus-per-job 0.25`) to pack small fine-tunes four to a GPU."""
    if cluster_gpus <= 0 or declared(backend).name == "baseline":
        return 0.0
    return 1.0


class RayExecutor:
    """Runs each group as a Ray task (`num_cpus=cpus_per_job`, `num_gpus=gpus_per_job`)."""

    def __init__(self, address: str | None = None, *, cpus_per_job: float = 1, gpus_per_job: float | None = None,
                 max_retries: int = DEFAULT_RETRIES, init_options: dict[str, Any] | None = None) -> None:
        if cpus_per_job <= 0:
            raise ValueError("cpus per job must be positive")
        if gpus_per_job is not None and gpus_per_job < 0:
            raise ValueError("gpus per job cannot be negative")
        self.address = address
        self.cpus_per_job = cpus_per_job
        self.gpus_per_job = gpus_per_job
        self.max_retries = max(0, int(max_retries))
        self.init_options = dict(init_options or {})
        self.nodes: Counter = Counter()  # node id -> groups run there (for tests and the log)
        self.retried: list[str] = []
        self._starting: Any = None  # the thread of `prepare`, until `execute` joins it
        self._started: bool = False  # whether this executor started Ray (and so stops it)
        self._start_error: BaseException | None = None
        self._warm_refs: list[Any] = []  # the start-up tasks (`_warm`)
        self.phases: dict[str, float] = {}  # start-up seconds by phase (benchmarks print them)

    def _connect(self, ray: Any) -> bool:
        """Join (or start) Ray; True when this call started it, so that `execute` stops it again."""
        if ray.is_initialized():
            return False
        options = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False,
                   **self.init_options}
        try:
            # "local" starts a fresh instance even when `ray start` left one running here (ray.init()
            # without an address would join that one): joining a cluster is what --ray-address is for
            ray.init(address=self.address or "local", **options)
        except (ConnectionError, RuntimeError, ValueError) as err:
            where = self.address or "a local instance"
            raise RayUnavailable(f"cannot start or reach Ray at {where}: {str(err).splitlines()[0]}") from None
        return True

    def prepare(self, backend: Any, tasks: Sequence[str] | None = None) -> None:
        """Start (or join) Ray in a background thread and warm its workers up with the imports `backend`
        (an object or a model name) needs for `tasks`: the runner calls this before it builds the
        backend and the plan, so that Ray's start-up (seconds) overlaps them. `execute` waits for it;
        `abandon` stops what it started when the run ends before `execute`."""
        import threading

        from dialectbench.runner.local_executor import worker_preload

        if self._starting is not None:
            return
        ray = import_ray()
        self._ready, self._release = threading.Event(), threading.Event()
        self._starting = threading.Thread(target=self._start, args=(ray, worker_preload(backend, tasks)),
                                          name="ray-start", daemon=True)
        self._starting.start()

    def _start(self, ray: Any, modules: Sequence[str]) -> None:
        import time

        t0 = time.perf_counter()
        try:
            with _quiet_sigterm_notice():
                self._started = self._connect(ray)
            self.phases["ray.init"] = time.perf_counter() - t0
            slots = int(ray.cluster_resources().get("CPU", 1) // self.cpus_per_job)
            warm = ray.remote(_warm).options(num_cpus=self.cpus_per_job, max_retries=0)
            self._warm_refs = [warm.remote(modules) for _ in range(max(1, min(slots, WARM_TASKS_MAX)))]
        except BaseException as err:  # noqa: BLE001 - raised again by `execute`, in the driver's thread
            self._start_error = err
        finally:
            self._ready.set()
        # Ray's processes are bound to the thread that started them (they die with it: PR_SET_PDEATHSIG),
        # so this thread lives until the run is over
        if self._started:
            self._release.wait()

    def _wait_started(self, ray: Any) -> bool:
        """Wait for `prepare`'s start (or connect now, without one); True when this executor started Ray."""
        import time

        t0 = time.perf_counter()
        if self._starting is None:
            started = self._connect(ray)
            self.phases["ray.init"] = time.perf_counter() - t0
            return started
        while not self._ready.wait(timeout=0.5):  # bounded waits: Ctrl-C is heard (ray.init has timeouts)
            pass
        self.phases["waited for ray.init"] = time.perf_counter() - t0
        if self._start_error is not None:
            err, self._start_error = self._start_error, None
            self._done()
            raise err
        return self._started

    def _done(self) -> None:
        """Let `prepare`'s thread end (after ray.shutdown, when this executor started Ray)."""
        if self._starting is not None:
            self._release.set()
            self._starting = None

    def abandon(self) -> None:
        """The run ends before `execute` (a plan error): stop the Ray instance `prepare` started."""
        if self._starting is None:
            return
        ray = import_ray()
        try:
            if self._wait_started(ray):
                ray.shutdown()
        except BaseException:  # noqa: BLE001, S110 - it never started: nothing to stop
            pass
        self._done()

    def execute(self, groups: Sequence[Group], *, source: Any, backend: Any, seed: int,
                config: dict[str, Any], pending: Callable[[Group], list[Job]], sink: Sink,
                events: Events | None = None) -> None:
        import time

        ray = import_ray()
        events = events or NoEvents()
        started = self._wait_started(ray)
        try:
            self._execute(ray, groups, source, backend, seed, config, pending, sink, events)
        finally:
            if started:
                t0 = time.perf_counter()
                ray.shutdown()
                self.phases["ray.shutdown"] = time.perf_counter() - t0
            self._done()

    def _execute(self, ray: Any, groups: Sequence[Group], source: Any, backend: Any, seed: int,
                 config: dict[str, Any], pending: Callable[[Group], list[Job]], sink: Sink,
                 events: Events) -> None:
        resources = ray.cluster_resources()
        gpus = self.gpus_per_job if self.gpus_per_job is not None else default_gpus(
            backend, resources.get("GPU", 0))
        threads = max(1, int(self.cpus_per_job))
        task = ray.remote(_run_remote).options(num_cpus=self.cpus_per_job, num_gpus=gpus,
                                               max_retries=self.max_retries, retry_exceptions=False)
        # enough tasks in flight to fill the cluster (plus one queued, so a freed slot never waits for the
        # driver to read the next group's data), few enough that `pending` is asked late
        slots = int(resources.get("CPU", 1) // self.cpus_per_job)
        if gpus:
            slots = min(slots, int(resources.get("GPU", 0) // gpus))
        if slots < 1:
            raise RayUnavailable(f"no node of the Ray cluster has {self.cpus_per_job} CPU(s) and {gpus} GPU(s) "
                                 "for one job; lower --cpus-per-job / --gpus-per-job")
        backend_ref = ray.put(backend)  # shipped once, not once per task
        submitted: dict[Any, tuple[Group, list[Job]]] = {}
        queue = _progress_queue(events)
        tokens: dict[int, Group] = {}

        def submit(group: Group, jobs: list[Job]) -> Any:
            token = len(tokens)
            tokens[token] = group
            ref = task.remote(group, jobs, ship(group, jobs, source), backend_ref, seed, config, threads,
                              queue, token)
            submitted[ref] = (group, jobs)
            return ref

        def deliver(token: int, info: dict[str, Any]) -> None:
            if token in tokens:
                events.job_progress(tokens[token], info)  # type: ignore[attr-defined]

        def wait(refs: list[Any]) -> tuple[Any, list[JobRecord]]:
            done: list[Any] = []
            while not done:  # bounded waits, so that Ctrl-C is heard promptly (and progress drained)
                done, _ = ray.wait(refs, num_returns=1, timeout=0.5)
                if queue is not None:
                    progress.drain(queue, deliver)
            ref = done[0]
            group, jobs = submitted.pop(ref)
            try:
                node, records = ray.get(ref)
            except ray.exceptions.RayError as err:
                reason = _failure_reason(err, self.max_retries)
                return ref, failed_records(group, jobs, reason, seed=seed, config=config)
            self.nodes[node] += 1
            return ref, records

        try:
            drive(groups, pending=pending, sink=sink, events=events, submit=submit, wait=wait,
                  window=slots + 1)
        except BaseException:
            for ref in submitted:
                ray.cancel(ref, force=True)
            raise
        finally:
            if queue is not None:
                queue.shutdown()


def _failure_reason(err: BaseException, retries: int) -> str:
    first = (str(err).strip().splitlines() or [type(err).__name__])[0]
    if type(err).__name__ in ("WorkerCrashedError", "NodeDiedError", "OutOfMemoryError", "ObjectLostError"):
        return f"the Ray worker died ({retries} retr{'y' if retries == 1 else 'ies'} spent): {first}"
    return f"the Ray task failed: {type(err).__name__}: {first}"
