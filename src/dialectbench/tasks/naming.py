"""Names of DialectBench tasks in lm-evaluation-harness's conventions, shared by every writer of them
(`run --output-path`, `export lm-eval`, `export hf`, `tasks --list`) so that one (task, variety) has one name.

A variety's slug is its name lower-cased, accents dropped, every run of other characters one `_`; a task is
`dialectbench_<task>_<variety slug>` and a task's group `dialectbench_<task>` (a task id's `-` becomes `_`):

>>> variety_slug("Tunisian Arabic (r:casual)")
'tunisian_arabic_r_casual'
>>> lm_eval_task("sa", "tunisian arabic"), lm_eval_group("mt-dialect")
('dialectbench_sa_tunisian_arabic', 'dialectbench_mt_dialect')

The in-context setting is what lm-eval runs, so it carries the plain names. A score of a trained setting
(in-variety, zero-shot, ...) is another evaluation of the same items; its name adds `__<setting>`: a slug
never holds two `_` in a row, so the suffix cannot be read as part of a variety's name:

>>> lm_eval_task("pos", "english (a:scotland)", "in-variety"), lm_eval_group("pos", "zero-shot")
('dialectbench_pos_english_a_scotland__in_variety', 'dialectbench_pos__zero_shot')
"""

from __future__ import annotations

import re
import unicodedata

PREFIX = "dialectbench"
BENCHMARK_GROUP = PREFIX  # the whole benchmark's group
ICL_SETTING = "icl"  # the setting whose evaluations carry the plain names
_RUN = re.compile(r"[^a-z0-9]+")


def variety_slug(name: str) -> str:
    """`name` lower-cased, accents dropped (NFKD), each run of anything but a-z and 0-9 one `_`, no `_` at
    either end. Never two `_` in a row (the setting separator)."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", name.lower()) if not unicodedata.combining(c))
    return _RUN.sub("_", plain).strip("_")


def _setting_suffix(setting: str | None) -> str:
    return "" if setting in (None, ICL_SETTING) else f"__{variety_slug(setting)}"


def lm_eval_group(task: str, setting: str | None = None) -> str:
    """`dialectbench_<task>` (a trained setting: `dialectbench_<task>__<setting>`)."""
    return f"{PREFIX}_{variety_slug(task)}{_setting_suffix(setting)}"


def lm_eval_task(task: str, variety: str, setting: str | None = None) -> str:
    """`dialectbench_<task>_<variety slug>` (a trained setting: `...__<setting>`)."""
    return f"{PREFIX}_{variety_slug(task)}_{variety_slug(variety)}{_setting_suffix(setting)}"
