"""`dialectbench export lm-eval`: DialectBench's in-context tasks as an EleutherAI lm-evaluation-harness task
folder (`lm_eval --include_path DIR --tasks dialectbench_sa ...`).

One lm-eval task per (task, variety), named `dialectbench_<task>_<variety slug>`; groups per cluster
(`dialectbench_<task>_<cluster slug>`), per task (`dialectbench_<task>`) and for the whole export
(`dialectbench`). Each task's folder holds its test items and its demonstrations as local JSONL (read by the
utils.py beside them: no hub access), and a YAML whose prompt is exactly what `dialectbench run --model
hf-causal:...` sends in plain-text mode:

    description  = the Appendix I instruction + "\\n\\n"
    doc_to_text  = the item's block ending in its empty answer slot ("Sentence: ...\\n\\nLabel:")
    target_delimiter " ", fewshot_delimiter "\\n\\n", fewshot split = our demonstrations in our order
                   (sampler first_n), num_fewshot = their number

so lm-eval's context is the string our prompts.build_prompt makes, and each choice is scored as
" <label>", the continuation our loglikelihood mode ranks. The demonstrations are those the run picks
(same plan, same `--fewshot-from` default, same seeded draw from the same training split); the test items
sharing a demonstration's text or passage are held out as the run holds them out.

Nothing is written inside a git work tree of this package's source (the mirror's text stays out of the
repository), and nothing here imports lm_eval.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from dialectbench.backends.llm import prompts
from dialectbench.backends.llm.backend import _check_train, pick_demos

PREFIX = "dialectbench"
# Tasks with an Appendix I prompt and a closed answer set (ranked by log-likelihood) or a short span (EQA).
EXPORTABLE = ("sa", "eqa", "mrc", "tc", "nli", "did")
RANKED = ("sa", "mrc", "tc", "nli", "did")
EXPORT_VERSION = 1
DEFAULT_FEWSHOT = {"did": "variety"}  # the others: the run's own default (runner.plan.DEFAULT_FEWSHOT)


class ExportError(ValueError):
    """The export cannot be written (unknown or unsupported task, output inside the repository...)."""


@dataclass
class Exported:
    """One exported (task, variety): its lm-eval task name, folder and item counts."""

    task: str
    variety: str
    cluster: str
    name: str
    folder: str
    n_test: int
    n_fewshot: int
    held_out: int
    labels: list[str]
    fewshot_source: str


@dataclass
class ExportSummary:
    out: Path
    tasks: list[Exported] = field(default_factory=list)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)  # (task, variety, reason)
    groups: list[str] = field(default_factory=list)

    def bytes(self) -> int:
        return sum(p.stat().st_size for p in self.out.rglob("*") if p.is_file())


def slug(name: str) -> str:
    """lm-eval task names are identifiers: lower case, runs of anything else as one underscore."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "x"


def task_name(task: str, variety: str) -> str:
    return f"{PREFIX}_{slug(task)}_{slug(variety)}"


def _repository_of(path: Path) -> Path | None:
    """The git work tree `path` lies in, if any."""
    for parent in (path, *path.parents):
        if (parent / ".git").exists():
            return parent
    return None


def _check_out(out: Path) -> None:
    """The export never writes into the repository holding this package's source."""
    here = _repository_of(Path(__file__).resolve())
    target = out.resolve()
    if here is not None and (target == here or here in target.parents):
        raise ExportError(f"--out {out} is inside the repository {here}; the export holds the datasets' text, "
                          "which stays out of the repository: choose a folder outside it")


class _IclCatalogue:
    """The registry catalogue with `icl` allowed for every exportable task: the paper prompts SA and EQA
    in context; MRC, TC, NLI and DId get the same prompt design (Appendix I's, prompts.yaml) and demonstrations
    planned by the same rules (`--fewshot-from`'s default: English for them)."""

    def __init__(self, base: Any) -> None:
        self._base = base

    def __getattr__(self, name: str) -> Any:
        return getattr(self._base, name)

    def settings(self, task: str) -> tuple[str, ...]:
        own = tuple(self._base.settings(task))
        return own if "icl" in own or task not in EXPORTABLE else (*own, "icl")


