"""Question answering baselines.

EQA (`ExtractiveQA`): retrieve the context sentences that best overlap the question (BM25 over words
plus character 4-gram overlap, which survives dialectal and ASR spelling variation), then rank
candidate token spans in them with a logistic-regression span scorer in the style of SQuAD's feature
baseline (Rajpurkar et al. 2016): question type x span shape and boundary words, capitalisation, the
IDF-weighted question words in windows left and right of the span (the sliding-window match), closeness
to question words, no question words inside the answer. Without usable training data the scorer falls
back to fixed heuristic weights.

MRC (`OptionOverlap`): score each option by how well option and question+option overlap the best
passage window; the feature weights are learned when training data is given, fixed otherwise.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

import numpy as np
from sklearn.feature_extraction import FeatureHasher
from sklearn.linear_model import LogisticRegression

from dialectbench.backends.baseline.common import BaselineModel, check_examples, token_spans, tokenize
from dialectbench.data.examples import MultipleChoiceExample, QAExample

_SENT_END = re.compile(r"(?<=[.!?।؟。！？])\s+|\n+")
_PUNCT = re.compile(r"^[^\w]+$", re.UNICODE)
_DIGIT = re.compile(r"\d")
# Words that open questions in the SD-QA / TyDi languages; the question type is the first one found.
_WH = ["who", "whom", "whose", "what", "which", "when", "where", "why", "how", "many", "much", "long", "old", "year", "date", "ما", "ماذا", "من", "متى", "أين", "كيف", "كم", "لماذا", "هل", "কে", "কী", "কি", "কোথায়", "কখন", "কত", "কেন", "কোন", "কবে", "nani", "nini", "lini", "wapi", "gani", "ngapi", "vipi", "kwa", "누구", "무엇", "언제", "어디", "어떻게", "몇", "왜", "어느", "얼마"]
_WH_SET = frozenset(_WH)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of `text` (whitespace-trimmed, non-empty)."""
    spans, start = [], 0
    for m in [*_SENT_END.finditer(text), None]:
        end = m.start() if m else len(text)
        chunk = text[start:end]
        if chunk.strip():
            lead = len(chunk) - len(chunk.lstrip())
            spans.append((start + lead, start + len(chunk.rstrip())))
        if m:
            start = m.end()
    return spans


def _char_ngrams(text: str, n: int = 4) -> set[str]:
    t = f" {' '.join(tokenize(text))} "  # padded: words shorter than n still yield grams
    return {t[i:i + n] for i in range(max(len(t) - n + 1, 1))}


def _overlap_scores(query: str, docs: list[str]) -> np.ndarray:
    """BM25 of the query's words in each doc (IDF over `docs`) plus char 4-gram containment."""
    q = tokenize(query)
    toks = [tokenize(d) for d in docs]
    df = Counter(t for ts in toks for t in set(ts))
    avg = max(sum(len(ts) for ts in toks) / max(len(toks), 1), 1.0)
    qg = _char_ngrams(query)
    out = np.zeros(len(docs))
    for i, ts in enumerate(toks):
        tf = Counter(ts)
        bm25 = sum(math.log(1 + (len(docs) - df[w] + 0.5) / (df[w] + 0.5))
                   * tf[w] * 2.2 / (tf[w] + 1.2 * (0.25 + 0.75 * len(ts) / avg)) for w in set(q) if tf[w])
        out[i] = bm25 + 3.0 * len(qg & _char_ngrams(docs[i])) / max(len(qg), 1)
    return out


def _qtype(question: list[str]) -> str:
    for t in question:
        if t in _WH_SET:
            return t
    return question[0] if question else "_"


def _shape(tokens: list[str]) -> str:
    joined = "".join(tokens)
    if joined.isdigit():
        return "num"
    return "hasnum" if _DIGIT.search(joined) else "word"


