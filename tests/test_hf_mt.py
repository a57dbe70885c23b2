"""Seq2seq translation: learnability on a tiny T5, batched beam search, NLLB language codes."""

from __future__ import annotations

import pytest

from dialectbench.backends.hf import HFBackend, HFModelError, nllb_code, synthetic
from dialectbench.backends.hf.tiny import make_tiny_model


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    folder = make_tiny_model(tmp_path_factory.mktemp("t5"), "t5", synthetic.corpus(200), vocab_size=60)
    overrides = {"lr": 3e-3, "head_lr": 3e-3, "epochs": 30, "batch_size": 16, "max_new_tokens": 8, "num_beams": 3}
    return HFBackend(f"hf:{folder}", device="cpu", overrides=overrides).fit(
        "mt-dialect", synthetic.translation(300, 0, max_words=1), None, seed=0)


def test_translation_learns_the_substitution(trained):
    # one word per sentence: a tiny T5 does not learn word order reliably in a CPU test's budget
    test = synthetic.translation(60, 2, max_words=1)
    preds = trained.predict(test)
    # copying the source scores 0 here: every syllable maps to a different one
    assert sum(p == e.reference for p, e in zip(preds, test)) / len(test) >= 0.95
    assert not trained.needs_variety  # no language codes in a T5 tokenizer


def test_batched_beam_search_matches_one_by_one(trained):
    test = synthetic.translation(12, 3, max_words=3)
    batched = trained.predict(test)
    trained.predictor.batch_size = 1
    try:
        single = [trained.predict([e])[0] for e in test]
    finally:
        trained.predictor.batch_size = trained.cfg.eval_batch_size
    assert batched == single


def test_nllb_codes_from_the_registry():
    from dialectbench.tasks import representative
    from dialectbench.varieties import registry

    reg = registry()
    with_code = next(v for t in ("mt-dialect", "mt-region") for v in reg.varieties(task=t) if v.nllb_code)
    assert nllb_code(with_code.name, "mt-dialect") == with_code.nllb_code
    without = [v for v in reg.varieties(task="mt-dialect") if not v.nllb_code]
    for v in without:
        try:
            code = nllb_code(v.name, "mt-dialect")
        except HFModelError as err:
            assert v.cluster in str(err)
            continue
        assert code in {u.nllb_code for u in reg.varieties(cluster=v.cluster)}
        try:
            rep = representative(v.cluster, "mt-dialect")
        except (KeyError, ValueError, LookupError):
            continue
        if rep.nllb_code:
            assert code == rep.nllb_code


def test_every_mt_variety_has_an_nllb_source_code():
    """NLLB needs a source-language code for each MT input: the variety's own or its representative's."""
    from dialectbench.backends.hf import nllb_code
    from dialectbench.varieties import registry

    for variety in registry().varieties(task="mt"):
        task = "mt-dialect" if "mt-dialect" in variety.tasks else "mt-region"
        code = nllb_code(variety.name, task)
        assert code and "_" in code, (variety.name, code)
