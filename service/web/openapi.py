"""The OpenAPI 3.1 document of the JSON API (served at ``api/openapi.json``)."""

from __future__ import annotations

import re
from typing import Any, get_args

from service import __version__
from service.contracts import openapi as registries
from service.dataset_about import ABOUT_FIELDS, MAX_TITLE
from service.errors import Severity
from service.evaluation.results import QuestionStatus
from service.evaluation.slices import DIMENSIONS as SLICE_DIMENSIONS
from service.experiments.inputs import RANKED_HELP
from service.experiments.progress import PHASES, SYSTEM_STATES
from service.experiments.systems import SYSTEM_KINDS
from service.graph.experiments import Status
from service.graph.leaderboards import TITLE_LENGTH
from service.model import INTERFACES
from service.systems.reference import SYSTEM_NAMES
from service.systems.secret_headers import MAX_HEADERS, MAX_VALUE_BYTES
from service.systems.webservice import HANG_UP_AFTER
from service.web import conneg
from service.web.comparing import MAX_RESAMPLES, MAX_SAMPLES, MAX_STORED
from service.web.listings import MAX_PAGE

_ERROR = {"$ref": "#/components/responses/Error"}
_RETRY_AFTER = {  # the answers about a run still to end (api._poll_after)
    "Retry-After": {
        "description": "While the run is queued or running: the seconds to wait before asking "
        "its status again (half the estimated time left, from 1 to 30; 2 while unknown).",
        "schema": {"type": "integer", "minimum": 1},
    }
}


def _op(summary: str, description: str, responses: dict[str, Any], **extra: Any) -> dict:
    return {"summary": summary, "description": description, "responses": responses, **extra}


HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def operation_id(method: str, path: str) -> str:
    """The ``operationId`` of the operation ``method`` on ``path``, made from both (so one per
    operation, as stable as its path): the method, then each segment after ``/api/`` in
    camel case, a parameter as ``By`` and its name.

    >>> operation_id("post", "/api/experiments/{id}/publish")
    'postExperimentsByIdPublish'
    >>> operation_id("get", "/api/datasets/{name}/runs")
    'getDatasetsByNameRuns'
    """
    words = [method.lower()]
    for segment in path.removeprefix("/api/").strip("/").split("/"):
        if segment.startswith("{") and segment.endswith("}"):
            words.append("By")
            segment = segment[1:-1]
        words.extend(w[:1].upper() + w[1:] for w in re.split(r"[^0-9A-Za-z]+", segment) if w)
    return "".join(words)


def operation_tag(path: str) -> str:
    """The tag of the operations on ``path``: its first segment after ``/api/``.

    >>> operation_tag("/api/experiments/{id}/publish")
    'experiments'
    """
    return path.removeprefix("/api/").strip("/").split("/")[0]


def with_operation_ids(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with an ``operationId`` on each operation (:func:`operation_id`): code
    generators name their methods by it, linters ask for one (explore38 7); and a tag, the
    path's first segment (:func:`operation_tag`), by which generated clients group their
    functions (all stood in one ``default`` module: explore64 F10)."""
    tags: set[str] = set()
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                operation["operationId"] = operation_id(method, path)
                operation["tags"] = [operation_tag(path)]
                tags.add(operation_tag(path))
    document["tags"] = [{"name": tag} for tag in sorted(tags)]
    return document


def _json_request(schema: dict[str, Any], *, required: bool = True) -> dict[str, Any]:
    """A JSON request body of ``schema``."""
    return {"required": required, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    """The error answers an operation documents: the API's error object, for each status."""
    return {str(status): _ERROR for status in statuses}


def _json_response(description: str, schema: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}},
    }


# A submission or re-scoring while GERBIL_QA_MAX_WAITING_RUNS runs wait (web/running.py)
_QUEUE_FULL = {
    **_json_response(
        "Too many runs wait already: submit again after Retry-After seconds.", "Error"
    ),
    "headers": {"Retry-After": {"schema": {"type": "integer", "minimum": 1}}},
}


_DISK_FULL = _json_response(
    "The disk that holds the store is full: nothing was saved (a submission leaves no "
    "experiment); send it again once the operator has freed space. No Retry-After: space comes "
    "back when someone frees it.",
    "Error",
)


def _object(required: tuple[str, ...] = (), **properties: Any) -> dict[str, Any]:
    """An object schema of ``properties`` (the responses' shapes; names as the API writes
    them)."""
    return {"type": "object", "required": list(required), "properties": properties}


def _closed_object(required: tuple[str, ...] = (), **properties: Any) -> dict[str, Any]:
    """A request body of ``properties`` and no other key (the server refuses another, naming
    the nearest: ``submission.known_keys``)."""
    return {**_object(required, **properties), "additionalProperties": False}


_TEXT: dict[str, Any] = {"type": "string"}
_UPLOADED_DATASET_NAME = {
    "name": "name",
    "in": "path",
    "required": True,
    "description": "The uploaded dataset's name (dataset/NAME).",
    "schema": _TEXT,
}
_TEXT_OR_NULL: dict[str, Any] = {"type": ["string", "null"]}
_TEXTS: dict[str, Any] = {"type": "array", "items": _TEXT}
_URI: dict[str, Any] = {"type": "string", "format": "uri"}
# where a new experiment or frozen leaderboard is: its URI (under the base, never the request's
# Host), which dereferences to its page or RDF
_LOCATION = {"Location": {"description": "Its URI.", "schema": _URI}}


def _const(value: bool | int | str, **more: Any) -> dict[str, Any]:
    """A schema of the one value ``value``, with its JSON type: a bare ``{"const": true}`` made
    openapi-python-client write a model that does not import (``Trueand``; explore64 F1)."""
    kind = {bool: "boolean", int: "integer", str: "string"}[type(value)]
    return {"type": kind, "const": value, **more}


def _array(items: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "array", "items": items, **more}


# A listing's page: the query parameters and the keys of its answer (GET /api/experiments,
# GET /api/leaderboards).
_PAGING = (
    {
        "name": "page",
        "in": "query",
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1},
    },
    {
        "name": "size",
        "in": "query",
        "schema": {"type": "integer", "minimum": 1, "maximum": 500, "default": 100},
    },
)
_PAGE_KEYS = {
    "page": {"type": "integer", "minimum": 1},
    "size": {"type": "integer", "minimum": 1},
    "next": {**_TEXT_OR_NULL, "description": "The following page's URL, or null."},
}


