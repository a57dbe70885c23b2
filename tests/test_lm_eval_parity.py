"""Parity with EleutherAI lm-evaluation-harness (issue 40 item 2): `export lm-eval` then the real `lm_eval`
(in-process, `hf` model) on a tiny random Llama built here (offline), against `dialectbench run --model
hf-causal:` on the same items: the same prediction on every item and log-likelihoods within 1e-3; and the
exported folder's prompts are exactly the run's. Skipped without lm_eval (the `lm-eval` extra)."""

from __future__ import annotations

import copy
import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
lm_eval = pytest.importorskip("lm_eval")

from dialectbench.data.examples import TextExample
from dialectbench.interop.lm_eval_export import export_lm_eval, task_name

WORDS = ["in", "this", "task", "you", "are", "given", "a", "piece", "of", "text", "your", "is", "to", "classify",
         "the", "sentiment", "based", "on", "its", "content", "label", "sentence", "negative", "positive",
         "good", "bad", "great", "awful", "food", "service", "very", "not", "Label", "Sentence", "In", "Your"]
VARIETY = "tunisian arabic"
TRAIN = [("good food", "positive"), ("bad service", "negative"), ("great service", "positive"),
         ("awful food", "negative"), ("good service", "positive"), ("bad food", "negative"),
         ("very good food", "positive"), ("not good", "negative")]
TEST = [("good", "positive"), ("very bad service", "negative"), ("not great food", "negative"),
        ("awful awful service", "negative"), ("food", "positive"), ("great", "positive"),
        ("not bad", "positive"), ("service good food bad", "negative"), ("very very good", "positive"),
        ("bad", "negative"), ("the food is good", "positive"), ("the service is awful", "negative")]


def _tiny_lm(folder):
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    specials = ["<pad>", "<unk>", "<s>", "</s>"]
    vocab = {w: i for i, w in enumerate(specials + sorted(set(WORDS) | set(".,:;!?")))}
    core = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 2)])
    tok = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="<unk>", pad_token="<pad>", bos_token="<s>",
                                  eos_token="</s>")
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                         pad_token_id=0, bos_token_id=2, eos_token_id=3)
    LlamaForCausalLM(config).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


class _Source:
    """One SA variety with a train and a test split, in memory."""

    def varieties(self, task):
        return [VARIETY] if task == "sa" else []

    def splits(self, task, variety):
        return {"train", "test"} if (task, variety) == ("sa", VARIETY) else set()

    def fingerprint(self, task, variety, split):
        return f"{task}-{variety}-{split}"

    def load(self, task, variety, split):
        rows = TRAIN if split == "train" else TEST
        return [TextExample(f"{split}{i}", text, label) for i, (text, label) in enumerate(rows)]


def run_lm_eval(model_dir, include_path, tasks):
    from lm_eval.tasks import TaskManager

    return lm_eval.simple_evaluate(model="hf", model_args=f"pretrained={model_dir},dtype=float32",
                                   tasks=tasks, task_manager=TaskManager(include_path=str(include_path)),
                                   log_samples=True, device="cpu", batch_size=4)


def _lm_eval_items(results, name):
    """example id -> (predicted label, {label: log-likelihood}) from lm_eval's logged samples."""
    out = {}
    for sample in results["samples"][name]:
        doc = sample["doc"]
        lls = [float(r[0]) for r in sample["filtered_resps"]]
        best = max(range(len(lls)), key=lambda i: (lls[i], -i))
        out[doc["id"]] = (doc["choices"][best], dict(zip(doc["choices"], lls)))
    return out


@pytest.fixture(scope="module")
def parity(tmp_path_factory):
    from dialectbench.runner.orchestrate import run
    from dialectbench.runner.store import Store

    tmp = tmp_path_factory.mktemp("parity")
    model_dir = _tiny_lm(tmp / "lm")
    summary = export_lm_eval(tmp / "export", tasks=["sa"], source=_Source())
    name = task_name("sa", VARIETY)
    results = run_lm_eval(model_dir, tmp / "export", [name])
    run(tasks=["sa"], varieties=[VARIETY], model=f"hf-causal:{model_dir}", settings=["icl"], source=_Source(),
        store=tmp / "store.db", backend_options={"log_samples": True, "device": "cpu", "batch_size": 4})
    db = Store(tmp / "store.db")
    ours = {s["example_id"]: s for s in db.samples()}
    db.close()
    return summary, results, ours, name, tmp


def test_export_writes_one_task_with_our_demonstrations(parity):
    summary, _, _, name, tmp = parity
    (exported,) = summary.tasks
    assert exported.name == name == "dialectbench_sa_tunisian_arabic"
    assert exported.n_fewshot == 4 and exported.n_test + exported.held_out == len(TEST)
    fewshot = [json.loads(line) for line in (tmp / "export" / exported.folder / "fewshot.jsonl").open()]
    assert all(d["choices"] == ["negative", "positive"] for d in fewshot)
    assert {"dialectbench_sa", "dialectbench_sa_cluster_arabic", "dialectbench"} <= set(summary.groups)


def test_lm_eval_reads_the_prompt_dialectbench_sends(parity):
    _, results, ours, name, _ = parity
    for sample in results["samples"][name]:
        context = sample["arguments"][0][0] if isinstance(sample["arguments"][0], (list, tuple)) else None
        if context is None:
            context = sample["arguments"]["gen_args_0"]["arg_0"]
        assert context == ours[sample["doc"]["id"]]["prompt"]


