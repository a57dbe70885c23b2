"""What an in-context-learning score carries beside its primary metric (lm-evaluation-harness's habits):

- `acc` and `acc_norm`: in loglikelihood mode, the accuracy of the labels ranked by their summed
  log-probability (the prediction) and by their log-probability per byte (length-normalised);
- `stderr`: the bootstrap standard error of the primary metric (resampling the test examples with a
  seeded generator; `stderr_resamples` says how many);
- each logged sample's gold answer, so that a sample file can be read without the data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from dialectbench.backends.base import InvalidAnswer
from dialectbench.runner.flags import label_of

RESAMPLES_MEAN = 1000  # the metric is a mean of per-example values: cheap to resample
RESAMPLES_CORPUS = 200  # the metric is recomputed on each resample (macro F1, BLEU)


def gold_of(example: Any) -> Any:
    """The gold answer of an example as a sample file shows it: label, option index, answers, reference,
    tags, or a UD sentence's UPOS, heads and relations."""
    label = label_of(example)
    if label is not None:
        return int(example.answer) if hasattr(example, "options") else label
    for name in ("answers", "reference"):
        if hasattr(example, name):
            value = getattr(example, name)
            return list(value) if isinstance(value, (list, tuple)) else value
    if hasattr(example, "heads"):  # a UD sentence (--log-samples of pos and dep): its whole annotation
        return {"upos": list(example.upos), "heads": list(example.heads), "deprels": list(example.deprels)}
    if hasattr(example, "tags"):
        return list(example.tags)
    return None


def ranking_accuracies(rankings: dict[str, Sequence[Any]], golds: Sequence[Any]) -> dict[str, float]:
    """{"acc": ..., "acc_norm": ...} in percent: each ranking's share of examples whose top answer is the
    gold one (an unanswered example is wrong)."""
    out = {}
    for name, predictions in rankings.items():
        if len(predictions) != len(golds) or not golds:
            continue
        right = sum(not isinstance(p, InvalidAnswer) and str(p) == str(gold_of(g))
                    for p, g in zip(predictions, golds))
        out[name] = 100.0 * right / len(golds)
    return out


def bootstrap_stderr(score: float, values: Sequence[float | None] | None, n: int,
                     rescore: Callable[[list[int]], float], seed: int) -> dict[str, Any]:
    """The standard deviation of the metric over seeded resamples of the n examples: of the mean of
    `values` when the score is that mean (accuracy, span F1), else of `rescore(indices)`."""
    import numpy as np

    if n < 2:
        return {}
    rng = np.random.default_rng(seed)
    scale = 0.0
    if values is not None and len(values) == n and all(v is not None for v in values):
        vals = np.asarray(values, dtype=float)
        scale = next((k for k in (1.0, 100.0) if abs(k * vals.mean() - score) < 1e-6 * max(1.0, abs(score))), 0.0)
    if scale:
        draws = scale * vals[rng.integers(0, n, size=(RESAMPLES_MEAN, n))].mean(axis=1)
    else:
        draws = np.asarray([rescore(rng.integers(0, n, size=n).tolist()) for _ in range(RESAMPLES_CORPUS)])
    return {"stderr": float(draws.std(ddof=1)), "stderr_resamples": len(draws)}
