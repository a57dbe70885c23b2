"""Progress from inside a long job: the primitive a backend calls (`report`) and the context that routes
it (`reporting`). It sits below every package (it imports none), so a backend can report its fit's progress
without importing the runner; `dialectbench.runner.progress` re-exports both and adds the cross-process
sending and the run's ETA. A report costs nothing when nobody listens.

Reports are throttled in the worker (at most one per `MIN_INTERVAL` seconds, plus every change of
stage or epoch), so a fast inner loop never floods a queue, a pipe or a log.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

MIN_INTERVAL = 1.0  # seconds between two forwarded reports of one job (stage/epoch changes always pass)

Callback = Callable[[dict[str, Any]], None]

_current: _Throttle | None = None


class _Throttle:
    def __init__(self, callback: Callback, min_interval: float) -> None:
        self.callback, self.min_interval = callback, min_interval
        self.last_time = 0.0
        self.last_step: tuple = ()

    def __call__(self, info: dict[str, Any]) -> None:
        now = time.monotonic()
        step = (info.get("stage"), info.get("epoch"))
        if step == self.last_step and now - self.last_time < self.min_interval:
            return
        self.last_time, self.last_step = now, step
        with contextlib.suppress(Exception):  # a display or queue problem must never fail the fit itself
            self.callback(info)


def report(stage: str = "fit", *, done: float | None = None, total: float | None = None,
           unit: str = "", epoch: int | None = None, epochs: int | None = None) -> None:
    """Tell whoever runs this job how far it is: `done` of `total` `unit`s of `stage` (fit, predict),
    optionally in epoch `epoch` of at most `epochs`. A no-op outside a reporting context."""
    if _current is None:
        return
    info: dict[str, Any] = {"stage": stage, "unit": unit}
    for key, value in (("done", done), ("total", total), ("epoch", epoch), ("epochs", epochs)):
        if value is not None:
            info[key] = value
    _current(info)


@contextlib.contextmanager
def reporting(callback: Callback | None, min_interval: float = MIN_INTERVAL) -> Iterator[None]:
    """Send this process's `report` calls to `callback` (None: drop them) for the block's duration."""
    global _current
    previous = _current
    _current = _Throttle(callback, min_interval) if callback is not None else None
    try:
        yield
    finally:
        _current = previous
