"""Start-up cost of the runner and its workers (issue 14): the heavy libraries (scikit-learn, scipy, torch)
are imported only when a fit or a metric that needs them runs, the worker pools are told what to import
up front, and none of this changes a score. Checked by what is imported (in a fresh interpreter), never
by timing."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from dataclasses import replace

import pytest
from runner_fakes import FakeBackend, FakeSource

from dialectbench.runner import InProcessExecutor, PlanError, Store, run
from dialectbench.runner.local_executor import PRELOAD, ProcessExecutor, worker_preload

HEAVY = ("sklearn", "scipy", "torch", "seqeval", "sklearn_crfsuite", "transformers", "pandas")


def _imported_after(code: str) -> list[str]:
    """The HEAVY packages a fresh interpreter has imported after running `code`."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_metrics_package_imports_no_heavy_library_until_a_metric_needs_it():
    assert _imported_after("import dialectbench.metrics") == []
    # BLEU and UAS need neither scikit-learn nor torch; macro F1 does need scikit-learn
    assert _imported_after(
        "from dialectbench.metrics import score_task\n"
        "from dialectbench.data.examples import TranslationExample as T\n"
        "score_task('mt-dialect', [T(example_id='1', source='a b', reference='a b c')], ['a b c'])") == []
    assert "sklearn" in _imported_after("from dialectbench.metrics import classification_scores")


def test_the_baseline_backend_and_its_pickle_import_torch_and_sklearn_only_for_a_fit_that_needs_them():
    code = ("import pickle\nfrom dialectbench.backends import get_backend\n"
            "backend = pickle.loads(pickle.dumps(get_backend('baseline')))")
    assert _imported_after(code) == []  # what a local or Ray worker does before its first fit
    after_text = _imported_after(f"{code}\nfrom dialectbench.data.examples import TextExample as T\n"
                                 "backend.fit('sa', [T(example_id=str(i), text=t, label=t) for i, t in enumerate('ab' * 4)])")
    assert "sklearn" in after_text and "torch" not in after_text


def test_the_driver_of_a_baseline_run_does_not_import_the_transformers_backend():
    assert "transformers" not in _imported_after(
        "from dialectbench.runner.options import RunOptions\nRunOptions().backend_options('baseline')")


def test_the_lazy_names_stay_importable_and_are_the_real_classes():
    from dialectbench.backends.baseline import CRFTagger, ParserConfig, TextClassifier
    from dialectbench.backends.baseline.parser import ParserConfig as Direct
    from dialectbench.metrics import classification_scores, score_task
    from dialectbench.metrics.classification import classification_scores as direct_scores

    assert ParserConfig is Direct and classification_scores is direct_scores
    assert callable(score_task) and CRFTagger.__name__ == "CRFTagger" and TextClassifier.__name__ == "TextClassifier"
    with pytest.raises(AttributeError):
        from dialectbench import metrics

        metrics.no_such_metric  # noqa: B018 - the attribute access is the test


def test_a_pickled_baseline_backend_keeps_its_settings():
    from dialectbench.backends.baseline import BaselineBackend, CRFConfig, ParserConfig

    backend = BaselineBackend(parser=replace(ParserConfig(), max_epochs=3), crf=replace(CRFConfig(), c1=0.5))
    copy = pickle.loads(pickle.dumps(backend))
    assert copy.config == backend.config
    assert copy.parser_config.max_epochs == 3 and copy.crf_config.c1 == 0.5
    assert BaselineBackend().config == pickle.loads(pickle.dumps(BaselineBackend())).config


def test_the_worker_preload_fits_the_backend_and_the_tasks():
    dep = worker_preload("baseline", ["dep"])
    assert dep[:len(PRELOAD)] == list(PRELOAD)
    assert {"dialectbench.backends.baseline.parser", "dialectbench.metrics.parsing"} <= set(dep)
    assert not any(m.endswith((".text", ".qa", ".classification")) for m in dep)
    from dialectbench.backends.baseline import BaselineBackend

    text = worker_preload(BaselineBackend(), ["sa"])
    assert {"dialectbench.backends.baseline.text", "dialectbench.metrics.classification"} <= set(text)
    assert "dialectbench.backends.baseline.parser" not in text
    every = worker_preload("baseline", None)  # no task named: every baseline model
    assert {"dialectbench.backends.baseline.parser", "dialectbench.backends.baseline.qa"} <= set(every)
    assert worker_preload("no-such-family", ["pos"]) == [*PRELOAD, "dialectbench.metrics.tagging"]
    assert "runner_fakes" in worker_preload(FakeBackend(0.0), ["pos"])  # a backend object: its own module


def test_a_prepared_pool_stores_the_same_scores_as_one_process(tmp_path):
    executor = ProcessExecutor(workers=2)
    executor.prepare(FakeBackend(0.0), ["tc", "pos"])  # what `run` does first; starting twice is harmless
    kwargs = {"source": FakeSource(), "backend": FakeBackend(0.0), "tasks": ["tc", "pos"]}
    parallel = run(store=tmp_path / "two.sqlite", executor=executor, **kwargs)
    local = run(store=tmp_path / "one.sqlite", executor=InProcessExecutor(), **kwargs)
    with Store(tmp_path / "one.sqlite") as one, Store(tmp_path / "two.sqlite") as two:
        rows = [sorted(tuple(sorted(dict(r).items())) for r in db.scores()) for db in (one, two)]
        assert rows[0] == rows[1] != []
    assert parallel.counts == local.counts


class Prepared:
    """An executor that records the runner's calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def prepare(self, backend, tasks) -> None:
        self.calls.append(f"prepare {tasks}")

    def abandon(self) -> None:
        self.calls.append("abandon")

    def execute(self, groups, **kwargs) -> None:
        self.calls.append("execute")
        InProcessExecutor().execute(groups, **kwargs)


def test_the_runner_prepares_the_executor_first_and_lets_it_clean_up_after_a_plan_error(tmp_path):
    ok = Prepared()
    run(store=tmp_path / "r.sqlite", source=FakeSource(), backend=FakeBackend(0.0), tasks=["tc,pos"], executor=ok)
    assert ok.calls == ["prepare ['tc', 'pos']", "execute", "abandon"]
    bad = Prepared()
    with pytest.raises(PlanError):
        run(store=tmp_path / "r.sqlite", source=FakeSource(), backend=FakeBackend(0.0), tasks=["no-such-task"],
            executor=bad)
    assert bad.calls == ["prepare ['no-such-task']", "abandon"]


def test_the_cli_loads_no_heavy_library_to_list_its_commands():
    assert _imported_after("import dialectbench.cli.main") == []  # what `dialectbench --help` imports


def test_limiting_a_workers_threads_does_not_import_torch_and_still_limits_it_later():
    code = ("import sys\nfrom dialectbench.runner.local_executor import limit_threads\nlimit_threads(1)\n"
            "assert 'torch' not in sys.modules\nimport torch\nprint(torch.get_num_threads())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "1"  # torch imported afterwards reads OMP_NUM_THREADS
