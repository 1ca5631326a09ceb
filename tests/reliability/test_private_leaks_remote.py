"""The leak corpus of ``test_private_leaks.py`` against a service on a remote store (issue 14):
two Oxigraph servers, the public dataset and the private one; the same attempts, the same
rules, counted the same way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.test_private_leaks import (  # noqa: F401  (collected here, on this server)
    secrets_,
    test_no_route_shows_a_private_experiment,
)
from tests.remote import environment, remote_pair
from tests.web.conftest import Server, start_server, stop_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    directory: Path = tmp_path_factory.mktemp("remote-leaks")
    with remote_pair(directory) as pair, environment(pair.env):
        running = start_server(pair.url)  # type: ignore[arg-type]  # a URL, not a directory
        yield running
        stop_server(running)
