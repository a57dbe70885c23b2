"""The headline numbers of a run: one per (task, setting, model), the one function behind the terminal's
headline table, the report's and `results.json`'s `results` (issue 36 item 1), so the three agree.

A headline is the mean of the task's stored metric over the real varieties whose scores enter summaries:
synthetic varieties (`perturb`) and scores the caller excludes (a flagged job, e.g. test/train overlap
above the leak threshold) are left out, counted and named. Settings are never mixed. A variety with several
scores (training sources) counts once, at their mean, so the headline is (1/k) sum_v (1/m_v) sum_s score_s,
a weighted sum of scores with weights w_s = 1 / (k m_v).

Its `stderr` is the item-level standard error of that mean by the delta method
(`analysis.intervals.score_influence`: the large-sample value of the item bootstrap), where every score has
per-example evidence that reproduces it. Each score's influence values psi_j (one per test example, in
points; its own SE is sqrt(sum psi_j^2)) are keyed by the test item the example is (`data.items.item_key`:
the same SD-QA question in every dialect; the same example id when several training sources are scored on
one test set). The variance is cluster-robust by item: sum over items c of (sum_s w_s psi_{s,c})^2, so
scores that share items add their errors on each shared item before squaring (positively correlated scores
give a larger SE than independence would). With no item shared by two scores this is exactly
sum_s w_s^2 se_s^2, i.e. sqrt(sum se_i^2) / k over one score per variety, computed as that
(`stderr_method` "item_delta"); when items are shared it is "item_delta_clustered". A score given with `se`
but no influence values is taken as independent of every other score. Otherwise `stderr` is None and
`std_over_varieties` (the sample standard deviation of the varieties' scores, n - 1) is the only spread
given, named for what it is.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

# `stderr_method` when every variety's score had an item-level SE: the delta method over its examples
ITEM_DELTA = "item_delta"
# `stderr_method` when scores shared test items: the same delta method, clustered by item
ITEM_DELTA_CLUSTERED = "item_delta_clustered"


def _declared(task: str) -> Any:
    from dialectbench.tasks import TASKS

    return TASKS.get(task)


def _finite(x: Any) -> bool:
    return x is not None and not isinstance(x, bool) and math.isfinite(float(x))


def headline_metric(task: str, metrics: Iterable[str]) -> str | None:
    """The metric a task's headline averages: its declared stored metric (`Task.stored_metric`) when its
    scores use it, else the metric most of them report."""
    counts = Counter(m for m in metrics if m)
    if not counts:
        return None
    spec = _declared(task)
    if spec is not None and spec.stored_metric in counts:
        return spec.stored_metric
    return counts.most_common(1)[0][0]


def higher_is_better(task: str, metric: str) -> bool:
    from dialectbench.metrics.result import MetricResult

    spec = _declared(task)
    if spec is not None and metric in (spec.metric, spec.stored_metric):
        return bool(spec.higher_is_better)
    return MetricResult(metric, 0.0).higher_is_better


def headlines(rows: Iterable[Mapping[str, Any]], excluded: Iterable[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """One entry per (task, setting, model) of `rows` (score rows: task, variety, model, setting, metric,
    score; optional `se`, the score's item-level standard error, `psi`, its influence values by test item
    ({item key: summed psi_j in points}, sum of squares se^2; see the module docstring), and `excluded`, a
    reason to leave it out).
    `excluded`: more rows left out by the caller (task, setting, model, variety, reason), e.g. flagged jobs
    the store no longer lists. Entries: metric, higher_is_better, mean, n (varieties averaged), varieties,
    std_over_varieties, stderr (the item-level SE of the mean, clustered by shared test item), stderr_method
    ("item_delta", or "item_delta_clustered" when scores shared items), excluded [{variety, reason}], n_excluded, and where there
    are any, `undefined` (varieties whose score is NaN) and `other_metrics` (scores under another name)."""
    from dialectbench.perturb.synthetic import is_synthetic

    groups: dict[tuple[str, str, str], dict[str, Any]] = {}

    def group(r: Mapping[str, Any]) -> dict[str, Any]:
        key = (str(r["task"]), str(r["setting"]), str(r.get("model") or ""))
        return groups.setdefault(key, {"rows": [], "excluded": {}})

    rows = list(rows)
    for r in rows:
        g = group(r)
        reason = r.get("excluded") or ("synthetic variety" if is_synthetic(str(r["variety"])) else None)
        if reason:
            g["excluded"].setdefault(str(r["variety"]), str(reason))
        else:
            g["rows"].append(r)
    for r in excluded:
        group(r)["excluded"].setdefault(str(r["variety"]), str(r.get("reason") or "flagged"))
    out = []
    for (task, setting, model), g in sorted(groups.items()):
        metric = headline_metric(task, (r.get("metric") for r in g["rows"])) or headline_metric(
            task, (r.get("metric") for r in rows if r["task"] == task))
        mine = [r for r in g["rows"] if r.get("metric") == metric]
        others = Counter(r.get("metric") for r in g["rows"] if r.get("metric") != metric)
        per_variety: dict[str, list[Mapping[str, Any]]] = {}
        for r in mine:
            per_variety.setdefault(str(r["variety"]), []).append(r)
        scores: dict[str, float] = {}
        weighted: dict[str, list[Mapping[str, Any]]] = {}  # variety -> its finite scores (weight 1/(k m_v))
        undefined = []
        for variety, rs in sorted(per_variety.items()):
            finite = [r for r in rs if _finite(r.get("score"))]
            if not finite:
                undefined.append(variety)
                continue
            # several scores of one variety (training sources): their mean, so each variety counts once
            scores[variety] = statistics.fmean(float(r["score"]) for r in finite)
            weighted[variety] = finite
        values = list(scores.values())
        k = len(values)
        stderr, method = _stderr(weighted)
        entry: dict[str, Any] = {
            "task": task, "setting": setting, "model": model, "metric": metric,
            "higher_is_better": higher_is_better(task, metric) if metric else None,
            "mean": statistics.fmean(values) if values else None, "n": k, "varieties": list(scores),
            "std_over_varieties": statistics.stdev(values) if k >= 2 else None,
            "stderr": stderr, "stderr_method": method,
            "excluded": [{"variety": v, "reason": why} for v, why in sorted(g["excluded"].items())
                         if v not in scores],
        }
        entry["n_excluded"] = len(entry["excluded"])
        if undefined:
            entry["undefined"] = undefined
        if others:
            entry["other_metrics"] = dict(others)
        out.append(entry)
    return out


def _stderr(weighted: Mapping[str, list[Mapping[str, Any]]]) -> tuple[float | None, str | None]:
    """(stderr, stderr_method) of (1/k) sum_v mean(scores of v): None unless every score has a finite `se`.
    Scores with `psi` are summed per item, weight 1/(k m_v), before squaring; with no item in two scores'
    `psi` the value is today's independent sqrt(sum w_s^2 se_s^2), bit for bit."""
    k = len(weighted)
    rows = [(r, 1.0 / (k * len(rs))) for rs in weighted.values() for r in rs]
    if not rows or not all(_finite(r.get("se")) for r, _ in rows):
        return None, None
    # sqrt(sum w_s^2 se_s^2), in the order the headline always computed it: per variety, then over varieties
    per_variety = [math.sqrt(sum(float(r["se"]) ** 2 for r in rs)) / len(rs) for rs in weighted.values()]
    independent = math.sqrt(sum(s ** 2 for s in per_variety)) / k
    clusters: dict[str, float] = {}
    scores_of: Counter[str] = Counter()
    alone = 0.0
    for r, w in rows:
        psi = r.get("psi")
        if not psi:
            alone += (w * float(r["se"])) ** 2  # no influence values: independent of every other score
            continue
        for item, value in psi.items():
            clusters[item] = clusters.get(item, 0.0) + w * float(value)
            scores_of[item] += 1
    if not any(n > 1 for n in scores_of.values()):
        return independent, ITEM_DELTA
    return math.sqrt(math.fsum(v * v for v in clusters.values()) + alone), ITEM_DELTA_CLUSTERED


def headline_rows(entries: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Headline entries as printed rows (terminal and report): one decimal, as the paper prints."""

    def num(x: Any) -> str | None:
        return None if x is None else f"{float(x):.1f}"

    out = []
    for e in entries:
        spread = (f"±{e['stderr']:.2f} (item SE)" if e["stderr"] is not None
                  else f"sd {e['std_over_varieties']:.1f} over varieties" if e["std_over_varieties"] is not None
                  else None)
        out.append({"task": e["task"], "setting": e["setting"], "model": e["model"], "metric": e["metric"],
                    "mean": num(e["mean"]), "spread": spread, "n": e["n"],
                    "left out": ", ".join(f"{x['variety']} ({x['reason']})" for x in e["excluded"]) or None})
    return out
