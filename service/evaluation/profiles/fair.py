"""Ours, recommended: GERBIL's matching with its unfairness fixed.

1.1.0: a question the system did not answer (its call failed, or the answer file has no entry
for it) scores 0/0/0, not the 1/1/1 of an empty answer to an empty gold set (explore25 1).

1.2.0 (explore28): such a question is no empty answer in Macro F1 QALD either (its P is 0
there: a flaky service gained QALD precision from its failures, F1); a system string matches a
gold IRI by its labels case- and whitespace-insensitively, as a gold string matches a system
IRI's (F8); items of one answer naming one thing (owl:sameAs, or an IRI and its label) count
once (F9); C2KB holds the classes of variables not projected (F11).
"""

from __future__ import annotations

from service.evaluation.matchers.fair import FairMatcher
from service.evaluation.profiles.base import OlderVersion, Profile
from service.evaluation.scoring import ANSWERED, ANSWERED_QALD, STANDARD

PROFILE = Profile(
    name="fair",
    version="1.2.0",
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
        "a literal. With a KB, labels count in both directions, compared as strings are: a "
        "system string matches a gold IRI having it as rdfs:label, a system IRI matches a gold "
        "string equal to one of its labels; items of one answer naming one thing (owl:sameAs, "
        "or an IRI and its label) count once, on either side. Matching is one-to-one and "
        "maximal; every unmatched system item, literal or not, is a false positive. Standard "
        "P/R/F rules, and a question the system did not answer (its call failed, or the answer "
        "file has no entry for it) scores 0 even where the gold set is empty (in Macro F1 QALD "
        "too, where an empty answer is P = 1); micro from summed counts, macro as means. C2KB "
        "also holds the classes of what is not a projected variable (AIT2KB those of the projected "
        "ones)."
    ),
    settings=(
        ("items", "values"),
        ("match", "value+iri-identity+sameAs(both)+label(both,casefold)"),
        ("literals", "num,date@gold,bool,casefold"),
        ("one-to-one", "maximal"),
        ("fp", "all"),
        ("empty", "1/0"),
        ("unanswered", "0"),
        ("distinct", "identity"),
        ("qald-empty", "given"),
        ("c2kb", "unprojected-classes"),
    ),
    matcher=FairMatcher(),
    scoring=ANSWERED_QALD,
    uses_kb=True,
    identity="fair",
    fold_literals=True,
    unprojected_classes_in_c2kb=True,
    older=(OlderVersion("1.0.0", STANDARD), OlderVersion("1.1.0", ANSWERED)),
)
"""Ours, recommended. Every rule is documented in :mod:`service.evaluation.matchers.fair`
(answers) and :mod:`service.evaluation.subexperiments` (markings; C2KB holds resources and
the classes of variables not projected, plus VALUES IRIs; RE2KB compares IRIs by identity and
string literals folded)."""
