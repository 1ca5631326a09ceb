"""Opening a store: the adapter, the URIs under its base, and the two repositories.

Everything the service knows is RDF in two datasets (:mod:`service.graph.adapter`):

- **public**: the vocabulary (``graph/vocab``), the catalogue (``graph/catalog``), the questions
  and checks of catalogue datasets (``graph/dataset/{name}``; the checks alone of a published
  uploaded dataset) and of registered dataset versions
  (``graph/dataset/{name}/version/{v}``), and every *published* experiment
  (``graph/experiment/{id}``). Nothing else is ever written there, so the SPARQL endpoint can
  query it and nothing private can leak, whatever the query (``GRAPH ?g``, ``FROM NAMED``…).
- **private**: unpublished experiments (same graph names) and the admin graph (``graph/admin``:
  status, owner-token hash, daily id counter, publication time), which the public never sees.

**The public default graph is the union of the public named graphs, materialised** (kept in step
by every public write, in the same transaction, :func:`~service.graph.adapter.add_public`; of a
withdrawn experiment's graph, only its withdrawal note), and
queries read it as a plain default graph: the SPARQL endpoint passes no dataset options. The
measured alternatives (``bench/store.py``, pyoxigraph 0.5): ``use_default_graph_as_union=True``
has *bag* semantics across graphs, not an RDF merge: a system described in every experiment graph
that used it matches ``?system rdfs:label ?l`` once per such graph, so the dataset leaderboard
returned 1,046 rows (50 distinct) at 1k experiments, and (measured once) 100,433 rows in 9.6 s
instead of 500 rows in 0.09 s at 10k; ``DISTINCT`` would hide the rows, not the work.
``default_graph=[…]`` would list every public graph (100k IRIs) in each query. The copy costs
one more default-graph entry per published quad (three index entries; publishing a 400-question
experiment takes ~0.35 s) and about a third more disk for the public dataset. With it, the
published leaderboard query (:mod:`service.graph.queries`) costs at most 1.14x the CPU time of a
raw cube of only the triples it reads, at 1k, 10k and 100k experiments.

The repositories: :class:`~service.graph.experiments.ExperimentRepository` (ids, status
lifecycle, recording, publication, papers) and
:class:`~service.graph.catalogue.CatalogueRepository` (vocabulary, catalogue, dataset questions
and versions); dumps are :mod:`service.graph.dumps`. A store keeps the base it was created with
and refuses another.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from service.errors import BadRequest, NotFound, ServiceError
from service.graph.adapter import QuadReader, Side, StoreAdapter
from service.graph.catalogue import CatalogueRepository
from service.graph.dumps import STORE_MARKER
from service.graph.embedded import EmbeddedStore, damaged
from service.graph.experiments import ExperimentRepository
from service.graph.remote import ENV_PRIVATE, RemoteSettings, RemoteStore, is_remote
from service.graph.uris import DEFAULT_BASE, GQA, Uris
from service.graph.workspace import DirWorkspace, GraphWorkspace, Workspace

log = logging.getLogger(__name__)

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


@dataclass(eq=False, slots=True)
class Storage:
    """An open store: its adapter, the URIs under its base, and the repositories over it."""

    store: StoreAdapter
    uris: Uris
    experiments: ExperimentRepository
    catalogue: CatalogueRepository

    @property
    def public(self) -> QuadReader:
        """The public dataset (what the SPARQL endpoint and the pages show)."""
        return self.store.public

    @property
    def private(self) -> QuadReader:
        return self.store.private

    @property
    def work_dir(self) -> Path | None:
        """The local directory beside the store (snapshots; an embedded store's workspace)."""
        return self.store.work_dir

    @property
    def workspace(self) -> Workspace | None:
        """Where jobs and kept files are (:mod:`service.graph.workspace`): the directory beside
        an embedded store, the private dataset of a shared one (None: in memory)."""
        return workspace_of(self.store)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Storage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


Location: TypeAlias = Path | str  # a store directory, or the http(s) URL of a remote store


def check_location(location: str | Path | None) -> Location | None:
    """A store location: a directory (a Path), an http(s) URL kept as text (a remote store,
    :mod:`service.graph.remote`), None for in memory; another scheme is refused."""
    if location is None:
        return None
    text = str(location)
    if is_remote(text):
        return text
    if _SCHEME.match(text):
        raise BadRequest(
            f"--store {text}: expected a directory or an http(s) URL of a SPARQL store"
        )
    return Path(location)


def workspace_of(store: StoreAdapter) -> Workspace | None:
    """The workspace of an open store (see :attr:`Storage.workspace`)."""
    if store.shared:
        cache = store.work_dir / "cache" if store.work_dir is not None else None
        return GraphWorkspace(store, cache)
    return DirWorkspace(store.work_dir) if store.work_dir is not None else None


def workspace_at(location: Location) -> Workspace:
    """The workspace of a store not opened (an embedded one may be held by a server process):
    its directory, or a remote store's private dataset."""
    if isinstance(location, str) and is_remote(location):
        settings = RemoteSettings.from_env(location)
        return workspace_of(RemoteStore(settings)) or DirWorkspace(work_dir_of(location))
    return DirWorkspace(Path(location))


def work_dir_of(location: Location) -> Path:
    """The local directory of a store: the directory itself (its workspace), or a remote
    store's work directory (``GERBIL_QA_WORK_DIR``: a cache of kept files, refreshed datasets)."""
    if isinstance(location, str) and is_remote(location):
        work = RemoteSettings.from_env(location).work_dir
        assert work is not None  # from_env always names one
        return work
    return Path(location)


def open_adapter(location: str | Path | None) -> StoreAdapter:
    """The adapter for a location: a remote store for an http(s) URL (settings from the
    environment, :mod:`service.graph.remote`), else the embedded store in that directory."""
    if location is not None and is_remote(str(location)):
        return RemoteStore(RemoteSettings.from_env(str(location)))
    return EmbeddedStore(check_location(location))


def open_storage(
    location: str | Path | None,
    *,
    base: str | None = DEFAULT_BASE,
    catalog: bool = True,
    create: bool = True,
    read_only: bool = False,
) -> Storage:
    """Open (or, with ``create``, create) the store at ``location`` (a directory, an http(s)
    URL, None: in memory), check its base (``None``: the store's own, :data:`DEFAULT_BASE` for
    a new one), complete what a crash interrupted and (re)load the vocabulary and, with
    ``catalog``, the built-in catalogue when they changed. Without ``create`` (the commands
    that only read) a location that holds no store is refused, nothing written: a mistyped
    URL or directory, far likelier there than a new store, was made into one (explore-12 #3).
    With ``read_only`` (export, check, the listings) nothing at all is written: no version
    mark, no recovery, no vocabulary or catalogue of this release — an older release's
    ``check`` run against a store put back its own vocabulary and marked the store as
    written by it (explore20 #12); the next writing open completes and updates what is due."""
    create = create and not read_only
    private = location / "private" if isinstance(location, Path) else None
    if private is not None and not create and not private.is_dir():
        raise _no_store(location)
    if private is not None and read_only and not any(private.iterdir()):
        raise _no_store(location)  # opening it would make an empty database (explore23 16)
    adapter = open_adapter(location)
    try:
        marked = _marked_base(adapter)
        if read_only and marked is None and not isinstance(adapter, RemoteStore):
            raise _no_store(location)  # a directory that holds no marker is not one of ours
        uris = Uris(base or marked or DEFAULT_BASE)
        _check_base(adapter, uris.base, found=marked, create=create)
        if create and isinstance(adapter, RemoteStore):
            adapter.check_writable()
        storage = Storage(
            adapter, uris, ExperimentRepository(adapter, uris), CatalogueRepository(adapter, uris)
        )
        if read_only:
            _warn_if_newer(adapter)
            return storage
        writers = _marks(adapter)[1]
        storage.catalogue.previous_writer = writers[0] if writers else None
        mark_version(adapter)
        storage.experiments.recover()
        storage.catalogue.ensure_vocabulary()
        if catalog:
            storage.catalogue.ensure_catalog()
    except (OSError, RuntimeError) as err:  # a damaged embedded store fails on its first read
        _close_quietly(adapter)
        if isinstance(adapter, EmbeddedStore) and adapter.path is not None:
            raise damaged(adapter.path, err) from err
        raise
    except BaseException:
        _close_quietly(adapter)
        raise
    return storage


# What this version writes a store as: raised when a change makes what it writes misread by
# the versions before it (which record none: 0). Kept in the store marker with the version.
STORE_FORMAT = 1


def mark_version(adapter: StoreAdapter) -> None:
    """Record this version and its store format in the store marker, so that an operator who
    rolls back is told: a store a newer format wrote is said so at open, and keeps that mark.
    Nothing is written when the marker already says this version."""
    from service import release
    from service.graph import nodes as n
    from service.graph.terms import XSD

    formats, writers = _marks(adapter)
    ours = release.source().version
    if _warn_if_newer(adapter, formats, writers):
        return
    if formats == [STORE_FORMAT] and writers == [ours]:
        return
    if writers:
        log.info("the store was last written by gerbil-qa %s; now %s", writers[0], ours)
    subject = f"<{STORE_MARKER}>"
    number = n.literal(str(STORE_FORMAT), datatype=XSD + "integer")
    try:
        _write_mark(adapter, subject, number, n.literal(ours))
    except (ServiceError, OSError) as err:  # a store this process may only read
        log.debug("the store's version mark not written: %s", err)


def _warn_if_newer(
    adapter: StoreAdapter,
    formats: list[int] | None = None,
    writers: list[str] | None = None,
) -> bool:
    """Say so when a newer store format wrote the store (its mark is then kept); True if so."""
    from service import release

    if formats is None or writers is None:
        formats, writers = _marks(adapter)
    if not formats or max(formats) <= STORE_FORMAT:
        return False
    log.warning(
        "the store at %s was last written by gerbil-qa %s, whose store format %d is newer "
        "than this version's (%s, format %d): what it wrote may be read wrongly here; run "
        "that version, or restore a backup (gerbil-qa export) this one made",
        adapter.location,
        writers[0] if writers else "(unknown)",
        max(formats),
        release.source().version,
        STORE_FORMAT,
    )
    return True


def _marks(adapter: StoreAdapter) -> tuple[list[int], list[str]]:
    """The store formats and versions the store marker says (:func:`mark_version`)."""
    from service.graph.dumps import STORE_FORMAT_MARK, WRITTEN_BY
    from service.graph.nodes import node

    marker, found = node(STORE_MARKER), adapter.private.quads_for_pattern
    formats = [
        int(q.object.value)
        for q in found(marker, node(STORE_FORMAT_MARK), None)
        if q.object.value.isdigit()
    ]
    return formats, [q.object.value for q in found(marker, node(WRITTEN_BY), None)]


def last_writer(adapter: StoreAdapter) -> str | None:
    """The version that last opened the store to write (its marker), or None."""
    writers = _marks(adapter)[1]
    return writers[0] if writers else None


def newer_writer(adapter: StoreAdapter) -> str | None:
    """Who wrote the store in a newer store format than this version's, or None."""
    formats, writers = _marks(adapter)
    if not formats or max(formats) <= STORE_FORMAT:
        return None
    return f"gerbil-qa {writers[0] if writers else '(unknown)'} (store format {max(formats)})"


def _write_mark(adapter: StoreAdapter, subject: str, number: object, version: object) -> None:
    from service.graph.dumps import STORE_FORMAT_MARK, WRITTEN_BY

    adapter.update(
        Side.PRIVATE,
        f"DELETE WHERE {{ {subject} <{STORE_FORMAT_MARK}> ?f }} ;\n"
        f"DELETE WHERE {{ {subject} <{WRITTEN_BY}> ?v }} ;\n"
        f"INSERT DATA {{ {subject} <{STORE_FORMAT_MARK}> {number} ; <{WRITTEN_BY}> {version} }}",
    )


def _close_quietly(adapter: StoreAdapter) -> None:
    """Close a store that failed to open: a close that fails too (its flush reads the same
    missing files) must not hide why it failed."""
    try:
        adapter.close()
    except (OSError, RuntimeError) as err:
        log.debug("closing the store that failed to open: %s", err)


def open_checkpoint(path: Path) -> Storage:
    """A read-only store over a checkpoint (:mod:`service.graph.snapshots`), as it was taken."""
    adapter = EmbeddedStore.checkpoint(path)
    uris = Uris(_marked_base(adapter) or DEFAULT_BASE)
    return Storage(
        adapter, uris, ExperimentRepository(adapter, uris), CatalogueRepository(adapter, uris)
    )


def stored_base(location: str | Path) -> str | None:
    """The base a store directory was created with, read without taking the store's lock."""
    import pyoxigraph as ox

    if is_remote(str(location)):
        remote = RemoteStore(RemoteSettings.from_env(str(location)))
        try:
            return _marked_base(remote)
        finally:
            remote.close()
    private = Path(location) / "private"
    if not private.is_dir():
        return None
    reader = ox.Store.read_only(str(private))
    found = [
        str(getattr(q.object, "value", ""))
        for q in reader.quads_for_pattern(
            ox.NamedNode(STORE_MARKER), ox.NamedNode(GQA + "base"), None
        )
    ]
    del reader
    return found[0] if found else None


def _no_store(location: object, private: str | None = None) -> NotFound:
    """``private``: a remote store's private dataset, where its marker was looked for."""
    where = (
        f"its private dataset {ENV_PRIVATE}={private} holds no store marker <{STORE_MARKER}>"
        if private
        else "no store directory is there"
    )
    return NotFound(
        f"no store at {location}: {where}; this command works on an existing store, it does "
        "not make one (nothing written)"
    )


def _marked_base(adapter: StoreAdapter, side: Side = Side.PRIVATE) -> str | None:
    """The base in the store marker of one dataset (the private one holds it)."""
    from service.graph.nodes import node

    dataset = adapter.public if side is Side.PUBLIC else adapter.private
    found = dataset.quads_for_pattern(node(STORE_MARKER), node(GQA + "base"), None)
    return next((q.object.value for q in found), None)


def _check_base(adapter: StoreAdapter, base: str, *, found: str | None, create: bool) -> None:
    """Refuse a store made with another base (``found``: the base its marker says), two remote
    datasets given the wrong way round (:func:`_check_sides`), or, without ``create``, a remote
    location that holds no store; mark a new store with its base."""
    from service.graph import nodes as n
    from service.graph.nodes import DefaultGraph, Quad, node

    remote = adapter if isinstance(adapter, RemoteStore) else None
    if remote is not None:
        _check_sides(remote, found)
    if found is None and not create and remote is not None:
        raise _no_store(adapter.location, remote.private.url)
    if found is None:
        marker = Quad(node(STORE_MARKER), node(GQA + "base"), n.literal(base), DefaultGraph())
        adapter.add(Side.PRIVATE, [marker])
        if remote is not None and _marked_base(remote, Side.PUBLIC) is not None:
            # the marker written to the private dataset is in the public one: one dataset
            # under two names (127.0.0.1 and localhost), whose endpoint would serve everything
            triple = f"{marker.subject} {marker.predicate} {marker.object}"
            adapter.update(Side.PRIVATE, f"DELETE DATA {{ {triple} }}")
            raise BadRequest(
                f"--store {remote.location} and {ENV_PRIVATE}={remote.private.url} name one "
                "dataset (the store marker written to the private one is in the public one): "
                "unpublished experiments would be public; give two datasets (nothing kept)"
            )
    elif found != base:
        # where the marker was read: a remote store's private dataset, not its --store URL
        where = f"dataset {remote.private.url}" if remote else f"store at {adapter.location}"
        raise ServiceError(
            f"the {where} was created with base {found}, not {base}: "
            f"give --base {found} (or GERBIL_QA_BASE), or move its URIs to the new base "
            f"into a new store: gerbil-qa export --files --output backup.tar.gz, then "
            f"gerbil-qa import --store NEW --base {base} --rebase backup.tar.gz"
        )


def _check_sides(adapter: RemoteStore, private_base: str | None) -> None:
    """Refuse a public dataset that holds what only a private one holds (the store marker,
    the admin graph): the two URLs swapped, or one dataset named twice, whose endpoint served
    unpublished experiments, owner-token hashes and kept uploads (explore-12 #2). Read only,
    before anything is written: a dataset without a marker is made a new store's private one
    only when the public one has none either."""
    from service.graph.nodes import node

    public_base = _marked_base(adapter, Side.PUBLIC)
    admin = Uris(public_base or private_base or DEFAULT_BASE).admin_graph
    found = [
        what
        for what, there in (
            (f"the store marker (base {public_base})", public_base is not None),
            (f"the admin graph <{admin}>", adapter.public.contains_named_graph(node(admin))),
        )
        if there
    ]
    if not found:
        return
    held = (
        f"holds a store marker (base {private_base})"
        if private_base is not None
        else "holds no store marker"
    )
    raise BadRequest(
        f"--store {adapter.location} (the public dataset) holds {' and '.join(found)}, which "
        f"only the private dataset holds; {ENV_PRIVATE}={adapter.private.url} {held}: are "
        f"the two URLs swapped, or do both name one dataset (127.0.0.1 and localhost)? Its "
        "endpoint would serve unpublished experiments and the admin graph (nothing written)"
    )
