"""Dumps of a store: ``gerbil-qa export`` and ``gerbil-qa import``.

An export is one experiment's graph, or (the operator's backup) every graph of both datasets,
admin graph included, read from one consistent snapshot (:meth:`StoreAdapter.snapshot`). The
public default graph is a copy of the public named graphs and is not dumped; an import puts
each graph back where it belongs (published experiments, catalogue and vocabulary in the public
dataset, the rest in the private one) and rebuilds the default-graph copy.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from service.errors import BadRequest, NotFound
from service.graph.adapter import WITHDRAWAL, Side, add_public
from service.graph.experiments import Status
from service.graph.terms import XSD
from service.graph.uris import GERBIL, GQA
from service.graph.workspace import is_work_graph
from service.mediatypes import RdfSyntax, rdf_by_name

if TYPE_CHECKING:
    from service.graph.store import Storage

STORE_MARKER = "urn:gerbil-qa:store"
CHANGE_TOKEN = GQA + "publicChange"  # on STORE_MARKER, in the private default graph: the
# replicas' cache signal (service.web.replicas), this store's own: not dumped
EXPERIMENT_GRAPH = re.compile(r"/graph/experiment/([^/]+)$")  # under any base
# on STORE_MARKER, in the private default graph: the store format and version that last
# opened the store to write (``store.mark_version``): the store's own, not dumped
STORE_FORMAT_MARK, WRITTEN_BY = GQA + "storeFormat", GQA + "writtenBy"
IMPORTING = GQA + "importing"  # on STORE_MARKER, in the private default graph, from an import's
# first write to its last: left by an import that was killed (`check` reports it); not dumped
# A whole-store dump's last line, so that a copy cut at a line end (disk full, an interrupted
# scp) is told from a whole one: it parses, and was imported as whole (explore-3 #3). A comment:
# N-Quads and TriG readers skip it. The count is of distinct quads, what a store loads.
CLOSING = "# gerbil-qa dump of a whole store: {} quads"
# ... and the SHA-256 of every byte before that line: a value edited in place (a score changed,
# as many quads as before) was imported as whole, and `check` passed it (explore26 F1)
DIGEST = ", sha256 {}"
_CLOSING = re.compile(
    (
        "^"
        + re.escape(CLOSING).replace(r"\{\}", "([0-9]+)")
        + "(?:"
        + re.escape(DIGEST).replace(r"\{\}", "([0-9a-f]{64})")
        + ")?$"
    ).encode()
)
IN_PROGRESS = (
    "it was in progress when the dump was made, and a dump holds no runs in progress (its "
    "job stayed with the store it ran in): submit it again"
)


def _experiment_id(quad: Any) -> str:
    return str(getattr(quad.subject, "value", "")).rsplit("/", 1)[-1]


def syntax_of(name: str) -> RdfSyntax:
    syntax = rdf_by_name(name)
    if syntax is None or syntax.name not in ("nquads", "trig", "turtle", "ntriples"):
        raise BadRequest(f"unknown export format {name!r}; expected nquads, trig or turtle")
    return syntax


def export(storage: Storage, *, format: str = "nquads", experiment_id: str | None = None) -> bytes:
    """A dump: one experiment's graph, or every graph of both datasets including the admin
    graph, then its closing line (:data:`CLOSING`). Turtle carries no graph names, so it needs
    an experiment."""
    import pyoxigraph as ox

    syntax = syntax_of(format)
    quads: list[Any]
    if experiment_id is not None:
        quads = storage.experiments.quads(experiment_id)
        if not quads:
            raise NotFound(f"no recorded experiment {experiment_id}")
    else:
        if not syntax.quads:
            raise BadRequest(f"{syntax.label} cannot hold named graphs: export one experiment")
        with storage.store.snapshot() as (public, private):
            # The private dataset first: where the two are read one after the other (a remote
            # store), an experiment published between the reads is then in both, as it was
            # before (the admin record read with it says unpublished), never in neither.
            # Written first too: the store marker (the dump's base) is then in its first lines,
            # where `import` into a new store looks for it before loading the whole dump.
            quads = _data_quads(private)
            # the public default graph is a copy of the public named graphs: not dumped
            quads += [
                q
                for q in public.quads_for_pattern(None, None, None, None)
                if not isinstance(q.graph_name, ox.DefaultGraph)
            ]
    if not syntax.quads:
        quads = [ox.Triple(q.subject, q.predicate, q.object) for q in quads]
    from service.graph.terms import PREFIXES

    kwargs = {"prefixes": PREFIXES} if syntax.name in ("turtle", "trig") else {}
    data = ox.serialize(quads, format=syntax.oxigraph_format(), **kwargs)  # type: ignore[arg-type]
    if experiment_id is None:
        data = data or b""
        digest = hashlib.sha256(data).hexdigest()
        data += (CLOSING.format(len(set(quads))) + DIGEST.format(digest)).encode() + b"\n"
    return data or b""


def _data_quads(private: Any) -> list[Any]:
    """The private dataset's data: a remote store's job state and kept files (work graphs),
    and its replicas' change token, are the store's own, not dumped. Read graph by graph so
    the work graphs, which may hold far more bytes than the data (every kept upload), are not
    transferred only to be dropped."""
    import pyoxigraph as ox

    quads = [
        q
        for q in private.quads_for_pattern(None, None, None, ox.DefaultGraph())
        if q.predicate.value not in (CHANGE_TOKEN, IMPORTING, STORE_FORMAT_MARK, WRITTEN_BY)
    ]
    for graph in sorted(private.named_graphs(), key=lambda g: g.value):
        if not is_work_graph(graph.value):
            quads += private.quads_for_pattern(None, None, None, graph)
    return quads


def dump_base(data: bytes, *, format: str = "nquads") -> str | None:
    """The base of the store a dump was made from (its store marker); None: not said, or not
    readable (:func:`import_dump` then says what is wrong)."""
    import pyoxigraph as ox

    marker, base = ox.NamedNode(STORE_MARKER), ox.NamedNode(GQA + "base")
    try:
        for quad in ox.parse(data, format=syntax_of(format).oxigraph_format()):
            if quad.subject == marker and quad.predicate == base:
                return str(getattr(quad.object, "value", "")) or None
    except SyntaxError:
        return None
    return None


class Imported(NamedTuple):
    """What :func:`import_dump` did: the quads it read, and the experiments it left as the store
    has them (already there: a dump imported twice, or a backup restored into a used store)."""

    read: int
    kept: list[str]
    replaced: list[str]  # the store's own demo experiments, which gave way to the dump
    # frozen leaderboards of the dump the operator removed since (left out, as a withdrawal
    # made since stands): their ids
    removed: tuple[str, ...] = ()


WHAT_A_DUMP_IS = (
    "import takes a dump of a whole store (gerbil-qa export --store DIR --output all.nq, "
    "or --format trig to a .trig file) or a backup (export --files)"
)
_TURTLE = re.compile(rb"^(?:\s|#[^\n]*\n)*(?:@prefix|@base|prefix\s|base\s)", re.I)


def read_dump(
    data: bytes, *, format: str = "nquads", source: str = "the dump", legacy: bool = False
) -> Any:
    """The dump's quads in a scratch store, before anything is written anywhere. Refused
    (BadRequest at ``source:line``): a dump that does not parse (cut inside a line, edited),
    Turtle, an empty file, one without its closing line (:data:`CLOSING`: cut at a line end)
    or whose quads are not as many as it says. ``legacy``: a dump of a version before the
    closing line is taken without it, if it has the store marker."""
    import pyoxigraph as ox

    syntax = syntax_of(format)
    if not syntax.quads:
        raise BadRequest(f"a store dump must be N-Quads or TriG, not {syntax.label}")
    if syntax.name == "nquads" and _TURTLE.match(data[:4096]):
        raise BadRequest(
            f"{source}:1:1: not a dump (nothing imported): it starts with a prefix declaration, "
            "as Turtle does "
            "(export --format turtle writes one experiment's graph, without its record; a TriG "
            f"dump is read as TriG when its name ends in .trig); {WHAT_A_DUMP_IS}"
        )
    scratch = ox.Store()
    try:
        # parsed, not loaded: a load renames every blank node, so a restored store served its
        # experiments' Turtle under other blank-node labels than the one exported (the same
        # triples, other bytes: a cited document's hash changed, explore60 F5)
        scratch.extend(ox.parse(data, format=syntax.oxigraph_format()))
    except SyntaxError as err:
        where = f"{source}:{err.lineno}:{err.offset}" if err.lineno else source
        raise BadRequest(f"{where}: cannot read the dump (nothing imported): {err.msg}") from err
    if not data.strip():
        raise BadRequest(f"{source}:1: empty, expected a dump (nothing imported); {WHAT_A_DUMP_IS}")
    _check_whole(scratch, data, source=source, legacy=legacy)
    return scratch


def closing(data: bytes) -> int | None:
    """The number of quads a dump's closing line says (:data:`CLOSING`); None: no such line."""
    found = _CLOSING.match(data.rstrip().rsplit(b"\n", 1)[-1].strip())
    return int(found.group(1)) if found is not None else None


