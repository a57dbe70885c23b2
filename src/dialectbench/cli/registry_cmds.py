"""CLI commands over the variety and task registries: varieties, clusters, tasks, show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from dialectbench.cli.convention import CATALOGUE_OPTION, comma_list, deprecated, prefer, use_catalogues
from dialectbench.cli.output import FORMAT_OPTION, Format, emit, fail
from dialectbench.tasks import TASK_IDS, TASKS, expand_tasks, representatives, zero_shot_source
from dialectbench.varieties import Variety, VarietyError, registry

TASKS_OPTION = typer.Option(None, "--tasks", "-t", help=f"Only these tasks, comma-separated or repeated: "
                            f"{', '.join(TASK_IDS)} (mt: both MT).")
CLUSTERS_OPTION = typer.Option(None, "--clusters", "-c", help="Only these language clusters, comma-separated or "
                               "repeated, e.g. 'high german'.")
OLD_TASK = deprecated("--task", use="--tasks")
OLD_CLUSTER = deprecated("--cluster", use="--clusters")


def _tasks_or_fail(tasks: list[str] | None) -> list[str] | None:
    if not tasks:
        return None
    try:
        return list(dict.fromkeys(t for task in tasks for t in expand_tasks(task)))
    except ValueError as exc:
        fail(str(exc))


def _variety_row(v: Variety, tasks: list[str] | None) -> dict[str, Any]:
    row = {"name": v.name, "cluster": v.cluster, "glottocode": v.glottocode, "mbert_seen": v.mbert_seen,
           "speakers": v.speakers, "tasks": [t for t in TASK_IDS if t in v.tasks]}
    if tasks is not None:
        row["code"] = next((v.codes[t] for t in tasks if t in v.codes), None)
    return row


def varieties_cmd(tasks: list[str] | None = TASKS_OPTION, clusters: list[str] | None = CLUSTERS_OPTION,
                  fmt: Format = FORMAT_OPTION, catalogue: list[Path] | None = CATALOGUE_OPTION,
                  old_task: list[str] | None = OLD_TASK, old_cluster: list[str] | None = OLD_CLUSTER) -> None:
    """List varieties (DialectBench Table 8), optionally of some tasks and/or clusters."""
    use_catalogues(catalogue)
    chosen = _tasks_or_fail(comma_list(prefer(tasks, old_task, "--task", "--tasks")))
    wanted = comma_list(prefer(clusters, old_cluster, "--cluster", "--clusters"))
    reg = registry()
    try:
        names = {reg.cluster_name(c) for c in wanted} if wanted else None
        found = [v for v in reg.varieties() if (chosen is None or v.tasks & set(chosen))
                 and (names is None or v.cluster in names)]
    except ValueError as exc:
        fail(str(exc))
    emit([_variety_row(v, chosen) for v in found], fmt, title=f"{len(found)} varieties")


def _cluster_rows(tasks: list[str] | None, fmt: Format) -> list[dict[str, Any]]:
    reg = registry()
    reps: dict[str, dict[str, str]] = {}
    for rep in representatives():
        if tasks is None or rep.task in tasks:
            reps.setdefault(rep.cluster, {})[rep.task] = rep.variety.name
    rows = []
    for cluster in sorted({v.cluster for t in (tasks or [None]) for v in reg.varieties(task=t)}):
        members = [v for v in reg.varieties(cluster=cluster) if tasks is None or v.tasks & set(tasks)]
        by_task = reps.get(cluster, {})
        shown: Any = by_task if fmt == Format.json else "; ".join(f"{t}: {n}" for t, n in by_task.items())
        if tasks is not None and len(tasks) == 1 and fmt != Format.json:
            shown = by_task[tasks[0]]
        rows.append({"cluster": cluster, "varieties": len(members), "tasks": list(by_task),
                     "representatives": shown})
    return rows


def clusters_cmd(tasks: list[str] | None = TASKS_OPTION, fmt: Format = FORMAT_OPTION,
                 catalogue: list[Path] | None = CATALOGUE_OPTION, old_task: list[str] | None = OLD_TASK) -> None:
    """List language clusters with their variety counts and representatives (DialectBench Table 9)."""
    use_catalogues(catalogue)
    rows = _cluster_rows(_tasks_or_fail(comma_list(prefer(tasks, old_task, "--task", "--tasks"))), fmt)
    emit(rows, fmt, title=f"{len(rows)} clusters")


def _short(dataset: str) -> str:
    """Dataset name without its citation, to keep the table narrow."""
    return dataset.split(" (")[0]


def _lm_eval_rows() -> list[dict[str, Any]]:
    """Each task's lm-eval group and one lm-eval task per variety (tasks/naming.py), as `--output-path`
    and the lm-eval export name them."""
    from dialectbench.tasks.naming import lm_eval_group, lm_eval_task

    reg = registry()
    rows = []
    for t in TASKS.values():
        varieties = reg.varieties(task=t.id)
        rows.append({"name": lm_eval_group(t.id), "type": "group", "task": t.id, "variety": "",
                     "cluster": "", "subtasks": len(varieties)})
        rows += [{"name": lm_eval_task(t.id, v.name), "type": "task", "task": t.id, "variety": v.name,
                  "cluster": v.cluster, "subtasks": ""} for v in varieties]
    return rows


LIST_OPTION = typer.Option(False, "--list", help="The lm-evaluation-harness task and group names (what "
                           "`lm_eval --tasks list` prints).")


def tasks_cmd(fmt: Format = FORMAT_OPTION, lm_eval: bool = LIST_OPTION) -> None:
    """List the tasks (DialectBench Tables 1-2): metric, settings (* = run by default), coverage."""
    if lm_eval:
        rows = _lm_eval_rows()
        title = (f"{sum(r['type'] == 'task' for r in rows)} lm-eval tasks in "
                 f"{sum(r['type'] == 'group' for r in rows)} groups (dialectbench_<task>_<variety>)")
        if fmt != Format.table:
            emit(rows, fmt, title=title)
            return
        # names of up to ~75 characters, to paste into `lm_eval --tasks`: one per line, never folded by a
        # table cell (at 80 columns and less a boxed table split them); each group, then its tasks indented
        from rich.console import Console

        out = Console(soft_wrap=True, markup=False, emoji=False, highlight=False)
        out.print(f"{title}; variety, cluster: --format csv|json")
        for r in rows:
            out.print(f"{r['name']}  (group of {r['subtasks']})" if r["type"] == "group" else f"  {r['name']}")
        return
    reg = registry()
    rows = []
    for t in TASKS.values():
        source = zero_shot_source(t.id)
        rows.append({"id": t.id, "name": t.name, "category": t.category, "metric": t.metric_label,
                     "settings": [s + "*" * (s in t.defaults) for s in t.all_settings],
                     "default_settings": list(t.defaults), "varieties": len(reg.varieties(task=t.id)),
                     "clusters": len(reg.clusters(task=t.id)), "zero_shot_source": source and source.name,
                     "datasets": list(t.datasets)})
    if fmt == Format.table:  # 80 columns: category and datasets are in --format json/csv
        short = {"varieties": "#V", "clusters": "#C"}
        rows = [{short.get(k, k): v for k, v in r.items() if k not in ("category", "datasets", "default_settings")}
                for r in rows]
        emit(rows, fmt, title="DialectBench tasks (* = run by default; #V varieties, #C clusters)")
    else:
        emit([{**r, "settings": [s.rstrip("*") for s in r["settings"]]} for r in rows], fmt)


def _show_row(v: Variety) -> dict[str, Any]:
    row = v.to_row()
    row["tasks"] = [t for t in TASK_IDS if t in v.tasks]
    reps = {r.task: r.variety.name for r in representatives() if r.cluster == v.cluster and r.task in v.tasks}
    row["representative_of_cluster_in"] = [t for t, n in reps.items() if n == v.name]
    row["cluster_representatives"] = reps
    return row


NAME_ARGUMENT = typer.Argument(..., metavar="NAME", help="Variety name, e.g. 'english (a:scotland)' (quotes "
                               "optional: `show swiss german` works).")


def show_cmd(words: list[str] = NAME_ARGUMENT,
             fmt: Format = FORMAT_OPTION, catalogue: list[Path] | None = CATALOGUE_OPTION) -> None:
    """Show everything known about one variety (unknown names get near-match suggestions)."""
    name = " ".join(words)  # `show swiss german` unquoted was 'unexpected extra argument (german)'
    use_catalogues(catalogue)
    try:
        variety = registry().get(name)
    except VarietyError as exc:
        fail(str(exc))
    row = _show_row(variety)
    if fmt == Format.table:
        flat = [{"field": k, "value": "; ".join(f"{a}: {b}" for a, b in v.items()) if isinstance(v, dict) else v}
                for k, v in row.items()]
        emit(flat, fmt, title=variety.name)
    else:
        if fmt == Format.csv:
            row = {k: ("; ".join(f"{a}: {b}" for a, b in v.items()) if isinstance(v, dict) else v)
                   for k, v in row.items()}
        emit([row], fmt)


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the root app."""
    app.command("varieties")(varieties_cmd)
    app.command("clusters")(clusters_cmd)
    app.command("tasks")(tasks_cmd)
    app.command("show")(show_cmd)
