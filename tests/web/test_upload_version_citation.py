"""The BibTeX of an uploaded dataset's registered version (``dataset refresh --store`` on the
upload's file) cites what its dataset's does: the upload's title, its creators, and the version
apart (explore45 5: it cited the internal name, ``gerbil-qa-demo-f1a2849c``, by "GERBIL QA")."""

from __future__ import annotations

import re

from service.paths import DEMO_DIR


def _entry(server, path: str) -> dict[str, str]:
    """The fields of the one BibTeX entry at ``path`` (``.bib``), whitespace collapsed."""
    answer = server.get(path + ".bib")
    assert answer.status_code == 200, answer.text
    text = " ".join(answer.text.split())
    assert text.count("@misc{") == 1, text
    return dict(re.findall(r"(\w+) = \{(.*?)\}(?:,|$| \})", text))


def _upload(server, marker: str, about: dict | None) -> tuple[str, dict]:
    """A published run on the demo's questions (bytes of their own: a marker of another
    length) titled "Owl QA", with ``about``: its dataset's name and the run's ticket."""
    content = (DEMO_DIR / "questions.json").read_text(encoding="utf-8") + " " * len(marker)
    answers = (DEMO_DIR / "answers-strong.json").read_text(encoding="utf-8")
    made = server.post(
        "api/experiments",
        json={
            "dataset": {"filename": "owls.json", "content": content},
            "title": "Owl QA",
            **({"about": about} if about else {}),
            "kb": "demo",
            "profile": "fair",
            "systems": [{"name": f"owl-{marker}", "answers": answers}],
        },
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    finished = server.wait_finished(ticket["id"], ticket["token"])
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{ticket['id']}/publish", headers=owner).ok
    return finished["dataset"].rsplit("/", 1)[1], ticket


def test_a_version_of_an_upload_cites_its_title_and_creators(server) -> None:
    name, _ = _upload(server, "creators", {"creators": ["Ada Author", "Bo Coauthor"]})
    assert name.startswith("owl-qa-")
    uri, _ = server.register_version(name, kb="http://example.org/owls", version="2026-12")
    version = _entry(server, uri[len(server.url) :])
    dataset = _entry(server, f"dataset/{name}")
    assert version["title"] == "{Owl QA}", version
    assert version["author"] == "{Ada Author} and {Bo Coauthor}" == dataset["author"]
    assert version["note"] == "Version 2026-12"  # in the note every style prints
    page = server.get(uri[len(server.url) :]).text
    assert "Owl QA, version 2026-12." in " ".join(page.split())  # the plain citation


def test_a_version_of_an_upload_nobody_said_who_made_cites_as_its_dataset(server) -> None:
    name, _ = _upload(server, "anonymous", None)
    uri, _ = server.register_version(name, kb="http://example.org/owls", version="2026-12")
    version, dataset = _entry(server, uri[len(server.url) :]), _entry(server, f"dataset/{name}")
    assert version["title"] == dataset["title"] == "{Owl QA}", (version, dataset)
    assert version["author"] == dataset["author"]
    assert name not in version["title"]


def test_a_run_on_an_upload_is_rescored_onto_its_registered_version(server) -> None:
    """explore48 3: the experiment page offered ``rescore?datasetVersion=V`` for a version
    ``dataset refresh --store`` registered of its uploaded dataset, and the re-score page and
    the API refused it as "no published newer version", naming a ``dataset/V`` that is not."""
    import hashlib
    import html

    from service import formats

    name, ticket = _upload(server, "rescored-on", None)  # 11 bytes: its own file
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    from service.experiments.kept import keep
    from service.web.state import EXTENSION

    data = (DEMO_DIR / "questions.json").read_bytes()  # its file kept, as refresh --store does
    sha = hashlib.sha256(data).hexdigest()
    keep(server.storage.workspace, sha, data)
    dataset = formats.read(DEMO_DIR / "questions.json")
    uri = server.storage.catalogue.register_version(
        name, dataset, kb="http://example.org/owls", version="2026-12", file_sha256=sha
    ).uri
    server.app.extensions[EXTENSION].changed()
    # its dataset's page names it once: "…, version 2026-12, version 2026-12 (2026-12)" before
    # (a version with its file kept has a SHA-256, read as an upload's: explore48 9)
    listed = server.get(f"dataset/{name}").text
    assert f'title="{uri}">Owl QA, version 2026-12</a>' in listed
    assert "version 2026-12, version" not in listed and "(2026-12)" not in listed
    page = html.unescape(server.get(f"experiment/{ticket['id']}").text)
    offered = re.search(r"rescore\?datasetVersion=([^\"&]+)", page)
    assert offered, page
    assert offered.group(1) == "2026-12"
    # its re-score page (the link's target) names that version, not a dataset/2026-12
    for said in ("2026-12", f"{name}/version/2026-12", uri):
        shown = server.get(f"experiment/{ticket['id']}/rescore", params={"datasetVersion": said})
        assert shown.status_code == 200, shown.text
        assert f'href="{uri}"' in shown.text and "dataset/2026-12" not in shown.text
    path = f"api/experiments/{ticket['id']}/rescore"
    answer = server.post(path, headers=owner, json={"datasetVersion": offered.group(1)})
    assert answer.status_code == 202, answer.text
    rescored = answer.json()
    done = server.wait_finished(rescored["id"], rescored["token"])
    assert done["status"] == "finished", done
    mine = {"Accept": "text/turtle", "Authorization": f"Bearer {rescored['token']}"}
    graph = server.get(f"experiment/{rescored['id']}", headers=mine).text
    assert uri in graph, graph