class ExtractiveQA(BaselineModel):
    """Sentence retrieval + learned span ranking; predicts answer text (a substring of the context)."""

    top_sentences = 3
    max_span = 6
    negatives_per_question = 40

    def __init__(self, task: str = "eqa", seed: int = 0):
        self.task, self.seed = task, seed
        self.hasher = FeatureHasher(n_features=2 ** 18, input_type="dict", alternate_sign=False)
        self.clf: LogisticRegression | None = None

    def _candidates(self, ex: QAExample) -> list[tuple[int, int, dict[str, float]]]:
        """(char start, char end, features) of candidate spans in the top-ranked sentences."""
        sents = split_sentences(ex.context) or [(0, len(ex.context))]
        texts = [ex.context[a:b] for a, b in sents]
        scores = _overlap_scores(ex.question, texts)
        q = tokenize(ex.question)
        qset, qt = set(q), _qtype(q)
        df = Counter(t for text in texts for t in set(tokenize(text)))
        out = []
        for rank, si in enumerate(np.argsort(-scores, kind="stable")[:self.top_sentences]):
            a, b = sents[si]
            spans = [(a + s, a + e) for s, e in token_spans(ex.context[a:b])]
            raw = [ex.context[s:e] for s, e in spans]
            toks = [t.lower() for t in raw]
            # each question word found in the sentence, weighted by its rarity across the passage's sentences
            weight = np.array([math.log(1 + len(texts) / df[t]) if t in qset and not _PUNCT.match(t) else 0.0
                               for t in toks])
            cum = np.concatenate([[0.0], np.cumsum(weight)])
            total = cum[-1] or 1.0
            qpos = [i for i, t in enumerate(toks) if t in qset]
            for i in range(len(toks)):
                for j in range(i, min(i + self.max_span, len(toks))):
                    if _PUNCT.match(toks[i]) or _PUNCT.match(toks[j]):
                        continue
                    f = self._span_features(toks, raw, i, j, qset, qpos, qt, rank, scores[si] - scores.max())
                    for w in (3, 8):  # question words just outside the span, on each side
                        left = cum[i] - cum[max(i - w, 0)]
                        right = cum[min(j + 1 + w, len(toks))] - cum[j + 1]
                        f[f"win{w}"] = (left + right) / total
                        f[f"win{w}_left"], f[f"win{w}_right"] = left / total, right / total
                    f["sent_pos"] = si / len(sents)
                    out.append((spans[i][0], spans[j][1], f))
        return out

    @staticmethod
    def _span_features(toks, raw, i, j, qset, qpos, qt, rank, rel_score) -> dict[str, float]:
        span = toks[i:j + 1]
        in_q = sum(t in qset for t in span) / len(span)
        dist = min((min(abs(p - i), abs(p - j)) for p in qpos if p < i or p > j), default=99)
        length = j - i + 1
        prev, nxt = (toks[i - 1] if i else "<s>"), (toks[j + 1] if j + 1 < len(toks) else "</s>")
        caps = sum(r[:1].isupper() for r in raw[i:j + 1]) / length
        return {
            "bias": 1.0, f"rank={rank}": 1.0, "rel_score": rel_score, "in_q": in_q,
            "any_q": float(in_q > 0), f"len={min(length, 6)}": 1.0,
            f"dist={min(dist, 10) if dist < 99 else 'none'}": 1.0,
            f"qt={qt}|shape={_shape(span)}": 1.0, f"qt={qt}|len={min(length, 4)}": 1.0,
            f"prev={prev}": 1.0, f"next={nxt}": 1.0, f"qt={qt}|prev={prev}": 1.0, f"qt={qt}|next={nxt}": 1.0,
            f"first={span[0]}": 1.0, f"last={span[-1]}": 1.0, f"qt={qt}|last={span[-1]}": 1.0,
            f"qt={qt}|caps={round(caps)}": 1.0, "caps": caps, "caps_start": float(raw[i][:1].isupper()),
            "prev_in_q": float(prev in qset), "next_in_q": float(nxt in qset),
            "near": 1.0 / (1.0 + dist) if dist < 99 else 0.0, "length": float(length),
        }

    def fit(self, train: Sequence[QAExample]) -> ExtractiveQA:
        train = check_examples(self.task, train, QAExample, "training")
        rng = np.random.default_rng(self.seed)
        feats, labels = [], []
        for ex in train:
            golds = {" ".join(tokenize(a)) for a in ex.answers if a.strip()}
            cands = self._candidates(ex)
            pos = [f for s, e, f in cands if " ".join(tokenize(ex.context[s:e])) in golds]
            neg = [f for s, e, f in cands if " ".join(tokenize(ex.context[s:e])) not in golds]
            if not pos:
                continue
            keep = rng.permutation(len(neg))[:self.negatives_per_question]
            feats += pos + [neg[k] for k in keep]
            labels += [1] * len(pos) + [0] * len(keep)
        if len(set(labels)) == 2:
            self.clf = LogisticRegression(C=1.0, solver="liblinear", random_state=self.seed)
            self.clf.fit(self.hasher.transform(feats), labels)
        return self

    @staticmethod
    def _heuristic(f: dict[str, float]) -> float:
        """Untrained ranking: best sentence, close to question words, none inside, short."""
        rank = 0.5 * f.get("rank=1", 0.0) + 1.0 * f.get("rank=2", 0.0)
        return 2.0 * f["rel_score"] - rank - 3.0 * f["in_q"] + 2.0 * f["near"] - 0.2 * f["length"]

    def predict(self, examples: Sequence[QAExample]) -> list[str]:
        out = []
        for ex in check_examples(self.task, examples, QAExample, "test"):
            cands = self._candidates(ex)
            if not cands:
                out.append("")
                continue
            if self.clf is not None:
                scores = self.clf.decision_function(self.hasher.transform(f for _, _, f in cands))
            else:
                scores = np.array([self._heuristic(f) for _, _, f in cands])
            s, e, _ = cands[int(np.argmax(scores))]
            out.append(ex.context[s:e])
        return out


