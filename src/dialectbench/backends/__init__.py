"""Model backends and the registry that names them (registry.py).

    get_backend("baseline")            CPU baselines, offline (this package)
    get_backend("hf:<model id>")       transformers backend; presets mbert, xlmr, nllb-600m, nllb-1.3b
    get_backend("llm:<url>")           OpenAI-compatible HTTP backend
    get_backend("hf-causal:<id>")      a causal LM in-process, in-context learning
    get_backend("<plugin>[:<arg>]")    a family an installed distribution declares in the entry-point
                                       group `dialectbench.backends` (a `BackendEntry`)

A family is one `BackendEntry`: its factory gets the part of the name after "<prefix>:" ("" when there is
none) plus the keyword options it declares. Backends subclass `Backend` (base.py), which declares each
capability the runner reads, with its default.
"""

from __future__ import annotations

from dialectbench.backends.base import Backend, FittedModel
from dialectbench.backends.registry import (
    BackendEntry,
    BackendOptionError,
    UnknownBackendError,
    backend_names,
    check_name,
    cost_estimator,
    entries,
    get_backend,
    plugin_problems,
    register,
    register_backend,
    supports_icl,
    worker_modules,
)

__all__ = ["Backend", "BackendEntry", "BackendOptionError", "FittedModel", "UnknownBackendError",
           "backend_names", "check_name", "cost_estimator", "entries", "get_backend", "plugin_problems", "register",
           "register_backend", "supports_icl", "worker_modules"]
