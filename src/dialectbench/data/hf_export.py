"""The benchmark as Hugging Face datasets (`dialectbench export hf --out DIR`): per task, a `datasets.DatasetDict`
saved with `save_to_disk` in `DIR/<task>/` (load it offline with `datasets.load_from_disk`), and a dataset
card `DIR/README.md` (sources, licences, sizes, the variety naming convention).

Each split (test, and train/dev where the catalogue has them: the in-variety, in-cluster and combined
settings train on them) holds the rows of every selected variety, each row one example as the readers give
it (data/examples.py fields; tuples as sequences: UD words/upos/heads/deprels, NER tokens/tags, QA
answers/answer_starts, MC options) with `variety`, `cluster` and `lm_eval_task` (tasks/naming.py) columns.
A field that is a mapping is kept as its JSON text. `datasets` is the `fetch` extra, imported only here,
when an export starts.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dialectbench.data.source import DataSource
from dialectbench.tasks.naming import lm_eval_task

SPLITS = ("test", "train", "dev")


class ExportError(ValueError):
    """An export that cannot start (an --out that is not empty, inside the package's repository)."""


def _row(example: Any, task: str, variety: str, cluster: str) -> dict[str, Any]:
    row: dict[str, Any] = {"variety": variety, "cluster": cluster, "lm_eval_task": lm_eval_task(task, variety)}
    for key, value in dataclasses.asdict(example).items():
        row[key] = list(value) if isinstance(value, tuple) else (
            json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else value)
    return row


def _repository_of_package() -> Path | None:
    """The git checkout this package runs from (src layout), if any: an export never writes into it."""
    root = Path(__file__).resolve().parents[3]
    return root if (root / ".git").exists() and (root / "src" / "dialectbench").is_dir() else None


def check_out(out: Path) -> Path:
    """`out` resolved, refused when it is inside the package's repository or a folder that is not empty."""
    out = Path(out).expanduser().resolve()
    repo = _repository_of_package()
    if repo is not None and out.is_relative_to(repo):
        raise ExportError(f"{out} is inside the dialectbench repository ({repo}); export the data elsewhere")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ExportError(f"{out} exists and is not an empty folder; give a new or empty one (nothing is overwritten)")
    return out


def collect(source: DataSource, tasks: Sequence[str], varieties: set[str] | None, clusters: set[str] | None
            ) -> tuple[dict[str, dict[str, list[dict[str, Any]]]], list[dict[str, Any]], list[str]]:
    """Per task and split, the rows to export; one summary row per (task, variety, split) read; and a
    `file: problem` line for each split that could not be read (left out)."""
    from dialectbench.varieties import registry

    reg = registry()
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {}
    summary: list[dict[str, Any]] = []
    problems: list[str] = []
    for task in tasks:
        try:
            catalogue = source.catalogue(task)
            names = source.varieties(task)
        except Exception as err:  # noqa: BLE001 - a task without data here is said, not fatal
            problems.append(f"{task}: {err}")
            continue
        for variety in names:
            try:
                cluster = reg.get(variety).cluster
            except Exception:  # noqa: BLE001 - a variety the registry does not know keeps an empty cluster
                cluster = ""
            if varieties is not None and variety not in varieties:
                continue
            if clusters is not None and cluster not in clusters:
                continue
            entry = source.entry(task, variety)
            dataset = catalogue.datasets[entry.dataset]
            for split in SPLITS:
                if split not in source.splits(task, variety):
                    continue
                try:
                    examples = source.load(task, variety, split)
                except Exception as err:  # noqa: BLE001 - a reader's file:line problem, reported
                    problems.append(f"{task}/{variety}/{split}: {err}")
                    continue
                rows.setdefault(task, {}).setdefault(split, []).extend(
                    _row(ex, task, variety, cluster) for ex in examples)
                summary.append({"task": task, "variety": variety, "cluster": cluster, "split": split,
                                "rows": len(examples), "dataset": dataset.name, "licence": dataset.licence,
                                "citation": dataset.citation, "homepage": dataset.homepage or ""})
    return rows, summary, problems


def write_card(out: Path, summary: list[dict[str, Any]], source: DataSource) -> Path:
    """`out/README.md`: a Hugging Face dataset card with YAML front matter."""
    licences = sorted({r["licence"] for r in summary})
    tasks = list(dict.fromkeys(r["task"] for r in summary))
    spdx = len(licences) == 1 and re.fullmatch(r"[A-Za-z0-9.+-]+", licences[0])  # the card's field takes an id
    front = ["---", f"license: {licences[0].lower()}" if spdx else "license: other",
             "pretty_name: DialectBench export", "configs:"]
    for task in tasks:
        splits = list(dict.fromkeys(r["split"] for r in summary if r["task"] == task))
        front += [f"- config_name: {task}", "  data_files:"]
        front += [line for s in splits for line in (f"  - split: {s}", f"    path: {task}/{s}/*.arrow")]
    front.append("---")
    body = [
        "", "# DialectBench (exported by `dialectbench export hf`)", "",
        (f"Read from {source}. Each folder is one task's `datasets.DatasetDict` "
         "(`datasets.load_from_disk(\"<folder>/<task>\")`), its splits holding every exported variety's "
         "examples as the dialectbench readers give them."), "",
        "## Varieties", "",
        ("`variety` is the variety's name as DialectBench names it: the Glottolog languoid name, lower-case, "
         "with a parenthesised qualifier where Glottolog has no separate languoid: `a:` an area "
         "(`english (a:scotland)`), `r:` a register, `m:` a mode (written, spoken), `o:` an orthography, "
         "`i:` an identifier of a dataset's own variety. `cluster` is its DialectBench language cluster. "
         "`lm_eval_task` is the lm-evaluation-harness task name of the (task, variety): "
         "`dialectbench_<task>_<variety slug>`, the slug being the name lower-cased, accents dropped and each run "
         "of other characters one `_`."), "",
        "## Licences", "",
        "Each dataset keeps its own licence: use of the data is bound by it (listed per variety below).", "",
    ]
    for task in tasks:
        mine = [r for r in summary if r["task"] == task]
        body += [f"## {task}", "", "| variety | cluster | split | rows | dataset | licence |", "|---|---|---|---:|---|---|"]
        body += [f"| {r['variety']} | {r['cluster']} | {r['split']} | {r['rows']} | {r['dataset']} | {r['licence']} |"
                 for r in mine]
        sources = {(r["dataset"], r["citation"], r["homepage"]) for r in mine}
        body += ["", "Sources: " + "; ".join(f"{n} ({c}{', ' + h if h else ''})" for n, c, h in sorted(sources)), ""]
    path = out / "README.md"
    path.write_text("\n".join(front + body) + "\n", encoding="utf-8")
    return path


def export_hf(source: DataSource, out: Path, tasks: Sequence[str], *, varieties: set[str] | None = None,
              clusters: set[str] | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Write the export (module docstring); returns the summary rows and the problems."""
    from dialectbench.extras import require

    require("export hf", "datasets")
    import datasets

    out = check_out(out)
    rows, summary, problems = collect(source, tasks, varieties, clusters)
    out.mkdir(parents=True, exist_ok=True)
    quiet = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # a bar per split would bury the summary; the export takes seconds
    try:
        for task, splits in rows.items():
            dd = datasets.DatasetDict({split: datasets.Dataset.from_list(items) for split, items in splits.items()})
            dd.save_to_disk(str(out / task))
    finally:
        if quiet:
            datasets.enable_progress_bars()
    if summary:
        write_card(out, summary, source)
    return summary, problems
