"""A challenge organiser's walk: teams' runs on one dataset, published, ranked, frozen and cited.
What it found: two teams with the same score were ranked 1 and 2 (by their task IRIs), in the
live leaderboard and in the frozen one a challenge cites as its final ranking."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest
import rdflib
import requests

from service.paths import DEMO_DIR
from tests.web.conftest import Server, free_port, start_server, stop_server


@contextlib.contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """A real HTTP service on 127.0.0.1 while the block runs: its port."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def _send_json(
    handler: BaseHTTPRequestHandler, data: object, media_type: str = "application/json"
) -> None:
    """A 200 with ``data`` as JSON: what the stub servers below answer."""
    body = json.dumps(data).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", media_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class _HalfUp(BaseHTTPRequestHandler):
    """A KB's SPARQL endpoint that answers an ASK and drops the connection of any SELECT (as
    an endpoint that goes down once a run has started)."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        if "SELECT" in parse_qs(body).get("query", [""])[0].upper():
            self.close_connection = True
            return
        _send_json(self, {"head": {}, "boolean": True}, "application/sparql-results+json")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of its own (no demo): the walk publishes and freezes. Its KBs: "down", an
    endpoint nothing listens on (a port taken and let go), and "halfup" (``_HalfUp``)."""
    with serving(_HalfUp) as halfup:
        kbs = f"down=http://127.0.0.1:{free_port()}/sparql;halfup=http://127.0.0.1:{halfup}/sparql"
        running = start_server(tmp_path_factory.mktemp("organiser-store"), demo=False, kbs=kbs)
        yield running
        stop_server(running)


def _publish(site: Server, team: str, answers: str) -> str:
    """One team's run on the demo questions, as an answer file named after the team."""
    files = [
        ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", (f"{team}.json", (DEMO_DIR / f"answers-{answers}.json").read_bytes())),
    ]
    made = site.post("api/experiments", files=files, data={"profile": "fair", "kb": "demo"})
    assert made.status_code == 202, made.text
    ticket = made.json()
    site.wait_finished(ticket["id"], ticket["token"])
    published = site.post(
        f"api/experiments/{ticket['id']}/publish",
        headers={"Authorization": f"Bearer {ticket['token']}"},
    )
    assert published.status_code == 200, published.text
    return ticket["id"]


@pytest.fixture(scope="module")
def tied(site: Server) -> dict[str, str]:
    """Three teams: two with the same answers (the same score), one weaker."""
    return {
        team: _publish(site, team, answers)
        for team, answers in (
            ("team-a", "strong"),
            ("team-b", "baseline"),
            ("team-c", "strong"),
        )
    }


def test_equal_scores_share_a_rank_in_the_live_leaderboard(
    site: Server, tied: dict[str, str]
) -> None:
    board = site.get("leaderboards?format=json").json()
    ranked = [(r["rank"], r["system"], r["measures"]["macroF1"]) for r in board["rows"]]
    assert [name for _, name, _ in ranked] == ["team-a", "team-c", "team-b"]
    assert ranked[0][2] == ranked[1][2] > ranked[2][2]
    # competition ranking: the tied teams are both first, the next one third
    assert [rank for rank, _, _ in ranked] == [1, 1, 3]
    table = list(csv.DictReader(io.StringIO(site.get("leaderboards?format=csv").text)))
    assert [(r["rank"], r["system"]) for r in table] == [
        ("1", "team-a"),
        ("1", "team-c"),
        ("3", "team-b"),
    ]
    page = site.get("leaderboards", headers={"Accept": "text/html"}).text
    row = (
        r'<td class="num">(\d+)</td>(?:<td class="num tier">[^<]*</td>)?\s*'
        r'<th scope="row"><a [^>]*>([^<]+)</a>'
    )
    shown = re.findall(row, page)
    assert shown == [("1", "team-a"), ("1", "team-c"), ("3", "team-b")]


def test_equal_scores_share_a_rank_on_a_later_page(site: Server, tied: dict[str, str]) -> None:
    """The second page starts with the second of two tied teams: still first, not second."""
    second = site.get("leaderboards?format=json&size=1&page=2").json()
    assert [(r["rank"], r["system"]) for r in second["rows"]] == [(1, "team-c")]
    third = site.get("leaderboards?format=json&size=1&page=3").json()
    assert [(r["rank"], r["system"]) for r in third["rows"]] == [(3, "team-b")]


def test_equal_scores_share_a_rank_in_the_frozen_leaderboard(
    site: Server, tied: dict[str, str]
) -> None:
    made = site.post("api/leaderboards", json={"title": "Final ranking"})
    assert made.status_code in (200, 201), made.text
    rows = made.json()["rows"]
    assert [(r["rank"], r["system"]) for r in rows] == [
        (1, "team-a"),
        (1, "team-c"),
        (3, "team-b"),
    ]
    kept = site.get(f"api/leaderboards/{made.json()['id']}").json()["rows"]
    assert [r["rank"] for r in kept] == [1, 1, 3]
    # every row is its own entry in the graph (the entries were named by rank: a tie was one)
    graph = rdflib.Graph().parse(
        data=site.get(f"leaderboard/{made.json()['id']}", headers={"Accept": "text/turtle"}).text,
        format="turtle",
    )
    gqa = rdflib.Namespace("http://w3id.org/gerbil/qa/vocab#")
    entries = sorted(
        (int(graph.value(e, gqa.rank)), str(graph.value(e, gqa.rankedTask)).split("/")[-3])
        for e in graph.subjects(rdflib.RDF.type, gqa.LeaderboardEntry)
    )
    assert entries == sorted([(1, tied["team-a"]), (1, tied["team-c"]), (3, tied["team-b"])])


