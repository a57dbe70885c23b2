"""`report --compare paper`: your models ranked beside the published ones (DialectBench Tables 10-20).

The published rows join the scores as models named "<model> (published)", for each task only in the
metric we store (SA: accuracy, never the paper's larger of accuracy and F1) and only on the varieties
both sides have (an average over different varieties would not compare), and the report
says how many varieties each side lacks. Your own varieties that the paper does not have (a new
dialect from a user catalogue) stay in your own tables; they are left out of the comparison only.

Like with like (issue 36): every compared row carries its split, protocol and model family (columns
`split`, `protocol`, `family`; `group` = split + protocol). The published rows are taken from the paper's
table for the split our data is (EQA: SD-QA dev, so Table 14, not Table 15's test). The leaderboard ranks
models only within a group: a cross-fitted, training-free, in-context or sample-suite row is never ranked
beside a fine-tuned published one as an equal. A model whose rows of one task fall in several groups is
split into one leaderboard row per protocol ("<model> [<protocol>]").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

PUBLISHED = " (published)"
NOT_COMPARABLE = " (sample suite: not comparable)"
# The split of the benchmark data our runs score, per task, where it is not the paper's test split: EQA reads
# SD-QA's dev split (data/catalogue/eqa.yaml: "the test split of the runs (as DialectBench's dev column,
# Table 14)").
DATA_SPLIT = {"eqa": "dev"}
# protocols (what the model learnt from before it was scored)
FINE_TUNED = "fine-tuned"
CROSS_FITTED = "cross-fitted on the test questions"
TRAINING_FREE = "training-free"
IN_CONTEXT = "in-context"
PRETRAINED = "pretrained, not fine-tuned"
SAMPLE_SUITE = "sample suite"
# the published models' families (DialectBench Table 5 and §4)
PUBLISHED_FAMILY = {"mbert": "encoder (mBERT)", "xlmr": "encoder (XLM-R)", "mistral-7b": "LLM (Mistral 7B)",
                    "nllb-600m": "seq2seq MT (NLLB)", "nllb-1.3b": "seq2seq MT (NLLB)"}


@dataclass
class Comparison:
    scores: pd.DataFrame                                # ours + published, on the shared varieties
    published_models: list[str] = field(default_factory=list)
    only_ours: dict[str, int] = field(default_factory=dict)   # task -> varieties the paper lacks
    only_paper: dict[str, int] = field(default_factory=dict)  # task -> varieties we lack
    shared: dict[str, int] = field(default_factory=dict)
    splits: dict[str, str] = field(default_factory=dict)      # task -> the split compared (ours = the paper's)

    def groups(self, task: str) -> list[str]:
        if self.scores.empty or "group" not in self.scores:
            return []
        return sorted(set(self.scores.loc[self.scores["task"] == task, "group"]))

    def note(self, task: str) -> str:
        text = (f"Compared with the published results on the {self.shared.get(task, 0)} varieties both have "
                f"({self.splits.get(task, 'test')} split, the paper's table for it); "
                f"{self.only_ours.get(task, 0)} of ours are not in the paper, "
                f"{self.only_paper.get(task, 0)} of the paper's are not in ours (both left out here).")
        groups = self.groups(task)
        if len(groups) > 1:
            text += (" Rows are ranked only within their comparison group (split · protocol): "
                     + "; ".join(groups) + ". Ranks of different groups are not comparable.")
        return text


def _paper_name(metric: str) -> str:
    """The transcribed tables' name for a stored metric (the paper's F1 columns are macro F1 for DId, TC,
    NLI and MRC: metrics/tasks.py)."""
    return "f1" if metric == "macro_f1" else metric


def is_published(model: str) -> bool:
    return str(model).endswith(PUBLISHED)


def protocol(setting: str, train_on: str, *, published: bool = False, sample: bool = False) -> str:
    """What the row's model learnt from before it was scored (see the module doc)."""
    from dialectbench.runner.plan import CROSS_FITTED as CROSS
    from dialectbench.runner.plan import PRETRAINED as PRE
    from dialectbench.runner.plan import TRAINING_FREE as FREE

    if sample:
        return SAMPLE_SUITE
    if train_on == CROSS:
        return CROSS_FITTED
    if train_on == FREE:
        return TRAINING_FREE
    if setting == "icl":
        return IN_CONTEXT
    if train_on == PRE or (published and train_on == "pretrained"):
        return PRETRAINED
    return FINE_TUNED


