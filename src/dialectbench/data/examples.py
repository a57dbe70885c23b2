"""Typed examples: the contract between readers, backends and metrics.

Every reader yields one of these; every backend consumes them; every metric scores against their gold
fields. `example_id` is stable across runs (derived from the source file and position or the dataset's
own id), so predictions in the store can be joined back to their examples.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Sentence:
    """A UD sentence (DEP, POS). Syntactic words only: multiword-token ranges are expanded into their
    words and empty nodes are dropped. `heads` are 1-based (0 = root), one per word."""

    example_id: str
    words: tuple[str, ...]
    upos: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...]
    text: str = ""
    tree_problem: str = ""  # "path:line: problem" when the HEADs are not a tree (see readers/conllu.py)


@dataclass(frozen=True)
class TaggedSentence:
    """A NER sentence: one tag per token, tag set kept as the dataset has it."""

    example_id: str
    tokens: tuple[str, ...]
    tags: tuple[str, ...]


@dataclass(frozen=True)
class TextExample:
    """A single text with a label (dialect identification, sentiment, topic)."""

    example_id: str
    text: str
    label: str


@dataclass(frozen=True)
class PairExample:
    """A premise/hypothesis pair (NLI); label in {entailment, neutral, contradiction}."""

    example_id: str
    premise: str
    hypothesis: str
    label: str


@dataclass(frozen=True)
class MultipleChoiceExample:
    """Belebele-style multiple choice: `answer` is the 0-based index into `options`."""

    example_id: str
    passage: str
    question: str
    options: tuple[str, ...]
    answer: int


@dataclass(frozen=True)
class QAExample:
    """SQuAD/TyDi extractive QA: gold answers as texts with their character offsets in `context`.
    `typed_question`: where `question` is a transcript (SD-QA), the question as typed, "" elsewhere; a
    cross-fitted reader trains on it (backends/crossfit.py)."""

    example_id: str
    context: str
    question: str
    answers: tuple[str, ...]
    answer_starts: tuple[int, ...]
    typed_question: str = ""


@dataclass(frozen=True)
class TranslationExample:
    """A source sentence and its (pseudo-)reference; `pseudo_reference` marks DialectBench's protocol of
    scoring against the system's translation of the standard-variety sentence."""

    example_id: str
    source: str
    reference: str
    pseudo_reference: bool = False


@dataclass(frozen=True)
class SpokenQuestion:
    """One SD-QA item for one dialect: the gold question, its ASR transcripts by ASR model, the speaker."""

    example_id: str
    dialect: str
    question: str
    transcripts: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    speaker_gender: str | None = None
    speaker_age: str | None = None
    speaker_id: str | None = None


Example = (Sentence | TaggedSentence | TextExample | PairExample | MultipleChoiceExample | QAExample
           | TranslationExample | SpokenQuestion)
