"""CLI command `report`: the papers' tables and figures and a static HTML page from a result store or a
scores table. Thin: everything is `dialectbench.report.build_report`."""

from __future__ import annotations

from pathlib import Path

import typer

from dialectbench.cli.convention import CATALOGUE_OPTION, deprecated, prefer, use_catalogues
from dialectbench.cli.output import fail, stderr

STORE_OPT = typer.Option(None, "--store", help="SQLite result store written by `dialectbench run` (default: "
                         "dialectbench-results/results.sqlite, where `run` writes, unless --scores is given).")
SCORES_OPT = typer.Option(None, "--scores", help="Scores CSV (task, cluster, variety, model, setting, train_on, "
                                                 "score), or 'paper' for the published DialectBench results.")
OUT_OPT = typer.Option(..., "--out", "-o", help="Folder for index.html, tables/ and figures/ (created if needed).")
FORMATS_OPT = typer.Option(None, "--formats", help="File types to write: md, latex, csv, html; comma-separated "
                                                  "or repeated (default: all four).")
COMPARE_OPT = typer.Option(None, "--compare", help="'paper': put the published DialectBench rows beside ours.")
SDQA_OPT = typer.Option(None, "--sdqa", help="Optional SD-QA results per dialect: CSV with dialect and wer "
                                             "and/or f1 (optional model, population).")
SDQA_VALUES_OPT = typer.Option(None, "--sdqa-values", help="Optional SD-QA per-example benefits: CSV with "
                                                           "dialect, benefit (for the unfairness table).")
SPEAKERS_OPT = typer.Option(None, "--speakers", help="CSV with columns variety, speakers (demographic utility "
                                                     "weights replacing the registry's).")




OLD_FORMAT = deprecated("--format", "-f", use="--formats")


def report_cmd(store: Path | None = STORE_OPT, scores: str | None = SCORES_OPT, out: Path = OUT_OPT,
               formats: list[str] | None = FORMATS_OPT, compare: str | None = COMPARE_OPT,
               sdqa: Path | None = SDQA_OPT, sdqa_values: Path | None = SDQA_VALUES_OPT,
               speakers: Path | None = SPEAKERS_OPT, catalogue: list[Path] | None = CATALOGUE_OPTION,
               old_format: list[str] | None = OLD_FORMAT) -> None:
    """Tables (DialectBench Tables 3, 4, 23-31), figures (3/7-10, 4/11) and a self-contained index.html.
    (--format means table|csv|json everywhere; the report's file types are --formats.)"""
    from dialectbench.analysis import ScoresError
    from dialectbench.report import FORMATS, ReportInputError, build_report

    formats = prefer(formats, old_format, "report --format", "--formats")
    use_catalogues(catalogue)  # its new varieties' speakers and clusters

    if store is None and scores is None:  # `run` then `report --out R` reports what run wrote, as results export does
        from dialectbench.runner.store import DEFAULT_STORE

        if not DEFAULT_STORE.is_file():
            fail(f"no result store at {DEFAULT_STORE}: give --store FILE or --scores CSV (or --scores paper)")
        store = DEFAULT_STORE
    if store is not None and scores is not None:
        fail("give one of --store FILE or --scores CSV (or --scores paper), not both")
    if compare is not None and compare.strip().lower() != "paper":
        fail(f"--compare takes 'paper' (the published DialectBench rows), not {compare!r}")
    if sdqa_values is not None and sdqa is None:
        fail("--sdqa-values needs --sdqa (the per-dialect results)")
    if store is not None and not store.is_file():
        fail(f"{store}: no result store there (run `dialectbench run` first)")
    chosen = [f for part in (formats or FORMATS) for f in part.split(",") if f.strip()]
    try:
        path = build_report(store if store is not None else scores, out, formats=chosen,
                            compare_paper=compare is not None, sdqa=sdqa, sdqa_examples=sdqa_values,
                            speakers=speakers)
    except (ReportInputError, ScoresError) as exc:
        fail(str(exc))
    except ValueError as exc:  # e.g. a speakers table without its columns
        fail(f"cannot build the report: {exc}")
    except OSError as exc:
        fail(f"{out}: cannot write the report ({exc.strerror or exc})")
    stderr.print(f"report written to {out}", highlight=False, soft_wrap=True)
    typer.echo(str(path))


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the root app."""
    app.command("report")(report_cmd)
