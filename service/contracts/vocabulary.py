"""The generated parts of the vocabulary (``ontology/``): measure properties with their Data Cube
component specifications, and the code lists of experiment types, profiles, answer types,
question statuses and match rules. The hand-written parts (classes, dimensions, attributes,
finding kinds) stay in the other ``ontology/*.ttl`` files; the store loads them all.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from service.call_settings import CALL_SETTINGS
from service.contracts.turtle import header, literal, objects, subject, term
from service.evaluation.measures import MEASURES, QUESTION_MEASURES
from service.evaluation.profiles import PROFILES
from service.evaluation.results import (
    EXPERIMENT_TYPES,
    MATCH_RULES,
    QUESTION_STATUSES,
    ExperimentType,
    MatchRule,
    QuestionStatus,
)
from service.model import ANSWER_TYPES, FINDING_KINDS, AnswerType, Concept

ONTOLOGY = "<http://w3id.org/gerbil/qa/vocab>"


def measures_ttl() -> str:
    """Every measure of the registries as a ``qb:MeasureProperty`` and its component
    specification ``gqa:component-<name>`` (what an experiment's structure points at)."""
    out = [
        header(
            "The measures of GERBIL QA results: one qb:MeasureProperty and one Data Cube component "
            "specification each.",
            ["the measures registry (service/evaluation/measures.py: MEASURES, QUESTION_MEASURES)"],
            ["gqa", "gerbil", "qb", "rdf", "rdfs", "xsd"],
        )
    ]
    rows = [
        (info.name, info.iri, info.label, info.description, info.datatype, "task")
        for info in MEASURES.values()
    ]
    rows += [
        (q.name, q.iri, q.label, q.description, q.datatype, "question")
        for q in QUESTION_MEASURES.values()
    ]
    for name, iri, label, description, datatype, level in rows:
        prop = term(iri)
        out.append(
            subject(
                prop,
                [
                    ("a", "rdf:Property, qb:MeasureProperty"),
                    ("rdfs:label", literal(label)),
                    ("rdfs:comment", literal(description)),
                    ("rdfs:range", term(datatype)),
                    ("rdfs:isDefinedBy", ONTOLOGY),
                ],
            )
        )
        where = "task" if level == "task" else "per-question"
        out.append(
            subject(
                f"gqa:component-{name}",
                [
                    ("a", "qb:ComponentSpecification"),
                    ("rdfs:label", literal(f"{label} measure")),
                    (
                        "rdfs:comment",
                        literal(
                            f"The measure {prop} in the structure of GERBIL QA {where} "
                            "observations."
                        ),
                    ),
                    ("qb:measure", prop),
                    ("rdfs:isDefinedBy", ONTOLOGY),
                ],
            )
        )
    return "\n".join(out)


def call_settings_ttl() -> str:
    """The properties an experiment that asked web services records how it called them with
    (one per call setting of the registry: ``gqa:callTimeout`` …)."""
    out = [
        header(
            "How an experiment called its web services: one property per call setting a "
            "submission may set.",
            ["the call settings (service/call_settings.py: CALL_SETTINGS)"],
            ["gqa", "rdf", "rdfs", "owl", "xsd"],
        )
    ]
    for setting in CALL_SETTINGS:
        out.append(
            subject(
                term(setting.iri),
                [
                    ("a", "rdf:Property, owl:DatatypeProperty"),
                    ("rdfs:label", literal(f"call {setting.name}")),
                    (
                        "rdfs:comment",
                        literal(
                            f"{setting.description} Recorded on an experiment that asked web "
                            f"services; from {setting.least:g} to {setting.most:g}."
                        ),
                    ),
                    ("rdfs:domain", "gqa:Experiment"),
                    ("rdfs:range", term(setting.datatype)),
                    ("rdfs:isDefinedBy", ONTOLOGY),
                ],
            )
        )
    return "\n".join(out)


# The code lists: scheme IRI, label, comment, the concepts' class, their IRI prefix (a CURIE),
# members.
_SCHEMES = (
    (
        "experimentTypes",
        "experiment types",
        "The QA experiment and GERBIL QA's sub-experiments (Usbeck et al., Benchmarking Question "
        "Answering Systems, Semantic Web 10(2), 2019).",
        "ExperimentType",
        "gerbil:",  # GERBIL's own IRIs (gerbil:QA, …), so GERBIL-era queries find our tasks
    ),
    (
        "profiles",
        "scorer profiles",
        "The scorer profiles GERBIL QA offers; each is reproducible against the tool it names. "
        "owl:versionInfo is the current version of each (every observation also records the "
        "exact version and signature that produced it).",
        "Profile",
        "gqa:profile-",
    ),
    ("answerTypes", "answer types", "The five QALD answer types.", "AnswerType", "gqa:answerType-"),
    (
        "questionStatuses",
        "question statuses",
        "Why a question has the scores it has in a task.",
        "QuestionStatus",
        "gqa:status-",
    ),
    (
        "findingKinds",
        "dataset finding kinds",
        "What the checks run on loading a dataset look for (GERBIL QA paper: existence of gold "
        "answers, syntactic correctness of gold queries).",
        "FindingKind",
        "gqa:finding-",
    ),
    (
        "matchRules",
        "match rules",
        "Why a given answer was judged correct: the rules of the scorer profiles that match a "
        "given answer to a gold answer.",
        "MatchRule",
        "gqa:rule-",
    ),
)


def _members() -> dict[str, list[tuple[str, Concept, list[tuple[str, str]]]]]:
    """Each scheme's members in registry order: notation, concept, extra pairs."""
    profiles = []
    for p in PROFILES.values():
        concept = Concept(p.name, p.description, title=p.title)
        profiles.append((p.name, concept, [("owl:versionInfo", literal(p.version, lang=None))]))
    return {
        "experimentTypes": _enum_members(EXPERIMENT_TYPES, ExperimentType),
        "profiles": profiles,
        "answerTypes": _enum_members(ANSWER_TYPES, AnswerType),
        "questionStatuses": _enum_members(QUESTION_STATUSES, QuestionStatus),
        "matchRules": _enum_members(MATCH_RULES, MatchRule),
        "findingKinds": [(kind, concept, []) for kind, concept in FINDING_KINDS.items()],
    }


def _enum_members(
    table: Mapping[Any, Concept], enum: type[StrEnum]
) -> list[tuple[str, Concept, list[tuple[str, str]]]]:
    """The members of ``enum`` in order, each with its entry in ``table`` (all must have one)."""
    missing = [m.value for m in enum if m not in table]
    if missing:
        raise ValueError(f"{enum.__name__}: no code list entry for {', '.join(missing)}")
    return [(m.value, table[m], []) for m in enum]


def codelists_ttl() -> str:
    """The code lists (skos:ConceptScheme) of the registries' enumerations."""
    out = [
        header(
            "Code lists (skos:ConceptScheme) of GERBIL QA's coded dimensions and attributes that "
            "come from registries.",
            [
                "ExperimentType, QuestionStatus and MatchRule (service/evaluation/results.py)",
                "the profiles registry (service/evaluation/profiles/)",
                "AnswerType (service/model.py)",
                "the finding kinds of the dataset checks (service/model.py)",
            ],
            ["gqa", "gerbil", "skos", "rdfs", "owl"],
        )
    ]
    members = _members()
    for scheme, label, comment, cls, prefix in _SCHEMES:
        concepts = [f"{prefix}{notation}" for notation, _, _ in members[scheme]]
        out.append(
            subject(
                f"gqa:{scheme}",
                [
                    ("a", "skos:ConceptScheme"),
                    ("rdfs:label", literal(label)),
                    ("rdfs:comment", literal(comment)),
                    ("skos:prefLabel", literal(f"GERBIL QA {label}")),
                    ("skos:hasTopConcept", objects(concepts)),
                    ("rdfs:isDefinedBy", ONTOLOGY),
                ],
            )
        )
        for (notation, concept, extra), iri in zip(members[scheme], concepts, strict=True):
            pairs = [
                ("a", f"skos:Concept, gqa:{cls}"),
                ("skos:inScheme", f"gqa:{scheme}"),
                ("skos:topConceptOf", f"gqa:{scheme}"),
                ("skos:notation", literal(notation, lang=None)),
                ("skos:prefLabel", literal(concept.title or concept.label)),
                ("rdfs:label", literal(concept.label)),
                *extra,
                ("rdfs:comment", literal(concept.description)),
            ]
            if concept.close_match:
                pairs.append(("skos:closeMatch", term(concept.close_match)))
            # GERBIL's own IRIs (gerbil:QA, …) too: GERBIL publishes no definition of them
            pairs.append(("rdfs:isDefinedBy", ONTOLOGY))
            out.append(subject(iri, pairs))
    return "\n".join(out)
