"""Task metrics on the libraries the field trusts (seqeval, scikit-learn, sacrebleu, jiwer).

Every function returns a `MetricResult` (score in 0-100, optional per-example values in 0-1, a signature
string naming the options that change the number, and secondary figures in `extra`).
"""

from dialectbench.metrics.classification import classification_scores, multiple_choice_accuracy
from dialectbench.metrics.generation import bleu, chrf
from dialectbench.metrics.parsing import attachment_scores
from dialectbench.metrics.qa import exact_match, normalize_answer, span_f1, squad_scores
from dialectbench.metrics.result import MetricResult
from dialectbench.metrics.speech import cer, normalize_transcript, wer
from dialectbench.metrics.tagging import detect_scheme, entity_f1, pos_scores
from dialectbench.metrics.tasks import PRIMARY_METRIC, score_task

__all__ = [
           "PRIMARY_METRIC",
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
