"""The in-process causal-LM engine (transformers): batched greedy generation with left padding, and
continuation log-likelihoods for ranking label strings.

Prompt format: the paper's prompt as plain text (lm-evaluation-harness's default), which ends in "Label:"
and is continued with " <label>"; with `chat_template=True` the tokenizer's chat template (an optional
system turn, one user turn, then the assistant's turn opened). Without a template nothing is added, not even
the default system prompt some templates insert (SmolLM2's). In loglikelihood mode the continuation's tokens are encoded
apart from the context (lm-evaluation-harness's recipe), so a label's score never depends on how the
tokenizer would merge it into the prompt's last characters. `trust_remote_code` is off unless asked for (`--model-args trust_remote_code=True`).

The shared prefix (`prefix_cache=True`, the default): the prompts of one job share the instruction and the
demonstrations, so the longest run of *token ids* every prompt of a call starts with is run through the model
once and its key/value cache is reused (copied and batch-expanded) for every item and kept for the next call
while it still is a prefix. The split is taken from the ids of each full prompt, so the model reads exactly the
tokens the full-prompt path reads (no re-tokenisation at the junction). In loglikelihood mode an item's text is
then run once for all its single-token labels (their log-probabilities read off one position); a multi-token
label gets its own row. In generate mode (greedy, a model without sliding-window layers) the rows' own tokens
but the last run in batches and up to four batches' caches are joined (left padding) to decode together: a
decoding step reads the weights once for all their rows. `prefix_cache=False` runs every full prompt (the reference the tests compare against).
"""

from __future__ import annotations

import copy
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dialectbench.backends.base import Backend
from dialectbench.backends.llm.backend import (
    DEFAULT_JOB_BUDGET_S,
    DEFAULT_MAX_INVALID,
    Generation,
    LLMModel,
    PromptFormat,
    _check_options,
    fit_icl,
    format_config,
    k_config,
)
from dialectbench.backends.llm.cache import RequestCache

log = logging.getLogger(__name__)

AUTO_BATCH_MAX = 64  # batch_size="auto" never goes above this (lm-evaluation-harness's max_batch_size default)


def available_memory() -> int:
    """Bytes of memory free for a new allocation (/proc/meminfo's MemAvailable, else the free pages)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def resolve_source(arg: str) -> tuple[str, str | None]:
    """(hub id or folder, GGUF file name or None): a .gguf path, or a folder holding one GGUF and no
    config.json, loads through transformers' GGUF reader."""
    path = Path(arg).expanduser()
    if path.suffix == ".gguf" and path.is_file():
        return str(path.parent.resolve()), path.name
    if path.is_dir() and not (path / "config.json").is_file():
        ggufs = sorted(path.glob("*.gguf"))
        if len(ggufs) == 1:
            return str(path.resolve()), ggufs[0].name
        if len(ggufs) > 1:
            raise ValueError(f"hf-causal: {path} holds {len(ggufs)} .gguf files; name one "
                             f"(e.g. hf-causal:{ggufs[0]})")
    return arg, None


class _StopStrings:
    """Ends a row's decoding once its reply holds a stop string (the decoded text, as Generation.cut reads
    it; transformers' StopStringCriteria needs a tokenizer that round-trips token strings, not every one does)."""

    def __init__(self, tok: Any, stops: Sequence[str]) -> None:
        self.tok, self.stops, self.start = tok, tuple(stops), 0

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        texts = self.tok.batch_decode(input_ids[:, self.start:], skip_special_tokens=True)
        return torch.tensor([any(s in t for s in self.stops) for t in texts], device=input_ids.device)


