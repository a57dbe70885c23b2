"""hf-causal backend mechanics on a tiny random causal LM built here (offline, a second or two):
batched log-likelihoods and generation equal their one-at-a-time versions, the chat template is used
when the tokenizer has one, and the runner stores loglikelihood scores with their mode and no invalid."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from dialectbench.backends import get_backend
from dialectbench.backends.base import InvalidAnswer
from dialectbench.data.examples import TextExample

WORDS = ["in", "this", "task", "you", "are", "given", "a", "piece", "of", "text", "your", "task", "is", "to", "classify", "the", "sentiment", "based", "on", "its", "content", "answer", "with", "one", "negative", "positive", "sentence", "label", "good", "bad", "great", "awful", "food", "service"]
CHAT = ("{% for m in messages %}<|user|> {{ m['content'] }} {% endfor %}"
        "{% if add_generation_prompt %}<|assistant|> {% endif %}")


def _tiny_lm(folder, *, chat: bool = False):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    specials = ["<pad>", "<unk>", "<s>", "</s>", "<|user|>", "<|assistant|>"]
    vocab = {w: i for i, w in enumerate(specials + sorted(set(WORDS) | set(".,:;!?")))}
    core = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="<unk>", pad_token="<pad>", bos_token="<s>",
                                  eos_token="</s>")
    if chat:
        tok.chat_template = CHAT
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=512,
                         pad_token_id=0, bos_token_id=2, eos_token_id=3)
    LlamaForCausalLM(config).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return _tiny_lm(tmp_path_factory.mktemp("tiny-lm"))


def _train():
    rows = [("good food", "positive"), ("bad service", "negative"), ("great service", "positive"),
            ("awful food", "negative"), ("good service", "positive"), ("bad food", "negative")]
    return [TextExample(f"t{i}", text, label) for i, (text, label) in enumerate(rows)]


def _unbatched_logprob(engine, context: str, continuation: str) -> float:
    ctx = engine._encode(engine.format(context))
    cont = engine._tok(continuation.lstrip() if engine.chat else continuation, add_special_tokens=False)["input_ids"]
    ids = torch.tensor([ctx + cont])
    with torch.inference_mode():
        logprobs = torch.log_softmax(engine._model(input_ids=ids).logits.float(), dim=-1)[0]
    return float(sum(logprobs[len(ctx) - 1 + j, t] for j, t in enumerate(cont)))


@pytest.mark.parametrize("chat", [False, True])
def test_batched_loglikelihood_and_generation_match_one_at_a_time(tmp_path, chat):
    folder = _tiny_lm(tmp_path / "lm", chat=chat)
    backend = get_backend(f"hf-causal:{folder}", device="cpu", batch_size=3)
    engine = backend.engine()
    assert engine.chat is chat
    pairs = [("sentence : good food label :", " positive"), ("sentence : bad label :", " negative"),
             ("a piece of text , your task is to classify the sentiment . label :", " positive"),
             ("label :", " negative positive"), ("sentence : great service", " good")]
    batched = engine.loglikelihood(pairs, None)
    single = [_unbatched_logprob(engine, c, x) for c, x in pairs]
    assert batched == pytest.approx(single, abs=1e-4)  # right padding does not leak into the scores
    assert len({round(v, 3) for v in batched}) > 1
    prompts = ["good food", "a piece of text your task is to classify", "bad"]
    together = engine.generate(prompts, 5, None)
    engine.batch_size = 1
    assert together == [engine.generate([p], 5, None)[0] for p in prompts]  # left padding is right
    if chat:
        assert engine.format("good").startswith("<|user|> good") and engine.format("good").endswith("<|assistant|> ")


def test_loglikelihood_prediction_is_the_best_label(tiny):
    backend = get_backend(f"hf-causal:{tiny}", device="cpu", k_shots=2)
    model = backend.fit("sa", _train(), None, seed=0)
    assert model.mode == "loglikelihood" and model.signature == "icl|hf-causal|mode:loglikelihood|k:2"
    tests = [TextExample("x", "good service", "positive"), TextExample("y", "awful", "negative")]
    preds = model.predict(tests)
    for ex, pred in zip(tests, preds):
        prompt = model.prompt(ex)
        scores = {lab: _unbatched_logprob(backend.engine(), prompt, " " + lab) for lab in ("negative", "positive")}
        assert pred == max(scores, key=scores.get)


def test_runner_stores_icl_scores_with_mode_and_cache(tiny, tmp_path):
    from dialectbench.backends.llm.cache import cached_requests
    from dialectbench.runner import Store, run

    store = tmp_path / "s.db"
    result = run(tasks=["sa"], settings=["icl"], model=f"hf-causal:{tiny}", store=store,
                 backend_options={"batch_size": 4})
    assert result.counts["done"] > 0 and not result.counts["failed"]
    with Store(store) as db:
        rows = db.scores(detail=True)
        for row in rows:
            assert row["signature"].startswith("icl|hf-causal|mode:loglikelihood|k:4|")
            extra = json.loads(db.conn.execute("SELECT extra FROM scores WHERE job_key = ?",
                                               (row["job_key"],)).fetchone()[0])
            assert extra["invalid"] == 0  # loglikelihood answers every example
    cached = cached_requests(store)
    assert cached and {c["endpoint"] for c in cached} == {"loglikelihood"}
    assert all(isinstance(c["response"], float) for c in cached)


def test_generate_mode_counts_invalid_answers(tiny):
    backend = get_backend(f"hf-causal:{tiny}", device="cpu", mode="generate", max_tokens=3)
    model = backend.fit("sa", _train(), None, seed=0)
    preds = model.predict([TextExample("x", "good food", "positive"), TextExample("y", "bad", "negative")])
    for pred, sample in zip(preds, model.last_samples):  # a random model: whatever it says is parsed
        if isinstance(pred, InvalidAnswer):
            assert not any(lab in (sample["reply"] or "").lower() for lab in ("negative", "positive"))
        else:
            assert pred in sample["reply"].lower()


def test_source_resolution_and_errors(tmp_path):
    from dialectbench.backends.hf_causal import resolve_source

    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "m.gguf").write_bytes(b"")
    assert resolve_source(str(tmp_path / "one")) == (str((tmp_path / "one").resolve()), "m.gguf")
    assert resolve_source(str(tmp_path / "one" / "m.gguf")) == (str((tmp_path / "one").resolve()), "m.gguf")
    assert resolve_source("org/model") == ("org/model", None)
    (tmp_path / "one" / "n.gguf").write_bytes(b"")
    with pytest.raises(ValueError, match="2 .gguf files"):
        resolve_source(str(tmp_path / "one"))
    with pytest.raises(ValueError, match="dtype"):
        get_backend("hf-causal:org/model", dtype="int3")


@pytest.mark.parametrize("mode", ["loglikelihood", "generate"])
def test_logged_samples_are_what_the_model_read_and_said(tmp_path, mode):
    folder = _tiny_lm(tmp_path / "lm", chat=True)
    backend = get_backend(f"hf-causal:{folder}", device="cpu", mode=mode, max_tokens=3, log_samples=True)
    model = backend.fit("sa", _train(), None, seed=0)
    tests = [TextExample("x", "good food", "positive"), TextExample("y", "bad", "negative")]
    preds = model.predict(tests)
    engine = backend.engine()
    for ex, pred, sample in zip(tests, preds, model.last_samples):
        assert sample["prompt"] == engine.format(model.prompt(ex))  # the chat-formatted text, exactly
        if mode == "loglikelihood":  # every label with its summed log-probability; the best one predicted
            assert set(sample["reply"]) == {"negative", "positive"}
            assert pred == max(sample["reply"], key=sample["reply"].get)
        else:
            assert sample["reply"] == engine.generate([model.prompt(ex)], 3, None)[0]
