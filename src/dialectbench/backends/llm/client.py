"""The OpenAI-compatible client, on the official `openai` package (base_url = the server).

The openai client brings connection pooling (thread-safe, for --concurrency), per-request timeouts and
typed errors; the retry loop is ours (`max_retries=0` there) so that retries stop at the job's time
budget and a server that is down ends the run after a few seconds instead of minutes. Every message
that leaves this module is passed through `redact`: the API key and any user:password in the URL never
reach a log line, a job message or the store.

Every request has a total deadline (`timeout`, and never past the job's deadline): httpx's timeout bounds
each socket read only, so a server dripping one byte every 2 s would hold a request forever. Each attempt
runs in a daemon thread that the caller waits on with that deadline (and abandons when it passes); the
wait also ends at once when `cancel()` is called (Ctrl-C, SIGTERM), so an interrupted run exits in
seconds instead of waiting on its requests. The reply body is read through a bounded stream (an httpx
response hook): past the attempt's deadline, or past MAX_REPLY_BYTES, reading stops at the next chunk and
httpx closes the connection, so an abandoned thread ends with its connection at the server's next byte (or
its read timeout) instead of when the server stops, and a 5 MB reply is refused after 4 MiB, not held whole.
"""

from __future__ import annotations

import base64
import logging
import math
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from dialectbench.backends.base import BackendUnavailableError

log = logging.getLogger(__name__)
RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 60.0  # seconds: the most a server's Retry-After may make us wait before one retry
MAX_REPLY_CHARS = 20_000  # a reply longer than this is not an answer (a 5 MB reply is invalid, not parsed)
# bytes of one reply body, counted while it is read: an echo-logprobs reply carries ~100 bytes a prompt
# token, so this leaves room for 40k-token prompts; a longer body is an invalid answer ("too long")
MAX_REPLY_BYTES = 4 << 20
LOGPROB_TOLERANCE = 1e-4  # a log-probability above this is not one (float rounding may give +1e-7 for ~1)
_POLL_S = 0.2  # how often a waiting worker thread looks whether the run was cancelled


class LLMError(RuntimeError):
    """The server answered, but not with a usable completion."""


class LLMConnectionError(LLMError, BackendUnavailableError):
    """The server could not be reached (after retries): the run stops."""


class TimeBudgetExceeded(LLMError):
    """The job's time budget ran out while waiting on the server."""


class Cancelled(BaseException):  # like KeyboardInterrupt: no `except Exception` may swallow it
    """The run was interrupted (ChatClient.cancel): a waiting request gives up at once."""


class _RequestTimeout(Exception):
    """One attempt passed its total deadline."""


class ReplyTooLarge(LLMError):
    """The reply body grew past MAX_REPLY_BYTES while being read (the rest is not read: not retried)."""


TOO_LONG = {"invalid": "too long", "over_bytes": MAX_REPLY_BYTES}  # a generated reply never read whole


_attempt_end = threading.local()  # `.at`: the monotonic end of the attempt running on this thread


def _bounded_body(httpx: Any) -> type:
    """The class of a reply body read within its attempt's deadline and MAX_REPLY_BYTES (a subclass of the
    openai client's own httpx SyncByteStream, which httpx requires of a body)."""

    class BoundedBody(httpx.SyncByteStream):
        def __init__(self, inner: Any, end: float | None, url: str) -> None:
            self.inner, self.end, self.url = inner, end, url

        def __iter__(self) -> Any:
            got = 0
            for chunk in self.inner:
                got += len(chunk)
                if got > MAX_REPLY_BYTES:  # raised out of httpx's read, which closes the connection
                    raise ReplyTooLarge(f"a reply of more than {MAX_REPLY_BYTES:,} bytes from the LLM server at "
                                        f"{self.url} (not read further)")
                if self.end is not None and time.monotonic() > self.end:  # the waiting thread has given up
                    raise _RequestTimeout
                yield chunk

        def close(self) -> None:
            self.inner.close()

    return BoundedBody


