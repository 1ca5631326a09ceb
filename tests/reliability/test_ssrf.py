"""Web-service and Text2SPARQL URLs cannot make the service connect where it should not
(issue 13, item 9: SSRF).

A listener on 127.0.0.1 counts every connection it gets. Against a server with no allow-list,
every way of writing a loopback, private, link-local, metadata or otherwise non-public address
(IPv6 forms, IPv4 inside IPv6, decimal, octal and hex numbers, user-info tricks, other
schemes) is refused when submitted, through each way a URL comes in: the multipart fields
``webservice`` and ``text2sparql``, JSON systems with ``interface`` ``qa`` and ``text2sparql``,
and the run page's form; nothing is reserved and nothing connects. Then redirects: a server
allowed to reach one redirecting service on 127.0.0.1 (that port only) follows 301/302/303/
307/308 hops to every loopback form of the listener and to the service itself: each hop is
refused, the listener gets no connection.

The SPARQL endpoint's own SSRF corpus (SERVICE in every disguise) is ``test_endpoint_network``.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from tests.reliability.figures import record
from tests.reliability.test_endpoint_network import Listener
from tests.web.conftest import Server, start_server, stop_server


def loopback_forms(port: int) -> list[str]:
    """URLs that reach ``127.0.0.1:port`` (or this machine) however they are written; none
    needs a DNS server (``localhost`` is in /etc/hosts)."""
    hosts = [
        "127.0.0.1",
        "127.1",
        "127.0.1",
        "127.000.000.001",
        "127.0.0.2",
        "127.255.255.254",
        "localhost",
        "LOCALHOST",
        "0.0.0.0",
        "0",
        "2130706433",  # decimal
        "0x7f000001",  # hex
        "0X7F000001",
        "017700000001",  # octal
        "0x7f.0.0.1",
        "0177.0.0.1",
        "0177.0.0.01",
        "0x7f.1",
        "[::1]",
        "[0:0:0:0:0:0:0:1]",
        "[::]",
        "[::ffff:127.0.0.1]",  # IPv4-mapped
        "[::ffff:7f00:1]",
        "[0:0:0:0:0:ffff:127.0.0.1]",
        "[::127.0.0.1]",  # IPv4-compatible (deprecated)
        "[2002:7f00:1::1]",  # 6to4
        "[64:ff9b::7f00:1]",  # NAT64
        "[::1%25lo]",  # with a zone
    ]
    forms = [f"http://{host}:{port}/qa" for host in hosts]
    forms += [
        f"https://127.0.0.1:{port}/qa",
        f"HTTP://127.0.0.1:{port}/qa",
        f"http://user:secret@127.0.0.1:{port}/qa",
        f"http://example.org@127.0.0.1:{port}/qa",
        f"http://127.0.0.1:{port}#@example.org/qa",
        f"http://127.0.0.1:{port}/qa?next=http://example.org/",
        f" http://127.0.0.1:{port}/qa ",
        f"http://127.0.0.1:{port}\\@example.org/qa",
        f"file:///etc/passwd#127.0.0.1:{port}",
        f"gopher://127.0.0.1:{port}/_GET%20/",
        f"ftp://127.0.0.1:{port}/qa",
        f"dict://127.0.0.1:{port}/qa",
        "http:///qa",
        f"http://127.0.0.1:{port + 65536}/qa",
    ]
    return forms


# Addresses that are never contacted here (no test listens there): each is refused when the
# submission is checked, before any connection could be tried.
ELSEWHERE = [
    "http://10.0.0.1/qa",
    "http://10.255.255.255:8080/qa",
    "http://172.16.0.1/qa",
    "http://172.31.255.1/qa",
    "http://192.168.0.1/qa",
    "http://192.168.1.1:8080/qa",
    "http://100.64.0.1/qa",  # shared (carrier-grade NAT)
    "http://169.254.169.254/latest/meta-data/",  # cloud metadata
    "http://169.254.170.2/v2/credentials",
    "http://100.100.100.200/latest/meta-data/",
    "http://192.0.0.192/opc/v1/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/latest/",
    "http://[::ffff:a9fe:a9fe]/latest/",
    "http://2852039166/latest/meta-data/",  # 169.254.169.254 in decimal
    "http://0xa9fea9fe/latest/",
    "http://0251.0376.0251.0376/latest/",
    "http://169.254.1.1/qa",  # link-local
    "http://[fe80::1]/qa",
    "http://[fe80::1%25eth0]/qa",
    "http://[fd12:3456::1]/qa",  # unique local
    "http://[fc00::1]/qa",
    "http://224.0.0.251/qa",  # multicast
    "http://[ff02::1]/qa",
    "http://240.0.0.1/qa",  # reserved
    "http://255.255.255.255/qa",
    "http://192.0.2.1/qa",  # documentation ranges
    "http://198.51.100.1/qa",
    "http://[2001:db8::1]/qa",
    "http://198.18.0.1/qa",  # benchmarking
]

REFUSAL_WORDS = (
    "refusing to connect",
    "only http/https",
    "not a valid URL",
    "no host",
    "cannot resolve",
    # a form with user info (user:secret@127.0.0.1) is refused before its address is looked
    # at: its password would be published with the experiment
    "user name or password",
)


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with no allow-list (neither its setting nor the environment's)."""
    saved = os.environ.pop("GERBIL_QA_ALLOW_NETWORKS", None)
    running = start_server(tmp_path_factory.mktemp("ssrf-store"), demo=False, allow_networks="")
    assert not running.app.extensions["gerbil_qa"].config.network_policy().allow
    yield running
    stop_server(running)
    if saved is not None:
        os.environ["GERBIL_QA_ALLOW_NETWORKS"] = saved


