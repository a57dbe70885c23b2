"""`dialectbench import lm-eval PATH`: lm-evaluation-harness results of exported DialectBench tasks into the
result store, as scores with per-example values (so analyze, gaps, bootstrap intervals and report read them
as they read a run's).

PATH is a results_*.json file or a folder searched for them (lm_eval --output_path writes
<path>/<model>/results_<date>.json and samples_<task>_<date>.jsonl beside it). A task is imported when its
config's metadata names a DialectBench task and variety (what `export lm-eval` writes). The score is
recomputed from the logged samples with DialectBench's own metric (the prediction is the choice of highest
log-likelihood, lm-eval's `acc` ranking), and it is checked against lm-eval's own aggregate where they are
the same metric (acc); a disagreement is an error, not a stored number. Ranked tasks (SA, TC, NLI, DId,
MRC) are imported; EQA (generated spans, scored by lm-eval's SQuAD F1 here) is not yet.
"""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from pathlib import Path
from typing import Any

IMPORTED = ("sa", "tc", "nli", "did", "mrc")


class LmEvalImportError(ValueError):
    """A results file that cannot be imported; the message names the file (and line)."""


def _table(data: dict[str, Any], key: str, where: object) -> dict[str, Any]:
    """`data[key]` as an object ({} when absent); anything else is an error naming the file, not a traceback."""
    value = data.get(key) or {}
    if not isinstance(value, dict):
        raise LmEvalImportError(f"{where}: not an lm-eval results file: {key!r} is {type(value).__name__}, "
                                "not an object")
    return value


def _results_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(path.rglob("results_*.json"))
    raise LmEvalImportError(f"{path}: no such file or folder")


def _samples(results_file: Path, name: str) -> tuple[Path, list[dict[str, Any]]]:
    """The logged samples of task `name` written beside the results file (the same timestamp)."""
    stamp = results_file.stem.removeprefix("results_")
    candidates = sorted(results_file.parent.glob(f"samples_{name}_{stamp}.jsonl")) or \
        sorted(results_file.parent.glob(f"samples_{name}_*.jsonl"))
    if not candidates:
        raise LmEvalImportError(f"{results_file}: no samples_{name}_*.jsonl beside it; run lm_eval with --log_samples")
    out = []
    with candidates[-1].open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    out.append({**json.loads(line), "_line": n})
                except ValueError as err:
                    raise LmEvalImportError(f"{candidates[-1]}:{n}: not JSON: {err}") from None
    return candidates[-1], out


def _gold(task: str, example_id: str, target: str) -> Any:
    from dialectbench.data.examples import TextExample

    return TextExample(example_id, "", target)  # the classification metrics read the label only


def context_of(sample: dict[str, Any]) -> str | None:
    """The prompt of a logged sample: (context, continuation) pairs in memory, {"gen_args_0": {"arg_0": ...}}
    in a samples file."""
    args = sample.get("arguments")
    if isinstance(args, dict):
        first = next(iter(args.values()), {})
        return first.get("arg_0") if isinstance(first, dict) else None
    if isinstance(args, (list, tuple)) and args and isinstance(args[0], (list, tuple)):
        return args[0][0]
    return None


def job_from_samples(task: str, samples: list[dict[str, Any]], where: str = "samples") -> dict[str, Any]:
    """Predictions, golds and DialectBench's score (with per-example values) of one task's samples; a sample
    that is not an exported multiple-choice item is an error naming `where` and its line."""
    from dialectbench.runner.local_executor import _score

    ids, preds, golds, samples_out = [], [], [], []
    for s in sorted(samples, key=lambda s: s.get("doc_id", 0)):
        try:
            _one(task, s, ids, preds, golds, samples_out)
        except (KeyError, IndexError, TypeError, ValueError) as err:
            raise LmEvalImportError(f"{where}:{s.get('_line', '?')}: not a sample of an exported ranked task "
                                    f"({type(err).__name__}: {err})") from None
    if not golds:
        raise LmEvalImportError(f"{where}: no samples")
    return {"ids": ids, "predictions": preds, "golds": golds, "samples": samples_out,
            "scored": _score(task, golds, preds)}


def _one(task: str, s: dict[str, Any], ids: list, preds: list, golds: list, samples_out: list) -> None:
    doc, resps = s["doc"], s["filtered_resps"]
    lls = [float(r[0]) for r in resps]
    if len(lls) != len(doc["choices"]) or not all(math.isfinite(v) for v in lls):
        raise ValueError(f"{len(lls)} finite log-likelihoods expected for {len(doc['choices'])} choices")
    best = max(range(len(lls)), key=lambda i: (lls[i], -i))  # ties: the first choice, as lm-eval's argmax
    choice = doc["choices"][best]
    ids.append(str(doc.get("id", s.get("doc_id"))))
    if task == "mrc":
        preds.append(best)
        golds.append(_mrc_gold(doc))
    else:
        preds.append(choice)
        golds.append(_gold(task, ids[-1], doc["target"]))
    samples_out.append({"prompt": context_of(s), "reply": dict(zip(doc["choices"], lls)), "gold": doc["target"]})


