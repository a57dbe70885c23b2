"""The optional parts of the install, and the one line that says which to add when a feature needs one.

The core install holds what `dialectbench run` needs with the baselines (the parser's BiLSTM included:
torch stays core); a library only some commands use is an extra of pyproject.toml. A feature checks
with `require(what, *modules)` before it starts, so a missing library is one actionable line, not a
traceback from deep inside a fit.
"""

from __future__ import annotations

import importlib.util

# import name -> the extra of pyproject.toml that installs it
EXTRA_OF = {"transformers": "hf", "tokenizers": "hf", "accelerate": "hf", "openai": "llm",
            "pocketsphinx": "speech", "soundfile": "speech", "statsmodels": "stats",
            "huggingface_hub": "fetch", "datasets": "fetch"}


class MissingExtra(ImportError):
    """A feature's library is not installed; the message names the extra to install."""


def missing(*modules: str) -> list[str]:
    """Those of `modules` that cannot be imported here."""
    return [m for m in modules if importlib.util.find_spec(m) is None]


def install_hint(what: str, modules: list[str]) -> str:
    """"<what> needs the hf extra: pip install 'dialectbench[hf]'" for the extras holding `modules`."""
    extras = sorted({EXTRA_OF[m] for m in modules})
    noun = "extra" if len(extras) == 1 else "extras"
    return f"{what} needs the {' and '.join(extras)} {noun}: pip install 'dialectbench[{','.join(extras)}]'"


def require(what: str, *modules: str) -> None:
    """Raise MissingExtra naming the extra(s) to install when any of `modules` is missing."""
    absent = missing(*modules)
    if absent:
        raise MissingExtra(install_hint(what, absent))
