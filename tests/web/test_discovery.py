"""``robots.txt`` and the sitemap (sitemaps.org 0.9) on the running server: read as a crawler
reads them, every URL listed answers, the published pages are there, the private and the
withdrawn ones are not."""

from __future__ import annotations

import re

import pyoxigraph
from defusedxml import ElementTree

from service.paths import DEMO_DIR

TYPE = pyoxigraph.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
# the W3C Datetime profile sitemaps take: a year, a month, a day, or a time with its zone
W3C_DATETIME = re.compile(
    r"^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?)?)?$"
)


def _submit(server, marker: str) -> dict:
    files = [
        ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
        (
            "answers",
            ("crawled.json", (DEMO_DIR / "answers-partial.json").read_bytes() + b" " * len(marker)),
        ),
    ]
    response = server.post("api/experiments", files=files, data={"profile": "fair", "kb": "demo"})
    assert response.status_code == 202, response.text
    ticket = response.json()
    server.wait_finished(ticket["id"], ticket["token"])
    return ticket


def _sitemap(server) -> dict[str, str | None]:
    """Every URL of the sitemap with its lastmod, read through its index."""
    index = server.get("sitemap.xml")
    assert index.status_code == 200
    assert index.headers["Content-Type"].startswith("application/xml")
    root = ElementTree.fromstring(index.content)
    assert root.tag == NS + "sitemapindex"
    found: dict[str, str | None] = {}
    for loc in root.iter(NS + "loc"):
        assert loc.text and loc.text.startswith(server.url)
        part = server.get(loc.text[len(server.url) :])
        assert part.status_code == 200
        urlset = ElementTree.fromstring(part.content)
        assert urlset.tag == NS + "urlset"
        for url in urlset.iter(NS + "url"):
            lastmod = url.find(NS + "lastmod")
            found[url.find(NS + "loc").text] = lastmod.text if lastmod is not None else None
    return found


def test_robots_keep_crawlers_off_what_is_computed_per_request(server) -> None:
    robots = server.get("robots.txt")
    assert robots.status_code == 200
    assert robots.headers["Content-Type"].startswith("text/plain")
    lines = robots.text.splitlines()
    assert lines[0] == "User-agent: *"
    for path in ("/sparql", "/api/", "/compare"):
        assert f"Disallow: {path}" in lines
    # the dump VoID names is the polite way to take everything: crawlers may (explore45 7)
    assert not [line for line in lines if line.startswith("Disallow: /dump")]
    void = server.get(".well-known/void", headers={"Accept": "application/n-triples"}).text
    assert f"<{server.url}dump.nq>" in void
    assert f"Sitemap: {server.url}sitemap.xml" in lines


def test_the_sitemap_lists_every_public_page_and_nothing_else(server) -> None:
    private = _submit(server, "private")
    withdrawn = _submit(server, "withdrawn")
    owner = {"Authorization": f"Bearer {withdrawn['token']}"}
    assert server.post(f"api/experiments/{withdrawn['id']}/publish", headers=owner).ok
    assert f"{server.url}experiment/{withdrawn['id']}" in _sitemap(server)  # published: listed
    done = server.post(
        f"api/experiments/{withdrawn['id']}/withdraw", json={"reason": "crawl"}, headers=owner
    )
    assert done.status_code == 200

    listed = _sitemap(server)  # after a public write: not the cached one
    demo = f"{server.url}experiment/{server.demo_id}"
    for page in ("", "leaderboards", "experiments", "systems", "catalog"):
        assert server.url + page in listed
    assert demo in listed and listed[demo] and W3C_DATETIME.match(listed[demo])
    assert any("/dataset/" in url for url in listed) and any("/system/" in url for url in listed)
    assert f"{server.url}experiment/{private['id']}" not in listed
    assert f"{server.url}experiment/{withdrawn['id']}" not in listed
    assert len(listed) == len(set(listed))
    for url, lastmod in listed.items():
        assert lastmod is None or W3C_DATETIME.match(lastmod), (url, lastmod)
        assert server.get(url[len(server.url) :]).status_code == 200, url
    assert server.get("sitemap/2.xml").status_code == 404


def test_the_sitemap_lists_every_dataset_the_catalogue_lists(server) -> None:
    """The published uploads too: the demo dataset's page (in the catalogue, on the default
    leaderboard) was left out, only the built-in datasets were listed."""
    listed = _sitemap(server)
    catalogue = server.get("api/datasets").json()["datasets"]
    demo = server.get(f"api/experiments/{server.demo_id}").json()["dataset"]
    assert demo in {d["uri"] for d in catalogue if d["uploaded"]}
    for dataset in catalogue:
        page = server.url + dataset["uri"].split("/", 3)[3]  # on the host the crawler asked
        assert page in listed, page


