"""The demo: a published experiment the service computes from ``datasets/demo/`` at first start.

``datasets/demo/`` holds 14 questions about the Solar System (QALD-JSON, written for this
project, gold answers computed from the demo KB by their SPARQL queries), three answer files of
different quality (``strong`` answers partly with DBpedia IRIs, labels and ``"2.0"`` so that the
``fair`` and ``gerbil`` profiles show their matching; ``partial``; ``baseline``), and the demo KB
(Turtle, with ``owl:sameAs`` links to DBpedia and labels). Nothing here needs the internet or
``../shared``: ``make run`` works on a fresh machine.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from typing import TYPE_CHECKING

from service.errors import BadRequest
from service.paths import DEMO_DIR

if TYPE_CHECKING:
    from service.graph.experiments import ExperimentStatus
    from service.graph.store import Storage
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


@functools.cache
def demo_label() -> str:
    """The label the demo's questions are recorded under (their file's dataset id), which a
    finished demo run's citation names; a running one's summary says "demo" (what was asked)."""
    return str(json.loads(DEMO_QUESTIONS.read_bytes())["dataset"]["id"])


DEMO_CLAIM = "urn:gerbil-qa:demo"  # what a replica claims to compute it (service.graph.claims)


@functools.cache
def demo_sha256() -> str:
    """The demo questions file's SHA-256: a run on those bytes runs on the demo."""
    return hashlib.sha256(DEMO_QUESTIONS.read_bytes()).hexdigest()


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


def private_kb_of(config: WebConfig, sha256: str) -> str | None:
    """The name of the operator's KB (``GERBIL_QA_KBS``, not in ``GERBIL_QA_PUBLIC_KBS``)
    one of whose local files has the SHA-256 ``sha256``, if any: its file is not served."""
    public = {n.strip() for n in config.public_kbs.split(",") if n.strip()}
    for name, specs in configured_kbs(config).items():
        if name == "demo" or name in public:
            continue
        for spec in specs:
            if not spec.startswith(("http://", "https://")) and _file_sha256(spec) == sha256:
                return name
    return None


def _file_sha256(path: str) -> str | None:
    """A local file's SHA-256 (cached while its size and time stay), None if it is none."""
    import os

    try:
        st = os.stat(path)
    except OSError:
        return None
    return _sha256_of(path, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _sha256_of(path: str, _size: int, _mtime: int) -> str | None:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def ensure_demo(state: Services) -> str | None:
    """Compute, record and publish the demo experiment unless the store has it; its id (None:
    another replica is computing it)."""
    found = _demo_id(state)
    if found is not None:
        return found
    # replicas started together on a new remote store each computed one (two demos)
    claims = state.runner.claims
    if not claims.claim(DEMO_CLAIM):
        log.info("the demo experiment is computed by another replica")
        return None
    try:
        return _demo_id(state) or _compute_demo(state)
    finally:
        claims.release(DEMO_CLAIM)


def _demo_id(state: Services) -> str | None:
    for status in state.storage.experiments.listing(include_private=True):
        if is_demo(status) and status.public:
            return status.id
    return None


def is_demo(status: ExperimentStatus) -> bool:
    """Whether an experiment is the demo ``serve`` computed (its job summary says so: a
    system named like the marker is no demo)."""
    try:
        summary = json.loads(status.job or "")
    except ValueError:
        return False
    return isinstance(summary, dict) and summary.get("demo") == DEMO_MARKER


def demo_ids(storage: Storage) -> set[str]:
    """The store's demo experiments (``import`` replaces them in a store that holds nothing
    else: a deployment started before its restore, :func:`service.graph.dumps.import_dump`)."""
    return {s.id for s in storage.experiments.listing(include_private=True) if is_demo(s)}


def _compute_demo(state: Services) -> str:
    from service.experiments.spec import (
        ExperimentSpec,
        FileDataset,
        FileRef,
        KBSpec,
        RunOptions,
    )
    from service.experiments.systems import AnswerFile

    spec = ExperimentSpec(
        dataset=FileDataset(FileRef.local(DEMO_QUESTIONS)),
        systems=tuple(
            AnswerFile(name, FileRef.local(path), label=name) for name, path in DEMO_SYSTEMS
        ),
        profile="fair",
        languages=("en",),
        kb=KBSpec((str(DEMO_KB),), name="demo"),
        options=RunOptions(publish=True),
    )
    # what was asked, as any run's (the operator's listing read no systems from the marker)
    summary = json.dumps({**json.loads(spec.summary()), "demo": DEMO_MARKER, "dataset": "demo"})
    ticket = state.runner.run_now(spec, summary=summary)
    state.changed()
    log.info("demo experiment %s computed and published", ticket.id)
    return ticket.id
