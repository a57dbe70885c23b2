"""hf-causal backend mechanics on a tiny random causal LM built here (offline, a second or two):
batched log-likelihoods and generation equal their one-at-a-time versions, the chat template is used
only when asked for (the paper's text as it stands by default), and the runner stores loglikelihood scores
with their mode and no invalid."""

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
    cont = engine._tok(continuation.lstrip() if engine.chat() else continuation, add_special_tokens=False)["input_ids"]
    ids = torch.tensor([ctx + cont])
    with torch.inference_mode():
        logprobs = torch.log_softmax(engine._model(input_ids=ids).logits.float(), dim=-1)[0]
    return float(sum(logprobs[len(ctx) - 1 + j, t] for j, t in enumerate(cont)))


@pytest.mark.parametrize("chat", [False, True])
def test_batched_loglikelihood_and_generation_match_one_at_a_time(tmp_path, chat):
    folder = _tiny_lm(tmp_path / "lm", chat=chat)
    backend = get_backend(f"hf-causal:{folder}", device="cpu", batch_size=3, chat_template=chat)
    engine = backend.engine()
    assert engine.chat() is chat
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
    assert model.mode == "loglikelihood" and model.signature == "icl|hf-causal|mode:loglikelihood|k:2|chat:off"
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
    backend = get_backend(f"hf-causal:{folder}", device="cpu", mode=mode, max_tokens=3, log_samples=True,
                          chat_template=True)
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


def test_the_paper_prompt_as_it_stands_unless_a_template_or_system_prompt_is_asked_for(tmp_path):
    folder = _tiny_lm(tmp_path / "lm", chat=True)  # the tokenizer has a template: not used by default
    plain = get_backend(f"hf-causal:{folder}", device="cpu", k_shots=2, log_samples=True)
    model = plain.fit("sa", _train(), None, seed=0)
    ex = TextExample("x", "good food", "positive")
    model.predict([ex])
    assert model.last_samples[0]["prompt"] == model.prompt(ex)  # nothing added, nothing wrapped
    assert model.prompt(ex).startswith("In this task, you are given a piece of text. Your task is to classify "
                                       "the sentiment of the text based on its content.\n\nSentence: ")
    assert "Answer with one of" not in model.prompt(ex) and model.prompt(ex).endswith("Sentence: good food\n\nLabel:")
    system = get_backend(f"hf-causal:{folder}", device="cpu", k_shots=2, system_prompt="Be brief.")
    assert system.fit("sa", _train(), None, seed=0).engine.format("good") == "Be brief.\n\ngood"
    chat = get_backend(f"hf-causal:{folder}", device="cpu", k_shots=2, system_prompt="Be brief.", chat_template=True)
    chat_model = chat.fit("sa", _train(), None, seed=0)
    assert chat_model.engine.format("good") == "<|user|> Be brief. <|user|> good <|assistant|> "  # system turn
    assert chat_model.signature.endswith("|chat:on|system:" + __import__("hashlib").sha256(b"Be brief.").hexdigest()[:8])
    bare = _tiny_lm(tmp_path / "bare")
    with pytest.raises(ValueError, match="no chat template"):
        _ = get_backend(f"hf-causal:{bare}", device="cpu", chat_template=True).fit("sa", _train(), None, seed=0).signature


def test_acc_norm_ranks_by_log_probability_per_byte(tiny):
    backend = get_backend(f"hf-causal:{tiny}", device="cpu", k_shots=2)
    model = backend.fit("sa", _train(), None, seed=0)
    tests = [TextExample("x", "good service", "positive"), TextExample("y", "awful", "negative")]
    preds = model.predict(tests)
    assert model.last_rankings["acc"] == preds
    for pred_norm, sample in zip(model.last_rankings["acc_norm"], model.last_samples):
        per_byte = {lab: lp / len((" " + lab).encode()) for lab, lp in sample["reply"].items()}
        assert pred_norm == max(per_byte, key=per_byte.get)


def test_sampling_is_seeded_and_stop_strings_cut_the_reply(tiny):
    kw = {"device": "cpu", "mode": "generate", "max_tokens": 6, "temperature": 1.5}
    a = get_backend(f"hf-causal:{tiny}", **kw).fit("sa", _train(), None, seed=3)
    b = get_backend(f"hf-causal:{tiny}", **kw).fit("sa", _train(), None, seed=3)
    tests = [TextExample("x", "good food", "positive"), TextExample("y", "bad", "negative")]
    a.predict(tests)
    b.predict(tests)
    assert [s["reply"] for s in a.last_samples] == [s["reply"] for s in b.last_samples]
    assert "temperature:1.5|seed:3" in a.signature
    greedy = get_backend(f"hf-causal:{tiny}", device="cpu", mode="generate", max_tokens=6).fit("sa", _train(), None, seed=0)
    greedy.predict(tests)
    for sample in greedy.last_samples:
        words = sample["reply"].split()
        if len(words) > 1:  # stop at the second word: the reply is cut just before it
            cut = get_backend(f"hf-causal:{tiny}", device="cpu", mode="generate", max_tokens=6,
                              stop=[words[1]]).fit("sa", _train(), None, seed=0)
            cut.predict(tests)
            assert all(words[1] not in s["reply"] for s in cut.last_samples)
            break
