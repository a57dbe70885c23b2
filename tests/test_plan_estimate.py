"""`dialectbench plan [--estimate]`: the full job list over the catalogue, sizes counted or assumed, and
the cost arithmetic (with fixed per-example costs: the measurement itself is a benchmark, not a test)."""

from __future__ import annotations

import csv
import io
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.runner import estimate as est
from dialectbench.runner.plan import Group, Job, TrainingSet


def _rows(output: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(output)))


def test_the_plan_lists_every_catalogued_variety_under_table_2_settings():
    out = CliRunner().invoke(app, ["plan", "--tasks", "pos,tc", "--format", "csv"])
    assert out.exit_code == 0, out.output
    rows = _rows(out.stdout)
    plan, source = est.full_plan("baseline", tasks=["pos", "tc"])  # plan's default model is run's
    assert len(rows) == len(plan.jobs) > 100  # the whole catalogue, not the bundled sample suite
    assert {r["setting"] for r in rows if r["task"] == "pos"} >= {"zero-shot", "in-variety"}
    assert len({r["variety"] for r in rows if r["task"] == "tc"}) == len(source.varieties("tc"))
    assert all(r["seconds"] == "" for r in rows)  # no --estimate: nothing measured, nothing invented


def _group(task, members, jobs, mode="finetune"):
    return Group(TrainingSet(task, tuple(members), "+".join(members) or "none", mode=mode), "m",
                 [Job(task, v, "c", "m", setting, "+".join(members)) for v, setting in jobs])


def test_estimate_charges_each_fit_once_and_scales_with_sizes():
    """Hand numbers: a fit is epochs x (train x train-s + min(dev, max_dev) x infer-s), charged to the
    group's first row; each row adds test x infer-s; seconds per example scale with the task's length."""
    tc = _group("tc", ["english"], [("english", "in-variety"), ("french", "zero-shot")])
    pos = _group("pos", ["a", "b"], [("c", "combined")])
    icl = _group("tc", ["english"], [("german", "icl")], mode="icl")
    mt = _group("mt-dialect", [], [("german", "zero-shot")])
    counts = {("tc", "english", "train"): 700, ("tc", "english", "dev"): 100, ("tc", "english", "test"): 200,
              ("tc", "french", "test"): 300, ("pos", "a", "train"): 100, ("pos", "b", "train"): 50,
              ("pos", "a", "dev"): 1500, ("pos", "b", "dev"): 1500, ("pos", "c", "test"): 500,
              ("tc", "german", "test"): 40, ("mt-dialect", "german", "test"): 40}
    sizes = est.Sizes(counts, assumed={("tc", "french", "test")})
    plan = SimpleNamespace(groups=[tc, pos, icl, mt])
    rows = est.estimate_rows(plan, sizes, est.Costs("mbert", "cpu", 128, train=0.01, infer=0.001))
    got = [(r["task"], r["variety"], r["n_train"], r["n_test"], r["seconds"], r["sizes"]) for r in rows]
    assert got == [
        # tc (10 epochs, 128 tokens: 0.01 / 0.001 s): fit 10 x (700 x 0.01 + 100 x 0.001) = 71, + 200 x 0.001
        ("tc", "english", 700, 200, 71.2, "counted"),
        ("tc", "french", 700, 300, 0.3, "assumed"),  # no second fit: only its 300 test examples
        # pos (10 epochs, 256 tokens: twice the cost): dev capped at 2000 of 3000 -> 10 x (150 x 0.02 +
        # 2000 x 0.002) = 70, + 500 x 0.002
        ("pos", "c", 150, 500, 71.0, "counted"),
        ("tc", "german", 700, 40, None, "counted"),  # in-context learning: not costed
        ("mt-dialect", "german", 0, 40, None, "counted"),  # MT: not costed
    ]
    total = est.totals(rows, concurrent=4)
    assert total["jobs"] == 5 and total["costed"] == 3
    assert total["device_hours"] == pytest.approx((71.2 + 0.3 + 71.0) / 3600)
    assert total["wall_hours"] == pytest.approx((71.2 + 0.3 + 71.0) / 3600 / 4)


