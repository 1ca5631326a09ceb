"""CORS on every kind of resource (issue 9 item 3), over HTTP and in a real browser.

Every response a script may want (resources in every format, format URLs, listings, the
vocabulary, the API, errors) carries ``Access-Control-Allow-Origin: *`` and never
``Access-Control-Allow-Credentials``; preflights are answered with the route's methods and the
headers scripts send; the cookie-authorised publish form has no CORS at all. In chromium, a
page of another origin reads a JSON-LD document and calls the API with a bearer token, and
cannot read an owner-only page with the owner's cookie.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

ORIGIN = "http://elsewhere.example"


def software(server) -> str:
    """The path of the evaluator software that made the demo experiment."""
    found = server.storage.public.query(
        "SELECT ?s WHERE { ?s a <http://www.w3.org/ns/prov#SoftwareAgent> } LIMIT 1"
    )
    return next(iter(found))["s"].value.replace(server.url, "")


def paths(server) -> list[str]:
    demo = server.demo_id
    dataset = server.get(f"experiment/{demo}.csv").text.splitlines()[1].split(",")[2]
    dataset = dataset.replace(server.url, "")
    return [
        f"experiment/{demo}",
        f"experiment/{demo}.ttl",
        f"experiment/{demo}.jsonld",
        f"experiment/{demo}.csv",
        f"experiment?id={demo}",  # GERBIL's form: a redirect
        f"experiment/{demo}/task/2",
        f"experiment/{demo}/task/2.nt",
        f"experiment/{demo}/task/1/question/5.rdf",
        dataset,
        f"{dataset}.ttl",
        f"{dataset}/question/3.jsonld",
        "system/demo-strong",
        "system/demo-strong.csv",
        software(server),
        "catalog",
        "catalog.ttl",
        "vocab",
        "vocab.jsonld",
        f"graph/experiment/{demo}.trig",
        "dump.nq",
        "context.jsonld",
        "",
        "experiments",
        "systems",
        "api/openapi.json",
        "api/experiments",
        "api/datasets",
        "api/systems",
        "api/profiles",
        f"api/experiments/{demo}",
        "sparql?query=ASK%7B%7D",
        "experiment/no-such-thing",  # an error
    ]


def test_every_kind_of_resource_allows_any_origin(server) -> None:
    for path in paths(server):
        for method in ("GET", "HEAD"):
            response = server.request(
                method, path, headers={"Origin": ORIGIN, "Accept": "text/turtle, */*;q=0.1"}
            )
            assert response.headers.get("Access-Control-Allow-Origin") == "*", (method, path)
            assert "Access-Control-Allow-Credentials" not in response.headers, path
            if response.status_code < 300:  # the SPARQL endpoint's answers too (explore45 F3)
                exposed = response.headers["Access-Control-Expose-Headers"]
                assert "Link" in exposed and "ETag" in exposed, path
                assert "Retry-After" in exposed, path  # a busy 503 says when to try again


def test_preflights_are_answered(server) -> None:
    demo = server.demo_id
    for path, method, headers in [
        (f"experiment/{demo}", "GET", "accept"),
        ("catalog.jsonld", "GET", "accept"),
        ("vocab", "GET", "accept, if-none-match"),
        ("api/experiments", "POST", "content-type"),
        (f"api/experiments/{demo}/publish", "POST", "authorization, content-type"),
        ("sparql", "POST", "content-type"),
        # a SPARQL client revalidating a cached answer (explore45 F3)
        ("sparql", "GET", "accept, if-none-match"),
        ("sparql/", "POST", "accept, content-type, if-none-match"),
    ]:
        response = server.request(
            "OPTIONS",
            path,
            headers={
                "Origin": ORIGIN,
                "Access-Control-Request-Method": method,
                "Access-Control-Request-Headers": headers,
            },
        )
        assert response.status_code in (200, 204), (path, response.status_code)
        assert response.headers["Access-Control-Allow-Origin"] == "*"
        assert method in response.headers["Access-Control-Allow-Methods"], path
        allowed = response.headers["Access-Control-Allow-Headers"].lower()
        assert all(h.strip() in allowed for h in headers.split(",")), path
        assert "Access-Control-Allow-Credentials" not in response.headers


def test_the_cookie_form_has_no_cors(server) -> None:
    response = server.post(
        f"experiment/{server.demo_id}/publish", headers={"Origin": ORIGIN}, data={"check": "x"}
    )
    assert response.status_code == 403
    assert "Access-Control-Allow-Origin" not in response.headers


# --- in a real browser -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def other_origin() -> Iterator[str]:
    """A page on another origin (another host name and port) for the browser's scripts."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><title>elsewhere</title><p>another origin</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{httpd.server_address[1]}/"
    httpd.shutdown()


FETCH = """
const [url, options, done] = arguments;
fetch(url, options)
  .then(r => r.text().then(t => done({ok: true, status: r.status, text: t.slice(0, 2000),
                                      link: r.headers.get('Link'), etag: r.headers.get('ETag')})))
  .catch(e => done({ok: false, error: String(e)}));
"""


@pytest.mark.browser
def test_scripts_of_another_origin_read_data_and_call_the_api(
    server, other_origin: str, browser
) -> None:
    browser.get(other_origin)
    browser.set_script_timeout(20)
    demo = server.demo_id
    doc = browser.execute_async_script(
        FETCH, f"{server.url}experiment/{demo}", {"headers": {"Accept": "application/ld+json"}}
    )
    assert doc["ok"] and doc["status"] == 200, doc
    assert '"@context"' in doc["text"] and 'rel="alternate"' in doc["link"]
    # a header that needs a preflight: the API with a bearer token (any token: 200 or 403)
    api = browser.execute_async_script(
        FETCH,
        f"{server.url}api/experiments/{demo}",
        {"headers": {"Authorization": "Bearer not-a-token"}},
    )
    assert api["ok"] and api["status"] == 200, api
    # the cookie-authorised form is not readable from another origin
    form = browser.execute_async_script(
        FETCH, f"{server.url}experiment/{demo}/publish", {"method": "POST", "body": "check=x"}
    )
    assert not form["ok"] and "Failed to fetch" in form["error"]
    # credentials are never allowed with '*': a credentialed read fails
    private = browser.execute_async_script(
        FETCH, f"{server.url}experiment/{demo}", {"credentials": "include"}
    )
    assert not private["ok"]
    # the SPARQL endpoint: its answer's ETag is readable, and a revalidation with
    # If-None-Match passes the preflight (explore45 F3)
    ask = f"{server.url}sparql?query=ASK%7B%7D"
    json_results = {"Accept": "application/sparql-results+json"}
    first = browser.execute_async_script(FETCH, ask, {"headers": json_results})
    assert first["ok"] and first["status"] == 200 and first["etag"], first
    again = browser.execute_async_script(
        FETCH, ask, {"headers": {**json_results, "If-None-Match": first["etag"]}}
    )
    assert again["ok"] and again["status"] in (200, 304), again


def test_the_web_readme_names_every_header_cors_exposes_and_allows() -> None:
    """The web README's CORS paragraph lists the headers by hand: it must name each one the
    code exposes and allows (it named three of eight before explore45 F3)."""
    from pathlib import Path

    from service.web.cors import ALLOW_HEADERS, EXPOSE_HEADERS

    readme = (Path(__file__).parents[2] / "service" / "web" / "README.md").read_text("utf-8")
    paragraph = readme[readme.index("**CORS.**") :].split("\n\n", 1)[0]
    for name in [*EXPOSE_HEADERS[1].split(", "), *ALLOW_HEADERS.split(", ")]:
        assert f"`{name}`" in paragraph, name
