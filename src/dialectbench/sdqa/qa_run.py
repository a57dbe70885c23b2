"""`sdqa qa` as a library call: load gold TyDi examples and (optionally) SD-QA transcripts, run the QA
pipeline per (dialect, ASR model), and add unfairness, Spearman WER-F1 and the mixed model."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

import pandas as pd

from dialectbench.extras import require
from dialectbench.sdqa.corpus import add_transcript_rows, load_sdqa
from dialectbench.sdqa.dialects import SDQAError
from dialectbench.sdqa.qa import (
    BaselineReader,
    EmbeddingRanker,
    LexicalRanker,
    PipelineQA,
    evaluate,
    mixed_model,
    qa_unfairness,
    question_sets,
    read_tydi,
    spearman_wer_f1,
)
from dialectbench.sdqa.wer import WerOptions, model_rows, utterances, wer_report


@dataclass
class QAResult:
    system: str
    f1: pd.DataFrame
    unfairness: list[dict] = field(default_factory=list)
    spearman: list[dict] = field(default_factory=list)
    mixed: list[dict] = field(default_factory=list)


def _train_set(train: str):
    from dialectbench.data.examples import QAExample
    from dialectbench.sdqa.demo import demo_train

    if train == "none":
        return None
    if train == "demo":
        return demo_train()
    p = Path(train)
    if not p.is_file():
        raise SDQAError(f"{p}: training file not found")
    try:
        rows = json.loads(p.read_text(encoding="utf-8"))
        return [QAExample(f"train-{i}", r["context"], r["question"], (r["answer"],),
                          (r["context"].find(r["answer"]),)) for i, r in enumerate(rows)]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise SDQAError(f"{p}: expected a JSON list of {{context, question, answer}} ({exc})") from None


def make_qa(ranker: str = "bm25", encoder: Path | None = None, train: str = "demo") -> PipelineQA:
    if ranker == "bm25":
        rk = LexicalRanker()
    elif ranker == "minilm":
        rk = EmbeddingRanker(encoder)
    else:
        raise SDQAError(f"unknown ranker {ranker!r}; choose bm25 or minilm")
    return PipelineQA(rk, BaselineReader(_train_set(train)))


def run_qa(tydi: str, *, data_dir: Path | None = None, lang: str = "eng", split: str = "dev",
           models: Sequence[str] | None = None, transcripts: Path | None = None, ranker: str = "bm25",
           encoder: Path | None = None, train: str = "demo", mixed: bool = False) -> QAResult:
    if mixed:
        require("sdqa qa --mixed", "statsmodels")
    examples = read_tydi(files("dialectbench.sdqa") / "demo_questions.json" if tydi == "demo" else tydi)
    qa = make_qa(ranker, encoder, train)
    if data_dir is None:
        f1, _ = evaluate(examples, {("gold", "gold"): {e.example_id: e.question for e in examples}}, qa)
        return QAResult(qa.name, f1)
    corpus = load_sdqa(data_dir, lang, split)
    if transcripts is not None:
        corpus = add_transcript_rows(corpus, transcripts)
    unmatched = set(corpus.questions) - {e.example_id for e in examples}
    if len(unmatched) == len(corpus.questions):
        raise SDQAError(f"none of the {len(corpus.questions)} SD-QA question ids appear in {tydi}")
    rows = list(models) if models else model_rows(corpus)
    f1, per_q = evaluate(examples, question_sets(corpus, rows), qa)
    res = QAResult(qa.name, f1, qa_unfairness(per_q, "passage") + qa_unfairness(per_q, "minimal"))
    wer = wer_report(corpus, models=rows).dialects.rename(columns={"row": "model_row"})
    wer = wer.drop(columns=["model"]).rename(columns={"model_row": "model"})
    for task in ("passage_f1", "minimal_f1"):
        for m in rows:
            try:
                res.spearman.append({"model": m, **spearman_wer_f1(wer[wer["model"] == m], f1, task)})
            except SDQAError:
                pass  # fewer than 3 dialects
    if mixed:
        utt = utterances(corpus, models=rows, options=WerOptions())
        res.mixed = [{"model": m, **mixed_model(per_q[per_q["model"] == m], utt, t)}
                     for m in rows for t in ("passage", "minimal")]
    return res
