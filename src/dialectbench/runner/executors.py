"""Which executor a run uses (`dialectbench run --executor KIND`): the local process pool or Ray.

Apart from `local_executor` (in this process or a local process pool; `run_group`, the unit of work) and
`ray_executor` so that neither imports the other's module (`ray_executor` builds on `local_executor`;
choosing between them belongs to neither).
"""

from __future__ import annotations

from typing import Any

from dialectbench.runner.local_executor import ProcessExecutor

EXECUTORS = ("local", "ray")


def make_executor(kind: str = "local", *, ray_address: str | None = None, cpus_per_job: float | None = None,
                  gpus_per_job: float | None = None) -> Any:
    """The executor `dialectbench run --executor KIND` uses.

    local: independent groups on this machine's cores, `cpus_per_job` threads each (default 1, so one
    worker per core); ray: a Ray task per group (see `ray_executor`). ValueError for a bad combination.
    """
    kind = kind.strip().lower()
    if kind not in EXECUTORS:
        raise ValueError(f"unknown executor {kind!r}; choose {' or '.join(EXECUTORS)}")
    if kind == "local":
        if ray_address:
            raise ValueError("--ray-address needs --executor ray")
        if gpus_per_job:
            raise ValueError("--gpus-per-job needs --executor ray (the local executor runs one job per GPU "
                             "process it is given)")
        threads = max(1, int(cpus_per_job or 1))
        if cpus_per_job is not None and cpus_per_job != threads:
            raise ValueError("--cpus-per-job must be a whole number with the local executor")
        return ProcessExecutor(threads=threads)
    from dialectbench.runner.ray_executor import RayExecutor, import_ray  # Ray's module only when asked for

    import_ray()  # without Ray installed, say how to install it before anything starts
    return RayExecutor(ray_address, cpus_per_job=1 if cpus_per_job is None else cpus_per_job,
                       gpus_per_job=gpus_per_job)
