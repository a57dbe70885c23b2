"""`dialectbench run` (the main job) and `dialectbench results export` (the scores table of a store)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from dialectbench.cli.convention import StrictGroup, deprecated, prefer, use_catalogues
from dialectbench.cli.output import Format, emit, emit_to, fail, stderr, warn
from dialectbench.extras import MissingExtra
from dialectbench.runner import DEFAULT_STORE, PlanError, RunError, Store, run
from dialectbench.runner.executors import make_executor
from dialectbench.runner.plan import Group, Job, Plan
from dialectbench.runner.ray_executor import RayUnavailable
from dialectbench.runner.store import JobRecord, StoreError
from dialectbench.runner.summary import summary_tables
from dialectbench.scores import SCORE_COLUMNS

MAX_LISTED = 25  # skip/problem lines printed before "... and N more"
TABLE_LIMIT = 1000  # `results export --format table` rows: a terminal table of 100,000 rows helps nobody

results_app = typer.Typer(cls=StrictGroup, help="Read results out of a result store.", no_args_is_help=True)


class RichProgress:
    """Run events -> a rich progress bar on stderr: the work done (weighted by each training set's
    size, with progress inside long fits), jobs done/total, what runs now, and an ETA from the work
    rate (`runner.progress.Tracker`). Fits 80 columns; in a pipe or log file it prints one line per
    training set and at most one progress line per `PIPE_EVERY` seconds, never a redraw per update."""

    PIPE_EVERY = 30.0

    def __init__(self, console: Console) -> None:
        from dialectbench.runner.progress import Tracker

        self.console = console
        self.tracker = Tracker()
        self.progress = Progress(TextColumn("{task.description}", style="cyan"), BarColumn(bar_width=10),
                                 TextColumn("{task.fields[jobs]} jobs"), TimeElapsedColumn(),
                                 TextColumn("ETA {task.fields[eta]}"), console=console, transient=False)
        self.bar: Any = None
        self.last_line = float("-inf")

    def __enter__(self) -> Self:
        return self  # the bar starts once there is a plan: stopped empty, it printed a blank line before an error

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.progress.update(self.bar, description="finished")
            self.progress.stop()

    def planned(self, plan: Plan, pending: int) -> None:
        self.tracker.planned(plan, pending)
        self.progress.start()
        self.bar = self.progress.add_task("planning", total=max(self.tracker.total, 1e-9), jobs=f"0/{pending}",
                                          eta="-:--:--")

    def group_started(self, group: Group, jobs: Sequence[Job]) -> None:
        self.tracker.group_started(group, jobs)
        text = f"{group.task}: training on {group.training.label} ({len(jobs)} evaluation(s))"
        self._say(text)
        if not self.console.is_terminal:  # a log file gets one plain line per training set
            self.console.print(text, highlight=False, markup=False, soft_wrap=True)

    def job_started(self, job: Job) -> None:
        self._say(f"{job.task} · {job.setting} · {job.variety}")

    def job_progress(self, group: Group, info: dict) -> None:
        """Progress inside a group (from this process or a worker): the fit's epoch and examples."""
        from dialectbench.runner.progress import describe

        self.tracker.job_progress(group, info)
        text = f"{group.task} · {group.training.label}: {describe(info)}"
        self._say(text)
        now = self.tracker.clock()
        if not self.console.is_terminal and now - self.last_line >= self.PIPE_EVERY:
            self.last_line = now
            self.console.print(f"  {text} (ETA {self._eta()})", highlight=False, markup=False, soft_wrap=True)

    def job_finished(self, record: JobRecord, written: bool) -> None:
        self.tracker.job_finished(record.job_key)
        self._say(None)

    def _eta(self) -> str:
        eta = self.tracker.eta()
        if eta is None:
            return "-:--:--"
        minutes, seconds = divmod(int(eta + 0.5), 60)
        return f"{minutes // 60}:{minutes % 60:02d}:{seconds:02d}"

    def _say(self, text: str | None) -> None:
        if self.bar is None:
            return
        t = self.tracker
        fields = {"completed": min(t.done, t.total), "total": max(t.total, 1e-9),
                  "jobs": f"{t.jobs_done}/{t.jobs_total}", "eta": self._eta()}
        if text is not None:
            # the other columns take about 40 characters: the description gets the rest of the line
            width = max(12, self.console.width - 42)
            fields["description"] = text if len(text) <= width else text[:width - 1] + "…"
        self.progress.update(self.bar, **fields)


