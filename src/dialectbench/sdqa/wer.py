"""WER per dialect and ASR model (SD-QA Table 2), breakdowns by speaker gender and age (Tables 13-14)
and ASR unfairness by generalized entropy with benefit = 1 - WER per utterance (Tables 12 and 16).

Defaults reproduce the paper from the released transcripts: normalization `paper`, corpus-pooled WER
(edits summed over utterances / reference words summed), scored on the questions recorded in every
dialect (`subset="common"`: 972 English dev questions, because Kenya lacks 28), an empty transcript of a
recorded question counting as all deletions, and per-utterance WER capped at 1 for the benefit.
Word edits come from jiwer's alignment of the normalized words (`word_edits`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import jiwer
import numpy as np
import pandas as pd

from dialectbench.analysis import avg_pop, max_min
from dialectbench.sdqa.corpus import SDQACorpus
from dialectbench.sdqa.dialects import DIALECTS, SDQAError, check_dialects, dialect_info
from dialectbench.sdqa.fairness import ge_decomposition
from dialectbench.sdqa.normalize import Normalization

LOCALIZED = "localized"
AGGREGATIONS = ("corpus", "mean")
SUBSETS = ("common", "all")
MISSING = ("error", "skip")
AGE_GROUPS = ((0, 17, "<18"), (18, 30, "18-30"), (31, 45, "31-45"), (46, 200, "46+"))


@dataclass(frozen=True)
class WerOptions:
    normalization: Normalization = field(default_factory=Normalization)  # the `paper` preset
    aggregation: str = "corpus"   # corpus = pooled edits / pooled reference words; mean = mean utterance WER
    subset: str = "common"        # common = questions recorded in every dialect; all = each dialect's own
    missing: str = "error"        # empty transcript of a recorded question: error (all deletions) / skip
    clip: bool = True             # cap utterance WER at 1 in the benefit (benefit = max(0, 1 - WER))

    def __post_init__(self):
        for name, allowed in (("aggregation", AGGREGATIONS), ("subset", SUBSETS), ("missing", MISSING)):
            if getattr(self, name) not in allowed:
                raise SDQAError(f"{name} must be one of {', '.join(allowed)}, not {getattr(self, name)!r}")

    @property
    def signature(self) -> str:
        return (f"wer|{self.normalization.signature}|agg:{self.aggregation}|subset:{self.subset}"
                f"|missing:{self.missing}")


def shared_models(corpus: SDQACorpus) -> list[str]:
    """Models that transcribed every dialect (the 'general' model: en-US for English)."""
    sets = [set(ms) for ms in corpus.models.values()]
    common = set.intersection(*sets) if sets else set()
    first = next(iter(corpus.models.values()), [])
    return [m for m in first if m in common]


def model_rows(corpus: SDQACorpus) -> list[str]:
    """Table 2's rows: each shared model, then `localized` when it differs from them."""
    shared = shared_models(corpus)
    loc = {corpus.localized(d) for d in corpus.dialects}
    return shared + ([LOCALIZED] if not loc <= set(shared) or not shared else [])


def resolve_model(corpus: SDQACorpus, dialect: str, model: str) -> str | None:
    """The concrete ASR model for a row (`localized` -> the dialect's own locale)."""
    if model == LOCALIZED:
        return corpus.localized(dialect)
    return model if model in corpus.models.get(dialect, []) else None


def utterances(corpus: SDQACorpus, *, models: Sequence[str] | None = None, dialects: Sequence[str] | None = None,
               options: WerOptions = WerOptions()) -> pd.DataFrame:
    """One row per (row model, dialect, question): edits, reference words, WER and speaker fields."""
    models = list(models) if models else model_rows(corpus)
    unknown = [m for m in models if m != LOCALIZED and not any(m in ms for ms in corpus.models.values())]
    if unknown:
        known = sorted({m for ms in corpus.models.values() for m in ms} | {LOCALIZED})
        raise SDQAError(f"unknown ASR model(s) {', '.join(unknown)}; known: {', '.join(known)}")
    dialects = check_dialects(list(dialects), corpus.dialects) if dialects else corpus.dialects
    keep = corpus.common_ids() if options.subset == "common" else None
    norm = options.normalization
    rows, pairs = [], []
    for q in corpus.items:
        if q.dialect not in dialects or (keep is not None and q.example_id not in keep):
            continue
        ref = norm.words(q.question, reference=True)
        for row_model in models:
            asr = resolve_model(corpus, q.dialect, row_model)
            if asr is None:
                continue
            text = q.transcripts.get(asr, "")
            if not text and options.missing == "skip":
                continue
            pairs.append((ref, norm.words(text)))
            rows.append((corpus.lang, row_model, asr, q.dialect, q.example_id, len(ref),
                         not text, q.speaker_gender or UNKNOWN, _age_group(q.speaker_age), q.speaker_id))
    edits = word_edits(pairs)
    rows = [(*r[:5], e, r[5], e / max(r[5], 1), *r[6:]) for r, e in zip(rows, edits)]
    cols = ["lang", "row", "model", "dialect", "example_id", "edits", "ref_words", "wer", "empty", "gender", "age_group",
            "speaker"]
    return pd.DataFrame(rows, columns=cols)


