"""CLI commands for the data layer: `data fetch`, `data list`, `data stats` (thin wrappers over
dialectbench.data.fetch and dialectbench.data.source)."""

from __future__ import annotations

from pathlib import Path

import typer

from dialectbench.cli.convention import (
    CATALOGUE_OPTION,
    StrictGroup,
    comma_list,
    deprecated,
    prefer,
    use_catalogues,
)
from dialectbench.cli.output import FORMAT_OPTION, Format, emit, fail, stderr, warn

data_app = typer.Typer(cls=StrictGroup, help="Datasets: fetch into the cache, list what is where, count examples and tokens, "
                       "audit train/test overlap.",
                       no_args_is_help=True)

TASK_OPTION = typer.Option(None, "--tasks", "-t", help="Task ids, comma-separated or repeated (dep pos ner did sa "
                                                       "tc nli mrc eqa mt-dialect mt-region; mt: both MT); "
                                                       "default: all.")
OLD_TASK = deprecated("--task", use="--tasks")
DATA_DIR_OPTION = typer.Option(None, "--data-dir", "-d", envvar="DIALECTBENCH_DATA",
                               help="Local mirror laid out like the catalogue paths (e.g. ../shared/data).")


VARIETIES_OPTION = typer.Option(None, "--varieties", "-v", help="Only these varieties (comma-separated or "
                                "repeated).")
OLD_VARIETY = deprecated("--variety", use="--varieties")
VALIDATE_FORMAT_OPTION = typer.Option(None, "--format", "-f", help="table, csv or json: one row per problem on "
                                      "stdout (default: the problems on stderr).")


def _tasks(task: list[str] | None) -> list[str]:
    from dialectbench.tasks import TASK_IDS, expand_tasks

    if not task:
        return list(TASK_IDS)
    try:
        return list(dict.fromkeys(t for name in task for t in expand_tasks(name)))
    except (ValueError, LookupError) as err:
        fail(str(err).strip("'\""))
    return []


@data_app.command("fetch")
def fetch_cmd(task: list[str] | None = TASK_OPTION,
              varieties: list[str] | None = VARIETIES_OPTION,
              data_dir: Path | None = DATA_DIR_OPTION,
              hub: bool = typer.Option(False, "--hub", help="Allow Hugging Face hub downloads."),
              allow_unverified: bool = typer.Option(False, "--allow-unverified",
                                                    help="Download URLs that have no pinned sha256."),
              fmt: Format = FORMAT_OPTION, old_task: list[str] | None = OLD_TASK,
              old_variety: list[str] | None = OLD_VARIETY) -> None:
    """Download catalogue files into the cache (verified, never twice); with --data-dir, resolve them from a
    local mirror instead and report the missing ones."""
    from dialectbench.data.errors import DataNotAvailable
    from dialectbench.data.fetch import Cache, FetchError, fetch_task

    if data_dir is not None and not data_dir.is_dir():
        fail(f"data directory {str(data_dir)!r} does not exist or is not a directory")
    try:
        cache = Cache()
    except FetchError as err:  # a limit in the environment that is not a number
        fail(str(err))
    task = comma_list(prefer(task, old_task, "--task", "--tasks"))
    chosen = comma_list(prefer(varieties, old_variety, "--variety", "--varieties")) or [None]
    rows, failed = [], False
    for t in _tasks(task):
        reports = []
        for variety in chosen:
            try:
                reports += fetch_task(t, variety=variety, data_dir=data_dir, cache=cache, hub=hub,
                                      allow_unverified=allow_unverified)
            except DataNotAvailable as err:
                if task is not None:
                    fail(str(err))
        if not reports:
            continue
        rows += [vars(r) for r in reports]
        missing = [r.variety for r in reports if r.status == "missing"]
        partial = [r.variety for r in reports if r.status == "partial"]
        failed |= data_dir is None and bool(missing or partial)
        stderr.print(f"{t}: {len(reports) - len(missing)} of {len(reports)} varieties resolved"
                     + (f" ({len(partial)} with some files absent: {', '.join(partial)})" if partial else "")
                     + (f"; missing: {', '.join(missing)}" if missing else ""), highlight=False)
    emit(rows, fmt, title="data fetch", columns=["task", "variety", "status", "detail"])
    if failed or not rows:
        raise typer.Exit(1)


@data_app.command("list")
def list_cmd(task: list[str] | None = TASK_OPTION, data_dir: Path | None = DATA_DIR_OPTION,
             sample: bool = typer.Option(False, "--sample", help="List the bundled sample suite instead."),
             fmt: Format = FORMAT_OPTION, catalogue: list[Path] | None = CATALOGUE_OPTION,
             old_task: list[str] | None = OLD_TASK) -> None:
    """Where each (task, variety, split) is: sample, mirror, cached, remote (downloadable) or missing;
    your own catalogues' datasets (--catalogue) are listed after them."""
    from dialectbench.data.errors import DataNotAvailable
    from dialectbench.data.source import DataSource, catalogue_source, open_source, status_rows

    task = comma_list(prefer(task, old_task, "--task", "--tasks"))
    items = use_catalogues(catalogue)
    try:
        src = open_source(None) if sample else catalogue_source(data_dir)
        tasks = [t for t in _tasks(task) if t in src.catalogues]
        rows = status_rows(src, tasks)
        for item in items:  # a user catalogue's files lie beside its YAML
            if item.catalogue.task in tasks:
                mine = DataSource(item.root, {item.catalogue.task: item.catalogue}, kind="mirror")
                rows += status_rows(mine, [item.catalogue.task])
    except DataNotAvailable as err:
        fail(str(err))
    # 'cached: <dir>' over rows that say 'missing' read as if the data were cached: name the folder's role
    where = {"cached": "download cache", "mirror": "data folder", "sample": "bundled sample suite"}
    emit(rows, fmt, title=f"{where.get(src.kind, src.kind)}: {src.root}")


