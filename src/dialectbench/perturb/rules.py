"""The rule functions, registered by id; rules.yaml holds each one's eWAVE feature, description, label
policy and examples. A rule returns its *sites*: one closure per place it could apply, each making the
edits of one application (tree.py says what edits do to labels). The engine decides which sites fire."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from dialectbench.perturb import morph as m
from dialectbench.perturb.tree import Tok, Tree

Site = Callable[[], None]
RuleFn = Callable[[Tree], list[Site]]
RULES: dict[str, RuleFn] = {}


def rule(rule_id: str) -> Callable[[RuleFn], RuleFn]:
    def register(fn: RuleFn) -> RuleFn:
        RULES[rule_id] = fn
        return fn
    return register


def _rel(t: Tok) -> str:
    return t.deprel.split(":")[0]


def _subject(tree: Tree, verb: Tok) -> Tok | None:
    return next((k for k in tree.children(verb) if _rel(k) == "nsubj"), None)


def _is_3sg(tree: Tree, subj: Tok | None) -> bool:
    if subj is None:
        return False
    if subj.upos == "PRON":
        return subj.low in m.SUBJ_3SG
    if subj.upos in ("NOUN", "PROPN"):
        plural = subj.upos == "NOUN" and m.singular(subj.form) is not None
        return not plural and not tree.children(subj, "conj")
    return False


def _neg_of(tree: Tree, aux: Tok) -> Tok | None:
    """The `not`/`n't` right after an auxiliary (is n't, does not)."""
    nxt = tree.next(aux)
    return nxt if nxt is not None and nxt.low in m.NEG else None


# ------------------------------------------------------------------------------- copula and auxiliaries
# is/are only: am/'m is rule am_deletion's (a variety can delete is/are and keep am, as AAVE does), except
# before gonna, where eWAVE's own example of F175 is 1sg (`I Ø gonna go work`)
_BE_DELETABLE = m.BE_PRESENT - {"am", "'m"}


def _copula_sites(tree: Tree, predicate: Callable[[Tree, Tok], bool]) -> list[Site]:
    sites = []
    for t in tree:
        if t.deprel == "cop" and t.low in _BE_DELETABLE and t.head is not None and _neg_of(tree, t) is None \
                and tree.index(t) > 0 and predicate(tree, t.head):
            sites.append(lambda t=t: tree.delete(t))
    return sites


def _locative(tree: Tree, head: Tok) -> bool:
    case = tree.child(head, "case")
    return (case is not None and case.low in {"in", "at", "on", "inside", "outside", "near", "from"}) \
        or head.low in {"here", "there", "home", "outside", "inside", "upstairs", "downstairs"}


@rule("copula_deletion_np")
def copula_deletion_np(tree: Tree) -> list[Site]:
    return _copula_sites(tree, lambda tr, h: h.upos in ("NOUN", "PROPN", "PRON", "NUM") and not _locative(tr, h))


@rule("copula_deletion_adj")
def copula_deletion_adj(tree: Tree) -> list[Site]:
    return _copula_sites(tree, lambda tr, h: h.upos == "ADJ")


@rule("copula_deletion_loc")
def copula_deletion_loc(tree: Tree) -> list[Site]:
    return _copula_sites(tree, _locative)


def _aux_be_sites(tree: Tree, going: bool) -> list[Site]:
    sites = []
    for t in tree:
        h = t.head
        if _rel(t) == "aux" and t.low in (m.BE_PRESENT if going else _BE_DELETABLE) and h is not None \
                and h.low.endswith("ing") \
                and (h.low == "going") == going and _neg_of(tree, t) is None and tree.index(t) > 0:
            sites.append(lambda t=t: tree.delete(t))
    return sites


@rule("aux_be_deletion_progressive")
def aux_be_deletion_progressive(tree: Tree) -> list[Site]:
    return _aux_be_sites(tree, going=False)


@rule("aux_be_deletion_gonna")
def aux_be_deletion_gonna(tree: Tree) -> list[Site]:
    return _aux_be_sites(tree, going=True)


@rule("am_deletion")
def am_deletion(tree: Tree) -> list[Site]:
    """1sg am/'m left out where is/are deletion would apply: as a copula, or as the auxiliary of a V-ing
    (not going: aux_be_deletion_gonna's)."""
    return [lambda t=t: tree.delete(t) for t in tree if t.low in {"am", "'m"} and t.head is not None
            and (t.deprel == "cop" or t.deprel == "aux" and t.head.low.endswith("ing") and t.head.low != "going")
            and _neg_of(tree, t) is None and tree.index(t) > 0]


def _perfect_have(tree: Tree) -> list[Tok]:
    """`have/has/'ve` auxiliaries of a past participle (not negated, not question-initial)."""
    return [t for t in tree if t.deprel == "aux" and t.low in {"have", "has", "'ve"} and t.head is not None
            and t.head.upos == "VERB" and tree.index(t) < tree.index(t.head) and _neg_of(tree, t) is None
            and tree.index(t) > 0]


@rule("aux_have_deletion")
def aux_have_deletion(tree: Tree) -> list[Site]:
    return [lambda t=t: tree.delete(t) for t in _perfect_have(tree)]


@rule("completive_done")
def completive_done(tree: Tree) -> list[Site]:
    """have + participle -> done + participle (AAVE `I done told you`); `done` takes the auxiliary's arc."""
    return [lambda t=t: tree.replace(t, "done") for t in _perfect_have(tree)]


@rule("perfect_already")
def perfect_already(tree: Tree) -> list[Site]:
    """have + participle -> participle ... already (CollSgE `I eat already`): the auxiliary goes, an
    `already` (ADV, advmod of the verb) follows the verb's subtree."""
    def site(t: Tok) -> None:
        verb = t.head
        tree.delete(t)
        end = tree.subtree_span(verb)[1]
        while end > tree.index(verb) and tree.toks[end].upos == "PUNCT":
            end -= 1
        tree.insert(end + 1, "already", "ADV", verb, "advmod")
    return [lambda t=t: site(t) for t in _perfect_have(tree)]


@rule("habitual_be")
def habitual_be(tree: Tree) -> list[Site]:
    """Invariant habitual be: is/are -> be where a frequency adverb marks the clause as habitual."""
    habitual = {"always", "usually", "often", "sometimes", "normally", "everyday", "generally"}
    sites = []
    for t in tree:
        if _rel(t) in ("cop", "aux") and t.low in {"is", "are", "'s", "'re"} and t.head is not None \
                and _neg_of(tree, t) is None and tree.index(t) > 0 \
                and any(k.low in habitual for k in tree.children(t.head)):
            sites.append(lambda t=t: tree.replace(t, m.match_case("be", t.form)))
    return sites


@rule("was_were_generalization")
def was_were_generalization(tree: Tree) -> list[Site]:
    """were -> was with any subject (eWAVE 180)."""
    return [lambda t=t: tree.replace(t, m.match_case("was", t.form)) for t in tree
            if t.low == "were" and t.upos in ("AUX", "VERB")]


@rule("double_modal")
def double_modal(tree: Tree) -> list[Site]:
    """might + can/could/should/would: `might` is inserted as a second auxiliary of the same verb."""
    sites = []
    for t in tree:
        if _rel(t) == "aux" and t.low in {"can", "could", "should", "would"} and t.head is not None \
                and tree.index(t) > 0 and _subject(tree, t.head) is not None:
            sites.append(lambda t=t: tree.insert(tree.index(t), "might", "AUX", t.head, "aux"))
    return sites


@rule("go_future")
def go_future(tree: Tree) -> list[Site]:
    """will/'ll -> gonna (one token, AUX, the auxiliary's arc)."""
    sites = []
    for t in tree:
        subj = _subject(tree, t.head) if t.head is not None else None
        if _rel(t) == "aux" and t.low in {"will", "'ll"} and _neg_of(tree, t) is None \
                and subj is not None and tree.index(subj) < tree.index(t):  # not in a question
            sites.append(lambda t=t: tree.replace(t, "gonna"))
    return sites


# ----------------------------------------------------------------------------------------- agreement
@rule("zero_3sg")
def zero_3sg(tree: Tree) -> list[Site]:
    """Third-person singular present -s absence: walks -> walk, has -> have, does -> do (main verbs)."""
    sites = []
    for t in tree:
        if t.upos != "VERB" or not _is_3sg(tree, _subject(tree, t)) or tree.children(t, "aux"):
            continue
        bare = {"has": "have", "does": "do", "is": None, "was": None}.get(t.low, m.strip_s(t.form))
        if bare:
            sites.append(lambda t=t, bare=bare: tree.replace(t, m.match_case(bare, t.form)))
    return sites


@rule("invariant_dont")
def invariant_dont(tree: Tree) -> list[Site]:
    """does + n't/not -> do + n't (`he don't know`)."""
    return [lambda t=t: tree.replace(t, m.match_case("do", t.form)) for t in tree
            if t.low == "does" and t.upos == "AUX" and _neg_of(tree, t) is not None]


@rule("existential_theres_plural")
def existential_theres_plural(tree: Tree) -> list[Site]:
    """there are/were -> there's/there was with plural subjects."""
    sites = []
    for t in tree:
        if t.deprel == "expl" and t.low == "there" and t.head is not None and t.head.low in {"are", "were"}:
            be = t.head
            sites.append(lambda be=be: tree.replace(be, "'s" if be.low == "are" else m.match_case("was", be.form)))
    return sites


# -------------------------------------------------------------------------------------------- negation
@rule("negative_concord")
def negative_concord(tree: Tree) -> list[Site]:
    """not ... any/anything/ever -> not ... no/nothing/never (the negator stays)."""
    negs = [t for t in tree if t.low in m.NEG]
    sites = []
    for t in tree:
        if t.low in m.NEG_CONCORD and any(tree.index(n) < tree.index(t) for n in negs):
            sites.append(lambda t=t: tree.replace(t, m.match_case(m.NEG_CONCORD[t.low], t.form)))
    return sites


def _aint_sites(tree: Tree, forms: set[str]) -> list[Site]:
    sites = []
    for t in tree:
        neg = _neg_of(tree, t)
        if t.low in forms and t.upos in ("AUX", "VERB") and neg is not None:
            def site(t: Tok = t, neg: Tok = neg) -> None:
                tree.replace(t, m.match_case("ai", t.form))  # UD tokenises ain't as ai + n't
                if neg.low != "n't":
                    tree.replace(neg, "n't")
            sites.append(site)
    return sites


@rule("aint_be")
def aint_be(tree: Tree) -> list[Site]:
    return _aint_sites(tree, {"is", "are", "am", "'s", "'re", "'m"})


@rule("aint_have")
def aint_have(tree: Tree) -> list[Site]:
    return _aint_sites(tree, {"has", "have", "'ve"})


@rule("aint_generic")
def aint_generic(tree: Tree) -> list[Site]:
    return _aint_sites(tree, {"did", "do", "does"})


def _single_root(tree: Tree) -> Tok | None:
    roots = [t for t in tree if t.head is None and not t.unannotated]
    return roots[0] if len(roots) == 1 else None


@rule("invariant_tag")
def invariant_tag(tree: Tree) -> list[Site]:
    """A declarative that could take a tag question gets `, is n't it` before the full stop: a small subtree
    (is: AUX parataxis of the root; n't: PART advmod, it: PRON nsubj, `,`: PUNCT punct, all of `is`).
    Licensed: one root with a subject before it and no subordinator (not an imperative, a heading or a
    fragment such as `If you can .`), ending in `.`, no `?` or `!` anywhere."""
    root = _single_root(tree)
    last = tree.toks[-1] if len(tree) else None
    if root is None or last is None or last.form != "." or len(tree) < 4 \
            or any(t.form in {"?", "!"} for t in tree) or tree.children(root, "mark") \
            or not any(_rel(k) in ("nsubj", "expl") and tree.index(k) < tree.index(root)
                       for k in tree.children(root)):
        return []

    def site(root: Tok = root, last: Tok = last) -> None:
        at = tree.index(last)
        tree.insert(at, ",", "PUNCT", root, "punct")
        tag = tree.insert(at + 1, "is", "AUX", root, "parataxis")
        tree.toks[at].head = tag  # the comma belongs to the tag
        tree.insert(at + 2, "n't", "PART", tag, "advmod")
        tree.insert(at + 3, "it", "PRON", tag, "nsubj")
        tree.replace(last, "?")  # a question now; the full stop keeps its tag and arc
    return [site]


# Sentence-final particles of Colloquial Singapore English, weighted by their counts as `discourse` words in
# the Singlish treebank's training split (Sing_Par ACL17 train.conll; `la` counted as lah), in statements and
# in sentences with a question mark.
PARTICLES = {False: (("lah", 134), ("leh", 29), ("ah", 17), ("lor", 8), ("meh", 5)),
             True: (("ah", 10), ("leh", 6), ("lah", 5), ("meh", 4))}
_CLOSING = {".", "!", "?", "..."}


def _pick(tree: Tree, weighted: tuple[tuple[str, int], ...]) -> str:
    """One of `weighted`, chosen by a hash of the sentence's words: deterministic, as a site has no random
    stream of its own (the engine's stream decides only whether the site fires)."""
    x = int.from_bytes(hashlib.sha256(" ".join(t.form for t in tree.toks).encode()).digest()[:8], "big")
    x %= sum(n for _, n in weighted)
    for word, n in weighted:
        if x < n:
            return word
        x -= n
    raise AssertionError("unreachable")


@rule("discourse_particle")
def discourse_particle(tree: Tree) -> list[Site]:
    """A pragmatic particle (lah, leh, lor, meh, ah) before the closing punctuation, INTJ `discourse` of the
    root as the Singlish treebank annotates them. Licensed: one root that is a word (not PUNCT, SYM, X), a
    sentence ending in a word or . ! ? ..., and no particle there already."""
    root = _single_root(tree)
    end = len(tree)
    while end > 0 and tree.toks[end - 1].upos == "PUNCT":
        end -= 1
    closing = {t.form for t in tree.toks[end:]}
    known = {w for options in PARTICLES.values() for w, _ in options}
    if root is None or root.upos in ("PUNCT", "SYM", "X") or end == 0 or not closing <= _CLOSING \
            or any(t.low in known for t in tree):
        return []
    word = _pick(tree, PARTICLES["?" in closing])
    return [lambda: tree.insert(end, word, "INTJ", root, "discourse")]


# -------------------------------------------------------------------------------------- nouns and DPs
@rule("zero_plural_after_quantifier")
def zero_plural_after_quantifier(tree: Tree) -> list[Site]:
    """two books -> two book: a plural noun with a numeral or quantifier dependent loses its -s."""
    sites = []
    for t in tree:
        if t.upos == "NOUN" and (bare := m.singular(t.form)):
            quant = [k for k in tree.children(t) if _rel(k) in ("nummod", "det", "amod")
                     and (k.upos == "NUM" and k.low not in {"one", "1"} or k.low in m.NUMBERS)]
            if quant:
                sites.append(lambda t=t, bare=bare: tree.replace(t, bare))
    return sites


@rule("optional_plural")
def optional_plural(tree: Tree) -> list[Site]:
    """Plural marking optional: a plural noun without a quantifier loses its -s (the books -> the book)."""
    sites = []
    for t in tree:
        if t.upos == "NOUN" and t.form.islower() and (bare := m.singular(t.form)) \
                and not any(_rel(k) == "nummod" or k.low in m.NUMBERS for k in tree.children(t)):
            sites.append(lambda t=t, bare=bare: tree.replace(t, bare))
    return sites


@rule("regularized_plural")
def regularized_plural(tree: Tree) -> list[Site]:
    """-s on StE irregular plurals: children -> childrens, people -> peoples."""
    return [lambda t=t: tree.replace(t, m.match_case(m.IRREGULAR_PLURAL_S[t.low], t.form)) for t in tree
            if t.upos == "NOUN" and t.low in m.IRREGULAR_PLURAL_S]


@rule("mass_noun_plural")
def mass_noun_plural(tree: Tree) -> list[Site]:
    """Count/mass distinctions: informations, advices, furnitures."""
    return [lambda t=t: tree.replace(t, m.match_case(m.MASS_NOUNS[t.low], t.form)) for t in tree
            if t.upos == "NOUN" and t.low in m.MASS_NOUNS]


@rule("them_demonstrative")
def them_demonstrative(tree: Tree) -> list[Site]:
    """those + noun -> them + noun (DET, det: the arc and tag of `those`)."""
    return [lambda t=t: tree.replace(t, m.match_case("them", t.form)) for t in tree
            if t.low == "those" and t.deprel == "det"]


@rule("demonstrative_no_number")
def demonstrative_no_number(tree: Tree) -> list[Site]:
    """these -> this, those -> that before a noun."""
    forms = {"these": "this", "those": "that"}
    return [lambda t=t: tree.replace(t, m.match_case(forms[t.low], t.form)) for t in tree
            if t.low in forms and t.deprel == "det"]


def _article_sites(tree: Tree, forms: set[str]) -> list[Site]:
    return [lambda t=t: tree.delete(t) for t in tree
            if t.low in forms and t.deprel == "det" and t.head is not None and t.head.upos == "NOUN"]


@rule("zero_definite_article")
def zero_definite_article(tree: Tree) -> list[Site]:
    return _article_sites(tree, {"the"})


@rule("zero_indefinite_article")
def zero_indefinite_article(tree: Tree) -> list[Site]:
    return _article_sites(tree, {"a", "an"})


@rule("genitive_omission")
def genitive_omission(tree: Tree) -> list[Site]:
    """John's book -> John book: the possessive 's (PART, case) is deleted."""
    return [lambda t=t: tree.delete(t) for t in tree if t.low in {"'s", "'"} and t.deprel == "case"
            and t.head is not None and t.head.deprel.startswith("nmod")]


@rule("double_comparative")
def double_comparative(tree: Tree) -> list[Site]:
    """bigger -> more bigger, biggest -> most biggest (ADV advmod of the adjective)."""
    sites = []
    for t in tree:
        if t.upos in ("ADJ", "ADV") and t.low in m.COMPARATIVES | m.SUPERLATIVES:
            word = "more" if t.low in m.COMPARATIVES else "most"
            prev = tree.next(t, -1)
            if prev is None or prev.low not in {"more", "most"}:
                sites.append(lambda t=t, word=word: tree.insert(tree.index(t), word, "ADV", t, "advmod"))
    return sites


@rule("me_coordinate_subject")
def me_coordinate_subject(tree: Tree) -> list[Site]:
    """my brother and I -> my brother and me (in a coordinated subject)."""
    return [lambda t=t: tree.replace(t, "me") for t in tree if t.form == "I" and t.deprel == "conj"
            and t.head is not None and _rel(t.head) == "nsubj"]


# ----------------------------------------------------------------------------------- pronouns, clauses
@rule("subject_pro_drop")
def subject_pro_drop(tree: Tree) -> list[Site]:
    """A referential subject pronoun is left out (delete; it has no dependents of its own)."""
    return [lambda t=t: tree.delete(t) for t in tree if t.upos == "PRON" and _rel(t) == "nsubj"
            and t.low in m.SUBJ_PRON - {"it"} and not tree.children(t) and t.head is not None]


@rule("dummy_pro_drop")
def dummy_pro_drop(tree: Tree) -> list[Site]:
    """Dummy `it` (expletive) is left out (`is raining`, `is important to ...`)."""
    return [lambda t=t: tree.delete(t) for t in tree if t.low == "it" and t.deprel == "expl"]


@rule("object_pro_drop")
def object_pro_drop(tree: Tree) -> list[Site]:
    """An object pronoun is left out (`I don't like`)."""
    return [lambda t=t: tree.delete(t) for t in tree if t.upos == "PRON" and t.deprel == "obj"
            and t.low in {"it", "them", "him", "her"} and not tree.children(t)]


@rule("got_existential")
def got_existential(tree: Tree) -> list[Site]:
    """there is/are NP -> got NP (CollSgE): `there` is deleted, the verb `be` becomes `got` (VERB)."""
    sites = []
    for t in tree:
        be = t.head
        if t.deprel == "expl" and t.low == "there" and be is not None and be.low in {"is", "are", "'s", "'re"} \
                and tree.index(be) == tree.index(t) + 1 and _neg_of(tree, be) is None:
            def site(t: Tok = t, be: Tok = be) -> None:
                tree.replace(be, m.match_case("got", t.form), upos="VERB")
                tree.delete(t)
            sites.append(site)
    return sites


@rule("dummy_there_it")
def dummy_there_it(tree: Tree) -> list[Site]:
    """Existential there -> it (`it's a man at the door`), PRON expl as before."""
    return [lambda t=t: tree.replace(t, m.match_case("it", t.form), upos="PRON") for t in tree
            if t.low == "there" and t.deprel == "expl"]


@rule("to_deletion")
def to_deletion(tree: Tree) -> list[Site]:
    """Deletion of `to` before an infinitive complement (`want go`)."""
    semi_modal = {"have", "has", "had", "having", "got", "ought", "used", "going", "gon"}  # have to, going to
    return [lambda t=t: tree.delete(t) for t in tree if t.low == "to" and t.upos == "PART"
            and t.deprel == "mark" and t.head is not None and t.head.deprel == "xcomp"
            and t.head.head is not None and t.head.head.low not in semi_modal]


@rule("to_insertion")
def to_insertion(tree: Tree) -> list[Site]:
    """`to` where StE has a bare infinitive: make/let/help X do -> make X to do (PART mark of the verb)."""
    sites = []
    for t in tree:
        h = t.head
        if t.deprel == "xcomp" and t.upos == "VERB" and h is not None and \
                h.low in {"make", "makes", "made", "let", "lets", "help", "helps", "helped"} \
                and not tree.children(t, "mark") and tree.index(t) > tree.index(h) + 1:
            sites.append(lambda t=t: tree.insert(tree.index(t), "to", "PART", t, "mark"))
    return sites


@rule("preposition_omission")
def preposition_omission(tree: Tree) -> list[Site]:
    """Omission of StE prepositions: go to school -> go school (the case marker of an oblique)."""
    return [lambda t=t: tree.delete(t) for t in tree if t.upos == "ADP" and t.deprel == "case"
            and t.low in {"to", "at", "in", "on", "for"} and t.head is not None and _rel(t.head) == "obl"]


@rule("too_very")
def too_very(tree: Tree) -> list[Site]:
    """very -> too as an intensifier (`too good`)."""
    return [lambda t=t: tree.replace(t, m.match_case("too", t.form)) for t in tree
            if t.low == "very" and t.deprel == "advmod" and t.head is not None and t.head.upos == "ADJ"]


@rule("stative_progressive")
def stative_progressive(tree: Tree) -> list[Site]:
    """Progressive with stative verbs: I know -> I am knowing (AUX aux inserted; the verb's arc stays)."""
    be_for = {"i": "am", "you": "are", "we": "are", "they": "are"}
    sites = []
    for t in tree:
        subj = _subject(tree, t)
        if t.upos == "VERB" and t.low in m.STATIVE and subj is not None and subj.low in be_for \
                and not tree.children(t, "aux") and tree.index(subj) == tree.index(t) - 1:
            def site(t: Tok = t, be: str = be_for[subj.low]) -> None:
                tree.replace(t, m.STATIVE[t.low])
                tree.insert(tree.index(t), be, "AUX", t, "aux")
            sites.append(site)
    return sites


@rule("zero_past")
def zero_past(tree: Tree) -> list[Site]:
    """Zero past tense of regular verbs: walked -> walk (finite verbs with a subject and no auxiliary)."""
    sites = []
    for t in tree:
        if t.upos == "VERB" and _subject(tree, t) is not None and not tree.children(t, "aux") \
                and (bare := m.strip_ed(t.form)):
            sites.append(lambda t=t, bare=bare: tree.replace(t, bare))
    return sites


@rule("no_inversion_question")
def no_inversion_question(tree: Tree) -> list[Site]:
    """Yes/no question without inversion: Are you coming ? -> you are coming ? (the auxiliary moves
    after the subject; arcs and labels stay)."""
    if len(tree) < 3 or tree.toks[-1].form != "?":
        return []
    first = tree.toks[0]
    if first.upos != "AUX" or first.low in {"do", "does", "did"} or first.head is None:
        return []
    subj = _subject(tree, first.head)
    if subj is None or tree.index(subj) != tree.subtree_span(subj)[0] or tree.index(subj) != 1:
        return []

    def site(first: Tok = first, subj: Tok = subj) -> None:
        end = tree.subtree_span(subj)[1]
        tree.move(first, end)
        if first.form[:1].isupper():  # the capital moves with the sentence start (labels untouched)
            tree.replace(first, first.form.lower())
            if subj.upos != "PROPN" and subj.form != "I":
                tree.replace(subj, m.match_case(subj.form, "X"))
    return [site]
