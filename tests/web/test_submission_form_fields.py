"""A multipart submission's fields are checked as a JSON submission's keys are (the README: "a
mistyped one is a 400 naming the nearest"): ``profil=exact`` in a form was accepted (202) and
the run scored under the default profile, without a word."""

from __future__ import annotations

import pytest

from service.paths import DEMO_DIR


def _files() -> list[tuple[str, tuple[str, bytes]]]:
    path = DEMO_DIR / "answers-strong.json"
    return [("answers", (path.name, path.read_bytes()))]


@pytest.mark.parametrize(
    ("field", "said"),
    [
        ("profil", "$.profil: not a key of a submission; did you mean 'profile'?"),
        ("experiment_types", "did you mean 'experiment_type'?"),
        ("systemNames", "$.systemNames: not a key of a submission; expected one of"),
    ],
)
def test_a_mistyped_form_field_is_refused_before_anything_is_reserved(
    server, field: str, said: str
) -> None:
    before = len(server.storage.experiments.listing(include_private=True))
    data = {"dataset": "demo", field: "exact"}
    refused = server.post("api/experiments", files=_files(), data=data)
    assert refused.status_code == 400, refused.text
    assert said in refused.json()["error"], refused.text
    assert len(server.storage.experiments.listing(include_private=True)) == before


def test_the_documented_form_fields_are_accepted(server) -> None:
    """Every field the served OpenAPI's SubmissionForm names is one the check lets through,
    the call settings among them, and no other."""
    from service.call_settings import CALLED
    from service.web.submission import form_fields

    document = server.get("api/openapi.json").json()
    form = document["components"]["schemas"]["SubmissionForm"]["properties"]
    assert set(form) == form_fields() and CALLED.keys() <= form_fields()
    data = {"dataset": "demo", "profile": "exact", "answers_name": "typed", "retries": "1"}
    accepted = server.post("api/experiments", files=_files(), data=data)
    assert accepted.status_code == 202, accepted.text
    ticket = accepted.json()
    state = server.wait_finished(ticket["id"], ticket["token"])
    assert [e["profile"] for e in state["evaluations"]] == ["exact"]
    assert [e["system"] for e in state["evaluations"]] == ["typed"]


def test_more_system_names_than_answer_files_are_refused(server) -> None:
    """Three names in the names box for one file (the file picker kept one of three): B and C
    were dropped without a word, and the run went on with one system. Fewer names than files
    stay allowed (the others are named after their files, as the run page says)."""
    import html

    before = len(server.storage.experiments.listing(include_private=True))
    data = {"dataset": "demo", "answers_name": "A\nB\nC\n"}
    for path in ("api/experiments", "experiments/new"):  # the API and the run page
        refused = server.post(path, files=_files(), data=data)
        assert refused.status_code == 400, refused.text[:400]
        said = refused.json()["error"] if path.startswith("api/") else html.unescape(refused.text)
        assert "answers_name (the systems' names, one a line in the files' order): 3 names " in said
        assert "for 1 answer file; attach each system's file" in said
    assert len(server.storage.experiments.listing(include_private=True)) == before
    path = DEMO_DIR / "answers-partial.json"
    two = [*_files(), ("answers", (path.name, path.read_bytes()))]
    fewer = server.post("api/experiments", files=two, data={"dataset": "demo", "answers_name": "A"})
    assert fewer.status_code == 202, fewer.text
    state = server.wait_finished(fewer.json()["id"], fewer.json()["token"])
    assert {e["system"] for e in state["evaluations"]} == {"A", "answers-partial"}
