"""A resubmission: a team runs its system again and the new run replaces its earlier one
(``revisionOf`` in a submission). Before, only a re-scoring could be a revision, so a team's
improved run stood beside its old one in every leaderboard, and nothing linked the two."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import rdflib
import requests

from service.paths import DEMO_DIR
from tests.web.conftest import Server

REVISES = rdflib.URIRef("http://www.w3.org/ns/prov#wasRevisionOf")


def _files(answers: str, dataset: str = "questions.json") -> list[tuple[str, tuple[str, bytes]]]:
    return [
        ("dataset_file", (dataset, (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", ("team.json", (DEMO_DIR / f"answers-{answers}.json").read_bytes())),
    ]


def _strong() -> str:
    return (DEMO_DIR / "answers-strong.json").read_text(encoding="utf-8")


@pytest.fixture
def mirror(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> None:
    """The catalogue's local mirror: the server reads PolEval's dev-0 from it, never downloads
    it (CI has no internet and sets no GERBIL_QA_DATA)."""
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))


def _submit(server: Server, answers: str, **data: str) -> dict:
    headers = {}
    if "token" in data:
        headers["Authorization"] = f"Bearer {data.pop('token')}"
    response = server.post(
        "api/experiments",
        files=_files(answers),
        data={"profile": "fair", "kb": "demo", **data},
        headers=headers,
    )
    assert response.status_code == 202, response.text
    return response.json()


def _published(server: Server, answers: str, **data: str) -> tuple[dict, dict[str, str]]:
    """A run submitted (:func:`_submit`), finished and published: its ticket and owner header."""
    ticket = _submit(server, answers, **data)
    server.wait_finished(ticket["id"], ticket["token"])
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{ticket['id']}/publish", headers=owner).ok
    return ticket, owner


def _ranked(server: Server) -> set[str]:
    board = server.get("leaderboards", params={"dataset": "all", "size": "500", "format": "json"})
    assert board.status_code == 200, board.text
    return {row["experiment"] for row in board.json()["rows"]}


def test_a_resubmission_replaces_the_teams_earlier_run(server: Server) -> None:
    first = _submit(server, "partial")
    server.wait_finished(first["id"], first["token"])
    owner = {"Authorization": f"Bearer {first['token']}"}
    assert server.post(f"api/experiments/{first['id']}/publish", headers=owner).ok
    assert first["uri"] in _ranked(server)

    # only its owner replaces it
    refused = server.post(
        "api/experiments",
        files=_files("strong"),
        data={"profile": "fair", "kb": "demo", "revisionOf": first["id"]},
    )
    assert refused.status_code == 403 and "owner token" in refused.json()["error"]

    second = _submit(server, "strong", revisionOf=first["id"], token=first["token"])
    state = server.wait_finished(second["id"], second["token"])
    assert state["revisionOf"] == [first["id"]]
    [system] = state["changes"]["systems"]  # what the new answers changed, per question
    assert system["questions"], system
    mine = {"Authorization": f"Bearer {second['token']}"}
    assert first["uri"] in _ranked(server)  # the new one is private: the old one stands
    assert server.post(f"api/experiments/{second['id']}/publish", headers=mine).ok
    ranked = _ranked(server)
    assert second["uri"] in ranked and first["uri"] not in ranked
    # the old URI stays citable and names what replaced it
    old = server.get(f"experiment/{first['id']}", headers={"Accept": "text/turtle"})
    assert old.status_code == 200
    graph = rdflib.Graph().parse(data=old.text, format="turtle")
    assert set(graph.subjects(REVISES, rdflib.URIRef(first["uri"]))) == {
        rdflib.URIRef(second["uri"])
    }
    status = server.get(f"api/experiments/{first['id']}").json()
    assert status["revisedBy"] == [second["id"]]
    # the pages link both ways without calling a new run a re-scoring (they did)
    for shown in (first, second):
        page = server.get(f"experiment/{shown['id']}").text
        assert "revision-of" in page or "revised-by" in page
        assert "re-scored:" not in page and "Re-scored as" not in page
    assert "<dt>Revised by</dt>" in server.get(f"experiment/{first['id']}").text
    # replaced once under this profile: a second resubmission of the old run would stand in
    # the leaderboards beside the first (both revise it); the newest one is resubmitted
    twice = server.post(
        "api/experiments",
        files=_files("partial"),
        data={"profile": "fair", "kb": "demo", "revisionOf": first["id"]},
        headers=owner,
    )
    assert twice.status_code == 409, twice.text
    assert f"revisionOf {second['id']}" in twice.json()["error"]
    other_profile = _submit(
        server, "partial", revisionOf=first["id"], token=first["token"], profile="exact"
    )  # another view of the answers: the fair revision does not stand in its place
    server.wait_finished(other_profile["id"], other_profile["token"])


def test_what_a_resubmission_cannot_replace_is_said(server: Server, slow_qa: str) -> None:
    done = _submit(server, "partial")
    server.wait_finished(done["id"], done["token"])
    token = done["token"]

    def resubmit(**data: str):
        return server.post(
            "api/experiments",
            json={
                "dataset": "demo",
                "kb": "demo",
                "systems": [{"name": "s", "url": slow_qa + "delay/0.1"}],
                **data,
            },
            headers={"Authorization": f"Bearer {token}"},
        )

    # the demo by name is the uploaded questions file: the same bytes, the same dataset
    same = resubmit(revisionOf=done["id"])
    assert same.status_code == 202, same.text
    other = resubmit(revisionOf=done["id"], dataset="qald-9-test-multilingual")
    assert other.status_code == 400, other.text
    said = other.json()
    assert "$.revisionOf" in said["error"] and "qald-9-test-multilingual" in said["error"]
    assert 'on the run page in "Dataset"' in said["error"], said  # the field to change
    bad = resubmit(revisionOf="last-week")
    assert bad.status_code == 400 and "expected an experiment id" in bad.json()["error"]
    unknown = resubmit(revisionOf="202001010001")
    assert unknown.status_code == 404, unknown.text
    # an experiment still running is not replaced
    slow = server.post(
        "api/experiments",
        json={
            "dataset": "demo",
            "kb": "demo",
            "systems": [{"name": "s", "url": slow_qa + "delay/2"}],
            "concurrency": 1,
        },
    ).json()
    token = slow["token"]
    late = resubmit(revisionOf=slow["id"])
    assert late.status_code == 409 and "only a finished experiment" in late.json()["error"]
    for ticket in (slow, same.json()):
        server.post(
            f"api/experiments/{ticket['id']}/cancel",
            headers={"Authorization": f"Bearer {ticket['token']}"},
        )
    schema = server.get("api/openapi.json").json()["components"]["schemas"]["Submission"]
    assert "revisionOf" in schema["properties"]


def test_the_run_page_resubmits_for_the_browser_that_owns_the_run(server: Server) -> None:
    """The form's field: the browser that submitted the old run holds its owner cookie."""
    first = _submit(server, "partial")
    server.wait_finished(first["id"], first["token"])
    page = server.get(
        f"experiment/{first['id']}", cookies={f"gqa_owner_{first['id']}": first["token"]}
    )
    assert f'href="/experiments/new?revisionOf={first["id"]}" id="resubmit"' in page.text
    form = server.get("experiments/new", params={"revisionOf": first["id"]}).text
    assert 'name="revisionOf" size="12"' in form and f'value="{first["id"]}"' in form
    data = {"dataset": "demo", "revisionOf": first["id"]}
    files = [("answers", ("team.json", (DEMO_DIR / "answers-strong.json").read_bytes()))]
    stranger = server.post("experiments/new", data=data, files=files)
    assert stranger.status_code == 403 and "owner token" in stranger.text
    cookie = {f"gqa_owner_{first['id']}": first["token"]}
    forged = server.post("experiments/new", data=data, files=files, cookies=cookie)
    assert forged.status_code == 403  # the cookie alone: the form's check is needed too
    form = server.get("experiments/new", params={"revisionOf": first["id"]}, cookies=cookie).text
    check = re.search(rf'name="check-{first["id"]}" value="([0-9a-f]+)"', form)
    assert check, "the owner's run form holds no check"
    data[f"check-{first['id']}"] = check.group(1)
    owned = server.post("experiments/new", data=data, files=files, cookies=cookie)
    assert owned.status_code == 303, owned.text[:2000]
    new_id = owned.headers["Location"].rsplit("/", 1)[-1]
    token = owned.cookies.get(f"gqa_owner_{new_id}", path="/experiment/")
    assert server.wait_finished(new_id, token)["revisionOf"] == [first["id"]]


