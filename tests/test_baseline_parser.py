"""The baseline dependency parser learns a synthetic grammar and always outputs single-root trees."""

from __future__ import annotations

import pickle
import random

import pytest

from dialectbench.backends.base import TrainingDataError
from dialectbench.backends.baseline import BaselineBackend, ParserConfig
from dialectbench.backends.parsing import is_single_root_tree
from dialectbench.data.examples import Sentence

# small network so the file trains in seconds on one shared core
SMALL = ParserConfig(word_dim=32, char_dim=16, char_filters=32, lstm_hidden=64, arc_hidden=64,
                     label_hidden=32, batch_tokens=400, max_epochs=8, patience=2,
                     threads=1)


def _lexicon(rng: random.Random) -> dict[str, list[str]]:
    def words(k, stem):
        return [f"{stem}{rng.choice('aeiou')}{i}{rng.choice('kmst')}" for i in range(k)]
    return {"D": ["the", "a", "this"], "A": words(10, "ad"), "N": words(30, "no"), "V": words(12, "ve"),
            "Pv": ["with", "by"], "Pn": ["of", "from"]}


def _np(lex, rng, head_of_np: int, start: int, rel: str) -> tuple[list, int]:
    """Noun phrase D A* N attached (by its noun) to `head_of_np`; returns tokens and the noun position."""
    n_adj = rng.choice([0, 0, 1, 2])
    noun = start + 1 + n_adj
    toks = [(rng.choice(lex["D"]), "D", noun, "det")]
    toks += [(rng.choice(lex["A"]), "A", noun, "amod") for _ in range(n_adj)]
    toks.append((rng.choice(lex["N"]), "N", head_of_np, rel))
    return toks, noun


def synthetic_treebank(n: int, seed: int) -> list[Sentence]:
    """S -> NP V NP (P NP)*: a "with/by" PP attaches to the verb (obl), an "of/from" PP to the noun
    before it (nmod), so heads depend on words and on structure, not on position alone."""
    rng = random.Random(seed)
    lex = _lexicon(random.Random(0))
    out = []
    for k in range(n):
        toks, _ = _np(lex, rng, 0, 1, "nsubj")  # the verb's position is known only now: fix the head
        verb = len(toks) + 1
        toks = [(w, t, verb if r == "nsubj" else h, r) for w, t, h, r in toks]
        toks.append((rng.choice(lex["V"]), "V", 0, "root"))
        obj, last_noun = _np(lex, rng, verb, len(toks) + 1, "obj")
        toks += obj
        for _ in range(rng.choice([0, 1, 1, 2])):
            to_verb = rng.random() < 0.5
            prep = rng.choice(lex["Pv" if to_verb else "Pn"])
            pp, noun = _np(lex, rng, verb if to_verb else last_noun, len(toks) + 2, "obl" if to_verb else "nmod")
            toks.append((prep, "P", noun, "case"))
            toks += pp
            last_noun = noun
        words, tags, heads, rels = zip(*toks)
        out.append(Sentence(f"syn-{seed}-{k}", words, tags, heads, rels))
    return out


def test_synthetic_treebank_is_well_formed():
    for s in synthetic_treebank(50, 1):
        assert is_single_root_tree(s.heads), s


@pytest.fixture(scope="module")
def fitted():
    train, dev = synthetic_treebank(300, 1), synthetic_treebank(40, 2)
    return BaselineBackend(parser=SMALL).fit("dep", train, dev, seed=0)


def test_learns_synthetic_grammar(fitted):
    test = synthetic_treebank(100, 3)
    pred = fitted.predict(test)
    total = sum(len(s.words) for s in test)
    uas = sum(h == g for s, (hs, _) in zip(test, pred) for h, g in zip(hs, s.heads)) / total
    las = sum(h == g and r == gr for s, (hs, rs) in zip(test, pred)
              for h, r, g, gr in zip(hs, rs, s.heads, s.deprels)) / total
    assert uas > 0.90 and las > 0.85, (uas, las)
    assert all(is_single_root_tree(hs) and len(rs) == len(hs) for hs, rs in pred)


def test_unseen_words_and_empty_sentence(fitted):
    odd = Sentence("x", ("zzq", "the", "qqz", "of", "a", "x9"), ("X",) * 6, (0,) * 6, ("dep",) * 6)
    empty = Sentence("e", (), (), (), ())
    one = Sentence("o", ("no",), ("N",), (0,), ("root",))
    (heads, rels), (eh, er), (oh, _) = fitted.predict([odd, empty, one])
    assert is_single_root_tree(heads) and len(rels) == 6
    assert (eh, er) == ((), ()) and oh == (0,)


