"""A UD analysis for tokens that have none (NER data, plain text): the package's own baseline CRF tagger
(UPOS) and biaffine parser (heads, deprels), trained on a UD treebank such as UD_English-EWT, once, and
cached as a pickle keyed by the treebank's content and the training budget. Only the backends' public
fit/tag/predict API is used."""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Sequence
from pathlib import Path

from dialectbench.data.examples import Sentence

DEFAULT_CACHE = Path.home() / ".cache" / "dialectbench" / "perturb-analyzer"


class Analyzer:
    def __init__(self, tagger, parser) -> None:
        self.tagger, self.parser = tagger, parser

    def analyze(self, tokens: Sequence[Sequence[str]], ids: Sequence[str]) -> list[Sentence]:
        """Predicted UPOS, heads and deprels for each token sequence (empty ones stay empty)."""
        upos = self.tagger.tag([list(t) for t in tokens])
        sents = [Sentence(i, tuple(t), tuple(u), (0,) * len(t), ("dep",) * len(t)) for i, t, u in
                 zip(ids, tokens, upos)]
        parses = self.parser.predict(sents)
        return [Sentence(s.example_id, s.words, s.upos, tuple(h), tuple(r)) for s, (h, r) in zip(sents, parses)]


def train_analyzer(ud_train: Path, *, cache: Path | None = DEFAULT_CACHE, seed: int = 0,
                   parser_words: int = 400_000) -> Analyzer:
    """Fit (or load from `cache`) the tagger and parser on the CoNLL-U file `ud_train`."""
    from dialectbench.backends.baseline import BiaffineParser, CRFConfig, CRFTagger, ParserConfig
    from dialectbench.data.readers.conllu import read_conllu

    tagging, parsing = CRFConfig(), ParserConfig(max_train_words=parser_words)
    # the configs are part of the key: a cache trained with other defaults is retrained, not reused
    key = hashlib.sha256(Path(ud_train).read_bytes() + f"|{seed}|{tagging}|{parsing}".encode()).hexdigest()[:16]
    path = None if cache is None else Path(cache) / f"analyzer-{key}.pkl"
    if path is not None and path.is_file():
        try:  # a pickle of an older tagger/parser version is retrained, not trusted
            with path.open("rb") as fh:
                return pickle.load(fh)
        except Exception:  # noqa: BLE001, S110
            pass
    train = [s for s in read_conllu(ud_train) if s.words]
    tagger = CRFTagger("pos", seed, tagging).fit(train)
    parser = BiaffineParser("dep", seed, parsing).fit(train)
    analyzer = Analyzer(tagger, parser)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            pickle.dump(analyzer, fh)
    return analyzer
