"""The generated SHACL shapes (``shapes/``): one property shape per measure (datatype, at most
one value, bounds) and the ``sh:in`` lists of the registries' enumerations. They add
``sh:property`` to the node shapes written by hand in the other ``shapes/*.ttl`` files (the
checks load every file into one shapes graph)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.call_settings import CALL_SETTINGS
from service.contracts.turtle import collection, header, literal, number, objects, subject, term
from service.evaluation.measures import MEASURES, QUESTION_MEASURES
from service.evaluation.profiles import get_profile
from service.evaluation.results import ExperimentType, MatchRule, QuestionStatus
from service.evaluation.statistics import TESTS, interval_signature, test_signature
from service.formats import FORMATS
from service.model import DISTRIBUTION_ROLES, FILE_ROLES, INTERFACES, AnswerType

KB_FILE_FORMATS = ("turtle",)
"""Formats of catalogue distributions that are no question or answer files: the files of a
dataset's knowledge graph (fileRole ``kb``), read as RDF by the KB loader."""


def _measure_shape(
    shape: str, iri: str, datatype: str, minimum: float | None, maximum: float | None
) -> str:
    pairs = [("sh:path", term(iri)), ("sh:maxCount", "1"), ("sh:datatype", term(datatype))]
    if minimum is not None:
        pairs.append(("sh:minInclusive", number(minimum)))
    if maximum is not None:
        pairs.append(("sh:maxInclusive", number(maximum)))
    return subject(shape, pairs)


# stand-ins for the numbers of a signature, each told apart from the others and from every
# fixed part of one
_COUNT, _SEED, _REAL, _PAIRS = 111111, 222222, 0.333333, 444444
_NUMBER = "[0-9][0-9.e+-]*"  # a level or alpha as the signature writes it ({:g}: 0.95, 1e-05)


def tier_signature_pattern() -> str:
    r"""The ``sh:pattern`` of a frozen leaderboard entry's ``gqa:tierSignature``, made from the
    code that writes one (:func:`service.evaluation.comparison.compare`): a profile's signature
    (its first field, ``gerbil-qa:NAME``, then fields of its own), the interval's
    (:func:`~service.evaluation.statistics.interval_signature`) and one of the paired tests'
    (:func:`~service.evaluation.statistics.test_signature`, every test of ``TESTS``), each
    written with stand-in numbers that are then read as any number.

    >>> import re
    >>> written = "gerbil-qa:exact|v:1.0.0|kb:no|ci:bootstrap-percentile|n:1000|seed:1|level:0.95"
    >>> written += "|test:mcnemar|correction:holm|pairs:6|alpha:0.05"
    >>> bool(re.search(tier_signature_pattern(), written))
    True
    >>> bool(re.search(tier_signature_pattern(), "nonsense"))
    False
    """

    def read(text: str) -> str:
        escaped = re.escape(text)
        for stand_in in (_COUNT, _SEED, _PAIRS):
            escaped = escaped.replace(str(stand_in), "[0-9]+")
        return escaped.replace(re.escape(f"{_REAL:g}"), _NUMBER)

    head = get_profile("exact").signature.split("|", 1)[0].split(":", 1)[0]  # gerbil-qa
    interval = read(interval_signature(resamples=_COUNT, seed=_SEED, level=_REAL))
    tests = []
    for name in TESTS:
        written = test_signature(name, samples=_COUNT, seed=_SEED, alpha=_REAL, pairs=_PAIRS)
        family = read(f"|pairs:{_PAIRS}")  # optional: test_signature's pairs may be None
        tests.append(read(written).replace(family, f"({family})?"))
    # plain groups only: a shape's pattern is an XPath (SPARQL REGEX) one, which has no (?:
    tail = f"\\|{interval}\\|({'|'.join(tests)})$"
    return f"^{re.escape(head)}:[^|]+(\\|[^|]+)*{tail}"


def _in(shape: str, path: str, values: Sequence[str]) -> str:
    return subject(shape, [("sh:path", path), ("sh:in", collection(values))])


