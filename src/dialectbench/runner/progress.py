"""Progress from inside a long job (a parser's epochs, the examples it has trained on), to the driver.

A backend calls `report(...)` while it fits (defined in `dialectbench.progress`, below every package, so
that a backend need not import the runner; re-exported here); it costs nothing when nobody listens. The executor that
runs the group decides where a report goes:

    in-process      `reporting(callback)` around the group: the callback is the display's, directly
    local workers   a multiprocessing queue the worker got at start (`QueueReporter`), drained by the
                    driver while it waits for results
    Ray workers     a Ray queue actor (`ray.util.queue.Queue`), drained the same way

Reports are throttled in the worker (at most one per `MIN_INTERVAL` seconds, plus every change of
stage or epoch), so a fast inner loop never floods a queue, a pipe or a log.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from dialectbench.progress import MIN_INTERVAL, Callback, report, reporting

__all__ = ["MIN_INTERVAL", "Callback", "QueueReporter", "Tracker", "describe", "drain", "fraction", "report", "reporting"]


def fraction(info: dict[str, Any]) -> float | None:
    """How much of the reported stage is done, 0..1 (None when the report has no total)."""
    done, total = info.get("done"), info.get("total")
    if done is None or not total:
        return None
    return max(0.0, min(1.0, float(done) / float(total)))


def describe(info: dict[str, Any]) -> str:
    """A short text for a display: 'fit epoch 3/30 · 412k/1.2M words'."""
    parts = [str(info.get("stage", ""))]
    if info.get("epoch") is not None:
        epochs = info.get("epochs")
        parts[0] += f" epoch {info['epoch']}" + (f"/{epochs}" if epochs else "")
    if info.get("done") is not None:
        total = f"/{_short(info['total'])}" if info.get("total") else ""
        parts.append(f"{_short(info['done'])}{total} {info.get('unit', '')}".strip())
    return " · ".join(p for p in parts if p)


def _short(n: float) -> str:
    n = float(n)
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(n) >= size:
            return f"{n / size:.1f}".rstrip("0").rstrip(".") + suffix
    return f"{n:.0f}"


# ---------------------------------------------------------------------------------- cross-process sending
class QueueReporter:
    """A worker-side callback that puts `(token, info)` on a queue the driver drains: a multiprocessing
    queue (local workers) or a Ray queue (Ray tasks). `put_nowait` never blocks the fit: a full queue
    drops the report (the next one supersedes it)."""

    def __init__(self, queue: Any, token: Any) -> None:
        self.queue, self.token = queue, token

    def __call__(self, info: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):  # queue.Full, a closed queue, a Ray queue actor gone
            self.queue.put_nowait((self.token, info))


def drain(queue: Any, deliver: Callable[[Any, dict[str, Any]], None], limit: int = 1000) -> int:
    """Hand every waiting `(token, info)` to `deliver`, without blocking; returns how many."""
    n = 0
    while n < limit:
        try:
            token, info = queue.get_nowait()
        except Exception:  # noqa: BLE001 - queue.Empty (multiprocessing or Ray), or a closed queue
            return n
        deliver(token, info)
        n += 1
    return n


# ------------------------------------------------------------------------------------------ the run's ETA
# Relative cost per byte of data on disk, by task: a parser fit is several epochs of a BiLSTM over the
# treebank, a CRF fit 150 L-BFGS passes over cached features (UD_English-EWT: ~420 against ~180 CPU-s);
# evaluating is one pass over the test set. These only need to be right relative to each other: the ETA
# itself scales them by the rate this run has actually achieved so far (elapsed time / work done).
FIT_COST = {"dep": 3.0}
EVAL_COST = {"dep": 0.6}
DEFAULT_FIT_COST, DEFAULT_EVAL_COST = 1.0, 0.05
UNKNOWN_SIZE = 1.0  # a source that cannot tell its sizes (tests' in-memory sources): every split alike
# Bytes on disk of one test example, by task (medians over the real mirror's test splits; the sample
# suite's are 2-5x smaller): under `--limit N` a test split weighs N examples' worth, not its size.
EXAMPLE_BYTES = {"dep": 950, "pos": 950, "ner": 200, "did": 450, "sa": 500, "tc": 220, "nli": 600, "mrc": 800,
                 "eqa": 1300, "mt-dialect": 450, "mt-region": 80}
DEFAULT_EXAMPLE_BYTES = 500


def example_bytes(task: str) -> float:
    """What one test example of `task` takes on disk (EXAMPLE_BYTES)."""
    return float(EXAMPLE_BYTES.get(task, DEFAULT_EXAMPLE_BYTES))


def group_weights(group: Any, jobs: Any) -> tuple[float, dict[str, float]]:
    """(the fit's weight, each job's evaluation weight by job key) in the cost units above. The fit's is
    the backend's estimate when the plan holds one (`Group.fit_weight`), else FIT_COST x training bytes."""
    sizes = getattr(group, "sizes", {}) or {}
    known = sorted(sizes.values())
    fallback = float(known[len(known) // 2]) if known else UNKNOWN_SIZE

    def size(variety: str, split: str) -> float:
        return float(sizes.get((variety, split), fallback))

    task = group.task
    fit = getattr(group, "fit_weight", None)
    if fit is None:
        fit = FIT_COST.get(task, DEFAULT_FIT_COST) * sum(size(v, "train") for v in group.training.members)
    per_byte = EVAL_COST.get(task, DEFAULT_EVAL_COST)
    # a small floor per job: opening, scoring and storing a job is never free
    evals = {j.key: per_byte * size(j.variety, "test") + 0.01 * fallback for j in jobs}
    return fit, evals


class Tracker:
    """Work done / to do over a run, weighted by each group's data size, and the ETA from it.

    completed = finished groups' full weight + for a group in flight: its fit weight x the fit's reported
    fraction, plus the evaluation weight of its finished jobs. ETA = remaining / rate, so a run that is
    40% through the work (not 40% through the job count) is promised 1.5 x the time that took. The rate
    is measured from the first sign of work (a report or a finished job) on, not from the plan: starting
    the workers and their imports (seconds, once, and most of a short run's first seconds) would make
    the first ETAs promise many times the truth.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.start = clock()
        self.first: tuple[float, float] | None = None  # (time, work done) at the first report or finished job
        self.total = 0.0
        self.done = 0.0
        self.jobs_total = self.jobs_done = 0
        self._groups: dict[int, dict[str, Any]] = {}  # id(group) -> weights and state
        self._by_job: dict[str, dict[str, Any]] = {}  # pending job key -> its group's state

    def planned(self, plan: Any, pending: int) -> None:
        """The run's pending jobs: every group's weight, scaled to the pending share (a resumed run
        has done some already; which ones is only known when each group starts)."""
        self.start = self.clock()
        self.jobs_total = pending
        jobs = plan.jobs
        weight = sum(self._weigh(g, g.jobs)["all"] for g in plan.groups)
        self.total = weight * (pending / len(jobs)) if jobs else 0.0

    def group_started(self, group: Any, jobs: Any) -> None:
        state = self._weigh(group, jobs)
        self._groups[id(group)] = state
        self._by_job.update({j.key: state for j in jobs})
        # the planned estimate counted the group's jobs that a previous run already did: correct it now
        if len(jobs) != len(group.jobs):
            self.total += state["all"] - self._weigh(group, group.jobs)["all"] * len(jobs) / len(group.jobs)

    def job_progress(self, group: Any, info: dict[str, Any]) -> None:
        state = self._groups.get(id(group))
        if state is None or info.get("stage") != "fit":
            return
        part = fraction(info)
        if part is not None and part > state["fit_done"]:
            self.done += (part - state["fit_done"]) * state["fit"]
            state["fit_done"] = part
        self._at_work()

    def job_finished(self, job_key: str) -> None:
        self.jobs_done += 1
        state = self._by_job.pop(job_key, None)
        if state is None:
            return
        if state["fit_done"] < 1.0:  # the fit is over once a job is evaluated (or it stopped early)
            self.done += (1.0 - state["fit_done"]) * state["fit"]
            state["fit_done"] = 1.0
        self.done += state["evals"].pop(job_key, 0.0)
        self._at_work()

    def eta(self) -> float | None:
        """Seconds left, or None before 1% of the work is done and some of it measured since the first
        sign of work (the rate of a fit's first batch would promise days)."""
        if self.first is None or self.done <= 0.01 * self.total:
            return None
        since, before = self.first
        elapsed, measured = self.clock() - since, self.done - before
        if elapsed <= 0 or measured <= 0:
            return None
        return max(0.0, elapsed * max(0.0, self.total - self.done) / measured)

    def _at_work(self) -> None:
        if self.first is None:
            self.first = (self.clock(), self.done)

    @staticmethod
    def _weigh(group: Any, jobs: Any) -> dict[str, Any]:
        fit, evals = group_weights(group, jobs)
        return {"fit": fit, "evals": evals, "fit_done": 0.0, "all": fit + sum(evals.values())}
