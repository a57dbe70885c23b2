"""MT references as DialectBench Table 20 has them: the English reference of the dataset where the paper used
it (Yoruba, Farsi, Tigrinya, Bengali; Turkish through TIL-MT), pseudo-references elsewhere; the signature
says which."""

from __future__ import annotations

from dialectbench.data.catalogue import load_catalogue

PAPER_ENGLISH = ("codet/Bengali/", "codet/Yoruba/", "codet/Farsi/", "codet/Tigrinya/", "til-mt-xwmt/")


def test_every_entry_with_an_english_reference_in_the_paper_uses_it():
    entries = load_catalogue("mt-dialect").entries
    seen = 0
    for e in entries:
        (part,) = e.splits["test"]
        refs = part.file_args()
        source, reference = refs["source"].path, refs["reference"].path
        if source.startswith(PAPER_ENGLISH):
            seen += 1
            assert e.options["pseudo_reference"] is False, e.variety
            assert reference.endswith((".eng", ".en")), (e.variety, reference)
        elif e.options["pseudo_reference"]:
            assert not reference.endswith((".eng", ".en")), e.variety  # pseudo: the standard-variety file
    assert seen >= 7 + 2  # 5 Bengali dialects, Dari, Central Yoruba; Tigrinya's two; TIL-MT's


def test_the_bleu_signature_names_the_kind_of_reference(tmp_path):
    from runner_fakes import FakeSource

    from dialectbench.data.examples import TranslationExample
    from dialectbench.runner import Store, run

    class Copy:
        def predict(self, examples):
            return [ex.source for ex in examples]

    class Backend:
        name, config = "copy", {}

        def fit(self, task, train, dev, *, seed=0):
            return Copy()

    pairs = [("ba ba ba", "ba ba bo"), ("ko ko ko", "ko ka ko")]
    data = {("mt-dialect", "bengali (a:barisal)"): {"test": [TranslationExample(f"b{i}", s, r) for i, (s, r) in
                                                             enumerate(pairs)]},
            ("mt-dialect", "norwegian (a:eastern)"): {"test": [TranslationExample(f"n{i}", s, r, pseudo_reference=True)
                                                               for i, (s, r) in enumerate(pairs)]}}
    store = tmp_path / "mt.sqlite"
    run(store=store, tasks=["mt-dialect"], source=FakeSource(data), backend=Backend())
    with Store(store) as db:
        sigs = {r["variety"]: r["signature"] for r in db.scores(detail=True)}
    assert sigs["bengali (a:barisal)"].startswith("ref:human|nrefs:1|")  # then sacrebleu's own signature
    assert sigs["norwegian (a:eastern)"].startswith("ref:pseudo|")
