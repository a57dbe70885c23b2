"""Issue 25: a user catalogue under hostile or mistaken input. Every problem is one `file:line: problem` line
(no traceback, in `data validate` and `run --catalogue` alike) with the near match or the valid choices; and
nothing in a user file changes the packaged benchmark unless the file says so (a new cluster, a
representative), nor replaces packaged data."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.data import open_source, user_catalogue
from dialectbench.data.readers import arguments
from dialectbench.runner import build_plan
from dialectbench.tasks import representative

HEAD = """task: tc
description: test
datasets:
  d: {name: d, licence: CC0-1.0, citation: me}
"""
VARIETY = "varieties:\n  - {name: testish, cluster: anglic}\n"
TSV = "index_id\tcategory\ttext\n0\thealth\tsleep is good\n1\tsports\tthey won the match\n"
OPTIONS = "{text_column: text, label_column: category, id_column: index_id, header: true}"


def entry(options: str = OPTIONS, variety: str = "testish", extra: str = "") -> str:
    return f"""entries:
  - variety: {variety}
    dataset: d
    format: labelled
    options: {options}
    splits: {{test: [{{file: {{path: t.tsv}}}}]}}
{extra}"""


pytestmark = pytest.mark.usefixtures("forget_user_catalogues")


def _file(tmp_path: Path, text: str | bytes, data: dict[str, str] | None = None) -> Path:
    for name, body in {"t.tsv": TSV, **(data or {})}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body, encoding="utf-8")
    path = tmp_path / "my.yaml"
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def _problems(tmp_path: Path, text: str | bytes, data: dict[str, str] | None = None) -> list[str]:
    path = _file(tmp_path, text, data)
    problems = user_catalogue.validate_file(path)[1]
    for p in problems:  # the form every problem has
        assert re.match(rf"{re.escape(str(tmp_path))}/\S+:\d+: \S", p) and "\n" not in p and len(p) < 600, p
    return problems


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# ------------------------------------------------------------------------------------ the YAML itself
@pytest.mark.parametrize("nesting", [40, 100_000])
def test_deeply_nested_yaml_is_one_problem_with_a_line(tmp_path, nesting):
    [problem] = _problems(tmp_path, HEAD + VARIETY + entry("[" * nesting + "]" * nesting))
    assert "nested" in problem


def test_aliases_that_expand_to_billions_of_values_are_refused(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    [problem] = _problems(tmp_path, "\n".join(lines) + "\n")
    assert "more than 100,000 values" in problem


def test_a_byte_that_is_not_utf8_names_its_line(tmp_path):
    text = (HEAD + VARIETY + entry()).encode()
    at = text.index(b"dataset: d\n    format")
    [problem] = _problems(tmp_path, text[:at] + b"\xff" + text[at:])
    assert problem.startswith(f"{tmp_path / 'my.yaml'}:9:") and "not valid utf-8" in problem


@pytest.mark.parametrize("bad, problem", [
    ("\x1c", "character #x001c is not allowed in YAML"),
    ("\x00", "character #x0000 is not allowed in YAML"),
])
def test_a_control_character_names_its_line(tmp_path, bad, problem):
    text = HEAD + VARIETY + entry().replace("format: labelled", f"format: label{bad}led")
    [found] = _problems(tmp_path, text)
    assert found.startswith(f"{tmp_path / 'my.yaml'}:{_line(text, 'format:')}:") and problem in found


@pytest.mark.parametrize("path", ["d" * 300 + "/t.tsv", "a\tb.tsv", ""])
def test_a_file_name_the_system_cannot_use_is_a_schema_problem(tmp_path, path):
    text = HEAD + VARIETY + entry().replace("{path: t.tsv}", f"{{path: {json.dumps(path)}}}")
    [found] = _problems(tmp_path, text)
    assert "not a usable file name" in found and len(found) < 400


def test_two_representatives_of_one_cluster_name_both_lines(tmp_path):
    text = HEAD + """varieties:
  - {name: testish (a:north), cluster: testic, new_cluster: true, representative: true}
  - {name: testish (a:south), cluster: testic, new_cluster: true, representative: true}
