"""The demo: a published experiment the service computes from ``datasets/demo/`` at first start.

``datasets/demo/`` holds 14 questions about the Solar System (QALD-JSON, written for this
project, gold answers computed from the demo KB by their SPARQL queries), three answer files of
different quality (``strong`` answers partly with DBpedia IRIs, labels and ``"2.0"`` so that the
``fair`` and ``gerbil`` profiles show their matching; ``partial``; ``baseline``), and the demo KB
(Turtle, with ``owl:sameAs`` links to DBpedia and labels). Nothing here needs the internet or
``../shared``: ``make run`` works on a fresh machine.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from typing import TYPE_CHECKING

from service.errors import BadRequest
from service.paths import DEMO_DIR

if TYPE_CHECKING:
    from service.web.config import WebConfig
    from service.web.state import Services

log = logging.getLogger(__name__)

DEMO_KB = DEMO_DIR / "kb.ttl"
DEMO_QUESTIONS = DEMO_DIR / "questions.json"
DEMO_SYSTEMS = (
    ("demo-strong", DEMO_DIR / "answers-strong.json"),
    ("demo-partial", DEMO_DIR / "answers-partial.json"),
    ("demo-baseline", DEMO_DIR / "answers-baseline.json"),
)
DEMO_MARKER = "gerbil-qa-demo"


def configured_kbs(config: WebConfig) -> dict[str, tuple[str, ...]]:
    """Knowledge bases a submission may name (``GERBIL_QA_KBS``), plus ``demo``."""
    kbs: dict[str, tuple[str, ...]] = {"demo": (str(DEMO_KB),)}
    for item in config.kbs.split(";"):
        if not item.strip():
            continue
        name, sep, specs = item.partition("=")
        if not sep or not name.strip() or not specs.strip():
            raise BadRequest(f"GERBIL_QA_KBS: expected name=spec[,spec…], got {item!r}")
        kbs[name.strip()] = tuple(s.strip() for s in specs.split(",") if s.strip())
    return kbs


def ensure_demo(state: Services) -> str:
    """Compute, record and publish the demo experiment unless the store has it; its id."""
    from service import formats
    from service.web.runner import ExperimentJob, SystemSpec

    experiments = state.storage.experiments
    for status in experiments.listing(include_private=True):
        if status.job and DEMO_MARKER in status.job and status.public:
            return status.id
    dataset = formats.read(DEMO_QUESTIONS)
    systems = []
    uploads = [_upload(DEMO_QUESTIONS.name, DEMO_QUESTIONS.read_bytes(), "dataset", None)]
    for name, path in DEMO_SYSTEMS:
        systems.append(SystemSpec(name, answers=formats.read(path), label=name))
        uploads.append(_upload(path.name, path.read_bytes(), "answers", name))
    summary = json.dumps({"demo": DEMO_MARKER, "dataset": "demo", "profile": "fair"})
    ticket = experiments.reserve(summary=summary)
    job = ExperimentJob(
        experiment_id=ticket.id,
        experiment_uri=ticket.uri,
        dataset=dataset,
        dataset_name=DEMO_MARKER,
        systems=tuple(systems),
        profile="fair",
        language="en",
        catalogued=False,
        dataset_sha256=hashlib.sha256(DEMO_QUESTIONS.read_bytes()).hexdigest(),
        kb=(str(DEMO_KB),),
        uploads=tuple(uploads),
        publish=True,
    )
    state.runner.execute(job, threading.Event())
    state.changed()
    log.info("demo experiment %s computed and published", ticket.id)
    return ticket.id


def _upload(name: str, data: bytes, role: str, system: str | None) -> object:
    from service.web.runner import Upload

    return Upload(
        name, hashlib.sha256(data).hexdigest(), len(data), role, system, "application/json"
    )
