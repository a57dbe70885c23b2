"""CLI commands for analysis: `analyze` (max-obtainable scores, task and cluster summaries, dialect gaps)
and `fairness` (generalized entropy with its within/between decomposition). Thin: the numbers come from
`dialectbench.analysis`; this module only reads files, checks them and prints/writes the results."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from dialectbench.cli.convention import deprecated, prefer
from dialectbench.cli.output import FORMAT_OPTION, Format, emit, fail, stderr

if TYPE_CHECKING:  # pandas is imported where it is used: `dialectbench --help` need not load it (~0.5 s)
    import pandas as pd

PAPER = "paper"
CLUSTER_COLUMNS = ("task", "cluster", "n_varieties", "linguistic_utility", "demographic_utility", "min_variety",
                   "min_score", "std")
GAP_COLUMNS = ("task", "model", "cluster", "gap", "value", "n_varieties", "baseline", "reason")


# ---------------------------------------------------------------------------------------------- inputs

def _load_scores(source: str) -> pd.DataFrame:
    """The scores table at `source`, or the packaged DialectBench results when `source` is 'paper'."""
    from dialectbench.analysis import ScoresError, read_scores, validate_scores

    if source.strip().lower() == PAPER:
        from dialectbench.analysis.reference import paper_scores

        return validate_scores(paper_scores(), "paper (DialectBench Tables 10-20)")
    path = Path(source)
    if not path.is_file():
        fail(f"{source}: no such file (give a scores CSV, or 'paper' for the published DialectBench results)")
    try:
        return read_scores(path)
    except ScoresError as exc:
        fail(str(exc))
    except UnicodeDecodeError as exc:
        fail(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})")


def _read_csv(path: Path) -> pd.DataFrame:
    import pandas as pd

    if not path.is_file():
        fail(f"{path}: no such file")
    try:
        return pd.read_csv(path, keep_default_na=False, na_values=[""], dtype=str)
    except (ValueError, UnicodeDecodeError) as exc:  # pandas' ParserError/EmptyDataError are ValueErrors
        fail(f"{path}: not a readable CSV file ({exc})")


def _where(path: Path, index: int) -> str:
    """Position of the data row at 0-based `index`, as read_scores reports it (header = line 1)."""
    return f"{path}:{index + 2}: row {index + 1}"


def _require_columns(df: pd.DataFrame, path: Path, columns: list[str]) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        fail(f"{path}: missing column(s) {', '.join(repr(c) for c in missing)}; "
             f"the file has {', '.join(repr(c) for c in df.columns) or 'no columns'}")


def _numbers(df: pd.DataFrame, column: str, path: Path, *, non_negative: bool = False) -> pd.Series:
    """The column as floats; the first bad cell is reported by data row and file line (header = line 1)."""
    import pandas as pd

    values = pd.to_numeric(df[column], errors="coerce")
    bad = values.isna() | ~values.map(math.isfinite)
    if non_negative:
        bad |= values < 0
    if bad.any():
        i = int(bad.to_numpy().nonzero()[0][0])
        cell = df[column].iloc[i]
        problem = "is empty" if pd.isna(cell) else f"is {cell!r}, not a finite number"
        if non_negative and not pd.isna(values.iloc[i]) and math.isfinite(values.iloc[i]):
            problem = f"is {cell!r}; values must be >= 0"
        fail(f"{_where(path, i)}: column {column!r} {problem}")
    return values.astype(float)


def _read_speakers(path: Path) -> dict[str, float]:
    """A speakers file: columns `variety, speakers` (speaker counts override the registry's)."""
    df = _read_csv(path)
    _require_columns(df, path, ["variety", "speakers"])
    counts = _numbers(df, "speakers", path, non_negative=True)
    names = df["variety"].fillna("").str.strip()
    for i, name in enumerate(names):
        if not name:
            fail(f"{_where(path, i)}: empty variety name")
    dup = names.str.casefold().duplicated()
    if dup.any():
        i = int(dup.to_numpy().nonzero()[0][0])
        fail(f"{_where(path, i)}: variety {names.iloc[i]!r} is listed twice")
    return dict(zip(names, counts))


# --------------------------------------------------------------------------------------------- analyze

def _records(df: pd.DataFrame, columns: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    if columns is not None:
        df = df[[c for c in columns if c in df.columns]]
    return [{k: (None if _missing(v) else v) for k, v in row.items()} for row in df.to_dict("records")]


def _missing(value: Any) -> bool:
    import pandas as pd

    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _write(df: pd.DataFrame, path: Path, columns: tuple[str, ...] | None = None) -> None:
    out = df if columns is None else df[[c for c in columns if c in df.columns]]
    out.to_csv(path, index=False, float_format="%.4f")


SCORES_ARGUMENT = typer.Argument(..., metavar="SCORES.csv",
                                help="Scores table (task, cluster, variety, model, setting, train_on, score), "
                                     "or 'paper' for the packaged DialectBench results.")
OUT_OPTION = typer.Option(..., "--out", "-o", help="Folder for max_scores.csv, task_summary.csv, "
                                                   "cluster_summary.csv and gaps.csv (created if needed).")
SPEAKERS_OPTION = typer.Option(None, "--speakers", help="CSV with columns variety, speakers: the counts that "
                                                        "weight the demographic utility (replacing the registry's).")


CATALOGUE_OPTION = typer.Option(None, "--catalogue", help="Your dataset catalogue YAML (repeatable; also "
                                "$DIALECTBENCH_CATALOGUE): the varieties and tasks it declares.")


def analyze_cmd(scores: str = SCORES_ARGUMENT, out: Path = OUT_OPTION, speakers: Path | None = SPEAKERS_OPTION,
                fmt: Format = FORMAT_OPTION, catalogue: list[Path] | None = CATALOGUE_OPTION) -> None:
    """Max-obtainable scores, task summary (DialectBench Table 3), cluster summaries (Tables 23-31) and
    dialect gaps (Table 4) of a scores table; for 'paper', also the cell-by-cell check against Table 3."""
    from dialectbench import analysis
    from dialectbench.data.user_catalogue import UserCatalogueError, use_user_catalogues

    try:
        use_user_catalogues(catalogue or [])  # a user's tasks and varieties are known in the scores
    except UserCatalogueError as err:
        fail(str(err))

    df = _load_scores(scores)
    df = _set_synthetic_aside(df)
    counts = _read_speakers(speakers) if speakers is not None else None
    try:
        best = analysis.max_scores(df)
        tasks = analysis.task_summary(df)
        clusters = analysis.cluster_summary(df, speakers=counts)
        gap_table = analysis.gaps(df)
    except (ValueError, LookupError) as exc:
        fail(f"{scores}: {exc}")
    try:
        out.mkdir(parents=True, exist_ok=True)
        best.to_csv(out / "max_scores.csv", index=False)  # the input scores, unrounded
        _write(tasks, out / "task_summary.csv")
        _write(clusters, out / "cluster_summary.csv", CLUSTER_COLUMNS)
        _write(gap_table, out / "gaps.csv", GAP_COLUMNS)
    except OSError as exc:
        fail(f"{out}: cannot write the results ({exc.strerror or exc})")
    stderr.print(f"wrote max_scores.csv, task_summary.csv, cluster_summary.csv and gaps.csv to {out}",
                 highlight=False, soft_wrap=True)
    if fmt == Format.table:
        emit(_records(tasks), fmt, title="Task summary (max-obtainable scores)")
    emit(_records(clusters, CLUSTER_COLUMNS), fmt, title="Cluster summary", columns=CLUSTER_COLUMNS)
    if scores.strip().lower() == PAPER:
        _check_table3(tasks, out, fmt)
        _check_table4(gap_table, out, fmt)
        if speakers is None:  # the utilities check is of the registry's speaker counts
            _check_utilities(clusters, out, fmt)


def _set_synthetic_aside(df: pd.DataFrame) -> pd.DataFrame:
    """Synthetic varieties (dialectbench.perturb) never enter real aggregates: dropped here, with a note."""
    from dialectbench.perturb.summary import split_synthetic

    real, synthetic = split_synthetic(df)
    if len(synthetic):
        stderr.print(f"{len(synthetic)} synthetic-variety row(s) set aside (not real data; the report shows them "
                     "in their own table)", highlight=False)
    return real


def _check_table3(tasks: pd.DataFrame, out: Path, fmt: Format) -> None:
    """The task summary of the packaged results against DialectBench Table 3 as printed, cell by cell."""
    from dialectbench.analysis.reference.check import table3_cells

    _report_cells(table3_cells(tasks), out / "table3_check.csv", fmt, "DialectBench Table 3", "",
                  ("task", "cell", "ours", "paper", "reason"),
                  lambda r: f"{r.task} {r.cell}: ours {r.ours}, paper {r.paper}: {r.reason}")


def _check_table4(gap_table: pd.DataFrame, out: Path, fmt: Format) -> None:
    """Table 4 (mBERT cluster gaps) rebuilt from the packaged per-variety rows over the paper's cluster set
    (clusters with all three gaps), cell by cell, as Table 3."""
    from dialectbench.analysis.reference.check import table4_cells

    _report_cells(table4_cells(gap_table), out / "table4_check.csv", fmt, "DialectBench Table 4",
                  ", over the clusters with all three gaps (the paper's set;", ("task", "gap", "cell", "ours", "paper", "reason"),
                  lambda r: f"{r.task} {r.gap} {r.cell}: ours {r.ours}, paper {r.paper}: {r.reason}")


def _check_utilities(clusters: pd.DataFrame, out: Path, fmt: Format) -> None:
    """Tables 23-31 (cluster utilities, minimum, std) rebuilt from the packaged rows, cell by cell."""
    from dialectbench.analysis.reference.check import utility_cells

    _report_cells(utility_cells(clusters), out / "utilities_check.csv", fmt, "DialectBench Tables 23-31", "", None,
                  lambda r: f"Table {r.table} {r.cluster} {r.cell}: ours {r.ours}, "
                            f"paper {r.paper if isinstance(r.paper, str) else '-'}: {r.reason}")


def _report_cells(cells: pd.DataFrame, path: Path, fmt: Format, what: str, scope: str,
                  columns: tuple[str, ...] | None, line: Any) -> None:
    """A paper table rebuilt cell by cell: every cell into `path`, the count on stderr, and each differing
    cell with its reason (a table of `columns` on stdout in table format, else one stderr line each, so
    stdout stays one csv/json table)."""
    try:
        cells.to_csv(path, index=False)
    except OSError as exc:
        fail(f"{path.parent}: cannot write {path.name} ({exc.strerror or exc})")
    where = f"{scope} all cells in {path})" if scope else f" (all cells in {path})"
    stderr.print(f"{what}: {int(cells['match'].sum())} of {len(cells)} cells reproduced from the packaged "
                 f"results{where}", highlight=False, soft_wrap=True)
    differ = cells[~cells["match"]]
    if len(differ) and columns is not None and fmt == Format.table:
        emit(_records(differ, columns), fmt, title=f"{what}: cells not reproduced", columns=columns)
    else:
        for r in differ.itertuples():
            stderr.print(f"  - {line(r)}", highlight=False, markup=False, soft_wrap=True)


# -------------------------------------------------------------------------------------------- fairness

VALUES_ARGUMENT = typer.Argument(..., metavar="VALUES.csv", help="Per-example values, one row each.")
GROUP_OPTION = typer.Option(..., "--group", "-g", help="Column holding each row's group (e.g. variety).")
VALUE_OPTION = typer.Option(None, "--value", help="Column holding the benefit (e.g. F1, or 1 - WER); required.")
ALPHA_OPTION = typer.Option(2.0, "--alpha", "-a", help="Inequality aversion; any value but 0 and 1.")
BY_OPTION = typer.Option(None, "--by", help="One index per value of this column (e.g. model, lang); needed when "
                         "the file holds several ASR/QA models, which are never pooled by accident.")
# The column naming the system: `sdqa wer --view utterances` writes `row` (the Table 2 row: en-US, or
# "localized", one hypothetical system whose concrete `model` differs by dialect) and `model`; other files
# `model`. Two values there are two systems, whose benefits must not be pooled into one index.
SYSTEM_COLUMNS = ("row", "model")


def fairness_cmd(values: Path = VALUES_ARGUMENT, group: str = GROUP_OPTION, value: str | None = VALUE_OPTION,
                 alpha: float = ALPHA_OPTION, by: str | None = BY_OPTION, fmt: Format = FORMAT_OPTION,
                 old_value: str | None = deprecated("-v", use="--value")) -> None:
    """Generalized entropy unfairness (SD-QA section 3): total = within-group + between-group, with each
    group's within and between components (SD-QA Tables 16-18)."""
    value = prefer(value, old_value, "-v", "--value")  # -v means --varieties everywhere else
    if value is None:
        fail("give --value COLUMN (the column holding the benefit)")
    if alpha in (0.0, 1.0) or not math.isfinite(alpha):
        fail(f"--alpha must be a finite number other than 0 and 1 (the index has log forms there), not {alpha}")
    df = _read_csv(values)
    _require_columns(df, values, [group, value, *([by] if by else [])])
    system = next((c for c in SYSTEM_COLUMNS if c in df.columns), None)
    if by is None and system is not None and system != group:
        for col in (system,):
            if df[col].nunique() > 1:
                shown = ", ".join(map(str, list(dict.fromkeys(df[col]))[:4]))
                fail(f"{values}: column {col!r} holds {df[col].nunique()} systems ({shown}); their benefits "
                     f"would be pooled into one index. Pass --by {col} (one index each) or filter the file")
    if by is not None:
        rows: list[dict[str, Any]] = []
        for key, part in df.groupby(by, sort=False):
            rows += [{by: key, **r} for r in _fairness_table(part.reset_index(drop=True), values, group, value,
                                                              alpha)]
        _emit_fairness(rows, fmt, alpha, value, group, columns=(by, *FAIRNESS_COLUMNS))
        return
    _emit_fairness(_fairness_table(df, values, group, value, alpha), fmt, alpha, value, group)


def _fairness_table(df: pd.DataFrame, values: Path, group: str, value: str, alpha: float) -> list[dict[str, Any]]:
    from dialectbench import analysis

    benefits = _numbers(df, value, values)
    groups = df[group].fillna("").astype(str).str.strip()
    empty = groups == ""
    if empty.any():
        fail(f"{_where(values, int(empty.to_numpy().nonzero()[0][0]))}: column {group!r} is empty")
    try:
        result = analysis.generalized_entropy(benefits.to_numpy(), groups.to_numpy(), alpha=alpha)
    except ValueError as exc:
        fail(f"{values}: {exc}")
    return _fairness_rows(result, benefits)


def _emit_fairness(rows: list[dict[str, Any]], fmt: Format, alpha: float, value: str, group: str,
                   columns: tuple[str, ...] = ()) -> None:
    if fmt == Format.table:  # the indices are small (SD-QA prints 5 decimals); the table's default is 2
        rows = [{k: f"{v:.5f}" if isinstance(v, float) and k != "alpha" else v
                 for k, v in r.items()} for r in rows]
    emit(rows, fmt, title=f"Generalized entropy (alpha={alpha:g}) of {value!r} "
         f"by {group!r}", columns=columns or FAIRNESS_COLUMNS)


FAIRNESS_COLUMNS = ("group", "n", "mean", "total", "within", "between", "ge", "weight", "alpha")


def _fairness_rows(result: Any, benefits: pd.Series) -> list[dict[str, Any]]:
    """One row for the whole population (total = within + between), then one per group with its weighted
    within term and its between term (SD-QA Tables 16-18); `ge` is the group's own index."""
    rows = [{"group": "(all)", "n": len(benefits), "mean": float(benefits.mean()), "total": result.total,
             "within": result.within, "between": result.between, "ge": result.total, "weight": None,
             "alpha": result.alpha}]
    for rec in _records(result.components):
        rows.append({**rec, "total": None, "alpha": result.alpha})
    return rows


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the root app."""
    app.command("analyze")(analyze_cmd)
    app.command("fairness")(fairness_cmd)
