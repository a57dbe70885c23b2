"""The variety registry: the 281 varieties of DialectBench (DialectBench, Table 8) in 40 clusters.

The table is `varieties.csv` in this package, one row per variety (edit it in a pull request):
cluster, name (canonical, lower case: ``{glottolog name} (a:…, r:…, m:…, o:…, i:…)``), glottocode (empty where
the paper has none), mbert_seen (yes/no), tasks (space-separated task ids), speakers (a whole number or
empty), speakers_note (text such as "antiquated" where no count exists), nllb_code (FLORES-200 code where
the data used one), original_id (the original DialectBench code's id), and code_<task> (the dataset code
per task in the original metadata; code_mt belongs to whichever MT flavour the variety is in).
Speaker counts and dataset codes come from the original project's metadata (dialect_info_wgcode.csv).

>>> reg = registry()
>>> reg.get("English (A:Scotland)").name
'english (a:scotland)'
>>> len(reg), len(reg.clusters())
(281, 40)
"""

from dialectbench.varieties.model import Variety
from dialectbench.varieties.naming import ATTRIBUTE_KEYS, MalformedVarietyName, VarietyError, parse_name
from dialectbench.varieties.registry import (
    MT_TASKS,
    TASK_IDS,
    TASK_KINDS,
    Registry,
    RegistryDataError,
    UnknownClusterError,
    UnknownTaskError,
    UnknownVarietyError,
    declare_task_id,
    forget_user_task_ids,
    load_registry,
    lookup_key,
    registry,
    task_ids,
)

__all__ = [
    "ATTRIBUTE_KEYS", "MT_TASKS", "TASK_IDS", "TASK_KINDS", "MalformedVarietyName", "Registry", "RegistryDataError",
    "UnknownClusterError", "UnknownTaskError", "UnknownVarietyError", "Variety", "VarietyError",
    "declare_task_id", "forget_user_task_ids", "load_registry", "lookup_key", "parse_name", "registry",
    "task_ids",
]
