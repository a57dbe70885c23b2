"""Issue 39 items 1-2: task behaviour declared on the task's kind, and a new task of an existing kind
declared in a user catalogue (YAML alone) that run, results, analyze and report treat like a packaged one."""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dialectbench import tasks
from dialectbench.data import user_catalogue
from dialectbench.tasks import KINDS, MT_TASKS, TASK_IDS, TASKS, kind_of

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "dialectbench"
EXAMPLE = ROOT / "examples" / "formality"


def test_every_task_declares_a_kind_and_the_ids_come_from_that_one_declaration():
    declared = yaml.safe_load((SRC / "tasks" / "tasks.yaml").read_text(encoding="utf-8"))
    assert TASK_IDS == tuple(e["id"] for e in declared)
    assert all(e["kind"] in KINDS for e in declared)
    assert MT_TASKS == tuple(e["id"] for e in declared if e["kind"] == "translation") == ("mt-dialect", "mt-region")
    assert kind_of("dep").trees_only and kind_of("did").pools_cluster and kind_of("mt-dialect").pseudo_references
    assert not any(kind_of(t).trees_only for t in TASK_IDS if t != "dep")


@pytest.mark.parametrize("path", ["runner/local_executor.py", "runner/invalid.py", "metrics/tasks.py",
                                  "analysis/scores_io.py", "data/catalogue/models.py", "backends/hf/backend.py",
                                  "runner/plan.py"])
def test_no_copy_of_the_task_ids_and_no_executor_branch_on_a_task_id(path):
    text = (SRC / path).read_text(encoding="utf-8")
    assert not re.search(r"^(TASK_IDS|MT_TASKS)\s*=", text, re.MULTILINE), f"{path} keeps its own copy of the task ids"
    if path in ("runner/local_executor.py", "runner/invalid.py"):
        # the executor asks the task's kind; a literal task id in a comparison would be a branch on it
        assert not re.search(r"""(==|!=|in|startswith\()\s*\(?["'](dep|pos|ner|did|sa|tc|nli|mrc|eqa|mt)[-"']""", text)


def test_catalogue_descriptions_say_what_tasks_yaml_declares():
    from dialectbench.data.catalogue import load_catalogue

    for task in TASK_IDS:
        description = load_catalogue(task).description
        assert f"({TASKS[task].scored_by})" in description, (task, description)
    assert "(accuracy)" in load_catalogue("sa").description  # it said macro F1; SA scores accuracy
    assert "(macro F1)" in load_catalogue("mrc").description  # it said accuracy/F1


def _write(tmp_path: Path, new_task: str, label: str = "formal") -> Path:
    shutil.copy(EXAMPLE / "english-test.tsv", tmp_path / "test.tsv")
    (tmp_path / "train.tsv").write_text(f"id\tlabel\ttext\n0\t{label}\tDear Sir\n1\tinformal\thiya\n",
                                        encoding="utf-8")
    path = tmp_path / "my.yaml"
    path.write_text(f"""task: register
new_task:
{new_task}
description: test
datasets:
  d: {{name: d, licence: CC0-1.0, citation: me}}
entries:
  - variety: english
    dataset: d
    format: labelled
    options: {{text_column: text, label_column: label, id_column: id, header: true}}
    splits:
      train: [{{file: {{path: train.tsv}}}}]
      test: [{{file: {{path: test.tsv}}}}]
""", encoding="utf-8")
    return path


GOOD = "  kind: classification\n  name: Register\n  metric: accuracy\n  labels: [formal, informal]"


@pytest.mark.usefixtures("forget_user_catalogues")
@pytest.mark.parametrize(("spec", "label", "problem"), [
    (GOOD, "formal", None),
    (GOOD.replace("classification", "parsing"), "formal", "kind 'parsing' cannot be declared"),
    (GOOD.replace("accuracy", "bleu"), "formal", "a classification task scores accuracy or macro_f1, not 'bleu'"),
    (GOOD + "\n  settings: [few-shot]", "formal", "unknown setting"),
    (GOOD, "formel", r"my.yaml:\d+: english train: label\(s\) 'formel' not in the task's labels"),
])
def test_a_declared_task_is_checked_with_its_line(tmp_path, spec, label, problem):
    cat, problems = user_catalogue.validate_file(_write(tmp_path, spec, label))
    if problem is None:
        assert problems == [] and cat.task_spec().kind == "classification"
        assert "register" not in TASKS  # validating registers nothing
    else:
        assert len(problems) == 1 and re.search(problem, problems[0]), problems
        assert re.match(r".*my\.yaml:\d+: ", problems[0])


