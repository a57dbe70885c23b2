"""Applying rules to examples: seeded, deterministic, label-aligned.

Each (example, rule) pair draws from its own random stream, seeded by sha256(seed, example id, rule id):
the output does not depend on PYTHONHASHSEED, on the order examples come in, or on which other rules run.
Within a rule every site draws once whether or not it fires, so one site's outcome never shifts another's.
Rules run in rules.yaml's order, each on the tree the previous ones left.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from dialectbench.data.examples import Sentence, TaggedSentence
from dialectbench.perturb.catalogue import rule_specs
from dialectbench.perturb.rules import RULES
from dialectbench.perturb.tree import Protected, Tree, from_arrays, to_arrays, tree_problems


class PerturbationBug(AssertionError):
    """A rule broke the tree (a bug, never data): the tests check it cannot happen."""


@dataclass
class Applied:
    """What happened to one example: sites that fired per rule, and the edits made."""

    fired: Counter = field(default_factory=Counter)
    sites: Counter = field(default_factory=Counter)
    edits: list = field(default_factory=list)
    origins: tuple = ()  # per output word: its 0-based index in the source, None for an inserted word


def _rng(seed: int, example_id: str, rule_id: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}\x1f{example_id}\x1f{rule_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def apply_rules(tree: Tree, rates: Mapping[str, float], *, seed: int, key: str) -> Applied:
    """Apply every rule of `rates` (rule id -> per-site rate) to `tree` in place."""
    applied = Applied()
    for rule_id in rule_specs():
        rate = rates.get(rule_id, 0.0)
        if rate <= 0:
            continue
        rng = _rng(seed, key, rule_id)
        for site in RULES[rule_id](tree):
            applied.sites[rule_id] += 1
            if rng.random() >= rate:
                continue
            snap = tree.snapshot()
            before = len(tree.log)
            try:
                site()
            except (Protected, ValueError):  # an entity token, or a token an earlier site removed
                tree.restore(snap)
                continue
            if len(tree.log) > before:
                applied.fired[rule_id] += 1
                applied.edits += [(rule_id, e.op) for e in tree.log[before:]]
    return applied


def _check(tree: Tree, roots_before: int, example_id: str) -> tuple:
    arrays = to_arrays(tree)
    problems = tree_problems(arrays[2])
    roots = arrays[2].count(0)
    if problems or roots > roots_before or (roots_before and not roots) or not arrays[0]:
        raise PerturbationBug(f"{example_id}: perturbation broke the tree: {problems or f'{roots} roots'}")
    return arrays


def perturb_sentence(sent: Sentence, rates: Mapping[str, float], *, seed: int = 0) -> tuple[Sentence, Applied]:
    """A perturbed copy of a UD sentence (same example id), with its labels carried along."""
    tree = from_arrays(sent.words, sent.upos, sent.heads, sent.deprels)
    applied = apply_rules(tree, rates, seed=seed, key=sent.example_id)
    if not applied.fired:
        return sent, applied
    words, upos, heads, deprels = _check(tree, sent.heads.count(0), sent.example_id)
    applied.origins = tuple(t.origin for t in tree.toks)
    return replace(sent, words=words, upos=upos, heads=heads, deprels=deprels, text=" ".join(words)), applied


def perturb_tagged(sent: TaggedSentence, analysis: Sentence, rates: Mapping[str, float], *,
                   seed: int = 0) -> tuple[TaggedSentence, Applied]:
    """A perturbed NER sentence: the rules read `analysis` (UPOS and a tree of the same tokens, e.g. from
    the EWT-trained parser); entity tokens are never edited and inserted tokens are tagged O, so every
    entity span survives unchanged."""
    if tuple(analysis.words) != tuple(sent.tokens):
        raise ValueError(f"{sent.example_id}: the analysis is of other tokens")
    tree = from_arrays(analysis.words, analysis.upos, analysis.heads, analysis.deprels, ner=sent.tags)
    applied = apply_rules(tree, rates, seed=seed, key=sent.example_id)
    if not applied.fired:
        return sent, applied
    _check(tree, analysis.heads.count(0), sent.example_id)
    return replace(sent, tokens=tuple(t.form for t in tree.toks), tags=tuple(t.ner for t in tree.toks)), applied


def perturb_all(examples: Iterable[Sentence], rates: Mapping[str, float], *, seed: int = 0,
                details: list[Applied] | None = None) -> tuple[list[Sentence], Counter]:
    """Perturb many sentences; returns them and the per-rule count of sites that fired (and, into
    `details` when given, each sentence's Applied record)."""
    out, fired = [], Counter()
    for sent in examples:
        new, applied = perturb_sentence(sent, rates, seed=seed)
        out.append(new)
        fired.update(applied.fired)
        if details is not None:
            details.append(applied)
    return out, fired
