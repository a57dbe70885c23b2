"""Job flags: what makes a stored score less than it looks (DialectBench's "no silent artefacts" rule).

Every finished job may carry flags in `extra["flags"]` (the store keeps them; the terminal summary, the
report and `results export --all` show them):

- `unseen_labels`: the test set has gold labels the model never saw in training; `share` is the fraction
  of test examples with such a label (those are scored wrong whatever the model does). For tagging (POS
  tags, NER entity types) an example counts when any of its tokens has such a tag, and `token_share` is
  the fraction of test tokens;
- `below_majority`: the score is below `majority_score`, what always answering the test set's most
  frequent label scores in the job's own metric (`metric`): its rate `majority_rate` (in %) for accuracy,
  that label's F1 over the number of gold labels for macro F1 (a macro F1 under the majority rate can
  still beat the majority baseline); metrics where that is not defined get no such flag;
- `one_label`: every prediction is one label (`label`, `n` predictions; classification with 10+ test
  examples of 2+ gold labels): the model answers the same whatever the input, so its score is that
  label's share of the test set, not a measure of the task (a small LLM in context often does this);
- `skewed_predictions`: the predicted label distribution is so far from gold that it alone caps the score
  below 50 (`kind`: `class_shares` for classification and `tag_shares` for POS, by total-variation distance
  `distance` over 0.5, so at most 1 - distance of the examples can be right; `entity_rate` for NER, the
  share of tokens tagged as entities `predicted_rate` against `gold_rate` off by more than a factor of 3,
  so token-level entity F1 is at most `bound`); `one_label` is its extreme case and replaces it;
- `label_meanings`: the job trains on one dataset and is scored on another, and the catalogue declares
  no label meanings (`Dataset.labels`) for `undeclared` of them: a shared label name may mean two things
  (ASTD's NEUTRAL is subjective-mixed, MAC's neutral is objective), so the score is kept out of maxima,
  summaries and gaps like a leak;
- `fallbacks`: the number of test examples for which the model fell back to a default prediction
  (a backend reports them through its fitted model's `fallbacks` counter; see `backends/base.py`);
- `label_space`: the job was trained and scored only over the labels its training and test sets share
  (in-cluster SA: the cluster representative's dataset has labels other datasets lack);
- `overlap`: `share` of the test examples (`test` of them) have their text in the data the job trained or
  early-stopped on (data/overlap.py: normalised texts of 5+ tokens). Above `MAX_OVERLAP` (5%) it is a
  leak: the score is a warning, and the store keeps it out of maxima, summaries, gaps, reports and
  exports unless asked (`include_overlap`); below, a recorded fact (released splits share a few texts);
- `sample_suite`: the job trained or was scored on the bundled sample suite (our own texts): a check that
  the pipeline works, never a result to rank beside published ones (`report --compare paper` marks it);
- `not_trees` (DEP): sentences whose gold HEADs are not a tree (a cycle, a self-loop, a HEAD out of range;
  readers/conllu.py): `test` of them were scored as given (UAS/LAS count each word's head), and
  `train_left_out` were left out of training and early stopping; `first` names the first one's file:line.

Flags are data about a result, never a reason to drop it: a flagged score is stored like any other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from dialectbench.data.overlap import MAX_OVERLAP
from dialectbench.tasks import TASKS
from dialectbench.tasks.kinds import METRIC_WORDS

FLAGS_KEY = "flags"
ONE_LABEL_MIN = 10  # `one_label` needs this many predictions: fewer can share a label by chance
# `skewed_predictions`: the prediction distribution alone caps the score below 50. For shares, the best
# accuracy any predictions with these shares can reach is sum(min(pred, gold)) = 1 - total variation, so a
# distance over 0.5 leaves most of the test set wrong whatever the model saw. For NER, tagging p of the
# tokens as entities against g gold caps token precision at g/p and recall at p/g, so token-level F1 at
# 2 min(p, g) / (p + g), which is under 0.5 exactly when one rate is over 3x the other.
MAX_SHARE_DISTANCE = 0.5
MAX_ENTITY_RATE_RATIO = 3.0
# (task, setting) pairs trained and scored over the label space shared by the training and test sets
SHARED_LABEL_SPACE = frozenset({("sa", "in-cluster")})


def label_of(example: Any) -> str | None:
    """The gold class of a classification example (text, pair, multiple choice), else None."""
    if hasattr(example, "label"):
        return str(example.label)
    if hasattr(example, "answer") and hasattr(example, "options"):
        return str(example.answer)
    return None


def _kind(task: str) -> str:
    """The kind of `task` ("" for none: a caller that names no task, or one no catalogue declares), so that
    a declared tagging task is flagged like POS and an entity-tagging one like NER."""
    return TASKS[task].kind if task in TASKS else ""


def tags_of(example: Any, task: str) -> tuple[str, ...]:
    """The gold tags of a tagging example: UPOS for POS (tagging), entity types (BIO prefix dropped) for NER
    (entity tagging)."""
    kind = _kind(task)
    if kind == "tagging" and hasattr(example, "upos"):
        return tuple(example.upos)
    if kind == "entity-tagging" and hasattr(example, "tags"):
        return tuple(t.split("-", 1)[-1] for t in example.tags if t != "O")
    return ()


def tag_counts(examples: Iterable[Any], task: str) -> Counter:
    return Counter(t for ex in examples for t in tags_of(ex, task))


def _unseen_tags(train_tags: Counter, golds: Sequence[Any], task: str) -> dict[str, Any] | None:
    per_example = [tags_of(ex, task) for ex in golds]
    unseen = sorted({t for tags in per_example for t in tags} - set(train_tags))
    if not train_tags or not unseen or not golds:
        return None
    tokens = [len(getattr(ex, "upos", None) or getattr(ex, "tags", ())) for ex in golds]
    hit = [sum(t in unseen for t in tags) for tags in per_example]
    return {"share": round(sum(h > 0 for h in hit) / len(golds), 4),
            "token_share": round(sum(hit) / max(sum(tokens), 1), 4), "labels": unseen}


def entity_type_gap(train_tags: Counter, golds: Sequence[Any], task: str) -> str:
    """Why a NER job cannot be scored ("" when it can): its training data and test set share no entity
    type, so every gold entity is missed whatever the model does (a label-mapping gap in the catalogue)."""
    if _kind(task) != "entity-tagging" or not train_tags:
        return ""
    gold = set(tag_counts(golds, task))
    if not gold or gold & set(train_tags):
        return ""
    return (f"the training data's entity types ({', '.join(sorted(train_tags))}) and the test set's "
            f"({', '.join(sorted(gold))}) share none: map them onto one set in the catalogue (label_map), "
            "or this job would store a 0 that measures the mapping, not the model")


def _tvd(a: Counter, b: Counter) -> float:
    na, nb = sum(a.values()), sum(b.values())
    return 0.5 * sum(abs(a[k] / na - b[k] / nb) for k in {*a, *b})


def skewed_predictions(golds: Sequence[Any], predictions: Sequence[Any], task: str) -> dict[str, Any] | None:
    """The `skewed_predictions` flag (None when the predicted distribution is near enough to gold, or too
    few examples to tell): class shares (classification), UPOS shares (POS), entity-token rate (NER)."""
    pairs = [(g, p) for g, p in zip(golds, predictions) if isinstance(p, (str, int, list, tuple))]
    if len(pairs) < ONE_LABEL_MIN:
        return None
    kind = _kind(task)
    if kind == "entity-tagging":
        gold = [t for g, _ in pairs for t in getattr(g, "tags", ())]
        pred = [t for _, p in pairs if isinstance(p, (list, tuple)) for t in p]
        if not gold or not pred:
            return None
        g_rate = sum(t != "O" for t in gold) / len(gold)
        p_rate = sum(t != "O" for t in pred) / len(pred)
        if not g_rate or (p_rate and max(p_rate, g_rate) <= MAX_ENTITY_RATE_RATIO * min(p_rate, g_rate)):
            return None
        return {"kind": "entity_rate", "predicted_rate": round(p_rate, 4), "gold_rate": round(g_rate, 4),
                "bound": round(200 * min(p_rate, g_rate) / (p_rate + g_rate), 2), "n": len(pairs)}
    if kind == "tagging":
        gold_c = Counter(t for g, _ in pairs for t in getattr(g, "upos", ()))
        pred_c = Counter(str(t) for _, p in pairs if isinstance(p, (list, tuple)) for t in p)
        shares = "tag_shares"
    else:
        gold_c = Counter(x for x in (label_of(g) for g, _ in pairs) if x is not None)
        pred_c = Counter(str(p) for _, p in pairs if isinstance(p, (str, int)))
        shares = "class_shares"
    if len(gold_c) < 2 or not pred_c:
        return None
    distance = _tvd(pred_c, gold_c)
    if distance <= MAX_SHARE_DISTANCE:
        return None
    return {"kind": shares, "distance": round(distance, 4), "bound": round(100 * (1 - distance), 2), "n": len(pairs)}


def label_meanings_gap(train: Sequence[tuple[str, bool]], test: tuple[str, bool] | None) -> dict[str, Any] | None:
    """The `label_meanings` flag: (dataset, declared) of the job's training sets and of its test set; None
    when it trains and tests on one dataset (one annotation scheme) or every dataset declares its meanings."""
    if test is None or not train or {name for name, _ in train} == {test[0]}:
        return None
    undeclared = sorted({name for name, declared in (*train, test) if not declared})
    if not undeclared:
        return None
    return {"train": sorted({name for name, _ in train}), "test": test[0], "undeclared": undeclared}


def label_counts(examples: Iterable[Any]) -> Counter:
    labels = [label_of(ex) for ex in examples]
    return Counter(x for x in labels if x is not None)


def restrict(examples: Sequence[Any], labels: set[str]) -> list[Any]:
    """The examples whose gold label is in `labels`."""
    return [ex for ex in examples if label_of(ex) in labels]


def shared_labels(train: Counter, test: Counter) -> set[str] | None:
    """The label space of a shared-label-space job, or None when train and test already agree."""
    if not train or not test or set(train) == set(test):
        return None
    return set(train) & set(test)


def not_trees(golds: Sequence[Any], train: dict[str, Any]) -> dict[str, Any] | None:
    """The `not_trees` flag of a DEP job (None when every sentence it trained on and scored is a tree)."""
    broken = [g.tree_problem for g in golds if getattr(g, "tree_problem", "")]
    if not broken and not train:
        return None
    flag: dict[str, Any] = {"test": len(broken), "train_left_out": int(train.get("train_left_out", 0))}
    flag["first"] = broken[0] if broken else train["first"]
    return flag


def majority_score(test: Counter, metric: str) -> float | None:
    """What always answering the most frequent label of `test` (label counts) scores in `metric`, in %
    (metrics/classification.py: F1 over the labels in gold or predictions); None for other metrics."""
    n = sum(test.values())
    if not n:
        return None
    p = test.most_common(1)[0][1] / n
    f1 = 2 * p / (1 + p)  # the majority label's F1: precision p, recall 1; every other label's F1 is 0
    by_metric = {"accuracy": p, "micro_f1": p, "macro_f1": f1 / len(test), "weighted_f1": p * f1}
    return 100.0 * by_metric[metric] if metric in by_metric else None


def evaluation_flags(train_labels: Counter, golds: Sequence[Any], score: float | None, metric: str,
                     *, fallbacks: int = 0, majority: bool = True, task: str = "",
                     train_tags: Counter | None = None,
                     predictions: Sequence[Any] | None = None) -> dict[str, Any]:
    """The flags of one scored job (empty when nothing is wrong)."""
    flags: dict[str, Any] = {}
    tags = _unseen_tags(train_tags or Counter(), golds, task)
    if tags:
        flags["unseen_labels"] = tags
    test = label_counts(golds)
    n = sum(test.values())
    if train_labels and n:
        unseen = sorted(set(test) - set(train_labels))
        if unseen:
            flags["unseen_labels"] = {"share": round(sum(test[x] for x in unseen) / n, 4), "labels": unseen}
        if majority and score is not None:
            rate = 100.0 * test.most_common(1)[0][1] / n
            baseline = majority_score(test, metric)
            if baseline is not None and score < baseline:
                flags["below_majority"] = {"score": round(float(score), 2), "majority_score": round(baseline, 2),
                                           "majority_rate": round(rate, 2), "metric": metric}
        answered = [p for p in predictions or () if isinstance(p, (str, int))]  # not InvalidAnswer
        if majority and len(test) >= 2 and len(answered) >= ONE_LABEL_MIN and len(set(answered)) == 1:
            flags["one_label"] = {"label": str(answered[0]), "n": len(answered)}
    if majority and "one_label" not in flags and predictions is not None:
        skew = skewed_predictions(golds, predictions, task)
        if skew:
            flags["skewed_predictions"] = skew
    if fallbacks:
        flags["fallbacks"] = int(fallbacks)
    return flags


def describe(flags: dict[str, Any]) -> list[str]:
    """One short phrase per flag, for the terminal, the report and exports."""
    out = []
    if "unseen_labels" in flags:
        f = flags["unseen_labels"]
        tokens = f" ({100 * f['token_share']:.1f}% of tokens)" if "token_share" in f else ""
        out.append(f"{100 * f['share']:.1f}% of test examples{tokens} have labels unseen in training "
                   f"({', '.join(f['labels'])})")
    if "below_majority" in flags:
        f = flags["below_majority"]
        # a flag stored before majority_score existed compared with the rate, in any metric
        if f.get("majority_score", f["majority_rate"]) == f["majority_rate"]:
            out.append(f"score {f['score']:.2f} is below the majority-class rate {f['majority_rate']:.2f}")
        else:
            metric = METRIC_WORDS.get(f["metric"], f["metric"])
            out.append(f"score {f['score']:.2f} is below the majority label's {metric} {f['majority_score']:.2f}"
                       f" (its rate: {f['majority_rate']:.2f})")
    if "one_label" in flags:
        f = flags["one_label"]
        out.append(f"every prediction ({f['n']}) is {f['label']!r}: the score is that label's share of the test set")
    if "skewed_predictions" in flags:
        f = flags["skewed_predictions"]
        if f["kind"] == "entity_rate":
            out.append(f"{100 * f['predicted_rate']:.1f}% of tokens predicted as entities against "
                       f"{100 * f['gold_rate']:.1f}% in gold: token-level entity F1 cannot exceed {f['bound']:.1f}")
        else:
            what = "tag" if f["kind"] == "tag_shares" else "label"
            out.append(f"predicted {what} shares far from gold (total variation {f['distance']:.2f}): "
                       f"at most {f['bound']:.1f}% can be right")
    if "fallbacks" in flags:
        out.append(f"{flags['fallbacks']} prediction(s) fell back to a default answer")
    if "label_meanings" in flags:
        f = flags["label_meanings"]
        out.append(f"trained on {', '.join(f['train'])}, scored on {f['test']}: no declared label meanings for "
                   f"{', '.join(f['undeclared'])}, so one label name may mean two things (kept out of summaries)")
    if "label_space" in flags:
        f = flags["label_space"]
        out.append(f"trained and scored on the shared labels {', '.join(f['labels'])} "
                   f"({f['test_dropped']} test and {f['train_dropped']} training example(s) left out)")
    if "overlap" in flags:
        f = flags["overlap"]
        leak = " (a leak: kept out of maxima, summaries and gaps)" if leaked(flags) else ""
        out.append(f"{100 * f['share']:.1f}% of test examples ({f['test']}) are in the training data{leak}")
    if flags.get("sample_suite"):
        out.append("scored on the bundled sample suite (our own texts): not comparable with published results")
    if "not_trees" in flags:
        f = flags["not_trees"]
        out.append(f"gold HEADs not a tree: {f['test']} test sentence(s) scored as given, "
                   f"{f['train_left_out']} training sentence(s) left out (first: {f['first']})")
    for key in sorted(set(flags) - {*_DESCRIBED}):
        out.append(f"{key}: {flags[key]}")  # a flag a backend added that this module does not know
    return out


def flag_text(extra: dict[str, Any] | None) -> str:
    """`extra`'s flags as one line ("" when none)."""
    flags = (extra or {}).get(FLAGS_KEY) or {}
    return "; ".join(describe(flags))


