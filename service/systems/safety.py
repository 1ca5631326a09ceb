"""Calling URLs that users give us without letting them reach what they should not.

A QA system is registered by URL, so a user could point the service at its own admin port, a
database on the private network, or a cloud metadata endpoint (169.254.169.254 hands out
credentials). The rules, applied to every connection:

* only ``http`` and ``https`` URLs;
* every address the host resolves to is checked *when the socket is opened*, by the connection
  class itself, so a DNS answer that changes between a check and the connect (DNS rebinding) and
  every redirect hop are covered; addresses that are not globally routable (loopback, private,
  link-local, shared, multicast, reserved, and IPv4 inside IPv6 forms of these) and the known
  metadata addresses are refused unless an allowed network contains them; the unspecified
  addresses (``0.0.0.0``, ``::``, which connect to this host) and this service's own listening
  address and port are refused whatever is allowed;
* proxies from the environment are ignored (the check must see the real destination);
* redirects are followed by the caller, one hop at a time (see ``webservice.py``), and response
  bodies are read in chunks and cut at a size limit.

The allow-list comes from configuration: ``NetworkPolicy(allow=("127.0.0.1/32",))`` or the
environment variable ``GERBIL_QA_ALLOW_NETWORKS`` (comma-separated networks).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from service.errors import Forbidden

if TYPE_CHECKING:
    import requests

    from service.systems._guarded import Opened

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

ALLOW_ENV = "GERBIL_QA_ALLOW_NETWORKS"
# Cloud metadata services. Most are link-local or private anyway; they are listed so that the
# reason given names them, and so that allowing a wide private range does not expose them.
METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean…
        "169.254.170.2",  # AWS ECS task credentials
        "fd00:ec2::254",  # AWS IMDS over IPv6
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud
    )
)


class UnsafeURL(Forbidden):
    """A URL the network policy refuses; the message says which address and why."""


@dataclass(frozen=True, slots=True)
class NetworkPolicy:
    """Where outgoing calls may go, and how much they may bring back.

    ``allow`` lists networks that are reachable although not public (e.g. ``127.0.0.1/32`` in
    tests, a lab subnet in a private deployment); ``allow_ports`` networks reachable on one port
    only (``127.0.0.1:8000``, ``10.0.0.0/8:443``, ``[::1]:8000``). A metadata address is reachable
    only when an allowed network names it exactly (``/32`` or ``/128``). ``deny`` (network, port)
    pairs are never reachable, whatever is allowed: the service's own listening address, so an
    allowed loopback cannot be used to reach its own API; nor are the unspecified addresses.
    """

    allow: tuple[IPNetwork, ...] = ()
    allow_ports: tuple[tuple[IPNetwork, int], ...] = ()
    deny: tuple[tuple[IPNetwork, int], ...] = ()
    max_redirects: int = 5
    max_response_bytes: int = 16 * 1024 * 1024
    schemes: tuple[str, ...] = field(default=("http", "https"))
    # Named in a refusal ({entry}: the refused address and port): the command line has
    # --allow, the server only its configuration.
    how_to_allow: str = f"{ALLOW_ENV} or the server's allow_networks setting ({{entry}})"

    @classmethod
    def allowing(cls, *entries: str, **options: Any) -> NetworkPolicy:
        """A policy allowing ``entries``: networks (``10.0.0.0/8``) or ``network:port``."""
        networks, ports = parse_allow(entries)
        return cls(allow=tuple(networks), allow_ports=tuple(ports), **options)

    @classmethod
    def from_env(cls, **options: Any) -> NetworkPolicy:
        """The policy with the allow-list of ``$GERBIL_QA_ALLOW_NETWORKS`` (if set)."""
        return cls.allowing(*os.environ.get(ALLOW_ENV, "").split(","), **options)

    def refusal(self, address: IPAddress, port: int | None = None) -> str | None:
        """Why ``address`` (on ``port``, when known) may not be contacted, or ``None``."""
        plain = _embedded_ipv4(address) or address
        if self._denied(address, port):
            return f"{address} port {port} is this service itself"
        if plain.is_unspecified:  # 0.0.0.0 and :: connect to this host, its own API included
            shown = f"[{address}]" if address.version == 6 else str(address)
            return f"{shown} is an unspecified address (it connects to this host)"
        allowed = [*self.allow, *(net for net, p in self.allow_ports if p == port)]
        for net in allowed:
            if address in net or plain in net:
                if plain in METADATA_ADDRESSES and net.num_addresses > 1:
                    continue
                return None
        if plain in METADATA_ADDRESSES:
            return f"{address} is a cloud metadata address"
        for label, test in _CATEGORIES:
            if test(plain):
                return f"{address} is {label} address"
        if not plain.is_global:
            return f"{address} is not a globally routable address"
        return None

    def _denied(self, address: IPAddress, port: int | None) -> bool:
        plain = _embedded_ipv4(address) or address
        return any(port == p and (address in net or plain in net) for net, p in self.deny)

    def _never(self, address: IPAddress, port: int | None) -> bool:
        """Refused whatever is allowed: this service itself, and the unspecified addresses
        (``0.0.0.0``, ``::``: a connection to one reaches this host, on any port; explore46 3)."""
        plain = _embedded_ipv4(address) or address
        return plain.is_unspecified or self._denied(address, port)

    def check_address(self, address: IPAddress, *, host: str, port: int | None = None) -> None:
        reason = self.refusal(address, port)
        if reason is None:
            return
        if ":" in host and not host.startswith("["):  # "connect to ::: ::" (explore49 F10)
            host = f"[{host}]"
        if self._never(address, port):  # refused whatever is allowed: no advice to allow it
            raise UnsafeURL(
                f"refusing to connect to {host}: {reason}, which no setting allows (a run "
                "calling this service's own API could act with its rights); give the QA "
                "service's own address"
            )
        entry = f"[{address}]" if address.version == 6 else str(address)
        entry = f"{entry}:{port}" if port is not None else entry
        raise UnsafeURL(
            f"refusing to connect to {host}: {reason} (if this is intended, allow it "
            f"with {self.how_to_allow.format(entry=entry)})"
        )

    def check_url(self, url: str) -> None:
        """Refuse a URL early (at registration): wrong scheme, no host, or a refused address.

        This is a courtesy for a clear error message; the binding check happens at connect time.
        """
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as err:
            raise UnsafeURL(f"not a valid URL: {url!r} ({err})") from err
        if parts.scheme.lower() not in self.schemes:
            raise UnsafeURL(f"only {'/'.join(self.schemes)} URLs can be called, got {url!r}")
        host = parts.hostname
        if not host:
            raise UnsafeURL(f"the URL has no host: {url!r}")
        default = 443 if parts.scheme.lower() == "https" else 80
        for address in resolve(host, port or default):
            self.check_address(address, host=host, port=port or default)

    def session(self, *, opened: Opened | None = None) -> requests.Session:
        """A ``requests`` session whose every connection obeys this policy; ``opened`` is told
        each connection the session opens."""
        import requests

        from service.systems._guarded import GuardedAdapter

        session = requests.Session()
        session.trust_env = False  # no environment proxies: the check must see the destination
        adapter = GuardedAdapter(self, opened=opened)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        return session


_CATEGORIES: tuple[tuple[str, Any], ...] = (
    ("a loopback", lambda a: a.is_loopback),
    ("an unspecified", lambda a: a.is_unspecified),
    ("a link-local", lambda a: a.is_link_local),
    ("a multicast", lambda a: a.is_multicast),
    ("a reserved", lambda a: a.is_reserved),
    ("a private", lambda a: a.is_private),
)


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address inside ``::ffff:a.b.c.d``, 6to4 or NAT64 forms (checked as itself)."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def parse_allow(texts: Iterable[str]) -> tuple[list[IPNetwork], list[tuple[IPNetwork, int]]]:
    """Allow-list entries: networks (``127.0.0.1/32``, ``::1``) and ``network:port`` entries
    (``127.0.0.1:8000``, ``10.0.0.0/8:443``, ``[::1]:8000``, ``[fd00::/8]:80``)."""
    networks: list[IPNetwork] = []
    ports: list[tuple[IPNetwork, int]] = []
    for text in texts:
        text = text.strip()
        if not text:
            continue
        network, port = _split_port(text)
        if port is None:
            networks += parse_networks([network])
        else:
            ports += [(net, port) for net in parse_networks([network])]
    return networks, ports


def _split_port(text: str) -> tuple[str, int | None]:
    """``[v6]:port`` or ``v4[/n]:port`` -> (network, port); anything else has no port."""
    if text.startswith("["):
        inside, _, rest = text[1:].partition("]")
        return inside, _port(rest.removeprefix(":"), text) if rest else None
    if text.count(":") == 1:
        network, _, port = text.partition(":")
        return network, _port(port, text)
    return text, None


def _port(text: str, entry: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"not a port in the allow-list entry {entry!r} (expected 1-65535)")
    return int(text)


def parse_networks(texts: Iterable[str]) -> list[IPNetwork]:
    out: list[IPNetwork] = []
    for text in texts:
        text = text.strip()
        if not text:
            continue
        try:
            out.append(ipaddress.ip_network(text, strict=False))
        except ValueError as err:
            raise ValueError(f"not an IP network in the allow-list: {text!r}") from err
    return out


def own_addresses(host: str) -> list[IPNetwork]:
    """The addresses a server listening on ``host`` answers at: that address, or every
    loopback and every address of this machine's name when it listens on all (``0.0.0.0``)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None  # a name: whatever it resolves to, below
    if address is not None and not address.is_unspecified:
        return [ipaddress.ip_network(address)]
    found = [ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128")]
    names = {socket.gethostname()} | ({host} if address is None else set())
    for name in names:
        try:
            infos = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
        except OSError:
            continue
        for *_, sockaddr in infos:
            found.append(ipaddress.ip_network(str(sockaddr[0]).split("%", 1)[0]))
    return list(dict.fromkeys(found))


def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to (an IP literal resolves to itself)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as err:
        raise UnsafeURL(f"cannot resolve host {host!r}: {err.strerror}") from err
    seen: dict[IPAddress, None] = {}
    for *_, sockaddr in infos:
        seen.setdefault(ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0]), None)
    return list(seen)