def _where(*parts: str | None) -> str:
    return " · ".join(p for p in parts if p)


def _skip_lines(plan: Plan) -> list[str]:
    """One line per (task, setting, reason): the varieties a reason applies to are counted, not listed."""
    groups: dict[tuple, list[str]] = {}
    for s in plan.skips:
        groups.setdefault((s.task, s.setting, s.reason), []).append(s.variety or "")
    lines = []
    for (task, setting, reason), names in groups.items():
        names = [n for n in names if n]
        where = _where(task, setting, names[0] if len(names) == 1 else None)
        count = f" ({len(names)} varieties)" if len(names) > 1 else ""
        lines.append(f"{where}: {reason}{count}")
    return lines


def _print_skips(plan: Plan, problems: list[JobRecord]) -> None:
    lines = _skip_lines(plan)
    lines += [f"{_where(r.task, r.setting, r.variety)}: {r.status}: {(r.message or '').splitlines()[0]}"
              for r in problems if (r.message or "").strip()]
    if not lines:
        return
    warn(f"{len(plan.skips)} planned item(s) skipped, {len(problems)} job(s) not completed:", label="note:")
    for line in lines[:MAX_LISTED]:
        stderr.print(f"  - {line}", highlight=False, markup=False, soft_wrap=True)
    if len(lines) > MAX_LISTED:
        stderr.print(f"  ... and {len(lines) - MAX_LISTED} more (all kept in the store's skips/jobs tables)")


def _print_summary(store: Path, keys: list[str]) -> None:
    try:
        tables = summary_tables(store, keys)
    except Exception as err:  # noqa: BLE001 - the results are stored; a summary bug must not hide that
        warn(f"could not compute the summary: {type(err).__name__}: {err}")
        return
    for title, rows in tables:
        if rows:
            emit(rows, Format.table, title=title)
    _print_flags(store, keys)


def _print_flags(store: Path, keys: list[str]) -> None:
    """One line per flagged job: warnings (unseen test labels, below the majority rate, skewed predictions,
    fallbacks, a leak) first, then every other flag a score carries, even alone (an overlap under the
    leak threshold, a narrowed label space), so no flag is seen only in the report and export."""
    from dialectbench.runner.flags import describe, needs_warning

    with Store(store) as db:
        every = db.flagged(keys)
    if any(r["flags"].get("sample_suite") for r in every):  # said once, not on every line below
        stderr.print("note: scores on the bundled sample suite (our own texts) check the pipeline; they are "
                     "not comparable with published results", highlight=False)
    listed = [r for r in every if set(r["flags"]) - {"sample_suite"}]
    flagged = [r for r in listed if needs_warning({"flags": r["flags"]})]
    noted = [r for r in listed if not needs_warning({"flags": r["flags"]})]
    if flagged:
        warn(f"{len(flagged)} score(s) flagged (kept in the store; see the report):")
        _flag_lines(flagged, describe)
    if noted:
        stderr.print(f"note: {len(noted)} score(s) carry recorded facts (see the report):", highlight=False)
        _flag_lines(noted, describe)


