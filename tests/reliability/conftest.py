"""The reliability tests that need the service as the web tests run it use the same fixtures
(``tests/web/conftest.py``): ``server`` (a real server on 127.0.0.1, the demo published) and
``slow_qa`` (a QA web service on 127.0.0.1 that takes its time); ``qa`` counts what it is
asked (``tests/reliability/runs.py``); ``remote_storage`` opens a fresh remote store."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from service.graph.store import Storage
from tests.reliability.runs import CountingQA
from tests.reliability.test_endpoint_network import Listener
from tests.web.conftest import server, slow_qa

__all__ = ["listener", "qa", "remote_storage", "server", "slow_qa"]


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    """A socket on 127.0.0.1 that counts every connection made to it (none may be)."""
    running = Listener()
    yield running
    running.close()


@pytest.fixture()
def qa() -> Iterator[CountingQA]:
    """A QA web service on 127.0.0.1 that counts how often each question was asked."""
    service = CountingQA()
    yield service
    service.close()


@pytest.fixture()
def remote_storage(tmp_path: Path) -> Iterator[Storage]:
    """The storage of a fresh remote store (two real Oxigraph servers, public and private)."""
    from service.graph.store import open_storage
    from tests.remote import environment, remote_pair

    with remote_pair(tmp_path) as pair, environment(pair.env):
        opened = open_storage(pair.url, base="http://gerbil-qa.test/", catalog=False)
        try:
            yield opened
        finally:
            opened.close()
