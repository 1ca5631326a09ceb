"""A real GERBIL QA server on 127.0.0.1 (waitress in a thread, real store, real SPARQL worker
processes), shared by the web tests of a session, plus HTTP helpers."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urljoin

import pytest
import requests

from service.paths import DEMO_DIR
from service.systems.localnet import free_port
from tests.helpers import held, serving
from tests.layers import CHROMEDRIVER, CHROMIUM

PROTOCOL_GRAPHS = {
    "http://kasei.us/2009/09/sparql/data/data1.rdf": "data1.nt",
    "http://kasei.us/2009/09/sparql/data/data2.rdf": "data2.nt",
    "http://kasei.us/2009/09/sparql/data/data3.rdf": "data3.nt",
}
SPARQL_TIMEOUT = 3.0
SPARQL_MEMORY_MB = 256
MAX_BYTES = 400_000
# seconds between two status requests while a run is waited for: a demo run ends within a
# second, and at 0.1 s each wait ran on 50 ms on average past its end (250 waits in web/);
# not shorter: the server runs in this process, each request takes the GIL from the run
STATUS_POLL = 0.05


@dataclass
class Server:
    url: str  # http://127.0.0.1:PORT/ (also the base of every URI)
    app: Any
    storage: Any
    thread: threading.Thread
    server: Any

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("allow_redirects", False)
        kwargs.setdefault("timeout", 30)
        return requests.get(self.url + path.lstrip("/"), **kwargs)

    def post(self, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("allow_redirects", False)
        kwargs.setdefault("timeout", 30)
        return requests.post(self.url + path.lstrip("/"), **kwargs)

    def delete(self, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", 30)
        return requests.delete(self.url + path.lstrip("/"), **kwargs)

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("allow_redirects", False)
        kwargs.setdefault("timeout", 30)
        return requests.request(method, self.url + path.lstrip("/"), **kwargs)

    def register_version(self, name: str, *, kb: str, version: str) -> tuple[str, str]:
        """A registered version of the demo's questions (as ``gerbil-qa dataset refresh
        --store`` makes), the caches told: its URI and its first question's id."""
        from service import formats
        from service.web.state import EXTENSION

        dataset = formats.read(DEMO_DIR / "questions.json")
        registered = self.storage.catalogue.register_version(name, dataset, kb=kb, version=version)
        self.app.extensions[EXTENSION].changed()
        return registered.uri, dataset.questions[0].id

    @property
    def demo_id(self) -> str:
        statuses = self.storage.experiments.listing()
        return next(s.id for s in statuses if s.job and "gerbil-qa-demo" in s.job)

    def submit_demo(self, *, systems: tuple[str, ...] = ("strong", "partial")) -> dict[str, Any]:
        """Submit the demo files through the API (a new private experiment); wait for it."""
        files = [("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes()))]
        for name in systems:
            path = DEMO_DIR / f"answers-{name}.json"
            files.append(("answers", (path.name, path.read_bytes())))
        response = self.post("api/experiments", files=files, data={"profile": "fair", "kb": "demo"})
        assert response.status_code == 202, response.text
        ticket = response.json()
        self.wait_finished(ticket["id"], ticket["token"])
        return ticket

    def submit_confident(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The demo's strong answers with a confidence each (0.9, 0.85, …: the confidence
        measures have something to weigh), submitted as system ``confident`` and finished:
        (the ticket, the answers file as JSON)."""
        answers = json.loads((DEMO_DIR / "answers-strong.json").read_text(encoding="utf-8"))
        for i, question in enumerate(answers["questions"]):
            question["answers"][0]["confidence"] = str(round(0.9 - 0.05 * i, 2))
        files = [
            ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
            ("answers", ("confident.json", json.dumps(answers).encode())),
        ]
        response = self.post("api/experiments", files=files, data={"profile": "fair", "kb": "demo"})
        assert response.status_code == 202, response.text
        ticket = response.json()
        self.wait_finished(ticket["id"], ticket["token"])
        return ticket, answers

    def wait_finished(self, experiment_id: str, token: str, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            state = self.get(
                f"api/experiments/{experiment_id}", headers={"Authorization": f"Bearer {token}"}
            ).json()
            if state["status"] in ("finished", "error", "cancelled"):
                assert state["status"] == "finished", state
                return state
            if time.monotonic() > deadline:
                raise AssertionError(f"experiment {experiment_id} did not finish: {state}")
            time.sleep(STATUS_POLL)


def demo_dataset(server: Server) -> str:
    """The URI of the demo experiment's dataset."""
    return server.get(f"api/experiments/{server.demo_id}").json()["dataset"]


def resources(server: Server) -> list[str]:
    """One resource of each kind the URI scheme serves, the demo's (conneg and header tests)."""
    demo = server.demo_id
    dataset = server.get(f"experiment/{demo}.csv").text.splitlines()[1].split(",")[2]
    return [
        f"experiment/{demo}",
        f"experiment/{demo}/task/2",
        f"experiment/{demo}/task/1/question/5",
        dataset.replace(server.url, ""),
        dataset.replace(server.url, "") + "/question/3",
        "system/demo-strong",
        "catalog",
        "vocab",
    ]


def submitted(response: requests.Response) -> requests.Response:
    """The page a run form's POST sends its browser to (303: Post/Redirect/Get, so a reload
    does not submit again), asked for with the owner cookies the 303 set, as a browser does;
    its ``history`` holds the 303 (its cookies: ``history[0].cookies``). The experiment's id
    ends its URL."""
    assert response.status_code == 303, response.text[:2000]
    page = requests.get(
        urljoin(response.url, response.headers["Location"]),
        cookies=response.cookies,
        allow_redirects=False,
        timeout=30,
    )
    page.history = [response]
    return page


def start_server(
    store: Path,
    *,
    preload: dict[str, Path] | None = None,
    port: int | None = None,
    base: str | None = None,
    **config: Any,
) -> Server:
    """``port``: a given one (a store keeps the base it was made with, port included);
    ``base``: a public base other than the server's own address (as behind a proxy)."""
    import pyoxigraph as ox
    import waitress

    from service.graph.store import open_storage
    from service.web import create_app
    from service.web.serving import keep_bodiless_responses_open

    port = port or free_port()
    url = f"http://127.0.0.1:{port}/"
    storage = open_storage(store, base=base or url)
    for name, path in (preload or {}).items():
        storage.public.load(
            path=str(path), format=ox.RdfFormat.N_TRIPLES, to_graph=ox.NamedNode(name)
        )
    settings = {
        "base": base or url,
        "sparql_timeout": SPARQL_TIMEOUT,
        "sparql_workers": 2,
        "sparql_max_bytes": MAX_BYTES,
        # small enough that a runaway query reaches it well within the time limit
        "sparql_memory_mb": SPARQL_MEMORY_MB,
        "demo": True,
        "allow_networks": "127.0.0.1/32",  # test QA services run on loopback
    }
    settings.update(config)
    app = create_app(settings, storage=storage)
    server = waitress.create_server(app, host="127.0.0.1", port=port, threads=8)
    keep_bodiless_responses_open(server._map)  # as `serve` has it (serving.create_server)
    thread = threading.Thread(target=server.run, name="test-waitress", daemon=True)
    thread.start()
    for _ in range(100):
        try:
            requests.get(url + "api/profiles", timeout=2)
            break
        except requests.ConnectionError:
            time.sleep(0.05)
    return Server(url=url, app=app, storage=storage, thread=thread, server=server)


def stop_server(server: Server) -> None:
    """Stop the server and release everything it held. Every socket of waitress's map (the
    listening one, its trigger, the clients' keep-alive channels) is closed in the loop's own
    thread, so the loop ends: ``close()`` alone closed the listening socket only, the loop ran
    on for the open channels (the join waited its 5 s) and they kept the app, its store and
    ~35 file descriptors alive, until a long session's descriptors passed select()'s 1,024.
    The task threads stop first: a request's thread still finishing pulled the trigger after the
    loop had closed it (EBADF, logged with its traceback, whose frames held the app and its store
    for the rest of the test's setup: the next server on that store found it locked, in CI)."""
    from waitress import wasyncore

    from service.web import close_app

    running = server.server
    running.task_dispatcher.shutdown()  # the requests in progress end, their threads with them
    try:
        running.trigger.pull_trigger(lambda: wasyncore.close_all(running._map))
    except OSError:  # its trigger closed already (EBADF, seen once): close the rest from here
        wasyncore.close_all(running._map)
    server.thread.join(5)
    close_app(server.app)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, standards_dir: Path) -> Iterator[Server]:
    """The shared server: demo experiment published, the W3C protocol data preloaded as
    public graphs (``data1.rdf`` … ``data3.rdf``)."""
    protocol = standards_dir / "sparql11-tests" / "protocol"
    preload = {name: protocol / file for name, file in PROTOCOL_GRAPHS.items()}
    running = start_server(tmp_path_factory.mktemp("web-store"), preload=preload)
    yield running
    stop_server(running)


# --- a real browser (Debian chromium, headless, through selenium) ----------------------------

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
)


