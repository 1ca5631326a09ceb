"""Ours, recommended: GERBIL's matching with its unfairness fixed.

1.1.0: a question the system did not answer (its call failed, or the answer file has no entry
for it) scores 0/0/0, not the 1/1/1 of an empty answer to an empty gold set (explore25 1).

1.2.0 (explore28): such a question is no empty answer in Macro F1 QALD either (its P is 0
there: a flaky service gained QALD precision from its failures, F1); a system string matches a
gold IRI by its labels case- and whitespace-insensitively, as a gold string matches a system
IRI's (F8); items of one answer naming one thing (owl:sameAs, or an IRI and its label) count
once (F9); C2KB holds the classes of variables not projected (F11).

1.3.0 (explore33): a plain gold year (``1978``, QALD's way of writing a year) is a year, which
``1978-05-02`` has, and the number 1978 (it was read as a number alone, F1), where the question's
answertype is date (a plain 1225 of answertype number is the page count of QALD-9 train q319, no
year; explore35 2); dates with one-digit months and days and years of fewer than four digits
(``2009-6-25``, ``632-6-8``, real QALD-8/9 gold) are dates (F2), where they are days of the
calendar with years of three or four digits (``4-4-2``, ``5-40-99`` and ``1978-2-30`` are strings;
explore35 10); a Wikidata page URL (``www.wikidata.org/wiki/Q42``) is the entity it is the page of
(F3); a gold of digits with a leading zero (the area code ``030``) is a code, compared as a string
(F9); a gold literal's language decides the Turkish i rule for an untagged system string (F10); the
description lists the written forms read as numbers and dates, and a wrong answer that looks like
one fair does not read says so (F8).

1.4.0 (explore53): IRIs are compared in Unicode NFC once their escapes are decoded
(``…/Caf\u00e9`` = ``…/Cafe\u0301`` = ``…/Cafe%CC%81``, as strings were), and an
internationalised host is its punycode (``müller.example`` = ``xn--mller-kva.example``; F6); the
dotted capital İ folds to i on either side, so gold ``İstanbul`` matches ``istanbul`` as gold
``istanbul`` matched ``İSTANBUL`` (case folding left a combining dot on the gold's side; F7);
numbers and dates are read in the decimal digits of any script, direction marks (U+200E, U+200F…)
ignored: full-width ``４２``, Arabic-Indic ``٤٢`` and Persian ``۴۲`` are 42 (they were strings,
wrong with no note; F8), each written in one script's digits: ``4٢`` is no number, and the note
says so (explore54 F7); the Arabic and Persian forms of kaf and yeh (ك = ک, ي = ى = ی) are one
letter in strings (explore53 F9).
"""

from __future__ import annotations

from service.evaluation.matchers.fair import FairMatcher
from service.evaluation.profiles.base import OlderVersion, Profile
from service.evaluation.scoring import ANSWERED, ANSWERED_QALD, STANDARD

PROFILE = Profile(
    name="fair",
    version="1.4.0",
    reference="GERBIL-QA-0.3+fixes",
    title="Fair (recommended)",
    description=(
        "The profile we recommend: GERBIL's matching with its unfairness fixed. Items are the "
        "values of every variable, compared as sets. An IRI (also a 'uri' value wrapped in "
        "<...>, or a literal holding an http(s) URL) is compared by identity: brackets and "
        "whitespace stripped, percent-escapes decoded, Unicode NFC (e and a combining acute "
        "= é), an internationalised host = its punycode (xn--), https = http, dbpedia.org/page = "
        "/resource, a Wikipedia article URL = the DBpedia resource of its title and language, "
        "a Wikidata page URL (www.wikidata.org/wiki/Q42, /wiki/Property:P31) = the entity IRI, "
        "and with a KB the owl:sameAs closure of both sides. Literals are compared by value for "
        "their datatype: numbers numerically ('8' = '8.0' = '8e0'), dates at the gold value's "
        "granularity (gold 1990, typed xsd:gYear or plain where the answertype is date, "
        "matches 1990-05-03 and the number 1990; a plain 1990 of another answertype, or none, "
        "is a number; gold 1990-05-03 does not match 1990), booleans, strings case- and "
        "whitespace-insensitively with language "
        "tags ignored (a dotted İ is an i on either side: İstanbul = istanbul; the Turkish "
        "dotted and dotless i too where the gold, the system string or the run is in tr or "
        "az: an untagged AMERİKA matches a gold Amerika@tr; the Arabic and Persian kaf and "
        "yeh, ك = ک and ي = ى = ی, one letter); a 'uri' "
        "value that is no URI is a literal. Read as numbers are digits (of any one script: "
        "４２, ٤٢ and ۴۲ are 42, 4٢ mixes two and is not read; direction marks ignored) with an "
        "optional sign, decimal point and exponent (52000, -3.5, 4.5e-07), not 52,000 or "
        "52 000 (a comma is a thousands separator or a decimal comma: not read); as dates ISO "
        "8601 forms (1912, 1912-04, 1912-04-20, 1912-04-20T00:00:00Z, and 1912-4-20 or 632-6-8 "
        "where it is a day of the calendar with a year of three or four digits: 4-4-2 and "
        "1978-2-30 are strings), not 20 April 1912 or 20/04/1912; such a wrong answer says "
        "it was not read. Digits "
        "with a leading zero (the area code 030) are a code, compared as a string: 30 does not "
        "match it (QALD's answertype does not tell codes from numbers, giving 'string' to "
        "numbers too), and such a wrong answer says it was compared as text with the code. "
        "With a KB, labels count in both directions, compared as strings are: a "
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
        ("literals", "num,date@gold,bool,casefold,code"),
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
    older=(
        OlderVersion("1.0.0", STANDARD),
        OlderVersion("1.1.0", ANSWERED),
        OlderVersion("1.2.0", ANSWERED_QALD),  # only per-question rules moved since
        OlderVersion("1.3.0", ANSWERED_QALD),
    ),
)
"""Ours, recommended. Every rule is documented in :mod:`service.evaluation.matchers.fair`
(answers) and :mod:`service.evaluation.subexperiments` (markings; C2KB holds resources and
the classes of variables not projected, plus VALUES IRIs; RE2KB compares IRIs by identity and
string literals folded)."""
