"""explore34's attacker findings, each against a real server: who may publish a newer version
of a dataset (1), a web service's key in its URL (12), an operator's named KB file (13), a
frozen board's title (7), lookalike system names (3), a withheld test set's private runs (9)."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from typing import Any

import pytest

from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server

PORT = 18700
QUESTIONS = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))


def _dataset(tag: str) -> str:
    """The demo's questions as a dataset of their own (other bytes: another upload)."""
    data = json.loads(json.dumps(QUESTIONS))
    data["dataset"]["id"] = f"explore34-{tag}"
    return json.dumps(data)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("explore34"), port=PORT)
    yield running
    stop_server(running)


def _run(site: Server, body: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Submit, wait, publish: the ticket (id, token, uri) and the published dataset's name."""
    made = site.post("api/experiments", json=body, **kwargs)
    assert made.status_code == 202, made.text
    ticket = made.json()
    site.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    published = site.post(f"api/experiments/{ticket['id']}/publish", headers=auth)
    assert published.status_code == 200, published.text
    status = site.get(f"api/experiments/{ticket['id']}").json()
    return {**ticket, "dataset": status["dataset"].rsplit("/", 1)[1], "auth": auth}


def test_only_an_uploads_author_publishes_its_newer_version(site: Server) -> None:
    """Anyone could publish a "newer version" of another's upload, even of the server's demo,
    and its page, citation and runs said "its author published it" (explore34 1)."""
    author = _run(
        site,
        {
            "dataset": {"filename": "v1.json", "content": _dataset("v1")},
            "title": "Author's QA",
            "about": {"version": "1"},
            "systems": [{"name": "g", "reference": "gold-sparql"}],
            "kb": "demo",
        },
    )
    newer = {
        "dataset": {"filename": "v2.json", "content": _dataset("v2")},
        "title": "Official v2 by the original authors",
        "about": {"previousVersion": author["dataset"], "version": "2"},
        "systems": [{"name": "g", "reference": "gold-sparql"}],
        "kb": "demo",
    }
    stranger = site.post("api/experiments", json=newer)
    assert stranger.status_code == 403, stranger.text
    said = stranger.json()["problems"][0]
    assert said["path"] == "$.about.previousVersion"
    assert "only its author" in said["message"] and "owner token" in said["message"]
    # a rival's own token is no better
    rival = _run(
        site,
        {
            "dataset": author["dataset"],
            "systems": [{"name": "r", "reference": "gold-sparql"}],
            "kb": "demo",
        },
    )
    assert site.post("api/experiments", json=newer, headers=rival["auth"]).status_code == 403
    page = site.get(f"dataset/{author['dataset']}").text
    assert "newer version" not in page.lower()
    made = site.post("api/experiments", json=newer, headers=author["auth"])
    assert made.status_code == 202, made.text
    # one line of versions (explore36 5): published, v2 is v1's newer version; a second
    # "newer version" of v1 is refused naming v2, and v1's author (a browser holding only v1's
    # owner link) publishes v3 after v2 without v2's token
    v2 = made.json()
    site.wait_finished(v2["id"], v2["token"])
    v2_auth = {"Authorization": f"Bearer {v2['token']}"}
    assert site.post(f"api/experiments/{v2['id']}/publish", headers=v2_auth).status_code == 200
    v2_name = site.get(f"api/experiments/{v2['id']}").json()["dataset"].rsplit("/", 1)[1]
    branch = {**newer, "dataset": {"filename": "v3.json", "content": _dataset("v3")}}
    forked = site.post("api/experiments", json=branch, headers=author["auth"])
    assert forked.status_code == 409, forked.text
    assert f"dataset/{v2_name}: name that one" in forked.json()["problems"][0]["message"]
    v3 = {**branch, "about": {"previousVersion": v2_name, "version": "3"}}
    assert site.post("api/experiments", json=v3, headers=rival["auth"]).status_code == 403
    assert site.post("api/experiments", json=v3, headers=author["auth"]).status_code == 202
    # the server's demo dataset: nobody's version
    demo = next(
        d["name"]
        for d in site.get("api/datasets").json()["datasets"]
        if d["name"].startswith("gerbil-qa-demo-")
    )
    body = {
        **newer,
        "dataset": {"filename": "d2.json", "content": _dataset("d2")},
        "about": {"previousVersion": demo},
    }
    refused = site.post("api/experiments", json=body)
    assert refused.status_code == 403, refused.text
    assert "built-in demo dataset" in refused.json()["problems"][0]["message"]


@pytest.mark.parametrize(
    "query",
    ["api_key=SECRETKEY123&lang=en", "lang=en&Token=SECRETKEY123", "x-api-key=SECRETKEY123",
     "access_token=SECRETKEY123", "subscription-key=SECRETKEY123", "password=SECRETKEY123"],
)  # fmt: skip
def test_a_key_in_a_service_urls_query_is_refused_as_user_info_is(site: Server, query: str) -> None:
    """A key in a web service's query string was accepted and published with the URL (its
    system page, RDF, SPARQL), where user-info was refused (explore34 12)."""
    url = f"http://127.0.0.1:{PORT + 9}/qa?{query}"
    got = site.post(
        "api/experiments", json={"dataset": "demo", "systems": [{"name": "k", "url": url}]}
    )
    assert got.status_code == 400, got.text
    said = got.json()["problems"][0]
    assert said["path"] == "$.systems[0].url", said
    assert "secret request header" in said["message"] and "SECRETKEY123" not in got.text
    form = site.post("experiments/new", data={"dataset": "demo", "webservice": f"k={url}"})
    assert form.status_code == 400  # the form comes back filled in as sent (its own)
    assert "secret request header" in form.text


def test_a_service_url_with_other_parameters_is_taken(site: Server) -> None:
    url = f"http://127.0.0.1:{PORT + 9}/qa?lang=en&monkey=1"
    got = site.post(
        "api/experiments", json={"dataset": "demo", "systems": [{"name": "p", "url": url}]}
    )
    assert got.status_code == 202, got.text
    auth = {"Authorization": f"Bearer {got.json()['token']}"}
    site.post(f"api/experiments/{got.json()['id']}/cancel", headers=auth)


SECRET_KB = """@prefix ex: <http://example.org/> .
ex:a ex:says "SECRET-KB-CONTENT proprietary" .
ex:b ex:says "{tag}" .
"""


def test_an_operators_named_kb_file_is_served_only_when_the_operator_says_so(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A KB the operator configures became a public download once anyone published a run
    naming it (explore34 13): described, its file served only if GERBIL_QA_PUBLIC_KBS lists it."""
    import hashlib

    folder = tmp_path_factory.mktemp("kbs")
    secret, shared = folder / "secret.ttl", folder / "shared.ttl"
    secret.write_text(SECRET_KB.format(tag="secret"), encoding="utf-8")
    shared.write_text(SECRET_KB.format(tag="shared"), encoding="utf-8")
    site = start_server(
        tmp_path_factory.mktemp("kb-store"),
        port=PORT + 1,
        kbs=f"secretkb={secret};sharedkb={shared}",
        public_kbs="sharedkb",
    )
    try:
        for kb, path, served in (
            ("secretkb", secret, False),
            ("sharedkb", shared, True),
            ("demo", DEMO_DIR / "kb.ttl", True),
        ):
            run = _run(
                site,
                {
                    "dataset": "demo",
                    "kb": kb,
                    "systems": [{"name": f"p-{kb}", "reference": "baseline"}],
                },
            )
            sha = hashlib.sha256(path.read_bytes()).hexdigest()
            page = site.get(f"experiment/{run['id']}").text
            assert sha in page  # described: its checksum is on the page
            got = site.get(f"experiment/{run['id']}/file/{sha}")
            link = f"/file/{sha}"
            script = html.unescape(page.split('id="reproduce-script"', 1)[1].split("</pre>")[0])
            if served:
                assert got.status_code == 200, (kb, got.text[:300])
                assert got.content == path.read_bytes()
                assert link in page and link in script  # linked, and downloaded by the script
            else:
                assert got.status_code == 403, (kb, got.text[:300])
                assert "SECRET-KB-CONTENT" not in got.text
                assert "GERBIL_QA_PUBLIC_KBS" in got.text
                # no link to a 403: the page says whose it is, the script asks the reader for
                # it and still checks its SHA-256
                assert link not in page and link not in script
                assert f"knowledge base {kb}, which this service's operator configures" in page
                assert "put it here" in script and f"{sha}  " in script
    finally:
        stop_server(site)


def test_a_later_freeze_under_another_title_is_told_the_first_ones(site: Server) -> None:
    """The first freezer's title named the standings for everyone; a later freezer's title was
    dropped without a word (explore34 7)."""
    demo = next(
        d["name"]
        for d in site.get("api/datasets").json()["datasets"]
        if d["name"].startswith("gerbil-qa-demo-")
    )
    first = site.post("api/leaderboards", json={"dataset": demo, "title": "Squatter's board"})
    assert first.status_code in (200, 201), first.text
    assert "alreadyFrozen" not in first.json()
    again = site.post("api/leaderboards", json={"dataset": demo, "title": "Organiser's board"})
    assert again.status_code == 200, again.text
    said = again.json()
    assert said["uri"] == first.json()["uri"] and said["title"] == "Squatter's board"
    assert "frozen already" in said["alreadyFrozen"]
    assert "Squatter's board" in said["alreadyFrozen"]
    assert "Organiser's board" in said["alreadyFrozen"]
    # the same title, or none, is no other claim
    for body in ({"dataset": demo, "title": " Squatter's  board "}, {"dataset": demo}):
        same = site.post("api/leaderboards", json=body)
        assert same.status_code == 200 and "alreadyFrozen" not in same.json(), same.text


def test_lookalike_names_and_a_doubled_space_are_refused(site: Server) -> None:
    """ɡ (script g), ꜱ (small capital s), Coptic ⲟ and Lisu ꓓ made three "demo-strong" rows,
    each ranked 1st; "alpha  beta" was a system of its own shown as "alpha beta" (explore34 3):
    refused, as it reads as another's."""
    answers = (DEMO_DIR / "answers-strong.json").read_text(encoding="utf-8")
    for name in ("demo-stron\u0261", "\ua4d3emo-strong", "demo-str\u2c9fng", "demo-\ua731trong"):
        got = site.post(
            "api/experiments",
            json={"dataset": "demo", "systems": [{"name": name, "answers": answers}]},
        )
        assert got.status_code == 400, (name, got.text)
        assert got.json()["problems"][0]["path"] == "$.systems[0].name"
    doubled = site.post(
        "api/experiments",
        json={"dataset": "demo", "systems": [{"name": "alpha  beta", "answers": answers}]},
    )
    assert doubled.status_code == 400, doubled.text
    assert "a run of spaces" in doubled.json()["problems"][0]["message"]


def test_the_organiser_sees_every_run_on_a_withheld_test_set_private_ones_too(
    site: Server,
) -> None:
    """A withheld test set was an unlimited private score oracle that nobody saw: each private
    run's measures tell its owner which guesses are right (explore34 9). Its organiser lists
    every recorded run on it, private ones too, with their times and systems."""
    from tests.web.test_hidden_gold import _answers, _published_test_set, _submit

    organiser, name, _ = _published_test_set(site, "oracle")
    guesses = [
        _submit(
            site,
            {
                "dataset": name,
                "profile": "exact",
                "systems": [{"name": f"guess-{i}", "answers": _answers({i}).decode()}],
            },
        )
        for i in (1, 2)
    ]
    path = f"api/datasets/{name}/runs"
    got = site.get(path, headers={"Authorization": f"Bearer {organiser['token']}"})
    assert got.status_code == 200, got.text
    listed = {r["id"]: r for r in got.json()["runs"]}
    assert got.json()["count"] == 3 and organiser["id"] in listed
    for i, guess in zip((1, 2), guesses, strict=True):
        row = listed[guess["id"]]
        assert row["public"] is False and row["systems"] == [f"guess-{i}"] and row["created"]
    assert "measures" not in got.text and "ORACLE-GOLD" not in got.text
    # a team, or anyone, is not the organiser
    for headers in ({"Authorization": f"Bearer {guesses[0]['token']}"}, {}):
        refused = site.get(path, headers=headers)
        assert refused.status_code == 403 and "organiser" in refused.text
    assert site.get("api/datasets/no-such-set-1234abcd/runs").status_code == 404
