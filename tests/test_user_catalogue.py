"""Issue 17: datasets by config outside the package (`--catalogue`, `data validate`), and name lookup by
common names, ISO codes, Glottocodes and dataset codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.data import user_catalogue
from dialectbench.runner import Store, run
from dialectbench.varieties import UnknownVarietyError, registry

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "yorkshire"


pytestmark = pytest.mark.usefixtures("forget_user_catalogues")


def _problems(text: str, tmp_path: Path, files: dict[str, str] | None = None) -> list[str]:
    for name, body in (files or {}).items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    path = tmp_path / "my.yaml"
    path.write_text(text, encoding="utf-8")
    return user_catalogue.validate_file(path)[1]


HEAD = """task: tc
description: test
datasets:
  d: {name: d, licence: CC0-1.0, citation: me}
"""
TSV = "index_id\tcategory\ttext\n0\thealth\tsleep is good\n1\tsports\tthey won the match\n"


def test_the_readme_example_validates_and_runs_beside_the_standard_variety(tmp_path):
    cat, problems = user_catalogue.validate_file(EXAMPLE / "tc.yaml")
    assert problems == [] and cat.varieties[0].name == "english (a:yorkshire)"
    user_catalogue.use_user_catalogues([EXAMPLE / "tc.yaml"])
    assert registry().get("english (a:yorkshire)").cluster == "anglic"
    result = run(tasks=["tc"], varieties=["english", "english (a:yorkshire)"], store=tmp_path / "r.sqlite")
    with Store(result.store) as db:
        rows = {(r["variety"], r["setting"]): r for r in db.scores()}
    mine = rows[("english (a:yorkshire)", "in-cluster")]
    assert mine["n"] == 16 and mine["train_on"] == "english" and mine["cluster"] == "anglic"
    assert ("english", "in-cluster") in rows


def test_a_new_cluster_with_its_representative(tmp_path):
    for name in ("a.tsv", "b.tsv"):
        (tmp_path / name).write_text(TSV * 3, encoding="utf-8")
    (tmp_path / "my.yaml").write_text(HEAD + """varieties:
  - {name: testish (a:north), cluster: testic, new_cluster: true, representative: true, speakers: 10}
  - {name: testish (a:south), cluster: testic, new_cluster: true}
entries:
  - variety: testish (a:north)
    dataset: d
    format: labelled
    options: {text_column: text, label_column: category, id_column: index_id, header: true}
    splits: {train: [{file: {path: a.tsv}}], test: [{file: {path: b.tsv}}]}
  - variety: testish (a:south)
    dataset: d
    format: labelled
    options: {text_column: text, label_column: category, id_column: index_id, header: true}
    splits: {test: [{file: {path: b.tsv}}]}
""", encoding="utf-8")
    user_catalogue.use_user_catalogues([tmp_path / "my.yaml"])
    assert "testic" in registry().clusters()
    result = run(tasks=["tc"], clusters=["testic"], settings=["in-cluster"], store=tmp_path / "r.sqlite")
    assert {(j.variety, j.train_on) for j in result.plan.jobs} == {("testish (a:north)", "testish (a:north)"),
                                                                    ("testish (a:south)", "testish (a:north)")}


def test_problems_carry_file_and_line(tmp_path):
    text = HEAD + """varieties:
  - {name: Testish (A:North), cluster: anglic}
entries:
  - variety: testish (a:north)
    dataset: d
    format: labeled
    splits: {test: [{file: {path: t.tsv}}]}
"""
    problems = _problems(text, tmp_path)
    assert len(problems) == 1 and problems[0].startswith(f"{tmp_path / 'my.yaml'}:10:") and "format" in problems[0]
    text = text.replace("labeled", "labelled")
    problems = _problems(text, tmp_path)
    assert any(p.startswith(f"{tmp_path / 'my.yaml'}:6:") and "'testish (a:north)'" in p for p in problems)
    assert any(":11:" in p and "t.tsv: no such file" in p for p in problems)


def test_unknown_variety_and_clash_with_the_packaged_catalogue(tmp_path):
    text = HEAD + """entries:
  - variety: swiss germna
    dataset: d
    format: labelled
    splits: {test: [{file: {path: t.tsv}}]}
  - variety: english
    dataset: d
    format: labelled
    splits: {test: [{file: {path: t.tsv}}]}