def test_pickle_round_trip_predicts_the_same(fitted, tmp_path):
    test = synthetic_treebank(10, 4)
    path = tmp_path / "parser.pkl"
    fitted.save(path)
    again = type(fitted).load(path)
    assert again.predict(test) == fitted.predict(test)
    assert pickle.loads(pickle.dumps(fitted)).predict(test[:2]) == fitted.predict(test[:2])


def test_without_dev_training_goes_on_while_the_loss_falls():
    """No dev split: patience watches the training loss, which falls here every epoch, so the fit runs
    its max_epochs (a bug once stopped every such treebank after `patience` epochs)."""
    config = ParserConfig(word_dim=8, char_dim=8, char_filters=8, lstm_hidden=16, arc_hidden=16, label_hidden=8,
                          max_epochs=6, patience=2, threads=1)
    model = BaselineBackend(parser=config).fit("dep", synthetic_treebank(40, 3), None)
    losses = [h["loss"] for h in model.history]
    assert len(losses) == 6 and losses[-1] < losses[0]


def test_tiny_training_set_and_errors():
    tiny = ParserConfig(word_dim=8, char_dim=8, char_filters=8, lstm_hidden=8, arc_hidden=8, label_hidden=8,
                        max_epochs=2, min_steps_per_epoch=3, threads=1)
    train = synthetic_treebank(3, 5)
    model = BaselineBackend(parser=tiny).fit("dep", train, None)
    assert all(is_single_root_tree(h) for h, _ in model.predict(train))
    with pytest.raises(TrainingDataError, match="empty"):
        BaselineBackend(parser=tiny).fit("dep", [], None)
    bad = Sentence("bad", ("a", "b"), ("X", "X"), (0, 7), ("root", "dep"))
    with pytest.raises(TrainingDataError, match="bad"):
        BaselineBackend(parser=tiny).fit("dep", [bad], None)


def test_the_parser_fit_estimate_follows_its_epochs_and_work_budget():
    """What a fit will cost, for scheduling: max_epochs passes capped at max_train_words, so a treebank
    1/6 the size of UD_English-EWT (14.2 MB) costs as much; a tiny one costs its min_steps_per_epoch
    updates per epoch (its data repeated); other tasks are left to the runner (proportional to data)."""
    backend = BaselineBackend()
    ewt = backend.fit_weight("dep", 14.2e6)
    assert backend.fit_weight("dep", 14.2e6 / 6) == ewt
    assert backend.fit_weight("dep", 14.2e6 / 100) < ewt
    tiny, small = 5_000, 14.2e6 / 100  # a tiny set: one batch a pass, repeated to min_steps_per_epoch updates
    assert backend.fit_weight("dep", tiny) / tiny > backend.fit_weight("dep", small) / small > 0
    uncapped = BaselineBackend(parser=ParserConfig(max_train_words=None))
    assert uncapped.fit_weight("dep", 14.2e6) > ewt
    assert backend.fit_weight("pos", 1e6) is None
    # with a dev split, patience stops a small treebank's fit after a few epochs (the ETA expects it);
    # UD_English-EWT's fit ends on its work budget first either way
    assert backend.fit_weight("dep", small, dev=True) < backend.fit_weight("dep", small) / 3
    assert backend.fit_weight("dep", 14.2e6, dev=True) == ewt


SMALL_CNN = ParserConfig(arch="cnn", word_dim=32, char_dim=16, char_filters=32, conv_dim=64,
                         conv_dilations=(1, 2, 4), arc_hidden=64, label_hidden=32, batch_tokens=400,
                         max_epochs=8, patience=2, threads=1)


@pytest.fixture(scope="module")
def fitted_cnn():
    train, dev = synthetic_treebank(300, 1), synthetic_treebank(40, 2)
    return BaselineBackend(parser=SMALL_CNN).fit("dep", train, dev, seed=0)


def test_the_convolutional_encoder_learns_the_grammar_and_pickles(fitted_cnn):
    test = synthetic_treebank(100, 3)
    pred = fitted_cnn.predict(test)
    total = sum(len(s.words) for s in test)
    uas = sum(h == g for s, (hs, _) in zip(test, pred) for h, g in zip(hs, s.heads)) / total
    assert uas > 0.90, uas
    assert all(is_single_root_tree(hs) and len(rs) == len(hs) for hs, rs in pred)
    assert pickle.loads(pickle.dumps(fitted_cnn)).predict(test) == pred


