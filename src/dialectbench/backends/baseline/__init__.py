"""CPU baselines, offline, one per task (issue 5):

  did / sa / tc     char + word n-gram TF-IDF, linear SVM            (`text.TextClassifier`)
  nli               overlap / negation / length / cross features      (`text.PairClassifier`)
  pos / ner         linear-chain CRF, affix / shape / context          (`tagging.CRFTagger`)
  dep               char+word BiLSTM, biaffine arcs/labels, MST       (`parser.BiaffineParser`)
  eqa               sentence retrieval + learned span ranker          (`qa.ExtractiveQA`)
  mrc               option / passage-window overlap scorer            (`qa.OptionOverlap`)
                    without training data: MCTest's sliding window + distance, reported as
                    "sliding-window"                                   (`qa.SlidingWindow`)
  mt-dialect/region copy of the source, reported as "copy"            (`mt.CopyTranslator`)
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from dialectbench.backends.base import Backend, UnsupportedTaskError
from dialectbench.backends.baseline.common import BaselineModel
from dialectbench.backends.baseline.configs import CRFConfig, ParserConfig
from dialectbench.backends.baseline.mt import CopyTranslator

if TYPE_CHECKING:
    from dialectbench.backends.baseline.parser import BiaffineParser
    from dialectbench.backends.baseline.qa import ExtractiveQA, OptionOverlap
    from dialectbench.backends.baseline.tagging import CRFTagger
    from dialectbench.backends.baseline.text import PairClassifier, TextClassifier

TASKS = ("dep", "pos", "ner", "did", "sa", "tc", "nli", "mrc", "eqa", "mt-dialect", "mt-region")

# The model modules are imported when a task needs them (PEP 562 `__getattr__` keeps the names
# importable): the parser pulls in torch, the text classifiers, QA and the CRF scikit-learn; seconds
# each, which a run of other tasks, `dialectbench --help` and every local worker would pay for nothing.
_TASK_MODULES = {"dep": "parser", "pos": "tagging", "ner": "tagging", "did": "text", "sa": "text", "tc": "text",
                 "nli": "text", "mrc": "qa", "eqa": "qa", "mt-dialect": "mt", "mt-region": "mt"}
# torch imports its compiler the first time an optimiser is built (~2 s on one core): the parser's first
# fit in every fresh process would pay it
_TASK_EXTRA = {"dep": ("torch._dynamo",)}
# a parser fit's cost from its treebank's size on disk (for scheduling the longest fits first and the ETA):
# CoNLL-U bytes per word, and CPU per word the fit goes through in the runner's cost unit (a CRF fit's
# byte of training data), both from UD_English-EWT: 14.2 MB for 204.6k words; the parser's 900k words
# took 419 CPU-s, the CRF's 14.2 MB 163 CPU-s
CONLLU_BYTES_PER_WORD = 69
PARSER_COST_PER_WORD = 14.2e6 / 163 * 419 / 900e3
_LAZY = {"BiaffineParser": "parser", "CRFTagger": "tagging", "SlidingWindow": "qa",
         "ExtractiveQA": "qa", "OptionOverlap": "qa", "PairClassifier": "text", "TextClassifier": "text"}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


def worker_modules(tasks: Sequence[str] | None = None) -> list[str]:
    """The modules the fits of `tasks` (None: all) import, for a local worker pool to import up front."""
    tasks = _TASK_MODULES if tasks is None else tasks
    names = [[f"{__name__}.{_TASK_MODULES[t]}", *_TASK_EXTRA.get(t, ())] for t in tasks if t in _TASK_MODULES]
    return list(dict.fromkeys(name for group in names for name in group))


# ParserConfig fields an encoder does not read, left out of the job key. The BiLSTM's key is exactly its
# key from before `arch` existed (its scores are unchanged, so stored ones stay valid); any other
# encoder's key holds `arch`, so no score of one encoder is ever reused as the other's.
_ATTN = ("attn_dim", "attn_layers", "attn_heads", "attn_ffn", "attn_dropout", "attn_max_distance",
         "attn_max_positions", "attn_conv_blocks")
_UNUSED_BY_ARCH = {"bilstm": ("arch", "conv_dim", "conv_dilations", *_ATTN),
                   "cnn": ("lstm_hidden", "lstm_layers", *_ATTN),
                   "transformer": ("lstm_hidden", "lstm_layers", "conv_dim", "conv_dilations")}
# fields added after stored scores existed, left out of the key at their default (which keeps the old
# behaviour), so those keys stay valid; any other value enters the key
_NEW_FIELD_DEFAULTS = {"fast_dropout": False, "warmup_share": 0.0, "upos_hidden": 0, "upos_weight": 1.0,
                       "arc_max_distance": 0}


class BaselineBackend(Backend):
    """Backend protocol implementation: `fit(task, train, dev, seed=0) -> BaselineModel`."""

    name = "baseline"
    training_free_tasks = ("mrc",)  # evaluated without training data when a task's catalogue has none
    cross_fit_tasks = ("eqa",)  # without training data: cross-fitted on the test sets' typed questions

    def __init__(self, parser: ParserConfig | None = None, crf: CRFConfig | None = None):
        self.parser_config = parser or ParserConfig()
        self.crf_config = crf or CRFConfig()

    @property
    def config(self) -> dict[str, Any]:
        """Settings that change results (verbosity and thread count do not)."""
        parser = {k: v for k, v in asdict(self.parser_config).items()
                  if k not in ("verbose", "threads", *_UNUSED_BY_ARCH.get(self.parser_config.arch, ()))
                  and not (k in _NEW_FIELD_DEFAULTS and v == _NEW_FIELD_DEFAULTS[k])}
        return {"parser": parser, "crf": asdict(self.crf_config)}

    def fit_weight(self, task: str, train_bytes: float, *, dev: bool = False) -> float | None:
        """The relative CPU cost of fitting `task` on `train_bytes` of data on disk (`dev`: with a dev
        split), in the runner's units (`progress.group_weights`); None: proportional to the data. A
        parser fit is not: it runs up to max_epochs passes (tiny sets repeated to min_steps_per_epoch
        updates) within a budget of words, so a 35k-word treebank costs as much as UD_English-EWT, 6x
        its size; with a dev split, patience likely stops a small treebank's fit far earlier."""
        if task != "dep":
            return None
        words = train_bytes / CONLLU_BYTES_PER_WORD
        batches = math.ceil(words / self.parser_config.batch_tokens)
        return PARSER_COST_PER_WORD * self.parser_config.expected_words(words, batches, dev)

    def job_seconds(self, task: str, n_train: int, n_dev: int, n_test: int, *, train_words: float | None = None,
                    test_words: float | None = None) -> tuple[float | None, float | None]:
        """This backend's own cost estimate for `plan --estimate`: (fit, evaluation) CPU-seconds of one job
        from per-word costs measured on UD (baseline/costs.py); None where not costed."""
        from dialectbench.backends.baseline.costs import job_seconds

        return job_seconds(task, n_train, n_dev, n_test, parser=self.parser_config, train_words=train_words,
                           test_words=test_words)

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None = None, *,
            seed: int = 0) -> BaselineModel:
        if task not in TASKS:  # a task a user catalogue declared: the baseline of its kind
            from dialectbench.tasks import UnknownTaskError, kind_of

            try:
                kind = kind_of(task)
            except UnknownTaskError:
                raise UnsupportedTaskError(f"baseline backend: unknown task {task!r}; known: "
                                           f"{', '.join(TASKS)}") from None
            model = _BY_KIND.get(kind.name)
            if model is None:
                raise UnsupportedTaskError(f"baseline backend: no baseline for {kind.name} tasks ({task!r})")
            if model == "CRFTagger":
                return _lazy(model)(task, seed, self.crf_config).fit(train)
            return _lazy(model)(task, seed).fit(train)
        if task in ("did", "sa", "tc"):
            return _lazy("TextClassifier")(task, seed).fit(train)
        if task == "nli":
            return _lazy("PairClassifier")(task, seed).fit(train)
        if task in ("pos", "ner"):
            return _lazy("CRFTagger")(task, seed, self.crf_config).fit(train)
        if task == "dep":
            return _lazy("BiaffineParser")(task, seed, self.parser_config).fit(train, dev)
        if task == "eqa":
            return _lazy("ExtractiveQA")(task, seed).fit(train)
        if task == "mrc" and not train:  # a training-free job (Belebele ships no training set): MCTest's SW+D
            return _lazy("SlidingWindow")(task)
        if task == "mrc":
            return _lazy("OptionOverlap")(task, seed).fit(train)
        if task in ("mt-dialect", "mt-region"):
            return CopyTranslator(task)
        raise UnsupportedTaskError(f"baseline backend: unknown task {task!r}; known: {', '.join(TASKS)}")


# the baseline of each kind a user catalogue may declare (tasks/kinds.py `user_declarable`)
_BY_KIND = {"classification": "TextClassifier", "pair-classification": "PairClassifier", "tagging": "CRFTagger",
            "entity-tagging": "CRFTagger", "multiple-choice": "OptionOverlap"}


def factory(arg: str, **options: Any) -> BaselineBackend:
    """The registry's factory (`get_backend("baseline", parser=..., crf=...)`)."""
    if arg:  # the registry rejects an argument first; kept for a direct call
        raise ValueError(f"backend 'baseline' takes no argument (got 'baseline:{arg}')")
    return BaselineBackend(**options)


def _lazy(name: str) -> Any:
    return __getattr__(name) if name not in globals() else globals()[name]


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
