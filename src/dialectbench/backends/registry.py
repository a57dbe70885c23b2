"""The one registry of backend families: what `run --model NAME` can name, what `dialectbench models` lists.

An entry declares its prefix, its factory (a callable, or "module:attribute" imported on first use so that
torch and transformers load only when a run asks for them), the argument after "<prefix>:" (none, a model
id or a url), the keyword options the factory takes (checked before it is called: an unknown option is a
one-line error with the nearest names), the tasks it supports, the optional libraries it needs and a
one-line description.

The package fills it below; an installed distribution adds a family through the entry-point group
`dialectbench.backends`, whose object is a `BackendEntry` (or a callable returning one):

    [project.entry-points."dialectbench.backends"]
    keywords = "my_package:ENTRY"

A plugin that cannot be loaded is left out and reported in one line (`plugin_problems()`); it never stops
the package's own backends from working.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from dialectbench import extras
from dialectbench.backends.base import Backend
from dialectbench.extras import MissingExtra

GROUP = "dialectbench.backends"
ARGUMENTS = ("none", "model id", "url")
ALL_TASKS = ("dep", "pos", "ner", "did", "sa", "tc", "nli", "mrc", "eqa", "mt-dialect", "mt-region")
MT = ("mt-dialect", "mt-region")


class UnknownBackendError(ValueError):
    """No backend of that name, or a name without the argument its family needs (lists the known ones)."""


class BackendOptionError(ValueError):
    """An option the named backend does not declare (one line, with the nearest declared names)."""


@dataclass(frozen=True)
class BackendEntry:
    """One backend family. `factory(arg, **options) -> Backend`, `arg` the text after "<prefix>:" ("" when
    the family takes none). `options` None: not declared (a `register_backend` call), passed unchecked."""

    prefix: str
    factory: Callable[..., Backend] | str
    argument: str = "none"
    options: tuple[str, ...] | None = ()
    tasks: tuple[str, ...] = ()
    description: str = ""
    needs: tuple[str, ...] = ()  # import names of the optional libraries it needs, checked before it loads
    extra: str = ""  # what to pip install when they are missing ("": the dialectbench extra that holds them)
    module: str | None = None  # the package a worker pool imports up front (worker_modules)
    icl: bool = False  # runs in-context learning jobs (its backends say `supports_icl`): a plan of the name lists them
    cost: str | None = None  # `plan --estimate`: "backend" (the backend's own `job_seconds`), "encoder-step"
    #                          (a BERT-base-sized training step timed by runner/estimate), None: not costed
    source: str = "dialectbench"  # the distribution that declared it
    bound: tuple[Any, ...] = field(default=(), repr=False)  # leading arguments of the factory (a preset name)

    def __post_init__(self) -> None:
        if self.argument not in ARGUMENTS:
            raise ValueError(f"backend {self.prefix!r}: argument is one of {', '.join(ARGUMENTS)}, "
                             f"not {self.argument!r}")

    def load(self) -> Callable[..., Backend]:
        """The factory, imported now if it was named by a string."""
        if callable(self.factory):
            return self.factory
        module, _, attr = self.factory.partition(":")
        value: Any = importlib.import_module(module)
        for part in attr.split("."):
            value = getattr(value, part)
        return value

    def unavailable(self, arg: str = "") -> str:
        """Why the family cannot load here (the line naming what to install), or ""."""
        absent = extras.missing(*self.needs)  # looked up on the module: a test can make every extra missing
        what = f"--model {self.prefix}" + (":..." if arg else "")  # never the argument: a URL may hold a key
        if not absent:
            return ""
        if not self.extra and all(m in extras.EXTRA_OF for m in absent):
            return extras.install_hint(what, absent)
        return f"{what} needs {', '.join(absent)}: pip install '{self.extra or ' '.join(absent)}'"

    def check_options(self, options: dict[str, Any]) -> None:
        if self.options is None:
            return
        unknown = sorted(set(options) - set(self.options))
        if not unknown:
            return
        close = difflib.get_close_matches(unknown[0], self.options, n=3, cutoff=0.5)
        hint = f"; did you mean: {', '.join(close)}?" if close else ""
        takes = ", ".join(self.options) if self.options else "none"
        raise BackendOptionError(f"backend {self.prefix!r} does not take the option(s) {', '.join(unknown)}"
                                 f"{hint} (options it takes: {takes})")


_HF_OPTIONS = ("device", "precision", "overrides", "trust_remote_code", "verbose")
_ICL_OPTIONS = ("mode", "k_shots", "max_tokens", "max_invalid", "job_budget_s", "cache_only", "name",
                "log_samples", "chat_template", "system_prompt", "temperature", "stop")
_ENCODER_TASKS = tuple(t for t in ALL_TASKS if t not in MT)
_ICL_TASKS = ("did", "sa", "tc", "nli", "mrc", "eqa", *MT)

_PACKAGED: tuple[BackendEntry, ...] = (
    BackendEntry("baseline", "dialectbench.backends.baseline:factory", options=("parser", "crf"),
                 tasks=ALL_TASKS, cost="backend", module="dialectbench.backends.baseline",
                 description="CPU baselines, offline; MT: 'copy', the source sentence as its own translation "
                             "(a floor)"),
    BackendEntry("hf", "dialectbench.backends.hf:hf_factory", argument="model id", options=_HF_OPTIONS,
                 tasks=ALL_TASKS, needs=("transformers",), module="dialectbench.backends.hf", cost="encoder-step",
                 description="any encoder from the hub or a local folder, fine-tuned per training set; "
                             "seq2seq for MT"),
    *(BackendEntry(name, "dialectbench.backends.hf:preset_factory", options=_HF_OPTIONS,
                   tasks=MT if name.startswith("nllb") else _ENCODER_TASKS, needs=("transformers",),
                   module="dialectbench.backends.hf", bound=(name,),
                   cost=None if name.startswith("nllb") else "encoder-step",
                   description=f"{hub}: " + ("translates, no fine-tuning" if name.startswith("nllb")
                                             else "fine-tuned per training set"))
      for name, hub in (("mbert", "bert-base-multilingual-cased"), ("xlmr", "xlm-roberta-base"),
                        ("nllb-600m", "facebook/nllb-200-distilled-600M"),
                        ("nllb-1.3b", "facebook/nllb-200-1.3B"))),
    BackendEntry("llm", "dialectbench.backends.llm:factory", argument="url",
                 options=(*_ICL_OPTIONS, "model", "api_key_env", "timeout", "retries", "backoff", "client",
                          "concurrency"),
                 tasks=_ICL_TASKS, needs=("openai",), module="dialectbench.backends.llm", icl=True,
                 description="an OpenAI-compatible chat server: in-context learning (setting icl)"),
    BackendEntry("hf-causal", "dialectbench.backends.hf_causal:factory", argument="model id",
                 options=(*_ICL_OPTIONS, "batch_size", "device", "dtype", "trust_remote_code", "revision",
                          "prefix_cache"),
                 tasks=_ICL_TASKS, needs=("transformers",), module="dialectbench.backends.hf_causal", icl=True,
                 description="a causal LM (hub id, folder or .gguf file) in-process: in-context learning "
                             "(setting icl)"),
)

_ENTRIES: dict[str, BackendEntry] = {e.prefix: e for e in _PACKAGED}
_PLUGINS_LOADED = False
_PROBLEMS: dict[str, str] = {}  # entry-point name -> the line that says why it was left out


def register(entry: BackendEntry) -> None:
    """Add (or replace) a family."""
    _ENTRIES[entry.prefix] = entry


def register_backend(prefix: str, factory: Callable[..., Backend]) -> None:
    """A family from a factory alone (options not declared: passed through unchecked)."""
    register(BackendEntry(prefix, factory, options=None))


def _load_plugins() -> None:
    global _PLUGINS_LOADED
    if _PLUGINS_LOADED:
        return
    _PLUGINS_LOADED = True
    for point in entry_points(group=GROUP):
        where = f"plugin {point.name!r} ({point.value}"
        try:
            dist = point.dist.name if point.dist is not None else "?"
            where += f", from {dist})"
            value = point.load()
            entry = value() if callable(value) and not isinstance(value, BackendEntry) else value
            if not isinstance(entry, BackendEntry):
                raise TypeError(f"is a {type(entry).__name__}, not a dialectbench.backends.BackendEntry")
            if entry.prefix in _ENTRIES and _ENTRIES[entry.prefix].source == "dialectbench":
                raise ValueError(f"prefix {entry.prefix!r} is the package's own")
        except Exception as err:  # noqa: BLE001 - any fault in third-party code: reported, never fatal
            if not where.endswith(")"):
                where += ")"
            first = (str(err).splitlines() or [""])[0]
            _PROBLEMS[point.name] = f"backend {where} not loaded: {type(err).__name__}: {first}"
            continue
        register(entry if entry.source != "dialectbench" else _with_source(entry, dist))


def _with_source(entry: BackendEntry, dist: str) -> BackendEntry:
    from dataclasses import replace

    return replace(entry, source=dist)


def entries() -> list[BackendEntry]:
    """Every family: the package's and the installed plugins', by prefix."""
    _load_plugins()
    return [_ENTRIES[k] for k in sorted(_ENTRIES)]


def plugin_problems() -> list[str]:
    """One line per plugin that could not be loaded."""
    _load_plugins()
    return list(_PROBLEMS.values())


def entry(name: str) -> BackendEntry | None:
    """The entry of `name`'s family (the part before ':'), if any."""
    prefix = name.strip().partition(":")[0]
    if prefix not in _ENTRIES:
        _load_plugins()
    return _ENTRIES.get(prefix)


