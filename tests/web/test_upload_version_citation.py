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


def _upload(server, marker: str, about: dict | None) -> str:
    """A published run on the demo's questions (bytes of their own) titled "Owl QA", with
    ``about``: its dataset's name."""
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
    return finished["dataset"].rsplit("/", 1)[1]


def test_a_version_of_an_upload_cites_its_title_and_creators(server) -> None:
    name = _upload(server, "creators", {"creators": ["Ada Author", "Bo Coauthor"]})
    assert name.startswith("owl-qa-")
    uri, _ = server.register_version(name, kb="http://example.org/owls", version="2026-12")
    version = _entry(server, uri[len(server.url) :])
    dataset = _entry(server, f"dataset/{name}")
    assert version["title"] == "{Owl QA}", version
    assert version["author"] == "{Ada Author} and {Bo Coauthor}" == dataset["author"]
    assert version["version"] == "2026-12"
    page = server.get(uri[len(server.url) :]).text
    assert "Owl QA, version 2026-12." in " ".join(page.split())  # the plain citation


def test_a_version_of_an_upload_nobody_said_who_made_cites_as_its_dataset(server) -> None:
    name = _upload(server, "anonymous", None)
    uri, _ = server.register_version(name, kb="http://example.org/owls", version="2026-12")
    version, dataset = _entry(server, uri[len(server.url) :]), _entry(server, f"dataset/{name}")
    assert version["title"] == dataset["title"] == "{Owl QA}", (version, dataset)
    assert version["author"] == dataset["author"]
    assert name not in version["title"]
