"""A ``Host`` that is no host name is refused (RFC 9112 §3.2: a 400), on every route: the pages,
the API, the SPARQL endpoint's fast path. It was served as if no host had been asked, the
absolute links written ``http:///…`` (explore56 F3). A name Werkzeug does not read but RFC 3986
allows (an underscore: a container's name behind a proxy) is served, its links on the base."""

from __future__ import annotations

import re

import pytest

from service.web.hosts import is_host

MALFORMED = [
    "a@evil.example",
    'evil.example" x="y',
    "evil example",
    "bücher.example",
    "h:99999",
    "a" * 64 + ".example",
]


@pytest.mark.parametrize("host", MALFORMED)
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "experiment/{demo}"),
        ("GET", "sparql?query=ASK%7B%7D"),
        ("GET", "api/systems"),
        ("POST", "api/experiments"),
    ],
)
def test_a_malformed_host_is_a_400_naming_it(server, host: str, method: str, path: str) -> None:
    refused = server.request(
        method,
        path.format(demo=server.demo_id),
        headers={"Host": host.encode("utf-8"), "Accept": "application/sparql-results+json"},
        allow_redirects=False,
    )
    assert refused.status_code == 400, (host, path, refused.status_code, refused.text[:200])
    assert "Host header" in refused.text and "is not a host name" in refused.text
    assert refused.headers["X-Content-Type-Options"] == "nosniff"


def test_a_host_with_an_underscore_is_served_with_links_on_the_base(server) -> None:
    page = server.get(f"experiment/{server.demo_id}", headers={"Host": "gerbil_qa:8080"})
    assert page.status_code == 200, page.text[:300]
    links = re.findall(r'href="(https?://[^"]*)"', page.text)
    assert links and not any(link.startswith("http:///") for link in links), links[:5]
    canonical = re.search(r'<link rel="canonical" href="([^"]+)"', page.text)
    assert canonical and canonical.group(1).startswith(server.url), canonical
    # what the client follows is on the host asked, and on the base when that cannot be read
    table = server.get(
        "leaderboards?format=json&size=1&dataset=all", headers={"Host": "gerbil_qa:8080"}
    )
    assert table.status_code == 200, table.text[:300]
    assert table.json()["next"].startswith(server.url + "leaderboards?"), table.json()["next"]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("example.org", True),
        ("127.0.0.1:5000", True),
        ("[::1]:8080", True),
        ("[fe80::1%25eth0]", True),
        ("xn--bcher-kva.example", True),
        ("gerbil_qa", True),
        ("host:", True),
        ("", False),
        ("h:0", True),  # RFC 3986's port is digits: 0 too
        ("a" * 63 + ".example", True),
        ("a" * 64 + ".example", False),  # a DNS label is at most 63 (Werkzeug's own 400)
        ("h:65536", False),
        ("a b", False),
        ("a/b", False),
        ("a@b", False),
        ("[::1", False),
    ],
)
def test_the_host_grammar_is_rfc_3986s(value: str, ok: bool) -> None:
    assert is_host(value) is ok


def _raw(server, request: bytes) -> bytes:
    """The status line the server answers ``request`` with, sent as written."""
    import socket
    from urllib.parse import urlsplit

    where = urlsplit(server.url)
    with socket.create_connection((where.hostname, where.port), timeout=30) as conn:
        conn.sendall(request)
        return conn.recv(4096).split(b"\r\n", 1)[0]


@pytest.mark.parametrize(
    ("request_head", "status"),
    [
        (b"GET /api/systems HTTP/1.1\r\nConnection: close\r\n\r\n", b"400"),  # no Host
        (b"GET /api/systems HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n", b"200"),
        (b"GET /api/systems HTTP/1.0\r\n\r\n", b"200"),  # HTTP/1.0 needs none
    ],
)
def test_http_1_1_needs_a_host_and_an_empty_one_is_allowed(
    server, request_head: bytes, status: bytes
) -> None:
    """RFC 9112 §3.2 the right way round: an HTTP/1.1 request without ``Host`` is a 400 (it
    was served), an empty one is what a target without an authority sends (it was a 400)."""
    assert status in _raw(server, request_head)


def test_the_sparql_page_names_the_endpoint_under_the_base(server) -> None:
    """The SPARQL page gave ``request.base_url``: ``http:///sparql`` under a ``Host`` Werkzeug
    cannot read (explore61 F1); it names the endpoint programs are given, under the base."""
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    page = server.get("sparql", headers={"Host": "gerbil_qa:8080", "Accept": browser})
    assert page.status_code == 200
    assert f'Endpoint: <span class="uri">{server.url}sparql</span>' in page.text
