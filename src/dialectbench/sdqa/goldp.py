"""The QA half of SD-QA on the released gold-passage data (`sd-qa-goldp/<split>/sdqa-<split>-<language>-
<dialect>.json`, SQuAD 1.1 layout, built by DialectBench from TyDi QA GoldP): each dialect's file asks the
same questions about the same passages, the question being that dialect's ASR transcript.

The questions are answered, by default, by a reader trained on each language's typed (gold) questions over
these passages, cross-fitted by passage so that none is answered by a model that saw its passage
(`CrossFitReader`; the mirror has no TyDi QA training set). Per question we score the minimal answer with
SQuAD F1 (the benefit for unfairness, SD-QA §3), then per dialect the mean F1 (Table 4 layout), the
generalized-entropy unfairness per language and over all dialects (Table 5 layout), the Spearman
correlation of WER with F1 per language (Table 15 layout: across dialects, with n and p, and across
questions), and F1 ~ WER + (1 | dialect) with statsmodels (§4).

A question whose transcript is empty ("?" only: the recording or its ASR output is missing) is still asked
and scored, and counted per dialect as `empty_questions`; its WER comes from the SD-QA transcripts
(`../sd-qa`), where a question never recorded has none and is left out of the correlations, counted as
`no_wer`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from dialectbench.backends.crossfit import DEFAULT_FOLDS, CrossFitted, passage_key
from dialectbench.data.examples import QAExample
from dialectbench.extras import require
from dialectbench.sdqa.dialects import LANGUAGES, SDQAError, label
from dialectbench.sdqa.fairness import ge_decomposition
from dialectbench.sdqa.mixed import fit_wer_mixed

_FILE = re.compile(r"^sdqa-(?P<split>[a-z]+)-(?P<language>[a-z]+)-(?P<dialect>[a-z_]+)\.json$")
_NAME_TO_LANG = {v[0]: k for k, v in LANGUAGES.items()}
GOLD = "gold"


@dataclass(frozen=True)
class GoldpSet:
    lang: str
    dialect: str
    path: Path
    examples: tuple[QAExample, ...]
    tydi_ids: tuple[str, ...]   # the TyDi example id of each question (joins the SD-QA transcripts)


def goldp_folder(data_dir: Path | str, split: str) -> Path:
    """`data_dir` may be the split folder, the `sd-qa-goldp` folder or its parent."""
    root = Path(data_dir)
    for cand in (root, root / split, root / "sd-qa-goldp" / split):
        if cand.is_dir() and any(cand.glob(f"sdqa-{split}-*.json")):
            return cand
    raise SDQAError(f"no SD-QA gold-passage files sdqa-{split}-<language>-<dialect>.json under {root}")


def read_goldp(data_dir: Path | str, langs: Sequence[str], split: str = "dev") -> list[GoldpSet]:
    from dialectbench.data.readers.squad import read_squad

    folder = goldp_folder(data_dir, split)
    out = []
    for path in sorted(folder.glob(f"sdqa-{split}-*.json")):
        m = _FILE.match(path.name)
        if not m or m["language"] not in _NAME_TO_LANG:
            continue  # e.g. sdqa-dev-all.json: the per-dialect files are the data
        lang, dialect = _NAME_TO_LANG[m["language"]], m["dialect"]
        if lang not in langs:
            continue
        # SQuAD F1 compares answer texts only, so answer offsets are not checked: one English item
        # (english--5989749006968391090-*) has an answer_start 2 characters early in every English file
        exs = tuple(read_squad(path, check_spans=False))
        prefix, suffix = f"{m['language']}-", f"-{dialect}"
        ids = []
        for ex in exs:
            qid = ex.example_id.split(":", 1)[-1]
            if not (qid.startswith(prefix) and qid.endswith(suffix)):
                raise SDQAError(f"{path}: question id {qid!r} is not '{prefix}<TyDi id>{suffix}'")
            ids.append(qid[len(prefix):-len(suffix)])
        out.append(GoldpSet(lang, dialect, path, exs, tuple(ids)))
    if not out:
        raise SDQAError(f"{folder}: no gold-passage files for {', '.join(langs)}")
    return out


def is_empty_question(text: str) -> bool:
    return not text.strip().strip("?؟").strip()


class Reader:
    """An extractive QA model of ours, one for every language: `baseline` (CPU; trained on `train`, or its
    untrained heuristic when `train` is empty) or any registered backend (`hf:<model>`) fitted on `train`."""

    def __init__(self, backend: str = "baseline", train: Sequence[QAExample] = (), seed: int = 0):
        from dialectbench.backends import get_backend

        self.name = backend if train else f"{backend} (untrained)"
        if backend == "baseline" and not train:
            from dialectbench.backends.baseline.qa import ExtractiveQA

            self._model = ExtractiveQA()
        else:
            self._model = get_backend(backend).fit("eqa", list(train), None, seed=seed)

    def answers(self, examples: Sequence[QAExample], lang: str | None = None) -> list[str]:
        return [str(a) for a in self._model.predict(list(examples))]


class CrossFitReader:
    """The default: per language, `backend` trained on that language's gold (typed) questions over the GoldP
    passages themselves, cross-fitted by passage (backends/crossfit.py) so that no question is answered by
    a model trained on its passage. It stands in for the TyDi QA training set the mirror lacks."""

    def __init__(self, backend: str = "baseline", folds: int = DEFAULT_FOLDS, seed: int = 0):
        self.backend, self.folds, self.seed = backend, folds, seed
        self.name = f"{backend} cross-fitted on each language's gold questions ({folds} passage folds)"
        self.models: dict[str, CrossFitted] = {}

    def fit_language(self, lang: str, gold: Sequence[QAExample]) -> None:
        from dialectbench.backends import get_backend

        backend = get_backend(self.backend)
        self.models[lang] = CrossFitted(lambda train: backend.fit("eqa", train, None, seed=self.seed), gold,
                                        self.folds, self.seed, trained_on=f"{lang} GoldP gold questions")

    def answers(self, examples: Sequence[QAExample], lang: str | None = None) -> list[str]:
        if lang not in self.models:
            raise SDQAError(f"no cross-fitted reader for {lang}: its gold questions were not given")
        return [str(a) for a in self.models[lang].predict(list(examples))]


def with_questions(s: GoldpSet, questions: dict[str, str]) -> list[QAExample]:
    """The file's examples asking `questions` (TyDi id -> text, e.g. the typed gold ones) where given."""
    return [QAExample(e.example_id, e.context, questions.get(t, e.question), e.answers, e.answer_starts)
            for e, t in zip(s.examples, s.tydi_ids)]


