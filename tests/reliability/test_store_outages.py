"""A remote store that goes away and comes back (the two ``oxigraph serve`` of a deployment,
stopped with SIGSTOP at a chosen write): what was interrupted ends in one state, never half of
two, once the store answers again.

- a publication whose second write (the admin record, in the private dataset) fails after its
  first (the public copy) is completed by the next publication with the copy's ``dct:issued``:
  before, it wrote the public graph again, and the experiment had two (a SHACL violation);
- a run whose write fails while the private store restarts is taken over and finishes once the
  store is back: before, it ended on its replica, but neither its status nor its claim could
  be written, and the claim, kept live by the replica's heartbeat, kept it ``running`` for good;
- a cancel on replica B of a run on A is seen after the store was away a moment: before, A's
  thread watching for it ended at the first failed read, and the run could not be cancelled;
- two processes publishing one experiment at once publish it once: before, each wrote the
  public graph with its own ``dct:issued`` (two, a SHACL violation), and each answered with
  another publication time;
- a "store" that answers 200 with an HTML page (a proxy's login or error page, a web UI: the
  URL or its layout is wrong) is said to be one, and the command ends with exit code 1: before,
  the results parser's SyntaxError came out as a traceback; the health probe says it too.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import requests

from service.errors import ServiceError
from service.graph.adapter import Side
from service.graph.store import open_storage
from service.paths import DEMO_DIR
from service.systems.localnet import free_port
from tests.reliability.figures import Served, cli
from tests.reliability.runs import (
    IN_FLIGHT,
    CountingQA,
    finished,
    question_count,
    run_status,
    submit,
    until,
)
from tests.reliability.test_replicas import BASE
from tests.remote import OxigraphServer, RemotePair, environment, pause, remote_pair, resume

# GERBIL_QA_LEASE_SECONDS: a run released is taken over within seconds, and claims outlive
# an outage of 1.5 s (held for 0.8 of the lease after a beat; beats every 2 s)
LEASE = "6"

TIMEOUT = "1"  # GERBIL_QA_STORE_TIMEOUT: a stopped store is given up on within a second


@pytest.fixture()
def pair(tmp_path: Path) -> Iterator[RemotePair]:
    with (
        remote_pair(tmp_path) as running,
        environment({**running.env, "GERBIL_QA_STORE_TIMEOUT": TIMEOUT}),
    ):
        yield running


def _record(pair: RemotePair, capsys: pytest.CaptureFixture[str], *base: str) -> str:
    """An experiment recorded by the command line (the demo's answers), its id (``base``:
    ``--base URI`` for a store a replica serves)."""
    from service.cli import main

    args = ["evaluate", "--dataset", str(DEMO_DIR / "questions.json"), *base]
    args += ["--answers", str(DEMO_DIR / "answers-strong.json"), "--store", pair.url]
    assert main(args) == 0
    return capsys.readouterr().err.split("recorded experiment ", 1)[1].split()[0]


def _stopping(server: OxigraphServer, store: Any, when: str) -> None:
    """Stop ``server`` (SIGSTOP) just before the first update of ``store`` that contains
    ``when``."""
    update = store.update

    def stop_then_update(side: Side, text: str) -> None:
        if when in text:
            store.update = update  # once
            pause(server.process.pid)
        update(side, text)

    store.update = stop_then_update


GQA_EXPERIMENT = "http://w3id.org/gerbil/qa/vocab#Experiment"
DCAT_DATASET = "http://www.w3.org/ns/dcat#Dataset"


def _issued(pair: RemotePair, graph: str, kind: str = GQA_EXPERIMENT) -> list[str]:
    """The ``dct:issued`` values of the ``kind`` resources of ``graph`` (the experiment's;
    its uploaded dataset's first publication writes one of its own, at the same instant, in
    the dataset's own graph), in any graph."""
    rows = pair.public.query(
        f"SELECT ?t WHERE {{ GRAPH <{graph}> {{ ?e a <{kind}> }} GRAPH ?g {{ "
        "?e <http://purl.org/dc/terms/issued> ?t } }"
    )
    return [row["t"] for row in rows]


def test_a_publication_cut_between_its_two_writes_is_completed_not_written_twice(
    pair: RemotePair, capsys: pytest.CaptureFixture[str]
) -> None:
    eid = _record(pair, capsys)
    with open_storage(pair.url, base=None) as storage:
        graph = storage.uris.experiment_graph(eid)
        _stopping(pair.private, storage.store, "DROP SILENT GRAPH")  # the second write
        try:
            with pytest.raises(ServiceError, match="did not answer within"):
                storage.experiments.publish(eid)
        finally:
            resume(pair.private.process.pid)
        [first] = _issued(pair, graph)  # the public copy is written
        storage.experiments.publish(eid)  # the operator tries again once the store is back
        assert storage.experiments.status(eid).public
        assert _issued(pair, graph) == [first]
        assert _issued(pair, graph, DCAT_DATASET) == [first]  # its upload's: once too
        assert storage.experiments.status(eid).published_at == first
    private = f"ASK {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}"
    assert not pair.private.ask(private)  # the private copy is gone


def _serve(pair: RemotePair) -> Served:
    env = {**pair.env, "GERBIL_QA_STORE_TIMEOUT": TIMEOUT, "GERBIL_QA_LEASE_SECONDS": LEASE}
    return Served(pair.url, base=BASE, GERBIL_QA_ALLOW_NETWORKS="127.0.0.1/32", **env)


def test_a_run_cut_by_a_store_restart_is_taken_over_and_finishes(
    pair: RemotePair, qa: CountingQA
) -> None:
    replica = _serve(pair)
    try:
        ticket = submit(replica, qa, "cut", 1.0)  # answers come in fours every second
        until("the second four asked", lambda: sum(qa.of("cut").values()) >= 2 * IN_FLIGHT)
        pair.private.restart(down=1.5)  # the second four answer while it is away
        state = until("the run to finish", lambda: finished(replica, ticket), timeout=30)
    finally:
        replica.stop()
    assert state["status"] == "finished"
    asked = qa.of("cut")
    assert len(asked) == question_count()
    assert sum(asked.values()) - question_count() <= 2 * IN_FLIGHT  # those in flight, not logged


def test_a_cancel_on_b_reaches_a_run_on_a_after_the_store_was_away(
    pair: RemotePair, qa: CountingQA
) -> None:
    a, b = _serve(pair), _serve(pair)
    try:
        ticket = submit(a, qa, "stop", 3.0)  # no answer for 3 s: no write but the watch's
        until("the first four asked", lambda: sum(qa.of("stop").values()) >= IN_FLIGHT)
        pair.private.restart(down=1.0)
        response = requests.post(
            f"{b.url}api/experiments/{ticket['id']}/cancel",
            headers={"Authorization": f"Bearer {ticket['token']}"},
            timeout=30,
        )
        assert response.status_code == 200, response.text
        # B does not run it, but it was running and is stopped: "cancelling" said false
        assert response.json()["cancelling"] is True, response.text
        state = until(
            "the run to stop",
            lambda: (s := run_status(b, ticket))["status"] not in ("queued", "running") and s,
            timeout=15,
        )
    finally:
        b.stop()
        a.stop()
    assert state["status"] == "cancelled", state
    assert sum(qa.of("stop").values()) < question_count()


def test_two_processes_publishing_at_once_publish_once(
    pair: RemotePair, capsys: pytest.CaptureFixture[str]
) -> None:
    eid = _record(pair, capsys)
    # two storages: each its own connections, lock and claims, as two replicas have
    opened = [open_storage(pair.url, base=None) for _ in range(2)]
    try:
        start = threading.Barrier(2)

        def publish(storage: Any) -> str | None:
            start.wait()
            return storage.experiments.publish(eid).published_at

        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(publish, opened))
        graph = opened[0].uris.experiment_graph(eid)
    finally:
        for storage in opened:
            storage.close()
    assert _issued(pair, graph) == answers[:1] == answers[1:]


