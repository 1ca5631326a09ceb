"""What linked-data crawlers read beside the document: the canonical URI of every view of a
resource (``<link rel="canonical">`` in its page, ``Link: rel="canonical"`` at a view's URL),
and no ``rel="describedby"`` where the URI is the document itself (hq78)."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime

import pytest

from service import mediatypes
from tests.web.conftest import resources

RDF_TYPES = {s.media_types[0] for s in mediatypes.RDF_SYNTAXES}


def _head_links(html: str) -> list[tuple[str, str, str]]:
    """(rel, type, href) of each ``<link>`` in a page's head."""
    head = html.split("</head>", 1)[0]
    out = []
    for tag in re.findall(r"<link\b[^>]*>", head):
        attrs = dict(re.findall(r'(\w+)="([^"]*)"', tag))
        out.append((attrs.get("rel", ""), attrs.get("type", ""), attrs.get("href", "")))
    return out


@pytest.mark.parametrize("index", range(8))
def test_every_page_names_its_canonical_uri_and_its_rdf(server, index: int) -> None:
    path = resources(server)[index]
    uri = server.url + path
    page = server.get(path, headers={"Accept": "text/html"})
    assert page.status_code == 200
    links = _head_links(page.text)
    assert [href for rel, _, href in links if rel == "canonical"] == [uri]
    alternate = {kind for rel, kind, _ in links if rel == "alternate"}
    assert alternate >= RDF_TYPES, RDF_TYPES - alternate
    # the URI asked as it is names itself in its page only; a view of it names it in a header
    assert 'rel="canonical"' not in page.headers["Link"]
    for view in (f"{path}?format=html", f"{path}.html", f"{path}?format=ttl", f"{path}.ttl"):
        response = server.get(view)
        assert response.status_code == 200, view
        assert f'<{uri}>; rel="canonical"' in response.headers["Link"], view
    # the URIs name documents (200 here, no 303): nothing else describes them
    for response in (page, server.get(path, headers={"Accept": "text/turtle"})):
        assert "describedby" not in response.headers["Link"]


def test_every_view_of_a_page_has_one_canonical(server) -> None:
    """The experiment page is cached per view (?a=…&b=…, ?refresh=on): each names the URI."""
    path = f"experiment/{server.demo_id}"
    uri = server.url + path
    for view in (path, f"{path}?refresh=on", f"{path}?a=nobody&b=none", f"{path}?format=html"):
        for _ in range(2):  # rendered, then from the page cache
            page = server.get(view)
            assert page.status_code == 200, view
            canonical = [h for rel, _, h in _head_links(page.text) if rel == "canonical"]
            assert canonical == [uri], view
    head = server.request("HEAD", f"{path}?refresh=on")
    assert f'<{uri}>; rel="canonical"' in head.headers["Link"]
    etag = server.get(f"{path}?format=ttl").headers["ETag"]
    unchanged = server.get(f"{path}?format=ttl", headers={"If-None-Match": etag})
    assert unchanged.status_code == 304
    assert f'<{uri}>; rel="canonical"' in unchanged.headers["Link"]
    # its reproduce.sh, reachable from the HTML only (explore65 F3), on every representation
    script = (
        f'<{uri}/reproduce.sh>; rel="related"; type="text/x-shellscript"; '
        'title="Reproduce these numbers (bash script)"'
    )
    for view in (path, f"{path}.ttl", f"{path}.jsonld", f"{path}.csv", f"{path}.bib"):
        assert script in server.get(view).headers["Link"], view
    assert script in unchanged.headers["Link"]
    assert server.get(f"{path}/reproduce.sh").status_code == 200


def test_an_error_page_names_no_canonical(server) -> None:
    page = server.get("experiment/209901019999", headers={"Accept": "text/html"})
    assert page.status_code == 404
    assert not [h for rel, _, h in _head_links(page.text) if rel == "canonical"]


def test_the_canonical_is_under_the_public_base(tmp_path) -> None:
    """Behind a proxy that strips ``/gerbil`` (``--base https://host/gerbil/``), the canonical
    is the URI under the base, as the format URLs' ``Link`` headers say it, never the host
    or path the request came by."""
    from service.graph.store import open_storage
    from service.web import close_app, create_app

    base = "https://qa.example.org/gerbil/"
    storage = open_storage(tmp_path / "store", base=base, catalog=False)
    app = create_app({"base": base, "demo": False}, storage=storage)
    try:
        client = app.test_client()
        page = client.get("/vocab", headers={"Accept": "text/html"})
        turtle = client.get("/vocab?format=ttl")
        at_format_url = client.get("/vocab.ttl")
    finally:
        close_app(app)
    assert page.status_code == 200
    canonical = [h for rel, _, h in _head_links(page.text) if rel == "canonical"]
    assert canonical == [base + "vocab"]
    assert f'<{base}vocab>; rel="canonical"' in turtle.headers["Link"]
    assert f'<{base}vocab>; rel="canonical"' in at_format_url.headers["Link"]