def _doc(task: str, ex: Any, labels: Sequence[str]) -> dict[str, Any]:
    """One item as lm-eval reads it: the prompt block with its empty answer slot, the answer, the choices."""
    query = prompts.render(task, ex, with_answer=False)
    doc: dict[str, Any] = {"id": str(getattr(ex, "example_id", "") or ""), "query": query}
    if task == "eqa":
        doc["target"] = ex.answers[0] if ex.answers else ""
        doc["answers"] = list(ex.answers)
    elif task == "mrc":
        doc["choices"] = prompts.candidates(task, ex, labels)
        doc["target"] = str(ex.answer + 1)
    else:
        doc["choices"] = list(labels)
        doc["target"] = ex.label
    return doc


def _metrics(task: str) -> list[dict[str, Any]]:
    """The metrics as the task declares them: acc and acc_norm for every ranked task, plus macro F1 where
    that is the task's metric (utils.macro_f1; lm-eval's own `f1` is binary); EQA: SQuAD exact match and F1."""
    from dialectbench.tasks import get_task

    if task == "eqa":
        return [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True},
                {"metric": "f1", "aggregation": "mean", "higher_is_better": True}]
    out = [{"metric": "acc", "aggregation": "mean", "higher_is_better": True},
           {"metric": "acc_norm", "aggregation": "mean", "higher_is_better": True}]
    if get_task(task).metric == "macro_f1":
        out.append({"metric": "f1", "aggregation": "!function utils.macro_f1", "higher_is_better": True})
    return out


def headline_metric(task: str) -> str:
    """The lm-eval metric that is the task's stored DialectBench metric (what import reads back)."""
    from dialectbench.tasks import get_task

    metric = get_task(task).metric
    return {"accuracy": "acc", "macro_f1": "f1", "f1": "f1"}.get(metric, metric)


class _Function(str):
    """A YAML scalar written as lm-eval's `!function module.name` tag."""


def _function_representer(dumper: yaml.SafeDumper, value: _Function) -> Any:
    return dumper.represent_scalar("!function", str(value))


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Function, _function_representer)


def _task_yaml(task: str, name: str, folder: str, k: int, variety: str, cluster: str,
               sources: dict[str, Any]) -> dict[str, Any]:
    metrics = []
    for m in _metrics(task):
        agg = m["aggregation"]
        metrics.append({**m, "aggregation": _Function(agg.split(" ", 1)[1]) if agg.startswith("!function") else agg})
    config: dict[str, Any] = {
        "task": name,
        "custom_dataset": _Function("utils.load_docs"),
        "test_split": "test",
        "fewshot_split": "fewshot",
        "fewshot_config": {"sampler": "first_n"},
        "num_fewshot": k,
        "description": prompts.instruction(task, variety) + "\n\n",
        "doc_to_text": "query",
        "doc_to_target": "target",
        "target_delimiter": " ",
        "fewshot_delimiter": "\n\n",
        "metric_list": metrics,
        "metadata": {"version": EXPORT_VERSION, "dialectbench_task": task, "variety": variety,
                     "cluster": cluster, **sources},
    }
    if task == "eqa":
        config.update(output_type="generate_until", process_results=_Function("utils.process_eqa"),
                      generation_kwargs={"until": ["\n"], "do_sample": False,
                                         "max_gen_toks": 64})
    else:
        config.update(output_type="multiple_choice", doc_to_choice="choices")
    return config


def _sources(task: str, variety: str) -> dict[str, Any]:
    """The dataset's name, licence, citation and homepage from the packaged catalogue (or says unknown)."""
    try:
        from dialectbench.data.catalogue import load_catalogue

        cat = load_catalogue(task)
        entry = next((e for e in cat.entries if e.variety == variety), None)
        ds = cat.datasets.get(entry.dataset) if entry is not None else None
    except (ValueError, KeyError, OSError):
        ds = None
    if ds is None:
        return {"dataset": "not in the packaged catalogue (a user catalogue or the sample suite)",
                "licence": "unknown: see the data source"}
    return {"dataset": ds.name, "licence": ds.licence, "citation": ds.citation, "homepage": ds.homepage or ""}