def test_the_convolutional_encoder_ignores_the_padding_of_its_batch(fitted_cnn):
    """A sentence's states are the same alone or padded in a batch with a longer one (positions past its
    end are zeroed before every block, so the dilated convolutions never read them)."""
    import torch

    short, long_ = synthetic_treebank(30, 6)[0], max(synthetic_treebank(30, 7), key=lambda s: len(s.words))
    parser = fitted_cnn
    enc = parser._encode([short, long_], train=False)
    states = [parser.net.encoder(**{k: v for k, v in parser._batch(enc, idx).items() if k != "mask"})
              for idx in ([0], [0, 1])]
    n = len(short.words) + 1
    assert torch.allclose(states[0][0, :n], states[1][0, :n], atol=1e-5)


def test_the_same_seed_fits_the_same_convolutional_parser():
    train = synthetic_treebank(40, 3)
    config = ParserConfig(arch="cnn", word_dim=8, char_dim=8, char_filters=8, conv_dim=16, arc_hidden=16,
                          label_hidden=8, max_epochs=2, threads=1)
    a, b = (BaselineBackend(parser=config).fit("dep", train, None, seed=0) for _ in range(2))
    assert [h["loss"] for h in a.history] == [h["loss"] for h in b.history]
    assert a.predict(train) == b.predict(train)


def test_each_encoder_has_its_own_job_key_and_the_bilstm_keeps_its_old_one():
    """A score of one encoder is never reused as the other's; the BiLSTM's key holds no new field, so
    the scores stored before the convolutional encoder existed (all BiLSTM) stay valid."""
    bilstm = BaselineBackend(parser=ParserConfig(arch="bilstm")).config["parser"]
    cnn = BaselineBackend(parser=ParserConfig(arch="cnn")).config["parser"]
    assert bilstm != cnn and cnn["arch"] == "cnn"
    assert not {"arch", "conv_dim", "conv_dilations"} & set(bilstm)
    assert "lstm_hidden" in bilstm and "lstm_hidden" not in cnn
    with pytest.raises(ValueError, match="unknown encoder"):
        BaselineBackend(parser=ParserConfig(arch="nope", threads=1)).fit("dep", synthetic_treebank(3, 5), None)


def test_fast_dropout_learns_the_grammar_is_deterministic_and_keeps_the_default_key():
    """ParserConfig.fast_dropout (issue 41): other masks than nn.Dropout's, so its own job key, but at
    its default (off) the key is the one stored scores were made under."""
    import dataclasses

    config = dataclasses.replace(SMALL, lstm_layers=2, fast_dropout=True)
    train, dev, test = synthetic_treebank(300, 1), synthetic_treebank(40, 2), synthetic_treebank(100, 3)
    a, b = (BaselineBackend(parser=config).fit("dep", train, dev, seed=0) for _ in range(2))
    assert [h["loss"] for h in a.history] == [h["loss"] for h in b.history]
    pred = a.predict(test)
    total = sum(len(s.words) for s in test)
    assert sum(h == g for s, (hs, _) in zip(test, pred) for h, g in zip(hs, s.heads)) / total > 0.90
    assert pickle.loads(pickle.dumps(a)).predict(test) == pred
    # off (its value before issue 41) it stays out of the key stored scores were made under
    assert "fast_dropout" not in BaselineBackend(parser=dataclasses.replace(SMALL, fast_dropout=False)).config["parser"]
    assert BaselineBackend(parser=config).config["parser"]["fast_dropout"] is True


def test_mask_dropout_keeps_the_expectation_and_is_off_in_eval():
    import torch

    from dialectbench.backends.parsing import MaskDropout

    drop = MaskDropout(0.25)
    torch.manual_seed(0)
    x = torch.ones(200, 500)
    y = drop(x)
    assert torch.equal(y.unique(), torch.tensor([0.0, 1 / 0.75]))
    assert abs(float((y == 0).float().mean()) - 0.25) < 0.01
    assert torch.equal(drop.eval()(x), x)