class _Failing(BaseHTTPRequestHandler):
    """A team's Text2SPARQL service that fails every call (as one whose model is down)."""

    def do_GET(self) -> None:
        self.send_response(500)
        self.send_header("Content-Length", "4")
        self.end_headers()
        self.wfile.write(b"down")

    def log_message(self, *args: object) -> None:
        pass


def test_the_owner_page_of_an_aborted_run_says_it_has_nothing_to_publish(site: Server) -> None:
    """A team's service that fails every call is stopped by the error-rate rule and the
    experiment ends as ``error``. Its owner's page said it "becomes public when you publish
    it" (it cannot be: publishing is refused unless finished) and "No results yet", as if
    they were still coming, and named no way on."""
    with serving(_Failing) as port:
        made = site.post(
            "api/experiments",
            json={
                "dataset": "demo",
                "systems": [
                    {
                        "name": "team-down",
                        "url": f"http://127.0.0.1:{port}/",
                        "interface": "text2sparql",
                    }
                ],
                "retries": 0,
                "timeout": 2,
                # GERBIL's rule, asked for: a Text2SPARQL run asks every question by default
                "maxErrorRate": 0.25,
            },
        )
        assert made.status_code == 202, made.text
        ticket = made.json()
        owner = {"Authorization": f"Bearer {ticket['token']}"}
        deadline = time.monotonic() + 25
        while (state := site.get(f"api/experiments/{ticket['id']}", headers=owner).json())[
            "status"
        ] not in ("finished", "error") and time.monotonic() < deadline:
            time.sleep(0.1)
    assert state["status"] == "error", state
    assert "error-rate rule" in state["message"]
    refused = site.post(f"api/experiments/{ticket['id']}/publish", headers=owner)
    assert refused.status_code == 409
    # the owner link puts the token in a cookie and redirects to the page
    page = requests.Session().get(ticket["ownerLink"], timeout=30).text
    text = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "becomes public when you publish it" not in text
    assert "No results yet" not in text
    assert "it ended in error, with no results to publish" in text
    assert f"POST /api/experiments/{ticket['id']}/resume" in text
    assert "No results: it ended in error." in text


class _Querying(BaseHTTPRequestHandler):
    """A team's Text2SPARQL service that answers every question with one query."""

    calls = 0

    def do_GET(self) -> None:
        type(self).calls += 1
        query = "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"
        _send_json(self, {"dataset": "demo", "question": "?", "query": query})

    def log_message(self, *args: object) -> None:
        pass


def _run_to_end(site: Server, body: dict) -> tuple[dict, dict]:
    made = site.post("api/experiments", json=body)
    assert made.status_code == 202, made.text
    ticket = made.json()
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    deadline = time.monotonic() + 25
    while True:
        state = site.get(f"api/experiments/{ticket['id']}", headers=owner).json()
        if state["status"] in ("finished", "error") or time.monotonic() > deadline:
            return ticket, state
        time.sleep(0.1)


def test_a_kb_that_cannot_be_reached_stops_the_run_before_any_question_is_asked(
    site: Server,
) -> None:
    """The KB's endpoint was found down only after every question had been asked (with a
    large model, timeout × questions of calls for nothing), and the error said only "SPARQL
    endpoint URL: [Errno 111] Connection refused"."""
    with serving(_Querying) as port:
        system = {"name": "team-p", "url": f"http://127.0.0.1:{port}/", "interface": "text2sparql"}
        before = _Querying.calls
        _ticket, state = _run_to_end(
            site, {"dataset": "demo", "kb": "down", "systems": [system], "retries": 0}
        )
        assert _Querying.calls == before  # nothing asked
    assert state["status"] == "error", state
    message = state["message"]
    assert "team-p" in message and "knowledge base, which cannot be reached" in message, message
    assert "/sparql" in message and "nothing was asked" in message, message


def test_a_kb_that_goes_down_during_a_run_is_named_as_such_and_the_way_on_given(
    site: Server,
) -> None:
    """Every question was asked, then running the team's queries on the KB failed: the
    experiment said only "SPARQL endpoint URL: …", not what it was doing, whose queries they
    were, or that its answers are kept for a resume."""
    with serving(_Querying) as port:
        system = {"name": "team-q", "url": f"http://127.0.0.1:{port}/", "interface": "text2sparql"}
        before = _Querying.calls
        ticket, state = _run_to_end(
            site, {"dataset": "demo", "kb": "halfup", "systems": [system], "retries": 0}
        )
        assert state["status"] == "error", state
        message = state["message"]
        assert "team-q" in message and "knowledge base" in message, message
        assert "/sparql" in message  # the endpoint, and why it failed, as before
        assert "resume" in message and "not asked again" in message, message
        # its row: every question asked, none scored ("error while asked, waiting to be scored")
        (row,) = state["systems"]
        assert row["activity"] == "asked, not scored: the run ended as error", row
        # what it promises: a resume (the endpoint still down) asks the service nothing
        asked = _Querying.calls
        assert asked - before >= 14  # every demo question
        owner = {"Authorization": f"Bearer {ticket['token']}"}
        resumed = site.post(f"api/experiments/{ticket['id']}/resume", headers=owner)
        assert resumed.status_code == 202, resumed.text
        deadline = time.monotonic() + 25
        while time.monotonic() < deadline:
            again = site.get(f"api/experiments/{ticket['id']}", headers=owner).json()
            if again["status"] == "error":
                break
            time.sleep(0.1)
        assert again["status"] == "error" and "knowledge base" in again["message"], again
        assert _Querying.calls == asked