def test_a_download_says_which_document_describes_it(server) -> None:
    """A file's download URL (``experiment/{id}/file/{sha}``) is no RDF document: the
    experiment's document describes it (``Link: rel="describedby"``, as LDP has a non-RDF
    source say), and that document names the download."""
    downloads = {
        str(row[0].value)
        for row in server.storage.public.query(
            "SELECT ?u { ?f <http://www.w3.org/ns/dcat#downloadURL> ?u "
            f'FILTER(CONTAINS(STR(?u), "/file/") && STRSTARTS(STR(?u), "{server.url}")) }}'
        )
    }
    assert downloads
    for url in downloads:
        got = server.get(url[len(server.url) :])
        assert got.status_code == 200, url
        document = url.split("/file/", 1)[0]
        assert got.headers["Link"] == f'<{document}>; rel="describedby"', url
        described = server.get(document[len(server.url) :], headers={"Accept": "text/turtle"})
        assert url in described.text


# --- Last-Modified / If-Modified-Since --------------------------------------------------------


def _modified(response) -> datetime:
    return parsedate_to_datetime(response.headers["Last-Modified"])


def _settled(server, path: str, **headers: str):
    """The response once the last public write is a second old (within its second no
    Last-Modified is sent: it would be after the response's Date)."""
    for _ in range(30):
        response = server.get(path, headers=headers)
        if "Last-Modified" in response.headers:
            return response
        time.sleep(0.1)
    raise AssertionError(f"{path}: no Last-Modified")


@pytest.mark.parametrize("accept", ["text/html", "text/turtle"])
def test_if_modified_since_gives_a_304(server, accept: str) -> None:
    path = f"experiment/{server.demo_id}"
    got = _settled(server, path, Accept=accept)
    assert got.status_code == 200
    modified = _modified(got)
    assert got.headers["Last-Modified"].endswith(" GMT")  # an HTTP-date, whole seconds
    assert modified <= parsedate_to_datetime(got.headers["Date"])
    since = {"Accept": accept, "If-Modified-Since": got.headers["Last-Modified"]}
    for method in ("GET", "HEAD"):
        unchanged = server.request(method, path, headers=since)
        assert unchanged.status_code == 304, method
        assert unchanged.content == b"" and unchanged.headers["ETag"] == got.headers["ETag"]
    later = got.headers["Date"]  # after the last write, not after the server's clock
    assert server.get(path, headers={**since, "If-Modified-Since": later}).status_code == 304
    earlier = format_datetime(modified - timedelta(seconds=1), usegmt=True)
    again = server.get(path, headers={**since, "If-Modified-Since": earlier})
    assert again.status_code == 200 and again.content == got.content
    # an ETag sent wins over the date (RFC 9110 §13.2.2): another ETag is a 200 ...
    other = server.get(path, headers={**since, "If-None-Match": '"not-this-one"'})
    assert other.status_code == 200
    # ... and the same ETag a 304, whatever the date says
    same = {"Accept": accept, "If-None-Match": got.headers["ETag"], "If-Modified-Since": earlier}
    assert server.get(path, headers=same).status_code == 304


@pytest.mark.parametrize("path", ["experiment/{id}", "dump.nq"])
def test_a_date_after_the_servers_clock_is_ignored(server, path: str) -> None:
    """An If-Modified-Since in the future is invalid (RFC 7232 §3.3), ignored as RFC 9110
    §13.1.3 lets a server: the resource is sent whole. 2099 was a 304 (explore56 F4)."""
    path = path.format(id=server.demo_id)
    got = _settled(server, path)
    assert got.status_code == 200
    future = format_datetime(datetime.now(UTC) + timedelta(days=1), usegmt=True)
    for since in ("Sun, 29 Nov 2099 00:00:00 GMT", future):
        again = server.get(path, headers={"If-Modified-Since": since})
        assert again.status_code == 200 and again.content == got.content, since
    # a date the server gave is still honoured
    same = server.get(path, headers={"If-Modified-Since": got.headers["Last-Modified"]})
    assert same.status_code == 304


def test_last_modified_on_every_public_resource_not_on_sparql(server) -> None:
    for path in resources(server):
        assert _settled(server, path, Accept="text/turtle").status_code == 200, path
    answer = server.get("sparql", params={"query": "ASK {}"})
    assert answer.status_code == 200 and "Last-Modified" not in answer.headers


