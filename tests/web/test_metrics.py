"""``/metrics`` on a real server: off without a token, refused without the bearer, and read by
Prometheus's own parser (the strict client) with figures that follow what the server did."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from service.release import source
from tests.web.conftest import Server, start_server, stop_server

TOKEN = "scrape-me-0123456789"


@pytest.fixture()
def scraped(tmp_path: Path) -> Iterator[Server]:
    running = start_server(tmp_path / "store", demo=False, metrics_token=TOKEN)
    yield running
    stop_server(running)


def _samples(server: Server) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = requests.get(
        server.url + "metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30
    )
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def test_metrics_follow_what_the_server_did(scraped: Server) -> None:
    before = _samples(scraped)
    assert before[("gerbil_qa_sparql_workers", ())] == 2
    # which code each replica runs: the release and its commit
    assert before[("gerbil_qa_info", (("version", source().version),))] == 1
    assert before[("gerbil_qa_runs_active", ())] == 0
    assert ("gerbil_qa_claims_holding", ()) not in before  # the embedded store: no claims
    for _ in range(3):
        answer = requests.get(scraped.url + "sparql", params={"query": "ASK {}"}, timeout=30)
        assert answer.status_code == 200
    after = _samples(scraped)
    queries = "gerbil_qa_sparql_queries_total", ()
    assert after[queries] - before[queries] == 1  # run once, then answered from the cache
    misses = "gerbil_qa_cache_misses_total", (("cache", "results"),)
    hits = "gerbil_qa_cache_hits_total", (("cache", "results"),)
    assert after[misses] - before[misses] == 1 and after[hits] - before[hits] == 2


def test_metrics_need_the_operators_token(scraped: Server, tmp_path: Path) -> None:
    refused = requests.get(scraped.url + "metrics", timeout=30)
    assert refused.status_code == 401 and refused.headers["WWW-Authenticate"].startswith("Bearer")
    wrong = requests.get(
        scraped.url + "metrics", headers={"Authorization": "Bearer nope"}, timeout=30
    )
    assert wrong.status_code == 401
    off = start_server(tmp_path / "off", demo=False)
    try:
        asked = requests.get(off.url + "metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert asked.status_code == 404
    finally:
        stop_server(off)
