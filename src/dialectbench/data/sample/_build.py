"""Build the bundled sample suite: small texts written for dialectbench, in the real datasets' formats.

    python -m dialectbench.data.sample._build [--out DIR]

(default: this folder, which is what the package ships; tests/test_sample_suite.py checks that the shipped
files are byte for byte what this script writes.)

Every sentence comes from the templates and word lists below (written for this package; nothing is taken
from any dataset). Each task gets at least two clusters with at least two varieties each, the cluster
representatives of DialectBench Table 9, and English train/dev/test data for zero-shot transfer. The files are
read by the same readers as the real data (CoNLL-U, WikiANN-style IOB, DSL-TL-style TSV, SIB-200-style TSV,
XNLI-style TSV, Belebele-style JSONL, SQuAD JSON, CODET-style parallel text), through `<task>.yaml`
catalogues that use the same schema as the real catalogue.

Test sets are held out (data/overlap.py counts what a job has already seen): a slot that is held out keeps
every third value of its word list (indices 2, 5, 8, ...) for test splits. Train and dev sentences never use
those values; every test sentence uses at least one of them (the extractive-QA test passages are about
places no training passage mentions). Word lists that translate each other are aligned by index, so a
value held out in one variety (nynorsk) is held out in its neighbour (bokmål) too. On top of that, every
split is drawn without repeats: a train or dev text is new to the whole task (any variety, any split), and
a test text is in no train or dev split of the task, so no test set shares a text with anything a job may
train or early-stop on, and dev shares none with train. `main` audits the written suite and fails if any
test set does.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable, Collection
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import yaml

from dialectbench.data.catalogue.models import TaskCatalogue
from dialectbench.data.overlap import normalise

HERE = Path(__file__).resolve().parent
DATASET = {"sample": {"name": "dialectbench sample suite (synthetic texts written for the package)",
                      "licence": "CC0-1.0", "citation": "dialectbench sample suite",
                      "homepage": "https://github.com/dialectbench"}}
SPLITS = ("train", "dev", "test")  # the order splits are drawn in: every test set after all training data

T = TypeVar("T")


# ------------------------------------------------------------------------------------- held-out values
def _held(values: list[str]) -> list[str]:
    """The values of a word list kept for test splits: every third one (indices 2, 5, 8, ...)."""
    return values[2::3]


def _seen(values: list[str]) -> list[str]:
    """The values train and dev splits may use."""
    return [v for i, v in enumerate(values) if i % 3 != 2]


def _choose(rng: random.Random, kinds: list[str], slots: dict[str, list[str]], split: str,
            hold: Collection[str]) -> list[str]:
    """A value for each slot occurrence in `kinds` (a slot used twice gets two different values). Slots in
    `hold` (with 3+ values) keep their held-out values for test: train and dev never use them, and a test
    sentence gets one in a slot picked at random (its other slots may take any value)."""
    holdable = [i for i, k in enumerate(kinds) if k in hold and _held(slots[k])]
    force = rng.choice(holdable) if split == "test" and holdable else None
    out: list[str] = []
    for i, kind in enumerate(kinds):
        values = slots[kind]
        if i == force:
            pool = _held(values)
        elif kind in hold and split != "test":
            pool = _seen(values)
        else:
            pool = values
        pool = [v for v in pool if v not in out] or pool
        out.append(rng.choice(pool))
    return out


def _kinds(template: str) -> list[str]:
    """The slots of a "{slot}" template, in order (a repeated slot is listed each time)."""
    return [part.split("}", 1)[0] for part in template.split("{")[1:]]


def _fill_text(rng: random.Random, template: str, slots: dict[str, list[str]], split: str,
               hold: Collection[str]) -> str:
    out = template
    for kind, value in zip(_kinds(template), _choose(rng, _kinds(template), slots, split, hold)):
        out = out.replace("{" + kind + "}", value, 1)
    return out


def _labelled(rng: random.Random, templates: list[str], slots: dict[str, list[str]], split: str,
              hold: Collection[str], label: str) -> tuple[str, str]:
    """(text, label): a template of the label, filled."""
    return _fill_text(rng, rng.choice(templates), slots, split, hold), label


class _Texts:
    """The normalised texts a task's train and dev splits hold (every variety). A train or dev text must be
    new to the task, so dev shares none with train and no split repeats one; a test text must be new to its
    own split and to every train and dev split of the task."""

    def __init__(self) -> None:
        self.trained: set[str] = set()

    def taken(self, split: str) -> set[str]:
        return self.trained if split != "test" else set(self.trained)


def _draw(n: int, make: Callable[[], T], text: Callable[[T], str], taken: set[str], what: str) -> list[T]:
    """`n` items from `make` whose normalised text is not in `taken` (each is added to it)."""
    out: list[T] = []
    for _ in range(200 * n + 100):
        if len(out) == n:
            break
        item = make()
        key = normalise(text(item))
        if key not in taken:
            taken.add(key)
            out.append(item)
    if len(out) < n:
        raise RuntimeError(f"{what}: only {len(out)} of {n} new texts; add templates or slot values")
    return out


# ------------------------------------------------------------------------------------ dependency + POS
# A template is a list of (slot-or-word, UPOS, head, deprel); slots are filled from the language's lexicon.
EN_LEX = {
    "DET": ["the", "a", "this", "that"],
    "ADJ": ["old", "young", "happy", "small", "big", "quiet", "busy", "tired", "kind"],
    "NOUN": ["man", "woman", "teacher", "dog", "child", "driver", "farmer", "doctor", "student", "cook"],
    "OBJ": ["book", "letter", "car", "house", "song", "ball", "cake", "paper", "bag"],
    "PLACE": ["garden", "kitchen", "market", "school", "park", "office", "station", "library", "hall"],
    "VERB": ["reads", "writes", "buys", "sells", "sees", "finds", "paints", "carries"],
    "IVERB": ["sleeps", "sings", "waits", "smiles", "works", "runs"],
    "INF": ["buy", "see", "find", "paint", "carry", "sell"], "ING": ["working", "waiting", "singing", "running"],
    "ADP": ["in", "near", "behind"], "PRON": ["she", "he", "we", "they"], "ADV": ["today", "now", "again"],
    "NAME": ["Maria", "John", "Aisha", "Kofi", "Ling", "Pedro", "Sara", "Omar", "Nadia"],
}
UD_HOLD = {"ADJ", "NOUN", "OBJ", "PLACE", "NAME"}  # test sentences have a noun, adjective or name unseen in training
EN_TEMPLATES = [
    [("DET", "DET", 3, "det"), ("ADJ", "ADJ", 3, "amod"), ("NOUN", "NOUN", 4, "nsubj"), ("VERB", "VERB", 0, "root"),
     ("DET", "DET", 6, "det"), ("OBJ", "NOUN", 4, "obj"), ("ADP", "ADP", 9, "case"), ("the", "DET", 9, "det"),
     ("PLACE", "NOUN", 4, "obl"), (".", "PUNCT", 4, "punct")],
    [("DET", "DET", 2, "det"), ("NOUN", "NOUN", 3, "nsubj"), ("IVERB", "VERB", 0, "root"), ("ADV", "ADV", 3, "advmod"),
     (".", "PUNCT", 3, "punct")],
    [("NAME", "PROPN", 3, "nsubj"), ("is", "AUX", 3, "cop"), ("ADJ", "ADJ", 0, "root"), (".", "PUNCT", 3, "punct")],
    [("PRON", "PRON", 3, "nsubj"), ("will", "AUX", 3, "aux"), ("INF", "VERB", 0, "root"), ("DET", "DET", 5, "det"),
     ("OBJ", "NOUN", 3, "obj"), (".", "PUNCT", 3, "punct")],
    [("DET", "DET", 2, "det"), ("NOUN", "NOUN", 3, "nsubj"), ("IVERB", "VERB", 0, "root"), ("and", "CCONJ", 7, "cc"),
     ("DET", "DET", 6, "det"), ("NOUN", "NOUN", 7, "nsubj"), ("IVERB", "VERB", 3, "conj"), (".", "PUNCT", 3, "punct")],
]
SINGLISH_TEMPLATES = [  # copula drop, sentence-final particles
    [("DET", "DET", 2, "det"), ("OBJ", "NOUN", 4, "nsubj"), ("very", "ADV", 4, "advmod"), ("ADJ", "ADJ", 0, "root"),
     ("lah", "PART", 4, "discourse"), (".", "PUNCT", 4, "punct")],
    [("PRON", "PRON", 2, "nsubj"), ("VERB", "VERB", 0, "root"), ("DET", "DET", 4, "det"), ("OBJ", "NOUN", 2, "obj"),
     ("already", "ADV", 2, "advmod"), ("leh", "PART", 2, "discourse"), (".", "PUNCT", 2, "punct")],
    [("NAME", "PROPN", 3, "nsubj"), ("still", "ADV", 3, "advmod"), ("ADJ", "ADJ", 0, "root"),
     ("meh", "PART", 3, "discourse"), ("?", "PUNCT", 3, "punct")],
]
AAVE_TEMPLATES = [  # habitual be, copula absence
    [("PRON", "PRON", 3, "nsubj"), ("be", "AUX", 3, "aux"), ("ING", "VERB", 0, "root"), ("ADV", "ADV", 3, "advmod"),
     (".", "PUNCT", 3, "punct")],
    [("NAME", "PROPN", 2, "nsubj"), ("ADJ", "ADJ", 0, "root"), ("ADV", "ADV", 2, "advmod"), (".", "PUNCT", 2, "punct")],
    [("DET", "DET", 2, "det"), ("NOUN", "NOUN", 4, "nsubj"), ("ain't", "AUX", 4, "aux"), ("INF", "VERB", 0, "root"),
     ("no", "DET", 6, "det"), ("OBJ", "NOUN", 4, "obj"), (".", "PUNCT", 4, "punct")],
]
NB_LEX = {  # aligned with NN_LEX value by value
    "DET": ["en", "den", "denne"], "ADJ": ["gammel", "ung", "glad", "liten", "stor", "stille", "trøtt", "snill"],
    "NOUN": ["mann", "lærer", "hund", "sjåfør", "bonde", "lege", "student", "kokk", "gutt"],
    "OBJ": ["bok", "bil", "sang", "ball", "kake", "avis", "stol", "sekk", "lampe"],
    "PLACE": ["hagen", "kjøkkenet", "byen", "skolen", "parken", "kontoret", "butikken", "stasjonen", "biblioteket"],
    "VERB": ["leser", "skriver", "kjøper", "selger", "ser", "finner", "maler", "bærer"],
    "IVERB": ["sover", "synger", "venter", "smiler", "arbeider", "løper"], "ADP": ["i", "ved", "bak"],
    "PRON": ["hun", "han", "vi", "de"], "ADV": ["i dag", "nå", "igjen"], "INF": ["kjøpe", "se", "finne", "male"],
    "NAME": ["Kari", "Ola", "Ingrid", "Lars", "Sofie", "Nora", "Emil", "Jonas", "Sigrid"],
}
NN_LEX = {
    "DET": ["ein", "den", "denne"], "ADJ": ["gammal", "ung", "glad", "liten", "stor", "stille", "trøytt", "snill"],
    "NOUN": ["mann", "lærar", "hund", "sjåfør", "bonde", "lege", "student", "kokk", "gut"],
    "OBJ": ["bok", "bil", "song", "ball", "kake", "avis", "stol", "sekk", "lampe"],
    "PLACE": ["hagen", "kjøkenet", "byen", "skulen", "parken", "kontoret", "butikken", "stasjonen", "biblioteket"],
    "VERB": ["les", "skriv", "kjøper", "sel", "ser", "finn", "målar", "ber"],
    "IVERB": ["søv", "syng", "ventar", "smiler", "arbeider", "spring"], "ADP": ["i", "ved", "bak"],
    "PRON": ["ho", "han", "vi", "dei"], "ADV": ["i dag", "no", "igjen"], "INF": ["kjøpe", "sjå", "finne", "måle"],
    "NAME": ["Kari", "Ola", "Ingrid", "Lars", "Sofie", "Nora", "Emil", "Jonas", "Sigrid"],
}
NO_TEMPLATES = [
    [("DET", "DET", 3, "det"), ("ADJ", "ADJ", 3, "amod"), ("NOUN", "NOUN", 4, "nsubj"), ("VERB", "VERB", 0, "root"),
     ("DET", "DET", 6, "det"), ("OBJ", "NOUN", 4, "obj"), ("ADP", "ADP", 8, "case"), ("PLACE", "NOUN", 4, "obl"),
     (".", "PUNCT", 4, "punct")],
    [("NAME", "PROPN", 2, "nsubj"), ("IVERB", "VERB", 0, "root"), ("ADP", "ADP", 4, "case"),
     ("PLACE", "NOUN", 2, "obl"), (".", "PUNCT", 2, "punct")],
    [("NAME", "PROPN", 3, "nsubj"), ("er", "AUX", 3, "cop"), ("ADJ", "ADJ", 0, "root"), (".", "PUNCT", 3, "punct")],
    [("PRON", "PRON", 3, "nsubj"), ("vil", "AUX", 3, "aux"), ("INF", "VERB", 0, "root"), ("DET", "DET", 5, "det"),
     ("OBJ", "NOUN", 3, "obj"), (".", "PUNCT", 3, "punct")],
]


def _fill(rng: random.Random, template: list, lex: dict[str, list[str]], split: str) -> list[tuple[str, str, int, str]]:
    values = iter(_choose(rng, [slot for slot, *_ in template if slot in lex], lex, split, UD_HOLD))
    out = []
    for slot, upos, head, rel in template:
        word = next(values) if slot in lex else slot
        out.append((word.replace(" ", "_"), upos, head, rel))
    return out


def _fill_any(rng: random.Random, templates: list, lex: dict[str, list[str]],
              split: str) -> list[tuple[str, str, int, str]]:
    return _fill(rng, rng.choice(templates), lex, split)


def _sentence_block(sid: str, words: list[tuple[str, str, int, str]]) -> str:
    text = " ".join(w for w, *_ in words)
    if words and words[0][0][:1].islower():
        text = text[0].upper() + text[1:]
    lines = [f"# sent_id = {sid}", f"# text = {text}"]
    for i, (w, upos, head, rel) in enumerate(words, 1):
        lines.append("\t".join([str(i), w, w.lower(), upos, "_", "_", str(head), rel, "_", "_"]))
    return "\n".join(lines) + "\n\n"


def build_ud(out: Path, rng: random.Random) -> dict[str, dict[str, str]]:
    """Files for dep and pos (shared): {variety: {split: relative path}}."""
    (out / "ud").mkdir(parents=True, exist_ok=True)
    plan = {
        "english": ("en_sample", EN_TEMPLATES, EN_LEX, {"train": 120, "dev": 30, "test": 40}),
        "singlish": ("singlish_sample", SINGLISH_TEMPLATES, EN_LEX, {"test": 30}),
        "african american vernacular english": ("aave_sample", AAVE_TEMPLATES, EN_LEX, {"test": 30}),
        "norwegian bokmål (m:written)": ("nb_sample", NO_TEMPLATES, NB_LEX, {"train": 80, "dev": 20, "test": 30}),
        "norwegian nynorsk (m:written)": ("nn_sample", NO_TEMPLATES, NN_LEX, {"train": 40, "test": 30}),
    }
    texts = _Texts()
    files: dict[str, dict[str, str]] = {}
    for split in SPLITS:
        for variety, (stem, templates, lex, sizes) in plan.items():
            if split not in sizes:
                continue
            rel = f"ud/{stem}-{split}.conllu"
            sents = _draw(sizes[split], partial(_fill_any, rng, templates, lex, split),
                          lambda words: " ".join(w for w, *_ in words), texts.taken(split), rel)
            blocks = [_sentence_block(f"{stem}-{split}-{i:04d}", words) for i, words in enumerate(sents)]
            (out / rel).write_text("".join(blocks), encoding="utf-8")
            files.setdefault(variety, {})[split] = rel
    return {v: files[v] for v in plan}


# ------------------------------------------------------------------------------------------------- NER
NER_LEX = {  # aligned lists do not matter here (the two languages' names differ); all three kinds are held out
    "en": {"PER": ["John Smith", "Mary Jones", "Peter", "Grace Okafor", "David Brown", "Amina", "Sarah Lee",
                   "Tunde Bello", "Anna Clarke", "Michael", "Rosa Diaz", "Kwame Mensah"],
           "ORG": ["Acme Bank", "the United Nations", "Oxford University", "Blue Star Airlines", "Green Foods",
                   "Harbour Telecom", "the Red Cross", "City Council", "Sunrise Radio"],
           "LOC": ["London", "Kingston", "Lagos", "New York", "Kenya", "Paris", "Toronto", "Accra", "Manchester",
                   "Montego Bay", "Nairobi", "Dublin"]},
    "no": {"PER": ["Kari Nordmann", "Ola", "Ingrid Berg", "Lars Hansen", "Sofie", "Nils Dahl", "Marte Lie",
                   "Jonas", "Sigrid Moe"],
           "ORG": ["Statoil", "Universitetet i Oslo", "Norsk Bank", "Fjordfly", "Bergen Mat", "Nordlys Avis",
                   "Molde FK", "Vestland Kraft", "Hamar Bok"],
           "LOC": ["Oslo", "Bergen", "Tromsø", "Stavanger", "Sverige", "Trondheim", "Bodø", "Ålesund", "Danmark",
                   "Lillehammer"]},
}
NER_HOLD = {"PER", "ORG", "LOC"}  # test sentences name an entity no training sentence names
NER_TEMPLATES = {
    "english": ["{PER} visited {LOC} last week .", "{PER} works for {ORG} in {LOC} .",
                "{ORG} opened a new office in {LOC} .", "Yesterday {PER} met {PER} at {ORG} .",
                "The weather in {LOC} was cold when {PER} arrived .", "{PER} flew from {LOC} to {LOC} last night .",
                "According to {ORG} , {PER} will speak in {LOC} on Monday .", "{PER} and {PER} moved to {LOC} ."],
    "jamaican creole english": ["{PER} did go a {LOC} last week .", "Mi see {PER} a {ORG} yesterday .",
                                "{PER} a work fi {ORG} inna {LOC} .", "Dem seh {LOC} hot bad today .",
                                "{PER} seh {ORG} a go open inna {LOC} .", "Wi did deh a {LOC} wid {PER} ."],
    "norwegian bokmål (m:written)": ["{PER} besøkte {LOC} i forrige uke .", "{PER} jobber i {ORG} i {LOC} .",
                                     "{ORG} åpnet et nytt kontor i {LOC} .", "I går møtte {PER} {PER} hos {ORG} .",
                                     "{PER} flyttet fra {LOC} til {LOC} .",
                                     "Ifølge {ORG} skal {PER} tale i {LOC} på mandag ."],
    "norwegian nynorsk (m:written)": ["{PER} vitja {LOC} i førre veke .", "{PER} arbeider i {ORG} i {LOC} .",
                                      "{ORG} opna eit nytt kontor i {LOC} .", "I går møtte {PER} {PER} hjå {ORG} .",
                                      "{PER} flytta frå {LOC} til {LOC} .",
                                      "Ifølgje {ORG} skal {PER} tale i {LOC} på måndag ."],
}


def _ner_sentence(rng: random.Random, template: str, lex: dict[str, list[str]], split: str) -> list[tuple[str, str]]:
    pieces = template.split()
    kinds = [p[1:-1] for p in pieces if p.startswith("{") and p.endswith("}")]
    values = iter(_choose(rng, kinds, lex, split, NER_HOLD))
    out: list[tuple[str, str]] = []
    for piece in pieces:
        if piece.startswith("{") and piece.endswith("}"):
            kind = piece[1:-1]
            for j, tok in enumerate(next(values).split()):
                out.append((tok, ("B-" if j == 0 else "I-") + kind))
        else:
            out.append((piece, "O"))
    return out


def _ner_any(rng: random.Random, templates: list[str], lex: dict[str, list[str]], split: str) -> list[tuple[str, str]]:
    return _ner_sentence(rng, rng.choice(templates), lex, split)


def build_ner(out: Path, rng: random.Random) -> dict[str, dict[str, str]]:
    (out / "ner").mkdir(parents=True, exist_ok=True)
    sizes = {"english": {"train": 120, "dev": 30, "test": 40}, "jamaican creole english": {"test": 30},
             "norwegian bokmål (m:written)": {"train": 80, "dev": 20, "test": 30},
             "norwegian nynorsk (m:written)": {"test": 30}}
    stems = {"english": "en", "jamaican creole english": "jam", "norwegian bokmål (m:written)": "nb",
             "norwegian nynorsk (m:written)": "nn"}
    texts = _Texts()
    files: dict[str, dict[str, str]] = {}
    for split in SPLITS:
        for variety, splits in sizes.items():
            if split not in splits:
                continue
            lex = NER_LEX["no" if variety.startswith("norwegian") else "en"]
            rel = f"ner/{stems[variety]}-{split}.bio"
            make = partial(_ner_any, rng, NER_TEMPLATES[variety], lex, split)
            sents = _draw(splits[split], make, lambda s: " ".join(t for t, _ in s), texts.taken(split), rel)
            (out / rel).write_text("".join("".join(f"{t} {g}\n" for t, g in s) + "\n" for s in sents), "utf-8")
            files.setdefault(variety, {})[split] = rel
    return {v: files[v] for v in sizes}


# ------------------------------------------------------------------------------------------------- DId
DAYS_EN = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
DID = {
    "english": {  # DSL-TL style: id<TAB>text<TAB>label
        "EN-GB": ["The {c} of the {n} was lovely, and we queued for the lorry at the {p}.",
                  "I put my {o} in the boot of the car before we left the flat on {d}.",
                  "Our neighbour organised a {n} fair at the {p} this autumn.",
                  "{x} rang the council about the rubbish bins outside the flat on {d}.",
                  "We caught the underground to the {p} and had a biscuit with our tea.",
                  "{x} will practise with the {n} club at the {p} during the holidays."],
        "EN-US": ["The {c} of the {n} was awesome, and we waited in line for the truck at the {p}.",
                  "I put my {o} in the trunk of the car before we left the apartment on {d}.",
                  "Our neighbor organized a {n} fair at the {p} this fall.",
                  "{x} called the city about the garbage cans outside the apartment on {d}.",
                  "We took the subway to the {p} and had a cookie with our coffee.",
                  "{x} will practice with the {n} club at the {p} during the vacation."],
        "vars": {"c": ["colour", "color"],
                 "n": ["book", "garden", "cycling", "school", "chess", "drama", "film", "cooking", "football"],
                 "p": ["centre", "center", "market", "station", "library", "museum", "park", "stadium", "town hall"],
                 "o": ["suitcase", "bicycle", "guitar", "shopping", "umbrella", "laptop"],
                 "d": DAYS_EN, "x": ["Emma", "Oliver", "Priya", "Tom", "Grace", "Daniel", "Chloe", "Sam", "Hannah"]},
    },
    "portuguese": {
        "PT-BR": ["Na {d} eu peguei o ônibus para o {p} porque o trem estava atrasado.",
                  "Você está {v} muito bem hoje, {x}.",
                  "Meu celular quebrou quando eu estava no {p} com {x}.",
                  "A gente vai tomar café da manhã com suco de {f} na {d}.",
                  "{x} está {v} no escritório desde cedo.",
                  "Ontem {x} ficou {v} na casa da vizinha até tarde."],
        "PT-PT": ["Na {d} eu apanhei o autocarro para o {p} porque o comboio estava atrasado.",
                  "Tu estás a {w} muito bem hoje, {x}.",
                  "O meu telemóvel avariou quando eu estava no {p} com {x}.",
                  "Vamos tomar o pequeno-almoço com sumo de {f} na {d}.",
                  "{x} está a {w} no escritório desde cedo.",
                  "Ontem {x} ficou a {w} em casa da vizinha até tarde."],
        "vars": {"p": ["centro", "mercado", "estádio", "aeroporto", "hospital", "museu", "porto", "parque", "teatro"],
                 "v": ["trabalhando", "cantando", "jogando", "estudando", "correndo", "lendo", "cozinhando",
                       "dançando", "escrevendo"],
                 "w": ["trabalhar", "cantar", "jogar", "estudar", "correr", "ler", "cozinhar", "dançar", "escrever"],
                 "f": ["laranja", "maçã", "uva", "manga", "limão", "morango"],
                 "d": ["segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira"],
                 "x": ["Ana", "João", "Pedro", "Maria", "Luísa", "Rui", "Carla", "Tiago", "Beatriz"]},
    },
}
DID_VARIETY = {"EN-GB": "english (a:uk)", "EN-US": "north american english", "PT-BR": "brazilian portuguese",
               "PT-PT": "portuguese (a:european)"}
DID_HOLD = {"n", "p", "o", "d", "x", "v", "w", "f", "r", "m", "h", "g"}  # every slot but the colour/color spelling
DID_SHARED = {  # sentences written the same way in both varieties: they make the task realistically imperfect
    "english": (["The meeting with {x} starts at {h}.", "My {r} likes {m}.", "We walked to the {g} on {d}.",
                 "The children played outside with {x} all day.", "Our {r} wrote a short letter to {x}."],
                {"x": DID["english"]["vars"]["x"], "d": DAYS_EN,
                 "h": ["nine", "ten", "noon", "eight", "half past two", "four"],
                 "r": ["sister", "brother", "cousin", "friend", "uncle", "aunt"],
                 "m": ["music", "swimming", "painting", "history", "chess", "dancing"],
                 "g": ["river", "beach", "church", "bridge", "hill", "lake"]}),
    "portuguese": (["A reunião com {x} começa às {h}.", "{x} gosta muito de {m}.",
                    "As crianças brincaram na {g} o dia todo.", "O livro de {x} está em cima da mesa.",
                    "{x} escreveu uma carta curta para a {r}."],
                   {"x": DID["portuguese"]["vars"]["x"], "h": ["nove", "dez", "oito", "onze", "duas", "três"],
                    "m": ["música", "futebol", "pintura", "cinema", "xadrez", "história"],
                    "g": ["praia", "rua", "escola", "praça", "piscina", "aldeia"],
                    "r": ["mãe", "avó", "tia", "irmã", "prima", "vizinha"]}),
}


def _either(rng: random.Random, p: float, a: Callable[[], T], b: Callable[[], T]) -> T:
    """a() with probability p, else b()."""
    return a() if rng.random() < p else b()


def build_did(out: Path, rng: random.Random) -> dict[str, dict[str, str]]:
    (out / "did").mkdir(parents=True, exist_ok=True)
    texts = _Texts()
    files: dict[str, dict[str, str]] = {}
    for split, n in (("train", 40), ("test", 15)):
        for group, spec in DID.items():
            labels = [k for k in spec if k != "vars"]
            shared_templates, shared_slots = DID_SHARED[group]
            taken = texts.taken(split)
            rows: list[tuple[str, str]] = []
            for label in labels:
                own = partial(_labelled, rng, spec[label], spec["vars"], split, DID_HOLD, label)
                shared = partial(_labelled, rng, shared_templates, shared_slots, split, DID_HOLD, label)
                rows += _draw(n, partial(_either, rng, 0.2, shared, own), lambda row: row[0], taken,
                              f"did/{group}_{split}.tsv")
            rng.shuffle(rows)
            rel = f"did/{group}_{split}.tsv"
            (out / rel).write_text("".join(f"{i}\t{t}\t{lab}\n" for i, (t, lab) in enumerate(rows, 1)), "utf-8")
            for label in labels:
                files.setdefault(DID_VARIETY[label], {})[split] = rel
    return files


# -------------------------------------------------------------------------------------------------- SA
AR_DAYS = ["السبت", "الأحد", "الاثنين", "الثلاثاء", "الأربعاء", "الخميس", "الجمعة"]
SA = {  # variety: (file stem, {label: templates}, slots); the place and day slots are held out
    "standard arabic": ("arb", {"positive": ["كانت الخدمة في {p} {pa} جدا", "تجربتي في {p} كانت {pa} وأنصح بها",
                                             "زرت {p} يوم {d} وكانت الخدمة {pa}",
                                             "الموظفون في {p} محترمون والخدمة {pa}"],
                                "negative": ["كانت الخدمة في {p} {na} جدا", "تجربتي في {p} كانت {na} ولا أنصح بها",
                                             "زرت {p} يوم {d} وكانت الخدمة {na}",
                                             "الموظفون في {p} غير محترمين والخدمة {na}"]},
                        {"pa": ["ممتازة", "رائعة", "جميلة", "جيدة", "مميزة", "سريعة"],
                         "na": ["سيئة", "رديئة", "مزعجة", "ضعيفة", "بطيئة", "مخيبة"],
                         "p": ["المطعم", "الفندق", "البنك", "المتجر", "المقهى", "المستشفى", "المطار", "الصيدلية",
                               "المكتبة"], "d": AR_DAYS}),
    "egyptian arabic": ("arz", {"positive": ["الخدمة في {p} {pa} أوي", "المحل ده {pa} بجد وهرجع له تاني",
                                             "أنا مبسوط من {p} أوي والناس هناك {pa}",
                                             "روحت {p} يوم {d} والخدمة كانت {pa}"],
                                "negative": ["الخدمة في {p} {na} أوي", "المحل ده {na} بجد ومش هرجع له تاني",
                                             "أنا زعلان من {p} أوي والناس هناك {na}",
                                             "روحت {p} يوم {d} والخدمة كانت {na}"]},
                        {"pa": ["حلوة", "جامدة", "تحفة", "كويسة", "هايلة"],
                         "na": ["وحشة", "بايظة", "زفت", "بطيئة", "مش كويسة"],
                         "p": ["المطعم", "البنك", "الفندق", "القهوة", "المول", "الصيدلية"], "d": AR_DAYS}),
    "tunisian arabic (r:casual)": ("aeb_latn", {"positive": ["el {p} {pa} barcha w nensa7kom bih",
                                                             "mchit lel {p} nhar {d} w kan {pa} barcha",
                                                             "ya3tikom essa7a, el {p} mte3kom {pa}",
                                                             "el khedma fel {p} {pa} w el 3bed lotaf"],
                                                "negative": ["el {p} {na} barcha w ma nensa7komch bih",
                                                             "mchit lel {p} nhar {d} w kan {na} barcha",
                                                             "3ib 3likom, el {p} mte3kom {na}",
                                                             "el khedma fel {p} {na} w el 3bed mouch lotaf"]},
                                   {"pa": ["behi", "mezyen", "hayel", "rou3a", "nadhif"],
                                    "na": ["5ayeb", "mouch behi", "ta3ban", "mahlek", "msa5"],
                                    "p": ["restau", "bank", "hotel", "9ahwa", "magasin", "pharmacie", "marché",
                                          "salon"],
                                    "d": ["sebt", "a7ad", "thnin", "thleth", "larb3a", "5mis", "jom3a"]}),
    "english": ("en", {"positive": ["The {p} was {pa} and the staff were kind.",
                                    "I really {pv} this {p} and will tell my friends.",
                                    "The experience at the {p} was {pa}, I will come back.",
                                    "We went to the {p} on {d} and it was {pa}."],
                       "negative": ["The {p} was {na} and the staff were rude.",
                                    "I really {nv} this {p} and will warn my friends.",
                                    "The experience at the {p} was {na}, I will not come back.",
                                    "We went to the {p} on {d} and it was {na}."]},
                {"pa": ["great", "excellent", "wonderful", "lovely", "fantastic", "superb"],
                 "na": ["terrible", "awful", "poor", "bad", "horrible", "dreadful"],
                 "pv": ["love", "like", "enjoy", "recommend"], "nv": ["hate", "dislike", "regret"],
                 "p": ["hotel", "restaurant", "bank", "shop", "cafe", "museum", "gym", "cinema", "bakery"],
                 "d": DAYS_EN}),
    "nigerian english": ("en_ng", {"positive": ["This {p} dey {pa} well well.", "The {p} sweet me die, {pa} one.",
                                                "I go the {p} for {d} and e {pa} well."],
                                   "negative": ["This {p} no good at all, e {na}.", "The {p} vex me, {na} one.",
                                                "I go the {p} for {d} and e {na} die."]},
                         {"pa": ["correct", "fine", "better", "sharp", "solid"],
                          "na": ["bad", "wack", "rubbish", "useless", "nonsense"],
                          "p": ["hotel", "restaurant", "bank", "shop", "cafe", "bakery"], "d": DAYS_EN}),
}
SA_HOLD = {"p", "d"}  # the sentiment words are not held out: they carry the label


def build_sa(out: Path, rng: random.Random) -> dict[str, dict[str, str]]:
    (out / "sa").mkdir(parents=True, exist_ok=True)
    sizes = {"standard arabic": {"train": 40, "dev": 8, "test": 15}, "egyptian arabic": {"test": 15},
             "tunisian arabic (r:casual)": {"train": 30, "test": 15},
             "english": {"train": 40, "dev": 8, "test": 15}, "nigerian english": {"test": 15}}
    texts = _Texts()
    files: dict[str, dict[str, str]] = {}
    for split in SPLITS:
        for variety, splits in sizes.items():
            if split not in splits:
                continue
            stem, by_label, slots = SA[variety]
            rel = f"sa/{stem}_{split}.tsv"
            taken = texts.taken(split)
            rows = [row for label, templates in by_label.items()
                    for row in _draw(splits[split], partial(_labelled, rng, templates, slots, split, SA_HOLD, label),
                                     lambda row: row[0], taken, rel)]
            rng.shuffle(rows)
            (out / rel).write_text("".join(f"{t}\t{lab}\n" for t, lab in rows), encoding="utf-8")
            files.setdefault(variety, {})[split] = rel
    return {v: files[v] for v in sizes}


# ------------------------------------------------------------------------------------------- TC + NLI
CITIES_NO = ["Bergen", "Tromsø", "Bodø", "Molde", "Hamar", "Skien", "Narvik", "Harstad", "Gjøvik"]
TOPICS = {  # every slot is held out; bokmål and nynorsk lists are aligned value by value
    "english": {
        "sports": ["The {t} from {c} won the match after a late goal.", "Fans in {c} watched the {t} train for the final.",
                   "The {t} lost at home in {c} on {d}."],
        "politics": ["The {g} in {c} passed a new law on taxes.", "Voters in {c} are unhappy with the {g}.",
                     "The {g} debated the budget in {c} on {d}."],
        "health": ["Doctors in {c} say {h} helps to prevent illness.", "The clinic in {c} recommends {h} for children.",
                   "Nurses explained the benefits of {h} on {d}."],
        "travel": ["Tourists took the {v} from {c} to visit the old town.", "Our {v} to the coast left {c} at dawn.",
                   "The {v} to {c} was full of visitors on {d}."],
        "s": {"t": ["team", "club", "players", "squad", "runners", "swimmers"],
              "g": ["parliament", "government", "council", "mayor", "president", "minister"],
              "h": ["exercise", "vaccination", "sleep", "fresh fruit", "clean water", "walking"],
              "v": ["train", "ferry", "bus", "coach", "plane", "boat"],
              "c": ["York", "Leeds", "Bristol", "Cardiff", "Dundee", "Derby", "Bath", "Hull", "Exeter"],
              "d": DAYS_EN}},
    "norwegian bokmål (m:written)": {
        "sports": ["{t} fra {c} vant kampen etter et sent mål.", "Fansen i {c} så {t} trene før finalen.",
                   "{t} tapte hjemme i {c} på {d}."],
        "politics": ["{g} i {c} vedtok en ny lov om skatt.", "Velgerne i {c} er misfornøyde med {g}.",
                     "{g} diskuterte budsjettet i {c} på {d}."],
        "health": ["Leger i {c} sier at {h} hindrer sykdom.", "Klinikken i {c} anbefaler {h} for barn.",
                   "Sykepleierne forklarte nytten av {h} på {d}."],
        "travel": ["Turistene tok {v} fra {c} for å se gamlebyen.", "{v} til kysten gikk fra {c} ved daggry.",
                   "{v} til {c} var full av turister på {d}."],
        "s": {"t": ["laget", "klubben", "spillerne", "troppen", "løperne", "svømmerne"],
              "g": ["stortinget", "regjeringen", "ordføreren", "kommunestyret", "statsministeren", "bystyret"],
              "h": ["trening", "vaksine", "søvn", "frisk frukt", "rent vann", "gåturer"],
              "v": ["toget", "ferja", "bussen", "flyet", "båten", "ekspressbussen"], "c": CITIES_NO,
              "d": ["mandag", "tirsdag", "onsdag", "torsdag", "fredag", "lørdag", "søndag"]}},
    "norwegian nynorsk (m:written)": {
        "sports": ["{t} frå {c} vann kampen etter eit seint mål.", "Fansen i {c} såg {t} trene før finalen.",
                   "{t} tapte heime i {c} på {d}."],
        "politics": ["{g} i {c} vedtok ei ny lov om skatt.", "Veljarane i {c} er misnøgde med {g}.",
                     "{g} drøfta budsjettet i {c} på {d}."],
        "health": ["Legar i {c} seier at {h} hindrar sjukdom.", "Klinikken i {c} tilrår {h} for born.",
                   "Sjukepleiarane forklarte nytta av {h} på {d}."],
        "travel": ["Turistane tok {v} frå {c} for å sjå gamlebyen.", "{v} til kysten gjekk frå {c} ved daggry.",
                   "{v} til {c} var full av turistar på {d}."],
        "s": {"t": ["laget", "klubben", "spelarane", "troppen", "løparane", "symjarane"],
              "g": ["stortinget", "regjeringa", "ordføraren", "kommunestyret", "statsministeren", "bystyret"],
              "h": ["trening", "vaksine", "søvn", "frisk frukt", "reint vatn", "gåturar"],
              "v": ["toget", "ferja", "bussen", "flyet", "båten", "ekspressbussen"], "c": CITIES_NO,
              "d": ["måndag", "tysdag", "onsdag", "torsdag", "fredag", "laurdag", "sundag"]}},
    "spanish": {
        "sports": ["El {t} de {c} ganó el partido con un gol tardío.", "Los aficionados de {c} vieron entrenar al {t}.",
                   "El {t} perdió en casa en {c} el {d}."],
        "politics": ["El {g} de {c} aprobó una nueva ley de impuestos.",
                     "Los votantes de {c} están descontentos con el {g}.", "El {g} debatió el presupuesto en {c} el {d}."],
        "health": ["Los médicos de {c} dicen que el {h} previene enfermedades.",
                   "La clínica de {c} recomienda el {h} a los niños.",
                   "Las enfermeras explicaron los beneficios del {h} el {d}."],
        "travel": ["Los turistas tomaron el {v} en {c} para visitar el casco antiguo.",
                   "Nuestro {v} a la costa salió de {c} al amanecer.", "El {v} a {c} iba lleno de visitantes el {d}."],
        "s": {"t": ["equipo", "club", "conjunto", "plantel", "once", "líder"],
              "g": ["parlamento", "gobierno", "presidente", "alcalde", "ministro", "ayuntamiento"],
              "h": ["ejercicio", "descanso", "deporte", "sueño", "yoga", "paseo"],
              "v": ["tren", "ferry", "autobús", "avión", "barco", "autocar"],
              "c": ["Sevilla", "Bilbao", "Málaga", "Toledo", "Murcia", "Cádiz", "Vigo", "Granada", "Gijón"],
              "d": ["lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"]}},
    "portuguese (a:european)": {
        "sports": ["O {t} de {c} venceu o jogo com um golo tardio.", "Os adeptos de {c} viram o {t} treinar para a final.",
                   "O {t} perdeu em casa em {c} {d}."],
        "politics": ["O {g} de {c} aprovou uma nova lei sobre impostos.",
                     "Os eleitores de {c} estão descontentes com o {g}.", "O {g} debateu o orçamento em {c} {d}."],
        "health": ["Os médicos de {c} dizem que o {h} previne doenças.", "A clínica de {c} recomenda o {h} às crianças.",
                   "As enfermeiras explicaram os benefícios do {h} {d}."],
        "travel": ["Os turistas apanharam o {v} em {c} para visitar a cidade velha.",
                   "O nosso {v} para a costa partiu de {c} de madrugada.",
                   "O {v} para {c} ia cheio de visitantes {d}."],
        "s": {"t": ["clube", "plantel", "conjunto", "onze", "líder", "campeão"],
              "g": ["parlamento", "governo", "presidente", "autarca", "ministro", "município"],
              "h": ["exercício", "descanso", "desporto", "sono", "ioga", "passeio"],
              "v": ["comboio", "ferry", "autocarro", "avião", "barco", "elétrico"],
              "c": ["Braga", "Sintra", "Faro", "Évora", "Coimbra", "Aveiro", "Viseu", "Leiria", "Setúbal"],
              "d": ["na segunda", "na terça", "na quarta", "na quinta", "na sexta", "no sábado", "no domingo"]}},
}
TC_SIZES = {"english": {"train": 20, "dev": 4, "test": 8}, "norwegian bokmål (m:written)": {"train": 15, "test": 8},
            "norwegian nynorsk (m:written)": {"test": 8}, "spanish": {"train": 15, "test": 8},
            "portuguese (a:european)": {"test": 8}}
STEM = {"english": "eng_Latn", "norwegian bokmål (m:written)": "nob_Latn", "norwegian nynorsk (m:written)": "nno_Latn",
        "spanish": "spa_Latn", "portuguese (a:european)": "por_Latn"}


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def build_tc(out: Path, rng: random.Random) -> dict[str, dict[str, str]]:
    texts = _Texts()
    files: dict[str, dict[str, str]] = {}
    for split in SPLITS:
        for variety, splits in TC_SIZES.items():
            if split not in splits:
                continue
            spec = TOPICS[variety]
            (out / "tc" / STEM[variety]).mkdir(parents=True, exist_ok=True)
            rel = f"tc/{STEM[variety]}/{split}.tsv"
            taken = texts.taken(split)
            rows = [(topic, _capital(text)) for topic in ("sports", "politics", "health", "travel")
                    for text, _ in _draw(splits[split],
                                         partial(_labelled, rng, spec[topic], spec["s"], split, spec["s"], topic),
                                         lambda row: row[0], taken, rel)]
            rng.shuffle(rows)
            body = "".join(f"{i}\t{topic}\t{text}\n" for i, (topic, text) in enumerate(rows))
            (out / rel).write_text("index_id\tcategory\ttext\n" + body, encoding="utf-8")
            files.setdefault(variety, {})[split] = rel
    return {v: files[v] for v in TC_SIZES}


NLI = {  # premise template; entailment / neutral / contradiction hypotheses; slot words per language (held out)
    "english": ("The {p} is {a} in the {l}.", "Someone is {a} in the {l}.", "The {p} is {a} with a friend.",
                "The {p} is sleeping at home.",
                {"p": ["man", "woman", "boy", "girl", "teacher", "doctor", "farmer", "student", "nurse"],
                 "a": ["reading", "running", "cooking", "singing", "painting", "dancing", "writing", "drawing"],
                 "l": ["park", "kitchen", "garden", "library", "hall", "yard", "studio", "classroom"]}),
    "norwegian bokmål (m:written)": ("{p} {a} i {l}.", "Noen {a} i {l}.", "{p} {a} sammen med en venn.",
                                     "{p} sover hjemme.",
                                     {"p": ["Mannen", "Kvinnen", "Gutten", "Jenta", "Læreren"],
                                      "a": ["leser", "løper", "lager mat", "synger"],
                                      "l": ["parken", "kjøkkenet", "hagen", "biblioteket"]}),
    "norwegian nynorsk (m:written)": ("{p} {a} i {l}.", "Nokon {a} i {l}.", "{p} {a} saman med ein ven.",
                                      "{p} søv heime.",
                                      {"p": ["Mannen", "Kvinna", "Guten", "Jenta", "Læraren"],
                                       "a": ["les", "spring", "lagar mat", "syng"],
                                       "l": ["parken", "kjøkenet", "hagen", "biblioteket"]}),
    "spanish": ("{p} está {a} en {l}.", "Alguien está {a} en {l}.", "{p} está {a} con un amigo.",
                "{p} está durmiendo en casa.",
                {"p": ["El hombre", "La mujer", "El niño", "La maestra"],
                 "a": ["leyendo", "corriendo", "cocinando", "cantando"],
                 "l": ["el parque", "la cocina", "el jardín", "la biblioteca"]}),
    "portuguese (a:european)": ("{p} está a {a} n{l}.", "Alguém está a {a} n{l}.", "{p} está a {a} com um amigo.",
                                "{p} está a dormir em casa.",
                                {"p": ["O homem", "A mulher", "O rapaz", "A professora"],
                                 "a": ["ler", "correr", "cozinhar", "cantar"],
                                 "l": ["o parque", "a cozinha", "o jardim", "a biblioteca"]}),
}
NLI_SIZES = {"english": {"train": 40, "dev": 8, "test": 10}, "norwegian bokmål (m:written)": {"test": 10},
             "norwegian nynorsk (m:written)": {"test": 10}, "spanish": {"test": 10},
             "portuguese (a:european)": {"test": 10}}


def _nli_rows(rng: random.Random, variety: str, n: int, split: str, taken: set[str]) -> list[tuple[str, str, str]]:
    prem, ent, neu, con, slots = NLI[variety]
    kinds = list(slots)

    def make() -> list[tuple[str, str, str]]:
        values = dict(zip(kinds, _choose(rng, kinds, slots, split, slots)))
        p = prem.format(**values)
        return [(p, hyp.format(**values), label)
                for hyp, label in ((ent, "entailment"), (neu, "neutral"), (con, "contradiction"))]

    # a premise and its three hypotheses are one draw: the premise is new, so each (premise, hypothesis) is
    premises = _draw(n, make, lambda group: group[0][0], taken, f"nli/{STEM[variety]}/{split}.tsv")
    rows = [row for group in premises for row in group]
    rng.shuffle(rows)
    return rows


def build_nli(out: Path, rng: random.Random) -> dict[str, dict[str, str]]:
    texts = _Texts()
    files: dict[str, dict[str, str]] = {}
    for split in SPLITS:
        for variety, splits in NLI_SIZES.items():
            if split not in splits:
                continue
            (out / "nli" / STEM[variety]).mkdir(parents=True, exist_ok=True)
            rel = f"nli/{STEM[variety]}/{split}.tsv"
            rows = _nli_rows(rng, variety, splits[split], split, texts.taken(split))
            text = "premise\thypothesis\tlabel\n" + "".join(f"{p}\t{h}\t{lab}\n" for p, h, lab in rows)
            (out / rel).write_text(text, encoding="utf-8")
            files.setdefault(variety, {})[split] = rel
    return {v: files[v] for v in NLI_SIZES}


# ------------------------------------------------------------------------------------------------- MRC
MRC = {  # passage template, questions (question, slot answered), slot values (all held out)
    "english": ("{n} lives in {c}. {n} works as a {j}. Every morning {n} goes to work by {t}.",
                [("Where does {n} live?", "c"), ("What is {n}'s job?", "j"), ("How does {n} go to work?", "t")],
                {"n": ["Maria", "Tom", "Aisha", "Ken", "Sofia", "Ravi"],
                 "c": ["Lisbon", "Nairobi", "Cairo", "Beijing", "Oslo", "Lima", "Hanoi"],
                 "j": ["teacher", "doctor", "driver", "cook", "farmer", "nurse", "baker"],
                 "t": ["bus", "train", "bicycle", "car", "boat", "tram"]}),
    "standard arabic": ("يعيش {n} في {c}. يعمل {n} {j}. كل صباح يذهب {n} إلى العمل {t}.",
                        [("أين يعيش {n}؟", "c"), ("ما هي مهنة {n}؟", "j"), ("كيف يذهب {n} إلى العمل؟", "t")],
                        {"n": ["أحمد", "محمد", "علي", "يوسف"], "c": ["القاهرة", "الرباط", "تونس", "عمان", "بيروت"],
                         "j": ["معلما", "طبيبا", "سائقا", "طباخا"], "t": ["بالحافلة", "بالقطار", "بالدراجة", "بالسيارة"]}),
    "egyptian arabic": ("{n} عايش في {c}. {n} شغال {j}. كل يوم الصبح {n} بيروح الشغل {t}.",
                        [("{n} عايش فين؟", "c"), ("{n} شغال إيه؟", "j"), ("{n} بيروح الشغل إزاي؟", "t")],
                        {"n": ["أحمد", "محمد", "علي", "يوسف"], "c": ["القاهرة", "الرباط", "تونس", "عمان", "بيروت"],
                         "j": ["مدرس", "دكتور", "سواق", "طباخ"], "t": ["بالأتوبيس", "بالقطر", "بالعجلة", "بالعربية"]}),
    "classical-middle-modern sinitic (o:simplified)": (
        "{n}住在{c}。{n}是一个{j}。每天早上{n}坐{t}去上班。",
        [("{n}住在哪里？", "c"), ("{n}的工作是什么？", "j"), ("{n}怎么去上班？", "t")],
        {"n": ["小王", "小李", "小张", "小陈"], "c": ["北京", "上海", "广州", "南京"],
         "j": ["老师", "医生", "司机", "厨师"], "t": ["公共汽车", "火车", "出租车", "地铁"]}),
    "classical-middle-modern sinitic (o:traditional)": (
        "{n}住在{c}。{n}是一個{j}。每天早上{n}坐{t}去上班。",
        [("{n}住在哪裡？", "c"), ("{n}的工作是什麼？", "j"), ("{n}怎麼去上班？", "t")],
        {"n": ["小王", "小李", "小張", "小陳"], "c": ["北京", "上海", "廣州", "南京"],
         "j": ["老師", "醫生", "司機", "廚師"], "t": ["公共汽車", "火車", "計程車", "地鐵"]}),
}
MRC_SIZES = {"english": {"train": 40, "dev": 8, "test": 12}, "standard arabic": {"test": 12},
             "egyptian arabic": {"test": 12}, "classical-middle-modern sinitic (o:simplified)": {"test": 12},
             "classical-middle-modern sinitic (o:traditional)": {"test": 12}}
MRC_STEM = {"english": "eng_Latn", "standard arabic": "arb_Arab", "egyptian arabic": "arz_Arab",
            "classical-middle-modern sinitic (o:simplified)": "zho_Hans",
            "classical-middle-modern sinitic (o:traditional)": "zho_Hant"}


def _mrc_records(rng: random.Random, variety: str, n: int, split: str, taken: set[str]) -> list[dict[str, Any]]:
    passage_t, questions, slots = MRC[variety]
    kinds = list(slots)

    def make() -> dict[str, Any]:
        v = dict(zip(kinds, _choose(rng, kinds, slots, split, slots)))
        q_t, slot = rng.choice(questions)
        # wrong options: training never names a held-out value, not even as a distractor
        pool = slots[slot] if split == "test" else _seen(slots[slot])
        wrong = rng.sample([x for x in pool if x != v[slot]], 3)
        options = [v[slot], *wrong]
        rng.shuffle(options)
        return {"flores_passage": passage_t.format(**v), "question": q_t.format(**v),
                **{f"mc_answer{j + 1}": o for j, o in enumerate(options)},
                "correct_answer_num": str(options.index(v[slot]) + 1)}

    drawn = _draw(n, make, lambda r: f"{r['flores_passage']} || {r['question']}", taken,
                  f"mrc/{MRC_STEM[variety]}-{split}.json")
    return [{"link": f"sample/{split}/{i // 3}", "question_number": i % 3 + 1, **rec} for i, rec in enumerate(drawn)]


def build_mrc(out: Path, rng: random.Random) -> dict[str, dict[str, str]]:
    (out / "mrc").mkdir(parents=True, exist_ok=True)
    texts = _Texts()
    files: dict[str, dict[str, str]] = {}
    for split in SPLITS:
        for variety, splits in MRC_SIZES.items():
            if split not in splits:
                continue
            # a JSON list (the reader also takes Belebele's .jsonl; package data ships *.json, not *.jsonl)
            rel = f"mrc/{MRC_STEM[variety]}-{split}.json"
            recs = _mrc_records(rng, variety, splits[split], split, texts.taken(split))
            (out / rel).write_text(json.dumps(recs, ensure_ascii=False, indent=0), "utf-8")
            files.setdefault(variety, {})[split] = rel
    return {v: files[v] for v in MRC_SIZES}


# ------------------------------------------------------------------------------------------------- EQA
EQA_FACTS = {  # (context template, [(question template, answer slot)]), English and Swahili
    "en": (("{city} is the capital of {country}. The city has about {pop} million people and its main river is "
           "the {river}. The national football team plays at {stadium} stadium."),
           [("What is the capital of {country}?", "city"), ("How many million people live in {city}?", "pop"),
            ("What is the main river of {city}?", "river"), ("Where does the national team of {country} play?",
                                                              "stadium")]),
    "sw": (("{city} ni mji mkuu wa {country}. Mji huo una watu takriban milioni {pop} na mto wake mkuu ni "
           "{river}. Timu ya taifa ya mpira inachezea uwanja wa {stadium}."),
           [("Mji mkuu wa {country} ni upi?", "city"), ("Watu milioni ngapi wanaishi {city}?", "pop"),
            ("Mto mkuu wa {city} ni upi?", "river"), ("Timu ya taifa ya {country} inachezea wapi?", "stadium")]),
}
EQA_WORLD = [  # invented places, so no real-world facts are claimed
    {"city": "Amberton", "country": "Veldara", "pop": "2", "river": "Sorna", "stadium": "Kesh"},
    {"city": "Lunport", "country": "Ostrava Minor", "pop": "3", "river": "Tamel", "stadium": "Orin"},
    {"city": "Kivara", "country": "Mbalia", "pop": "4", "river": "Ruvo", "stadium": "Jabari"},
    {"city": "Tessaly", "country": "Norvane", "pop": "5", "river": "Vell", "stadium": "Harrow"},
    {"city": "Zarim", "country": "Qadira", "pop": "6", "river": "Miran", "stadium": "Sahel"},
    {"city": "Pelora", "country": "Andessa", "pop": "7", "river": "Calo", "stadium": "Brio"},
    {"city": "Moshi Mpya", "country": "Kilandi", "pop": "8", "river": "Pangani Ndogo", "stadium": "Umoja"},
    {"city": "Greyhaven", "country": "Eskor", "pop": "9", "river": "Dunmere", "stadium": "Whitcombe"},
    {"city": "Solenne", "country": "Marivel", "pop": "11", "river": "Adra", "stadium": "Corvin"},
]
EQA_NOISE = {  # ASR-like rewrites of the question per dialect (lower case, no punctuation, dialect sounds)
    "southeast american english": lambda q: q.lower().rstrip("?"),
    "kenyan english": lambda q: q.lower().rstrip("?").replace("what is", "what's").replace("the", "d"),
    "nigerian english": lambda q: q.lower().rstrip("?").replace("th", "t"),
    "swahili (a:kenya)": lambda q: q.lower().rstrip("?"),
    "swahili (a:tanzania)": lambda q: q.lower().rstrip("?").replace("mkuu", "mkubwa"),
}


def _eqa_doc(world: list[dict], lang: str, variety: str | None, split: str) -> dict[str, Any]:
    ctx_t, questions = EQA_FACTS[lang]
    data = []
    for i, facts in enumerate(world):
        ctx = ctx_t.format(**facts)
        qas = []
        for j, (q_t, slot) in enumerate(questions):
            answer = facts[slot]
            start = ctx.index(answer if slot != "city" else answer + " ni" if lang == "sw" else answer + " is")
            q = q_t.format(**facts)
            qas.append({"id": f"{split}-{i}-{j}", "question": EQA_NOISE[variety](q) if variety else q,
                        "answers": [{"text": answer, "answer_start": start}]})
        data.append({"title": facts["city"], "paragraphs": [{"context": ctx, "qas": qas}]})
    return {"version": "sample", "data": data}


def build_eqa(out: Path, rng: random.Random) -> dict[str, dict[str, str]]:
    """The places are the held-out values: train (English and Swahili) and dev passages are about five of
    them, every test passage about one of the other four."""
    (out / "eqa").mkdir(parents=True, exist_ok=True)
    world = EQA_WORLD[:]
    rng.shuffle(world)
    train, dev, test = world[:4], world[4:5], world[5:]
    files: dict[str, dict[str, str]] = {}

    def write(rel: str, doc: dict[str, Any]) -> str:
        (out / rel).write_text(json.dumps(doc, ensure_ascii=False, indent=1), "utf-8")
        return rel

    for split, part in (("train", train), ("dev", dev), ("test", test[:3])):
        files.setdefault("english", {})[split] = write(f"eqa/english-{split}.json", _eqa_doc(part, "en", None, split))
    for variety in EQA_NOISE:
        lang = "sw" if variety.startswith("swahili") else "en"
        stem = variety.split(" (")[0].replace(" ", "_") + ("_" + variety.split(":")[1][:-1] if ":" in variety else "")
        files.setdefault(variety, {})["test"] = write(f"eqa/{stem}-test.json", _eqa_doc(test, lang, variety, "test"))
        if variety == "swahili (a:kenya)":  # the representative also gets training data (combined setting)
            files[variety]["train"] = write("eqa/swahili_kenya-train.json", _eqa_doc(train, lang, None, "train"))
    return files


# -------------------------------------------------------------------------------------------------- MT
MT_DIALECT = {  # cluster folder: {file stem: lines}, the standard file, and the varieties
    "Norwegian": {
        "standard": ["Eg går heim no.", "Kva heiter du?", "Eg har ikkje sett han i dag.", "Vi skal reise til byen.",
                     "Det er kaldt ute i kveld.", "Ho kjem i morgon.", "Eg veit ikkje kva han vil.",
                     "Kor mykje kostar det?", "Vi et middag klokka fem.", "Dei bur i eit raudt hus."],
        "Eastern": ["Jeg går hjem nå.", "Hva heter du?", "Jeg har ikke sett'n i dag.", "Vi skal reise til byen.",
                    "Det er kaldt ute i kveld.", "Hu kommer i mårra.", "Jeg veit ikke hva'n vil.",
                    "Hvor mye koster det?", "Vi spiser middag klokka fem.", "Dem bor i et rødt hus."],
        "Setesdal": ["Eg gjeng heim no.", "Ka heite du?", "Eg he kje sett han i dag.", "Me ska reise te byen.",
                     "Da e kalt ute i kveld.", "Ho kjeme i mor'o.", "Eg veit kje ka han vi.",
                     "Ko mykje koste da?", "Me ete middag klokka fem.", "Dei bur i et raudt hus."],
    },
    "Arabic": {
        "standard": ["أنا ذاهب إلى البيت الآن.", "ماذا تريد أن تأكل؟", "أين المحطة من فضلك؟", "لا أعرف ماذا يريد.",
                     "كم سعر هذا؟", "سنسافر غدا إلى المدينة.", "الجو حار جدا اليوم.", "هل رأيت أخي؟",
                     "أريد كوبا من الشاي.", "متى يفتح المطعم؟"],
        "Riyadh": ["أنا رايح البيت الحين.", "وش تبي تاكل؟", "وين المحطة لو سمحت؟", "ما أدري وش يبي.",
                   "بكم هذا؟", "بنسافر بكرة للمدينة.", "الجو حار مرة اليوم.", "شفت أخوي؟", "أبي كوب شاي.",
                   "متى يفتح المطعم؟"],
        "Cairo": ["أنا رايح البيت دلوقتي.", "عايز تاكل إيه؟", "المحطة فين لو سمحت؟", "مش عارف هو عايز إيه.",
                  "ده بكام؟", "هنسافر بكرة المدينة.", "الجو حر أوي النهارده.", "شفت أخويا؟", "عايز كوباية شاي.",
                  "المطعم بيفتح امتى؟"],
    },
}
MT_DIALECT_VARIETY = {("Norwegian", "Eastern"): "norwegian (a:eastern)",
                      ("Norwegian", "Setesdal"): "norwegian (a:setesdal)",
                      ("Arabic", "Riyadh"): "gulf arabic (a:riy)", ("Arabic", "Cairo"): "egyptian arabic (a:cai)"}
TURKIC = {  # X-WMT style: source + English reference
    "turkish": ("tr", ["Bugün hava çok güzel.", "Kitabı masanın üstüne koydum.", "Yarın okula gideceğim.",
                       "Annem bize çay yaptı.", "Bu şehirde çok müze var.", "Tren saat sekizde kalkıyor."]),
    "kazakh": ("kk", ["Бүгін ауа райы өте жақсы.", "Кітапты үстелдің үстіне қойдым.", "Ертең мектепке барамын.",
                      "Анам бізге шай жасады.", "Бұл қалада мұражай көп.", "Пойыз сағат сегізде жүреді."]),
}
TURKIC_EN = ["The weather is very nice today.", "I put the book on the table.", "I will go to school tomorrow.",
             "My mother made us tea.", "There are many museums in this city.", "The train leaves at eight."]
MT_REGION = {  # region folder: standard file lines and {locality: lines}, locality -> region
    "Italian": {
        "standard": ["Domani vado al mercato.", "Mio fratello lavora in campagna.", "Che cosa fai stasera?",
                     "Non ho fame adesso.", "La casa è vicino alla chiesa.", "Ieri ha piovuto tutto il giorno."],
        "Perugia": ["Domani vo al mercato.", "Mi fratello lavora in campagna.", "Che fai stasera?",
                    "Nun ciò fame adesso.", "La casa è vicino a la chiesa.", "Ieri è piovuto tutto l giorno."],
        "Firenze": ["Domani vo al mercato.", "Mi' fratello lavora in campagna.", "I' che tu fai stasera?",
                    "Un ho fame ora.", "La casa l'è vicino alla chiesa.", "Ieri gli ha piovuto tutto i' giorno."],
    },
    "Swiss_German": {
        "Zürich,ZH": ["Morn gang ich uf de Märt.", "Min Brüeder schaffet uf em Land.", "Was machsch hüt zabig?",
                      "Ich ha jetzt kei Hunger.", "S Huus isch nöch bi de Chile.", "Geschter hets de ganz Tag grägnet."],
        "Winterthur,ZH": ["Morn gang i uf de Märt.", "Min Brüeder schaffet ufem Land.", "Was machsch hüt znacht?",
                          "I ha jetzt kei Hunger.", "S Huus isch naach bi de Chile.", "Geschter hets de ganz Tag grägnet."],
        "Bern,BE": ["Morn gahn i uf e Märit.", "Mi Brueder schaffet uf em Land.", "Was machsch hüt z'Abe?",
                    "I ha itz ke Hunger.", "Ds Huus isch nach bi dr Chiuche.", "Geschter hets dr ganz Tag grägnet."],
        "standard": ["Morgen gehe ich auf den Markt.", "Mein Bruder arbeitet auf dem Land.",
                     "Was machst du heute Abend?", "Ich habe jetzt keinen Hunger.", "Das Haus ist nahe bei der Kirche.",
                     "Gestern hat es den ganzen Tag geregnet."],
    },
}
MT_REGION_VARIETY = {"Perugia": "italian (a:umbria)", "Firenze": "italian (a:toscana)",
                     "Zürich,ZH": "central alemannic (a:zh)", "Winterthur,ZH": "central alemannic (a:zh)",
                     "Bern,BE": "central alemannic (a:be)"}


def _write_lines(out: Path, rel: str, lines: list[str]) -> str:
    (out / rel).parent.mkdir(parents=True, exist_ok=True)
    (out / rel).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return rel


def build_mt_dialect(out: Path) -> dict[str, list[tuple[dict[str, str], bool]]]:
    files: dict[str, list[tuple[dict[str, str], bool]]] = {}
    for folder, spec in MT_DIALECT.items():
        std = _write_lines(out, f"mt/{folder}/standard.txt", spec["standard"])
        for stem, lines in spec.items():
            if stem == "standard":
                continue
            src = _write_lines(out, f"mt/{folder}/{stem}.txt", lines)
            files[MT_DIALECT_VARIETY[(folder, stem)]] = [({"source": src, "reference": std}, True)]
    for variety, (code, lines) in TURKIC.items():
        src = _write_lines(out, f"mt/Turkic/{code}-en.{code}.txt", lines)
        ref = _write_lines(out, f"mt/Turkic/{code}-en.en.txt", TURKIC_EN)
        files[variety] = [({"source": src, "reference": ref}, False)]
    return files


def build_mt_region(out: Path) -> dict[str, list[tuple[dict[str, str], bool]]]:
    files: dict[str, list[tuple[dict[str, str], bool]]] = {}
    for folder, spec in MT_REGION.items():
        std = _write_lines(out, f"mt/{folder}/standard.txt", spec["standard"])
        for stem, lines in spec.items():
            if stem == "standard":
                continue
            src = _write_lines(out, f"mt/{folder}/{stem.replace(',', '_')}.txt", lines)
            files.setdefault(MT_REGION_VARIETY[stem], []).append(({"source": src, "reference": std}, True))
    return files



# ------------------------------------------------------------------------------------------ catalogues
FORMAT = {"dep": "conllu", "pos": "conllu", "ner": "iob", "did": "labelled", "sa": "labelled", "tc": "labelled",
          "nli": "pairs", "mrc": "multiple_choice", "eqa": "squad", "mt-dialect": "parallel",
          "mt-region": "parallel"}
OPTIONS = {"did": {"text_column": 1, "label_column": 2, "id_column": 0},
           "tc": {"text_column": "text", "label_column": "category", "id_column": "index_id", "header": True}}


def _simple_entries(task: str, files: dict[str, dict[str, str]], **extra: Any) -> list[dict[str, Any]]:
    out = []
    for variety, splits in files.items():
        e: dict[str, Any] = {"variety": variety, "dataset": "sample", "format": FORMAT[task]}
        if task in OPTIONS:
            e["options"] = OPTIONS[task]
        e["splits"] = {s: [{"file": {"path": p}}] for s, p in splits.items()}
        e.update(extra)
        out.append(e)
    return out


def _mt_entries(task: str, files: dict[str, list[tuple[dict[str, str], bool]]]) -> list[dict[str, Any]]:
    return [{"variety": v, "dataset": "sample", "format": "parallel",
             "options": {"pseudo_reference": pairs[0][1]},
             "splits": {"test": [{"files": {k: {"path": p} for k, p in f.items()}} for f, _ in pairs]}}
            for v, pairs in files.items()]


def write_catalogue(out: Path, task: str, entries: list[dict[str, Any]], description: str) -> None:
    data = {"task": task, "description": description, "datasets": DATASET, "entries": entries}
    TaskCatalogue.model_validate(data)
    text = ("# Sample suite catalogue, generated by dialectbench.data.sample._build (our own texts).\n"
            + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110))
    (out / f"{task}.yaml").write_text(text, encoding="utf-8")


def build(out: Path = HERE) -> None:
    """Write the whole suite (data files and `<task>.yaml` catalogues) under `out`; seeded, so the same
    bytes every time."""
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(2024)
    ud = build_ud(out, rng)
    write_catalogue(out, "dep", _simple_entries("dep", ud), "Sample dependency treebanks (CoNLL-U).")
    write_catalogue(out, "pos", _simple_entries("pos", ud), "Sample POS data (the dep CoNLL-U files).")
    write_catalogue(out, "ner", _simple_entries("ner", build_ner(out, rng)), "Sample NER (WikiANN-style IOB).")
    did = build_did(out, rng)
    did_map = {"label_map": {k: v for k, v in DID_VARIETY.items()}}
    write_catalogue(out, "did", _simple_entries("did", did, **did_map), "Sample dialect ID (DSL-TL-style TSV); "
                    "every variety of a dataset shares its splits, labels are variety names.")
    write_catalogue(out, "sa", _simple_entries("sa", build_sa(out, rng)), "Sample sentiment (text<TAB>label); the "
                    "anglic cluster is added to exercise two clusters (the paper's SA data is Arabic only).")
    write_catalogue(out, "tc", _simple_entries("tc", build_tc(out, rng)), "Sample topic classification (SIB-200 layout).")
    write_catalogue(out, "nli", _simple_entries("nli", build_nli(out, rng)), "Sample NLI (XNLI-style TSV).")
    write_catalogue(out, "mrc", _simple_entries("mrc", build_mrc(out, rng)), "Sample multiple choice (Belebele records).")
    write_catalogue(out, "eqa", _simple_entries("eqa", build_eqa(out, rng)), "Sample extractive QA (SQuAD JSON); "
                    "dialect questions are ASR-like rewrites over the same passages (invented places).")
    write_catalogue(out, "mt-dialect", _mt_entries("mt-dialect", build_mt_dialect(out)),
                    "Sample dialect MT (CODET-style line-aligned files; pseudo-references; X-WMT-style Turkic).")
    write_catalogue(out, "mt-region", _mt_entries("mt-region", build_mt_region(out)),
                    "Sample region MT (CODET-style localities grouped by region).")


def leaks(out: Path) -> list[dict[str, Any]]:
    """`data audit`'s overlap rows for the suite under `out`: test sets sharing a text with a train or dev set."""
    from dialectbench.data.catalogue import TASK_IDS, load_catalogue_file
    from dialectbench.data.overlap import audit
    from dialectbench.data.source import DataSource

    src = DataSource(out, {t: load_catalogue_file(out / f"{t}.yaml") for t in TASK_IDS}, kind="sample")
    return [r for t in TASK_IDS for r in audit(src, t)[0] if r["kind"] == "overlap"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write the bundled sample suite.")
    parser.add_argument("--out", type=Path, default=HERE, help="folder to write (default: the package's own)")
    out = parser.parse_args(argv).out
    build(out)
    found = leaks(out)
    if found:  # cannot happen by construction; a guard for whoever edits the templates
        raise SystemExit("test sets share texts with training data:\n"
                         + "\n".join(f"  {r['task']} {r['variety']} test / {r['other']} {r['other_split']}: "
                                      f"{r['shared']} of {r['n']}" for r in found))
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc"))
    print(f"sample suite written to {out} ({size / 1024:.0f} KiB); no test set shares a text with training data")


if __name__ == "__main__":
    main()
