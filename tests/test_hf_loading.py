"""HF backend: model names, the checks that fail before training, batching and the fast predictor."""

from __future__ import annotations

import json

import pytest
import torch

from dialectbench.backends.base import TrainingDataError, UnsupportedTaskError
from dialectbench.backends.hf import (
    HFBackend,
    HFModelError,
    Predictor,
    collate,
    resolve,
    synthetic,
    task_config,
)
from dialectbench.backends.hf import backend as backend_mod
from dialectbench.backends.hf.tiny import make_tiny_model
from dialectbench.data.examples import TextExample


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return make_tiny_model(tmp_path_factory.mktemp("bert"), "bert", synthetic.corpus(200), vocab_size=80, hidden=32)


@pytest.fixture(scope="module")
def tiny_marian(tmp_path_factory):
    return make_tiny_model(tmp_path_factory.mktemp("marian"), "marian", synthetic.corpus(200), vocab_size=80,
                           hidden=32)


@pytest.fixture
def no_training(monkeypatch):
    """Any check that should fail first must fail before fine-tuning starts."""
    def boom(*args, **kwargs):
        raise AssertionError("training started before the check failed")
    monkeypatch.setattr(backend_mod, "fine_tune", boom)


def test_presets_and_specs(tmp_path):
    assert resolve("xlmr").source == "xlm-roberta-base"
    assert resolve(" MBERT ").source == "bert-base-multilingual-cased"
    assert resolve("nllb-600m").source == "facebook/nllb-200-distilled-600M"
    assert resolve("nllb-1.3b").source == "facebook/nllb-200-1.3B"
    assert resolve("hf:org/model").source == "org/model"
    assert not resolve("hf:org/model").trust_remote_code
    with pytest.raises(HFModelError, match="does not exist"):
        resolve(f"hf:{tmp_path}/missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(HFModelError, match="config.json"):
        resolve(f"hf:{tmp_path}/empty")
    with pytest.raises(HFModelError, match="not a Hugging Face model"):
        resolve("baseline")


def test_missing_hub_model_fails_clearly(no_training, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    backend = HFBackend("hf:dialectbench-test/no-such-model-xyz", device="cpu")
    with pytest.raises(HFModelError, match="not in the local Hugging Face cache"):
        backend.fit("sa", synthetic.texts(4), None)


def test_config_comes_from_the_local_cache_before_the_hub_and_the_hub_client_is_quiet(monkeypatch):
    # offline, asking the hub first cost ~25 s and ten 'Retrying in 8s' lines before the one-line error
    import transformers
    from huggingface_hub.utils import logging as hub_logging

    from dialectbench.backends.hf.loading import load_config, resolve

    calls, levels = [], []

    def from_pretrained(source, **kwargs):
        calls.append(kwargs.get("local_files_only", False))
        levels.append(hub_logging.get_verbosity())
        if len(calls) == 1 and cached is False:
            raise OSError("not in the cache")
        return "config"

    monkeypatch.setattr(transformers.AutoConfig, "from_pretrained", from_pretrained)
    before = hub_logging.get_verbosity()
    for cached, want in ((True, [True]), (False, [True, False])):
        calls.clear()
        assert load_config(resolve("hf:org/model")) == "config"
        assert calls == want
    assert set(levels) == {hub_logging.ERROR} and hub_logging.get_verbosity() == before


def test_model_without_the_needed_head(tiny_bert, tiny_marian, no_training):
    with pytest.raises(HFModelError, match="sequence-to-sequence"):
        HFBackend(f"hf:{tiny_bert}", device="cpu").fit("mt-dialect", synthetic.translation(4), None)
    with pytest.raises(HFModelError, match="token-classification"):
        HFBackend(f"hf:{tiny_marian}", device="cpu").fit("pos", synthetic.tagging(4), None)


def test_tokenizer_model_mismatch(tiny_bert, tmp_path, no_training):
    folder = tmp_path / "mismatch"
    folder.mkdir()
    for f in tiny_bert.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    config = json.loads((folder / "config.json").read_text())
    config["vocab_size"] = 10
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(HFModelError, match="tokenizer/model mismatch"):
        HFBackend(f"hf:{folder}", device="cpu").fit("sa", synthetic.texts(4), None)


def test_bad_training_data(tiny_bert, no_training):
    backend = HFBackend(f"hf:{tiny_bert}", device="cpu")
    with pytest.raises(TrainingDataError, match="empty"):
        backend.fit("pos", [], None)
    with pytest.raises(TrainingDataError, match="expected Sentence/TaggedSentence"):
        backend.fit("pos", synthetic.texts(3), None)
    with pytest.raises(TrainingDataError, match="label"):
        backend.fit("sa", [TextExample("a", "x", "pos"), TextExample("b", "y", "pos")], None)
    with pytest.raises(UnsupportedTaskError):
        backend.fit("asr", synthetic.texts(3), None)


def test_options_are_checked_and_keyed():
    assert task_config("pos", {"epochs": 1, "ner": {"epochs": 7}}).epochs == 1
    assert task_config("ner", {"ner": {"epochs": 7}}).epochs == 7
    with pytest.raises(KeyError, match="epoch"):
        HFBackend("xlmr", overrides={"epoch": 1})
    a, b = HFBackend("xlmr", device="cpu"), HFBackend("xlmr", device="cpu", overrides={"lr": 1e-5})
    assert a.config != b.config and a.config["model"] == "xlm-roberta-base"


def test_collate_pads_per_batch_only():
    feats = [{"input_ids": [5, 6, 7], "attention_mask": [1, 1, 1], "labels": [1, 2, 3], "meta": "x"},
             {"input_ids": [5], "attention_mask": [1], "labels": [4]}]
    batch = collate(feats, pad_id=0)
    assert batch["input_ids"].tolist() == [[5, 6, 7], [5, 0, 0]]
    assert batch["labels"].tolist() == [[1, 2, 3], [4, -100, -100]]
    assert "meta" not in batch
    options = collate([{"input_ids": [[1, 2], [3]], "option_mask": [1, 1]},
                       {"input_ids": [[4], [5], [6, 7, 8]], "option_mask": [1, 1, 1]}], pad_id=0)
    assert options["input_ids"].shape == (2, 3, 3)
    assert options["option_mask"].tolist() == [[1, 1, 0], [1, 1, 1]]


def test_predictor_sorts_restores_order_and_backs_off(monkeypatch):
    feats = [{"input_ids": list(range(n))} for n in (3, 9, 1, 5, 7, 2)]
    widths: list[int] = []

    def step(batch, chunk):
        widths.append(batch["input_ids"].shape[1])
        if len(chunk) > 2:
            raise torch.cuda.OutOfMemoryError("fake")
        return [len(f["input_ids"]) for f in chunk]

    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: None)
    predictor = Predictor("cpu", batch_size=4)
    assert predictor.run(feats, step, pad_id=0) == [3, 9, 1, 5, 7, 2]
    assert predictor.batch_size == 2  # halved once and kept
    assert widths[1:] == [9, 5, 2]  # longest first: each batch pads to its own longest input