def backend_names() -> list[str]:
    """Every registered family's prefix."""
    return [e.prefix for e in entries()]


def check_name(name: str) -> BackendEntry:
    """The entry of `name`, or UnknownBackendError unless it is of a known family with the argument the
    family needs; the closest known names are suggested. Imports no backend: a plan can check a name."""
    prefix, _, arg = name.strip().partition(":")
    found = entry(name)
    if found is None:
        known = backend_names()
        close = difflib.get_close_matches(prefix.lower(), known, n=3, cutoff=0.6)
        hint = f"; did you mean: {', '.join(close)}?" if close else ""
        listed = ", ".join(e.prefix if e.argument == "none" else f"{e.prefix}:<...>" for e in entries())
        broken = f"; {_PROBLEMS[prefix]}" if prefix in _PROBLEMS else ""
        raise UnknownBackendError(f"unknown backend {name!r}{hint} (known: {listed}){broken}")
    if found.argument != "none" and not arg:
        raise UnknownBackendError(f"backend {prefix!r} needs an argument: '{prefix}:<{found.argument}>'")
    if found.argument == "none" and arg:
        raise UnknownBackendError(f"backend {prefix!r} takes no argument (got {name.strip()!r})")
    return found


def get_backend(name: str, **options: Any) -> Backend:
    """The backend named `name` ("baseline", "hf:<id>", "llm:<url>", a plugin's), built with `options`;
    MissingExtra when its family's optional libraries are not installed, BackendOptionError for an option
    it does not declare."""
    found = check_name(name)
    arg = name.strip().partition(":")[2]
    found.check_options(options)
    problem = found.unavailable(arg)
    if problem:
        raise MissingExtra(problem)
    try:
        factory = found.load()
    except ImportError as exc:
        hint = f" (pip install '{found.extra}')" if found.extra else ""
        raise UnknownBackendError(f"backend family {found.prefix!r} is not available: {exc}{hint}") from exc
    return factory(*found.bound, arg, **options)