class HFCausalEngine:
    """A causal LM and its tokenizer, loaded on first use."""

    kind = "hf-causal"

    def __init__(self, source: str, gguf_file: str | None, *, device: str | None, dtype: str,
                 batch_size: int | str, trust_remote_code: bool, prompt_format: PromptFormat | None = None,
                 revision: str | None = None, prefix_cache: bool = True) -> None:
        # an int, or "auto": chosen for each call from the memory its longest row needs (`_batch`)
        self.source, self.gguf_file, self.batch_size = source, gguf_file, batch_size
        self.batch_sizes: list[int] = []  # what "auto" chose, call by call (lm-evaluation-harness's batch_sizes)
        self._auto: tuple[int, int] = (0, 0)  # (tokens per row, the batch chosen for them)
        self.prefix_cache = prefix_cache
        self._prefix: tuple[list[int], Any] | None = None  # (token ids, their key/value cache, batch 1)
        self.chunk_size = (AUTO_BATCH_MAX if batch_size == "auto" else batch_size) * 4
        self.trust_remote_code, self.revision = trust_remote_code, revision
        self.prompt_format = prompt_format or PromptFormat(False)
        self._device, self._dtype = device, dtype
        self._model: Any = None
        self._tok: Any = None

    def load(self) -> None:
        if self._model is not None:
            return
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        device = self._device or ("cuda" if torch.cuda.is_available() else "cpu")
        dtype = {"auto": torch.bfloat16 if device.startswith("cuda") else torch.float32,
                 "float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[self._dtype]
        extra = {"gguf_file": self.gguf_file} if self.gguf_file else {}
        if self.revision:
            extra["revision"] = self.revision
        tok = AutoTokenizer.from_pretrained(self.source, trust_remote_code=self.trust_remote_code, **extra)
        model = AutoModelForCausalLM.from_pretrained(self.source, dtype=dtype,
                                                     trust_remote_code=self.trust_remote_code, **extra)
        if tok.pad_token is None:  # many causal LMs have none; padding positions are masked anyway
            tok.pad_token = tok.eos_token
        tok.padding_side = "left"  # generation continues from the last real token of every row
        self._tok, self._model, self.device = tok, model.to(device).eval(), device

    def chat(self, mode: str = "") -> bool:
        """Whether prompts go through the tokenizer's chat template (asked for, and the tokenizer has one)."""
        if not self.prompt_format.chat:
            return False
        self.load()
        if not getattr(self._tok, "chat_template", None):
            raise ValueError(f"hf-causal: {self.source} has no chat template; run without --chat-template")
        return True

    def format(self, prompt: str) -> str:
        if not self.chat():
            return self.prompt_format.plain(prompt)
        return self._tok.apply_chat_template(self.prompt_format.messages(prompt), tokenize=False,
                                             add_generation_prompt=True)

    def received(self, prompt: str, mode: str) -> str:
        return self.format(prompt)

    def prompt_note(self, mode: str) -> str:
        return "the tokenizer's chat template, applied here" if self.chat() else "plain text: no chat template"

    def _encode(self, text: str) -> list[int]:
        # a chat-formatted text already carries its special tokens (BOS) from the template
        return self._tok(text, add_special_tokens=not self.chat())["input_ids"]

    def supports_loglikelihood(self) -> bool:
        return True

    def _stopping(self, gen: Generation) -> dict[str, Any]:
        """Decoding ends at EOS and at a stop string (HF's StopStringCriteria), not only trimmed afterwards:
        the reply as cut is the same, the tokens after the stop are never computed."""
        out: dict[str, Any] = {"pad_token_id": self._tok.pad_token_id}
        eos = self._model.generation_config.eos_token_id
        if eos is None and self._tok.eos_token_id is not None:
            out["eos_token_id"] = self._tok.eos_token_id
        if gen.stop:
            out["stopping_criteria"] = [_StopStrings(self._tok, gen.stop)]
        return out

    def generate(self, prompts: Sequence[str], max_tokens: int, deadline: float | None,
                 gen: Generation | None = None) -> list[str]:
        import torch

        self.load()
        gen = gen or Generation()
        texts = [self.format(p) for p in prompts]
        sampling = {"do_sample": True, "temperature": gen.temperature} if gen.temperature else {"do_sample": False}
        if gen.temperature:
            torch.manual_seed(gen.seed or 0)
        stopping = self._stopping(gen)
        encoded = [self._encode(t) for t in texts]
        # sampling draws from one generator in batch order: the full-prompt path keeps its draws as they were
        prefix = self._shared_prefix(encoded) if self.prefix_cache and not gen.temperature else []
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))  # similar lengths share a batch
        out: list[str] = [""] * len(texts)
        size = self._batch(max(map(len, encoded), default=0) + max_tokens)
        joined = prefix and self._joinable()
        # a decoding step costs about as much for 8 rows as for 20 (the weights are read once per step): joined,
        # the rows' own tokens run in batches of `size` and up to four such batches decode together
        step = 4 * size if joined else size
        for start in range(0, len(order), step):
            idx = order[start:start + step]
            if joined:
                ids, mask, past = self._prefilled([encoded[i] for i in idx], len(prefix), size)
                extra = {self._cache_arg(): past}
            elif prefix:
                ids, mask, past = self._prefixed_batch([encoded[i] for i in idx], prefix)
                extra = {self._cache_arg(): past}
            else:
                batch = self._tok([texts[i] for i in idx], return_tensors="pt", padding=True,
                                  add_special_tokens=not self.chat())
                ids, mask, extra = batch["input_ids"], batch["attention_mask"], {}
            for criterion in stopping.get("stopping_criteria", ()):
                criterion.start = ids.shape[1]
            with torch.inference_mode():
                new_ids = self._model.generate(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                               max_new_tokens=max_tokens, **stopping, **sampling, **extra)
            new = new_ids[:, ids.shape[1]:]
            for i, text in zip(idx, self._tok.batch_decode(new, skip_special_tokens=True)):
                out[i] = gen.cut(text)
        return out

    def _batch(self, tokens: int) -> int:
        """The batch for rows of up to `tokens` tokens: the one given, or for "auto" the largest that fits (up
        to AUTO_BATCH_MAX), kept while rows are no longer. Rows are independent, so the batch changes speed,
        not predictions."""
        if self.batch_size != "auto":
            return int(self.batch_size)
        if tokens > self._auto[0]:
            size = self._fit_cuda(tokens) if str(self.device).startswith("cuda") else self._fit_memory(tokens)
            self._auto = (tokens, size)
            self.batch_sizes.append(size)
            log.info("hf-causal: batch size auto -> %d (rows of up to %d tokens, %s)", size, tokens, self.device)
        return self._auto[1]

    def _fit_memory(self, tokens: int, available: int | None = None) -> int:
        """CPU: rows whose key/value cache (every layer, four times: generate decodes four batches together)
        and one layer's activations (attention scores in float32 included) fit in half the available memory; the
        other half is left to the rest of the machine."""
        cfg = self._model.config.get_text_config()
        width = next(self._model.parameters()).element_size()
        heads = cfg.num_attention_heads
        head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // heads
        kv = 2 * cfg.num_hidden_layers * getattr(cfg, "num_key_value_heads", heads) * head_dim
        per_row = (tokens * width * (4 * kv + 4 * cfg.hidden_size + 2 * cfg.intermediate_size)
                   + 4 * (heads * tokens * tokens + cfg.vocab_size))
        budget = (available_memory() if available is None else available) // 2
        return max(1, min(AUTO_BATCH_MAX, budget // per_row))

    def _fit_cuda(self, tokens: int) -> int:
        """CUDA: the largest power-of-two batch whose forward over rows of `tokens` tokens does not run out of
        memory (lm-evaluation-harness's recipe: try, catch the OOM, halve)."""
        import torch

        size = AUTO_BATCH_MAX
        while size > 1:
            try:
                ids = torch.full((size, tokens), self._tok.pad_token_id, dtype=torch.long, device=self.device)
                with torch.inference_mode():
                    self._model(input_ids=ids, use_cache=True, logits_to_keep=1)  # as the scoring paths run
                return size
            except torch.cuda.OutOfMemoryError:
                size //= 2
            finally:
                torch.cuda.empty_cache()
        return 1

    def _shared_prefix(self, encoded: Sequence[Sequence[int]]) -> list[int]:
        """The token ids every sequence starts with, less at least its last token (each row needs one of its
        own to predict from); its cache is computed here unless the kept one can serve."""
        if not encoded:
            return []
        first, n = encoded[0], min(len(e) for e in encoded) - 1
        for other in encoded[1:]:
            n = next((j for j in range(n) if other[j] != first[j]), n)
        prefix = list(first[:max(n, 0)])
        if not prefix:
            return []
        kept = self._prefix
        # the kept prefix serves while it starts every sequence and is most of the shared part (a first call
        # over a few items can share a little of their text too: the next call's shorter prefix replaces it)
        if kept is not None and len(kept[0]) <= len(prefix) < 2 * len(kept[0]) and prefix[:len(kept[0])] == kept[0]:
            return kept[0]
        import torch

        with torch.inference_mode():
            result = self._model(input_ids=torch.tensor([prefix], device=self.device), use_cache=True)
        past = getattr(result, "cache", None)
        if past is None:
            past = getattr(result, "past_key_values", None)
        from transformers import Cache

        if not isinstance(past, Cache):  # remote code returning legacy tuples (or no cache): full prompts
            log.warning("hf-causal: %s returns no transformers Cache; every prompt is run in full",
                        self.source)
            self.prefix_cache, self._prefix = False, None
            return []
        self._prefix = (prefix, past)
        return prefix

    def _cache_arg(self) -> str:
        """The forward's name for the key/value cache: `cache` from transformers 5.2x, `past_key_values` before."""
        import inspect

        return "cache" if "cache" in inspect.signature(self._model.forward).parameters else "past_key_values"

    def _expanded_past(self, rows: int) -> Any:
        """A copy of the kept prefix cache for `rows` rows (a forward appends to the cache it is given)."""
        past = copy.deepcopy(self._prefix[1])
        past.batch_repeat_interleave(rows)
        return past

    def _joinable(self) -> bool:
        """Whether key/value caches of different batches can be joined: every layer a plain DynamicLayer (a
        sliding-window layer keeps a window, not the sequence)."""
        from transformers.cache_utils import DynamicLayer

        return all(type(layer) is DynamicLayer for layer in self._prefix[1].layers)

    def _prefilled(self, seqs: Sequence[Sequence[int]], p: int, size: int) -> tuple[Any, Any, Any]:
        """Rows for `generate` with everything but their last token cached: the cached prefix, then their own
        tokens in batches of `size` (sorted rows: little padding), the batches' caches joined by left padding.
        Each row's layout and positions are `_prefixed_batch`'s, behind more (masked) padding."""
        import torch
        import torch.nn.functional as F

        parts = []
        for start in range(0, len(seqs), size):
            own = [s[p:-1] for s in seqs[start:start + size]]
            width = max(map(len, own))
            ids = torch.full((len(own), width), self._tok.pad_token_id, dtype=torch.long)
            mask = torch.zeros((len(own), p + width), dtype=torch.long)
            mask[:, :p] = 1
            for r, o in enumerate(own):
                if o:
                    ids[r, width - len(o):] = torch.tensor(o)
                    mask[r, p + width - len(o):] = 1
            past = self._expanded_past(len(own))
            if width:
                pos = (mask.cumsum(-1) - 1).masked_fill(mask == 0, 0)[:, p:]  # generate's positions
                with torch.inference_mode():
                    self._model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                position_ids=pos.to(self.device), use_cache=True, logits_to_keep=1,
                                **{self._cache_arg(): past})
            parts.append((mask, past))
        total = max(m.shape[1] for m, _ in parts)
        past = parts[0][1]
        for n, layer in enumerate(past.layers):
            for name in ("keys", "values"):
                setattr(layer, name, torch.cat([F.pad(getattr(c.layers[n], name), (0, 0, total - m.shape[1], 0))
                                                for m, c in parts]))
        mask = torch.cat([F.pad(m, (total - m.shape[1], 0)) for m, _ in parts])
        last = torch.tensor([[s[-1]] for s in seqs])
        ids = torch.cat([torch.full((len(seqs), total), self._tok.pad_token_id, dtype=torch.long), last], dim=1)
        return ids, torch.cat([mask, torch.ones_like(last)], dim=1), past

    def _prefixed_batch(self, seqs: Sequence[Sequence[int]], prefix: Sequence[int]) -> tuple[Any, Any, Any]:
        """Generation rows after the cached prefix: the prefix, left padding, then each row's own tokens (the
        positions come from the attention mask, as for left padding of the whole prompt)."""
        import torch

        p = len(prefix)
        width = max(len(s) - p for s in seqs)
        ids = torch.full((len(seqs), p + width), self._tok.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(seqs), p + width), dtype=torch.long)
        ids[:, :p] = torch.tensor(prefix)
        mask[:, :p] = 1
        for r, s in enumerate(seqs):
            own = s[p:]
            ids[r, p + width - len(own):] = torch.tensor(own)
            mask[r, p + width - len(own):] = 1
        return ids, mask, self._expanded_past(len(seqs))

    def loglikelihood(self, pairs: Sequence[tuple[str, str]], deadline: float | None) -> list[float]:
        self.load()
        encoded = []
        for context, continuation in pairs:
            ctx = self._encode(self.format(context))
            # after a chat template the assistant's answer starts the turn: no separating space
            cont = self._tok(continuation.lstrip() if self.chat() else continuation,
                             add_special_tokens=False)["input_ids"]
            encoded.append((ctx, cont))
        if self.prefix_cache:
            return self._loglikelihood_prefixed(encoded)
        return self._loglikelihood_full(encoded)

    def _loglikelihood_prefixed(self, encoded: list[tuple[list[int], list[int]]]) -> list[float]:
        """The cached prefix, then one row per item for all its single-token continuations (read off the
        item's last position) and one row per multi-token continuation."""
        import torch

        contexts = list(dict.fromkeys(tuple(ctx) for ctx, _ in encoded))
        prefix = self._shared_prefix(contexts)
        p = len(prefix)
        out: list[float] = [0.0] * len(encoded)
        # a row: (its tokens after the prefix, the positions whose predictions are read, [(request, position
        # in the row's kept logits, token)])
        rows: dict[Any, tuple[list[int], list[int], list[tuple[int, int, int]]]] = {}
        for i, (ctx, cont) in enumerate(encoded):
            own = ctx[p:]
            if len(cont) <= 1:
                row = rows.setdefault(tuple(ctx), (own, [len(own) - 1], []))
                row[2].extend((i, 0, t) for t in cont)
            else:
                rows[i] = (own + cont[:-1], list(range(len(own) - 1, len(own) + len(cont) - 1)),
                           [(i, j, t) for j, t in enumerate(cont)])
        todo = sorted(rows.values(), key=lambda r: len(r[0]))
        pad = self._tok.pad_token_id
        size = self._batch(p + max((len(r[0]) for r in todo), default=0))
        for start in range(0, len(todo), size):
            batch = todo[start:start + size]
            width = max(len(r[0]) for r in batch)
            ids = torch.full((len(batch), width), pad, dtype=torch.long)
            mask = torch.zeros((len(batch), p + width), dtype=torch.long)
            mask[:, :p] = 1
            width_k = max(len(r[1]) for r in batch)
            keep = torch.zeros((len(batch), width_k), dtype=torch.long)
            for r, (toks, wanted, _) in enumerate(batch):  # right padding: positions follow the prefix
                ids[r, :len(toks)] = torch.tensor(toks)
                mask[r, p:p + len(toks)] = 1
                keep[r] = torch.tensor(wanted + wanted[-1:] * (width_k - len(wanted)))
            extra = {self._cache_arg(): self._expanded_past(len(batch))} if p else {}
            with torch.inference_mode():
                logits = self._model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                     logits_to_keep=keep.to(self.device), use_cache=bool(p), **extra).logits
            logprobs = torch.log_softmax(logits.float(), dim=-1).cpu()
            for r, (_, _, reads) in enumerate(batch):
                for i, j, t in reads:
                    out[i] += float(logprobs[r, j, t])
        return out

    def _loglikelihood_full(self, encoded: list[tuple[list[int], list[int]]]) -> list[float]:
        import torch

        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]) + len(encoded[i][1]))
        out: list[float] = [0.0] * len(encoded)
        pad = self._tok.pad_token_id
        size = self._batch(max((len(c) + len(t) for c, t in encoded), default=0))
        for start in range(0, len(order), size):
            idx = order[start:start + size]
            rows = [encoded[i][0] + encoded[i][1] for i in idx]
            width = max(map(len, rows))
            ids = torch.full((len(rows), width), pad, dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for r, row in enumerate(rows):  # right padding: positions stay aligned with the text
                ids[r, :len(row)] = torch.tensor(row)
                mask[r, :len(row)] = 1
            # logits only where a continuation token is predicted (row by row, padded by repeating the last
            # position): the vocabulary projection of every prompt position was most of the time and memory
            width_c = max(max(len(encoded[i][1]) for i in idx), 1)
            keep = torch.zeros((len(rows), width_c), dtype=torch.long)
            for r, i in enumerate(idx):
                ctx, cont = encoded[i]
                wanted = list(range(len(ctx) - 1, len(ctx) + len(cont) - 1)) or [len(ctx) - 1]
                keep[r] = torch.tensor(wanted + wanted[-1:] * (width_c - len(wanted)))
            with torch.inference_mode():
                logits = self._model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                     logits_to_keep=keep.to(self.device)).logits
            logprobs = torch.log_softmax(logits.float(), dim=-1).cpu()
            for r, i in enumerate(idx):
                cont = encoded[i][1]
                out[i] = float(logprobs[r, torch.arange(len(cont)), torch.tensor(cont, dtype=torch.long)].sum())
        return out