def score_set(reader: Reader | CrossFitReader, s: GoldpSet,
              questions: dict[str, str] | None = None) -> pd.DataFrame:
    """Per-question F1/EM (0-1) of `reader` on one dialect's file; `questions` (TyDi id -> text) replaces
    the file's questions (the gold questions of ../sd-qa, for the Gold row)."""
    from dialectbench.metrics.qa import squad_scores

    exs = with_questions(s, questions) if questions is not None else list(s.examples)
    preds = reader.answers(exs, s.lang)
    res = squad_scores([e.answers for e in exs], preds, language=LANGUAGES[s.lang][1])
    frame = pd.DataFrame({"lang": s.lang, "dialect": GOLD if questions is not None else s.dialect,
                          "example_id": list(s.tydi_ids), "question": [e.question for e in exs],
                          "empty": [is_empty_question(e.question) for e in exs], "prediction": preds,
                          "f1": res.per_example, "em": res.extra["per_example_em"]})
    model = getattr(reader, "models", {}).get(s.lang)
    if model is not None:  # which fold's model answered, and whether it had seen the passage (never)
        frame["fold"] = [model.fold_of(e) for e in exs]
        frame["passage_seen"] = [passage_key(e) in model.trained_passages[model.fold_of(e)] for e in exs]
    return frame


@dataclass
class GoldpResult:
    system: str
    questions: pd.DataFrame            # one row per (lang, dialect, question), gold rows included
    f1: pd.DataFrame                   # per dialect (Table 4 layout)
    unfairness: list[dict] = field(default_factory=list)   # Table 5 layout
    spearman: list[dict] = field(default_factory=list)     # Table 15 layout
    mixed: list[dict] = field(default_factory=list)


def per_question_wer(sdqa_dir: Path | str | None, langs: Sequence[str], split: str) -> pd.DataFrame:
    """WER (fraction) of each (lang, dialect, question) under the localized model (the paper's en-VAR for
    English, as in its Table 15), from the SD-QA transcripts; empty when they are absent."""
    from dialectbench.sdqa.corpus import load_sdqa
    from dialectbench.sdqa.wer import LOCALIZED, WerOptions, utterances

    frames = []
    for lang in langs:
        if sdqa_dir is None:
            break
        try:
            corpus = load_sdqa(sdqa_dir, lang, split)
        except SDQAError:
            continue
        utt = utterances(corpus, models=[LOCALIZED], options=WerOptions(subset="all"))
        frames.append(utt[["lang", "dialect", "example_id", "wer"]])
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["lang", "dialect", "example_id", "wer"])


