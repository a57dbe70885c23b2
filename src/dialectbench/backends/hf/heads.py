"""Task heads on one encoder interface: how each task builds its model, encodes examples into features,
computes its training loss, and turns model outputs back into the predictions `base.py` defines.

  pos / ner         token classification, label on a word's first sub-token (others ignored)
  dep               biaffine arcs + labels over first-sub-token word states, MST decoding
                    (`dialectbench.backends.parsing.ParserHead`, the CPU parser's scorer and decoder)
  did / sa / tc     sequence classification; nli: the same over (premise, hypothesis) pairs
  eqa               extractive QA over strided windows, n-best start/end, answer mapped to characters
  mrc               multiple choice, one score per option
  mt-*              seq2seq generation with beam search (NLLB language codes when the tokenizer has them)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from dialectbench.backends.base import TrainingDataError
from dialectbench.backends.hf.batching import IGNORE
from dialectbench.backends.hf.config import TaskConfig
from dialectbench.backends.hf.loading import HFModelError, ModelSpec, check_head, quiet_transformers
from dialectbench.data.examples import (
    MultipleChoiceExample,
    PairExample,
    QAExample,
    Sentence,
    TaggedSentence,
    TextExample,
    TranslationExample,
)

ENCODER_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def encoder_inputs(batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {k: batch[k] for k in ENCODER_INPUTS if k in batch}


def _auto(name: str) -> Any:
    import transformers

    return getattr(transformers, name)


class Head:
    """Base: subclasses set the example type, the transformers auto class and implement the hooks."""

    example_type: type | tuple[type, ...] = ()
    auto_class = "AutoModel"
    needs = "an encoder"
    new_parameters = ("classifier", "qa_outputs", "score", "head")  # name parts of freshly initialised layers

    def __init__(self, task: str, cfg: TaskConfig):
        self.task, self.cfg = task, cfg
        self.labels: list[str] = []

    # -- set-up -----------------------------------------------------------------------------------------
    def check_model(self, spec: ModelSpec, config: Any) -> None:
        check_head(spec, config, _auto(self.auto_class), self.task, self.needs)

    def check_tokenizer(self, tokenizer: Any, spec: ModelSpec) -> None:
        """Task-specific tokenizer requirements (raise HFModelError)."""

    def prepare(self, train: Sequence[Any]) -> None:
        """Build the label vocabulary from the training set."""

    def build(self, spec: ModelSpec, config: Any, tokenizer: Any) -> nn.Module:
        kwargs: dict[str, Any] = {}
        if self.labels:
            kwargs = {"num_labels": len(self.labels), "id2label": dict(enumerate(self.labels)),
                      "label2id": {label: i for i, label in enumerate(self.labels)},
                      "ignore_mismatched_sizes": True}  # a checkpoint's own head of another size is replaced
        with quiet_transformers():
            model = _auto(self.auto_class).from_pretrained(spec.source, trust_remote_code=spec.trust_remote_code,
                                                           **kwargs)
        if getattr(model.config, "pad_token_id", None) is None:
            model.config.pad_token_id = tokenizer.pad_token_id
        return model

    def label_id(self, label: str) -> int:
        return self._ids.get(label, IGNORE)

    def _set_labels(self, labels: Sequence[str]) -> None:
        self.labels = sorted(set(labels))
        self._ids = {label: i for i, label in enumerate(self.labels)}

    # -- per batch ----------------------------------------------------------------------------------------
    def encode(self, tokenizer: Any, example: Any, index: int, train: bool) -> list[dict[str, Any]]:
        raise NotImplementedError

    def encode_many(self, tokenizer: Any, examples: Sequence[Any], train: bool) -> list[dict[str, Any]]:
        """All features of `examples`; heads override it to tokenize in one (Rust, batched) call."""
        return [f for i, ex in enumerate(examples) for f in self.encode(tokenizer, ex, i, train)]

    def loss(self, model: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        raise NotImplementedError

    def step(self, model: nn.Module, batch: dict[str, torch.Tensor], features: list[dict]) -> list[Any]:
        raise NotImplementedError

    def decode(self, examples: Sequence[Any], features: Sequence[dict], outputs: Sequence[Any]) -> list[Any]:
        """Default: one feature per example, output already the prediction."""
        return list(outputs)

    def is_new_parameter(self, name: str) -> bool:
        return any(part in name.split(".")[0:2] for part in self.new_parameters)


# ---------------------------------------------------------------------------------------------------------
class TokenClassification(Head):
    """POS / NER: one label per word, trained and predicted on the word's first sub-token."""

    example_type = (Sentence, TaggedSentence)
    auto_class = "AutoModelForTokenClassification"
    needs = "a token-classification head"

    def prepare(self, train: Sequence[Any]) -> None:
        tags = [t for ex in train for t in _tags(ex)]
        if not tags:
            raise TrainingDataError(f"{self.task}: the training set has no tagged words")
        self._set_labels(tags)
        self.fallback = Counter(tags).most_common(1)[0][0]  # for a word the tokenizer drops or truncates

    def encode(self, tokenizer: Any, example: Any, index: int, train: bool) -> list[dict[str, Any]]:
        return self.encode_many(tokenizer, [example], train)

    def encode_many(self, tokenizer: Any, examples: Sequence[Any], train: bool) -> list[dict[str, Any]]:
        enc = _split_words(tokenizer, [list(_words(ex)) for ex in examples], self.cfg.max_length)
        return [self._feature(enc, i, ex, train) for i, ex in enumerate(examples)]

    def _feature(self, enc: Any, i: int, example: Any, train: bool) -> dict[str, Any]:
        first = first_subtokens(enc.word_ids(i), len(_words(example)))
        feature = {k: enc[k][i] for k in ENCODER_INPUTS if k in enc}
        feature["first"] = first
        if train:
            labels = [IGNORE] * len(enc["input_ids"][i])
            for tag, pos in zip(_tags(example), first):
                if pos >= 0:
                    labels[pos] = self.label_id(tag)
            feature["labels"] = labels
        return feature

    def loss(self, model: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        return model(**encoder_inputs(batch), labels=batch["labels"]).loss

    def step(self, model: nn.Module, batch: dict[str, torch.Tensor], features: list[dict]) -> list[Any]:
        ids = model(**encoder_inputs(batch)).logits.argmax(-1).cpu().tolist()
        return [tuple(self.labels[row[p]] if p >= 0 else self.fallback for p in f["first"])
                for row, f in zip(ids, features)]


def _words(ex: Any) -> tuple[str, ...]:
    return ex.words if isinstance(ex, Sentence) else ex.tokens


def _tags(ex: Any) -> tuple[str, ...]:
    return ex.upos if isinstance(ex, Sentence) else ex.tags


def _split_words(tokenizer: Any, sentences: list[list[str]], max_length: int) -> Any:
    """Batched pre-split tokenization; an empty sentence still gets its special tokens."""
    return tokenizer(sentences, is_split_into_words=True, truncation=True, max_length=max_length)


def first_subtokens(word_ids: Sequence[int | None], n_words: int) -> list[int]:
    """Position of each word's first sub-token; -1 for a word with none (dropped or truncated)."""
    first = [-1] * n_words
    for pos, w in enumerate(word_ids):
        if w is not None and first[w] < 0:
            first[w] = pos
    return first


# ---------------------------------------------------------------------------------------------------------
class EncoderParser(nn.Module):
    """A transformer encoder + the shared biaffine parser head. Word states are the first sub-token's
    hidden state; the sequence's first token ([CLS] / <s>) stands for ROOT."""

    def __init__(self, encoder: nn.Module, n_labels: int, hidden: int):
        super().__init__()
        from dialectbench.backends.parsing import ParserHead

        self.encoder = encoder
        self.head = ParserHead(hidden, n_labels)

    def word_states(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        states = self.encoder(**encoder_inputs(batch)).last_hidden_state
        index = batch["word_starts"].unsqueeze(-1).expand(-1, -1, states.size(-1))
        return states.gather(1, index).float(), batch["word_mask"].bool()


class DependencyParsing(Head):
    example_type = Sentence
    auto_class = "AutoModel"
    needs = "an encoder"
    new_parameters = ("head",)

    def prepare(self, train: Sequence[Any]) -> None:
        rels = [r for ex in train for r in ex.deprels]
        if not rels:
            raise TrainingDataError(f"{self.task}: the training set has no words")
        self._set_labels(rels)

    def build(self, spec: ModelSpec, config: Any, tokenizer: Any) -> nn.Module:
        with quiet_transformers():
            encoder = _auto("AutoModel").from_pretrained(spec.source, trust_remote_code=spec.trust_remote_code)
        if getattr(encoder.config, "is_encoder_decoder", False):
            encoder = encoder.get_encoder()
        hidden = getattr(config, "hidden_size", None) or config.d_model
        return EncoderParser(encoder, len(self.labels), hidden)

    def encode(self, tokenizer: Any, example: Any, index: int, train: bool) -> list[dict[str, Any]]:
        return self.encode_many(tokenizer, [example], train)

    def encode_many(self, tokenizer: Any, examples: Sequence[Any], train: bool) -> list[dict[str, Any]]:
        enc = _split_words(tokenizer, [list(ex.words) for ex in examples], self.cfg.max_length)
        return [self._feature(enc, i, ex, train) for i, ex in enumerate(examples)]

    def _feature(self, enc: Any, i: int, example: Any, train: bool) -> dict[str, Any]:
        first = first_subtokens(enc.word_ids(i), len(example.words))
        starts, last = [0], 0
        for pos in first:  # a word without sub-tokens borrows the previous word's position
            last = pos if pos >= 0 else last
            starts.append(last)
        feature = {k: enc[k][i] for k in ENCODER_INPUTS if k in enc}
        feature.update(word_starts=starts, word_mask=[1] * len(starts))
        if train:
            feature["heads"] = [0, *example.heads]
            feature["rels"] = [0, *(max(self.label_id(r), 0) for r in example.deprels)]
        return feature

    def loss(self, model: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        states, mask = model.word_states(batch)
        with torch.autocast(states.device.type, enabled=False):
            return model.head.loss(states, mask, batch["heads"], batch["rels"])

    def step(self, model: nn.Module, batch: dict[str, torch.Tensor], features: list[dict]) -> list[Any]:
        states, mask = model.word_states(batch)
        with torch.autocast(states.device.type, enabled=False):  # MST runs in numpy: keep float32
            heads, rels = model.head.decode(states, mask)
        return [(tuple(h), tuple(self.labels[r] for r in rs)) for h, rs in zip(heads, rels)]


# ---------------------------------------------------------------------------------------------------------
class SequenceClassification(Head):
    """DId / SA / TC on one text; NLI on a (premise, hypothesis) pair."""

    example_type = (TextExample, PairExample)
    auto_class = "AutoModelForSequenceClassification"
    needs = "a sequence-classification head"

    def prepare(self, train: Sequence[Any]) -> None:
        labels = [str(ex.label) for ex in train]
        if len(set(labels)) < 2:
            raise TrainingDataError(f"{self.task}: the training set has {len(set(labels))} label(s); need >= 2")
        self._set_labels(labels)

    def encode(self, tokenizer: Any, example: Any, index: int, train: bool) -> list[dict[str, Any]]:
        return self.encode_many(tokenizer, [example], train)

    def encode_many(self, tokenizer: Any, examples: Sequence[Any], train: bool) -> list[dict[str, Any]]:
        if examples and isinstance(examples[0], PairExample):
            enc = tokenizer([ex.premise for ex in examples], [ex.hypothesis for ex in examples], truncation=True,
                            max_length=self.cfg.max_length)
        else:
            enc = tokenizer([ex.text for ex in examples], truncation=True, max_length=self.cfg.max_length)
        features = [{k: enc[k][i] for k in ENCODER_INPUTS if k in enc} for i in range(len(examples))]
        if train:
            for feature, ex in zip(features, examples):
                feature["label"] = self.label_id(str(ex.label))
        return features

    def loss(self, model: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        return model(**encoder_inputs(batch), labels=batch["label"]).loss

    def step(self, model: nn.Module, batch: dict[str, torch.Tensor], features: list[dict]) -> list[Any]:
        ids = model(**encoder_inputs(batch)).logits.argmax(-1).tolist()
        return [self.labels[i] for i in ids]


# ---------------------------------------------------------------------------------------------------------
class ExtractiveQA(Head):
    """Question + context windows (`stride` tokens of overlap); the best valid span over all windows of
    an example, by start + end logit among the `n_best` candidates of each, at most
    `max_answer_length` tokens, mapped back to characters of the context."""

    example_type = QAExample
    auto_class = "AutoModelForQuestionAnswering"
    needs = "a question-answering (span) head"

    def encode(self, tokenizer: Any, example: Any, index: int, train: bool) -> list[dict[str, Any]]:
        question = _clip(tokenizer, example.question.strip(), self.cfg.max_length // 4)
        enc = tokenizer(question, example.context, truncation="only_second", max_length=self.cfg.max_length,
                        stride=min(self.cfg.stride, self.cfg.max_length // 4), return_overflowing_tokens=True,
                        return_offsets_mapping=True)
        features = []
        for w in range(len(enc["input_ids"])):
            seq = enc.sequence_ids(w)
            offsets = [tuple(o) if s == 1 else None for o, s in zip(enc["offset_mapping"][w], seq)]
            feature = {k: enc[k][w] for k in ENCODER_INPUTS if k in enc}
            feature.update(example_index=index, offsets=offsets)
            if train:
                feature["start_positions"], feature["end_positions"] = _answer_tokens(example, offsets)
            features.append(feature)
        return features

    def loss(self, model: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        return model(**encoder_inputs(batch), start_positions=batch["start_positions"],
                     end_positions=batch["end_positions"]).loss

    def step(self, model: nn.Module, batch: dict[str, torch.Tensor], features: list[dict]) -> list[Any]:
        out = model(**encoder_inputs(batch))
        starts, ends = out.start_logits.float().cpu(), out.end_logits.float().cpu()
        return [self._best_span(s, e, f["offsets"]) for s, e, f in zip(starts, ends, features)]

    def _best_span(self, start: torch.Tensor, end: torch.Tensor, offsets: list) -> tuple[float, int, int] | None:
        """(score, char start, char end) of the best valid span in one window, or None."""
        n = len(offsets)
        start, end = start[:n], end[:n]
        k = min(self.cfg.n_best, n)
        best = None
        for s in start.topk(k).indices.tolist():
            for e in end.topk(k).indices.tolist():
                if offsets[s] is None or offsets[e] is None or e < s or e - s + 1 > self.cfg.max_answer_length:
                    continue
                score = float(start[s] + end[e])
                if best is None or score > best[0]:
                    best = (score, offsets[s][0], offsets[e][1])
        return best

    def decode(self, examples: Sequence[Any], features: Sequence[dict], outputs: Sequence[Any]) -> list[Any]:
        best: dict[int, tuple[float, int, int]] = {}
        for f, span in zip(features, outputs):
            i = f["example_index"]
            if span is not None and (i not in best or span[0] > best[i][0]):
                best[i] = span
        return [ex.context[best[i][1]:best[i][2]] if i in best else "" for i, ex in enumerate(examples)]


def _clip(tokenizer: Any, text: str, max_tokens: int) -> str:
    """Cut a question to `max_tokens` sub-words so the context always gets most of each window."""
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    if len(enc["input_ids"]) <= max_tokens:
        return text
    return text[:enc["offset_mapping"][max_tokens - 1][1]]


def _answer_tokens(example: QAExample, offsets: list) -> tuple[int, int]:
    """Token (start, end) of the first gold answer inside this window; (0, 0) = the first token when the
    answer is not (fully) in it, as in SQuAD fine-tuning."""
    if not example.answers:
        return 0, 0
    a0 = example.answer_starts[0]
    a1 = a0 + len(example.answers[0])
    inside = [i for i, o in enumerate(offsets) if o is not None]
    if not inside or offsets[inside[0]][0] > a0 or offsets[inside[-1]][1] < a1:
        return 0, 0
    s = next(i for i in inside if offsets[i][1] > a0)
    e = next(i for i in reversed(inside) if offsets[i][0] < a1)
    return s, max(s, e)


# ---------------------------------------------------------------------------------------------------------
class MultipleChoice(Head):
    """Belebele-style RC: (passage, question + option) per option, one score each; padded options (when
    examples in a batch have different numbers) are masked out."""

    example_type = MultipleChoiceExample
    auto_class = "AutoModelForMultipleChoice"
    needs = "a multiple-choice head"

    def encode(self, tokenizer: Any, example: Any, index: int, train: bool) -> list[dict[str, Any]]:
        if not example.options:
            raise TrainingDataError(f"{self.task}: example {example.example_id!r} has no options")
        rows = [tokenizer(example.passage, f"{example.question} {option}", truncation=True,
                          max_length=self.cfg.max_length) for option in example.options]
        feature = {k: [r[k] for r in rows] for k in ENCODER_INPUTS if k in rows[0]}
        feature["option_mask"] = [1] * len(rows)
        if train:
            feature["label"] = int(example.answer)
        return [feature]

    def _scores(self, model: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        logits = model(**encoder_inputs(batch)).logits.float()
        return logits.masked_fill(batch["option_mask"] == 0, float("-inf"))

    def loss(self, model: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        return F.cross_entropy(self._scores(model, batch), batch["label"])

    def step(self, model: nn.Module, batch: dict[str, torch.Tensor], features: list[dict]) -> list[Any]:
        return self._scores(model, batch).argmax(-1).tolist()


# ---------------------------------------------------------------------------------------------------------
class Translation(Head):
    """Seq2seq MT with batched beam search. With an NLLB-style tokenizer (one that has `src_lang`) the
    source code is set per variety (`set_variety`) and generation is forced to start with the target code."""

    example_type = TranslationExample
    auto_class = "AutoModelForSeq2SeqLM"
    needs = "a sequence-to-sequence LM head (an encoder-decoder such as NLLB, Marian or T5)"
    new_parameters = ()

    def __init__(self, task: str, cfg: TaskConfig):
        super().__init__(task, cfg)
        self.uses_codes = False
        self.source_code: str | None = None

    def check_tokenizer(self, tokenizer: Any, spec: ModelSpec) -> None:
        self.uses_codes = hasattr(tokenizer, "src_lang")
        if self.uses_codes and tokenizer.convert_tokens_to_ids(self.cfg.target_code) == tokenizer.unk_token_id:
            raise HFModelError(f"the tokenizer of {spec.source!r} has no language code {self.cfg.target_code!r}")
        self.tokenizer = tokenizer

    def set_variety(self, variety: str | None) -> None:
        """Source language for the following predictions (NLLB code of the variety or its representative)."""
        if not self.uses_codes:
            return
        code = nllb_code(variety, self.task) if variety else None
        if code is not None and self.tokenizer.convert_tokens_to_ids(code) == self.tokenizer.unk_token_id:
            raise HFModelError(f"the tokenizer has no language code {code!r} (for {variety!r})")
        self.source_code = code

    def encode(self, tokenizer: Any, example: Any, index: int, train: bool) -> list[dict[str, Any]]:
        if self.uses_codes:
            if self.source_code is None:
                raise HFModelError(f"{self.task}: translating with language codes needs the source variety "
                                   "(call predict(examples, variety=...))")
            tokenizer.src_lang, tokenizer.tgt_lang = self.source_code, self.cfg.target_code
        target = example.reference if train else None
        enc = tokenizer(example.source, text_target=target, truncation=True, max_length=self.cfg.max_length)
        feature = {k: enc[k] for k in ("input_ids", "attention_mask")}
        if train:
            feature["labels"] = enc["labels"]
        return [feature]

    def loss(self, model: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        return model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                     labels=batch["labels"]).loss

    def step(self, model: nn.Module, batch: dict[str, torch.Tensor], features: list[dict]) -> list[Any]:
        kwargs: dict[str, Any] = {"num_beams": self.cfg.num_beams, "max_new_tokens": self.cfg.max_new_tokens}
        if self.uses_codes:
            kwargs["forced_bos_token_id"] = self.tokenizer.convert_tokens_to_ids(self.cfg.target_code)
        out = model.generate(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], **kwargs)
        return [t.strip() for t in self.tokenizer.batch_decode(out, skip_special_tokens=True)]


def nllb_code(variety: str, task: str) -> str:
    """The variety's NLLB/FLORES code, else its cluster representative's (for `task`, then for topic
    classification, whose SIB-200 data is FLORES-based), else the code most varieties of its cluster have."""
    from dialectbench.tasks import representative
    from dialectbench.varieties import registry

    v = registry().get(variety)
    if v.nllb_code:
        return v.nllb_code
    for t in (task, "tc"):
        try:
            rep = representative(v.cluster, t)
        except (KeyError, ValueError, LookupError):
            continue
        if rep.nllb_code:
            return rep.nllb_code
    codes = Counter(u.nllb_code for u in registry().varieties(cluster=v.cluster) if u.nllb_code)
    if codes:  # no representative with a code: the cluster's most common one
        return codes.most_common(1)[0][0]
    raise HFModelError(f"no NLLB language code for {v.name!r} nor for a representative of its cluster {v.cluster!r}")


HEADS: dict[str, type[Head]] = {
    "pos": TokenClassification, "ner": TokenClassification, "dep": DependencyParsing,
    "did": SequenceClassification, "sa": SequenceClassification, "tc": SequenceClassification,
    "nli": SequenceClassification, "eqa": ExtractiveQA, "mrc": MultipleChoice,
    "mt-dialect": Translation, "mt-region": Translation,
}
