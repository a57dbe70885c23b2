"""The plan: Table 2 settings -> jobs grouped by training set; unsupported settings skipped with reasons."""

from __future__ import annotations

import pytest
from runner_fakes import FakeSource

from dialectbench.runner.plan import PRETRAINED, PlanError, build_plan, split_names


def _plan(**kw):
    kw.setdefault("model", "fake")
    return build_plan(kw.pop("source", FakeSource()), **kw)


def _jobs(plan, **match):
    return [j for j in plan.jobs if all(getattr(j, k) == v for k, v in match.items())]


def test_zero_shot_trains_once_on_english_and_evaluates_every_variety_with_a_test_split():
    plan = _plan(tasks=["tc"], settings=["zero-shot"])
    assert len(plan.groups) == 1
    group = plan.groups[0]
    assert group.training.members == ("english",)
    evaluated = {j.variety for j in group.jobs}
    assert evaluated == {"english", "standard arabic", "egyptian arabic", "moroccan arabic",
                         "north azerbaijani", "south azerbaijani"}
    assert all(j.train_on == "english" and j.setting == "zero-shot" for j in group.jobs)


def test_one_fit_serves_every_setting_with_the_same_training_set():
    plan = _plan(tasks=["pos"], settings=["zero-shot", "in-variety"])
    english = [g for g in plan.groups if g.training.members == ("english",)]
    assert len(english) == 1  # zero-shot (all varieties) and in-variety english share the fit
    assert {(j.setting, j.variety) for j in english[0].jobs} >= {("in-variety", "english"),
                                                                 ("zero-shot", "singlish")}
    albanian = [g for g in plan.groups if g.training.members == ("albanian",)]
    assert [(j.setting, j.variety) for j in albanian[0].jobs] == [("in-variety", "albanian")]


def test_in_variety_skips_varieties_without_a_train_split_with_a_reason():
    plan = _plan(tasks=["pos"], settings=["in-variety"])
    skipped = {s.variety: s.reason for s in plan.skips if s.setting == "in-variety"}
    assert set(skipped) == {"singlish", "gheg albanian"}
    assert all("no train split" in r for r in skipped.values())


def test_in_cluster_uses_the_table9_representative_and_skips_a_cluster_whose_representative_lacks_train():
    plan = _plan(tasks=["tc"], settings=["in-cluster"])
    arabic = [g for g in plan.groups if g.training.members == ("standard arabic",)]
    assert len(arabic) == 1
    assert {j.variety for j in arabic[0].jobs} == {"standard arabic", "egyptian arabic", "moroccan arabic"}
    assert all(j.cluster == "arabic" and j.train_on == "standard arabic" for j in arabic[0].jobs)
    turkic = {s.variety: s.reason for s in plan.skips if s.setting == "in-cluster" and "azerbaijani" in s.variety}
    assert set(turkic) == {"north azerbaijani", "south azerbaijani"}
    assert all("'north azerbaijani' has no train split" in r for r in turkic.values())


def test_settings_outside_table2_and_icl_without_an_llm_are_skipped_not_errors():
    plan = _plan(tasks=["tc", "pos"], settings=["combined", "icl", "zero-shot"])
    reasons = {(s.task, s.setting): s.reason for s in plan.skips if s.variety is None}
    assert "Table 2" in reasons[("tc", "combined")]
    assert "Table 2" in reasons[("pos", "icl")]
    assert plan.jobs and all(j.setting == "zero-shot" for j in plan.jobs)


def test_icl_is_planned_for_a_backend_that_supports_it():
    source = FakeSource()
    source.data[("sa", "standard arabic")] = source.data[("tc", "standard arabic")]
    source.data[("sa", "english")] = source.data[("tc", "english")]
    llm = build_plan(source, model="llm", tasks=["sa"], settings=["icl"], supports_icl=True)
    assert {j.variety for j in llm.jobs} >= {"standard arabic"}
    assert llm.groups[0].training.mode == "icl"
    baseline = build_plan(source, model="fake", tasks=["sa"], settings=["icl"])
    assert not baseline.jobs and "LLM" in baseline.skips[0].reason


