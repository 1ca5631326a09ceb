"""How a run calls the web services it asks: what a submission may set (timeout, retries,
concurrency), with bounds, defaults, the run page's labels and the API's descriptions.

The registry the API's and run page's fields, their checks, the OpenAPI schema, the vocabulary
(``gqa:callTimeout`` …) and the shapes come from (``service.contracts``); a run's
``RunOptions`` takes its defaults from here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

GQA = "http://w3id.org/gerbil/qa/vocab#"
XSD = "http://www.w3.org/2001/XMLSchema#"


@dataclass(frozen=True, slots=True)
class CallSetting:
    """One setting (a ``RunOptions`` field, by its name): its type, bounds, default, the run
    page's label and the API's description."""

    name: str
    kind: type
    least: float
    most: float
    default: float
    label: str
    description: str
    attribute: str = ""  # the RunOptions field, where it is not ``name`` (a camelCase name)

    @property
    def field(self) -> str:
        """The ``RunOptions`` field that holds it."""
        return self.attribute or self.name

    @property
    def iri(self) -> str:
        """The property an experiment that asked web services records it with."""
        return GQA + "call" + self.name[0].upper() + self.name[1:]

    @property
    def datatype(self) -> str:
        return XSD + ("integer" if self.kind is int else "decimal")


CALL_SETTINGS: tuple[CallSetting, ...] = (
    CallSetting(
        "timeout",
        float,
        1,
        600,  # a large model may take minutes a question
        60.0,
        "seconds per call",
        "Seconds per call to a web service (a question, retries and waits included, takes at "
        "most timeout × (retries + 1)).",
    ),
    CallSetting(
        "retries",
        int,
        0,
        5,
        2,
        "retries of a failed call",
        "Retries of a call's transient failures (connection errors, 5xx, 429).",
    ),
    CallSetting(
        "concurrency",
        int,
        1,
        8,  # 1 for a service that answers one call at a time
        4,
        "calls at once",
        "Calls in flight at once, per web service.",
    ),
    CallSetting(
        "maxErrorRate",
        float,
        0,
        1,
        0.25,  # GERBIL's error-rate rule
        "share of failed questions that stops a service",
        "The share of its questions a web service may fail before it is stopped and left "
        "out of the experiment (GERBIL's error-rate rule: 0.25, also of the first 20 calls "
        "or more). 1: never stopped, every question asked and each failure scored 0, as "
        "TEXT2SPARQL'25 scored a slow or failing service: the default of a Text2SPARQL run "
        "(a Text2SPARQL service asked, or the text2sparql profile).",
        attribute="max_error_rate",
    ),
)

CALLED = {setting.name: setting for setting in CALL_SETTINGS}

# A Text2SPARQL run (a Text2SPARQL service asked, or the text2sparql profile) asks every
# question unless told otherwise: TEXT2SPARQL'25 asked them all and scored each failure 0,
# where GERBIL's rule (0.25) would stop the service and score the questions never asked 0.
TEXT2SPARQL_MAX_ERROR_RATE = 1.0


def text2sparql_run(profile: str, systems: Iterable[object]) -> bool:
    """Whether a run is a Text2SPARQL one: under the ``text2sparql`` profile, or asking a
    Text2SPARQL service (a system whose ``interface`` is ``text2sparql``)."""
    if profile == "text2sparql":
        return True
    return any(getattr(s, "interface", None) == "text2sparql" for s in systems)
