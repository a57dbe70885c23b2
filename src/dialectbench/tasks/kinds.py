"""Task kinds: what a task does, declared once per kind, so that the runner, the metrics and the backends
ask a task's kind (tasks.yaml `kind:`) instead of branching on its id, and a new task of an existing kind
(a user catalogue's `new_task:`) needs no code.

>>> KINDS["parsing"].trees_only, KINDS["dialect-identification"].pools_cluster
(True, True)
>>> kind_of("mt-region").name
'translation'
"""

from __future__ import annotations

from dataclasses import dataclass

from dialectbench.varieties import TASK_KINDS, UnknownTaskError


@dataclass(frozen=True)
class Kind:
    """The protocol of one kind of task."""

    name: str
    formats: tuple[str, ...]  # the catalogue formats (readers) whose examples it takes
    scorer: str  # the scorer of metrics/tasks.py (`SCORERS`) that computes its primary metric
    metrics: tuple[str, ...]  # the primary metric ids a task of this kind may declare
    metric_module: str  # the dialectbench.metrics module that scorer imports (a worker pool's preload)
    trees_only: bool = False  # trained only on sentences whose heads form a tree (the rest counted)
    pools_cluster: bool = False  # one model per cluster, predicted on the pooled cluster test
    per_variety_metric: str | None = None  # pooled: each variety's score is its own class's (this metric)
    pseudo_references: bool = False  # a reference may be a pseudo-reference (the signature says which)
    labelled: bool = False  # one class label per example (an invalid answer scores as a stand-in label)
    answer_index: bool = False  # the answer is an option's index (multiple choice)
    invalid_stand_in: object = None  # what an invalid answer is scored as, where not a label
    user_declarable: bool = False  # a user catalogue may declare a task of this kind (needs nothing but data)
    metric_words: str = ""  # how its score reads in words where the metric id alone is ambiguous ("span F1")

    def scored_by(self, metric: str) -> str:
        """What a task of this kind scoring `metric` stores per variety, in words (catalogue descriptions)."""
        return self.metric_words or METRIC_WORDS.get(metric, metric)


METRIC_WORDS = {"uas": "UAS", "f1": "F1", "macro_f1": "macro F1", "accuracy": "accuracy", "bleu": "BLEU"}


KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("parsing", ("conllu",), "parsing", ("uas",), "parsing", trees_only=True),
    Kind("tagging", ("conllu",), "upos", ("f1",), "tagging", metric_words="UPOS F1", user_declarable=True),
    Kind("entity-tagging", ("iob",), "entities", ("f1",), "tagging", metric_words="entity F1",
         user_declarable=True),
    Kind("classification", ("labelled",), "labels", ("accuracy", "macro_f1"), "classification", labelled=True,
         user_declarable=True),
    Kind("pair-classification", ("pairs",), "labels", ("accuracy", "macro_f1"), "classification",
         labelled=True, user_declarable=True),
    Kind("multiple-choice", ("multiple_choice",), "multiple-choice", ("macro_f1",), "classification",
         answer_index=True, user_declarable=True),
    Kind("extractive-qa", ("squad", "goldp", "sdqa"), "squad", ("f1",), "qa", invalid_stand_in="\x00",
         metric_words="span F1"),
    Kind("translation", ("parallel",), "bleu", ("bleu",), "generation", pseudo_references=True,
         invalid_stand_in=""),
    Kind("dialect-identification", ("labelled",), "labels", ("macro_f1",), "classification", pools_cluster=True,
         per_variety_metric="f1", labelled=True, metric_words="each variety's class F1 on the pooled cluster test"),
)}


def kind_of(task: str) -> Kind:
    """The kind of a task id (packaged or declared by a user catalogue)."""
    try:
        return KINDS[TASK_KINDS[task]]
    except KeyError:
        raise UnknownTaskError(task) from None
