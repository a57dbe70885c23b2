"""In-context learning (DialectBench §3.2 item 5, `icl` setting) over an engine: an OpenAI-compatible server
(`llm:<url>`, this module) or a causal LM in-process (`hf-causal:<id>`, backends.hf_causal).

`fit` fits nothing: it draws k seeded demonstrations from the training data (balanced over labels for
classification) and returns an `LLMModel`. Two scoring modes, recorded in each score's signature:
  loglikelihood  rank the task's label strings (or option numbers) by their summed log-probability after
                 the prompt (lm-evaluation-harness's multiple-choice scoring): every example is answered.
  generate       greedy decoding, then the parser in prompts.py; a reply that is null, empty, over-long or
                 names no valid answer is an InvalidAnswer: scored as wrong, counted, and the job fails
                 when more than `max_invalid` (default 10%) of its examples are invalid.
                 Both rankings are kept: by the summed log-probability (the prediction, `acc`) and by the
                 log-probability per byte of the label (`acc_norm`, lm-evaluation-harness's length-normalised
                 accuracy), so that a long label is not penalised for its length alone.
`mode="auto"` (the default) takes loglikelihood for classification and multiple choice where the engine
offers it, else generate (and says so); EQA and MT are always generated.
The prompt is the paper's text as it stands (prompts.py). `chat_template` wraps it in the model's chat
template as one user turn (llm: the chat endpoint, where the server applies its template; hf-causal: the
tokenizer's) or sends it as plain text; `system_prompt` is a system turn, or with no template a paragraph
before the prompt. Loglikelihood on a server is always plain text (POST /completions).
Every request and response goes through a RequestCache, kept in the result store by the runner; so do the
model id a server reports and the outcome of its log-probability probe, so that `--rescore` asks nothing.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from dialectbench.backends.base import (
    Backend,
    BackendUnavailableError,
    FittedModel,
    InvalidAnswer,
    TrainingDataError,
    UnsupportedTaskError,
)
from dialectbench.backends.llm import prompts
from dialectbench.backends.llm.cache import RequestCache, request_key
from dialectbench.backends.llm.client import (
    LOGPROB_TOLERANCE,
    MAX_REPLY_CHARS,
    ChatClient,
    LLMError,
    TimeBudgetExceeded,
)
from dialectbench.data.examples import (
    MultipleChoiceExample,
    PairExample,
    QAExample,
    TextExample,
    TranslationExample,
)

log = logging.getLogger(__name__)
MODEL_ENV = "DIALECTBENCH_LLM_MODEL"  # the model id when none is passed (else the server's first model)
EXAMPLE_TYPES = {"did": TextExample, "sa": TextExample, "tc": TextExample, "nli": PairExample,
                 "mrc": MultipleChoiceExample, "eqa": QAExample, "mt-dialect": TranslationExample,
                 "mt-region": TranslationExample}
MAX_TOKENS = {"mrc": 8, "eqa": 64, "mt-dialect": 256, "mt-region": 256}  # classification: 16
MODES = ("auto", "generate", "loglikelihood")
RANKED_TASKS = (*prompts.CLASSIFICATION, "mrc")  # tasks with a fixed answer set loglikelihood can rank
DEFAULT_MAX_INVALID = 0.10
DEFAULT_JOB_BUDGET_S = 1800.0


class CacheOnlyMiss(BackendUnavailableError):
    """--rescore asked for a request the cache does not hold."""


@dataclass(frozen=True)
class PromptFormat:
    """How the paper's prompt text reaches the model: a chat template or not, and a system prompt."""

    chat: bool
    system: str = ""

    def plain(self, prompt: str) -> str:
        """The text sent without a chat template: the system prompt as a paragraph before the prompt."""
        return f"{self.system}\n\n{prompt}" if self.system else prompt

    def messages(self, prompt: str) -> list[dict[str, str]]:
        system = [{"role": "system", "content": self.system}] if self.system else []
        return [*system, {"role": "user", "content": prompt}]

    def tag(self, chat: bool) -> str:
        """The signature's part: `chat:on|off`, and `system:<sha256 prefix>` when there is one."""
        system = f"|system:{hashlib.sha256(self.system.encode()).hexdigest()[:8]}" if self.system else ""
        return f"chat:{'on' if chat else 'off'}{system}"


