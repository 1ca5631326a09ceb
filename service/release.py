"""Which code is running: the release and, where it is known, the commit it was built from.

An experiment names the evaluator that scored it. The release alone (``0.1.0``) names many
different programs between two releases, so the version an experiment records carries the
commit as a PEP 440 local label: ``0.1.0+g1b1e8455689a``, and ``.modified`` after it when the
evaluator's files differ from that commit (the commit alone would then not reproduce the run).

The commit comes from ``GERBIL_QA_REVISION`` (an image built without its ``.git``: the operator
sets it), else from git when the package runs from a checkout, else from ``service/REVISION``,
which a wheel built from a checkout carries (``build_support/revision_backend.py``: ``pip
install .`` runs it). Asked once per process, and only by what writes provenance: ``gerbil-qa
evaluate`` without ``--store`` never runs git.

Where that code is published is the operator's to say, ``GERBIL_QA_SOURCE_REPOSITORY`` (an
http(s) URL a ``git clone`` takes; none by default: no URL is invented): an experiment then
records it with its evaluator (``schema:codeRepository``), and its reproduce text says
``git clone URL`` and ``git checkout COMMIT``. Before, the evaluator gave a commit and no
place to get it (explore60 F7).
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from service import __version__
from service.errors import ServiceError

REVISION_ENV = "GERBIL_QA_REVISION"
REPOSITORY_ENV = "GERBIL_QA_SOURCE_REPOSITORY"
_CHECKOUT = Path(__file__).resolve().parent.parent
BUILT_FROM = Path(__file__).resolve().parent / "REVISION"  # in a wheel: its commit
# what the evaluator is made of: a change elsewhere (tests, bench, README) scores the same
_EVALUATOR_PATHS = ("service", "ontology", "shapes", "pyproject.toml")
_COMMIT = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True, slots=True)
class Source:
    release: str
    revision: str | None = None  # the full commit, 40 hex digits
    modified: bool = False
    repository: str | None = None  # where its code is published (GERBIL_QA_SOURCE_REPOSITORY)

    @property
    def version(self) -> str:
        """The release with the commit as a local label (the release alone without one)."""
        if self.revision is None:
            return self.release
        return f"{self.release}+g{self.revision[:12]}" + (".modified" if self.modified else "")


@lru_cache(maxsize=1)
def source() -> Source:
    return replace(_built(), repository=repository())


def _built() -> Source:
    given = os.environ.get(REVISION_ENV, "").strip().lower()
    if given:
        if not _COMMIT.fullmatch(given):
            raise ServiceError(f"{REVISION_ENV}={given!r}: expected a commit's 40 hex digits")
        return Source(__version__, given)
    return from_checkout() or _from_wheel() or Source(__version__)


def repository() -> str | None:
    """The URL of the repository the operator publishes this code in
    (``GERBIL_QA_SOURCE_REPOSITORY``), None when not set; anything but an http(s) IRI stops the
    start, as a malformed revision does (it is written as an IRI and linked), and so does one
    :func:`repository_problem` refuses, with its reason."""
    from service.valid_terms import is_valid_iri

    given = os.environ.get(REPOSITORY_ENV, "").strip()
    if not given:
        return None
    shown = given if len(given) <= 200 else given[:200] + "…"
    expected = "expected the http(s) URL of the repository of this code (what git clone takes)"
    if not given.lower().startswith(("http://", "https://")):
        raise ServiceError(f"{REPOSITORY_ENV}={shown!r}: {expected}")
    wrong = repository_problem(given)
    if wrong is None and not is_valid_iri(given):  # what the rules below do not name
        wrong = f"not an IRI; {expected}"
    if wrong is not None:
        raise ServiceError(f"{REPOSITORY_ENV}={shown!r}: {wrong}")
    return given


LONGEST_REPOSITORY = 2000  # characters of GERBIL_QA_SOURCE_REPOSITORY
# characters a shell reads (quotes, $ and `, ; & | < > ( ) and globs) and those no URL holds:
# the URL goes into a git clone line that is copied into shells and scripts (explore66 F3)
_SHELL_CHARACTERS = "'\"`$;&|<>()*?!\\{}^"
_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


def repository_problem(url: str) -> str | None:
    """Why ``url`` is not a repository URL to publish with every experiment (None: it is):
    no host (``https://``), a user name or password in it (published in every experiment's
    RDF and page), a control, format (bidi), private-use or unassigned character, a space or a
    line separator (shown reordered in the page's link), a quote or a character a shell
    reads, a ``%`` not starting an escape, a host that is no DNS name of letter-digit-hyphen
    labels nor an IPv4 or bracketed IPv6 address (percent-encoded, fullwidth, ``[v1.x]``, a
    zone), a port outside 1-65535, or longer than 2,000 characters. Each was accepted before,
    or refused without a reason (explore61 F14, explore63 F3, explore66 F3-F4)."""
    import unicodedata
    from urllib.parse import urlsplit

    if len(url) > LONGEST_REPOSITORY:
        return f"{len(url)} characters, more than {LONGEST_REPOSITORY}"
    odd = next((c for c in url if unicodedata.category(c)[0] in "CZ"), None)
    if odd is not None:
        return (
            f"holds the character U+{ord(odd):04X} (a control, format or bidi character, a "
            "space or a separator): the page would not show it as git clones it"
        )
    at = next((i for i, c in enumerate(url) if c in _SHELL_CHARACTERS), None)
    if at is not None:
        return (
            f"holds {url[at]!r} (at character {at + 1}): a quote, a character a shell reads "
            "or one no URL holds is not taken into the git clone line every experiment gives; "
            "percent-encode it, or give the repository's plain URL"
        )
    escape = re.search("%(?![0-9A-Fa-f]{2})", url)
    if escape is not None:
        return (
            f"a % that starts no escape (at character {escape.start() + 1}, "
            f"{url[escape.start() : escape.start() + 3]!r}): a % is followed by two hex digits"
        )
    try:
        parts = urlsplit(url)
    except ValueError as err:
        return f"not a URL git takes ({err})"
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return (
            "it holds a user name or password (user@, user:token@), which every experiment "
            "would publish: give the public URL"
        )
    wrong = _host_problem(parts.netloc)
    if wrong is not None:
        return wrong
    try:  # a port past 65535 (https://github.com:99999/x) was taken (explore63 F3)
        port = parts.port
    except ValueError as err:  # "Port out of range 0-65535", or not a number
        return f"not a URL git takes: its port is not one of 1-65535 ({err})"
    if port == 0:
        return "not a URL git takes: its port is not one of 1-65535 (0)"
    return None


def _host_problem(netloc: str) -> str | None:
    """Why the host of ``netloc`` (no user part) is none git can reach, or None: a DNS name of
    letter-digit-hyphen labels (an international one in its ASCII form, ``xn--``), an IPv4
    address, or an IPv6 address in brackets without a zone."""
    import ipaddress

    if not netloc:
        return "no host: expected https://HOST/PATH"
    if netloc.startswith("["):
        literal, bracket, _ = netloc[1:].partition("]")
        if not bracket:
            return f"its host {netloc!r} opens a [ it does not close"
        if "%" in literal:
            return (
                f"its host [{literal}] has a zone (%…): a zone names a network interface of "
                "one machine, no address others clone from"
            )
        try:
            ipaddress.IPv6Address(literal)
        except ValueError:
            return f"its host [{literal}] is no IPv6 address"
        return None
    if netloc.count(":") > 1:
        return f"its host {netloc!r} is an IPv6 address, written in brackets: https://[{netloc}]/…"
    host = netloc.partition(":")[0]
    if not host:
        return "no host: expected https://HOST/PATH"
    if "%" in host:
        return f"its host {host!r} is percent-encoded: write the host as it is"
    if not host.isascii():
        try:
            ascii_form = host.encode("idna").decode("ascii")
        except UnicodeError:
            return f"its host {host!r} is no domain name"
        return f"its host {host!r} is not in ASCII: write it as {ascii_form!r}"
    try:
        ipaddress.IPv4Address(host)
        return None
    except ValueError:
        pass
    name = host.removesuffix(".")
    bad = next((label for label in name.split(".") if not _LABEL.fullmatch(label)), None)
    if bad is not None or len(name) > 253:
        return (
            f"its host {host!r} is no domain name: each label 1-63 letters, digits or hyphens, "
            f"not starting or ending with a hyphen ({bad!r})"
        )
    if name.rpartition(".")[2].isdigit():  # 999.1.1.1, 1.2.3: no IPv4 address, no name
        return f"its host {host!r} is no IPv4 address and no domain name"
    return None


def built_from(source: Source) -> str:
    """What :data:`BUILT_FROM` says of ``source``: its commit, and ``modified`` when its
    evaluator files had changes (a line each)."""
    return f"{source.revision}\n" + ("modified\n" if source.modified else "")


def _from_wheel() -> Source | None:
    """The commit the installed wheel was built from (:func:`built_from`)."""
    try:
        lines = BUILT_FROM.read_text(encoding="utf-8").split()
    except OSError:
        return None
    if not lines or not _COMMIT.fullmatch(lines[0]):
        return None
    return Source(__version__, lines[0], modified="modified" in lines[1:])


def from_checkout() -> Source | None:
    if not (_CHECKOUT / ".git").exists():
        return None  # installed from a wheel or an archive
    head = _git("rev-parse", "--verify", "HEAD")
    status = _git("status", "--porcelain", "--", *_EVALUATOR_PATHS)
    if head is None or status is None or not _COMMIT.fullmatch(head.strip()):
        return None  # no git, or git refuses this checkout (another owner): say nothing
    return Source(__version__, head.strip(), modified=bool(status.strip()))


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(_CHECKOUT), *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
