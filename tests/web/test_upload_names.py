"""Two different uploaded datasets never share a name.

An uploaded dataset is named by its label and the first 8 hex digits of its SHA-256. Two files
with the same label whose hashes share those 8 digits were one dataset: one page listing both
checksums and both files as its distributions, one leaderboard ranking runs on either. Such a
pair takes ~2^16 tries to find (below, a second or so), and a look-alike of a given published
dataset 2^32 hashes (minutes). Now the second content gets the longer name (16 digits); the
same bytes again keep the first name.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
import rdflib

from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server

GQA = rdflib.Namespace("http://w3id.org/gerbil/qa/vocab#")
DCAT = rdflib.Namespace("http://www.w3.org/ns/dcat#")


def colliding_files(label: str) -> tuple[bytes, bytes]:
    """Two demo datasets (labelled ``label``) differing in one question's text, whose
    SHA-256s begin with the same 8 hex digits: a birthday search over a nonce."""
    data = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
    data["dataset"] = {"id": label}
    data["questions"][0]["question"][0]["string"] = "NONCE"
    before, after = json.dumps(data).encode().split(b"NONCE")
    seen: dict[bytes, bytes] = {}
    for n in range(2_000_000):
        body = before + b"Which planet is the largest? (%d)" % n + after
        prefix = hashlib.sha256(body).digest()[:4]
        if prefix in seen:
            return seen[prefix], body
        seen[prefix] = body
    raise AssertionError("no pair found")  # 2^32 prefixes: ~77,000 tries expected


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("twins-store"), demo=False)
    yield running
    stop_server(running)


def _run(site: Server, dataset: bytes, *, publish: bool = True) -> dict[str, Any]:
    answers = (DEMO_DIR / "answers-strong.json").read_bytes()
    made = site.post(
        "api/experiments",
        files=[("dataset_file", ("twin.json", dataset)), ("answers", ("strong.json", answers))],
        data={"profile": "exact", "force": "true"},
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    site.wait_finished(ticket["id"], ticket["token"])
    if publish:
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        published = site.post(f"api/experiments/{ticket['id']}/publish", headers=auth)
        assert published.status_code == 200, published.text
    return site.get(
        f"api/experiments/{ticket['id']}",
        headers={"Authorization": f"Bearer {ticket['token']}"},
    ).json()


def test_two_contents_sharing_a_hash_prefix_are_two_datasets(site: Server) -> None:
    first, second = colliding_files("twin-bench")
    assert first != second
    digest = hashlib.sha256(first).hexdigest()
    assert digest[:8] == hashlib.sha256(second).hexdigest()[:8]
    a = _run(site, first)["dataset"]
    b = _run(site, second)["dataset"]
    again = _run(site, first)["dataset"]
    assert a.endswith(f"/twin-bench-{digest[:8]}")
    assert b.endswith(f"/twin-bench-{hashlib.sha256(second).hexdigest()[:16]}")
    assert again == a  # the same bytes are the same dataset
    for uri, content in ((a, first), (b, second)):
        served = site.get(uri.removeprefix(site.url), headers={"Accept": "text/turtle"})
        assert served.status_code == 200, served.text
        graph = rdflib.Graph().parse(data=served.text, format="turtle")
        sums = {str(o) for o in graph.objects(rdflib.URIRef(uri), GQA.sha256)}
        assert sums == {hashlib.sha256(content).hexdigest()}  # one content, one checksum
        files = set(graph.objects(rdflib.URIRef(uri), DCAT.distribution))
        assert len(files) == (2 if uri == a else 1)  # the two runs on the first bytes
    listed = [d["name"] for d in site.get("api/datasets").json()["datasets"] if d.get("uploaded")]
    assert sorted(listed) == sorted(u.rsplit("/", 1)[1] for u in (a, b))


def test_a_private_upload_holds_its_name_too(site: Server) -> None:
    """The first content is not published yet: the second still gets the longer name (else
    both would merge the day the first is published)."""
    first, second = colliding_files("quiet-twin")
    private = _run(site, first, publish=False)["dataset"]
    public = _run(site, second)["dataset"]
    assert private.endswith(hashlib.sha256(first).hexdigest()[:8])
    assert public.endswith(hashlib.sha256(second).hexdigest()[:16])
    # and nothing says the first exists
    assert f'"{private}"' not in site.get("api/datasets").text
