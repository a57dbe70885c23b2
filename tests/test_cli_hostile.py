"""CLI input and output at the edges: an unknown model name is refused with near matches (as a task is),
a missing input file is one line, help texts keep their brackets, and narrow tables never split a number
or a code (a Glottocode) inside its cell."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app


def _run(*args: str, columns: str = "80"):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": columns})


def _one_error_line(result) -> str:
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.output, result.output
    return lines[0]


@pytest.mark.parametrize(("model", "said"), [("mbret", "did you mean: mbert?"), ("mbert,xlmrr", "did you mean: xlmr?"),
                                             ("hf", "'hf:<model id>'"), ("mbert:extra", "takes no argument")])
def test_plan_refuses_an_unknown_model_with_near_matches(model, said):
    result = _run("plan", "--model", model, "--tasks", "pos", "--format", "json")
    assert said in _one_error_line(result)
    assert result.stdout == ""  # no jobs planned for a model that does not exist


def test_plan_of_a_known_model_still_plans():
    result = _run("plan", "--model", "baseline", "--tasks", "pos", "--format", "json")
    assert result.exit_code == 0 and json.loads(result.stdout)


def test_perturb_of_a_missing_or_folder_input_is_one_line(tmp_path):
    line = _one_error_line(_run("perturb", "-i", str(tmp_path / "missing.conllu"), "--output", str(tmp_path / "o"),
                                "--profile", "aave"))
    assert "no such file" in line and "missing.conllu" in line
    assert "is not a file" in _one_error_line(_run("perturb", "-i", str(tmp_path), "--output", str(tmp_path / "o"),
                                                   "--profile", "aave"))


def test_run_help_keeps_the_install_extra_in_brackets():
    help_text = " ".join(_run("run", "--help", columns="200").stdout.split())
    assert "pip install 'dialectbench[ray]'" in help_text


@pytest.mark.parametrize("columns", ["60", "80"])
def test_narrow_varieties_table_keeps_codes_and_numbers_whole(columns):
    rows = json.loads(_run("varieties", "--format", "json").stdout)
    table = _run("varieties", columns=columns)
    assert table.exit_code == 0
    assert max(len(ln) for ln in table.stdout.splitlines()) <= int(columns)
    cells = set(re.findall(r"[^\s│┃]+", table.stdout))
    for row in rows:
        if row["glottocode"]:
            assert row["glottocode"] in cells, row
        assert str(row["speakers"]) in cells or row["speakers"] is None, row


@pytest.mark.parametrize("columns", ["60", "200"])
def test_a_model_name_with_an_emoji_code_prints_as_typed(columns):
    # rich turns ':x:' into an emoji: 'hf-causal:x: 33 jobs' printed as 'hf-causal❌ 33 jobs'
    result = _run("plan", "--settings", "icl", "--model", "hf-causal:x", "--tasks", "sa", columns=columns)
    assert result.exit_code == 0, result.output
    assert "hf-causal:x:" in result.stderr and "\u274c" not in result.output, result.output
    assert "hf-causal:x" in result.stdout  # the table title names it too


def _visible_options(words: list[str]) -> tuple[str, set[str]]:
    import typer.main

    cmd = typer.main.get_command(app)
    path = []
    for w in words:
        if not hasattr(cmd, "commands") or w not in cmd.commands:
            break
        cmd, path = cmd.commands[w], [*path, w]
    return " ".join(path), {o for p in cmd.params if not getattr(p, "hidden", False) for o in p.opts}


def test_commands_that_messages_suggest_use_the_current_spellings():
    # the hints said `data fetch --task sa --variety "..."`: spellings that now print a deprecation note
    from types import SimpleNamespace

    from dialectbench.data.catalogue.models import FileRef, HFFile
    from dialectbench.data.source import _fetch_hint, how_to_obtain

    hints = [_fetch_hint("sa"),
             how_to_obtain("sa", "tunisian arabic", SimpleNamespace(obtain=None), FileRef(path="a/b", url="https://x/y"),
                           "file"),
             how_to_obtain("sa", "tunisian arabic", SimpleNamespace(obtain=None),
                           FileRef(path="a/b", hf=HFFile(repo="o/r", revision="main", file="f")), "file")]
    for hint in hints:
        for command in re.findall(r"`dialectbench ([^`]+)`", hint):
            path, visible = _visible_options(command.split())
            used = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", command))
            assert path and used and used <= visible, (hint, used - visible)


@pytest.mark.parametrize("columns", ["60", "64", "80"])
def test_a_table_too_narrow_for_its_box_drops_the_rules_not_the_words(columns, monkeypatch, capsys):
    # the run's headline at 60 columns read 'in-var|iety', 'baselin|e' and '100.|0' in a boxed table
    from dialectbench.cli.output import Format, emit

    monkeypatch.setenv("COLUMNS", columns)
    rows = [{"task": t, "setting": s, "model": m, "metric": x, "mean": v, "spread": sp, "n": n}
            for t, s, m, x, v, sp, n in [("mt-dialect", "in-variety", "baseline", "macro_f1", 100.0,
                                          "sd 44.1 over varieties", 5),
                                         ("sa", "zero-shot", "copy", "accuracy", 67.91, "±0.00 (item SE)", 12)]]
    emit(rows, Format.table, title="headline")
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= int(columns)
    for word in ("mt-dialect", "in-variety", "baseline", "macro_f1", "accuracy", "100.00", "67.91", "varieties"):
        assert re.search(rf"(^|\s){re.escape(word)}(\s|$)", out, re.MULTILINE), (word, out)


def test_a_run_refused_before_planning_prints_its_error_line_only(tmp_path):
    # the progress bar, started and stopped empty, printed a blank line above the error
    result = _run("run", "--synthetic", "aavee", "--tasks", "pos", "--out", str(tmp_path / "o"))
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: unknown profile 'aavee'"), repr(result.stderr)


def test_the_command_listing_flows_each_docstring_as_one_text():
    # typer's rich mode kept the docstring's line breaks: '(Tables 23-31) and' | 'dialect gaps (Table 4)'
    result = _run("-h", columns="250")
    assert result.exit_code == 0, result.output
    assert "(Tables 23-31) and dialect gaps (Table 4)" in result.stdout, result.stdout
    assert "between-group, with each group's within" in result.stdout, result.stdout
