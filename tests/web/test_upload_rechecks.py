"""Findings made by another set of checks are made again at serve start.

An uploaded dataset is checked once, when its first run is published. Before, a release that
added a finding kind left every upload checked before it with the findings of the older
checks for good (serve start completed only uploads with no findings at all). Now the
findings say which set of checks made them (``gqa:checkSet``, a digest of the registry
``service.model.FINDING_KINDS``) and serve start checks again those made by another
set, or before the set was said: the old findings replaced in one transaction, the upload's
date of first issue (in the same graph) kept.
"""

from __future__ import annotations

import gc
import logging
from pathlib import Path
from typing import Any

import pytest

from service import formats
from service.graph.questions import check_dataset, check_set
from tests.lakes_benchmark import lakes
from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_upload_findings import _submit

GQA = "http://w3id.org/gerbil/qa/vocab#"
ISSUED = "http://purl.org/dc/terms/issued"


def _publish(site: Server, data: bytes) -> str:
    """``data`` run on its own gold and published: its dataset's URI."""
    state = _submit(site, data)
    auth = {"Authorization": f"Bearer {state['token']}"}
    done = site.post(f"api/experiments/{state['id']}/publish", headers=auth)
    assert done.status_code == 200, done.text
    return str(state["dataset"])


def _as_an_older_release_left_them(site: Server, uri: str, said: str | None) -> None:
    """The findings as a release without the missing-text check made them: none of that kind,
    and the check set ``said`` (None: before the set was said)."""
    from service.graph.adapter import Side

    graph = site.storage.uris.dataset_graph(uri.rsplit("/", 1)[1])
    kind = f"<{GQA}finding-missing-text>"
    site.storage.store.update(
        Side.PUBLIC,
        f"DELETE {{ GRAPH <{graph}> {{ <{uri}> <{GQA}finding> ?f . ?f ?p ?o }} "
        f"<{uri}> <{GQA}finding> ?f . ?f ?p ?o }} WHERE {{ GRAPH <{graph}> {{ "
        f"<{uri}> <{GQA}finding> ?f . ?f <{GQA}findingKind> {kind} ; ?p ?o }} }} ;"
        f"DELETE {{ GRAPH <{graph}> {{ <{uri}> <{GQA}checkSet> ?s }} <{uri}> <{GQA}checkSet> ?s }} "
        f"WHERE {{ GRAPH <{graph}> {{ <{uri}> <{GQA}checkSet> ?s }} }}",
    )
    if said is not None:
        site.storage.store.update(
            Side.PUBLIC,
            f'INSERT DATA {{ GRAPH <{graph}> {{ <{uri}> <{GQA}checkSet> "{said}" }} '
            f'<{uri}> <{GQA}checkSet> "{said}" }}',
        )


def _kinds(site: Server, uri: str) -> list[str]:
    rows = site.storage.public.query(
        f"SELECT ?k WHERE {{ <{uri}> <{GQA}finding> ?f . ?f <{GQA}findingKind> ?k }}"
    )
    return sorted(row["k"].value.rsplit("finding-", 1)[1] for row in rows)


def _one(site: Server, uri: str, predicate: str) -> list[str]:
    rows = site.storage.public.query(f"SELECT ?v WHERE {{ <{uri}> <{predicate}> ?v }}")
    return [row["v"].value for row in rows]


def _quads(site: Server) -> set[str]:
    return {str(q) for q in site.storage.public.quads_for_pattern(None, None, None, None)}


@pytest.fixture(scope="module")
def restarted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from service.systems.localnet import free_port

    folder = tmp_path_factory.mktemp("rechecks")
    path = folder / "lakes.json"
    path.write_bytes(lakes())
    expected = sorted(f.kind for f in check_dataset(formats.read(path)))
    store, port = folder / "store", free_port()
    site = start_server(store, demo=False, port=port)
    try:
        older = _publish(site, lakes(dataset_id="lakes-older"))
        unsaid = _publish(site, lakes(dataset_id="lakes-unsaid"))
        before = {
            uri: (_one(site, uri, GQA + "checkedAt"), _one(site, uri, ISSUED))
            for uri in (older, unsaid)
        }
        _as_an_older_release_left_them(site, older, "kinds-0123456789abcdef")
        _as_an_older_release_left_them(site, unsaid, None)
        assert "missing-text" not in _kinds(site, older)
    finally:
        stop_server(site)
    del site
    gc.collect()
    return {
        "store": store,
        "port": port,
        "uploads": (older, unsaid),
        "before": before,
        "expected": expected,
    }


