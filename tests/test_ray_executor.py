"""The Ray executor on a two-node Ray cluster started on this machine (`ray.cluster_utils.Cluster`):
the same stored scores as the in-process executor, groups spread over both nodes, a worker that dies
retried and then failed with the reason. Skips cleanly when Ray is not installed (`[ray]` extra).

One cluster serves the whole module (starting one costs seconds); every test builds its own store.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import runner_fakes
from runner_fakes import FakeBackend, FakeSource

from dialectbench.runner import InProcessExecutor, Store, run

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

from dialectbench.runner.ray_executor import RayExecutor

SMALL_NODE = {"num_cpus": 1, "object_store_memory": 80 * 1024**2}


@pytest.fixture(scope="module")
def cluster():
    """A head and one worker node, one CPU each: two jobs at a time need both nodes."""
    nodes = cluster_utils.Cluster(initialize_head=True,
                                  head_node_args={**SMALL_NODE, "include_dashboard": False})
    nodes.add_node(**SMALL_NODE)
    nodes.wait_for_nodes()
    ray.init(address=nodes.address, include_dashboard=False, log_to_driver=False, configure_logging=False)
    # the test doubles live in tests/, which the workers cannot import: ship them by value
    ray.cloudpickle.register_pickle_by_value(runner_fakes)
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield nodes
    ray.shutdown()
    nodes.shutdown()


def _scores(store: Path) -> list[tuple]:
    with Store(store) as db:
        return sorted((r["task"], r["variety"], r["setting"], r["train_on"], r["metric"], r["score"], r["n"])
                      for r in db.scores())


def _run(store: Path, executor: Any, backend: Any = None, tasks=("tc", "pos")) -> Any:
    return run(store=store, source=FakeSource(), backend=backend or FakeBackend(0.0), tasks=list(tasks),
               executor=executor)


class DiesOnce(FakeBackend):
    """Kills its worker in the first POS fit (the marker file says it already died once)."""

    def __init__(self, marker: Path, always: bool = False) -> None:
        super().__init__(0.0)
        self.marker, self.always = str(marker), always

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None, *, seed: int = 0) -> Any:
        if task == "pos" and (self.always or not os.path.exists(self.marker)):
            Path(self.marker).touch()
            os._exit(1)
        return super().fit(task, train, dev, seed=seed)


def test_two_nodes_run_the_plan_and_store_the_same_scores_as_one_process(tmp_path, cluster):
    local = _run(tmp_path / "local.sqlite", InProcessExecutor())
    executor = RayExecutor(address=cluster.address)
    # a fit that takes a while keeps both one-CPU nodes busy at once
    distributed = _run(tmp_path / "ray.sqlite", executor, backend=FakeBackend(0.3))
    assert _scores(tmp_path / "ray.sqlite") == _scores(tmp_path / "local.sqlite") != []
    assert distributed.counts == local.counts
    assert len(executor.nodes) == 2 and sum(executor.nodes.values()) == len(local.plan.groups)


def test_resume_after_a_ray_run_reuses_every_done_job(tmp_path, cluster):
    store = tmp_path / "r.sqlite"
    first = _run(store, RayExecutor(address=cluster.address), tasks=["tc"])
    again = _run(store, RayExecutor(address=cluster.address), tasks=["tc"])
    assert again.counts["done"] == 0 and again.counts["reused"] == first.counts["done"] > 0


def test_a_worker_that_dies_once_is_retried_and_its_jobs_are_stored(tmp_path, cluster):
    marker = tmp_path / "died"
    result = _run(tmp_path / "r.sqlite", RayExecutor(address=cluster.address, max_retries=1),
                  backend=DiesOnce(marker), tasks=["pos"])
    assert marker.exists()  # it did die
    assert result.counts["failed"] == 0 and result.counts["done"] > 0


def test_a_worker_that_keeps_dying_fails_its_jobs_with_the_reason(tmp_path, cluster):
    result = _run(tmp_path / "r.sqlite", RayExecutor(address=cluster.address, max_retries=1),
                  backend=DiesOnce(tmp_path / "died", always=True))
    failed = [p for p in result.problems if p.status == "failed"]
    assert failed and {p.task for p in failed} == {"pos"}
    assert all("Ray worker died (1 retry spent)" in p.message for p in failed)
    with Store(tmp_path / "r.sqlite") as db:
        assert {r["task"] for r in db.scores()} == {"tc"}


def test_the_sample_suite_scores_are_the_same_on_ray_as_in_one_process(tmp_path, cluster):
    """The real baseline backend on the bundled sample suite (seeded), examples shipped by the driver."""
    tasks = ["pos", "tc", "did", "mt-dialect"]  # a tagger, a classifier, DId's pooled test, MT pseudo-refs
    local = run(store=tmp_path / "local.sqlite", tasks=tasks, executor=InProcessExecutor())
    remote = run(store=tmp_path / "ray.sqlite", tasks=tasks, executor=RayExecutor(address=cluster.address))
    assert local.counts["done"] > 10 and remote.counts == local.counts
    assert _scores(tmp_path / "ray.sqlite") == _scores(tmp_path / "local.sqlite")


def test_the_cli_runs_on_ray_and_reports_the_usual_tally(tmp_path, cluster, monkeypatch):
    import importlib

    from typer.testing import CliRunner

    from dialectbench.cli.main import app

    run_mod = importlib.import_module("dialectbench.runner.orchestrate")
    monkeypatch.setattr(run_mod, "_open_source", lambda data_dir: FakeSource())
    monkeypatch.setattr(run_mod, "_get_backend", lambda model: FakeBackend(0.0))
    store = tmp_path / "r.sqlite"
    out = CliRunner().invoke(app, ["run", "--executor", "ray", "--ray-address", cluster.address, "--tasks", "tc",
                                   "--cpus-per-job", "0.5", "--store", str(store), "--no-report"])
    assert out.exit_code == 0, out.output
    with Store(store) as db:
        assert f"{len(db.done_keys())} job(s) run, 0 already in the store" in " ".join(out.stderr.split())


class ReportsProgress(FakeBackend):
    """Reports two epochs of its fit, tagged with the reporting process's id."""

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None, *, seed: int = 0) -> Any:
        from dialectbench.runner import progress

        for epoch in (1, 2):
            progress.report("fit", done=epoch, total=2, unit=f"pid{os.getpid()}", epoch=epoch, epochs=2)
        return super().fit(task, train, dev, seed=seed)


