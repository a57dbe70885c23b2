"""ASR: word and character error rate via jiwer.

Two aggregates exist and are different numbers (a known pitfall): `pooling="corpus"` sums edits and
reference words over all utterances (jiwer's own corpus WER, and the usual ASR figure); `pooling="mean"`
averages per-utterance WERs (each utterance weighs the same, as a per-user benefit view does). Both are
always computed; `pooling` picks the score. Scores are percentages and may exceed 100.

Normalization is applied to reference and hypothesis alike before scoring:
  "none"  - jiwer's default: strip, collapse spaces, split on white space (case and punctuation count);
  "basic" - additionally lower-case and remove punctuation (Unicode category P), the usual choice for
            reporting ASR quality of dialectal speech.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import jiwer

from dialectbench.metrics.result import MetricResult, check_lengths, pct
from dialectbench.metrics.signature import Signature

NORMALIZATIONS = ("none", "basic")


def normalize_transcript(text: str, normalization: str = "basic") -> str:
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"unknown normalization {normalization!r}; choose one of {NORMALIZATIONS}")
    if normalization == "basic":
        text = "".join(" " if unicodedata.category(c).startswith("P") else c for c in text.lower())
    return " ".join(text.split())


def _error_rate(kind: str, references: Sequence[str], hypotheses: Sequence[str], normalization: str,
                pooling: str) -> MetricResult:
    check_lengths(references, hypotheses, "hypotheses")
    if pooling not in ("corpus", "mean"):
        raise ValueError(f"unknown pooling {pooling!r}; choose 'corpus' (pooled edits) or 'mean'")
    refs = [normalize_transcript(r, normalization) for r in references]
    hyps = [normalize_transcript(h, normalization) for h in hypotheses]
    for i, r in enumerate(refs):
        if not r:
            raise ValueError(f"utterance {i}: reference is empty after {normalization!r} normalization; "
                             f"its {kind.upper()} is undefined")
    process = jiwer.process_words if kind == "wer" else jiwer.process_characters
    stats, per = [], []
    for r, h in zip(refs, hyps):
        o = process(r, h)
        n = o.hits + o.substitutions + o.deletions
        errs = o.substitutions + o.deletions + o.insertions
        stats.append([errs, n])
        per.append(errs / n)
    total_err = sum(s[0] for s in stats)
    total_n = sum(s[1] for s in stats)
    corpus = pct(total_err / total_n) if total_n else float("nan")
    mean = pct(sum(per) / len(per)) if per else float("nan")
    sig = Signature.build(kind, kind, "jiwer", ("norm", normalization), ("pooling", pooling), library="jiwer")
    return MetricResult(kind, corpus if pooling == "corpus" else mean, per, sig,
                        {"corpus": corpus, "mean_utterance": mean, "stats": stats})


def wer(references: Sequence[str], hypotheses: Sequence[str], *, normalization: str = "basic",
        pooling: str = "corpus") -> MetricResult:
    """Word error rate; extra has both "corpus" (pooled) and "mean_utterance"; stats rows (errors, n)."""
    return _error_rate("wer", references, hypotheses, normalization, pooling)


def cer(references: Sequence[str], hypotheses: Sequence[str], *, normalization: str = "basic",
        pooling: str = "corpus") -> MetricResult:
    """Character error rate (spaces count as characters, as in jiwer)."""
    return _error_rate("cer", references, hypotheses, normalization, pooling)