def test_a_publication_and_a_rescoring_move_it_forward(server) -> None:
    path = f"experiment/{server.demo_id}"
    before = _settled(server, path, Accept="text/turtle")
    since = {"Accept": "text/turtle", "If-Modified-Since": before.headers["Last-Modified"]}
    assert server.get(path, headers=since).status_code == 304
    ticket = server.submit_demo(systems=("strong",))
    old, auth = ticket["id"], {"Authorization": f"Bearer {ticket['token']}"}
    private = server.get(f"experiment/{old}", headers=auth).headers
    assert "Last-Modified" not in private  # private
    assert "reproduce.sh" not in private.get("Link", "")  # its script is its owner's page's
    time.sleep(1.1)  # a write in the second the client was answered in must move it too
    assert server.post(f"api/experiments/{old}/publish", headers=auth).ok
    published = _settled(server, path, Accept="text/turtle")
    assert _modified(published) > _modified(before)
    assert server.get(path, headers=since).status_code == 200  # its date is past the copy's
    # the old run's page, then its published revision's: the old one says "revised by"
    first = _settled(server, f"experiment/{old}", Accept="text/html")
    revision = server.post(
        f"api/experiments/{old}/rescore", json={"profile": "exact"}, headers=auth
    ).json()
    server.wait_finished(revision["id"], revision["token"])
    new_auth = {"Authorization": f"Bearer {revision['token']}"}
    assert server.post(f"api/experiments/{revision['id']}/publish", headers=new_auth).ok
    revised = _settled(server, f"experiment/{old}", Accept="text/html")
    assert _modified(revised) > _modified(first)
    assert revision["id"] in revised.text and revised.content != first.content
    stale = {"Accept": "text/html", "If-Modified-Since": first.headers["Last-Modified"]}
    assert server.get(f"experiment/{old}", headers=stale).status_code == 200


# --- deleted experiments: no trace, so 404 -------------------------------------------------------


def test_a_deleted_experiment_is_404_and_a_published_one_is_never_deleted(server) -> None:
    """Only an unpublished experiment is deleted (a published one's URI is cited: 409, it keeps
    resolving), and its deletion leaves no public trace: 404 as for an id never minted, in every
    format, with nothing in the endpoint (the admin graph's note goes with its files)."""
    ticket = server.submit_demo(systems=("strong",))
    eid, auth = ticket["id"], {"Authorization": f"Bearer {ticket['token']}"}
    uri = f"{server.url}experiment/{eid}"
    assert server.get(f"experiment/{eid}").status_code == 403  # private: not public yet
    assert server.delete(f"api/experiments/{eid}", headers=auth).status_code in (200, 204)
    for accept in ("text/html", "text/turtle", "application/ld+json"):
        assert server.get(f"experiment/{eid}", headers={"Accept": accept}).status_code == 404
        assert server.get("experiment/209901019999", headers={"Accept": accept}).status_code == 404
    assert server.get(f"experiment/{eid}.ttl").status_code == 404
    assert server.get(f"experiment/{eid}", headers=auth).status_code == 404  # its owner's too
    ask = f"ASK {{ {{ <{uri}> ?p ?o }} UNION {{ GRAPH ?g {{ <{uri}> ?p ?o }} }} }}"
    assert server.get("sparql", params={"query": ask, "format": "json"}).json()["boolean"] is False
    # nor a private one a 410 could be made of: the admin record and the cleanup note are gone
    assert not bool(server.storage.private.query(f"ASK {{ GRAPH ?g {{ <{uri}> ?p ?o }} }}"))
    published = server.submit_demo(systems=("strong",))
    pid, owner = published["id"], {"Authorization": f"Bearer {published['token']}"}
    assert server.post(f"api/experiments/{pid}/publish", headers=owner).ok
    assert server.delete(f"api/experiments/{pid}", headers=owner).status_code == 409
    assert server.get(f"experiment/{pid}", headers={"Accept": "text/turtle"}).status_code == 200


def test_the_dump_has_the_same_date(server) -> None:
    """The dump is the public data whole: its Last-Modified is the last public write's too."""
    got = _settled(server, "dump.nq")
    assert got.status_code == 200 and got.content
    since = {"If-Modified-Since": got.headers["Last-Modified"]}
    for method in ("GET", "HEAD"):
        assert server.request(method, "dump.nq", headers=since).status_code == 304, method
    earlier = format_datetime(_modified(got) - timedelta(seconds=1), usegmt=True)
    assert server.get("dump.nq", headers={"If-Modified-Since": earlier}).status_code == 200
    other = server.get("dump.nq", headers={**since, "If-None-Match": 'W/"not-this-one"'})
    assert other.status_code == 200  # the ETag sent wins
