"""`report --compare paper`: your models ranked beside the published ones (DialectBench Tables 10-20).

The published rows join the scores as models named "<model> (published)", for each task only in the
metric we store (SA: accuracy, never the paper's larger of accuracy and F1) and only on the varieties
both sides have (an average over different varieties would not compare), and the report
says how many varieties each side lacks. Your own varieties that the paper does not have (a new
dialect from a user catalogue) stay in your own tables; they are left out of the comparison only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

PUBLISHED = " (published)"
NOT_COMPARABLE = " (sample suite: not comparable)"


@dataclass
class Comparison:
    scores: pd.DataFrame                                # ours + published, on the shared varieties
    published_models: list[str] = field(default_factory=list)
    only_ours: dict[str, int] = field(default_factory=dict)   # task -> varieties the paper lacks
    only_paper: dict[str, int] = field(default_factory=dict)  # task -> varieties we lack
    shared: dict[str, int] = field(default_factory=dict)

    def note(self, task: str) -> str:
        return (f"Compared with the published results on the {self.shared.get(task, 0)} varieties both have; "
                f"{self.only_ours.get(task, 0)} of ours are not in the paper, "
                f"{self.only_paper.get(task, 0)} of the paper's are not in ours (both left out here).")


def _paper_name(metric: str) -> str:
    """The transcribed tables' name for a stored metric (the paper's F1 columns are macro F1 for DId, TC,
    NLI and MRC: metrics/tasks.py)."""
    return "f1" if metric == "macro_f1" else metric


def is_published(model: str) -> bool:
    return str(model).endswith(PUBLISHED)


def paper_comparison(ours: pd.DataFrame, not_comparable: set[str] | frozenset[str] = frozenset()) -> Comparison:
    """Ours and the published rows, per task restricted to the varieties both have. Models in
    `not_comparable` (scored on the bundled sample suite: our own texts, not the benchmark's) keep their
    rows but carry NOT_COMPARABLE in their name wherever they are ranked beside published ones."""
    from dialectbench.analysis.reference import paper_scores

    paper = paper_scores(metrics="all")  # per task, the column of the metric we store: like with like
    paper = paper.assign(model=paper["model"].astype(str) + PUBLISHED)[list(ours.columns)]
    ours_metric = {t: _paper_name(m) for t, m in ours[["task", "metric"]].drop_duplicates().itertuples(index=False)}
    paper = paper[[ours_metric.get(t) == m for t, m in zip(paper["task"], paper["metric"])]]
    ours = ours.assign(model=[f"{m}{NOT_COMPARABLE}" if m in not_comparable else m for m in ours["model"]])
    parts = []
    out = Comparison(ours)
    for task in sorted(set(ours["task"])):
        mine = set(ours.loc[ours["task"] == task, "variety"])
        theirs = set(paper.loc[paper["task"] == task, "variety"])
        shared = mine & theirs
        out.shared[task], out.only_ours[task], out.only_paper[task] = len(shared), len(mine - theirs), \
            len(theirs - mine)
        parts.append(ours[(ours["task"] == task) & ours["variety"].isin(shared)])
        parts.append(paper[(paper["task"] == task) & paper["variety"].isin(shared)])
    parts = [p for p in parts if not p.empty]
    out.scores = pd.concat(parts, ignore_index=True) if parts else ours.iloc[0:0]
    out.published_models = sorted({m for m in out.scores["model"] if is_published(m)})
    return out
