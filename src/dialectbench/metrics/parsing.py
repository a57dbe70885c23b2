"""Dependency parsing: UAS and LAS.

Defaults follow the CoNLL 2018 shared-task evaluation (conll18_ud_eval.py) and the DialectBench parser
(hgiyt/allennlp AttachmentScores): every syntactic word is scored, punctuation included, and LAS compares
only the universal part of the relation (`nmod:poss` -> `nmod`). Words whose gold head is negative (HEAD "_" in
TwitterAAE, read as UNANNOTATED) have no gold tree and are skipped. `exclude_punct=True` drops words whose
gold UPOS is PUNCT (the older CoNLL-X convention); `deprel_subtypes=True` compares full relations.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dialectbench.metrics.result import MetricResult, check_lengths, pct
from dialectbench.metrics.signature import Signature


def _universal(rel: str) -> str:
    return rel.split(":", 1)[0]


def _sentence_counts(gold_heads, gold_rels, pred_heads, pred_rels, keep, subtypes: bool):
    if not (len(gold_heads) == len(pred_heads) == len(pred_rels) == len(gold_rels)):
        raise ValueError(f"sentence has {len(gold_heads)} gold words but {len(pred_heads)} predicted heads "
                         f"and {len(pred_rels)} predicted relations")
    uas = las = n = 0
    for gh, gr, ph, pr, k in zip(gold_heads, gold_rels, pred_heads, pred_rels, keep):
        if not k or int(gh) < 0:  # a negative gold head: the treebank left the word unannotated
            continue
        n += 1
        if int(gh) == int(ph):
            uas += 1
            las += (gr == pr) if subtypes else (_universal(gr) == _universal(pr))
    return uas, las, n


def attachment_scores(gold_heads: Sequence[Sequence[int]], gold_rels: Sequence[Sequence[str]],
                      pred_heads: Sequence[Sequence[int]], pred_rels: Sequence[Sequence[str]], *,
                      gold_upos: Sequence[Sequence[str]] | None = None, exclude_punct: bool = False,
                      deprel_subtypes: bool = False) -> MetricResult:
    """Corpus UAS (score) and LAS (extra["las"]) pooled over words; per-sentence UAS in `per_example`.

    extra["stats"] rows are (uas_correct, las_correct, n_words) per sentence.
    """
    check_lengths(gold_heads, pred_heads, "predicted sentences")
    if exclude_punct and gold_upos is None:
        raise ValueError("exclude_punct=True needs gold_upos to know which words are punctuation")
    stats = []
    for i in range(len(gold_heads)):
        keep = ([u != "PUNCT" for u in gold_upos[i]] if exclude_punct else [True] * len(gold_heads[i]))
        stats.append(_sentence_counts(gold_heads[i], gold_rels[i], pred_heads[i], pred_rels[i], keep,
                                      deprel_subtypes))
    arr = np.array(stats, dtype=float).reshape(-1, 3)
    total = arr[:, 2].sum()
    uas = pct(arr[:, 0].sum() / total) if total else float("nan")
    las = pct(arr[:, 1].sum() / total) if total else float("nan")
    per = [u / n if n else float("nan") for u, _, n in stats]
    sig = Signature.build("uas", "uas", ("punct", "excluded" if exclude_punct else "included"),
                          ("deprel", "full" if deprel_subtypes else "universal"), ("pooled", "words"))
    return MetricResult("uas", uas, per, sig,
                        {"las": las, "n_words": int(total), "stats": [list(s) for s in stats]})
