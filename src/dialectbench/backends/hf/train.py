"""A plain fine-tuning loop: AdamW, linear warm-up then decay, gradient clipping, seeded shuffling,
evaluation on dev after each epoch, early stopping, and the best epoch's weights kept in memory."""

from __future__ import annotations

import copy
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from dialectbench.backends.hf.batching import autocast, collate, steps_per_epoch, training_batches
from dialectbench.backends.hf.config import TaskConfig


@dataclass
class TrainLog:
    epochs: list[dict[str, float]] = field(default_factory=list)  # per epoch: loss, dev score, seconds
    best_epoch: int | None = None
    stopped_early: bool = False


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def _optimizer(model: nn.Module, cfg: TaskConfig, is_new: Callable[[str], bool]) -> torch.optim.Optimizer:
    """Two learning rates (pretrained weights vs the new head); no weight decay on biases and norms."""
    groups: dict[tuple[float, float], list[nn.Parameter]] = {}
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        lr = cfg.head_lr if cfg.head_lr is not None and is_new(name) else cfg.lr
        decay = 0.0 if p.ndim < 2 else cfg.weight_decay
        groups.setdefault((lr, decay), []).append(p)
    return torch.optim.AdamW([{"params": ps, "lr": lr, "weight_decay": wd} for (lr, wd), ps in groups.items()])


def fine_tune(head: Any, model: nn.Module, features: Sequence[dict], pad_id: int, cfg: TaskConfig, *,
              device: torch.device, precision: str | None, dev_score: Callable[[], float] | None,
              verbose: bool = False) -> TrainLog:
    """Train `model` in place on `features`; with `dev_score`, keep the best epoch and stop after
    `cfg.patience` epochs without improvement."""
    from transformers import get_linear_schedule_with_warmup

    rng = random.Random(torch.initial_seed())
    optimizer = _optimizer(model, cfg, head.is_new_parameter)
    total = cfg.epochs * steps_per_epoch(len(features), cfg.batch_size)
    scheduler = get_linear_schedule_with_warmup(optimizer, int(cfg.warmup_ratio * total), total)
    train_precision = precision if precision == "bf16" else None  # fp16 would need a grad scaler
    log, best_score, best_state, bad = TrainLog(), float("-inf"), None, 0
    deadline = None if cfg.max_minutes is None else time.perf_counter() + 60.0 * cfg.max_minutes
    for epoch in range(cfg.epochs):
        t0, losses = time.perf_counter(), []
        model.train()
        for chunk in training_batches(features, cfg.batch_size, rng):
            with autocast(device, train_precision):
                loss = head.loss(model, collate(chunk, pad_id, device))
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            losses.append(loss.item())
            if deadline is not None and time.perf_counter() > deadline:
                log.stopped_early = True  # the time cap: the epoch is cut short, then scored as usual
                break
        model.eval()
        entry = {"epoch": epoch + 1, "loss": float(np.mean(losses)), "seconds": time.perf_counter() - t0}
        if dev_score is not None:
            entry["dev"] = score = dev_score()
            if score > best_score:
                best_score, best_state, bad, log.best_epoch = score, _snapshot(model), 0, epoch + 1
            else:
                bad += 1
        log.epochs.append(entry)
        if verbose:
            print(f"[hf] {head.task} epoch {entry['epoch']}: " + ", ".join(f"{k} {v:.4g}" for k, v in entry.items()
                                                                        if k != "epoch"), file=sys.stderr)
        if dev_score is not None and bad >= cfg.patience or deadline is not None and time.perf_counter() > deadline:
            log.stopped_early = True
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return log


def _snapshot(model: nn.Module) -> dict[str, torch.Tensor]:
    """A CPU copy of the weights (the best checkpoint of this training set, kept in memory)."""
    return {k: v.detach().to("cpu", copy=True) for k, v in copy.copy(model.state_dict()).items()}
