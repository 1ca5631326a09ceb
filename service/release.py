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
    :func:`repository_problem` refuses."""
    from service.valid_terms import is_valid_iri

    given = os.environ.get(REPOSITORY_ENV, "").strip()
    if not given:
        return None
    shown = given if len(given) <= 200 else given[:200] + "…"
    if not given.lower().startswith(("http://", "https://")) or not is_valid_iri(given):
        raise ServiceError(
            f"{REPOSITORY_ENV}={shown!r}: expected the http(s) URL of the repository of this "
            "code (what git clone takes)"
        )
    wrong = repository_problem(given)
    if wrong is not None:
        raise ServiceError(f"{REPOSITORY_ENV}={shown!r}: {wrong}")
    return given


LONGEST_REPOSITORY = 2000  # characters of GERBIL_QA_SOURCE_REPOSITORY


def repository_problem(url: str) -> str | None:
    """Why ``url`` is not a repository URL to publish with every experiment (None: it is):
    no host (``https://``), a user name or password in it (published in every experiment's
    RDF and page), a control, format (bidi), private-use or unassigned character, a space or a
    line separator (shown reordered in the page's link), a port outside 1-65535, or longer
    than 2,000 characters. Each was accepted before (explore61 F14, explore63 F3)."""
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
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError as err:
        return f"not a URL git takes ({err})"
    try:  # a port past 65535 (https://github.com:99999/x) was taken (explore63 F3)
        port = parts.port
    except ValueError as err:  # "Port out of range 0-65535", or not a number
        return f"not a URL git takes: its port is not one of 1-65535 ({err})"
    if port == 0:
        return "not a URL git takes: its port is not one of 1-65535 (0)"
    if not host:
        return "no host: expected https://HOST/PATH"
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return (
            "it holds a user name or password (user@, user:token@), which every experiment "
            "would publish: give the public URL"
        )
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
