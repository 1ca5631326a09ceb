"""Every page answers its Accept: the listings, the comparison, the API's page and the run form
answered HTML to a client asking for Turtle, JSON or CSV (only /experiments and /leaderboards
negotiated). Now a listing the API also gives sends a JSON client there (303), a table gives its
CSV, and what a page cannot be is a 406 naming what it can; a browser's Accept still gets HTML."""

from __future__ import annotations

import csv
import io

import pytest

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize(
    ("path", "api"),
    [
        ("systems", "api/systems"),
        ("experiments?page=1&size=5", "api/experiments?page=1&size=5"),
        ("leaderboards/frozen", "api/leaderboards"),
        ("api", "api/openapi.json"),
    ],
)
def test_a_json_client_is_sent_to_the_api(server, path: str, api: str) -> None:
    moved = server.get(path, headers={"Accept": "application/json"}, allow_redirects=False)
    assert moved.status_code == 303, moved.text
    # absolute, as the other redirects are: it was the path alone, /api/systems (explore51 F4)
    assert moved.headers["Location"] == server.url + api
    assert "Accept" in moved.headers["Vary"]
    followed = server.get(path, headers={"Accept": "application/json"}, allow_redirects=True)
    assert followed.headers["Content-Type"].startswith("application/json")
    assert followed.json()  # the API's own answer


@pytest.mark.parametrize(
    ("path", "api"),
    [
        ("systems?format=json", "api/systems"),
        ("experiments?format=json", "api/experiments"),
        ("leaderboards/frozen", "api/leaderboards"),
        ("api/", "api/openapi.json"),
    ],
)
@pytest.mark.parametrize("host", ["evil.example", "gerbil_qa:8080"])
def test_the_303_to_the_api_is_under_the_base_whatever_host(
    server, path: str, api: str, host: str
) -> None:
    """The 303's ``Location`` copied the request's ``Host``: ``Host: evil.example`` was sent
    to ``http://evil.example/api/systems``. It is under the base now, as the canonical link and
    the trailing-slash 301 are (explore56 F3); a malformed ``Host`` is a 400
    (tests/web/test_host_header.py)."""
    moved = server.get(
        path,
        headers={"Accept": "application/json", "Host": host},
        allow_redirects=False,
    )
    assert moved.status_code == 303, moved.text
    assert moved.headers["Location"] == server.url + api
    assert "evil" not in moved.headers["Location"]


@pytest.mark.parametrize(
    "path", ["systems", "leaderboards/frozen", "compare", "api", "experiments/new"]
)
def test_what_a_page_cannot_be_is_a_406_naming_what_it_can(server, path: str) -> None:
    refused = server.get(path, headers={"Accept": "text/turtle"})
    assert refused.status_code == 406, (path, refused.status_code, refused.text[:200])
    assert "text/html" in refused.text
    page = server.get(path, headers={"Accept": BROWSER})
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert "Accept" in page.headers.get("Vary", "")
    assert server.get(path).status_code == 200  # no Accept at all: the page


def test_the_systems_table_is_csv_too(server) -> None:
    table = server.get("systems", headers={"Accept": "text/csv"})
    assert table.status_code == 200 and table.headers["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(table.text)))
    api = server.get("api/systems").json()["systems"]
    assert [(r["system"], r["label"], int(r["experiments"])) for r in rows] == [
        (s["uri"], s["label"], s["experiments"]) for s in api
    ]
    assert rows  # the demo's systems


def test_a_comparison_link_still_answers_json(server) -> None:
    answer = server.get("compare", params={"task": "nope"}, headers={"Accept": "application/json"})
    assert answer.status_code == 400 and "error" in answer.json()
    assert server.get("compare", params={"format": "json", "task": "x"}).json()["error"]


@pytest.mark.parametrize(
    ("path", "formats", "name", "api"),
    [
        ("leaderboards?dataset=all&page=1", ("json", "csv"), "leaderboards", None),
        ("experiments?page=1&size=5", ("json", "csv"), "experiments", "api/experiments"),
        ("systems", ("json", "csv"), "systems", "api/systems"),
    ],
)
def test_a_listing_links_its_other_formats(
    server, path: str, formats: tuple, name: str, api: str | None
) -> None:
    """The live leaderboard and the listings negotiate JSON and CSV (``format=``, Accept) but
    said so neither in a ``Link`` header nor in a ``<link rel="alternate">``, as every other
    negotiable page does, and their CSV had no file name (explore29 7). A listing whose JSON
    is the API's (``api``) names the API's URL as its JSON: its ``?format=json``, said to be
    ``application/json``, answered a 303 to it (explore51 F4)."""
    import re
    from urllib.parse import parse_qs, urlsplit

    page = server.get(path, headers={"Accept": BROWSER})
    assert page.status_code == 200
    header = {
        kind: url
        for url, kind in re.findall(
            r'<([^>]+)>; rel="alternate"; type="([^"]+)"', page.headers["Link"]
        )
    }
    tags = {
        kind: url.replace("&amp;", "&")
        for kind, url in re.findall(
            r'<link rel="alternate" type="([^"]+)" href="([^"]+)"', page.text
        )
    }
    # the filters as parsed, defaults left out (page=1): the cached page is one for every
    # query naming the same filters, its links too (explore40 6)
    asked = {k: v for k, v in parse_qs(urlsplit(path).query).items() if (k, v) != ("page", ["1"])}
    for fmt, media_type in zip(formats, ("application/json", "text/csv"), strict=True):
        url = header[media_type]
        assert tags[media_type] == url
        query = parse_qs(urlsplit(url).query)
        if api is not None and fmt == "json":
            assert url.split("?")[0] == server.url + api and query == asked, url
        else:
            assert query.pop("format") == [fmt] and query == asked, url
        # what is said to be that type is that type, not a redirect to it
        got = server.get(url.replace(server.url, ""), allow_redirects=False)
        assert got.status_code == 200 and got.headers["Content-Type"].startswith(media_type)
    table = server.get(path, headers={"Accept": "text/csv"})
    assert table.headers["Content-Disposition"] == f'inline; filename="{name}.csv"'
    assert "Link" in table.headers


@pytest.mark.parametrize("path", ["leaderboards", "experiments?page=1&size=5", "systems"])
def test_a_listing_names_its_formats_under_the_base_whatever_host_was_asked(
    server, path: str
) -> None:
    """explore37 4: /leaderboards and /experiments named the request's host in their
    ``<link rel="alternate">`` and ``Link`` (other pages use the store's base), so two replicas
    (two names of one service) gave them different bytes and ETags."""
    from urllib.parse import urlsplit

    port = urlsplit(server.url).port
    pages = [
        server.get(path, headers={"Accept": BROWSER, "Host": host})
        for host in (f"127.0.0.1:{port}", f"localhost:{port}")
    ]
    for page in pages:
        assert page.status_code == 200
        assert f"localhost:{port}" not in page.text
        assert f"localhost:{port}" not in page.headers["Link"]
        assert f'href="{server.url}{path.split("?")[0]}?' in page.text
    assert pages[0].text == pages[1].text
    assert pages[0].headers["ETag"] == pages[1].headers["ETag"]
