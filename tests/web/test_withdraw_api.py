"""Withdrawing a published experiment on the running server: ``POST
/api/experiments/{id}/withdraw`` for its owner only; afterwards the leaderboard (already cached
before) and the public endpoint's default graph leave it out, while its URI answers with its
results and the withdrawal's date and reason, in HTML and Turtle."""

from __future__ import annotations

import re
from pathlib import Path

import pyoxigraph as ox

from service.paths import DEMO_DIR

GQA = "http://w3id.org/gerbil/qa/vocab#"
QB = "http://purl.org/linked-data/cube#"
STRONG = (DEMO_DIR / "answers-strong.json").read_bytes()


def _submit(server, marker: str) -> dict:
    files = [
        ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", ("mine.json", STRONG + b" " * len(marker))),
    ]
    response = server.post("api/experiments", files=files, data={"profile": "fair", "kb": "demo"})
    assert response.status_code == 202, response.text
    ticket = response.json()
    server.wait_finished(ticket["id"], ticket["token"])
    return ticket


def _ranked(server) -> set[str]:
    """The experiments of every leaderboard row (the page's own JSON, from the page cache when
    it was rendered since the last public write)."""
    board = server.get("leaderboards", params={"dataset": "all", "size": "500", "format": "json"})
    assert board.status_code == 200, board.text
    return {row["experiment"] for row in board.json()["rows"]}


