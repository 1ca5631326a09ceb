"""Real remote stores for the tests: Oxigraph servers (the ``oxigraph`` PyPI package's
``oxigraph serve``) on 127.0.0.1, one for the public dataset and one for the private one, as a
deployment on a remote store runs them (:mod:`service.graph.remote`)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import requests

from service.systems.localnet import free_port

OXIGRAPH = Path(sys.executable).parent / "oxigraph"


def pause(pid: int) -> None:
    """SIGSTOP ``pid`` and wait until every one of its threads is stopped: the stop is taken
    by one thread and spread to the others when it runs, so on a loaded machine a thread could
    still answer a request sent just after ``kill`` returned (seen once in CI)."""
    import signal

    os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + 10
    while not all(_state(task) in ("T", "t", None) for task in Path(f"/proc/{pid}/task").iterdir()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"process {pid} did not stop")
        time.sleep(0.005)


def resume(pid: int) -> None:
    import signal

    os.kill(pid, signal.SIGCONT)


def _state(task: Path) -> str | None:
    """A thread's state letter (``/proc/PID/task/TID/stat``), None once it ended."""
    try:
        stat = (task / "stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


@dataclass
class OxigraphServer:
    url: str
    process: subprocess.Popen
    location: Path

    def _results(self, text: str) -> dict:
        """A query on the server itself (not through GERBIL QA), its JSON results."""
        response = requests.post(
            self.url + "query",
            data={"query": text},
            headers={"Accept": "application/sparql-results+json"},
            timeout=30,
        )
        response.raise_for_status()
        return response.json()

    def query(self, text: str) -> list[dict[str, str]]:
        """A SELECT on the server itself: rows of plain values."""
        rows = self._results(text)["results"]["bindings"]
        return [{k: v["value"] for k, v in row.items()} for row in rows]

    def ask(self, text: str) -> bool:
        """An ASK on the server itself."""
        return bool(self._results(text)["boolean"])

    def restart(self, down: float = 0.0) -> None:
        """Killed (SIGKILL) and started again ``down`` seconds later at the same address on the
        same data, as a crash and its supervisor's restart."""
        self.process.kill()
        self.process.wait(10)
        time.sleep(down)
        port = int(self.url.rstrip("/").rsplit(":", 1)[1])
        self.process = start_oxigraph(self.location, port).process

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


def start_oxigraph(
    location: Path, port: int | None = None, options: tuple[str, ...] = ()
) -> OxigraphServer:
    """``oxigraph serve`` on ``location`` (``options``: more of its flags)."""
    port = port or free_port()
    process = subprocess.Popen(
        [
            *(str(OXIGRAPH), "serve", "--location", str(location)),
            *("--bind", f"127.0.0.1:{port}", *options),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(200):
            with contextlib.suppress(requests.ConnectionError):
                requests.get(url + "query", params={"query": "ASK {}"}, timeout=2)
                return OxigraphServer(url, process, location)
            if process.poll() is not None:
                raise RuntimeError(f"oxigraph serve exited with {process.returncode}")
            time.sleep(0.05)
        raise RuntimeError("oxigraph serve did not start")
    except BaseException:  # and interrupted while it started (Ctrl-C, the soak stopped)
        process.kill()
        process.wait(10)
        raise


@dataclass
class RemotePair:
    """The two datasets of one deployment and the settings that name them."""

    public: OxigraphServer
    private: OxigraphServer
    work_dir: Path

    @property
    def env(self) -> dict[str, str]:
        return {
            "GERBIL_QA_PRIVATE_STORE": self.private.url,
            "GERBIL_QA_WORK_DIR": str(self.work_dir),
        }

    @property
    def url(self) -> str:
        return self.public.url


@contextlib.contextmanager
def remote_pair(directory: Path) -> Iterator[RemotePair]:
    directory.mkdir(parents=True, exist_ok=True)
    public = start_oxigraph(directory / "public")
    try:
        private = start_oxigraph(directory / "private")
        try:
            yield RemotePair(public, private, directory / "work")
        finally:
            private.stop()
    finally:
        public.stop()


@contextlib.contextmanager
def environment(values: Mapping[str, str]) -> Iterator[None]:
    """``os.environ`` with ``values`` set, as it was afterwards."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextlib.contextmanager
def running_nginx(root: Path, config: str, port: int, *, probe: str = "") -> Iterator[str]:
    """nginx run as this user with ``config`` (kept as ``root/nginx.conf``, listening on
    ``port``): its base URL once it answers ``probe``; stopped after."""
    from tests.layers import nginx

    binary = nginx()
    assert binary is not None  # the layer's rule (tests/layers.py)
    root.mkdir(parents=True, exist_ok=True)
    conf = root / "nginx.conf"
    conf.write_text(config)
    process = subprocess.Popen(
        [binary, "-p", str(root), "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        until_up = time.monotonic() + 20
        while True:
            with contextlib.suppress(requests.ConnectionError):
                requests.get(url + probe, timeout=2)
                break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < until_up, "nginx did not start"
            time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(10)


@contextlib.contextmanager
def read_only_proxy(upstream: str) -> Iterator[str]:
    """A proxy in front of ``upstream`` (an Oxigraph server) that forwards queries and Graph
    Store reads and answers ``403 read-only endpoint`` to SPARQL Update, as a read-only
    endpoint or mirror does; its base URL."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Forward(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            if self.path.split("?")[0].rstrip("/").endswith("/update"):
                self._answer(403, "text/plain", b"read-only endpoint")
                return
            length = int(self.headers.get("Content-Length") or 0)
            headers = {k: self.headers[k] for k in ("Content-Type", "Accept") if k in self.headers}
            response = requests.request(
                self.command,
                upstream.rstrip("/") + self.path,
                data=self.rfile.read(length) if length else None,
                headers=headers,
                timeout=30,
            )
            media = response.headers.get("Content-Type", "application/octet-stream")
            self._answer(response.status_code, media, response.content)

        def _answer(self, status: int, media: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", media)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _forward

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
