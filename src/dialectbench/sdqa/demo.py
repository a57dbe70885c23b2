"""An offline spoken-QA demo: our own questions (demo_questions.json) are synthesized with espeak-ng in
several English accent voices, transcribed with PocketSphinx, answered by the CPU baseline, and scored
per voice (WER, passage and minimal-answer F1, unfairness). The voices are synthetic accents, not
recordings of dialect speakers: the numbers show the pipeline works, not how any real dialect fares."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.resources import files
from itertools import pairwise
from pathlib import Path

import pandas as pd

from dialectbench.extras import require
from dialectbench.sdqa.asr import PocketSphinxASR, transcribe_folder
from dialectbench.sdqa.corpus import SDQACorpus
from dialectbench.sdqa.dialects import SDQAError
from dialectbench.sdqa.qa import (
    BaselineReader,
    LexicalRanker,
    PipelineQA,
    TydiExample,
    evaluate,
    qa_unfairness,
    question_sets,
    read_tydi,
)
from dialectbench.sdqa.wer import WerOptions, wer_report

VOICES = ("en-us", "en-gb", "en-gb-scotland", "en-029", "en-us-nyc")
SYNTHETIC_NOTE = ("The voices are SYNTHETIC (espeak-ng accent voices), not recordings of dialect speakers; "
                  "PocketSphinx uses a small language model built from the demo passages and training "
                  "questions (never the test questions).")
ASR_NAME = "pocketsphinx"


def demo_examples() -> list[TydiExample]:
    return read_tydi(files("dialectbench.sdqa") / "demo_questions.json")


def demo_train():
    """Our own small SQuAD-style training set for the baseline reader."""
    from dialectbench.data.examples import QAExample

    rows = json.loads((files("dialectbench.sdqa") / "demo_train.json").read_text(encoding="utf-8"))
    return [QAExample(f"train-{i}", r["context"], r["question"], (r["answer"],), (r["context"].find(r["answer"]),))
            for i, r in enumerate(rows)]


def synthesize(text: str, voice: str, path: Path, speed: int = 140) -> None:
    """espeak-ng to a wav file (clear error when espeak-ng or the voice is missing)."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise SDQAError("espeak-ng is not installed (Debian/Ubuntu: apt-get install espeak-ng)")
    path.parent.mkdir(parents=True, exist_ok=True)
    res = subprocess.run([exe, "-v", voice, "-s", str(speed), "-w", str(path), text], capture_output=True,
                         text=True, check=False)
    if res.returncode != 0 or not path.is_file():
        raise SDQAError(f"espeak-ng failed for voice {voice!r}: {res.stderr.strip() or 'no output'}")


def write_arpa(sentences: Iterable[str], path: Path, vocabulary: set[str], discount: float = 0.5) -> None:
    """A small bigram ARPA language model (absolute discounting, backoff to add-one unigrams) over the
    words of `sentences` that the pronunciation dictionary knows."""
    sents = [["<s>", *[w for w in re.findall(r"[a-z']+", s.lower()) if w in vocabulary], "</s>"]
             for s in sentences]
    uni = Counter(w for s in sents for w in s)
    bi = Counter((a, b) for s in sents for a, b in pairwise(s))
    total = sum(c for w, c in uni.items() if w != "<s>")
    p_uni = {w: (uni[w] + 1) / (total + len(uni)) for w in uni}
    bigrams, backoff = [], {}
    for a in uni:
        seen = [(b, c) for (x, b), c in bi.items() if x == a]
        left = 1 - sum((c - discount) / uni[a] for _, c in seen)
        rest = 1 - sum(p_uni[b] for b, _ in seen)
        backoff[a] = math.log10(max(left, 1e-9) / max(rest, 1e-9)) if seen else 0.0
        bigrams += [f"{math.log10((c - discount) / uni[a]):.4f} {a} {b}" for b, c in seen]
    unigrams = [f"{-99 if w == '<s>' else math.log10(p_uni[w]):.4f} {w} {backoff[w]:.4f}" for w in uni]
    path.write_text(f"\\data\\\nngram 1={len(unigrams)}\nngram 2={len(bigrams)}\n\n\\1-grams:\n"
                    + "\n".join(unigrams) + "\n\n\\2-grams:\n" + "\n".join(bigrams) + "\n\n\\end\\\n")


def _domain_lm(examples: Sequence[TydiExample], workdir: Path) -> Path:
    import pocketsphinx

    dic = Path(pocketsphinx.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    vocab = {ln.split()[0] for ln in dic.read_text(encoding="utf-8").splitlines() if ln.strip()}
    texts = [ex.passage_text(i) for ex in examples for i in range(len(ex.passages))]
    texts += [t.question for t in demo_train()] + [t.context for t in demo_train()]
    path = workdir / "demo.arpa"
    write_arpa(texts, path, vocab)
    return path


@dataclass
class DemoResult:
    transcripts: pd.DataFrame
    wer: pd.DataFrame           # dialect (voice), model, wer, n
    wer_unfairness: list[dict]
    qa: pd.DataFrame            # dialect, model, passage_f1, minimal_f1, n
    qa_unfairness: list[dict]
    note: str = SYNTHETIC_NOTE


def run_demo(voices: Sequence[str] = VOICES, *, n_questions: int | None = None, workdir: Path | None = None,
             domain_lm: bool = True, progress: bool = False) -> DemoResult:
    require("sdqa demo", "pocketsphinx", "soundfile")  # before minutes of speech synthesis
    examples = demo_examples()[:n_questions] if n_questions else demo_examples()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(workdir or tmp)
        for voice in voices:
            for ex in examples:
                synthesize(ex.question, voice, root / "eng" / voice / f"{ex.example_id}.wav")
        asr = PocketSphinxASR(progress=progress, lm=_domain_lm(examples, root) if domain_lm else None)
        rows = transcribe_folder(asr, root, lang="eng", model_name=ASR_NAME)
    corpus = _corpus(examples, rows)
    report = wer_report(corpus, models=[ASR_NAME], options=WerOptions(subset="all"))
    qa = PipelineQA(LexicalRanker(), BaselineReader(demo_train()))
    f1, per_q = evaluate(examples, question_sets(corpus, [ASR_NAME]), qa)
    qa_unfair = qa_unfairness(per_q, "passage") + qa_unfairness(per_q, "minimal")
    return DemoResult(pd.DataFrame(rows), report.dialects, report.unfairness, f1, qa_unfair)


def _corpus(examples: Sequence[TydiExample], rows: list[dict]) -> SDQACorpus:
    from dialectbench.data.examples import SpokenQuestion

    questions = {ex.example_id: ex.question for ex in examples}
    items = [SpokenQuestion(r["example_id"], r["dialect"], questions[r["example_id"]], {ASR_NAME: r["transcript"]})
             for r in rows]
    models = {d: [ASR_NAME] for d in dict.fromkeys(r["dialect"] for r in rows)}
    return SDQACorpus("eng", questions, items, models, "demo")
