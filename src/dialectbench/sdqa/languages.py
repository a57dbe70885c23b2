"""SD-QA across its five languages: load every language present, Table 2 per language with the paper's
cells beside ours, and the ASR unfairness of Table 12 per language plus an all-language figure."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd

from dialectbench.sdqa.corpus import SDQACorpus, add_transcript_rows, load_sdqa
from dialectbench.sdqa.dialects import LANGUAGES, SDQAError, SDQAMissing, label
from dialectbench.sdqa.fairness import ge_decomposition
from dialectbench.sdqa.metadata import audit_corpus
from dialectbench.sdqa.wer import LOCALIZED, WerOptions, WerReport, own_model_dialects, utterances, wer_report

LANG_ORDER = ("eng", "ara", "ben", "kor", "swa")  # the paper's order in Tables 2 and 12
REPRODUCE_WITHIN = 0.5  # WER points: a Table 2 cell "reproduces" when ours is this close to the printed one


def parse_langs(lang: str) -> list[str]:
    """`all` or one language code; an unknown code is named with the known ones."""
    code = lang.strip().lower()
    if code == "all":
        return list(LANG_ORDER)
    if code not in LANGUAGES:
        import difflib

        near = difflib.get_close_matches(code, list(LANGUAGES), n=2, cutoff=0.3)
        hint = f" Did you mean: {', '.join(near)}?" if near else ""
        raise SDQAError(f"unknown SD-QA language {lang!r}.{hint} Known: {', '.join(LANG_ORDER)}, all")
    return [code]


def load_languages(data_dir: Path | str, lang: str,
                   split: str) -> tuple[dict[str, SDQACorpus], list[str], list[str]]:
    """Corpora by language, the languages without files for `split`, and one "file:line: problem" per
    language whose files could not be read. With one language, absence or a fault is an error; with
    `all`, the caller says which languages were left out and why."""
    langs = parse_langs(lang)
    out, absent, problems = {}, [], []
    for code in langs:
        try:
            out[code] = load_sdqa(data_dir, code, split)
        except SDQAError as err:
            if len(langs) == 1:
                raise
            if isinstance(err, SDQAMissing):
                absent.append(code)
            else:
                problems.append(f"{err} ({code})")
    if not out:
        raise SDQAError(f"no readable SD-QA {split} data for any language under {data_dir} "
                        f"(expected <dir>/{split}/<lang>/<language>.{split}.csv)"
                        + "".join(f"; {p}" for p in problems))
    return out, absent, problems


@dataclass
class LanguageReport:
    lang: str
    corpus: SDQACorpus
    wer: WerReport
    metadata: list[dict]


def language_reports(corpora: dict[str, SDQACorpus], options: WerOptions, split: str, *,
                     models: Sequence[str] | None = None, dialects: Sequence[str] | None = None,
                     transcripts: Path | str | None = None) -> list[LanguageReport]:
    """Per language: the WER report (of `models` and `dialects`, all when None) and the metadata audit of
    the files beside its transcripts. `transcripts` (a CSV written by `sdqa asr --output`) adds its
    (dialect, model) rows to every corpus first."""
    out = []
    for code, corpus in corpora.items():
        if transcripts is not None:
            corpus = add_transcript_rows(corpus, transcripts)
        report = wer_report(corpus, models=models, dialects=dialects, options=options)
        root = Path(corpus.source).parent.parent.parent
        out.append(LanguageReport(code, corpus, report, audit_corpus(root, code, split, corpus.dialects)))
    return out


# the paper's WER table per split: Table 2 (dev) and Table 9 (test, Appendix C)
PAPER_TABLES = {"dev": ("Table 2", "paper_table2.csv"), "test": ("Table 9", "paper_table9.csv")}
# Known deviation (docs/protocol.md, "SD-QA WER"): measured on the mirror's dev files, every Bengali cell is
# 7.8-8.0 WER under Table 2 with `paper` normalization and 1.9 above it with `--normalize none`; the mirror's
# Bengali is not byte-identical to the release (NFC-rewritten nukta letters), and which text the paper scored
# is not established, so the cells are reported, not forced.
BENGALI_NOTE = ("note: Bengali is a known deviation: ~8 WER under the paper in every dev cell with the paper's "
                "normalization, ~2 above with --normalize none (docs/protocol.md, SD-QA WER)")


def paper_table(split: str = "dev") -> pd.DataFrame:
    """The paper's WER table for `split` as printed (Table 2 for dev, Table 9 for test): lang, code, row,
    paper. SDQAError for a split the paper prints no WER for."""
    if split not in PAPER_TABLES:
        raise SDQAError(f"the paper prints WER for dev (Table 2) and test (Table 9) only, not {split!r}")
    text = (files("dialectbench.sdqa") / PAPER_TABLES[split][1]).read_text(encoding="utf-8")
    rows = list(csv.DictReader(line for line in text.splitlines() if not line.startswith("#")))
    return pd.DataFrame({"lang": [r["lang"] for r in rows], "code": [r["code"] for r in rows],
                         "row": [r["row"] for r in rows], "paper": [float(r["wer"]) for r in rows]})


def paper_table2() -> pd.DataFrame:
    """Seed 001 Table 2 as printed (packaged paper_table2.csv): lang, code, row, paper."""
    return paper_table("dev")


def compare_table2(reports: list[LanguageReport], split: str = "dev") -> pd.DataFrame:
    """Every printed cell of the paper's table for `split` (Table 2 dev, Table 9 test) of the languages
    scored, ours beside it: lang, label, row, ours, paper, diff, reproduces (|diff| <= 0.5). A cell we could
    not score keeps ours = NaN and reproduces = False."""
    paper = paper_table(split)
    ours = pd.concat([r.wer.dialects[["lang", "row", "dialect", "wer"]] for r in reports])
    m = paper[paper["lang"].isin([r.lang for r in reports])].merge(
        ours.rename(columns={"dialect": "code", "wer": "ours"}), on=["lang", "code", "row"], how="left")
    m["label"] = [label(lg, c) for lg, c in zip(m["lang"], m["code"])]
    m["diff"] = m["ours"] - m["paper"]
    m["reproduces"] = m["diff"].abs() <= REPRODUCE_WITHIN
    return m[["lang", "label", "code", "row", "ours", "paper", "diff", "reproduces"]]


def _avg_l(utt: pd.DataFrame) -> float:
    return float(np.mean([100 * g["edits"].sum() / max(g["ref_words"].sum(), 1) for _, g in utt.groupby("dialect")]))


def _ge_row(lang: str, model: str, utt: pd.DataFrame, group: str, clip: bool, avg: float) -> dict:
    wer = utt["wer"].clip(upper=1.0) if clip else utt["wer"]
    res = ge_decomposition(1.0 - wer.to_numpy(), utt[group].to_numpy())
    macro = avg
    return {"lang": lang, "model": model, "unfairness": res.total, "within": res.within,
            "between": res.between, "avg_wer": macro, "n": len(utt), "group": group}


def table12(reports: list[LanguageReport], options: WerOptions) -> list[dict]:
    """Seed 001 Table 12: per language and ASR model row, the generalized entropy (alpha = 2) of the
    per-utterance benefit 1 - WER over that language's dialects (within + between = total exactly) and the
    average WER (avg_L over all the language's dialects, USA included, as printed). English has en-US and the localized models (USA left out of the localized row: it
    has no model of its own); the other languages use each dialect's localized model (the paper's
    "ar-XX"/"bn-XX"/"sw-XX"; Bengali and Kiswahili's two models give nearly the same text). The `all` row (not in the
    paper) pools every language's localized utterances, all dialects, grouped by language (between =
    across languages)."""
    rows, pooled = [], []
    for rep in reports:
        corpus = rep.corpus
        models = [m for m in ("en-US",) if rep.lang == "eng" and any(m in ms for ms in corpus.models.values())]
        for model in [*models, LOCALIZED]:
            utt = utterances(corpus, models=[model], options=options)
            avg = _avg_l(utt) if not utt.empty else float("nan")  # avg_L over every dialect, as Table 12 prints
            if model == LOCALIZED:
                pooled.append(utt)  # every dialect, USA included, in the all-language figure
                utt = utt[utt["dialect"].isin(own_model_dialects(corpus))]
            if not utt.empty:
                rows.append(_ge_row(rep.lang, model, utt, "dialect", options.clip, avg))
    if len(pooled) > 1:
        allu = pd.concat(pooled, ignore_index=True)
        rows.append(_ge_row("all", LOCALIZED, allu, "lang", options.clip, _avg_l(allu.assign(
            dialect=allu["lang"] + ":" + allu["dialect"]))))
    return rows
