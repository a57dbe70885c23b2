"""A run's scores where lm-evaluation-harness users look for them (`dialectbench run --output-path PATH`):

    PATH/<model name sanitised>/results_<date id>.json        one per stored model name of the run
    PATH/<model name sanitised>/samples_<task>_<date id>.jsonl one per lm-eval task with stored predictions

in the layout of lm-eval's EvaluationTracker (0.4: `save_results_aggregated`, `save_results_samples`): the
model name sanitised by its rule (`"<>:/|\\?*[]` runs -> `__`), the date id `datetime.now().isoformat()`
with `:` as `-`, and its keys (results, groups, group_subtasks, configs, versions, n-shot,
higher_is_better, n-samples, config, git_hash, date, task_hashes, model_name, model_name_sanitized, ...).

Written from the store, for the jobs of this run (as results.json). A (task, variety, setting) is one lm-eval
task named by tasks/naming.py; a (task, setting) one group, whose value is our headline (the mean over the
real, unflagged varieties, as results.json; lm-eval would weight by size: `aggregate_metric_list` says
which). Metrics are keyed as lm-eval keys them (`acc,none`, `acc_stderr,none`, `f1,none`) and on its scale:
fractions (0-1) for acc, f1, exact_match, uas, las; BLEU and chrF as sacrebleu's 0-100. A stderr is the
score's item-level standard error where its evidence reproduces it (analysis.intervals), else "N/A".

Sample lines: doc (the test example as read again from the run's data; only its id where it cannot be,
e.g. a synthetic variety), target, arguments (the logged prompt under --log-samples,
else the model's input text), resps/filtered_resps (the raw answer / the stored prediction), and the
metric as lm-eval's per-document value: for a mean of items (accuracy, span F1) the stored per-example
value; for a corpus metric (macro F1, seqeval F1, UAS, BLEU) the `[target, prediction]` pair its
aggregation takes. Plus doc_hash, prompt_hash and target_hash (sha256, as lm-eval computes them).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from dialectbench.runner.store import Store
from dialectbench.tasks.naming import lm_eval_group, lm_eval_task

FILTER = "none"  # lm-eval's filter key of an unfiltered answer
# our metric ids -> lm-eval's names; lm-eval keeps sacrebleu's 0-100, every other one is a fraction
LM_EVAL_METRIC = {"accuracy": "acc", "macro_f1": "f1", "f1": "f1", "exact_match": "exact_match", "uas": "uas",
                  "las": "las", "bleu": "bleu", "chrf": "chrf"}
PERCENT_SCALE = {"bleu", "chrf"}
_UNSAFE = re.compile(r"[\"<>:/|\\?*\[\]]+")


def sanitize_model_name(name: str) -> str:
    """lm-eval's `sanitize_model_name`: each run of `"<>:/|\\?*[]` becomes `__`."""
    return _UNSAFE.sub("__", name)


def date_id(now: datetime | None = None) -> str:
    """lm-eval's file date: local ISO time with `:` as `-` (2026-12-04T22-10-34.123456)."""
    return (now or datetime.now()).isoformat().replace(":", "-")


