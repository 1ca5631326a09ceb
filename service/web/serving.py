"""The HTTP server for the app: waitress, with bounds on slow and idle clients.

Waitress's defaults (100 connections, closed after 120 s without traffic, ``select()``) let 99
half-sent request bodies or 120 idle sockets make the service unreachable for two minutes
(issue 13). Here: ``connection_limit`` connections (1,000), each closed after
``channel_timeout`` seconds without traffic (30 s; waitress checks every ``cleanup_interval``,
set to a third of that), ``poll()`` instead of ``select()`` (which cannot watch descriptors past
1,023), and the process's open-files limit raised to fit the connections beside the store's
files. A client that trickles a byte now and then keeps its connection; a reverse proxy in
front bounds those (``service/web/README.md`` has an nginx setup).
"""

from __future__ import annotations

import errno
import functools
import logging
import socket
from typing import Any

from service.errors import ServiceError
from service.web.config import WebConfig

log = logging.getLogger(__name__)

# descriptors beside the connections: RocksDB's files (two stores and a snapshot), the worker
# pipes, logs
OTHER_FILES = 2048


def waitress_options(config: WebConfig) -> dict[str, Any]:
    """The waitress settings for ``config`` (``waitress.create_server`` keyword arguments)."""
    timeout = max(1, round(config.channel_timeout))
    return {
        "host": config.host,
        "port": config.port,
        "threads": config.threads,
        "connection_limit": config.connection_limit,
        "channel_timeout": timeout,
        "cleanup_interval": max(1, timeout // 3),
        "asyncore_use_poll": True,
        "ident": "gerbil-qa",
    }


# what serve needs at the least: RocksDB refuses to open a store with fewer than 96 (it keeps
# 48 for itself), then the SPARQL workers' pipes, the logs and a few connections
MIN_OPEN_FILES = 128
_WARNED: set[int] = set()  # the limits warned of


def raise_open_files_limit(config: WebConfig) -> int:
    """Raise the soft limit on open files to fit ``connection_limit`` connections (up to the
    hard limit); return the limit in force, with a warning in the log if it is too low. Below
    :data:`MIN_OPEN_FILES` a :class:`ServiceError` says the limit and what serve needs (with 64
    it stopped in RocksDB with a traceback; explore52 F10)."""
    import resource

    wanted = config.connection_limit + OTHER_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
        soft = new
    if soft != resource.RLIM_INFINITY and soft < MIN_OPEN_FILES:
        raise ServiceError(
            f"open files are limited to {soft} (the hard limit, `ulimit -Hn`): serve needs at "
            f"least {MIN_OPEN_FILES} (the store's database alone takes 96), and {wanted:,} for "
            f"connection_limit={config.connection_limit}; raise the limit (`ulimit -n {wanted}` "
            "as root, or LimitNOFILE= in a systemd unit)"
        )
    if soft != resource.RLIM_INFINITY and soft < wanted and soft not in _WARNED:
        _WARNED.add(soft)  # said once (serve raises it before opening the store, then again)
        log.warning(
            "open files are limited to %d (hard limit): fewer than connection_limit=%d "
            "connections and the store's files need; lower connection_limit or raise the limit",
            soft,
            config.connection_limit,
        )
    return soft


PRELOADED = ("numpy", "service.evaluation.statistics", "service.evaluation.comparison")
"""Modules the pages import on first use that hold compiled extensions: imported before serving,
once. A first import under a shortage of open files (EMFILE) left NumPy half loaded, and every
later import of it failed ("cannot load module more than once per process"): /leaderboards and
/compare answered 500 until a restart (explore52 F10). A pure-Python module that fails so is
imported again by the next request."""


def preload_page_modules() -> None:
    """Import :data:`PRELOADED` (about a tenth of a second)."""
    import importlib

    for name in PRELOADED:
        importlib.import_module(name)


def create_server(
    app: Any, config: WebConfig, sockets: list[socket.socket] | None = None, **extra: Any
) -> Any:
    """A waitress server for ``app`` as ``config`` says (``sockets``: bound by
    :func:`bind_sockets`, else waitress binds host and port; ``extra``: more waitress settings,
    e.g. ``url_prefix``); call ``run()`` on it."""
    import waitress

    raise_open_files_limit(config)
    options = waitress_options(config)
    if sockets:
        del options["host"], options["port"]
        options["sockets"] = sockets
    listeners: dict[int, Any] = {}
    server = waitress.create_server(app, map=listeners, **options, **extra)
    keep_bodiless_responses_open(listeners)
    return server


def keep_bodiless_responses_open(listeners: dict[int, Any]) -> None:
    """Let the listening servers of a waitress ``map`` (before ``run()``) keep a connection
    open after a 204 or 304 (see :func:`_keep_alive_channel`)."""
    from waitress.server import BaseWSGIServer

    for listener in listeners.values():
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = _keep_alive_channel()


@functools.cache
def _keep_alive_channel() -> type:
    """Waitress's channel whose WSGI task does not close an HTTP/1.1 connection after a
    response without content (204, 304, 1xx).

    Waitress (3.0, ``WSGITask.build_response_header``) closes every HTTP/1.1 response that has
    no ``Content-Length``, as it must when it cannot tell where a body ends; and it drops the
    ``Content-Length`` of a response without content. So every 304 (a client revalidating a
    document or polling the API) and every 204 preflight closed the connection, and the next
    request paid a new TCP handshake (explore45 12). The application cannot help: a 204 must
    not have ``Content-Length`` and a 304's may only be the length of the 200 it stands for
    (RFC 9110 §8.6), which waitress drops anyway. Neither needs one: a 204 or 304 ends at the
    empty line after its header (RFC 9112 §6.3, rule 1), so the connection is reusable. A
    client's ``Connection: close``, and HTTP/1.0, close as before."""
    from waitress.channel import HTTPChannel
    from waitress.task import WSGITask

    class KeepAliveAfterBodiless(WSGITask):  # type: ignore[misc]
        def set_close_on_finish(self) -> None:
            if (
                self.version == "1.1"
                and not self.has_body
                and self.request.headers.get("CONNECTION", "").lower() != "close"
            ):
                return  # ends at its header: the next request may follow on this connection
            super().set_close_on_finish()

    class KeepAliveChannel(HTTPChannel):  # type: ignore[misc]
        task_class = KeepAliveAfterBodiless

    return KeepAliveChannel


def bind_sockets(config: WebConfig) -> list[socket.socket]:
    """The sockets of ``config``'s host and port (each address the host resolves to, as
    waitress does), bound before anything else is done: the store opened, the demo computed.
    An address that cannot be bound raises a :class:`ServiceError` saying which and what to
    do, where waitress, binding last, left a traceback and a store made for that port."""
    from waitress.adjustments import Adjustments

    bound: list[socket.socket] = []
    adjustments = Adjustments(host=config.host, port=config.port)
    try:
        for family, kind, proto, address in adjustments.listen:
            sock = socket.socket(family, kind, proto)
            bound.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as waitress sets it
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            # listening holds the address: a bound socket alone lets a second serve bind it
            # too (SO_REUSEADDR, Linux), to fail late or take the port; waitress listens again
            sock.listen(adjustments.backlog)
    except OSError as err:
        for sock in bound:
            sock.close()
        raise ServiceError(_bind_failure(config, err)) from None
    return bound


def _bind_failure(config: WebConfig, err: OSError) -> str:
    where = f"{config.host}:{config.port}"
    if err.errno == errno.EADDRINUSE:
        return (
            f"cannot serve on {where}: the address is already in use (another gerbil-qa serve "
            "or another server listens there); choose another port with --port N (or "
            "GERBIL_QA_PORT), or stop what uses it"
        )
    return (
        f"cannot serve on {where}: {err.strerror or err}; choose another address with --host "
        "and --port N (a port below 1024 needs privileges)"
    )