def _sparql(server, query: str) -> dict:
    answer = server.get("sparql", params={"query": query, "format": "json"})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_owner_withdraws_a_published_experiment(server) -> None:
    ticket = _submit(server, "withdrawn")
    eid, owner = ticket["id"], {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{eid}/publish", headers=owner).ok
    uri = server.get(f"api/experiments/{eid}", headers=owner).json()["uri"]
    demo = server.get(f"api/experiments/{server.demo_id}").json()["uri"]
    compared = {"task": [f"{uri}/task/1", f"{demo}/task/1"]}
    assert "withdrawn" not in server.get("compare", params={**compared, "format": "json"}).json()
    assert "1.000 · mine" in server.get(f"experiment/{eid}/badge.svg").text
    assert uri in _ranked(server)  # and the leaderboard is in the page cache now
    tasks = f"SELECT ?t WHERE {{ ?t <{QB}dataSet> <{uri}> ; a <{GQA}Task> }}"
    assert _sparql(server, tasks)["results"]["bindings"]

    path = f"api/experiments/{eid}/withdraw"
    reason = {"reason": "the wrong answers file"}
    assert server.post(path, json=reason).status_code == 403
    wrong = {"Authorization": "Bearer not-the-token"}
    assert server.post(path, json=reason, headers=wrong).status_code == 403
    assert server.post(path, json={}, headers=owner).status_code == 400
    assert server.post(path, json={"reason": 7}, headers=owner).status_code == 400

    done = server.post(path, json=reason, headers=owner)
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["id"] == eid and body["uri"] == uri
    assert body["withdrawalReason"] == "the wrong answers file" and body["withdrawnAt"]

    assert uri not in _ranked(server)  # the cached leaderboard was dropped
    assert _sparql(server, tasks)["results"]["bindings"] == []
    noted = f"ASK {{ GRAPH ?g {{ <{uri}> <{GQA}withdrawnAt> ?at ; a <{GQA}Experiment> }} }}"
    assert _sparql(server, noted)["boolean"] is True  # its graph whole, with the note
    status = server.get(f"api/experiments/{eid}", headers=owner).json()
    assert status["withdrawnAt"] == body["withdrawnAt"] and status["public"] is True
    # the documents it shared a triple with say the same in every syntax: the quad syntaxes
    # still read its graph (the dataset's prov:wasDerivedFrom its upload: N-Quads had it, not
    # Turtle, which reads the union the withdrawal left)
    import rdflib

    for shared in (status["dataset"], status["results"][0]["system"]):
        doc = shared[len(server.url) :]
        turtle_doc = server.get(doc, headers={"Accept": "text/turtle"})
        quads_doc = server.get(doc, headers={"Accept": "application/n-quads"})
        assert turtle_doc.status_code == quads_doc.status_code, doc
        if turtle_doc.status_code != 200:
            continue
        from rdflib.compare import isomorphic, to_isomorphic

        triples = rdflib.Graph().parse(data=turtle_doc.text, format="turtle")
        named = rdflib.Dataset()
        named.parse(data=quads_doc.text, format="nquads")
        merged = rdflib.Graph()
        for s, p, o, _g in named.quads((None, None, None, None)):
            merged.add((s, p, o))
        # blank nodes (a distribution's spdx:checksum) are named apart by each parse: the
        # documents are the same graph when isomorphic, not when their triples are equal
        assert isomorphic(merged, triples), (
            doc,
            set(to_isomorphic(merged)) ^ set(to_isomorphic(triples)),
        )

    page = server.get(f"experiment/{eid}")
    assert page.status_code == 200
    assert 'id="withdrawn-notice"' in page.text and "the wrong answers file" in page.text
    turtle = server.get(f"experiment/{eid}", headers={"Accept": "text/turtle"})
    assert turtle.status_code == 200 and "withdrawalReason" in turtle.text
    # its parts' pages say it too: a frozen leaderboard cites a task, whose page said nothing
    # (explore29 14); its RDF stays as published
    for part in (f"experiment/{eid}/task/1", f"experiment/{eid}/task/1/question/1"):
        shown = server.get(part)
        assert shown.status_code == 200, part
        notice = re.search(
            r'<div class="notice" id="withdrawn-notice">(.*?)</div>', shown.text, re.S
        )
        assert notice and "the wrong answers file" in notice[1], part
        assert f"experiment {eid}</a>, which this result is part of" in notice[1]
    before = server.get(f"experiment/{server.demo_id}/task/1").text
    assert 'id="withdrawn-notice"' not in before  # a part of a standing experiment: nothing
    assert "microF1" in turtle.text  # the results stay at the URI
    listing = server.get("experiments")
    assert listing.status_code == 200 and f"experiment/{eid}" not in listing.text
    # whoever copies its citation now learns it was withdrawn, and why (it said nothing)
    bib = server.get(f"experiment/{eid}.bib")
    assert bib.status_code == 200
    day = body["withdrawnAt"][:10]
    assert f"withdrawn on {day}: the wrong answers file}}" in bib.text, bib.text
    assert bib.text.count("@misc{") == 1  # the one entry, its key unchanged
    assert f"@misc{{gerbilqa-{eid}," in bib.text
    assert f"Withdrawn on {day}: the wrong answers file" in page.text  # the plain citation
    # one form of its date on every page: the day (the notices gave the timestamp, the
    # citations the day: explore48 11)
    notice = page.text.split('id="withdrawn-notice"')[1].split("</div>")[0]
    assert f"<strong>Withdrawn</strong> on {day}: the wrong" in notice, notice
    assert body["withdrawnAt"] not in page.text
    for part in (f"experiment/{eid}/task/1", f"experiment/{eid}/task/1/question/1"):
        assert f"was withdrawn on {day}: the wrong" in server.get(part).text, part

    # a comparison a paper cites still answers, and says which experiment was withdrawn
    cited = server.get("compare", params={**compared, "format": "json"}).json()
    assert cited["withdrawn"] == [
        {
            "task": f"{uri}/task/1",
            "experiment": uri,
            "withdrawnAt": body["withdrawnAt"],
            "withdrawalReason": "the wrong answers file",
        }
    ]
    assert len(cited["systems"]) == 2
    shown = server.get("compare", params=compared)
    assert shown.status_code == 200 and 'id="compare-withdrawn"' in shown.text
    said = shown.text.split('id="compare-withdrawn"')[1].split("</div>")[0]
    assert f"</a>, withdrawn on {day} (the wrong answers file)" in said, said
    badge = server.get(f"experiment/{eid}/badge.svg")  # embedded in a README before
    assert badge.status_code == 200 and "withdrawn · mine" in badge.text
    assert f"(experiment {eid}) was withdrawn" in badge.text

    # the SPARQL page's example lists it, with the reason
    from service.web.examples import WITHDRAWN

    listed = _sparql(server, WITHDRAWN)["results"]["bindings"]
    assert {"experiment": uri, "reason": "the wrong answers file"} in [
        {"experiment": r["experiment"]["value"], "reason": r["reason"]["value"]} for r in listed
    ]

    again = server.post(path, json=reason, headers=owner)
    assert again.status_code == 409 and "was withdrawn on" in again.json()["error"]


def test_an_unpublished_experiment_is_deleted_not_withdrawn(server) -> None:
    ticket = _submit(server, "private")
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    refused = server.post(
        f"api/experiments/{ticket['id']}/withdraw", json={"reason": "x"}, headers=owner
    )
    assert refused.status_code == 409
    assert "not published: delete it instead" in refused.json()["error"]


def test_the_readme_query_reads_the_dump_as_the_endpoint(server) -> None:
    """The dump holds a withdrawn experiment's graph (with its note) and no default graph: the
    README's query over the dump's union graph gives the rows of the endpoint's default graph,
    and without its filter the withdrawn experiment's tasks as well."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("**Reading the public dump.**", 1)[1]
    query = re.search(r"```sparql\n(.*?)```", section, re.S)
    assert query, "no query under 'Reading the public dump'"
    ticket = _submit(server, "read from the dump")
    eid, owner = ticket["id"], {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{eid}/publish", headers=owner).ok
    gone = {"reason": "read from the dump"}
    assert server.post(f"api/experiments/{eid}/withdraw", json=gone, headers=owner).ok
    uri = server.get(f"api/experiments/{eid}", headers=owner).json()["uri"]

    dump = ox.Store()
    dump.load(server.get("dump.nq").content, format=ox.RdfFormat.N_QUADS)
    assert not list(dump.quads_for_pattern(None, None, None, ox.DefaultGraph()))

    def rows(text: str) -> set[tuple[str, str]]:
        found = dump.query(text, use_default_graph_as_union=True)
        return {(r["task"].value, r["f1"].value) for r in found}  # type: ignore[index]

    served = _sparql(server, query.group(1))["results"]["bindings"]
    assert rows(query.group(1)) == {(b["task"]["value"], b["f1"]["value"]) for b in served}
    unfiltered = rows(re.sub(r"FILTER NOT EXISTS \{[^}]*\}", "", query.group(1)))
    extra = {task.rsplit("/task/", 1)[0] for task, _ in unfiltered - rows(query.group(1))}
    withdrawn = {
        q.subject.value
        for q in dump.quads_for_pattern(None, ox.NamedNode(GQA + "withdrawnAt"), None)
    }
    assert uri in extra and extra <= withdrawn  # this one, and any an earlier test withdrew


def test_publishing_a_withdrawn_experiment_again_is_a_conflict(server) -> None:
    """A release pipeline that publishes again an experiment withdrawn since (a retried job,
    an id kept from an old run) is told it stays withdrawn: before, publish answered 200 with
    ``"public": true`` and nothing about the withdrawal, as if the release were listed."""
    ticket = _submit(server, "republished")
    eid, owner = ticket["id"], {"Authorization": f"Bearer {ticket['token']}"}
    publish = f"api/experiments/{eid}/publish"
    assert server.post(publish, headers=owner).status_code == 200
    assert server.post(publish, headers=owner).status_code == 200  # publishing stays idempotent
    withdrawn = server.post(
        f"api/experiments/{eid}/withdraw", json={"reason": "a mistake"}, headers=owner
    )
    assert withdrawn.status_code == 200, withdrawn.text
    again = server.post(publish, headers=owner)
    assert again.status_code == 409, again.text
    assert (
        "withdrawn" in again.json()["error"]
        and withdrawn.json()["withdrawnAt"][:10] in (again.json()["error"])
    )
    uri = withdrawn.json()["uri"]
    assert uri not in {e["uri"] for e in server.get("api/experiments").json()["experiments"]}


def test_a_reason_with_a_control_character_is_refused(server) -> None:
    """A reason is text shown with the experiment in every format; a control character (NUL,
    BEL) made its RDF/XML not well-formed (XML 1.0 has no such character), so it is a 400 and
    the experiment stays published; markup, quotes and backslashes are text, and the RDF/XML
    of a withdrawal parses."""
    import rdflib

    ticket = _submit(server, "control")
    eid, owner = ticket["id"], {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{eid}/publish", headers=owner).ok
    path = f"api/experiments/{eid}/withdraw"
    for bad in ("a\x00b", "bell\x07", "del\x7f"):
        refused = server.post(path, json={"reason": bad}, headers=owner)
        assert refused.status_code == 400, (bad, refused.text)
        assert "control character" in refused.json()["error"]
    assert "withdrawnAt" not in server.get(f"api/experiments/{eid}", headers=owner).json()
    reason = '<b>"quoted"</b> \\ & é'
    assert server.post(path, json={"reason": reason}, headers=owner).ok
    xml = server.get(f"experiment/{eid}", headers={"Accept": "application/rdf+xml"})
    graph = rdflib.Graph().parse(data=xml.content, format="xml")
    assert [str(o) for o in graph.objects(None, rdflib.URIRef(GQA + "withdrawalReason"))] == [
        reason
    ]


def test_the_withdraw_page_of_a_withdrawn_experiment_says_so(server) -> None:
    """explore48 6: after the withdrawal its owner got the form again (a 409 of one bare
    sentence on submit, no page), a reader "Only the owner … can withdraw it"; a forged post
    was a bare 403 too. Now the page says it is withdrawn (when, why), with no form, and a
    refused post answers a browser with a whole page."""
    import requests

    ticket = _submit(server, "withdrawn twice")
    eid, token = ticket["id"], ticket["token"]
    owner = {"Authorization": f"Bearer {token}"}
    assert server.post(f"api/experiments/{eid}/publish", headers=owner).ok
    browser = requests.Session()
    browser.cookies.set(f"gqa_owner_{eid}", token)
    html_accept = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    form = browser.get(f"{server.url}experiment/{eid}/withdraw", headers=html_accept)
    check = re.search(r'name="check" value="([^"]+)"', form.text)
    assert check, form.text  # the form, before the withdrawal
    withdrawn = server.post(
        f"api/experiments/{eid}/withdraw", json={"reason": "a bad file"}, headers=owner
    )
    assert withdrawn.status_code == 200, withdrawn.text
    day = withdrawn.json()["withdrawnAt"][:10]
    for reader in (browser, requests.Session()):
        page = reader.get(f"{server.url}experiment/{eid}/withdraw", headers=html_accept)
        assert page.status_code == 200
        said = " ".join(re.sub(r"<[^>]+>", "", page.text).split())
        assert f"Withdrawn on {day}: a bad file" in said, said
        assert 'id="withdraw-form"' not in page.text and "Only the owner" not in said
    # the form kept from before (another tab), sent: a page saying why, for a browser
    sent = {"check": check.group(1), "reason": "again", "confirm": "on"}
    again = browser.post(f"{server.url}experiment/{eid}/withdraw", data=sent, headers=html_accept)
    assert again.status_code == 409 and again.text.lstrip().lower().startswith("<!doctype html>")
    assert f"was withdrawn on {day} (a bad file)" in again.text, again.text
    forged = requests.post(f"{server.url}experiment/{eid}/withdraw", data=sent, headers=html_accept)
    assert forged.status_code == 403 and forged.text.lstrip().lower().startswith("<!doctype html>")