def _listing_schemas() -> dict[str, Any]:
    """The answers of the listings and of the small owner operations."""
    return {
        "ExperimentList": _object(
            ("experiments",),
            experiments=_array(
                _object(
                    ("id", "uri"),
                    id=_TEXT,
                    uri=_URI,
                    ended={**_TEXT_OR_NULL, "description": "xsd:dateTime, when it ended."},
                    datasets={**_TEXTS, "description": "The datasets' URIs."},
                    systems={
                        "type": "array",
                        "items": _TEXT_OR_NULL,
                        "description": "The systems' labels (with the admin token: as the "
                        "submission named them).",
                    },
                    # the operator's view (`gerbil-qa experiments --output json`), every
                    # experiment, private ones too: with the admin token only
                    **{
                        key: {**schema, "description": f"With the admin token only: {what}"}
                        for key, schema, what in (
                            ("status", {"enum": [s.value for s in Status]}, "the status."),
                            ("public", {"type": "boolean"}, "published or not."),
                            ("created", _TEXT_OR_NULL, "xsd:dateTime submitted."),
                            ("publishedAt", _TEXT_OR_NULL, "xsd:dateTime published."),
                            ("message", _TEXT_OR_NULL, "why it failed or was stopped."),
                            ("dataset", _TEXT_OR_NULL, "the dataset the submission named."),
                            ("datasetUri", _TEXT_OR_NULL, "the dataset its results are under."),
                            ("withdrawnAt", _TEXT, "when it was withdrawn (only then)."),
                            ("withdrawalReason", _TEXT, "why (only when withdrawn)."),
                        )
                    },
                )
            ),
            **_PAGE_KEYS,
        ),
        "Published": _object(
            ("id", "uri", "public"),
            id=_TEXT,
            uri=_URI,
            public={"type": "boolean"},
            publishedAt={**_TEXT_OR_NULL, "description": "xsd:dateTime of the publication."},
            warnings={
                **_TEXTS,
                "description": "What its owner should know of the publication: a system "
                "name other published experiments ran under already (a system is its name: "
                "listed and ranked as one system).",
            },
        ),
        "WithheldRuns": _object(
            ("dataset", "count", "runs"),
            dataset=_URI,
            count={"type": "integer", "description": "Recorded runs on it, private ones too."},
            runs=_array(
                _object(
                    ("id", "uri", "status", "public"),
                    id=_TEXT,
                    uri=_URI,
                    status=_TEXT,
                    public={"type": "boolean"},
                    created={**_TEXT_OR_NULL, "description": "xsd:dateTime of the submission."},
                    publishedAt=_TEXT_OR_NULL,
                    systems=_TEXTS,
                )
            ),
        ),
        "Revealed": _object(
            (
                "dataset",
                "goldRevealedAt",
                "questions",
                "scoredWhileWithheld",
                "scoredWhileWithheldPrivate",
                "note",
            ),
            dataset=_URI,
            goldRevealedAt={**_TEXT, "description": "xsd:dateTime of the reveal."},
            questions={"type": "integer", "description": "Questions whose gold is public now."},
            scoredWhileWithheld={
                "type": "array",
                "items": _URI,
                "description": "Public experiments on it scored while it was withheld: no "
                "per-question results, until their owners re-score them.",
            },
            scoredWhileWithheldPrivate={
                "type": "array",
                "items": _URI,
                "description": "Unpublished experiments on it scored while it was withheld "
                "(their pages are their owners'): no per-question results either, until their "
                "owners re-score them.",
            },
            note=_TEXT,
        ),
        "Withdrawn": _object(
            ("id", "uri", "withdrawnAt", "withdrawalReason"),
            id=_TEXT,
            uri=_URI,
            withdrawnAt={**_TEXT, "description": "xsd:dateTime of the withdrawal."},
            withdrawalReason={**_TEXT, "description": "Why, as shown with the experiment."},
        ),
        "Paper": _object(
            ("id", "paper"), id=_TEXT, paper={**_URI, "description": "The paper's IRI."}
        ),
        "Cancelled": _object(
            ("id", "cancelling", "status"),
            id=_TEXT,
            cancelling={
                "type": "boolean",
                "description": (
                    "Whether a run was stopped, here or on another replica of the store "
                    "(false: it was not queued or running: it had finished first, or was "
                    "cancelled already; `status` says which)."
                ),
            },
            status={"enum": [s.value for s in Status]},
        ),
        "Resumed": _object(("id", "status"), id=_TEXT, status={"enum": [s.value for s in Status]}),
        "DatasetList": _object(
            ("datasets",),
            datasets=_array(
                _object(
                    ("name", "uri"),
                    name=_TEXT,
                    uri=_URI,
                    title=_TEXT_OR_NULL,
                    questions={"type": ["integer", "null"]},
                    languages=_TEXTS,
                    knowledgeBase={
                        "type": ["string", "null"],
                        "description": "The knowledge base its gold answers are over, for a "
                        "reader: a catalogue dataset's KB and version label (\"DBpedia "
                        "2016-10\"); an uploaded one's IRI with the version its author gave "
                        '("http://example.org/birds (2026-11)"), or "version V" alone.',
                    },
                    knowledgeBaseIri={
                        "type": ["string", "null"],
                        "format": "uri",
                        "description": "That knowledge base's IRI (gqa:knowledgeBase), when "
                        "the dataset names one.",
                    },
                    version={
                        "type": ["string", "null"],
                        "description": "An uploaded dataset's own version label "
                        "(dcat:version), when its author gave one.",
                    },
                    previousVersion={
                        "type": ["string", "null"],
                        "description": "The name of the uploaded dataset this one is a newer "
                        "version of (dcat:previousVersion, its author's correction), if any.",
                    },
                    newestVersion={
                        "type": ["string", "null"],
                        "description": "The name of this uploaded dataset's newest published "
                        "version (one or more dcat:previousVersion steps lead back here), "
                        "null when it is the newest: runs on an old version are re-scored "
                        "onto it by their owners.",
                    },
                    goldWithheld={
                        "type": "boolean",
                        "description": "A shared task's test set whose gold its author "
                        "withholds (`about.gold`) and has not revealed yet: runs on it are "
                        "scored, its questions' gold and each question's result are not "
                        "published.",
                    },
                    uploaded={
                        "type": "boolean",
                        "description": "A published uploaded dataset (after the catalogue's): "
                        "its file as its author uploaded it; named in a submission as a "
                        "catalogue dataset is.",
                    },
                    findings={
                        "type": ["integer", "null"],
                        "description": "How many findings the dataset checks stored for it "
                        "(listed on its page, `?findings=KIND`); null while it is not checked "
                        "(a catalogue dataset before its first run).",
                    },
                )
            ),
        ),
        "FrozenLeaderboard": _frozen_schema(),
        "FrozenLeaderboardList": _object(
            ("leaderboards",),
            leaderboards=_array(
                _object(
                    ("uri", "id", "title", "frozenAt"),
                    uri=_URI,
                    id=_TEXT,
                    title=_TEXT,
                    frozenAt={"type": "string", "format": "date-time"},
                )
            ),
            **_PAGE_KEYS,
        ),
        "SystemList": _object(
            ("systems",),
            systems=_array(
                _object(
                    ("uri", "label"),
                    uri=_URI,
                    label=_TEXT,
                    experiments={
                        "type": "integer",
                        "description": "Public experiments in the system's history.",
                    },
                )
            ),
        ),
        "ProfileList": _object(
            ("profiles", "knowledgeBases"),
            profiles=_array(
                _object(
                    ("name", "version", "iri", "signature"),
                    name={"enum": registries.profile_enum()},
                    version=_TEXT,
                    iri=_URI,
                    signature=_TEXT,
                    description=_TEXT,
                    defaultLanguage=_TEXT_OR_NULL,
                )
            ),
            knowledgeBases={
                **_TEXTS,
                "description": "The names a submission's `kb` may give (configured KBs).",
            },
        ),
    }


def _frozen_schema() -> dict[str, Any]:
    """A frozen leaderboard (service/web/frozen.py): its filters and its rows as they stood."""
    number = {"type": ["number", "null"]}
    return _object(
        ("uri", "id", "title", "frozenAt", "type", "rankedBy", "live", "rows"),
        uri=_URI,
        id={"type": "string", "pattern": "^[0-9a-f]{16}$"},
        title=_TEXT,
        frozenAt={"type": "string", "format": "date-time"},
        type={"enum": registries.experiment_type_enum()},
        rankedBy=_TEXT,
        dataset={"type": ["string", "null"], "format": "uri"},
        language={"type": ["string", "null"], "format": "uri"},
        profile={"type": ["string", "null"], "format": "uri"},
        live={**_URI, "description": "The live leaderboard with the same filters."},
        alreadyFrozen={
            **_TEXT,
            "description": "Only in the answer to a freeze of standings frozen before under "
            "another title than the one given: says so, naming the title kept (the first "
            "freezer's) and the one not kept.",
        },
        mixedKnowledgeBases={
            **_TEXTS,
            "description": "The profiles whose rows were computed on different knowledge bases "
            "(their rows' `knowledgeBase` differ): only rows of one knowledge base are "
            "comparable, though the ranks run through them all. Empty when none.",
        },
        mixedProfileVersions={
            "type": "object",
            "additionalProperties": _TEXTS,
            "description": "The profiles whose rows were scored under several versions of it "
            "(their rows' `profileVersion` differ), and those versions: tiers test one "
            "version's rows among themselves; boards frozen from 2026-11-29 rank them apart "
            "too. Empty when none.",
        },
        rows=_array(
            _object(
                ("rank", "task"),
                rank={
                    "type": "integer",
                    "minimum": 1,
                    "description": "Ranks count systems: a system's best run on a dataset, "
                    "language and profile (one version of it) takes its rank (equal scores "
                    "share one: 1, 1, 3); its other runs there share it (`otherRunOf`) and "
                    "take none. Leaderboards "
                    "frozen before 2026-11-28 ranked every run.",
                },
                tier={"type": ["integer", "null"]},
                tierNote={
                    "type": ["string", "null"],
                    "description": "Why a row among the tiered ones had no tier when frozen "
                    "(as the live board's `tierNote` said it; a row below the tiered ones: "
                    "'tiers are given to the top 10 rows only'); null for a row with a tier, on "
                    "a board without tiers, and on boards frozen before 2026-11-29.",
                },
                tierSignature={
                    "type": ["string", "null"],
                    "description": "How the row's tier and interval were computed, as the live "
                    "board's `tierSignature` gave it (the profile's signature, the intervals' "
                    "resamples and seed, the test, its samples and seed, the correction and the "
                    "number of pairs it corrected over); null for a row without one and on "
                    "boards frozen before 2026-11-29.",
                },
                system=_TEXT_OR_NULL,
                systemUri={"type": ["string", "null"], "format": "uri"},
                experiment={"type": ["string", "null"], "format": "uri"},
                languageTag={
                    "type": ["string", "null"],
                    "description": "The task's languages: `en`, or those a pooled task holds "
                    "(`en,es`; its language is `mul`).",
                },
                profile={
                    "type": ["string", "null"],
                    "description": "The task's profile by name (`fair`): a leaderboard not "
                    "filtered to one has a system's rows under each.",
                },
                knowledgeBase={
                    "type": ["string", "null"],
                    "description": "The `kb:` field of the task's signature: the KB it was "
                    "computed on (`file:sha256:…`, an IRI), `none` (its profile matches through "
                    "a KB and the run named none) or `no` (its profile uses none).",
                },
                profileVersion={
                    "type": ["string", "null"],
                    "description": "The `v:` field of the task's signature: the version of "
                    "its profile it was scored under.",
                },
                task=_URI,
                score=number,
                scoreLow=number,
                scoreHigh=number,
                undefinedResamples={
                    "type": ["integer", "null"],
                    "description": "On how many bootstrap resamples the ranked measure was "
                    "undefined when it was frozen (Macro F1 QALD on a resample without a right "
                    "answer): left out of the interval, or too many for one; null: none.",
                },
                intervalNote={
                    "type": ["string", "null"],
                    "description": "That count as the page says it: '12 of 1,000 resamples "
                    "undefined, left out', 'no interval: undefined on 366 of 1,000 resamples'.",
                },
                withdrawnAt={
                    "type": ["string", "null"],
                    "description": "When the row's experiment was withdrawn since (the row "
                    "stays: the leaderboard is as it stood).",
                },
                otherRunOf={
                    "type": ["string", "null"],
                    "format": "uri",
                    "description": "Another run of a system ranked above: the task of its "
                    "ranked (best) run, whose rank this row shares; null for a ranked run.",
                },
                entry={
                    **_URI,
                    "description": "The row's own IRI in the frozen leaderboard's graph "
                    "(`#rank-N`, `#rank-N-M` for the M-th row at rank N); its row on the page.",
                },
            )
        ),
    )