def _flag_lines(rows: list[dict[str, Any]], describe: Any) -> None:
    for r in rows[:MAX_LISTED]:
        said = describe({k: v for k, v in r["flags"].items() if k != "sample_suite"})
        stderr.print(f"  - {_where(r['task'], r['setting'], r['variety'])}: {'; '.join(said)}",
                     highlight=False, markup=False, soft_wrap=True)
    if len(rows) > MAX_LISTED:
        stderr.print(f"  ... and {len(rows) - MAX_LISTED} more (`dialectbench results export --all` lists them)")


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM (e.g. `timeout`, a batch scheduler) unwinds like Ctrl-C: the run is marked interrupted.
    Finished jobs are safe either way: each was committed when it finished."""
    raise KeyboardInterrupt


def _build_report(store: Path, folder: Path, keys: list[str]) -> None:
    """The HTML report of this run's jobs in its own folder (never mixed with other runs, nothing stale);
    a run whose results cannot make a report still succeeded."""
    from dialectbench.report import ReportInputError, build_report

    try:
        out = build_report(store, folder, keys=keys)
    except (ReportInputError, ValueError) as err:
        warn(f"no report built: {err}")
        return
    if out:
        stderr.print(f"report: {out}", highlight=False)


def _executor(kind: str, ray_address: str | None, cpus: float | None, gpus: float | None) -> Any:
    """--executor and its options -> the runner's executor (a clear error for a bad combination)."""
    try:
        return make_executor(kind, ray_address=ray_address, cpus_per_job=cpus, gpus_per_job=gpus)
    except (ValueError, RayUnavailable) as err:
        fail(str(err))


def _write_results(store: Path, out: Path, run_id: str, keys: list[str], plan: Any = None) -> Path | None:
    from dialectbench.runner.results_file import write_results

    try:
        path = write_results(store, out, run_id, keys, plan=plan)
    except OSError as err:
        warn(f"could not write the results file: {err}")
        return None
    stderr.print(f"results: {path}", highlight=False)
    return path


def _write_lm_eval(store: Path, output_path: Path, run_id: str, keys: list[str], results_file: Path | None) -> None:
    """--output-path: the run's results and samples in lm-evaluation-harness's layout (runner/lm_eval_output.py)."""
    from dialectbench.runner.lm_eval_output import write_lm_eval_output

    try:
        paths = write_lm_eval_output(store, output_path, run_id, keys, results_file=results_file)
    except OSError as err:
        warn(f"could not write the lm-eval results: {err}")
        return
    folders = sorted({str(p.parent) for p in paths})
    stderr.print(f"lm-eval results: {', '.join(folders)} ({len(paths)} files)", highlight=False)


# `run --help` groups its options in panels and keeps each help to a line or two (80 columns); the details
# are in docs/ and `dialectbench models`.
_SEL, _MOD, _EXE, _OUT = "Selection", "Model and training", "Where jobs run", "Output"
_ICL, _PROMPT = "In-context learning: model calls", "In-context learning: prompts"
_CHAT = "In-context learning: chat"  # a panel of its own: the long flag name then fits 80 columns
TASKS_OPT = typer.Option(None, "--tasks", "-t", help="Task ids, comma-separated (dep,pos,...; mt: both MT).",
                         rich_help_panel=_SEL)
VARIETIES_OPT = typer.Option(None, "--varieties", "-v", help="Varieties, comma-separated.", rich_help_panel=_SEL)
CLUSTERS_OPT = typer.Option(None, "--clusters", "-c", help="Clusters, comma-separated.", rich_help_panel=_SEL)
SETTINGS_OPT = typer.Option(None, "--settings", "-s", help="in-variety, in-cluster, combined, zero-shot, icl "
                            "(default: each task's own).", rich_help_panel=_SEL)
DATA_DIR_OPT = typer.Option(None, "--data-dir", "-d", help="Local data mirror (default: the bundled sample suite).",
                            rich_help_panel=_SEL)
CATALOGUE_OPT = typer.Option(None, "--catalogue", help="Your dataset catalogue YAML (repeatable; also "
                             "$DIALECTBENCH_CATALOGUE).", rich_help_panel=_SEL)
