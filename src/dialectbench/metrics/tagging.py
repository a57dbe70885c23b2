"""Sequence labelling: POS tagging accuracy/F1 and entity F1, on seqeval.

POS "F1" in DialectBench (Table 11) is what the authors' HF token-classification script
(scripts/pos_tagging/run_pos_tagging.py) reports: seqeval's default (lenient, CoNLL-2000) overall F1
computed on the raw UPOS strings. seqeval then reads the first letter of a UPOS tag as a chunk prefix
(NOUN -> type "OUN"; runs of the same tag merge into one chunk), so this F1 differs from token accuracy.
We reproduce it as `f1="seqeval"` (the paper's number) and offer `f1="micro"` (token-level micro F1,
which equals accuracy when every token gets exactly one tag).

Entity F1 defaults to seqeval `mode="strict"` with scheme IOB2 (a chunk counts only if its boundaries and
type match exactly, and ill-formed chunks such as a leading I- are not repaired). `mode="lenient"` is
seqeval's default CoNLL evaluation, which the DialectBench NER script used.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from seqeval.metrics import accuracy_score
from seqeval.metrics import f1_score as seqeval_f1
from seqeval.metrics.sequence_labeling import get_entities
from seqeval.scheme import BILOU, IOB1, IOB2, IOBES, IOE1, IOE2, Entities

from dialectbench.metrics.result import MetricResult, check_lengths, pct
from dialectbench.metrics.signature import Signature

SCHEMES = {"IOB1": IOB1, "IOB2": IOB2, "IOE1": IOE1, "IOE2": IOE2, "IOBES": IOBES, "BIOES": IOBES,
           "BILOU": BILOU}
_PREFIXES = {"IOB1": "BI", "IOB2": "BI", "IOE1": "IE", "IOE2": "IE", "IOBES": "BIES", "BIOES": "BIES",
             "BILOU": "BILU"}


def _as_lists(seqs) -> list[list[str]]:
    return [list(s) for s in seqs]


def _check_pairs(golds, preds) -> None:
    check_lengths(golds, preds, "predicted sentences")
    for i, (g, p) in enumerate(zip(golds, preds)):
        if len(g) != len(p):
            raise ValueError(f"sentence {i}: {len(g)} gold tags but {len(p)} predicted tags")


def pos_scores(golds: Sequence[Sequence[str]], preds: Sequence[Sequence[str]], *,
               f1: str = "seqeval") -> MetricResult:
    """POS tagging F1 (score; see module doc for `f1`) and token accuracy (extra["accuracy"]).

    per_example: per-sentence token accuracy; extra["stats"] rows are (correct, n_tokens).
    """
    g, p = _as_lists(golds), _as_lists(preds)
    _check_pairs(g, p)
    stats = [(sum(a == b for a, b in zip(gs, ps)), len(gs)) for gs, ps in zip(g, p)]
    n = sum(s[1] for s in stats)
    acc = pct(sum(s[0] for s in stats) / n) if n else float("nan")
    if f1 == "seqeval":
        with warnings.catch_warnings():  # UPOS tags are "not NE tags" to seqeval; that is the point here
            warnings.simplefilter("ignore")
            score = pct(seqeval_f1(g, p)) if n else float("nan")
        sig = Signature.build("f1", "pos-f1", ("seqeval", "default-mode-on-raw-upos (DialectBench)"),
                              ("accuracy", "token"), library="seqeval")
    elif f1 == "micro":
        score, sig = acc, Signature.build("f1", "pos-f1", "micro-over-tokens (= accuracy)")
    else:
        raise ValueError(f"unknown POS f1 {f1!r}; choose 'seqeval' (the paper's) or 'micro'")
    per = [c / k if k else float("nan") for c, k in stats]
    return MetricResult("f1", score, per, sig, {"accuracy": acc, "stats": [list(s) for s in stats]})


def _validate_tags(seqs: list[list[str]], scheme: str, who: str) -> None:
    allowed = _PREFIXES[scheme]
    for i, s in enumerate(seqs):
        for j, tag in enumerate(s):
            if tag == "O":
                continue
            if len(tag) < 3 or tag[1] != "-" or tag[0] not in allowed:
                raise ValueError(f"{who} sentence {i}, token {j}: tag {tag!r} is not 'O' or one of "
                                 f"{'/'.join(c + '-TYPE' for c in allowed)} ({scheme})")


def _spans(seq: list[str], scheme: str, strict: bool) -> set[tuple[str, int, int]]:
    if strict:
        ents = Entities([seq], SCHEMES[scheme]).entities[0]
        return {(e.tag, e.start, e.end) for e in ents}
    return {(t, s, e + 1) for t, s, e in get_entities(seq)}


def detect_scheme(seqs: Sequence[Sequence[str]]) -> str:
    """'IOBES' when any tag uses an E-/S- prefix (e.g. the NorNE .bioes files), else 'IOB2'."""
    return "IOBES" if any(t[:2] in ("E-", "S-") for s in seqs for t in s) else "IOB2"


def entity_f1(golds: Sequence[Sequence[str]], preds: Sequence[Sequence[str]], *, scheme: str = "IOB2",
              mode: str = "strict") -> MetricResult:
    """Entity-level micro F1 (seqeval). Tag types are free strings (B-GEO, B-GPE_LOC, B-PER...).

    extra: precision, recall, and "stats" rows (true_positives, n_predicted, n_gold) per sentence.
    """
    scheme = scheme.upper()
    if scheme not in SCHEMES:
        raise ValueError(f"unknown tagging scheme {scheme!r}; choose one of {sorted(SCHEMES)}")
    if mode not in ("strict", "lenient"):
        raise ValueError(f"unknown mode {mode!r}; choose 'strict' or 'lenient'")
    g, p = _as_lists(golds), _as_lists(preds)
    _check_pairs(g, p)
    strict = mode == "strict"
    if strict:
        _validate_tags(g, scheme, "gold")
        _validate_tags(p, scheme, "predicted")
    stats = []
    for gs, ps in zip(g, p):
        gsp, psp = _spans(gs, scheme, strict), _spans(ps, scheme, strict)
        stats.append((len(gsp & psp), len(psp), len(gsp)))
    tp, npred, ngold = (sum(col) for col in zip(*stats)) if stats else (0, 0, 0)
    prec = tp / npred if npred else 0.0  # seqeval's zero_division behaviour: 0, not undefined
    rec = tp / ngold if ngold else 0.0
    f1 = (2 * prec * rec / (prec + rec) if prec + rec else 0.0) if g else float("nan")
    sig = Signature.build("f1", "entity-f1", "seqeval", ("mode", mode),
                          ("scheme", scheme if strict else "conll-lenient"), ("avg", "micro"), library="seqeval")
    return MetricResult("f1", pct(f1), None, sig,
                        {"precision": pct(prec), "recall": pct(rec), "stats": [list(s) for s in stats],
                         "accuracy": pct(accuracy_score(g, p)) if g else float("nan")})
