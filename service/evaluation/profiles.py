"""Scorer profiles: frozen values that fix how answers are matched and numbers aggregated.

Every profile has a stable ``name``, a ``version`` (bumped on any change of behaviour), an
``iri`` (``http://w3id.org/gerbil/qa/vocab#profile-<name>``), a one-paragraph ``description``
and a ``signature`` built from an explicit list of its settings, sacrebleu style, printed with
every number it produces; a result that used a KB carries the KB's identity in its signature
(:meth:`Profile.signature_for`).

>>> get_profile("exact").signature
'gerbil-qa:exact|v:1.0.0|ref:none|items:values|match:string|sets:distinct|empty:1/0|kb:no'
"""

from __future__ import annotations

from dataclasses import dataclass

from service.errors import BadRequest
from service.evaluation.matchers.base import AnswerMatcher
from service.evaluation.matchers.exact import ExactMatcher
from service.evaluation.matchers.fair import FairMatcher
from service.evaluation.matchers.gerbil import GerbilMatcher
from service.evaluation.matchers.poleval import PolEvalMatcher
from service.evaluation.matchers.qald import LegacyMatcher, Qald6Matcher
from service.evaluation.results import ExperimentType
from service.evaluation.scoring import LEGACY, QALD6, STANDARD, Scoring

VOCAB = "http://w3id.org/gerbil/qa/vocab#"
ALL_TYPES = tuple(ExperimentType)
QA_ONLY = (ExperimentType.QA,)


@dataclass(frozen=True, slots=True)
class Profile:
    """One scorer profile (see the module docstring).

    ``matcher`` judges a question's answers, ``scoring`` turns counts into P/R/F and aggregates;
    ``identity`` is how sub-experiment IRIs are compared (``exact``, ``gerbil`` or ``fair``);
    ``gerbil_markings`` counts properties and answer item types in C2KB as GERBIL does;
    ``fold_literals`` compares RE2KB string literals case- and space-insensitively.
    """

    name: str
    version: str
    reference: str
    description: str
    settings: tuple[tuple[str, str], ...]
    matcher: AnswerMatcher
    scoring: Scoring
    experiment_types: tuple[ExperimentType, ...] = ALL_TYPES
    uses_kb: bool = False
    identity: str = "exact"
    gerbil_markings: bool = False
    fold_literals: bool = False
    default_language: str = "en"

    def __post_init__(self) -> None:
        for key, value in self.settings:
            if "|" in key + value or ":" in key:
                raise ValueError(f"profile {self.name}: setting {key}:{value} breaks the signature")

    @property
    def iri(self) -> str:
        return f"{VOCAB}profile-{self.name}"

    @property
    def signature(self) -> str:
        """The signature of a result computed without a KB."""
        return self.signature_for(None)

    def signature_for(self, kb: str | None) -> str:
        """The signature of a result; ``kb`` is the identity of the KB used, if any."""
        fields = [f"gerbil-qa:{self.name}", f"v:{self.version}", f"ref:{self.reference}"]
        fields += [f"{k}:{v}" for k, v in self.settings]
        if self.uses_kb:
            fields.append(f"kb:{_escape(kb) if kb else 'none'}")
        else:
            fields.append("kb:no")
        return "|".join(fields)


def _escape(text: str) -> str:
    return text.replace("|", "%7C").replace(" ", "_")


