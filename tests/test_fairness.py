"""Generalized entropy index and its decomposition (seed 001 §3), avg_pop and max - min."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dialectbench.analysis import avg_pop, generalized_entropy, max_min

benefits = st.lists(st.floats(min_value=0.01, max_value=1.0, allow_nan=False), min_size=2, max_size=60)
alphas = st.sampled_from([-1.0, 0.5, 2.0, 3.0, 1.5])


def _ge_loop(b, alpha):
    mu = sum(b) / len(b)
    return sum((x / mu) ** alpha - 1 for x in b) / (len(b) * alpha * (alpha - 1))


@given(benefits, st.data(), alphas)
@settings(max_examples=80, deadline=None)
def test_total_is_within_plus_between(values, data, alpha):
    groups = data.draw(st.lists(st.sampled_from("abcd"), min_size=len(values), max_size=len(values)))
    res = generalized_entropy(values, groups, alpha=alpha)
    assert res.total == pytest.approx(res.within + res.between, abs=1e-12)
    assert res.total == pytest.approx(_ge_loop(values, alpha), abs=1e-12)
    assert res.components["within"].sum() == pytest.approx(res.within, abs=1e-12)
    assert res.components["between"].sum() == pytest.approx(res.between, abs=1e-12)
    # between = E of the vector with every value replaced by its group mean
    means = {g: np.mean([v for v, h in zip(values, groups) if h == g]) for g in set(groups)}
    assert res.between == pytest.approx(_ge_loop([means[g] for g in groups], alpha), abs=1e-12)


@given(benefits)
@settings(max_examples=50, deadline=None)
def test_alpha_2_is_half_squared_coefficient_of_variation(values):
    b = np.asarray(values)
    assert generalized_entropy(b).total == pytest.approx(b.var() / (2 * b.mean() ** 2), abs=1e-12)


@given(benefits, st.floats(min_value=1e-3, max_value=1e3), alphas)
@settings(max_examples=50, deadline=None)
def test_scale_invariance(values, scale, alpha):
    groups = [i % 3 for i in range(len(values))]
    a = generalized_entropy(values, groups, alpha=alpha)
    b = generalized_entropy(np.asarray(values) * scale, groups, alpha=alpha)
    assert b.total == pytest.approx(a.total, rel=1e-9, abs=1e-12)
    assert b.between == pytest.approx(a.between, rel=1e-9, abs=1e-12)


def test_components_layout_like_seed_001_table_16():
    # Two dialects: the weaker one has a negative between term ("treated unfairly w.r.t. the rest").
    values = [0.9, 0.8, 1.0, 0.4, 0.6]
    res = generalized_entropy(values, ["usa", "usa", "usa", "ind", "ind"])
    comps = res.components.set_index("group")
    assert list(res.components.columns) == ["group", "n", "mean", "ge", "weight", "within", "between"]
    assert comps.loc["ind", "between"] < 0 < comps.loc["usa", "between"]
    mu = np.mean(values)
    usa = np.array([0.9, 0.8, 1.0])
    ge_usa = usa.var() / (2 * usa.mean() ** 2)
    w_usa = 3 / 5 * (usa.mean() / mu) ** 2
    assert comps.loc["usa", "ge"] == pytest.approx(ge_usa)
    assert comps.loc["usa", "weight"] == pytest.approx(w_usa)
    assert comps.loc["usa", "within"] == pytest.approx(w_usa * ge_usa)   # the weighted term, as Table 16
    assert comps.loc["usa", "between"] == pytest.approx(3 / 5 / 2 * ((usa.mean() / mu) ** 2 - 1))


def test_no_groups_means_one_group():
    res = generalized_entropy([0.2, 0.4, 0.9])
    assert res.between == 0.0 and res.within == pytest.approx(res.total)


def test_all_zero_group_contributes_no_within_term():
    res = generalized_entropy([0.0, 0.0, 0.5, 1.0], ["a", "a", "b", "b"])
    comps = res.components.set_index("group")
    assert comps.loc["a", "within"] == 0.0 and math.isnan(comps.loc["a", "ge"])
    assert res.total == pytest.approx(res.within + res.between)


@pytest.mark.parametrize("values, alpha, message", [
    ([0.5, 0.6], 1.0, "alpha != 0, 1"),
    ([0.5, 0.6], 0.0, "alpha != 0, 1"),
    ([0.0, 0.0], 2.0, "positive mean"),
    ([-0.2, 0.6], 0.5, "negative benefits"),
    ([0.0, 0.6], -1.0, "zero benefits"),
    ([], 2.0, "no benefit values"),
    ([0.5, float("nan")], 2.0, "finite"),
])
def test_undefined_inputs_raise(values, alpha, message):
    with pytest.raises(ValueError, match=message):
        generalized_entropy(values, alpha=alpha)


def test_negative_benefit_is_fine_for_integer_alpha():
    # 1 - WER is negative for an utterance with WER > 1; at alpha = 2 the index is still defined.
    res = generalized_entropy([-0.2, 0.6, 0.9], ["a", "b", "b"])
    assert res.total == pytest.approx(_ge_loop([-0.2, 0.6, 0.9], 2.0))


def test_group_label_errors():
    with pytest.raises(ValueError, match="2 values but 1 group labels"):
        generalized_entropy([0.1, 0.2], ["a"])
    with pytest.raises(ValueError, match="group label missing for value 1"):
        generalized_entropy([0.1, 0.2], ["a", None])


def test_avg_pop_and_max_min():
    assert avg_pop([83.08, 43.50], [7_500_000, 4_100_000]) == pytest.approx(69.09, abs=0.005)
    assert avg_pop([10.0, 20.0], [None, 3]) == 20.0
    assert math.isnan(avg_pop([10.0], [float("nan")]))
    with pytest.raises(ValueError, match="non-negative"):
        avg_pop([1.0], [-1])
    assert max_min([70.0, 55.5, float("nan"), 90.0]) == 34.5


@given(benefits)
@settings(max_examples=30, deadline=None)
def test_ge_is_zero_only_for_equal_benefits(values):
    assume(max(values) - min(values) > 1e-6)
    assert generalized_entropy(values).total > 0
    assert generalized_entropy([values[0]] * len(values)).total == pytest.approx(0.0, abs=1e-15)
