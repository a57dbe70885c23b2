"""The task registry: 10 DialectBench tasks (MT as mt-dialect and mt-region) and cluster representatives.

>>> get_task("dep").metric
'uas'
>>> representative("anglic", "pos").name
'english'
>>> expand_tasks("mt")
['mt-dialect', 'mt-region']
>>> get_task("did").protocol.pools_cluster
True
"""

from dialectbench.tasks.kinds import KINDS, Kind, kind_of
from dialectbench.tasks.registry import (
    ENGLISH,
    MT_TASKS,
    TASKS,
    Representative,
    Task,
    expand_tasks,
    forget_user_tasks,
    get_task,
    register_task,
    representative,
    representatives,
    zero_shot_source,
)
from dialectbench.varieties import TASK_IDS, UnknownTaskError, task_ids

__all__ = [
    "ENGLISH", "KINDS", "MT_TASKS", "TASKS", "TASK_IDS", "Kind", "Representative", "Task", "UnknownTaskError",
    "expand_tasks", "forget_user_tasks", "get_task", "kind_of", "register_task", "representative",
    "representatives", "task_ids", "zero_shot_source",
]
