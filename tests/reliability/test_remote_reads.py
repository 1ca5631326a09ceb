"""Reads from a remote store go on kept connections (``KeptConnections`` in
:mod:`service.graph.remote`), shared by the threads: real Oxigraph servers (``oxigraph serve``).

- a store restarted between two reads (the kept connections closed under the service) is read
  again at once, on a new connection; a store that is down is a 503 with the reason;
- threads reading at once each get their own answer, and no more connections are kept than
  :attr:`KeptConnections.IDLE`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.graph.remote import KeptConnections, RemoteSettings, RemoteStore, StoreUnavailable
from tests.remote import RemotePair, environment, remote_pair, start_oxigraph


@pytest.fixture()
def pair(tmp_path: Path) -> Iterator[RemotePair]:
    with remote_pair(tmp_path) as running, environment(running.env):
        yield running


def _store(pair: RemotePair) -> RemoteStore:
    return RemoteStore(RemoteSettings.from_env(pair.url))


def _count(store: RemoteStore) -> int:
    rows = store.public.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    return int(next(iter(rows))["n"].value)


def test_a_restarted_store_is_read_again_and_a_stopped_one_is_a_503(
    pair: RemotePair, tmp_path: Path
) -> None:
    store = _store(pair)
    try:
        store.public.update('INSERT DATA { <urn:x> <urn:p> "1" }')
        assert _count(store) == 1  # a kept connection now
        port = int(pair.url.rstrip("/").rsplit(":", 1)[1])
        pair.public.stop()
        restarted = start_oxigraph(tmp_path / "public", port=port)
        try:
            assert _count(store) == 1  # the kept connection was closed: sent again on a new one
            assert _count(store) == 1
        finally:
            restarted.stop()
        with pytest.raises(StoreUnavailable, match="did not answer") as err:
            _count(store)
        assert err.value.status == 503
    finally:
        store.close()


def test_threads_reading_at_once_each_get_their_answer(pair: RemotePair) -> None:
    store = _store(pair)
    failures: list[str] = []

    def reader(n: int) -> None:
        try:
            for k in range(25):
                value = n * 1000 + k
                rows = store.public.query(f"SELECT ?v WHERE {{ BIND({value} AS ?v) }}")
                got = int(next(iter(rows))["v"].value)
                if got != value:
                    failures.append(f"thread {n} asked {value}, got {got}")
        except Exception as err:
            failures.append(f"thread {n}: {err!r}")

    try:
        threads = [threading.Thread(target=reader, args=(n,)) for n in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert failures == []
        kept: KeptConnections = store._reads
        assert 1 <= sum(len(idle) for idle in kept._idle.values()) <= KeptConnections.IDLE
    finally:
        store.close()
    assert not store._reads._idle