def _submit(server: Server, vehicle: str, url: str) -> Any:
    """Submit ``url`` as a system the way ``vehicle`` names (the demo's questions and KB)."""
    form = {"dataset": "demo", "kb": "demo"}
    if vehicle == "form webservice":
        return server.post("api/experiments", data={**form, "webservice": f"probe={url}"})
    if vehicle == "form text2sparql":
        return server.post("api/experiments", data={**form, "text2sparql": f"probe={url}"})
    if vehicle == "run page":
        return server.post("experiments/new", data={**form, "webservice": url})
    interface = "text2sparql" if vehicle == "json text2sparql" else "qa"
    body = {**form, "systems": [{"name": "probe", "url": url, "interface": interface}]}
    return server.post("api/experiments", json=body)


VEHICLES = ("form webservice", "form text2sparql", "json qa", "json text2sparql", "run page")


def test_every_non_public_form_is_refused_when_submitted(
    open_server: Server, listener: Listener
) -> None:
    started = time.monotonic()
    forms = loopback_forms(listener.port) + ELSEWHERE
    before = len(open_server.storage.experiments.listing(include_private=True))
    statuses: Counter[int] = Counter()
    wrong = []
    for url in forms:
        for vehicle in VEHICLES:
            response = _submit(open_server, vehicle, url)
            statuses[response.status_code] += 1
            text = response.text if vehicle == "run page" else response.json().get("error", "")
            if response.status_code not in (400, 403) or not any(w in text for w in REFUSAL_WORDS):
                wrong.append((vehicle, url, response.status_code, text[:200]))
    after = len(open_server.storage.experiments.listing(include_private=True))
    record(
        "ssrf-submitted",
        forms=len(forms),
        attempts=len(forms) * len(VEHICLES),
        refused=sum(statuses[s] for s in (400, 403)),
        not_refused=len(wrong),
        statuses=dict(sorted(statuses.items())),
        reserved=after - before,
        connections=listener.connections,
        seconds=round(time.monotonic() - started, 1),
    )
    assert wrong == []
    assert after == before  # nothing reserved for a refused submission
    assert listener.connections == 0


# --- redirects ---------------------------------------------------------------------------------


