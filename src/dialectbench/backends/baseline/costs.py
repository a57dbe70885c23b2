"""What a CPU baseline job costs, for `plan --estimate --model baseline` (issue 36 item 7): each backend
estimates its own cost; the baseline's comes from CPU seconds measured per word on UD_English-EWT (one
thread; benchmarks/baseline_costs.py prints them on any machine), not from a BERT-sized training step.

    CRF tagger (pos, ner)  fit 163 CPU-s on EWT train's 204.6k words; predict PREDICT_CRF_PER_WORD
    parser (dep)           fit 419 CPU-s for its 900k-word work budget (ParserConfig); a fit goes through
                           `ParserConfig.expected_words` words, so a small treebank stops far earlier
Other tasks (text classifiers, QA, MRC, MT copy) take seconds on any split: not costed (None).
"""

from __future__ import annotations

import math

from dialectbench.backends.baseline.configs import ParserConfig

FIT_CRF_PER_WORD = 163.0 / 204_600  # CPU-s per training word (EWT train, default CRFConfig)
FIT_PARSER_PER_WORD = 419.0 / 900_000  # CPU-s per word the parser's fit goes through
# CPU-s per test word, benchmarks/baseline_costs.py on this project's shared 2-core machine (EWT test, 1,000
# sentences, 13.1k words; one thread): CRF 0.0173 ms, parser 0.128 ms. (Its shortened parser fit, 2,000
# sentences and 60k words, ran 0.289 ms a word: the full-EWT 0.466 above is kept, the larger.)
PREDICT_CRF_PER_WORD = 0.0173e-3
PREDICT_PARSER_PER_WORD = 0.128e-3
WORDS_PER_SENTENCE = 16.3  # UD_English-EWT train: 204.6k words in 12.5k sentences (when words are not counted)
TOKEN_TASKS = ("pos", "ner", "dep")


def job_seconds(task: str, n_train: int, n_dev: int, n_test: int, *, parser: ParserConfig | None = None,
                train_words: float | None = None, test_words: float | None = None) -> tuple[float | None, float | None]:
    """(fit CPU-seconds, evaluation CPU-seconds) of one baseline job; None where not costed. Sizes are
    sentences; `train_words` / `test_words` where counted (else sentences x WORDS_PER_SENTENCE)."""
    if task not in TOKEN_TASKS:
        return None, None
    train_words = n_train * WORDS_PER_SENTENCE if train_words is None else train_words
    test_words = n_test * WORDS_PER_SENTENCE if test_words is None else test_words
    if task == "dep":
        parser = parser or ParserConfig()
        batches = math.ceil(train_words / parser.batch_tokens)
        words = parser.expected_words(train_words, batches, dev=n_dev > 0) if train_words else 0.0
        return words * FIT_PARSER_PER_WORD, test_words * PREDICT_PARSER_PER_WORD
    return train_words * FIT_CRF_PER_WORD, test_words * PREDICT_CRF_PER_WORD
