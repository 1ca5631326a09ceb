"""Deleting an unpublished experiment (``gerbil-qa delete``; ``gerbil-qa experiments`` lists
them), on the embedded store and on a remote one (two ``oxigraph serve``): the graph, the admin
record and the files only it used go; files another experiment uses stay; a published experiment
is refused; the id is not reused.

Where a store is walked through several commands they run in this process
(``tests.helpers.gerbil_qa_here``: the same ``gerbil-qa`` command without an interpreter's start
each); ``serve`` finishing a deletion, and the listing's records, run in processes of their own."""

from __future__ import annotations

from pathlib import Path

from service.paths import DEMO_DIR
from tests.helpers import ROOT, gerbil_qa, gerbil_qa_here, recorded
from tests.remote import remote_pair

QUESTIONS = DEMO_DIR / "questions.json"


def _own_answers(tmp_path: Path) -> Path:
    """The strong demo answers with one byte changed: a file no other experiment uses."""
    path = tmp_path / "mine.json"
    path.write_text((DEMO_DIR / "answers-strong.json").read_text() + "\n", encoding="utf-8")
    return path


def _sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def _listed(store: str, *options: str, **env: str) -> dict[str, dict]:
    """``gerbil-qa experiments --output json``, by id."""
    import json

    done = gerbil_qa_here("experiments", "--store", store, "--output", "json", *options, **env)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.stderr.strip().endswith(f"{len(rows)} experiment(s)")
    return {row["id"]: row for row in rows}


def _walk(store: str, tmp_path: Path, kept, **env: str) -> None:
    """Two experiments sharing the dataset file; the second published; the first deleted."""
    mine = _own_answers(tmp_path)
    first = recorded(store, mine, here=True, **env)
    second = recorded(store, DEMO_DIR / "answers-baseline.json", here=True, **env)
    assert kept(_sha(mine)) and kept(_sha(QUESTIONS))
    published = gerbil_qa_here("publish", "--store", store, second, **env)
    assert published.returncode == 0, published.stderr

    refused = gerbil_qa_here("delete", "--store", store, second, **env)
    assert refused.returncode == 1
    assert f"experiment {second} is published" in refused.stderr
    assert "rescore" in refused.stderr

    listed = _listed(store, **env)
    assert listed[first]["status"] == "finished" and listed[first]["public"] is False
    assert listed[first]["systems"] == ["mine"] and listed[first]["dataset"] == "questions.json"
    assert listed[second]["public"] is True and listed[second]["publishedAt"]
    assert set(_listed(store, "--private", **env)) == {first}

    done = gerbil_qa_here("delete", "--store", store, first, **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"deleted {first}"
    assert set(_listed(store, **env)) == {second}
    assert not kept(_sha(mine))  # only the deleted experiment used it
    assert kept(_sha(QUESTIONS))  # the published one still does
    assert kept(_sha(DEMO_DIR / "answers-baseline.json"))

    again = gerbil_qa_here("delete", "--store", store, first, **env)
    assert again.returncode == 1 and f"no experiment {first}" in again.stderr
    checked = gerbil_qa_here("check", "--store", store, **env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    third = recorded(store, mine, here=True, **env)
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


def _crash_after_the_graph(store: Path, experiment_id: str) -> list[str]:
    """A deletion killed after its one update: the graph and record gone, the files not yet."""
    from service.graph.store import open_storage

    with open_storage(store, base=None, catalog=False) as storage:
        return storage.experiments.delete(experiment_id)


def test_a_deletion_a_crash_stopped_is_finished_by_the_next_delete(tmp_path: Path) -> None:
    store = tmp_path / "store"
    mine = _own_answers(tmp_path)
    eid = recorded(str(store), mine, here=True)
    assert _crash_after_the_graph(store, eid) == sorted([_sha(mine), _sha(QUESTIONS)])
    assert (store / "files" / _sha(mine)).is_file()  # left by the "crash"
    checked = gerbil_qa_here("check", "--store", str(store))  # the note is valid data meanwhile
    assert checked.returncode == 0 and "0 violation(s)" in checked.stderr, checked.stderr
    done = gerbil_qa_here("delete", "--store", str(store), eid)
    assert done.returncode == 0, done.stderr
    assert not (store / "files" / _sha(mine)).exists()
    assert not (store / "files" / _sha(QUESTIONS)).exists()
    again = gerbil_qa_here("delete", "--store", str(store), eid)  # now nothing is left to finish
    assert again.returncode == 1 and f"no experiment {eid}" in again.stderr


def test_a_deletion_a_crash_stopped_is_finished_when_serve_starts(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys
    import time

    import requests

    from tests.remote import free_port

    store = tmp_path / "store"
    mine = _own_answers(tmp_path)
    eid = recorded(str(store), mine)
    _crash_after_the_graph(store, eid)
    port = free_port()
    args = [sys.executable, "-m", "service", "serve", "--store", str(store), "--no-demo"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(
        [*args, "--port", str(port)], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(f"http://127.0.0.1:{port}/api/profiles", timeout=2)
                break
            except (requests.ConnectionError, requests.Timeout):  # bound, still starting
                assert time.monotonic() < deadline and server.poll() is None
                time.sleep(0.2)
        assert not (store / "files" / _sha(mine)).exists()
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert "finished the cleanup of 1 deleted experiment(s)" in (server.stderr.read() or "")


def test_the_listing_names_the_dataset_each_experiment_was_recorded_on(tmp_path: Path) -> None:
    """An organiser picks a challenge's runs from ``gerbil-qa experiments``: it named an
    uploaded dataset by the file name each submitter gave it (``mine.json``, ``c.json``), so
    runs on one dataset looked apart and runs on another file with the same name looked alike.
    Now each row also has the URI the results are recorded under (``datasetUri``), and the
    table shows its name."""
    store = str(tmp_path / "store")
    same = tmp_path / "renamed.json"
    same.write_bytes(QUESTIONS.read_bytes())
    other = tmp_path / "b" / "questions.json"  # another file, named like the first
    other.parent.mkdir()
    other.write_text(QUESTIONS.read_text() + "\n", encoding="utf-8")
    ids = []
    for dataset in (QUESTIONS, same, other):
        ids.append(recorded(store, DEMO_DIR / "answers-strong.json", dataset=dataset))
    published = gerbil_qa("publish", "--store", store, ids[1])  # its graph goes public
    assert published.returncode == 0, published.stderr
    listed = _listed(store)
    first, renamed, changed = (listed[i] for i in ids)
    assert (first["dataset"], renamed["dataset"]) == ("questions.json", "renamed.json")
    assert first["datasetUri"] == renamed["datasetUri"]
    assert (
        first["datasetUri"].startswith("http://")
        and "/dataset/gerbil-qa-demo-" in first["datasetUri"]
    )
    assert changed["datasetUri"] != first["datasetUri"]
    table = gerbil_qa("experiments", "--store", store).stdout
    name = first["datasetUri"].rsplit("/", 1)[1]
    assert sum(1 for line in table.splitlines() if name in line) == 2
