"""CPU baselines, offline, one per task (issue 5):

  did / sa / tc     char + word n-gram TF-IDF, linear SVM            (`text.TextClassifier`)
  nli               overlap / negation / length / cross features      (`text.PairClassifier`)
  pos / ner         linear-chain CRF, affix / shape / context          (`tagging.CRFTagger`)
  dep               char+word BiLSTM, biaffine arcs/labels, MST       (`parser.BiaffineParser`)
  eqa               sentence retrieval + learned span ranker          (`qa.ExtractiveQA`)
  mrc               option / passage-window overlap scorer            (`qa.OptionOverlap`)
  mt-dialect/region copy of the source, reported as "copy"            (`mt.CopyTranslator`)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from dialectbench.backends.base import UnsupportedTaskError
from dialectbench.backends.baseline.common import BaselineModel
from dialectbench.backends.baseline.mt import CopyTranslator
from dialectbench.backends.baseline.parser import BiaffineParser, ParserConfig
from dialectbench.backends.baseline.qa import ExtractiveQA, OptionOverlap
from dialectbench.backends.baseline.tagging import CRFConfig, CRFTagger
from dialectbench.backends.baseline.text import PairClassifier, TextClassifier

TASKS = ("dep", "pos", "ner", "did", "sa", "tc", "nli", "mrc", "eqa", "mt-dialect", "mt-region")


class BaselineBackend:
    """Backend protocol implementation: `fit(task, train, dev, seed=0) -> BaselineModel`."""

    name = "baseline"

    def __init__(self, parser: ParserConfig | None = None, crf: CRFConfig | None = None):
        self.parser_config = parser or ParserConfig()
        self.crf_config = crf or CRFConfig()

    @property
    def config(self) -> dict[str, Any]:
        """Settings that change results (verbosity and thread count do not)."""
        parser = {k: v for k, v in asdict(self.parser_config).items() if k not in ("verbose", "threads")}
        return {"parser": parser, "crf": asdict(self.crf_config)}

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None = None, *,
            seed: int = 0) -> BaselineModel:
        if task in ("did", "sa", "tc"):
            return TextClassifier(task, seed).fit(train)
        if task == "nli":
            return PairClassifier(task, seed).fit(train)
        if task in ("pos", "ner"):
            return CRFTagger(task, seed, self.crf_config).fit(train)
        if task == "dep":
            return BiaffineParser(task, seed, self.parser_config).fit(train, dev)
        if task == "eqa":
            return ExtractiveQA(task, seed).fit(train)
        if task == "mrc":
            return OptionOverlap(task, seed).fit(train)
        if task in ("mt-dialect", "mt-region"):
            return CopyTranslator(task)
        raise UnsupportedTaskError(f"baseline backend: unknown task {task!r}; known: {', '.join(TASKS)}")


__all__ = [
    "TASKS",
    "BaselineBackend",
    "BaselineModel",
    "BiaffineParser",
    "CRFConfig",
    "CRFTagger",
    "CopyTranslator",
    "ExtractiveQA",
    "OptionOverlap",
    "PairClassifier",
    "ParserConfig",
    "TextClassifier",
]