def _evaluation_properties() -> dict[str, Any]:
    """An evaluation's fields besides its results and intervals (``Evaluation.to_json``)."""
    question = _object(
        ("id",),
        id=_TEXT,
        status={
            "enum": [s.value for s in QuestionStatus],
            "description": "When not scored in every type: why.",
        },
        error={**_TEXT, "description": "Why the system gave no answer (its call, its query)."},
        runtimeMs={
            "type": "number",
            "description": "How long the system took to answer (a web service's question, "
            "from its first call to its answer: retries and the waits before them included), "
            "in ms.",
        },
        confidence={
            "type": "number",
            "description": "The confidence the system gave its answer (eQALD-JSON; in [0, 1]: "
            "one that is not a number in [0, 1] is dropped with a warning, the answer kept), "
            "which the confidence-aware measures weigh it by.",
        },
        attempts={
            "type": "integer",
            "minimum": 2,
            "description": "How many calls the question took, when it was retried (connection "
            "errors, 5xx, 429); absent when the first call answered.",
        },
        retryReason={
            **_TEXT,
            "description": "With attempts: why the attempt before the last one failed.",
        },
        language={**_TEXT, "description": "A task pooled over languages: the question's."},
        why={
            **_TEXT,
            "description": "A wrong answer under a profile whose rules can say why it matched "
            "no gold answer (poleval: the edit distance or the number found, per alternative).",
        },
        note={
            **_TEXT,
            "description": "What the profile says of the system's answer when what it scored "
            "is not what the system said (text2sparql: an ASK answered false is the item "
            "'true'; fair: a wrong answer written in a form it does not read as a number or "
            "date: \"not read as a number: '52,000' (fair reads …)\").",
        },
        systemQuery={
            **_TEXT,
            "description": "The SPARQL the system gave (a Text2SPARQL service's query, kept "
            "as returned: fences and prose included), whose answers were scored or whose "
            "failure is the error.",
        },
        queryRewrites={
            **_TEXTS,
            "description": "What was changed in the system's SPARQL before it ran on the KB, "
            "in words: the lenient dialect's readings (an undeclared prefix resolved, an "
            "aggregate given its AS), a FROM not applied to a local KB.",
        },
        queryShape={
            "type": "object",
            "description": "The shapes of the system's and the gold "
            "SPARQL query (features, counts).",
        },
    )
    question["additionalProperties"] = {"$ref": "#/components/schemas/QuestionScore"}
    question["description"] = "One question: its id, and its scores per experiment type."
    return {
        "dataset": _TEXT,
        "system": _TEXT,
        "profile": {"enum": registries.profile_enum()},
        "profileVersion": _TEXT,
        "signature": _TEXT,
        "language": _TEXT,
        "kb": {**_TEXT_OR_NULL, "description": "The KB's identity, when one was used."},
        "questions": {"type": "array", "items": question},
        "warnings": {**_TEXTS, "description": "Problems with the answers, with positions."},
        "slices": {
            "type": "object",
            "description": "With `?by=`: the QA measures per value of each feature asked.",
        },
    }


def _task_result_schema() -> dict[str, Any]:
    """One task of the deprecated ``results`` list."""
    return _object(
        ("task", "measures"),
        task=_URI,
        system=_URI,
        systemLabel=_TEXT_OR_NULL,
        dataset=_TEXT_OR_NULL,
        experimentType={"enum": registries.experiment_type_enum()},
        language=_TEXT_OR_NULL,
        profile=_TEXT_OR_NULL,
        profileVersion=_TEXT_OR_NULL,
        signature=_TEXT_OR_NULL,
        knowledgeBase=_TEXT_OR_NULL,
        measures={"$ref": "#/components/schemas/Measures"},
    )


def _undefined_resamples_schema() -> dict[str, Any]:
    """``undefinedResamples`` beside ``intervals`` (``comparison.undefined_resamples``)."""
    return {
        "type": "object",
        "description": "Experiment type -> measure -> on how many bootstrap resamples the "
        "measure was undefined; only measures with any, and the key only when there are. Up "
        "to one tail's worth ((1 - level)/2 of the resamples: 25 of 1,000 at 95 %) are left "
        "out of the interval's bounds; more, and the interval is [null, null].",
        "propertyNames": {"enum": registries.experiment_type_enum()},
        "additionalProperties": {
            "type": "object",
            "additionalProperties": {"type": "integer", "minimum": 1},
        },
    }


def _comparison_schema() -> dict[str, Any]:
    """``gerbil-qa compare --output json`` (``Comparison.to_json``)."""
    from service.evaluation.statistics import TESTS  # NumPy: only when the document is asked

    interval = {
        "type": "array",
        "items": {"type": ["number", "null"]},
        "minItems": 2,
        "maxItems": 2,
    }
    by_type = {"propertyNames": {"enum": registries.experiment_type_enum()}}
    return _object(
        ("dataset", "profile", "signature", "systems", "pairs"),
        dataset=_TEXT,
        profile=_TEXT,
        signature=_TEXT,
        seed={"type": "integer"},
        resamples={"type": "integer"},
        test={"enum": list(TESTS), "description": "The paired test used."},
        systems={
            "type": "array",
            "description": "Best first by the measure compared.",
            "items": _object(
                ("system", "results", "tier"),
                system=_TEXT,
                results={
                    "type": "object",
                    "description": "By experiment type: QA for answer files, the stored "
                    "tasks' own type (C2KB…) for them; tiers and pairs are on that type.",
                    **by_type,
                    "additionalProperties": {"$ref": "#/components/schemas/Measures"},
                },
                intervals={
                    "type": "object",
                    **by_type,
                    "additionalProperties": {"type": "object", "additionalProperties": interval},
                },
                tier={
                    "type": ["integer", "null"],
                    "description": "1: the best and every system not significantly worse; "
                    "null: its value is undefined.",
                },
                undefinedResamples=_undefined_resamples_schema(),
                reference={
                    "type": "boolean",
                    "description": "Only on a reference system's stored task (gold-sparql): "
                    "shown with its intervals, neither tested nor tiered.",
                },
                answered={
                    "type": "integer",
                    "minimum": 0,
                    "description": "Only when the system left questions unanswered: how many "
                    "of the questions compared it answered (with missing and errors, all).",
                },
                missing={
                    "type": "integer",
                    "minimum": 0,
                    "description": "Only with answered: questions its file has no answer to.",
                },
                errors={
                    "type": "integer",
                    "minimum": 0,
                    "description": "Only with answered: questions whose call failed.",
                },
                task={
                    **_URI,
                    "description": "Only from the service, on a stored task compared: its "
                    "URI (the system's numbers are that task's).",
                },
            ),
        },
        pairs=_array(
            _object(
                ("a", "b", "measure"),
                a=_TEXT,
                b=_TEXT,
                measure=_TEXT,
                difference={"type": ["number", "null"]},
                pValue={"type": ["number", "null"]},
                pAdjusted={"type": ["number", "null"], "description": "Holm-corrected."},
                pAtFloor={
                    "type": "boolean",
                    "description": "pValue is the smallest its sampled test gives, "
                    "1/(samples + 1): no shuffle or resample was as extreme, so both p-values "
                    "are upper bounds (printed ≤ 1.0e-04); never for McNemar (exact).",
                },
            )
        ),
        warnings={
            **_TEXTS,
            "description": "What makes the numbers rough: too few resamples for the "
            "intervals' level, too few samples or too few questions where the systems "
            "differ for any pair to be found different, one question (intervals of zero "
            "width), a system's questions left unanswered or failed calls.",
        },
        questions={
            "type": "integer",
            "minimum": 0,
            "description": "How many questions were compared (a question pooled over "
            "languages once): what the intervals and the tests rest on.",
        },
        datasetUri={
            **_URI,
            "description": "Only on a published uploaded dataset (named, or its bytes "
            "uploaded): its URI; dataset is its title, which its versions share.",
        },
        datasetName={**_TEXT, "description": "Only with datasetUri: the dataset's name."},
        datasetLabel={
            **_TEXT,
            "description": 'Only with datasetUri: its title, version and name, "Birds QA, '
            'version 2 (birds-qa-9bcc958d)".',
        },
        evaluator={
            **_TEXT,
            "description": "Only from the service: the version of the evaluator that "
            "computed the comparison, as an experiment records its own (`0.1.0+g6823d09da6b5`; "
            "its resource is software/VERSION): a later one may answer the same link otherwise.",
        },
        computedOn={
            **_TEXT,
            "format": "date",
            "description": "Only from the service: the day the comparison was computed "
            "(UTC; a day, not a time: one seed gives one answer byte for byte).",
        },
        withdrawn=_array(
            _object(
                ("task", "experiment", "withdrawnAt", "withdrawalReason"),
                task=_URI,
                experiment=_URI,
                withdrawnAt=_TEXT,
                withdrawalReason=_TEXT,
            ),
            description="Only when a stored task compared is of a withdrawn experiment.",
        ),
    )