SYNTHETIC_OPT = typer.Option(None, "--synthetic", help="Also English UD pos/dep rewritten by these profiles "
                             "(aave, singlish, indian, nigerian).", rich_help_panel=_SEL)
LIMIT_OPT = typer.Option(None, "--limit", min=1, help="N test examples per job, stratified, seeded by --seed "
                         "(a smoke test; stored as '<model> (limit N)').", rich_help_panel=_SEL)
LIMIT_FIRST_OPT = typer.Option(False, "--limit-first", help="With --limit: the first N, not a sample.",
                               rich_help_panel=_SEL)
MODEL_OPT = typer.Option("baseline", "--model", "-m", help="baseline (CPU, offline), a preset, hf:<id>, "
                         "hf-causal:<id> or llm:<URL>; see `dialectbench models`.", rich_help_panel=_MOD)
MODEL_ARGS_OPT = typer.Option(None, "--model-args", help="key=value,... (hf-causal: dtype, revision, "
                              "trust_remote_code, prefix_cache, batch_size; llm: model, timeout, retries; a plugin: the options "
                              "`dialectbench models` lists).", rich_help_panel=_MOD)
DEVICE_OPT = typer.Option(None, "--device", help="cuda, cuda:1 or cpu (default: cuda when available).",
                          rich_help_panel=_MOD)
BATCH_SIZE_OPT = typer.Option(None, "--batch-size", metavar="N|auto", help="hf: training batch; hf-causal: "
                              "inference batch (default 8; auto: the largest that fits memory, up to 64; the "
                              "batch never changes scores).", rich_help_panel=_MOD)
EPOCHS_OPT = typer.Option(None, "--epochs", min=1, help="Training epochs (hf; the baseline parser).",
                          rich_help_panel=_MOD)
MAX_TRAIN_OPT = typer.Option(None, "--max-train-minutes", min=0.01, help="Cap on each training (scores then "
                             "depend on machine speed).", rich_help_panel=_MOD)
SEED_OPT = typer.Option(0, "--seed", help="Random seed.", rich_help_panel=_MOD)
ICL_MODE_OPT = typer.Option(None, "--mode", help="loglikelihood (rank the labels) or generate.",
                            rich_help_panel=_PROMPT)
NUM_FEWSHOT_OPT = typer.Option(None, "--num-fewshot", min=0, help="Demonstrations per prompt (default: the "
                               "paper's, 4; EQA 2).", rich_help_panel=_PROMPT)
FEWSHOT_FROM_OPT = typer.Option(None, "--fewshot-from", help="variety, cluster or english (default: the "
                                "paper's per task).", rich_help_panel=_PROMPT)
GEN_KWARGS_OPT = typer.Option(None, "--gen-kwargs", help="Generation: max_tokens=N, temperature=T, "
                              "stop=A|B, comma-separated (default greedy).", rich_help_panel=_PROMPT)
CHAT_TEMPLATE_OPT = typer.Option(None, "--chat-template/--no-chat-template", help="Wrap the prompt in the chat "
                                 "template (default: on for llm:, off for hf-causal:).", rich_help_panel=_CHAT)
SYSTEM_PROMPT_OPT = typer.Option(None, "--system-prompt", help="A system turn (default: none).",
                                 rich_help_panel=_CHAT)
CONCURRENCY_OPT = typer.Option(None, "--concurrency", min=1, help="llm: requests in flight (default 4).",
                               rich_help_panel=_ICL)
MAX_INVALID_OPT = typer.Option(None, "--max-invalid", min=0.0, max=1.0, help="Fail a job above this share of "
                               "invalid answers (default 0.1).", rich_help_panel=_ICL)
JOB_BUDGET_OPT = typer.Option(None, "--job-budget", min=1.0, help="Seconds a job may wait on its model "
                              "(default 1800).", rich_help_panel=_ICL)
