"""A run under bad data: a malformed file skips its variety with the reader's file:line message and the run
goes on; a bug in our own code still fails loudly. A run's report covers the jobs it selected only."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from dialectbench.data import sample_dir
from dialectbench.data.source import DataSource, _sample_catalogues
from dialectbench.runner import Store, run


@pytest.fixture
def broken_suite(tmp_path):
    """The sample suite with Singlish's POS/DEP test treebank damaged: a Unicode digit as a HEAD."""
    root = tmp_path / "suite"
    shutil.copytree(sample_dir(), root, ignore=shutil.ignore_patterns("__pycache__"))
    path = root / "ud" / "singlish_sample-test.conllu"
    lines = path.read_text(encoding="utf-8").split("\n")
    target = next(i for i, line in enumerate(lines) if line and line[0].isdigit())
    cols = lines[target].split("\t")
    cols[6] = "²"  # str.isdigit() says yes, int() says no: this used to abort the whole run
    lines[target] = "\t".join(cols)
    path.write_text("\n".join(lines), encoding="utf-8")
    return DataSource(root, _sample_catalogues(), kind="sample"), path, target + 1


def test_a_malformed_file_skips_its_variety_and_the_run_goes_on(tmp_path, broken_suite):
    source, path, line = broken_suite
    result = run(tasks=["pos"], source=source, store=tmp_path / "r.sqlite")
    skipped = [r for r in result.problems if r.variety == "singlish"]
    assert skipped and all(r.status == "skipped" for r in skipped)
    assert f"{path}:{line}:" in skipped[0].message and "HEAD" in skipped[0].message
    assert result.counts["done"] >= 2  # the other varieties were trained and scored


def test_a_bug_in_our_code_is_not_taken_for_bad_data(tmp_path, broken_suite, monkeypatch):
    source, _, _ = broken_suite

    def broken_load(task, variety, split):
        raise TypeError("a bug, not bad data")

    monkeypatch.setattr(source, "load", broken_load)
    with pytest.raises(TypeError, match="a bug"):
        run(tasks=["pos"], source=source, store=tmp_path / "r.sqlite")


def test_a_report_on_selected_keys_covers_only_those_jobs(tmp_path):
    from dialectbench.report import build_report

    store = tmp_path / "r.sqlite"
    first = run(tasks=["pos"], store=store)
    second = run(tasks=["tc"], store=store)
    out = build_report(store, tmp_path / "report", formats=["csv"], keys=second.job_keys, n_resamples=20)
    tables = {p.name: pd.read_csv(p) for p in out.glob("*.csv")}
    tasks = set().union(*(set(t["task"]) for t in tables.values() if "task" in t.columns))
    assert tasks == {"tc"}
    with Store(store, readonly=True) as db:  # both runs are in the store; the report took only the second
        assert {r["task"] for r in db.scores()} >= {"pos", "tc"} and first.job_keys
