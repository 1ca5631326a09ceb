"""The network policy: which addresses a user-given URL may reach (no sockets opened here)."""

from __future__ import annotations

import ipaddress

import pytest

from service.systems.safety import NetworkPolicy, UnsafeURL, parse_networks

DEFAULT = NetworkPolicy()


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("fd12:3456::1", "private"),
        ("169.254.10.10", "link-local"),
        ("fe80::1", "link-local"),
        ("169.254.169.254", "cloud metadata"),
        ("fd00:ec2::254", "cloud metadata"),
        ("100.100.100.200", "cloud metadata"),
        ("224.0.0.251", "multicast"),
        ("ff02::1", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("240.0.0.1", "reserved"),
        ("100.64.0.1", "not a globally routable"),  # carrier-grade NAT
        ("::ffff:127.0.0.1", "loopback"),  # IPv4-mapped IPv6
        ("::ffff:169.254.169.254", "cloud metadata"),
        ("2002:7f00:1::1", "loopback"),  # 6to4 around 127.0.0.1
        ("64:ff9b::a9fe:a9fe", "cloud metadata"),  # NAT64 around 169.254.169.254
    ],
)
def test_non_public_addresses_are_refused(address: str, reason: str) -> None:
    refusal = DEFAULT.refusal(ipaddress.ip_address(address))
    assert refusal is not None and reason in refusal


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert DEFAULT.refusal(ipaddress.ip_address(address)) is None


def test_allow_list_opens_exactly_its_networks() -> None:
    policy = NetworkPolicy.allowing("127.0.0.1/32", "10.0.0.0/8")
    assert policy.refusal(ipaddress.ip_address("127.0.0.1")) is None
    assert policy.refusal(ipaddress.ip_address("::ffff:127.0.0.1")) is None
    assert policy.refusal(ipaddress.ip_address("10.200.0.1")) is None
    assert policy.refusal(ipaddress.ip_address("127.0.0.2")) is not None
    assert policy.refusal(ipaddress.ip_address("192.168.0.1")) is not None


def test_metadata_needs_an_exact_allow_entry() -> None:
    wide = NetworkPolicy.allowing("169.254.0.0/16")
    assert "metadata" in (wide.refusal(ipaddress.ip_address("169.254.169.254")) or "")
    assert wide.refusal(ipaddress.ip_address("169.254.1.1")) is None
    exact = NetworkPolicy.allowing("169.254.169.254/32")
    assert exact.refusal(ipaddress.ip_address("169.254.169.254")) is None


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://8.8.8.8/x", "only http/https"),
        ("file:///etc/passwd", "only http/https"),
        ("gopher://127.0.0.1/", "only http/https"),
        ("http:///nohost", "no host"),
        ("http://127.0.0.1:8080/qa", "loopback"),
        ("http://[::1]/qa", "loopback"),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
        ("http://10.0.0.1/", "private"),
        ("http://1.2.3.4:99999/", "not a valid URL"),
    ],
)
def test_check_url_names_the_reason(url: str, message: str) -> None:
    with pytest.raises(UnsafeURL, match=message) as caught:
        DEFAULT.check_url(url)
    assert caught.value.status == 403


def test_allow_list_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GERBIL_QA_ALLOW_NETWORKS", " 127.0.0.1/32 , ::1/128 ,")
    policy = NetworkPolicy.from_env()
    assert [str(n) for n in policy.allow] == ["127.0.0.1/32", "::1/128"]
    policy.check_url("http://127.0.0.1:1/")  # no exception: allowed
    monkeypatch.setenv("GERBIL_QA_ALLOW_NETWORKS", "localhost")
    with pytest.raises(ValueError, match="not an IP network"):
        NetworkPolicy.from_env()


def test_parse_networks_skips_blanks() -> None:
    assert parse_networks(["", " 192.0.2.1 "]) == [ipaddress.ip_network("192.0.2.1/32")]


