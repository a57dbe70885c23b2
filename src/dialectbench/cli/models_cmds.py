"""`dialectbench models`: every backend the registry holds (the package's and installed plugins'), the tasks
each supports, the options it takes and whether it can load here."""

from __future__ import annotations

from typing import Any

import typer

from dialectbench.cli.output import FORMAT_OPTION, Format, emit, stderr


def _rows() -> list[dict[str, Any]]:
    from dialectbench.backends import entries, plugin_problems

    for line in plugin_problems():  # a broken plugin: one line, the listing goes on without it
        stderr.print(f"warning: {line}", highlight=False, markup=False)
    rows = []
    for entry in entries():
        arg = entry.argument.replace("model id", "id").replace(" ", "-")  # one word: an id column never folds
        rows.append({"model": entry.prefix if entry.argument == "none" else f"{entry.prefix}:<{arg}>",
                     "source": entry.source, "tasks": list(entry.tasks), "note": entry.description,
                     "options": "any" if entry.options is None else list(entry.options),
                     "installed": entry.unavailable() or "yes"})
    return rows


def models_cmd(fmt: Format = FORMAT_OPTION) -> None:
    """List the backends and model presets (for `run --model`), plugins included, with the tasks each supports."""
    rows = _rows()
    if fmt != Format.table:
        emit(rows, fmt)
        return
    # the options lists are long: a table at 80 columns keeps the ids whole and names where to find them
    emit(rows, fmt, title="models (run --model NAME)", whole=["model", "source"],
         columns=["model", "source", "tasks", "note", "installed"])
    stderr.print("each backend's options: dialectbench models --format json", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("models")(models_cmd)
