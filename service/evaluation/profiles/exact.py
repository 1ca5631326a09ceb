"""The plain baseline: value strings compared exactly, set semantics, no KB.

1.1.0: a question the system did not answer (its call failed, or the answer file has no entry
for it) scores 0/0/0, not the 1/1/1 of an empty answer to an empty gold set (explore25 1).
"""

from __future__ import annotations

from service.evaluation.matchers.exact import ExactMatcher
from service.evaluation.profiles.base import Profile
from service.evaluation.scoring import ANSWERED

PROFILE = Profile(
    name="exact",
    version="1.1.0",
    reference="none",
    title="Exact string match",
    description=(
        "The plain baseline most tools use: the answer set is the set of value strings of "
        "every variable of every row (booleans as true/false), compared character by "
        "character; no normalisation, no KB. Standard rules: an empty gold set scores 1 for an "
        "empty answer and 0 otherwise (a question the system did not answer, its call failed "
        "or the file has no entry for it, scores 0), no true positive 0, else precision "
        "TP/(TP+FP) and recall TP/(TP+FN). Micro from summed counts, macro as means of the "
        "per-question values. "
        "Sub-experiments compare IRIs as exact strings. Reproduces the per-question values of "
        "AKSW NLIWOD qa.ml wherever gold and system sets are both non-empty."
    ),
    settings=(
        ("items", "values"),
        ("match", "string"),
        ("sets", "distinct"),
        ("empty", "1/0"),
        ("unanswered", "0"),
    ),
    matcher=ExactMatcher(),
    scoring=ANSWERED,
    aggregates_as=("1.0.0",),  # only per-question rules moved since
)
