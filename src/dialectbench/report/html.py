"""The static, self-contained HTML report: one `index.html` (jinja2, autoescape on) with inline CSS and JS,
figures inlined as base64 PNG, no network access, so it works from a file:// URL.

Tables reach the template as ready-made rows of cells (see `table_view`: a 50,000-score store makes
half a million cells, too many for a template loop): the template lays out the rest. Every string from
a dataset or a model is escaped, by jinja2 or, in those cells, by markupsafe; the one JSON blob embedded
in a <script> element is escaped by `script_json` (`<`, `>`, `&` as \\u003c, \\u003e, \\u0026).
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from dialectbench.report.model import ReportData
from dialectbench.report.tables import Table, format_cell, sort_key

TEMPLATE = "index.html.j2"


def script_json(value: Any) -> Markup:
    """JSON safe to place inside a <script> element: no `</script>`, `<!--` or `&` can survive."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(text)


def _td(row: dict[str, Any], col: Any, numeric: bool) -> str:
    """One cell: its text and the key the page sorts by; a missing (or empty) one says 'no result'."""
    kind, sort, text = "num" if numeric else "txt", escape(sort_key(row, col)), format_cell(row, col, "")
    if text:
        return f'<td data-sort="{sort}" class="{kind}">{escape(text)}</td>'
    return f'<td data-sort="{sort}" class="{kind} missing" title="no result">{escape(format_cell(row, col))}</td>'


def table_view(table: Table) -> dict[str, Any]:
    """Headers, and rows of ready-made (escaped) cells, for the template."""
    numeric = [c.kind in ("num", "int", "ci") for c in table.columns]
    headers = [{"label": c.label, "numeric": n} for c, n in zip(table.columns, numeric)]
    rows = []
    for r in table.rows:
        cells = "".join(_td(r, c, n) for c, n in zip(table.columns, numeric))
        rows.append({"variety": str(r.get(table.row_variety, "")) if table.row_variety else None,
                     "cells": Markup(cells)})
    return {"key": table.key, "title": table.title, "note": table.note, "headers": headers, "rows": rows,
            "searchable": table.row_variety is not None}


def _png_data(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _figure_view(name: str, paths: dict[str, Path], out_dir: Path, alt: str) -> dict[str, Any]:
    return {"name": name, "src": _png_data(paths["png"]), "alt": alt,
            "svg": paths["svg"].relative_to(out_dir).as_posix() if paths["svg"].is_relative_to(out_dir) else ""}


FIGURE_ALT = {"fig3": "Maximum score per variety, grouped by cluster (Figure 3 / 7-10)",
              "fig4": "Gap against English vs gap within the cluster, per cluster (Figure 4 / 11)"}


def render_html(data: ReportData, tables: list[Table], figures: dict[str, dict[str, Path]], out_dir: Path,
                title: str = "dialectbench report") -> Path:
    """Write `out_dir/index.html` and return its path."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("dialectbench.report", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True)
    assets = resources.files("dialectbench.report").joinpath("templates")
    by_task: dict[str, list[dict]] = {t: [] for t in data.tasks}
    overview, extra = [], []
    for t in tables:
        (by_task[t.task] if t.task in by_task else extra if t.key.startswith("sdqa") else overview).append(
            table_view(t))
    figs: dict[str, list[dict]] = {t: [] for t in data.tasks}
    sdqa_figs = []
    for name, paths in figures.items():
        kind, _, task = name.partition("_")
        if task in figs:
            figs[task].append(_figure_view(name, paths, out_dir, f"{task}: {FIGURE_ALT.get(kind, name)}"))
        else:
            sdqa_figs.append(_figure_view(name, paths, out_dir, "SD-QA: WER vs F1 per dialect"))
    tasks = [{"id": t, "label": _task_label(t), "tables": by_task[t], "figures": figs[t]} for t in data.tasks]
    meta = {"tasks": [t["id"] for t in tasks], "source": data.source, "models": data.models}
    html = env.get_template(TEMPLATE).render(
        title=title, source=data.source, generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        tasks=tasks, overview=overview, sdqa_tables=extra, sdqa_figures=sdqa_figs, models=data.models,
        compare_paper=data.paper is not None, notices=data.notices, meta=script_json(meta),
        css=Markup(assets.joinpath("report.css").read_text("utf-8")),
        js=Markup(assets.joinpath("report.js").read_text("utf-8")))
    path = Path(out_dir) / "index.html"
    path.write_text(html, encoding="utf-8")
    return path


def _task_label(task: str) -> str:
    try:
        from dialectbench.tasks import get_task
        t = get_task(task)
        return f"{task}: {t.name} ({t.metric_label})"
    except (ImportError, LookupError):
        return task
