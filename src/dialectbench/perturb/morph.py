"""English inflection helpers for the rules. UD's `Sentence` here keeps no lemma or FEATS, so number,
person and tense are read off the form and UPOS; each helper returns None when unsure, and the rule then
has no site there (a wrong form would be worse than a missed one)."""

from __future__ import annotations

import re

SUBJ_3SG = {"he", "she", "it", "this", "that", "everyone", "everybody", "someone", "somebody", "nobody",
            "anyone", "anybody", "everything", "something", "nothing", "one"}
SUBJ_PRON = {"i", "you", "he", "she", "it", "we", "they"}
BE_PRESENT = {"is", "are", "am", "'s", "'re", "'m"}
BE_PAST = {"was", "were"}
HAVE_FORMS = {"have", "has", "'ve", "had", "'d"}
MODALS = {"can", "could", "should", "would", "will", "shall", "may", "might", "must", "'ll"}
NEG = {"not", "n't"}
# Stative verbs (the progressive extension of eWAVE feature 89 targets them); third-person forms too.
STATIVE = {"know": "knowing", "want": "wanting", "like": "liking", "need": "needing", "understand":
           "understanding", "believe": "believing", "love": "loving", "hate": "hating", "think": "thinking",
           "own": "owning", "prefer": "preferring", "remember": "remembering", "mean": "meaning"}
IRREGULAR_PLURAL_S = {"children": "childrens", "people": "peoples", "men": "mens", "women": "womens",
                      "feet": "feets", "teeth": "teeths", "mice": "mices"}
MASS_NOUNS = {"information": "informations", "advice": "advices", "furniture": "furnitures",
              "equipment": "equipments", "luggage": "luggages", "baggage": "baggages", "homework": "homeworks",
              "feedback": "feedbacks", "staff": "staffs", "research": "researches", "software": "softwares",
              "knowledge": "knowledges", "mail": "mails", "jewellery": "jewelleries", "jewelry": "jewelries"}
COMPARATIVES = {"bigger", "better", "worse", "smaller", "larger", "easier", "harder", "faster", "higher",
                "lower", "older", "younger", "cheaper", "greater", "longer", "shorter", "nicer", "stronger",
                "happier", "newer", "closer", "richer", "quicker", "safer", "simpler"}  # not later/further: adverbs of time
SUPERLATIVES = {"biggest", "best", "worst", "smallest", "largest", "easiest", "hardest", "fastest", "highest",
                "lowest", "oldest", "youngest", "cheapest", "greatest", "longest", "nicest", "strongest",
                "happiest", "newest", "closest", "richest", "quickest", "safest", "simplest"}
NEG_CONCORD = {"any": "no", "anything": "nothing", "anybody": "nobody", "anyone": "nobody",
               "anywhere": "nowhere", "ever": "never"}
NUMBERS = {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "many", "several",
           "few", "some", "all", "both", "hundred", "thousand", "million", "dozens", "lot"}
_VOWELS = "aeiou"


def match_case(new: str, old: str) -> str:
    """`new` written with `old`'s capitalisation (Is -> Ai, IS -> AI)."""
    if old.isupper() and len(old) > 1:
        return new.upper()
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def strip_s(form: str) -> str | None:
    """walks -> walk, goes -> go, tries -> try, watches -> watch; None when the form is not an -s form."""
    low = form.lower()
    if len(low) < 3 or not low.endswith("s") or low.endswith(("ss", "us", "is", "'s")):
        return None
    if low.endswith("ies") and len(low) > 4:
        stem = low[:-3] + "y"
    elif low.endswith(("sses", "shes", "ches", "xes", "zzes", "oes")):
        stem = low[:-2]
    else:
        stem = low[:-1]
    return match_case(stem, form)


def strip_ed(form: str) -> str | None:
    """Regular past -> bare form where the spelling makes it certain: tried -> try, stopped -> stop,
    walked -> walk, needed -> need. None otherwise (liked/opened are ambiguous without a lexicon)."""
    low = form.lower()
    if len(low) < 5 or not low.endswith("ed"):
        return None
    if low.endswith("ied"):
        stem = low[:-3] + "y"
    elif low[-3] == low[-4] and low[-3] not in _VOWELS + "lsz":
        stem = low[:-3]  # stopped -> stop (but called, passed keep their double letter)
    else:
        stem = low[:-2]
        two_consonants = stem[-1] not in _VOWELS and stem[-2] not in _VOWELS and stem[-1] not in "y"
        vowel_pair = stem[-1] not in _VOWELS and stem[-2] in _VOWELS and stem[-3] in _VOWELS
        if not (two_consonants or vowel_pair) or re.search(r"[^aeiou]e?$", stem) is None:
            return None
    return match_case(stem, form)


def singular(form: str) -> str | None:
    """Plural noun -> singular (books -> book, boxes -> box, cities -> city); None for non -s plurals."""
    return strip_s(form)