class _HtmlPage(BaseHTTPRequestHandler):
    """Answers every request 200 with an HTML page, as a proxy's login page does."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _page(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b"<html><head><title>Sign in</title></head><body>Sign in</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _page


@pytest.fixture()
def html_page() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _HtmlPage)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def test_a_store_url_that_answers_an_html_page_is_said_to_be_wrong(
    pair: RemotePair, html_page: str
) -> None:
    for public, private in ((html_page, pair.private.url), (pair.url, html_page)):
        done = cli("check", "--store", public, GERBIL_QA_PRIVATE_STORE=private)
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        assert f"the store at {html_page}query answered text/html, not SPARQL" in done.stderr
    with open_storage(pair.url, base=None) as storage:
        storage.store.private.url = html_page  # the health probe's ping of a wrong URL
        storage.store.private.query_url = html_page + "query"
        with pytest.raises(ServiceError, match="not SPARQL results"):
            storage.store.ping(Side.PRIVATE, 2.0)


def test_an_https_url_to_a_plain_http_store_fails_within_the_connect_time(
    pair: RemotePair,
) -> None:
    """Oxigraph's server answers no TLS handshake: the command waited the whole store timeout
    (60 s by default) and said only that the store did not answer. The connection, handshake
    included, now has 10 s at most, and the message says what to check. At times the server
    answers the ClientHello as a bad HTTP request instead (seen in CI): the TLS error then
    comes at once, with the same hint."""
    import time

    public = pair.url.replace("http://", "https://")
    started = time.monotonic()
    done = cli(
        "check",
        "--store",
        public,
        GERBIL_QA_PRIVATE_STORE=pair.private.url,
        GERBIL_QA_STORE_TIMEOUT="60",
    )
    took = time.monotonic() - started
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    # the time it waited, measured: 10 s, a little more on a loaded machine (10.1 s in CI;
    # over 11 s once here beside two other test runs): the connect time, not the 60 s
    waited = re.search(r"did not answer within (\d+(?:\.\d)?) s", done.stderr)
    quick = "WRONG_VERSION_NUMBER" in done.stderr
    assert quick or (waited and 10 <= float(waited[1]) < 20), done.stderr
    assert "its URL starts http://" in done.stderr
    assert took < 30


def test_an_https_url_to_a_server_that_answers_in_plain_http_says_so_at_once() -> None:
    """A plain-HTTP server that answers the TLS ClientHello as a bad request (Python's does,
    always; Oxigraph's at times, seen in CI) fails the handshake at once with
    ``WRONG_VERSION_NUMBER``: the message gave that alone, not the hint the timeout path had."""
    import time

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), _Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"https://127.0.0.1:{server.server_address[1]}/"
    try:
        started = time.monotonic()
        done = cli("check", "--store", url, GERBIL_QA_PRIVATE_STORE=url + "private/")
        took = time.monotonic() - started
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "WRONG_VERSION_NUMBER" in done.stderr and "its URL starts http://" in done.stderr
    assert took < 30


class _Quiet(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def test_a_request_the_store_refuses_is_this_services_error_not_an_outage(
    pair: RemotePair,
) -> None:
    """A 400 from the store (an update it cannot parse) was reported as the store being
    unavailable (503), which sent operators after the store for a defect of ours."""
    with open_storage(pair.url, base=None) as storage, pytest.raises(ServiceError) as refused:
        storage.store.private.update("INSERT DATA { <a#b#c> <p> <o> }")
    assert refused.value.status == 500 and not getattr(refused.value, "transient", True)
    assert "answered 400" in refused.value.message
    assert "a request this service got wrong" in refused.value.message


def test_a_stopped_public_store_is_named_not_the_users_query(
    pair: RemotePair, tmp_path: Path
) -> None:
    """A query forwarded to a public store that was stopped got "the query ran longer than the
    limit … and was stopped", telling the user to ask less; the store's state is now asked
    (ASK {} within 2 s) and said. Said to anyone without the store's address (an operator's
    internal host and port, in the answer before) or its HTTP client's error: the operator's
    log has them."""
    log = tmp_path / "serve.log"
    replica = Served(pair.url, base=BASE, output=log, GERBIL_QA_SPARQL_TIMEOUT="2", **pair.env)
    try:
        query = {"query": "SELECT * WHERE { ?s ?p ?o } LIMIT 1"}
        assert requests.get(replica.url + "sparql", params=query, timeout=30).status_code == 200
        pause(pair.public.process.pid)
        try:
            other = {"query": "SELECT * WHERE { ?s ?p ?o } LIMIT 2"}  # not a cached one
            hung = requests.get(replica.url + "sparql", params=other, timeout=30)
        finally:
            resume(pair.public.process.pid)
    finally:
        replica.stop()
    assert hung.status_code == 503, hung.text
    assert "the triple store behind this service did not answer" in hung.text
    assert "ran longer" not in hung.text
    assert hung.headers.get("Retry-After") == "10"  # a hint for pollers, as a busy 503 has
    # the replica's watch of the change token says the outage once, not a line a second
    assert log.read_text().count("reading the public change token failed") <= 1
    port = pair.url.rstrip("/").rsplit(":", 1)[1]
    assert port not in hung.text and "HTTPConnectionPool" not in hung.text, hung.text
    assert f"the store at {pair.url}" in log.read_text(), log.read_text()[-2000:]


def test_a_published_experiments_page_answers_while_the_private_store_is_away(
    pair: RemotePair, capsys: pytest.CaptureFixture[str]
) -> None:
    """A published result is public data: its citable page is read from the public store,
    where its status is too (its copy there is its publication). With the private store away
    its page answered 503 while every listing answered 200 (explore-12 10d); an unpublished
    one cannot be told from a missing one then, and the API's answer, which holds what was
    submitted (the private store's), still says the store is away."""
    published, withdrawn, private = (_record(pair, capsys, "--base", BASE) for _ in range(3))
    with open_storage(pair.url, base=BASE) as storage:
        storage.experiments.publish(published)
        storage.experiments.publish(withdrawn)
        storage.experiments.withdraw(withdrawn, "the gold file had a wrong answer")
    replica = _serve(pair)
    try:
        pause(pair.private.process.pid)
        try:
            page = requests.get(f"{replica.url}experiment/{published}", timeout=30)
            gone = requests.get(f"{replica.url}experiment/{withdrawn}", timeout=30)
            hidden = requests.get(f"{replica.url}experiment/{private}", timeout=30)
            api = requests.get(f"{replica.url}api/experiments/{published}", timeout=30)
        finally:
            resume(pair.private.process.pid)
    finally:
        replica.stop()
    assert page.status_code == 200, page.text[:300]
    assert f"Experiment {published}" in page.text and "status-finished" in page.text
    assert gone.status_code == 200 and "the gold file had a wrong answer" in gone.text
    assert hidden.status_code == 503 and private not in hidden.text
    assert api.status_code == 503 and api.headers.get("Retry-After") == "10"
