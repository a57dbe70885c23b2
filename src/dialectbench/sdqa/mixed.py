"""F1 ~ WER + (1 | dialect): the linear mixed model (fixed WER slope, random intercept per dialect) that
both SD-QA analyses fit, the pipeline QA over transcripts (`qa.mixed_model`) and SD-QA-goldp
(`goldp.mixed_effects`), with statsmodels' MixedLM (REML)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class WerMixedFit:
    wer_coef: float
    wer_p: float
    intercept: float
    dialect_var: float
    converged: bool  # statsmodels converged and raised no ConvergenceWarning (else: dialect variance near 0)

    def numbers(self) -> dict[str, float]:
        return {"wer_coef": self.wer_coef, "wer_p": self.wer_p, "intercept": self.intercept,
                "dialect_var": self.dialect_var}


def fit_wer_mixed(df: pd.DataFrame, response: str) -> WerMixedFit:
    """`response` ~ wer + (1 | dialect) on `df` (columns `response`, wer, dialect). The caller checks that
    there is something to fit (2+ dialects); a design statsmodels cannot fit raises its ValueError or
    numpy's LinAlgError."""
    import statsmodels.formula.api as smf

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # recorded, not shown: convergence chatter on small samples
        fit = smf.mixedlm(f"{response} ~ wer", df, groups=df["dialect"]).fit(reml=True)
    warned = any(type(w.message).__name__ == "ConvergenceWarning" for w in caught)
    return WerMixedFit(wer_coef=float(fit.params["wer"]), wer_p=float(fit.pvalues["wer"]),
                       intercept=float(fit.params["Intercept"]), dialect_var=float(fit.cov_re.iloc[0, 0]),
                       converged=bool(fit.converged) and not warned)
