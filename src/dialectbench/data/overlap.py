"""Train/test overlap: which test examples a job has already seen in what it trains or early-stops on.

Two examples are the same when their input texts are equal after NFKC, case folding and whitespace
collapsing (`normalise`). Example ids are not compared: ours are "<file stem>:<row>", so two different files
named `test.tsv` would collide, while two splits cut from one file share their texts anyway. Texts shorter
than MIN_TOKENS whitespace tokens are never counted: "Thanks !" or "bravo" recur in any large corpus, and on
the real mirror they are what the released splits of UD_English-EWT (6.2% of test sentences, 0.2% with
this bound) and TSAC (14.7%, 2.5%) share, where two varieties cut from one file with other seeds shared 67%.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

MIN_TOKENS = 5
MAX_OVERLAP = 5.0  # % of a test set: above it a job is a leak, kept out of maxima, summaries and gaps


def example_text(example: Any) -> str:
    """The input text of an example (what a model reads), its fields joined by " || "."""
    for words in ("words", "tokens"):  # Sentence, TaggedSentence
        if hasattr(example, words):
            return " ".join(getattr(example, words))
    fields = {"text": ("text",), "premise": ("premise", "hypothesis"), "passage": ("passage", "question"),
              "context": ("context", "question"), "source": ("source",), "question": ("question",)}
    for first, names in fields.items():
        if hasattr(example, first):
            return " || ".join(str(getattr(example, n)) for n in names)
    raise TypeError(f"not an example: {type(example).__name__}")


def demo_key(example: Any) -> str:
    """What a demonstration gives away about a test example that shares it: the passage of a QA example
    (its answer is in the demonstration, whatever the question's wording), else the input text."""
    for passage in ("context", "passage"):
        if hasattr(example, passage):
            return normalise(str(getattr(example, passage)))
    return normalise(example_text(example))


def normalise(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def countable(text: str) -> bool:
    return len(text.split()) >= MIN_TOKENS


def text_set(examples: Iterable[Any]) -> frozenset[str]:
    """The normalised texts of `examples` that are long enough to count."""
    return frozenset(t for t in map(normalise, map(example_text, examples)) if countable(t))


@dataclass(frozen=True)
class Overlap:
    shared: int  # test examples whose text is in the training texts
    total: int   # test examples

    @property
    def percent(self) -> float:
        return 100.0 * self.shared / self.total if self.total else 0.0


def overlap(test: Sequence[Any], seen: frozenset[str]) -> Overlap:
    """How many of `test` have a text in `seen` (a `text_set` of training and early-stopping data)."""
    return Overlap(sum(normalise(example_text(ex)) in seen for ex in test), len(test))


def duplicates(examples: Sequence[Any]) -> int:
    """Examples of one split whose text an earlier example of the same split already had."""
    counts = Counter(t for t in map(normalise, map(example_text, examples)) if countable(t))
    return sum(n - 1 for n in counts.values())


def audit(src: Any, task: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Across a source's catalogue for one task: every (test set, training or dev set) pair that shares
    texts, and every split with repeated texts; and one line per split that could not be read.
    Rows: task, kind ("overlap" | "duplicates"), variety, split, other, other_split, shared, n, percent."""
    import warnings

    from dialectbench.data.errors import DataError, DataWarning

    loaded: dict[tuple[str, str], list[Any]] = {}
    problems: list[str] = []
    for variety in src.varieties(task):
        for split in sorted(src.splits(task, variety)):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DataWarning)
                    loaded[(variety, split)] = src.load(task, variety, split)
            except (DataError, OSError) as err:
                problems.append(f"{err} ({task}, {variety}, {split})")
    rows: list[dict[str, Any]] = []

    def row(kind: str, variety: str, split: str, other: str, other_split: str, shared: int, n: int) -> None:
        rows.append({"task": task, "kind": kind, "variety": variety, "split": split, "other": other,
                     "other_split": other_split, "shared": shared, "n": n,
                     "percent": round(100.0 * shared / n, 2) if n else 0.0})

    texts = {key: text_set(examples) for key, examples in loaded.items() if key[1] in ("train", "dev")}
    for (variety, split), examples in loaded.items():
        repeated = duplicates(examples)
        if repeated:
            row("duplicates", variety, split, variety, split, repeated, len(examples))
        if split != "test":
            continue
        for (other, other_split), seen in texts.items():
            found = overlap(examples, seen)
            if found.shared:
                row("overlap", variety, split, other, other_split, found.shared, found.total)
    rows.sort(key=lambda r: (r["kind"] != "overlap", -r["percent"], r["variety"], r["other"]))
    return rows, problems
