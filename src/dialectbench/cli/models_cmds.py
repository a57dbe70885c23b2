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
        rows.append({"model": entry.prefix if entry.argument == "none" else f"{entry.prefix}:<{entry.argument}>",
                     "source": entry.source, "tasks": list(entry.tasks), "note": entry.description,
                     "options": "any" if entry.options is None else list(entry.options),
                     "installed": entry.unavailable() or "yes"})
    return rows


def models_cmd(fmt: Format = FORMAT_OPTION) -> None:
    """List the backends and model presets (for `run --model`), plugins included, with the tasks each supports."""
    emit(_rows(), fmt, title="models (run --model NAME)", whole=["model", "source"])


def register(app: typer.Typer) -> None:
    app.command("models")(models_cmd)
