"""Tiny randomly initialised checkpoints with a tokenizer trained on the fly (offline; for tests and
benchmarks). `make_tiny_model(folder, "bert", corpus)` saves a folder `hf:<folder>` can load.

  bert    WordPiece tokenizer, BertConfig            xlmr    Unigram (sentencepiece-style), XLMRobertaConfig
  t5      Unigram, T5Config (encoder-decoder)        marian  BPE, MarianConfig (encoder-decoder)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

KINDS = ("bert", "xlmr", "t5", "marian")


def _ranked_pieces(corpus: list[str], split, cont: str = "", sizes=(2, 3)) -> list[str]:
    """Sub-word pieces (character n-grams) by frequency, ties alphabetical: the same list in every
    process. Word-initial pieces are kept as they are; later ones get the prefix `cont` (WordPiece's ##)."""
    counts: Counter[str] = Counter()
    for line in corpus:
        for w, _ in split(line):
            for k in sizes:
                counts.update(w[i:i + k] if i == 0 else cont + w[i:i + k] for i in range(len(w) - k + 1))
    return [p for p, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _chars(corpus: list[str], split) -> list[str]:
    return sorted({c for line in corpus for w, _ in split(line) for c in w})


def _wordpiece(corpus: list[str], vocab_size: int):
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    # The vocabulary is built here, not by WordPieceTrainer: the trainer breaks frequency ties in hash
    # order, so its vocabulary (and every model trained on top) changed from one process to the next.
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    pre = pre_tokenizers.BertPreTokenizer()
    chars = _chars(corpus, pre.pre_tokenize_str)
    pieces = specials + chars + ["##" + c for c in chars]
    pieces += _ranked_pieces(corpus, pre.pre_tokenize_str, "##")[:max(0, vocab_size - len(pieces))]
    tok = Tokenizer(models.WordPiece({p: i for i, p in enumerate(pieces)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=False)
    tok.pre_tokenizer = pre
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    tok.decoder = decoders.WordPiece()
    return tok, {"unk_token": "[UNK]", "pad_token": "[PAD]", "cls_token": "[CLS]", "sep_token": "[SEP]",
                 "mask_token": "[MASK]"}


def _unigram(corpus: list[str], vocab_size: int, specials: list[str]):
    """A Metaspace Unigram tokenizer with a vocabulary built deterministically (UnigramTrainer, like the
    WordPiece trainer, is not reproducible across processes): every character, then frequent n-grams."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    pre = pre_tokenizers.Metaspace()
    chars = _chars(corpus, pre.pre_tokenize_str)
    ngrams = [p for p in _ranked_pieces(corpus, pre.pre_tokenize_str) if p not in chars]
    pieces = chars + ngrams[:max(0, vocab_size - len(specials) - len(chars))]
    # rarer pieces score lower; any piece scores above two characters, so n-grams win over letters
    vocab = [(s, 0.0) for s in specials] + [(p, -1.0 - 0.01 * i) for i, p in enumerate(pieces)]
    tok = Tokenizer(models.Unigram(vocab, unk_id=specials.index("<unk>")))
    tok.pre_tokenizer = pre
    tok.decoder = decoders.Metaspace()
    return tok


def _metaspace(model, trainer, corpus: list[str]):
    from tokenizers import Tokenizer, decoders, pre_tokenizers

    tok = Tokenizer(model)
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(corpus, trainer)
    return tok


def _unigram_xlmr(corpus: list[str], vocab_size: int):
    from tokenizers import processors

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tok = _unigram(corpus, vocab_size, specials)
    s, e = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", s), ("</s>", e)])
    return tok, {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>",
                 "cls_token": "<s>", "sep_token": "</s>", "mask_token": "<mask>"}


def _seq2seq_tokenizer(corpus: list[str], vocab_size: int, bpe: bool):
    from tokenizers import models, processors, trainers

    specials = ["<pad>", "</s>", "<unk>"]
    if bpe:  # BpeTrainer breaks ties deterministically (checked across processes)
        tok = _metaspace(models.BPE(unk_token="<unk>"),
                         trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials), corpus)
    else:
        tok = _unigram(corpus, vocab_size, specials)
    e = tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                       special_tokens=[("</s>", e)])
    return tok, {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"}


def _config(kind: str, vocab: int, hidden: int, layers: int, tok, heads: int = 2):
    from transformers import BertConfig, MarianConfig, T5Config, XLMRobertaConfig

    small = {"hidden_size": hidden, "num_hidden_layers": layers, "num_attention_heads": heads,
             "intermediate_size": (4 if heads > 2 else 2) * hidden, "max_position_embeddings": 512}
    if kind == "bert":
        return BertConfig(vocab_size=vocab, **small)
    if kind == "xlmr":
        return XLMRobertaConfig(vocab_size=vocab, pad_token_id=tok.token_to_id("<pad>"),
                                bos_token_id=tok.token_to_id("<s>"), eos_token_id=tok.token_to_id("</s>"),
                                **{**small, "max_position_embeddings": 514})
    pad, eos = tok.token_to_id("<pad>"), tok.token_to_id("</s>")
    if kind == "t5":
        return T5Config(vocab_size=vocab, d_model=hidden, d_kv=hidden // 2, d_ff=2 * hidden, num_layers=layers,
                        num_decoder_layers=layers, num_heads=2, pad_token_id=pad, eos_token_id=eos,
                        decoder_start_token_id=pad)
    return MarianConfig(vocab_size=vocab, d_model=hidden, encoder_layers=layers, decoder_layers=layers,
                        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=2 * hidden,
                        decoder_ffn_dim=2 * hidden, max_position_embeddings=512, pad_token_id=pad,
                        eos_token_id=eos, decoder_start_token_id=pad, forced_eos_token_id=eos)


def make_tiny_model(folder: str | Path, kind: str, corpus: Iterable[str], *, vocab_size: int = 300,
                    hidden: int = 64, layers: int = 2, heads: int = 2, seed: int = 0) -> Path:
    """Train a tokenizer on `corpus`, build a random `kind` model around it, save both to `folder`."""
    import torch
    from transformers import AutoModel, AutoModelForSeq2SeqLM, PreTrainedTokenizerFast

    from dialectbench.backends.hf.loading import quiet_transformers

    if kind not in KINDS:
        raise ValueError(f"unknown tiny model kind {kind!r}; known: {', '.join(KINDS)}")
    corpus = list(corpus)
    if kind == "bert":
        tok, special = _wordpiece(corpus, vocab_size)
    elif kind == "xlmr":
        tok, special = _unigram_xlmr(corpus, vocab_size)
    else:
        tok, special = _seq2seq_tokenizer(corpus, vocab_size, bpe=kind == "marian")
    folder = Path(folder)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, **special)
    tokenizer.save_pretrained(folder)
    config = _config(kind, tok.get_vocab_size(), hidden, layers, tok, heads)
    torch.manual_seed(seed)
    auto = AutoModel if kind in ("bert", "xlmr") else AutoModelForSeq2SeqLM
    with quiet_transformers():
        auto.from_config(config).save_pretrained(folder)
    return folder