@data_app.command("stats")
def stats_cmd(task: list[str] | None = TASK_OPTION, data_dir: Path | None = DATA_DIR_OPTION,
              strict: bool = typer.Option(False, "--strict", help="Exit 1 when any split cannot be read."),
              fmt: Format = FORMAT_OPTION, catalogue: list[Path] | None = CATALOGUE_OPTION,
              old_task: list[str] | None = OLD_TASK) -> None:
    """Examples and tokens per variety and split (the sample suite without --data-dir). A split that cannot
    be read is named on stderr, one `file:line: problem` line each; the others are still counted."""
    from dialectbench.data.errors import DataError
    from dialectbench.data.source import open_source, stats_rows
    from dialectbench.data.user_catalogue import with_user_data

    task = comma_list(prefer(task, old_task, "--task", "--tasks"))
    use_catalogues(catalogue)
    rows, problems = [], []
    try:
        src = with_user_data(open_source(data_dir))  # plus the datasets of --catalogue files
        tasks = _tasks(task) if task is not None else [t for t in _tasks(None) if t in src.catalogues]
        for t in tasks:
            found, bad = stats_rows(src, t)
            rows += found
            problems += bad
    except DataError as err:
        fail(str(err))
    emit(rows, fmt, title=f"{', '.join(task) if task else 'all tasks'} ({src.kind}: {src.root})")
    for problem in problems:
        warn(problem, label="error:", style="bold red")
    if problems:
        stderr.print(f"{len(problems)} split(s) could not be read; {len(rows)} counted", highlight=False)
        if strict:
            raise typer.Exit(1)


@data_app.command("audit")
def audit_cmd(task: list[str] | None = TASK_OPTION, data_dir: Path | None = DATA_DIR_OPTION,
              fmt: Format = FORMAT_OPTION, old_task: list[str] | None = OLD_TASK) -> None:
    """Test sets that share texts with any training or dev set of the catalogue (a leak when a job trains
    on that set), and repeated texts inside a split; normalised texts of 5+ tokens (data/overlap.py)."""
    from dialectbench.data.errors import DataError
    from dialectbench.data.overlap import audit
    from dialectbench.data.source import open_source

    task = comma_list(prefer(task, old_task, "--task", "--tasks"))
    rows, problems = [], []
    try:
        src = open_source(data_dir)
        tasks = _tasks(task) if task is not None else [t for t in _tasks(None) if t in src.catalogues]
        for t in tasks:
            stderr.print(f"auditing {t} ...", highlight=False)
            found, bad = audit(src, t)
            rows += found
            problems += bad
    except DataError as err:
        fail(str(err))
    if fmt != Format.table:
        emit(rows, fmt, columns=["task", "kind", "variety", "split", "other", "other_split", "shared", "n",
                                 "percent"])
    else:  # two narrow tables: a terminal has room for five or six columns
        task_col = ["task"] * (len(tasks) > 1)
        emit([{**r, "test": r["variety"], "trained on": f"{r['other']} ({r['other_split']})", "%": r["percent"]}
              for r in rows if r["kind"] == "overlap"], fmt, columns=[*task_col, "test", "trained on", "shared",
                                                                      "n", "%"],
             title=f"Test sets sharing texts with a training or dev set ({src.kind}: {src.root})")
        emit([{**r, "repeated": r["shared"], "%": r["percent"]} for r in rows if r["kind"] == "duplicates"], fmt,
             columns=[*task_col, "variety", "split", "repeated", "n", "%"], title="Texts repeated inside a split")
    for problem in problems:
        warn(problem, label="error:", style="bold red")
    leaks = [r for r in rows if r["kind"] == "overlap" and r["variety"] != r["other"]]
    stderr.print(f"{sum(r['kind'] == 'overlap' for r in rows)} test/training pair(s) share texts, {len(leaks)} "
                 f"across varieties; {sum(r['kind'] == 'duplicates' for r in rows)} split(s) repeat texts",
                 highlight=False)


FILES_ARG = typer.Argument(..., help="Catalogue YAML file(s) of your own datasets.")


@data_app.command("validate")
def validate_cmd(files: list[Path] = FILES_ARG,
                 no_read: bool = typer.Option(False, "--no-read", help="Check schema and paths only, "
                                              "without reading the data files."),
                 fmt: Format | None = VALIDATE_FORMAT_OPTION) -> None:
    """Check your own catalogue file(s): schema, variety names and clusters, data paths and the data
    itself; every problem on one line with file and line number."""
    from dialectbench.data.user_catalogue import validate_file

    bad, found = 0, []
    for path in files:
        cat, problems = validate_file(path, read=not no_read)
        for problem in problems:
            if fmt is None:
                warn(problem, label="error:", style="bold red")
        found += [{"file": str(path), "problem": p} for p in problems]
        if cat is not None and not problems:
            found.append({"file": str(path), "problem": None})
        bad += len(problems)
        if cat is not None and not problems:
            stderr.print(f"{path}: ok ({cat.task}: {len(cat.entries)} entr{'y' if len(cat.entries) == 1 else 'ies'}, "
                         f"{len(cat.varieties)} new variet{'y' if len(cat.varieties) == 1 else 'ies'})",
                         highlight=False)
    if fmt is not None:
        emit(found, fmt, title="catalogue check", columns=["file", "problem"])
    if bad:
        stderr.print(f"{bad} problem(s)", highlight=False)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the root app."""
    app.add_typer(data_app, name="data")