class HFCausalBackend(Backend):
    """`get_backend("hf-causal:<source>", mode=..., k_shots=..., batch_size=..., device=..., dtype=...,
    revision=..., chat_template=..., system_prompt=..., temperature=..., stop=..., prefix_cache=...)`.

    `prefix_cache` (on by default) and `batch_size` (an int, or "auto": the largest batch that fits memory,
    up to 64; the sizes chosen are in `engine().batch_sizes`) change how the numbers are computed, not what
    they are: they are in neither the job key nor the request cache's model id."""

    supports_icl = True

    def __init__(self, arg: str, *, mode: str = "auto", k_shots: int | None = None,
                 max_tokens: int | None = None, max_invalid: float = DEFAULT_MAX_INVALID,
                 job_budget_s: float = DEFAULT_JOB_BUDGET_S, cache_only: bool = False, batch_size: int | str = 8,
                 device: str | None = None, dtype: str = "auto", trust_remote_code: bool = False,
                 name: str | None = None, log_samples: bool = False, revision: str | None = None,
                 chat_template: bool = False, system_prompt: str = "", temperature: float = 0.0,
                 stop: Sequence[str] = (), prefix_cache: bool = True) -> None:
        _check_options(k_shots, mode, 1, max_invalid, job_budget_s, temperature)
        if dtype not in ("auto", "float32", "bfloat16", "float16"):
            raise ValueError(f"hf-causal: unknown dtype {dtype!r}; choose auto, float32, bfloat16 or float16")
        if batch_size != "auto" and (not isinstance(batch_size, int) or batch_size < 1):
            raise ValueError(f"hf-causal: batch_size is an int >= 1 or 'auto' (got {batch_size!r})")
        source, gguf_file = resolve_source(arg)
        self.name = name or f"hf-causal:{arg}"
        self.mode, self.k_shots, self.max_tokens = mode, k_shots, max_tokens
        self.max_invalid, self.job_budget_s, self.cache_only = float(max_invalid), float(job_budget_s), cache_only
        self.temperature, self.stop, self.log_samples = float(temperature), tuple(stop), log_samples
        self.dtype, self.revision, self.trust_remote_code = dtype, revision, bool(trust_remote_code)
        self.prompt_format = PromptFormat(bool(chat_template), system_prompt)
        self._engine = HFCausalEngine(source, gguf_file, device=device, dtype=dtype, batch_size=batch_size,
                                      trust_remote_code=self.trust_remote_code, prompt_format=self.prompt_format,
                                      revision=revision, prefix_cache=bool(prefix_cache))
        self.cache = RequestCache()

    def attach_store(self, path: Any) -> None:
        self.cache = RequestCache(path)

    @property
    def config(self) -> dict[str, Any]:
        out = {"source": self.name, "k": k_config(self.k_shots), "max_tokens": self.max_tokens,
               "mode": self.mode, "dtype": self.dtype,
               "decoding": f"sampled, temperature {self.temperature:g}" if self.temperature else "greedy",
               **format_config(self.prompt_format, self.stop)}
        if self.revision:
            out["revision"] = self.revision
        if self.trust_remote_code:
            out["trust_remote_code"] = True
        return out

    def engine(self) -> HFCausalEngine:
        return self._engine

    def fit(self, task: str, train: Sequence[Any], dev: Sequence[Any] | None = None, *,
            seed: int = 0) -> LLMModel:
        revision = f"|revision:{self.revision}" if self.revision else ""
        model_id = f"{self.name}|hf-causal|dtype:{self.dtype}{revision}|{self.prompt_format.tag(self.prompt_format.chat)}"
        return fit_icl(self, task, train, seed=seed, model_id=model_id, name="hf-causal")
