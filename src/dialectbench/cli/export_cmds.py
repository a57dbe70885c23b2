"""`dialectbench export ...`: the benchmark in other tools' formats (`export hf`: Hugging Face datasets)."""

from __future__ import annotations

from pathlib import Path

import typer

from dialectbench.cli.convention import StrictGroup, comma_list
from dialectbench.cli.output import FORMAT_OPTION, Format, emit, fail, stderr, warn

export_app = typer.Typer(cls=StrictGroup, help="Write the benchmark in other tools' formats.", no_args_is_help=True)

TASKS_OPT = typer.Option(None, "--tasks", "-t", help="Task ids, comma-separated (default: every task with data).")
VARIETIES_OPT = typer.Option(None, "--varieties", "-v", help="Only these varieties, comma-separated.")
CLUSTERS_OPT = typer.Option(None, "--clusters", "-c", help="Only these clusters, comma-separated.")
DATA_DIR_OPT = typer.Option(None, "--data-dir", "-d", help="Local data mirror (default: the bundled sample suite).")
HF_OUT_OPT = typer.Option(..., "--out", "-o", help="Folder to write (new or empty): <task>/ DatasetDicts and "
                          "README.md.")


def hf_cmd(out: Path = HF_OUT_OPT, tasks: list[str] | None = TASKS_OPT, varieties: list[str] | None = VARIETIES_OPT,
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


export_app.command("hf")(hf_cmd)


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the root app."""
    app.add_typer(export_app, name="export")