def test_the_parsers_encoder_tags_upos(fitted):
    """predict_upos reads the auxiliary UPOS classifier (issue 41's joint tagger-parser measurement): on
    the synthetic grammar the tags follow from the lexicon, so it must get nearly all right."""
    test = [*synthetic_treebank(50, 3), Sentence("empty", (), (), (), ())]
    tags = fitted.predict_upos(test)
    assert tags[-1] == () and [len(t) for t in tags] == [len(s.words) for s in test]
    right = sum(p == g for s, ts in zip(test, tags) for p, g in zip(ts, s.upos))
    assert right / sum(len(s.words) for s in test) > 0.95


def test_warmup_then_decay_schedule_and_the_default_schedule_unchanged():
    """ParserConfig.warmup_share (issue 41): the lr rises linearly to `lr` over the warmup words, then the
    linear decay to 0 over the planned words goes on as before; at 0 (the default) the schedule is
    today's lr * (1 - words / planned), from the first update on."""
    import torch

    from dialectbench.backends.baseline.parser import _Budget

    def lrs(warmup: int, decay: bool) -> list[float]:
        opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        budget = _Budget(ParserConfig(max_train_words=None))
        budget.schedule = (opt, 1.0, 100 if decay else None, warmup)
        budget.set_lr(0)
        out = [opt.param_groups[0]["lr"]]
        for _ in range(4):
            budget.spend(20)
            out.append(opt.param_groups[0]["lr"])
        return out

    assert lrs(0, True) == pytest.approx([1.0, 0.8, 0.6, 0.4, 0.2])
    assert lrs(0, False) == [1.0] * 5
    assert lrs(40, False) == pytest.approx([1 / 40, 21 / 40, 1.0, 1.0, 1.0])
    assert lrs(40, True) == pytest.approx([1 / 40, 21 / 40 * 0.8, 0.6, 0.4, 0.2])


def test_the_warmup_is_a_share_of_the_words_each_fit_plans(monkeypatch):
    """warmup_share scales with the fit: the same share is a short warmup on a small treebank and a long
    one on a large one (a fixed 20k-word warmup took 27% of a tiny treebank's fit)."""
    import dataclasses

    from dialectbench.backends.baseline import parser as parser_mod

    seen = []
    set_lr = parser_mod._Budget.set_lr

    def spy(self, words):
        seen.append(self.schedule[2:])
        return set_lr(self, words)

    monkeypatch.setattr(parser_mod._Budget, "set_lr", spy)
    config = dataclasses.replace(SMALL, warmup_share=0.1, max_epochs=1)
    warmups = []
    for n in (40, 400):
        seen.clear()
        train = synthetic_treebank(n, 1)
        model = BaselineBackend(parser=config).fit("dep", train, None, seed=0)
        planned = model._planned_words(train)
        assert seen[0] == pytest.approx((planned, 0.1 * planned))
        warmups.append(seen[0][1])
    assert warmups[1] > 2 * warmups[0]


def test_the_upos_mlp_head_tags_the_grammar_and_new_fields_keep_the_default_key():
    """upos_hidden / upos_weight / warmup_share (issue 41, joint tagger-parser and larger steps): at their
    values before issue 41 the job key is the one stored scores were made under, any other value enters it; the MLP
    tag head learns the synthetic grammar's tags and is deterministic."""
    import dataclasses

    from torch import nn

    config = dataclasses.replace(SMALL, upos_hidden=32, upos_weight=2.0, warmup_share=0.05)
    key = BaselineBackend(parser=dataclasses.replace(SMALL, warmup_share=0.0)).config["parser"]
    assert not {"upos_hidden", "upos_weight", "warmup_share"} & set(key)
    new_key = BaselineBackend(parser=config).config["parser"]
    assert (new_key["upos_hidden"], new_key["upos_weight"], new_key["warmup_share"]) == (32, 2.0, 0.05)
    train, dev = synthetic_treebank(300, 1), synthetic_treebank(40, 2)
    a, b = (BaselineBackend(parser=config).fit("dep", train, dev, seed=0) for _ in range(2))
    assert isinstance(a.net.encoder.upos, nn.Sequential)
    assert [h["loss"] for h in a.history] == [h["loss"] for h in b.history]
    test = synthetic_treebank(50, 3)
    tags = a.predict_upos(test)
    assert sum(p == g for s, ts in zip(test, tags) for p, g in zip(ts, s.upos)) / sum(len(s.words) for s in test) > 0.95
    assert pickle.loads(pickle.dumps(a)).predict_upos(test) == tags