def test_count_sizes_counts_what_is_on_disk_and_assumes_the_median_elsewhere():
    on_disk = {("tc", "english", "train"): 12, ("tc", "english", "dev"): 3, ("tc", "english", "test"): 6,
               ("tc", "french", "test"): 4, ("tc", "dutch", "test"): 9}
    # german: catalogued, not on this machine; flemish: not on disk under its own name, but its file is
    # dutch's (one fingerprint), so its size is dutch's, counted without loading it again
    catalogued = {**on_disk, ("tc", "german", "test"): 0, ("tc", "flemish", "test"): 0}
    loads = []

    def load(task, variety, split):
        loads.append((variety, split))
        return [None] * on_disk[task, variety, split]

    def names(table, task, variety):
        return {s for (t, w, s) in table if (t, w) == (task, variety)}

    source = SimpleNamespace(splits=lambda task, v: names(catalogued, task, v),
                             disk=SimpleNamespace(splits=lambda task, v: names(on_disk, task, v)), load=load)
    group = _group("tc", ["english"], [(v, "zero-shot") for v in ("english", "french", "dutch", "flemish", "german")])
    group.fingerprints = {("english", "train"): "en-tr", ("english", "dev"): "en-dev", ("english", "test"): "en",
                          ("french", "test"): "fr", ("dutch", "test"): "nl", ("flemish", "test"): "nl",
                          ("german", "test"): "de"}
    sizes = est.count_sizes(source, SimpleNamespace(groups=[group]))
    assert sizes.counts == {("tc", "english", "train"): 12, ("tc", "english", "dev"): 3,
                            ("tc", "english", "test"): 6, ("tc", "french", "test"): 4,
                            ("tc", "dutch", "test"): 9, ("tc", "flemish", "test"): 9,
                            ("tc", "german", "test"): 7}  # int(median of the counted 6, 4, 9, 9)
    assert sizes.assumed == {("tc", "german", "test")}
    assert sorted(loads) == sorted([("english", "train"), ("english", "dev"), ("english", "test"),
                                    ("french", "test"), ("dutch", "test")])  # each file read once


def test_estimate_on_the_real_catalogue_charges_one_fit_per_group():
    plan, source = est.full_plan("mbert", tasks=["tc"])
    sizes = est.count_sizes(source, plan)
    rows = est.estimate_rows(plan, sizes, est.Costs("mbert", "cpu", 128, train=0.01, infer=0.001))
    assert len(rows) == len(plan.jobs) == sum(len(g.jobs) for g in plan.groups)
    at = 0
    for group in plan.groups:  # rows come group by group, the fit on the group's first row
        mine, at = rows[at:at + len(group.jobs)], at + len(group.jobs)
        assert all(r["seconds"] == round(r["n_test"] * 0.001, 1) for r in mine[1:])
        assert mine[0]["seconds"] >= 10 * mine[0]["n_train"] * 0.01 - 0.05


def test_estimate_on_the_cli_measures_once_per_model_and_prints_the_totals(monkeypatch):
    calls = []

    def fake(model, device="cpu"):
        calls.append((model, device))
        return est.Costs(model, device, 128, 0.01, 0.001)

    monkeypatch.setattr(est, "measure_costs", fake)
    out = CliRunner().invoke(app, ["plan", "--model", "mbert,xlmr", "--tasks", "tc", "--estimate", "--device",
                                   "cpu", "--format", "csv"])
    assert out.exit_code == 0, out.output
    assert calls == [("mbert", "cpu"), ("xlmr", "cpu")]
    assert {r["model"] for r in _rows(out.stdout)} == {"mbert", "xlmr"}
    err = " ".join(out.stderr.split())
    assert "CPU-hours on this machine" in err and "all models:" in err


def test_mt_jobs_are_listed_but_not_costed():
    plan, source = est.full_plan("mbert", tasks=["mt-dialect"])
    sizes = est.count_sizes(source, plan)
    rows = est.estimate_rows(plan, sizes, est.Costs("mbert", "cpu", 128, 0.01, 0.001))
    assert rows and all(r["seconds"] is None for r in rows)
    assert est.totals(rows)["costed"] == 0