""" + entry(variety="testish (a:north)")
    [found] = _problems(tmp_path, text)
    assert found.startswith(f"{tmp_path / 'my.yaml'}:7:") and "more than one representative" in found
    assert "the first on line 6" in found


def test_a_mistyped_schema_key_gets_its_near_match(tmp_path):
    text = HEAD + VARIETY.replace("varieties:", "varietes:") + entry()
    problems = _problems(tmp_path, text)
    assert any(p.startswith(f"{tmp_path / 'my.yaml'}:5:") and "did you mean 'varieties'" in p for p in problems)


# --------------------------------------------------------------------------------- reader arguments
@pytest.mark.parametrize("options, problem", [
    ("{labl_column: category, header: true}", "unknown labelled option 'labl_column'; did you mean 'label_column'"),
    ("{encoding: utf8x}", "unknown text encoding 'utf8x'; did you mean 'utf8'"),
    ("{encoding: rot13}", "unknown text encoding 'rot13'"),  # a codec, but not a text encoding
    ('{encoding: "utf\\0"}', "unknown text encoding"),
    ("{where: [category]}", "option where: expected a mapping"),
    ("{where: {category: {a: b}}}", "option where: expected a mapping"),
    ("{label_map: [a, b]}", "option label_map: expected a mapping of (a string) to (a string)"),
    ("{header: 'false'}", "option header: expected true or false"),  # a string 'false' would be true
    ("{labels: positive}", "option labels: expected a list"),
    ("{delimiter: ''}", "option delimiter"),
    ("{subset: rows.txt}", "option subset: expected a list of (an integer)"),  # a path belongs under files:
])
def test_reader_options_are_checked_against_the_readers_signature_at_their_line(tmp_path, options, problem):
    text = HEAD + VARIETY + entry(options)
    [found] = _problems(tmp_path, text)
    assert found.startswith(f"{tmp_path / 'my.yaml'}:{_line(text, 'options:')}:") and problem in found


def test_an_unknown_multiple_choice_layout_lists_the_layouts(tmp_path):
    text = HEAD.replace("task: tc", "task: mrc") + VARIETY + entry("{layout: pasages}").replace(
        "format: labelled", "format: multiple_choice")
    [found] = _problems(tmp_path, text)
    assert "expected one of 'questions', 'passages', found 'pasages'" in found


def test_an_option_in_a_part_is_named_at_the_parts_line(tmp_path):
    text = HEAD + VARIETY + entry().replace("{file: {path: t.tsv}}", "{file: {path: t.tsv}, options: {tag: 1}}")
    [found] = _problems(tmp_path, text)
    assert found.startswith(f"{tmp_path / 'my.yaml'}:{_line(text, 'splits:')}:") and "'tag'" in found


SDQA_CSV = ",ID,in XOR dev,english-gold,kenya-en-KE\n0,11,False,who?,who\n"
SQUAD = ('{"data": [{"paragraphs": [{"context": "abc", "qas": [{"id": "english-11-0", "question": "?", '
         '"answers": [{"text": "a", "answer_start": 0}]}]}]}]}')


def _sdqa(files: str, options: str = "{dialect: kenya}") -> str:
    return HEAD.replace("task: tc", "task: eqa") + VARIETY + f"""entries:
  - variety: testish
    dataset: d
    format: sdqa
    options: {options}
    splits:
      test:
      - files: {files}