WARN_FLAGS = ("unseen_labels", "below_majority", "one_label", "skewed_predictions", "fallbacks", "label_meanings")
INFO_FLAGS = ("label_space", "not_trees", "overlap", "sample_suite")  # recorded facts about a score (a leak is a warning)
_DESCRIBED = (*WARN_FLAGS, *INFO_FLAGS)


def leaked(flags: dict[str, Any] | None, max_percent: float = MAX_OVERLAP) -> bool:
    """Whether the test set overlaps the training data by more than `max_percent` % (flags of one job)."""
    share = ((flags or {}).get("overlap") or {}).get("share", 0.0)
    return 100.0 * float(share) > max_percent


def kept_out(flags: dict[str, Any] | None) -> bool:
    """Whether a score stays out of maxima, summaries, gaps and reports (unless asked): a leak, or training
    and test labels whose meanings are not known to align."""
    return leaked(flags) or "label_meanings" in (flags or {})


def needs_warning(extra: dict[str, Any] | None) -> bool:
    """Flags that make a score untrustworthy (the shared label space alone is a recorded choice)."""
    flags = (extra or {}).get(FLAGS_KEY) or {}
    return any(k in flags for k in WARN_FLAGS) or leaked(flags) or bool(set(flags) - set(_DESCRIBED))