def hash_string(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def lm_metric(metric: str) -> str:
    return LM_EVAL_METRIC.get(metric, metric)


def scaled(metric: str, value: float | None) -> float | None:
    """A stored percentage on lm-eval's scale of `metric` (our id)."""
    if value is None:
        return None
    return float(value) if lm_metric(metric) in PERCENT_SCALE else float(value) / 100.0


def item_mean(task: str, metric: str) -> bool:
    """Whether the task's score is the mean of its per-example values (then a sample line holds that
    value), not a corpus statistic (then it holds the [target, prediction] pair)."""
    from dialectbench.tasks import kind_of

    try:
        kind = kind_of(task).name
    except Exception:  # noqa: BLE001 - an unknown task: only accuracy is known to be a mean of items
        kind = ""
    return metric == "accuracy" or (kind == "extractive-qa" and metric == "f1")


def _target(task: str, example: Any) -> Any:
    """The gold answer of an example as lm-eval's `doc_to_target` would give it."""
    if example is None:
        return None
    from dialectbench.tasks import kind_of

    kind = kind_of(task).name
    if kind == "parsing":
        return [list(example.heads), list(example.deprels)]
    if kind == "tagging":
        return list(example.upos)
    for attr in ("tags", "label", "answer", "reference"):
        if hasattr(example, attr):
            value = getattr(example, attr)
            return list(value) if isinstance(value, tuple) else value
    if hasattr(example, "answers"):
        return list(example.answers)
    return None


def _input_text(example: Any) -> str:
    """What the model read, where no prompt was logged (a trained model's input)."""
    if example is None:
        return ""
    for attrs in (("text",), ("premise", "hypothesis"), ("passage", "question"), ("context", "question"),
                  ("source",)):
        if all(hasattr(example, a) for a in attrs):
            return "\n".join(str(getattr(example, a)) for a in attrs)
    if hasattr(example, "words"):
        return " ".join(example.words)
    if hasattr(example, "tokens"):
        return " ".join(example.tokens)
    return ""


class _Docs:
    """Test examples by id, read once per (task, variety) from the run's data (None where unreadable:
    a synthetic variety, a catalogue no longer loaded)."""

    def __init__(self, data_dir: str | None) -> None:
        self.data_dir = data_dir
        self.source: Any = None
        self.cache: dict[tuple[str, str], dict[str, Any]] = {}

    def _split(self, task: str, variety: str) -> dict[str, Any]:
        if (task, variety) not in self.cache:
            try:
                if self.source is None:
                    from dialectbench.data.source import open_source

                    self.source = open_source(self.data_dir)
                examples = self.source.load(task, variety, "test")
            except Exception:  # noqa: BLE001 - a doc we cannot re-read is written as its id only
                examples = []
            self.cache[(task, variety)] = {str(ex.example_id): ex for ex in examples}
        return self.cache[(task, variety)]

    def get(self, task: str, variety: str, example_id: str) -> Any:
        found = self._split(task, variety).get(example_id)
        if found is None and self.source is not None:  # a pooled test (DId): another variety's item
            for other in self.source.varieties(task):
                found = self._split(task, other).get(example_id)
                if found is not None:
                    break
        return found


def _backend_config(config: dict[str, Any]) -> dict[str, Any]:
    inner = config.get("backend")
    return inner if isinstance(inner, dict) else config


def _model_id(backend: dict[str, Any], stored: str) -> str:
    """The model as lm-eval names it (its `pretrained=` / `model=`): the served model id, the backend's model,
    or its source without the backend prefix (`hf-causal:HuggingFaceTB/SmolLM2-135M` -> the hub id); else
    our stored name (`baseline`, `copy`)."""
    for key in ("served_model", "model"):
        if isinstance(backend.get(key), str) and backend[key]:
            return backend[key]
    source = backend.get("source")
    if isinstance(source, str) and ":" in source:
        return source.split(":", 1)[1]
    return stored


def _model_args(backend: dict[str, Any], model_id: str, stored: str) -> str | None:
    """lm-eval's `model_args` string for a model that has an id (`pretrained=ID,dtype=...,revision=...`)."""
    if model_id == stored:
        return None
    parts = [f"pretrained={model_id}"] + [f"{k}={backend[k]}" for k in ("dtype", "revision") if backend.get(k)]
    return ",".join(parts)


def _epoch(iso: str | None) -> float | None:
    try:
        return datetime.fromisoformat(iso).timestamp() if iso else None
    except ValueError:
        return None


def _sample_lines(db: Store, row: dict[str, Any], docs: _Docs, logged: dict[tuple[str, int], dict[str, Any]]
                  ) -> list[dict[str, Any]]:
    task, metric = row["task"], row["metric"]
    name, mean = lm_metric(metric), item_mean(row["task"], metric)
    lines = []
    for p in db.predictions(row["job_key"]):
        example = docs.get(task, row["variety"], str(p["example_id"]))
        doc = dataclasses.asdict(example) if example is not None else {"example_id": p["example_id"]}
        log = logged.get((row["job_key"], p["idx"]), {})
        target = _target(task, example)
        if target is None and log.get("gold") is not None:
            target = log["gold"]
        prediction = p["prediction"]
        prompt = log.get("prompt") if log.get("prompt") is not None else _input_text(example)
        response = log.get("response") if log.get("response") is not None else prediction
        shown = prediction if isinstance(prediction, str) else json.dumps(prediction, ensure_ascii=False)
        line: dict[str, Any] = {
            "doc_id": p["idx"], "doc": doc, "target": str(target),
            "arguments": {"gen_args_0": {"arg_0": prompt}},
            "resps": [[response if isinstance(response, str) else json.dumps(response, ensure_ascii=False)]],
            "filtered_resps": [shown], "filter": FILTER, "metrics": [name],
            "doc_hash": hash_string(json.dumps(doc, indent=2, ensure_ascii=False, default=str)),
            "prompt_hash": hash_string(prompt), "target_hash": hash_string(str(target)),
        }
        line[name] = p["value"] if mean else [target, prediction]
        lines.append(line)
    return lines


def _metrics(db: Store, row: dict[str, Any]) -> tuple[dict[str, Any], dict[str, bool]]:
    """`<metric>,none` and `<metric>_stderr,none` for the primary and the declared secondary metrics of a
    job's score, on lm-eval's scale; and their directions."""
    from dialectbench.analysis.intervals import score_se
    from dialectbench.runner.headline import job_evidence
    from dialectbench.runner.results_file import all_metrics
    from dialectbench.tasks import TASKS

    spec = TASKS.get(row["task"])
    up = bool(spec.higher_is_better) if spec is not None else True
    extra = json.loads(row.get("extra") or "{}") if isinstance(row.get("extra"), str) else (row.get("extra") or {})
    found = all_metrics(row["metric"], row["score"], extra)
    declared = set(spec.declared_metrics) if spec is not None else set()
    out: dict[str, Any] = {}
    directions: dict[str, bool] = {}
    for metric, value in found.items():
        if metric != row["metric"] and metric not in declared:
            continue  # counts beside a score (sys_len, pooled_n) are not metrics
        name = lm_metric(metric)
        if f"{name},{FILTER}" in out:
            continue
        out[f"{name},{FILTER}"] = scaled(metric, value)
        se = None
        if metric == row["metric"] and row["score"] is not None:
            found_se = score_se(float(row["score"]), job_evidence(db, row["job_key"]))
            se = found_se["se"] if found_se else None
        out[f"{name}_stderr,{FILTER}"] = scaled(metric, se) if se is not None else "N/A"
        directions[name] = up
    return out, directions


def lm_eval_documents(db: Store, run_id: str, keys: Sequence[str], *, results_file: Path | None = None
                      ) -> dict[str, tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]]:
    """Per stored model name: (the results document, the sample lines per lm-eval task)."""
    from dialectbench.runner.headline import store_headlines

    run = next((r for r in db.runs() if r["run_id"] == run_id), None)
    if run is None:
        raise KeyError(f"run {run_id} is not in {db.path}")
    run_config = json.loads(run["config"] or "{}")
    wanted = set(keys)
    rows = [r for r in db.scores(list(keys), latest=True, detail=True, include_overlap=True)
            if r["job_key"] in wanted]
    extras = {r["job_key"]: r["extra"] for r in db.conn.execute("SELECT job_key, extra FROM scores")}
    jobs = {j["job_key"]: j for j in db.jobs(list(keys))}
    logged = {(s["job_key"], s["idx"]): s for s in db.samples() if s["job_key"] in wanted}
    headlines = store_headlines(db, list(keys))
    docs = _Docs(run_config.get("data_dir"))
    out: dict[str, tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]] = {}
    for model in dict.fromkeys(r["model"] for r in rows):
        doc: dict[str, Any] = {"results": {}, "groups": {}, "group_subtasks": {}, "configs": {}, "versions": {},
                               "n-shot": {}, "higher_is_better": {}, "n-samples": {}}
        samples: dict[str, list[dict[str, Any]]] = {}
        configs = []
        for r in (r for r in rows if r["model"] == model):
            r = {**r, "extra": extras.get(r["job_key"])}
            job = jobs.get(r["job_key"], {})
            config = json.loads(job.get("config") or "{}")
            configs.append(config)
            name, group = lm_eval_task(r["task"], r["variety"], r["setting"]), lm_eval_group(r["task"], r["setting"])
            metrics, directions = _metrics(db, r)
            doc["results"][name] = {"alias": name, "name": name, "sample_len": r["n"], **metrics}
            doc["group_subtasks"].setdefault(group, []).append(name)
            k = _backend_config(config).get("k")
            k = k.get(r["task"]) if isinstance(k, dict) else k  # the paper's per-task choice
            extra = json.loads(r["extra"] or "{}")
            doc["configs"][name] = {
                "task": name, "tag": [group], "test_split": "test", "num_fewshot": k or 0,
                "output_type": "dialectbench", "metric_list": [{"metric": m, "aggregation": "mean" if item_mean(
                    r["task"], r["metric"]) or m != lm_metric(r["metric"]) else "corpus", "higher_is_better": up}
                    for m, up in directions.items()],
                "metadata": {"dialectbench_task": r["task"], "variety": r["variety"], "cluster": r["cluster"],
                             "setting": r["setting"], "train_on": r["train_on"], "metric": r["metric"],
                             "score": r["score"], "job_key": r["job_key"], "signature": r.get("signature"),
                             "flags": extra.get("flags") or {}, "job_config": config}}
            doc["versions"][name] = job.get("data_fingerprint")
            doc["n-shot"][name] = k or 0
            doc["higher_is_better"][name] = directions
            limit = config.get("limit")
            held = int(extra.get("demos_held_out") or 0)  # icl: test examples sharing a demo's passage
            doc["n-samples"][name] = {"original": None if limit is not None else (r["n"] or 0) + held,
                                      "effective": r["n"]}
            lines = _sample_lines(db, r, docs, logged)
            if lines:
                samples[name] = lines
        for h in (h for h in headlines if h["model"] == model):
            group = lm_eval_group(h["task"], h["setting"])
            name = lm_metric(h["metric"])
            se = h.get("stderr")
            # the examples behind the group's value: its averaged varieties', not the left-out ones'
            averaged = {lm_eval_task(h["task"], v, h["setting"]) for v in h["varieties"]}
            doc["groups"][group] = {
                "alias": group, "name": group, "sample_len": sum(doc["results"][t]["sample_len"] or 0
                                                                for t in doc["group_subtasks"].get(group, [])
                                                                if t in averaged),
                f"{name},{FILTER}": scaled(h["metric"], h["mean"]),
                f"{name}_stderr,{FILTER}": scaled(h["metric"], se) if se is not None else "N/A",
                "varieties": h["n"], "excluded": h.get("excluded", [])}
            doc["configs"][group] = {"group": group, "task": doc["group_subtasks"].get(group, []),
                                     "aggregate_metric_list": [{"metric": name, "aggregation": "mean",
                                                                "weight_by_size": False}],
                                     "metadata": {"dialectbench_headline": "mean over the real, unflagged "
                                                                           "varieties (results.json `results`)"}}
            doc["higher_is_better"][group] = {name: bool(h["higher_is_better"])}
        doc["results"].update(doc["groups"])
        first = configs[0] if configs else {}
        backend = _backend_config(first)
        model_id = _model_id(backend, model)
        doc["config"] = {
            "model": run_config.get("model", model), "model_args": _model_args(backend, model_id, model),
            "batch_size": backend.get("batch_size", first.get("batch_size")), "batch_sizes": [],
            "device": run_config.get("device"), "use_cache": run_config.get("store"), "limit": first.get("limit"),
            "bootstrap_iters": 0, "gen_kwargs": backend.get("gen_kwargs"), "random_seed": run["seed"],
            "numpy_seed": run["seed"], "torch_seed": run["seed"], "fewshot_seed": run["seed"]}
        doc.update({"git_hash": run["git_hash"], "date": _epoch(run["started_at"])})
        doc["task_hashes"] = {t: hash_string("".join(s["doc_hash"] + s["prompt_hash"] + s["target_hash"]
                                                    for s in lines)) for t, lines in samples.items()}
        start, end = _epoch(run["started_at"]), _epoch(run["finished_at"])
        doc.update({"model_source": str(run_config.get("model", model)).split(":", 1)[0], "model_name": model_id,
                    "model_name_sanitized": sanitize_model_name(model_id),
                    "system_instruction": backend.get("system_prompt"),
                    "system_instruction_sha": hash_string(backend["system_prompt"]) if backend.get("system_prompt")
                    else None, "fewshot_as_multiturn": False, "chat_template": None, "chat_template_sha": None,
                    "start_time": start, "end_time": end,
                    "total_evaluation_time_seconds": str(end - start) if start is not None and end is not None
                    else None,
                    "dialectbench": {"run_id": run_id, "stored_model": model, "package_version": run["package_version"],
                                     "results_file": str(results_file) if results_file else None}})
        if not doc["groups"]:
            del doc["groups"]
        out[model] = (doc, samples)
    return out


def write_lm_eval_output(store: Path, output_path: Path, run_id: str, keys: Sequence[str], *,
                         results_file: Path | None = None, now: datetime | None = None) -> list[Path]:
    """Write the run's results and samples files under `output_path` (module docstring); the paths."""
    stamp = date_id(now)
    with Store(store, readonly=True) as db:
        documents = lm_eval_documents(db, run_id, keys, results_file=results_file)
    written = []
    used: set[str] = set()
    for doc, samples in documents.values():
        if doc["model_name_sanitized"] in used:  # two stored names of one model id: never one file for both
            doc["model_name_sanitized"] = sanitize_model_name(doc["dialectbench"]["stored_model"])
        used.add(doc["model_name_sanitized"])
        folder = Path(output_path) / doc["model_name_sanitized"]
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"results_{stamp}.json"
        path.write_text(json.dumps(doc, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
        written.append(path)
        for task, lines in samples.items():
            spath = folder / f"samples_{task}_{stamp}.jsonl"
            spath.write_text("".join(json.dumps(line, ensure_ascii=False, default=str) + "\n" for line in lines),
                             encoding="utf-8")
            written.append(spath)
    return written
