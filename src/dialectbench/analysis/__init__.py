"""Analysis on the scores-table contract: max-obtainable scores, task and cluster summaries (DialectBench
Tables 3, 23-31), dialect gaps (DialectBench §3.3, Table 4), generalized-entropy unfairness with its
within/between decomposition (SD-QA §3), bootstrap intervals and paired tests, rank correlation."""

from dialectbench.analysis.fairness import GEResult, avg_pop, generalized_entropy, max_min
from dialectbench.analysis.gaps import GAPS, gap_summary, gaps, variety_gaps
from dialectbench.analysis.scores_io import ScoresError, read_scores, validate_scores
from dialectbench.analysis.stats import (
                                         BootstrapResult,
                                         PairedBootstrapResult,
                                         SpearmanResult,
                                         bootstrap_ci,
                                         paired_bootstrap,
                                         ratio_of_sums,
                                         spearman,
)
from dialectbench.analysis.summaries import cluster_summary, max_scores, task_summary

__all__ = [
                                         "GAPS",
                                         "BootstrapResult",
                                         "GEResult",
                                         "PairedBootstrapResult",
                                         "ScoresError",
                                         "SpearmanResult",
                                         "avg_pop",
                                         "bootstrap_ci",
                                         "cluster_summary",
                                         "gap_summary",
                                         "gaps",
                                         "generalized_entropy",
                                         "max_min",
                                         "max_scores",
                                         "paired_bootstrap",
                                         "ratio_of_sums",
                                         "read_scores",
                                         "spearman",
                                         "task_summary",
                                         "validate_scores",
                                         "variety_gaps",
]
