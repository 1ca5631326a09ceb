"""The plain baseline: value strings compared exactly, set semantics, no KB.

1.1.0: a question the system did not answer (its call failed, or the answer file has no entry
for it) scores 0/0/0, not the 1/1/1 of an empty answer to an empty gold set (explore25 1).

1.2.0: such a question is no empty answer in Macro F1 QALD either (its P is 0 there, not the 1
of an empty answer: a flaky service gained QALD precision from its failures, explore28 F1), and
C2KB holds the classes of variables not projected (scored nowhere but RE2KB before, F11).
"""

from __future__ import annotations

from service.evaluation.matchers.exact import ExactMatcher
from service.evaluation.profiles.base import OlderVersion, Profile
from service.evaluation.scoring import ANSWERED, ANSWERED_QALD, STANDARD

PROFILE = Profile(
    name="exact",
    version="1.2.0",
    reference="none",
    title="Exact string match",
    description=(
        "The plain baseline most tools use: the answer set is the set of value strings of "
        "every variable of every row (booleans as true/false), compared character by "
        "character; no normalisation, no KB. Standard rules: an empty gold set scores 1 for an "
        "empty answer and 0 otherwise (a question the system did not answer, its call failed "
        "or the file has no entry for it, scores 0), no true positive 0, else precision "
        "TP/(TP+FP) and recall TP/(TP+FN). Micro from summed counts, macro as means of the "
        "per-question values; in Macro F1 QALD an empty answer is P = 1, R = 0 but a question "
        "not answered is P = 0. "
        "Sub-experiments compare IRIs as exact strings; C2KB also holds the classes of what "
        "is not a projected variable (AIT2KB those of the projected ones). Reproduces the "
        "per-question values of AKSW NLIWOD qa.ml wherever gold and system sets are both "
        "non-empty."
    ),
    settings=(
        ("items", "values"),
        ("match", "string"),
        ("sets", "distinct"),
        ("empty", "1/0"),
        ("unanswered", "0"),
        ("qald-empty", "given"),
        ("c2kb", "unprojected-classes"),
    ),
    matcher=ExactMatcher(),
    scoring=ANSWERED_QALD,
    unprojected_classes_in_c2kb=True,
    older=(OlderVersion("1.0.0", STANDARD), OlderVersion("1.1.0", ANSWERED)),
)