def test_a_shared_experiment_link_says_what_it_is(server) -> None:
    """What a chat or a search result shows of an experiment's URI: its systems, its dataset
    and profile, in the description and the Open Graph tags."""
    from html.parser import HTMLParser

    class Meta(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.found: dict[str, str] = {}

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            named = dict(attrs)
            key = named.get("name") or named.get("property")
            if tag == "meta" and key:
                self.found[key] = named.get("content") or ""

    page = server.get(f"experiment/{server.demo_id}")
    meta = Meta()
    meta.feed(page.text)
    description = meta.found["description"]
    assert "demo-strong" in description and "profile fair" in description, description
    assert meta.found["og:description"] == description
    assert meta.found["og:title"] == f"Experiment {server.demo_id}"
    home = Meta()
    home.feed(server.get("").text)
    assert home.found["description"].startswith("Open, linked-data benchmarking")


def test_a_sitemap_file_that_does_not_exist_is_a_404(server) -> None:
    """``/sitemap/0.xml`` gave a 500: its slice of the pages began before the first one, which
    ``islice`` refuses, before the file's number was checked."""
    for number in ("0", "00", "2"):
        assert server.get(f"sitemap/{number}.xml").status_code == 404, number
    assert server.get("sitemap/1.xml").status_code == 200


def test_a_request_under_another_host_does_not_set_the_sitemap_others_read(server) -> None:
    """The sitemap's URLs were on the host asked (and it was cached without the host: one
    request with ``Host: elsewhere.example`` made every crawler read URLs of that host until
    the next public write). They are under the base now, whatever host was asked (explore45
    6), robots.txt's ``Sitemap`` too."""
    for path in ("sitemap.xml", "sitemap/1.xml", "robots.txt"):
        elsewhere = server.get(path, headers={"Host": "elsewhere.example"})
        assert elsewhere.status_code == 200 and b"elsewhere.example" not in elsewhere.content
    assert f"Sitemap: {server.url}sitemap.xml" in elsewhere.text.splitlines()
    mine = ElementTree.fromstring(server.get("sitemap.xml").content)
    assert [loc.text for loc in mine.iter(NS + "loc")]
    assert all(loc.text.startswith(server.url) for loc in mine.iter(NS + "loc"))
    assert b"elsewhere.example" not in server.get("sitemap/1.xml").content


def test_behind_a_tls_proxy_absolute_links_are_on_the_https_base(tmp_path) -> None:
    """Deployed as the README says (nginx ends TLS, passes ``Host``, serves ``--base
    https://…``), the request reaching the service is plain http: the sitemap, robots.txt, a
    frozen leaderboard's ``Location`` and ``live`` and a leaderboard's ``next`` said
    ``http://qa.example.org/…``, URLs of no page the site serves under its base."""
    from tests.web.conftest import start_server, stop_server

    site = start_server(tmp_path / "store", base="https://qa.example.org/")
    try:
        public = {"Host": "qa.example.org", "X-Forwarded-Proto": "https"}
        robots = site.get("robots.txt", headers=public).text
        assert "Sitemap: https://qa.example.org/sitemap.xml" in robots.splitlines()
        for path in ("sitemap.xml", "sitemap/1.xml"):
            locs = [
                loc.text
                for loc in ElementTree.fromstring(site.get(path, headers=public).content).iter(
                    NS + "loc"
                )
            ]
            assert locs and all(url.startswith("https://qa.example.org/") for url in locs), locs
        frozen = site.post("api/leaderboards", json={"title": "proxied"}, headers=public)
        assert frozen.status_code == 201, frozen.text
        assert frozen.headers["Location"] == frozen.json()["uri"]
        assert frozen.json()["live"].startswith("https://qa.example.org/leaderboards?")
        table = site.get("leaderboards?format=json&size=1", headers=public).json()
        assert table["next"] is None or table["next"].startswith("https://qa.example.org/")
        # asked at its own address (no proxy), the sitemap and robots.txt still give the
        # base's URLs, the ones the RDF names and search engines should index (explore45 6)
        for path in ("sitemap.xml", "sitemap/1.xml"):
            direct = ElementTree.fromstring(site.get(path).content)
            locs = [loc.text for loc in direct.iter(NS + "loc")]
            assert locs and all(url.startswith("https://qa.example.org/") for url in locs), locs
        robots = site.get("robots.txt").text.splitlines()
        assert "Sitemap: https://qa.example.org/sitemap.xml" in robots
        # but a frozen board's `live`, a link its JSON gives to be used anywhere, is under the
        # base as its `uri` is: it was on the host asked (explore35 9)
        again = site.get(f"api/leaderboards/{frozen.json()['id']}")
        assert again.json()["live"].startswith("https://qa.example.org/leaderboards?"), again.text
    finally:
        stop_server(site)


def test_the_api_urls_a_page_gives_are_under_the_base(tmp_path) -> None:
    """The experiment page's ``POST …/rescore`` and the submitted page's ``POST …/papers``
    were ``url_for(…, _external=True)``: on the request's host, 127.0.0.1:PORT for a service
    reached directly, where the API's ``statusUrl`` and every URI are under the base
    (explore35 9): ``base_url`` gives them under the base, and no template builds a URL from
    the host asked."""
    from service.graph.store import open_storage
    from service.paths import PROJECT_ROOT
    from service.web import close_app, create_app

    templates = sorted((PROJECT_ROOT / "service" / "web" / "templates").glob("*.html"))
    assert templates and not [t.name for t in templates if "_external" in t.read_text()]
    storage = open_storage(tmp_path / "store", base="https://qa.example.org/", catalog=False)
    app = create_app({"base": "https://qa.example.org/", "demo": False}, storage=storage)
    try:
        with app.test_request_context("/", base_url="http://127.0.0.1:18729/"):
            from service.web.ui import base_url

            said = base_url("api.rescore", experiment_id="202611290004")
        assert said == "https://qa.example.org/api/experiments/202611290004/rescore"
    finally:
        close_app(app)


def test_the_shapes_and_a_void_description_are_served(server) -> None:
    """No URI served our SHACL shapes or a VoID description (explore29 3): now ``/shapes``
    gives shapes/ (conneg, as ``/vocab``), ``/.well-known/void`` the public store's VoID
    (VoID §7), and the service description and the vocabulary link both."""
    import rdflib
    from rdflib.compare import isomorphic

    from service.paths import SHAPES_DIR

    void_ns = rdflib.Namespace("http://rdfs.org/ns/void#")
    sh = rdflib.Namespace("http://www.w3.org/ns/shacl#")
    shapes_uri = rdflib.URIRef(server.url + "shapes")
    void_uri = rdflib.URIRef(server.url + ".well-known/void")

    def read(path: str, media_type: str = "text/turtle") -> rdflib.Graph:
        got = server.get(path, headers={"Accept": media_type})
        assert got.status_code == 200, (path, got.status_code)
        assert got.headers["Content-Type"].startswith(media_type)
        syntax = {"text/turtle": "turtle", "application/ld+json": "json-ld"}[media_type]
        return rdflib.Graph().parse(data=got.content, format=syntax, publicID=server.url + path)

    served = read("shapes")
    files = rdflib.Graph()
    for path in sorted(SHAPES_DIR.glob("*.ttl")):
        files.parse(path, format="turtle")
    rules = rdflib.Graph()
    for triple in served:
        if triple[0] != shapes_uri:
            rules.add(triple)
    assert isomorphic(rules, files)
    assert (None, rdflib.RDF.type, sh.NodeShape) in served
    assert len(read("shapes.jsonld", "application/ld+json")) == len(served)
    assert "alternate" in server.get("shapes").headers["Link"]

    described = read(".well-known/void")
    (store,) = described.subjects(rdflib.RDF.type, void_ns.Dataset)
    assert described.value(store, void_ns.sparqlEndpoint) == rdflib.URIRef(server.url + "sparql")
    assert described.value(store, void_ns.rootResource) == rdflib.URIRef(server.url + "catalog")
    vocabularies = {str(v) for v in described.objects(store, void_ns.vocabulary)}
    assert "http://w3id.org/gerbil/qa/vocab" in vocabularies
    dump = described.value(store, void_ns.dataDump)
    got = server.get(str(dump).replace(server.url, ""))
    assert got.status_code == 200
    # every vocabulary the dump's predicates and classes are of, and no other (a list written
    # by hand left out schema.org, FOAF, vCard, DataID, VANN, OWL …: explore65 F4)
    used = set()
    for quad in pyoxigraph.parse(got.content, format=pyoxigraph.RdfFormat.N_QUADS):
        for term in (quad.predicate, quad.object if quad.predicate == TYPE else None):
            if isinstance(term, pyoxigraph.NamedNode):
                iri = term.value
                used.add(iri.rsplit("#", 1)[0] if "#" in iri else iri[: iri.rfind("/") + 1])
    assert vocabularies == used
    # the vocabulary says which terms of others a gqa:Evaluator carries (explore65 F4)
    evaluator = rdflib.URIRef("http://w3id.org/gerbil/qa/vocab#Evaluator")
    assert "schema:codeRepository" in str(read("vocab").value(evaluator, rdflib.RDFS.comment))
    assert server.get(".well-known/void", headers={"Accept": "text/html"}).status_code == 200

    for path in ("sparql", "vocab"):
        linked = set(read(path).objects(None, rdflib.RDFS.seeAlso))
        assert {shapes_uri, void_uri} <= linked, path


def test_robots_disallow_under_the_base_path(tmp_path) -> None:
    """Under ``--base https://host/gerbil/`` without ``--url-prefix`` (a proxy strips /gerbil),
    robots.txt's Disallow lines said ``/sparql``, its Sitemap the base's URL: the rules matched
    no public path (explore47 F7). Both follow the base's path now."""
    from service.graph.store import open_storage
    from service.web import close_app, create_app

    base = "https://qa.example.org/gerbil/"
    storage = open_storage(tmp_path / "store", base=base, catalog=False)
    app = create_app({"base": base, "demo": False}, storage=storage)
    try:
        lines = app.test_client().get("/robots.txt").text.splitlines()
    finally:
        close_app(app)
    assert lines == [
        "User-agent: *",
        "Disallow: /gerbil/sparql",
        "Disallow: /gerbil/api/",
        "Disallow: /gerbil/compare",
        "Disallow: /gerbil/experiments/new",
        "Sitemap: https://qa.example.org/gerbil/sitemap.xml",
    ]
