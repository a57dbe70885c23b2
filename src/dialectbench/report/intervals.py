"""Bootstrap intervals for stored scores: moved down to `dialectbench.analysis.intervals` (the results file
and the terminal headline use them too); re-exported here for the report and older imports."""

from dialectbench.analysis.intervals import TOLERANCE, mean_interval, score_interval

__all__ = ["TOLERANCE", "mean_interval", "score_interval"]
