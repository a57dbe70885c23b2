"""Which test item a stored example is, across varieties: the key a headline's standard error clusters on
(analysis.headline). Two scores share an item when their examples are the same question or sentence, so
their errors on it are correlated.

The rule, by the reader (catalogue `format`) that named the example:
- `goldp` (SD-QA's gold-passage task): ids are "<file stem>:<language>-<TyDi id>-<dialect>" with the
  stem "sdqa-<split>-<language>-<dialect>" (e.g. "sdqa-dev-english-aus:english-6037841464917965779-aus" and
  "...-usa:english-6037841464917965779-usa"): every dialect's test set is the same TyDi questions read
  aloud, so the item is "sdqa:<language>-<TyDi id>" (readers.sdqa.goldp_question).
- `sdqa`: ids are "<TyDi id>:<dialect>", the TyDi id "shared by all dialects of a question"
  (readers.sdqa.read_sdqa), so the item is "sdqa:<TyDi id>" (readers.sdqa.sdqa_question).
- every other format, or an id that does not have its format's shape: the example id itself. Readers name
  examples "<file stem>:<the dataset's id or row>", so identical ids are the same example of the same file
  (several training sources scored on one test set) and ids of different files are different items; a
  parallel dataset whose files differ by language (Belebele, SIB-200) is not treated as shared, which is
  the independence a headline assumed before clustering.
"""

from __future__ import annotations

from dialectbench.data.readers.sdqa import goldp_question, sdqa_question

SHARED_PREFIX = "sdqa:"


def item_key(fmt: str | None, example_id: str) -> str:
    """The item `example_id` (read by a `fmt` reader) is, for clustering across varieties."""
    question = goldp_question(example_id) if fmt == "goldp" else sdqa_question(example_id) if fmt == "sdqa" else None
    return SHARED_PREFIX + question if question else example_id
