"""The scores-table contract (../shared/DESIGN.md): one row per evaluated (task, variety, model,
setting, train_on). Scores are percentages in 0-100, as in the papers."""

SCORE_COLUMNS = ("task", "cluster", "variety", "model", "setting", "train_on", "metric", "score", "n")
SETTINGS = ("in-variety", "in-cluster", "combined", "zero-shot", "icl")
