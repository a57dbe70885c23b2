"""`dialectbench perturb` (a synthetic-variety copy of a test file) and `dialectbench perturb-rules`
(the rule and profile listings): thin wrappers over dialectbench.perturb."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import typer

from dialectbench.cli.convention import deprecated, one_of, prefer
from dialectbench.cli.output import FORMAT_OPTION, Format, emit, fail, stderr, warn

UD_TASKS = ("pos", "dep")
TEXT_TASKS = ("tc", "sa", "nli")
TASKS = (*UD_TASKS, "ner", *TEXT_TASKS)
# the text columns rewritten when --column is not given (header names; SA files have none: column 0)
TEXT_COLUMNS = {"tc": ["text"], "sa": ["0"], "nli": ["premise", "hypothesis"]}


INPUT_OPT = typer.Option(..., "--input", "-i", help="File to rewrite: CoNLL-U (pos, dep), IOB (ner) or a "
                         "TSV/CSV (tc, sa, nli).")
OUTPUT_OPT = typer.Option(None, "--output", help="File to write the perturbed copy to (same format; required).")
PROFILE_OPT = typer.Option(None, "--profile", "-p", help="aave, singlish, indian or nigerian (see perturb-rules).")
RULE_OPT = typer.Option(None, "--rule", "-r", help="Apply only these rules (repeatable), at --rate.")
RATE_OPT = typer.Option(1.0, "--rate", min=0.0, max=1.0, help="Per-site rate of --rule.")
TASK_OPT = typer.Option(None, "--tasks", "-t", help="The input's task, one of: pos or dep (CoNLL-U, gold trees; "
                        "default dep); ner (IOB) or tc, sa, nli (text columns of a TSV/CSV; labels copied) need "
                        "--analyzer-train.")
ANALYZER_OPT = typer.Option(None, "--analyzer-train", help="ner, tc, sa, nli: UD treebank (CoNLL-U, e.g. EWT "
                            "train) to train the tagger and parser that analyse the tokens (cached after the "
                            "first run).")
COLUMN_OPT = typer.Option(None, "--column", help="tc, sa, nli: a text column to rewrite (header name or "
                          "0-based index; repeatable). Default: text (tc), 0 (sa, no header), premise and "
                          "hypothesis (nli).")
SEED_OPT = typer.Option(0, "--seed", help="Random seed (same seed, same output).")
UNANNOTATED_OPT = typer.Option(False, "--unannotated-heads", help="Accept HEAD '_' (TwitterAAE).")
ONLY_PROFILE_OPT = typer.Option(None, "--profile", "-p", help="Only this profile's rules.")


FORMAT_OPT = typer.Option(None, "--format", "-f", help="table, csv or json: the edits per rule on stdout "
                          "(default: a summary on stderr).")


OLD_OUT = deprecated("--out", "-o", use="--output")
OLD_TASK = deprecated("--task", use="--tasks")
OLD_COLUMN = deprecated("-c", use="--column")


def perturb_cmd(input: Path = INPUT_OPT, output: Path | None = OUTPUT_OPT, profile: str | None = PROFILE_OPT,
                rule: list[str] | None = RULE_OPT, rate: float = RATE_OPT, tasks: list[str] | None = TASK_OPT,
                seed: int = SEED_OPT, unannotated_heads: bool = UNANNOTATED_OPT,
                analyzer_train: Path | None = ANALYZER_OPT, column: list[str] | None = COLUMN_OPT,
                fmt: Format | None = FORMAT_OPT, old_out: Path | None = OLD_OUT,
                old_task: list[str] | None = OLD_TASK,
                old_column: list[str] | None = OLD_COLUMN) -> None:
    """Write a perturbed copy of a test file: a synthetic dialect variety with aligned labels."""
    out = prefer(output, old_out, "--out/-o", "--output")
    if out is None:
        fail("give --output FILE (where the perturbed copy goes)")
    task = one_of(prefer(tasks, old_task, "--task", "--tasks"), "--tasks") or "dep"
    column = prefer(column, old_column, "-c", "--column")
    from dialectbench.data.errors import DataError
    from dialectbench.data.readers.conllu import read_conllu
    from dialectbench.perturb import PerturbError, get_profile, get_rule, perturb_all
    from dialectbench.perturb.conllu_out import source_blocks, write_conllu, write_iob

    if task not in TASKS:
        fail(f"--tasks is one of {', '.join(TASKS)}, not {task!r}")
    if (profile is None) == (not rule):
        fail("give --profile or --rule, one of the two")
    if task not in UD_TASKS and analyzer_train is None:
        fail(f"--tasks {task} needs --analyzer-train FILE.conllu (a UD treebank to train the tagger and parser "
             "that analyse the tokens, e.g. UD_English-EWT train)")
    if task not in UD_TASKS and not analyzer_train.is_file():
        fail(f"--analyzer-train: no such file {analyzer_train}")
    if not input.is_file():
        fail(f"--input: no such file {input}" if not input.exists() else f"--input: {input} is not a file")
    try:
        rates = get_profile(profile).rates() if profile else {get_rule(r).id: rate for r in rule or []}
        if task in TEXT_TASKS:
            fired = _perturb_text(input, out, column or TEXT_COLUMNS[task], analyzer_train, rates, seed)
            return _emit_fired(fired, fmt)
        if task == "ner":
            sentences, perturbed, fired = _perturb_ner(input, analyzer_train, rates, seed)
        else:
            with warnings.catch_warnings(record=True) as caught:  # one plain line each, not Python's format
                warnings.simplefilter("always")
                sentences = list(read_conllu(input, unannotated_heads=unannotated_heads))
            for w in caught:
                warn(str(w.message))
            details: list = []
            perturbed, fired = perturb_all(sentences, rates, seed=seed, details=details)
    except (PerturbError, DataError) as err:
        fail(str(err))
    except OSError as err:  # unreadable (permissions, a disk error): the readers' own errors name the file
        fail(f"{err.filename}: cannot be read ({err.strerror})" if err.filename else str(err))
    out.parent.mkdir(parents=True, exist_ok=True)
    if task == "ner":
        write_iob(perturbed, out)
    else:  # the source's own lines and columns wherever the rules left them alone
        write_conllu(out, sentences, perturbed, details, source_blocks(input))
    changed = sum(p is not s for p, s in zip(perturbed, sentences))
    stderr.print(f"{changed} of {len(sentences)} sentence(s) changed, {sum(fired.values())} edit site(s); "
                 f"written to {out}", highlight=False)
    for rule_id, n in fired.most_common():
        stderr.print(f"  {rule_id}: {n}", highlight=False)
    _emit_fired(fired, fmt)


def _emit_fired(fired: Any, fmt: Format | None) -> None:
    if fmt is not None:
        emit([{"rule": r, "edit_sites": n} for r, n in fired.most_common()], fmt, title="edits per rule",
             columns=["rule", "edit_sites"])


def _perturb_ner(path: Path, ud_train: Path, rates: dict[str, float], seed: int):
    """NER sentences, their perturbed copies and the fired counts; the trees come from the analyser."""
    from collections import Counter

    from dialectbench.data.readers.iob import read_iob
    from dialectbench.perturb import perturb_tagged

    sentences = list(read_iob(path))
    analyses = _analyzer(ud_train, seed).analyze([s.tokens for s in sentences], [s.example_id for s in sentences])
    perturbed, fired = [], Counter()
    for sent, analysis in zip(sentences, analyses):
        new, applied = perturb_tagged(sent, analysis, rates, seed=seed)
        perturbed.append(new)
        fired.update(applied.fired)
    return sentences, perturbed, fired


def _analyzer(ud_train: Path, seed: int):
    from dialectbench.perturb.analyzer import train_analyzer

    stderr.print(f"analysing with a tagger and parser trained on {ud_train} (minutes the first time; cached)")
    return train_analyzer(ud_train, seed=seed)


def _perturb_text(path: Path, out: Path, columns: list[str], ud_train: Path, rates: dict[str, float],
                  seed: int) -> Any:
    from dialectbench.perturb.text import perturb_table

    header = not all(c.lstrip("-").isdecimal() for c in columns)
    try:
        n, changed, fired = perturb_table(path, out, columns, _analyzer(ud_train, seed), rates, seed=seed,
                                          header=header)
    except (OSError, UnicodeDecodeError) as err:
        fail(f"{path}: cannot read it ({err})")
    stderr.print(f"{changed} of {n} row(s) changed ({', '.join(columns)}), {sum(fired.values())} edit site(s); "
                 f"labels and other columns copied; written to {out}")
    for rule_id, k in fired.most_common():
        stderr.print(f"  {rule_id}: {k}")
    return fired


def rules_cmd(profile: str | None = ONLY_PROFILE_OPT, fmt: Format = FORMAT_OPTION) -> None:
    """List the dialect-feature rules (eWAVE number, feature) with each profile's rating and rate."""
    from dialectbench.perturb import PerturbError, get_profile, profile_specs, rule_specs

    try:
        chosen = [get_profile(profile)] if profile else list(profile_specs().values())
    except PerturbError as err:
        fail(str(err))
    from dialectbench.perturb.catalogue import RATING_RATES

    rows = []
    for rid, spec in rule_specs().items():
        if profile and rid not in chosen[0].features:
            continue
        row = {"rule": rid, "ewave": "-" if spec.ewave is None else spec.ewave, "feature": spec.feature,
               **{p.id: p.features.get(rid, "-") for p in chosen}}
        if profile:
            row["rate"] = chosen[0].rates()[rid]
        rows.append(row)
    columns = list(rows[0]) if rows else None
    if fmt == Format.table and not profile and columns:  # 80 columns: the feature names only in csv/json
        columns.remove("feature")
    legend = ", ".join(f"{k} {v}" for k, v in RATING_RATES.items())
    emit(rows, fmt, title=f"Dialect-feature rules: eWAVE rating per profile (per-site rate {legend}; - = not "
                          "applied)", columns=columns)


def register(app: typer.Typer) -> None:
    app.command("perturb")(perturb_cmd)
    app.command("perturb-rules")(rules_cmd)
