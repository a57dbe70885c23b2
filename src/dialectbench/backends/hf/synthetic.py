"""Small synthetic tasks that only a correct head can learn (learnability tests, inference benchmark).

Words are concatenations of 1-3 syllables, so a trained sub-word tokenizer splits most of them: a
label put on the wrong sub-token, a span mapped to the wrong characters or an arc scored on the wrong
word cannot reach the accuracy a correct head reaches.
  tagging   tag = class of the word's first syllable (the first sub-token), not of its last
  parsing   first word is the root; later "verb" words attach to it, other words to the closest
            verb on their left
  text      label = whether some word starts with "ba"; pairs: number of "verb" heads across both texts
  qa        the answer is the one word built from z-syllables, anywhere in a context longer than one window
  mc        the right option carries the marker syllable "zu"; its index is random
  mt        syllable-by-syllable substitution
"""

from __future__ import annotations

import random

from dialectbench.data.examples import (
    MultipleChoiceExample,
    PairExample,
    QAExample,
    Sentence,
    TaggedSentence,
    TextExample,
    TranslationExample,
)

SYLLABLES = ("ba", "ko", "mi", "tu", "se", "ra", "lo", "ne")
VERBS = frozenset(SYLLABLES[:4])
Z_SYLLABLES = ("zu", "za", "zi")


def _word(rng: random.Random, max_syllables: int = 3) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, max_syllables)))


def corpus(n: int = 400, seed: int = 0) -> list[str]:
    """Text to train a tokenizer on (includes the z-syllables of the QA/MC tasks)."""
    rng = random.Random(seed)
    return [" ".join(_word(rng) for _ in range(8)) for _ in range(n)] + ["zu za zi zuza zazi zizu zubako"] * 30


def tagging(n: int, seed: int = 0, ner: bool = False) -> list[Sentence] | list[TaggedSentence]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = tuple(_word(rng) for _ in range(rng.randint(3, 8)))
        if ner:  # one-word entities, typed by the first syllable
            tags = tuple(("B-PER" if w[:2] in ("ba", "ko") else "B-LOC") if w[:2] in VERBS else "O" for w in words)
            out.append(TaggedSentence(f"ner-{seed}-{i}", words, tags))
        else:
            upos = tuple("VERB" if w[:2] in VERBS else "NOUN" for w in words)
            out.append(Sentence(f"pos-{seed}-{i}", words, upos, (0,) * len(words), ("dep",) * len(words)))
    return out


def parsing(n: int, seed: int = 0) -> list[Sentence]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = [rng.choice(sorted(VERBS)) + _word(rng, 2)] + [_word(rng) for _ in range(rng.randint(2, 7))]
        heads, rels, last_verb = [], [], 1
        for j, w in enumerate(words, 1):
            if j == 1:
                heads.append(0), rels.append("root")
            elif w[:2] in VERBS:
                heads.append(1), rels.append("conj")
                last_verb = j
            else:
                heads.append(last_verb), rels.append("obj")
        upos = tuple("VERB" if w[:2] in VERBS else "NOUN" for w in words)
        out.append(Sentence(f"dep-{seed}-{i}", tuple(words), upos, tuple(heads), tuple(rels)))
    return out


def texts(n: int, seed: int = 0, min_words: int = 3, max_words: int = 8) -> list[TextExample]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = [_word(rng) for _ in range(rng.randint(min_words, max_words))]
        label = "yes" if any(w.startswith("ba") for w in words) else "no"
        out.append(TextExample(f"text-{seed}-{i}", " ".join(words), label))
    return out


def pairs(n: int, seed: int = 0) -> list[PairExample]:
    rng = random.Random(seed)
    labels = ("contradiction", "neutral", "entailment")
    out = []
    for i in range(n):
        a, b = _word(rng), _word(rng)
        out.append(PairExample(f"pair-{seed}-{i}", f"{a} {_word(rng)}", b,
                               labels[(a[:2] in VERBS) + (b[:2] in VERBS)]))
    return out


def qa(n: int, seed: int = 0) -> list[QAExample]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = [_word(rng) for _ in range(rng.randint(6, 16))]
        k = rng.randrange(len(words))
        words[k] = "".join(rng.choice(Z_SYLLABLES) for _ in range(rng.randint(1, 3)))
        start = len(" ".join(words[:k])) + (k > 0)
        out.append(QAExample(f"qa-{seed}-{i}", " ".join(words), "which", (words[k],), (start,)))
    return out


def multiple_choice(n: int, seed: int = 0) -> list[MultipleChoiceExample]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        options = [_word(rng) for _ in range(4)]
        k = rng.randrange(4)
        options[k] = "zu" + options[k]
        passage = " ".join(_word(rng) for _ in range(6))
        out.append(MultipleChoiceExample(f"mc-{seed}-{i}", passage, "which", tuple(options), k))
    return out


def translation(n: int, seed: int = 0, max_words: int = 3) -> list[TranslationExample]:
    rng = random.Random(seed)
    swap = dict(zip(SYLLABLES, reversed(SYLLABLES)))
    out = []
    for i in range(n):
        words = [rng.choice(SYLLABLES) for _ in range(rng.randint(1, max_words))]
        out.append(TranslationExample(f"mt-{seed}-{i}", " ".join(words), " ".join(swap[w] for w in words)))
    return out
