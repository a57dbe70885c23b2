"""Reports: the papers' tables (markdown, LaTeX booktabs, CSV), figures (SVG + PNG) and one static,
self-contained HTML page with a per-task leaderboard, built from a result store or any scores table.

>>> path = build_report("paper", out_dir, formats=("csv",))   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from dialectbench.report.inputs import PAPER, ReportInput, ReportInputError, load_input
from dialectbench.report.model import ReportData, build_data

FORMATS = ("md", "latex", "csv", "html")


def build_report(store_or_scores: Any, out_dir: str | Path, formats: Iterable[str] = FORMATS,
                 compare_paper: bool = False, *, sdqa: Any = None, sdqa_examples: Any = None,
                 speakers: Any = None, n_resamples: int = 1000, title: str = "dialectbench report",
                 keys: Any = None) -> Path:
    """Build the report into `out_dir` and return the path of `out_dir/index.html` (or of `out_dir/tables`
    when "html" is not among `formats`).

    store_or_scores: a result store (path to .sqlite, or an open `dialectbench.runner.Store`), a scores CSV
    path, a scores DataFrame, or "paper" (the packaged DialectBench results). formats: any of md, latex, csv,
    html (figures are always drawn: the page inlines them). compare_paper: put the published rows of seed
    000 Tables 3, 4 and 23-31 beside ours. sdqa / sdqa_examples: optional SD-QA results per dialect and
    per-example benefits (see `dialectbench.report.sdqa`). speakers: counts overriding the registry's.
    keys: with a store, only these job keys (a run reports on what it ran, not on the whole store).
    """
    from dialectbench.report.figures import all_figures
    from dialectbench.report.html import render_html
    from dialectbench.report.sdqa import load_sdqa_results
    from dialectbench.report.tables import all_tables, write_tables

    formats = _check_formats(formats)
    out = Path(out_dir)
    inp = load_input(store_or_scores, keys=keys)
    extra = load_sdqa_results(sdqa, sdqa_examples) if sdqa is not None else None
    data = build_data(inp, compare_paper=compare_paper, speakers=speakers, n_resamples=n_resamples, sdqa=extra)
    tables = all_tables(data)
    _clear_stale(out)
    write_tables(tables, out / "tables", [f for f in formats if f != "html"])
    figures = all_figures(data, out / "figures")
    if "html" in formats:
        return render_html(data, tables, figures, out, title=title)
    return out / "tables"


def _clear_stale(out: Path) -> None:
    """Remove the tables and figures an earlier build left in `out` (a task no longer in the scores
    would otherwise keep its old figure); only files of the kinds the report writes, in its subfolders."""
    for sub, kinds in (("tables", {".md", ".tex", ".csv"}), ("figures", {".svg", ".png"})):
        folder = out / sub
        if folder.is_dir():
            for path in folder.iterdir():
                if path.is_file() and path.suffix in kinds:
                    path.unlink()


def _check_formats(formats: Iterable[str]) -> list[str]:
    chosen = [str(f).strip().lower() for f in ([formats] if isinstance(formats, str) else formats)]
    unknown = [f for f in chosen if f not in FORMATS]
    if unknown or not chosen:
        raise ReportInputError(f"unknown report format(s) {', '.join(unknown) or '(none given)'}; "
                               f"choose from {', '.join(FORMATS)}")
    return chosen


__all__ = ["FORMATS", "PAPER", "ReportData", "ReportInput", "ReportInputError", "build_data", "build_report",
           "load_input"]
