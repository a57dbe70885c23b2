"""Model backends and the registry that names them.

    get_backend("baseline")            CPU baselines, offline (this package)
    get_backend("hf:<model id>")       transformers backend (registered by its module when it lands)
    get_backend("llm:<url>")           OpenAI-compatible HTTP backend (likewise)
    get_backend("hf-causal:<id>")      a causal LM in-process, in-context learning (likewise)

A family registers a factory with `register_backend(prefix, factory)`; the factory gets the part of the
name after "<prefix>:" (or "" when there is none) plus any keyword options.
"""

from __future__ import annotations

import difflib
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

from dialectbench.backends.base import Backend
from dialectbench.extras import require

_FACTORIES: dict[str, Callable[..., Backend]] = {}
# families whose module registers itself on import (so importing torch/transformers stays lazy)
_LAZY_MODULES = {"baseline": "dialectbench.backends.baseline", "hf": "dialectbench.backends.hf",
                 "llm": "dialectbench.backends.llm", "hf-causal": "dialectbench.backends.hf_causal",
                 # transformer presets (hf backend): mBERT, XLM-R, NLLB-200 600M / 1.3B
                 **dict.fromkeys(("mbert", "xlmr", "nllb-600m", "nllb-1.3b"), "dialectbench.backends.hf")}
# the libraries of an optional install (dialectbench.extras) each family needs, checked before it loads
_NEEDS = {"llm": ("openai",), **dict.fromkeys(("hf", "hf-causal", "mbert", "xlmr", "nllb-600m", "nllb-1.3b"),
                                              ("transformers",))}


class UnknownBackendError(ValueError):
    """No backend of that name (message lists the known families)."""


def register_backend(prefix: str, factory: Callable[..., Backend]) -> None:
    _FACTORIES[prefix] = factory


def _baseline_factory(arg: str, **options: Any) -> Backend:
    from dialectbench.backends.baseline import BaselineBackend

    if arg:
        raise UnknownBackendError(f"backend 'baseline' takes no argument (got 'baseline:{arg}')")
    return BaselineBackend(**options)


register_backend("baseline", _baseline_factory)


def worker_modules(backend: str | Any, tasks: Sequence[str] | None = None) -> list[str]:
    """The modules a worker imports to fit `tasks` (None: every task) with `backend` (a name or an object),
    for a worker pool to import once, up front; [] when unknown. Never imports a heavy module: a family's
    package is asked for a per-task list only when it is already loaded or cheap to load (the baseline)."""
    if isinstance(backend, str):
        prefix = backend.strip().partition(":")[0]
        module = _LAZY_MODULES.get(prefix)
        if module is None:
            return []
        if prefix == "baseline":  # a light package (its models load on demand) that names them per task
            importlib.import_module(module)
    else:
        inner = getattr(backend, "_backend", None)  # a wrapper (runner.options.MarkedBackend)
        module = type(inner if inner is not None else backend).__module__
        if module == "__main__":  # a script's own class: its workers import it from the script's path
            return []
    per_task = getattr(sys.modules.get(module), "worker_modules", None)
    if per_task is None:
        return [module]
    return [module, *per_task(tasks)]


_NEEDS_ARGUMENT = ("hf", "llm", "hf-causal")
# families that prompt a model in context (their backends say `supports_icl = True`): a plan lists icl jobs
_ICL_FAMILIES = ("llm", "hf-causal")
# families `plan --estimate` costs by timing a BERT-base-sized training step (runner/estimate.py)
ENCODER_FAMILIES = ("hf", "mbert", "xlmr")


def supports_icl(name: str) -> bool:
    """Whether the backend `name` runs icl jobs, without importing it (a plan of a name)."""
    return name.strip().partition(":")[0] in _ICL_FAMILIES


def cost_estimator(name: str) -> Any:
    """The backend's own cost estimate for `plan --estimate`: an object with `job_seconds(task, n_train,
    n_dev, n_test, train_words=, test_words=) -> (fit s, eval s)` (the baseline: per-word costs measured on
    UD), "encoder-step" for the transformer encoders (timed here by runner/estimate), or None (not costed:
    generation and in-context families, whose cost is the server's or the LLM's)."""
    prefix = name.strip().partition(":")[0]
    if prefix == "baseline":
        return get_backend(name)
    return "encoder-step" if prefix in ENCODER_FAMILIES else None


def check_name(name: str) -> None:
    """UnknownBackendError unless `name` is of a known family, with the argument the family needs; the
    closest known names are suggested. Imports nothing: a command that only plans can check a name."""
    prefix, _, arg = name.strip().partition(":")
    if prefix in _NEEDS_ARGUMENT and not arg:
        what = "url" if prefix == "llm" else "model id"
        raise UnknownBackendError(f"backend {prefix!r} needs an argument: '{prefix}:<{what}>'")
    if arg and prefix in _LAZY_MODULES and prefix not in _NEEDS_ARGUMENT:
        raise UnknownBackendError(f"backend {prefix!r} takes no argument (got {name.strip()!r})")
    known = backend_names()
    if prefix not in known:
        close = difflib.get_close_matches(prefix.lower(), known, n=3, cutoff=0.6)
        hint = f"; did you mean: {', '.join(close)}?" if close else ""
        raise UnknownBackendError(f"unknown backend {name!r}{hint} (known: "
                                  + ", ".join(f"{k}:<...>" if k in _NEEDS_ARGUMENT else k for k in known) + ")")


def get_backend(name: str, **options: Any) -> Backend:
    """The backend named `name` ("baseline", "hf:<id>", "llm:<url>"), built with `options`; MissingExtra
    when its family's optional libraries are not installed."""
    check_name(name)
    prefix, _, arg = name.strip().partition(":")
    if prefix in _NEEDS:
        require(f"--model {prefix}" + (":..." if arg else ""), *_NEEDS[prefix])  # a URL may hold a key
    if prefix not in _FACTORIES:
        try:
            importlib.import_module(_LAZY_MODULES[prefix])
        except ImportError as exc:
            raise UnknownBackendError(f"backend family {prefix!r} is not available: {exc}") from exc
        if prefix not in _FACTORIES:
            raise UnknownBackendError(f"backend family {prefix!r}: {_LAZY_MODULES[prefix]} did not "
                                      "register a factory (register_backend)")
    return _FACTORIES[prefix](arg, **options)


def backend_names() -> list[str]:
    """Registered and known backend families."""
    return sorted(set(_FACTORIES) | set(_LAZY_MODULES))


__all__ = ["Backend", "UnknownBackendError", "backend_names", "check_name", "get_backend", "register_backend"]