"""


@pytest.mark.parametrize("files, options, problem", [
    ("{questions: {path: english.dev.csv}, contexts: {path: c.json}}", "{dialect: kenya}",
     "released SD-QA layout"),
    ("{questions: {path: s/test/eng/english.dev.csv}, contexts: {path: c.json}}", "{dialect: kenya}",
     "released SD-QA layout"),
    ("{questions: {path: s/dev/eng/english.dev.csv}, contexts: {path: c.json}, metadata: {path: m.csv}}",
     "{dialect: kenya}", "the dialect's metadata beside its question file"),
    ("{contexts: {path: c.json}}", "{dialect: kenya}", "sdqa needs the file 'questions'"),
    ("{questions: {path: s/dev/eng/english.dev.csv}, contexts: {path: c.json}}", "{}",
     "sdqa needs the option 'dialect'"),
    ("{question: {path: s/dev/eng/english.dev.csv}, contexts: {path: c.json}}", "{dialect: kenya}",
     "did you mean 'questions'"),
])
def test_sdqa_entries_outside_the_released_layout_are_named(tmp_path, files, options, problem):
    data = {"s/dev/eng/english.dev.csv": SDQA_CSV, "english.dev.csv": SDQA_CSV, "c.json": SQUAD, "m.csv": "x\n",
            "s/test/eng/english.dev.csv": SDQA_CSV}
    problems = _problems(tmp_path, _sdqa(files, options), data)
    assert any(problem in p for p in problems), problems


def test_an_sdqa_entry_in_the_released_layout_reads(tmp_path):
    data = {"s/dev/eng/english.dev.csv": SDQA_CSV, "c.json": SQUAD}
    files = "{questions: {path: s/dev/eng/english.dev.csv}, contexts: {path: c.json}}"
    assert _problems(tmp_path, _sdqa(files), data) == []


def test_a_typo_stops_validate_and_run_in_one_line_each(tmp_path):
    path = _file(tmp_path, HEAD + VARIETY + entry("{labl_column: category, header: true}"))
    for args in (["data", "validate", str(path)],
                 ["run", "--catalogue", str(path), "--store", str(tmp_path / "r.sqlite"), "--no-report"]):
        out = CliRunner().invoke(app, args)
        text = " ".join(out.output.split())
        assert out.exit_code != 0 and "Traceback" not in out.output and text.count("labl_column") == 1, text
        assert f"{path}:{_line(path.read_text(), 'options:')}:" in text and "did you mean 'label_column'" in text


def test_every_packaged_entry_passes_the_argument_check():
    """The signature-derived check and the packaged catalogues agree (else it would refuse real options)."""
    src = open_source()
    from dialectbench.data.catalogue import TASK_IDS, load_catalogue

    found = []
    for task in TASK_IDS:
        for cat in (load_catalogue(task), src.catalogues.get(task)):
            for e in cat.entries if cat else []:
                for parts in e.splits.values():
                    for part in parts:
                        found += arguments.problems(e.format, part.file_args(), {**e.options, **part.options})
    assert found == []


# ------------------------------------------------------------------------------------ silent mistakes
def test_a_variety_declared_twice_is_a_problem_not_two_new_varieties(tmp_path):
    text = HEAD + VARIETY + "  - {name: testish, cluster: anglic}\n" + entry()
    [problem] = _problems(tmp_path, text)
    assert problem.startswith(f"{tmp_path / 'my.yaml'}:7:") and "declared twice (first on line 6)" in problem


def test_an_unknown_cluster_is_a_typo_unless_the_file_says_new_cluster(tmp_path):
    text = HEAD + VARIETY.replace("anglic", "anglik") + entry()
    [problem] = _problems(tmp_path, text)
    assert "unknown cluster 'anglik'; did you mean 'anglic'" in problem and "new_cluster: true" in problem
    assert _problems(tmp_path, text.replace("cluster: anglik", "cluster: anglik, new_cluster: true")) == []
    [problem] = _problems(tmp_path, HEAD + VARIETY.replace("anglic", "anglic, new_cluster: true") + entry())
    assert "'anglic' is a DialectBench cluster, not a new one" in problem


@pytest.mark.parametrize("task, where", [("sa", "the bundled sample suite"), ("dep", "the packaged catalogue")])
def test_entries_for_a_variety_with_packaged_data_are_refused_and_never_run(tmp_path, task, where):
    text = HEAD.replace("task: tc", f"task: {task}") + entry(variety="english")
    if task == "dep":
        text = text.replace("format: labelled", "format: conllu").replace(f"options: {OPTIONS}", "options: {}")
    [problem] = [p for p in _problems(tmp_path, text) if "already has" in p]
    assert problem.startswith(f"{tmp_path / 'my.yaml'}:6:") and f"already has {task} data in {where}" in problem
    with pytest.raises(user_catalogue.UserCatalogueError, match="already has"):
        user_catalogue.use_user_catalogues([tmp_path / "my.yaml"])


def test_a_user_variety_never_becomes_a_representative_by_default(tmp_path):
    rows = "text\tlabel\n" + "".join(f"row {i}\t{'positive' if i % 2 else 'negative'}\n" for i in range(40))
    text = HEAD.replace("task: tc", "task: sa") + "varieties:\n  - {name: english (a:yorkshire), cluster: anglic}\n"
    text += entry("{header: true, text_column: text, label_column: label}", "english (a:yorkshire)").replace(
        "splits: {test:", "splits: {train: [{file: {path: t.tsv}}], test:")
    user_catalogue.use_user_catalogues([_file(tmp_path, text, {"t.tsv": rows})])
    with pytest.raises(LookupError):  # anglic has no Table 9 representative for sa; a user row set is not one
        representative("anglic", "sa")
    plan = build_plan(user_catalogue.with_user_data(open_source()), model="baseline", tasks=["sa"],
                      varieties=["english", "english (a:yorkshire)"], settings=["in-cluster"])
    assert [j for j in plan.jobs if j.setting == "in-cluster"] == []
    assert any("representative" in s.reason for s in plan.skips)


def test_a_declared_representative_is_used_and_the_run_says_so(tmp_path):
    text = HEAD + """varieties:
  - {name: testish (a:north), cluster: testic, new_cluster: true, representative: true}
  - {name: testish (a:south), cluster: testic, new_cluster: true}
entries:
  - {variety: testish (a:north), dataset: d, format: labelled, options: OPTIONS,
     splits: {train: [{file: {path: t.tsv}}], test: [{file: {path: t.tsv}}]}}
  - {variety: testish (a:south), dataset: d, format: labelled, options: OPTIONS,
     splits: {test: [{file: {path: t.tsv}}]}}
""".replace("OPTIONS", OPTIONS)
    path = _file(tmp_path, text, {"t.tsv": TSV * 3})
    out = CliRunner().invoke(app, ["run", "--catalogue", str(path), "-t", "tc", "--clusters", "testic",
                                   "--settings", "in-cluster", "--out", str(tmp_path / "out"), "--no-report"])
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert "testish (a:north)" in text and "in-cluster training source of cluster testic" in text