def test_allow_entries_can_name_a_port() -> None:
    policy = NetworkPolicy.allowing("127.0.0.1:8000", "10.0.0.0/8:443", "[::1]:8000", "192.0.2.9")
    loopback = ipaddress.ip_address("127.0.0.1")
    assert policy.refusal(loopback, 8000) is None
    assert "loopback" in (policy.refusal(loopback, 8001) or "")
    assert "loopback" in (policy.refusal(loopback) or "")  # no port known: not that entry
    assert policy.refusal(ipaddress.ip_address("10.1.2.3"), 443) is None
    assert policy.refusal(ipaddress.ip_address("10.1.2.3"), 80) is not None
    assert policy.refusal(ipaddress.ip_address("::1"), 8000) is None
    policy.check_url("http://127.0.0.1:8000/qa")  # allowed
    with pytest.raises(UnsafeURL, match="loopback"):
        policy.check_url("http://127.0.0.1:8001/qa")
    for bad in ("127.0.0.1:0", "127.0.0.1:http", "[::1]:99999"):
        with pytest.raises(ValueError, match="not a port"):
            NetworkPolicy.allowing(bad)


def test_the_service_itself_is_never_reachable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Allowing 127.0.0.1/32 let a redirect reach the service's own API (issue 13.8): its
    listening address and port are refused whatever the allow-list says; other ports stay."""
    from service.web.config import WebConfig

    monkeypatch.delenv("GERBIL_QA_ALLOW_NETWORKS", raising=False)
    config = WebConfig(host="127.0.0.1", port=8080, allow_networks="127.0.0.1/32")
    policy = config.network_policy()
    with pytest.raises(UnsafeURL, match="this service itself") as refused:
        policy.check_url("http://127.0.0.1:8080/api/experiments")
    # no advice to allow what no setting allows (explore-13 3: it named the allow-list)
    assert "which no setting allows" in refused.value.message
    assert "GERBIL_QA_ALLOW_NETWORKS" not in refused.value.message
    policy.check_url("http://127.0.0.1:8081/qa")  # another local service: allowed
    everywhere = WebConfig(host="0.0.0.0", port=8080, allow_networks="127.0.0.0/8").network_policy()
    for url in ("http://127.0.0.1:8080/", "http://127.0.0.2:8080/", "http://[::1]:8080/"):
        with pytest.raises(UnsafeURL, match="this service itself"):
            everywhere.check_url(url)


@pytest.mark.parametrize("address", ["0.0.0.0", "::", "::ffff:0.0.0.0"])
def test_an_unspecified_address_is_refused_whatever_is_allowed(address: str) -> None:
    """explore46 3: they connect to this host, so allowing one opened the service's own API."""
    policy = NetworkPolicy.allowing("0.0.0.0/0", "::/0", "0.0.0.0:8080", "[::]:8080")
    refusal = policy.refusal(ipaddress.ip_address(address), 8080)
    shown = ipaddress.ip_address(address)  # as Python writes it: ::ffff:0:0
    shown = f"[{shown}]" if ":" in address else shown  # "connect to ::: ::" (explore49 F10)
    assert refusal == f"{shown} is an unspecified address (it connects to this host)"


def test_a_refusal_names_every_way_to_allow_the_address() -> None:
    """The command line's way too: `system run` users were told of the variable and "the
    service's allow-list", not of the `--allow` option they have."""
    with pytest.raises(UnsafeURL) as refused:
        DEFAULT.check_url("http://127.0.0.1:8000/qa")
    message = refused.value.message
    assert "127.0.0.1 is a loopback address" in message
    for way in ("GERBIL_QA_ALLOW_NETWORKS", "allow_networks setting (127.0.0.1:8000)"):
        assert way in message, message
    command_line = NetworkPolicy(how_to_allow="--allow {entry} or GERBIL_QA_ALLOW_NETWORKS")
    with pytest.raises(UnsafeURL, match=r"with --allow \[::1\]:8000 or GERBIL_QA_ALLOW"):
        command_line.check_url("http://[::1]:8000/qa")