RESCORE_OPT = typer.Option(False, "--rescore", help="Re-score from the request cache, asking no model (implies "
                           "--rerun).", rich_help_panel=_ICL)
LOG_SAMPLES_OPT = typer.Option(False, "--log-samples", help="Store each example's prediction (and icl prompt and "
                               "answer); see `results samples`.", rich_help_panel=_OUT)
EXECUTOR_OPT = typer.Option("local", "--executor", help="local (one job per core) or ray (pip install "
                            "'dialectbench\\[ray]').", rich_help_panel=_EXE)  # \[: text, not rich markup
RAY_ADDRESS_OPT = typer.Option(None, "--ray-address", help="Ray cluster: auto or HOST:PORT (default: a local "
                               "one).", rich_help_panel=_EXE)
CPUS_PER_JOB_OPT = typer.Option(None, "--cpus-per-job", min=0.01, help="CPU threads per job (default 1).",
                                rich_help_panel=_EXE)
GPUS_PER_JOB_OPT = typer.Option(None, "--gpus-per-job", min=0.0, help="ray: GPUs per job; a fraction packs "
                                "jobs on one GPU.", rich_help_panel=_EXE)
RUN_OUT_OPT = typer.Option(None, "--out", "-o", help="Results folder: the store, runs/<id>/results.json and "
                           "report/ (default: dialectbench-results).", rich_help_panel=_OUT)
RUN_STORE_OPT = typer.Option(None, "--store", help="SQLite result store (default: <out>/results.sqlite).",
                             rich_help_panel=_OUT)
OUTPUT_PATH_OPT = typer.Option(None, "--output-path", help="Also write lm-eval's layout in this folder: "
                               "<model>/results_<date>.json, samples_<task>_<date>.jsonl.", rich_help_panel=_OUT)
RERUN_OPT = typer.Option(False, "--rerun", help="Redo jobs the store already has.", rich_help_panel=_OUT)
NO_REPORT_OPT = typer.Option(False, "--no-report", help="Build no report at the end.", rich_help_panel=_OUT)
RUN_FORMAT_OPT = typer.Option(Format.table, "--format", "-f", help="table (summaries), csv or json (this run's "
                              "scores on stdout).", rich_help_panel=_OUT)
STORE_OPT = typer.Option(DEFAULT_STORE, "--store", help="SQLite result store.")
EXPORT_FORMAT_OPT = typer.Option(Format.csv, "--format", "-f", help="csv, json or table.")
OUTPUT_OPT = typer.Option(None, "--output", help="Write to this file instead of stdout.")
ALL_OPT = typer.Option(False, "--all", help="Every stored job (not only the latest per row), with signature, "
                       "seed, run id, job key and flags.")