@dataclass(frozen=True)
class Generation:
    """Decoding options (`--gen-kwargs`): greedy unless temperature > 0 (then seeded); the reply is cut at
    the first stop string."""

    temperature: float = 0.0
    stop: tuple[str, ...] = ()
    seed: int | None = None

    def cut(self, reply: str | dict[str, Any] | None) -> str | dict[str, Any] | None:
        if not isinstance(reply, str) or not self.stop:  # None, or an invalid-answer marker (client.TOO_LONG)
            return reply
        return reply[:min((i for i in (reply.find(s) for s in self.stop) if i >= 0), default=len(reply))]

    def request(self) -> dict[str, Any]:
        """What joins each generate request's cache key (nothing for greedy without stop strings)."""
        out: dict[str, Any] = {}
        if self.temperature:
            out.update(temperature=self.temperature, seed=self.seed)
        if self.stop:
            out["stop"] = list(self.stop)
        return out


def _check_task(task: str, name: str = "llm") -> None:
    if task in prompts.TOKEN_TASKS:
        raise UnsupportedTaskError(f"{name} backend: {task!r} is a token-level task (one label per word), which "
                                   "this prompting backend does not do; use the baseline or hf backend")
    if task not in EXAMPLE_TYPES:
        raise UnsupportedTaskError(f"{name} backend: unknown task {task!r}; known: {', '.join(EXAMPLE_TYPES)}")


def _check_train(task: str, train: Sequence[Any], name: str = "llm") -> list[Any]:
    wanted = EXAMPLE_TYPES[task]
    if not train:
        raise TrainingDataError(f"{name} backend: no training examples to draw {task} demonstrations from")
    bad = next((ex for ex in train if not isinstance(ex, wanted)), None)
    if bad is not None:
        raise TrainingDataError(f"{name} backend: {task} needs {wanted.__name__} examples, got "
                                f"{type(bad).__name__}")
    if task == "eqa":  # a demonstration needs an answer to show
        train = [ex for ex in train if ex.answers and ex.answers[0].strip()]
        if not train:
            raise TrainingDataError(f"{name} backend: no eqa training example has an answer")
    return list(train)


def pick_demos(task: str, train: Sequence[Any], k: int, seed: int) -> list[Any]:
    """k demonstrations drawn with `seed`; for classification round-robin over the labels so that every
    label is shown (as far as k allows) rather than the majority label k times."""
    rng = random.Random(seed)
    k = min(k, len(train))
    if task not in prompts.CLASSIFICATION:
        return rng.sample(list(train), k)
    by_label: dict[str, list[Any]] = {}
    for ex in train:
        by_label.setdefault(ex.label, []).append(ex)
    pools = {label: rng.sample(items, len(items)) for label, items in sorted(by_label.items())}
    order = list(pools)
    rng.shuffle(order)
    demos: list[Any] = []
    while len(demos) < k:
        for label in order:
            if pools[label] and len(demos) < k:
                demos.append(pools[label].pop())
    rng.shuffle(demos)  # do not present the labels in a fixed cycle
    return demos


def bounded(reply: Any) -> Any:
    """A reply as the request cache keeps it: one over MAX_REPLY_CHARS (not an answer: interpret calls it
    too long) is replaced by a marker with its length and first 200 characters, so a server sending 5 MB
    replies cannot grow the store by 5 MB a request."""
    if isinstance(reply, str) and len(reply) > MAX_REPLY_CHARS:
        return {"invalid": "too long", "chars": len(reply), "head": reply[:200]}
    return reply


def interpret(task: str, reply: str | dict[str, Any] | None, example: Any, labels: Sequence[str]) -> Any:
    """A generated reply as a prediction, or an InvalidAnswer saying why it is none."""
    if isinstance(reply, dict):  # a marker in place of a reply that is no answer (see `bounded`)
        return InvalidAnswer(str(reply.get("invalid", "invalid")))
    if reply is None:
        return InvalidAnswer("null")
    if len(reply) > MAX_REPLY_CHARS:
        return InvalidAnswer("too long")
    if not reply.strip():
        return InvalidAnswer("empty")
    if task in prompts.CLASSIFICATION:
        label = prompts.parse_label(reply, labels)
        return InvalidAnswer("unparseable") if label is None else label
    if task == "mrc":
        index = prompts.parse_option(reply, example.options)
        return InvalidAnswer("unparseable") if index is None else index
    answer = prompts.first_line(reply).strip()
    return answer if answer else InvalidAnswer("empty")