UTILS = '''"""Written by `dialectbench export lm-eval`: loads this folder's JSONL (no hub) and the metrics lm-eval
lacks as such (macro F1; SQuAD exact match and F1 for EQA)."""

import collections
import json
import re
import string
from pathlib import Path

import datasets

HERE = Path(__file__).resolve().parent


def load_docs(**kwargs):
    out = {}
    for split in ("test", "fewshot"):
        path = HERE / f"{split}.jsonl"  # this task's own folder (lm-eval loads utils.py beside the YAML)
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        out[split] = datasets.Dataset.from_list(rows)
    return datasets.DatasetDict(out)


def macro_f1(items):
    from sklearn.metrics import f1_score

    golds, preds = zip(*items)
    return float(f1_score(golds, preds, average="macro"))


def _normalise(text):
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\\b(a|an|the)\\b", " ", text)
    return " ".join(text.split())


def _f1(prediction, gold):
    p, g = _normalise(prediction).split(), _normalise(gold).split()
    common = collections.Counter(p) & collections.Counter(g)
    same = sum(common.values())
    if not p or not g:
        return float(p == g)
    if same == 0:
        return 0.0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


def process_eqa(doc, results):
    prediction = results[0].strip()
    golds = doc["answers"] or [doc["target"]]
    return {"exact_match": max(float(_normalise(prediction) == _normalise(g)) for g in golds),
            "f1": max(_f1(prediction, g) for g in golds)}
'''


def _write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def _dump(path: Path, data: dict[str, Any]) -> None:
    path.write_text(yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=10_000),
                    encoding="utf-8")


def export_lm_eval(out: str | Path, *, tasks: Sequence[str] | None = None,
                   varieties: Sequence[str] | None = None, clusters: Sequence[str] | None = None,
                   data_dir: str | Path | None = None, limit: int | None = None, seed: int = 0,
                   fewshot: str | None = None, k_shots: int | None = None, source: Any = None) -> ExportSummary:
    """Write the lm-eval task folder for `tasks` (default: every exportable one) to `out`; returns what it
    wrote and what it skipped (and why). `limit`, `seed`, `fewshot` and `k_shots` mean what they mean to
    `dialectbench run` (--limit, --seed, --fewshot-from, k_shots=), so the same items and demonstrations."""
    from dialectbench.data.user_catalogue import with_user_data
    from dialectbench.runner.local_executor import _load_training, _without_demos
    from dialectbench.runner.options import LimitedSource
    from dialectbench.runner.orchestrate import _open_source
    from dialectbench.runner.plan import RegistryCatalogue, build_plan, split_names

    out = Path(out)
    _check_out(out)
    wanted = split_names(tasks) or list(EXPORTABLE)
    bad = [t for t in wanted if t not in EXPORTABLE]
    if bad:
        raise ExportError(f"cannot export {', '.join(bad)} to lm-eval: only tasks with an in-context prompt and "
                          f"an answer set or span are exported ({', '.join(EXPORTABLE)}); token-level tasks and "
                          "MT have no such prompt here")
    source = source if source is not None else _open_source(data_dir)
    source = with_user_data(source)
    if limit is not None:
        source = LimitedSource(source, limit, seed=seed)
    catalogue = _IclCatalogue(RegistryCatalogue())
    summary = ExportSummary(out)
    groups = []
    for task in wanted:  # DId's labels are the cluster's varieties: its demonstrations are the variety's own
        plan = build_plan(source, model="lm-eval-export", tasks=[task], varieties=varieties, clusters=clusters,
                          settings=["icl"], supports_icl=True, catalogue=catalogue,
                          fewshot=fewshot or DEFAULT_FEWSHOT.get(task), config={"seed": seed})
        summary.skipped += [(s.task, s.variety or "-", s.reason) for s in plan.skips]
        groups += plan.groups
    out.mkdir(parents=True, exist_ok=True)
    for group in groups:
        task = group.task
        try:
            train, _ = _load_training(group, source)
            train = _check_train(task, train, "lm-eval export")
        except Exception as err:  # noqa: BLE001 - a data problem: skipped with its reason, as a run skips it
            summary.skipped += [(task, j.variety, f"demonstrations: {err}") for j in group.jobs]
            continue
        labels = sorted({ex.label for ex in train}) if task in prompts.CLASSIFICATION else []
        k = k_shots if k_shots is not None else prompts.DEFAULT_K.get(task, prompts.DEFAULT_K_OTHER)
        demos = pick_demos(task, train, k, seed)
        for job in group.jobs:
            try:
                tests, held = _without_demos(source.load(task, job.variety, "test"), demos)
            except Exception as err:  # noqa: BLE001 - as above
                summary.skipped.append((task, job.variety, f"test data: {err}"))
                continue
            if task in prompts.CLASSIFICATION:
                unknown = sorted({ex.label for ex in tests} - set(labels))
                if unknown:  # lm-eval would score these as -100 (never right); the run scores them as wrong too
                    summary.skipped.append((task, job.variety, (f"test labels {unknown} are not in the "
                                            f"demonstrations' training labels {labels}; exported anyway")))
            name = task_name(task, job.variety)
            folder = f"{slug(task)}/{slug(job.variety)}"
            (out / folder).mkdir(parents=True, exist_ok=True)
            _write_jsonl(out / folder / "test.jsonl", [_doc(task, ex, labels) for ex in tests])
            _write_jsonl(out / folder / "fewshot.jsonl", [_doc(task, ex, labels) for ex in demos])
            (out / folder / "utils.py").write_text(UTILS, encoding="utf-8")
            cluster = job.cluster
            sources = _sources(task, job.variety)
            config = _task_yaml(task, name, folder, len(demos), job.variety, cluster, sources)
            # what `import lm-eval` stores the scores under: the run's setting and training-set name
            config["metadata"].update(setting="icl", train_on=job.train_on, demos=group.training.demos, seed=seed)
            _dump(out / folder / f"{name}.yaml", config)
            summary.tasks.append(Exported(task, job.variety, cluster, name, folder, len(tests), len(demos), held,
                                          labels, f"{group.training.fewshot}: {group.training.label} ({group.training.split})"))
    _write_groups(summary)
    _write_readme(summary, seed=seed, limit=limit)
    return summary


