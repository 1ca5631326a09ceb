"""Deleting an unpublished experiment (``gerbil-qa delete``), on the embedded store and on a
remote one (two ``oxigraph serve``): the graph, the admin record and the files only it used go;
files another experiment uses stay; a published experiment is refused; the id is not reused."""

from __future__ import annotations

import re
from pathlib import Path

from service.paths import DEMO_DIR
from tests.helpers import gerbil_qa
from tests.remote import remote_pair

QUESTIONS = DEMO_DIR / "questions.json"


def _record(store: str, answers: Path, **env: str) -> str:
    done = gerbil_qa(
        "evaluate", "--dataset", str(QUESTIONS), "--answers", str(answers), "--store", store, **env
    )
    assert done.returncode == 0, done.stderr
    found = re.search(r"recorded experiment (\d{12})", done.stderr + done.stdout)
    assert found, done.stderr
    return found.group(1)


def _own_answers(tmp_path: Path) -> Path:
    """The strong demo answers with one byte changed: a file no other experiment uses."""
    path = tmp_path / "mine.json"
    path.write_text((DEMO_DIR / "answers-strong.json").read_text() + "\n", encoding="utf-8")
    return path


def _sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def _walk(store: str, tmp_path: Path, kept, **env: str) -> None:
    """Two experiments sharing the dataset file; the second published; the first deleted."""
    mine = _own_answers(tmp_path)
    first = _record(store, mine, **env)
    second = _record(store, DEMO_DIR / "answers-baseline.json", **env)
    assert kept(_sha(mine)) and kept(_sha(QUESTIONS))
    published = gerbil_qa("publish", "--store", store, second, **env)
    assert published.returncode == 0, published.stderr

    refused = gerbil_qa("delete", "--store", store, second, **env)
    assert refused.returncode == 1
    assert f"experiment {second} is published" in refused.stderr
    assert "rescore" in refused.stderr

    done = gerbil_qa("delete", "--store", store, first, **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"deleted {first}"
    assert not kept(_sha(mine))  # only the deleted experiment used it
    assert kept(_sha(QUESTIONS))  # the published one still does
    assert kept(_sha(DEMO_DIR / "answers-baseline.json"))

    again = gerbil_qa("delete", "--store", store, first, **env)
    assert again.returncode == 1 and f"no experiment {first}" in again.stderr
    checked = gerbil_qa("check", "--store", store, **env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    third = _record(store, mine, **env)
    assert third > second  # the deleted id is never given out again
    assert kept(_sha(mine))


def test_delete_on_the_embedded_store(tmp_path: Path) -> None:
    store = tmp_path / "store"

    def kept(sha: str) -> bool:
        return (store / "files" / sha).is_file()

    _walk(str(store), tmp_path, kept)


def test_delete_on_a_remote_store(tmp_path: Path) -> None:
    from service.graph.workspace import WORK

    with remote_pair(tmp_path / "remote") as pair:

        def kept(sha: str) -> bool:
            rows = pair.private._results(f"ASK {{ GRAPH <{WORK}files/{sha}> {{ ?k ?p ?o }} }}")
            return bool(rows["boolean"])

        _walk(pair.url, tmp_path, kept, **pair.env)
