"""SD-QA transcripts and speakers as `SpokenQuestion`s (read by `dialectbench.data.readers.read_sdqa` from
a mirror laid out as `sd-qa/<split>/<lang>/<language>.<split>.csv` + `<lang>/<dialect>/metadata.csv`),
grouped for scoring, plus transcripts from our own ASR runs attached by example id."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dialectbench.data.examples import SpokenQuestion
from dialectbench.sdqa.dialects import LANGUAGES, SDQAError, SDQAMissing, check_dialects, localized_model


@dataclass
class SDQACorpus:
    """Gold questions plus, per dialect, the recorded items (a dialect's metadata lists what was
    recorded: Kenya has 972 of the 1000 English dev questions)."""

    lang: str
    questions: dict[str, str]
    items: list[SpokenQuestion]
    models: dict[str, list[str]] = field(default_factory=dict)  # dialect -> ASR models, in file order
    source: str = ""

    @property
    def dialects(self) -> list[str]:
        return list(self.models)

    def by_dialect(self, dialect: str) -> list[SpokenQuestion]:
        check_dialects([dialect], self.dialects)
        return [q for q in self.items if q.dialect == dialect]

    def common_ids(self) -> set[str]:
        """Questions recorded in every dialect (the paper scores all dialects on this common set)."""
        sets = [{q.example_id for q in self.items if q.dialect == d} for d in self.dialects]
        return set.intersection(*sets) if sets else set()

    def localized(self, dialect: str) -> str | None:
        return localized_model(self.lang, dialect, self.models.get(dialect, []))


def load_sdqa(data_dir: Path | str, lang: str = "eng", split: str = "dev") -> SDQACorpus:
    """Load a language of SD-QA from `data_dir` (the `sd-qa` folder or its parent) with the shared reader
    `dialectbench.data.readers.read_sdqa`; questions nobody recorded are kept as questions only."""
    from dialectbench.data.readers.sdqa import read_sdqa

    root = Path(data_dir)
    if not (root / split / lang).is_dir() and (root / "sd-qa" / split / lang).is_dir():
        root = root / "sd-qa"
    if not (root / split / lang).is_dir():
        stem = LANGUAGES.get(lang, ("<language>",))[0]
        raise SDQAMissing(f"no SD-QA data for lang={lang!r} split={split!r} under {Path(data_dir)} "
                        f"(expected {root}/{split}/{lang}/{stem}.{split}.csv)")
    try:
        found = list(read_sdqa(root, lang, split, keep_missing=True))
    except (OSError, ValueError) as exc:  # DataFormatError is a ValueError naming file and line
        raise SDQAError(str(exc)) from None
    questions = {q.example_id: q.question for q in found}
    items = [q for q in found if q.transcripts]  # recorded (possibly with an empty ASR output)
    models: dict[str, list[str]] = {}
    for q in found:
        if q.dialect not in models and q.transcripts:
            models[q.dialect] = list(q.transcripts)
    path = next(iter((root / split / lang).glob(f"*.{split}.csv")), root / split / lang)
    return SDQACorpus(lang, questions, items, models, str(path))


def attach_transcripts(corpus: SDQACorpus, dialect: str, model: str,
                       transcripts: Mapping[str, str], *, source: str = "transcripts") -> SDQACorpus:
    """Add one ASR model's transcripts for a dialect. Ids that match no question are an error naming
    them; recorded questions without a transcript get an empty one (scored as all deletions)."""
    unknown = sorted(set(transcripts) - set(corpus.questions))
    if unknown:
        shown = ", ".join(unknown[:5]) + (f" ... ({len(unknown)} in all)" if len(unknown) > 5 else "")
        raise SDQAError(f"{source}: {len(unknown)} transcript id(s) match no {corpus.lang} question: {shown}")
    check_dialects([dialect], corpus.dialects)
    items = []
    for q in corpus.items:
        if q.dialect == dialect:
            q = SpokenQuestion(q.example_id, q.dialect, q.question, {**q.transcripts,
                               model: transcripts.get(q.example_id, "")}, q.speaker_gender, q.speaker_age,
                               q.speaker_id)
        items.append(q)
    models = {d: list(ms) for d, ms in corpus.models.items()}
    if model not in models.setdefault(dialect, []):
        models[dialect].append(model)
    return SDQACorpus(corpus.lang, corpus.questions, items, models, corpus.source)


def add_transcript_rows(corpus: SDQACorpus, path: Path | str) -> SDQACorpus:
    """Attach every (dialect, model) found in a transcripts CSV written by `sdqa asr --output`."""
    from dialectbench.sdqa.asr import read_transcript_rows

    groups: dict[tuple[str, str], dict[str, str]] = {}
    for r in read_transcript_rows(path):
        groups.setdefault((r["dialect"].strip(), r["model"].strip()), {})[r["example_id"].strip()] = r["transcript"]
    for (dialect, model), table in groups.items():
        corpus = attach_transcripts(corpus, dialect, model, table, source=str(path))
    return corpus
