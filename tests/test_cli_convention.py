"""The one CLI convention (README "Command-line conventions"), read off the command tree itself: one visible
spelling per concept, each short flag one meaning, `-o/--out` a folder and `--output` a file everywhere,
`--format` on every listing command, old spellings hidden but working, and the user-facing fixes of
issue 39 item 5 (repeated options, -h, python -m, run --help at 80 columns, models, --catalogue)."""

from __future__ import annotations

import enum
import json
import os
import subprocess
import sys
import typing
from collections import defaultdict
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from dialectbench.cli.main import app

REPO = Path(__file__).resolve().parents[1]
YORKSHIRE = REPO / "examples" / "yorkshire" / "tc.yaml"

# two spellings of one concept; a visible option from each side of a pair anywhere in the CLI fails
SYNONYMS = [("--task", "--tasks"), ("--variety", "--varieties"), ("--cluster", "--clusters"),
            ("--concurrent", "--concurrency"), ("--mixed", "--mixed-model"), ("--dir", "--data-dir")]
# singular/plural names that are two concepts, by design (README): what is printed vs the report's file types
DISTINCT = {frozenset({"--format", "--formats"})}
# leaf commands that list nothing on stdout (they write a folder and print its path)
NOT_LISTING = {"report"}


def _leaves(cmd=None, path=()):
    cmd = cmd if cmd is not None else typer.main.get_command(app)
    if hasattr(cmd, "commands"):
        for name, sub in cmd.commands.items():
            yield from _leaves(sub, (*path, name))
    else:
        yield " ".join(path), cmd


def _options(cmd, hidden=False):
    return [p for p in cmd.params if p.param_type_name == "option" and bool(p.hidden) == hidden]


LEAVES = dict(_leaves())


def _stem(name: str) -> str:
    name = name.lstrip("-")
    return name[:-3] + "y" if name.endswith("ies") else name.removesuffix("s")


def test_the_tree_is_read():
    assert {"run", "plan", "varieties", "data list", "results export", "sdqa asr"} <= set(LEAVES)


def test_one_visible_spelling_per_concept():
    visible = {o for cmd in LEAVES.values() for p in _options(cmd) for o in (*p.opts, *p.secondary_opts)}
    for pair in SYNONYMS:
        assert not set(pair) <= visible, f"two visible spellings of one concept: {pair}"
    longs = sorted(o for o in visible if o.startswith("--"))
    by_stem = defaultdict(set)
    for name in longs:
        by_stem[_stem(name)].add(name)
    doubled = [names for names in by_stem.values() if len(names) > 1 and frozenset(names) not in DISTINCT]
    assert not doubled, f"singular and plural spellings of one option: {doubled}"


def test_each_short_flag_means_one_option_everywhere():
    meaning = defaultdict(set)
    for cmd in LEAVES.values():
        for p in _options(cmd):
            longs = [o for o in p.opts if o.startswith("--")]
            for short in (o for o in p.opts if not o.startswith("--")):
                meaning[short].add(longs[0] if longs else short)
    assert {s: m for s, m in meaning.items() if len(m) > 1} == {}
    assert meaning["-t"] == {"--tasks"} and meaning["-v"] == {"--varieties"} and meaning["-o"] == {"--out"}


def test_out_is_a_folder_and_output_a_file():
    for name, cmd in LEAVES.items():
        for p in _options(cmd):
            help_text = (p.help or "").lower()
            if "--out" in p.opts:
                assert "folder" in help_text, f"{name} --out: {p.help}"
            if "--output" in p.opts:
                assert "file" in help_text, f"{name} --output: {p.help}"


def test_every_listing_command_has_format_table_csv_json():
    for name, cmd in LEAVES.items():
        formats = [p for p in _options(cmd) if "--format" in p.opts]
        if name in NOT_LISTING:
            assert not formats, f"{name}: --format means table|csv|json; this command's file types are --formats"
            continue
        assert formats, f"{name} has no --format"
        assert "-f" in formats[0].opts
        annotation = formats[0].type_descriptor.annotation  # the enum behind the option (typer's own record)
        choices = next(a for a in (typing.get_args(annotation) or (annotation,)) if isinstance(a, type)
                       and issubclass(a, enum.Enum))
        assert {c.value for c in choices} == {"table", "csv", "json"}, name


