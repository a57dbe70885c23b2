"""Task prompts (DialectBench Appendix I, adapted from Super-NaturalInstructions) and answer parsing.

The prompt is the paper's template: the instruction, k demonstrations, then the test input with an empty
answer slot ("Label:", "Answer:", ...); nothing is added to it (how it reaches the model, chat template or
plain text, system prompt or none, is the engine's: backend.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib import resources
from typing import Any

import yaml

CLASSIFICATION = ("did", "sa", "tc", "nli")
TOKEN_TASKS = ("dep", "pos", "ner")
# DialectBench Appendix I: 4 demonstrations for SA, 2 for EQA (long passages); the others follow SA
DEFAULT_K = {"eqa": 2}
DEFAULT_K_OTHER = 4

# the Appendix I instruction per task, packaged data (prompts.yaml) so that it can be read and changed
# without touching code
INSTRUCTIONS: dict[str, str] = yaml.safe_load(
    resources.files("dialectbench.backends.llm").joinpath("prompts.yaml").read_text(encoding="utf-8"))


def instruction(task: str, variety: str | None = None) -> str:
    """The task's instruction as prompts.yaml has it (SA and EQA: Appendix I word for word; the labels are
    shown only by the demonstrations, as in the paper)."""
    if task.startswith("mt"):
        source = f" from {variety}" if variety else ""
        return f"In this task, you are given a sentence. Your task is to translate it{source} into English."
    return INSTRUCTIONS[task]


def render(task: str, ex: Any, with_answer: bool) -> str:
    """One block of the prompt: the example's input fields and its answer (or an empty answer slot)."""
    if task in ("did", "sa", "tc"):
        fields, key, answer = [("Sentence", ex.text)], "Label", lambda: ex.label
    elif task == "nli":
        fields, key, answer = [("Premise", ex.premise), ("Hypothesis", ex.hypothesis)], "Label", lambda: ex.label
    elif task == "mrc":
        options = "\n".join(f"{i + 1}. {o}" for i, o in enumerate(ex.options))
        fields = [("Passage", ex.passage), ("Question", ex.question), ("Options", "\n" + options)]
        key, answer = "Answer", lambda: str(ex.answer + 1)
    elif task == "eqa":
        fields, key, answer = [("Passage", ex.context), ("Question", ex.question)], "Answer", lambda: ex.answers[0]
    else:  # mt-*
        fields, key, answer = [("Sentence", ex.source)], "Translation", lambda: ex.reference
    lines = [f"{name}: {value}" for name, value in fields]
    lines.append(f"{key}: {answer()}" if with_answer else f"{key}:")
    return "\n\n".join(lines)


def build_prompt(task: str, demos: Sequence[Any], ex: Any, variety: str | None = None) -> str:
    blocks = [instruction(task, variety)]
    blocks += [render(task, d, True) for d in demos]
    blocks.append(render(task, ex, False))
    return "\n\n".join(blocks)


def candidates(task: str, ex: Any, labels: Sequence[str]) -> list[str]:
    """The answers loglikelihood mode ranks: the label strings, or the option numbers for MRC."""
    if task == "mrc":
        return [str(i + 1) for i in range(len(ex.options))]
    return list(labels)


def _clean(text: str) -> str:
    return text.strip().strip("\"'`*.:;!, \t\n").strip()


def first_line(text: str) -> str:
    """The first non-empty line, without a leading "Answer:"-style key the model may have echoed."""
    for line in text.strip().splitlines():
        line = re.sub(r"^(answer|label|translation)\s*:\s*", "", line.strip(), flags=re.IGNORECASE)
        if line:
            return line
    return ""


def parse_label(text: str, labels: Sequence[str]) -> str | None:
    """Exact, then case-insensitive, then the earliest label mentioned as a word; None if none is."""
    raw, line = text.strip(), _clean(first_line(text))
    for candidate in (raw, line):
        if candidate in labels:
            return candidate
    lower = {label.lower(): label for label in labels}
    for candidate in (raw.lower(), line.lower()):
        if candidate in lower:
            return lower[candidate]
    best: tuple[int, int, str] | None = None
    for label in labels:  # earliest mention wins; a longer label wins a tie ("not entailment")
        m = re.search(rf"(?<!\w){re.escape(label.lower())}(?!\w)", raw.lower())
        if m and (best is None or (m.start(), -len(label)) < best[:2]):
            best = (m.start(), -len(label), label)
    return best[2] if best else None


def parse_option(text: str, options: Sequence[str]) -> int | None:
    """The 0-based index of the option the reply names (its number, else its text); None if neither."""
    for m in re.finditer(r"\d+", text):
        n = int(m.group())
        if 1 <= n <= len(options):
            return n - 1
    reply = _clean(text).lower()
    texts = [option.strip().lower() for option in options]
    if reply in texts:
        return texts.index(reply)
    # an option quoted inside a longer reply; longest first so that "not b" is not read as "b"
    for i in sorted(range(len(texts)), key=lambda i: -len(texts[i])):
        if len(texts[i]) > 1 and re.search(rf"(?<!\w){re.escape(texts[i])}(?!\w)", reply):
            return i
    return None
