"""Names a package exports from its submodules, each imported on first use (PEP 562).

scikit-learn, scipy and torch cost seconds to import; `dialectbench --help`, the run's driver and every
worker would otherwise pay for modules they never use."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, modules: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's `__getattr__` and `__dir__` for `modules` ({name: submodule})."""

    def __getattr__(name: str) -> Any:
        if name not in modules:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{modules[name]}"), name)
        vars(importlib.import_module(package))[name] = value  # once: later look-ups are plain reads
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(importlib.import_module(package)), *modules})

    return __getattr__, __dir__
