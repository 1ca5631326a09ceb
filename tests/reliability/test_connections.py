"""Slow and idle clients cannot lock others out (issue 13, item 7).

With waitress's defaults, 99 half-sent request bodies or 120 idle sockets made the service
unreachable (100 connections, each kept 120 s). The service's server (``serving.py``) accepts
``connection_limit`` connections (1,000) and closes one after ``channel_timeout`` seconds
without traffic; these tests open hundreds of idle and half-sent connections on 127.0.0.1 and
check that a client still gets its answer, that the server closes the idle ones itself, and that
even past the limit the service comes back by itself once the idle ones are closed.
"""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import requests

from service.web import close_app, create_app
from service.web.config import load_config
from service.web.serving import create_server, waitress_options
from tests.reliability.figures import record
from tests.web.conftest import free_port

QUERY = {"query": "ASK {}"}


class Running:
    def __init__(self, store, **settings: Any) -> None:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/"
        config = load_config(
            {"store": store, "base": self.url, "port": port, "sparql_workers": 1, "demo": False}
        )
        self.config = replace(config, **settings)
        self.app = create_app(self.config)
        self.server = create_server(self.app, self.config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.close()
        self.thread.join(5)
        close_app(self.app)


@pytest.fixture()
def running(tmp_path, request) -> Iterator[Running]:
    server = Running(tmp_path / "store", **getattr(request, "param", {}))
    yield server
    server.close()


def _idle(port: int, count: int) -> list[socket.socket]:
    sockets = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sockets.append(sock)
    return sockets


def _half_sent(port: int, count: int) -> list[socket.socket]:
    sockets = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(
            b"POST /sparql HTTP/1.1\r\nHost: x\r\nContent-Type: application/sparql-query\r\n"
            b"Content-Length: 100000\r\n\r\nSELECT * { ?s"
        )
        sockets.append(sock)
    return sockets


def _drop_closed(sockets: list[socket.socket]) -> list[socket.socket]:
    """Close and leave out the sockets the server has closed (readable, nothing to read)."""
    still = []
    for sock in sockets:
        readable, _, _ = select.select([sock], [], [], 0)
        try:
            ended = bool(readable) and sock.recv(65536) == b""
        except OSError:
            ended = True
        if ended:
            sock.close()
        else:
            still.append(sock)
    return still


def _answer_time(url: str) -> float:
    started = time.monotonic()
    response = requests.get(url + "sparql", params=QUERY, timeout=30)
    assert response.status_code == 200 and response.json()["boolean"] is True
    return time.monotonic() - started


def test_the_defaults_bound_connections() -> None:
    options = waitress_options(load_config({}))
    assert options["connection_limit"] == 1000 and options["channel_timeout"] == 30
    assert options["asyncore_use_poll"] is True  # select() cannot watch fds past 1023
    assert options["cleanup_interval"] == 10


@pytest.mark.parametrize("running", [{"channel_timeout": 3}], indirect=True)
def test_idle_and_half_sent_connections_do_not_lock_anyone_out(running) -> None:
    port = running.config.port
    idle = _idle(port, 150)
    half = _half_sent(port, 120)
    try:
        # 270 connections: more than waitress's default limit of 100 twice over
        waited = _answer_time(running.url)
        assert waited < 2.0, waited
        # the server closes them itself: 3 s without traffic, checked every second
        left = idle + half
        deadline = time.monotonic() + 10
        while left and time.monotonic() < deadline:
            time.sleep(0.5)
            left = _drop_closed(left)
        closed = len(idle) + len(half) - len(left)
        record(
            "slow-clients",
            idle=len(idle),
            half_sent=len(half),
            answered_ms=round(waited * 1000),
            closed_by_server=closed,
        )
        assert not left
    finally:
        for sock in idle + half:
            sock.close()


@pytest.mark.parametrize("running", [{"connection_limit": 40, "channel_timeout": 2}], indirect=True)
def test_past_the_limit_the_service_comes_back_by_itself(running) -> None:
    idle = _idle(running.config.port, 60)  # 40 taken, 20 waiting in the listen backlog
    try:
        waited = _answer_time(running.url)
        # before: 120 s; now the idle ones are closed after 2-3 s and the backlog served
        record("slow-clients-over-limit", idle=60, limit=40, answered_s=round(waited, 1))
        assert waited < 10, waited
    finally:
        for sock in idle:
            sock.close()
