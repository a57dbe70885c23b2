"""The runner: plan jobs (train once, evaluate many), execute them, keep results in a SQLite store."""

from dialectbench.runner.executor import EmptySplit, InProcessExecutor, run_group
from dialectbench.runner.plan import Group, Job, Plan, PlanError, Skip, TrainingSet, build_plan
from dialectbench.runner.run import RunError, RunResult, run
from dialectbench.runner.store import DEFAULT_STORE, JobRecord, Store

__all__ = ["DEFAULT_STORE", "EmptySplit", "Group", "InProcessExecutor", "Job", "JobRecord", "Plan", "PlanError",
           "RunError", "RunResult", "Skip", "Store", "TrainingSet", "build_plan", "run", "run_group"]
