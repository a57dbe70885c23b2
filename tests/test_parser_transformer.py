"""The self-attention encoder under the biaffine head (ParserConfig.arch="transformer", issue 41)."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
import torch
from test_baseline_parser import synthetic_treebank

from dialectbench.backends.baseline import BaselineBackend, ParserConfig
from dialectbench.backends.parsing import is_single_root_tree

SMALL = ParserConfig(arch="transformer", word_dim=32, char_dim=16, char_filters=32, attn_dim=64,
                     attn_layers=2, attn_heads=4, attn_ffn=128, arc_hidden=64, label_hidden=32,
                     batch_tokens=400, max_epochs=8, patience=2, warmup_share=0.04, arc_max_distance=16,
                     threads=1)


@pytest.fixture(scope="module")
def fitted():
    train, dev = synthetic_treebank(300, 1), synthetic_treebank(40, 2)
    return BaselineBackend(parser=SMALL).fit("dep", train, dev, seed=0)


def test_the_attention_encoder_learns_the_grammar_and_pickles(fitted):
    test = synthetic_treebank(100, 3)
    pred = fitted.predict(test)
    total = sum(len(s.words) for s in test)
    uas = sum(h == g for s, (hs, _) in zip(test, pred) for h, g in zip(hs, s.heads)) / total
    assert uas > 0.90, uas
    assert all(is_single_root_tree(hs) and len(rs) == len(hs) for hs, rs in pred)
    assert pickle.loads(pickle.dumps(fitted)).predict(test) == pred


@pytest.mark.parametrize("conv_blocks", [0, 2])
def test_the_attention_encoder_ignores_the_padding_of_its_batch(fitted, conv_blocks):
    """A sentence's states are the same alone or padded in a batch with a longer one: padded keys get
    no attention weight, and the convolution blocks read padding as zeros."""
    if conv_blocks:
        config = dataclasses.replace(SMALL, attn_conv_blocks=conv_blocks, max_epochs=1)
        fitted = BaselineBackend(parser=config).fit("dep", synthetic_treebank(100, 1), None, seed=0)
    short, long_ = synthetic_treebank(30, 6)[0], max(synthetic_treebank(30, 7), key=lambda s: len(s.words))
    enc = fitted._encode([short, long_], train=False)
    states = [fitted.net.encoder(**{k: v for k, v in fitted._batch(enc, idx).items() if k != "mask"})
              for idx in ([0], [0, 1])]
    n = len(short.words) + 1
    assert states[1].shape[1] > n
    assert torch.allclose(states[0][0, :n], states[1][0, :n], atol=1e-5)


def test_the_same_seed_fits_the_same_attention_parser():
    train = synthetic_treebank(40, 3)
    config = dataclasses.replace(SMALL, attn_dim=16, attn_ffn=32, word_dim=8, char_dim=8, char_filters=8,
                                 arc_hidden=16, label_hidden=8, max_epochs=2)
    a, b = (BaselineBackend(parser=config).fit("dep", train, None, seed=0) for _ in range(2))
    assert [h["loss"] for h in a.history] == [h["loss"] for h in b.history]
    assert a.predict(train) == b.predict(train)


def test_the_attention_encoder_has_its_own_job_key_and_the_default_keeps_its_own():
    default = BaselineBackend().config["parser"]
    attn = BaselineBackend(parser=ParserConfig(arch="transformer")).config["parser"]
    assert not {k for k in default if k.startswith("attn_") or k == "arch"}
    # the BiLSTM as it was before issue 41: none of the fields added since enters its key
    before = ParserConfig(label_hidden=64, arc_max_distance=0, dropout=0.33, fast_dropout=False, lr=2e-3,
                          warmup_share=0.0, max_train_words=900_000)
    assert not {"warmup_share", "arc_max_distance", "fast_dropout", "upos_hidden", "upos_weight"} & set(
        BaselineBackend(parser=before).config["parser"])
    assert attn["arch"] == "transformer" and "attn_dim" in attn and "lstm_hidden" not in attn
    assert BaselineBackend(parser=ParserConfig(warmup_share=0.1)).config["parser"]["warmup_share"] == 0.1
    assert "attn_dim" not in BaselineBackend(parser=ParserConfig(arch="cnn")).config["parser"]


def test_without_the_arc_distance_score_the_head_has_its_old_parameters():
    """arc_max_distance=0 (the default) adds no parameter: parsers pickled before it load unchanged."""
    from dialectbench.backends.parsing import ParserHead

    assert set(ParserHead(8, 3, 8, 4).state_dict()) < set(ParserHead(8, 3, 8, 4, arc_max_distance=4).state_dict())
    assert not any("distance" in k for k in ParserHead(8, 3, 8, 4).state_dict())
