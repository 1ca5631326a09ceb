"""The reliability tests that need the service as the web tests run it use the same fixtures
(``tests/web/conftest.py``): ``server`` (a real server on 127.0.0.1, the demo published) and
``slow_qa`` (a QA web service on 127.0.0.1 that takes its time); ``qa`` counts what it is
asked (``tests/reliability/runs.py``)."""

from collections.abc import Iterator

import pytest

from tests.reliability.runs import CountingQA
from tests.reliability.test_endpoint_network import Listener
from tests.web.conftest import server, slow_qa

__all__ = ["listener", "qa", "server", "slow_qa"]


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