def digest_said(data: bytes) -> bool:
    """Whether a dump's closing line carries its SHA-256 (:data:`DIGEST`)."""
    return _said_digest(data) is not None


def _said_digest(data: bytes) -> tuple[str, str] | None:
    """The SHA-256 a dump's closing line says, and that of the bytes before the line; None:
    a closing line without one (a dump made before 2026-11-29)."""
    body, _, last = data.rstrip().rpartition(b"\n")
    found = _CLOSING.match(last.strip())
    if found is None or found.group(2) is None:
        return None
    said = found.group(2).decode()
    given = hashlib.sha256(body + b"\n" if body else b"").hexdigest()
    if given != said and b"\r\n" in body:  # a copy that wrote CRLF (a Windows share, FTP
        # ascii, git autocrlf) holds the same quads: its lines as exported give the digest
        lines = body.replace(b"\r\n", b"\n").rstrip(b"\r")
        given = hashlib.sha256(lines + b"\n").hexdigest()
    return said, given


def _check_whole(scratch: Any, data: bytes, *, source: str, legacy: bool) -> None:
    """Refuse a dump that is not whole (see :func:`read_dump`)."""
    import pyoxigraph as ox

    lines = data.rstrip().count(b"\n") + 1
    said = closing(data)
    if said is not None:
        held = len(scratch)
        if said != held:
            raise BadRequest(
                f"{source}:{lines}: the closing line says {said} quads, the dump holds {held}: "
                "lines were lost or edited (nothing imported)"
            )
        digests = _said_digest(data)
        if digests is not None and digests[0] != digests[1]:
            raise BadRequest(
                f"{source}:{lines}: the closing line says the dump's SHA-256 is {digests[0]}, "
                f"its bytes give {digests[1]}: it was edited after export (nothing imported). "
                "To import an edited dump on purpose, delete its closing line and import it "
                "with --legacy-dump, unchecked"
            )
        return
    marker = ox.NamedNode(STORE_MARKER)
    if next(iter(scratch.quads_for_pattern(marker, None, None)), None) is None:
        _refuse_unrecorded(scratch, None, set())  # an export of one experiment: said so
        raise BadRequest(
            f"{source}: not a dump of a store: no store marker <{STORE_MARKER}> (nothing "
            f"imported); {WHAT_A_DUMP_IS}"
        )
    if not legacy:
        raise BadRequest(
            f"{source}:{lines + 1}: expected the dump's closing line "
            f"'{CLOSING.format('N')}', which export writes last: the dump was cut short "
            "(nothing imported). A dump made before gerbil-qa wrote that line (2026-11-28) "
            "has none: import --legacy-dump takes it as it is, unchecked"
        )