def test_progress_inside_jobs_comes_back_from_the_ray_workers(tmp_path, cluster):
    class Heard:
        def __init__(self) -> None:
            self.reports: list[dict] = []

        def __getattr__(self, name: str) -> Any:  # the other run events: nothing to do
            return lambda *args: None

        def job_progress(self, group: Any, info: dict) -> None:
            self.reports.append(info)

    events = Heard()
    run(store=tmp_path / "r.sqlite", source=FakeSource(), backend=ReportsProgress(0.0), tasks=["tc"],
        executor=RayExecutor(address=cluster.address), events=events)
    fits = [r for r in events.reports if r["stage"] == "fit"]
    assert {r["epoch"] for r in fits} == {1, 2}
    assert fits and all(r["unit"] != f"pid{os.getpid()}" for r in fits)  # from the workers, not the driver


def test_prepare_warms_the_workers_up_and_leaves_a_ray_it_did_not_start_running(tmp_path, cluster):
    executor = RayExecutor()
    executor.prepare(FakeBackend(0.0), ["pos"])  # what `run` does before it builds the plan
    executor.abandon()  # the run ended before `execute` (a plan error)
    assert ray.is_initialized()  # the module's cluster: not this executor's to stop
    loaded = ray.get(executor._warm_refs, timeout=120)
    assert len(loaded) == 2  # one start-up task per job slot (two one-CPU nodes)
    assert all("dialectbench.metrics.tagging" in names for names in loaded)
    assert all("runner_fakes" not in names for names in loaded)  # not importable there: skipped, no error
    result = _run(tmp_path / "r.sqlite", executor)  # and the same executor still runs a plan afterwards
    local = _run(tmp_path / "local.sqlite", InProcessExecutor())
    assert _scores(tmp_path / "r.sqlite") == _scores(tmp_path / "local.sqlite") != []
    assert result.counts == local.counts