def strip_credentials(url: str) -> str:
    """The URL without user:password and with its query values hidden (`?api-key=***`): shown and stored
    instead of the URL itself."""
    parts = urlsplit(url)
    if parts.query:
        hidden = urlencode([(k, "***") for k, _ in parse_qsl(parts.query, keep_blank_values=True)], safe="*")
        parts = parts._replace(query=hidden)
    if "@" in parts.netloc:
        parts = parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1])
    return urlunsplit(parts)


def replace_secrets(text: str, secrets: Sequence[str]) -> str:
    """`text` with each secret (at least 4 characters) replaced by ***; nothing else is touched (a model's
    reply may say "bearer" without holding a token)."""
    for secret in sorted((s for s in secrets if s and len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def redact(text: str, secrets: Sequence[str]) -> str:
    """`text` with each secret, any URL credentials and any bearer token replaced by ***."""
    text = replace_secrets(text, secrets)
    text = re.sub(r"(?i)((?:bearer|basic)\s+)[^\s\"',}]+", r"\1***", text)
    return re.sub(r"(\w+://)[^/\s@]+@", r"\1***@", text)


class ChatClient:
    """One OpenAI-compatible endpoint: chat completions, echo-logprob completions, the model list."""

    def __init__(self, base_url: str, *, api_key_env: str | None = "OPENAI_API_KEY", timeout: float = 30.0,
                 retries: int = 2, backoff: float = 0.5, sleep: Callable[[float], None] = time.sleep) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("llm backend: the url must start with http:// or https:// "
                             f"(got {strip_credentials(base_url)})")
        import httpx2  # openai's own HTTP client (openai 3.x requires it): only its public hook API is used
        import openai  # imported here: the package stays importable (and fast) without it

        self._openai = openai
        self._url = base_url.rstrip("/")
        self.base_url = strip_credentials(self._url)  # what is shown, logged and stored
        self.api_key_env = api_key_env
        parts = urlsplit(self._url)
        userinfo = parts.netloc.rsplit("@", 1)[0] if "@" in parts.netloc else ""
        # httpx sends URL credentials as Basic auth: its base64 form is a secret too
        self._url_secrets = [s for s in (parts.password, userinfo, userinfo and
                                         base64.b64encode(unquote(userinfo).encode()).decode()) if s]
        for _, value in parse_qsl(parts.query):  # ?api-key=... (Azure style): a token in the URL
            self._url_secrets += [value, *([q] if (q := urlencode({"": value})[1:]) != value else [])]
        # the key goes in a per-request header (read when sent, as the variable may be set later); with
        # none, no Authorization header at all (a local server needs none; openai wants that said)
        body = _bounded_body(httpx2)

        def bound(response: Any) -> None:  # called when the headers have arrived, before the body is read
            response.stream = body(response.stream, getattr(_attempt_end, "at", None), self.base_url)

        self._client = openai.OpenAI(base_url=self._url, api_key="unused", timeout=timeout, max_retries=0,
                                     http_client=openai.DefaultHttpxClient(event_hooks={"response": [bound]}))
        self.timeout, self.retries, self.backoff, self._sleep = timeout, retries, backoff, sleep
        self.requests_sent = 0
        self.answered = False  # the server has replied at least once (so a refused connection = it went away)
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        """End every wait on this client now (each raises Cancelled): the run is being interrupted."""
        self._cancelled.set()

    def secrets(self) -> list[str]:
        """Every credential this client knows: URL user:password (and its Basic-auth base64), URL query
        values, the API key and the Authorization header value it makes."""
        key = self._key()
        return [*self._url_secrets, *([key, f"Bearer {key}"] if key else [])]

    def scrub(self, text: str) -> str:
        """`text` with every known credential replaced by *** (for what is stored: replies, requests)."""
        return replace_secrets(text, self.secrets())

    def _attempt(self, fn: Callable[[float], Any], deadline: float | None) -> Any:
        """One request, `fn(read_timeout)`, in a daemon thread, waited on until the earlier of `timeout`
        and `deadline` (then _RequestTimeout; the thread is abandoned, its reads bounded by the same
        timeout) or until cancel() (Cancelled)."""
        now = time.monotonic()
        limit = self.timeout if deadline is None else min(self.timeout, deadline - now)
        if limit <= 0:
            raise _RequestTimeout
        box: dict[str, Any] = {}
        done = threading.Event()
        end = now + limit

        def target() -> None:
            _attempt_end.at = end  # the reply body stops being read past it (BoundedBody)
            try:
                box["value"] = fn(limit)
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
                box["error"] = exc
            finally:
                done.set()

        threading.Thread(target=target, name="llm-request", daemon=True).start()
        while not done.wait(max(0.0, min(_POLL_S, end - time.monotonic()))):
            if self._cancelled.is_set():
                raise Cancelled("the run was interrupted")
            if time.monotonic() >= end:
                raise _RequestTimeout
        if "error" in box:
            raise box["error"]
        return box["value"]

    def _pause(self, seconds: float) -> None:
        if self._sleep is not time.sleep:  # a test's recorder
            self._sleep(seconds)
        elif self._cancelled.wait(seconds):
            raise Cancelled("the run was interrupted")

    def _key(self) -> str | None:
        return os.environ.get(self.api_key_env) or None if self.api_key_env else None

    def _headers(self) -> dict[str, Any]:
        key = self._key()
        return {"Authorization": f"Bearer {key}" if key else self._openai.Omit()}

    def redact(self, text: str) -> str:
        return redact(str(text), [*self._url_secrets, self._key() or ""])

    def _call(self, what: str, fn: Callable[[float], Any], deadline: float | None) -> Any:
        """`fn(read_timeout)` with bounded retries on connection errors, timeouts, 429 and 5xx (after the
        server's Retry-After when it sends one, at most MAX_RETRY_AFTER s and never past `deadline`, the
        job's: a longer wait fails the job at once); each attempt ends by `timeout` or `deadline`."""
        err = self._openai
        last, wait = "", None
        for attempt in range(self.retries + 1):
            if attempt:
                pause = wait if wait is not None else self.backoff * 2 ** (attempt - 1)
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and pause > left:
                    asked = (f"the server asks to wait {wait:g} s (Retry-After), more than the {max(left, 0):.0f} s "
                             "left of the job's time budget" if wait is not None else "the job's time budget ran out "
                             "while retrying")
                    raise TimeBudgetExceeded(self.redact(f"{what}: {asked} (last error: {last})"))
                if wait is not None and wait >= 1:
                    log.warning("%s", self.redact(f"{what}: {last.split(':', 1)[0]} from the LLM server at "
                                                  f"{self.base_url}: waiting {wait:g} s as its Retry-After asks "
                                                  f"(retry {attempt} of {self.retries})"))
                self._pause(pause)
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeBudgetExceeded(self.redact(f"{what}: the job's time budget ran out (last error: "
                                                     f"{last or 'none'})"))
            self.requests_sent += 1
            wait = None
            try:
                reply = self._attempt(fn, deadline)
            except _RequestTimeout:
                if deadline is not None and time.monotonic() >= deadline - 1e-3:
                    raise TimeBudgetExceeded(self.redact(f"{what}: the job's time budget ran out while waiting "
                                                         f"for the server's reply (no reply within the budget; "
                                                         f"last error: {last or 'none'})")) from None
                last = f"no reply within {self.timeout:g} s"
            except err.APITimeoutError:
                last = f"no reply within {self.timeout:g} s"
            except err.APIConnectionError as exc:
                last = f"cannot connect ({_cause(exc)})"
            except err.APIStatusError as exc:
                detail = _body(exc)
                if exc.status_code not in RETRY_STATUS:
                    raise LLMError(self.redact(f"{what} failed: HTTP {exc.status_code}: {detail}")) from None
                last, wait = f"HTTP {exc.status_code}: {detail}", _retry_after(exc)
            except err.OpenAIError as exc:
                raise LLMError(self.redact(f"{what} failed: {exc}")) from None
            except ValueError as exc:  # a body that is not JSON (json.JSONDecodeError): a server fault
                raise LLMError(self.redact(f"{what} failed: the server's reply is not JSON, a server error "
                                           f"rather than an answer ({type(exc).__name__}: {exc})"[:400])) from None
            else:
                self.answered = True
                return reply
        if self.answered and last.startswith("cannot connect"):
            raise LLMConnectionError(self.redact(
                f"the LLM server at {self._url} went away: it answered earlier in this run, then refused "
                f"{self.retries + 1} attempts ({last}); has it crashed or been stopped?"))
        raise LLMConnectionError(self.redact(
            f"no usable reply from the LLM server at {self._url} after {self.retries + 1} attempts "
            f"({last}); is an OpenAI-compatible server running there?"))

    def complete(self, messages: list[dict[str, str]], *, model: str, temperature: float, max_tokens: int,
                 seed: int | None = None, stop: list[str] | None = None,
                 deadline: float | None = None) -> str | dict[str, Any] | None:
        """The first choice's text (None when the server sent `content: null` or no choice; TOO_LONG when
        the reply body passed MAX_REPLY_BYTES)."""
        extra = {k: v for k, v in (("seed", seed), ("stop", stop)) if v is not None}
        try:
            reply = self._call("chat completion", lambda t: self._client.chat.completions.create(
                model=model, messages=messages, temperature=temperature, max_tokens=max_tokens,
                extra_headers=self._headers(), timeout=t, **extra), deadline)
        except ReplyTooLarge:
            return dict(TOO_LONG)
        choices = getattr(reply, "choices", None) or []
        if not choices or getattr(choices[0], "message", None) is None:
            return None
        return choices[0].message.content

    def text_complete(self, prompt: str, *, model: str, temperature: float, max_tokens: int,
                      seed: int | None = None, stop: list[str] | None = None,
                      deadline: float | None = None) -> str | dict[str, Any] | None:
        """POST /completions without a chat template: the first choice's text (None when there is none,
        TOO_LONG as in `complete`)."""
        extra = {k: v for k, v in (("seed", seed), ("stop", stop)) if v is not None}
        try:
            reply = self._call("completion", lambda t: self._client.completions.create(
                model=model, prompt=prompt, temperature=temperature, max_tokens=max_tokens,
                extra_headers=self._headers(), timeout=t, **extra), deadline)
        except ReplyTooLarge:
            return dict(TOO_LONG)
        choices = getattr(reply, "choices", None) or []
        return getattr(choices[0], "text", None) if choices else None

    def continuation_logprob(self, context: str, continuation: str, *, model: str,
                             deadline: float | None = None) -> float | dict[str, str] | None:
        """log P(continuation | context) summed over its tokens, through POST /completions with
        `echo` and `logprobs` (lm-evaluation-harness's recipe); None when the server does not give
        per-token log-probs of the prompt; {"invalid": reason} when what it gives are not log-probabilities
        (NaN, infinite, positive, not numbers). Tokens are assigned by their text offset, so a token that
        straddles the context/continuation boundary counts with the context."""
        try:
            reply = self._call("completion (logprobs)", lambda t: self._client.completions.create(
                model=model, prompt=context + continuation, max_tokens=1, temperature=0.0, echo=True,
                logprobs=1, extra_headers=self._headers(), timeout=t), deadline)
        except ReplyTooLarge as err:
            return {"invalid": str(err)}
        try:
            lp = reply.choices[0].logprobs
            offsets, values = list(lp.text_offset), list(lp.token_logprobs)
        except (AttributeError, IndexError, TypeError):
            return None
        if not offsets or len(offsets) != len(values):
            return None
        boundary = len(context)
        picked = [v for off, v in zip(offsets, values) if off >= boundary and off < boundary + len(continuation)]
        if not picked or any(v is None for v in picked):
            return None
        bad = next((v for v in picked if not is_logprob(v)), None)
        if bad is not None:
            return {"invalid": f"invalid log-probabilities ({_show(bad)}) from the LLM server at {self.base_url}"}
        return float(sum(picked))

    def echo_misaligned(self, model: str, probe: str = "Sentence: good food\nLabel:",
                        deadline: float | None = None) -> bool:
        """True when the server's echoed prompt log-probs are shifted off their tokens. One greedy token t
        after `probe` with its log-prob a (no echo: the plain generation path), then `probe + t` echoed: its
        last token must get the same a. llama-cpp-python 0.3.x's echo pairs each token with the
        distribution of the *next* position for models without a BOS token (SmolLM2): plausible-looking
        numbers that rank labels at random. False when they agree or the probe is inconclusive."""
        def ask(prompt: str, echo: bool) -> Any:
            return self._call("completion (logprobs check)", lambda t: self._client.completions.create(
                model=model, prompt=prompt, max_tokens=1, temperature=0.0, echo=echo, logprobs=1,
                extra_headers=self._headers(), timeout=t), deadline).choices[0]

        try:
            first = ask(probe, False)
            token, value = first.logprobs.tokens[-1], first.logprobs.token_logprobs[-1]
            if not token or not is_logprob(value) or first.text != token:
                return False
            echoed = ask(probe + token, True).logprobs
            at = list(echoed.text_offset).index(len(probe))  # the probe's token, wherever it was merged
            if echoed.tokens[at] != token or not is_logprob(echoed.token_logprobs[at]):
                return False
            return abs(float(echoed.token_logprobs[at]) - float(value)) > 0.05
        except (AttributeError, IndexError, TypeError, ValueError):
            return False

    def served_model(self, deadline: float | None = None) -> str:
        """The first model id of GET {base_url}/models (a vLLM / llama.cpp server serves one)."""
        try:
            reply = self._call("listing models", lambda t: self._client.models.list(
                extra_headers=self._headers(), timeout=t), deadline)
        except LLMConnectionError:
            raise
        except TimeBudgetExceeded as err:  # before any job: the run cannot start, say so once
            raise LLMConnectionError(f"the LLM server at {self.base_url} did not list its models within the "
                                     f"time budget: {err}") from None
        except LLMError as err:
            raise LLMError(f"{err}; cannot ask the server which model it serves: pass model=... "
                           "or set $DIALECTBENCH_LLM_MODEL") from None
        data = list(getattr(reply, "data", None) or [])
        if not data or not getattr(data[0], "id", None):
            raise LLMError(f"{self.base_url}/models lists no model; pass model=... explicitly")
        return str(data[0].id)


def is_logprob(value: Any) -> bool:
    """A real number that is a log-probability: finite and <= 0 (within LOGPROB_TOLERANCE)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and value <= LOGPROB_TOLERANCE)


def _show(value: Any) -> str:
    """What is wrong with a value that is not a log-probability, in a word (the reasons stay few)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "not numbers"
    return "NaN" if math.isnan(value) else "infinite" if math.isinf(value) else "positive"


def _retry_after(exc: Any) -> float | None:
    """The seconds of a 429/503 reply's Retry-After header (delta-seconds form), bounded; None without one."""
    try:
        value = float(exc.response.headers.get("retry-after", ""))
    except (AttributeError, TypeError, ValueError):
        return None
    return None if math.isnan(value) else min(max(value, 0.0), MAX_RETRY_AFTER)


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    while cause is not None and (cause.__cause__ or cause.__context__) is not None:
        cause = cause.__cause__ or cause.__context__
    return f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)


def _body(exc: Any) -> str:
    try:
        text = exc.response.text
    except Exception:  # noqa: BLE001 - a body we cannot read is still an HTTP error
        text = str(exc)
    return " ".join(str(text).split())[:300]