def _mrc_gold(doc: dict[str, Any]) -> Any:
    from dialectbench.data.examples import MultipleChoiceExample

    n = len(doc["choices"])
    return MultipleChoiceExample(str(doc.get("id", "")), "", "", [""] * n, int(doc["target"]) - 1)


def import_lm_eval(path: str | Path, store: str | Path) -> list[dict[str, Any]]:
    """Store every exported task of the results under `path`; returns one row per imported score."""
    from dialectbench import __version__
    from dialectbench.runner.orchestrate import git_hash, library_versions
    from dialectbench.runner.store import JobRecord, Store

    rows: list[dict[str, Any]] = []
    records = []
    for results_file in _results_files(Path(path)):
        try:
            data = json.loads(results_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise LmEvalImportError(f"{results_file}: not an lm-eval results file: {err}") from None
        if not isinstance(data, dict):
            raise LmEvalImportError(f"{results_file}: not an lm-eval results file: a JSON {type(data).__name__}, "
                                    "not an object")
        general = _table(data, "config", results_file)
        results, n_samples_of = _table(data, "results", results_file), _table(data, "n-samples", results_file)
        n_shots, versions = _table(data, "n-shot", results_file), _table(data, "versions", results_file)
        model = str(data.get("model_name") or general.get("model_args") or general.get("model") or "unknown")
        args = general.get("model_args")
        args = dict(a.split("=", 1) for a in args.split(",") if "=" in a) if isinstance(args, str) else args or {}
        revision = str(args.get("revision") or data.get("model_revision") or "") or None
        for name, config in sorted(_table(data, "configs", results_file).items()):
            if not isinstance(config, dict):
                raise LmEvalImportError(f"{results_file}: {name}: not an lm-eval results file: its config is "
                                        f"{type(config).__name__}, not an object")
            meta = _table(config, "metadata", f"{results_file}: {name}")
            task, variety = meta.get("dialectbench_task"), meta.get("variety")
            if not task or not variety:
                continue  # not an exported DialectBench task
            if task not in IMPORTED:
                rows.append({"task": task, "variety": variety, "status": "skipped",
                             "message": f"{task} results are not imported yet (only {', '.join(IMPORTED)})"})
                continue
            samples_file, samples = _samples(results_file, name)
            job = job_from_samples(task, samples, str(samples_file))
            scored = job["scored"]
            theirs = _table(results, name, results_file).get("acc,none")
            n_samples = n_samples_of.get(name, {})
            acc = sum(p == (g.label if task != "mrc" else g.answer) for p, g in zip(job["predictions"], job["golds"]))
            acc /= max(1, len(job["golds"]))
            if theirs is not None and not math.isclose(acc, float(theirs), abs_tol=1e-9):
                raise LmEvalImportError(f"{results_file}: {name}: lm-eval's acc {theirs} is not the accuracy of its "
                                   f"logged samples ({acc}); the samples file is not this run's")
            n_shot = n_shots.get(name, config.get("num_fewshot"))
            model_name = f"lm-eval:{model}" + (f"@{revision}" if revision else "")
            key = hashlib.sha256(json.dumps([model_name, name, str(results_file.resolve()),
                                             data.get("date")], default=str).encode()).hexdigest()[:32]
            extra = {**scored["extra"], "acc": acc, "source": "lm-eval", "results_file": str(results_file),
                     "lm_eval_task": name, "n_samples": n_samples, "n_shot": n_shot,
                     "lm_eval_version": versions.get(name), "lm_eval_results": results.get(name)}
            if revision:
                extra["revision"] = revision
            head = f"icl|lm-eval|mode:loglikelihood|k:{n_shot}|chat:off"
            demos = meta.get("demos")
            signature = "|".join(filter(None, [head, demos, scored["signature"]]))
            records.append(JobRecord(
                job_key=key, task=task, variety=variety, cluster=str(meta.get("cluster", "")), model=model_name,
                setting=str(meta.get("setting", "icl")), train_on=str(meta.get("train_on", "")), status="done",
                config={"model": model_name, "lm_eval": general, "lm_eval_config": config},
                seed=meta.get("seed"), metric=scored["metric"], score=scored["score"], n=len(job["golds"]),
                signature=signature, extra=extra, example_ids=job["ids"], predictions=job["predictions"],
                values=scored["values"], samples=job["samples"]))
            rows.append({"task": task, "variety": variety, "status": "imported", "model": model_name,
                         "metric": scored["metric"], "score": scored["score"], "n": len(job["golds"])})
    if records:
        db = Store(store)
        run_id = uuid.uuid4().hex
        try:
            db.start_run(run_id, seed=0, config={"import": "lm-eval", "path": str(path)},
                         package_version=__version__, library_versions=library_versions(), git_hash=git_hash())
            for record in records:
                db.commit_job(run_id, record, force=True)
            db.finish_run(run_id, "done", {"imported": len(records)})
        finally:
            db.close()
    return rows