def _call_schemas() -> dict[str, Any]:
    """The call settings of a submission's web services, from their registry (``CALL_SETTINGS``
    in ``service.experiments.spec``), with the defaults ``RunOptions`` has."""
    from service.call_settings import CALL_SETTINGS

    return {
        s.name: {
            "type": "integer" if s.kind is int else "number",
            "minimum": s.kind(s.least),
            "maximum": s.kind(s.most),
            "default": s.kind(s.default),
            "description": s.description,
        }
        for s in CALL_SETTINGS
    }


def _compare_body(files: dict[str, Any]) -> dict[str, Any]:
    """The comparison's body: the submission of ``files`` (JSON or form), or, as JSON only,
    stored tasks; either with the options."""
    json_files = files["content"]["application/json"]["schema"]
    tasks = {
        "allOf": [{"$ref": "#/components/schemas/CompareTasks"}, json_files["allOf"][1]],
        "unevaluatedProperties": False,  # another key is refused, as a submission's
    }
    files["content"]["application/json"]["schema"] = {"oneOf": [json_files, tasks]}
    return files


def _inline_file(**more: Any) -> dict[str, Any]:
    """A file sent inline in JSON (``submission.FILE_KEYS``), with ``more`` properties."""
    return {
        "type": "object",
        "required": ["content"],
        "additionalProperties": False,
        "properties": {
            "content": {"type": "string", "description": "The file's text."},
            "filename": {"type": "string"},
            "format": {
                "type": "string",
                "pattern": registries.format_pattern(),
                "examples": registries.format_enum(),
                "description": "One of "
                + ", ".join(registries.format_enum())
                + ", or the media type that format is served as (application/qald+json); "
                "matched without regard to case or white space around it, and recorded as "
                "named here. Sniffed when absent or empty.",
            },
            **more,
        },
    }


def submission_form_schema() -> dict[str, Any]:
    """The Submission as multipart/form-data: its fields are what ``POST /api/experiments``
    reads (``submission.check_form_fields`` refuses any other, so the two cannot drift)."""
    # as in the JSON Submission (a pattern from the registries, any case), but a field of white
    # space only is one left empty (``submission._filled``): a format left to be sniffed, the
    # default profile or language (the JSON Submission refuses a blank string)
    formats = {
        "type": "string",
        "pattern": registries.format_pattern(blank=True),
        "examples": registries.format_enum(),
    }
    many = {"type": "array", "items": {"type": "string"}}
    files = {"type": "array", "items": {"type": "string", "format": "binary"}}
    return {
        "type": "object",
        # the rules in words, enforced by the server (``submission.to_spec``): branches that
        # only list ``required`` made openapi-python-client type the form's body ``Any``, its
        # post_experiments failing at import and compare's form left out (explore64 F2)
        "description": "The Submission as multipart/form-data (see POST /api/experiments). "
        "Give exactly one of `dataset` and `dataset_file`, and at least one system: "
        "`answers`, `webservice`, `text2sparql` or `reference` (else a 400).",
        "properties": {
            "dataset": {"type": "string", "description": "A catalogue name."},
            "dataset_file": {"type": "string", "format": "binary"},
            "dataset_format": formats,
            "dataset_questions": {
                "type": "string",
                "format": "binary",
                "description": "A TSV `dataset_file`'s (expected.tsv's) in.tsv: its questions' "
                "texts, one a line (as `questions` of an InlineDatasetFile).",
            },
            "dataset_version": {
                "type": "string",
                "description": "As `datasetVersion` in the JSON Submission.",
            },
            "revisionOf": {
                "type": "string",
                "description": "As `revisionOf` in the JSON Submission.",
            },
            "gold": {
                "type": "string",
                "description": "Gold answers of a catalogue dataset (as `gold`).",
            },
            "gold_file": {"type": "string", "format": "binary"},
            "gold_format": formats,
            "title": {"type": "string"},
            "answers": {**files, "description": "One answer file per system."},
            "answers_name": {
                **many,
                "description": "The systems' names, in the files' order: a value "
                "per file, or one name a line (the run page's box); a file without one is "
                "named after it, more names than files are a 400.",
            },
            "answers_format": {"type": "array", "items": formats},
            "webservice": {**many, "description": "`name=url` or a URL."},
            "text2sparql": {**many, "description": "`name=url` or a URL."},
            "service_headers": {
                "type": "string",
                "description": "Secret request headers, `Name: value` a line, sent to every "
                "`webservice` and `text2sparql` service of the run (as `headers` of each); "
                "`NAME: Name: value`, NAME a service's name (`NAME=url`), to that service only.",
            },
            "reference": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Reference systems that run here on the KB: "
                f"`name=system` or a system ({', '.join(SYSTEM_NAMES)}).",
            },
            "profile": {
                "type": "string",
                "pattern": registries.profile_pattern(blank=True),
                "examples": registries.profile_enum(),
            },
            "language": {"type": "string", "pattern": registries.language_pattern(blank=True)},
            "experiment_type": {
                "type": "array",
                "items": {"enum": registries.experiment_type_enum()},
            },
            "kb": {"type": "string"},
            "force": {"type": "boolean"},
            "ranked": {"type": "boolean", "description": "As `ranked` in the JSON Submission."},
            **_call_schemas(),
            **{
                f.form_field: (
                    {**many, "description": f"As `about.{f.key}`: one a line or a value each."}
                    if f.many
                    else {"type": "string", "description": f"As `about.{f.key}`.", **_enum(f)}
                )
                for f in ABOUT_FIELDS
            },
        },
    }


def _about_schema() -> dict[str, Any]:
    """The ``about`` object of a submission, from its registry (``ABOUT_FIELDS``)."""
    return {
        "type": "object",
        "additionalProperties": False,
        "description": "What the author of an uploaded dataset says of it, recorded with it "
        "as DCAT (only with an uploaded `dataset`).",
        "properties": {
            f.key: (
                {"type": "array", "items": {"type": "string"}, "description": f.description}
                if f.many
                else {"type": "string", "description": f.description, **_enum(f)}
            )
            for f in ABOUT_FIELDS
        },
    }


def _enum(f: Any) -> dict[str, Any]:
    """An ``about`` field's values when it is a choice (the ADMS types of ``creatorType``)."""
    return {"enum": list(f.choices)} if f.choices else {}


