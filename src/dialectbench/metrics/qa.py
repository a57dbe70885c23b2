"""Extractive QA: SQuAD-style exact match and token F1.

`normalize_answer` is the official SQuAD v1.1 evaluation normalization (lower-case, drop ASCII
punctuation, drop the English articles a/an/the, collapse white space); F1 is over the bag of
white-space tokens and a prediction is scored against its best-matching gold answer.

For scripts written without spaces between words (Chinese, Japanese, Thai, ...) white-space tokens are
whole clauses, so token F1 degenerates to exact match. The character-level variant (as MLQA does for
Chinese) additionally drops all Unicode punctuation and scores the bag of non-space characters.
`segmentation="auto"` picks "char" for the languages in CHAR_LANGUAGES and "word" otherwise.
"""

from __future__ import annotations

import collections
import re
import string
import unicodedata
from collections.abc import Sequence

from dialectbench.metrics.result import MetricResult, check_lengths, pct
from dialectbench.metrics.signature import Signature

# ISO 639-1/3 codes of languages usually written without word spaces.
CHAR_LANGUAGES = frozenset({"zh", "zho", "cmn", "yue", "lzh", "wuu", "hak", "nan", "gan", "ja", "jpn",
                            "th", "tha", "lo", "lao", "km", "khm", "my", "mya", "bo", "bod"})
_ASCII_PUNCT = set(string.punctuation)


def normalize_answer(s: str) -> str:
    """Official SQuAD v1.1 normalization."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _ASCII_PUNCT)
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def _tokens(s: str, segmentation: str) -> list[str]:
    norm = normalize_answer(s)
    if segmentation == "word":
        return norm.split()
    return [ch for ch in norm if not ch.isspace() and not unicodedata.category(ch).startswith("P")]


def _f1(pred_toks: list[str], gold_toks: list[str]) -> float:
    common = collections.Counter(pred_toks) & collections.Counter(gold_toks)
    same = sum(common.values())
    if same == 0:  # v1.1: also 0 when both normalize to nothing (v2.0 would give 1)
        return 0.0
    p, r = same / len(pred_toks), same / len(gold_toks)
    return 2 * p * r / (p + r)


def resolve_segmentation(segmentation: str = "auto", language: str | None = None) -> str:
    if segmentation == "auto":
        base = (language or "").lower().replace("_", "-").split("-")[0]
        return "char" if base in CHAR_LANGUAGES else "word"
    if segmentation not in ("word", "char"):
        raise ValueError(f"unknown segmentation {segmentation!r}; choose 'auto', 'word' or 'char'")
    return segmentation


def exact_match(prediction: str, gold: str, segmentation: str = "word") -> float:
    return float(_tokens(prediction, segmentation) == _tokens(gold, segmentation)
                 if segmentation == "char" else normalize_answer(prediction) == normalize_answer(gold))


def span_f1(prediction: str, gold: str, segmentation: str = "word") -> float:
    return _f1(_tokens(prediction, segmentation), _tokens(gold, segmentation))


def squad_scores(gold_answers: Sequence[Sequence[str]], predictions: Sequence[str], *,
                 segmentation: str = "auto", language: str | None = None) -> MetricResult:
    """Mean span F1 (score) and exact match (extra["exact_match"]); per_example = per-question F1 (0-1),
    extra["per_example_em"] the per-question EM. Each question takes the max over its gold answers."""
    check_lengths(gold_answers, predictions)
    seg = resolve_segmentation(segmentation, language)
    f1s, ems = [], []
    for i, (golds, pred) in enumerate(zip(gold_answers, predictions)):
        if not golds:
            raise ValueError(f"question {i} has no gold answer")
        f1s.append(max(span_f1(pred, g, seg) for g in golds))
        ems.append(max(exact_match(pred, g, seg) for g in golds))
    n = len(f1s)
    f1 = pct(sum(f1s) / n) if n else float("nan")
    em = pct(sum(ems) / n) if n else float("nan")
    sig = Signature.build("f1", "squad-f1", ("norm", "squad-v1.1"), ("tokens", seg), "max-over-golds")
    return MetricResult("f1", f1, f1s, sig, {"exact_match": em, "per_example_em": ems, "segmentation": seg})