def family(model: str, published: bool = False) -> str:
    """The model family: the published model's (PUBLISHED_FAMILY), else our backend's prefix
    (baseline = the CPU baselines, hf = a Hugging Face model, llm = a served LLM)."""
    if published:
        return PUBLISHED_FAMILY.get(model, model)
    prefix = str(model).partition(":")[0].strip()
    return {"baseline": "CPU baseline"}.get(prefix, prefix)


def _profiled(df: pd.DataFrame, *, published: bool, sample: set[str] | frozenset[str] = frozenset(),
              split: dict[str, str] | None = None) -> pd.DataFrame:
    """`df` with columns split, protocol, family and group (split · protocol)."""
    splits = (df["split"].tolist() if published else [(split or {}).get(t, DATA_SPLIT.get(t, "test"))
                                                      for t in df["task"]])
    protos = [protocol(s, t, published=published, sample=m in sample)
              for m, s, t in zip(df["model"], df["setting"], df["train_on"])]
    fams = [family(m, published) for m in df["model"]]
    return df.assign(split=splits, protocol=protos, family=fams,
                     group=[f"{sp} · {pr}" for sp, pr in zip(splits, protos)])


def _split_by_protocol(df: pd.DataFrame) -> pd.DataFrame:
    """A model whose rows of one task are in several groups becomes one model per protocol."""
    n = df.groupby(["task", "model"])["group"].transform("nunique")
    several = n > 1
    names = [f"{m} [{p}]" if many else m for m, p, many in zip(df["model"], df["protocol"], several)]
    return df.assign(model=names)


def paper_comparison(ours: pd.DataFrame, not_comparable: set[str] | frozenset[str] = frozenset()) -> Comparison:
    """Ours and the published rows, per task restricted to the varieties both have. Models in
    `not_comparable` (scored on the bundled sample suite: our own texts, not the benchmark's) keep their
    rows but carry NOT_COMPARABLE in their name wherever they are ranked beside published ones."""
    from dialectbench.analysis.reference import paper_scores

    # per task, the column of the metric we store, and the paper's table of the split our data is
    paper = paper_scores(metrics="all", split=None)
    paper = paper[[s == DATA_SPLIT.get(t, "test") for t, s in zip(paper["task"], paper["split"])]]
    paper = _profiled(paper, published=True)
    paper = paper.assign(model=paper["model"].astype(str) + PUBLISHED)
    paper = paper[[*ours.columns, "split", "protocol", "family", "group"]]
    ours_metric = {t: _paper_name(m) for t, m in ours[["task", "metric"]].drop_duplicates().itertuples(index=False)}
    paper = paper[[ours_metric.get(t) == m for t, m in zip(paper["task"], paper["metric"])]]
    ours = _profiled(ours, published=False, sample=set(not_comparable))
    ours = ours.assign(model=[f"{m}{NOT_COMPARABLE}" if m in not_comparable else m for m in ours["model"]])
    parts = []
    out = Comparison(ours)
    for task in sorted(set(ours["task"])):
        out.splits[task] = DATA_SPLIT.get(task, "test")
        mine = set(ours.loc[ours["task"] == task, "variety"])
        theirs = set(paper.loc[paper["task"] == task, "variety"])
        shared = mine & theirs
        out.shared[task], out.only_ours[task], out.only_paper[task] = len(shared), len(mine - theirs), \
            len(theirs - mine)
        parts.append(ours[(ours["task"] == task) & ours["variety"].isin(shared)])
        parts.append(paper[(paper["task"] == task) & paper["variety"].isin(shared)])
    parts = [p for p in parts if not p.empty]
    out.scores = _split_by_protocol(pd.concat(parts, ignore_index=True)) if parts else ours.iloc[0:0]
    out.published_models = sorted({m for m in out.scores["model"] if is_published(m)})
    return out
