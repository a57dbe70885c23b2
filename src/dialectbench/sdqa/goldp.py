"""The QA half of SD-QA on the released gold-passage data (`sd-qa-goldp/<split>/sdqa-<split>-<language>-
<dialect>.json`, SQuAD 1.1 layout, built by DialectBench from TyDi QA GoldP): each dialect's file asks the
same questions about the same passages, the question being that dialect's ASR transcript.

Per question we score the minimal answer with SQuAD F1 (the benefit for unfairness, SD-QA §3), then per
dialect the mean F1 (Table 4 layout), the generalized-entropy unfairness per language and over all dialects
(Table 5 layout), the Spearman correlation of WER with F1 per language (Table 15 layout: across questions,
and across dialects as the paper plots it), and F1 ~ WER + (1 | dialect) with statsmodels (§4).

A question whose transcript is empty ("?" only: the recording or its ASR output is missing) is still asked
and scored, and counted per dialect as `empty_questions`; its WER comes from the SD-QA transcripts
(`../sd-qa`), where a question never recorded has none and is left out of the correlations, counted as
`no_wer`."""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from dialectbench.data.examples import QAExample
from dialectbench.extras import require
from dialectbench.sdqa.dialects import LANGUAGES, SDQAError, label
from dialectbench.sdqa.fairness import ge_decomposition

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
    """An extractive QA model of ours: `baseline` (CPU; trained on `train`, or its untrained heuristic
    when `train` is empty) or any registered backend (`hf:<model>`) fitted on `train`."""

    def __init__(self, backend: str = "baseline", train: Sequence[QAExample] = (), seed: int = 0):
        from dialectbench.backends import get_backend

        self.name = backend if train else f"{backend} (untrained)"
        if backend == "baseline" and not train:
            from dialectbench.backends.baseline.qa import ExtractiveQA

            self._model = ExtractiveQA()
        else:
            self._model = get_backend(backend).fit("eqa", list(train), None, seed=seed)

    def answers(self, examples: Sequence[QAExample]) -> list[str]:
        return [str(a) for a in self._model.predict(list(examples))]


def score_set(reader: Reader, s: GoldpSet, questions: dict[str, str] | None = None) -> pd.DataFrame:
    """Per-question F1/EM (0-1) of `reader` on one dialect's file; `questions` (TyDi id -> text) replaces
    the file's questions (the gold questions of ../sd-qa, for the Gold row)."""
    from dialectbench.metrics.qa import squad_scores

    exs = list(s.examples)
    if questions is not None:
        exs = [QAExample(e.example_id, e.context, questions.get(t, e.question), e.answers, e.answer_starts)
               for e, t in zip(exs, s.tydi_ids)]
    preds = reader.answers(exs)
    res = squad_scores([e.answers for e in exs], preds, language=LANGUAGES[s.lang][1])
    return pd.DataFrame({"lang": s.lang, "dialect": GOLD if questions is not None else s.dialect,
                         "example_id": list(s.tydi_ids), "question": [e.question for e in exs],
                         "empty": [is_empty_question(e.question) for e in exs], "prediction": preds,
                         "f1": res.per_example, "em": res.extra["per_example_em"]})


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
              split: str = "dev", reader: Reader | None = None, mixed: bool = True,
              gold: bool = True) -> GoldpResult:
    if mixed:
        require("sdqa goldp's mixed model (--no-mixed skips it)", "statsmodels")
    reader = reader or Reader()
    sets = read_goldp(data_dir, langs, split)
    frames = [score_set(reader, s) for s in sets]
    if gold:  # the Gold row: the typed questions (from ../sd-qa) on the same passages, once per language
        for lang in dict.fromkeys(s.lang for s in sets):
            qs = _gold_questions(sdqa_dir, lang, split)
            if qs:
                frames.append(score_set(reader, next(s for s in sets if s.lang == lang), qs))
    q = pd.concat(frames, ignore_index=True)
    wer = per_question_wer(sdqa_dir, list(dict.fromkeys(s.lang for s in sets)), split)
    q = q.merge(wer, on=["lang", "dialect", "example_id"], how="left")
    res = GoldpResult(reader.name, q, f1_table(q))
    res.unfairness = unfairness_table(q)
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


