"""Local servers for tests, benchmarks and demos: the Oxigraph SPARQL server and a latency proxy.

Nothing here is used by the service itself. ``OxigraphServer`` runs the ``oxigraph`` binary of
the ``oxigraph`` PyPI package (``serve-read-only``) on a free port of 127.0.0.1 over a store
loaded from RDF files; ``LatencyProxy`` forwards HTTP requests to another server after a fixed
delay, to imitate a remote endpoint on this machine.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# Ports are handed out from blocks below the kernel's ephemeral range (32768 and up), one block
# for a process on its own and one for each pytest-xdist worker. Binding port 0 to find "a free
# port" is not enough: the kernel soon gives the same port again, to this process or another,
# before the first server has bound it (measured here: two processes binding port 0 20,000 times
# each got the same port within 2 s 6,666 times, and one process got again a port it had within
# the last 2 s 3,543 times): the likely cause of one CI failure, a replica answered by a store its
# test had stopped, i.e. another test's server on the same port. A cursor moves through the block,
# so a port comes back only after the whole block; it starts at a random place so two runs at
# once rarely walk in step.
PORT_BLOCKS = range(20000, 32000, 2000)
_cursor: dict[str, int] = {}
_cursor_lock = threading.Lock()


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on now."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    index = int(worker[2:]) + 1 if worker[:2] == "gw" and worker[2:].isdigit() else 0
    if index >= len(PORT_BLOCKS):  # more workers than blocks: the kernel's pick
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])
    block = range(PORT_BLOCKS[index], PORT_BLOCKS[index] + PORT_BLOCKS.step)
    with _cursor_lock:
        for _ in block:
            _cursor[worker] = (_cursor.get(worker, random.randrange(len(block))) + 1) % len(block)
            port = block[_cursor[worker]]
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue  # in use (a server still running, another program)
                return port
    raise OSError(f"no free port in {block.start}–{block.stop - 1}")


def wait_for_port(port: int, *, host: str = "127.0.0.1", timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {host}:{port} after {timeout:g} s")


def oxigraph_binary() -> str:
    """The ``oxigraph`` server binary next to this Python (the venv), else on ``PATH``."""
    beside = Path(sys.executable).with_name("oxigraph")
    if beside.exists():
        return str(beside)
    found = shutil.which("oxigraph")
    if found is None:
        raise FileNotFoundError("the oxigraph server binary (PyPI package 'oxigraph') is missing")
    return found


class OxigraphServer:
    """``oxigraph serve-read-only`` over ``files``, on a free port; a context manager."""

    def __init__(self, files: Sequence[str | Path], *, union_default_graph: bool = True) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="gerbil-qa-oxigraph-")
        self.location = Path(self._dir.name) / "store"
        binary = oxigraph_binary()
        subprocess.run(
            [binary, "load", "--location", str(self.location), "--file", *map(str, files)],
            check=True,
            capture_output=True,
        )
        self.port = free_port()
        command = [
            binary,
            "serve-read-only",
            "--location",
            str(self.location),
            "--bind",
            f"127.0.0.1:{self.port}",
        ]
        if union_default_graph:
            command.append("--union-default-graph")
        self._process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_for_port(self.port)
        except TimeoutError:
            self.close()
            raise
        self.url = f"http://127.0.0.1:{self.port}/query"

    def __enter__(self) -> OxigraphServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._process.stderr is not None:
            self._process.stderr.close()
        self._dir.cleanup()


class LatencyProxy:
    """Forwards every request to ``target`` (``http://host:port``) after ``delay`` seconds."""

    def __init__(self, target: str, *, delay: float) -> None:
        self.target = target.rstrip("/")
        self.delay = delay
        self.requests = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return  # quiet: benchmarks print their own figures

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                time.sleep(proxy.delay)
                with proxy._lock:
                    proxy.requests += 1
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in ("host", "connection", "content-length")
                }
                request = urllib.request.Request(
                    proxy.target + self.path, data=body, headers=headers, method=self.command
                )
                try:
                    with urllib.request.urlopen(request, timeout=60) as upstream:
                        status, payload = upstream.status, upstream.read()
                        kind = upstream.headers.get("Content-Type", "application/octet-stream")
                except urllib.error.HTTPError as err:
                    status, payload = err.code, err.read()
                    kind = err.headers.get("Content-Type", "text/plain")
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = _forward
            do_POST = _forward

        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def __enter__(self) -> LatencyProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
