"""`dialectbench plan`: the job list of a full benchmark run, and with --estimate what it will cost here."""

from __future__ import annotations

from pathlib import Path

import typer

from dialectbench.cli.convention import CATALOGUE_OPTION, deprecated, prefer, use_catalogues
from dialectbench.cli.output import FORMAT_OPTION, Format, emit, fail, stderr
from dialectbench.extras import MissingExtra, require
from dialectbench.runner.plan import PlanError, split_names

COLUMNS = ("task", "setting", "variety", "train_on", "n_train", "n_test", "seconds", "sizes")


MODEL_OPT = typer.Option("baseline", "--model", "-m",
                         help="Model(s), comma-separated, as for `run` (default baseline). With --estimate each "
                         "backend estimates its own cost (baseline: per-word CPU costs measured on UD; mbert, xlmr: "
                         "a timed BERT-base step with their vocabulary).")
TASKS_OPT = typer.Option(None, "--tasks", "-t", help="Task ids, comma-separated or repeated (default: all).")
DATA_DIR_OPT = typer.Option(None, "--data-dir", "-d", help="Mirror whose splits are counted (others are assumed).")
ESTIMATE_OPT = typer.Option(False, "--estimate", help="Measure per-example costs on this machine and add the "
                            "expected seconds per job and the totals.")
DEVICE_OPT = typer.Option("auto", "--device", help="Where to measure: auto, cpu or cuda.")
SETTINGS_OPT = typer.Option(None, "--settings", "-s", help="Settings, as `run --settings` (default: each task's; "
                            "icl lists in-context jobs for llm:/hf-causal: models).")
CONCURRENCY_OPT = typer.Option(1.0, "--concurrency", min=0.01, help="With --estimate: jobs sharing the device at "
                               "once (for the wall time).")


def plan_cmd(model: str = MODEL_OPT, tasks: list[str] | None = TASKS_OPT, data_dir: Path | None = DATA_DIR_OPT,
             estimate: bool = ESTIMATE_OPT, device: str = DEVICE_OPT, concurrency: float = CONCURRENCY_OPT,
             settings: list[str] | None = SETTINGS_OPT, fmt: Format = FORMAT_OPTION,
             catalogue: list[Path] | None = CATALOGUE_OPTION,
             old_concurrent: float | None = deprecated("--concurrent", use="--concurrency")) -> None:
    """List every job of the full DialectBench run for a model (every task, variety and Table 2 setting)."""
    from dialectbench.backends import UnknownBackendError, check_name, cost_estimator
    from dialectbench.runner import estimate as est

    concurrent = prefer(None, old_concurrent, "--concurrent", "--concurrency") or concurrency
    use_catalogues(catalogue)
    if data_dir is not None and not data_dir.is_dir():
        fail(f"data directory {data_dir} does not exist or is not a directory")
    names = split_names([model]) or ["baseline"]
    for name in names:
        try:
            check_name(name)
        except UnknownBackendError as err:
            fail(str(err))
    estimators = {name: cost_estimator(name) if estimate else None for name in names}
    if "encoder-step" in estimators.values():
        try:
            require("plan --estimate", "transformers")  # said before the plan is built, not after
        except MissingExtra as err:
            fail(str(err))
    timed = "encoder-step" in estimators.values()
    device = _device(device) if timed else "cpu"
    all_rows = []
    for name in names:
        try:
            plan, source = est.full_plan(name, tasks=tasks, data_dir=data_dir, settings=settings)
        except PlanError as err:
            fail(str(err))
        sizes = est.count_sizes(source, plan)
        costs = estimators[name]
        if costs == "encoder-step":
            stderr.print(f"measuring {name} on {device} ...", highlight=False)
            costs = est.measure_costs(name, device=device)
        rows = est.estimate_rows(plan, sizes, costs)
        all_rows += [{"model": name, **r} for r in rows]
        _say_totals(name, rows, plan, estimate, "cpu" if name.startswith("baseline") else device, concurrent)
    emit(all_rows, fmt, title="planned jobs", columns=["model", *COLUMNS])
    if estimate and len(split_names([model]) or []) > 1:
        _say_totals("all models", all_rows, None, True, device, concurrent)


def _device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name not in ("cpu", "cuda"):
        fail(f"unknown device {name!r}; choose auto, cpu or cuda")
    if name == "cuda" and not torch.cuda.is_available():
        fail("--device cuda: no CUDA device is visible")
    return name


def _say_totals(name: str, rows: list[dict], plan, estimate: bool, device: str, concurrent: float) -> None:
    from dialectbench.runner.estimate import totals

    t = totals(rows, concurrent)
    groups = f", {len(plan.groups)} fits" if plan is not None else ""
    line = f"{name}: {t['jobs']} jobs{groups}"
    if estimate:
        unit = "GPU-hours" if device == "cuda" else "CPU-hours on this machine"
        line += (f"; {t['device_hours']:.1f} {unit} for the {t['costed']} costed jobs, about "
                 f"{t['wall_hours']:.1f} h wall with {concurrent:g} at once (an upper bound: no early stopping)")
    assumed = sum(r["sizes"] == "assumed" for r in rows)
    if assumed:
        line += f"; sizes assumed for {assumed} job(s) whose data is not on this machine"
    stderr.print(line, highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    app.command("plan")(plan_cmd)
