"""Features -> padded batches, and the fast inference loop.

A *feature* is one model input as a dict of python lists/ints (one example may give several: QA
windows). Known keys are padded per batch; any other key (word maps, offsets) is metadata the head's
decoder reads from the feature itself.
"""

from __future__ import annotations

import contextlib
import math
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch

IGNORE = -100  # cross-entropy ignore index (transformers' convention)
TOKEN_AXIS = ("input_ids", "attention_mask", "token_type_ids")


def pad_values(pad_id: int) -> dict[str, int]:
    return {"input_ids": pad_id, "attention_mask": 0, "token_type_ids": 0, "labels": IGNORE,
            "label": IGNORE, "start_positions": 0, "end_positions": 0, "word_starts": 0, "word_mask": 0,
            "heads": 0, "rels": 0, "option_mask": 0}


def _round(width: int, multiple: int) -> int:
    return -(-width // multiple) * multiple


def _pad(values: list[Any], pad: int, multiple: int = 1) -> list[Any]:
    first = values[0]
    if isinstance(first, int):
        return values
    if first and isinstance(first[0], list):  # (options, tokens) per feature: pad both dimensions
        n = max(len(v) for v in values)
        width = _round(max(len(row) for v in values for row in v), multiple)
        return [[row + [pad] * (width - len(row)) for row in v] + [[pad] * width] * (n - len(v)) for v in values]
    width = _round(max(len(v) for v in values), multiple)
    return [list(v) + [pad] * (width - len(v)) for v in values]


def collate(features: Sequence[dict[str, Any]], pad_id: int, device: torch.device | str = "cpu",
            multiple: int = 1) -> dict[str, torch.Tensor]:
    """Pad every known key to the longest in this batch (not to a global maximum), rounded up to
    `multiple` (8 on GPU: tensor-core friendly widths and far fewer distinct shapes to tune kernels for)."""
    batch = {}
    for key, pad in pad_values(pad_id).items():
        if key in features[0]:
            rounded = multiple if key in TOKEN_AXIS else 1  # word/option axes keep their exact size
            values = _pad([f[key] for f in features], pad, rounded)
            batch[key] = torch.tensor(values, dtype=torch.long, device=device)
    return batch


def length(feature: dict[str, Any]) -> int:
    ids = feature["input_ids"]
    return sum(len(row) for row in ids) if ids and isinstance(ids[0], list) else len(ids)


def training_batches(features: Sequence[dict], batch_size: int, rng: random.Random) -> Iterator[list[dict]]:
    """Shuffled batches of similar length: shuffle, sort within chunks of 50 batches, shuffle batches."""
    order = list(range(len(features)))
    rng.shuffle(order)
    chunk = batch_size * 50
    batches = []
    for start in range(0, len(order), chunk):
        part = sorted(order[start:start + chunk], key=lambda i: length(features[i]))
        batches += [part[i:i + batch_size] for i in range(0, len(part), batch_size)]
    rng.shuffle(batches)
    for idx in batches:
        yield [features[i] for i in idx]


def autocast(device: torch.device, precision: str | None) -> contextlib.AbstractContextManager:
    """bf16/fp16 autocast on GPU; a no-op on CPU or with precision None."""
    if device.type != "cuda" or precision in (None, "fp32"):
        return contextlib.nullcontext()
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[precision]
    return torch.autocast("cuda", dtype=dtype)


def default_precision(device: torch.device) -> str | None:
    if device.type != "cuda":
        return None
    return "bf16" if torch.cuda.is_bf16_supported() else "fp16"


class Predictor:
    """Runs `step(batch, features) -> one output per feature` over all features, fast:
    longest-first sorting so each batch pads only to its own longest input, `torch.inference_mode`,
    autocast on GPU, and a batch size that halves on CUDA out-of-memory (and stays halved)."""

    def __init__(self, device: torch.device | str = "cpu", batch_size: int = 64, precision: str | None = None):
        self.device = torch.device(device)
        self.batch_size = batch_size
        self.precision = precision

    def run(self, features: Sequence[dict], step: Callable[[dict, list[dict]], list[Any]], pad_id: int) -> list[Any]:
        order = sorted(range(len(features)), key=lambda i: -length(features[i]))
        out: list[Any] = [None] * len(features)
        i = 0
        with torch.inference_mode(), autocast(self.device, self.precision):
            while i < len(order):
                idx = order[i:i + self.batch_size]
                chunk = [features[j] for j in idx]
                try:
                    multiple = 8 if self.device.type == "cuda" else 1
                    results = step(collate(chunk, pad_id, self.device, multiple), chunk)
                except torch.cuda.OutOfMemoryError:
                    if self.batch_size == 1:
                        raise
                    self.batch_size = max(1, self.batch_size // 2)
                    torch.cuda.empty_cache()
                    print(f"[hf] CUDA out of memory: batch size -> {self.batch_size}", file=sys.stderr)
                    continue
                for j, r in zip(idx, results):
                    out[j] = r
                i += len(idx)
        return out


def steps_per_epoch(n: int, batch_size: int) -> int:
    return max(1, math.ceil(n / batch_size))
