"""MT baseline: copy the source (no translation). Scores are reported under the name "copy", since they
measure how far the source already is from the reference, not a translation system."""

from __future__ import annotations

from collections.abc import Sequence

from dialectbench.backends.baseline.common import BaselineModel, check_examples
from dialectbench.data.examples import TranslationExample


class CopyTranslator(BaselineModel):
    reports_as = "copy"

    def __init__(self, task: str = "mt-dialect"):
        self.task = task

    def predict(self, examples: Sequence[TranslationExample]) -> list[str]:
        return [ex.source for ex in check_examples(self.task, examples, TranslationExample, "test")]
