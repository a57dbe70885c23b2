"""`hf-causal:<hub id, folder or .gguf file>`: in-context learning with a causal LM run in-process.

    get_backend("hf-causal:HuggingFaceTB/SmolLM2-135M-Instruct")
    get_backend("hf-causal:/models/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")   # GGUF, needs `gguf`

The prompts, demonstrations, scoring modes, invalid-answer rules and request cache are the llm:
backend's (backends.llm.backend); this package supplies the engine (engine.py).
"""

from __future__ import annotations

from typing import Any

from dialectbench.backends.hf_causal.engine import HFCausalBackend, HFCausalEngine, resolve_source


def factory(arg: str, **options: Any) -> HFCausalBackend:
    return HFCausalBackend(arg, **options)


__all__ = ["HFCausalBackend", "HFCausalEngine", "factory", "resolve_source"]
