"""The HTML report: self-contained, escaped (XSS), missing shown as missing; bootstrap intervals from a store;
the `run --no-report` hook's call signature."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from dialectbench.report import build_report
from dialectbench.report.html import script_json

FIXTURE = Path(__file__).parent / "fixtures" / "report" / "scores.csv"
EVIL_VARIETY = "<script>alert(1)</script>"
EVIL_MODEL = "m<img src=x onerror=alert(2)>&</script><!--"


class Collect(HTMLParser):
    """Text of <td> cells and the tags/attributes of the page."""

    def __init__(self):
        super().__init__()
        self.cells, self.tags, self._in_td, self.scripts = [], [], False, []
        self._script = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_td = tag == "td"
        if tag == "script":
            self._script = ""

    def handle_endtag(self, tag):
        if tag == "td":
            self._in_td = False
        if tag == "script" and self._script is not None:
            self.scripts.append(self._script)
            self._script = None

    def handle_data(self, data):
        if self._in_td:
            self.cells.append(data)
        if self._script is not None:
            self._script += data


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> tuple[str, Collect]:
    out = tmp_path_factory.mktemp("html")
    path = build_report(FIXTURE, out, formats=("html",), n_resamples=10)
    assert path == out / "index.html"
    text = path.read_text("utf-8")
    parser = Collect()
    parser.feed(text)
    return text, parser


def test_page_is_self_contained(page):
    _, parsed = page
    for tag, attrs in parsed.tags:
        for name in ("src", "href"):
            url = attrs.get(name) or ""
            assert not re.match(r"(https?:)?//", url), f"<{tag} {name}={url!r}> reaches the network"
    imgs = [a["src"] for t, a in parsed.tags if t == "img"]
    assert imgs and all(src.startswith("data:image/png;base64,") for src in imgs)
    assert not any(t == "link" for t, _ in parsed.tags)  # CSS is inline
    assert any(t == "select" and a.get("id") == "task-select" for t, a in parsed.tags)
    assert any(t == "input" and a.get("id") == "variety-search" for t, a in parsed.tags)


def test_missing_results_are_shown_as_missing(page):
    text, _ = page
    # pos: xlmr has no singlish result; its cell in the variety x model table is "–", sorted as missing
    table = text.split('data-key="variety_models_pos"')[1]
    row = re.search(r'<tr data-variety="singlish">(.*?)</tr>', table, re.DOTALL).group(1)
    cells = re.findall(r'<td data-sort="([^"]*)" class="([^"]*)"[^>]*>([^<]*)</td>', row)
    assert cells[-1] == ("", "num missing", "–")


def test_script_json_escapes_markup():
    out = str(script_json({"x": "</script><!--&"}))
    assert "<" not in out and ">" not in out and "&" not in out
    assert json.loads(out) == {"x": "</script><!--&"}


def test_xss_names_render_as_text(tmp_path):
    df = pd.read_csv(FIXTURE)
    evil = pd.DataFrame([{"task": "dep", "cluster": "evil <b>cluster</b> $\\undefinedmacro$", "variety": EVIL_VARIETY,
                          "model": EVIL_MODEL, "setting": "zero-shot", "train_on": "english", "metric": "uas",
                          "score": 12.5, "n": 3}])
    # "$...$" in a name must not reach matplotlib's mathtext (it would fail to draw the figure)
    text = build_report(pd.concat([df, evil]), tmp_path, formats=("html", "md"), n_resamples=10).read_text("utf-8")
    assert EVIL_VARIETY not in text and "<img src=x" not in text and "<b>cluster" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text  # shown as text in the tables
    parsed = Collect()
    parsed.feed(text)
    assert EVIL_VARIETY in parsed.cells  # the browser displays the literal name
    meta = next(s for s in parsed.scripts if '"models"' in s)
    assert "</script" not in meta and "<" not in meta and EVIL_MODEL in json.loads(meta)["models"]
    assert sum(1 for t, _ in parsed.tags if t == "script") == 2  # the meta JSON and the page's own JS, no more


def _store_with_evidence(path: Path):
    from dialectbench.runner import Store
    from dialectbench.runner.store import JobRecord

    with Store(path) as db:
        db.start_run("r1", seed=0, config={}, package_version="0", library_versions={}, git_hash=None)
        stats = [[8, 7, 10], [9, 8, 10], [5, 5, 10], [10, 9, 10]]  # UAS = 32/40 = 80.0
        common = {"task": "dep", "model": "baseline", "status": "done", "metric": "uas"}
        db.commit_job("r1", JobRecord(job_key="a", variety="english", cluster="anglic", setting="in-variety",
                                      train_on="english", score=80.0, n=4, extra={"stats": stats},
                                      example_ids=list("abcd"), predictions=[0] * 4,
                                      values=[0.8, 0.9, 0.5, 1.0], **common))
        # a score that its per-example values do not reproduce (e.g. a macro F1): no interval for it
        db.commit_job("r1", JobRecord(job_key="b", variety="singlish", cluster="anglic", setting="in-variety",
                                      train_on="singlish", score=70.0, n=3, example_ids=list("abc"),
                                      predictions=[0] * 3, values=[1.0, 0.0, 1.0], **common))
        db.finish_run("r1", "done", {})


def test_store_scores_get_bootstrap_intervals(tmp_path):
    store = tmp_path / "results.sqlite"
    _store_with_evidence(store)
    index = build_report(store, tmp_path / "report", formats=("csv", "html"), n_resamples=300)
    assert index == tmp_path / "report" / "index.html" and index.is_file()
    rows = pd.read_csv(tmp_path / "report" / "tables" / "max_scores_dep.csv").set_index("variety")
    low, high = rows.loc["english", ["ci_low", "ci_high"]]
    assert low < 80.0 < high and 50.0 <= low and high <= 100.0
    assert pd.isna(rows.loc["singlish", "ci_low"])


def test_run_hook_signature(tmp_path):
    """`dialectbench run` calls build_report(store_path, store_path.parent / "report") and prints the result."""
    store = tmp_path / "results.sqlite"
    _store_with_evidence(store)
    out = build_report(store, store.parent / "report")
    assert out.name == "index.html" and out.is_file()
    assert (store.parent / "report" / "tables" / "table3_task_summary.md").is_file()


def test_foreign_sqlite_file_is_refused_untouched(tmp_path):
    import sqlite3

    from dialectbench.report import ReportInputError

    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (x TEXT)")
    with pytest.raises(ReportInputError, match="not a dialectbench result store"):
        build_report(other, tmp_path / "r")
    with sqlite3.connect(other) as conn:  # the report added none of the store's tables to it
        assert {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")} == {"notes"}


def test_table_cells_are_ready_made_and_escaped_a_missing_one_says_so():
    """The cells reach the page pre-rendered (a 50k-score store has half a million): text escaped, the
    sort key beside it, a missing value shown as '–' with 'no result', never as 0."""
    from dialectbench.report.html import table_view
    from dialectbench.report.tables import Column, Table

    table = Table("t", "T", [Column("variety", "Variety"), Column("score", "Score", "num")],
                  [{"variety": EVIL_VARIETY, "score": 81.25}, {"variety": "b&c", "score": float("nan")}],
                  row_variety="variety")
    rows = table_view(table)["rows"]
    assert str(rows[0]["cells"]) == ('<td data-sort="&lt;script&gt;alert(1)&lt;/script&gt;" class="txt">'
                                     '&lt;script&gt;alert(1)&lt;/script&gt;</td><td data-sort="81.25" class="num">81.2</td>')
    assert str(rows[1]["cells"]) == ('<td data-sort="b&amp;c" class="txt">b&amp;c</td>'
                                     '<td data-sort="" class="num missing" title="no result">–</td>')
    assert rows[0]["variety"] == EVIL_VARIETY  # escaped by the template (autoescape)
