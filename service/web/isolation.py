"""Cut a SPARQL worker process off the network: defence in depth behind the SERVICE guard.

The guard (``sparql_guard.py``) refuses every query that calls ``SERVICE``; this makes sure that
a query that slipped through anyway cannot open a connection: Oxigraph's HTTP client then fails
with "Network is unreachable" (or "Permission denied"). It runs first thing in each worker
process, before the process has other threads (a user namespace cannot be entered after), and
tries, in order:

1. ``unshare(CLONE_NEWUSER | CLONE_NEWNET)``: a network namespace of its own, holding only a
   loopback interface that is down, inside a user namespace where the process keeps its uid and
   gid (mapped to themselves) but has no capability outside. Needs no privilege where the kernel
   lets normal users create user namespaces (Debian does); as root, it also drops root's
   capabilities over the host for the worker.
2. ``unshare(CLONE_NEWNET)`` alone: root where user namespaces are disabled.
3. A seccomp filter (``prctl(PR_SET_SECCOMP)``, allowed without privilege after
   ``PR_SET_NO_NEW_PRIVS``) that fails ``socket()`` for ``AF_INET`` and ``AF_INET6`` with EACCES:
   Linux >= 3.5 on x86-64 or arm64, where namespaces are forbidden (some containers).

Then it checks the result: a connection to 127.0.0.1 must fail at once (a closed port answers
"connection refused" on a reachable network, which is a failure here). If nothing works,
:class:`IsolationError` is raised and the pool does not start (fail closed); the setting
``sparql_network_isolation = false`` runs the workers without isolation, with a warning in the
log, for hosts that have neither mechanism.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import socket
import struct

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
# (audit architecture, number of the socket syscall) of the architectures the filter knows
_ARCHES = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198)}


class IsolationError(OSError):
    """No mechanism could cut this process off the network."""


DEFAULT_MECHANISMS = ("userns", "netns", "seccomp")


def cut_off_network(*, mechanisms: tuple[str, ...] = DEFAULT_MECHANISMS) -> str:
    """Cut this process off the network with the first of ``mechanisms`` that works (names
    of :data:`MECHANISMS`); return its description (for the log)."""
    failures: list[str] = []
    for key in mechanisms:
        if key not in MECHANISMS:
            failures.append(f"{key}: no such mechanism")
            continue
        name, attempt = MECHANISMS[key]
        try:
            attempt()
        except OSError as err:
            failures.append(f"{name}: {err.strerror or err}")
            continue
        problem = network_reachable()
        if problem is None:
            return name
        failures.append(f"{name}: applied, but {problem}")
    raise IsolationError(
        errno.EPERM,
        "could not cut the SPARQL worker off the network ("
        + "; ".join(failures)
        + "); set sparql_network_isolation=false to run without (not recommended)",
    )


def network_reachable() -> str | None:
    """``None`` if a TCP connection to 127.0.0.1 fails at once as it must when isolated, else
    what happened (a closed port refusing the connection means the network is there)."""
    try:
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    except OSError as err:
        if err.errno in (errno.EACCES, errno.EPERM):
            return None  # the seccomp filter refused the socket
        return f"socket() failed with {err.strerror}"
    with probe:
        probe.settimeout(1.0)
        try:
            probe.connect(("127.0.0.1", 9))  # discard: closed nearly everywhere
        except OSError as err:
            if err.errno in (errno.ENETUNREACH, errno.EACCES, errno.EPERM):
                return None
            return f"a connection to 127.0.0.1 got {err.strerror or err} (the network is there)"
    return "a connection to 127.0.0.1 succeeded"


def _unshare(flags: int) -> None:
    unshare = getattr(os, "unshare", None)  # Python >= 3.12
    if unshare is not None:
        unshare(flags)
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if not hasattr(libc, "unshare"):
        raise OSError(errno.ENOSYS, "unshare() is not available here")
    if libc.unshare(ctypes.c_int(flags)) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


def _user_and_network_namespace() -> None:
    uid, gid = os.geteuid(), os.getegid()
    _unshare(CLONE_NEWUSER | CLONE_NEWNET)
    # Map our ids to themselves, so files keep their owner as seen from inside (without a map
    # the process would be "nobody" and could not create files). setgroups must be denied
    # before an unprivileged process may write gid_map.
    for path, line in (
        ("/proc/self/setgroups", "deny"),
        ("/proc/self/uid_map", f"{uid} {uid} 1"),
        ("/proc/self/gid_map", f"{gid} {gid} 1"),
    ):
        with open(path, "w") as out:
            out.write(line)


def _network_namespace() -> None:
    _unshare(CLONE_NEWNET)


def _seccomp_filter() -> None:
    arch = _ARCHES.get(platform.machine())
    if arch is None:
        raise OSError(errno.ENOSYS, f"no seccomp filter for {platform.machine()}")
    audit_arch, socket_nr = arch
    refuse = SECCOMP_RET_ERRNO | errno.EACCES
    load, jump_eq, ret = 0x20, 0x15, 0x06  # BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_RET
    program = [
        (load, 0, 0, 4),  # 0: A = seccomp_data.arch
        (jump_eq, 1, 0, audit_arch),  # 1: native ABI? go to 3
        (ret, 0, 0, refuse),  # 2: another ABI (i386 calls from x86-64): refused
        (load, 0, 0, 0),  # 3: A = seccomp_data.nr
        (jump_eq, 0, 4, socket_nr),  # 4: socket()? go on, else allow (9)
        (load, 0, 0, 16),  # 5: A = low 32 bits of args[0], the address family (little-endian)
        (jump_eq, 1, 0, socket.AF_INET),  # 6: AF_INET: refuse (8)
        (jump_eq, 0, 1, socket.AF_INET6),  # 7: AF_INET6: refuse (8), else allow (9)
        (ret, 0, 0, refuse),  # 8
        (ret, 0, 0, SECCOMP_RET_ALLOW),  # 9
    ]
    code = b"".join(struct.pack("HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(program), ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    for args in (
        (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0),
        (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0),
    ):
        if libc.prctl(*(ctypes.c_ulong(a) for a in args)) != 0:
            code_ = ctypes.get_errno()
            raise OSError(code_, os.strerror(code_))


MECHANISMS = {
    "userns": ("user and network namespace", _user_and_network_namespace),
    "netns": ("network namespace", _network_namespace),
    "seccomp": ("seccomp filter on AF_INET/AF_INET6 sockets", _seccomp_filter),
}
