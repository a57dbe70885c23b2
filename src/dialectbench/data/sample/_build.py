"""Build the bundled sample suite: small texts written for dialectbench, in the real datasets' formats.

    python -m dialectbench.data.sample._build

Every sentence comes from the templates and word lists below (written for this package; nothing is taken
from any dataset). Each task gets at least two clusters with at least two varieties each, the cluster
representatives of DialectBench Table 9, and English train/dev/test data for zero-shot transfer. The files are
read by the same readers as the real data (CoNLL-U, WikiANN-style IOB, DSL-TL-style TSV, SIB-200-style TSV,
XNLI-style TSV, Belebele-style JSONL, SQuAD JSON, CODET-style parallel text), through `<task>.yaml`
catalogues that use the same schema as the real catalogue.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import yaml

from dialectbench.data.catalogue.models import TaskCatalogue

OUT = Path(__file__).resolve().parent
DATASET = {"sample": {"name": "dialectbench sample suite (synthetic texts written for the package)",
                      "licence": "CC0-1.0", "citation": "dialectbench sample suite",
                      "homepage": "https://github.com/dialectbench"}}

# ------------------------------------------------------------------------------------ dependency + POS
# A template is a list of (slot-or-word, UPOS, head, deprel); slots are filled from the language's lexicon.
EN_LEX = {
    "DET": ["the", "a", "this", "that"], "ADJ": ["old", "young", "happy", "small", "big", "quiet", "busy"],
    "NOUN": ["man", "woman", "teacher", "dog", "child", "driver", "farmer", "doctor", "student", "cook"],
    "OBJ": ["book", "letter", "car", "house", "song", "ball", "cake", "paper"],
    "PLACE": ["garden", "kitchen", "market", "school", "park", "office", "station"],
    "VERB": ["reads", "writes", "buys", "sells", "sees", "finds", "paints", "carries"],
    "IVERB": ["sleeps", "sings", "waits", "smiles", "works", "runs"],
    "INF": ["buy", "see", "find", "paint", "carry", "sell"], "ING": ["working", "waiting", "singing", "running"],
    "ADP": ["in", "near", "behind"], "PRON": ["she", "he", "we", "they"], "ADV": ["today", "now", "again"],
    "NAME": ["Maria", "John", "Aisha", "Kofi", "Ling", "Pedro"],
}
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
NB_LEX = {
    "DET": ["en", "den", "denne"], "ADJ": ["gammel", "ung", "glad", "liten", "stor", "stille"],
    "NOUN": ["mann", "lærer", "hund", "sjåfør", "bonde", "lege", "student", "kokk"],
    "OBJ": ["bok", "bil", "sang", "ball", "kake", "avis", "stol"],
    "PLACE": ["hagen", "kjøkkenet", "byen", "skolen", "parken", "kontoret"],
    "VERB": ["leser", "skriver", "kjøper", "selger", "ser", "finner", "maler", "bærer"],
    "IVERB": ["sover", "synger", "venter", "smiler", "arbeider", "løper"], "ADP": ["i", "ved", "bak"],
    "PRON": ["hun", "han", "vi", "de"], "ADV": ["i dag", "nå", "igjen"], "INF": ["kjøpe", "se", "finne", "male"],
    "NAME": ["Kari", "Ola", "Ingrid", "Lars", "Sofie"],
}
NN_LEX = {
    "DET": ["ein", "den", "denne"], "ADJ": ["gammal", "ung", "glad", "liten", "stor", "stille"],
    "NOUN": ["mann", "lærar", "hund", "sjåfør", "bonde", "lege", "student", "kokk"],
    "OBJ": ["bok", "bil", "song", "ball", "kake", "avis", "stol"],
    "PLACE": ["hagen", "kjøkenet", "byen", "skulen", "parken", "kontoret"],
    "VERB": ["les", "skriv", "kjøper", "sel", "ser", "finn", "målar", "ber"],
    "IVERB": ["søv", "syng", "ventar", "smiler", "arbeider", "spring"], "ADP": ["i", "ved", "bak"],
    "PRON": ["ho", "han", "vi", "dei"], "ADV": ["i dag", "no", "igjen"], "INF": ["kjøpe", "sjå", "finne", "måle"],
    "NAME": ["Kari", "Ola", "Ingrid", "Lars", "Sofie"],
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


def _fill(rng: random.Random, template: list, lex: dict[str, list[str]]) -> list[tuple[str, str, int, str]]:
    out = []
    for slot, upos, head, rel in template:
        word = rng.choice(lex[slot]) if slot in lex else slot
        out.append((word.replace(" ", "_") if " " in word else word, upos, head, rel))
    return out


def _sentence_block(sid: str, words: list[tuple[str, str, int, str]]) -> str:
    text = " ".join(w for w, *_ in words)
    if words and words[0][0][:1].islower():
        text = text[0].upper() + text[1:]
    lines = [f"# sent_id = {sid}", f"# text = {text}"]
    for i, (w, upos, head, rel) in enumerate(words, 1):
        lines.append("\t".join([str(i), w, w.lower(), upos, "_", "_", str(head), rel, "_", "_"]))
    return "\n".join(lines) + "\n\n"


def write_conllu(path: Path, prefix: str, rng: random.Random, templates: list, lex: dict, n: int) -> None:
    blocks = [_sentence_block(f"{prefix}-{i:04d}", _fill(rng, rng.choice(templates), lex)) for i in range(n)]
    path.write_text("".join(blocks), encoding="utf-8")


def build_ud(rng: random.Random) -> dict[str, dict[str, str]]:
    """Files for dep and pos (shared): {variety: {split: relative path}}."""
    d = OUT / "ud"
    d.mkdir(exist_ok=True)
    plan = {
        "english": ("en_sample", EN_TEMPLATES, EN_LEX, {"train": 120, "dev": 30, "test": 40}),
        "singlish": ("singlish_sample", SINGLISH_TEMPLATES, EN_LEX, {"test": 30}),
        "african american vernacular english": ("aave_sample", AAVE_TEMPLATES, EN_LEX, {"test": 30}),
        "norwegian bokmål (m:written)": ("nb_sample", NO_TEMPLATES, NB_LEX, {"train": 80, "dev": 20, "test": 30}),
        "norwegian nynorsk (m:written)": ("nn_sample", NO_TEMPLATES, NN_LEX, {"train": 40, "test": 30}),
    }
    files: dict[str, dict[str, str]] = {}
    for variety, (stem, templates, lex, sizes) in plan.items():
        for split, n in sizes.items():
            rel = f"ud/{stem}-{split}.conllu"
            write_conllu(OUT / rel, f"{stem}-{split}", rng, templates, lex, n)
            files.setdefault(variety, {})[split] = rel
    return files


# ------------------------------------------------------------------------------------------------- NER
NER_LEX = {
    "en": {"PER": ["John Smith", "Mary Jones", "Peter", "Grace Okafor", "David Brown", "Amina"],
           "ORG": ["Acme Bank", "the United Nations", "Oxford University", "Blue Star Airlines", "Green Foods"],
           "LOC": ["London", "Kingston", "Lagos", "New York", "Kenya", "Paris", "Toronto"]},
    "no": {"PER": ["Kari Nordmann", "Ola", "Ingrid Berg", "Lars Hansen", "Sofie"],
           "ORG": ["Statoil", "Universitetet i Oslo", "Norsk Bank", "Fjordfly", "Bergen Mat"],
           "LOC": ["Oslo", "Bergen", "Tromsø", "Stavanger", "Sverige", "Trondheim"]},
}
NER_TEMPLATES = {
    "english": ["{PER} visited {LOC} last week .", "{PER} works for {ORG} in {LOC} .",
                "{ORG} opened a new office in {LOC} .", "Yesterday {PER} met {PER} at {ORG} .",
                "The weather in {LOC} was cold today ."],
    "jamaican creole english": ["{PER} did go a {LOC} last week .", "Mi see {PER} a {ORG} yesterday .",
                                "{PER} a work fi {ORG} inna {LOC} .", "Dem seh {LOC} hot bad today ."],
    "norwegian bokmål (m:written)": ["{PER} besøkte {LOC} i forrige uke .", "{PER} jobber i {ORG} i {LOC} .",
                                     "{ORG} åpnet et nytt kontor i {LOC} .", "I går møtte {PER} {PER} hos {ORG} ."],
    "norwegian nynorsk (m:written)": ["{PER} vitja {LOC} i førre veke .", "{PER} arbeider i {ORG} i {LOC} .",
                                      "{ORG} opna eit nytt kontor i {LOC} .", "I går møtte {PER} {PER} hjå {ORG} ."],
}


def _ner_sentence(rng: random.Random, template: str, lex: dict[str, list[str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for piece in template.split():
        if piece.startswith("{") and piece.endswith("}"):
            kind = piece[1:-1]
            for j, tok in enumerate(rng.choice(lex[kind]).split()):
                out.append((tok, ("B-" if j == 0 else "I-") + kind))
        else:
            out.append((piece, "O"))
    return out


def build_ner(rng: random.Random) -> dict[str, dict[str, str]]:
    (OUT / "ner").mkdir(exist_ok=True)
    sizes = {"english": {"train": 120, "dev": 30, "test": 40}, "jamaican creole english": {"test": 30},
             "norwegian bokmål (m:written)": {"train": 80, "dev": 20, "test": 30},
             "norwegian nynorsk (m:written)": {"test": 30}}
    stems = {"english": "en", "jamaican creole english": "jam", "norwegian bokmål (m:written)": "nb",
             "norwegian nynorsk (m:written)": "nn"}
    files: dict[str, dict[str, str]] = {}
    for variety, splits in sizes.items():
        lex = NER_LEX["no" if variety.startswith("norwegian") else "en"]
        for split, n in splits.items():
            rel = f"ner/{stems[variety]}-{split}.bio"
            sents = [_ner_sentence(rng, rng.choice(NER_TEMPLATES[variety]), lex) for _ in range(n)]
            (OUT / rel).write_text("".join("".join(f"{t} {g}\n" for t, g in s) + "\n" for s in sents), "utf-8")
            files.setdefault(variety, {})[split] = rel
    return files


# ------------------------------------------------------------------------------------------------- DId
DID = {
    "english": {  # DSL-TL style: id<TAB>text<TAB>label
        "EN-GB": ["The {c} of the {n} was lovely, and we queued for the lorry at the {p}.",
                  "I put my {n} in the boot of the car before we left the flat.",
                  "Our neighbour organised a {n} fair at the {p} this autumn.",
                  "She rang the council about the rubbish bins outside the flat.",
                  "We caught the underground to the {p} and had a biscuit with our tea."],
        "EN-US": ["The {c} of the {n} was awesome, and we waited in line for the truck at the {p}.",
                  "I put my {n} in the trunk of the car before we left the apartment.",
                  "Our neighbor organized a {n} fair at the {p} this fall.",
                  "She called the city about the garbage cans outside the apartment.",
                  "We took the subway to the {p} and had a cookie with our coffee."],
        "vars": {"c": ["colour", "color"], "n": ["book", "garden", "bicycle", "school"], "p": ["centre", "center",
                                                                                            "market", "station"]},
    },
    "portuguese": {
        "PT-BR": ["Eu peguei o ônibus para o {p} porque o trem estava atrasado.",
                  "Você está {v} muito bem hoje, meu amigo.", "Meu celular quebrou quando eu estava no {p}.",
                  "A gente vai tomar um café da manhã com suco de {f} na padaria.",
                  "Ela está {v} no escritório desde cedo."],
        "PT-PT": ["Eu apanhei o autocarro para o {p} porque o comboio estava atrasado.",
                  "Tu estás a {w} muito bem hoje, meu amigo.", "O meu telemóvel avariou quando eu estava no {p}.",
                  "Vamos tomar o pequeno-almoço com sumo de {f} na pastelaria.",
                  "Ela está a {w} no escritório desde cedo."],
        "vars": {"p": ["centro", "mercado", "estádio", "aeroporto"], "v": ["trabalhando", "cantando", "jogando"],
                 "w": ["trabalhar", "cantar", "jogar"], "f": ["laranja", "maçã", "uva"]},
    },
}
DID_VARIETY = {"EN-GB": "english (a:uk)", "EN-US": "north american english", "PT-BR": "brazilian portuguese",
               "PT-PT": "portuguese (a:european)"}


def _fill_text(rng: random.Random, template: str, slots: dict[str, list[str]]) -> str:
    out = template
    for key, values in slots.items():
        while "{" + key + "}" in out:
            out = out.replace("{" + key + "}", rng.choice(values), 1)
    return out


DID_SHARED = {  # sentences written the same way in both varieties: they make the task realistically imperfect
    "english": ["The meeting starts at nine.", "My sister likes music.", "We walked to the river.",
                "The children played outside all day.", "He wrote a short letter."],
    "portuguese": ["A reunião começa às nove.", "Ela gosta de música.", "As crianças brincaram lá fora.",
                   "O livro está em cima da mesa.", "Ele escreveu uma carta curta."],
}


def build_did(rng: random.Random) -> dict[str, dict[str, str]]:
    (OUT / "did").mkdir(exist_ok=True)
    files: dict[str, dict[str, str]] = {}
    for group, spec in DID.items():
        labels = [k for k in spec if k != "vars"]
        for split, n in (("train", 40), ("test", 15)):
            rows, idx = [], 0
            for label in labels:
                for _ in range(n):
                    idx += 1
                    pool = DID_SHARED[group] if rng.random() < 0.2 else spec[label]
                    rows.append(f"{idx}\t{_fill_text(rng, rng.choice(pool), spec['vars'])}\t{label}")
            rng.shuffle(rows)
            rel = f"did/{group}_{split}.tsv"
            (OUT / rel).write_text("\n".join(rows) + "\n", encoding="utf-8")
            for label in labels:
                files.setdefault(DID_VARIETY[label], {})[split] = rel
    return files


# -------------------------------------------------------------------------------------------------- SA
SA = {  # variety: (file stem, {label: templates}, slots)
    "standard arabic": ("arb", {"positive": ["الخدمة {pa} جدا", "المنتج {pa} وأنصح به", "تجربة {pa} في {p}"],
                                "negative": ["الخدمة {na} جدا", "المنتج {na} ولا أنصح به", "تجربة {na} في {p}"]},
                        {"pa": ["ممتازة", "رائعة", "جميلة", "جيدة"], "na": ["سيئة", "رديئة", "مزعجة", "ضعيفة"],
                         "p": ["المطعم", "الفندق", "البنك", "المتجر"]}),
    "egyptian arabic": ("arz", {"positive": ["الخدمة {pa} أوي", "المحل ده {pa} بجد", "أنا مبسوط من {p} أوي"],
                                "negative": ["الخدمة {na} أوي", "المحل ده {na} بجد", "أنا زعلان من {p} أوي"]},
                        {"pa": ["حلوة", "جامدة", "تحفة"], "na": ["وحشة", "بايظة", "زفت"],
                         "p": ["المطعم", "البنك", "الفندق"]}),
    "tunisian arabic (r:casual)": ("aeb_latn", {"positive": ["{pa} barcha el {p}", "el {p} {pa} w nensa7kom",
                                                             "ya3tikom essa7a {pa}"],
                                                "negative": ["{na} barcha el {p}", "el {p} {na} w ma nensa7komch",
                                                             "3ib 3likom {na}"]},
                                   {"pa": ["behi", "mezyen", "5ayeb ken"], "na": ["5ayeb", "mouch behi", "ta3ban"],
                                    "p": ["restau", "bank", "service"]}),
    "english": ("en", {"positive": ["The {p} was {pa} and the staff were kind.", "I really {pv} this {p}.",
                                    "A {pa} experience, I will come back."],
                       "negative": ["The {p} was {na} and the staff were rude.", "I really {nv} this {p}.",
                                    "A {na} experience, I will not come back."]},
                {"pa": ["great", "excellent", "wonderful", "lovely"], "na": ["terrible", "awful", "poor", "bad"],
                 "pv": ["love", "like", "enjoy"], "nv": ["hate", "dislike", "regret"],
                 "p": ["hotel", "restaurant", "bank", "shop", "service"]}),
    "nigerian english": ("en_ng", {"positive": ["This {p} dey {pa} well well.", "The {p} sweet me die, {pa} one."],
                                   "negative": ["This {p} no good at all, e {na}.", "The {p} vex me, {na} one."]},
                         {"pa": ["correct", "fine", "better"], "na": ["bad", "wack", "rubbish"],
                          "p": ["hotel", "restaurant", "bank", "shop"]}),
}


def build_sa(rng: random.Random) -> dict[str, dict[str, str]]:
    (OUT / "sa").mkdir(exist_ok=True)
    sizes = {"standard arabic": {"train": 40, "dev": 8, "test": 15}, "egyptian arabic": {"test": 15},
             "tunisian arabic (r:casual)": {"train": 30, "test": 15},
             "english": {"train": 40, "dev": 8, "test": 15}, "nigerian english": {"test": 15}}
    files: dict[str, dict[str, str]] = {}
    for variety, splits in sizes.items():
        stem, by_label, slots = SA[variety]
        for split, n in splits.items():
            rows = [f"{_fill_text(rng, rng.choice(t), slots)}\t{label}"
                    for label, t in by_label.items() for _ in range(n)]
            rng.shuffle(rows)
            rel = f"sa/{stem}_{split}.tsv"
            (OUT / rel).write_text("\n".join(rows) + "\n", encoding="utf-8")
            files.setdefault(variety, {})[split] = rel
    return files


# ------------------------------------------------------------------------------------------- TC + NLI
TOPICS = {
    "english": {"sports": ["The {t} won the match after a late goal.", "Fans watched the {t} train for the final."],
                "politics": ["The {g} passed a new law on taxes.", "Voters will elect a new {g} next year."],
                "health": ["Doctors say {h} helps to prevent illness.", "The clinic offers free {h} for children."],
                "travel": ["Tourists took the {v} to visit the old town.", "Our {v} to the coast left at dawn."],
                "s": {"t": ["team", "club", "players"], "g": ["parliament", "government", "president"],
                      "h": ["exercise", "vaccination", "sleep"], "v": ["train", "ferry", "bus"]}},
    "norwegian bokmål (m:written)": {
        "sports": ["{t} vant kampen etter et sent mål.", "Fansen så {t} trene før finalen."],
        "politics": ["{g} vedtok en ny lov om skatt.", "Velgerne skal velge ny {g} neste år."],
        "health": ["Leger sier at {h} hindrer sykdom.", "Klinikken tilbyr gratis {h} til barn."],
        "travel": ["Turistene tok {v} for å se gamlebyen.", "{v} til kysten gikk ved daggry."],
        "s": {"t": ["laget", "klubben", "spillerne"], "g": ["stortinget", "regjeringen", "ordføreren"],
              "h": ["trening", "vaksine", "søvn"], "v": ["toget", "ferja", "bussen"]}},
    "norwegian nynorsk (m:written)": {
        "sports": ["{t} vann kampen etter eit seint mål.", "Fansen såg {t} trene før finalen."],
        "politics": ["{g} vedtok ei ny lov om skatt.", "Veljarane skal velje ny {g} neste år."],
        "health": ["Legar seier at {h} hindrar sjukdom.", "Klinikken tilbyr gratis {h} til born."],
        "travel": ["Turistane tok {v} for å sjå gamlebyen.", "{v} til kysten gjekk ved daggry."],
        "s": {"t": ["laget", "klubben", "spelarane"], "g": ["stortinget", "regjeringa", "ordføraren"],
              "h": ["trening", "vaksine", "søvn"], "v": ["toget", "ferja", "bussen"]}},
    "spanish": {"sports": ["El {t} ganó el partido con un gol tardío.", "Los aficionados vieron entrenar al {t}."],
                "politics": ["El {g} aprobó una nueva ley de impuestos.", "Los votantes elegirán un nuevo {g}."],
                "health": ["Los médicos dicen que el {h} previene enfermedades.",
                           "La clínica ofrece {h} gratis a los niños."],
                "travel": ["Los turistas tomaron el {v} para visitar el casco antiguo.",
                           "Nuestro {v} a la costa salió al amanecer."],
                "s": {"t": ["equipo", "club"], "g": ["parlamento", "gobierno", "presidente"],
                      "h": ["ejercicio", "descanso"], "v": ["tren", "ferry", "autobús"]}},
    "portuguese (a:european)": {
        "sports": ["O {t} venceu o jogo com um golo tardio.", "Os adeptos viram o {t} treinar para a final."],
        "politics": ["O {g} aprovou uma nova lei sobre impostos.", "Os eleitores vão eleger um novo {g}."],
        "health": ["Os médicos dizem que o {h} previne doenças.", "A clínica oferece {h} grátis às crianças."],
        "travel": ["Os turistas apanharam o {v} para visitar a cidade velha.",
                   "O nosso {v} para a costa partiu de madrugada."],
        "s": {"t": ["clube", "plantel"], "g": ["parlamento", "governo", "presidente"],
              "h": ["exercício", "descanso"], "v": ["comboio", "ferry", "autocarro"]}},
}
TC_SIZES = {"english": {"train": 20, "dev": 4, "test": 8}, "norwegian bokmål (m:written)": {"train": 15, "test": 8},
            "norwegian nynorsk (m:written)": {"test": 8}, "spanish": {"train": 15, "test": 8},
            "portuguese (a:european)": {"test": 8}}
STEM = {"english": "eng_Latn", "norwegian bokmål (m:written)": "nob_Latn", "norwegian nynorsk (m:written)": "nno_Latn",
        "spanish": "spa_Latn", "portuguese (a:european)": "por_Latn"}


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def build_tc(rng: random.Random) -> dict[str, dict[str, str]]:
    files: dict[str, dict[str, str]] = {}
    for variety, splits in TC_SIZES.items():
        spec = TOPICS[variety]
        (OUT / "tc" / STEM[variety]).mkdir(parents=True, exist_ok=True)
        for split, n in splits.items():
            rows = [(topic, _capital(_fill_text(rng, rng.choice(spec[topic]), spec["s"])))
                    for topic in ("sports", "politics", "health", "travel") for _ in range(n)]
            rng.shuffle(rows)
            rel = f"tc/{STEM[variety]}/{split}.tsv"
            body = "".join(f"{i}\t{topic}\t{text}\n" for i, (topic, text) in enumerate(rows))
            (OUT / rel).write_text("index_id\tcategory\ttext\n" + body, encoding="utf-8")
            files.setdefault(variety, {})[split] = rel
    return files


NLI = {  # premise template; entailment / neutral / contradiction hypotheses; slot words per language
    "english": ("The {p} is {a} in the {l}.", "Someone is {a} in the {l}.", "The {p} is {a} with a friend.",
                "The {p} is sleeping at home.",
                {"p": ["man", "woman", "boy", "girl", "teacher"], "a": ["reading", "running", "cooking", "singing"],
                 "l": ["park", "kitchen", "garden", "library"]}),
    "norwegian bokmål (m:written)": ("{p} {a} i {l}.", "Noen {a} i {l}.", "{p} {a} sammen med en venn.",
                                     "{p} sover hjemme.",
                                     {"p": ["Mannen", "Kvinnen", "Gutten", "Jenta"], "a": ["leser", "løper", "lager mat"],
                                      "l": ["parken", "kjøkkenet", "hagen"]}),
    "norwegian nynorsk (m:written)": ("{p} {a} i {l}.", "Nokon {a} i {l}.", "{p} {a} saman med ein ven.",
                                      "{p} søv heime.",
                                      {"p": ["Mannen", "Kvinna", "Guten", "Jenta"], "a": ["les", "spring", "lagar mat"],
                                       "l": ["parken", "kjøkenet", "hagen"]}),
    "spanish": ("{p} está {a} en {l}.", "Alguien está {a} en {l}.", "{p} está {a} con un amigo.",
                "{p} está durmiendo en casa.",
                {"p": ["El hombre", "La mujer", "El niño"], "a": ["leyendo", "corriendo", "cocinando"],
                 "l": ["el parque", "la cocina", "el jardín"]}),
    "portuguese (a:european)": ("{p} está a {a} n{l}.", "Alguém está a {a} n{l}.", "{p} está a {a} com um amigo.",
                                "{p} está a dormir em casa.",
                                {"p": ["O homem", "A mulher", "O rapaz"], "a": ["ler", "correr", "cozinhar"],
                                 "l": ["o parque", "a cozinha", "o jardim"]}),
}
NLI_SIZES = {"english": {"train": 40, "dev": 8, "test": 10}, "norwegian bokmål (m:written)": {"test": 10},
             "norwegian nynorsk (m:written)": {"test": 10}, "spanish": {"test": 10},
             "portuguese (a:european)": {"test": 10}}


def _nli_rows(rng: random.Random, variety: str, n: int) -> list[tuple[str, str, str]]:
    prem, ent, neu, con, slots = NLI[variety]
    rows = []
    for _ in range(n):
        values = {k: rng.choice(v) for k, v in slots.items()}
        p = prem.format(**values)
        for hyp, label in ((ent, "entailment"), (neu, "neutral"), (con, "contradiction")):
            rows.append((p, hyp.format(**values), label))
    rng.shuffle(rows)
    return rows


def build_nli(rng: random.Random) -> dict[str, dict[str, str]]:
    files: dict[str, dict[str, str]] = {}
    for variety, splits in NLI_SIZES.items():
        (OUT / "nli" / STEM[variety]).mkdir(parents=True, exist_ok=True)
        for split, n in splits.items():
            rel = f"nli/{STEM[variety]}/{split}.tsv"
            rows = _nli_rows(rng, variety, n).copy()
            text = "premise\thypothesis\tlabel\n" + "".join(f"{p}\t{h}\t{lab}\n" for p, h, lab in rows)
            (OUT / rel).write_text(text, encoding="utf-8")
            files.setdefault(variety, {})[split] = rel
    return files


# ------------------------------------------------------------------------------------------------- MRC
MRC = {  # passage template, questions (question, slot answered), slot values
    "english": ("{n} lives in {c}. {n} works as a {j}. Every morning {n} goes to work by {t}.",
                [("Where does {n} live?", "c"), ("What is {n}'s job?", "j"), ("How does {n} go to work?", "t")],
                {"n": ["Maria", "Tom", "Aisha", "Ken"], "c": ["Lisbon", "Nairobi", "Cairo", "Beijing", "Oslo"],
                 "j": ["teacher", "doctor", "driver", "cook", "farmer"], "t": ["bus", "train", "bicycle", "car"]}),
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


def _mrc_records(rng: random.Random, variety: str, n: int, split: str) -> list[dict[str, Any]]:
    passage_t, questions, slots = MRC[variety]
    records = []
    for i in range(n):
        v = {k: rng.choice(vals) for k, vals in slots.items()}
        q_t, slot = rng.choice(questions)
        wrong = rng.sample([x for x in slots[slot] if x != v[slot]], 3)
        options = [v[slot], *wrong]
        rng.shuffle(options)
        rec = {"link": f"sample/{split}/{i // 3}", "question_number": i % 3 + 1,
               "flores_passage": passage_t.format(**v), "question": q_t.format(**v),
               **{f"mc_answer{j + 1}": o for j, o in enumerate(options)},
               "correct_answer_num": str(options.index(v[slot]) + 1)}
        records.append(rec)
    return records


def build_mrc(rng: random.Random) -> dict[str, dict[str, str]]:
    (OUT / "mrc").mkdir(exist_ok=True)
    files: dict[str, dict[str, str]] = {}
    for variety, splits in MRC_SIZES.items():
        for split, n in splits.items():
            # a JSON list (the reader also takes Belebele's .jsonl; package data ships *.json, not *.jsonl)
            rel = f"mrc/{MRC_STEM[variety]}-{split}.json"
            recs = _mrc_records(rng, variety, n, split)
            (OUT / rel).write_text(json.dumps(recs, ensure_ascii=False, indent=0), "utf-8")
            files.setdefault(variety, {})[split] = rel
    return files


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


def build_eqa(rng: random.Random) -> dict[str, dict[str, str]]:
    (OUT / "eqa").mkdir(exist_ok=True)
    world = EQA_WORLD[:]
    rng.shuffle(world)
    files: dict[str, dict[str, str]] = {}
    for split, part in (("train", world[:4]), ("dev", world[4:5]), ("test", world[5:])):
        rel = f"eqa/english-{split}.json"
        (OUT / rel).write_text(json.dumps(_eqa_doc(part, "en", None, split), ensure_ascii=False, indent=1), "utf-8")
        files.setdefault("english", {})[split] = rel
    for variety in EQA_NOISE:
        lang = "sw" if variety.startswith("swahili") else "en"
        stem = variety.split(" (")[0].replace(" ", "_") + ("_" + variety.split(":")[1][:-1] if ":" in variety else "")
        rel = f"eqa/{stem}-test.json"
        (OUT / rel).write_text(json.dumps(_eqa_doc(world[4:], lang, variety, "test"), ensure_ascii=False, indent=1),
                               "utf-8")
        files.setdefault(variety, {})["test"] = rel
        if variety == "swahili (a:kenya)":  # the representative also gets training data (combined setting)
            rel = "eqa/swahili_kenya-train.json"
            (OUT / rel).write_text(json.dumps(_eqa_doc(world[:4], lang, None, "train"), ensure_ascii=False,
                                              indent=1), "utf-8")
            files[variety]["train"] = rel
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


def _write_lines(rel: str, lines: list[str]) -> str:
    (OUT / rel).parent.mkdir(parents=True, exist_ok=True)
    (OUT / rel).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return rel


def build_mt_dialect() -> dict[str, list[tuple[dict[str, str], bool]]]:
    files: dict[str, list[tuple[dict[str, str], bool]]] = {}
    for folder, spec in MT_DIALECT.items():
        std = _write_lines(f"mt/{folder}/standard.txt", spec["standard"])
        for stem, lines in spec.items():
            if stem == "standard":
                continue
            src = _write_lines(f"mt/{folder}/{stem}.txt", lines)
            files[MT_DIALECT_VARIETY[(folder, stem)]] = [({"source": src, "reference": std}, True)]
    for variety, (code, lines) in TURKIC.items():
        src = _write_lines(f"mt/Turkic/{code}-en.{code}.txt", lines)
        ref = _write_lines(f"mt/Turkic/{code}-en.en.txt", TURKIC_EN)
        files[variety] = [({"source": src, "reference": ref}, False)]
    return files


def build_mt_region() -> dict[str, list[tuple[dict[str, str], bool]]]:
    files: dict[str, list[tuple[dict[str, str], bool]]] = {}
    for folder, spec in MT_REGION.items():
        std = _write_lines(f"mt/{folder}/standard.txt", spec["standard"])
        for stem, lines in spec.items():
            if stem == "standard":
                continue
            src = _write_lines(f"mt/{folder}/{stem.replace(',', '_')}.txt", lines)
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


def write_catalogue(task: str, entries: list[dict[str, Any]], description: str) -> None:
    data = {"task": task, "description": description, "datasets": DATASET, "entries": entries}
    TaskCatalogue.model_validate(data)
    text = ("# Sample suite catalogue, generated by dialectbench.data.sample._build (our own texts).\n"
            + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110))
    (OUT / f"{task}.yaml").write_text(text, encoding="utf-8")


def main() -> None:
    rng = random.Random(2024)
    ud = build_ud(rng)
    write_catalogue("dep", _simple_entries("dep", ud), "Sample dependency treebanks (CoNLL-U).")
    write_catalogue("pos", _simple_entries("pos", ud), "Sample POS data (the dep CoNLL-U files).")
    write_catalogue("ner", _simple_entries("ner", build_ner(rng)), "Sample NER (WikiANN-style IOB).")
    did = build_did(rng)
    did_map = {"label_map": {k: v for k, v in DID_VARIETY.items()}}
    write_catalogue("did", _simple_entries("did", did, **did_map), "Sample dialect ID (DSL-TL-style TSV); "
                    "every variety of a dataset shares its splits, labels are variety names.")
    write_catalogue("sa", _simple_entries("sa", build_sa(rng)), "Sample sentiment (text<TAB>label); the "
                    "anglic cluster is added to exercise two clusters (the paper's SA data is Arabic only).")
    write_catalogue("tc", _simple_entries("tc", build_tc(rng)), "Sample topic classification (SIB-200 layout).")
    write_catalogue("nli", _simple_entries("nli", build_nli(rng)), "Sample NLI (XNLI-style TSV).")
    write_catalogue("mrc", _simple_entries("mrc", build_mrc(rng)), "Sample multiple choice (Belebele records).")
    write_catalogue("eqa", _simple_entries("eqa", build_eqa(rng)), "Sample extractive QA (SQuAD JSON); dialect "
                    "questions are ASR-like rewrites over the same passages (invented places).")
    write_catalogue("mt-dialect", _mt_entries("mt-dialect", build_mt_dialect()),
                    "Sample dialect MT (CODET-style line-aligned files; pseudo-references; X-WMT-style Turkic).")
    write_catalogue("mt-region", _mt_entries("mt-region", build_mt_region()),
                    "Sample region MT (CODET-style localities grouped by region).")
    size = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file() and p.suffix != ".py")
    print(f"sample suite written to {OUT} ({size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