class _RunForm(HTMLParser):
    """What the run page's form sends as it is shown: each named field's values (a checkbox
    when ticked, a select's selected option or else its first, a textarea's text; no files)."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, list[str]] = {}
        self.inside = False
        self.select: tuple[str, list[str], list[str]] | None = None  # name, options, selected
        self.textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        values = dict(attrs)
        if tag == "form" and values.get("id") == "run-form":
            self.inside = True
        name = values.get("name")
        if not self.inside:
            return
        if tag == "input" and name and values.get("type") != "file":
            if values.get("type") != "checkbox" or "checked" in values:
                self.fields.setdefault(name, []).append(values.get("value") or "")
        elif tag == "select" and name:
            self.select = (name, [], [])
        elif tag == "option" and self.select is not None:
            self.select[1].append(values.get("value") or "")
            if "selected" in values:
                self.select[2].append(values.get("value") or "")
        elif tag == "textarea" and name:
            self.textarea = name
            self.fields[name] = [""]

    def handle_data(self, data: str) -> None:
        if self.textarea is not None:
            self.fields[self.textarea][0] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select" and self.select is not None:
            name, options, selected = self.select
            self.fields[name] = selected[:1] or options[:1]
            self.select = None
        elif tag == "textarea":
            self.textarea = None


def _run_form(server: Server, revision: str, **cookies: str) -> tuple[dict[str, list[str]], str]:
    """The run form of "Run it again to replace it" as a browser with ``cookies`` gets it."""
    response = server.get("experiments/new", params={"revisionOf": revision}, cookies=cookies)
    assert response.status_code == 200, response.text
    form = _RunForm()
    form.feed(response.text)
    return form.fields, response.text


def _post_back(server: Server, fields: dict[str, list[str]], files: list, **cookies: str):
    """The form sent as shown, with ``files`` chosen (what a browser cannot fill in)."""
    data = [(k, v) for k, values in fields.items() for v in values]
    return server.post("experiments/new", data=data, files=files, cookies=cookies)


def test_the_run_again_form_is_filled_from_the_run_it_replaces(
    server: Server, slow_qa: str
) -> None:
    # Before: only revisionOf was filled in; the list's default demo was refused as another
    # dataset than the experiment's, and profile, language, types and systems were lost
    body = {
        "dataset": "demo",
        "systems": [
            {"name": "Team A", "answers": {"filename": "a.json", "content": _strong()}},
            {"name": "svc", "url": f"{slow_qa}delay/0"},
            {"reference": "baseline"},
        ],
        "profile": "exact",
        "language": "en",
        "experimentTypes": ["QA"],
        "concurrency": 2,
    }
    first = server.post("api/experiments", json=body).json()
    server.wait_finished(first["id"], first["token"])
    owner = {f"gqa_owner_{first['id']}": first["token"]}
    fields, page = _run_form(server, first["id"], **owner)
    shown = {k: v for k, v in fields.items() if any(v) and not k.startswith("check-")}
    assert fields[f"check-{first['id']}"], "the owner's form holds its check (explore34 11)"
    assert shown == {
        "dataset": ["demo"],
        "answers_name": ["Team A"],
        "webservice": [f"svc={slow_qa}delay/0"],
        "reference": ["baseline"],
        "concurrency": ["2"],
        "kb": ["demo"],
        "profile": ["exact"],
        "language": ["en"],
        "experiment_type": ["QA"],
        "revisionOf": [first["id"]],
    }, shown
    assert 'id="revision-notice"' in page and "Choose the new answer files" in page
    again = server.get("experiments/new", params={"revisionOf": first["id"]}, cookies=owner)
    assert again.headers["Cache-Control"] == "private, no-store"  # its owner's details
    assert "dataset file again" not in page  # the demo is in the list
    # nobody else sees what it ran: the form as anyone gets it, the link's id in it alone
    other = server.submit_demo(systems=("partial",))
    for cookies in ({}, {f"gqa_owner_{other['id']}": other["token"]}):
        fields, page = _run_form(server, first["id"], **cookies)
        assert "Team A" not in page and slow_qa not in page and 'id="revision-notice"' not in page
        # the profile left to the dataset's own (what the API does with none named)
        assert fields["profile"] == [""] and fields["revisionOf"] == [first["id"]]
    # the form sent back as filled in, a new answer file chosen: the run replaces the old one
    new = [("answers", ("team-v2.json", _strong().encode()))]
    owned = _post_back(server, _run_form(server, first["id"], **owner)[0], new, **owner)
    assert owned.status_code == 303, owned.text[:3000]
    new_id = owned.headers["Location"].rsplit("/", 1)[-1]
    token = owned.cookies.get(f"gqa_owner_{new_id}", path="/experiment/")
    state = server.wait_finished(new_id, token)
    assert state["revisionOf"] == [first["id"]]
    rows = {(r["system"].rsplit("/", 1)[-1], r["profile"], r["language"]) for r in state["results"]}
    assert rows == {
        ("Team%20A", "exact", "en"),
        ("svc", "exact", "en"),
        ("baseline", "exact", "en"),
    }
    assert {r["experimentType"] for r in state["results"]} == {"QA"}


def test_the_form_filled_from_a_finished_run_keeps_a_references_name(server: Server) -> None:
    """``?from=ID`` on a finished run said "that one ended without results" (explore-11 10), and
    a reference system named ``gold`` came back as the ``baseline`` box (explore-11 12)."""
    body = {
        "dataset": "demo",
        "systems": [
            {"name": "Team A", "answers": {"filename": "a.json", "content": _strong()}},
            {"name": "gold", "reference": "baseline"},
        ],
    }
    first = server.post("api/experiments", json=body).json()
    server.wait_finished(first["id"], first["token"])
    owner = {f"gqa_owner_{first['id']}": first["token"]}
    page = server.get("experiments/new", params={"from": first["id"]}, cookies=owner).text
    assert "(a new experiment: it does not replace that one)" in page
    assert "ended without results" not in page
    form = _RunForm()
    form.feed(page)
    assert form.fields["reference"] == ["gold=baseline"] and "named <code>gold</code>" in page
    new = [("answers", ("team-v2.json", _strong().encode()))]
    sent = _post_back(server, form.fields, new, **owner)
    assert sent.status_code == 303, sent.text[:3000]
    new_id = sent.headers["Location"].rsplit("/", 1)[-1]
    token = sent.cookies.get(f"gqa_owner_{new_id}", path="/experiment/")
    state = server.wait_finished(new_id, token)
    assert {r["systemLabel"] for r in state["results"]} == {"Team A", "gold"}


def test_the_run_again_form_asks_for_an_uploaded_dataset_file_again(server: Server) -> None:
    # the demo's questions in other bytes: an upload of their own, not the demo
    questions = json.dumps(json.loads((DEMO_DIR / "questions.json").read_bytes()), indent=2)
    files = [
        ("dataset_file", ("mine.json", questions.encode())),
        ("answers", ("team.json", _strong().encode())),
    ]
    response = server.post(
        "api/experiments", files=files, data={"kb": "demo", "title": "Solar copy"}
    )
    first = response.json()
    server.wait_finished(first["id"], first["token"])
    owner = {f"gqa_owner_{first['id']}": first["token"]}
    fields, page = _run_form(server, first["id"], **owner)
    assert (fields["dataset"], fields["title"], fields["kb"]) == ([""], ["Solar copy"], ["demo"])
    notice = page.split('id="revision-notice"')[1].split("</div>")[0]
    assert "Choose its dataset file again" in notice and "<code>mine.json</code>" in notice
    owned = _post_back(server, fields, files, **owner)  # the same file chosen again
    assert owned.status_code == 303, owned.text[:3000]


@pytest.mark.usefixtures("mirror")
def test_the_run_again_form_picks_the_catalogue_dataset(server: Server, data_dir: Path) -> None:
    dev0 = data_dir / "poleval2021" / "dev-0" / "expected.tsv"
    answers = "".join(line.split("\t")[0] + "\n" for line in dev0.read_text().splitlines())
    first = server.post(
        "api/experiments",
        data={"dataset": "poleval-2021-qa-dev-0", "profile": "poleval"},
        files={"answers": ("answers.tsv", answers.encode())},
    ).json()
    server.wait_finished(first["id"], first["token"])
    fields, _ = _run_form(server, first["id"], **{f"gqa_owner_{first['id']}": first["token"]})
    assert (fields["dataset"], fields["profile"]) == (["poleval-2021-qa-dev-0"], ["poleval"])
    assert fields["answers_name"] == ["answers"]


def test_an_unpublished_or_withdrawn_revision_is_not_resubmitted(server: Server) -> None:
    """A ← B ← C where B is not in the public graphs (private, or withdrawn): nothing public
    said B replaced A, so once C was published the leaderboards showed A and C side by side
    (the run page of a private B linked exactly that resubmission)."""
    first, _ = _published(server, "partial")
    second = _submit(server, "strong", revisionOf=first["id"], token=first["token"])
    server.wait_finished(second["id"], second["token"])

    def resubmit(old: dict) -> requests.Response:
        return server.post(
            "api/experiments",
            files=_files("partial"),
            data={"profile": "fair", "kb": "demo", "revisionOf": old["id"]},
            headers={"Authorization": f"Bearer {old['token']}"},
        )

    private = resubmit(second)
    assert private.status_code == 409, private.text
    said = private.json()["error"]
    assert "not published" in said and f"revisionOf {first['id']}" in said
    # on its (private) page, the link resubmits what it replaces
    page = server.get(
        f"experiment/{second['id']}", cookies={f"gqa_owner_{second['id']}": second["token"]}
    )
    assert f'href="/experiments/new?revisionOf={first["id"]}" id="resubmit"' in page.text

    mine = {"Authorization": f"Bearer {second['token']}"}
    assert server.post(f"api/experiments/{second['id']}/publish", headers=mine).ok
    withdrawn = server.post(
        f"api/experiments/{second['id']}/withdraw", json={"reason": "a bug"}, headers=mine
    )
    assert withdrawn.ok, withdrawn.text
    assert first["uri"] in _ranked(server)  # its replacement withdrawn, the old one is back
    again = resubmit(second)
    assert again.status_code == 409, again.text
    assert "withdrawn" in again.json()["error"]
    assert first["id"] in again.json()["error"]


def test_a_rescoring_revises_the_newest_of_its_line(server: Server) -> None:
    """Re-scoring follows the resubmissions' rule: an experiment a published revision already
    replaced under the profile is not re-scored again (both revisions were ranked), nor is an
    unpublished revision (what it revises stayed ranked beside the new one)."""
    first, owner = _published(server, "partial")
    path = f"api/experiments/{first['id']}/rescore"
    revision = server.post(path, json={"profile": "exact"}, headers=owner).json()
    mine = {"Authorization": f"Bearer {revision['token']}"}
    server.wait_finished(revision["id"], revision["token"])
    private = server.post(f"api/experiments/{revision['id']}/rescore", json={}, headers=mine)
    assert private.status_code == 409 and "is not published" in private.json()["error"]
    assert server.post(f"api/experiments/{revision['id']}/publish", headers=mine).ok
    again = server.post(path, json={"profile": "exact"}, headers=owner)
    assert again.status_code == 409, again.text
    assert f"re-score that one instead ({revision['id']})" in again.json()["error"]
    other = server.post(path, json={"profile": "gerbil"}, headers=owner)  # another view
    assert other.status_code == 202, other.text
    newest = server.post(f"api/experiments/{revision['id']}/rescore", json={}, headers=mine)
    assert newest.status_code == 202, newest.text


def test_replaced_answers_are_not_re_scored_under_another_profile(server: Server) -> None:
    """A team's run (partial answers) replaced by its resubmission (strong answers): under
    another profile, where nothing of the line stood yet, the replaced answers were re-scored
    and, published first, ranked there; the newer ones' re-scoring was then refused, its 409
    advising to re-score the old ones again (explore-20 15). Now the replaced run's re-scoring
    is refused naming the run whose answers replaced it, which is re-scored."""
    first, owner = _published(server, "partial")
    newer, mine = _published(server, "strong", revisionOf=first["id"], token=first["token"])
    old = server.post(
        f"api/experiments/{first['id']}/rescore", json={"profile": "gerbil"}, headers=owner
    )
    assert old.status_code == 409, old.text
    said = old.json()["error"]
    assert f"replaced by experiment {newer['id']}'s" in said and f"({newer['id']})" in said
    moved = server.post(
        f"api/experiments/{newer['id']}/rescore", json={"profile": "gerbil"}, headers=mine
    )
    assert moved.status_code == 202, moved.text


def test_a_private_experiments_rdf_names_its_published_revision(server: Server) -> None:
    """Its owner's page linked the published revision; its RDF did not (the private store
    holds none of the revision's triples), so a client of the owner's view learnt nothing."""
    first = _submit(server, "partial")
    server.wait_finished(first["id"], first["token"])
    second = _submit(server, "strong", revisionOf=first["id"], token=first["token"])
    server.wait_finished(second["id"], second["token"])
    mine = {"Authorization": f"Bearer {second['token']}"}
    assert server.post(f"api/experiments/{second['id']}/publish", headers=mine).ok
    owner = {f"gqa_owner_{first['id']}": first["token"]}
    old = server.get(f"experiment/{first['id']}.ttl", cookies=owner)
    assert old.status_code == 200, old.text
    graph = rdflib.Graph().parse(data=old.text, format="turtle")
    assert set(graph.subjects(REVISES, rdflib.URIRef(first["uri"]))) == {
        rdflib.URIRef(second["uri"])
    }
    # the quad syntaxes say it in the revision's own graph, as the public copy would
    quads = server.get(f"experiment/{first['id']}.nq", cookies=owner).text
    in_its_graph = f"<{second['uri']}> <{REVISES}> <{first['uri']}> <{server.url}graph/experiment/"
    assert f"{in_its_graph}{second['id']}> ." in quads, quads
    assert server.get(f"experiment/{first['id']}.ttl").status_code in (401, 403, 404)
    # its public revision links it nowhere public (the private page answers 403): not in the
    # leaderboard's row, the revision's page or its status as anyone reads them
    rows = server.get("leaderboards", params={"dataset": "all", "size": "500", "format": "json"})
    [row] = [r for r in rows.json()["rows"] if r["experiment"] == second["uri"]]
    assert row["revisionOf"] is None, row
    page = server.get(f"experiment/{second['id']}").text
    assert f"/experiment/{first['id']}" not in page
    assert server.get(f"api/experiments/{second['id']}").json()["revisionOf"] == []
    assert server.get(f"api/experiments/{second['id']}", headers=mine).json()["revisionOf"] == [
        first["id"]
    ]


def test_a_run_an_older_version_left_fills_the_form_it_is_submitted_again_with(
    server: Server,
) -> None:
    """A run an older version saved (one ``job.json``) cannot be resumed; its page links the run
    form "filled in from it". Before, that form was blank (the job's layout unread): now it has
    the job's catalogue dataset, profile, language and web services."""
    from service.experiments.jobs import JOBS, LEGACY_JOB
    from service.web.state import EXTENSION

    experiments = server.storage.experiments
    old = experiments.reserve()
    experiments.set_status(old.id, "queued")
    experiments.set_status(old.id, "running")
    job = {
        "__type__": "ExperimentJob",
        "experiment_id": old.id,
        "dataset": {"__type__": "Dataset", "id": "qald-9-test-multilingual", "questions": []},
        "dataset_name": "qald-9-test-multilingual",
        "catalogued": True,
        "systems": [{"__type__": "SystemSpec", "name": "svc", "url": "http://127.0.0.1:9/"}],
        "profile": "exact",
        "language": "de",
    }
    server.storage.workspace.write({f"{JOBS}/{old.id}/{LEGACY_JOB}": json.dumps(job).encode()})
    runner = server.app.extensions[EXTENSION].runner
    experiments.set_status(old.id, "error", message=runner.unresumable(old.id))
    owner = {f"gqa_owner_{old.id}": old.token}
    page = server.get(f"experiment/{old.id}", cookies=owner).text
    assert "older version of gerbil-qa" in page and "job.json" not in page
    response = server.get("experiments/new", params={"from": old.id}, cookies=owner)
    form = _RunForm()
    form.feed(response.text)
    assert form.fields["dataset"] == ["qald-9-test-multilingual"]
    assert (form.fields["profile"], form.fields["language"]) == (["exact"], ["de"])
    assert form.fields["webservice"] == ["svc=http://127.0.0.1:9/"]
    stranger = server.get("experiments/new", params={"from": old.id})  # nobody else's
    other = _RunForm()
    other.feed(stranger.text)
    assert other.fields.get("webservice", [""]) == [""]


def test_a_published_runs_page_offers_its_owner_to_run_it_again(server: Server) -> None:
    """The link was on private pages only, though what it says is of published rows
    (explore36 4): a published page (the same for every reader) offers it to its owner."""
    first = _submit(server, "partial")
    server.wait_finished(first["id"], first["token"])
    auth = {"Authorization": f"Bearer {first['token']}"}
    assert server.post(f"api/experiments/{first['id']}/publish", headers=auth).status_code == 200
    page = server.get(f"experiment/{first['id']}").text
    assert f'href="/experiments/new?revisionOf={first["id"]}" id="resubmit"' in page
    assert "Its owner can" in page.split('id="resubmit"')[0].rsplit("<p", 1)[1]
