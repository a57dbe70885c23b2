"""A minimal OpenAI-compatible chat-completions client on the standard library (no new dependency).

POST {base_url}/chat/completions with JSON; retries with exponential backoff on 429, 5xx and connection
errors; a server that stays unreachable raises `LLMConnectionError` naming the URL. The API key (read from
an environment variable only when it is set) goes in the Authorization header and nowhere else.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class LLMError(RuntimeError):
    """The server answered, but not with a usable chat completion."""


class LLMConnectionError(LLMError):
    """The server could not be reached (after retries)."""


class ChatClient:
    """One OpenAI-compatible endpoint: `complete(messages) -> str` (the first choice's text)."""

    def __init__(self, base_url: str, *, api_key_env: str | None = "OPENAI_API_KEY", timeout: float = 60.0,
                 retries: int = 4, backoff: float = 1.0, sleep: Callable[[float], None] = time.sleep) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"llm backend: the url must start with http:// or https:// (got {base_url!r})")
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.timeout, self.retries, self.backoff, self._sleep = timeout, retries, backoff, sleep
        self.requests_sent = 0

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:  # never sent (nor logged) unless the variable is set
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _call(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Any:
        url = f"{self.base_url}{path}"
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                self._sleep(self.backoff * 2 ** (attempt - 1))
            request = urllib.request.Request(url, data=data, headers=self._headers(), method=method)
            self.requests_sent += 1
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    body = response.read().decode("utf-8")
            except urllib.error.HTTPError as err:
                detail = err.read().decode("utf-8", "replace")[:300]
                if err.code in RETRY_STATUS:
                    last = f"HTTP {err.code}: {detail}"
                    continue
                raise LLMError(f"{method} {url} failed: HTTP {err.code}: {detail}") from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as err:
                last = f"{type(err).__name__}: {getattr(err, 'reason', err)}"
                continue
            try:
                return json.loads(body)
            except json.JSONDecodeError:
                raise LLMError(f"{method} {url} returned non-JSON: {body[:200]!r}") from None
        raise LLMConnectionError(f"no usable reply from the LLM server at {url} after {self.retries + 1} "
                                 f"attempts (last error: {last}); is an OpenAI-compatible server running there?")

    def complete(self, messages: list[dict[str, str]], *, model: str, temperature: float,
                 max_tokens: int, seed: int | None = None) -> str:
        payload: dict[str, Any] = {"model": model, "messages": messages, "temperature": temperature,
                                   "max_tokens": max_tokens}
        if seed is not None:
            payload["seed"] = seed
        reply = self._call("POST", "/chat/completions", payload)
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMError(f"{self.base_url}/chat/completions: unexpected reply {str(reply)[:200]}") from None
        return content or ""

    def served_model(self) -> str:
        """The first model id of GET {base_url}/models (a vLLM / llama.cpp server serves one)."""
        try:
            reply = self._call("GET", "/models")
        except LLMConnectionError:
            raise
        except LLMError as err:
            raise LLMError(f"{err}; cannot ask the server which model it serves: pass model=... "
                           "or set $DIALECTBENCH_LLM_MODEL") from None
        try:
            return str(reply["data"][0]["id"])
        except (KeyError, IndexError, TypeError):
            raise LLMError(f"{self.base_url}/models lists no model; pass model=... explicitly") from None
