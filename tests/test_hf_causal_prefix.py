"""The hf-causal shared-prefix path (prefix_cache, the default) against the full-prompt path on tiny random
causal LMs built here (offline): same predictions, log-probabilities within 1e-4, same generated replies,
with and without a BOS token, with a chat template, single- and multi-token labels, several jobs in a row."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from dialectbench.backends import get_backend
from dialectbench.data.examples import TextExample

WORDS = ["in", "this", "task", "you", "are", "given", "a", "piece", "of", "text", "your", "is", "to", "classify",
         "the", "sentiment", "based", "on", "its", "content", "answer", "with", "one", "negative", "positive",
         "neutral", "sentence", "label", "good", "bad", "great", "awful", "food", "service", "very", "not"]
CHAT = ("{% for m in messages %}<|user|> {{ m['content'] }} {% endfor %}"
        "{% if add_generation_prompt %}<|assistant|> {% endif %}")


def _tiny_lm(folder, *, bos: bool, chat: bool = False, split_labels: bool = False):
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    specials = ["<pad>", "<unk>", "<s>", "</s>", "<|user|>", "<|assistant|>"]
    words = sorted(set(WORDS) | set(".,:;!?"))
    if split_labels:  # "negative" is not a word of its own: the label takes two tokens ("neg", "ative")
        words = [w for w in words if w != "negative"] + ["neg", "ative"]
    vocab = {w: i for i, w in enumerate(specials + words)}
    core = Tokenizer(models.WordPiece(vocab, unk_token="<unk>", continuing_subword_prefix="")) if split_labels \
        else Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    if bos:
        core.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 2)])
    tok = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="<unk>", pad_token="<pad>",
                                  bos_token="<s>" if bos else None, eos_token="</s>")
    if chat:
        tok.chat_template = CHAT
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                         pad_token_id=0, bos_token_id=2 if bos else None, eos_token_id=3)
    LlamaForCausalLM(config).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


TRAIN = [("good food", "positive"), ("bad service", "negative"), ("great service", "positive"),
         ("awful food", "negative"), ("the food", "neutral"), ("good service", "positive"),
         ("bad food", "negative"), ("the service", "neutral"), ("very good food", "positive")]
TEST = ["good", "very bad service", "not great food", "the sentiment of the food", "awful awful service",
        "food", "great", "not bad", "service is good , food is bad"]


def _train():
    return [TextExample(f"t{i}", text, label) for i, (text, label) in enumerate(TRAIN)]


def _tests():
    return [TextExample(f"x{i}", text, "positive") for i, text in enumerate(TEST)]


def _both(folder, **kw):
    return [get_backend(f"hf-causal:{folder}", device="cpu", batch_size=3, prefix_cache=cached, **kw)
            for cached in (True, False)]


@pytest.mark.parametrize("bos,chat,split_labels", [(True, False, False), (False, False, False),
                                                   (True, True, False), (False, False, True)])
def test_cached_prefix_gives_the_full_prompt_numbers(tmp_path, bos, chat, split_labels):
    folder = _tiny_lm(tmp_path / "lm", bos=bos, chat=chat, split_labels=split_labels)
    cached, full = _both(folder, chat_template=chat, log_samples=True)
    engine = cached.engine()
    engine.load()
    assert (engine._tok("good")["input_ids"][0] == 2) is bos  # the BOS variant really starts with one
    for k, seed in ((4, 0), (2, 1), (0, 0)):  # jobs in a row: a new prefix replaces the kept one
        for backend in (cached, full):
            backend.k_shots = k
        models = [b.fit("sa", _train(), None, seed=seed) for b in (cached, full)]
        assert len(models[0].demos) == k
        preds = [m.predict(_tests()) for m in models]
        assert preds[0] == preds[1]
        for x, y in zip(models[0].last_samples, models[1].last_samples):
            assert x["prompt"] == y["prompt"]
            assert x["reply"].keys() == y["reply"].keys()
            assert list(x["reply"].values()) == pytest.approx(list(y["reply"].values()), abs=1e-4)
        assert len({round(v, 3) for s in models[0].last_samples for v in s["reply"].values()}) > 3
    if split_labels:
        assert len(engine._tok(" negative", add_special_tokens=False)["input_ids"]) == 2


@pytest.mark.parametrize("bos", [True, False])
def test_cached_prefix_generation_and_stop_strings(tmp_path, bos):
    folder = _tiny_lm(tmp_path / "lm", bos=bos)
    for stop in ((), (".",), ("food", "good")):
        cached, full = _both(folder, mode="generate", max_tokens=8, stop=stop, log_samples=True)
        replies = []
        for backend in (cached, full):
            model = backend.fit("sa", _train(), None, seed=0)
            model.predict(_tests())
            replies.append([s["reply"] for s in model.last_samples])
        assert replies[0] == replies[1]
        assert all(not any(s in r for s in stop) for r in replies[0])
    assert cached.engine()._joinable()  # the batches' caches were joined to decode together


@pytest.mark.parametrize("batch_size", [1, 2])
def test_joined_decoding_with_rows_of_one_own_token(tmp_path, batch_size):
    """A row whose only own token is its last has nothing to run before decoding (a batch of such rows too)."""
    folder = _tiny_lm(tmp_path / "lm", bos=True)
    prompts = ["good", "good food", "good food label :", "good service is bad", "good"]
    cached, full = (get_backend(f"hf-causal:{folder}", device="cpu", batch_size=batch_size,
                                prefix_cache=c).engine() for c in (True, False))
    assert cached.generate(prompts, 5, None) == full.generate(prompts, 5, None)
    assert len(cached._prefix[0]) == 1  # BOS only: "good" has one token of its own


def test_stop_strings_end_decoding(tmp_path):
    """A stop string ends a row's decoding: the batch stops early once every row has one."""
    folder = _tiny_lm(tmp_path / "lm", bos=True)
    backend = get_backend(f"hf-causal:{folder}", device="cpu", mode="generate", max_tokens=40)
    engine = backend.engine()
    engine.load()
    free = engine.generate(["good food", "bad service"], 40, None)
    words = [r.split() for r in free]
    stops = tuple({w[0] for w in words if w})
    assert stops  # a random model says something
    steps = []
    original = engine._model.forward

    def counting(*args, **kwargs):
        steps.append(1)
        return original(*args, **kwargs)

    engine._model.forward = counting
    from dialectbench.backends.llm.backend import Generation

    cut = engine.generate(["good food", "bad service"], 40, None, Generation(stop=stops))
    assert cut == [Generation(stop=stops).cut(r) for r in free]
    assert len(steps) < 40  # decoding ended at the stop strings, well before max_tokens


