"""A remote store that goes away and comes back (the two ``oxigraph serve`` of a deployment,
stopped with SIGSTOP at a chosen write): what was interrupted ends in one state, never half of
two, once the store answers again.

- a publication whose second write (the admin record, in the private dataset) fails after its
  first (the public copy) is completed by the next publication with the copy's ``dct:issued``:
  before, it wrote the public graph again, and the experiment had two (a SHACL violation).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.errors import ServiceError
from service.graph.adapter import Side
from service.graph.store import open_storage
from service.paths import DEMO_DIR
from tests.remote import OxigraphServer, RemotePair, environment, remote_pair

TIMEOUT = "1"  # GERBIL_QA_STORE_TIMEOUT: a stopped store is given up on within a second


@pytest.fixture()
def pair(tmp_path: Path) -> Iterator[RemotePair]:
    with (
        remote_pair(tmp_path) as running,
        environment({**running.env, "GERBIL_QA_STORE_TIMEOUT": TIMEOUT}),
    ):
        yield running


def _record(pair: RemotePair, capsys: pytest.CaptureFixture[str]) -> str:
    """An experiment recorded by the command line (the demo's answers), its id."""
    from service.cli import main

    args = ["evaluate", "--dataset", str(DEMO_DIR / "questions.json")]
    args += ["--answers", str(DEMO_DIR / "answers-strong.json"), "--store", pair.url]
    assert main(args) == 0
    return capsys.readouterr().err.split("recorded experiment ", 1)[1].split()[0]


def _stopping(server: OxigraphServer, store: Any, when: str) -> None:
    """Stop ``server`` (SIGSTOP) just before the first update of ``store`` that contains
    ``when``."""
    update = store.update

    def stop_then_update(side: Side, text: str) -> None:
        if when in text:
            store.update = update  # once
            os.kill(server.process.pid, signal.SIGSTOP)
        update(side, text)

    store.update = stop_then_update


def _issued(pair: RemotePair, graph: str) -> list[str]:
    rows = pair.public.query(
        f"SELECT ?t WHERE {{ GRAPH <{graph}> {{ ?e <http://purl.org/dc/terms/issued> ?t }} }}"
    )
    return [row["t"] for row in rows]


def test_a_publication_cut_between_its_two_writes_is_completed_not_written_twice(
    pair: RemotePair, capsys: pytest.CaptureFixture[str]
) -> None:
    eid = _record(pair, capsys)
    with open_storage(pair.url, base=None) as storage:
        graph = storage.uris.experiment_graph(eid)
        _stopping(pair.private, storage.store, "DROP SILENT GRAPH")  # the second write
        try:
            with pytest.raises(ServiceError, match="did not answer within"):
                storage.experiments.publish(eid)
        finally:
            os.kill(pair.private.process.pid, signal.SIGCONT)
        [first] = _issued(pair, graph)  # the public copy is written
        storage.experiments.publish(eid)  # the operator tries again once the store is back
        assert storage.experiments.status(eid).public
        assert _issued(pair, graph) == [first]
        assert storage.experiments.status(eid).published_at == first
    private = f"ASK {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}"
    assert not pair.private.ask(private)  # the private copy is gone
