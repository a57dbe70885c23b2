"""Cell-by-cell check of a task summary against DialectBench Table 3 as printed.

Table 3 has 11 task rows and 7 cells each (clusters, varieties, average, max cluster/variety, max score,
min cluster/variety, min score): 77 cells. `table3_cells(summary)` gives one row per cell with our value,
the paper's, whether they agree (numbers at the paper's one decimal, names exactly) and, where they do
not, the reason known for that cell (`KNOWN_REASONS`) or "not reproduced".
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pandas as pd

from dialectbench.analysis.reference import paper_task_summary

# (our task_summary column(s), the paper's column(s), the cell's label)
CELLS = (
    (("n_clusters",), ("n_clusters",), "clusters"),
    (("n_varieties",), ("n_varieties",), "varieties"),
    (("average",), ("avg_score",), "average"),
    (("max_cluster", "max_variety"), ("max_cluster", "max_variety"), "max cluster/variety"),
    (("max_score",), ("max_score",), "max"),
    (("min_cluster", "min_variety"), ("min_cluster", "min_variety"), "min cluster/variety"),
    (("min_score",), ("min_score",), "min"),
)
N_CELLS = 77
TOL = 0.05 + 1e-9

# Cells that cannot be reproduced from the per-variety results, with the reason (task, cell label) -> text.
KNOWN_REASONS: dict[tuple[str, str], str] = {
    ("did", "varieties"): "Table 3 counts 49, but its average and minimum are over the 45 of Table 16; the "
                          "other 4 (english, cypriot greek fb, modern greek fb and other) have 0-9 test "
                          "examples in the original result files and are left out",
}


def _value(row: dict[str, Any], columns: tuple[str, ...]) -> str | None:
    values = [row.get(c) for c in columns]
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values):
        return None
    if len(values) == 1 and isinstance(values[0], (int, float)) and not isinstance(values[0], bool):
        v = float(values[0])
        return str(int(v)) if columns[0].startswith("n_") else _one_decimal(v)
    return "/".join(str(v) for v in values)


def _one_decimal(value: float) -> str:
    """One decimal, rounded half up (a binary float would print 8.95 as 8.9)."""
    return str(Decimal(repr(round(value, 6))).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def _same(ours: str | None, paper: str | None) -> bool:
    """Names exactly; numbers within the paper's rounding: it prints two-decimal results at one decimal,
    inconsistently rounded (8.95 as 9.0, 17.45 as 17.4), so anything within 0.05 of the printed value."""
    if ours is None or paper is None:
        return False
    try:
        return abs(float(ours) - float(paper)) <= TOL
    except ValueError:
        return ours == paper


def _exact(row: dict[str, Any], columns: tuple[str, ...]) -> str | None:
    """A number at two decimals (what the comparison uses), else as `_value`."""
    value = row.get(columns[0])
    if len(columns) == 1 and isinstance(value, float) and not math.isnan(value) and not columns[0].startswith("n_"):
        return f"{value:.2f}"
    return _value(row, columns)


def table3_cells(summary: pd.DataFrame) -> pd.DataFrame:
    """One row per Table 3 cell: task, cell, ours, paper, match, reason ("" where they match)."""
    paper = {r["task"]: r for r in paper_task_summary().to_dict("records")}
    ours = {r["task"]: r for r in summary.reset_index().to_dict("records")} if len(summary) else {}
    rows = []
    for task, printed in paper.items():
        mine = ours.get(task, {})
        for our_cols, paper_cols, label in CELLS:
            a, b = _exact(mine, our_cols), _value(printed, paper_cols)
            match = _same(a, b)
            reason = "" if match else KNOWN_REASONS.get((task, label), "no result for this task" if not mine
                                                         else "not reproduced from the packaged results")
            rows.append({"task": task, "cell": label, "ours": a, "paper": b, "match": match, "reason": reason})
    return pd.DataFrame(rows, columns=["task", "cell", "ours", "paper", "match", "reason"])


# ------------------------------------------------------------------------------------------------ Table 4
# Table 4 has 12 rows (DEP, POS, NER, TC x eng_eng, eng_rep, ft_rep), each with 5 cells: the average, the
# maximum cluster and value, the minimum cluster and value: 60 cells, all of mBERT.
T4_CELLS = (("avg", "avg"), ("max cluster", "max_cluster"), ("max", "max_value"), ("min cluster", "min_cluster"),
            ("min", "min_value"))
N_T4_CELLS = 60
T4_MODEL = "mbert"  # its printed extremes are mBERT's, not XLM-R's

# Cells that the packaged per-variety rows do not give, with the reason: (task, gap, cell) -> text. The POS
# rows fit no single cluster or variety set (checked by brute force over subsets): arabic's eng_eng 58.5 is
# the mean over its three UD treebanks only, yet the ft_rep minimum (neva) needs estonian and finnish, which
# are not UD-treebank varieties of DEP; the POS row was likely computed from another version of Table 11.
_POS_ARABIC = ("arabic's eng_eng over Table 11's six arabic rows is 60.6; the printed 58.5 is the mean of only "
               "its three UD treebanks (south levantine, standard, north african)")
_POS_ENG_REP = ("neva (31.5) and italian romance (23.0) exceed the printed maximum anglic 20.9 (anglic's own "
                "value reproduces); no subset of clusters gives the printed average with these extremes")
_POS_FT_REP = ("italian romance's ft_rep -2.6 (Table 11's two fine-tuned italian rows) is below the printed "
               "minimum neva -0.5; without italian romance the row reproduces (average 6.2, minimum neva)")
T4_KNOWN_REASONS: dict[tuple[str, str, str], str] = {
    ("pos", "eng_eng", "avg"): "not reproduced: the POS rows fit no single cluster set; " + _POS_ARABIC,
    ("pos", "eng_eng", "max"): _POS_ARABIC,
    ("pos", "eng_rep", "avg"): _POS_ENG_REP,
    ("pos", "eng_rep", "max cluster"): _POS_ENG_REP,
    ("pos", "eng_rep", "max"): _POS_ENG_REP,
    ("pos", "ft_rep", "avg"): _POS_FT_REP,
    ("pos", "ft_rep", "min cluster"): _POS_FT_REP,
    ("pos", "ft_rep", "min"): _POS_FT_REP,
    ("ner", "ft_rep", "min"): "lower sorbian's fine-tuned F1 is printed 3.03: (3.03 - 38.20) / 3.03 gives -1160.7; "
                              "the unrounded 3.0255 and 38.2022 of the original result file give the printed "
                              "-1162.7",
}


def table4_cells(gap_table: pd.DataFrame, clusters: str = "complete") -> pd.DataFrame:
    """One row per Table 4 cell: task, gap, cell, ours, paper, match, reason ("" where they match). `gap_table`
    is `analysis.gaps` of the scores (mBERT's rows are used); `clusters` "complete" is the paper's cluster set
    (clusters with all three gaps, `analysis.gaps.complete_clusters`), "all" every cluster with the gap."""
    from dialectbench.analysis.gaps import gap_summary
    from dialectbench.analysis.reference import paper_gaps

    summary = gap_summary(gap_table[gap_table["model"] == T4_MODEL], clusters)
    ours = {(r["task"], r["gap"]): r for r in summary.to_dict("records")}
    rows = []
    for printed in paper_gaps().to_dict("records"):
        key = (printed["task"], printed["gap"])
        mine = ours.get(key, {})
        for label, column in T4_CELLS:
            a, b = _exact(mine, (column,)), _value(printed, (column,))
            match = _same(a, b)
            reason = ("" if match else "no result for this task" if not mine
                      else T4_KNOWN_REASONS.get((*key, label), "not reproduced from the packaged results"))
            rows.append({"task": key[0], "gap": key[1], "cell": label, "ours": a, "paper": b, "match": match,
                         "reason": reason})
    return pd.DataFrame(rows, columns=["task", "gap", "cell", "ours", "paper", "match", "reason"])


# --------------------------------------------------------------------------------------- Tables 23-31
UTILITY_CELLS = (("linguistic utility", "linguistic_utility"), ("demographic utility", "demographic_utility"),
                 ("min variety", "min_variety"), ("min", "min_score"), ("std", "std"))
# The paper rounds figures computed from its unrounded per-variety scores, sometimes down: these cells are
# 0.05-0.06 from what the printed two-decimal inputs give (e.g. NER arabic std 11.151 printed 11.1).
_EDGE = "edge of rounding: 0.05-0.06 from the value of the printed inputs (the paper rounds unrounded figures)"
# The paper's demographic utility weights by the original project's speaker counts
# (metadata/dialect_info.csv), which have none under these SD-QA varieties' names: Korean keeps only the
# south-eastern variety (so its score, 64.63, is printed), Bengali neither ("-"). The registry has counts for
# all four; dropping seoul's and both vanga counts reproduces both cells (tests/test_reference.py).
_SPEAKERS_KOR = ("the paper weights by speaker counts with none for seoul (m:spoken): its 64.6 is the "
                 "south-eastern score alone; the registry counts both (51.8M, 13.0M)")
_SPEAKERS_BEN = ("the paper has no speaker count for either vanga variety (printed '-'); the registry counts "
                 "both (44.2M, 80.2M)")
UTILITY_KNOWN_REASONS: dict[tuple[str, str, str], str] = {
    ("25", "arabic", "std"): _EDGE, ("25", "norwegian", "std"): _EDGE,
    ("25", "anglic", "demographic utility"): _EDGE, ("25", "gallo-rhaetian", "demographic utility"): _EDGE,
    ("27", "sotho-tswana (s.30)", "std"): _EDGE, ("30", "sotho-tswana (s.30)", "demographic utility"): _EDGE,
    ("31", "korean", "demographic utility"): _SPEAKERS_KOR,
    ("31", "bengali", "demographic utility"): _SPEAKERS_BEN,
}


def utility_cells(clusters: pd.DataFrame) -> pd.DataFrame:
    """One row per printed cell of Tables 23-31 (per task and cluster: linguistic and demographic utility,
    minimum variety and score, std): table, task, cluster, cell, ours, paper, match, reason. `clusters` is
    `analysis.cluster_summary` of the scores. A "-" cell matches only an undefined one."""
    from dialectbench.analysis.reference import paper_summaries

    ours = {(r["task"], r["cluster"]): r for r in clusters.to_dict("records")}
    rows = []
    for printed in paper_summaries().to_dict("records"):
        mine = ours.get((printed["task"], printed["cluster"]), {})
        for label, column in UTILITY_CELLS:
            a, b = _exact(mine, (column,)), _value(printed, (column,))
            match = a == b if a is None or b is None else _same(a, b)
            key = (str(printed["table"]), printed["cluster"], label)
            reason = ("" if match else "no result for this cluster" if not mine
                      else UTILITY_KNOWN_REASONS.get(key, "not reproduced from the packaged results"))
            rows.append({"table": str(printed["table"]), "task": printed["task"], "cluster": printed["cluster"],
                         "cell": label, "ours": a, "paper": b, "match": match, "reason": reason})
    return pd.DataFrame(rows, columns=["table", "task", "cluster", "cell", "ours", "paper", "match", "reason"])