def import_dump(
    storage: Storage,
    data: bytes | Any,
    *,
    format: str = "nquads",
    source: str = "the dump",
    rebase: bool = False,
    demos: Collection[str] = (),
) -> Imported:
    """Restore a dump made by :func:`export` (whole store): each graph goes back to the
    dataset it belongs in. An experiment the store already holds keeps the store's graph and
    record: adding the dump's again doubled every blank node of it (an import renamed them
    then), so its warnings and intervals appeared twice; only a publication the dump records
    and the store lacks (an import killed before its last write) is completed. ``data``: the
    dump's bytes, or what :func:`read_dump` made of them. A dump made under another base is
    refused, or with ``rebase`` its URIs are moved to the store's (:func:`rebased`).
    ``demos``: the store's demo experiments (:func:`service.web.demo.demo_ids`); a store that
    holds nothing else was started before its restore (``serve`` computes the demo at its
    first start), and they give way to the dump: else the dump's experiment of the same day's
    id was refused as another deployment's, or, a day later, the store had two demos."""
    import pyoxigraph as ox

    scratch = read_dump(data, format=format, source=source) if isinstance(data, bytes) else data
    uris = storage.uris
    held = {st.id: st.public for st in storage.experiments.listing(include_private=True)}
    replaced = sorted(held) if held and held.keys() <= set(demos) else []
    for eid in replaced:
        del held[eid]
    # before the base: an export of one experiment says no base, so its graphs were refused
    # as "not one of this store's", which sent the operator to --base for nothing
    _refuse_unrecorded(scratch, uris, set(held))
    marker = ox.NamedNode(STORE_MARKER)
    bases = {
        str(getattr(q.object, "value", ""))
        for q in scratch.quads_for_pattern(marker, ox.NamedNode(GQA + "base"), None)
    }
    if bases and bases != {uris.base}:
        if not rebase or len(bases) > 1:
            raise BadRequest(
                f"the dump was made with base {', '.join(bases)}, not {uris.base} (import "
                "--rebase moves its URIs to this store's base)"
            )
        scratch = rebased(scratch, bases.pop(), uris.base)
    if not storage.store.shared:  # a remote store names the blank nodes of an INSERT DATA
        scratch = _labels_apart(scratch, (storage.public, storage.private))
    admin = ox.NamedNode(uris.admin_graph)
    published_p = ox.NamedNode(GQA + "published")
    published_at = ox.NamedNode(GQA + "publishedAt")
    published = {
        str(getattr(q.subject, "value", "")).rsplit("/", 1)[1]
        for q in scratch.quads_for_pattern(None, published_p, None, admin)
        if getattr(q.object, "value", None) == "true"
    }
    _refuse_collisions(
        scratch, storage, held.keys() & _experiments_in(scratch, admin), demos=set(demos)
    )
    # a run in progress in the dump runs nowhere now: said at once (it was listed running
    # until a serve started on the store, explore-3 #2), in the import's first write
    status_p, message_p = ox.NamedNode(GQA + "status"), ox.NamedNode(GQA + "message")
    active = {s.value for s in Status if s.active}
    stopped = {
        _experiment_id(q)
        for q in scratch.quads_for_pattern(None, status_p, None, admin)
        if getattr(q.object, "value", None) in active and _experiment_id(q) not in held
    }
    restated = (status_p, message_p, ox.NamedNode(GQA + "progress"))
    public: list[Any] = []
    private: list[Any] = []
    exp_prefix = uris.base + "graph/experiment/"
    board_prefix = uris.leaderboard_graph("")
    from service.graph.leaderboards import removed_since

    gone = removed_since(storage)
    left_out: set[str] = set()

    @functools.cache
    def held_board(graph: str) -> bool:  # asked once a graph (a round trip on a remote store)
        return bool(storage.public.contains_named_graph(ox.NamedNode(graph)))

    read = 0
    for q in scratch:
        g = q.graph_name
        read += 1  # every quad, the marker's too: the dump's closing line counts them all
        if isinstance(g, ox.DefaultGraph):
            continue  # the store marker
        name = str(getattr(g, "value", ""))
        if not name.startswith(uris.base + "graph/"):
            raise BadRequest(f"the dump has a graph that is not one of this store's: {name}")
        if name == uris.admin_graph:
            eid = _experiment_id(q)
            if eid in held:
                continue  # the store's record stands
            if q.predicate in (published_p, published_at) and eid in published:
                continue  # recorded unpublished first, published below
            if q.predicate in restated and eid in stopped:
                continue  # ended below
            private.append(q)
        elif name.startswith(exp_prefix):
            eid = name[len(exp_prefix) :]
            if eid in published and not held.get(eid, False):
                public.append(q)
            if eid not in held:
                private.append(q)
        elif name.startswith(board_prefix) and uris.leaderboard(name[len(board_prefix) :]) in gone:
            left_out.add(name[len(board_prefix) :])
        elif name.startswith(board_prefix) and held_board(name):
            continue  # the store's board stands, as its experiments do (two titles, two times)
        else:
            public.append(q)
    withdrawn = frozenset(
        q.graph_name.value
        for q in scratch.quads_for_pattern(None, ox.NamedNode(WITHDRAWAL[0]), None)
        if isinstance(q.graph_name, ox.NamedNode)
    )
    unpublished = [
        ox.Quad(ox.NamedNode(uris.experiment(eid)), published_p, ox.Literal(False), admin)
        for eid in sorted(published - held.keys())
    ]
    for eid in sorted(stopped):
        exp = ox.NamedNode(uris.experiment(eid))
        private += [
            ox.Quad(exp, status_p, ox.Literal(Status.ERROR.value), admin),
            ox.Quad(exp, message_p, ox.Literal(IN_PROGRESS), admin),
        ]
    # Three steps, each whole, so that a crash between them leaves no experiment partial: every
    # experiment private with its admin record (one transaction); then the public graphs;
    # then the published ones made public as a publication is, completed by the next open if
    # the process dies first (ExperimentRepository.recover: the public copy holds dct:issued).
    # The first write also notes that an import is under way, the last one removes the note: a
    # kill between them (published experiments still private) is what `check` then reports.
    begun = ox.Quad(marker, ox.NamedNode(IMPORTING), ox.Literal(source), ox.DefaultGraph())
    with storage.store.lock:
        for eid in replaced:  # after every check: a refused dump leaves the store as it was
            storage.experiments.discard(eid)
        storage.store.add(Side.PRIVATE, [*private, *unpublished, begun])
        add_public(storage.store, public, withdrawn=withdrawn)
        storage.experiments.recover()
        storage.store.update(Side.PRIVATE, f"DELETE WHERE {{ <{STORE_MARKER}> <{IMPORTING}> ?f }}")
    kept = sorted(held.keys() & _experiments_in(scratch, admin))
    return Imported(read, kept, replaced, tuple(sorted(left_out)))