class ServerEngine:
    """Requests to an OpenAI-compatible server, `concurrency` in flight (results keep input order)."""

    kind = "openai-server"

    def __init__(self, client: ChatClient, model: str, *, concurrency: int, prompt_format: PromptFormat,
                 cache: RequestCache, cache_only: bool, budget_s: float = DEFAULT_JOB_BUDGET_S) -> None:
        self.client, self.model, self.concurrency, self.budget_s = client, model, concurrency, budget_s
        self.prompt_format, self.cache, self.cache_only = prompt_format, cache, cache_only
        self.chunk_size = max(1, concurrency) * 4
        self._ll_support: bool | None = None
        self.ll_problem = ""  # why log-probabilities it gives are not used, when they are not
        self._sent_alone = ""  # the prompt of the last request sent before its batch (_new_prefix)

    def chat(self, mode: str) -> bool:
        """Whether the prompt goes through a chat template: generate mode on the chat endpoint only."""
        return self.prompt_format.chat and mode == "generate"

    def received(self, prompt: str, mode: str) -> str:
        """The prompt text as sent: the user turn on the chat endpoint, else the plain completion prompt."""
        return prompt if self.chat(mode) else self.prompt_format.plain(prompt)

    def prompt_note(self, mode: str) -> str:
        if self.chat(mode):
            return ("chat messages (" + ("system, " if self.prompt_format.system else "") + "user) to POST "
                    "/chat/completions: the server applies the model's chat template, which the client never sees")
        return "plain text to POST /completions: no chat template"

    def _map(self, fn: Callable[[Any], Any], items: Sequence[Any], prompt: Callable[[Any], str]) -> list[Any]:
        n_alone = len(items) if self.concurrency <= 1 else int(bool(items) and self._new_prefix(prompt(items[0])))
        try:
            head = [fn(x) for x in items[:n_alone]]
        except KeyboardInterrupt:  # Ctrl-C, SIGTERM: no other request of this client may keep waiting
            self.client.cancel()
            raise
        items = items[n_alone:]
        if not items:
            return head
        down = threading.Event()

        def guarded(item: Any) -> Any:
            if down.is_set():  # the server is gone: do not knock again for every queued request
                raise BackendUnavailableError("the server stopped answering")
            try:
                return fn(item)
            except BackendUnavailableError:
                down.set()
                raise

        pool = ThreadPoolExecutor(max_workers=self.concurrency)
        try:
            return head + list(pool.map(guarded, items))
        except KeyboardInterrupt:  # Ctrl-C, SIGTERM: the workers' waits end at once (within _POLL_S)
            self.client.cancel()
            raise
        finally:  # on an error (server down) the queued requests are dropped, not each retried in turn
            pool.shutdown(wait=True, cancel_futures=True)

    def _new_prefix(self, text: str) -> bool:
        """Whether a batch's first request goes alone, before the others are sent: when its prompt does not
        start as the last one sent alone did (a job's first batch, new demonstrations), a server with prefix
        caching (vLLM's automatic prefix caching, SGLang, llama.cpp's prompt cache) then holds the shared
        instruction and demonstrations before the rest arrive, instead of computing them once per request in
        flight. A job pays one request in series, not one per batch."""
        shared = len(os.path.commonprefix([text, self._sent_alone]))
        if shared >= len(text) // 2:
            return False
        self._sent_alone = text
        return True

    def generate(self, prompts_: Sequence[str], max_tokens: int, deadline: float | None,
                 gen: Generation = Generation()) -> list[str | None]:
        fmt, options = self.prompt_format, {"temperature": gen.temperature, "max_tokens": max_tokens,
                                            "seed": gen.seed if gen.temperature else None,
                                            "stop": list(gen.stop) or None, "deadline": deadline}
        if self.chat("generate"):
            return self._map(lambda p: gen.cut(self.client.complete(fmt.messages(p), model=self.model, **options)),
                             prompts_, str)
        return self._map(lambda p: gen.cut(self.client.text_complete(fmt.plain(p), model=self.model, **options)),
                         prompts_, str)

    def loglikelihood(self, pairs: Sequence[tuple[str, str]], deadline: float | None) -> list[float | None]:
        plain = self.prompt_format.plain
        return self._map(lambda cc: self.client.continuation_logprob(plain(cc[0]), cc[1], model=self.model,
                                                                     deadline=deadline), pairs, lambda cc: cc[0])

    def supports_loglikelihood(self) -> bool:
        """Asked once per model and kept in the request cache (so that --rescore asks nothing): does POST
        /completions give per-token log-probs of an echoed prompt, aligned with their tokens?"""
        if self._ll_support is None:
            key = request_key(self.model, "probe", {"probe": "echo-logprobs"})
            found, value = self.cache.lookup(key)
            if not found:
                if self.cache_only:
                    raise CacheOnlyMiss(f"--rescore: the store does not hold the log-probability probe of "
                                        f"{self.model!r}; run without --rescore to ask the server")
                value = self._probe()
                self.cache.put(key, self.model, "probe", {"probe": "echo-logprobs"}, value)
            self._ll_support, self.ll_problem = bool(value["supports"]), str(value["problem"])
        return self._ll_support

    def _probe(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.budget_s  # the start-up checks wait no longer than a job would
        try:
            value = self.client.continuation_logprob("Label:", " yes", model=self.model, deadline=deadline)
            if value is None:
                return {"supports": False, "problem": ""}
            if isinstance(value, dict):
                return {"supports": False, "problem": f"its echoed prompt log-probabilities are not log-probabilities "
                        f"({value['invalid']})"}
            if self.client.echo_misaligned(self.model, deadline=deadline):
                return {"supports": False, "problem": "its echoed prompt log-probabilities are misaligned with "
                        "their tokens (llama-cpp-python's server does this for models without a BOS token)"}
            return {"supports": True, "problem": ""}
        except (BackendUnavailableError, TimeBudgetExceeded):  # not an answer to keep: the job fails
            raise
        except LLMError as err:
            log.info("no loglikelihood scoring on this server: %s", err)
            return {"supports": False, "problem": ""}


class LLMModel(FittedModel):
    """A prompt (instruction + demonstrations) bound to an engine; see the module doc for the modes."""

    def __init__(self, task: str, demos: list[Any], labels: list[str], engine: Any, *, mode: str,
                 max_tokens: int, max_invalid: float | None, cache: RequestCache, cache_only: bool,
                 budget_s: float, model_id: str, log_samples: bool = False,
                 gen: Generation = Generation()) -> None:
        self.task, self.demos, self.labels, self.engine, self.mode = task, demos, labels, engine, mode
        self.max_tokens, self.max_invalid, self.cache, self.cache_only = max_tokens, max_invalid, cache, cache_only
        self.budget_s, self.model_id, self.gen = budget_s, model_id, gen
        self.requests = 0  # sent to the engine (cache misses)
        self.log_samples = log_samples  # --log-samples: the runner stores `last_samples` with the job
        # per example of the last predict(): the prompt exactly as the engine got it and its raw answer (the
        # reply text, None for a null reply; in loglikelihood mode {candidate: summed log-probability})
        self.last_samples: list[dict[str, Any]] = []
        # loglikelihood mode: the predictions of each ranking ({"acc": summed, "acc_norm": per byte})
        self.last_rankings: dict[str, list[Any]] = {}

    @property
    def signature(self) -> str:
        fmt = self.engine.prompt_format.tag(self.engine.chat(self.mode))
        decoding = ""
        if self.mode == "generate" and self.gen.temperature:
            decoding = f"|temperature:{self.gen.temperature:g}|seed:{self.gen.seed}"
        return f"icl|{self.engine.kind}|mode:{self.mode}|k:{len(self.demos)}|{fmt}{decoding}"

    @property
    def prompt_note(self) -> str:
        """How the prompt reached the model (stored with the job: a server's template is not visible)."""
        return self.engine.prompt_note(self.mode)

    def prompt(self, example: Any, variety: str | None = None) -> str:
        return prompts.build_prompt(self.task, self.demos, example, variety)

    def _cached(self, endpoint: str, requests: list[dict[str, Any]], call: Callable[[list[dict]], list[Any]],
                deadline: float) -> list[Any]:
        """Answers to `requests`: from the cache where it has them, else from `call` in chunks, each chunk
        stored as it arrives (a killed run resumes from there)."""
        keys = [request_key(self.model_id, endpoint, r) for r in requests]
        answers: dict[str, Any] = {}
        missing: list[str] = []  # distinct keys (a test set may hold the same input twice): asked once
        for key in dict.fromkeys(keys):
            found, value = self.cache.lookup(key)
            if found:
                answers[key] = value
            else:
                missing.append(key)
        if missing and self.cache_only:
            raise CacheOnlyMiss(f"--rescore: {len(missing)} of {len(requests)} {self.task} requests are not in "
                                "the request cache; run without --rescore to ask the model")
        first = {key: i for i, key in reversed(list(enumerate(keys)))}
        keep = bounded if endpoint == "generate" else (lambda reply: reply)
        size = getattr(self.engine, "chunk_size", 16)
        for start in range(0, len(missing), size):
            if time.monotonic() > deadline:
                raise TimeBudgetExceeded(f"the job's time budget of {self.budget_s:g} s ran out with "
                                         f"{len(missing) - start} of {len(requests)} requests unanswered")
            chunk = missing[start:start + size]
            try:
                replies = call([requests[first[key]] for key in chunk])
            except TimeBudgetExceeded as err:  # mid-chunk: the budget bounds every wait, not only between chunks
                raise TimeBudgetExceeded(f"the job's time budget of {self.budget_s:g} s ran out with "
                                         f"{len(missing) - start} of {len(requests)} requests unanswered "
                                         f"({err})") from None
            self.requests += len(chunk)
            for key, reply in zip(chunk, replies):
                # the answer is what the cache keeps (bounded, credentials removed): a resumed run or
                # --rescore reads the same
                answers[key] = self.cache.put(key, self.model_id, endpoint, requests[first[key]], keep(reply))
        return [answers[key] for key in keys]

    def predict(self, examples: Sequence[Any], variety: str | None = None) -> list[Any]:
        deadline = time.monotonic() + self.budget_s
        texts = [self.prompt(ex, variety) for ex in examples]
        self.last_rankings = {}
        if self.mode == "loglikelihood":
            return self._rank(examples, texts, deadline)
        requests = [{"prompt": t, "max_tokens": self.max_tokens, **self.gen.request()} for t in texts]
        replies = self._cached("generate", requests, lambda rs: self.engine.generate(
            [r["prompt"] for r in rs], self.max_tokens, deadline, self.gen), deadline)
        out = [interpret(self.task, reply, ex, self.labels) for reply, ex in zip(replies, examples)]
        self.last_samples = [{"prompt": self._received(t), "reply": r} for t, r in zip(texts, replies)]
        bad = sum(isinstance(p, InvalidAnswer) for p in out)
        if bad:
            log.warning("%s (%s): %d of %d replies named no valid answer (scored as wrong)",
                        self.engine.kind, self.task, bad, len(examples))
        return out

    def _rank(self, examples: Sequence[Any], texts: list[str], deadline: float) -> list[Any]:
        options = [prompts.candidates(self.task, ex, self.labels) for ex in examples]
        requests = [{"context": t, "continuation": " " + c} for t, opts in zip(texts, options) for c in opts]
        scores = self._cached("loglikelihood", requests, lambda rs: self.engine.loglikelihood(
            [(r["context"], r["continuation"]) for r in rs], deadline), deadline)
        out: list[Any] = []
        norm: list[Any] = []
        self.last_samples = []
        pos = 0
        for ex, text, opts in zip(examples, texts, options):
            mine = scores[pos:pos + len(opts)]
            pos += len(opts)
            self.last_samples.append({"prompt": self._received(text), "reply": dict(zip(opts, mine))})
            if any(s is None for s in mine):
                out.append(InvalidAnswer("no log-probabilities"))
                norm.append(out[-1])
                continue
            bad = next((s for s in mine if not _valid_logprob(s)), None)
            if bad is not None:  # NaN, infinite, positive, not a number: never ranked
                out.append(InvalidAnswer(bad["invalid"] if isinstance(bad, dict) else
                                         f"invalid log-probabilities from {self.engine.kind}"))
                norm.append(out[-1])
                continue
            per_byte = [v / max(1, len((" " + o).encode("utf-8"))) for v, o in zip(mine, opts)]
            for ranked, values in ((out, mine), (norm, per_byte)):
                best = max(range(len(opts)), key=lambda i: (values[i], -i))  # ties: the first option
                ranked.append(best if self.task == "mrc" else opts[best])
        self.last_rankings = {"acc": out, "acc_norm": norm}
        bad = sum(isinstance(p, InvalidAnswer) and p.reason.startswith("invalid log-prob") for p in out)
        if bad:
            log.warning("%s (%s): %d of %d examples got log-probabilities that are not finite numbers <= 0 "
                        "(invalid answers, scored as wrong)", self.engine.kind, self.task, bad, len(examples))
        return out

    def _received(self, prompt: str) -> str:
        """The prompt as the model reads it: an in-process engine applies its chat template here (a server
        applies its own to the chat messages, which the client never sees: there it is the user turn)."""
        if not self.log_samples:  # only when logged: rendering an in-process template loads the tokenizer
            return prompt
        return self.engine.received(prompt, self.mode)


def _valid_logprob(value: Any) -> bool:
    """A summed log-probability fit to rank: a real, finite number <= 0 (hf-causal's sums are checked
    here too, as are those of a store cached before this check)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and value <= LOGPROB_TOLERANCE)


class LLMBackend(Backend):
    """`get_backend("llm:<base url>", model=..., k_shots=..., mode=..., concurrency=..., max_invalid=...,
    chat_template=..., system_prompt=..., temperature=..., stop=...)`."""

    supports_icl = True

    def __init__(self, base_url: str, *, model: str | None = None, api_key_env: str | None = "OPENAI_API_KEY",
                 k_shots: int | None = None, temperature: float = 0.0, max_tokens: int | None = None,
                 timeout: float = 30.0, retries: int = 2, backoff: float = 0.5, name: str | None = None,
                 client: ChatClient | None = None, mode: str = "auto", concurrency: int = 4,
                 max_invalid: float = DEFAULT_MAX_INVALID, job_budget_s: float = DEFAULT_JOB_BUDGET_S,
                 cache_only: bool = False, log_samples: bool = False, chat_template: bool = True,
                 system_prompt: str = "", stop: Sequence[str] = ()) -> None:
        _check_options(k_shots, mode, concurrency, max_invalid, job_budget_s, temperature)
        self.client = client or ChatClient(base_url, api_key_env=api_key_env, timeout=timeout,
                                           retries=retries, backoff=backoff)
        self.base_url = self.client.base_url  # without credentials
        self.name = name or f"llm:{self.base_url}"
        self._model = model or os.environ.get(MODEL_ENV) or None
        self.k_shots, self.temperature, self.max_tokens = k_shots, float(temperature), max_tokens
        self.mode, self.concurrency, self.max_invalid = mode, int(concurrency), float(max_invalid)
        self.job_budget_s, self.cache_only, self.log_samples = float(job_budget_s), cache_only, log_samples
        self.prompt_format, self.stop = PromptFormat(bool(chat_template), system_prompt), tuple(stop)
        self.cache = RequestCache(scrub=self.client.scrub)
        self._engine: ServerEngine | None = None

    def attach_store(self, path: Any) -> None:
        """Keep the request cache in the result store (the runner calls this before reading `config`);
        every credential the client knows is removed from what it stores."""
        self.cache = RequestCache(path, scrub=self.client.scrub)

    @property
    def model(self) -> str:
        """The model id; when none was given, asked of the server (GET /models) once and kept in the request
        cache, where --rescore finds it without a server."""
        if self._model is None:
            key = request_key("", "models", {"url": self.base_url})
            if self.cache_only:
                found, value = self.cache.lookup(key)
                if not found:
                    raise CacheOnlyMiss(f"--rescore: the store does not say which model {self.base_url} served; "
                                        f"pass the model id (model=..., ${MODEL_ENV}) or run without --rescore")
                self._model = str(value)
            else:
                self._model = self.client.served_model(deadline=time.monotonic() + self.job_budget_s)
                self.cache.put(key, "", "models", {"url": self.base_url}, self._model)
        return self._model

    @property
    def config(self) -> dict[str, Any]:
        return {"url": self.base_url, "model": self.model, "k": k_config(self.k_shots),
                "temperature": self.temperature, "max_tokens": self.max_tokens, "mode": self.mode,
                **format_config(self.prompt_format, self.stop)}

    def engine(self) -> ServerEngine:
        if self._engine is None:
            self._engine = ServerEngine(self.client, self.model, concurrency=self.concurrency,
                                        prompt_format=self.prompt_format, cache=self.cache,
                                        cache_only=self.cache_only, budget_s=self.job_budget_s)
        self._engine.cache = self.cache  # the store's, once attached
        return self._engine

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None = None, *,
            seed: int = 0) -> LLMModel:
        return fit_icl(self, task, train, seed=seed, name="llm",
                       model_id=f"{self.model}|openai-server|{self.prompt_format.tag(self.prompt_format.chat)}")


def format_config(fmt: PromptFormat, stop: Sequence[str]) -> dict[str, Any]:
    """The prompt-format and stop options as they join the job config: the template's state always (what
    the model reads), a system prompt and stop strings when given."""
    out: dict[str, Any] = {"chat_template": fmt.chat}
    if fmt.system:
        out["system_prompt"] = fmt.system
    if stop:
        out["stop"] = list(stop)
    return out


def _check_options(k_shots: int | None, mode: str, concurrency: int, max_invalid: float, budget: float,
                   temperature: float = 0.0) -> None:
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0 (got {temperature})")
    if k_shots is not None and k_shots < 0:
        raise ValueError(f"k_shots must be >= 0 (got {k_shots})")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1 (got {concurrency})")
    if not 0.0 <= max_invalid <= 1.0:
        raise ValueError(f"max_invalid must be a share between 0 and 1 (got {max_invalid})")
    if budget <= 0:
        raise ValueError(f"the per-job time budget must be positive (got {budget})")


def k_config(k_shots: int | None) -> Any:
    return k_shots if k_shots is not None else {**dict.fromkeys(EXAMPLE_TYPES, prompts.DEFAULT_K_OTHER),
                                                **prompts.DEFAULT_K}


def resolve_mode(requested: str, task: str, engine: Any) -> str:
    """The scoring mode a task gets: see the module doc."""
    if task not in RANKED_TASKS:
        return "generate"
    if requested == "generate":
        return "generate"
    if engine.supports_loglikelihood():
        return "loglikelihood"
    problem = getattr(engine, "ll_problem", "")
    if requested == "loglikelihood":
        raise UnsupportedTaskError(f"{engine.kind}: loglikelihood scoring needs per-token log-probabilities "
                                   "(POST /completions with echo and logprobs), which this server does not give"
                                   + (f" correctly: {problem}" if problem else ""))
    if problem:  # one message: why its log-probabilities are not used, not also that it has none
        log.warning("%s: %s; %s is scored in generate mode", engine.kind, problem, task)
    else:
        log.warning("%s offers no log-probabilities of the prompt (POST /completions with echo and logprobs): "
                    "%s is scored in generate mode", engine.kind, task)
    return "generate"


def fit_icl(backend: Any, task: str, train: Sequence[Any], *, seed: int, model_id: str, name: str) -> LLMModel:
    """The shared `fit` of the in-context-learning backends (llm:, hf-causal:)."""
    _check_task(task, name)
    train = _check_train(task, train, name)
    labels = sorted({ex.label for ex in train}) if task in prompts.CLASSIFICATION else []
    k = backend.k_shots if backend.k_shots is not None else prompts.DEFAULT_K.get(task, prompts.DEFAULT_K_OTHER)
    demos = pick_demos(task, train, k, seed)
    engine = backend.engine()
    mode = resolve_mode(backend.mode, task, engine)
    max_tokens = backend.max_tokens or MAX_TOKENS.get(task, 16)
    gen = Generation(backend.temperature, backend.stop, seed if backend.temperature else None)
    return LLMModel(task, demos, labels, engine, mode=mode, max_tokens=max_tokens,
                    max_invalid=backend.max_invalid, cache=backend.cache, cache_only=backend.cache_only,
                    budget_s=backend.job_budget_s, model_id=model_id, log_samples=backend.log_samples, gen=gen)
