"""An editable UD analysis: tokens that point at their head token (not at an index), so inserting,
deleting and moving words never leaves a dangling arc.

Label policy (the same for every rule; a rule only chooses which of these edits it makes):
- replace: the form changes; UPOS and DEPREL stay unless the rule names new ones; the arcs stay.
- delete: the word goes; its dependents reattach to its head with their own deprels. Deleting the root
  promotes its first non-punctuation dependent to root (deprel `root`) and the other dependents attach
  to that word. A token inside a named entity (NER tag other than O) is never deleted or replaced.
- insert: the new word is a leaf attached to a word the rule names, with the UPOS/DEPREL it names; its
  NER tag is O, and nothing is inserted inside an entity (before an I- tag).
- move: the word keeps its head and labels; only the order changes.
The tree stays a tree: arcs only ever point at live tokens, a deleted token's dependents move one step up
the (acyclic) head chain, and insertions are leaves, so no cycle can form and the root count never grows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

UNANNOTATED = -1  # as data.readers.conllu: a word the treebank left without a head


class Protected(Exception):
    """The edit would change a named entity's tokens; the site is skipped."""


@dataclass(eq=False)
class Tok:
    form: str
    upos: str
    deprel: str
    head: Tok | None = None  # None: the root (HEAD 0)
    unannotated: bool = False  # HEAD "_" in the source (TwitterAAE)
    ner: str = "O"
    origin: int | None = None  # 0-based index in the source sentence; None for an inserted word
    replaced: bool = False

    @property
    def low(self) -> str:
        return self.form.lower()


@dataclass
class Edit:
    op: str  # replace / delete / insert / move
    form: str


@dataclass
class Tree:
    toks: list[Tok]
    log: list[Edit] = field(default_factory=list)

    # -- reading
    def __iter__(self) -> Iterator[Tok]:
        return iter(list(self.toks))

    def __len__(self) -> int:
        return len(self.toks)

    def alive(self, *toks: Tok) -> bool:
        return all(any(t is u for u in self.toks) for t in toks)

    def index(self, tok: Tok) -> int:
        for i, t in enumerate(self.toks):
            if t is tok:
                return i
        raise ValueError("token not in the tree")

    def children(self, tok: Tok, deprel: str | None = None) -> list[Tok]:
        return [t for t in self.toks if t.head is tok and (deprel is None or t.deprel.split(":")[0] == deprel)]

    def child(self, tok: Tok, deprel: str) -> Tok | None:
        kids = self.children(tok, deprel)
        return kids[0] if kids else None

    def next(self, tok: Tok, step: int = 1) -> Tok | None:
        i = self.index(tok) + step
        return self.toks[i] if 0 <= i < len(self.toks) else None

    def subtree_span(self, tok: Tok) -> tuple[int, int]:
        """First and last position of `tok`'s subtree."""
        idx = [i for i, t in enumerate(self.toks) if self._dominates(tok, t)]
        return min(idx), max(idx)

    def _dominates(self, top: Tok, tok: Tok | None) -> bool:
        while tok is not None:
            if tok is top:
                return True
            tok = tok.head
        return False

    # -- editing
    def replace(self, tok: Tok, form: str, upos: str | None = None, deprel: str | None = None) -> None:
        if tok.ner != "O":
            raise Protected
        tok.form, tok.replaced = form, True
        tok.upos = upos or tok.upos
        tok.deprel = deprel or tok.deprel
        self.log.append(Edit("replace", form))

    def delete(self, tok: Tok) -> None:
        if tok.ner != "O":
            raise Protected
        kids = self.children(tok)
        if tok.head is None and not tok.unannotated and kids:
            heir = next((k for k in kids if k.upos != "PUNCT"), kids[0])
            heir.head, heir.deprel = None, "root"
            for k in kids:
                if k is not heir:
                    k.head = heir
        else:
            for k in kids:
                k.head = tok.head
                k.unannotated = k.unannotated or tok.unannotated and tok.head is None
        self.toks.remove(tok)
        self.log.append(Edit("delete", tok.form))

    def insert(self, at: int, form: str, upos: str, head: Tok, deprel: str) -> Tok:
        """A new leaf at position `at` (0 = first), attached to `head`."""
        if at < len(self.toks) and self.toks[at].ner.startswith("I-"):
            raise Protected
        tok = Tok(form, upos, deprel, head)
        self.toks.insert(at, tok)
        self.log.append(Edit("insert", form))
        return tok

    def move(self, tok: Tok, at: int) -> None:
        """Put `tok` at position `at` of the list without it."""
        if tok.ner != "O":
            raise Protected
        self.toks.remove(tok)
        self.toks.insert(at, tok)
        self.log.append(Edit("move", tok.form))

    # -- transactions: a site whose edits hit a protected token is undone as a whole
    def snapshot(self) -> tuple:
        return (list(self.toks), [(t, t.form, t.upos, t.deprel, t.head, t.unannotated, t.replaced)
                                   for t in self.toks], len(self.log))

    def restore(self, snap: tuple) -> None:
        order, fields, n_log = snap
        self.toks = list(order)
        for t, form, upos, deprel, head, unann, replaced in fields:
            t.form, t.upos, t.deprel, t.head, t.unannotated, t.replaced = form, upos, deprel, head, unann, replaced
        del self.log[n_log:]


def from_arrays(words, upos, heads, deprels, ner=None) -> Tree:
    toks = [Tok(w, u, d, origin=i, ner=(ner[i] if ner else "O")) for i, (w, u, d) in
            enumerate(zip(words, upos, deprels))]
    for tok, h in zip(toks, heads):
        if h == UNANNOTATED:
            tok.unannotated = True
        elif h > 0:
            tok.head = toks[h - 1]
    return Tree(toks)


def to_arrays(tree: Tree) -> tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...], tuple[str, ...]]:
    pos = {id(t): i + 1 for i, t in enumerate(tree.toks)}
    heads = tuple(UNANNOTATED if t.unannotated and t.head is None else (0 if t.head is None else pos[id(t.head)])
                  for t in tree.toks)
    return (tuple(t.form for t in tree.toks), tuple(t.upos for t in tree.toks), heads,
            tuple(t.deprel for t in tree.toks))


def tree_problems(heads: tuple[int, ...]) -> list[str]:
    """What is wrong with a head array (empty when it is a forest rooted at 0 without cycles)."""
    n = len(heads)
    problems = [f"head {h} of word {i} out of range" for i, h in enumerate(heads, 1) if not -1 <= h <= n]
    if problems:
        return problems
    for start in range(1, n + 1):
        seen, node = set(), start
        while node > 0:
            if node in seen:
                return [f"cycle through word {start}"]
            seen.add(node)
            node = heads[node - 1]
    return []