def _driver(profile: Path, *, javascript: bool = True):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    if not javascript:  # as a reader who turned scripts off
        content = {"profile.managed_default_content_settings.javascript": 2}
        options.add_experimental_option("prefs", content)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def _browser(*, javascript: bool) -> Iterator:
    profile = Path(tempfile.mkdtemp(prefix="gqa-chromium-"))
    driver = _driver(profile, javascript=javascript)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def browser() -> Iterator:
    yield from _browser(javascript=True)


@pytest.fixture(scope="module")
def browser_without_js() -> Iterator:
    """Chromium with JavaScript turned off: what the pages promise to such readers."""
    yield from _browser(javascript=False)


# --- a QA web service on loopback that takes its time (live progress, cancel) ----------------


class _SlowQAHandler(BaseHTTPRequestHandler):
    """``POST /delay/<seconds>``: answers "Earth" to every question after the delay;
    ``POST /held/<name>``: the same once the name is released (``tests.helpers.held``),
    waiting a minute at most: a run asking it runs for as long as a test wants;
    ``POST /refuse``: a 400 with a reason, at once; ``POST /fail/<word>``: a 500 for a
    question holding the word, "Earth" at once for the others."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode())
        question = (form.get("query") or [""])[0]
        if self.path.startswith("/refuse"):
            body = b"this service does not answer questions about planets"
            self.send_response(400)
            self.send_header("Content-Type", "text/plain")
        elif self.path.startswith("/fail/") and self.path.rsplit("/", 1)[-1] in question:
            body = b"this question broke the service"
            self.send_response(500)
            self.send_header("Content-Type", "text/plain")
        else:
            if self.path.startswith("/delay/"):
                time.sleep(float(self.path.rsplit("/", 1)[-1]))
            elif self.path.startswith("/held/"):
                held(self.path.rsplit("/", 1)[-1]).wait(60)
            binding = {"x": {"type": "literal", "value": "Earth"}}
            answer = {"head": {"vars": ["x"]}, "results": {"bindings": [binding]}}
            body = json.dumps({"questions": [{"id": "1", "answers": [answer]}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):  # the runner gave up (cancel): nothing to tell
            self.wfile.write(body)


@pytest.fixture(scope="session")
def slow_qa() -> Iterator[str]:
    """The base URL of the slow QA web service (``{base}delay/0.5``, ``{base}refuse``)."""
    with serving(_SlowQAHandler) as base:
        yield base


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A Flask test client of a fresh store without the demo, one per test module (a module
    that needs another defines its own ``client``)."""
    from service.web.app import close_app, create_app

    app = create_app(
        {"store": tmp_path_factory.mktemp("store"), "sparql_workers": 1, "demo": False}
    )
    try:
        yield app.test_client()
    finally:
        close_app(app)
