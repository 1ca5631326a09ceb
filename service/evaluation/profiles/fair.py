"""Ours, recommended: GERBIL's matching with its unfairness fixed.

1.1.0: a question the system did not answer (its call failed, or the answer file has no entry
for it) scores 0/0/0, not the 1/1/1 of an empty answer to an empty gold set (explore25 1).
"""

from __future__ import annotations

from service.evaluation.matchers.fair import FairMatcher
from service.evaluation.profiles.base import Profile
from service.evaluation.scoring import ANSWERED

PROFILE = Profile(
    name="fair",
    version="1.1.0",
    reference="GERBIL-QA-0.3+fixes",
    title="Fair (recommended)",
    description=(
        "The profile we recommend: GERBIL's matching with its unfairness fixed. Items are the "
        "values of every variable, compared as sets. An IRI (also a 'uri' value wrapped in "
        "<...>, or a literal holding an http(s) URL) is compared by identity: brackets and "
        "whitespace stripped, percent-escapes decoded, https = http, dbpedia.org/page = "
        "/resource, a Wikipedia article URL = the DBpedia resource of its title and language, "
        "and with a KB the owl:sameAs closure of both sides. Literals are compared by value for "
        "their datatype: numbers numerically ('8' = '8.0'), dates at the gold value's "
        "granularity (gold 1990 matches 1990-05-03), booleans, strings case- and "
        "whitespace-insensitively with language tags ignored; a 'uri' value that is no URI is "
        "a literal. With a KB, labels count in both directions: a system string matches a gold "
        "IRI having it as rdfs:label, a system IRI matches a gold string equal to one of its "
        "labels. Matching is one-to-one and maximal; every unmatched system item, literal or "
        "not, is a false positive. Standard P/R/F rules, and a question the system did not "
        "answer (its call failed, or the answer file has no entry for it) scores 0 even where "
        "the gold set is empty; micro from summed counts, macro as means."
    ),
    settings=(
        ("items", "values"),
        ("match", "value+iri-identity+sameAs(both)+label(both)"),
        ("literals", "num,date@gold,bool,casefold"),
        ("one-to-one", "maximal"),
        ("fp", "all"),
        ("empty", "1/0"),
        ("unanswered", "0"),
    ),
    matcher=FairMatcher(),
    scoring=ANSWERED,
    uses_kb=True,
    identity="fair",
    fold_literals=True,
    aggregates_as=("1.0.0",),  # only per-question rules moved since
)
"""Ours, recommended. Every rule is documented in :mod:`service.evaluation.matchers.fair`
(answers) and :mod:`service.evaluation.subexperiments` (markings; C2KB holds resources only,
plus VALUES IRIs; RE2KB compares IRIs by identity and string literals folded)."""
