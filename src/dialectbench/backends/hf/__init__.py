"""Transformer backend (issue 7): fine-tune and evaluate any Hugging Face encoder or seq2seq model.

`get_backend("xlmr")`, `get_backend("hf:/path")` -> `HFBackend`; see backend.py for usage, heads.py for
the per-task heads, config.py for the per-task defaults, batching.py for fast inference.
"""

from dialectbench.backends.hf.backend import HFBackend, HFFittedModel, accepts_variety
from dialectbench.backends.hf.batching import Predictor, collate
from dialectbench.backends.hf.config import TASK_DEFAULTS, TaskConfig, task_config
from dialectbench.backends.hf.heads import HEADS, nllb_code
from dialectbench.backends.hf.loading import PRESETS, HFModelError, ModelSpec, is_hf_model, resolve


def _register() -> None:
    """`get_backend("hf:<id-or-path>")` and `get_backend("<preset>")` build an HFBackend."""
    from dialectbench.backends import UnknownBackendError, register_backend

    def preset(name: str):
        def factory(arg: str, **options):
            if arg:
                raise UnknownBackendError(f"preset {name!r} takes no argument (got '{name}:{arg}')")
            return HFBackend(name, **options)
        return factory

    register_backend("hf", lambda arg, **options: HFBackend(f"hf:{arg}", **options))
    for name in PRESETS:
        register_backend(name, preset(name))


_register()

__all__ = ["HEADS", "PRESETS", "TASK_DEFAULTS", "HFBackend", "HFFittedModel", "HFModelError", "ModelSpec",
           "Predictor", "TaskConfig", "accepts_variety", "collate", "is_hf_model", "nllb_code", "resolve",
           "task_config"]