_SPLIT = jiwer.ReduceToListOfListOfWords()


def word_edits(pairs: Sequence[tuple[tuple[str, ...], tuple[str, ...]]]) -> list[int]:
    """Word edits (substitutions + deletions + insertions) of each (reference, hypothesis) pair of word
    tuples, by jiwer's word alignment, all pairs in one call. An empty reference is all insertions (its
    WER is then the hypothesis length over max(0, 1) words, as `utterances` writes it); an empty
    hypothesis is all deletions."""
    if not pairs:
        return []
    # the words hold no whitespace (they come from str.split), so splitting on " " restores them; no other
    # jiwer transform: the Normalization has already been applied
    out = jiwer.process_words([" ".join(r) for r, _ in pairs], [" ".join(h) for _, h in pairs],
                              reference_transform=_SPLIT, hypothesis_transform=_SPLIT)
    return [sum(c.hyp_end_idx - c.hyp_start_idx if c.type == "insert" else c.ref_end_idx - c.ref_start_idx
                for c in chunks if c.type != "equal")
            for chunks in out.alignments]


UNKNOWN = "unknown"


def _age_group(age: str | None) -> str:
    if age is None or not str(age).isdigit():
        return UNKNOWN
    a = int(age)
    return next(label for lo, hi, label in AGE_GROUPS if lo <= a <= hi)


def aggregate(utt: pd.DataFrame, by: Sequence[str], aggregation: str = "corpus") -> pd.DataFrame:
    """WER in percent and support n per group."""
    if utt.empty:
        return pd.DataFrame(columns=[*by, "wer", "n"])
    g = utt.groupby(list(by), sort=False)
    if aggregation == "corpus":
        wer = g["edits"].sum() / g["ref_words"].sum().clip(lower=1)
    else:
        wer = g["wer"].mean()
    return pd.DataFrame({"wer": 100 * wer, "n": g.size()}).reset_index()


def paper_order(lang: str, dialects) -> list[str]:
    """Dialect codes in the paper's column order (Table 2's, as in dialects.csv); others after, as given."""
    known = [code for (lg, code) in DIALECTS if lg == lang]
    return sorted(dialects, key=lambda d: (known.index(d) if d in known else len(known)))


def dialect_table(corpus: SDQACorpus, utt: pd.DataFrame, aggregation: str = "corpus") -> pd.DataFrame:
    """One row per (row model, dialect), dialects in the paper's order: concrete model, WER %, n, paper
    label, population (millions) and the number of empty transcripts scored as all deletions."""
    order = paper_order(corpus.lang, list(dict.fromkeys(utt["dialect"])))
    utt = utt.assign(_o=utt["dialect"].map(order.index)).sort_values("_o", kind="stable")
    t = aggregate(utt, ["row", "model", "dialect"], aggregation)
    t = t.merge(utt.groupby(["row", "model", "dialect"])["empty"].sum().rename("empty").reset_index(),
                on=["row", "model", "dialect"])
    infos = [dialect_info(corpus.lang, d) for d in t["dialect"]]
    t["label"] = [i.label if i else d for i, d in zip(infos, t["dialect"])]
    t["population"] = [i.population if i else None for i in infos]  # millions, SD-QA Table 7
    t["lang"] = corpus.lang
    return t[["lang", "row", "dialect", "label", "model", "wer", "n", "empty", "population"]]


def table2(corpus: SDQACorpus, dialects_t: pd.DataFrame) -> pd.DataFrame:
    """Table 2 layout: one row per model row, a column per dialect label, avg_L, avg_pop, max-min."""
    out = []
    for row, part in dialects_t.groupby("row", sort=False):
        vals = dict(zip(part["label"], part["wer"]))
        infos = [dialect_info(corpus.lang, d) for d in part["dialect"]]
        pops = [i.population if i is not None else None for i in infos]
        out.append({"model": row, **vals, "avg_L": float(np.mean(part["wer"])),
                    "max-min": max_min(part["wer"].tolist()),
                    # NaN unless every dialect has a known population (a partial weighting would mislead)
                    "avg_pop": avg_pop(part["wer"].tolist(), pops) if None not in pops else float("nan")})
    return pd.DataFrame(out)


