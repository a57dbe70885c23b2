"""OpenAI-compatible LLM backend (in-context learning, DialectBench §3.2 item 5 / Appendix I).

    get_backend("llm:http://127.0.0.1:8000/v1", model="mistralai/Mistral-7B-Instruct-v0.2", k_shots=4)

Any server speaking the OpenAI API works (vLLM, llama.cpp, TGI, OpenAI): POST /v1/chat/completions for
generate mode, POST /v1/completions with echo + logprobs for loglikelihood mode (see backend.py). The
model id is the `model` option, else $DIALECTBENCH_LLM_MODEL, else the first model the server lists. The
API key is read from $OPENAI_API_KEY (option `api_key_env`) only when set, and redacted from every
message. Classification, MRC, EQA and MT are prompted; token tasks (dep, pos, ner) raise
UnsupportedTaskError. Needs the `openai` package (a core dependency).
"""

from __future__ import annotations

from typing import Any

from dialectbench.backends.llm.backend import LLMBackend, LLMModel, interpret, pick_demos
from dialectbench.backends.llm.client import ChatClient, LLMConnectionError, LLMError, redact


def factory(arg: str, **options: Any) -> LLMBackend:
    return LLMBackend(arg, **options)


__all__ = ["ChatClient", "LLMBackend", "LLMConnectionError", "LLMError", "LLMModel", "factory", "interpret",
           "pick_demos", "redact"]
