"""Every minted URI dereferences (blueprint ``resources``), by content negotiation.

``experiment/{id}`` (and GERBIL's ``experiment?id={id}``, redirected), its tasks
``experiment/{id}/task/{n}`` and per-question results, ``dataset/{name}`` with its versions and
questions, ``system/{name}``, ``software/{version}``, ``catalog`` and ``vocab`` (hash terms), and
``dump`` (every public graph). HTML, Turtle, JSON-LD, N-Triples, RDF/XML, N-Quads and TriG come
from the same quads (``describe.py``); experiments, tasks, systems and the catalogue also offer
CSV tables. Public resources are read from the public store only; an unpublished experiment is
shown to its owner (``access.py``) and is ``403 not public yet`` for everyone else.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, g, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from service import mediatypes
from service.errors import Forbidden, NotFound
from service.graph import dcat, leaderboards
from service.graph.reader import Node, index
from service.graph.results import WITHHELD_NOTE
from service.graph.terms import DCAT, DCT, FOAF, PROV, RDF, RDFS
from service.graph.uris import EXPERIMENT_ID, GQA
from service.web import badges, catalog_pages, charts, conneg, figures, listings, pages
from service.web import changes as web_changes
from service.web.access import (
    is_owner,
    not_public_yet,
    require_experiment,
    token_redirect,
    token_refused,
)
from service.web.cache import PUBLIC_CACHE
from service.web.citation import (
    Citation,
    RevisionWords,
    citation_for,
    experiment_subject,
    scoring_note,
)
from service.web.describe import (
    ELSEWHERE_EXPERIMENT,
    FOLLOW_CATALOG,
    FOLLOW_DATASET,
    FOLLOW_EXPERIMENT,
    FOLLOW_TASK,
    LINKS_DATASET,
    PAGE_SKIP_EXPERIMENT,
    REVERSE_TASK,
    document_quads,
)
from service.web.query_pool import DocumentJob, PoolBusy, QueryJob, QueryPool
from service.web.rdf_out import CONTEXT_PATH, serialize
from service.web.state import services

bp = Blueprint("resources", __name__)

PRIVATE_CACHE = "private, no-store"


def respond(
    uri: str,
    offered: Sequence[conneg.Representation],
    rep: conneg.Representation,
    *,
    quads: Callable[[], Sequence[Any]],
    html: Callable[[], str],
    csv: Callable[[], bytes] | None = None,
    bibtex: Callable[[], bytes] | None = None,
    private: bool = False,
    variant: object = None,
    in_worker: DocumentJob | None = None,
    links: Sequence[str] = (),
    query: str = "",
) -> BaseResponse:
    """The negotiated response for ``uri``: HTML, an RDF syntax or CSV, with the headers.

    Public documents are served from the page cache when they were rendered before (see
    ``cache.py``); private ones are rendered for each request and never stored. ``variant``
    tells apart renderings of one representation (the page of a paged HTML table).
    ``in_worker`` describes a public document (its ``syntax`` is filled in here) for the query
    workers to write; without a free worker, or when the snapshot lacks it (published a moment
    ago), it is written here from ``quads``. ``links``: more ``Link`` header values (a page's
    neighbours); ``query``: what follows the format URLs of ``Link: rel="alternate"`` and
    ``Content-Location`` (a page's ``?page=N``).
    """
    cache = services().cache
    # read before the document: a public write while it is rendered moves it past this one
    modified = None if private else services().last_modified()
    key = (uri, rep.key, variant)
    rendered = None if private else cache.get(key)
    if rendered is None:
        # the page's <link rel="canonical"> (base.html): one for every view of the resource, so
        # a page cached per view holds the same one
        g.canonical_uri = uri + query
        try:
            rendered = cache.rendered(
                *_render(
                    uri, rep, quads=quads, html=html, csv=csv, bibtex=bibtex, in_worker=in_worker
                )
            )
        finally:  # an error page rendered after this is no view of the resource
            g.pop("canonical_uri", None)
        if not private:
            cache.put(key, rendered)
    response = Response(rendered.body, content_type=rendered.content_type)
    if rep is conneg.CSV:
        response.headers["Content-Disposition"] = f'inline; filename="{pages.local(uri)}.csv"'
    if rep is conneg.BIBTEX:  # a download: browsers save it for the reference manager
        response.headers["Content-Disposition"] = f'attachment; filename="{pages.local(uri)}.bib"'
    response.headers["Cache-Control"] = PRIVATE_CACHE if private else PUBLIC_CACHE
    if private:  # the owner's: anyone else is refused at this URL
        response.vary.add("Cookie")
    response.set_etag(rendered.etag)
    if modified is not None:  # If-Modified-Since: a 304 at or after it (an ETag sent wins)
        response.last_modified = modified
    if links:
        response.headers["Link"] = ", ".join(links)
    conneg.decorate(response, url=uri, offered=offered, chosen=rep, query=query)
    return response.make_conditional(request)


def _render(
    uri: str,
    rep: conneg.Representation,
    *,
    quads: Callable[[], Sequence[Any]],
    html: Callable[[], str],
    csv: Callable[[], bytes] | None,
    bibtex: Callable[[], bytes] | None = None,
    in_worker: DocumentJob | None = None,
) -> tuple[bytes, str]:
    if rep is conneg.HTML:
        return html().encode("utf-8"), "text/html; charset=utf-8"
    if rep is conneg.BIBTEX:
        if bibtex is None:  # pragma: no cover - BibTeX is offered only with a citation
            raise NotFound("no BibTeX for this resource")
        return bibtex(), f"{rep.media_type}; charset=utf-8"
    if rep is conneg.CSV:
        if csv is None:  # pragma: no cover - CSV is offered only with a table
            raise NotFound("no CSV table for this resource")
        return csv(), "text/csv; charset=utf-8"
    if rep.rdf is None:  # pragma: no cover - every other offer is an RDF syntax
        raise NotFound(f"no representation {rep.key}")
    context = services().config.base + CONTEXT_PATH
    body = None
    if in_worker is not None:
        body = _written_by_a_worker(replace(in_worker, syntax=rep.rdf.name, context_url=context))
    if body is None:
        body = serialize(quads(), rep.rdf, context_url=context)
    return body, f"{rep.media_type}; charset=utf-8"


WORKER_WAIT = 0.05  # seconds a document waits for a free query worker before being written here


def _written_by_a_worker(job: DocumentJob) -> bytes | None:
    """The document written by a query worker, or None to write it here."""
    try:
        outcome = services().pool.run(job, wait=WORKER_WAIT)
    except PoolBusy:
        return None
    return outcome.body if outcome.kind == "document" else None


def _read_by_a_worker(job: DocumentJob) -> list[Any] | None:
    """The quads of a public document read by a query worker (the page then builds from them
    in this process), or None to read them here. Reading is most of a large page's time and
    holds the GIL for each quad; in the workers, pages on two cores run side by side. On a
    remote store the queries run in this process anyway: read here."""
    import pyoxigraph as ox

    if not isinstance(services().pool, QueryPool):
        return None
    body = _written_by_a_worker(replace(job, syntax=mediatypes.N_QUADS.name, raw=True))
    if body is None:
        return None
    return list(ox.parse(body, format=ox.RdfFormat.N_QUADS))


def alternates(uri: str, offered: Sequence[conneg.Representation]) -> list[dict[str, str]]:
    return [
        {"media_type": r.media_type, "href": f"{uri}.{r.extension}", "label": r.label}
        for r in offered
        if r is not conneg.HTML and r.extension
    ]


# what the owner's page says of a run that stopped before any result: it has none to publish,
# and none is coming ("No results yet" said they were)
ENDED_WITHOUT_RESULTS = {"error": "it ended in error", "cancelled": "it was cancelled"}


def not_public(experiment_id: str, uri: str, rep: conneg.Representation) -> BaseResponse:
    said = not_public_yet(experiment_id)  # a wrong token sent is said to be wrong
    message = (
        f"{said[0].upper()}{said[1:]}. Its URI {uri} is reserved and will show the results "
        "once its owner publishes them."
    )
    if rep is conneg.HTML:
        page = render_template(
            "not_public.html", experiment_id=experiment_id, uri=uri, wrong_token="token" in said
        )
        response = Response(page, status=403, content_type="text/html; charset=utf-8")
    else:
        response = Response(message + "\n", status=403, content_type="text/plain; charset=utf-8")
    response.headers["Cache-Control"] = "no-store"
    response.vary.add("Accept")
    return response


# --- experiments -----------------------------------------------------------------------------

EXPERIMENT_OFFERS = conneg.offers(quads=True, csv=True, bibtex=True)
TASK_OFFERS = conneg.offers(quads=True, csv=True)
PLAIN_OFFERS = conneg.offers(quads=True)


@bp.get("/experiment")
def gerbil_experiment() -> BaseResponse:
    """GERBIL's ``experiment?id={id}`` form: a permanent redirect to ``experiment/{id}``, the
    rest of the query kept (``&format=ttl``, the page's ``a``/``b``), as the trailing-slash
    redirect keeps it; ``format`` was dropped (explore45 9)."""
    experiment_id = request.args.get("id")
    if not experiment_id:
        return redirect(url_for("ui.experiments"), code=302)
    if not EXPERIMENT_ID.match(experiment_id):
        raise NotFound(f"no experiment {experiment_id}: ids are yyyyMMdd and a 4-digit counter")
    target = services().storage.uris.experiment(experiment_id)
    rest = [(key, value) for key, value in request.args.items(multi=True) if key != "id"]
    return redirect(f"{target}?{urlencode(rest)}" if rest else target, code=301)


def _withdrawal(experiment_id: str) -> tuple[str, str] | None:
    """(when, why) a published experiment was withdrawn, for the pages of its parts: a frozen
    leaderboard cites a task, whose page never said its experiment was withdrawn (explore29
    14); its RDF stays as published, the experiment's document holds the note."""
    status = services().storage.experiments.status(experiment_id)
    if status.withdrawn_at is None:
        return None
    return status.withdrawn_at, status.withdrawal_reason or ""


def _experiment_store(experiment_id: str, rep: conneg.Representation):
    """(status or None, store holding its graph or None for a non-owner, private?).

    A published experiment is recognised by its graph in the public store (a cheap lookup);
    only unpublished ones need the admin record (404 for an id never minted).
    """
    graph = services().storage
    if not EXPERIMENT_ID.match(experiment_id):
        raise NotFound(f"no experiment {experiment_id}: ids are yyyyMMdd and a 4-digit counter")
    if graph.experiments.is_public(experiment_id):
        return None, graph.public, False
    status = require_experiment(experiment_id)
    if status.public:  # published between the two lookups
        return status, graph.public, False
    if not is_owner(experiment_id):
        return status, None, True
    return status, graph.private, True


@bp.get("/experiment/<experiment_id>/file/<sha256>")
def experiment_file(experiment_id: str, sha256: str) -> BaseResponse:
    """A file the experiment used (dataset, answers, gold; uploaded or archived), to whoever
    may see the experiment, as an attachment named as it was uploaded."""
    from service.experiments.kept import kept

    _status, store, private = _experiment_store(experiment_id, conneg.HTML)
    if store is None:
        raise Forbidden(not_public_yet(experiment_id))
    storage = services().storage
    sha = sha256.lower()
    graph = storage.uris.experiment_graph(experiment_id)
    withheld = storage.catalogue.withheld_of_experiment(store, experiment_id)
    if withheld is not None and not _questions_file(store, graph, sha):
        # the dataset's file is its gold, and a strong team's answers nearly are
        raise Forbidden(
            f"the files of experiment {experiment_id} are withheld: the gold of its dataset "
            f"{withheld} is, until the owner of the run that uploaded it withheld reveals it "
            "(its questions are on its page; an expected.tsv's in.tsv is served)"
        )
    same = storage.catalogue.withheld_test_set(sha) if EXPERIMENT_FILE.match(sha) else None
    if same is not None:  # the same bytes used by any other run (its own gold: explore21 19)
        raise Forbidden(
            f"this file is the test set {same}, whose gold its organiser withholds until "
            "the reveal (its questions alone: its page)"
        )
    rows = list(
        store.query(
            f"""SELECT ?title ?type WHERE {{ GRAPH <{graph}> {{
              <{storage.uris.experiment(experiment_id)}> <{PROV}used> ?f .
              ?f <{GQA}sha256> ?sha ; <{DCT}title> ?title .
              # the file, not the uploaded dataset made of it (same SHA-256, its own title)
              FILTER NOT EXISTS {{ ?f a <http://www.w3.org/ns/dcat#Dataset> }}
              OPTIONAL {{ ?f <http://www.w3.org/ns/dcat#mediaType> ?type }}
              FILTER(LCASE(STR(?sha)) = "{sha if EXPERIMENT_FILE.match(sha) else ""}") }} }}"""
        )
    )
    if not rows:
        raise NotFound(f"experiment {experiment_id} used no file with SHA-256 {sha256}")
    title = rows[0]["title"].value
    _refuse_private_kb(sha)
    data = kept(storage.workspace, sha, experiment_id=experiment_id, name=title)
    if data is None:  # a catalogue dataset's file: the mirror has it (checked by its SHA-256)
        from service.catalog import distribution_bytes

        data = distribution_bytes(sha)
    if data is None:
        raise NotFound(
            f"the file {title!r} of experiment {experiment_id} is not kept here: it was "
            "recorded before the service kept the files it scores, or this store was restored "
            "by gerbil-qa import (a dump holds the graph, not the files)"
        )
    media = rows[0]["type"]
    mimetype = media.value.rsplit("/media-types/", 1)[-1] if media is not None else None
    response = Response(data, mimetype=mimetype or "application/octet-stream")
    response.headers["Content-Disposition"] = _attachment(title)
    response.headers["Cache-Control"] = "private, no-store" if private else "public, max-age=3600"
    # a download, not a document: the experiment's document describes it (its title, type,
    # checksum), as LDP says of a non-RDF source
    response.headers["Link"] = f'<{storage.uris.experiment(experiment_id)}>; rel="describedby"'
    if private:
        response.vary.add("Cookie")
    return response


EXPERIMENT_FILE = re.compile(r"^[0-9a-f]{64}$")


def unserved_kb(sha: str) -> str | None:
    """The name of the knowledge base the operator configures (``GERBIL_QA_KBS``) whose file
    ``sha`` is, when its file is not served: described with the runs that used it, served only
    when the operator lists it in ``GERBIL_QA_PUBLIC_KBS`` (anyone who named it published it
    whole: explore34 13). The same bytes as a built-in dataset's file are served as it is."""
    from service.catalog import is_distribution
    from service.web.demo import private_kb_of

    name = private_kb_of(services().config, sha)
    return None if name is None or is_distribution(sha) else name


def _with_unserved_kbs(page: pages.ExperimentPage) -> pages.ExperimentPage:
    """The page with the files of the operator's KBs it does not serve named as such: no
    download link, and its reproduce script asks the reader for them (it fetched a 403)."""
    from dataclasses import replace

    kbs = {
        sha.lower(): name
        for _title, role, sha, _anchor in page.uploads
        if role == "kb" and (name := unserved_kb(sha.lower())) is not None
    }
    if not kbs:
        return page
    shown = page.reproduce.with_unserved(kbs) if page.reproduce is not None else None
    return replace(page, unserved_kbs=kbs, reproduce=shown)


def _refuse_private_kb(sha: str) -> None:
    """A file of the operator's KB is not served unless listed (:func:`unserved_kb`)."""
    name = unserved_kb(sha)
    if name is None:
        return
    raise Forbidden(
        f"this file is the knowledge base {name!r} that this service's operator configures: "
        "its runs describe it (name, SHA-256, triples), its file is not served "
        "(GERBIL_QA_PUBLIC_KBS lists the KBs whose files are)"
    )


def _withheld_files(store: Any, experiment_id: str, uploads: Any) -> dict[str, str]:
    """The files of an experiment's page (``uploads``: title, role, SHA-256, …) that
    ``experiment_file`` refuses until a reveal, by SHA-256 (lower case): the dataset whose
    gold withholds each. Its page marks them instead of linking to a 403 (explore42 2)."""
    storage = services().storage
    graph = storage.uris.experiment_graph(experiment_id)
    withheld = storage.catalogue.withheld_of_experiment(store, experiment_id)
    found: dict[str, str] = {}
    for upload in uploads:
        sha = str(upload[2]).lower()
        if withheld is not None and not _questions_file(store, graph, sha):
            found[sha] = withheld
        elif EXPERIMENT_FILE.match(sha) and (same := storage.catalogue.withheld_test_set(sha)):
            found[sha] = same
    return found


def _questions_file(store: Any, graph: str, sha: str) -> bool:
    """Whether the file ``sha`` of an experiment (its ``graph``) is its dataset's questions
    alone: a distribution of the dataset other than its own file (an expected.tsv's in.tsv),
    which a team answers even while the gold is withheld."""
    if not EXPERIMENT_FILE.match(sha):
        return False
    return bool(
        store.query(
            f"ASK {{ GRAPH <{graph}> {{ ?d <http://www.w3.org/ns/dcat#distribution> ?f ; "
            f'<{GQA}sha256> ?own . ?f <{GQA}sha256> ?sha FILTER(LCASE(STR(?sha)) = "{sha}" '
            f'&& LCASE(STR(?own)) != "{sha}") }} }}'
        )
    )


def _attachment(name: str) -> str:
    """``Content-Disposition`` for a download: an ASCII fallback and the UTF-8 name (RFC 6266)."""
    from urllib.parse import quote

    plain = re.sub(r"[^A-Za-z0-9._ -]+", "_", name) or "file"
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(name)}"


def _status_quads(status) -> list[Any]:
    """What is known of an experiment that has no results yet (shown to its owner only)."""
    import pyoxigraph as ox

    node = ox.NamedNode(status.uri)
    return [
        ox.Quad(node, ox.NamedNode(RDF + "type"), ox.NamedNode(GQA + "Experiment")),
        ox.Quad(
            node, ox.NamedNode(RDFS + "label"), ox.Literal(f"Experiment {status.id}", language="en")
        ),
        ox.Quad(node, ox.NamedNode(GQA + "status"), ox.Literal(status.status)),
    ]


def _public_revisions(storage: Any, uri: str) -> list[Any]:
    """``<new> prov:wasRevisionOf <uri>`` from the public store's named graphs: the owner of a
    private experiment reads in its RDF what its page says and its public copy would say (the
    private store holds none of a published revision's triples)."""
    import pyoxigraph as ox

    found = storage.store.public.quads_for_pattern(
        None, ox.NamedNode(ELSEWHERE_EXPERIMENT[0]), ox.NamedNode(uri), None
    )
    return [q for q in found if type(q.graph_name) is not ox.DefaultGraph]


def _revision_words(storage: Any, other: str, older: str, newer: str) -> RevisionWords:
    """``other`` (``older`` or ``newer``) as a citation names it, with how ``newer`` revises
    ``older``: the re-scoring refusal's decision whether its numbers replace these (the page's),
    not a second rule (explore40 4, 5). Neutral when neither is public to compare."""
    from service.experiments.rescore import revision_link

    link = None
    if storage.experiments.is_public(older) and storage.experiments.is_public(newer):
        link = revision_link(storage, older, newer)
    return RevisionWords(other, storage.uris.experiment(other), link)


def _citation_subject(graph: Any, status: Any, shown: pages.ExperimentPage) -> str | None:
    """What was evaluated, for the citation's title: the systems and the dataset as its results
    name them (a public experiment has them: it is published once finished, and they never
    change after), else, while it runs, as its submission named them."""
    from service import catalog
    from service.experiments.overview import what_ran

    if shown.tasks:
        systems = list(dict.fromkeys(t.system_label for t in shown.tasks))
        entry = _catalogued(shown)
        title = entry.title if entry else shown.dataset_title or shown.dataset_label
        return experiment_subject(systems, title)
    spec = None if status.job else graph.experiments.spec_of(status.id)
    asked = what_ran(status.job, spec)
    dataset = asked.get("dataset")
    if asked.get("demo"):  # asked as "demo", recorded under its file's label: one title
        from service.web.demo import demo_label

        dataset = demo_label()
    elif dataset and asked.get("catalogued"):
        dataset = next((e.title for e in catalog.entries() if e.name == dataset), dataset)
    return experiment_subject([str(s.get("name", "")) for s in asked.get("systems", [])], dataset)


def _on_demo(shown: pages.ExperimentPage) -> bool:
    """Whether the experiment ran on the demo's questions (their bytes: the demo)."""
    from service.web.demo import demo_sha256

    return any(u[1] == "dataset" and u[2].lower() == demo_sha256() for u in shown.uploads)


def _catalogued(shown: pages.ExperimentPage) -> Any:
    """The catalogue entry of the built-in dataset an experiment ran on, else None (its
    document names it by its name alone: the catalogue describes it)."""
    from service import catalog

    if not shown.dataset_label or shown.dataset_title not in (None, shown.dataset_label):
        return None
    return next((e for e in catalog.entries() if e.name == shown.dataset_label), None)


def _citation_scoring(shown: pages.ExperimentPage) -> str | None:
    """On and with what its results were computed, for the citation's note: the dataset's
    title, name and version (its description's, else the registered version it is the file
    of), each profile and version, the language(s) and knowledge base(s) of its results, the
    evaluator's release. None before it has results."""
    if not shown.tasks:
        return None
    registered = (
        shown.dataset_version[1].rsplit(" version ", 1)[-1] if shown.dataset_version else None
    )
    entry = _catalogued(shown)  # a built-in dataset: its catalogue title and version
    return scoring_note(
        dataset=entry.title if entry else shown.dataset_title or shown.dataset_label,
        dataset_name=shown.dataset_label,
        dataset_version=shown.dataset_release or registered or (entry and entry.version),
        profiles=list(
            dict.fromkeys(f"{t.profile} {t.profile_version or ''}".strip() for t in shown.tasks)
        ),
        evaluator=shown.software,
        languages=list(dict.fromkeys(t.language_tag for t in shown.tasks if t.language_tag)),
        kbs=list(dict.fromkeys(t.knowledge_base for t in shown.tasks if t.knowledge_base)),
        kb_files=[title for title, role, *_ in shown.uploads if role == "kb"],
    )


@bp.get("/experiment/<name>")
def experiment(name: str) -> BaseResponse:
    experiment_id, ext = conneg.split_extension(name)
    redirected = token_redirect(experiment_id, say_refused=True)
    if redirected is not None:
        return redirected
    rep = conneg.negotiate(request, EXPERIMENT_OFFERS, extension=ext, default=conneg.HTML)
    status, store, private = _experiment_store(experiment_id, rep)
    graph = services().storage
    uri = graph.uris.experiment(experiment_id)
    if store is None:
        return not_public(experiment_id, uri, rep)
    graph_name = graph.uris.experiment_graph(experiment_id)
    cache: dict[str, Any] = {}

    in_worker = (
        None
        if private
        else DocumentJob(
            uri, "", "", graph=graph_name, follow=FOLLOW_EXPERIMENT, elsewhere=ELSEWHERE_EXPERIMENT
        )
    )

    def quads(skip: tuple[str, ...] = (), *, worker: bool = False) -> Sequence[Any]:
        """The document (``skip``: without those predicates' triples, for the page), read by a
        query worker if ``worker`` (the RDF path asked one to write it already)."""
        key = f"q{skip}"
        if key not in cache:
            found = None
            if worker and in_worker is not None:
                found = _read_by_a_worker(replace(in_worker, skip=skip))
            if not found:  # private, no free worker, or not in the workers' snapshot yet
                found = document_quads(
                    store,
                    uri,
                    graph=graph_name,
                    follow=FOLLOW_EXPERIMENT,
                    skip=skip,
                    elsewhere=ELSEWHERE_EXPERIMENT,
                )
            if private and found:  # its published revisions are in the public store
                found = [*found, *_public_revisions(graph, uri)]
            cache[key] = found or _status_quads(status or require_experiment(experiment_id))
        return cache[key]

    def page() -> pages.ExperimentPage:  # once per request (the HTML and its citation)
        if "page" not in cache:
            cache["page"] = _with_unserved_kbs(
                pages.experiment_page(
                    experiment_id, quads(PAGE_SKIP_EXPERIMENT, worker=True), graph.uris
                )
            )
        return cache["page"]

    def citation() -> Citation:
        shown = page()
        published_revisions = graph.experiments.revisions(experiment_id)
        withdrawn = None
        if shown.withdrawn_at is not None:
            withdrawn = (shown.withdrawn_at, shown.withdrawal_reason or "")
        return citation_for(
            experiment_id,
            uri,
            base=graph.uris.base,
            papers=shown.papers,
            withdrawn=withdrawn,
            subject=_citation_subject(graph, status or require_experiment(experiment_id), shown),
            scoring=_citation_scoring(shown),
            # the published links only: a citation names what its reader can follow
            revises=[_revision_words(graph, e, e, experiment_id) for e in published_revisions[0]],
            revised_by=[
                _revision_words(graph, e, experiment_id, e) for e in published_revisions[1]
            ],
        )

    # the two systems of the per-question scatter (?a=…&b=…; default: the two best)
    pick = (request.args.get("a") or None, request.args.get("b") or None)
    by = request.args.get("by") or None  # the QA measures per feature of the questions
    # a page that reloads itself only when its reader asked (WCAG 2.2.1: a timed reload sends
    # a screen reader back to the top every few seconds)
    auto_refresh = request.args.get("refresh") == "on"

    def html() -> str:
        from service.web.access import form_check, presented_token
        from service.web.running import status_payload

        token = presented_token(experiment_id) if private else None
        shown = page()
        current = status or require_experiment(experiment_id)
        revisions = graph.experiments.revisions(experiment_id, include_private=private)
        live = None
        if current.status.value != "finished":
            live = status_payload(experiment_id)
            live["statusUrl"] = url_for("run.status", experiment_id=experiment_id)
        # a resumable status without its job (a store restored from a dump alone): the
        # owner's page says why instead of a Resume button that answers 409
        unresumable = (
            services().runner.unresumable(experiment_id)
            if private and current.status.resumable
            else None
        )
        checks = None  # an uploaded dataset's findings, its owner's before publishing
        if private and current.status.value == "finished":
            from service.experiments.dataset_checks import experiment_findings

            withheld = graph.catalogue.withheld_of_experiment(graph.private, experiment_id)
            found = experiment_findings(graph, experiment_id) if withheld is None else None
            checks = pages.grouped_findings(found) if found is not None else None
        name_in_use = None  # a system name others published under: its owner is told
        if (private and current.status.value == "finished") or (
            current.public and request.args.get("nameInUse")
        ):  # before publishing (the run form's answer is this page), and once published
            from service.web.api import name_in_use as said

            name_in_use = said(experiment_id, published=current.public)
        return render_template(
            "experiment.html",
            page=shown,
            status=current,
            live=live,
            name_in_use=name_in_use,
            dataset_checks=checks,
            # what the dataset check read: the demo's questions are checked as an upload is,
            # but nobody uploaded them (explore-15 11g)
            checked=(
                "the questions of the built-in demo dataset"
                if _on_demo(shown)
                else "the uploaded dataset"
            ),
            auto_refresh=auto_refresh,
            private=private,
            ended_without_results=ENDED_WITHOUT_RESULTS,
            unresumable=unresumable,
            owner_checks={
                a: form_check(experiment_id, token, a)
                for a in ("publish", "cancel", "resume", "delete")
            }
            if token
            else {},
            citation=citation(),
            figures=_figures(shown, store, graph_name, pick, public=not private),
            breakdown=_breakdown(experiment_id, shown, by) if by and not live else None,
            revisions=revisions,
            newer_versions=_newer_versions(graph, shown),
            newer_profiles=_newer_profiles(shown),
            # a revision's page says what it changed (private: its owner's view, who may see
            # the old one; public: the public old ones, the same page for every reader)
            changes=web_changes.for_page(experiment_id, revisions[0], shown.tasks, owner=private)
            if not live
            else [],
            shown_changes=web_changes.SHOWN_QUESTIONS,
            frozen=[] if private else leaderboards.including(graph, uri, graph_name),
            by=by,
            breakdown_refused=_breakdown_refused(shown, _revealed_since(shown)),
            # revised already: the re-scoring its notes offered was refused (explore38 9)
            rescore_refused=_rescore_refused(experiment_id, current, revisions, live),
            reveal_of=_reveal_of(experiment_id) if current.public else None,
            # scored while withheld, revealed since: its note says so and where to re-score
            # (it said "once the gold is revealed" after the reveal: explore32 9)
            withheld_note=WITHHELD_NOTE,
            gold_revealed=_revealed_since(shown),
            # the files its file route refuses until the reveal: marked, not linked
            withheld_files=_withheld_files(store, experiment_id, shown.uploads),
            badge=None if private else badges.snippets(shown),
            # the preview comes from where the page did (img-src 'self'), not from the URI,
            # whose host a proxy or a persistent-identifier base may name differently
            badge_preview=url_for(
                ".badge", experiment_id=experiment_id, measure=badges.DEFAULT_MEASURE
            ),
            charts=charts,
            alternates=alternates(uri, EXPERIMENT_OFFERS),
            pages=pages,
            token_refused=refused,
        )

    refused = token_refused()  # a wrong owner link followed: said, a page of its own
    return respond(
        uri,
        EXPERIMENT_OFFERS,
        rep,
        quads=quads,
        html=html,
        csv=lambda: pages.experiment_csv(page()),
        bibtex=lambda: (citation().bibtex + "\n").encode("utf-8"),
        variant=(*pick, by, auto_refresh, refused) if rep is conneg.HTML else None,
        private=private,
        in_worker=in_worker,
        links=[] if private else _reproduce_link(store, uri, graph_name),
    )


def _reproduce_link(store: Any, uri: str, graph_name: str) -> list[str]:
    """The ``Link`` to a published experiment's ``reproduce.sh``, on every representation of
    its URI, when it has one: the script was reachable from the HTML only, so a linked-data
    client (Turtle, JSON-LD) never found it (explore65 F3). ``rel="related"`` (RFC 4287, IANA):
    the script is neither a representation of the experiment (``alternate``) nor a description
    of it (``describedby``); ``type`` and ``title`` say what it is. It has one when the script
    route has (:func:`service.web.reproduce.reproduction`): tasks, and a dataset or gold file
    with its download address."""
    from service.web.reproduce import DCAT_DOWNLOAD

    # asked once per public version: a cached page is served without its ASK (the cost of
    # every read of an experiment URI, issue 14 item 5)
    version = services().public_version()
    known = _REPRODUCE_LINKS.get(uri)
    if known is not None and known[0] == version:
        return known[1]
    if len(_REPRODUCE_LINKS) >= 10_000:  # bounded: the published experiments asked lately
        _REPRODUCE_LINKS.clear()
    scored = store.query(
        f"""ASK {{ GRAPH <{graph_name}> {{
            <{uri}> <{GQA}task> ?task ; <{PROV}used> ?file .
            ?file <{GQA}fileRole> ?role ; <{DCAT_DOWNLOAD}> ?url .
            FILTER(?role IN ("dataset", "gold")) }} }}"""
    )
    title = "Reproduce these numbers (bash script)"
    link = f'<{uri}/reproduce.sh>; rel="related"; type="{mediatypes.SHELL}"; title="{title}"'
    links = [link] if bool(scored) else []
    _REPRODUCE_LINKS[uri] = (version, links)
    return links


_REPRODUCE_LINKS: dict[str, tuple[str, list[str]]] = {}  # uri -> (public version, its Link)


def _published_experiment(experiment_id: str, private: str) -> str:
    """The URI of a published experiment, for what only a published one has (its badge, its
    script as a file): 404 for an id not well formed or never minted, 403 saying ``private``
    for one not public yet."""
    graph = services().storage
    if not EXPERIMENT_ID.match(experiment_id):
        raise NotFound(f"no experiment {experiment_id}: ids are yyyyMMdd and a 4-digit counter")
    if not graph.experiments.is_public(experiment_id):
        require_experiment(experiment_id)  # 404 for an id never minted
        raise Forbidden(f"experiment {experiment_id} is not public yet: {private}")
    return graph.uris.experiment(experiment_id)


@bp.get("/experiment/<experiment_id>/badge.svg")
def badge(experiment_id: str) -> Response:
    """An embeddable SVG badge of a published result (``?measure=macroF1[&system=NAME]``):
    private experiments have none (403), like their other representations."""
    graph = services().storage
    uri = _published_experiment(experiment_id, "it has no badge")
    measure = request.args.get("measure") or badges.DEFAULT_MEASURE
    system = request.args.get("system") or None
    language = request.args.get("language") or None
    cache = services().cache
    key = (uri + "/badge.svg", measure, system, language)
    rendered = cache.get(key)
    if rendered is None:
        quads = document_quads(
            graph.public,
            uri,
            graph=graph.uris.experiment_graph(experiment_id),
            follow=FOLLOW_EXPERIMENT,
        )
        shown = pages.experiment_page(experiment_id, quads, graph.uris)
        chosen = badges.choose(shown, measure=measure, system=system, language=language)
        svg = badges.badge_svg(chosen)
        rendered = cache.rendered(svg.encode("utf-8"), f"{mediatypes.SVG}; charset=utf-8")
        cache.put(key, rendered)
    response = Response(rendered.body, content_type=rendered.content_type)
    response.headers["Cache-Control"] = "public, max-age=300"
    # embedded from other sites as an <img>; a badge opened on its own runs nothing
    response.headers["Content-Security-Policy"] = "default-src 'none'"
    response.headers["Cross-Origin-Resource-Policy"] = "cross-origin"
    response.set_etag(rendered.etag)
    response.make_conditional(request)  # in place: 304 when the ETag matches
    return response


@bp.get("/experiment/<experiment_id>/reproduce.sh")
def reproduce_script(experiment_id: str) -> Response:
    """The "Reproduce these numbers" script of a published experiment's page (``#reproduce``)
    as a file, saved as ``reproduce-ID.sh`` (the name the page says to run: ``bash
    reproduce-ID.sh`` in an empty folder): before, it was only in the page's HTML
    (explore60 F1). A private experiment's is on its owner's page (403 here, as its badge)."""
    graph = services().storage
    uri = _published_experiment(experiment_id, "its owner's page gives its script")
    quads = document_quads(
        graph.public,
        uri,
        graph=graph.uris.experiment_graph(experiment_id),
        follow=FOLLOW_EXPERIMENT,
        skip=PAGE_SKIP_EXPERIMENT,
        elsewhere=ELSEWHERE_EXPERIMENT,
    )
    shown = _with_unserved_kbs(pages.experiment_page(experiment_id, quads, graph.uris))
    if shown.reproduce is None:
        raise NotFound(f"experiment {experiment_id} has no scored files to reproduce it from")
    body = (
        "#!/usr/bin/env bash\n"
        f"# Reproduces the numbers of GERBIL QA experiment {experiment_id}, {uri}\n"
        f"{shown.reproduce.script}\n"
    )
    response = Response(body.encode("utf-8"), content_type=f"{mediatypes.SHELL}; charset=utf-8")
    response.headers["Content-Disposition"] = (
        f'inline; filename="reproduce-{experiment_id}.sh"'  # the id: digits only
    )
    response.headers["Content-Security-Policy"] = "default-src 'none'"
    return response


@dataclass(frozen=True, slots=True)
class NewerVersion:
    """A newer version of an experiment's dataset, as its page names it."""

    uri: str
    label: str
    issued: str | None
    rescore: str  # what ``gerbil-qa rescore ID --dataset-version`` takes for it
    refreshed: bool  # a catalogue dataset's gold computed again (``dataset refresh``)
    rescored: str | None = None  # a published revision of the experiment scored on it
    # the experiment of its line a re-scoring onto it would revise, where not this one (the
    # API's decision: its page said "a revision" of this one, the API revised that one;
    # explore42 1)
    revises: str | None = None


def _newer_versions(storage: Any, page: pages.ExperimentPage) -> list[NewerVersion]:
    """The versions of the experiment's catalogue dataset registered after it ran (a gold
    refreshed since), or the newer versions its uploaded dataset's author published: a reader
    of a cited result learns that the gold moved on, and where to. Before, only the dataset's
    own page listed them; an upload's newer version was named as the old dataset with its
    version label, which ``rescore --dataset-version`` refused (it takes the new one's name)."""
    from datetime import datetime

    prefix = storage.uris.base + "dataset/"
    if not page.dataset or not page.ended or not page.dataset.startswith(prefix):
        return []
    name = page.dataset.removeprefix(prefix)
    ended = datetime.fromisoformat(page.ended)
    found = [
        NewerVersion(v.uri, f"{name} version {v.version}", v.issued, v.version, refreshed=True)
        for v in storage.catalogue.versions(name)
        if datetime.fromisoformat(v.issued) > ended
    ]
    for u in storage.catalogue.newer_uploads(name):
        found.append(NewerVersion(u.uri, u.label, u.issued, u.name, refreshed=False))
    from dataclasses import replace

    # one already re-scored on it: a second re-scoring is refused (it names that one)
    found = [replace(v, rescored=_revision_on(storage, page.id, v.uri)) for v in found]
    return [
        v if v.rescored else replace(v, revises=_revises_other(storage, page.id, v.rescore))
        for v in found
    ]


def _revises_other(storage: Any, experiment_id: str, version: str) -> str | None:
    from service.experiments.rescore import rescore_revises

    revised = rescore_revises(storage, experiment_id, version)
    return revised if revised != experiment_id else None


def _revision_on(storage: Any, experiment_id: str, dataset: str) -> str | None:
    """A published revision of ``experiment_id`` with results on ``dataset``, if any."""
    from service.graph.queries import PREFIXES

    # a revision of it, or a re-scoring of its answers revising another (explore-20 1)
    newer_ones = storage.experiments.revisions(experiment_id)[1]
    for newer in [*newer_ones, *storage.experiments.rescored_by(experiment_id)]:
        if storage.experiments.status(newer).withdrawn_at is not None:
            continue  # withdrawn: a re-scoring may replace it
        exp = storage.uris.experiment(newer)
        ask = f"ASK {{ ?task qb:dataSet <{exp}> ; gerbil:dataset <{dataset}> }}"
        if storage.store.public.query(PREFIXES + ask):
            return str(newer)
    return None


def _newer_profiles(page: pages.ExperimentPage) -> list[tuple[str, str, str]]:
    """(profile, the version the experiment was scored under, this service's version) for
    each profile whose rules moved on since: a reader learns the numbers stand under the old
    rules, which the evaluator of its commit reproduces, and that a re-scoring gives the new."""
    from service.evaluation.profiles import PROFILES

    found = {
        (t.profile, t.profile_version, PROFILES[t.profile].version)
        for t in page.tasks
        if t.profile in PROFILES
        and t.profile_version
        and t.profile_version != PROFILES[t.profile].version
    }
    return sorted(found)


def _rescore_refused(
    experiment_id: str, status: Any, revisions: tuple[list[str], list[str]], live: Any
) -> str | None:
    """What re-scoring it is refused with, when a revision of it is shown (the 409 points
    to the one to re-score instead); None else: nothing to ask the store then."""
    from service.experiments.rescore import rescore_refused

    if live is not None or not revisions[1] or status.withdrawn_at is not None:
        return None
    refused = rescore_refused(services().storage, experiment_id)
    # the page's sentence names this experiment already: "it cannot be re-scored: under
    # profile …", not "it is not re-scored: experiment ID: under profile …" (explore42 7)
    return refused.removeprefix(f"experiment {experiment_id}: ") if refused else None


def _breakdown_refused(page: pages.ExperimentPage, revealed: str | None = None) -> str | None:
    """Why the breakdown cannot be recomputed from this experiment's stored results (a QA
    task scored under a profile version this one scores otherwise), or None: its links led
    to a 400 before. ``revealed``: when the gold it was scored without was revealed since
    (the reason said "once the gold is revealed" after it was: explore32 9)."""
    from service.graph.reader import QUESTIONS_WITHHELD, not_recomputable

    why = next(filter(None, map(not_recomputable, page.tasks_of("QA"))), None)
    if why == QUESTIONS_WITHHELD and revealed:
        return (
            "scored while its dataset's gold was withheld, without per-question results (the "
            f"gold was revealed on {revealed[:10]}: a re-scoring has them)"
        )
    return why


def _breakdown(experiment_id: str, page: pages.ExperimentPage, by: str) -> dict[str, Any]:
    """The experiment page's breakdown: each value of one dimension x each system's QA
    macro F1, micro F1 and questions (``?by=answertype``; a bad name is a 400)."""
    from service.evaluation.slices import in_order, parse_dimensions

    [dimension] = parse_dimensions(by)[:1]
    found = figures.stored_slices(experiment_id, page, [dimension])
    systems = [f"{name} ({language})" if len({k[1] for k in found}) > 1 else name
               for name, language, _ in found]  # fmt: skip
    values = in_order({v for slices in found.values() for v in slices[dimension]})
    rows = [
        (value, [slices[dimension].get(value, {}).get("QA", {}) for slices in found.values()])
        for value in values
    ]
    return {"dimension": dimension, "systems": systems, "rows": rows}


def _figures(
    page: pages.ExperimentPage,
    store: Any,
    graph_name: str,
    pick: tuple[str | None, str | None],
    *,
    public: bool,
) -> figures.Figures:
    """The experiment page's charts, from its stored per-question F1 (and whole results for
    tasks recorded before intervals were stored; answer types from the dataset's questions:
    public, or in the experiment's graph for an uploaded dataset)."""
    from service.evaluation.languages import SEPARATOR
    from service.evaluation.slices import offered
    from service.graph.reader import dimension_values, stored_f1s, stored_results

    qa = page.tasks_of("QA")
    uris = [t.uri for t in qa]
    f1s = _f1s_by_a_worker(graph_name, uris) if public and uris else None
    if f1s is None:
        f1s = stored_f1s(store, graph_name, uris)
    bare = [t.uri for t in qa if not t.intervals]
    results = stored_results(store, graph_name, bare) if bare else {}
    questions = {q for found in f1s.values() for q in found}
    public_store = services().storage.public
    types = figures.answer_types_of(public_store, questions)
    missing = questions - types.keys()
    values = dimension_values(public_store, questions)
    if store is not public_store:  # an uploaded dataset's questions: in the experiment's graph
        if missing:
            types.update(figures.answer_types_of(store, missing))
        for dimension, found in dimension_values(store, questions).items():
            values.setdefault(dimension, set()).update(found)
    drawn = figures.figures(page, f1s, types, pick=pick, results=results)
    values["language"] = {lang for t in qa for lang in t.language_tag.split(SEPARATOR)}
    return replace(drawn, dimensions=offered(values))


def _f1s_by_a_worker(
    graph_name: str, tasks: list[str]
) -> dict[str, dict[str, float | None]] | None:
    """A public experiment's per-question F1 read by a query worker (as :func:`_read_by_a_worker`
    reads its quads), or None to read them here: no free worker, a remote store, or a
    snapshot without every task yet (published a moment ago)."""
    from service.graph.reader import f1s_of_json, f1s_query

    pool = services().pool
    if not isinstance(pool, QueryPool):
        return None
    try:
        outcome = pool.run(QueryJob(query=f1s_query(graph_name, tasks)), wait=WORKER_WAIT)
    except PoolBusy:
        return None
    found = f1s_of_json(outcome.body)
    return found if found.keys() == set(tasks) else None


def _question_nodes(
    store: Any,
    uris: Sequence[str],
    predicates: Sequence[str] | None = None,
    *,
    graph: str | None = None,
) -> dict[str, Any]:
    """Question descriptions from ``store`` (any named graph, or only ``graph``), in one
    query: every property, or only ``predicates`` (a question's gold answers run to thousands:
    the pages that explain each answer need its texts and features only). A lookup per
    question and property was ~1,750 requests for a task page on a remote store. Each triple
    once: an uploaded dataset's questions are described in every experiment graph that
    uploaded it, and the task CSV listed each gold answer once per such graph."""
    questions = " ".join(f"<{u}>" for u in dict.fromkeys(uris))
    if not questions:
        return {}
    only = "" if predicates is None else f"VALUES ?p {{ {' '.join(f'<{p}>' for p in predicates)} }}"
    where = f"<{graph}>" if graph else "?g"
    rows = store.query(
        f"SELECT DISTINCT ?q ?p ?o WHERE {{ VALUES ?q {{ {questions} }} {only} "
        f"GRAPH {where} {{ ?q ?p ?o }} }}"
    )
    nodes: dict[str, Node] = {}
    for q, p, o in rows:
        node = nodes.get(q.value)
        if node is None:
            node = nodes[q.value] = Node(q.value)
        node.props[p.value].append(o)
    return nodes


TASK_PAGE_SIZE = 100  # questions per page of a task's HTML
TASK_PAGE_WARNINGS = 100  # warnings listed on a task page (all are in its RDF and the API)


def _withheld_now(main: Any) -> bool:
    """Whether the dataset ``main`` (its page's node) withholds its gold now."""
    return main.text(GQA + "goldWithheld") == "true" and main.one(GQA + "goldRevealed") is None


def _reveal_of(experiment_id: str) -> str | None:
    """The test set whose gold this published run uploaded withheld and which is withheld
    still: its page links the reveal (its organiser's page said nothing of it: explore21 13)."""
    from service.experiments.reveal import uploaded_withheld

    storage = services().storage
    name = storage.catalogue.withheld_of_experiment(storage.public, experiment_id)
    return name if name is not None and uploaded_withheld(storage, experiment_id) else None


def _revealed_since(shown: pages.ExperimentPage) -> str | None:
    """When the gold of the dataset an experiment was scored on while withheld (its note says
    so) was revealed since, if it was."""
    from urllib.parse import unquote

    if WITHHELD_NOTE not in shown.notes or shown.dataset is None:
        return None
    return services().storage.catalogue.revealed_at(unquote(pages.local(shown.dataset)))


def _revealed_at(task: Any) -> str | None:
    """When the gold of the dataset a task was scored on while withheld was revealed since."""
    from urllib.parse import unquote

    return services().storage.catalogue.revealed_at(unquote(pages.local(task.dataset)))


@bp.get("/experiment/<experiment_id>/task/<name>")
def task(experiment_id: str, name: str) -> BaseResponse:
    import pyoxigraph as ox

    number, ext = conneg.split_extension(name)
    if not number.isdigit():
        raise NotFound(f"no task {number} in experiment {experiment_id}")
    # an owner link made of a task's URL is taken as the experiment's is (explore34 8), a
    # wrong one said as there (it was dropped without a word here: explore42 8)
    redirected = token_redirect(experiment_id, say_refused=True)
    if redirected is not None:
        return redirected
    refused = token_refused()
    rep = conneg.negotiate(request, TASK_OFFERS, extension=ext, default=conneg.HTML)
    _status, store, private = _experiment_store(experiment_id, rep)
    graph = services().storage
    uri = graph.uris.task(experiment_id, int(number))
    if store is None:
        return not_public(experiment_id, graph.uris.experiment(experiment_id), rep)
    graph_name = graph.uris.experiment_graph(experiment_id)
    described = store.quads_for_pattern(ox.NamedNode(uri), None, None, ox.NamedNode(graph_name))
    if next(described, None) is None:
        raise NotFound(f"experiment {experiment_id} has no task {number}")
    cache: dict[str, list[Any]] = {}
    in_worker = (
        None
        if private
        else DocumentJob(uri, "", "", graph=graph_name, follow=FOLLOW_TASK, reverse=REVERSE_TASK)
    )

    def quads(*, worker: bool = False) -> list[Any]:
        """The document, read by a query worker if ``worker`` (see :func:`experiment`)."""
        if "q" not in cache:
            found = _read_by_a_worker(in_worker) if worker and in_worker is not None else None
            cache["q"] = found or document_quads(
                store, uri, graph=graph_name, follow=FOLLOW_TASK, reverse=REVERSE_TASK
            )
        return cache["q"]

    def page() -> pages.TaskPage:
        nodes = index(quads(worker=True))
        # explained results show the gold answers they compared: the page needs not the
        # questions', the CSV does (its "gold" column: every gold answer, not those explained)
        whole = rep is conneg.CSV or not pages.explained(nodes)
        wanted = None if whole else pages.QUESTION_PROPERTIES
        return _task_page_of(experiment_id, uri, nodes, store, wanted)

    # The HTML shows the questions a filter keeps (?outcome=…&answertype=…), a page at a time.
    shown = pages.QuestionFilter.from_args(request.args) if rep is conneg.HTML else None
    slice_ = listings.page_from(request.args, size=TASK_PAGE_SIZE) if shown else None

    def html() -> str:
        found = page()
        kept = [r for r in found.rows if shown is None or shown.keeps(r)]
        at = slice_ or listings.Page(1, TASK_PAGE_SIZE)
        return render_template(
            "task.html",
            page=found,
            revealed=_revealed_at(found.task) if found.task.questions_withheld else None,
            rows=kept[at.offset : at.offset + at.size],
            kept=len(kept),
            filter=shown or pages.QuestionFilter(),
            pager={
                "page": at,
                "has_next": len(kept) > at.offset + at.size,
                "endpoint": "resources.task",
                "args": {
                    "experiment_id": experiment_id,
                    "name": number,
                    **(shown.args() if shown else {}),
                    **listings.page_args(request.args),
                },
            },
            uri=uri,
            experiment_uri=graph.uris.experiment(experiment_id),
            experiment_id=experiment_id,
            withdrawn=None if private else _withdrawal(experiment_id),
            private=private,
            max_warnings=TASK_PAGE_WARNINGS,
            alternates=alternates(uri, TASK_OFFERS),
            pages=pages,
            token_refused=refused,
        )

    return respond(
        uri,
        TASK_OFFERS,
        rep,
        quads=quads,
        html=html,
        csv=lambda: pages.task_csv(page()),
        private=private,
        variant=(shown, slice_, refused),
        in_worker=in_worker,
    )


@bp.get("/experiment/<experiment_id>/task/<int:number>/question/<path:name>")
@bp.get("/experiment/<experiment_id>/task/<int:number>/question/", defaults={"name": ""})
def question_result(experiment_id: str, number: int, name: str) -> BaseResponse:
    question_id, ext = _question_name(name)
    # an owner link made of its URL (explore34 8); a wrong one said (explore42 8)
    redirected = token_redirect(experiment_id, say_refused=True)
    if redirected is not None:
        return redirected
    refused = token_refused()
    rep = conneg.negotiate(request, PLAIN_OFFERS, extension=ext, default=conneg.HTML)
    _status, store, private = _experiment_store(experiment_id, rep)
    graph = services().storage
    if store is None:
        return not_public(experiment_id, graph.uris.experiment(experiment_id), rep)
    uri = graph.uris.question_result(experiment_id, number, question_id)
    found = document_quads(store, uri, graph=graph.uris.experiment_graph(experiment_id))
    if not found and "@" in question_id:  # a task pooled over languages: {id}@{language}
        qid, _, language = question_id.rpartition("@")
        uri = graph.uris.question_result(experiment_id, number, qid, language)
        found = document_quads(store, uri, graph=graph.uris.experiment_graph(experiment_id))
    if not found:
        raise NotFound(f"no result for question {question_id} in task {number}")
    return respond(
        uri,
        PLAIN_OFFERS,
        rep,
        quads=lambda: found,
        html=lambda: _question_result_html(
            experiment_id, number, uri, found, store, private, refused=refused
        ),
        private=private,
        variant=(refused,) if rep is conneg.HTML else None,
    )


def _task_page_of(
    experiment_id: str,
    task_uri: str,
    nodes: dict[str, Node],
    store: Any,
    wanted: Sequence[str] | None,
) -> pages.TaskPage:
    """A task page's model from the nodes read of it (the whole task, or one question's
    result): its questions described from the public store (their ``wanted`` properties, or
    all), an uploaded dataset's from the experiment's store, where its questions live."""
    storage = services().storage
    questions = [q for n in nodes.values() if (q := n.text(GQA + "question"))]
    described = _question_nodes(storage.public, questions, wanted)
    missing = [q for q in questions if q not in described]
    if missing:  # the experiment's own graph: other private experiments are other owners'
        own = storage.uris.experiment_graph(experiment_id)
        described.update(_question_nodes(store, missing, wanted, graph=own))
    if wanted is not None:  # a question's one gold answer (an ASK's false: gold_notes)
        one = [u for u, q in described.items() if q.text(GQA + "goldAnswerCount") == "1"]
        for u, q in _question_nodes(storage.public, one, (GQA + "goldAnswer",)).items():
            described[u].props[GQA + "goldAnswer"] = q.props[GQA + "goldAnswer"]
    task = nodes.get(task_uri)
    # the run's tag (pt-BR), which the ISO 639 language (pt) drops
    language = (
        (task.text(GQA + "languageTag") or pages.local(task.text(GQA + "language")))
        if task
        else None
    )
    return pages.task_page(
        experiment_id, task_uri, nodes, described, language or "en", uris=storage.uris
    )


def _question_result_html(
    experiment_id: str,
    number: int,
    uri: str,
    found: list[Any],
    store: Any,
    private: bool,
    *,
    refused: bool = False,
) -> str:
    """One question's result as the task page shows its row (the question, the outcome, every
    answer judged and by which rule, runtime, error), then its triples: the link a paper gives
    for "question 42 fails because…"."""
    storage = services().storage
    graph_name = storage.uris.experiment_graph(experiment_id)
    task_uri = storage.uris.task(experiment_id, number)
    task_quads = document_quads(store, task_uri, graph=graph_name)
    shown = _task_page_of(experiment_id, task_uri, index([*task_quads, *found]), store, None)
    own = index(found)
    return render_template(
        "question_result.html",
        uri=uri,
        row=next(r for r in shown.rows if r.uri == uri),
        task=shown.task,
        experiment_id=experiment_id,
        experiment_uri=storage.uris.experiment(experiment_id),
        withdrawn=None if private else _withdrawal(experiment_id),
        main=own.get(uri),
        others=[n for k, n in own.items() if k != uri],
        private=private,
        alternates=alternates(uri, PLAIN_OFFERS),
        pages=pages,
        token_refused=refused,
    )


# --- public resources: datasets, questions, systems, software, catalogue, vocabulary ---------


def public_document(
    uri: str,
    rep: conneg.Representation | None = None,
    *,
    follow: Sequence[str] = (),
    links: Sequence[str] = (),
) -> list[Any]:
    """The document of a public resource. Quad syntaxes name the graph of each triple (a system
    is described in every experiment graph that used it); everything else reads the public
    default graph, the union the graph layer keeps, where each triple is once."""
    union = rep is None or rep.rdf is None or not rep.rdf.quads
    public = services().storage.public
    found = document_quads(public, uri, union=union, follow=follow, links=links)
    if not found:
        raise NotFound(f"nothing is known about {uri} (or it is not public)")
    return found


def described_by_withdrawn(
    uri: str,
    rep: conneg.Representation,
    *,
    follow: Sequence[str] = (),
    links: Sequence[str] = (),
) -> tuple[list[Any], list[listings.WithdrawnRun]]:
    """The document of a resource that only withdrawn experiments' graphs describe (a system
    no listed experiment used, an older evaluator release), as the first of them published it,
    and those experiments: they stay citable and link it, so it answers where it answered 404
    "nothing is known about" (explore45 1). NotFound when none describes it."""
    runs = listings.withdrawn_describing(uri)
    if not runs:
        raise NotFound(f"nothing is known about {uri} (or it is not public)")
    storage = services().storage
    first = min(runs, key=lambda w: w.experiment)
    graph = storage.uris.experiment_graph(first.experiment.rsplit("/", 1)[1])
    found = document_quads(storage.public, uri, graph=graph, follow=follow, links=links)
    if not found:
        raise NotFound(f"nothing is known about {uri} (or it is not public)")
    return _as_withdrawn(found, rep), runs


def _generic_html(uri: str, quads: Sequence[Any], *, private: bool = False, **extra: Any) -> str:
    nodes = index(quads)
    main = nodes.get(uri)
    titled = (main.one(DCT + "title") or main.one(RDFS + "label")) if main else None
    return render_template(
        extra.pop("template", "resource.html"),
        uri=uri,
        title=titled.value if titled is not None else pages.local(uri),
        # a Polish or Korean question's label must not read as English (the page is lang="en")
        title_lang=getattr(titled, "language", None),
        main=main,
        others=[n for k, n in nodes.items() if k != uri],
        labels=pages.labels(nodes),
        private=private,
        alternates=alternates(uri, extra.pop("offered", PLAIN_OFFERS)),
        pages=pages,
        **extra,
    )


def _public_resource(
    uri: str,
    ext: str | None,
    *,
    more: Callable[[Sequence[Any]], dict[str, Any]] = lambda found: {},
    withdrawn_from: str | None = None,
    **extra: Any,
) -> BaseResponse:
    """A public resource's document; ``more``: template values its HTML takes from it;
    ``withdrawn_from``: the uploaded dataset it is part of, whose withdrawn runs' graphs say
    it when nothing listed does."""
    rep = conneg.negotiate(request, PLAIN_OFFERS, extension=ext, default=conneg.HTML)
    try:
        found = public_document(uri, rep)
    except NotFound:
        withdrawn = listings.withdrawn_runs(withdrawn_from) if withdrawn_from else []
        said = _published_quads(uri, withdrawn) if withdrawn else []
        if any(q.subject.value == uri for q in said):  # one of its (explore23 12)
            found = _as_withdrawn(said, rep)
        else:  # what a withdrawn run alone described: its evaluator's release (explore45 1)
            found, runs = described_by_withdrawn(uri, rep)
            extra.setdefault("withdrawn_runs", runs)
    return respond(
        uri,
        PLAIN_OFFERS,
        rep,
        quads=lambda: found,
        html=lambda: _generic_html(uri, found, **extra, **more(found)),
    )


def _paged(
    rep: conneg.Representation, rows: Callable[[int, int], list[Any]], **link: Any
) -> tuple[listings.Page | None, Callable[[], dict[str, Any]]]:
    """For the HTML of a resource with a long table: the page asked for (``?page=N``) and the
    template values of that page (rows, pager); None and nothing for other representations."""
    if rep is not conneg.HTML:
        return None, dict
    page = listings.page_from(request.args)

    def values() -> dict[str, Any]:
        found = rows(page.size + 1, page.offset)
        return {"rows": found[: page.size], "page": page, "has_next": len(found) > page.size}

    link["args"] = {**link.get("args", {}), **listings.page_args(request.args)}
    return page, lambda: {**values(), **link}


# a dataset's page shows how to cite it: its entry is a download too, as an experiment's
DATASET_OFFERS = conneg.offers(quads=True, bibtex=True)
DATASET_QUESTIONS = 100  # questions per page of a dataset's HTML
DATASET_FINDINGS = 50  # findings per page when one kind is listed


def _dataset_html(
    uri: str,
    found: Sequence[Any],
    table: dict[str, Any] | None,
    *,
    endpoint: str,
    route: dict[str, str],
) -> str:
    """A dataset's page, light whatever the dataset: its description without the list of
    finding IRIs, the findings summarised by kind (``?findings=KIND`` lists one kind a page at
    a time), the questions a page at a time (``?questions_page=N``); the RDF has everything."""
    from service.errors import BadRequest

    nodes = index(found)
    main = nodes.get(uri)
    described = None
    if main is not None:  # the finding IRIs are summarised below, not listed here
        described = Node(main.uri)
        described.props.update({p: v for p, v in main.props.items() if p != GQA + "finding"})
        if DCT + "creator" in described.props:  # as the citation names them (explore-15 11e)
            described.props[DCT + "creator"] = _in_given_order(described.props[DCT + "creator"])
    groups = pages.finding_groups(nodes, uri)
    kind = request.args.get("findings") or None
    listed = None
    if kind is not None:
        if kind not in {g.kind for g in groups}:
            withheld = main is not None and _withheld_now(main)
            raise BadRequest(
                f"findings={kind!r}: this dataset's findings are withheld with its gold until "
                "it is revealed (a finding may quote a gold answer or query)"
                if withheld and not groups
                else f"findings={kind!r}: this dataset has findings of the kinds "
                f"{', '.join(sorted({g.kind for g in groups})) or '(none)'}"
            )
        kinds = pages.finding_kinds(nodes)
        rows = [r for r in pages.finding_rows(nodes, uri) if kinds[r.uri][0] == kind]
        at = listings.page_from(request.args, size=DATASET_FINDINGS, name="findings_page")
        listed = {
            "kind": kind,
            "rows": rows[at.offset : at.offset + at.size],
            "total": len(rows),
            "page": at,
            "has_next": len(rows) > at.offset + at.size,
        }
    questions = listings.dataset_questions(uri)
    at = listings.page_from(request.args, size=DATASET_QUESTIONS, name="questions_page")
    findings = {v.value for v in main.all(GQA + "finding")} if main is not None else set()
    title, runnable, withdrawn = _dataset_title(uri, main, endpoint=endpoint, name=route["name"])
    # an upload by its title, version and name, as the menus name it: two versions' pages had
    # one tab title and heading (explore32 8)
    heading = listings.upload_labels([uri]).get(uri) if endpoint == "resources.dataset" else None
    return render_template(
        "dataset.html",
        heading=heading or title or pages.local(uri),
        citation=_dataset_citation(uri, main, nodes, title or pages.local(uri), withdrawn),
        uri=uri,
        title=title or pages.local(uri),
        main=described,
        others=pages.hash_nodes(nodes, uri, skip=findings),  # its distribution, gold, licence…
        labels=_dataset_titles(main) | pages.labels(nodes),
        # a live old version says so too: its users kept citing and running it (explore-17b 4)
        newer=(
            services().storage.catalogue.newer_uploads(route["name"])
            if endpoint == "resources.dataset"
            else []
        ),
        checked=main.text(GQA + "checkedAt") if main else None,
        gold=_gold_state(main, route["name"]),
        values_said=_withheld_said(main),
        uploaded=_uploaded_from(main),
        file_missing=_file_missing(main),
        runnable=runnable,
        withdrawn=withdrawn,
        groups=groups,
        listed=listed,
        questions=questions[at.offset : at.offset + at.size],
        questions_total=len(questions),
        questions_page=at,
        questions_next=len(questions) > at.offset + at.size,
        endpoint=endpoint,
        route=route,  # the route's own arguments, for the links to other pages of a list
        query=dict(request.args.items()),
        table=table,
        alternates=alternates(uri, DATASET_OFFERS),
        pages=pages,
    )


def _dataset_titles(main: Node | None) -> dict[str, str]:
    """The titles of the datasets ``main`` links (its versions, previous and newer), which its
    own document does not describe: a property table names them, not their IRIs, with their
    version labels and names (``hasVersion: Birds QA`` read as the page's own title)."""
    import pyoxigraph as ox

    storage = services().storage
    prefix = storage.uris.dataset("")
    linked = {
        v.value
        for values in (main.props.values() if main is not None else ())
        for v in values
        if isinstance(v, ox.NamedNode) and v.value.startswith(prefix) and "#" not in v.value
    }
    if not linked:
        return {}
    rows = storage.public.query(
        f"SELECT ?d ?t WHERE {{ VALUES ?d {{ {' '.join(f'<{d}>' for d in sorted(linked))} }} "
        f"?d <{DCT}title> ?t }}"
    )
    return {r["d"].value: r["t"].value for r in rows} | listings.upload_labels(linked)


def _dataset_title(
    uri: str, main: Node | None, *, endpoint: str, name: str
) -> tuple[str | None, bool, list[Any]]:
    """A dataset's title (its description's, else the title its withdrawn runs gave it),
    whether a submission may name it, and those withdrawn runs (an upload whose every run was
    withdrawn: its page says so)."""
    title = (main.text(DCT + "title") or main.text(RDFS + "label")) if main else None
    runnable = endpoint == "resources.dataset" and _runnable(name)
    withdrawn = (
        listings.withdrawn_runs(uri) if endpoint == "resources.dataset" and not runnable else []
    )
    return title or next((w.title for w in withdrawn if w.title), None), runnable, withdrawn


def _dataset_bibtex(uri: str, found: Sequence[Any], *, endpoint: str, name: str) -> bytes:
    """The ``.bib`` of a dataset (or a registered version): the entry its page shows."""
    nodes = index(found)
    main = nodes.get(uri)
    title, _, withdrawn = _dataset_title(uri, main, endpoint=endpoint, name=name)
    citation = _dataset_citation(uri, main, nodes, title or pages.local(uri), withdrawn)
    if citation is None:
        raise NotFound(f"{uri} has no description to cite")
    return (citation.bibtex + "\n").encode("utf-8")


def _dataset_citation(
    uri: str, main: Node | None, nodes: Any, title: str, withdrawn: Sequence[Any] = ()
) -> Citation | None:
    """A dataset's citation: by its creators' names (an upload's author said them), else its
    publisher's. An upload whose every run was withdrawn is cited as its first run published
    it (its description left the public graph with them), saying it was withdrawn."""
    from service.web.citation import dataset_citation

    note = _newer_note(uri)
    if withdrawn:
        main, nodes = _as_published(uri, withdrawn)
        note = _withdrawn_note(withdrawn) + (f"; {note}" if note else "")
    if main is None:
        return None
    names = _authors(main, nodes)
    # the key names what the URI does after dataset/: NAME, or NAME/version/V (not V alone)
    named = uri.removeprefix(services().storage.uris.base + "dataset/")
    dataset, _, registered = named.partition("/version/")
    if registered:  # a registered version: its dataset's title (its label says the version,
        # which the citation says apart: "…, version V, version V" before) and authors (its
        # gold recomputed from the same questions: "GERBIL QA" was credited with them)
        from service import catalog

        entry = next((e for e in catalog.entries() if e.name == dataset), None)
        parent = services().storage.uris.dataset(dataset)
        described: dict[str, Node] = {}
        if entry is None or not names:
            public = services().storage.public
            described = index(document_quads(public, parent, follow=FOLLOW_DATASET))
        # an uploaded dataset's version: its upload's title (its internal name, which ends in
        # a hash, was cited: explore45 5), as its runs described it even once withdrawn
        title = (
            entry.title
            if entry
            else (described[parent].text(DCT + "title") if parent in described else None)
            or next((w.title for w in listings.withdrawn_runs(parent) if w.title), None)
            or dataset
        )
        if not names:
            names = _authors(described[parent], described) if parent in described else []
    return dataset_citation(
        named,
        uri,
        title,
        authors=[name for name, _ in names],
        people={name for name, person in names if person},
        version=main.text(DCAT + "version"),
        issued=main.text(DCT + "issued") or _first_uploaded(main),
        note=note,
    )


def _authors(main: Node, nodes: Any) -> list[tuple[str, bool]]:
    """The names of a dataset's creators, else of its publishers other than this service
    (which publishes an upload nobody said who made: it did not author it), in the order the
    author gave them (``#creator-1``, ``#creator-2`` …: RDF keeps none), each with whether its
    type says it is a person (ADMS ``PrivateIndividual(s)``)."""
    from service.graph.questions import service_agent

    service = service_agent(services().storage.uris)
    publishers = [a for a in main.all(DCT + "publisher") if a.value != service]
    names = []
    for agent in _in_given_order(main.all(DCT + "creator") or publishers):
        described = nodes.get(agent.value)
        label = described.text(FOAF + "name") if described is not None else None
        if label:
            person = any(t.value == _PERSON for t in described.all(DCT + "type"))
            names.append((label, person))
    return names


# the ADMS type of a creator who is a person (``--dataset-creator-type 'PrivateIndividual(s)'``)
_PERSON = dcat.PUBLISHER_TYPES + "PrivateIndividual(s)"


def _in_given_order(agents: Sequence[Any]) -> list[Any]:
    """Agents in the order their author gave them: ``#creator-1``, ``#creator-2`` … ``#creator-10``
    (RDF keeps no order; the store gave the last first)."""
    numbered = re.compile(r"(.*?)(\d+)$")
    return sorted(
        agents, key=lambda a: (m[1], int(m[2])) if (m := numbered.match(a.value)) else (a.value, 0)
    )


def _as_published(uri: str, withdrawn: Sequence[Any]) -> tuple[Node | None, dict[str, Node]]:
    """An uploaded dataset's description (and its creators') as its first withdrawn run
    published it: that run's graph stays whole."""
    nodes = index(_published_quads(uri, withdrawn))
    return nodes.get(uri), nodes


def _published_quads(uri: str, withdrawn: Sequence[Any]) -> list[Any]:
    """The quads of :func:`_as_published`, in the first withdrawn run's graph."""
    import pyoxigraph as ox

    storage = services().storage
    first = min(withdrawn, key=lambda w: w.experiment)
    graph = ox.NamedNode(storage.uris.experiment_graph(first.experiment.rsplit("/", 1)[1]))
    quads = list(storage.public.quads_for_pattern(ox.NamedNode(uri), None, None, graph))
    # what it links that the graph describes — its creators, contact point, distribution, the
    # concepts of its language and licence — and their blank nodes (a checksum): it linked
    # nodes it no longer described (explore22 9)
    seen: set[Any] = {ox.NamedNode(uri)}
    linked = [q.object for q in quads]
    while linked:
        node = linked.pop()
        if node in seen or not isinstance(node, ox.NamedNode | ox.BlankNode):
            continue
        seen.add(node)
        found = list(storage.public.quads_for_pattern(node, None, None, graph))
        quads += found
        linked += [q.object for q in found if isinstance(q.object, ox.BlankNode)]
    return quads


def _withdrawn_document(uri: str, rep: conneg.Representation) -> list[Any]:
    """The document of an uploaded dataset whose every run, and every newer version's, was
    withdrawn: nothing public names it any more, yet its withdrawn runs still resolve, link it
    and cite it, so it answers as first published (its page says when and why it was
    withdrawn) where it answered 404 "nothing is known about"."""
    withdrawn = listings.withdrawn_runs(uri)
    if not withdrawn:
        raise NotFound(f"nothing is known about {uri} (or it is not public)")
    return _as_withdrawn(_published_quads(uri, withdrawn), rep)


def _as_withdrawn(quads: list[Any], rep: conneg.Representation) -> list[Any]:
    """A withdrawn run's quads as a document: named by their graph where the format says
    graphs, else in the default graph."""
    import pyoxigraph as ox

    if rep.rdf is not None and rep.rdf.quads:  # named by the graph that holds them
        return quads
    return [ox.Quad(q.subject, q.predicate, q.object, ox.DefaultGraph()) for q in quads]


def _withdrawn_note(withdrawn: Sequence[Any]) -> str:
    """That every run of an uploaded dataset was withdrawn (the last one when, and why), for
    its citation."""
    last = max(withdrawn, key=lambda w: w.withdrawn_at)
    return f"withdrawn on {last.withdrawn_at[:10]}: {' '.join(last.reason.split())}"


def _newer_note(uri: str) -> str | None:
    """An uploaded dataset's newest published version, for its citation: whoever cites the
    old one learns of the corrected file."""
    storage = services().storage
    newer = storage.catalogue.newer_uploads(uri.removeprefix(storage.uris.dataset("")))
    return f"newer version {newer[-1].label}" if newer else None


def _first_uploaded(main: Node) -> str | None:
    """When an uploaded dataset was first uploaded: the date its earliest experiment's id
    begins with (``YYYYMMDD…``); an upload's description has no ``dct:issued``, so its
    citation had no year."""
    ids = [v.split("/experiment/", 1)[1].split("#", 1)[0] for v in _uploaded_from(main)]
    first = min((i for i in ids if EXPERIMENT_ID.match(i)), default=None)
    return f"{first[:4]}-{first[4:6]}-{first[6:8]}" if first else None


def _uploaded_from(main: Node | None) -> list[str]:
    """The experiments' files an uploaded dataset was read from (``…/experiment/ID#file-N``);
    none for a catalogue dataset."""
    derived = main.all(PROV + "wasDerivedFrom") if main is not None else []
    return sorted(v.value for v in derived if "#file-" in v.value)


def _runnable(name: str) -> bool:
    """Whether a submission may name dataset ``name``: a catalogue dataset or a published
    upload (not one whose every run was withdrawn), so that its page links the run form."""
    from service import catalog

    if any(e.name == name for e in catalog.entries()):
        return True
    return services().storage.catalogue.published_upload(name) is not None


def _file_missing(main: Node | None) -> bool:
    """Whether an uploaded dataset not checked yet cannot be checked here: its file is not
    kept in this store (a dump imported without the files beside it), so no start checks it."""
    if main is None or main.text(GQA + "checkedAt") or not _uploaded_from(main):
        return False
    from service.experiments.kept import file_key

    sha = (main.text(GQA + "sha256") or "").lower()
    workspace = services().storage.workspace
    if not re.fullmatch(r"[0-9a-f]{64}", sha) or workspace is None:
        return False
    return not workspace.exists(file_key(sha))


def _dataset_variant(page: listings.Page | None) -> tuple[object, ...]:
    """What tells apart the HTML renderings of one dataset document."""
    keys = ("findings", "findings_page", "questions_page")
    return (page, *(request.args.get(k) for k in keys))


@bp.get("/dataset/<name>")
def dataset(name: str) -> BaseResponse:
    dataset_name, ext = conneg.split_extension(name)
    uris = services().storage.uris
    uri = uris.dataset(dataset_name)
    rep = conneg.negotiate(request, DATASET_OFFERS, extension=ext, default=conneg.HTML)
    try:
        found = public_document(uri, rep, follow=FOLLOW_DATASET, links=LINKS_DATASET)
    except NotFound:
        found = _withdrawn_document(uri, rep)
    page, paged = _paged(
        rep,
        lambda limit, offset: listings.leaderboard(dataset=uri, limit=limit, offset=offset),
        endpoint="resources.dataset",
        args={"name": dataset_name},
    )
    return respond(
        uri,
        DATASET_OFFERS,
        rep,
        quads=lambda: found,
        html=lambda: _dataset_html(
            uri, found, paged(), endpoint="resources.dataset", route={"name": dataset_name}
        ),
        bibtex=lambda: _dataset_bibtex(uri, found, endpoint="resources.dataset", name=dataset_name),
        variant=_dataset_variant(page),
    )


@bp.get("/dataset/<name>/questions.json")
def test_set_questions(name: str) -> Response:
    """A test set's questions without their gold, while its gold is withheld (its own file,
    the gold, is not served then), and after the reveal still: teams' scripts fetched them
    from here, and the link stopped resolving at the end of the task (explore38 8)."""
    from service.experiments.reveal import questions_file, refuse_unlisted

    storage = services().storage
    catalogue = storage.catalogue
    # every run on it withdrawn: its questions, public while its gold was withheld, are served
    # still (a GET answered with the reveal's 409 "its gold cannot be revealed": explore40 8);
    # its withdrawn runs' graphs keep its organiser's run, whose kept file holds them
    withdrawn = (
        catalogue.published_upload(name) is None
        and catalogue.withdrawn_upload(name)
        and catalogue.ever_withheld(name)
    )
    if not withdrawn:
        refuse_unlisted(storage, name)
        if not (catalogue.gold_withheld(name) or catalogue.gold_revealed(name)):
            raise NotFound(
                f"dataset {name} withholds no gold: its file (its distribution) holds its "
                f"questions{_download_said(name)}"
            )
    response = Response(questions_file(storage, name), mimetype="application/json")
    response.headers["Content-Disposition"] = _attachment(f"{name}-questions.json")
    return response


def _download_said(name: str) -> str:
    """ ", at URL" of the download of published uploaded dataset ``name``'s file (its first
    run's), or where its page lists it."""
    from service.experiments.reveal import _runs_on

    storage = services().storage
    found = storage.catalogue.published_upload(name)
    runs = _runs_on(storage, name) if found is not None else []
    if found is None or not runs:
        return f" (its page: {storage.uris.dataset(name)})"
    return f", at {storage.uris.upload_download(runs[0], found[0].lower())}"


@bp.get("/dataset/<name>/question/<path:qid>")
# a question whose id is empty (NLQ has one, upstream): its URI ends with the slash
@bp.get("/dataset/<name>/question/", defaults={"qid": ""})
def question(name: str, qid: str) -> BaseResponse:
    question_id, ext = _question_name(qid)
    storage = services().storage
    uri = storage.uris.question(name, question_id)
    return _public_resource(
        uri,
        ext,
        # every run on its dataset withdrawn: as first published, as its dataset's page is
        # (its withdrawn runs' pages link it: explore22 9)
        withdrawn_from=storage.uris.dataset(name),
        more=lambda found: {
            # the upload it is of, by title, version and name: two versions' questions had
            # one tab title and heading (explore32 8)
            "part_of": listings.upload_labels([storage.uris.dataset(name)]).get(
                storage.uris.dataset(name)
            ),
            "newer": storage.catalogue.newer_uploads(name),
            # its page said nothing of its gold (explore21 14), withdrawn or not (explore23 9)
            "gold_withheld": storage.catalogue.gold_withheld(name)
            or (
                storage.catalogue.ever_withheld(name) and not storage.catalogue.gold_revealed(name)
            ),
            "values_said": {**_position_said(uri, found), **_gold_said(name, uri, found)},
        },
    )


def _gold_said(name: str, uri: str, found: Sequence[Any]) -> dict[str, str]:
    """A built-in dataset's question whose gold its own profile scores 0 for every system
    (TEXT2SPARQL'25: an empty result set, an ASK's false gold): its gold count or answer says
    so (explore41 F1)."""
    from service import catalog
    from service.evaluation.profiles import PROFILES

    own = catalog.own_profile_of(name)
    main = index(found).get(uri)
    if own is None or own not in PROFILES or main is None:
        return {}
    rules = "|".join(f"{key}:{value}" for key, value in PROFILES[own].settings)
    notes = pages.gold_notes(rules, main)
    if notes == (pages.FALSE_ASK_NOTE,):
        return {GQA + "goldAnswer": f"false (xsd:boolean): {notes[0]}"}
    if notes == (pages.EMPTY_GOLD_NOTE,):
        return {GQA + "goldAnswerCount": f"0: {notes[0]}"}
    return {}


def _position_said(uri: str, found: Sequence[Any]) -> dict[str, str]:
    """A question's ``gqa:position`` as a reader counts: "question 3 of 10 in the file" (the
    vocabulary counts from 0, and a bare 2 beside identifier 3 read as a mistake)."""
    main = index(found).get(uri)
    position = main.one(GQA + "position") if main is not None else None
    if position is None or not position.value.isdigit():
        return {}
    dataset = main.one(DCT + "isPartOf") if main is not None else None
    rows = (
        services().storage.public.query(
            f"SELECT ?c WHERE {{ <{dataset.value}> <{GQA}questionCount> ?c }} LIMIT 1"
        )
        if dataset is not None
        else []
    )
    total = next((f" of {r['c'].value}" for r in rows), "")
    number = int(position.value)
    return {
        GQA + "position": f"question {number + 1}{total} in the file "
        f"(the RDF's gqa:position {number} counts from 0)"
    }


def _question_name(name: str) -> tuple[str, str | None]:
    """A question route's id and extension: ``.ttl`` is the empty id's Turtle, as its page
    offers it (``…/question/.ttl``), where other routes keep ``.ttl`` as a name."""
    if name.startswith(".") and name[1:].lower() in conneg.EXTENSIONS:
        return "", name[1:].lower()
    return conneg.split_extension(name)


@bp.get("/dataset/<name>/version/<path:rest>")
def dataset_version(name: str, rest: str) -> BaseResponse:
    """A registered version of a dataset (``CatalogueRepository.register_version``), ``rest`` =
    ``{version}``, and one of its questions (its text and gold answers as that version has
    them), ``rest`` = ``{version}/question/{qid}``. One route for both: the server decodes
    ``%2F``, so a version label or a question id may arrive with slashes in it."""
    uris = services().storage.uris
    version, marker, qid = rest.partition("/question/")
    if marker:
        question_id, ext = _question_name(qid)
        return _public_resource(uris.version_question(name, version, question_id), ext)
    if version.endswith("/file"):
        return _version_file(name, version.removesuffix("/file"))
    label, ext = conneg.split_extension(version)
    uri = uris.dataset_version(name, label)
    rep = conneg.negotiate(request, DATASET_OFFERS, extension=ext, default=conneg.HTML)
    found = public_document(uri, rep, follow=FOLLOW_DATASET, links=LINKS_DATASET)
    return respond(
        uri,
        DATASET_OFFERS,
        rep,
        quads=lambda: found,
        # no leaderboard: results name the dataset, not a version of it
        html=lambda: _dataset_html(
            uri,
            found,
            None,
            endpoint="resources.dataset_version",
            route={"name": name, "rest": rest},
        ),
        bibtex=lambda: _dataset_bibtex(uri, found, endpoint="resources.dataset_version", name=name),
        variant=_dataset_variant(None),
    )


def _withheld_said(main: Any) -> dict[str, str]:
    """A revealed dataset's ``gqa:goldWithheld`` as its Description table says it: withheld
    until the reveal, revealed (a bare "true" beside goldRevealed, under a notice that the
    gold is public, read as withheld still: explore42 5)."""
    if main is None or main.text(GQA + "goldWithheld") != "true":
        return {}
    revealed = main.text(GQA + "goldRevealed")
    if not revealed:
        return {}
    return {GQA + "goldWithheld": f"true until {revealed[:10]}: withheld, then revealed"}


def _gold_state(main: Any, name: str) -> dict[str, Any] | None:
    """Whether uploaded dataset ``name``'s author withheld its gold (``about.gold``), when it
    was revealed (None: still withheld) and, while withheld, the experiments whose owners may
    reveal it; None for a dataset whose gold was never withheld."""
    from service.experiments.reveal import UNLISTED, organiser_runs

    if main is None or main.text(GQA + "goldWithheld") != "true":
        return None
    storage = services().storage
    revealed = main.text(GQA + "goldRevealed")
    if not revealed and storage.catalogue.published_upload(name) is None:
        unlisted = UNLISTED.format(name=name)
        return {"revealed": None, "organisers": [], "unlisted": unlisted, "name": name}
    first = None if revealed else next(organiser_runs(storage, name), None)
    return {"revealed": revealed, "organisers": [first] if first else [], "name": name}


def _version_file(name: str, version: str) -> Response:
    """A registered version's kept file (``dataset refresh --store``): its distribution's
    download URL, the exact bytes its checksum names."""
    import hashlib

    from service.experiments.kept import file_key

    storage = services().storage
    sha = storage.catalogue.version_file(name, version)
    data = storage.workspace.read(file_key(sha)) if sha and storage.workspace else None
    if sha is None or data is None or hashlib.sha256(data).hexdigest() != sha.lower():
        raise NotFound(f"version {version!r} of dataset {name!r} has no file kept here")
    v = storage.uris.dataset_version(name, version)
    rows = storage.public.query(
        f"SELECT ?m WHERE {{ <{v}> <{DCAT}distribution>/<{DCAT}mediaType> ?m }} LIMIT 1"
    )
    media = next((r["m"].value.rsplit("/media-types/", 1)[-1] for r in rows), "application/json")
    response = Response(data, mimetype=media)
    response.headers["Content-Disposition"] = _attachment(f"{name}-{version}.json")
    response.headers["Cache-Control"] = "public, max-age=3600"  # a version never changes
    response.headers["Link"] = f'<{v}>; rel="describedby"'  # its distribution's description
    return response


SYSTEM_OFFERS = conneg.offers(quads=True, csv=True)


@bp.get("/system/<path:name>")
def system(name: str) -> BaseResponse:
    system_name, ext = conneg.split_extension(name)
    stored = listings.stored_system_name(system_name)
    if stored is not None and stored != system_name:  # its name in another Unicode form
        # (NFD for the NFC it is kept in, or the older way round: explore66 F9)
        # under the base, as the other redirects of a resource are (explore67 F6)
        target = services().storage.uris.system(stored) + (f".{ext}" if ext else "")
        query = urlencode(list(request.args.items(multi=True)))
        return redirect(f"{target}?{query}" if query else target, code=301)
    uri = services().storage.uris.system(system_name)
    rep = conneg.negotiate(request, SYSTEM_OFFERS, extension=ext, default=conneg.HTML)
    withdrawn: list[listings.WithdrawnRun] = []
    try:
        found = public_document(uri, rep)
    except NotFound:  # only withdrawn experiments used it: they still link it (explore45 1)
        found, withdrawn = described_by_withdrawn(uri, rep)
    page, paged = _paged(
        rep,
        lambda limit, offset: listings.leaderboard(system=uri, limit=limit, offset=offset),
        endpoint="resources.system",
        args={"name": system_name},
    )
    return respond(
        uri,
        SYSTEM_OFFERS,
        rep,
        quads=lambda: found,
        html=lambda: _generic_html(
            uri,
            found,
            template="system.html",
            table=paged(),
            offered=SYSTEM_OFFERS,
            system_name=system_name,  # its experiments' listing, by name (explore42 6)
            withdrawn_runs=withdrawn,
        ),
        # the CSV is the system's whole history (every public QA task result)
        csv=lambda: listings.leaderboard_csv(listings.leaderboard(system=uri)),
        variant=page,
    )


@bp.get("/software/<name>")
def software(name: str) -> BaseResponse:
    version, ext = conneg.split_extension(name)
    return _public_resource(services().storage.uris.software(version), ext)


CATALOG_OFFERS = conneg.offers(quads=True, csv=True)


@bp.get("/catalog")
@bp.get("/catalog.<ext>")
def catalog(ext: str | None = None) -> BaseResponse:
    """The DCAT catalogue a page at a time (``?page=N``; ``catalog_pages.py``): every format
    of a page holds the catalogue's description and that page's datasets; the CSV is whole
    (a line a dataset)."""
    if ext is not None and ext not in conneg.EXTENSIONS:
        raise NotFound(f"the catalogue has no .{ext} representation")
    graph = services().storage
    uri = graph.uris.catalog
    rep = conneg.negotiate(request, CATALOG_OFFERS, extension=ext, default=conneg.HTML)
    number = listings.number_arg(request.args, "page", 1, listings.MAX_PAGE)
    page = catalog_pages.paging(number)
    read: dict[str, catalog_pages.Members] = {}

    def members() -> catalog_pages.Members:
        if "m" not in read:
            read["m"] = catalog_pages.members(page)
        return read["m"]

    def quads() -> list[Any]:
        union = rep.rdf is None or not rep.rdf.quads  # as public_document reads
        view = catalog_pages.view_quads(uri, ext, page)
        return [*catalog_pages.page_quads(members(), union=union), *view]

    def html() -> str:
        # the catalogue's own graph: its hash resources (catalog#contact-qald lands here)
        found = document_quads(
            graph.public, uri, graph=graph.uris.catalog_graph, follow=FOLLOW_CATALOG
        )
        shown = alternates(uri, CATALOG_OFFERS)
        query = f"?page={number}" if number > 1 else ""
        return render_template(
            "catalog.html",
            uri=uri,
            rows=catalog_pages.rows_in_order(members()),
            agents=pages.hash_nodes(index(found), uri),
            alternates=[{**a, "href": a["href"] + query} for a in shown],
            pages=pages,
            paging=page,
            table={"page": listings.Page(number, page.size), "has_next": number < page.last},
        )

    return respond(
        uri,
        CATALOG_OFFERS,
        rep,
        quads=quads,
        html=html,
        csv=lambda: listings.datasets_csv(catalog_pages.all_rows()),
        variant=(number, ext is not None),
        links=catalog_pages.link_header(uri, ext, page),
        query=f"?page={number}" if number > 1 else "",
    )


@bp.get("/vocab")
@bp.get("/vocab.<ext>")
def vocab(ext: str | None = None) -> BaseResponse:
    import pyoxigraph as ox

    if ext is not None and ext not in conneg.EXTENSIONS:
        raise NotFound(f"the vocabulary has no .{ext} representation")
    graph = services().storage
    uri = graph.uris.vocab
    rep = conneg.negotiate(request, PLAIN_OFFERS, extension=ext, default=conneg.HTML)
    target = ox.NamedNode(graph.uris.vocab_graph)
    found = list(graph.public.quads_for_pattern(None, None, None, target))
    found += _see_also(uri)  # our shapes and the VoID description (explore29 3)
    return respond(
        uri,
        PLAIN_OFFERS,
        rep,
        quads=lambda: found,
        html=lambda: render_template(
            "vocab.html",
            uri=uri,
            terms=listings.vocabulary_terms(found),
            alternates=alternates(uri, PLAIN_OFFERS),
        ),
    )


def _see_also(uri: str) -> list[Any]:
    """``uri rdfs:seeAlso`` our shapes and the VoID description of the public store."""
    import pyoxigraph as ox

    base = services().storage.uris.base
    also = ox.NamedNode(RDFS + "seeAlso")
    return [ox.Quad(ox.NamedNode(uri), also, ox.NamedNode(base + p)) for p in SEE_ALSO]


SEE_ALSO = ("shapes", ".well-known/void")
SH = "http://www.w3.org/ns/shacl#"
VOID = "http://rdfs.org/ns/void#"


@lru_cache(maxsize=1)
def shape_triples() -> tuple[Any, ...]:
    """The SHACL shapes of shapes/ (every file), as pyoxigraph triples: what ``gerbil-qa check``
    validates the store with."""
    import pyoxigraph as ox

    from service.paths import SHAPES_DIR

    found: list[Any] = []
    for path in sorted(SHAPES_DIR.glob("*.ttl")):
        found += ox.parse(path=str(path), format=ox.RdfFormat.TURTLE)
    return tuple(found)


@bp.get("/shapes")
@bp.get("/shapes.<ext>")
def shapes(ext: str | None = None) -> BaseResponse:
    """Our SHACL shapes (shapes/*.ttl), so that a client validates what it reads here with
    the service's own shapes, without a checkout (explore29 3)."""
    import pyoxigraph as ox

    if ext is not None and ext not in conneg.EXTENSIONS:
        raise NotFound(f"the shapes have no .{ext} representation")
    storage = services().storage
    uri = storage.uris.base + "shapes"
    rep = conneg.negotiate(request, PLAIN_OFFERS, extension=ext, default=conneg.HTML)
    me = ox.NamedNode(uri)
    about = [
        ox.Quad(me, ox.NamedNode(DCT + "title"), ox.Literal("GERBIL QA SHACL shapes")),
        ox.Quad(
            me,
            ox.NamedNode(DCT + "description"),
            ox.Literal(
                "The SHACL shapes of everything GERBIL QA writes (experiments, tasks, "
                "per-question results, datasets, the catalogue, systems); each document this "
                "service serves conforms to them (pyshacl, no inference; the vocabulary's "
                "code lists with it).",
                language="en",
            ),
        ),
        ox.Quad(me, ox.NamedNode(DCT + "conformsTo"), ox.NamedNode(SH)),
        ox.Quad(me, ox.NamedNode(RDFS + "seeAlso"), ox.NamedNode(storage.uris.vocab)),
    ]
    found = [*about, *(ox.Quad(t.subject, t.predicate, t.object) for t in shape_triples())]
    return respond(
        uri, PLAIN_OFFERS, rep, quads=lambda: found, html=lambda: _generic_html(uri, about)
    )


@bp.get("/.well-known/void")
@bp.get("/.well-known/void.<ext>")
def void(ext: str | None = None) -> BaseResponse:
    """The VoID description of the public store (VoID §7: ``/.well-known/void``): its SPARQL
    endpoint, dump, vocabularies, root resource (the catalogue) and shapes (explore29 3)."""
    import pyoxigraph as ox

    if ext is not None and ext not in conneg.EXTENSIONS:
        raise NotFound(f"the VoID description has no .{ext} representation")
    storage = services().storage
    uris = storage.uris
    uri = uris.base + ".well-known/void"
    rep = conneg.negotiate(request, PLAIN_OFFERS, extension=ext, default=conneg.HTML)
    doc, store = ox.NamedNode(uri), ox.NamedNode(uri + "#public-store")

    def v(local: str) -> Any:
        return ox.NamedNode(VOID + local)

    def named(iri: str) -> Any:
        return ox.NamedNode(iri)

    triples: list[tuple[Any, Any, Any]] = [
        (doc, named(RDF + "type"), v("DatasetDescription")),
        (doc, named(DCT + "title"), ox.Literal("VoID description of GERBIL QA's public store")),
        (doc, named(FOAF + "primaryTopic"), store),
        (store, named(RDF + "type"), v("Dataset")),
        (store, named(DCT + "title"), ox.Literal("GERBIL QA public store", language="en")),
        (
            store,
            named(DCT + "description"),
            ox.Literal(
                "Every public graph: the vocabulary, the dataset catalogue, the datasets and "
                "their registered versions, the published experiments with their tasks and "
                "per-question results, frozen leaderboards. A withdrawn experiment stays "
                "citable: its graph is kept whole, with its withdrawal note (when and why), "
                "in the dump as a named graph and at the SPARQL endpoint (GRAPH); the "
                "endpoint's default graph leaves out what only withdrawn graphs hold.",
                language="en",
            ),
        ),
        (store, v("sparqlEndpoint"), named(services().config.sparql_url)),
        (store, v("dataDump"), named(uris.base + "dump.nq")),
        (store, v("uriSpace"), ox.Literal(uris.base)),
        (store, v("rootResource"), named(uris.catalog)),
        (store, v("exampleResource"), named(uris.catalog)),
        (store, named(DCT + "conformsTo"), named(uris.base + "shapes")),
        (store, named(RDFS + "seeAlso"), named(uris.catalog)),
        (store, named(RDFS + "seeAlso"), named(uris.vocab)),
    ]
    triples += [(store, v("vocabulary"), named(term)) for term in used_vocabularies()]
    found = [ox.Quad(s, p, o) for s, p, o in triples]
    return respond(
        uri, PLAIN_OFFERS, rep, quads=lambda: found, html=lambda: _generic_html(uri, found)
    )


# the public data's vocabularies as last read, by the public version they were read at
_USED_VOCABULARIES: dict[str, tuple[str, ...]] = {}


def used_vocabularies() -> tuple[str, ...]:
    """The vocabularies the public graphs use (VoID §4.3: each vocabulary's URI, its namespace
    without the "#"): the namespaces of every predicate and class in them, what the dump holds,
    read from the store and kept until the next public write (a scan of every quad, 0.23 s a
    million in memory). A list written by hand named 8 and left out schema.org, FOAF, vCard,
    DataID, VoID, VANN, OWL and DCAT-AP's, all in the dump (explore65 F4)."""
    import pyoxigraph as ox

    version = services().public_version()
    found = _USED_VOCABULARIES.get(version)
    if found is None:
        rows = services().storage.public.query(
            "SELECT DISTINCT ?t WHERE { GRAPH ?g { { ?s ?t ?o } UNION { ?s a ?t } } }"
        )
        terms = (r["t"].value for r in rows if isinstance(r["t"], ox.NamedNode))
        found = tuple(sorted({vocabulary_of(t) for t in terms}))
        _USED_VOCABULARIES.clear()  # one version's only: the list is small, a read cheap
        _USED_VOCABULARIES[version] = found
    return found


def vocabulary_of(term: str) -> str:
    """The vocabulary a term's IRI belongs to: up to its last ``#`` (left out) or ``/``.

    >>> vocabulary_of("http://w3id.org/gerbil/qa/vocab#Task")
    'http://w3id.org/gerbil/qa/vocab'
    >>> vocabulary_of("https://schema.org/codeRepository")
    'https://schema.org/'
    """
    hash_at = term.rfind("#")
    if hash_at >= 0:
        return term[:hash_at]
    return term[: term.rfind("/") + 1]


GRAPH_OFFERS = conneg.offers(quads=True)


@bp.get("/graph/<path:name>")
def named_graph(name: str) -> BaseResponse:
    """A named graph of the store, whole: public graphs for everyone; an unpublished
    experiment's graph for its owner only; the admin graph for nobody (404)."""
    import pyoxigraph as ox

    graph = services().storage
    rest, ext = conneg.split_extension(name)
    uri = graph.uris.base + "graph/" + rest
    located = graph.uris.locate(uri)
    if located is None or not located.kind.startswith("graph-") or located.kind == "graph-admin":
        raise NotFound(f"no public graph {uri}")
    rep = conneg.negotiate(request, GRAPH_OFFERS, extension=ext, default=conneg.HTML)
    store, private = graph.public, False
    if not graph.public.contains_named_graph(ox.NamedNode(uri)):
        if located.kind != "graph-experiment":
            raise NotFound(f"no public graph {uri}")
        experiment_id = located.keys["experiment"]
        _status, store, private = _experiment_store(experiment_id, rep)
        if store is None:
            return not_public(experiment_id, graph.uris.experiment(experiment_id), rep)
    cache: dict[str, list[Any]] = {}

    def quads() -> list[Any]:
        if "q" not in cache:
            cache["q"] = list(store.quads_for_pattern(None, None, None, ox.NamedNode(uri)))
        return cache["q"]

    return respond(
        uri,
        GRAPH_OFFERS,
        rep,
        quads=quads,
        html=lambda: render_template(
            "graph.html",
            uri=uri,
            size=len(quads()),
            private=private,
            alternates=alternates(uri, GRAPH_OFFERS),
        ),
        private=private,
    )


DUMP_OFFERS = conneg.QUADS  # N-Quads and TriG: both written in batches (see dump)
DUMP_BATCH = 20_000


@bp.get("/dump")
@bp.get("/dump.<ext>")
def dump(ext: str | None = None) -> BaseResponse:
    """Every public graph, as N-Quads or TriG (the public store holds nothing else; its default
    graph, a derived copy of the union, is left out)."""
    import pyoxigraph as ox

    graph = services().storage
    rep = conneg.negotiate(request, DUMP_OFFERS, extension=ext, default=conneg.RDF["nquads"])
    if rep.rdf is None:  # pragma: no cover
        raise NotFound("no such dump format")
    syntax = rep.rdf
    uri = graph.uris.base + "dump"
    # weak: the same quads in the same order, written again, are not promised to be the same
    # bytes; a crawler that keeps the dump asks again with If-None-Match and gets a 304 until
    # the next public write (it was sent whole every time, explore45 7)
    modified = services().last_modified()  # the last public write's, as every document's
    etag = f"dump-{rep.extension}-{services().public_version()}"
    since = request.if_modified_since
    not_since = (
        not request.if_none_match  # an ETag sent wins (RFC 9110 §13.2.2)
        and modified is not None
        and since is not None
        and since >= modified
    )
    if not_since or request.if_none_match.contains_weak(etag):
        unchanged = Response(status=304)
        unchanged.set_etag(etag, weak=True)
        unchanged.headers["Cache-Control"] = PUBLIC_CACHE
        return conneg.decorate(unchanged, url=uri, offered=DUMP_OFFERS, chosen=rep)
    source = graph.public.quads_for_pattern(None, None, None, None)

    def body() -> Iterator[bytes]:
        """The dump in batches of :data:`DUMP_BATCH` quads, each written on its own (N-Quads
        and TriG documents concatenate: TriG's graph blocks and prefixes may repeat), so the
        memory a dump takes does not grow with the store (a list of every quad and one body
        took 1.2 GB for a store with one 10^6-answer experiment)."""
        batch: list[Any] = []
        for q in source:
            if not isinstance(q.graph_name, ox.DefaultGraph):
                batch.append(q)
                if len(batch) >= DUMP_BATCH:
                    yield serialize(batch, syntax, context_url="")
                    batch = []
        if batch:
            yield serialize(batch, syntax, context_url="")

    response = Response(body(), content_type=f"{rep.media_type}; charset=utf-8")
    response.headers["Cache-Control"] = PUBLIC_CACHE
    response.set_etag(etag, weak=True)
    if modified is not None:
        response.last_modified = modified
    return conneg.decorate(response, url=uri, offered=DUMP_OFFERS, chosen=rep)
