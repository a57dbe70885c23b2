"""`dialectbench plan [--estimate]`: the full job list over the catalogue, sizes counted or assumed, and
the cost arithmetic (with fixed per-example costs: the measurement itself is a benchmark, not a test)."""

from __future__ import annotations

import csv
import io

import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.runner import estimate as est


def _rows(output: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(output)))


def test_the_plan_lists_every_catalogued_variety_under_table_2_settings():
    out = CliRunner().invoke(app, ["plan", "--tasks", "pos,tc", "--format", "csv"])
    assert out.exit_code == 0, out.output
    rows = _rows(out.stdout)
    plan, source = est.full_plan("mbert", tasks=["pos", "tc"])
    assert len(rows) == len(plan.jobs) > 100  # the whole catalogue, not the bundled sample suite
    assert {r["setting"] for r in rows if r["task"] == "pos"} >= {"zero-shot", "in-variety"}
    assert len({r["variety"] for r in rows if r["task"] == "tc"}) == len(source.varieties("tc"))
    assert all(r["seconds"] == "" for r in rows)  # no --estimate: nothing measured, nothing invented


def test_estimate_charges_each_fit_once_and_scales_with_sizes():
    plan, source = est.full_plan("mbert", tasks=["tc"])
    sizes = est.count_sizes(source, plan)
    rows = est.estimate_rows(plan, sizes, est.Costs("mbert", "cpu", 128, train=0.01, infer=0.001))
    assert len(rows) == len(plan.jobs)
    at = 0
    for group in plan.groups:  # rows come group by group, the fit on the group's first row
        mine, at = rows[at:at + len(group.jobs)], at + len(group.jobs)
        n_train = sum(sizes.get("tc", v, "train") for v in group.training.members)
        n_dev = sum(sizes.get("tc", v, "dev") for v in group.training.members)
        fit = 10 * (n_train * 0.01 + n_dev * 0.001)  # tc: 10 epochs at max_length 128 (hf defaults)
        assert mine[0]["n_train"] == n_train > 0
        assert sum(r["seconds"] for r in mine) == pytest.approx(fit + sum(r["n_test"] for r in mine) * 0.001,
                                                                abs=0.05 * len(mine))
        assert all(r["seconds"] == pytest.approx(r["n_test"] * 0.001, abs=0.05) for r in mine[1:])
    total = est.totals(rows, concurrent=4)
    assert total["wall_hours"] == pytest.approx(total["device_hours"] / 4)


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
    out = CliRunner().invoke(app, ["plan", "--estimate", "--device", "tpu"])
    assert out.exit_code == 2 and "unknown device 'tpu'" in out.output
    out = CliRunner().invoke(app, ["plan", "--data-dir", str(tmp_path / "nowhere")])
    assert out.exit_code == 2 and "does not exist" in " ".join(out.output.split())