def _write_groups(summary: ExportSummary) -> None:
    by_task: dict[str, dict[str, list[str]]] = {}
    for e in summary.tasks:
        by_task.setdefault(e.task, {}).setdefault(e.cluster, []).append(e.name)
    task_groups = []
    for task, clusters in sorted(by_task.items()):
        metric = headline_metric(task)
        agg = [{"metric": m, "weight_by_size": False} for m in dict.fromkeys([metric, "acc"])
               if task in RANKED or m != "acc"]
        cluster_groups = []
        for cluster, names in sorted(clusters.items()):
            gname = f"{PREFIX}_{slug(task)}_cluster_{slug(cluster)}"
            _dump(summary.out / slug(task) / f"_{gname}.yaml",
                  {"group": gname, "task": sorted(names), "aggregate_metric_list": agg,
                   "metadata": {"version": EXPORT_VERSION}})
            cluster_groups.append(gname)
        gname = f"{PREFIX}_{slug(task)}"
        # the task's mean over varieties (each variety counts once, as DialectBench's aggregates do)
        _dump(summary.out / slug(task) / f"_{gname}.yaml",
              {"group": gname, "task": sorted(n for names in clusters.values() for n in names),
               "aggregate_metric_list": agg, "metadata": {"version": EXPORT_VERSION}})
        summary.groups += [*cluster_groups, gname]
        task_groups.append(gname)
    if task_groups:  # the tasks' metrics differ: the whole benchmark lists them, aggregating nothing across
        _dump(summary.out / f"_{PREFIX}.yaml", {"group": PREFIX, "task": task_groups,
                                                "metadata": {"version": EXPORT_VERSION}})
        summary.groups.append(PREFIX)