class OptionOverlap(BaselineModel):
    """Multiple choice: pick the option whose words (with the question's) best match a passage window."""

    default_weights = np.array([0.5, 1.0, 0.3, 1.0, 0.5, -0.5, 0.0])

    def __init__(self, task: str = "mrc", seed: int = 0):
        self.task, self.seed = task, seed
        self.weights = self.default_weights.copy()

    @staticmethod
    def _features(ex: MultipleChoiceExample) -> np.ndarray:
        """Per option (centred over the options): best single-sentence overlap of the option and of
        question+option, best two-sentence-window overlap of question+option, char 4-gram containment
        of the option in the sentence that best matches the question, passage coverage of the option's
        words, their overlap with the question, log length."""
        sents = [ex.passage[a:b] for a, b in split_sentences(ex.passage)] or [ex.passage]
        pairs = [a + " " + b for a, b in pairwise(sents)] or sents
        q_best = sents[int(np.argmax(_overlap_scores(ex.question, sents)))]
        q_grams = _char_ngrams(q_best)
        ptoks, qtoks = set(tokenize(ex.passage)), set(tokenize(ex.question))
        rows = []
        for opt in ex.options:
            otoks = tokenize(opt)
            og = _char_ngrams(opt)
            qo = ex.question + " " + opt
            rows.append([_overlap_scores(opt, sents).max(), _overlap_scores(qo, sents).max(),
                         _overlap_scores(qo, pairs).max(), len(og & q_grams) / max(len(og), 1),
                         sum(t in ptoks for t in otoks) / max(len(otoks), 1),
                         sum(t in qtoks for t in otoks) / max(len(otoks), 1), math.log1p(len(otoks))])
        feats = np.array(rows, dtype=np.float64)
        return feats - feats.mean(0, keepdims=True)

    def fit(self, train: Sequence[MultipleChoiceExample]) -> OptionOverlap:
        train = check_examples(self.task, train, MultipleChoiceExample, "training")
        X, y = [], []
        for ex in train:
            if not 0 <= ex.answer < len(ex.options):
                continue
            feats = self._features(ex)
            X.extend(feats)
            y.extend(int(k == ex.answer) for k in range(len(ex.options)))
        if len(set(y)) == 2:
            clf = LogisticRegression(C=1.0, fit_intercept=False, max_iter=500).fit(np.array(X), y)
            self.weights = clf.coef_[0]
        return self

    def predict(self, examples: Sequence[MultipleChoiceExample]) -> list[int]:
        out = []
        for ex in check_examples(self.task, examples, MultipleChoiceExample, "test"):
            out.append(int(np.argmax(self._features(ex) @ self.weights)) if ex.options else 0)
        return out


class SlidingWindow(BaselineModel):
    """Multiple choice without training data: Richardson, Burges and Renshaw (2013, MCTest), SW+D.

    For each option, the target set is the question's words plus the option's. SW: a window as long as the
    target set slides over the passage; its score is the sum of the inverse counts IC(w) = log(1 + 1/C(w))
    (C: count in the passage) of its words in the target set; the best window counts. D: the distance, in
    passage positions normalised by the passage length, between the closest occurrence of a question word
    and an option word not in the question (1 when either is absent); the answer is argmax SW - D.
    MCTest drops stopwords for D; a stopword list is language-specific, so here D uses only the passage's
    rarer words (IC above the passage's median), a language-independent stand-in."""

    reports_as = "sliding-window"

    def __init__(self, task: str = "mrc"):
        self.task = task

    def fit(self, train: Sequence[MultipleChoiceExample]) -> SlidingWindow:
        return self  # nothing to learn: stored under its own name, never as a trained model

    @staticmethod
    def scores(ex: MultipleChoiceExample) -> list[float]:
        passage = tokenize(ex.passage)
        counts = Counter(passage)
        ic = {w: math.log1p(1.0 / c) for w, c in counts.items()}
        rare = {w for w, v in ic.items() if v > float(np.median(list(ic.values())))} if ic else set()
        question = set(tokenize(ex.question))
        out = []
        for option in ex.options:
            target = question | set(tokenize(option))
            size = max(len(target), 1)
            weights = [ic[w] if w in target else 0.0 for w in passage]
            windows = np.convolve(weights, np.ones(size), mode="valid") if len(weights) >= size else [sum(weights)]
            sw = float(np.max(windows)) if len(weights) else 0.0
            out.append(sw - _distance(passage, question & rare, (set(tokenize(option)) - question) & rare))
        return out

    def predict(self, examples: Sequence[MultipleChoiceExample]) -> list[int]:
        return [int(np.argmax(self.scores(ex))) if ex.options else 0
                for ex in check_examples(self.task, examples, MultipleChoiceExample, "test")]


def _distance(passage: list[str], question: set[str], answer: set[str]) -> float:
    """MCTest's D: the smallest gap between a question word and an answer word, over the passage length."""
    q_at = [i for i, w in enumerate(passage) if w in question]
    a_at = [i for i, w in enumerate(passage) if w in answer]
    if not q_at or not a_at or len(passage) < 2:
        return 1.0
    a = np.array(a_at)
    return min(float(np.abs(a - i).min()) for i in q_at) / (len(passage) - 1)