def test_serve_start_checks_them_again(
    restarted: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="service.web.app"):
        site = start_server(restarted["store"], demo=False, port=restarted["port"])
    try:
        # the start log says what it did: it said "brought up to date, nothing to do: NAMES"
        # right after adding findings to those datasets (explore54 F4)
        (said,) = [r.getMessage() for r in caplog.records if "re-checked" in r.getMessage()]
        assert "nothing to do" not in said
        total = len(restarted["expected"])
        missing = restarted["expected"].count("missing-text")
        names = [uri.rsplit("/", 1)[1] for uri in restarted["uploads"]]
        assert said.startswith("re-checked 2 published uploaded dataset(s)"), said
        for name in names:
            assert f"{name} ({total - missing} -> {total} findings)" in said, said
        assert said.endswith(f"; {2 * missing} finding(s) added, 0 removed"), said
        for uri in restarted["uploads"]:
            assert _kinds(site, uri) == restarted["expected"], uri
            assert _one(site, uri, GQA + "checkSet") == [check_set()]
            checked, issued = restarted["before"][uri]
            (now,) = _one(site, uri, GQA + "checkedAt")  # one: the old one replaced
            assert now > checked[0]
            assert _one(site, uri, ISSUED) == issued  # its date of first issue stays
            page = site.get(uri.replace(site.url, ""), headers={"Accept": "text/html"}).text
            assert f"<caption>{len(restarted['expected'])} findings</caption>" in page
            assert "findings=missing-text" in page
        after = _quads(site)
    finally:
        stop_server(site)
    del site
    gc.collect()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="service.web.app"):
        again = start_server(restarted["store"], demo=False, port=restarted["port"])
    assert not [r for r in caplog.records if "re-checked" in r.getMessage()]  # nothing done
    try:
        assert _quads(again) == after  # checked by this set now: nothing written
    finally:
        stop_server(again)


def test_the_check_set_comes_from_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    from service import model
    from service.graph import questions

    before = check_set()
    assert before.startswith("kinds-")
    monkeypatch.setitem(model.FINDING_KINDS, "dangling-answer", model.FINDING_KINDS["format"])
    assert check_set() != before  # a release that adds a kind has another set
    with pytest.raises(ValueError, match="not in FINDING_KINDS"):
        questions.Finding("never-registered", "x")


def test_a_catalogue_dataset_is_stored_again_at_its_next_run(tmp_path: Path) -> None:
    # built in: checked when a run first reads it (its file from the data mirror); findings of
    # another set of checks are made again at the next run on it, not at serve start
    from service.graph.adapter import Side
    from service.graph.store import open_storage

    path = tmp_path / "lakes.json"
    path.write_bytes(lakes())
    with open_storage(tmp_path / "store", base="http://127.0.0.1:1/") as storage:
        catalogue = storage.catalogue
        assert not catalogue.has_questions("lakes")
        catalogue.store_questions("lakes", formats.read(path))
        assert catalogue.has_questions("lakes")
        graph, ds = storage.uris.dataset_graph("lakes"), storage.uris.dataset("lakes")
        storage.store.update(
            Side.PUBLIC,
            f"DELETE {{ GRAPH <{graph}> {{ <{ds}> <{GQA}checkSet> ?s }} }} "
            f'INSERT {{ GRAPH <{graph}> {{ <{ds}> <{GQA}checkSet> "kinds-older" }} }} '
            f"WHERE {{ GRAPH <{graph}> "
            f"{{ <{ds}> <{GQA}checkSet> ?s }} }}",
        )
        assert not catalogue.has_questions("lakes")  # recording stores them again
