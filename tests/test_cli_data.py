"""`dialectbench data fetch|list|stats` end to end (mirror resolution with real data, missing-data messages)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    monkeypatch.delenv("DIALECTBENCH_DATA", raising=False)
    monkeypatch.setenv("DIALECTBENCH_CACHE", str(tmp_path / "cache"))


def _run(*args):
    return CliRunner().invoke(app, ["data", *args])


def test_fetch_dep_from_the_mirror_resolves_present_treebanks_and_names_missing_ones(shared_data):
    result = _run("fetch", "--data-dir", str(shared_data), "--task", "dep", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = {r["variety"]: r for r in json.loads(result.stdout)}
    assert len(rows) == 40
    assert rows["english"]["status"] == "mirror"
    assert rows["gheg albanian"]["status"] == "mirror"
    assert rows["standard arabic"]["status"] == "missing"  # UD_Arabic-PADT has no file in the mirror
    assert "ar_padt-ud-test.conllu" in rows["standard arabic"]["detail"]
    assert rows["african american vernacular english"]["status"] == "mirror"  # TwitterAAE all500_gold.conllu
    assert rows["eastern armenian"]["status"] == "partial"  # dev/test present, train absent
    assert "missing: standard arabic" in " ".join(result.stderr.split())


def test_fetch_from_an_empty_mirror_reports_how_to_supply_the_data(tmp_path):
    empty = tmp_path / "mirror"
    empty.mkdir()
    result = _run("fetch", "--data-dir", str(empty), "--task", "did", "--variety", "aleppo", "-f", "json")
    assert result.exit_code == 0
    (row,) = json.loads(result.stdout)
    assert row["status"] == "missing" and "MADAR" in row["detail"] and "CAMeL Lab" in row["detail"]


def test_fetch_of_a_hub_dataset_without_hub_fails_with_a_manual_route():
    result = _run("fetch", "--task", "mrc", "--variety", "egyptian arabic", "-f", "json")
    assert result.exit_code == 1
    (row,) = json.loads(result.stdout)
    assert row["status"] == "missing"
    assert "facebook/belebele" in row["detail"] and "--hub" in row["detail"]


def test_fetch_rejects_an_unknown_variety():
    result = _run("fetch", "--task", "dep", "--variety", "klingon")
    assert result.exit_code == 2 and "klingon" in result.stderr


def test_list_of_the_sample_suite():
    result = _run("list", "--sample", "--task", "pos", "--format", "json")
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert {r["status"] for r in rows} == {"sample"}
    assert {"english", "singlish"} <= {r["variety"] for r in rows}


def test_list_against_the_mirror_shows_every_status(shared_data):
    result = _run("list", "--data-dir", str(shared_data), "--task", "dep", "-f", "json")
    statuses = {(r["variety"], r["split"]): r["status"] for r in json.loads(result.stdout)}
    assert statuses[("english", "train")] == "mirror"
    assert statuses[("standard arabic", "test")] == "remote"  # a pinned GitHub URL, not on disk
    assert statuses[("african american vernacular english", "test")] == "mirror"  # TwitterAAE all500_gold
    pos = _run("list", "--data-dir", str(shared_data), "--task", "pos", "-f", "json")
    statuses = {(r["variety"], r["split"]): r["status"] for r in json.loads(pos.stdout)}
    assert statuses[("egyptian arabic", "test")] == "missing"  # QCRI: needs a conversion step, no URL


def test_stats_of_the_sample_suite_match_the_loaded_data():
    from dialectbench.data import count_tokens, open_source

    result = _run("stats", "--task", "ner", "--format", "json")
    assert result.exit_code == 0
    rows = {(r["variety"], r["split"]): r for r in json.loads(result.stdout)}
    english = open_source().load("ner", "english", "train")
    assert rows[("english", "train")]["examples"] == len(english)
    assert rows[("english", "train")]["tokens"] == sum(map(count_tokens, english))


def test_stats_on_the_mirror_use_the_real_counts(shared_data):
    result = _run("stats", "--task", "tc", "--data-dir", str(shared_data), "-f", "csv")
    assert result.exit_code == 0
    lines = [line.split(",") for line in result.stdout.strip().splitlines()]
    header, body = lines[0], lines[1:]
    rows = {(r[header.index("variety")], r[header.index("split")]): int(r[header.index("examples")]) for r in body}
    assert rows[("english", "train")] == 701 and rows[("english", "dev")] == 99 and rows[("english", "test")] == 204
    assert len(body) == 38 * 3


def _conll(heads: list[str]) -> str:
    words = "".join(f"{i}\tw{i}\tw\tNOUN\t_\t_\t{h}\tdep\t_\t_\n" for i, h in enumerate(heads, 1))
    return words + "\n"


def test_stats_go_on_past_an_unreadable_file_and_strict_fails(tmp_path):
    """A mirror built in the catalogue's layout: one readable treebank, one whose test file is malformed
    (a non-numeric HEAD: a format error) and whose train file has a self-loop (real data: kept, counted)."""
    mirror = tmp_path / "mirror"
    ewt = mirror / "ud" / "UD_English-EWT"
    sing = mirror / "extra-treebanks" / "Sing_Par" / "ACL17_dataset" / "treebank" / "gold_pos"
    for folder in (ewt, sing):
        folder.mkdir(parents=True)
    (ewt / "en_ewt-ud-test.conllu").write_text(_conll(["2", "0"]) * 3)
    (sing / "train.conll").write_text(_conll(["2", "0"]) + _conll(["0", "2"]))  # word 2 heads itself
    (sing / "test.conll").write_text(_conll(["2", "0"]) + _conll(["x", "0"]))
    result = _run("stats", "--task", "dep", "--data-dir", str(mirror), "--format", "json")
    assert result.exit_code == 0, result.output
    rows = {(r["variety"], r["split"]): r["examples"] for r in json.loads(result.stdout)}
    assert rows == {("english", "test"): 3, ("singlish", "train"): 2}
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and f"{sing / 'test.conll'}:4: HEAD 'x'" in errors[0] and "singlish" in errors[0]
    assert "1 split(s) could not be read; 2 counted" in result.stderr
    strict = _run("stats", "--task", "dep", "--data-dir", str(mirror), "--strict", "--format", "json")
    assert strict.exit_code == 1 and json.loads(strict.stdout) == json.loads(result.stdout)