def _labels_apart(scratch: Any, sides: Sequence[Any]) -> Any:
    """The dump's quads with a fresh blank node for each label the store already uses for
    another node (in any graph, as subject or object): the labels are kept (a restore serves
    its Turtle byte for byte), but an edited or foreign dump reusing a held label joined two
    experiments' nodes (one file with two checksums, explore61 F12). A label whose quads the
    store already holds, every one, is the same node (the same dump imported again): kept,
    not doubled. One lookup per distinct label."""
    import pyoxigraph as ox

    def used(term: Any, where: Any) -> bool:
        return any(
            next(iter(side.quads_for_pattern(term, None, None)), None) is not None
            or next(iter(side.quads_for_pattern(None, None, term)), None) is not None
            for side in where
        )

    def held(q: Any) -> bool:
        return any(
            next(iter(side.quads_for_pattern(q.subject, q.predicate, q.object, q.graph_name)), None)
            is not None
            for side in sides
        )

    labels = {
        term for q in scratch for term in (q.subject, q.object) if isinstance(term, ox.BlankNode)
    }
    fresh: dict[Any, Any] = {}
    for label in labels:
        if not used(label, sides):
            continue
        mine = [
            *scratch.quads_for_pattern(label, None, None),
            *scratch.quads_for_pattern(None, None, label),
        ]
        if not all(held(q) for q in mine):
            fresh[label] = ox.BlankNode()
    if not fresh:
        return scratch
    out = ox.Store()
    out.bulk_extend(
        ox.Quad(
            fresh.get(q.subject, q.subject),
            q.predicate,
            fresh.get(q.object, q.object),
            q.graph_name,
        )
        for q in scratch
    )
    return out


