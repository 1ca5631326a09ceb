"""A ``Host`` that is no host name is refused (RFC 9112 §3.2: a 400), on every route: the pages,
the API, the SPARQL endpoint's fast path. It was served as if no host had been asked, the
absolute links written ``http:///…`` (explore56 F3). A name Werkzeug does not read but RFC 3986
allows (an underscore: a container's name behind a proxy) is served, its links on the base."""

from __future__ import annotations

import re

import pytest

from service.web.hosts import is_host

MALFORMED = ["a@evil.example", 'evil.example" x="y', "evil example", "bücher.example", "h:99999"]


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
        ("h:0", False),
        ("h:65536", False),
        ("a b", False),
        ("a/b", False),
        ("a@b", False),
        ("[::1", False),
    ],
)
def test_the_host_grammar_is_rfc_3986s(value: str, ok: bool) -> None:
    assert is_host(value) is ok
