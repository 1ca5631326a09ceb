"""An uploaded dataset whose kept file is not in the store cannot be checked, and says so.

A store moved with ``gerbil-qa export`` (a dump alone) and ``gerbil-qa import`` holds the
graphs but not the files kept beside them. A published upload not checked yet (published
before uploads were checked) is checked at serve start from its kept file: without it, its
page said "not checked yet … the service checks it when it next starts" at every start, for
good. It now says it cannot be checked because its file is not in this store, and how to bring
it (an ``export --files`` archive); imported so, the next start checks it.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from service.cli import main
from tests.lakes_benchmark import lakes
from tests.web.conftest import Server, start_server, stop_server


def _published_before_checks(store: Path, port: int) -> str:
    """A run on the lakes, published as before uploads were checked (the experiment only):
    its dataset's URI."""
    site = start_server(store, demo=False, port=port)
    try:
        data = lakes().decode()
        made = site.post(
            "api/experiments",
            json={
                "dataset": {"filename": "lakes.json", "content": data},
                "profile": "exact",
                "systems": [{"name": "gold-check", "answers": data}],
            },
        )
        assert made.status_code == 202, made.text
        ticket = made.json()
        state = site.wait_finished(ticket["id"], ticket["token"])
        site.storage.experiments.publish(ticket["id"])
        return str(state["dataset"])
    finally:
        stop_server(site)
        del site
        gc.collect()


def _page(site: Server, uri: str) -> str:
    got = site.get(uri.replace(site.url, ""), headers={"Accept": "text/html"})
    assert got.status_code == 200
    return got.text


def test_its_page_says_why_and_how_then_an_archive_brings_the_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from service.systems.localnet import free_port

    port = free_port()
    uri = _published_before_checks(tmp_path / "old", port)
    dump, backup = tmp_path / "dump.nq", tmp_path / "backup.tar.gz"
    old = str(tmp_path / "old")
    assert main(["export", "--store", old, "--output", str(dump)]) == 0
    assert main(["export", "--store", old, "--files", "--output", str(backup)]) == 0
    assert main(["import", "--store", str(tmp_path / "moved"), str(dump)]) == 0
    capsys.readouterr()

    site = start_server(tmp_path / "moved", demo=False, port=port)
    try:
        page = _page(site, uri)
        assert 'id="upload-checks"' in page
        assert "cannot be checked here: its file is not in this store" in page
        assert "gerbil-qa export --files" in page and "not checked yet" not in page
    finally:
        stop_server(site)
        del site
        gc.collect()

    assert main(["import", "--store", str(tmp_path / "whole"), str(backup)]) == 0
    site = start_server(tmp_path / "whole", demo=False, port=port)
    try:
        page = _page(site, uri)
        assert 'id="finding-summary"' in page and 'id="upload-checks"' not in page
    finally:
        stop_server(site)