def _gold_questions(sdqa_dir, lang: str, split: str) -> dict[str, str] | None:
    from dialectbench.sdqa.corpus import load_sdqa

    try:
        return load_sdqa(sdqa_dir, lang, split).questions if sdqa_dir is not None else None
    except SDQAError:
        return None


def run_goldp(data_dir: Path | str, *, sdqa_dir: Path | str | None = None, langs: Sequence[str] = ("eng",),
              split: str = "dev", reader: Reader | CrossFitReader | None = None, mixed: bool = True,
              gold: bool = True) -> GoldpResult:
    """Score every dialect's file (and the Gold row: the typed questions of ../sd-qa on the same passages,
    once per language); a `CrossFitReader` (the default) is first trained on each language's gold questions."""
    if mixed:
        require("sdqa goldp's mixed model (--no-mixed skips it)", "statsmodels")
    reader = reader or CrossFitReader()
    sets = read_goldp(data_dir, langs, split)
    golds = {lang: _gold_questions(sdqa_dir, lang, split) for lang in dict.fromkeys(s.lang for s in sets)}
    if isinstance(reader, CrossFitReader):
        for lang, qs in golds.items():
            if not qs:
                raise SDQAError(f"{lang}: the cross-fitted reader trains on the typed (gold) questions of the "
                                "SD-QA transcripts, which were not found: pass --sdqa-dir, or --train demo|none|FILE")
            first = next(s for s in sets if s.lang == lang)  # every file of a language: same passages, answers
            reader.fit_language(lang, [e for e, t in zip(with_questions(first, qs), first.tydi_ids) if t in qs])
    frames = [score_set(reader, s) for s in sets]
    if gold:
        frames += [score_set(reader, next(s for s in sets if s.lang == lang), qs) for lang, qs in golds.items() if qs]
    q = pd.concat(frames, ignore_index=True)
    wer = per_question_wer(sdqa_dir, list(golds), split)
    q = q.merge(wer, on=["lang", "dialect", "example_id"], how="left")
    res = GoldpResult(reader.name, q, f1_table(q))
    in_goldp = {lang: set(q.loc[q["lang"] == lang, "example_id"]) for lang in golds}
    res.unfairness = unfairness_table(q, {lang: len(set(qs) - in_goldp[lang]) for lang, qs in golds.items() if qs})
    res.spearman = spearman_table(q, res.f1)
    if mixed:
        res.mixed = [mixed_effects(q, lang) for lang in dict.fromkeys(q["lang"])]
    return res


def f1_table(q: pd.DataFrame) -> pd.DataFrame:
    g = q.groupby(["lang", "dialect"], sort=False)
    t = pd.DataFrame({"f1": 100 * g["f1"].mean(), "em": 100 * g["em"].mean(), "n": g.size(),
                      "empty_questions": g["empty"].sum().astype(int),
                      "wer": 100 * g["wer"].mean(), "no_wer": g["wer"].apply(lambda s: int(s.isna().sum()))})
    t = t.reset_index()
    t.loc[t["dialect"] == GOLD, ["wer", "no_wer"]] = [np.nan, 0]
    t.insert(2, "label", [d if d == GOLD else label(lg, d) for lg, d in zip(t["lang"], t["dialect"])])
    return t


def _ge(part: pd.DataFrame, no_answer: dict[str, int]) -> dict:
    """The index over the GoldP questions, and over SD-QA's population: the same plus, per dialect, the
    language's dev questions without a TyDi answer (not in GoldP) at benefit 1, a correct abstention."""
    res = ge_decomposition(part["f1"].to_numpy(), part["dialect"].to_numpy())
    extra = {d: no_answer.get(lang, 0) for d, lang in zip(part["dialect"], part["lang"])}
    full = ge_decomposition(np.concatenate([part["f1"].to_numpy(), np.ones(sum(extra.values()))]),
                            [*part["dialect"], *(d for d, k in extra.items() for _ in range(k))])
    return {"unfairness": res.total, "within": res.within, "between": res.between,
            "avg_f1": float(100 * part.groupby("dialect")["f1"].mean().mean()), "n": len(part),
            "dialects": part["dialect"].nunique(), "empty_questions": int(part["empty"].sum()),
            "no_answer_questions": sum(extra.values()), "unfairness_sdqa_population": full.total}


