"""End to end: `dialectbench run --model hf:<tiny folder>` over the bundled sample suite."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dialectbench.backends.hf import synthetic
from dialectbench.backends.hf.tiny import make_tiny_model
from dialectbench.cli.main import app
from dialectbench.data import open_source  # ours: a broken package must fail here, never skip
from dialectbench.metrics import score_task
from dialectbench.runner import Store

# the optional third-party stack the tiny models need: without it (a base install) these tests skip
pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

ENCODER_TASKS = "pos,dep,ner,tc,nli,sa,mrc,eqa"


def _sample_text() -> list[str]:
    """Tokenizer training text: the sample suite's own training sentences (any script it has)."""
    src = open_source(None)
    lines = []
    for task in ENCODER_TASKS.split(","):
        for v in src.varieties(task):
            for split in src.splits(task, v):
                for ex in src.load(task, v, split)[:40]:
                    lines.append(" ".join(getattr(ex, "words", None) or getattr(ex, "tokens", None) or [])
                                 or getattr(ex, "text", "") or getattr(ex, "passage", "")
                                 or getattr(ex, "premise", "") or getattr(ex, "context", ""))
    return [line for line in lines if line] + synthetic.corpus(50)


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return make_tiny_model(tmp_path_factory.mktemp("bert"), "bert", _sample_text(), vocab_size=2000, hidden=32,
                           layers=1)


def test_run_every_encoder_task_on_the_sample_suite(tiny_bert, tmp_path):
    store = tmp_path / "results.sqlite"
    args = ["run", "--model", f"hf:{tiny_bert}", "--tasks", ENCODER_TASKS, "--store", str(store), "--no-report"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    export = CliRunner().invoke(app, ["results", "export", "--store", str(store), "--format", "json"])
    rows = json.loads(export.stdout)
    assert {r["task"] for r in rows} == set(ENCODER_TASKS.split(","))
    assert all(r["model"] == f"hf:{tiny_bert}" for r in rows)
    assert {"in-variety", "in-cluster", "combined", "zero-shot"} <= {r["setting"] for r in rows}
    assert " 0 failed" in result.output
    # every stored score is the task's metric of the stored predictions on the sample suite's own test
    # split, read here directly: one prediction per test example, none lost, reordered or rescored
    src = open_source(None)
    with Store(store) as db:
        jobs = db.scores(detail=True)
        assert len(jobs) == len(rows)
        for job in jobs:
            gold = src.load(job["task"], job["variety"], "test")
            stored = db.predictions(job["job_key"])
            assert int(job["n"]) == len(gold) == len(stored) > 0, job
            assert [p["idx"] for p in stored] == list(range(len(gold)))
            preds = [p["prediction"] for p in stored]
            assert float(job["score"]) == pytest.approx(score_task(job["task"], gold, preds).score, abs=1e-6), job
            if job["task"] == "sa":  # accuracy, counted here without the metric code
                right = sum(str(p) == str(g.label) for p, g in zip(preds, gold))
                assert float(job["score"]) == pytest.approx(100 * right / len(gold))


def test_run_translation_with_a_tiny_seq2seq(tmp_path):
    folder = make_tiny_model(tmp_path / "t5", "t5", synthetic.corpus(100), vocab_size=120, hidden=32, layers=1)
    store = tmp_path / "mt.sqlite"
    result = CliRunner().invoke(app, ["run", "--model", f"hf:{folder}", "--tasks", "mt-dialect",
                                      "--store", str(store), "--no-report"])
    assert result.exit_code == 0, result.output
    rows = json.loads(CliRunner().invoke(app, ["results", "export", "--store", str(store), "--format", "json"]).stdout)
    assert rows and {r["task"] for r in rows} == {"mt-dialect"}
    assert {r["setting"] for r in rows} == {"zero-shot"}
    src = open_source(None)
    with Store(store) as db:
        for job in db.scores(detail=True):  # BLEU of the stored translations against the sample's references
            gold = src.load("mt-dialect", job["variety"], "test")
            preds = [p["prediction"] for p in db.predictions(job["job_key"])]
            assert int(job["n"]) == len(gold) == len(preds) > 0
            assert all(isinstance(p, str) for p in preds)
            assert float(job["score"]) == pytest.approx(score_task("mt-dialect", gold, preds).score, abs=1e-6)


def test_unknown_model_folder_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(app, ["run", "--model", f"hf:{tmp_path}/nope", "--tasks", "pos",
                                      "--store", str(tmp_path / "s.sqlite"), "--no-report"])
    assert result.exit_code != 0
    assert "does not exist" in result.output