def openapi_document(base: str) -> dict[str, Any]:
    from service.evaluation.statistics import TESTS

    exp_id = {
        "name": "id",
        "in": "path",
        "required": True,
        "description": "Experiment id: yyyyMMdd and a 4-digit daily counter.",
        "schema": {"type": "string", "pattern": "^[0-9]{12}$"},
    }
    owner: list[dict[str, list[str]]] = [{"ownerToken": []}]
    options = {"$ref": "#/components/schemas/CompareOptions"}

    def submission_body(*extra: dict[str, Any]) -> dict[str, Any]:
        """A submission (of an experiment, or with ``extra`` options of a comparison), as JSON
        or as a form."""

        def schema(name: str) -> dict[str, Any]:
            ref = {"$ref": f"#/components/schemas/{name}"}
            return {"allOf": [ref, *extra]} if extra else ref

        # no other key (unevaluated: across the options' allOf): a mistyped one is a 400
        strict = {**schema("Submission"), "unevaluatedProperties": False}
        return {
            "required": True,
            "content": {
                "application/json": {"schema": strict},
                "multipart/form-data": {"schema": schema("SubmissionForm")},
            },
        }

    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "GERBIL QA API",
            "version": __version__,
            "description": (
                "Submit question answering experiments, follow them, read their results and "
                "publish them. A new experiment is private: only the holder of its owner token "
                "(returned once, at submission) sees it, by sending `Authorization: Bearer "
                "<token>` (or, in a browser, by opening `experiment/{id}?token=<token>` once: "
                "the token is then kept in a cookie and removed from the address). Publishing "
                "makes it visible everywhere at once: its URI, the SPARQL endpoint, listings. "
                "Every experiment URI dereferences to HTML or RDF by content negotiation."
            ),
        },
        "servers": [{"url": base.rstrip("/")}],
        "components": {
            "securitySchemes": {
                "ownerToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The owner token returned by POST /api/experiments.",
                }
            },
            "responses": {
                "Error": {
                    "description": "An error the client can act on.",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                    },
                }
            },
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["error", "status"],
                    "properties": {
                        "error": {"type": "string"},
                        "status": {"type": "integer"},
                        "problems": {
                            "type": "array",
                            "description": "For unreadable files: each problem with its position "
                            "(the same as `gerbil-qa validate` prints); for a name the service "
                            "does not know (profile, language, experiment type, catalogue "
                            "dataset, KB) or a value or key it refuses: one problem whose "
                            "`path` is the field's whole JSON path (`$.profile`, "
                            "`$.systems[0].url`, `$.about.license`).",
                            "items": {"$ref": "#/components/schemas/Problem"},
                        },
                    },
                },
                "Problem": {
                    "type": "object",
                    "properties": {
                        "message": {"type": "string"},
                        "severity": {"enum": ["error", "warning"]},
                        "file": {"type": ["string", "null"]},
                        "line": {"type": ["integer", "null"]},
                        "column": {"type": ["integer", "null"]},
                        "path": {"type": ["string", "null"], "description": "JSON or XML path"},
                        "question": {"type": ["string", "null"]},
                        "expected": {"type": ["string", "null"]},
                        "text": {"type": "string"},
                    },
                },
                "InlineFile": _inline_file(),
                "InlineDatasetFile": _inline_file(
                    questions={
                        "$ref": "#/components/schemas/InlineFile",
                        "description": "For a TSV expected.tsv only: its in.tsv (one "
                        "question text a line, as many lines), kept with it as a second "
                        "file of the dataset; refused with a dataset file of another format.",
                    }
                ),
                "Submission": {
                    "type": "object",
                    "required": ["dataset", "systems"],
                    "properties": {
                        "dataset": {
                            "description": "A catalogue dataset name (GET /api/datasets), "
                            "`demo` (the served demo's questions, on the demo KB), the name of a "
                            "published uploaded dataset (`dataset/{name}`: its file, which the "
                            "store kept), or an uploaded file (a TSV expected.tsv with its "
                            "in.tsv as `questions`).",
                            "oneOf": [
                                {"type": "string"},
                                {"$ref": "#/components/schemas/InlineDatasetFile"},
                            ],
                        },
                        "title": {
                            "type": "string",
                            "description": "Name of an uploaded dataset (dct:title; stripped, "
                            f"at most {MAX_TITLE} characters; blank: none).",
                        },
                        "about": _about_schema(),
                        "revisionOf": {
                            "type": "string",
                            "pattern": "^[0-9]{12}$",
                            "description": "A resubmission: the id of a finished experiment "
                            "on the same dataset (and gold) that this one replaces. Needs that "
                            "experiment's owner token (`Authorization: Bearer`). The new one "
                            "says `prov:wasRevisionOf` it; once published, its rows stand in "
                            "the leaderboards in place of the old one's rows of the same "
                            "system, dataset, experiment type, language and profile (the old "
                            "one's other rows stay ranked); the old URI stays citable.",
                        },
                        "datasetVersion": {
                            "type": "string",
                            "description": "A registered version of the catalogue dataset "
                            "(`dataset refresh … --store`), read from the file this store kept; "
                            "its results are a dataset of their own.",
                        },
                        "gold": {
                            "description": "Gold answers from elsewhere (a result set or any "
                            "answers file, or a catalogue dataset's), matched by question id "
                            "and language; the results are then a dataset of their own.",
                            "oneOf": [
                                {"type": "string"},
                                {"$ref": "#/components/schemas/InlineFile"},
                            ],
                        },
                        "systems": {
                            "type": "array",
                            "minItems": 1,
                            "items": {
                                "type": "object",
                                "description": "One of an answer file, a web service or a "
                                "reference system.",
                                # the API's rule, one of the three (a reference system was
                                # accepted but invalid under the document)
                                "oneOf": [
                                    {"required": [key]} for key in ("answers", "url", "reference")
                                ],
                                "additionalProperties": False,
                                "properties": {
                                    "name": {"type": "string"},
                                    "answers": {
                                        "description": "The file's text, or the file.",
                                        "oneOf": [
                                            {"type": "string"},
                                            {"$ref": "#/components/schemas/InlineFile"},
                                        ],
                                    },
                                    "url": {
                                        "type": "string",
                                        "format": "uri",
                                        "description": "A QA web service (GERBIL QA interface: "
                                        "POST query and lang, answers QALD-JSON), or with "
                                        "interface text2sparql a Text2SPARQL service (GET "
                                        "question and dataset, answers a SPARQL query that is "
                                        "run on the dataset's KB).",
                                    },
                                    "interface": {
                                        "type": "string",
                                        "enum": list(INTERFACES),
                                        "default": "qa",
                                    },
                                    "reference": {
                                        "enum": list(SYSTEM_NAMES),
                                        "description": "A reference system that runs here on "
                                        "the KB (give `kb`, or the demo dataset's own).",
                                    },
                                    "headers": {
                                        "type": "object",
                                        "maxProperties": MAX_HEADERS,
                                        "additionalProperties": {
                                            "type": "string",
                                            "maxLength": MAX_VALUE_BYTES,
                                        },
                                        "description": "Secret request headers sent with "
                                        "every call to the `url` (e.g. `Authorization`, "
                                        "`X-API-Key`), and to no other origin it redirects "
                                        "to. Their values are held by the running job only: "
                                        "never stored, shown or published (the experiment "
                                        "names the headers); a run stopped before its end is "
                                        "not resumed without them: submit it again.",
                                    },
                                },
                            },
                        },
                        "profile": {
                            "type": "string",
                            "pattern": registries.profile_pattern(),
                            "examples": registries.profile_enum(),
                            "description": "A scorer profile (GET /api/profiles): one of "
                            + ", ".join(registries.profile_enum())
                            + ", matched without regard to case or white space around it "
                            "and recorded as named here. Default (absent or empty): the one "
                            "made for the dataset named (poleval for a "
                            "Polish dataset, text2sparql for TEXT2SPARQL'25), else "
                            f"{registries.default_profile()}.",
                        },
                        "language": {
                            "type": "string",
                            "minLength": 1,
                            "pattern": registries.language_pattern(),
                            "default": "en",
                            "description": "A language (en: an ISO 639 code in lower case, "
                            "then subtags, hi-IN or hi_IN), several (en,es: each question "
                            "scored once per language, the measures pooled over them, each "
                            "language's in byLanguage; white space and empty items ignored) "
                            "or all (every language of the dataset, alone).",
                        },
                        "experimentTypes": {
                            "type": "array",
                            "items": {"enum": registries.experiment_type_enum()},
                            "description": "Default: every type the profile supports.",
                        },
                        "kb": {"type": "string", "description": "A configured knowledge base."},
                        "force": {
                            "type": "boolean",
                            "default": False,
                            "description": "Score answer files even when under half of the "
                            "dataset's question ids have an answer (else refused: likely "
                            "answers to another dataset).",
                        },
                        "ranked": {
                            "type": "boolean",
                            "default": False,
                            "description": RANKED_HELP + " (the CLI's `evaluate --ranked`).",
                        },
                        **_call_schemas(),
                    },
                },
                "SubmissionForm": submission_form_schema(),
                "CompareTasks": {
                    "type": "object",
                    "required": ["tasks"],
                    "properties": {
                        "tasks": {
                            "type": "array",
                            "minItems": 2,
                            "maxItems": MAX_STORED,
                            "items": {"type": "string", "format": "uri"},
                            "description": "Stored tasks of one experiment type (QA, C2KB, "
                            "P2KB…: each task's own; tasks of two types are refused), dataset, "
                            "language and profile: their URIs (…/experiment/ID/task/N).",
                        },
                        "tokens": {
                            "type": "object",
                            "maxProperties": MAX_STORED,
                            "propertyNames": {"pattern": "^[0-9]{12}$"},
                            "additionalProperties": {"type": "string", "minLength": 1},
                            "description": "Owner tokens of private experiments by experiment "
                            'id ({"202611260001": "<token>", "202611270002": "<token>"}): one '
                            "request compares the private runs of several tokens, which one "
                            "Authorization: Bearer header cannot carry. Each token opens its own "
                            "experiment (and those its experiment revises), as the bearer "
                            "token does; a wrong one opens nothing and is refused in the same "
                            "words as a missing experiment.",
                        },
                    },
                },
                "CompareOptions": {
                    "type": "object",
                    "properties": {
                        "measure": {
                            "type": "string",
                            "description": "The measure compared; by default the profile's "
                            "own (its metric: accuracy under poleval; else macroF1).",
                        },
                        "test": {
                            "enum": ["auto", *TESTS],
                            "default": "auto",
                        },
                        "seed": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
                        "resamples": {"type": "integer", "minimum": 1, "maximum": MAX_RESAMPLES},
                        "samples": {"type": "integer", "minimum": 1, "maximum": MAX_SAMPLES},
                    },
                },
                **_listing_schemas(),
                "Comparison": _comparison_schema(),
                "Measures": registries.measures_schema(),
                "QuestionMeasures": registries.question_measures_schema(),
                "QuestionScore": {
                    **registries.question_measures_schema(),
                    "description": "One question's scores in one experiment type.",
                    "properties": {
                        **registries.question_measures_schema()["properties"],
                        "status": {"enum": [s.value for s in QuestionStatus]},
                    },
                },
                "Ticket": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "uri": {"type": "string", "format": "uri"},
                        "token": {"type": "string", "description": "Owner token, shown once."},
                        "status": {"type": "string"},
                        "statusUrl": {
                            "type": "string",
                            "format": "uri",
                            "description": "The experiment's status and, once finished, its "
                            "results with their per-question records.",
                        },
                        "pollUrl": {
                            "type": "string",
                            "format": "uri",
                            "description": "statusUrl without the per-question records "
                            "(`questions=false`): what to poll until the run ends.",
                        },
                        "ownerLink": {"type": "string", "format": "uri"},
                        "note": {
                            "type": "string",
                            "description": "How to use the token, statusUrl and pollUrl.",
                        },
                        "revisionOf": {
                            "type": "string",
                            "description": "A re-scoring: the experiment it re-scores (id).",
                        },
                        "warnings": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "What the submitter should know before publishing: "
                            "a system name other published experiments ran under already (a "
                            "system is its name: once published, listed and ranked as one "
                            "system).",
                        },
                    },
                },
                "Experiment": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "uri": {"type": "string", "format": "uri"},
                        "status": {
                            "enum": [s.value for s in Status],
                            "description": "The lifecycle: reserved -> queued -> running -> "
                            "finished | error | cancelled | interrupted (interrupted, cancelled "
                            "and error can be resumed).",
                        },
                        "public": {"type": "boolean"},
                        "created": {**_TEXT_OR_NULL, "description": "xsd:dateTime submitted."},
                        "publishedAt": {
                            **_TEXT_OR_NULL,
                            "description": "xsd:dateTime of the publication (null: private).",
                        },
                        "withdrawnAt": {
                            "type": "string",
                            "description": "Only when withdrawn: xsd:dateTime of the withdrawal.",
                        },
                        "withdrawalReason": {
                            "type": "string",
                            "description": "Only when withdrawn: why.",
                        },
                        "dataset": {**_TEXT_OR_NULL, "description": "Once finished: its URI."},
                        "asked": {
                            "type": ["object", "null"],
                            "description": "What the submission named, from the start: the "
                            "dataset (a catalogue name, `demo` with `demo: true`, or an "
                            "upload's title or file name; `catalogued`), the systems (name, "
                            "kind), profile, languages, "
                            "experimentTypes and kb (null for an experiment recorded by the "
                            "command line).",
                        },
                        "progress": {
                            "type": ["string", "null"],
                            "description": "How far it is, in one line.",
                        },
                        "phase": {
                            "anyOf": [
                                {"enum": [*PHASES, None]},
                                {"type": "string", "pattern": "^waiting: "},
                            ],
                            "description": "While it runs: what it is doing, or why it "
                            "waits (`waiting: …`: the server's budget of questions evaluated "
                            "at once is used by other runs, or the replica running it is "
                            "silent).",
                        },
                        "systems": {
                            "type": "array",
                            "description": "While it runs: per system, questions done of the "
                            "total and the errors so far with their reasons.",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "system": {"type": "string"},
                                    "kind": {
                                        "enum": [*SYSTEM_KINDS, None],
                                        "description": "The system's kind (an answer file "
                                        "is read, the others are asked).",
                                    },
                                    "state": {"enum": list(SYSTEM_STATES)},
                                    "activity": {
                                        "type": "string",
                                        "description": "What it is doing, in words, as "
                                        "the experiment page says it (e.g. 'read, waiting "
                                        "to be scored' for an answer file); in a run that "
                                        "ended, where it stopped ('cancelled while "
                                        "asking').",
                                    },
                                    "done": {"type": "integer"},
                                    "total": {"type": "integer"},
                                    "errors": {"type": "integer"},
                                    "errorReasons": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "properties": {
                                                "question": {"type": "string"},
                                                "reason": {"type": "string"},
                                            },
                                        },
                                    },
                                },
                            },
                        },
                        "elapsedSeconds": {
                            "type": ["number", "null"],
                            "description": "While it runs: seconds since it started.",
                        },
                        "remainingSeconds": {
                            "type": ["number", "null"],
                            "description": "While it runs: an estimate of the seconds left "
                            "(the time per question so far; null until one is done). The two "
                            "are left out of the ETag: a 304 keeps the last body's, which "
                            "`startedAt` and `expectedEndAt` keep true.",
                        },
                        "startedAt": {
                            "type": ["string", "null"],
                            "format": "date-time",
                            "description": "While it runs: when it started (UTC), the time "
                            "of day `elapsedSeconds` counts from.",
                        },
                        "expectedEndAt": {
                            "type": ["string", "null"],
                            "format": "date-time",
                            "description": "While it runs: when it is expected to end (UTC), "
                            "the time of day `remainingSeconds` counts to; null as it is.",
                        },
                        "message": {"type": ["string", "null"]},
                        "revisionOf": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "The experiments this one re-scores (ids).",
                        },
                        "revisedBy": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "The experiments that re-score this one (ids).",
                        },
                        "changes": {
                            "type": "object",
                            "description": "A re-scoring's changes against the experiment it "
                            "re-scores (when that one is public, or the request owns it or this "
                            "revision): per system the measures that moved and each question "
                            "whose counts (tp, fp, fn), precision, recall, F1 or status "
                            "(scored, error, …) changed "
                            "(not with `?questions=false`; none, with `questionsWithheld`, "
                            "when either was scored while its dataset's gold was withheld).",
                        },
                        "papers": {"type": "array", "items": {"type": "string"}},
                        "badges": {
                            "type": "array",
                            "description": "Once published: per system of its QA task, the "
                            "badge the experiment page offers (`badge.svg?measure=macroF1"
                            "&system=NAME`; other measures by `measure`) and its snippets.",
                            "items": _object(
                                ("system", "url", "alt", "markdown", "html"),
                                system=_TEXT,
                                url=_URI,
                                alt={**_TEXT, "description": "The badge in words."},
                                markdown=_TEXT,
                                html=_TEXT,
                            ),
                        },
                        "notes": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "Once finished: about the run as a whole, e.g. a "
                            "system the error-rate rule stopped (no results for it; the others "
                            "are scored), a system's answers to question ids the dataset does "
                            "not have (how many, the first 10 ids; not scored), or a newer "
                            "published version of the uploaded dataset it ran on.",
                        },
                        "datasetFindings": {
                            "type": ["array", "null"],
                            "description": "Once finished, for an uploaded dataset: what the "
                            "dataset checks found in it (a gold query that does not parse, an "
                            "empty gold set, a question without text in one of its languages, "
                            "what its reader warned of…), before it is published too; null for "
                            "a catalogue dataset, whose page lists its findings, and while "
                            "the dataset's gold is withheld (a finding may quote it). Once "
                            "published they are the dataset page's (`gqa:finding`).",
                            "items": _object(
                                ("kind", "severity", "message", "question", "language"),
                                kind={
                                    **_TEXT,
                                    "description": "The finding's kind: gqa:finding-KIND, "
                                    "the dataset page's `?findings=KIND`.",
                                },
                                severity={"enum": list(get_args(Severity))},
                                message=_TEXT,
                                question={"type": ["string", "null"]},
                                language={"type": ["string", "null"]},
                            ),
                        },
                        "evaluations": {
                            "type": "array",
                            "description": "Once finished: one object per system, exactly as "
                            "`gerbil-qa evaluate --intervals --output json` prints it (dataset, "
                            "system, profile, profileVersion, signature, language, kb, results "
                            "per experiment type, per-question entries, warnings; intervals, "
                            "undefinedResamples and intervalSignature as stored with the "
                            "result); with `?questions=false`, without the per-question "
                            "entries (no `questions` key).",
                            "items": {
                                "type": "object",
                                "properties": {
                                    **_evaluation_properties(),
                                    "results": {
                                        "type": "object",
                                        "description": "Experiment type -> its measures.",
                                        "propertyNames": {
                                            "enum": registries.experiment_type_enum()
                                        },
                                        "additionalProperties": {
                                            "$ref": "#/components/schemas/Measures"
                                        },
                                    },
                                    "intervals": {
                                        "type": "object",
                                        "description": "Experiment type -> measure -> its 95 % "
                                        "bootstrap interval [low, high] (nulls: undefined, or "
                                        "undefined on too many resamples: undefinedResamples).",
                                        "propertyNames": {
                                            "enum": registries.experiment_type_enum()
                                        },
                                        "additionalProperties": {
                                            "type": "object",
                                            "additionalProperties": {
                                                "type": "array",
                                                "items": {"type": ["number", "null"]},
                                                "minItems": 2,
                                                "maxItems": 2,
                                            },
                                        },
                                    },
                                    "undefinedResamples": _undefined_resamples_schema(),
                                    "intervalSignature": {"type": "string"},
                                    "byLanguage": {
                                        "type": "object",
                                        "description": "A task pooled over languages "
                                        '(`language` "en,es"): each language\'s measures, '
                                        "language -> experiment type -> measures.",
                                        "additionalProperties": {
                                            "type": "object",
                                            "propertyNames": {
                                                "enum": registries.experiment_type_enum()
                                            },
                                            "additionalProperties": {
                                                "$ref": "#/components/schemas/Measures"
                                            },
                                        },
                                    },
                                    "questionsWithheld": _const(
                                        True,
                                        description="Its dataset's gold was withheld when "
                                        "it was scored (`about.gold`): it has no per-question "
                                        "entries (`questions` is empty) until re-scored once "
                                        "the gold is revealed.",
                                    ),
                                },
                            },
                        },
                        "results": {
                            "type": "array",
                            "deprecated": True,
                            "description": "Superseded by `evaluations` (kept for existing "
                            "clients): one task per item, system x dataset x experiment type "
                            "x language x profile, with every measure (null: undefined).",
                            "items": _task_result_schema(),
                        },
                    },
                },
            },
        },
        "paths": {
            "/api/compare": {
                "post": _op(
                    "Compare systems",
                    "`gerbil-qa compare` over HTTP: two or more answer files (a Submission whose "
                    "systems all have answers, at most GERBIL_QA_SYNC_PARSE_BYTES in total) "
                    "scored on one dataset and compared at once on QA, or stored tasks of one "
                    "experiment type (QA, C2KB, P2KB…) compared on that type "
                    '(CompareTasks: {"tasks": [URI, …]}, the task URIs of `results` or the '
                    "leaderboards; public, or the request carries their owner's token or a "
                    "revision's of them: as the bearer token, or, for the private runs of "
                    'several tokens, in `tokens` {"ID": "<token>", …}) read '
                    "back from the graph; nothing is stored. Options "
                    "(CompareOptions): `measure` (default macroF1), `test` (auto, ar, mcnemar, "
                    "bootstrap), `seed`, `resamples` (at most 10,000), `samples` (at most "
                    "100,000). Answers the "
                    "compare JSON: dataset, profile, signature, seed, resamples, test, "
                    "systems[{system, results, intervals, tier, undefinedResamples}] (results "
                    "and intervals under "
                    "the type compared: results.QA, results.C2KB…), pairs[{a, b, measure, "
                    "difference, pValue, pAdjusted}]; with `?format=latex` (or an Accept "
                    "preferring application/x-latex) the LaTeX tables `gerbil-qa compare "
                    "--output latex` prints.",
                    {
                        "200": {
                            **_json_response("The comparison", "Comparison"),
                            "content": {
                                **_json_response("", "Comparison")["content"],
                                conneg.LATEX.media_type: {"schema": {"type": "string"}},
                            },
                        },
                        # 404: a dataset of neither kind; 406: ?format= neither json nor
                        # latex; 415: a body neither JSON nor a form
                        **_errors(400, 403, 404, 406, 415),
                    },
                    requestBody=_compare_body(submission_body(options)),
                    parameters=[
                        {
                            "name": "format",
                            "in": "query",
                            "description": "`latex`: the comparison's LaTeX tables instead "
                            "of its JSON (errors stay JSON).",
                            "schema": {
                                "type": "string",
                                "enum": [conneg.JSON.key, conneg.LATEX.key],
                            },
                        }
                    ],
                ),
            },
            "/api/experiments": {
                "post": _op(
                    "Submit an experiment",
                    "Names, URLs (against the network policy), profile, language, types, KB "
                    "and sizes are checked before anything is reserved; uploads of at most a "
                    "few megabytes in total (GERBIL_QA_SYNC_PARSE_BYTES) are also read at "
                    "once, so a bad file gets 400 with the problems and their positions; "
                    "larger ones are read by the job (a bad file then ends it as `error` with "
                    "the same message). A file with more answers than the limits (rows of "
                    "an answer set: 100,000 per question, GERBIL_QA_MAX_ANSWERS_PER_QUESTION; "
                    "2,000,000 per file, GERBIL_QA_MAX_ANSWERS_PER_FILE) or more questions "
                    "(20,000 per file, GERBIL_QA_MAX_QUESTIONS_PER_FILE) is refused the same "
                    "way, the problem naming the file, the position, the question and the "
                    "limit. Answers 202 with the experiment URI (private) and the "
                    "owner token. As multipart/form-data: `dataset` (catalogue name) or file "
                    "`dataset_file` (`dataset_format` declares its format); files `answers` "
                    "(one per system; `answers_name` names them and `answers_format` declares "
                    "their formats, in order); `webservice` and `text2sparql` as `name=url`; "
                    "`reference` as `name=reference`; `gold` (catalogue name) or file "
                    "`gold_file` (gold answers from elsewhere); "
                    "`profile`, "
                    "`language`, `experiment_type` (repeatable), `kb`, `force`, `ranked`, "
                    "`revisionOf`. A resubmission (`revisionOf`) needs the replaced "
                    "experiment's owner token (403), a finished experiment, the newest published "
                    "revision of its line for each of its systems (409 naming the experiment "
                    "whose row of a system stands), on the same "
                    "dataset (400). A newer version (`about.previousVersion`) of an uploaded "
                    "dataset needs the owner token of an experiment that uploaded it with its "
                    "description (of a test set whose gold is withheld: withheld), 403 else; "
                    "the server's demo dataset has none (403).",
                    {
                        "202": {
                            "description": "Queued",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Ticket"}
                                }
                            },
                            "headers": {**_RETRY_AFTER, **_LOCATION},
                        },
                        # 404: an unknown catalogue dataset or replaced experiment; 415:
                        # a body neither JSON nor a form
                        **_errors(400, 403, 404, 409, 415),
                        "503": _QUEUE_FULL,
                        "507": _DISK_FULL,
                    },
                    requestBody=submission_body(),
                ),
                "get": _op(
                    "List published experiments",
                    "Newest first, a page at a time: `page` (from 1) and `size` (default 100, "
                    "at most 500); `next` is the URL of the following page (with the same "
                    "filters), or null. `system` and `dataset` (names, as in the URIs "
                    "`system/NAME`, `dataset/NAME`): only the experiments that used them, so "
                    "`?system=NAME&size=1` is a system's last published run. With the "
                    "operator's admin token: every experiment and status (no filters).",
                    {"200": _json_response("The list", "ExperimentList"), **_errors(400)},
                    parameters=[
                        *_PAGING,
                        {
                            "name": "system",
                            "in": "query",
                            "description": "Only experiments that used this system (its "
                            "name; empty: none). One: two names are a 400 naming the parameter.",
                            "schema": _TEXT,
                        },
                        {
                            "name": "dataset",
                            "in": "query",
                            "description": "Only experiments on this dataset (its name). "
                            "Empty: none. One: two names are a 400 naming the parameter.",
                            "schema": _TEXT,
                        },
                    ],
                ),
            },
            "/api/experiments/{id}": {
                "get": _op(
                    "Status and results of an experiment",
                    "Public experiments for everyone; private ones for their owner (403 else).",
                    {
                        "200": {
                            "description": "The experiment",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Experiment"}
                                }
                            },
                            "headers": {
                                **_RETRY_AFTER,
                                "ETag": {
                                    "description": "Of this answer: send it back in "
                                    "If-None-Match and a status that has not changed since is "
                                    "a 304 without a body.",
                                    "schema": _TEXT,
                                },
                            },
                        },
                        "304": {"description": "Not changed since the ETag sent (If-None-Match)"},
                        **_errors(403, 400, 404),
                    },
                    parameters=[
                        exp_id,
                        {
                            "name": "by",
                            "in": "query",
                            "required": False,
                            "description": "Also each evaluation's QA measures per value of "
                            "these features of the questions (`slices`), comma-separated: "
                            f"{', '.join(SLICE_DIMENSIONS)} or extra:KEY (empty: none).",
                            "schema": {
                                "type": "string",
                                "pattern": registries.slice_dimensions_pattern(),
                                "examples": [*SLICE_DIMENSIONS, "answertype,feature"],
                            },
                        },
                        {
                            "name": "questions",
                            "in": "query",
                            "required": False,
                            "description": "`false`: the evaluations without their "
                            "per-question entries, read without them (a poller's light answer: "
                            "milliseconds where a 20,000-question run's whole answer takes "
                            "half a minute). A finished experiment's whole answer has an ETag "
                            "made from this light one: sent back, it is a 304 as fast.",
                            "schema": {"type": "boolean", "default": True},
                        },
                    ],
                    security=[{}, {"ownerToken": []}],
                ),
                "delete": _op(
                    "Delete an unpublished experiment",
                    "Deletes a private experiment that is not queued or running: its results, "
                    "its owner token, its job, its archived answers and the kept files no other "
                    "experiment or dataset version uses. Its id is never given out again. A "
                    "published experiment is 409 (its URI is cited: re-score it into a corrected "
                    "revision instead), and so is one queued or running (cancel it first).",
                    {
                        "204": {"description": "Deleted"},
                        **_errors(400, 403, 404, 409),
                    },
                    parameters=[exp_id],
                    security=owner,
                ),
            },
            "/api/experiments/{id}/publish": {
                "post": _op(
                    "Publish an experiment",
                    "Moves a finished experiment into the public view atomically; publishing a "
                    "published one again answers the same (200). 409 for one not finished, "
                    "for one withdrawn since (it stays withdrawn), and for a revision whose "
                    "line another experiment published since ranks one of its systems in "
                    "(naming it: both rows would be ranked).",
                    {
                        "200": _json_response("Published", "Published"),
                        **_errors(403, 404, 409),
                        "507": _DISK_FULL,
                    },
                    parameters=[exp_id],
                    security=owner,
                )
            },
            "/api/experiments/{id}/withdraw": {
                "post": _op(
                    "Withdraw a published experiment",
                    "Takes a published experiment out of every leaderboard, listing and "
                    "comparison and out of the public SPARQL endpoint's default graph, in one "
                    "write; its URI keeps resolving (it may be cited), with its results and the "
                    "withdrawal's date and reason (`gqa:withdrawnAt`, `gqa:withdrawalReason`). "
                    'For good: a second withdrawal is 409. Body: {"reason": "…"} (required, at '
                    "most 2,000 characters). An unpublished experiment is 409: delete it instead.",
                    {
                        "200": _json_response("Withdrawn", "Withdrawn"),
                        **_errors(400, 403, 404, 409, 415),  # 415: a body neither JSON nor a form
                        "507": _DISK_FULL,
                    },
                    parameters=[exp_id],
                    security=owner,
                    requestBody=_json_request(
                        _object(("reason",), reason={"type": "string", "minLength": 1})
                    ),
                )
            },
            "/api/experiments/{id}/papers": {
                "post": _op(
                    "Attach a paper",
                    "Links a finished experiment to a paper (`dct:isReferencedBy` in its RDF; a "
                    "DOI becomes `https://doi.org/…`). Body: "
                    '{"doi": "10.3233/SW-180312"} or {"url": "https://…"}.',
                    {
                        "201": _json_response("Attached", "Paper"),
                        **_errors(400, 403, 404, 409, 415),  # 415: a body neither JSON nor a form
                        "507": _DISK_FULL,
                    },
                    parameters=[exp_id],
                    security=owner,
                    requestBody=_json_request(
                        {
                            "type": "object",
                            "oneOf": [{"required": ["doi"]}, {"required": ["url"]}],
                            "properties": {"doi": _TEXT, "url": _URI},
                            "additionalProperties": False,
                        }
                    ),
                )
            },
            "/api/experiments/{id}/cancel": {
                "post": _op(
                    "Cancel a queued or running experiment",
                    f"Stops asking questions (calls in flight get {HANG_UP_AFTER:g} s to "
                    "answer, then are hung up; a query on the KB ends before the next): the "
                    "experiment ends as cancelled within seconds. A resume asks the questions "
                    "not answered.",
                    {
                        "200": _json_response(
                            "Cancellation requested (cancelling true), or nothing to cancel: "
                            "the run had ended or was cancelled already (status says which)",
                            "Cancelled",
                        ),
                        **_errors(403, 404),
                    },
                    parameters=[exp_id],
                    security=owner,
                )
            },
            "/api/experiments/{id}/resume": {
                "post": _op(
                    "Resume an interrupted, cancelled or failed experiment",
                    "Queues it again; answers already obtained from web services are reused.",
                    {
                        "202": {
                            **_json_response("Queued again", "Resumed"),
                            "headers": _RETRY_AFTER,
                        },
                        **_errors(403, 404, 409),
                        "503": _QUEUE_FULL,
                        "507": _DISK_FULL,
                    },
                    parameters=[exp_id],
                    security=owner,
                )
            },
            "/api/experiments/{id}/rescore": {
                "post": _op(
                    "Re-score a finished experiment into a new revision",
                    "Runs its kept spec and files again (the profile's current version, or "
                    "`profile`) into a new private experiment that is prov:wasRevisionOf this "
                    "one; the old one is never changed. Answers 202 with the new experiment and "
                    "its own owner token; once finished, its status has `revisionOf` and, for "
                    "that token (or when the old one may be seen), `changes` (per system: the "
                    "signatures before and "
                    "after, the measures and questions that changed). 409 for one not "
                    "finished, or not the newest of its line for one of its systems (naming "
                    "the experiment to re-score instead).",
                    {
                        "202": {
                            **_json_response("Queued as a new experiment", "Ticket"),
                            "headers": {**_RETRY_AFTER, **_LOCATION},
                        },
                        **_errors(400, 403, 404, 409, 415),  # 415: a body neither JSON nor a form
                        "503": _QUEUE_FULL,
                        "507": _DISK_FULL,
                    },
                    parameters=[exp_id],
                    security=owner,
                    requestBody=_json_request(
                        _closed_object(
                            profile={
                                "type": "string",
                                "pattern": registries.profile_pattern(),
                                "examples": registries.profile_enum(),
                                "description": "Score under this profile instead (matched as "
                                "the Submission's `profile` is; empty: the experiment's own).",
                            },
                            datasetVersion={
                                "type": "string",
                                "description": "Score against this registered version of its "
                                "catalogue dataset (`dataset refresh`), or, for an uploaded "
                                "dataset, against its newer version: the name of a published "
                                "uploaded dataset whose `about.previousVersion` leads to it. "
                                "The revision ranks on that version's leaderboard only.",
                            },
                        ),
                        required=False,
                    ),
                )
            },
            "/api/datasets": {
                "get": _op(
                    "List the datasets a submission may name",
                    "The catalogue's, then the published uploaded datasets (`uploaded`): name, "
                    "title, size, languages.",
                    {"200": _json_response("The datasets", "DatasetList")},
                )
            },
            "/api/datasets/{name}/reveal": {
                "post": _op(
                    "Reveal a withheld gold",
                    "For a published uploaded dataset whose author withheld its gold "
                    "(`about.gold`: `withheld`, a shared task's test set): makes the gold public "
                    "(its questions' gold answers and queries in its graph, "
                    "`gqa:goldRevealed`), with its check findings and the files of its runs; "
                    "new runs on it have per-question results. Needs the owner token of the "
                    "experiment that uploaded it withheld (else 403); 409 when it withholds "
                    "nothing (revealed already, or never withheld).",
                    {
                        "200": _json_response("Revealed", "Revealed"),
                        **_errors(403, 404, 409),
                    },
                    parameters=[_UPLOADED_DATASET_NAME],
                    security=owner,
                )
            },
            "/api/datasets/{name}/runs": {
                "get": _op(
                    "List every run on a withheld test set",
                    "For the organiser of a published uploaded dataset whose gold is withheld "
                    "(the owner token of the experiment that uploaded it withheld) or the "
                    "operator: every recorded run on it, private ones too (id, time, status, "
                    "whether published, systems; no results), so that the organiser sees how "
                    "often each team was scored on the hidden gold. 403 for anyone else; 404 "
                    "when it withholds nothing.",
                    {
                        "200": _json_response("The runs", "WithheldRuns"),
                        **_errors(403, 404),
                    },
                    parameters=[_UPLOADED_DATASET_NAME],
                    security=owner,
                )
            },
            "/api/systems": {
                "get": _op(
                    "List systems with public results",
                    "With their URIs.",
                    {"200": _json_response("The systems", "SystemList")},
                )
            },
            "/api/leaderboards": {
                "get": _op(
                    "List frozen leaderboards",
                    "Newest first, a page at a time: `page` (from 1) and `size` (default 100, "
                    "at most 500); `next` is the URL of the following page, or null.",
                    {
                        "200": _json_response("The frozen leaderboards", "FrozenLeaderboardList"),
                        **_errors(400),
                    },
                    parameters=list(_PAGING),
                ),
                "post": _op(
                    "Freeze a leaderboard",
                    "Keeps the leaderboard these filters show (as `GET /leaderboards` takes "
                    "them; its first 500 rows) as it stands now, under a URI of its own that a "
                    "paper or a challenge cites: later publications and withdrawals do not "
                    "change it. Anyone may freeze; the id is a hash of the filters and rows, so "
                    "the same standings frozen again answer 200 with the first freeze (its "
                    "title too; `alreadyFrozen` says so when another title was given). 400 "
                    "for a bad filter or a leaderboard without rows; 409 "
                    "while another replica freezes the same standings (try again).",
                    {
                        "201": {
                            **_json_response("Frozen now", "FrozenLeaderboard"),
                            "headers": _LOCATION,
                        },
                        "200": {
                            **_json_response("Frozen before", "FrozenLeaderboard"),
                            "headers": _LOCATION,
                        },
                        **_errors(400, 409, 415),  # 415: a body that is not JSON
                    },
                    requestBody=_json_request(
                        _closed_object(
                            (),
                            dataset={
                                "type": "string",
                                "description": "A dataset's name, or `all` (default: the "
                                "dataset with the most results)",
                            },
                            language={"type": "string", "description": "An ISO 639 code"},
                            profile={"enum": registries.profile_enum()},
                            type={"enum": registries.experiment_type_enum()},
                            sort={
                                "type": "string",
                                "description": "The measure to rank by (default macroF1)",
                            },
                            title={"type": "string", "maxLength": TITLE_LENGTH},
                        )
                    ),
                ),
            },
            "/api/leaderboards/{id}": {
                "get": _op(
                    "A frozen leaderboard",
                    "Its filters and rows as frozen, each row with its system, experiment "
                    "and, when that experiment was withdrawn since, when.",
                    {
                        "200": _json_response("The frozen leaderboard", "FrozenLeaderboard"),
                        **_errors(404, 410),  # 410: the operator removed it (the error says when)
                    },
                    parameters=[{"name": "id", "in": "path", "required": True, "schema": _TEXT}],
                ),
                "delete": _op(
                    "Remove a frozen leaderboard (the operator)",
                    "With the operator's admin token (`Authorization: Bearer`, the server's "
                    "GERBIL_QA_ADMIN_TOKEN), as `gerbil-qa leaderboard remove`: its graph and "
                    "URI go (410 Gone after, saying when; freezing the same standings anew "
                    "brings the URI back). For spam and offensive titles: anyone may freeze, "
                    "and the first title of a state is kept.",
                    {
                        "200": {
                            "description": "Removed",
                            "content": {
                                "application/json": {
                                    "schema": _object(
                                        ("id", "uri", "removed"),
                                        id=_TEXT,
                                        uri=_URI,
                                        removed=_const(True),
                                    )
                                }
                            },
                        },
                        **_errors(403, 404, 409),
                    },
                    parameters=[{"name": "id", "in": "path", "required": True, "schema": _TEXT}],
                    security=owner,
                ),
            },
            "/api/profiles": {
                "get": _op(
                    "List scorer profiles and knowledge bases",
                    "Each profile with version, IRI and signature.",
                    {"200": _json_response("The profiles", "ProfileList")},
                )
            },
        },
    }
    return with_operation_ids(document)