class _Redirector(BaseHTTPRequestHandler):
    """``/<code>/<n>``: a redirect with that status to the n-th target."""

    targets: ClassVar[list[str]] = []
    hits: ClassVar[Counter[str]] = Counter()
    lock = threading.Lock()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _redirect(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        _, code, n = self.path.split("?", 1)[0].split("/")[:3]
        with self.lock:
            self.hits[code] += 1
        self.send_response(int(code))
        self.send_header("Location", self.targets[int(n)])
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = _redirect
    do_POST = _redirect


@pytest.fixture(scope="module")
def redirector() -> Iterator[ThreadingHTTPServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Redirector)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


CODES = (301, 302, 303, 307, 308)


def _redirect_targets(listener: Listener, redirector_port: int, own: str) -> list[str]:
    """Where the redirects point: every http form of the listener, the service's own API, and
    an allowed hop that then points at the listener."""
    targets = [u.strip() for u in loopback_forms(listener.port) if u.lower().startswith("http")]
    targets = [u for u in targets if "http:///" not in u] + [own]
    targets.append(f"http://127.0.0.1:{redirector_port}/307/{len(targets) + 1}")
    targets.append(f"http://127.0.0.1:{listener.port}/after-a-hop")
    return targets


def test_the_client_refuses_every_redirect_hop_to_a_non_public_address(
    listener: Listener, redirector: ThreadingHTTPServer
) -> None:
    """The web-service client as the runner uses it (real sockets, the real policy), allowed
    the redirecting service's port only: every status, both interfaces, every target."""
    from service.systems.safety import NetworkPolicy
    from service.systems.webservice import WebService, ask

    started = time.monotonic()
    port = redirector.server_address[1]
    policy = NetworkPolicy.allowing(f"127.0.0.1:{port}")
    _Redirector.targets = _redirect_targets(listener, port, "http://127.0.0.1:8080/api/")
    _Redirector.hits.clear()
    errors: Counter[str] = Counter()
    answered = []
    for n in range(len(_Redirector.targets)):
        for code in CODES:
            for interface in ("qa", "text2sparql"):
                service = WebService(
                    f"http://127.0.0.1:{port}/{code}/{n}",
                    policy=policy,
                    interface=interface,
                    retries=0,
                    timeout=10,
                )
                answer, _ = ask(service, "What is it?", "en", question_id="1")
                if answer.error is None:
                    answered.append((code, n, interface))
                else:
                    errors[answer.error.split(":")[0][:40]] += 1
    asked = len(_Redirector.targets) * len(CODES) * 2
    record(
        "ssrf-redirects-client",
        targets=len(_Redirector.targets),
        attempts=asked,
        refused=sum(errors.values()),
        answered=len(answered),
        redirects_served=sum(_Redirector.hits.values()),
        connections=listener.connections,
        seconds=round(time.monotonic() - started, 1),
    )
    assert answered == []
    assert sum(_Redirector.hits.values()) >= asked
    assert listener.connections == 0


def test_a_run_through_the_server_follows_no_redirect_out(
    tmp_path_factory: pytest.TempPathFactory,
    listener: Listener,
    redirector: ThreadingHTTPServer,
) -> None:
    """The same through a served run: one experiment per redirect status (QA and Text2SPARQL
    in turn), each system pointed at the next target; the run ends, nothing connects."""
    started = time.monotonic()
    port = redirector.server_address[1]
    # allowed: the redirecting service, on its port only (not the listener's, not the service's)
    server = start_server(
        tmp_path_factory.mktemp("ssrf-redirect-store"),
        demo=False,
        allow_networks=f"127.0.0.1:{port}",
    )
    try:
        _Redirector.targets = _redirect_targets(listener, port, server.url + "api/experiments")
        _Redirector.hits.clear()
        ended: Counter[str] = Counter()
        for at, code in enumerate(CODES):
            n = (at * 7) % len(_Redirector.targets)
            interface = ("qa", "text2sparql")[at % 2]
            system = {"name": "r", "url": f"http://127.0.0.1:{port}/{code}/{n}"}
            body = {
                "dataset": "demo",
                "kb": "demo",
                "systems": [{**system, "interface": interface}],
            }
            response = server.post("api/experiments", json=body)
            assert response.status_code == 202, response.text
            ticket = response.json()
            auth = {"Authorization": f"Bearer {ticket['token']}"}
            deadline = time.monotonic() + 60
            while True:
                state = server.get(f"api/experiments/{ticket['id']}", headers=auth).json()
                if state["status"] not in ("reserved", "queued", "running"):
                    break
                assert time.monotonic() < deadline, state
                time.sleep(0.1)
            ended[state["status"]] += 1
        record(
            "ssrf-redirects-served",
            experiments=len(CODES),
            ended=dict(ended),
            redirects_served=sum(_Redirector.hits.values()),
            by_status=dict(sorted(_Redirector.hits.items())),
            connections=listener.connections,
            seconds=round(time.monotonic() - started, 1),
        )
        assert sum(ended.values()) == len(CODES)
        assert set(_Redirector.hits) == {str(c) for c in CODES}  # every run was redirected
        assert listener.connections == 0
    finally:
        stop_server(server)