def test_combined_pools_every_train_split_of_the_task():
    source = FakeSource()
    for v in ("english", "standard arabic", "egyptian arabic"):
        source.data[("mrc", v)] = source.data[("tc", v)]
    plan = build_plan(source, model="fake", tasks=["mrc"])
    assert len(plan.groups) == 1
    assert plan.groups[0].training.members == ("english", "standard arabic")
    assert {j.train_on for j in plan.jobs} == {"combined (2 varieties)"}
    assert {j.variety for j in plan.jobs} == {"english", "standard arabic", "egyptian arabic"}


def test_dialect_identification_fits_one_classifier_per_cluster_on_all_its_varieties():
    source = FakeSource(data={})
    for v in ("english", "english (a:uk)", "north american english"):
        source.data[("did", v)] = {"train": [], "test": []}
    source.data[("did", "english")] = {"test": []}  # no train: still scored in the pooled test
    plan = build_plan(source, model="fake", tasks=["did"])
    assert len(plan.groups) == 1
    training = plan.groups[0].training
    assert training.members == ("english (a:uk)", "north american english")
    assert training.pool == ("english", "english (a:uk)", "north american english")
    assert len(plan.jobs) == 3 and {j.setting for j in plan.jobs} == {"in-cluster"}


def test_mt_zero_shot_applies_the_pretrained_system_without_training():
    source = FakeSource(data={("mt-dialect", "cretan"): {"test": []}, ("mt-dialect", "modern greek"): {"test": []}})
    plan = build_plan(source, model="fake", tasks=["mt"])
    assert [g.training.members for g in plan.groups] == [()]
    assert {j.train_on for j in plan.jobs} == {PRETRAINED}
    assert any("no data" in s.reason or "no data" in s.reason.lower() for s in plan.skips if s.task == "mt-region")


def test_varieties_and_clusters_filter_the_evaluations_but_not_the_training_data():
    plan = _plan(tasks=["tc"], settings=["in-cluster"], varieties=["Egyptian Arabic"])
    assert [(j.variety, j.train_on) for j in plan.jobs] == [("egyptian arabic", "standard arabic")]
    by_cluster = _plan(tasks=["tc"], settings=["zero-shot"], clusters=["arabic"])
    assert {j.cluster for j in by_cluster.jobs} == {"arabic"}


def test_data_problems_are_skips_with_reasons():
    plan = _plan(tasks=["tc", "ner"], varieties=["najdi arabic", "english"], settings=["zero-shot"])
    reasons = {(s.task, s.variety): s.reason for s in plan.skips}
    assert reasons[("tc", "najdi arabic")] == "no test split"
    assert "no data" in reasons[("ner", None)]


@pytest.mark.parametrize("kw, needle", [
    ({"tasks": ["pos", "tcx"]}, "Did you mean: tc"),
    ({"settings": ["zero_shot"]}, "Did you mean: zero-shot"),
    ({"varieties": ["egyptian arabc"]}, "egyptian arabic"),
    ({"clusters": ["arabik"]}, "arabic"),
])
def test_unknown_names_are_clear_errors_with_suggestions(kw, needle):
    with pytest.raises(PlanError) as err:
        _plan(**kw)
    assert needle in str(err.value)


def test_job_keys_are_stable_and_change_with_data_config_and_setting():
    keys = {j.variety: j.key for j in _plan(tasks=["tc"], settings=["zero-shot"]).jobs}
    again = {j.variety: j.key for j in _plan(tasks=["tc"], settings=["zero-shot"]).jobs}
    assert keys == again and len(set(keys.values())) == len(keys)
    other_seed = {j.variety: j.key for j in _plan(tasks=["tc"], settings=["zero-shot"], config={"seed": 1}).jobs}
    assert not set(other_seed.values()) & set(keys.values())
    source = FakeSource()
    source.data[("tc", "english")]["train"] = source.data[("tc", "english")]["train"][:-1]
    changed = {j.variety: j.key for j in build_plan(source, model="fake", tasks=["tc"], settings=["zero-shot"]).jobs}
    assert not set(changed.values()) & set(keys.values())


def test_split_names_keeps_commas_inside_variety_attributes():
    assert split_names(["pos,dep", "ner"]) == ["pos", "dep", "ner"]
    assert split_names(["english (a:uk), modern greek (r:casual, m:written, i:fb)"]) == [
        "english (a:uk)", "modern greek (r:casual, m:written, i:fb)"]
    assert split_names(None) is None
