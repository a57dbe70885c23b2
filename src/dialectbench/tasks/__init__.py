"""The task registry: 10 DialectBench tasks (MT as mt-dialect and mt-region) and cluster representatives.

>>> get_task("dep").metric
'uas'
>>> representative("anglic", "pos").name
'english'
>>> expand_tasks("mt")
['mt-dialect', 'mt-region']
"""

from dialectbench.tasks.registry import (
    ENGLISH,
    MT_TASKS,
    TASKS,
    Representative,
    Task,
    expand_tasks,
    get_task,
    representative,
    representatives,
    zero_shot_source,
)
from dialectbench.varieties import TASK_IDS, UnknownTaskError

__all__ = [
    "ENGLISH", "MT_TASKS", "TASKS", "TASK_IDS", "Representative", "Task", "UnknownTaskError", "expand_tasks",
    "get_task", "representative", "representatives", "zero_shot_source",
]