README = """# DialectBench as lm-evaluation-harness tasks

Written by `dialectbench export lm-eval` (seed {seed}, limit {limit}). Run with

    lm_eval --model hf --model_args pretrained=... --include_path {out} --tasks dialectbench_sa --log_samples --output_path results/

and read the results back with `dialectbench import lm-eval results/`.

## Tasks

Exported in context (one lm-eval task per task and variety; groups per cluster `dialectbench_<task>_cluster_<cluster>`,
per task `dialectbench_<task>`, and `dialectbench` for all):

- SA and EQA: the paper's in-context tasks (DialectBench §3.2 item 5, Appendix I prompts word for word).
- MRC, TC, NLI, DId: exported with the same prompt design (prompts.yaml in dialectbench) where the answer is a
  closed set: the label set of the training data the demonstrations come from (MRC: the option numbers).
- Not exported: POS, NER, dependency parsing (one label per word, no prompt) and MT (no in-context prompt
  in the paper; BLEU against pseudo-references needs the system's own translations).

Scoring: ranked tasks are `multiple_choice` (acc, acc_norm; macro F1 through utils.macro_f1 where macro F1 is the
task's metric: TC, NLI, MRC, DId); EQA is `generate_until` (stop at a newline, 64 tokens, greedy) with SQuAD
exact match and F1 (utils.process_eqa: English SQuAD normalisation, which is not DialectBench's own EQA scoring).

## Conventions

The prompt is exactly dialectbench's plain-text prompt: `description` is the instruction and a blank line, each
demonstration is its block and " " and its answer, blocks are separated by a blank line, and each choice is
scored as " <label>" after "Label:"/"Answer:". Differences with lm-eval's defaults:

- target delimiter " " and fewshot delimiter "\\n\\n": lm-eval's defaults, which are also the paper's format.
- tokenisation of the continuation: lm-eval encodes context+continuation and splits at the context's length,
  dialectbench encodes the continuation alone; the two agree for byte-level BPE tokenizers (GPT-2, Llama 3,
  SmolLM2: a space starts a new token), and can differ for a tokenizer whose merges cross the boundary.
- acc_norm: lm-eval divides a choice's log-likelihood by the number of *characters* of the choice;
  dialectbench by the UTF-8 *bytes* of " <choice>". The two rankings can differ; `acc` (the stored metric) does not.
- demonstrations: the `fewshot` split holds dialectbench's demonstrations in dialectbench's order (sampler
  `first_n`), so every item gets the same ones; lm-eval's usual random per-item sampling is not used.

## Items

{table}

## Sources and licences

{sources}

Skipped or flagged:

{skipped}
"""


def _write_readme(summary: ExportSummary, *, seed: int, limit: int | None) -> None:
    rows = ["| lm-eval task | task | variety | cluster | test items | demonstrations | held out | demos from |",
            "|---|---|---|---|---|---|---|---|"]
    rows += [f"| {e.name} | {e.task} | {e.variety} | {e.cluster} | {e.n_test} | {e.n_fewshot} | {e.held_out} | "
             f"{e.fewshot_source} |" for e in summary.tasks]
    seen: dict[str, str] = {}
    for e in summary.tasks:
        s = _sources(e.task, e.variety)
        seen.setdefault(f"{e.task}: {s['dataset']}", f"licence: {s['licence']}; {s.get('citation', '')} "
                                                     f"{s.get('homepage', '')}".strip())
    sources = "\n".join(f"- {k} ({v})" for k, v in sorted(seen.items())) or "- none"
    skipped = "\n".join(f"- {t} / {v}: {r}" for t, v, r in summary.skipped) or "- none"
    (summary.out / "README.md").write_text(README.format(seed=seed, limit=limit, out=summary.out,
                                                         table="\n".join(rows), sources=sources,
                                                         skipped=skipped), encoding="utf-8")
    (summary.out / "dialectbench_export.json").write_text(json.dumps(
        {"version": EXPORT_VERSION, "seed": seed, "limit": limit,
         "tasks": [e.__dict__ for e in summary.tasks], "groups": summary.groups}, indent=1, ensure_ascii=False),
        encoding="utf-8")
