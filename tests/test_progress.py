"""Progress inside long jobs (issue 14): a fit's reports reach the driver from this process, from local
worker processes and (tests/test_ray_executor.py) from Ray workers; the ETA weighs each training set by
its expected cost; the display stays one bar in 80 columns on a terminal and a few lines in a pipe."""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console
from runner_fakes import FakeBackend, FakeSource

from dialectbench.backends.baseline import BaselineBackend
from dialectbench.cli.run_cmds import RichProgress
from dialectbench.runner import InProcessExecutor, run
from dialectbench.runner import progress as prog
from dialectbench.runner.local_executor import NoEvents, ProcessExecutor
from dialectbench.runner.local_executor import drive as drive_groups
from dialectbench.runner.orchestrate import _weigh_fits


class Reporting(FakeBackend):
    """Reports three epochs of its fit, with the reporting process's id as the unit."""

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None, *, seed: int = 0) -> Any:
        for epoch in (1, 2, 3):
            prog.report("fit", done=epoch * 10, total=30, unit=f"pid{os.getpid()}", epoch=epoch, epochs=3)
        return super().fit(task, train, dev, seed=seed)


class Recorder:
    def __init__(self) -> None:
        self.reports: list[tuple[str, dict]] = []

    def planned(self, plan, pending):
        pass

    def group_started(self, group, jobs):
        pass

    def job_started(self, job):
        pass

    def job_finished(self, record, written):
        pass

    def job_progress(self, group, info):
        self.reports.append((group.training.label, info))