def unfairness_table(q: pd.DataFrame, no_answer: dict[str, int] | None = None) -> list[dict]:
    """Table 5 layout: per language, then `all` (the dialects of every language scored), generalized
    entropy (alpha = 2) of per-question F1 grouped by dialect, and the average F1 (avg_L). Gold rows
    excluded. SD-QA's Table 5 is this index over every dev question of the TyDi primary task, about half
    of which have no answer and score 1 when the system abstains (docs/protocol.md); GoldP keeps only the
    answered ones, so its index is larger at the same F1. `unfairness_sdqa_population` adds, per
    dialect, the `no_answer` questions of its language (SD-QA dev questions not in GoldP) at benefit 1,
    as if the reader abstained on exactly those: the paper's population, under that assumption."""
    no_answer = no_answer or {}
    asr = q[q["dialect"] != GOLD]
    rows = [{"lang": lang, **_ge(part, no_answer)} for lang, part in asr.groupby("lang", sort=False)]
    if asr["lang"].nunique() > 1:
        rows.append({"lang": "all", **_ge(asr.assign(dialect=asr["lang"] + ":" + asr["dialect"]), no_answer)})
    return rows


MIN_RANKED = 3  # a rank correlation of 2 points is +-1 whatever they are


def spearman_table(q: pd.DataFrame, f1: pd.DataFrame) -> list[dict]:
    """Table 15 layout, per language: Spearman's rho (and p) of WER and F1 across dialects (each dialect's
    mean WER vs its F1, as the paper plots it) and across questions (each dialect's transcript of each
    question). Korean and Bengali have two dialects, too few for a rank correlation: their dialect rho is
    undefined (NaN, with `note` saying so), never the +-1 two points always give."""
    from dialectbench.analysis import spearman

    rows = []
    for lang, part in q[(q["dialect"] != GOLD)].groupby("lang", sort=False):
        d = f1[(f1["lang"] == lang) & (f1["dialect"] != GOLD)].dropna(subset=["wer"])
        rec: dict = {"lang": lang, "rho_dialects": float("nan"), "p_dialects": float("nan"),
                     "n_dialects": len(d), "note": ""}
        if len(d) < MIN_RANKED:
            rec["note"] = f"undefined ({len(d)} dialects)"
        elif d["wer"].nunique() > 1 and d["f1"].nunique() > 1:
            r = spearman(d["wer"].tolist(), d["f1"].tolist())
            rec.update(rho_dialects=r.rho, p_dialects=r.p_value)
        known = part.dropna(subset=["wer"])
        rec.update(rho_questions=float("nan"), p_questions=float("nan"), n_questions=len(known),
                   no_wer=int(part["wer"].isna().sum()))
        if len(known) >= MIN_RANKED and known["wer"].nunique() > 1 and known["f1"].nunique() > 1:
            r = spearman(known["wer"].tolist(), known["f1"].tolist())
            rec.update(rho_questions=r.rho, p_questions=r.p_value)
        rows.append(rec)
    return rows


def mixed_effects(q: pd.DataFrame, lang: str) -> dict:
    """F1 ~ WER + (1 | dialect), statsmodels MixedLM (REML) on one language's questions with a WER. A
    language statsmodels cannot fit (too few dialects, a singular design) says why instead of a number."""
    df = q[(q["lang"] == lang) & (q["dialect"] != GOLD)].dropna(subset=["wer"])
    rec = {"lang": lang, "n": len(df), "dialects": df["dialect"].nunique(), "wer_coef": float("nan"),
           "wer_p": float("nan"), "intercept": float("nan"), "dialect_var": float("nan"), "note": ""}
    if df["dialect"].nunique() < 2 or df["wer"].nunique() < 2:
        rec["note"] = "not fitted: needs 2+ dialects and varying WER"
        return rec
    try:
        fit = fit_wer_mixed(df, "f1")
        rec.update(fit.numbers())
        rec["note"] = "converged" if fit.converged else \
            "fitted with convergence warnings (boundary: dialect variance near 0)"
    except (ValueError, np.linalg.LinAlgError) as exc:
        rec["note"] = f"not fitted: {exc}"
    return rec
