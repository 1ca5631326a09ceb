"""The public dump is written in batches (bounded memory for any store size) and still reads
as the same dataset: N-Quads and TriG batches concatenate into one document.

On a store of its own (the demo experiment, a second published run, the W3C protocol graphs):
the shared server's store holds whatever the web tests before it published, and dumping it four
times took 15 s a format for no more kinds of boundary (a graph's, a blank node's)."""

from __future__ import annotations

from collections.abc import Iterator

import pyoxigraph as ox
import pytest

from service.web import resources
from tests.web.conftest import PROTOCOL_GRAPHS, Server, start_server, stop_server


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, standards_dir) -> Iterator[Server]:
    protocol = standards_dir / "sparql11-tests" / "protocol"
    preload = {name: protocol / file for name, file in PROTOCOL_GRAPHS.items()}
    running = start_server(tmp_path_factory.mktemp("dump-store"), preload=preload)
    ticket = running.submit_demo(systems=("strong", "baseline"))
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    published = running.post(f"api/experiments/{ticket['id']}/publish", headers=auth)
    assert published.status_code == 200
    yield running
    stop_server(running)


def _dataset(body: bytes, fmt: ox.RdfFormat) -> set[str]:
    return {str(q) for q in ox.parse(body, format=fmt)}


@pytest.mark.parametrize(
    ("ext", "fmt"), [("nq", ox.RdfFormat.N_QUADS), ("trig", ox.RdfFormat.TRIG)]
)
def test_a_dump_in_small_batches_is_the_same_dataset(site, monkeypatch, ext, fmt) -> None:
    whole = site.get(f"dump.{ext}")
    assert whole.status_code == 200
    expected = _dataset(whole.content, fmt)
    # ~40 batches: a batch of 7 quads made thousands of them (25 s a format) for no more
    # boundaries of a kind (a graph's or a blank node's) than forty give
    size = max(7, len(expected) // 40)
    monkeypatch.setattr(resources, "DUMP_BATCH", size)
    batched = site.get(f"dump.{ext}")
    assert batched.status_code == 200
    assert len(expected) > size * 3  # several batches
    graphs = {q.graph_name for q in ox.parse(whole.content, format=fmt)}
    assert len(graphs) > 3  # boundaries of graphs within and between batches
    assert _dataset(batched.content, fmt) == expected
    if ext == "trig":  # each batch declared its prefixes: they are there more than once
        assert batched.text.count("@prefix") > whole.text.count("@prefix")


def test_the_dump_has_an_etag_until_the_next_public_write(site) -> None:
    """It was sent whole every time: no ETag, no Last-Modified (explore45 7). A weak ETag per
    format, a 304 to it (GET and HEAD, and for ``*``) until the next public write."""
    first = site.get("dump.nq")
    etag = first.headers["ETag"]
    assert first.status_code == 200 and etag.startswith('W/"')
    assert site.get("dump.nq").headers["ETag"] == etag  # nothing written since: the same
    assert site.get("dump.trig").headers["ETag"] != etag  # another format, another ETag
    for method in ("GET", "HEAD"):
        again = site.request(method, "dump.nq", headers={"If-None-Match": etag})
        assert again.status_code == 304 and not again.content, method
        assert again.headers["ETag"] == etag and "Content-Location" in again.headers
    assert site.get("dump.nq", headers={"If-None-Match": "*"}).status_code == 304
    # a public write (a publication): the dump changed, so does its ETag
    ticket = site.submit_demo(systems=("partial",))
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    after = site.get("dump.nq", headers={"If-None-Match": etag})
    assert after.status_code == 200 and after.headers["ETag"] != etag
    assert ticket["id"].encode() in after.content
