"""Every example query the SPARQL page offers runs on the endpoint as it is shown (JSON and the
page's own link), so a reader who starts from one gets results, not an error."""

from __future__ import annotations

import re
from html import unescape

from service.web.examples import examples_for

HTML = {"Accept": "text/html"}


def test_every_example_runs_as_shown(server) -> None:
    page = server.get("sparql", headers=HTML)
    assert page.status_code == 200
    links = re.findall(r'<a href="([^"]+)" id="example-(\d+)">', page.text)
    examples = examples_for(server.url)
    assert len(links) == len(examples) >= 4
    for href, _ in links:  # the page's links: the query runs, its results shown
        shown = server.get(unescape(href).removeprefix("/").split("#")[0], headers=HTML)
        assert shown.status_code == 200, href
    for example in examples:
        answer = server.get("sparql", params={"query": example.text, "format": "json"})
        assert answer.status_code == 200, (example.title, answer.text[:300])
        assert "results" in answer.json(), example.title