def rebased(scratch: Any, old: str, new: str) -> Any:
    """The dump's quads with every URI the service minted under base ``old`` moved under
    ``new`` (a store tried out at localhost, deployed under its public base): subjects,
    objects, graph names and ``xsd:anyURI`` literals. The vocabularies' terms are never moved,
    even where ``old`` is a prefix of them (a base of ``http://w3id.org/gerbil/qa/``): nor the
    ontology itself, ``<http://w3id.org/gerbil/qa/vocab>`` (no ``#``, so no ``gqa:`` term),
    which every term is ``rdfs:isDefinedBy``."""
    import pyoxigraph as ox

    from service.contracts.turtle import PREFIXES
    from service.contracts.vocabulary import ONTOLOGY

    kept = (GQA, GERBIL, PREFIXES["gqash"])
    ontology = ONTOLOGY.strip("<>")
    any_uri = ox.NamedNode(XSD + "anyURI")

    def mine(text: str) -> bool:
        return text.startswith(old) and not text.startswith(kept) and text != ontology

    def moved(term: Any) -> Any:
        if isinstance(term, ox.NamedNode) and mine(term.value):
            return ox.NamedNode(new + term.value[len(old) :])
        if isinstance(term, ox.Literal) and term.datatype == any_uri and mine(term.value):
            return ox.Literal(new + term.value[len(old) :], datatype=any_uri)
        return term

    out = ox.Store()
    out.bulk_extend(
        ox.Quad(moved(q.subject), q.predicate, moved(q.object), moved(q.graph_name))
        for q in scratch
    )
    marker = ox.NamedNode(STORE_MARKER)
    base = ox.NamedNode(GQA + "base")
    for q in list(out.quads_for_pattern(marker, base, None)):  # the dump now says its new base
        out.remove(q)
        out.add(ox.Quad(marker, base, ox.Literal(new), q.graph_name))
    return out


