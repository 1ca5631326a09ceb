"""GERBIL QA 0.3 (dice-group/gerbil, QuestionAnswering branch)."""

from __future__ import annotations

from service.evaluation.matchers.gerbil import GerbilMatcher
from service.evaluation.profiles.base import Profile
from service.evaluation.scoring import STANDARD

PROFILE = Profile(
    name="gerbil",
    version="1.0.0",
    reference="GERBIL-QA-0.3",
    title="GERBIL QA 0.3",
    description=(
        "GERBIL QA's answer matching (dice-group/gerbil QuestionAnswering branch, "
        "QAMatchingsCounter). Answers are compared as the strings of their values (datatype and "
        "language dropped, booleans as true/false). The gold set counts as IRIs only if every "
        "gold value is a valid absolute URI, else as strings. System values equal to a gold "
        "string are true positives (leftover gold strings false negatives, no false positives "
        "in this part); every other system value becomes candidate resources: itself when it is "
        "an http/https/ftp URL, else every resource having it as rdfs:label in the question's "
        "language (none: the string itself). Candidates are expanded by owl:sameAs (gold IRIs "
        "are not) and matched one-to-one, greedily in gold order, against the gold IRIs. An "
        "empty gold set scores 1 for an empty answer and 0 otherwise; otherwise no true "
        "positive scores 0. Micro from summed counts, macro as means of per-question values. "
        "Sub-experiments as GERBIL QA: C2KB also counts properties and answer item types."
    ),
    settings=(
        ("items", "values"),
        ("match", "string+sameAs(system)+label"),
        ("gold-iris", "all-or-none"),
        ("one-to-one", "greedy"),
        ("empty", "1/0"),
    ),
    matcher=GerbilMatcher(),
    scoring=STANDARD,
    uses_kb=True,
    identity="gerbil",
    gerbil_markings=True,
)
"""GERBIL QA 0.3. Differences from the Java tool, following DESIGN §3: (1) each system value is
typed on its own (GERBIL types a whole answer set); (2) the gold IRI test is "valid absolute URI"
(GERBIL: Apache UrlValidator); (3) GERBIL's emerging-entity rule (two IRIs both outside the
configured KB namespaces match each other) is not reproduced: IRIs match only through their
sameAs closures; (4) greedy matching follows gold order and system order (GERBIL iterates hash
sets); (5) sub-experiment markings are sets (GERBIL's document may count a repeated pattern
twice); (6) the question text of the chosen language is used, not always English."""