GERBIL = Profile(
    name="gerbil",
    version="1.0.0",
    reference="GERBIL-QA-0.3",
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

QALD6_PROFILE = Profile(
    name="qald6",
    version="1.1.0",
    reference="QALD-6-evaluation.rb",
    description=(
        "The official QALD-5/6 scorer (ag-sc/QALD 6/scripts/evaluation.rb). Each binding row is "
        "one answer, the multiset of its values (every variable), rows deduplicated; an ASK "
        "answer is its boolean, except that an answer object with a results.bindings array is "
        "read from its bindings even when the array is empty and a boolean is given (so "
        '{"results": {"bindings": []}, "boolean": true} is an empty answer; every other '
        "profile reads that boolean). A value of digits only is compared as value + '.0', any "
        "other value stripped and percent-decoded. An empty gold set scores 1 for an empty answer, "
        "else 0; otherwise precision is 1 for an empty answer, else correct/|answers|, and "
        "recall correct/|gold|. A question missing from the answer file is unprocessed and "
        "scores 0. Reported over all gold questions and (processed*) over the processed ones: "
        "micro precision = sum of correct / sum of answers, micro recall = sum of correct / sum "
        "of gold answers, macro precision and recall the means, every F1 the F1 of its precision "
        "and recall; a zero denominator gives 0. QA only."
    ),
    settings=(
        ("items", "rows"),
        ("boolean", "unless-bindings-array"),
        ("match", "digits+.0,strip+unescape"),
        ("sets", "uniq"),
        ("empty-user", "P=1"),
        ("macro-f", "f-of-means"),
    ),
    matcher=Qald6Matcher(),
    scoring=QALD6,
    experiment_types=QA_ONLY,
)
"""QALD-5/6 evaluation.rb. Differences: question ids are compared as strings (Ruby converts
them with ``to_i``, so ``"01"`` = ``"1"`` and non-numeric ids collide at 0); a file's several
``answers`` objects are one answer set in our model (the readers merge them)."""

LEGACY_PROFILE = Profile(
    name="qald-legacy",
    version="1.0.0",
    reference="QALD-3-Evaluation.py",
    description=(
        "The QALD-1..4 scorer (ag-sc/QALD Evaluation.py, as in QALD-3 Evaluation_Task1.py). "
        "Answers are lists, duplicates count: each answer is the list of a row's stripped "
        "values. Both lists empty scores 1; an empty answer 0; otherwise c = number of answer "
        "items found among the gold items (repeats each count, so recall can exceed 1 as in the "
        "script), precision = c/|answers| and recall = c/|gold| rounded to 5 places, F1 from "
        "the rounded values, rounded again. Global precision and recall are the means over all "
        "gold questions (missing ones count 0) and the global F1 is the F1 of those means (0 "
        "when either is 0). QA only."
    ),
    settings=(
        ("items", "row-lists"),
        ("match", "strip"),
        ("sets", "lists"),
        ("round", "5"),
        ("macro-f", "f-of-means"),
    ),
    matcher=LegacyMatcher(),
    scoring=LEGACY,
    experiment_types=QA_ONLY,
)
"""QALD-1..4 Evaluation.py. Differences: questions are keyed by id (the script keys the answer
file by question text); all values of a row are compared (the script keeps only the children
of one "chosen" tag type per question); the micro values are ours (the script has none)."""

EXACT = Profile(
    name="exact",
    version="1.0.0",
    reference="none",
    description=(
        "The plain baseline most tools use: the answer set is the set of value strings of "
        "every variable of every row (booleans as true/false), compared character by "
        "character; no normalisation, no KB. Standard rules: an empty gold set scores 1 for an "
        "empty answer and 0 otherwise, no true positive 0, else precision TP/(TP+FP) and recall "
        "TP/(TP+FN). Micro from summed counts, macro as means of the per-question values. "
        "Sub-experiments compare IRIs as exact strings. Reproduces the per-question values of "
        "AKSW NLIWOD qa.ml wherever gold and system sets are both non-empty."
    ),
    settings=(
        ("items", "values"),
        ("match", "string"),
        ("sets", "distinct"),
        ("empty", "1/0"),
    ),
    matcher=ExactMatcher(),
    scoring=STANDARD,
)

FAIR = Profile(
    name="fair",
    version="1.0.0",
    reference="GERBIL-QA-0.3+fixes",
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
        "not, is a false positive. Standard P/R/F rules; micro from summed counts, macro as "
        "means."
    ),
    settings=(
        ("items", "values"),
        ("match", "value+iri-identity+sameAs(both)+label(both)"),
        ("literals", "num,date@gold,bool,casefold"),
        ("one-to-one", "maximal"),
        ("fp", "all"),
        ("empty", "1/0"),
    ),
    matcher=FairMatcher(),
    scoring=STANDARD,
    uses_kb=True,
    identity="fair",
    fold_literals=True,
)
"""Ours, recommended. Every rule is documented in :mod:`service.evaluation.matchers.fair`
(answers) and :mod:`service.evaluation.subexperiments` (markings; C2KB holds resources only,
plus VALUES IRIs; RE2KB compares IRIs by identity and string literals folded)."""

POLEVAL = Profile(
    name="poleval",
    version="1.0.0",
    reference="geval-LenientHarden/ExtractNumber/Lower/Fuzzy/Accuracy",
    description=(
        "PolEval 2021 Task 4 (quiz question answering), as geval's "
        "LenientHarden/ExtractNumber/Lower/Fuzzy/Accuracy. One answer line per question, the "
        "gold a list of alternatives; the best alternative counts. If the gold alternative "
        "yields a number (the first match of [-+]?[0-9]*\\.[0-9]+|[0-9]+, else the first "
        "uppercase roman numeral word, as decimal), the answer is right iff it yields the same "
        "number string; otherwise both are lower-cased and the answer is right iff its "
        "Levenshtein distance to the gold is at most half the gold's length. Accuracy is the "
        "mean credit; the number of answers must equal the number of questions. QA only; the "
        "default language is Polish."
    ),
    settings=(
        ("items", "line"),
        ("match", "number,levenshtein<=len/2"),
        ("gold", "best-alternative"),
        ("metric", "accuracy"),
    ),
    matcher=PolEvalMatcher(),
    scoring=STANDARD,
    experiment_types=QA_ONLY,
    default_language="pl",
)

PROFILES: dict[str, Profile] = {
    p.name: p for p in (FAIR, GERBIL, QALD6_PROFILE, LEGACY_PROFILE, EXACT, POLEVAL)
}
"""Every profile by name; the first (``fair``) is the default."""

DEFAULT_PROFILE = "fair"


def get_profile(name: str | Profile) -> Profile:
    """The profile called ``name``; ``BadRequest`` naming the known ones otherwise."""
    if isinstance(name, Profile):
        return name
    try:
        return PROFILES[name.strip().lower()]
    except KeyError:
        known = ", ".join(PROFILES)
        raise BadRequest(f"unknown scorer profile {name!r}; known profiles: {known}") from None