def _refuse_collisions(scratch: Any, storage: Storage, both: set[str], *, demos: set[str]) -> None:
    """An id the store and the dump both hold must be one experiment (one owner token): an
    experiment of another deployment under a held id was taken for the store's own, and the
    store's private experiment replaced by the dump's published one. Refused, naming them,
    and the store's demo among them as such (``demos``), with the way out."""
    import pyoxigraph as ox

    token = ox.NamedNode(GQA + "ownerTokenHash")
    admin = ox.NamedNode(storage.uris.admin_graph)

    def hashes(store: Any, eid: str) -> set[str]:
        exp = ox.NamedNode(storage.uris.experiment(eid))
        return {str(q.object.value) for q in store.quads_for_pattern(exp, token, None, admin)}

    other = sorted(eid for eid in both if hashes(scratch, eid) != hashes(storage.private, eid))
    if other:
        named = (
            f"experiment {other[0]} is not the store's experiment of that id"
            if len(other) == 1
            else f"experiments {', '.join(other)} are not the store's experiments of those ids"
        )
        demo = sorted(demos.intersection(other))
        why = (
            f"; the store's {', '.join(demo)} is the demo experiment `serve` computed at its "
            "first start, and the store holds other experiments too, so it is not replaced: "
            "restore a backup into a new store before its first `serve` (or start that with "
            "`serve --no-demo`)"
            if demo
            else ""
        )
        raise BadRequest(
            f"the dump's {named} "
            "(another owner token): import restores a store's own dump, it cannot merge "
            f"another deployment's experiments into this one (nothing imported){why}"
        )


def _refuse_unrecorded(scratch: Any, uris: Any | None, held: set[str]) -> None:
    """An experiment graph needs its admin record (status, owner token): one without it was
    imported as a graph no page, listing or token could reach. That is what an export of one
    experiment holds: refused, saying so, whatever base its URIs have (the store's own
    experiments excepted: a dump of this store imported again; ``uris`` None: no store)."""
    import pyoxigraph as ox

    status = ox.NamedNode(GQA + "status")
    recorded = {
        _experiment_id(q)
        for q in scratch.quads_for_pattern(None, status, None)
        if str(getattr(q.graph_name, "value", "")).endswith("/graph/admin")
    }
    own = uris.base + "graph/experiment/" if uris is not None else "\n"
    unrecorded = set()
    for graph in scratch.named_graphs():
        found = EXPERIMENT_GRAPH.search(graph.value)
        if found is None or found.group(1) in recorded:
            continue
        if not (graph.value.startswith(own) and found.group(1) in held):
            unrecorded.add(found.group(1))
    if unrecorded:
        raise BadRequest(
            f"the dump holds experiment {', '.join(sorted(unrecorded))} without its "
            "record (status, owner token): an export of one experiment (export --experiment) "
            "cannot be imported; import takes a dump of a whole store (export without "
            "--experiment)"
        )


def _experiments_in(scratch: Any, admin: Any) -> set[str]:
    """The ids of the experiments a dump records (an admin status)."""
    import pyoxigraph as ox

    status = ox.NamedNode(GQA + "status")
    return {_experiment_id(q) for q in scratch.quads_for_pattern(None, status, None, admin)}