def breakdown(utt: pd.DataFrame, attribute: str, aggregation: str = "corpus") -> pd.DataFrame:
    """WER and support by speaker gender or age group (Tables 13-14). Utterances whose speaker field is
    missing, "na", an impossible age (2021) or contradicted by a second recording form the group
    "unknown" (the paper's "unspecified" stays as written): every utterance is in one group, none dropped."""
    if attribute not in ("gender", "age_group"):
        raise SDQAError(f"breakdown attribute must be gender or age_group, not {attribute!r}")
    return aggregate(utt, ["row", "dialect", attribute], aggregation)


def own_model_dialects(corpus: SDQACorpus) -> list[str]:
    """Dialects with a model of their own: when some dialects have several models, a dialect with only
    one (USA: en-US) has no localized model, and the paper leaves it out of the localized unfairness."""
    if max((len(ms) for ms in corpus.models.values()), default=0) <= 1:
        return corpus.dialects
    return [d for d, ms in corpus.models.items() if len(ms) > 1]


def unfairness(corpus: SDQACorpus, utt: pd.DataFrame, *, clip: bool = True, alpha: float = 2.0,
               group: str = "dialect", own_only: bool = True) -> list[dict]:
    """Per model row: total generalized entropy of benefit = 1 - WER, its between-group part and the
    within-group contribution of each group (they sum to the total)."""
    out = []
    for row, part in utt.groupby("row", sort=False):
        if row == LOCALIZED and own_only and group == "dialect":
            part = part[part["dialect"].isin(own_model_dialects(corpus))]
        part = part[part[group].notna()]
        wer = part["wer"].clip(upper=1.0) if clip else part["wer"]
        res = ge_decomposition(1.0 - wer.to_numpy(), part[group].to_numpy(), alpha=alpha)
        rec = {"model": row, "total": res.total, "within": res.within, "between": res.between,
               "n": len(part)}
        rec.update({f"within:{g}": v for g, v in res.within_parts.items()})
        out.append(rec)
    return out


@dataclass
class WerReport:
    options: WerOptions
    dialects: pd.DataFrame   # row, dialect, label, model, wer, n
    table2: pd.DataFrame
    gender: pd.DataFrame
    age: pd.DataFrame
    unfairness: list[dict]
    utterances: pd.DataFrame  # per utterance: wer (fraction) and benefit = max(0, 1 - wer) (or 1 - wer)


def wer_report(corpus: SDQACorpus, *, models: Sequence[str] | None = None, dialects: Sequence[str] | None = None,
               options: WerOptions = WerOptions()) -> WerReport:
    try:
        options.normalization.check_language(corpus.lang)
    except ValueError as exc:
        raise SDQAError(str(exc)) from None
    utt = utterances(corpus, models=models, dialects=dialects, options=options)
    if utt.empty:
        raise SDQAError("no utterances to score (check --model/--dialect and that transcripts are present)")
    d = dialect_table(corpus, utt, options.aggregation)
    per = utt.drop(columns=["edits", "ref_words"]).assign(
        benefit=1.0 - (utt["wer"].clip(upper=1.0) if options.clip else utt["wer"]))
    return WerReport(options, d, table2(corpus, d), breakdown(utt, "gender", options.aggregation),
                     breakdown(utt, "age_group", options.aggregation),
                     unfairness(corpus, utt, clip=options.clip), per)


def layout_table2(report: WerReport) -> list[dict]:
    """Table 2 turned for narrow terminals: one row per dialect (and avg_L, avg_pop, max-min), a column
    per model row."""
    t = report.table2.set_index("model")
    return [{"dialect": col, **{m: t.at[m, col] for m in t.index}} for col in t.columns if col != "lang"]


def layout_breakdown(frame: pd.DataFrame, attribute: str) -> list[dict]:
    """Breakdown with one row per (dialect, group) and, per model row, 'WER (n)'."""
    out: dict[tuple, dict] = {}
    for r in frame.sort_values(["dialect", attribute]).itertuples(index=False):
        rec = out.setdefault((r.dialect, getattr(r, attribute)), {"dialect": r.dialect,
                                                                 attribute: getattr(r, attribute)})
        rec[r.row] = f"{r.wer:.2f} ({r.n})"
    return list(out.values())


def layout_unfairness(report: WerReport) -> list[dict]:
    """Unfairness components as rows (total, between, within, within:<dialect>), a column per model row."""
    keys = list(dict.fromkeys(k for rec in report.unfairness for k in rec if k != "model"))
    return [{"component": k, **{rec["model"]: (f"{rec[k]:.5f}" if isinstance(rec.get(k), float) else
                                               rec.get(k)) for rec in report.unfairness}} for k in keys]