def _ge(part: pd.DataFrame) -> dict:
    res = ge_decomposition(part["f1"].to_numpy(), part["dialect"].to_numpy())
    return {"unfairness": res.total, "within": res.within, "between": res.between,
            "avg_f1": float(100 * part.groupby("dialect")["f1"].mean().mean()), "n": len(part),
            "dialects": part["dialect"].nunique(), "empty_questions": int(part["empty"].sum())}


def unfairness_table(q: pd.DataFrame) -> list[dict]:
    """Table 5 layout: per language, then `all` (the dialects of every language scored), generalized
    entropy (alpha = 2) of per-question F1 over dialects and the average F1 (avg_L). Gold rows excluded."""
    asr = q[q["dialect"] != GOLD]
    rows = [{"lang": lang, **_ge(part)} for lang, part in asr.groupby("lang", sort=False)]
    if asr["lang"].nunique() > 1:
        rows.append({"lang": "all", **_ge(asr.assign(dialect=asr["lang"] + ":" + asr["dialect"]))})
    return rows


def spearman_table(q: pd.DataFrame, f1: pd.DataFrame) -> list[dict]:
    """Table 15 layout, per language: Spearman's rho of WER and F1 across questions (each dialect's
    transcript of each question) and across dialects (mean WER vs mean F1; Korean and Bengali have two
    dialects, so that rho is +-1 by construction: n_dialects says so)."""
    from dialectbench.analysis import spearman

    rows = []
    for lang, part in q[(q["dialect"] != GOLD)].groupby("lang", sort=False):
        known = part.dropna(subset=["wer"])
        rec: dict = {"lang": lang, "rho_questions": float("nan"), "p_questions": float("nan"),
                     "n_questions": len(known), "no_wer": int(part["wer"].isna().sum()),
                     "rho_dialects": float("nan"), "n_dialects": 0}
        if len(known) >= 3 and known["wer"].nunique() > 1 and known["f1"].nunique() > 1:
            r = spearman(known["wer"].tolist(), known["f1"].tolist())
            rec.update(rho_questions=r.rho, p_questions=r.p_value)
        d = f1[(f1["lang"] == lang) & (f1["dialect"] != GOLD)].dropna(subset=["wer"])
        rec["n_dialects"] = len(d)
        if len(d) >= 2 and d["wer"].nunique() > 1 and d["f1"].nunique() > 1:
            rec["rho_dialects"] = spearman(d["wer"].tolist(), d["f1"].tolist()).rho
        rows.append(rec)
    return rows


def mixed_effects(q: pd.DataFrame, lang: str) -> dict:
    """F1 ~ WER + (1 | dialect), statsmodels MixedLM (REML) on one language's questions with a WER. A
    language statsmodels cannot fit (too few dialects, a singular design) says why instead of a number."""
    import statsmodels.formula.api as smf

    df = q[(q["lang"] == lang) & (q["dialect"] != GOLD)].dropna(subset=["wer"])
    rec = {"lang": lang, "n": len(df), "dialects": df["dialect"].nunique(), "wer_coef": float("nan"),
           "wer_p": float("nan"), "intercept": float("nan"), "dialect_var": float("nan"), "note": ""}
    if df["dialect"].nunique() < 2 or df["wer"].nunique() < 2:
        rec["note"] = "not fitted: needs 2+ dialects and varying WER"
        return rec
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit = smf.mixedlm("f1 ~ wer", df, groups=df["dialect"]).fit(reml=True)
        rec.update(wer_coef=float(fit.params["wer"]), wer_p=float(fit.pvalues["wer"]),
                   intercept=float(fit.params["Intercept"]), dialect_var=float(fit.cov_re.iloc[0, 0]))
        msgs = {type(w.message).__name__ for w in caught}
        rec["note"] = "converged" if fit.converged and "ConvergenceWarning" not in msgs else \
            "fitted with convergence warnings (boundary: dialect variance near 0)"
    except (ValueError, np.linalg.LinAlgError) as exc:
        rec["note"] = f"not fitted: {exc}"
    return rec
