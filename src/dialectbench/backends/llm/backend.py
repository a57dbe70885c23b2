"""In-context learning with an OpenAI-compatible chat server (seed 000 §3.2 item 5, `icl` setting).

`fit` fits nothing: it draws k seeded demonstrations from the training data (balanced over labels for
classification) and returns an `LLMModel` whose `predict` sends one chat-completions request per example.
"""

from __future__ import annotations

import logging
import os
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from dialectbench.backends.base import TrainingDataError, UnsupportedTaskError
from dialectbench.backends.llm import prompts
from dialectbench.backends.llm.client import ChatClient
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


def _check_task(task: str) -> None:
    if task in prompts.TOKEN_TASKS:
        raise UnsupportedTaskError(f"llm backend: {task!r} is a token-level task (one label per word), which "
                                   "this prompting backend does not do; use the baseline or hf backend")
    if task not in EXAMPLE_TYPES:
        raise UnsupportedTaskError(f"llm backend: unknown task {task!r}; known: {', '.join(EXAMPLE_TYPES)}")


def _check_train(task: str, train: Sequence[Any]) -> list[Any]:
    wanted = EXAMPLE_TYPES[task]
    if not train:
        raise TrainingDataError(f"llm backend: no training examples to draw {task} demonstrations from")
    bad = next((ex for ex in train if not isinstance(ex, wanted)), None)
    if bad is not None:
        raise TrainingDataError(f"llm backend: {task} needs {wanted.__name__} examples, got {type(bad).__name__}")
    if task == "eqa":  # a demonstration needs an answer to show
        train = [ex for ex in train if ex.answers and ex.answers[0].strip()]
        if not train:
            raise TrainingDataError("llm backend: no eqa training example has an answer")
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


class LLMModel:
    """A prompt (instruction + demonstrations) bound to a client; `fallbacks` counts unparsable replies."""

    def __init__(self, task: str, demos: list[Any], labels: list[str], fallback: str | None,
                 client: ChatClient, model: str, temperature: float, max_tokens: int, seed: int) -> None:
        self.task, self.demos, self.labels, self.fallback = task, demos, labels, fallback
        self.client, self.model, self.temperature, self.max_tokens, self.seed = (
            client, model, temperature, max_tokens, seed)
        self.fallbacks = 0
        self.requests = 0

    def prompt(self, example: Any, variety: str | None = None) -> str:
        return prompts.build_prompt(self.task, self.demos, example, self.labels, variety)

    def _ask(self, example: Any, variety: str | None) -> str:
        self.requests += 1
        return self.client.complete([{"role": "user", "content": self.prompt(example, variety)}],
                                    model=self.model, temperature=self.temperature,
                                    max_tokens=self.max_tokens, seed=self.seed)

    def _parse(self, reply: str, example: Any) -> Any:
        if self.task in prompts.CLASSIFICATION:
            label = prompts.parse_label(reply, self.labels)
            if label is None:
                self.fallbacks += 1
                return self.fallback
            return label
        if self.task == "mrc":
            index = prompts.parse_option(reply, example.options)
            if index is None:
                self.fallbacks += 1
                return 0
            return index
        return prompts.first_line(reply).strip()

    def predict(self, examples: Sequence[Any], variety: str | None = None) -> list[Any]:
        before = self.fallbacks
        out = [self._parse(self._ask(ex, variety), ex) for ex in examples]
        if self.fallbacks > before:
            log.warning("llm backend (%s): %d of %d replies named no valid answer; used the fallback",
                        self.task, self.fallbacks - before, len(examples))
        return out


class LLMBackend:
    """`get_backend("llm:<base url>", model=..., k_shots=..., temperature=..., max_tokens=...)`."""

    supports_icl = True

    def __init__(self, base_url: str, *, model: str | None = None, api_key_env: str | None = "OPENAI_API_KEY",
                 k_shots: int | None = None, temperature: float = 0.0, max_tokens: int | None = None,
                 timeout: float = 60.0, retries: int = 4, backoff: float = 1.0, name: str | None = None,
                 client: ChatClient | None = None) -> None:
        if k_shots is not None and k_shots < 0:
            raise ValueError(f"llm backend: k_shots must be >= 0 (got {k_shots})")
        self.client = client or ChatClient(base_url, api_key_env=api_key_env, timeout=timeout,
                                           retries=retries, backoff=backoff)
        self.base_url = self.client.base_url
        self.name = name or f"llm:{self.base_url}"
        self._model = model or os.environ.get(MODEL_ENV) or None
        self.k_shots, self.temperature, self.max_tokens = k_shots, float(temperature), max_tokens

    @property
    def model(self) -> str:
        """The model id; asked of the server (GET /models) once when none was given."""
        if self._model is None:
            self._model = self.client.served_model()
        return self._model

    @property
    def config(self) -> dict[str, Any]:
        return {"url": self.base_url, "model": self.model, "k": self.k_shots if self.k_shots is not None
                else {**dict.fromkeys(EXAMPLE_TYPES, prompts.DEFAULT_K_OTHER), **prompts.DEFAULT_K},
                "temperature": self.temperature, "max_tokens": self.max_tokens}

    def k_for(self, task: str) -> int:
        return self.k_shots if self.k_shots is not None else prompts.DEFAULT_K.get(task, prompts.DEFAULT_K_OTHER)

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None = None, *,
            seed: int = 0) -> LLMModel:
        _check_task(task)
        train = _check_train(task, train)
        labels, fallback = [], None
        if task in prompts.CLASSIFICATION:
            counts = Counter(ex.label for ex in train)
            labels = sorted(counts)
            fallback = max(labels, key=counts.__getitem__)  # most frequent; ties: first in sorted order
        demos = pick_demos(task, train, self.k_for(task), seed)
        max_tokens = self.max_tokens or MAX_TOKENS.get(task, 16)
        return LLMModel(task, demos, labels, fallback, self.client, self.model, self.temperature, max_tokens, seed)