"""
    problems = _problems(text, tmp_path, {"t.tsv": TSV})
    assert any(":6:" in p and "unknown variety 'swiss germna'" in p and "central alemannic" in p for p in problems)
    assert any(":10:" in p and "already has tc data in the packaged catalogue" in p for p in problems)


def test_data_is_read_by_validate(tmp_path):
    text = HEAD + """varieties:
  - {name: testish, cluster: anglic}
entries:
  - variety: testish
    dataset: d
    format: labelled
    options: {text_column: text, label_column: category, id_column: index_id, header: true}
    splits: {test: [{file: {path: t.tsv}}]}
"""
    problems = _problems(text, tmp_path, {"t.tsv": "index_id\tcategory\ttext\n0\thealth\n"})
    assert len(problems) == 1 and "t.tsv:2" in problems[0]


def test_data_validate_cli(tmp_path):
    ok = CliRunner().invoke(app, ["data", "validate", str(EXAMPLE / "tc.yaml")])
    assert ok.exit_code == 0 and "ok (tc: 1 entry, 1 new variety)" in " ".join(ok.output.split())
    shutil.copy(EXAMPLE / "tc.yaml", tmp_path / "tc.yaml")  # its test.tsv is not beside the copy
    bad = CliRunner().invoke(app, ["data", "validate", str(tmp_path / "tc.yaml")])
    assert bad.exit_code == 1 and "test.tsv: no such file" in " ".join(bad.output.split())


def test_run_reads_the_environment_variable(tmp_path, monkeypatch):
    monkeypatch.setenv(user_catalogue.ENV_CATALOGUE, str(EXAMPLE / "tc.yaml"))
    out = CliRunner().invoke(app, ["run", "-t", "tc", "-v", "english (a:yorkshire)", "--settings", "in-cluster",
                                   "--out", str(tmp_path), "--no-report"])
    assert out.exit_code == 0, out.output
    doc = json.loads(next((tmp_path / "runs").glob("*/results.json")).read_text())
    assert [(j["variety"], j["status"]) for j in doc["jobs"]] == [("english (a:yorkshire)", "done")]


def test_a_broken_catalogue_stops_the_run_in_one_line(tmp_path):
    (tmp_path / "my.yaml").write_text("task: tc\ndescription: x\n", encoding="utf-8")
    out = CliRunner().invoke(app, ["run", "--catalogue", str(tmp_path / "my.yaml"), "--store",
                                   str(tmp_path / "r.sqlite")])
    assert out.exit_code == 2 and "my.yaml:1" in out.output and "Traceback" not in out.output


@pytest.mark.parametrize(("name", "canonical"), [
    ("swiss german", "central alemannic"), ("Swiss German", "central alemannic"), ("gsw", "central alemannic"),
    ("AAVE", "african american vernacular english"), ("Singlish", "singlish"), ("MSA", "standard arabic"),
    ("swis1247", "central alemannic"), ("aeb_Arab", "tunisian arabic"), ("UD_English-EWT", "english"),
    ("swiss-dialects:ZH", "central alemannic (a:zh)")])
def test_other_names_find_the_variety(name, canonical):
    assert registry().get(name).name == canonical


def test_shared_codes_are_ambiguous_and_misspellings_are_suggested_by_meaning():
    with pytest.raises(UnknownVarietyError, match="names 2 varieties") as err:
        registry().get("indi1255")
    assert set(err.value.suggestions) == {"indian english (a:north)", "indian english (a:south)"}
    with pytest.raises(UnknownVarietyError) as err:
        registry().get("swiss germna")
    assert err.value.suggestions[0] == "central alemannic"


def test_every_alias_names_a_registry_variety():
    from dialectbench.varieties.aliases import COMMON_NAMES, ISO_CODES

    assert [t for t in {**COMMON_NAMES, **ISO_CODES}.values() if t not in registry()] == []


def test_show_accepts_a_common_name():
    out = CliRunner().invoke(app, ["show", "swiss german", "--format", "json"])
    assert out.exit_code == 0 and json.loads(out.stdout)[0]["name"] == "central alemannic"
