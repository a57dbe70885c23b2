"""`dialectbench export ...`: the benchmark in other tools' formats (`export hf`: Hugging Face datasets;
`export lm-eval`: lm-evaluation-harness task folders). `dialectbench import lm-eval` reads lm-eval's results
back into the store."""

from __future__ import annotations

from pathlib import Path

import typer

from dialectbench.cli.convention import CATALOGUE_OPTION, StrictGroup, comma_list, use_catalogues
from dialectbench.cli.output import FORMAT_OPTION, Format, emit, fail, stderr, warn
from dialectbench.runner.plan import PlanError

export_app = typer.Typer(cls=StrictGroup, no_args_is_help=True,
                         help="Write the benchmark in other tools' formats (Hugging Face datasets, lm-evaluation-harness tasks).")

TASKS_OPT = typer.Option(None, "--tasks", "-t", help="Task ids, comma-separated or repeated (default: sa, eqa, "
                         "mrc, tc, nli, did).")
HF_TASKS_OPT = typer.Option(None, "--tasks", "-t", help="Task ids, comma-separated or repeated (default: every "
                            "task with data).")
HF_OUT_OPT = typer.Option(..., "--out", "-o", help="Folder to write (new or empty): <task>/ DatasetDicts and "
                          "README.md.")
VARIETIES_OPT = typer.Option(None, "--varieties", "-v", help="Varieties, comma-separated.")
CLUSTERS_OPT = typer.Option(None, "--clusters", "-c", help="Clusters, comma-separated.")
DATA_DIR_OPT = typer.Option(None, "--data-dir", "-d", help="Local mirror (default: the bundled sample suite).")
LIMIT_OPT = typer.Option(None, "--limit", min=1, help="N test items per task, as `run --limit` samples them.")
SEED_OPT = typer.Option(0, "--seed", help="Seed of the demonstrations and of --limit, as `run --seed`.")
FEWSHOT_OPT = typer.Option(None, "--fewshot-from", help="variety, cluster or english (default: `run`'s: SA the "
                           "variety's own train split, DId the variety's, the others English).")
OUT_OPT = typer.Option(..., "--out", "-o", help="Folder to write (outside the repository).")


def export_lm_eval_cmd(tasks: list[str] | None = TASKS_OPT, varieties: list[str] | None = VARIETIES_OPT,
                       clusters: list[str] | None = CLUSTERS_OPT, data_dir: Path | None = DATA_DIR_OPT,
                       limit: int | None = LIMIT_OPT, seed: int = SEED_OPT, fewshot_from: str | None = FEWSHOT_OPT,
                       out: Path = OUT_OPT, catalogue: list[Path] | None = CATALOGUE_OPTION,
                       fmt: Format = FORMAT_OPTION) -> None:
    """Write lm-evaluation-harness tasks (`lm_eval --include_path OUT --tasks dialectbench_sa`)."""
    from dialectbench.interop.lm_eval_export import ExportError, export_lm_eval
    from dialectbench.runner.orchestrate import RunError

    use_catalogues(catalogue)
    try:
        summary = export_lm_eval(out, tasks=tasks, varieties=varieties, clusters=clusters, data_dir=data_dir,
                                 limit=limit, seed=seed, fewshot=fewshot_from)
    except (ExportError, PlanError, RunError) as err:
        fail(str(err))
    for task, variety, reason in summary.skipped:
        warn(f"{task} / {variety}: {reason}", label="skipped:")
    emit([{"lm_eval_task": e.name, "task": e.task, "variety": e.variety, "cluster": e.cluster, "test": e.n_test,
           "fewshot": e.n_fewshot, "held_out": e.held_out} for e in summary.tasks], fmt, title="lm-eval tasks written")
    n = sum(e.n_test for e in summary.tasks)
    warn(f"wrote {len(summary.tasks)} lm-eval tasks ({n} test items, {len(summary.groups)} groups, "
               f"{summary.bytes() / 1e6:.2f} MB) to {out}", label="done:", style="green")


def hf_cmd(out: Path = HF_OUT_OPT, tasks: list[str] | None = HF_TASKS_OPT, varieties: list[str] | None = VARIETIES_OPT,
           clusters: list[str] | None = CLUSTERS_OPT, data_dir: Path | None = DATA_DIR_OPT,
           fmt: Format = FORMAT_OPTION) -> None:
    """Write each task's test (and train/dev) splits as a datasets DatasetDict (save_to_disk) with a card;
    prints the rows per task, variety and split."""
    from dialectbench.data.errors import DataNotAvailable
    from dialectbench.data.hf_export import ExportError, export_hf
    from dialectbench.data.source import open_source
    from dialectbench.extras import MissingExtra
    from dialectbench.tasks import TASK_IDS, expand_tasks
    from dialectbench.varieties import registry

    if varieties and clusters:
        fail("give --varieties or --clusters, not both")
    try:
        chosen = list(dict.fromkeys(t for task in comma_list(tasks) or TASK_IDS for t in expand_tasks(task)))
        reg = registry()
        wanted = {reg.get(v).name for v in comma_list(varieties)} if varieties else None
        wanted_clusters = {reg.cluster_name(c) for c in comma_list(clusters)} if clusters else None
        source = open_source(data_dir)
        summary, problems = export_hf(source, out, chosen, varieties=wanted, clusters=wanted_clusters)
    except (ValueError, DataNotAvailable, ExportError, MissingExtra) as err:
        fail(str(err))
    for line in problems:
        warn(line)
    if not summary:
        fail("nothing exported: no selected variety has data here", code=1)
    emit(summary if fmt != Format.table else [{k: r[k] for k in ("task", "variety", "split", "rows", "licence")}
                                               for r in summary], fmt, title=f"exported to {out}")
    stderr.print(f"{sum(r['rows'] for r in summary)} rows of {len({r['task'] for r in summary})} task(s) in {out} "
                 "(datasets.load_from_disk(<out>/<task>)); card: README.md", highlight=False)


import_app = typer.Typer(cls=StrictGroup, no_args_is_help=True,
                         help="Read other tools' results of exported DialectBench tasks into the store.")
IMPORT_STORE_OPT = typer.Option(None, "--store", help="SQLite result store (default: runs/results.sqlite, "
                                "as `run`).")


PATH_ARG = typer.Argument(..., help="An lm-eval results_*.json, or the --output_path folder holding them (with "
                         "--log_samples' samples_*.jsonl).")


def import_lm_eval_cmd(path: Path = PATH_ARG, store: Path | None = IMPORT_STORE_OPT, fmt: Format = FORMAT_OPTION) -> None:
    """Store lm-eval scores of `export lm-eval` tasks, per example, for analyze, gaps and report."""
    from dialectbench.interop.lm_eval_import import LmEvalImportError, import_lm_eval
    from dialectbench.runner import DEFAULT_STORE

    try:
        rows = import_lm_eval(path, store or DEFAULT_STORE)
    except (LmEvalImportError, KeyError, TypeError) as err:
        fail(f"{path}: {err}" if not isinstance(err, LmEvalImportError) else str(err))
    if not rows:
        fail(f"{path}: no results of exported DialectBench tasks (dialectbench_* with their metadata) found")
    emit(rows, fmt, title="lm-eval results imported")


def register(app: typer.Typer) -> None:
    """Attach `export` (`export hf`, `export lm-eval`) and `import` (`import lm-eval`) to the root app."""
    export_app.command("hf")(hf_cmd)
    export_app.command("lm-eval")(export_lm_eval_cmd)
    app.add_typer(export_app, name="export")
    import_app.command("lm-eval")(import_lm_eval_cmd)
    app.add_typer(import_app, name="import")
