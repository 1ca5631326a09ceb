"""Ports for the tests' servers (``localnet.free_port``): a process hands out ports of its own
block, each once per turn through it, so two pytest-xdist workers never start servers on one
port (likely why one CI run's replica was answered by a store its test had stopped), nor one
process twice while the first server is still starting."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from service.systems import localnet


@pytest.fixture()
def worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    monkeypatch.setattr(localnet, "_cursor", {})


@pytest.mark.usefixtures("worker")
def test_a_worker_hands_out_ports_of_its_own_block_each_once() -> None:
    block = range(24000, 26000)
    ports = [localnet.free_port() for _ in range(50)]
    assert all(port in block for port in ports), ports
    assert len(set(ports)) == 50  # none twice while its server may still be starting


@pytest.mark.usefixtures("worker")
def test_a_port_something_listens_on_is_passed_over(monkeypatch: pytest.MonkeyPatch) -> None:
    port = localnet.free_port()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", port))
        listener.listen()
        monkeypatch.setitem(localnet._cursor, "gw1", port - 24000 - 1)  # it would be next
        assert localnet.free_port() != port
        monkeypatch.setitem(localnet._cursor, "gw1", port - 24000 - 1)
    assert localnet.free_port() == port  # free again once nothing listens


def test_gw0_and_gw1_never_share_a_port(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}
    for name in ("gw0", "gw1"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", name)
        seen[name] = {localnet.free_port() for _ in range(30)}
    assert not seen["gw0"] & seen["gw1"]
    assert all(22000 <= port < 24000 for port in seen["gw0"])


def test_one_process_has_a_block_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.setattr(localnet, "_cursor", {})
    ports = [localnet.free_port() for _ in range(50)]
    assert all(20000 <= port < 22000 for port in ports) and len(set(ports)) == 50


def test_more_workers_than_blocks_take_the_kernels_pick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw9")
    ranges = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text()
    low, _ = map(int, ranges.split())
    assert localnet.free_port() >= low