def run_cmd(tasks: list[str] | None = TASKS_OPT, varieties: list[str] | None = VARIETIES_OPT,
            clusters: list[str] | None = CLUSTERS_OPT, model: str = MODEL_OPT,
            settings: list[str] | None = SETTINGS_OPT, data_dir: Path | None = DATA_DIR_OPT,
            store: Path | None = RUN_STORE_OPT, seed: int = SEED_OPT, rerun: bool = RERUN_OPT,
            no_report: bool = NO_REPORT_OPT, out: Path | None = RUN_OUT_OPT, limit: int | None = LIMIT_OPT,
            limit_first: bool = LIMIT_FIRST_OPT, device: str | None = DEVICE_OPT, batch_size: str | None = BATCH_SIZE_OPT,
            epochs: int | None = EPOCHS_OPT, max_train_minutes: float | None = MAX_TRAIN_OPT,
            catalogue: list[Path] | None = CATALOGUE_OPT, executor: str = EXECUTOR_OPT,
            ray_address: str | None = RAY_ADDRESS_OPT, cpus_per_job: float | None = CPUS_PER_JOB_OPT,
            gpus_per_job: float | None = GPUS_PER_JOB_OPT, mode: str | None = ICL_MODE_OPT,
            concurrency: int | None = CONCURRENCY_OPT, max_invalid: float | None = MAX_INVALID_OPT,
            job_budget: float | None = JOB_BUDGET_OPT, rescore: bool = RESCORE_OPT,
            log_samples: bool = LOG_SAMPLES_OPT, synthetic: list[str] | None = SYNTHETIC_OPT,
            fewshot_from: str | None = FEWSHOT_FROM_OPT, num_fewshot: int | None = NUM_FEWSHOT_OPT,
            gen_kwargs: str | None = GEN_KWARGS_OPT, model_args: str | None = MODEL_ARGS_OPT,
            chat_template: bool | None = CHAT_TEMPLATE_OPT, system_prompt: str | None = SYSTEM_PROMPT_OPT,
            output_path: Path | None = OUTPUT_PATH_OPT, fmt: Format = RUN_FORMAT_OPT) -> None:
    """Train and evaluate a model on every variety of every task under the paper's settings."""
    from dialectbench.runner.options import (
        OptionError,
        RunOptions,
        batch_size_value,
        check_declared,
        icl_options,
        run_flags,
    )

    if varieties and clusters:
        fail("give --varieties or --clusters, not both")
    runner_executor = _executor(executor, ray_address, cpus_per_job, gpus_per_job)
    out = out if out is not None else (store.parent if store is not None else DEFAULT_STORE.parent)
    store = store if store is not None else out / DEFAULT_STORE.name
    try:
        if limit_first and limit is None:
            raise OptionError("--limit-first needs --limit N")
        try:
            batch = batch_size_value(batch_size) if batch_size is not None else None
        except ValueError:
            raise OptionError(f"--batch-size is an int >= 1 or auto, not {batch_size!r}") from None
        options = RunOptions(limit=limit, limit_first=limit_first, device=device, batch_size=batch,
                             epochs=epochs, max_train_minutes=max_train_minutes)
        parsed = icl_options(model, gen_kwargs=gen_kwargs, model_args=model_args)
    except OptionError as err:
        fail(str(err))
    _use_catalogues(catalogue)
    icl = {k: v for k, v in {"mode": mode, "concurrency": concurrency, "max_invalid": max_invalid,
                             "job_budget_s": job_budget, "cache_only": rescore or None,
                             "log_samples": log_samples or None, "k_shots": num_fewshot,
                             "chat_template": chat_template, "system_prompt": system_prompt, **parsed}.items()
           if v is not None}
    try:  # before any backend loads: an option it does not declare, named by its run flag
        check_declared(model, icl, run_flags(gen_kwargs=gen_kwargs, model_args=model_args))
    except OptionError as err:
        fail(str(err))
    rerun = rerun or rescore
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if in_main else None
    try:
        with RichProgress(stderr) as progress:
            result = run(tasks=tasks, varieties=varieties, clusters=clusters, model=model, settings=settings,
                         data_dir=data_dir, store=store, seed=seed, rerun=rerun, events=progress,
                         executor=runner_executor, options=options,
                         backend_options=icl or None, synthetic=synthetic, fewshot=fewshot_from)
    except (PlanError, RunError, StoreError, MissingExtra, RayUnavailable) as err:
        fail(str(err))
    except KeyboardInterrupt:
        fail(f"interrupted; finished jobs are in {store} and the same command resumes", code=130)
    finally:
        if in_main and previous is not None:
            signal.signal(signal.SIGTERM, previous)
    _print_skips(result.plan, result.problems)
    if not result.plan.jobs:
        fail("nothing to run: no planned job has the data it needs (reasons above)", code=1)
    if fmt == Format.table:
        _print_summary(store, result.job_keys)
    else:  # machine-readable: this run's scores on stdout, the summaries' warnings still on stderr
        with Store(store, readonly=True) as db:
            emit(db.scores(result.job_keys, latest=False, detail=True, include_overlap=True), fmt)
        _print_flags(store, result.job_keys)
    c = result.counts
    raced = f", {c['raced']} finished first by another run" if c["raced"] else ""
    stderr.print(f"{c['done']} job(s) run, {c['reused']} already in the store{raced}, {c['skipped']} skipped, "
                 f"{c['failed']} failed; results in {store}", highlight=False)
    results_file = _write_results(store, out, result.run_id, result.job_keys, result.plan)
    if output_path is not None:
        _write_lm_eval(store, output_path, result.run_id, result.job_keys, results_file)
    if not no_report:
        _build_report(store, out / "runs" / result.run_id / "report", result.job_keys)
    if c["failed"]:
        raise typer.Exit(1)


