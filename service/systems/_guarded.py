"""urllib3 connections that check the network policy on the address they actually connect to.

Checking a URL's host before the request leaves a gap: DNS can answer differently a moment later
(rebinding), and a redirect goes somewhere else. So the check sits where the socket is opened:
the host is resolved once, each address is checked, and the socket connects to a checked address.
TLS still verifies the certificate against the host name, as usual.
"""

from __future__ import annotations

import http.client
import socket
from typing import TYPE_CHECKING, Any

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError

from service.systems.safety import UnsafeURL, resolve

if TYPE_CHECKING:
    from collections.abc import Callable

    from service.systems.safety import NetworkPolicy

    Opened = Callable[[HTTPConnection], None]


def _guarded_socket(conn: Any, policy: NetworkPolicy) -> socket.socket:
    host = conn._dns_host.strip("[]")
    try:
        addresses = resolve(host, conn.port)
    except UnsafeURL as err:
        raise NameResolutionError(conn.host, conn, socket.gaierror(str(err))) from err
    for address in addresses:
        # raises UnsafeURL (not retried)
        policy.check_address(address, host=conn.host, port=conn.port)
    last: OSError | None = None
    for address in addresses:
        family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            if isinstance(conn.timeout, int | float):  # else urllib3's "default" sentinel
                sock.settimeout(conn.timeout)
            for option in conn.socket_options or ():
                sock.setsockopt(*option)
            sock.connect((str(address), conn.port))
            return sock
        except TimeoutError as err:
            sock.close()
            raise ConnectTimeoutError(
                conn, f"connection to {conn.host} timed out (timeout={conn.timeout})"
            ) from err
        except OSError as err:
            sock.close()
            last = err
    raise NewConnectionError(conn, f"failed to establish a new connection: {last}")


class _LastLine:
    """A response's socket file that remembers the last line read (a header block's end) and
    the last one that was not empty (what came before a close)."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw
        self.last_line: bytes | None = None
        self.last_text = b""

    def readline(self, *args: Any) -> bytes:
        line: bytes = self._raw.readline(*args)
        self.last_line = line
        if line:
            self.last_text = line
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class WatchedResponse(http.client.HTTPResponse):
    """An ``http.client`` response that knows whether its header block ended with the blank
    line (``headers_ended``): a connection closed inside it, however its last line looks
    ("Content-Type: applic"), is told from a whole response without a body (explore48 10)."""

    headers_ended: bool | None = None
    headers_tail = b""  # the last line of them that came (cut short or whole)

    def __init__(self, sock: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(sock, *args, **kwargs)
        self.fp = _LastLine(self.fp)  # type: ignore[assignment]

    def begin(self) -> None:
        fp = self.fp
        super().begin()
        if isinstance(fp, _LastLine) and fp.last_line is not None:
            self.headers_ended = fp.last_line in (b"\r\n", b"\n")
            self.headers_tail = fp.last_text


def _classes(policy: NetworkPolicy, opened: Opened | None) -> dict[str, type[HTTPConnectionPool]]:
    def connected(conn: HTTPConnection) -> socket.socket:
        sock = _guarded_socket(conn, policy)
        if opened is not None:
            opened(conn)
        return sock

    class GuardedHTTPConnection(HTTPConnection):
        response_class = WatchedResponse

        def _new_conn(self) -> socket.socket:
            return connected(self)

    class GuardedHTTPSConnection(HTTPSConnection):
        response_class = WatchedResponse

        def _new_conn(self) -> socket.socket:
            return connected(self)

    class GuardedHTTPPool(HTTPConnectionPool):
        ConnectionCls = GuardedHTTPConnection

    class GuardedHTTPSPool(HTTPSConnectionPool):
        ConnectionCls = GuardedHTTPSConnection

    return {"http": GuardedHTTPPool, "https": GuardedHTTPSPool}


class GuardedAdapter(HTTPAdapter):
    """A requests adapter whose pools open only sockets the policy allows; ``opened`` is told
    each connection that opened one (so a caller can shut it to stop a call in flight)."""

    def __init__(
        self, policy: NetworkPolicy, *, opened: Opened | None = None, **kwargs: Any
    ) -> None:
        self.policy = policy
        self.opened = opened
        super().__init__(max_retries=0, **kwargs)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _classes(self.policy, self.opened)
