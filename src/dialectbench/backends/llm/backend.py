"""In-context learning (DialectBench §3.2 item 5, `icl` setting) over an engine: an OpenAI-compatible server
(`llm:<url>`, this module) or a causal LM in-process (`hf-causal:<id>`, backends.hf_causal).

`fit` fits nothing: it draws k seeded demonstrations from the training data (balanced over labels for
classification) and returns an `LLMModel`. Two scoring modes, recorded in each score's signature:
  loglikelihood  rank the task's label strings (or option numbers) by their summed log-probability after
                 the prompt (lm-evaluation-harness's multiple-choice scoring): every example is answered.
  generate       greedy decoding, then the parser in prompts.py; a reply that is null, empty, over-long or
                 names no valid answer is an InvalidAnswer: scored as wrong, counted, and the job fails
                 when more than `max_invalid` (default 10%) of its examples are invalid.
`mode="auto"` (the default) takes loglikelihood for classification and multiple choice where the engine
offers it, else generate (and says so); EQA and MT are always generated.
Every request and response goes through a RequestCache, kept in the result store by the runner.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from dialectbench.backends.base import (
    BackendUnavailableError,
    InvalidAnswer,
    TrainingDataError,
    UnsupportedTaskError,
)
from dialectbench.backends.llm import prompts
from dialectbench.backends.llm.cache import RequestCache, request_key
from dialectbench.backends.llm.client import MAX_REPLY_CHARS, ChatClient, LLMError, TimeBudgetExceeded
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


def interpret(task: str, reply: str | None, example: Any, labels: Sequence[str]) -> Any:
    """A generated reply as a prediction, or an InvalidAnswer saying why it is none."""
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

    def __init__(self, client: ChatClient, model: str, *, temperature: float, seed: int | None,
                 concurrency: int) -> None:
        self.client, self.model, self.temperature, self.seed = client, model, temperature, seed
        self.concurrency = concurrency
        self.chunk_size = max(1, concurrency) * 4
        self._ll_support: bool | None = None
        self.ll_problem = ""  # why log-probabilities it gives are not used, when they are not

    def _map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        if self.concurrency <= 1 or len(items) <= 1:
            return [fn(x) for x in items]
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
            return list(pool.map(guarded, items))
        finally:  # on an error (server down) the queued requests are dropped, not each retried in turn
            pool.shutdown(wait=True, cancel_futures=True)

    def generate(self, prompts_: Sequence[str], max_tokens: int, deadline: float | None) -> list[str | None]:
        return self._map(lambda p: self.client.complete(
            [{"role": "user", "content": p}], model=self.model, temperature=self.temperature,
            max_tokens=max_tokens, seed=self.seed, deadline=deadline), prompts_)

    def loglikelihood(self, pairs: Sequence[tuple[str, str]], deadline: float | None) -> list[float | None]:
        return self._map(lambda cc: self.client.continuation_logprob(cc[0], cc[1], model=self.model,
                                                                     deadline=deadline), pairs)

    def supports_loglikelihood(self) -> bool:
        """Asked once: does POST /completions give per-token log-probs of an echoed prompt?"""
        if self._ll_support is None:
            try:
                self._ll_support = self.client.continuation_logprob("Label:", " yes", model=self.model) is not None
                if self._ll_support and self.client.echo_misaligned(self.model):
                    self.ll_problem = ("its echoed prompt log-probabilities are misaligned with their tokens "
                                       "(llama-cpp-python's server does this for models without a BOS token)")
                    log.warning("%s: %s; not used for loglikelihood scoring", self.kind, self.ll_problem)
                    self._ll_support = False
            except BackendUnavailableError:
                raise
            except LLMError as err:
                log.info("no loglikelihood scoring on this server: %s", err)
                self._ll_support = False
        return self._ll_support


class LLMModel:
    """A prompt (instruction + demonstrations) bound to an engine; see the module doc for the modes."""

    def __init__(self, task: str, demos: list[Any], labels: list[str], engine: Any, *, mode: str,
                 max_tokens: int, max_invalid: float | None, cache: RequestCache, cache_only: bool,
                 budget_s: float, model_id: str, log_samples: bool = False) -> None:
        self.task, self.demos, self.labels, self.engine, self.mode = task, demos, labels, engine, mode
        self.max_tokens, self.max_invalid, self.cache, self.cache_only = max_tokens, max_invalid, cache, cache_only
        self.budget_s, self.model_id = budget_s, model_id
        self.requests = 0  # sent to the engine (cache misses)
        self.log_samples = log_samples  # --log-samples: the runner stores `last_samples` with the job
        # per example of the last predict(): the exact prompt the engine got and its raw answer (the reply
        # text, None for a null reply; in loglikelihood mode {candidate: summed log-probability})
        self.last_samples: list[dict[str, Any]] = []

    @property
    def signature(self) -> str:
        return f"icl|{self.engine.kind}|mode:{self.mode}|k:{len(self.demos)}"

    def prompt(self, example: Any, variety: str | None = None) -> str:
        return prompts.build_prompt(self.task, self.demos, example, self.labels, variety)

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
        size = getattr(self.engine, "chunk_size", 16)
        for start in range(0, len(missing), size):
            if time.monotonic() > deadline:
                raise TimeBudgetExceeded(f"the job's time budget of {self.budget_s:g} s ran out with "
                                         f"{len(missing) - start} of {len(requests)} requests unanswered")
            chunk = missing[start:start + size]
            replies = call([requests[first[key]] for key in chunk])
            self.requests += len(chunk)
            for key, reply in zip(chunk, replies):
                answers[key] = reply
                self.cache.put(key, self.model_id, endpoint, requests[first[key]], reply)
        return [answers[key] for key in keys]

    def predict(self, examples: Sequence[Any], variety: str | None = None) -> list[Any]:
        deadline = time.monotonic() + self.budget_s
        texts = [self.prompt(ex, variety) for ex in examples]
        if self.mode == "loglikelihood":
            return self._rank(examples, texts, deadline)
        requests = [{"prompt": t, "max_tokens": self.max_tokens} for t in texts]
        replies = self._cached("generate", requests, lambda rs: self.engine.generate(
            [r["prompt"] for r in rs], self.max_tokens, deadline), deadline)
        out = [interpret(self.task, reply, ex, self.labels) for reply, ex in zip(replies, examples)]
        self.last_samples = [{"prompt": self._rendered(t), "reply": r} for t, r in zip(texts, replies)]
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
        self.last_samples = []
        pos = 0
        for ex, text, opts in zip(examples, texts, options):
            mine = scores[pos:pos + len(opts)]
            pos += len(opts)
            self.last_samples.append({"prompt": self._rendered(text), "reply": dict(zip(opts, mine))})
            if any(s is None for s in mine):
                out.append(InvalidAnswer("no log-probabilities"))
                continue
            best = max(range(len(opts)), key=lambda i: (mine[i], -i))  # ties: the first option
            out.append(best if self.task == "mrc" else opts[best])
        return out

    def _rendered(self, prompt: str) -> str:
        """The prompt as the model reads it: an in-process engine applies its chat template here (a server
        applies its own, which the client never sees: there the prompt is the user turn as sent)."""
        render = getattr(self.engine, "format", None)  # only when logged: rendering loads the tokenizer
        return render(prompt) if self.log_samples and callable(render) else prompt


class LLMBackend:
    """`get_backend("llm:<base url>", model=..., k_shots=..., mode=..., concurrency=..., max_invalid=...)`."""

    supports_icl = True

    def __init__(self, base_url: str, *, model: str | None = None, api_key_env: str | None = "OPENAI_API_KEY",
                 k_shots: int | None = None, temperature: float = 0.0, max_tokens: int | None = None,
                 timeout: float = 30.0, retries: int = 2, backoff: float = 0.5, name: str | None = None,
                 client: ChatClient | None = None, mode: str = "auto", concurrency: int = 4,
                 max_invalid: float = DEFAULT_MAX_INVALID, job_budget_s: float = DEFAULT_JOB_BUDGET_S,
                 cache_only: bool = False, log_samples: bool = False) -> None:
        _check_options(k_shots, mode, concurrency, max_invalid, job_budget_s)
        self.client = client or ChatClient(base_url, api_key_env=api_key_env, timeout=timeout,
                                           retries=retries, backoff=backoff)
        self.base_url = self.client.base_url  # without credentials
        self.name = name or f"llm:{self.base_url}"
        self._model = model or os.environ.get(MODEL_ENV) or None
        self.k_shots, self.temperature, self.max_tokens = k_shots, float(temperature), max_tokens
        self.mode, self.concurrency, self.max_invalid = mode, int(concurrency), float(max_invalid)
        self.job_budget_s, self.cache_only, self.log_samples = float(job_budget_s), cache_only, log_samples
        self.cache = RequestCache()
        self._engine: ServerEngine | None = None

    def attach_store(self, path: Any) -> None:
        """Keep the request cache in the result store (the runner calls this)."""
        self.cache = RequestCache(path)

    @property
    def model(self) -> str:
        """The model id; asked of the server (GET /models) once when none was given."""
        if self._model is None:
            self._model = self.client.served_model()
        return self._model

    @property
    def config(self) -> dict[str, Any]:
        return {"url": self.base_url, "model": self.model, "k": k_config(self.k_shots),
                "temperature": self.temperature, "max_tokens": self.max_tokens, "mode": self.mode}

    def engine(self) -> ServerEngine:
        if self._engine is None:
            self._engine = ServerEngine(self.client, self.model, temperature=self.temperature, seed=None,
                                        concurrency=self.concurrency)
        return self._engine

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None = None, *,
            seed: int = 0) -> LLMModel:
        return fit_icl(self, task, train, seed=seed, model_id=f"{self.model}|openai-server|temperature:{self.temperature:g}", name="llm")


def _check_options(k_shots: int | None, mode: str, concurrency: int, max_invalid: float, budget: float) -> None:
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
    return LLMModel(task, demos, labels, engine, mode=mode, max_tokens=max_tokens,
                    max_invalid=backend.max_invalid, cache=backend.cache, cache_only=backend.cache_only,
                    budget_s=backend.job_budget_s, model_id=model_id, log_samples=backend.log_samples)