@pytest.mark.usefixtures("forget_user_catalogues")
def test_a_packaged_task_cannot_be_redeclared_and_reset_forgets_a_declared_one(tmp_path):
    path = _write(tmp_path, GOOD)
    path.write_text(path.read_text(encoding="utf-8").replace("task: register", "task: sa"), encoding="utf-8")
    assert "packaged task" in user_catalogue.validate_file(path)[1][0]
    user_catalogue.use_user_catalogues([_write(tmp_path, GOOD)])
    assert kind_of("register").name == "classification" and "register" in tasks.task_ids()
    user_catalogue.reset()
    assert "register" not in TASKS and "register" not in tasks.task_ids()
    with pytest.raises(tasks.UnknownTaskError):
        kind_of("register")


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    main = "import sys; from dialectbench.cli.main import app; sys.argv[0] = 'dialectbench'; app()"
    return subprocess.run([sys.executable, "-c", main, *args], capture_output=True, text=True,
                          env=env, timeout=600, check=False)


def test_the_formality_example_runs_end_to_end_through_the_cli(tmp_path):
    """run, results export, analyze and report on a task that exists only in examples/formality."""
    env = {**os.environ, "PYTHONPATH": str(SRC.parent), "COLUMNS": "200"}
    env.pop(user_catalogue.ENV_CATALOGUE, None)
    store = tmp_path / "out" / "results.sqlite"
    catalogue = str(EXAMPLE / "formality.yaml")
    ran = _cli("run", "--catalogue", catalogue, "-t", "formality", "--out", str(tmp_path / "out"), env=env)
    assert ran.returncode == 0, ran.stderr[-3000:]
    exported = _cli("results", "export", "--store", str(store), "-f", "csv", env=env)
    assert exported.returncode == 0, exported.stderr
    rows = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert {(r["variety"], r["setting"], r["train_on"]) for r in rows} == {
        ("english", "in-variety", "english"), ("english", "zero-shot", "english"),
        ("english (a:scotland)", "in-variety", "english (a:scotland)"),
        ("english (a:scotland)", "zero-shot", "english")}
    assert {(r["task"], r["metric"], r["n"]) for r in rows} == {("formality", "macro_f1", "10")}
    scores = tmp_path / "scores.csv"
    scores.write_text(exported.stdout, encoding="utf-8")
    analyzed = _cli("analyze", str(scores), "-o", str(tmp_path / "an"), "-f", "csv", "--catalogue", catalogue,
                    env=env)
    assert analyzed.returncode == 0, analyzed.stderr
    assert "formality" in (tmp_path / "an" / "task_summary.csv").read_text(encoding="utf-8")
    # without its catalogue the task is unknown, and the error says where it would come from
    unknown = _cli("analyze", str(scores), "-o", str(tmp_path / "an2"), env=env)
    assert unknown.returncode != 0 and "--catalogue" in unknown.stderr
    reported = _cli("report", "--store", str(store), "-o", str(tmp_path / "rep"), "--catalogue", catalogue, env=env)
    assert reported.returncode == 0, reported.stderr
    assert "formality" in (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")


def _conllu(sentences: list[list[tuple[str, str]]]) -> str:
    """CoNLL-U of (word, tag) sentences: a flat tree (every word headed by the first), as a tagger reads it."""
    blocks = []
    for n, words in enumerate(sentences):
        rows = [f"{i}\t{w}\t{w}\t{t}\t_\t_\t{0 if i == 1 else 1}\t{'root' if i == 1 else 'dep'}\t_\t_"
                for i, (w, t) in enumerate(words, 1)]
        blocks.append(f"# sent_id = s{n}\n" + "\n".join(rows) + "\n")
    return "\n".join(blocks) + "\n"


def _tagging_task(tmp_path: Path, labels: str = "[INTJ, DET, ADJ, NOUN, VERB, PUNCT]") -> Path:
    """A tagging task of our own (coarse word classes) for English and Scottish English, built here."""
    dets = {"english": ["the", "a"], "english (a:scotland)": ["the", "yon"]}
    adjs = {"english": ["little", "big"], "english (a:scotland)": ["wee", "muckle"]}
    nouns = {"english": ["child", "dog", "house"], "english (a:scotland)": ["bairn", "dug", "hoose"]}
    verbs = ["sleeps", "runs"]
    entries = []
    for variety, short in (("english", "en"), ("english (a:scotland)", "sco")):
        och = [("och", "INTJ")] if short == "sco" else []  # a tag English never has
        sents = [[*och, (d, "DET"), (a, "ADJ"), (n, "NOUN"), (v, "VERB"), (".", "PUNCT")]
                 for d in dets[variety] for a in adjs[variety] for n in nouns[variety] for v in verbs]
        (tmp_path / f"{short}-train.conllu").write_text(_conllu(sents[::2]), encoding="utf-8")
        (tmp_path / f"{short}-test.conllu").write_text(_conllu(sents[1::2]), encoding="utf-8")
        entries.append(f"""  - variety: {variety}
    dataset: words
    format: conllu
    splits:
      train: [{{file: {{path: {short}-train.conllu}}}}]
      test: [{{file: {{path: {short}-test.conllu}}}}]
""")
    path = tmp_path / "wordclass.yaml"
    path.write_text(f"""task: wordclass
new_task:
  kind: tagging
  name: Coarse word classes
  metric: f1
  labels: {labels}
  settings: [in-variety, zero-shot]
description: coarse word classes (a test's own sentences)
datasets:
  words: {{name: word classes, licence: CC0-1.0, citation: dialectbench tests}}
entries:
{"".join(entries)}""", encoding="utf-8")
    return path


@pytest.mark.usefixtures("forget_user_catalogues")
def test_a_declared_tagging_task_checks_its_tags_against_the_label_set(tmp_path):
    cat, problems = user_catalogue.validate_file(_tagging_task(tmp_path))
    assert problems == [] and cat.task_spec().protocol.name == "tagging"
    _, problems = user_catalogue.validate_file(_tagging_task(tmp_path, "[INTJ, DET, NOUN, VERB, PUNCT]"))
    assert problems and all(re.match(r".*wordclass\.yaml:\d+: .*label\(s\) 'ADJ' not in the task's labels", p)
                            for p in problems), problems


def test_a_declared_tagging_task_runs_end_to_end_with_the_crf_baseline(tmp_path):
    """A task of the tagging kind, declared in YAML alone: trained by the CRF (the baseline of its kind),
    scored by UPOS F1, and flagged like POS (its kind's flags, not an id's)."""
    env = {**os.environ, "PYTHONPATH": str(SRC.parent), "COLUMNS": "200"}
    env.pop(user_catalogue.ENV_CATALOGUE, None)
    catalogue = str(_tagging_task(tmp_path))
    ran = _cli("run", "--catalogue", catalogue, "-t", "wordclass", "--out", str(tmp_path / "out"), env=env)
    assert ran.returncode == 0, ran.stderr[-3000:]
    exported = _cli("results", "export", "--store", str(tmp_path / "out" / "results.sqlite"), "-f", "csv", "--all",
                    env=env)
    assert exported.returncode == 0, exported.stderr
    rows = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert {(r["variety"], r["setting"]) for r in rows} == {
        ("english", "in-variety"), ("english", "zero-shot"), ("english (a:scotland)", "in-variety"),
        ("english (a:scotland)", "zero-shot")}
    assert {(r["task"], r["metric"], r["n"]) for r in rows} == {("wordclass", "f1", "12")}
    by = {(r["variety"], r["setting"]): r for r in rows}
    assert by[("english", "in-variety")]["signature"].startswith("pos-f1|")  # scored as POS is
    # zero-shot, trained on English, which never tags INTJ: every Scottish sentence has it, 1 token in 6
    # (a tagging kind's unseen_labels flag, with the token share)
    assert ("100.0% of test examples (16.7% of tokens) have labels unseen in training (INTJ)"
            in by[("english (a:scotland)", "zero-shot")]["flags"])
    assert "unseen" not in by[("english (a:scotland)", "in-variety")]["flags"]


def test_a_declared_multiple_choice_task_runs_with_the_option_overlap_baseline(tmp_path):
    """A multiple-choice task declared in YAML alone (the sample suite's own Belebele-style records, copied
    here): trained by the option-overlap baseline of its kind and scored as MRC is (macro F1 over options)."""
    sample = SRC / "data" / "sample" / "mrc"
    for split in ("train", "test"):
        shutil.copy(sample / f"eng_Latn-{split}.json", tmp_path / f"{split}.json")
    path = tmp_path / "quiz.yaml"
    path.write_text("""task: quiz
new_task: {kind: multiple-choice, name: Quiz, metric: macro_f1}
description: a quiz
datasets:
  q: {name: q, licence: CC0-1.0, citation: dialectbench sample suite}
entries:
  - variety: english
    dataset: q
    format: multiple_choice
    splits:
      train: [{file: {path: train.json}}]
      test: [{file: {path: test.json}}]
""", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(SRC.parent), "COLUMNS": "200"}
    env.pop(user_catalogue.ENV_CATALOGUE, None)
    ran = _cli("run", "--catalogue", str(path), "-t", "quiz", "--out", str(tmp_path / "out"), env=env)
    assert ran.returncode == 0, ran.stderr[-3000:]
    exported = _cli("results", "export", "--store", str(tmp_path / "out" / "results.sqlite"), "-f", "csv", "--all",
                    env=env)
    rows = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert [(r["task"], r["variety"], r["setting"], r["metric"]) for r in rows] == [
        ("quiz", "english", "in-variety", "macro_f1")]
    assert rows[0]["signature"].startswith("multiple-choice|classification|primary:macro_f1|sklearn")