def test_old_spellings_are_hidden_and_say_so():
    hidden = {o for cmd in LEAVES.values() for p in _options(cmd, hidden=True) for o in p.opts}
    assert {"--task", "--variety", "--cluster", "--concurrent", "--mixed-model"} <= hidden
    result = CliRunner().invoke(app, ["varieties", "--task", "did", "-f", "csv"])
    assert result.exit_code == 0, result.output
    assert "--task is deprecated; use --tasks" in result.stderr
    assert result.stdout == CliRunner().invoke(app, ["varieties", "--tasks", "did", "-f", "csv"]).stdout
    assert "--task " not in CliRunner().invoke(app, ["varieties", "--help"]).stdout


def test_list_options_accumulate_and_one_value_options_refuse_a_second():
    runner = CliRunner()
    both = runner.invoke(app, ["clusters", "-t", "dep", "-t", "did", "-f", "json"])
    comma = runner.invoke(app, ["clusters", "-t", "dep,did", "-f", "json"])
    assert both.exit_code == 0 and json.loads(both.stdout) == json.loads(comma.stdout)
    only_dep = json.loads(runner.invoke(app, ["clusters", "-t", "dep", "-f", "json"]).stdout)
    assert len(json.loads(both.stdout)) > len(only_dep)  # not the last one kept
    twice = runner.invoke(app, ["plan", "-m", "baseline", "-m", "mbert", "-t", "pos"])
    assert twice.exit_code == 2 and "given 2 times" in " ".join(twice.output.split())


def test_dash_h_and_python_dash_m():
    result = CliRunner().invoke(app, ["data", "list", "-h"])
    assert result.exit_code == 0 and "--tasks" in result.stdout
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-m", "dialectbench", "--version"], capture_output=True, text=True,
                          check=False, timeout=120, cwd=REPO, env=env)
    assert proc.returncode == 0 and proc.stdout.startswith("dialectbench "), proc.stderr


def test_plan_and_run_default_to_the_same_model():
    defaults = {name: next(p.default for p in _options(LEAVES[name]) if "--model" in p.opts)
                for name in ("run", "plan")}
    assert defaults == {"run": "baseline", "plan": "baseline"}


def test_run_help_is_readable_at_80_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    text = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "80"}).stdout
    assert "…" not in text  # no option name or help word cut
    assert all(len(line) <= 80 for line in text.splitlines())
    assert len(text.splitlines()) < 150  # was 270
    for name in ("--max-train-minutes", "--chat-template", "--no-chat-template", "--gen-kwargs"):
        assert name in text


def test_models_lists_hf_causal_and_keeps_ids_whole(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    text = CliRunner().invoke(app, ["models"], env={"COLUMNS": "80"}).stdout
    for whole in ("bert-base-multilingual-cased", "facebook/nllb-200-distilled-600M", "hf-causal:<id"):
        assert whole in text
    rows = json.loads(CliRunner().invoke(app, ["models", "-f", "json"]).stdout)
    assert any(r["model"].startswith("hf-causal:") for r in rows)


@pytest.mark.usefixtures("forget_user_catalogues")
@pytest.mark.parametrize("argv", [["show", "english (a:yorkshire)"], ["varieties", "-t", "tc"],
                                  ["data", "list", "-t", "tc", "--sample"], ["data", "stats", "-t", "tc"],
                                  ["plan", "-t", "tc"]])
def test_catalogue_is_honoured(argv):
    runner = CliRunner()
    mine = runner.invoke(app, [*argv, "--catalogue", str(YORKSHIRE), "-f", "json"])
    assert mine.exit_code == 0, mine.output
    assert "english (a:yorkshire)" in mine.stdout


@pytest.mark.usefixtures("forget_user_catalogues")
def test_catalogue_from_the_environment(monkeypatch):
    monkeypatch.setenv("DIALECTBENCH_CATALOGUE", str(YORKSHIRE))
    result = CliRunner().invoke(app, ["show", "english (a:yorkshire)", "-f", "json"])
    assert result.exit_code == 0 and json.loads(result.stdout)[0]["cluster"] == "anglic"


def test_run_and_data_validate_print_machine_readable_rows(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["run", "-t", "tc", "--limit", "2", "--no-report", "-o", str(tmp_path), "-f", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)  # stdout is the JSON and nothing else
    assert rows and {r["task"] for r in rows} == {"tc"} and all("job_key" in r for r in rows)
    checked = runner.invoke(app, ["data", "validate", str(YORKSHIRE), "--no-read", "-f", "json"])
    assert checked.exit_code == 0 and json.loads(checked.stdout) == [{"file": str(YORKSHIRE), "problem": None}]