METRICS_OPT = typer.Option("primary", "--metrics", help="primary (the scores table contract) or all: "
                           "one column per stored metric (LAS, chrF, exact match, accuracy...).")


OVERLAP_OPT = typer.Option(False, "--include-overlap", help="Also the jobs whose test set overlaps their "
                           "training data above 5% (leaks, left out by default; --all includes them).")


OLD_OUT = deprecated("--out", "-o", use="--output")


@results_app.command("export")
def export_cmd(store: Path = STORE_OPT, fmt: Format = EXPORT_FORMAT_OPT, output: Path | None = OUTPUT_OPT,
               all_rows: bool = ALL_OPT, metrics: str = METRICS_OPT, include_overlap: bool = OVERLAP_OPT,
               old_out: Path | None = OLD_OUT) -> None:
    """Write the scores table (task, cluster, variety, model, setting, train_on, metric, score, n)."""
    out = prefer(output, old_out, "--out/-o", "--output")
    if metrics not in ("primary", "all"):
        fail(f"--metrics is primary or all, not {metrics!r}")
    if not store.exists():
        fail(f"no result store at {store} (run `dialectbench run` first or pass --store)")
    try:
        with Store(store, readonly=True) as db:  # no write lock: works while a run writes
            rows = db.scores(latest=not all_rows, detail=True, include_overlap=include_overlap or all_rows)
            if metrics == "all":
                from dialectbench.runner.results_file import wide_rows

                rows, metric_columns = wide_rows(db, rows)
            if all_rows:  # --log-samples: how many per job (and in JSON the samples themselves)
                from dialectbench.cli.samples_cmds import add_sample_columns

                add_sample_columns(db, rows, fmt)
    except StoreError as err:
        fail(str(err))
    columns = list(SCORE_COLUMNS) + (["signature", "seed", "run_id", "job_key", "flags", "samples"]
                                     + (["logged_samples"] if fmt == Format.json else []) if all_rows else [])
    if metrics == "all":
        columns += metric_columns
    if fmt == Format.table and len(rows) > TABLE_LIMIT:
        stderr.print(f"showing the first {TABLE_LIMIT:,} of {len(rows):,} rows; --format csv or json writes them "
                     "all", highlight=False)
        rows = rows[:TABLE_LIMIT]
    emit_to(out, rows, fmt, title=f"scores ({store})", columns=columns)


def _use_catalogues(paths: list[Path] | None) -> None:
    """Load the user's catalogues (--catalogue and $DIALECTBENCH_CATALOGUE) before planning."""
    for item in use_catalogues(paths):  # a user's variety trains others only where its file says so: said here too
        for v in item.catalogue.varieties:
            if v.representative:
                warn(f"{v.name} ({item.path}) is the in-cluster training source of cluster {v.cluster} for "
                     f"{item.catalogue.task} (representative: true)", label="note:", style="cyan")


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the root app."""
    app.command("run")(run_cmd)
    from dialectbench.cli.samples_cmds import samples_cmd

    results_app.command("samples")(samples_cmd)
    app.add_typer(results_app, name="results")
