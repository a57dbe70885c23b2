"""Issue 40 item 5: `export hf` writes each task's splits as a datasets DatasetDict (save_to_disk) with a card,
loadable offline, holding exactly what the readers read."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.data.source import open_source
from dialectbench.extras import MissingExtra

datasets = pytest.importorskip("datasets")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("hf") / "export"
    result = CliRunner().invoke(app, ["export", "hf", "--out", str(out), "--format", "json"])
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


def test_every_split_loads_offline_with_the_readers_counts_per_variety(exported, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    out, summary = exported
    source = open_source(None)
    tasks = sorted({r["task"] for r in summary})
    assert len(tasks) == 11  # every task of the sample suite
    checked = 0
    for task in tasks:
        dd = datasets.load_from_disk(str(out / task))
        assert "test" in dd
        for split, ds in dd.items():
            counts = Counter(ds["variety"])
            expected = {r["variety"]: r["rows"] for r in summary if r["task"] == task and r["split"] == split}
            assert dict(counts) == expected
            for variety, n in counts.items():
                assert n == len(source.load(task, variety, split))
                checked += 1
    assert checked == len(summary)


def test_structured_tasks_keep_sequences_and_the_card_names_licences(exported):
    out, _ = exported
    pos = datasets.load_from_disk(str(out / "pos"))["test"]
    assert isinstance(pos.features["upos"], datasets.List) and isinstance(pos.features["heads"], datasets.List)
    first = pos[0]
    assert len(first["words"]) == len(first["upos"]) == len(first["heads"]) and first["lm_eval_task"].startswith(
        "dialectbench_pos_")
    ner = datasets.load_from_disk(str(out / "ner"))["test"]
    assert len(ner[0]["tokens"]) == len(ner[0]["tags"])
    card = (out / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "CC0-1.0" in card and "dialectbench_<task>_<variety slug>" in card
    assert "## sa" in card and "| tunisian arabic (r:casual) |" in card


def test_filters_and_refusals(tmp_path):
    runner = CliRunner()
    out = tmp_path / "one"
    result = runner.invoke(app, ["export", "hf", "-o", str(out), "-t", "sa", "-v", "egyptian arabic", "-f", "json"])
    assert result.exit_code == 0, result.output
    assert {r["variety"] for r in json.loads(result.stdout)} == {"egyptian arabic"}
    assert set(datasets.load_from_disk(str(out / "sa"))["test"]["variety"]) == {"egyptian arabic"}
    again = runner.invoke(app, ["export", "hf", "-o", str(out), "-t", "sa"])
    assert again.exit_code != 0 and "not an empty folder" in again.output


def test_a_missing_datasets_says_which_extra(monkeypatch, tmp_path):
    from dialectbench import extras

    monkeypatch.setattr(extras, "missing", lambda *modules: ["datasets"])
    from dialectbench.data.hf_export import export_hf

    with pytest.raises(MissingExtra, match=r"export hf needs the fetch extra: pip install 'dialectbench\[fetch\]'"):
        export_hf(open_source(None), tmp_path / "x", ["sa"])


def test_never_writes_into_the_repository():
    from pathlib import Path

    import dialectbench

    repo = Path(dialectbench.__file__).resolve().parents[2]
    if not (repo / ".git").exists():
        pytest.skip("the package does not run from a git checkout here")
    target = repo / "export-test-never-written"
    result = CliRunner().invoke(app, ["export", "hf", "-o", str(target), "-t", "sa"])
    assert result.exit_code != 0 and "inside the dialectbench repository" in " ".join(result.output.split())
    assert not target.exists()
