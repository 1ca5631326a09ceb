"""The version an experiment records: the release and the commit, from git or the operator."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from service import __version__, release
from service.errors import ServiceError


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real git checkout with an evaluator file and a README, committed; ``source()`` reads it."""
    repo = tmp_path / "repo"
    (repo / "service").mkdir(parents=True)
    (repo / "service" / "scoring.py").write_text("RULE = 1\n")
    (repo / "README.md").write_text("read me\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    monkeypatch.setattr(release, "_CHECKOUT", repo)
    monkeypatch.delenv(release.REVISION_ENV, raising=False)
    release.source.cache_clear()
    yield repo
    release.source.cache_clear()


def test_a_clean_checkout_records_its_commit(checkout: Path) -> None:
    head = _git(checkout, "rev-parse", "HEAD")
    found = release.source()
    assert (found.revision, found.modified) == (head, False)
    assert found.version == f"{__version__}+g{head[:12]}"


def test_a_changed_evaluator_file_is_recorded_as_modified(checkout: Path) -> None:
    (checkout / "service" / "scoring.py").write_text("RULE = 2\n")
    assert release.source().modified
    assert release.source().version.endswith(".modified")


def test_a_new_evaluator_file_counts_as_a_change(checkout: Path) -> None:
    (checkout / "service" / "extra.py").write_text("")
    assert release.source().modified


def test_a_change_outside_the_evaluator_does_not(checkout: Path) -> None:
    (checkout / "README.md").write_text("read me again\n")
    assert not release.source().modified


def test_without_git_the_release_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(release, "_CHECKOUT", tmp_path)  # installed from a wheel: no .git
    monkeypatch.delenv(release.REVISION_ENV, raising=False)
    release.source.cache_clear()
    try:
        assert release.source() == release.Source(__version__)
        assert release.source().version == __version__
    finally:
        release.source.cache_clear()


def test_the_operator_names_the_commit(checkout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    commit = "0123456789abcdef0123456789abcdef01234567"
    monkeypatch.setenv(release.REVISION_ENV, commit.upper())  # what a build script passes on
    assert release.source() == release.Source(__version__, commit)  # before git's own answer


def test_a_malformed_revision_is_refused(checkout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(release.REVISION_ENV, "main")
    with pytest.raises(ServiceError, match="GERBIL_QA_REVISION='main': expected a commit"):
        release.source()


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("https://", "no host"),
        ("https://u:tok@example.org/r.git", "user name or password"),
        ("https://tok@example.org/r.git", "user name or password"),
        ("https://example.org/\u202eevil", "U+202E"),
        ("https://example.org/a\u200bb", "U+200B"),
        ("https://example.org/" + "a" * 20_000, "20020 characters, more than 2000"),
        ("https://github.com:99999/x", "port is not one of 1-65535 (Port out of range"),
        ("https://github.com:0/x", "port is not one of 1-65535 (0)"),
        # explore66 F3: refused with no reason; F4: accepted, though no host git clones from
        ("https://example.com/%ZZ", "a % that starts no escape (at character 21, '%ZZ')"),
        ("https://[fe80::1%25eth0]/x", "its host [fe80::1%25eth0] has a zone"),
        ("https://::1/x", "is an IPv6 address, written in brackets: https://[::1]/"),
        ("https://example.com/$(id)", "holds '$' (at character 21): a quote, a character a "),
        ("https://example.com/x`id`", "holds '`' (at character 22)"),
        ('https://example.com/x"y', "holds '\"' (at character 22)"),
        ("https://git.example.org/o'brien/qa&co.git", 'holds "\'" (at character 26)'),
        ("https://[v1.x]/x", "its host [v1.x] is no IPv6 address"),
        ("https://example.com%40evil.com/x", "its host 'example.com%40evil.com' is percent-enc"),
        ("https://exa%6Dple.com/x", "its host 'exa%6Dple.com' is percent-encoded"),
        ("https://-x-.com/x", "its host '-x-.com' is no domain name: each label 1-63 letters"),
        ("https://\uff25\uff38\uff21\uff2d\uff30\uff2c\uff25.com/x", "write it as 'example.com'"),
        ("https://999.1.1.1/x", "its host '999.1.1.1' is no IPv4 address and no domain name"),
    ],
)
def test_a_source_repository_not_to_publish_is_refused(
    monkeypatch: pytest.MonkeyPatch, url: str, said: str
) -> None:
    """Each was accepted, then published in every experiment's RDF and page (explore61 F14),
    or refused saying no more than "expected the http(s) URL" (explore66 F3)."""
    monkeypatch.setenv(release.REPOSITORY_ENV, url)
    with pytest.raises(ServiceError, match="GERBIL_QA_SOURCE_REPOSITORY=") as refused:
        release.repository()
    assert said in str(refused.value) and len(str(refused.value)) < 500


@pytest.mark.parametrize(
    "url",
    ["https://[::1]:8080/x", "http://10.0.0.1:8080/r.git", "https://git.example.org/~me/r.git",
     "https://xn--bcher-kva.example/r", "https://example.com/a%20b"],
)  # fmt: skip
def test_a_source_repository_git_clones_is_taken(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv(release.REPOSITORY_ENV, url)
    assert release.repository() == url


def test_the_checkout_command_is_quoted_for_any_shell() -> None:
    """POSIX quoting (bash's ``$'…'`` was used for a URL holding a bidi character)."""
    from service.web.reproduce import Reproduction

    url = "https://git.example.org/o'brien/qa&co.git"  # stored before such were refused
    commit = "0123456789abcdef0123456789abcdef01234567"
    made = Reproduction((), ("gerbil-qa",), "1", commit, False, repository=url)
    assert made.checkout == (
        "git clone 'https://git.example.org/o'\"'\"'brien/qa&co.git' gerbil-qa && cd gerbil-qa && "
        f"git checkout {commit} && pip install ."
    )
    told = subprocess.run(
        ["sh", "-c", made.checkout.replace("git clone", "printf %s", 1).split(" gerbil-qa")[0]],
        capture_output=True,
        text=True,
    )
    assert told.stdout == url
    odd = Reproduction((), ("gerbil-qa",), "1", commit, False, repository=url + "\u202e")
    assert "$'" not in (odd.checkout or "")  # (a URL stored before such were refused)


def test_an_installed_wheel_names_the_commit_it_was_built_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = "0123456789abcdef0123456789abcdef01234567"
    built = tmp_path / "REVISION"
    monkeypatch.setattr(release, "_CHECKOUT", tmp_path)  # no .git
    monkeypatch.setattr(release, "BUILT_FROM", built)
    monkeypatch.delenv(release.REVISION_ENV, raising=False)
    try:
        for source in (
            release.Source(__version__, commit),
            release.Source(__version__, commit, True),
        ):
            built.write_text(release.built_from(source), encoding="utf-8")
            release.source.cache_clear()
            assert release.source() == source
        built.write_text("not a commit\n", encoding="utf-8")
        release.source.cache_clear()
        assert release.source() == release.Source(__version__)
    finally:
        release.source.cache_clear()
