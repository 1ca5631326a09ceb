"""Fixtures the KB tests share: the module's ``kb_file`` served by a real Oxigraph server, and a
factory of both SPARQL KBs over it (a test using ``make_kb`` runs once per implementation)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from service.kb.batched import BatchedSparqlKB
from service.kb.local import LocalKB
from service.kb.remote import RemoteKB
from service.systems.localnet import OxigraphServer


@pytest.fixture(scope="module")
def kb_server(kb_file: Path) -> Iterator[OxigraphServer]:
    with OxigraphServer([kb_file]) as running:
        yield running


@pytest.fixture(params=["local", "remote"])
def make_kb(request: pytest.FixtureRequest, kb_file: Path) -> Callable[..., BatchedSparqlKB]:
    def make(**options: object) -> BatchedSparqlKB:
        if request.param == "local":
            return LocalKB([kb_file], **options)  # type: ignore[arg-type]
        return RemoteKB(request.getfixturevalue("kb_server").url, **options)  # type: ignore[arg-type]

    return make
