"""Local workers end when the driver ends, however it ends (SIGKILL, out of memory, a crash).

The process tree is driver -> fork server -> workers (the local executor uses the "forkserver" start
method), and nothing in it ends by itself: every worker holds the fork server's "alive" pipe open, so the
server outlives the driver until its workers end, and an idle worker waits on the pool's queue forever.
Two guards, both at once:

- Linux: `die_with_parent()` asks the kernel to SIGKILL a process when its parent ends. The fork server
  calls it as it starts (its parent: the driver; see `_fork_server`), each worker in its initializer (its
  parent: the fork server), so the driver's death ends the server and that ends the workers, even a
  worker busy in C code that never lets a Python thread run.
- Everywhere: `watch_driver` in each worker waits on a lifeline, a pipe whose only write end the driver
  holds. The kernel closes it when the driver ends, so the read end sees end-of-file at once (no polling,
  and a killed driver that its own parent has not reaped yet, a zombie that `kill(pid, 0)` still finds,
  counts as gone). Between waits it also checks the driver's pid, in case the pipe cannot tell.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> bool:
    """Linux: have the kernel SIGKILL this process when the thread that started it ends (prctl
    PR_SET_PDEATHSIG); False where unsupported. A parent that died before the call goes unnoticed here:
    a worker's `watch_driver` sees it, a fork server sees its driver's "alive" pipe closed."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def watch_driver(driver_pid: int, lifeline: Any = None, every: float = 1.0) -> None:
    """End this process (exit status 1) when the driver is gone: at once when `lifeline` (the read end of
    a `multiprocessing.Pipe` whose write end only the driver holds) reaches end-of-file, otherwise when a
    check of `driver_pid`, every `every` seconds, no longer finds it."""
    from multiprocessing.connection import wait

    def watch() -> None:
        while True:
            if lifeline is None:
                threading.Event().wait(every)
            elif wait([lifeline], timeout=every):  # readable: end-of-file, the driver never writes
                os._exit(1)
            try:
                os.kill(driver_pid, 0)
            except (ProcessLookupError, PermissionError):  # a pid reused by another user's process: gone too
                os._exit(1)

    threading.Thread(target=watch, name="watch-driver", daemon=True).start()
