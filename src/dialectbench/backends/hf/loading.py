"""Model names -> Hugging Face checkpoints, and the checks that must pass before any training starts.

`--model` accepts a preset (`mbert`, `xlmr`, `nllb-600m`, `nllb-1.3b`) or `hf:<hub id or local folder>`.
Checkpoints load with `from_pretrained` from a local folder, the local cache or the hub when reachable;
`trust_remote_code` is off unless the caller turns it on.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PRESETS = {
    "mbert": "bert-base-multilingual-cased",
    "xlmr": "xlm-roberta-base",
    "nllb-600m": "facebook/nllb-200-distilled-600M",
    "nllb-1.3b": "facebook/nllb-200-1.3B",
}
PREFIX = "hf:"


class HFModelError(ValueError):
    """The model cannot be used for the task (missing, wrong head, tokenizer mismatch)."""


def is_hf_model(name: str) -> bool:
    """True for a preset name or an `hf:<id-or-path>` spec."""
    key = name.strip()
    return key.lower() in PRESETS or key.lower().startswith(PREFIX)


@dataclass(frozen=True)
class ModelSpec:
    """A resolved model name: `name` as the user wrote it (reported in the scores), `source` for
    `from_pretrained` (hub id or local folder)."""

    name: str
    source: str
    trust_remote_code: bool = False


def resolve(name: str, *, trust_remote_code: bool = False) -> ModelSpec:
    """`xlmr` -> xlm-roberta-base; `hf:./folder` -> the folder (must exist when written as a path)."""
    key = name.strip()
    if key.lower() in PRESETS:
        return ModelSpec(key.lower(), PRESETS[key.lower()], trust_remote_code)
    if not key.lower().startswith(PREFIX):
        raise HFModelError(f"{name!r} is not a Hugging Face model: use one of {', '.join(PRESETS)} "
                           f"or hf:<hub id or local folder>")
    source = key[len(PREFIX):].strip()
    if not source:
        raise HFModelError("hf: needs a hub id or a local folder after the colon, e.g. hf:xlm-roberta-base")
    # a hub id is "name" or "org/name"; anything else is meant as a folder
    looks_like_path = source.startswith((".", "/", "~")) or source.count("/") > 1 or os.sep != "/" and os.sep in source
    path = Path(source).expanduser()
    if path.exists():
        if not path.is_dir() or not (path / "config.json").is_file():
            raise HFModelError(f"model folder {str(path)!r} has no config.json: not a saved Hugging Face model")
        return ModelSpec(key, str(path.resolve()), trust_remote_code)
    if looks_like_path:
        raise HFModelError(f"model folder {str(path)!r} does not exist")
    return ModelSpec(key, source, trust_remote_code)


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence load reports and progress bars (classifier heads are new by design when we fine-tune)."""
    from huggingface_hub.utils import logging as hub_logging
    from transformers.utils import logging

    level, hub_level = logging.get_verbosity(), hub_logging.get_verbosity()
    logging.set_verbosity_error()
    # offline, the hub client logs ten 'Retrying in 8s' lines before the one-line error says it all
    hub_logging.set_verbosity_error()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        logging.set_verbosity(level)
        hub_logging.set_verbosity(hub_level)
        logging.enable_progress_bar()


def _missing(spec: ModelSpec, err: Exception) -> HFModelError:
    return HFModelError(
        f"cannot load model {spec.source!r}: it is not a local folder, not in the local Hugging Face cache, "
        f"and the hub could not provide it ({type(err).__name__}: {str(err).splitlines()[0][:200]}). "
        "Download it first where the hub is reachable (e.g. `hf download <id>`), or pass hf:<local folder>.")


def load_config(spec: ModelSpec) -> Any:
    from transformers import AutoConfig

    try:
        with quiet_transformers():
            with contextlib.suppress(OSError):  # the local cache first: no network when the model is there
                return AutoConfig.from_pretrained(spec.source, trust_remote_code=spec.trust_remote_code,
                                                  local_files_only=True)
            return AutoConfig.from_pretrained(spec.source, trust_remote_code=spec.trust_remote_code)
    except (OSError, ValueError) as err:
        if "trust_remote_code" in str(err):
            raise HFModelError(f"model {spec.source!r} needs custom code from its repository; enable "
                               "trust_remote_code only if you trust that code") from None
        raise _missing(spec, err) from None


def load_tokenizer(spec: ModelSpec, config: Any) -> Any:
    """The checkpoint's tokenizer; must be a fast (Rust) tokenizer (word ids and offsets are needed) and
    must fit the model's embedding table."""
    from transformers import AutoTokenizer

    try:
        with quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(spec.source, trust_remote_code=spec.trust_remote_code)
    except (OSError, ValueError) as err:
        raise HFModelError(f"cannot load the tokenizer of {spec.source!r}: {str(err).splitlines()[0][:300]}") from None
    if not getattr(tokenizer, "is_fast", False):
        raise HFModelError(f"the tokenizer of {spec.source!r} ({type(tokenizer).__name__}) is not a fast tokenizer; "
                           "word alignment and character offsets need one (save a tokenizer.json with the model)")
    vocab = getattr(_text_config(config), "vocab_size", None)
    if vocab is not None and len(tokenizer) > vocab:
        raise HFModelError(f"tokenizer/model mismatch in {spec.source!r}: the tokenizer has {len(tokenizer)} tokens "
                           f"but the model embeds only {vocab}; they do not belong together")
    if tokenizer.pad_token is None:
        if tokenizer.eos_token is None:
            raise HFModelError(f"the tokenizer of {spec.source!r} has neither a pad nor an eos token; cannot batch")
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def _text_config(config: Any) -> Any:
    getter = getattr(config, "get_text_config", None)
    return getter() if callable(getter) else config


def check_head(spec: ModelSpec, config: Any, auto_class: Any, task: str, needs: str) -> None:
    """Fail before training when the architecture has no `auto_class` head (e.g. NLLB for POS)."""
    mapping = getattr(auto_class, "_model_mapping", None)
    if mapping is None:
        return
    try:
        supported = type(config) in mapping
    except (KeyError, ValueError, TypeError):  # lazy mapping quirks: let from_pretrained decide
        return
    if not supported:
        raise HFModelError(f"model {spec.source!r} (model_type={getattr(config, 'model_type', '?')}) has no {needs}, "
                           f"which task {task!r} needs")
