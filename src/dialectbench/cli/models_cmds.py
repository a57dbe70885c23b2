"""`dialectbench models`: the model presets and backend families, and the tasks each one supports."""

from __future__ import annotations

from typing import Any

import typer

from dialectbench.cli.output import FORMAT_OPTION, Format, emit

MT = ("mt-dialect", "mt-region")


def _rows() -> list[dict[str, Any]]:
    from dialectbench.backends.baseline import TASKS as BASELINE_TASKS
    from dialectbench.backends.hf.loading import PRESETS

    try:
        from dialectbench.backends.hf.heads import HEADS
        hf_tasks = list(HEADS)
    except ImportError:  # torch/transformers missing: list what the presets are meant for
        hf_tasks = list(BASELINE_TASKS)
    try:
        from dialectbench.backends.llm.backend import EXAMPLE_TYPES
        llm_tasks = list(EXAMPLE_TYPES)
    except ImportError:
        llm_tasks = []
    encoders = [t for t in hf_tasks if t not in MT]
    rows = [{"model": "baseline", "source": "this package (CPU, offline)", "tasks": list(BASELINE_TASKS),
             "note": "MT: 'copy', the source sentence as its own translation (a floor)"}]
    for name, hub_id in PRESETS.items():
        is_mt = name.startswith("nllb")
        rows.append({"model": name, "source": hub_id, "tasks": list(MT) if is_mt else encoders,
                     "note": "translates, no fine-tuning" if is_mt else "fine-tuned per training set"})
    rows.append({"model": "hf:<id or folder>", "source": "the hub or a local folder", "tasks": hf_tasks,
                 "note": "any encoder; seq2seq for MT"})
    rows.append({"model": "hf-causal:<id or folder>", "source": "a causal LM (hub id, folder or .gguf), run here", "tasks": llm_tasks or hf_tasks, "note": "in-context learning (setting icl)"})
    rows.append({"model": "llm:<base URL>", "source": "an OpenAI-compatible chat server", "tasks": llm_tasks,
                 "note": "in-context learning (setting icl)"})
    return rows


def models_cmd(fmt: Format = FORMAT_OPTION) -> None:
    """List the model presets and backends (for `run --model`) with the tasks each supports."""
    emit(_rows(), fmt, title="models (run --model NAME)", whole=["model", "source"])


def register(app: typer.Typer) -> None:
    app.command("models")(models_cmd)
