"""Answers that are queries: run each system query on the experiment's pinned KB.

A TEXT2SPARQL answers file (``text2sparql-answers``) and a Text2SPARQL service give a SPARQL
query per question and no answers: the answers are what the query returns on the dataset's
knowledge graph. The KB is the experiment's (``--kb``: RDF files or one endpoint), else the
catalogue dataset's own (its KB files, else its SPARQL endpoint). Each query runs through
:class:`~service.kb.executor.SparqlExecutor` (the dataset's prefix environment, the lenient
dialect rewritten to standard SPARQL, a time and result-size limit); a query that gives no
answers keeps its reason (empty, prose, parse error, engine error, timeout…) as the question's
error, and the question is scored as an empty answer.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from service.errors import BadRequest

if TYPE_CHECKING:
    from threading import Event

    from service.experiments.spec import ExperimentSpec
    from service.model import Dataset, SystemRun


def kb_sources(spec: ExperimentSpec) -> tuple[tuple[str, ...], str | None]:
    """The KB the system queries run on, and its version (the spec's, else the catalogue's)."""
    if spec.kb is not None:
        return spec.kb.sources, spec.kb.version or _catalogue_label(spec, spec.kb.sources)
    if (name := catalogue_name(spec)) is not None:
        from service import catalog

        entry = catalog.get_entry(name)
        files = catalog.kb_files(entry.name)
        if files:
            return tuple(str(f) for f in files), entry.knowledge_base_version
        if entry.sparql_endpoint:
            return (entry.sparql_endpoint,), live_endpoint_label(entry.knowledge_base_version)
    raise BadRequest(
        "the system gives SPARQL queries, whose answers come from the knowledge base: give the "
        "KB (--kb FILE, repeatable, or a SPARQL endpoint URL; the API's kb)"
    )


def live_endpoint_label(dump: str | None) -> str:
    """The version label of a catalogue dataset's KB when it is the remote endpoint it names
    (DB25's https://dbpedia.org/sparql): today's data there, not the dump the gold was made
    on, whose label it must not carry (a DB25 run on the live endpoint was recorded, and its
    signature's kb labelled, "DBpedia 2015-10 (the TEXT2SPARQL'25 dump)": explore41 F3)."""
    return f"live endpoint: today's data, not {dump or 'the dump the gold was made on'}"


def _catalogue_label(spec: ExperimentSpec, sources: tuple[str, ...]) -> str | None:
    """The catalogue's version label of the dataset's own KB when ``sources`` are its very
    files (by checksum): the same bytes are one KB whoever names them. Given with ``--kb``
    they were labelled by the ``owl:versionInfo`` inside them ("v0.0.1-37-g15bd45c-dirty" for
    CK25's), and runs on byte-identical files could not be compared or tiered (explore25 10)."""
    from pathlib import Path

    from service import catalog
    from service.errors import ServiceError
    from service.kb.local import digests_identity, files_identity

    name = catalogue_name(spec)
    if name is None or any(s.startswith(("http://", "https://")) for s in sources):
        return None
    try:
        entry = catalog.get_entry(name)
    except ServiceError:
        return None
    own = entry.kb_distributions
    paths = [Path(s) for s in sources]
    if not own or len(own) != len(paths) or not all(p.is_file() for p in paths):
        return None  # not these files (a missing one is refused where the KB is read)
    same = files_identity(paths) == digests_identity(d.sha256 for d in own)
    return entry.knowledge_base_version if same else None


def no_query_kb(spec: ExperimentSpec) -> str:
    """Why ``spec``'s SPARQL answers have no KB to run on (:func:`has_query_kb` is False), in
    words for the run page, the API and the command line alike: a QALD-9 user read that the
    dataset had "none of its own" KB, and a run-page user about the API's field (explore27 F12)."""
    from service import catalog
    from service.errors import ServiceError

    why = "an uploaded dataset file brings no knowledge base"
    if (name := catalogue_name(spec)) is not None:
        try:
            label = catalog.get_entry(name).knowledge_base_version
        except ServiceError:
            label = None
        why = f"its knowledge base ({label or 'unnamed'}) is not held by this service"
    return (
        f"a Text2SPARQL service gives SPARQL queries, whose answers come from the knowledge "
        f"base, and {why}: give it (Knowledge base on the run page, kb in the API: RDF files "
        "or a SPARQL endpoint URL; --kb on the command line)"
    )


def has_query_kb(spec: ExperimentSpec) -> bool:
    """Whether :func:`kb_sources` names a KB for ``spec`` (given, or the dataset's own), told
    from the catalogue's description: nothing is read or downloaded."""
    if spec.kb is not None:
        return True
    if (name := catalogue_name(spec)) is None:
        return False
    from service import catalog
    from service.errors import ServiceError

    try:
        entry = catalog.get_entry(name)
    except ServiceError:  # not in the catalogue: refused where the dataset is read
        return False
    return bool(entry.kb_distributions or entry.sparql_endpoint)


def catalogue_name(spec: ExperimentSpec) -> str | None:
    """The catalogue dataset the spec's dataset is, or a registered version of (read from its
    kept file: before, its queries found no KB, and a TEXT2SPARQL run on a refreshed gold
    failed asking for one)."""
    from service.experiments.spec import CatalogueDataset, FileDataset

    if isinstance(spec.dataset, CatalogueDataset):
        return spec.dataset.name
    if isinstance(spec.dataset, FileDataset) and spec.dataset.version_of is not None:
        return spec.dataset.version_of.name
    return None


def probe_kb(spec: ExperimentSpec) -> None:
    """Before Text2SPARQL services are asked: a KB that is a SPARQL endpoint answers one
    trivial query, or :class:`~service.kb.remote.RemoteKBError` stops the run here, not after
    every question was asked (with a large model, minutes of calls whose queries could not be
    run). A slow or failing answer passes: only an endpoint that cannot be reached stops it."""
    from service.kb.executor import ExecutionLimits, SparqlExecutor

    sources, version = kb_sources(spec)
    if not sources[0].startswith(("http://", "https://")):
        return  # files: read by the run itself
    limits = ExecutionLimits(timeout=PROBE_TIMEOUT)
    with SparqlExecutor(list(sources), limits=limits, version=version) as executor:
        executor.run("ASK {}")


PROBE_TIMEOUT = 30.0  # seconds: an endpoint that is up answers ASK {} at once


def answer_queries(
    run: SystemRun,
    dataset: Dataset,
    sources: tuple[str, ...],
    *,
    version: str | None,
    stop: Event | None = None,
) -> tuple[SystemRun, str | None]:
    """``run`` with each answer's query run on the KB (answers already failed are kept), and
    the KB as :func:`service.kb.describe` names it (its files' checksum or its URL, and
    version). ``stop`` set (a cancel) ends it before the next query (:class:`Cancelled`): a
    system's queries on a large KB can take minutes; the queries are kept, a resume runs them."""
    from service.experiments.systems import Cancelled
    from service.formats.text2sparql import prefix_environment
    from service.kb import describe
    from service.kb.executor import SparqlExecutor

    todo = [a for a in run.answers.values() if a.error is None]
    answers = dict(run.answers)
    with SparqlExecutor(
        list(sources), prefixes=prefix_environment(dataset), version=version
    ) as executor:
        for done, answer in enumerate(todo):
            if stop is not None and stop.is_set():
                raise Cancelled(
                    f"cancelled while running {run.system}'s queries on the KB ({done} of "
                    f"{len(todo)} run); resume to continue"
                )
            result = executor.run(answer.sparql)
            error = (
                None if result.failure is None else f"the query gave no answers: {result.failure}"
            )
            answers[answer.question_id] = replace(
                answer, answers=result.answers, error=error, rewrites=result.rewrites
            )
        kb = describe(executor)
    return replace(run, answers=answers), kb
