"""Imported by the local workers' fork server as it starts (first in `executor.PRELOAD`), and by nothing
else: it binds the importing process's life to its parent's (`lifeline.die_with_parent`), which for the
fork server is the driver that spawned it. See `lifeline` for the whole process tree."""

from dialectbench.runner.lifeline import die_with_parent

die_with_parent()