def test_report_is_a_no_op_outside_a_reporting_block_and_throttled_inside():
    prog.report("fit", done=1, total=2)  # nobody listens: nothing happens, nothing raises
    got: list[dict] = []
    with prog.reporting(got.append, min_interval=3600):
        for done in range(100):  # a fast inner loop: one report per epoch gets through, not 100
            prog.report("fit", done=done, total=100, epoch=1 + done // 50)
    assert [(r["epoch"], r["done"]) for r in got] == [(1, 0), (2, 50)]
    prog.report("fit", done=1, total=2)
    assert len(got) == 2  # the block is over


def test_a_failing_listener_never_fails_the_fit():
    calls: list[int] = []

    def broken(info):
        calls.append(info["epoch"])
        raise RuntimeError("display gone")

    with prog.reporting(broken, min_interval=3600):
        prog.report("fit", done=1, total=2, epoch=1)  # raises inside the listener: swallowed
        prog.report("fit", done=1, total=2, epoch=1)  # throttled: the failure still counted as sent
        prog.report("fit", done=2, total=2, epoch=2)  # a new epoch: the listener is called again
        after = "the fit went on"
    assert calls == [1, 2] and after == "the fit went on"


def test_describe_is_short_and_says_epoch_and_examples():
    assert prog.describe({"stage": "fit", "epoch": 3, "epochs": 30, "done": 412_000, "total": 1_200_000,
                          "unit": "words"}) == "fit epoch 3/30 · 412k/1.2M words"
    assert prog.fraction({"done": 5, "total": 20}) == 0.25 and prog.fraction({"done": 5}) is None


def _group(label: str, train_bytes: int, n_jobs: int, task: str = "pos"):
    jobs = [SimpleNamespace(key=f"{label}{k}", variety=f"{label}{k}") for k in range(n_jobs)]
    sizes = {(label, "train"): train_bytes, **{(j.variety, "test"): 1000 for j in jobs}}
    return SimpleNamespace(task=task, training=SimpleNamespace(members=(label,), label=label, mode="finetune"),
                           jobs=jobs, sizes=sizes, fit_weight=None)


def test_group_weights_hand_computed():
    """fit = FIT_COST (dep 3, else 1) x training bytes, or the backend's estimate when the group holds one;
    each job's evaluation = EVAL_COST (dep 0.6, else 0.05) x its test bytes + 1% of the median split size;
    a split the source could not size weighs the median."""
    pos = _group("pos", 900_000, 3)  # sizes 1000, 1000, 1000, 900_000: median (upper) 1000
    fit, evals = prog.group_weights(pos, pos.jobs)
    assert fit == 900_000.0
    assert evals == {"pos0": pytest.approx(0.05 * 1000 + 10), "pos1": pytest.approx(60.0),
                     "pos2": pytest.approx(60.0)}
    dep = _group("dep", 400_000, 1, task="dep")  # sizes 1000, 400_000: median (upper) 400_000
    fit, evals = prog.group_weights(dep, dep.jobs)
    assert fit == 3 * 400_000.0 and evals == {"dep0": pytest.approx(0.6 * 1000 + 4000)}
    dep.fit_weight = 123.0
    assert prog.group_weights(dep, dep.jobs)[0] == 123.0
    del pos.sizes[("pos", "train")], pos.sizes[("pos1", "test")]  # unknown: the median of 1000, 1000
    fit, evals = prog.group_weights(pos, pos.jobs)
    assert fit == 1000.0 and evals["pos1"] == pytest.approx(60.0)
    bare = SimpleNamespace(task="tc", training=SimpleNamespace(members=("a", "b")), sizes={})
    fit, evals = prog.group_weights(bare, [SimpleNamespace(key="k", variety="a")])
    assert fit == 2 * prog.UNKNOWN_SIZE and evals == {"k": pytest.approx(0.05 + 0.01)}


def test_the_eta_weighs_training_sets_by_size_not_by_job_count():
    """A big training set (1 job) and a small one (1 job): after the small one is done (half the jobs)
    a per-job average would promise the elapsed time again; by size most of the work is still ahead."""
    now = [0.0]
    tracker = prog.Tracker(clock=lambda: now[0])
    big, small = _group("big", 900_000, 1), _group("small", 100_000, 1)
    tracker.planned(SimpleNamespace(groups=[big, small], jobs=big.jobs + small.jobs), pending=2)
    assert tracker.eta() is None  # nothing measured yet
    tracker.group_started(small, small.jobs)
    now[0] = 1.0
    tracker.job_progress(small, {"stage": "fit", "done": 0, "total": 100})  # the first sign of work
    now[0] = 11.0
    tracker.job_finished("small0")
    # weights by hand: big = 900_000 fit + 0.05 x 1000 + 1% of 900_000 = 909_050; small = 101_050
    assert tracker.total == pytest.approx(909_050 + 101_050)
    assert tracker.jobs_done == 1 and tracker.done == pytest.approx(101_050)
    assert tracker.eta() == pytest.approx(10.0 * 909_050 / 101_050)  # ~90 s: 9x the 10 s it worked, not 1x
    tracker.group_started(big, big.jobs)
    now[0] = 56.0
    tracker.job_progress(big, {"stage": "fit", "done": 50, "total": 100})  # half of the big fit
    done = 101_050 + 450_000
    assert tracker.eta() == pytest.approx(55.0 * (1_010_100 - done) / done)  # ~46 s: half the big group left
    tracker.job_finished("big0")
    assert tracker.eta() == 0.0


def test_the_eta_rate_leaves_out_the_start_up_before_the_first_sign_of_work():
    """Starting the workers (their imports: most of a short run's first seconds) is no part of the rate:
    20 s of start-up, then 2 s in which a fit does 10% of the work -> about 18 s left, not 200."""
    now = [0.0]
    tracker = prog.Tracker(clock=lambda: now[0])
    group = _group("g", 100_000, 1)
    tracker.planned(SimpleNamespace(groups=[group], jobs=group.jobs), pending=1)
    tracker.group_started(group, group.jobs)
    now[0] = 20.0
    tracker.job_progress(group, {"stage": "fit", "done": 0, "total": 100})  # its first update
    assert tracker.eta() is None  # nothing measured since
    now[0] = 22.0
    tracker.job_progress(group, {"stage": "fit", "done": 10, "total": 100})
    # total 100_000 fit + 0.05 x 1000 + 1% of 100_000 = 101_050; 10_000 done in the 2 s since the first sign
    assert tracker.eta() == pytest.approx(2.0 * (101_050 - 10_000) / 10_000)  # 18.2 s, not 200


def test_under_a_limit_a_test_split_weighs_its_examples_not_its_size():
    """--limit 10: a 1 MB test split weighs 10 examples' worth; a split already smaller keeps its size."""
    big, small = _group("big", 100_000, 1), _group("small", 100_000, 1)
    big.sizes[big.jobs[0].variety, "test"] = 1_000_000
    _weigh_fits(SimpleNamespace(groups=[big, small]), None, limit=10)
    assert big.sizes[big.jobs[0].variety, "test"] == 10 * prog.example_bytes("pos")
    assert small.sizes[small.jobs[0].variety, "test"] == 1000 < 10 * prog.example_bytes("pos")


def test_the_backends_fit_estimate_orders_the_fits_and_weighs_the_eta():
    """A parser fit on a small treebank runs max_epochs passes: it costs more than a CRF fit on a 5x bigger
    one. Scheduling (longest first) and the ETA follow the backend's estimate, not the bytes."""
    small_dep, big_pos = _group("dep", 400_000, 1, task="dep"), _group("pos", 2_000_000, 1, task="pos")
    plan = SimpleNamespace(groups=[big_pos, small_dep])
    started: list[str] = []

    def drive() -> None:
        def submit(group, jobs):
            started.append(group.task)
            return group

        drive_groups(plan.groups, pending=lambda g: g.jobs, sink=lambda r: None, events=NoEvents(),
                     submit=submit, wait=lambda handles: (handles[0], []), window=1)

    drive()
    assert started == ["pos", "dep"]  # by bytes
    _weigh_fits(plan, BaselineBackend())
    # the CRF fit stays proportional to its 2 MB (weight 2_000_000); the parser's estimate is over 3x that
    assert big_pos.fit_weight is None and small_dep.fit_weight > 3 * 2_000_000
    started.clear()
    drive()
    assert started == ["dep", "pos"]
    tracker = prog.Tracker(clock=lambda: 0.0)
    tracker.planned(SimpleNamespace(groups=plan.groups, jobs=big_pos.jobs + small_dep.jobs), pending=2)
    # pos: 2_000_000 fit + 0.05 x 1000 + 1% of 2_000_000; dep: its estimate + 0.6 x 1000 + 1% of 400_000
    assert tracker.total == pytest.approx(2_000_000 + 50 + 20_000 + small_dep.fit_weight + 600 + 4_000)


def test_a_resumed_run_counts_only_the_pending_work():
    tracker = prog.Tracker(clock=lambda: 0.0)
    a, b = _group("a", 100_000, 2), _group("b", 100_000, 2)
    tracker.planned(SimpleNamespace(groups=[a, b], jobs=a.jobs + b.jobs), pending=2)
    # each group: 100_000 fit + 2 jobs x (0.05 x 1000 + 1% of the median 1000) = 100_120; 2 of 4 jobs pending
    assert tracker.total == pytest.approx(2 * 100_120 / 2)


def test_reports_from_local_worker_processes_reach_the_driver(tmp_path):
    events = Recorder()
    run(store=tmp_path / "r.sqlite", source=FakeSource(), backend=Reporting(0.0), tasks=["tc", "pos"],
        executor=ProcessExecutor(workers=2), events=events)
    fits = [info for _, info in events.reports if info["stage"] == "fit"]
    assert {info["epoch"] for info in fits} == {1, 2, 3}
    assert {info["unit"] for info in fits} - {f"pid{os.getpid()}"}  # sent by another process
    assert all(u != f"pid{os.getpid()}" for u in {info["unit"] for info in fits})


def test_reports_in_process_reach_the_events_too(tmp_path):
    events = Recorder()
    run(store=tmp_path / "r.sqlite", source=FakeSource(), backend=Reporting(0.0), tasks=["tc"],
        executor=InProcessExecutor(), events=events)
    assert {info["unit"] for _, info in events.reports if info["stage"] == "fit"} == {f"pid{os.getpid()}"}
    assert any(info["stage"] == "evaluate" for _, info in events.reports)


def _feed(display: RichProgress, n_reports: int) -> None:
    groups = [_group("english (a long variety name, r:casual, m:written)", 900_000, 3, task="dep"),
              _group("small", 10_000, 1)]
    plan = SimpleNamespace(groups=groups, jobs=[j for g in groups for j in g.jobs])
    with display:
        display.planned(plan, len(plan.jobs))
        for group in groups:
            display.group_started(group, group.jobs)
            for k in range(n_reports):
                display.job_progress(group, {"stage": "fit", "epoch": 1 + k // 100, "epochs": 30,
                                             "done": k, "total": n_reports, "unit": "words"})
            for job in group.jobs:
                display.job_finished(SimpleNamespace(job_key=job.key), True)


def test_in_a_pipe_the_display_prints_a_few_short_lines_not_one_per_report():
    out = io.StringIO()
    _feed(RichProgress(Console(file=out, width=80, force_terminal=False)), n_reports=500)
    lines = out.getvalue().splitlines()
    assert len(lines) <= 6, lines  # 2 groups, a throttled progress line or two, the final bar
    assert "4/4 jobs" in lines[-1] and "finished" in lines[-1]


def test_on_a_terminal_the_bar_fits_80_columns():
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, color_system=None)
    display = RichProgress(console)
    _feed(display, n_reports=20)
    final = out.getvalue().replace("\r", "\n").splitlines()
    rendered = [line for line in final if "jobs" in line]
    assert rendered and all(len(line.rstrip()) <= 80 for line in rendered)
    assert "4/4 jobs" in rendered[-1]


class ReportsThreads(FakeBackend):
    """Reports the math threads its fit may use (torch's and the OpenMP variable)."""

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None, *, seed: int = 0) -> Any:
        import torch

        prog.report("fit", done=1, total=1, unit=f"torch{torch.get_num_threads()} omp{os.environ.get('OMP_NUM_THREADS')}")
        return super().fit(task, train, dev, seed=seed)


def test_two_local_workers_use_one_math_thread_each(tmp_path):
    """Two workers on two cores, each with the default thread pool of one per core, would run four
    threads on two cores: each worker is capped at its --cpus-per-job (1)."""
    events = Recorder()
    run(store=tmp_path / "r.sqlite", source=FakeSource(), backend=ReportsThreads(0.0), tasks=["tc", "pos"],
        executor=ProcessExecutor(workers=2, threads=1), events=events)
    units = {info["unit"] for _, info in events.reports if info["stage"] == "fit"}
    assert units == {"torch1 omp1"}
