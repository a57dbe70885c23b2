"""Synthetic dialect varieties: eWAVE dialect-feature rules applied to UD analyses, label-aligned.

rules.yaml / rules.py   the features (metadata + examples / one function per rule)
profiles.yaml           AAVE, Colloquial Singapore English, Indian and Nigerian English: rule rates from eWAVE
tree.py                 the editable tree and its label policy (what insert/delete/replace/move do to labels)
engine.py               seeded, deterministic application
synthetic.py            synthetic varieties in a benchmark run (names, data source)
docs/perturbation.md    the rules table, the profiles' sources, the validation numbers
"""

from dialectbench.perturb.catalogue import (
                                             PerturbError,
                                             get_profile,
                                             get_rule,
                                             parse_analysis,
                                             profile_specs,
                                             rule_specs,
)
from dialectbench.perturb.engine import Applied, perturb_all, perturb_sentence, perturb_tagged

__all__ = ["Applied", "PerturbError", "get_profile", "get_rule", "parse_analysis", "perturb_all",
           "perturb_sentence", "perturb_tagged", "profile_specs", "rule_specs"]