def test_the_kept_prefix_is_reused_and_replaced(tmp_path):
    folder = _tiny_lm(tmp_path / "lm", bos=True)
    cached, full = _both(folder)
    engine, reference = cached.engine(), full.engine()
    base = "in this task you are given a piece of text . sentence : good food label : positive sentence :"
    pairs = [(f"{base} {t} label :", f" {lab}") for t in TEST for lab in ("negative", "positive")]
    got = engine.loglikelihood(pairs[:6], None) + engine.loglikelihood(pairs[6:], None)
    assert engine._prefix is not None
    kept = engine._prefix[0]
    assert got == pytest.approx(reference.loglikelihood(pairs, None), abs=1e-4)
    other = [(f"sentence : {t} label :", " positive") for t in TEST[:3]]
    assert engine.loglikelihood(other, None) == pytest.approx(reference.loglikelihood(other, None), abs=1e-4)
    assert engine._prefix[0] != kept
    single = [(f"{base} food label :", " negative")]  # one item: all but its last token is the prefix
    assert engine.loglikelihood(single, None) == pytest.approx(reference.loglikelihood(single, None), abs=1e-4)


def test_batch_size_auto_on_the_cpu_gives_the_same_numbers(tmp_path):
    folder = _tiny_lm(tmp_path / "lm", bos=True)
    pairs = [(f"sentence : {t} label :", f" {lab}") for t in TEST for lab in ("negative", "positive")]
    prompts = [f"sentence : {t} label :" for t in TEST]
    for cached in (True, False):
        auto, one = (get_backend(f"hf-causal:{folder}", device="cpu", batch_size=b, prefix_cache=cached).engine()
                     for b in ("auto", 1))
        assert auto.loglikelihood(pairs, None) == pytest.approx(one.loglikelihood(pairs, None), abs=1e-4)
        assert auto.generate(prompts, 6, None) == one.generate(prompts, 6, None)
        assert auto.batch_sizes and all(1 < b <= 64 for b in auto.batch_sizes)  # a tiny model: a big batch
        assert not one.batch_sizes


def test_batch_size_auto_from_memory_and_from_cuda_out_of_memory(tmp_path):
    engine = get_backend(f"hf-causal:{_tiny_lm(tmp_path / 'lm', bos=True)}", device="cpu",
                         batch_size="auto").engine()
    engine.load()
    assert engine._fit_memory(100, available=10**12) == 64  # capped
    assert engine._fit_memory(100, available=1000) == 1  # never below one row
    sizes = [engine._fit_memory(tokens, available=2 * 10**8) for tokens in (50, 500, 5000)]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]  # longer rows, smaller batches
    tried = []

    def model(input_ids, **kwargs):  # a GPU that holds 12 rows of this length
        tried.append(len(input_ids))
        if len(input_ids) > 12:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory")

    engine._model = model
    assert engine._fit_cuda(300) == 8 and tried == [64, 32, 16, 8]
    engine.device, engine._fit_cuda = "cuda:0", lambda tokens: 5  # the GPU path is the one asked on CUDA
    assert engine._batch(40) == 5 and engine._batch(30) == 5 and engine.batch_sizes == [5]  # kept for shorter rows


def test_batch_size_auto_options():
    from dialectbench.runner.options import OptionError, RunOptions, icl_options

    assert RunOptions(batch_size="auto").backend_options("hf-causal:org/m") == {"batch_size": "auto"}
    assert icl_options("hf-causal:org/m", model_args="batch_size=auto") == {"batch_size": "auto"}
    assert icl_options("hf-causal:org/m", model_args="batch_size=16") == {"batch_size": 16}
    with pytest.raises(OptionError, match="int >= 1 or auto"):
        icl_options("hf-causal:org/m", model_args="batch_size=0")
    with pytest.raises(OptionError, match="hf-causal"):
        RunOptions(batch_size="auto").backend_options("xlmr")
    with pytest.raises(ValueError, match="auto"):
        get_backend("hf-causal:org/m", batch_size="big")


def test_run_batch_size_flag():
    from typer.testing import CliRunner

    from dialectbench.cli.main import app

    bad = CliRunner().invoke(app, ["run", "--model", "hf-causal:org/m", "--batch-size", "lots"])
    assert bad.exit_code != 0 and "int >= 1 or auto" in bad.output
    assert "N|auto" in CliRunner().invoke(app, ["run", "--help"]).output
