"""The public SPARQL endpoint never opens a network connection (issue 13, item 1).

A listener on 127.0.0.1 counts every connection it gets. Three layers are checked:

- the guard reads each query of the bypass corpus as Oxigraph does: whatever it lets through
  makes no connection when pyoxigraph runs it *without* the guard and without isolation (the
  same run counts how many corpus forms do connect when nothing stands in the way);
- through the running service (GET and POST), the whole corpus makes 0 connections;
- the worker processes cannot connect even when a SERVICE query reaches them (the guard
  bypassed on purpose), with each isolation mechanism on its own.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from service.errors import ServiceError
from service.web.isolation import MECHANISMS
from service.web.query_pool import QueryJob, QueryPool
from service.web.sparql_guard import inspect_query
from tests.reliability.bypass_corpus import corpus, decoys, hand_written
from tests.reliability.figures import record

ROOT = Path(__file__).resolve().parents[2]


class Listener:
    """A TCP server on 127.0.0.1 that counts connections and closes each at once."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(128)
        self.port = self.socket.getsockname()[1]
        self.connections = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.socket.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1  # counted before the close the client then sees
            conn.close()

    def close(self) -> None:
        self.socket.close()


@pytest.fixture()
def listener() -> Iterator[Listener]:
    running = Listener()
    yield running
    running.close()


def _run_unguarded(store: ox.Store, query: str) -> str:
    try:
        result = store.query(query)
        if not isinstance(result, ox.QueryBoolean):
            list(result)
    except (SyntaxError, OSError, RuntimeError, ValueError) as err:
        return type(err).__name__
    return "ran"


def _guard(query: str) -> str:
    try:
        facts = inspect_query(query)
    except ServiceError as err:
        return f"refused {err.status}"
    return "refused 403" if facts.uses_service else "allowed"


def test_the_guard_lets_through_nothing_the_engine_would_connect_for(listener) -> None:
    forms = corpus(listener.port)
    store = ox.Store()
    store.add(ox.Quad(ox.NamedNode("http://e/s"), ox.NamedNode("http://e/p"), ox.Literal("o")))
    connecting = leaked = allowed = 0
    for query in forms:
        before = listener.connections
        _run_unguarded(store, query)
        connected = listener.connections > before
        connecting += connected
        verdict = _guard(query)
        if verdict == "allowed":
            allowed += 1
            leaked += connected
            assert not connected, f"the guard allowed a query Oxigraph connects for: {query!r}"
    record(
        "endpoint-guard",
        forms=len(forms),
        connecting_without_guard=connecting,
        allowed_by_guard=allowed,
        connections_through_guard=leaked,
    )
    assert len(forms) > 2000
    assert allowed >= len(decoys(listener.port))  # SERVICE inside strings, comments, IRIs
    assert connecting > len(forms) // 2  # the corpus does reach the network when unguarded


def test_the_service_makes_no_connection_for_any_form(listener, tmp_path) -> None:
    from tests.web.conftest import start_server, stop_server

    server = start_server(tmp_path / "store", demo=False)
    try:
        forms = corpus(listener.port)
        statuses: dict[int, int] = {}
        for at, query in enumerate(forms):
            if at % 2:
                response = server.get("sparql", params={"query": query})
            else:
                response = server.post(
                    "sparql",
                    data=query.encode("utf-8"),
                    headers={"Content-Type": "application/sparql-query"},
                )
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            assert response.status_code < 500, (query, response.text)
            if _guard(query) != "allowed":
                assert response.status_code in (400, 403), (query, response.text)
        pool = server.app.extensions["gerbil_qa"].pool
        assert pool.isolation != "off"
    finally:
        stop_server(server)
    record(
        "endpoint-ssrf-served",
        attempts=len(forms),
        statuses=dict(sorted(statuses.items())),
        connections=listener.connections,
        isolation=pool.isolation,
    )
    assert listener.connections == 0


@pytest.fixture()
def snapshot(tmp_path) -> str:
    path = tmp_path / "snapshot"
    store = ox.Store(str(path))
    store.add(ox.Quad(ox.NamedNode("http://e/s"), ox.NamedNode("http://e/p"), ox.Literal("o")))
    store.flush()
    del store
    return str(path)


def _service_in_pool(pool: QueryPool, snapshot: str, port: int) -> ServiceError | None:
    pool.set_snapshot(snapshot)
    query = f"SELECT * {{ SERVICE <http://127.0.0.1:{port}/sparql> {{ ?s ?p ?o }} }}"
    try:
        pool.run(QueryJob(query=query))  # straight to a worker: no guard on this path
    except ServiceError as err:
        return err
    return None


def test_worker_processes_cannot_connect_even_without_the_guard(listener, snapshot) -> None:
    isolated = QueryPool(size=1, timeout=20)
    try:
        error = _service_in_pool(isolated, snapshot, listener.port)
        assert isolated.isolation != "off"
    finally:
        isolated.close()
    assert error is not None and error.status == 400
    assert "unreachable" in error.message or "denied" in error.message, error.message
    assert listener.connections == 0
    # the control: the same query in a worker without isolation does connect
    open_pool = QueryPool(size=1, timeout=20, isolation=())
    try:
        _service_in_pool(open_pool, snapshot, listener.port)
    finally:
        open_pool.close()
    assert listener.connections == 1


MECHANISM_CHECK = """
import sys, pyoxigraph as ox
from service.web.isolation import cut_off_network
try:
    print(cut_off_network(mechanisms=(sys.argv[1],)))
except OSError as err:
    print("unavailable:", err)
    sys.exit(0)
for query in sys.argv[2:]:
    try:
        list(ox.Store().query(query))
        print("ran")
    except OSError as err:
        print(type(err).__name__, err)
"""


@pytest.mark.parametrize("mechanism", sorted(MECHANISMS))
def test_each_isolation_mechanism_on_its_own(listener, mechanism) -> None:
    forms = hand_written(listener.port)[:3]
    done = subprocess.run(
        [sys.executable, "-c", MECHANISM_CHECK, mechanism, *forms],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    if os.geteuid() != 0 and lines[0].startswith("unavailable") and mechanism == "netns":
        return  # a new network namespace alone needs root; the other two do not
    assert lines[0] == MECHANISMS[mechanism][0], done.stdout
    assert len(lines) == 1 + len(forms)
    assert all(line != "ran" for line in lines[1:]), done.stdout
    assert listener.connections == 0


def test_no_pool_without_isolation_unless_asked(snapshot) -> None:
    # fail closed: a worker that cannot cut itself off the network does not serve queries
    with pytest.raises(RuntimeError, match="could not cut the SPARQL worker off the network"):
        QueryPool(size=1, isolation=("no-such-mechanism",))
