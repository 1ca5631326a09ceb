"""Virtuoso (Debian's ``virtuoso-opensource``) as a remote store (issue 14): refused when opened,
with the reason, and each reason checked here against the real server, so that a Virtuoso that
keeps what is written as written shows up as a failure of this test (then lift the refusal,
``service.graph.remote.UNFAITHFUL``). Runs where ``virtuoso-t`` is installed (tests/layers.py)
and in ``make soak``."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from service.errors import BadRequest
from service.graph.remote import RemoteSettings, RemoteStore
from tests.remote import free_port, remote_pair

pytestmark = pytest.mark.virtuoso

CONFIG = Path("/etc/virtuoso-opensource-7/virtuoso.ini")
XSD = "http://www.w3.org/2001/XMLSchema#"


@pytest.fixture(scope="module")
def virtuoso(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Virtuoso of its own (database in a temporary folder, free ports) that lets the
    anonymous SPARQL user update, as a store behind a private network would; its URL."""
    folder = tmp_path_factory.mktemp("virtuoso")
    sql, http = free_port(), free_port()
    text = CONFIG.read_text().replace("/var/lib/virtuoso-opensource-7/db/", f"{folder}/")
    text = re.sub(r"(\[Parameters\][^\[]*?ServerPort\s*=\s*)\d+", rf"\g<1>{sql}", text, flags=re.S)
    text = re.sub(r"(\[HTTPServer\][^\[]*?ServerPort\s*=\s*)\d+", rf"\g<1>{http}", text, flags=re.S)
    ini = folder / "virtuoso.ini"
    ini.write_text(text)
    started = subprocess.run(
        [shutil.which("virtuoso-t") or "virtuoso-t", "+configfile", str(ini), "+wait"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert started.returncode == 0, started.stderr
    isql = shutil.which("isql-vt") or "isql-vt"
    grant = "grant SPARQL_UPDATE to \"SPARQL\"; DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('nobody', 7);"
    subprocess.run(
        [isql, str(sql), "dba", "dba", f"exec={grant}"], check=True, timeout=60, capture_output=True
    )
    try:
        yield f"http://127.0.0.1:{http}/"
    finally:
        subprocess.run(
            [isql, str(sql), "dba", "dba", "exec=shutdown;"],
            timeout=60,
            capture_output=True,
            check=False,
        )


def _update(url: str, text: str) -> requests.Response:
    return requests.post(url + "sparql", data={"update": text}, timeout=30)


def _rows(url: str, query: str) -> list[dict[str, dict[str, str]]]:
    response = requests.post(
        url + "sparql",
        data={"query": query},
        headers={"Accept": "application/sparql-results+json"},
        timeout=30,
    )
    response.raise_for_status()
    return response.json()["results"]["bindings"]


def test_virtuoso_is_refused_with_the_reason(virtuoso: str, tmp_path: Path) -> None:
    with remote_pair(tmp_path) as pair:  # the private dataset elsewhere: only the public fails
        settings = RemoteSettings(public=virtuoso, private=pair.private.url, work_dir=tmp_path)
        with pytest.raises(BadRequest) as refused:
            RemoteStore(settings)
    message = str(refused.value)
    assert "Virtuoso" in message and "xsd:boolean" in message and "blank nodes" in message


def test_each_reason_holds_on_this_virtuoso(virtuoso: str) -> None:
    # blank nodes in INSERT DATA: refused
    refused = _update(virtuoso, 'INSERT DATA { GRAPH <urn:t:1> { _:b <urn:t:p> "x" } }')
    assert "Blank node" in refused.text and "not allowed" in refused.text
    # no default graph to write
    refused = _update(virtuoso, 'INSERT DATA { <urn:t:s> <urn:t:p> "x" }')
    assert "default graph" in refused.text
    # typed literals come back changed
    written = _update(
        virtuoso,
        f'INSERT DATA {{ GRAPH <urn:t:2> {{ <urn:t:flag> <urn:t:p> "true"^^<{XSD}boolean> . '
        f'<urn:t:one> <urn:t:p> "1"^^<{XSD}decimal> }} }}',
    )
    assert written.status_code == 200, written.text
    found = {
        row["s"]["value"]: (row["o"]["value"], row["o"].get("datatype"))
        for row in _rows(virtuoso, "SELECT ?s ?o WHERE { GRAPH <urn:t:2> { ?s ?p ?o } }")
    }
    assert found["urn:t:flag"] == ("1", XSD + "boolean")  # written "true"
    assert found["urn:t:one"] == ("1", XSD + "integer")  # written xsd:decimal
