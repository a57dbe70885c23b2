"""Sequence tagging baseline for POS and NER: a linear-chain CRF (sklearn-crfsuite) over affix, shape
and context features."""

from __future__ import annotations

import ctypes
import re
from collections.abc import Sequence

import pycrfsuite
import sklearn_crfsuite

from dialectbench import progress
from dialectbench.backends.base import TrainingDataError
from dialectbench.backends.baseline.common import BaselineModel, check_examples
from dialectbench.backends.baseline.configs import CRFConfig
from dialectbench.data.examples import Sentence, TaggedSentence


def _shape(word: str) -> str:
    s = re.sub(r"[^\W\d_]", lambda m: "X" if m.group().isupper() else "x", word)
    return re.sub(r"\d", "d", s)


def _short_shape(word: str) -> str:
    return re.sub(r"(.)\1+", r"\1", _shape(word))


def corpus_features(sentences: Sequence[Sequence[str]]) -> list[list[dict[str, str | float]]]:
    cache: dict = {}
    return [sentence_features(words, cache) for words in sentences]


def _word_features(word: str) -> tuple[dict[str, str | float], tuple[str, str, str]]:
    """(the word's own features, (lowercase, last 3 letters, short shape) for its neighbours' windows):
    computed once per distinct word, which is most of the cost of featurising a treebank."""
    low = word.lower()
    own: dict[str, str | float] = {
        "bias": 1.0, "w": low, "shape": _shape(word)[:12], "sshape": _short_shape(word),
        "title": float(word[:1].isupper()), "upper": float(word.isupper()),
        "digit": float(any(c.isdigit() for c in word)), "hyphen": float("-" in word),
        "len": str(min(len(word), 10)),
    }
    for k in range(1, 5):
        if len(low) > k:
            own[f"suf{k}"] = low[-k:]
            own[f"pre{k}"] = low[:k]
    return own, (low, low[-3:], _short_shape(word))


def sentence_features(words: Sequence[str], cache: dict | None = None) -> list[dict[str, str | float]]:
    """One feature dict per word: the word, affixes, shape, and a +-2 window of neighbours. `cache`
    (word -> `_word_features`) is shared across the sentences of a corpus."""
    cache = {} if cache is None else cache
    for w in words:
        if w not in cache:
            cache[w] = _word_features(w)
    cached = [cache[w] for w in words]
    feats = []
    n = len(words)
    for i in range(n):
        f = dict(cached[i][0])
        for off in (-2, -1, 1, 2):
            j = i + off
            if 0 <= j < n:
                low, s3, sh = cached[j][1]
                f[f"{off}:w"], f[f"{off}:s3"], f[f"{off}:sh"] = low, s3, sh
            else:
                f[f"{off}:pad"] = 1.0
        if i > 0:
            f["-1w|w"] = f"{cached[i - 1][1][0]}|{cached[i][1][0]}"
        if i + 1 < n:
            f["w|+1w"] = f"{cached[i][1][0]}|{cached[i + 1][1][0]}"
        feats.append(f)
    return feats


def _seed_crfsuite(seed: int) -> None:
    """CRFsuite's perceptron shuffles the training data with the C library's rand(), whose state lives
    on in the process: a worker that has fitted before (local pool or Ray, reused across groups) would
    shuffle otherwise and store other scores than a fresh one. srand(seed + 1): seed 0 is a fresh
    process's state."""
    try:
        ctypes.CDLL(None).srand(ctypes.c_uint(seed + 1))
    except (OSError, AttributeError):  # no C library handle (not Linux or macOS): nothing to seed here
        pass


class _ReportingTrainer(pycrfsuite.Trainer):
    """CRFsuite's trainer, telling the driver each L-BFGS iteration (a CRF fit on a large treebank is
    minutes of silence otherwise)."""

    def message(self, message: str) -> None:
        if self.logparser.feed(message) == "iteration":
            progress.report("fit", done=self.logparser.last_iteration.get("num", 0),
                            total=int(self.get("max_iterations")), unit="iterations")


class CRFTagger(BaselineModel):
    """A tagging task's (Sentence.upos: POS) or an entity-tagging task's (TaggedSentence.tags: NER) tagger."""

    def __init__(self, task: str, seed: int = 0, config: CRFConfig | None = None):
        from dialectbench.tasks import kind_of

        self.task, self.seed = task, seed
        self.config = config or CRFConfig()
        self.kind = TaggedSentence if kind_of(task).name == "entity-tagging" else Sentence

    def _words_tags(self, ex) -> tuple[Sequence[str], Sequence[str]]:
        return (ex.tokens, ex.tags) if self.kind is TaggedSentence else (ex.words, ex.upos)

    def fit(self, train: Sequence[Sentence | TaggedSentence]) -> CRFTagger:
        train = check_examples(self.task, train, self.kind, "training")
        pairs = [self._words_tags(ex) for ex in train]
        pairs = [(w, t) for w, t in pairs if len(w) > 0]
        if not pairs:
            raise TrainingDataError(f"{self.task}: every training sentence is empty; nothing to fit")
        self.crf = sklearn_crfsuite.CRF(all_possible_transitions=True, trainer_cls=_ReportingTrainer,
                                        **self.config.trainer_params())
        _seed_crfsuite(self.seed)
        self.crf.fit(corpus_features([w for w, _ in pairs]), [list(t) for _, t in pairs])
        return self

    def tag(self, sentences: Sequence[Sequence[str]]) -> list[tuple[str, ...]]:
        """Tags for raw word sequences (used by the parser for predicted UPOS too)."""
        idx = [i for i, s in enumerate(sentences) if len(s) > 0]
        out: list[tuple[str, ...]] = [()] * len(sentences)
        if idx:
            for i, tags in zip(idx, self.crf.predict(corpus_features([sentences[i] for i in idx]))):
                out[i] = tuple(tags)
        return out

    def predict(self, examples: Sequence[Sentence | TaggedSentence]) -> list[tuple[str, ...]]:
        examples = check_examples(self.task, examples, self.kind, "test")
        return self.tag([self._words_tags(ex)[0] for ex in examples])