def supports_icl(name: str) -> bool:
    """Whether the backend `name` runs icl jobs, from its entry, without importing it (a plan of a name)."""
    found = entry(name)
    return found is not None and found.icl


def cost_estimator(name: str) -> Any:
    """The backend's own cost estimate for `plan --estimate`: an object with `job_seconds(task, n_train,
    n_dev, n_test, train_words=, test_words=) -> (fit s, eval s)` (the baseline: per-word costs measured on
    UD), "encoder-step" for the transformer encoders (timed by runner/estimate), or None (not costed:
    generation and in-context families, whose cost is the server's or the LLM's), as its entry declares."""
    found = entry(name)
    if found is None or found.cost is None:
        return None
    return get_backend(name) if found.cost == "backend" else found.cost


def worker_modules(backend: str | Any, tasks: Sequence[str] | None = None) -> list[str]:
    """The modules a worker imports to fit `tasks` (None: every task) with `backend` (a name or an object),
    for a worker pool to import once, up front; [] when unknown. Never imports a heavy module: a family's
    package is asked for a per-task list only when it is already loaded or cheap to load (the baseline)."""
    import sys

    if isinstance(backend, str):
        found = entry(backend)
        module = found.module if found is not None else None
        if module is None:
            return []
        if found is not None and found.prefix == "baseline":  # light (its models load on demand), named per task
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
