"""The light core install and its extras (issue 27): what each extra holds, the one line a command prints
when it needs a missing one, and a baseline run that imports none of them."""

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dialectbench import extras
from dialectbench.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
OPTIONAL = set(extras.EXTRA_OF)  # every library an extra holds (import name = distribution name here)


def _names(requirements):
    return {re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", r).group() for r in requirements}


def test_each_library_is_in_its_extra_and_not_in_the_core():
    groups = PYPROJECT["optional-dependencies"]
    assert not OPTIONAL & _names(PYPROJECT["dependencies"])
    assert "torch" in _names(PYPROJECT["dependencies"])  # the baseline parser is a torch BiLSTM
    for module, extra in extras.EXTRA_OF.items():
        assert module in _names(groups[extra]), (module, extra)
    every = {e for r in groups["all"] for e in r.split("[")[1].rstrip("]").split(",")}
    assert set(extras.EXTRA_OF.values()) | {"minilm", "ray"} <= every
    tested = {e for r in groups["test"] if r.startswith("dialectbench[") for e in r[13:].rstrip("]").split(",")}
    # the README's test command installs what tests import; fetch only reaches the hub, which tests never do
    assert set(extras.EXTRA_OF.values()) - {"fetch"} <= tested
    assert "fetch" not in tested


def test_hint_names_the_extras_to_install():
    assert extras.install_hint("sdqa demo", ["pocketsphinx"]) == (
        "sdqa demo needs the speech extra: pip install 'dialectbench[speech]'")
    assert extras.install_hint("sdqa asr --backend whisper", ["soundfile", "transformers"]) == (
        "sdqa asr --backend whisper needs the hf and speech extras: pip install 'dialectbench[hf,speech]'")


def test_the_fetch_extra_holds_the_hub_libraries():
    assert extras.install_hint("X: fetching a/b", ["datasets"]) == (
        "X: fetching a/b needs the fetch extra: pip install 'dialectbench[fetch]'")
    assert {"huggingface_hub", "datasets"} <= _names(PYPROJECT["optional-dependencies"]["fetch"])


def test_require_raises_only_for_a_missing_library(monkeypatch):
    extras.require("x", "json")  # installed: nothing happens
    monkeypatch.setattr(extras, "missing", lambda *modules: [m for m in modules if m == "statsmodels"])
    with pytest.raises(extras.MissingExtra, match=r"needs the stats extra: pip install 'dialectbench\[stats\]'"):
        extras.require("sdqa qa --mixed-model", "statsmodels")


@pytest.mark.parametrize(("model", "extra"), [("mbert", "hf"), ("hf:/some/folder", "hf"),
                                              ("llm:http://user:secret@127.0.0.1:9/v1", "llm")])
def test_run_with_a_model_whose_extra_is_missing_says_which_in_one_line(tmp_path, monkeypatch, model, extra):
    monkeypatch.setattr(extras, "missing", lambda *modules: list(modules))
    result = CliRunner().invoke(app, ["run", "--model", model, "--tasks", "sa", "--store",
                                      str(tmp_path / "s.sqlite"), "--no-report"], env={"COLUMNS": "40"})
    assert result.exit_code == 2
    errors = [ln for ln in result.output.splitlines() if ln.startswith("error:")]
    flag = model.partition(":")[0] + (":..." if ":" in model else "")
    # one line, [extra] printed as text (not eaten as rich markup), no credentials from the URL
    assert errors == [f"error: --model {flag} needs the {extra} extra: pip install 'dialectbench[{extra}]'"]
    assert "secret" not in result.output and not (tmp_path / "s.sqlite").exists()


def test_sdqa_goldp_mixed_model_says_which_extra(tmp_path, monkeypatch):
    monkeypatch.setattr(extras, "missing", lambda *modules: [m for m in modules if m == "statsmodels"])
    result = CliRunner().invoke(app, ["sdqa", "goldp", "--data-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "needs the stats extra: pip install 'dialectbench[stats]'" in result.output
    assert "--no-mixed" in result.output


def test_a_baseline_run_and_its_report_import_no_extra(tmp_path):
    """With every optional library made unimportable (here and in the run's worker processes), the
    baseline run on the sample suite and its report still work: the core install is enough."""
    blocked = tmp_path / "blocked"
    for module in OPTIONAL:
        (blocked / module).mkdir(parents=True)
        (blocked / module / "__init__.py").write_text(f"raise ImportError('{module} is an extra')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocked), str(ROOT / "src")]), "COLUMNS": "100"}
    proc = subprocess.run([sys.executable, "-m", "dialectbench.cli.main", "run", "--tasks", "sa,tc",
                           "--out", str(tmp_path / "out")], env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert list((tmp_path / "out" / "runs").glob("*/report/index.html"))
