"""Transformer backend (issue 7): fine-tune and evaluate any Hugging Face encoder or seq2seq model.

`get_backend("xlmr")`, `get_backend("hf:/path")` -> `HFBackend`; see backend.py for usage, heads.py for
the per-task heads, config.py for the per-task defaults, batching.py for fast inference.
"""

from typing import Any

from dialectbench.backends.hf.backend import HFBackend, HFFittedModel, accepts_variety
from dialectbench.backends.hf.batching import Predictor, collate
from dialectbench.backends.hf.config import TASK_DEFAULTS, TaskConfig, task_config
from dialectbench.backends.hf.heads import HEADS, nllb_code
from dialectbench.backends.hf.loading import PRESETS, HFModelError, ModelSpec, is_hf_model, resolve


def hf_factory(arg: str, **options: Any) -> HFBackend:
    """The registry's factory of `hf:<id-or-path>`."""
    return HFBackend(f"hf:{arg}", **options)


def preset_factory(name: str, arg: str, **options: Any) -> HFBackend:
    """The registry's factory of a preset (`mbert`, `xlmr`, `nllb-600m`, `nllb-1.3b`), which takes no argument."""
    if arg:  # the registry rejects an argument first; kept for a direct call
        raise ValueError(f"preset {name!r} takes no argument (got '{name}:{arg}')")
    return HFBackend(name, **options)



__all__ = ["HEADS", "PRESETS", "TASK_DEFAULTS", "HFBackend", "HFFittedModel", "HFModelError", "ModelSpec",
           "Predictor", "TaskConfig", "accepts_variety", "collate", "hf_factory", "is_hf_model", "nllb_code",
           "preset_factory", "resolve", "task_config"]
