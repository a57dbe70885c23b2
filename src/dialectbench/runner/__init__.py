"""The runner: plan jobs (train once, evaluate many), execute them, keep results in a SQLite store."""

from __future__ import annotations

import sys
import types
from typing import Any

from dialectbench.lazy import lazy_exports

# Each name is imported from its module on first use (PEP 562), as in `dialectbench.metrics`: importing one
# light submodule (`runner.flags`, `runner.store`, `runner.progress`) must not load the executor, the plan,
# the backends and the metrics behind them.
_MODULES = {
    "EmptySplit": "local_executor", "InProcessExecutor": "local_executor", "run_group": "local_executor",
    "Group": "plan", "Job": "plan", "Plan": "plan", "PlanError": "plan", "Skip": "plan", "TrainingSet": "plan",
    "build_plan": "plan",
    "RunError": "run", "RunResult": "run", "run": "run",
    "DEFAULT_STORE": "store", "JobRecord": "store", "Store": "store",
}


__getattr__, __dir__ = lazy_exports(__name__, _MODULES)


class _Package(types.ModuleType):
    """`dialectbench.runner.run` is the function, as it was when this package imported it eagerly: importing
    the submodule `run` sets the package's attribute `run` to the module, which must not hide the function."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _MODULES and isinstance(value, types.ModuleType):
            self.__dict__.pop(name, None)  # the next look-up goes through __getattr__: the function
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

__all__ = ["DEFAULT_STORE", "EmptySplit", "Group", "InProcessExecutor", "Job", "JobRecord", "Plan", "PlanError",
           "RunError", "RunResult", "Skip", "Store", "TrainingSet", "build_plan", "run", "run_group"]