def shapes_ttl() -> str:
    out = [
        header(
            "SHACL property shapes that come from registries: every measure of a task or "
            "per-question observation, an experiment's call settings, and the closed lists of "
            "experiment types, question statuses, match rules, answer types, file formats and file "
            "roles.",
            [
                "the measures registry (service/evaluation/measures.py)",
                "ExperimentType, QuestionStatus, MatchRule (service/evaluation/results.py)",
                "AnswerType (service/model.py)",
                "the format registry (service/formats/__init__.py: FORMATS; and KB_FILE_FORMATS)",
                "the call settings (service/call_settings.py: CALL_SETTINGS)",
                "FILE_ROLES, DISTRIBUTION_ROLES (service/model.py)",
                "the interfaces of web-service systems (service/model.py: INTERFACES)",
                "the signatures of a comparison (service/evaluation/statistics.py: TESTS, "
                "interval_signature, test_signature; a profile's signature)",
            ],
            ["gqa", "gqash", "gerbil", "sh", "xsd"],
        )
    ]
    task = [f"gqash:measure-{name}" for name in MEASURES]
    question = [f"gqash:questionMeasure-{name}" for name in QUESTION_MEASURES]
    out.append(
        subject(
            "gqash:Task",
            [("sh:property", objects([*task, "gqash:experimentTypes"]))],
        )
    )
    out.append(
        subject(
            "gqash:QuestionResult",
            [("sh:property", objects([*question, "gqash:questionStatuses"]))],
        )
    )
    out.append(subject("gqash:AnswerMatch", [("sh:property", "gqash:matchRules")]))
    out.append(subject("gqash:Question", [("sh:property", "gqash:answerTypes")]))
    out.append(subject("gqash:Distribution", [("sh:property", "gqash:formats")]))
    out.append(subject("gqash:UploadedFile", [("sh:property", "gqash:fileRoles")]))
    out.append(subject("gqash:UploadedDistribution", [("sh:property", "gqash:distributionRoles")]))
    out.append(subject("gqash:System", [("sh:property", "gqash:interfaces")]))
    out.append(subject("gqash:LeaderboardEntry", [("sh:property", "gqash:tierSignature")]))
    calls = [f"gqash:call-{c.name}" for c in CALL_SETTINGS]
    out.append(subject("gqash:Experiment", [("sh:property", objects(calls))]))
    for shape, info in zip(task, MEASURES.values(), strict=True):
        out.append(_measure_shape(shape, info.iri, info.datatype, info.minimum, info.maximum))
    for shape, call in zip(calls, CALL_SETTINGS, strict=True):
        out.append(_measure_shape(shape, call.iri, call.datatype, call.least, call.most))
    for shape, q in zip(question, QUESTION_MEASURES.values(), strict=True):
        out.append(_measure_shape(shape, q.iri, q.datatype, q.minimum, q.maximum))
    out.append(
        _in(
            "gqash:experimentTypes",
            "gerbil:experimentType",
            [f"gerbil:{t.value}" for t in ExperimentType],
        )
    )
    out.append(
        _in(
            "gqash:questionStatuses",
            "gqa:questionStatus",
            [f"gqa:status-{s.value}" for s in QuestionStatus],
        )
    )
    # an answer match names the rule that matched: never "none" (that is a false answer)
    rules = [f"gqa:rule-{r.value}" for r in MatchRule if r is not MatchRule.NONE]
    out.append(_in("gqash:matchRules", "gqa:matchRule", rules))
    out.append(
        _in(
            "gqash:answerTypes", "gqa:answerType", [f"gqa:answerType-{a.value}" for a in AnswerType]
        )
    )
    formats = [literal(name, lang=None) for name in (*FORMATS, *KB_FILE_FORMATS)]
    out.append(_in("gqash:formats", "gqa:format", formats))
    for shape, roles in (("fileRoles", FILE_ROLES), ("distributionRoles", DISTRIBUTION_ROLES)):
        out.append(_in(f"gqash:{shape}", "gqa:fileRole", [literal(r, lang=None) for r in roles]))
    interfaces = [literal(name, lang=None) for name in INTERFACES]
    out.append(_in("gqash:interfaces", "gqa:interface", interfaces))
    out.append(
        subject(
            "gqash:tierSignature",
            [
                ("sh:path", "gqa:tierSignature"),
                ("sh:maxCount", "1"),
                ("sh:datatype", "xsd:string"),
                ("sh:pattern", literal(tier_signature_pattern(), lang=None)),
            ],
        )
    )
    return "\n".join(out)