def test_same_prediction_and_loglikelihoods_on_every_item(parity):
    _, results, ours, name, _ = parity
    theirs = _lm_eval_items(results, name)
    assert set(theirs) == set(ours) and len(ours) >= 10
    same = 0
    for example_id, (label, lls) in theirs.items():
        mine = ours[example_id]["response"]
        assert set(mine) == set(lls)
        assert all(abs(mine[c] - lls[c]) <= 1e-3 for c in lls), (example_id, mine, lls)
        same += ours[example_id]["prediction"] == label
    assert same == len(theirs)
    acc = sum(ours[i]["prediction"] == ours[i]["gold"] for i in ours) / len(ours)
    assert results["results"][name]["acc,none"] == pytest.approx(acc)


def _save_as_lm_eval_does(results, out):
    """lm_eval's results and samples files, written from a copy: EvaluationTracker rewrites the samples'
    `arguments` in place, and the module's other tests read the fixture's samples as lm_eval returned them
    (so the tests pass in any order)."""
    from lm_eval.loggers import EvaluationTracker

    results = copy.deepcopy(results)
    tracker = EvaluationTracker(output_path=str(out))
    tracker.general_config_tracker.model_name = "tiny-llama"
    tracker.save_results_aggregated(results=dict(results), samples=results["samples"])
    for task in results["configs"]:
        tracker.save_results_samples(task_name=task, samples=results["samples"][task])


def test_round_trip_import_reproduces_the_run_scores(parity, tmp_path):
    """export -> lm_eval -> results files -> `import lm-eval`: the stored score, its per-example values and
    predictions are those `dialectbench run` stored for the same items."""
    from dialectbench.interop.lm_eval_import import import_lm_eval
    from dialectbench.runner.store import Store

    _, results, _, _, tmp = parity
    _save_as_lm_eval_does(results, tmp_path / "lm_eval_out")
    rows = import_lm_eval(tmp_path / "lm_eval_out", tmp_path / "imported.db")
    assert [r["status"] for r in rows] == ["imported"]
    run_db, imported = Store(tmp / "store.db"), Store(tmp_path / "imported.db")
    try:
        (mine,), (theirs,) = run_db.scores(detail=True), imported.scores(detail=True)
        assert theirs["task"] == "sa" and theirs["variety"] == VARIETY and theirs["setting"] == "icl"
        assert theirs["metric"] == mine["metric"] and theirs["n"] == mine["n"]
        assert theirs["score"] == pytest.approx(mine["score"], abs=1e-12)
        mine_preds = {p["example_id"]: (p["prediction"], p["value"]) for p in run_db.predictions(mine["job_key"])}
        their_preds = {p["example_id"]: (p["prediction"], p["value"]) for p in imported.predictions(theirs["job_key"])}
        assert their_preds == mine_preds
    finally:
        run_db.close()
        imported.close()


def test_cli_import_then_report_reads_the_imported_scores(parity, tmp_path):
    from typer.testing import CliRunner

    from dialectbench.cli.main import app

    _, results, _, _, _ = parity
    _save_as_lm_eval_does(results, tmp_path / "out")
    runner = CliRunner()
    store = tmp_path / "store.db"
    done = runner.invoke(app, ["import", "lm-eval", str(tmp_path / "out"), "--store", str(store), "-f", "json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)[0]["status"] == "imported"
    report = runner.invoke(app, ["report", "--store", str(store), "--out", str(tmp_path / "report"),
                                 "--formats", "csv"])
    assert report.exit_code == 0, report.output
    assert "lm-eval:" in "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "report").rglob("*.csv"))
    nothing = runner.invoke(app, ["import", "lm-eval", str(tmp_path / "report"), "--store", str(store)])
    assert nothing.exit_code != 0 and "no results" in nothing.output


def test_lm_eval_loads_every_exported_task_and_group(tmp_path):
    """The whole sample-suite export (every task kind, EQA's generate_until included) loads in lm-eval, group
    and every cluster group load, and each task's first context is the prompt build_prompt makes."""
    from lm_eval.tasks import TaskManager

    summary = export_lm_eval(tmp_path / "export")
    # a task group lists its varieties (its mean counts each once); cluster groups stand beside it
    # (lm-eval refuses a task reached through two groups of one call: the cluster groups are loaded apart)
    manager = TaskManager(include_path=str(tmp_path / "export"))
    clusters = [g for g in summary.groups if "_cluster_" in g]
    loaded, by_cluster = manager.load(["dialectbench"]), manager.load(clusters)
    found = loaded["tasks"]
    assert set(found) == set(by_cluster["tasks"]) == {e.name for e in summary.tasks}
    assert set(loaded["groups"]) | set(by_cluster["groups"]) == set(summary.groups)
    for task in found.values():
        docs = list(task.test_docs())
        shots = list(task.fewshot_docs())
        context = task.fewshot_context(docs[0], task.config.num_fewshot)
        expected = "\n\n".join([task.config.description.rstrip("\n"),
                                *[f"{d['query']} {d['target']}" for d in shots], docs[0]["query"]])
        assert context == expected, task.config.task
