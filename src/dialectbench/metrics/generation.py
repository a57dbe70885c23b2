"""Machine translation: BLEU and chrF via sacrebleu, with sacrebleu's own signature string."""

from __future__ import annotations

from collections.abc import Sequence

from sacrebleu.metrics import BLEU, CHRF

from dialectbench.metrics.result import MetricResult, check_lengths
from dialectbench.metrics.signature import Signature


def _refs(references: Sequence[str] | Sequence[Sequence[str]]) -> list[list[str]]:
    """sacrebleu wants one stream per reference set: a list of lists, each as long as the hypotheses."""
    if references and not isinstance(references[0], str):
        sets = list(zip(*[list(r) for r in references]))
        return [list(s) for s in sets]
    return [list(references)]


def bleu(references: Sequence[str] | Sequence[Sequence[str]], hypotheses: Sequence[str], *,
         tokenize: str | None = None, lowercase: bool = False) -> MetricResult:
    """Corpus BLEU (sacrebleu defaults: 13a tokenization, exp smoothing). references: one string per
    hypothesis, or a sequence of equally many references per hypothesis. chrF is in extra["chrf"]."""
    check_lengths(references, hypotheses, "hypotheses")
    refs, hyps = _refs(references), list(hypotheses)
    metric = BLEU(tokenize=tokenize, lowercase=lowercase)
    res = metric.corpus_score(hyps, refs)
    chrf_res = chrf(references, hypotheses)
    return MetricResult("bleu", float(res.score), None, Signature.from_sacrebleu(metric.get_signature(), "bleu"),
                        {"chrf": chrf_res.score, "chrf_signature": chrf_res.signature,
                         "bp": res.bp, "precisions": list(res.precisions), "sys_len": res.sys_len,
                         "ref_len": res.ref_len})


def chrf(references: Sequence[str] | Sequence[Sequence[str]], hypotheses: Sequence[str], *,
         word_order: int = 0) -> MetricResult:
    """Corpus chrF (word_order=0) or chrF++ (word_order=2)."""
    check_lengths(references, hypotheses, "hypotheses")
    metric = CHRF(word_order=word_order)
    res = metric.corpus_score(list(hypotheses), _refs(references))
    name = "chrf" if word_order == 0 else "chrf++"
    return MetricResult(name, float(res.score), None, Signature.from_sacrebleu(metric.get_signature(), name), {})
