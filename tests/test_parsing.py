"""MST decoding is exact (vs brute force) and always yields single-root trees; scorer shapes/masking."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from dialectbench.backends.parsing import (
    BiaffineArcScorer,
    BiaffineLabelScorer,
    ParserHead,
    is_single_root_tree,
    mst_decode,
)


@pytest.fixture(autouse=True)
def _one_thread():
    # tiny tensors: extra intra-op threads only add contention on a shared CI core
    prev = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(prev)


def _score(scores: np.ndarray, heads) -> float:
    return float(sum(scores[d + 1, h] for d, h in enumerate(heads)))


def _is_tree(heads) -> bool:
    """Independent check: one ROOT arc and every word reaches ROOT without revisiting a word."""
    if list(heads).count(0) != 1:
        return False
    for d in range(1, len(heads) + 1):
        seen, node = set(), d
        while node != 0:
            if node in seen:
                return False
            seen.add(node)
            node = heads[node - 1]
    return True


def _brute_force(scores: np.ndarray) -> float:
    n = scores.shape[0] - 1
    trees = (h for h in itertools.product(range(n + 1), repeat=n) if _is_tree(h))
    return max(_score(scores, h) for h in trees)


@pytest.mark.parametrize("seed", range(4))
def test_mst_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    for _ in range(30):
        n = int(rng.integers(1, 6))
        scores = rng.normal(size=(n + 1, n + 1)) * rng.choice([0.1, 1.0, 10.0])
        heads = mst_decode(scores)
        assert len(heads) == n and _is_tree(heads)
        assert _score(scores, heads) == pytest.approx(_brute_force(scores), abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_mst_matches_brute_force_when_most_greedy_heads_already_form_a_tree(seed):
    """A trained parser's scores: a planted tree's arcs stand out, so the greedy heads are often already
    a tree (the shortcut) and sometimes not (Chu-Liu/Edmonds); both must give the best tree."""
    rng = np.random.default_rng(seed)
    shortcut = 0
    for _ in range(40):
        n = int(rng.integers(2, 7))
        heads = [0] + [int(rng.integers(1, d + 1)) for d in range(1, n)]  # word d+1 attaches left
        scores = rng.normal(size=(n + 1, n + 1))
        scores[np.arange(1, n + 1), heads] += rng.choice([0.5, 3.0])
        greedy = scores[1:].copy()
        greedy[np.arange(n), np.arange(1, n + 1)] = -np.inf
        shortcut += _is_tree(list(greedy.argmax(1)))
        best = mst_decode(scores)
        assert _is_tree(best) and _score(scores, best) == pytest.approx(_brute_force(scores), abs=1e-9)
    assert 0 < shortcut < 40  # both paths were taken


def test_single_root_even_when_root_arcs_dominate():
    # every word prefers ROOT by far: the unconstrained MST would attach all of them to ROOT
    scores = np.zeros((6, 6))
    scores[1:, 0] = 100.0
    scores[2, 1] = 5.0
    heads = mst_decode(scores)
    assert is_single_root_tree(heads)
    assert _score(scores, heads) == pytest.approx(_brute_force(scores))


def test_forbidden_arcs_are_avoided_when_possible():
    rng = np.random.default_rng(3)
    for _ in range(20):
        scores = rng.normal(size=(6, 6))
        scores[rng.random((6, 6)) < 0.3] = -np.inf
        scores[1:, 0] = rng.normal(size=5)  # ROOT arcs always allowed, so a finite tree exists
        heads = mst_decode(scores)
        assert is_single_root_tree(heads) and np.isfinite(_score(scores, heads))
        assert _score(scores, heads) == pytest.approx(_brute_force(scores))


def test_large_random_graphs_give_trees():
    rng = np.random.default_rng(0)
    for n in (10, 40, 120):
        heads = mst_decode(rng.normal(size=(n + 1, n + 1)))
        assert len(heads) == n and is_single_root_tree(heads)


def test_bad_input():
    assert mst_decode(np.zeros((1, 1))) == []
    assert mst_decode(np.zeros((2, 2))) == [0]
    with pytest.raises(ValueError, match="square"):
        mst_decode(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="NaN"):
        mst_decode(np.full((3, 3), np.nan))


def test_is_single_root_tree():
    rng = np.random.default_rng(1)
    for _ in range(300):
        heads = [int(h) for h in rng.integers(0, 5, size=4)]
        assert is_single_root_tree(heads) == (_is_tree(heads) and all(h != i + 1 for i, h in enumerate(heads)))
    assert is_single_root_tree([2, 0, 2])
    assert not is_single_root_tree([0, 0])         # two roots
    assert not is_single_root_tree([2, 1, 0])      # cycle 1 <-> 2
    assert not is_single_root_tree([1, 0])         # self loop
    assert not is_single_root_tree([0, 5])         # head out of range


def test_scorers_shapes_and_masking():
    torch.manual_seed(0)
    x = torch.randn(2, 5, 12)
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], dtype=torch.bool)
    arcs = BiaffineArcScorer(12, hidden=8)(x, mask)
    assert arcs.shape == (2, 5, 5)
    assert torch.isinf(arcs[1, :, 3:]).all() and torch.isfinite(arcs[1, :, :3]).all()
    labels = BiaffineLabelScorer(12, n_labels=4, hidden=6)(x, torch.zeros(2, 5, dtype=torch.long))
    assert labels.shape == (2, 5, 4)


def test_parser_head_fits_a_fixed_tree_and_decodes_it():
    """Any encoder + ParserHead can overfit one batch of random states to the gold trees."""
    torch.manual_seed(0)
    x = torch.randn(2, 5, 16)
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], dtype=torch.bool)
    heads = torch.tensor([[0, 2, 0, 2, 3], [0, 0, 1, 0, 0]])
    labels = torch.tensor([[0, 1, 2, 1, 0], [0, 2, 1, 0, 0]])
    head = ParserHead(16, n_labels=3, arc_hidden=16, label_hidden=8, dropout=0.0)
    opt = torch.optim.Adam(head.parameters(), lr=2e-2)
    for _ in range(80):
        opt.zero_grad()
        loss = head.loss(x, mask, heads, labels)
        loss.backward()
        opt.step()
    pred_heads, pred_labels = head.decode(x, mask)
    assert pred_heads == [[2, 0, 2, 3], [0, 1]]
    assert pred_labels == [[1, 2, 1, 0], [2, 1]]
