"""The runner: plan jobs (train once, evaluate many), execute them, keep results in a SQLite store."""

from __future__ import annotations

from dialectbench.lazy import lazy_exports

# Each name is imported from its module on first use (PEP 562), as in `dialectbench.metrics`: importing one
# light submodule (`runner.flags`, `runner.store`, `runner.progress`) must not load the executor, the plan,
# the backends and the metrics behind them. The function `run` lives in `orchestrate`: a submodule named
# `run` would, once imported, replace the package's attribute `run` (the function) with the module.
_MODULES = {
    "EmptySplit": "local_executor", "InProcessExecutor": "local_executor", "run_group": "local_executor",
    "Group": "plan", "Job": "plan", "Plan": "plan", "PlanError": "plan", "Skip": "plan", "TrainingSet": "plan",
    "build_plan": "plan",
    "RunError": "orchestrate", "RunResult": "orchestrate", "run": "orchestrate",
    "DEFAULT_STORE": "store", "JobRecord": "store", "Store": "store",
}


__getattr__, __dir__ = lazy_exports(__name__, _MODULES)

__all__ = ["DEFAULT_STORE", "EmptySplit", "Group", "InProcessExecutor", "Job", "JobRecord", "Plan", "PlanError",
           "RunError", "RunResult", "Skip", "Store", "TrainingSet", "build_plan", "run", "run_group"]
