"""Task metrics on the libraries the field trusts (seqeval, scikit-learn, sacrebleu, jiwer).

Every function returns a `MetricResult` (score in 0-100, optional per-example values in 0-1, a signature
string naming the options that change the number, and secondary figures in `extra`).
"""

from __future__ import annotations

from dialectbench.lazy import lazy_exports

# Each name is imported from its module on first use (PEP 562): scikit-learn and scipy (classification,
# and seqeval's tagging F1) cost seconds to import, which `dialectbench --help`, the run's driver and
# every local worker would otherwise pay whether or not a metric that needs them ever runs.
_MODULES = {
    "classification_scores": "classification", "multiple_choice_accuracy": "classification",
    "bleu": "generation", "chrf": "generation", "attachment_scores": "parsing",
    "exact_match": "qa", "normalize_answer": "qa", "span_f1": "qa", "squad_scores": "qa",
    "MetricResult": "result", "cer": "speech", "normalize_transcript": "speech", "wer": "speech",
    "detect_scheme": "tagging", "entity_f1": "tagging", "pos_scores": "tagging",
    "score_task": "tasks",
}


__getattr__, __dir__ = lazy_exports(__name__, _MODULES)


__all__ = [
           "MetricResult",
           "attachment_scores",
           "bleu",
           "cer",
           "chrf",
           "classification_scores",
           "detect_scheme",
           "entity_f1",
           "exact_match",
           "multiple_choice_accuracy",
           "normalize_answer",
           "normalize_transcript",
           "pos_scores",
           "score_task",
           "span_f1",
           "squad_scores",
           "wer",
]
