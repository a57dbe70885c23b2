"""One folder per run: `<out>/runs/<run-id>/results.json` and that run's report.

    dialectbench-results/                 (--out; the default)
      results.sqlite                      the store, shared by every run into this folder (--store moves it)
      runs/<run-id>/results.json          config, versions, git hash, data fingerprints, per-job scores
                                          with every metric, skips with reasons; and, in the shape of
                                          lm-evaluation-harness's results files, a per-task aggregate
                                          (`results`: mean, stderr, n), `higher_is_better`, `versions`,
                                          the command line (secrets redacted), Python and platform,
                                          `format_version`, and each signature parsed (`signature_parsed`)
      runs/<run-id>/samples.jsonl         --log-samples: one line per example of this run's jobs: the
                                          prompt as the model got it, its raw answer, the prediction and
                                          the gold answer (only when some job logged samples)
      runs/<run-id>/report/index.html     the report of this run's jobs only (fresh folder: nothing stale)
      latest                              a text file: the id of the most recent run

The results file is written from the store (what was committed is what is reported), for the jobs of
this run's plan: those it ran and those it found already done. Keys added in format 2 (docs/results.md
describes every key): nothing stored changes; job keys, scores and signature strings are as before.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import re
import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dialectbench.metrics.result import MetricResult
from dialectbench.metrics.signature import Signature
from dialectbench.runner.store import Store

# 2: results, higher_is_better, versions, command_line, environment, format_version, signature_parsed
# 3: results per (task, setting, model) over real, unflagged varieties with item-level stderr (issue 36);
#    higher_is_better for declared metrics only; n-shot, n-samples, configs, models
FORMAT_VERSION = 3
RESULTS_VERSION = FORMAT_VERSION  # the key of format 1, kept: the same number
REDACTED = "<redacted>"


def all_metrics(metric: str, score: float | None, extra: dict[str, Any] | None) -> dict[str, float]:
    """The primary metric and every numeric top-level value of `extra` (LAS, chrF, exact match,
    accuracy...), by name. Nested values (per-label tables) and flags stay in `extra`."""
    out: dict[str, float] = {}
    if metric and score is not None:
        out[metric] = float(score)
    for name, value in (extra or {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if isinstance(value, float) and not math.isfinite(value):
            continue
        out.setdefault(str(name), float(value))
    return out


def wide_rows(db: Store, rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """`rows` (scores with job_key) plus one column per metric any of them has, as `metric:<name>`."""
    extras = {r["job_key"]: r for r in db.conn.execute("SELECT job_key, metric, score, extra FROM scores")}
    names: list[str] = []
    out = []
    for row in rows:
        s = extras.get(row["job_key"])
        found = all_metrics(s["metric"], s["score"], json.loads(s["extra"] or "{}")) if s else {}
        names += [n for n in found if n not in names]
        out.append({**row, **{f"metric:{k}": v for k, v in found.items()}})
    return out, [f"metric:{n}" for n in sorted(names)]


def _secret_name(name: str) -> bool:
    """An option or variable name that carries a secret: api-key, token, auth, password, ... (not
    `--max-tokens`, `--tokenize`: whole words only)."""
    words = [w for w in re.split(r"[-_.]+", name.lower()) if w]
    secret = {"key", "apikey", "token", "secret", "password", "passwd", "pwd", "auth", "authorization",
              "credential", "credentials", "bearer", "cookie"}
    return any(w in secret for w in words)


_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s]+@")
_ASSIGNMENT = re.compile(r"([A-Za-z0-9_.-]+)=([^,&;\s]*)")
_TOKEN_LIKE = re.compile(r"\b(?:sk-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}"
                         r"|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[A-Z0-9]{16})")
_BEARER = re.compile(r"(?i)\b(bearer\s+)\S+")


def _redact_text(text: str) -> str:
    text = _URL_CREDENTIALS.sub(lambda m: m.group(1) + REDACTED + "@", text)
    text = _ASSIGNMENT.sub(lambda m: f"{m.group(1)}={REDACTED}" if _secret_name(m.group(1).lstrip("-")) and m.group(2)
                           else m.group(0), text)
    text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    return _TOKEN_LIKE.sub(REDACTED, text)


def _program_name(argv: list[str]) -> list[str]:
    """The program by its name, not its path: a results file is shared, the path says who ran it where."""
    return [Path(argv[0]).name, *argv[1:]] if argv else argv


def redact_argv(argv: Sequence[str]) -> list[str]:
    """The command line with what looks like a secret replaced by `<redacted>`: the value of an option
    named like one (`--api-key X`, `--api-key=X`, `--hf-token X`), `NAME=value` pairs named like one
    (`OPENAI_API_KEY=...`, `token=...` in --model-args or a URL's query), a URL's user and password, a
    `Bearer` credential, and bare tokens of the usual shapes (sk-..., hf_..., ghp_..., AKIA...)."""
    out: list[str] = []
    hide_next = False
    for arg in map(str, argv):
        if hide_next and not arg.startswith("--"):
            out.append(REDACTED)
            hide_next = False
            continue
        hide_next = False
        if re.fullmatch(r"--?[A-Za-z0-9][A-Za-z0-9_.-]*", arg) and _secret_name(arg.lstrip("-")):
            hide_next = True  # its value is the next argument
            out.append(arg)
            continue
        out.append(_redact_text(arg))
    return out


def environment() -> dict[str, str]:
    """The Python and platform writing the results file (the run's own process under `dialectbench run`)."""
    return {"python": platform.python_version(), "python_implementation": platform.python_implementation(),
            "platform": platform.platform(), "system": platform.system(), "machine": platform.machine()}


def aggregate(scores: Sequence[float | None]) -> dict[str, Any]:
    """Mean, the spread over the scores (`std_over_varieties`: sample standard deviation, n - 1) and n over
    the finite `scores` (NaN and None: undefined scores, counted apart). Not a standard error of anything:
    a headline's item-level stderr comes from analysis.headline."""
    values = [float(s) for s in scores if s is not None and math.isfinite(float(s))]
    n = len(values)
    out = {"mean": statistics.fmean(values) if values else None,
           "std_over_varieties": statistics.stdev(values) if n >= 2 else None, "n": n}
    if len(values) != len(scores):
        out["undefined"] = len(scores) - len(values)
    return out


def _declared(task: str) -> Any:
    from dialectbench.tasks import TASKS

    return TASKS.get(task)


def task_results(entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per task, from analysis.headline entries (one per setting and model): the metric, its direction,
    `aggregation`, and `by_setting[setting][model]`, the headline (mean over the real varieties whose
    scores enter summaries; excluded ones counted and named; stderr item-level or null). Settings are
    never averaged together."""
    out: dict[str, Any] = {}
    for e in entries:
        spec = _declared(e["task"])
        task = out.setdefault(e["task"], {"metric": e["metric"], "higher_is_better": e["higher_is_better"],
                                          "aggregation": spec.aggregation if spec is not None else "mean",
                                          "by_setting": {}})
        body = {k: v for k, v in e.items() if k not in ("task", "setting", "model", "metric", "higher_is_better")}
        if e["metric"] != task["metric"]:  # another stored metric name in this setting: say so, apart
            body["metric"] = e["metric"]
        task["by_setting"].setdefault(e["setting"], {})[e["model"]] = body
    return out


def higher_is_better(jobs: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, bool]]:
    """Per task, the metrics tasks.yaml declares for it (Task.declared_metrics) that it has scores of, with
    their direction. Counts a score keeps beside its metrics (sys_len, ref_len, bp, pooled_n) carry none;
    an undeclared task's stored primary metric takes MetricResult's direction (WER and CER lower)."""
    out: dict[str, dict[str, bool]] = {}
    for job in jobs:
        task = job["task"]
        entry = out.setdefault(task, {})
        spec = _declared(task)
        if spec is None:
            if job.get("metric"):
                entry.setdefault(job["metric"], MetricResult(job["metric"], 0.0).higher_is_better)
            continue
        entry.setdefault(spec.metric, bool(spec.higher_is_better))
        present = {job.get("metric"), *(job.get("metrics") or {})}
        for name in spec.declared_metrics:
            if name in present:
                entry.setdefault(name, bool(spec.higher_is_better))
    return out


def n_samples(jobs: Sequence[Mapping[str, Any]], entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per task, as lm-evaluation-harness's `n-samples`: `effective`, the test examples scored in the jobs
    whose scores enter its headlines; `original`, the same jobs' full test sizes (an icl job's scored
    examples plus those held out for sharing a demonstration's passage, `demos_held_out`); null with
    `limit` when the run was limited (--limit N: the full sizes are not stored)."""
    used = {(e["task"], e["setting"], e["model"], v) for e in entries for v in e["varieties"]}
    out: dict[str, Any] = {}
    for job in jobs:
        if job.get("status") != "done" or (job["task"], job["setting"], job["model"], job["variety"]) not in used:
            continue
        entry = out.setdefault(job["task"], {"effective": 0, "original": 0})
        entry["effective"] += int(job.get("n") or 0)
        limit = (job.get("config") or {}).get("limit")
        if limit is not None:
            entry["original"], entry["limit"] = None, limit
        elif entry["original"] is not None:  # an icl job scores its test set less the demos' passages
            entry["original"] += int(job.get("n") or 0) + int((job.get("metrics") or {}).get("demos_held_out") or 0)
    return out


def _backend_config(job: Mapping[str, Any]) -> dict[str, Any]:
    """The backend's part of a job config (`{"model", "backend": {...}, "seed", ...}`), else the config."""
    config = job.get("config") or {}
    inner = config.get("backend")
    return inner if isinstance(inner, dict) else config


def n_shot(jobs: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per task and setting, the in-context examples per prompt (the job config's `k`: a number, or the
    paper's per-task choice, "paper"); null for a setting that trains a model rather than prompting one."""
    out: dict[str, dict[str, Any]] = {}
    for job in jobs:
        config = _backend_config(job)
        ks = out.setdefault(job["task"], {}).setdefault(job["setting"], [])
        k = config.get("k")
        if k is not None and k not in ks:
            ks.append(k)
    return {t: {s: (ks[0] if len(ks) == 1 else ks or None) for s, ks in by.items()} for t, by in out.items()}


MODEL_IDENTITY = ("revision", "commit", "sha", "sha256", "file_sha256", "model_hash", "served_model")


def models(jobs: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per model name: what its job configs say about which weights ran (revision, file hash, served model
    id: the keys of MODEL_IDENTITY found there), else `{"revision": null}`: not recorded by its backend."""
    out: dict[str, dict[str, Any]] = {}
    for job in jobs:
        config = _backend_config(job)
        found = out.setdefault(job["model"], {})
        for key in MODEL_IDENTITY:
            if config.get(key) is not None:
                found.setdefault(key, config[key])
        if isinstance(config.get("model"), str):
            found.setdefault("model_id", config["model"])
    return {m: (v if any(k in v for k in MODEL_IDENTITY) else {**v, "revision": None}) for m, v in out.items()}


def task_configs(jobs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per task, as lm-evaluation-harness's `configs`: its tasks.yaml declaration and the distinct job
    configs (backend, training and run options) its jobs ran with."""
    out: dict[str, Any] = {}
    for job in jobs:
        task = job["task"]
        if task not in out:
            spec = _declared(task)
            out[task] = {"declaration": spec.model_dump(mode="json") if spec is not None else None, "jobs": []}
        config = job.get("config") or {}
        if config not in out[task]["jobs"]:
            out[task]["jobs"].append(config)
    return out


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def plan_fingerprints(plan: Any) -> dict[str, dict[str, str]]:
    """Per task, the data fingerprint of each split the plan read (`variety/split` -> sha256 of its files'
    bytes and reading options, as the data source computed it for the job keys)."""
    out: dict[str, dict[str, str]] = {}
    for group in getattr(plan, "groups", ()):
        for (variety, split), fp in sorted(group.fingerprints.items()):
            out.setdefault(group.task, {})[f"{variety}/{split}"] = str(fp)
    return {task: dict(sorted(fps.items())) for task, fps in out.items()}


def versions(run: Mapping[str, Any], jobs: Sequence[Mapping[str, Any]],
             fingerprints: Mapping[str, Mapping[str, str]] | None = None) -> dict[str, Any]:
    """The package (version, git hash, job-key version) and per task: `declaration` (hash of its tasks.yaml
    entry), `jobs` (hash of its job keys, which hash the fingerprints of every split a job read, the model
    and its config: equal hashes, equal inputs), and, when the run's plan is at hand, `data` (hash of its
    splits' fingerprints) with `data_fingerprints` (each split's)."""
    from dialectbench.runner.plan import KEY_VERSION

    tasks: dict[str, Any] = {}
    for task in dict.fromkeys(j["task"] for j in jobs):
        spec = _declared(task)
        keys = sorted(j["job_key"] for j in jobs if j["task"] == task)
        entry: dict[str, Any] = {"declaration": _digest(spec.model_dump(mode="json")) if spec is not None else None,
                                 "jobs": _digest(keys)}
        fps = dict((fingerprints or {}).get(task) or {})
        if fps:
            entry.update(data=_digest(fps), data_fingerprints=fps)
        tasks[task] = entry
    return {"package": run["package_version"], "git_hash": run["git_hash"], "job_key_version": KEY_VERSION,
            "format_version": FORMAT_VERSION, "tasks": tasks}


def job_scores(db: Store, keys: Sequence[str]) -> list[dict[str, Any]]:
    """Per job of `keys`: its names, status, message, fingerprint, config and every metric."""
    wanted = set(keys)
    scores = {r["job_key"]: dict(r) for r in db.conn.execute("SELECT * FROM scores")
              if r["job_key"] in wanted}
    rows = []
    for job in db.jobs(list(keys)):
        row = {k: job[k] for k in ("task", "cluster", "variety", "model", "setting", "train_on", "status")}
        row["train_members"] = json.loads(job["train_members"] or "[]")
        s = scores.get(job["job_key"])
        if s is not None and job["status"] == "done":
            extra = json.loads(s["extra"] or "{}")
            row.update(metric=s["metric"], score=s["score"], n=s["n"], signature=s["signature"],
                       metrics=all_metrics(s["metric"], s["score"], extra))
        elif job["message"]:
            row["message"] = job["message"].splitlines()[0]
        row.update(job_key=job["job_key"], run_id=job["run_id"], seed=job["seed"],
                   data_fingerprint=job["data_fingerprint"], config=json.loads(job["config"] or "{}"),
                   fit_seconds=job["fit_seconds"], eval_seconds=job["eval_seconds"])
        rows.append(row)
    return rows


def _parse_signatures(db: Store, jobs: list[dict[str, Any]], libs: Mapping[str, str], package: str | None) -> None:
    """`signature_parsed` beside each done job's `signature`; `extra_signatures_parsed` for the other
    metrics' signatures its score keeps in extra (`chrf_signature` -> chrf)."""
    extras = {r["job_key"]: r["extra"] for r in db.conn.execute("SELECT job_key, extra FROM scores")}
    for job in jobs:
        if "signature" not in job:
            continue
        job["signature_parsed"] = Signature.from_string(job["signature"], job.get("metric", ""),
                                                        library_versions=libs, package_version=package).as_dict()
        extra = json.loads(extras.get(job["job_key"]) or "{}")
        other = {k.removesuffix("_signature"): Signature.from_string(v, k.removesuffix("_signature"),
                                                                     library_versions=libs,
                                                                     package_version=package).as_dict()
                 for k, v in extra.items() if k.endswith("_signature") and isinstance(v, str)}
        if other:
            job["extra_signatures_parsed"] = other


def results_document(db: Store, run_id: str, keys: Sequence[str], *, argv: Sequence[str] | None = None,
                     fingerprints: Mapping[str, Mapping[str, str]] | None = None) -> dict[str, Any]:
    """The results file's content; `argv` (default sys.argv) is recorded redacted; `fingerprints` (per task,
    `variety/split` -> data fingerprint: `plan_fingerprints(plan)`) adds each task's data versions."""
    run = next((r for r in db.runs() if r["run_id"] == run_id), None)
    if run is None:
        raise KeyError(f"run {run_id} is not in {db.path}")
    skips = [{"task": r["task"], "variety": r["variety"], "setting": r["setting"], "reason": r["reason"]}
             for r in db.conn.execute("SELECT * FROM skips WHERE run_id = ?", (run_id,))]
    from dialectbench.runner.headline import store_headlines

    jobs = job_scores(db, keys)
    entries = store_headlines(db, keys)
    libs = json.loads(run["library_versions"] or "{}")
    _parse_signatures(db, jobs, libs, run["package_version"])
    return {"results_version": RESULTS_VERSION, "format_version": FORMAT_VERSION, "run_id": run_id,
            "store": str(db.path),
            "started_at": run["started_at"], "finished_at": run["finished_at"], "status": run["status"],
            "package_version": run["package_version"], "git_hash": run["git_hash"],
            "library_versions": libs,
            "config": json.loads(run["config"] or "{}"), "summary": json.loads(run["summary"] or "{}"),
            "results": task_results(entries), "higher_is_better": higher_is_better(jobs),
            "n-shot": n_shot(jobs), "n-samples": n_samples(jobs, entries), "configs": task_configs(jobs),
            "models": models(jobs),
            "versions": versions(run, jobs, fingerprints),
            "command_line": _program_name(redact_argv(sys.argv if argv is None else argv)), "environment": environment(),
            "jobs": jobs, "skips": skips}


def run_folder(out: Path, run_id: str) -> Path:
    return out / "runs" / run_id


SAMPLE_FIELDS = ("job_key", "task", "variety", "setting", "model", "status", "idx", "example_id", "gold",
                 "prediction", "prompt", "response")


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_results(store: Path, out: Path, run_id: str, keys: Sequence[str], *, plan: Any = None,
                  argv: Sequence[str] | None = None) -> Path:
    """Write `runs/<run-id>/results.json`, its `samples.jsonl` when there are logged samples (atomically)
    and `latest`; returns the results path. `plan` (the run's) adds the data fingerprints of its splits;
    `argv` is the command line to record (default sys.argv; redacted either way)."""
    folder = run_folder(out, run_id)
    folder.mkdir(parents=True, exist_ok=True)
    wanted = set(keys)
    with Store(store) as db:
        doc = results_document(db, run_id, keys, argv=argv,
                               fingerprints=plan_fingerprints(plan) if plan is not None else None)
        samples = [r for r in db.samples() if r["job_key"] in wanted]
    if samples:
        doc["samples_file"] = "samples.jsonl"
        _write_atomically(folder / "samples.jsonl", "".join(
            json.dumps({k: r[k] for k in SAMPLE_FIELDS}, ensure_ascii=False, default=str) + "\n" for r in samples))
    path = folder / "results.json"
    _write_atomically(path, json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=False, default=str) + "\n")
    (out / "latest").write_text(run_id + "\n", encoding="utf-8")
    return path

