"""`dialectbench results samples`: the prompts and raw answers that `run --log-samples` stored.

The table view is for reading at a terminal: the end of each prompt (the example's own text: the
instruction and demonstrations before it are the same in every prompt of a job), the answer cut short. `--format json` and `csv` give every field in full.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import typer

from dialectbench.cli.convention import comma_list, deprecated, prefer
from dialectbench.cli.output import Format, emit_to, fail, stderr
from dialectbench.runner import DEFAULT_STORE, Store
from dialectbench.runner.store import StoreError

PROMPT_TAIL = 48  # characters of a prompt's end in the table view
ANSWER_CHARS = 30
TABLE_LIMIT = 1000
COLUMNS = ["job_key", "status", "task", "variety", "setting", "model", "idx", "example_id", "prompt", "response",
           "gold", "prediction"]
TABLE_COLUMNS = ["job", "task", "variety", "#", "prompt (end)", "answer", "prediction"]

STORE_OPT = typer.Option(DEFAULT_STORE, "--store", help="SQLite result store.")
JOB_OPT = typer.Option(None, "--job", help="A job key, or its first characters (as the table shows it).")
TASK_OPT = typer.Option(None, "--tasks", "-t", help="Only these tasks (comma-separated or repeated).")
VARIETY_OPT = typer.Option(None, "--varieties", "-v", help="Only these varieties (comma-separated or repeated).")
FORMAT_OPT = typer.Option(Format.table, "--format", "-f", help="table (prompts shortened), json or csv (in full).")
OUTPUT_OPT = typer.Option(None, "--output", help="Write to this file instead of stdout.")


def _one_line(text: str) -> str:
    return " / ".join(part.strip() for part in text.splitlines() if part.strip())


def _tail(text: str | None, n: int) -> str:
    """The end of the prompt: the example's last input field and the open answer slot (the instruction
    and demonstrations before them are the same in every prompt of a job)."""
    blocks = [b for b in (text or "").split("\n\n") if b.strip()]
    line = _one_line("\n".join(blocks[-2:]))
    return line if len(line) <= n else "…" + line[-(n - 1):]


def _head(text: str, n: int) -> str:
    line = _one_line(text)
    return line if len(line) <= n else line[:n - 1] + "…"


def answer_text(response: Any) -> str:
    """A raw answer in one short line: the reply, `(null)`, or loglikelihood's candidates by score."""
    if response is None:
        return "(null)"
    if isinstance(response, dict):  # loglikelihood: {candidate: summed log-probability}
        ranked = sorted(response.items(), key=lambda kv: -(kv[1] if kv[1] is not None else float("-inf")))
        return ", ".join(f"{k} {v:.2f}" if v is not None else f"{k} -" for k, v in ranked)
    return str(response) if str(response).strip() else "(empty)"


def _table_row(row: dict[str, Any]) -> dict[str, Any]:
    prediction = row["prediction"]
    return {"job": row["job_key"][:8], "task": row["task"], "variety": row["variety"], "#": row["idx"],
            "prompt (end)": _tail(row["prompt"], PROMPT_TAIL),
            "answer": _head(answer_text(row["response"]), ANSWER_CHARS),
            "prediction": "(invalid)" if prediction is None else str(prediction)}


def _nothing_found(db_rows_all: list[dict[str, Any]], store: Path, tasks: list[str], varieties: list[str],
                   job: str | None) -> str:
    if not db_rows_all:
        return (f"no logged samples in {store}; `dialectbench run --log-samples` stores them (add --rerun for "
                "jobs already in the store)")
    for wanted, field, what in ((tasks, "task", "task"), (varieties, "variety", "variety")):
        known = sorted({r[field] for r in db_rows_all})
        lowered = {k.lower() for k in known}
        unknown = [w for w in wanted if w.lower() not in lowered]
        if unknown:
            close = difflib.get_close_matches(unknown[0], known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            return f"no samples for {what} {unknown[0]!r}{hint}; samples are stored for: {', '.join(known)}"
    if job is not None and not any(r["job_key"].startswith(job) for r in db_rows_all):
        return f"no job key starting with {job!r} has logged samples in {store}"
    return "no logged samples match all of the given filters"


OLD_OUT = deprecated("--out", "-o", use="--output")
OLD_TASK = deprecated("--task", use="--tasks")
OLD_VARIETY = deprecated("--variety", use="--varieties")


def samples_cmd(store: Path = STORE_OPT, job: str | None = JOB_OPT, task: list[str] | None = TASK_OPT,
                variety: list[str] | None = VARIETY_OPT, fmt: Format = FORMAT_OPT,
                output: Path | None = OUTPUT_OPT, old_out: Path | None = OLD_OUT,
                old_task: list[str] | None = OLD_TASK,
                old_variety: list[str] | None = OLD_VARIETY) -> None:
    """The exact prompt and raw answer of each example of the jobs run with --log-samples."""
    out = prefer(output, old_out, "--out/-o", "--output")
    task = prefer(task, old_task, "--task", "--tasks")
    variety = prefer(variety, old_variety, "--variety", "--varieties")
    if not store.exists():
        fail(f"no result store at {store} (run `dialectbench run` first or pass --store)")
    tasks, varieties = comma_list(task) or [], comma_list(variety) or []
    try:
        with Store(store, readonly=True) as db:
            rows = db.samples(job=job, tasks=tasks, varieties=varieties)
            everything = db.samples() if not rows else rows
    except StoreError as err:
        fail(str(err))
    if not rows:
        fail(_nothing_found(everything, store, tasks, varieties, job), code=1)
    if fmt == Format.table:
        if len(rows) > TABLE_LIMIT:
            stderr.print(f"showing the first {TABLE_LIMIT:,} of {len(rows):,} samples; --format json or csv "
                         "writes them all", highlight=False)
        shown, columns = [_table_row(r) for r in rows[:TABLE_LIMIT]], TABLE_COLUMNS
    else:
        shown, columns = rows, COLUMNS
        if fmt == Format.csv:  # a loglikelihood answer is a {candidate: log-prob} object: JSON text in a cell
            import json

            shown = [{**r, "response": r["response"] if isinstance(r["response"], str) or r["response"] is None
                      else json.dumps(r["response"], ensure_ascii=False)} for r in rows]
    emit_to(out, shown, fmt, title=f"samples ({store})", columns=columns, what="sample(s)")


def add_sample_columns(db: Store, rows: list[dict[str, Any]], fmt: Format) -> None:
    """`results export --all`: each job's number of logged samples; in JSON also the samples themselves."""
    counts = db.sample_counts()
    by_job: dict[str, list[dict[str, Any]]] = {}
    if fmt == Format.json and counts:
        for s in db.samples():
            by_job.setdefault(s["job_key"], []).append(
                {k: s[k] for k in ("idx", "example_id", "prompt", "response", "prediction")})
    for row in rows:
        row["samples"] = counts.get(row["job_key"], 0)
        if fmt == Format.json:
            row["logged_samples"] = by_job.get(row["job_key"], [])