def test_a_bad_device_or_data_dir_is_a_one_line_error(tmp_path):
    out = CliRunner().invoke(app, ["plan", "--model", "mbert", "--estimate", "--device", "tpu"])
    assert out.exit_code == 2 and "unknown device 'tpu'" in out.output
    out = CliRunner().invoke(app, ["plan", "--data-dir", str(tmp_path / "nowhere")])
    assert out.exit_code == 2 and "does not exist" in " ".join(out.output.split())


def test_the_baseline_estimates_its_own_cost_from_per_word_costs():
    """Issue 36 item 7: `--model baseline` never times a BERT step. Hand numbers from baseline/costs.py:
    a CRF fit costs its training words x FIT_CRF_PER_WORD; a parser fit the words ParserConfig expects it to
    go through (with a dev split, patience + 2 = 5 epochs of a small treebank) x FIT_PARSER_PER_WORD."""
    from dialectbench.backends import cost_estimator
    from dialectbench.backends.baseline import costs
    from dialectbench.backends.baseline.configs import ParserConfig

    baseline = cost_estimator("baseline")
    assert cost_estimator("mbert") == "encoder-step" and cost_estimator("llm:http://x/v1") is None
    pos = _group("pos", ["a"], [("a", "in-variety"), ("b", "zero-shot")])
    dep = _group("dep", ["a"], [("a", "in-variety")])
    counts = {("pos", "a", "train"): 1000, ("pos", "a", "test"): 100, ("pos", "b", "test"): 200,
              ("dep", "a", "train"): 1000, ("dep", "a", "dev"): 100, ("dep", "a", "test"): 100}
    words = {("pos", "a", "train"): 20_000, ("pos", "a", "test"): 2_000,  # b's words not counted: 16.3 a sentence
             ("dep", "a", "train"): 20_000, ("dep", "a", "test"): 2_000}
    rows = est.estimate_rows(SimpleNamespace(groups=[pos, dep]), est.Sizes(counts, set(), words), baseline)
    crf_fit = 20_000 * costs.FIT_CRF_PER_WORD
    assert rows[0]["seconds"] == round(crf_fit + 2_000 * costs.PREDICT_CRF_PER_WORD, 1)
    assert rows[1]["seconds"] == round(200 * costs.WORDS_PER_SENTENCE * costs.PREDICT_CRF_PER_WORD, 1)
    parser_fit = 5 * 20_000 * costs.FIT_PARSER_PER_WORD  # 5 epochs (patience 3 + 2) < 30, < the word budget
    assert rows[2]["seconds"] == round(parser_fit + 2_000 * costs.PREDICT_PARSER_PER_WORD, 1)
    # EWT-sized (204.6k train words, a dev split): the work budget's words (350k: 163 CPU-s), not hours
    fit, _ = baseline.job_seconds("dep", 12_544, 2_001, 0, train_words=204_600)
    assert fit == pytest.approx(ParserConfig().max_train_words * costs.FIT_PARSER_PER_WORD) and 60 < fit < 600
    assert baseline.job_seconds("sa", 1000, 0, 100) == (None, None)  # text classifiers: not costed


def test_plan_estimate_baseline_measures_nothing_and_says_cpu_hours(monkeypatch):
    monkeypatch.setattr(est, "measure_costs", lambda *a, **k: pytest.fail("timed a BERT step for the baseline"))
    out = CliRunner().invoke(app, ["plan", "--model", "baseline", "--tasks", "pos", "--estimate", "--format", "csv"])
    assert out.exit_code == 0, out.output
    rows = _rows(out.stdout)
    assert rows and all(r["seconds"] for r in rows)
    assert "CPU-hours on this machine" in " ".join(out.stderr.split())


def test_plan_settings_lists_icl_jobs_for_in_context_families():
    out = CliRunner().invoke(app, ["plan", "--model", "llm:http://127.0.0.1:9/v1", "--tasks", "sa",
                                   "--settings", "icl", "--format", "csv"])
    assert out.exit_code == 0, out.output
    rows = _rows(out.stdout)
    assert rows and {r["setting"] for r in rows} == {"icl"}
    out = CliRunner().invoke(app, ["plan", "--model", "baseline", "--tasks", "pos", "--settings", "zero-shot",
                                   "--format", "csv"])
    assert out.exit_code == 0 and {r["setting"] for r in _rows(out.stdout)} == {"zero-shot"}
