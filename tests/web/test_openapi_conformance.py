"""The JSON API answers what its OpenAPI document says, read by the strictest clients: the
document passes openapi-spec-validator (OpenAPI 3.1), and the real responses of every operation,
successes and errors, validate against the schema the document gives for their status code,
read strictly — an object may hold only the properties its schema names, as a client generated
from the document sees nothing else, and a status the document does not list fails."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import OpenAPIV31SpecValidator

from service.paths import DEMO_DIR

QUESTIONS = (DEMO_DIR / "questions.json").read_text()
STRONG = (DEMO_DIR / "answers-strong.json").read_text()
PARTIAL = (DEMO_DIR / "answers-partial.json").read_text()


def _closed(node: Any) -> Any:
    """``node`` with every object schema that names its properties closed to others."""
    if isinstance(node, list):
        return [_closed(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {
        k: (_closed(v) if k != "properties" else {p: _closed(s) for p, s in v.items()})
        for k, v in node.items()
    }
    if isinstance(node.get("properties"), dict) and "additionalProperties" not in node:
        out["additionalProperties"] = False
    return out


def _pointer(*parts: str) -> str:
    return "#/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


@pytest.fixture(scope="module")
def document(server) -> dict[str, Any]:
    doc = server.get("api/openapi.json").json()
    errors = [str(e)[:300] for e in OpenAPIV31SpecValidator(doc).iter_errors()]
    assert errors == []
    return doc


class Conformance:
    """Checks each response against ``document``; remembers which (path, method, status) ran."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.doc = document
        self.closed = _closed(document)  # one root: the $refs point into it
        self.seen: set[tuple[str, str, str]] = set()
        self.mismatches: list[str] = []  # all at once: one run names every field to document

    def check(self, path: str, method: str, response: Any) -> dict[str, Any]:
        status = str(response.status_code)
        responses = self.doc["paths"][path][method]["responses"]
        assert status in responses, f"{method.upper()} {path} answered {status}, undocumented"
        spec, where = responses[status], ("paths", path, method, "responses", status)
        if "$ref" in spec:  # a shared response: #/components/responses/…
            where = tuple(spec["$ref"].removeprefix("#/").split("/"))
            spec = self.doc[where[0]][where[1]][where[2]]
        content = spec.get("content") or {}
        if status == "204":  # documented as no content: a client reads no body
            assert content == {} and response.content == b"", response.content[:200]
            self.seen.add((path, method, status))
            return {}
        assert "application/json" in content, f"{method.upper()} {path} {status}: no schema"
        assert response.headers["Content-Type"].startswith("application/json")
        root = {**self.closed, "$ref": _pointer(*where, "content", "application/json", "schema")}
        body = response.json()
        errors = sorted(
            f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
            for e in Draft202012Validator(root).iter_errors(body)
        )
        self.mismatches += [f"{method.upper()} {path} {status}: {e}" for e in errors]
        self.seen.add((path, method, status))
        return body


def test_every_operation_answers_as_documented(server, document, slow_qa, tmp_path) -> None:
    api = Conformance(document)
    submission = {
        "dataset": {"content": QUESTIONS, "filename": "solar.json"},
        "systems": [
            {"name": "conformance-strong", "answers": STRONG},
            {"name": "conformance-partial", "answers": PARTIAL},
        ],
        "kb": "demo",
    }
    refused = server.post("api/experiments", json={**submission, "profile": "nope"})
    api.check("/api/experiments", "post", refused)
    broken = {**submission, "systems": [{"name": "broken", "answers": "{not json"}]}
    problems = api.check("/api/experiments", "post", server.post("api/experiments", json=broken))
    assert problems.get("problems"), problems  # the positions, as validate prints them
    ticket = api.check("/api/experiments", "post", server.post("api/experiments", json=submission))
    eid, owner = ticket["id"], {"Authorization": f"Bearer {ticket['token']}"}
    server.wait_finished(eid, ticket["token"])
    path = "/api/experiments/{id}"
    api.check(path, "get", server.get(f"api/experiments/{eid}"))  # private: 403
    api.check(path, "get", server.get("api/experiments/20990101x"))
    api.check(path, "get", server.get("api/experiments/209901019999"))
    status = api.check(path, "get", server.get(f"api/experiments/{eid}", headers=owner))
    assert status["status"] == "finished" and status["evaluations"], status
    sliced = server.get(f"api/experiments/{eid}", headers=owner, params={"by": "answertype"})
    assert any("slices" in e for e in api.check(path, "get", sliced)["evaluations"])
    papers = "/api/experiments/{id}/papers"
    api.check(papers, "post", server.post(f"api/experiments/{eid}/papers", json={}, headers=owner))
    attached = server.post(
        f"api/experiments/{eid}/papers", json={"doi": "10.3233/SW-180312"}, headers=owner
    )
    api.check(papers, "post", attached)
    publish = "/api/experiments/{id}/publish"
    api.check(publish, "post", server.post(f"api/experiments/{eid}/publish"))  # no token: 403
    api.check(publish, "post", server.post(f"api/experiments/{eid}/publish", headers=owner))
    rescore = "/api/experiments/{id}/rescore"
    revision = server.post(
        f"api/experiments/{eid}/rescore", json={"profile": "exact"}, headers=owner
    )
    assert api.check(rescore, "post", revision)["revisionOf"] == eid
    bad = server.post(f"api/experiments/{eid}/rescore", json={"profile": 3}, headers=owner)
    api.check(rescore, "post", bad)
    # a mistyped key or a body that is no object was a revision under the old profile each
    # (explore64 F3): refused as a submission's
    for body, said in [
        ({"profle": "exact"}, "$.profle: not a key of a re-scoring; did you mean 'profile'?"),
        (False, "$: expected a JSON object (the re-scoring's datasetVersion and profile), got "),
        *[(other, "$: expected a JSON object") for other in ([], 123, None, "__main__")],
    ]:
        sent = {**owner, "Content-Type": "application/json"}  # json=None would send no body
        bad = server.post(f"api/experiments/{eid}/rescore", data=json.dumps(body), headers=sent)
        assert said in api.check(rescore, "post", bad)["error"], (body, bad.text)
    # a hidden test set: its run has no per-question entries until its author reveals it
    hidden = {
        "dataset": {"filename": "hidden.json", "content": QUESTIONS + "\n"},
        "about": {"gold": "withheld"},
        "systems": [{"name": "hidden", "answers": STRONG}],
    }
    made = api.check("/api/experiments", "post", server.post("api/experiments", json=hidden))
    author = {"Authorization": f"Bearer {made['token']}"}
    server.wait_finished(made["id"], made["token"])
    kept = api.check(path, "get", server.get(f"api/experiments/{made['id']}", headers=author))
    assert kept["evaluations"][0]["questionsWithheld"] is True
    api.check(publish, "post", server.post(f"api/experiments/{made['id']}/publish", headers=author))
    reveal = f"api/datasets/{kept['dataset'].rsplit('/', 1)[1]}/reveal"
    runs = f"api/datasets/{kept['dataset'].rsplit('/', 1)[1]}/runs"  # its organiser's list
    listed = api.check("/api/datasets/{name}/runs", "get", server.get(runs, headers=author))
    assert [r["id"] for r in listed["runs"]] == [made["id"]]
    api.check("/api/datasets/{name}/runs", "get", server.get(runs))  # no token: 403
    api.check("/api/datasets/{name}/reveal", "post", server.post(reveal))  # no token: 403
    done = server.post(reveal, headers=author)
    revealed = api.check("/api/datasets/{name}/reveal", "post", done)
    assert revealed["scoredWhileWithheld"] == [kept["uri"]] and revealed["questions"] > 0
    api.check("/api/datasets/{name}/reveal", "post", server.post(reveal, headers=author))  # 409
    api.check("/api/datasets/{name}/reveal", "post", server.post("api/datasets/nothing/reveal"))
    # a run that asks a slow service: cancelled while it asks, then resumed
    slow = {
        "dataset": "demo",
        "kb": "demo",
        "systems": [{"name": "slow", "url": slow_qa + "delay/2"}],
    }
    run = api.check("/api/experiments", "post", server.post("api/experiments", json=slow))
    mine = {"Authorization": f"Bearer {run['token']}"}
    api.check(path, "get", server.get(f"api/experiments/{run['id']}", headers=mine))  # running
    cancel = server.post(f"api/experiments/{run['id']}/cancel", headers=mine)
    assert api.check("/api/experiments/{id}/cancel", "post", cancel)["cancelling"] is True
    deadline = time.monotonic() + 30
    while server.get(f"api/experiments/{run['id']}", headers=mine).json()["status"] != "cancelled":
        assert time.monotonic() < deadline, "the cancelled run did not end"
        time.sleep(0.1)
    api.check(path, "get", server.get(f"api/experiments/{run['id']}", headers=mine))
    resume = server.post(f"api/experiments/{run['id']}/resume", headers=mine)
    api.check("/api/experiments/{id}/resume", "post", resume)
    api.check(  # resumed: running again, so a second resume is a conflict
        "/api/experiments/{id}/resume",
        "post",
        server.post(f"api/experiments/{run['id']}/resume", headers=mine),
    )
    server.post(f"api/experiments/{run['id']}/cancel", headers=mine)  # not left asking
    deadline = time.monotonic() + 30
    while server.get(f"api/experiments/{run['id']}", headers=mine).json()["status"] == "running":
        assert time.monotonic() < deadline, "the cancelled run did not end"
        time.sleep(0.1)
    api.check(path, "delete", server.request("DELETE", f"api/experiments/{run['id']}"))  # 403
    api.check(path, "delete", server.request("DELETE", f"api/experiments/{eid}", headers=owner))
    api.check(
        path, "delete", server.request("DELETE", f"api/experiments/{run['id']}", headers=mine)
    )
    api.check(
        path, "delete", server.request("DELETE", f"api/experiments/{run['id']}", headers=mine)
    )
    listing = api.check(
        "/api/experiments", "get", server.get("api/experiments", params={"size": 1})
    )
    assert listing["experiments"] and listing["next"], listing
    api.check("/api/experiments", "get", server.get("api/experiments", params={"size": 0}))
    withdraw = "/api/experiments/{id}/withdraw"
    api.check(withdraw, "post", server.post(f"api/experiments/{eid}/withdraw", json={}))  # 403
    unpublished = server.post(  # the revision is private: 409
        f"api/experiments/{revision.json()['id']}/withdraw", json={"reason": "x"}, headers=owner
    )
    api.check(withdraw, "post", unpublished)
    api.check(
        withdraw, "post", server.post(f"api/experiments/{eid}/withdraw", json={}, headers=owner)
    )
    done = server.post(
        f"api/experiments/{eid}/withdraw", json={"reason": "conformance walk"}, headers=owner
    )
    assert api.check(withdraw, "post", done)["withdrawalReason"] == "conformance walk"
    assert api.check(path, "get", server.get(f"api/experiments/{eid}"))["withdrawnAt"]
    listed = server.get("api/experiments", params={"size": 500}).json()["experiments"]
    assert eid not in {e["id"] for e in listed}  # out of the listing, its URI kept
    for name in ("datasets", "systems", "profiles"):
        assert api.check(f"/api/{name}", "get", server.get(f"api/{name}"))[name]
    compared = server.post(
        "api/compare",
        json={"dataset": {"content": QUESTIONS}, "systems": submission["systems"], "kb": "demo"},
    )
    result = api.check("/api/compare", "post", compared)
    assert [s["system"] for s in result["systems"]] and result["pairs"], result
    one = server.post(
        "api/compare",
        json={"dataset": {"content": QUESTIONS}, "systems": submission["systems"][:1]},
    )
    api.check("/api/compare", "post", one)
    frozen = api.check("/api/leaderboards", "post", server.post("api/leaderboards", json={}))
    api.check("/api/leaderboards", "post", server.post("api/leaderboards", json={}))  # again: 200
    api.check("/api/leaderboards", "post", server.post("api/leaderboards", json={"sort": 3}))
    assert api.check("/api/leaderboards", "get", server.get("api/leaderboards"))["leaderboards"]
    one_frozen = server.get(f"api/leaderboards/{frozen['id']}")
    assert api.check("/api/leaderboards/{id}", "get", one_frozen)["rows"]
    api.check("/api/leaderboards/{id}", "get", server.get("api/leaderboards/0000000000000000"))
    # the operator's removal needs the admin token: a server of its own
    from tests.web.conftest import start_server, stop_server

    operated = start_server(tmp_path / "operated", admin_token="the-operator")
    try:
        made = api.check("/api/leaderboards", "post", operated.post("api/leaderboards", json={}))
        path, admin = f"api/leaderboards/{made['id']}", {"Authorization": "Bearer the-operator"}
        api.check("/api/leaderboards/{id}", "delete", operated.delete(path))  # 403
        api.check("/api/leaderboards/{id}", "delete", operated.delete(path, headers=admin))
        api.check("/api/leaderboards/{id}", "delete", operated.delete(path, headers=admin))
    finally:
        stop_server(operated)
    documented = {
        (p, m, s)
        for p, ops in document["paths"].items()
        for m, op in ops.items()
        for s in op["responses"]
        if s.startswith("2")
    }
    assert api.mismatches == [], "\n".join(api.mismatches)
    assert documented - api.seen == set(), json.dumps(sorted(documented - api.seen))


def test_unknown_experiments_and_datasets_answer_a_documented_404(server, document) -> None:
    """A pipeline's script that keeps a wrong id (another server's, a deleted one) or names a
    dataset the catalogue lacks gets the API's 404 on every operation, as the document says:
    before, publish, papers, cancel, resume and rescore answered 404 undocumented, and so did
    submit and compare for an unknown catalogue dataset."""
    api = Conformance(document)
    token = {"Authorization": "Bearer not-a-token"}
    for operation, body in (
        ("publish", None),
        ("papers", {"doi": "10.3233/SW-180312"}),
        ("cancel", None),
        ("resume", None),
        ("rescore", None),
        ("withdraw", {"reason": "x"}),
    ):
        for eid in ("209901019999", "nope"):
            answer = server.post(f"api/experiments/{eid}/{operation}", json=body, headers=token)
            assert answer.status_code == 404, (operation, eid, answer.text)
            api.check(f"/api/experiments/{{id}}/{operation}", "post", answer)
    unknown = {
        "dataset": "no-such-dataset",
        "systems": [{"name": "a", "answers": STRONG}, {"name": "b", "answers": PARTIAL}],
    }
    for path in ("/api/experiments", "/api/compare"):
        answer = server.post(path.lstrip("/"), json=unknown)
        assert answer.status_code == 404 and "no-such-dataset" in answer.json()["error"]
        api.check(path, "post", answer)
    assert api.mismatches == [], "\n".join(api.mismatches)


def _request_errors(document: dict[str, Any], path: str, body: Any) -> list[str]:
    """Where ``body`` breaks the JSON request schema the document gives for POST ``path``."""
    where = ("paths", path, "post", "requestBody", "content", "application/json", "schema")
    root = {**document, "$ref": _pointer(*where)}
    return [e.message[:200] for e in Draft202012Validator(root).iter_errors(body)]


def test_comparing_stored_tasks_is_a_documented_request(server, document) -> None:
    """``POST /api/compare {"tasks": [URI, …]}`` (how a pipeline compares a release's stored
    result with the previous one) is a request the document describes: before, its schema
    was the file submission's alone, which requires ``dataset`` and ``systems``, so a client
    checking its requests against the document refused it."""
    results = server.get(f"api/experiments/{server.demo_id}").json()["results"]
    tasks = [r["task"] for r in results if r["experimentType"] == "QA"][:2]
    body = {"tasks": tasks, "resamples": 200}
    assert _request_errors(document, "/api/compare", body) == []
    files = {"dataset": "demo", "systems": [{"answers": STRONG}, {"answers": PARTIAL}]}
    assert _request_errors(document, "/api/compare", files) == []
    assert _request_errors(document, "/api/compare", {"resamples": 200}) != []
    assert _request_errors(document, "/api/compare", {"tasks": tasks[:1]}) != []
    api = Conformance(document)
    compared = api.check("/api/compare", "post", server.post("api/compare", json=body))
    assert [s["system"] for s in compared["systems"]], compared
    # a mistyped key was ignored: compared on macroF1, frozen under the default sort
    # (explore64 F4); refused now, and invalid under the document
    for path, mistyped, said in [
        ("/api/compare", {**body, "mesure": "microF1"}, "comparison; did you mean 'measure'?"),
        ("/api/leaderboards", {"sortt": "microF1"}, "leaderboard's filters; did you mean 'sort'?"),
    ]:
        assert _request_errors(document, path, mistyped) != []
        refused = api.check(path, "post", server.post(path.lstrip("/"), json=mistyped))
        assert refused["error"].endswith(said), refused
    assert api.mismatches == [], "\n".join(api.mismatches)


def test_each_kind_of_system_is_a_documented_submission(server, document) -> None:
    """A reference system (``{"reference": "gold-sparql"}``, what the run page sends for its
    checkbox) was accepted by the API and invalid under the document (its ``oneOf`` named
    answer files and web services only); two kinds at once are invalid under both."""
    for system in (
        {"answers": STRONG},
        {"url": "http://127.0.0.1:9/"},
        {"reference": "gold-sparql"},
    ):
        body = {"dataset": "demo", "systems": [{"name": "s", **system}]}
        assert _request_errors(document, "/api/experiments", body) == [], system
    both = {"dataset": "demo", "systems": [{"answers": STRONG, "reference": "gold-sparql"}]}
    assert _request_errors(document, "/api/experiments", both) != []
    refused = server.post("api/experiments", json=both)
    assert refused.status_code == 400, refused.text
    answered = server.post(
        "api/experiments",
        json={"dataset": "demo", "systems": [{"name": "g", "reference": "gold-sparql"}]},
    )
    assert answered.status_code == 202, answered.text


def test_the_submission_keys_read_are_the_documented_ones(document) -> None:
    from service.call_settings import CALLED
    from service.web.comparing import COMPARE_OPTIONS
    from service.web.submission import DATASET_FILE_KEYS, FILE_KEYS, SUBMISSION_KEYS, SYSTEM_KEYS

    options = document["components"]["schemas"]["CompareOptions"]["properties"]
    assert set(options) == COMPARE_OPTIONS  # what a comparison's body may add
    schema = document["components"]["schemas"]["Submission"]
    assert set(schema["properties"]) == SUBMISSION_KEYS | CALLED.keys()
    system = schema["properties"]["systems"]["items"]
    assert set(system["properties"]) == SYSTEM_KEYS and system["additionalProperties"] is False
    inline = document["components"]["schemas"]["InlineFile"]
    assert set(inline["properties"]) == FILE_KEYS and inline["additionalProperties"] is False
    dataset_file = document["components"]["schemas"]["InlineDatasetFile"]  # + its in.tsv
    assert set(dataset_file["properties"]) == DATASET_FILE_KEYS

    def json_body(path: str) -> dict[str, Any]:
        return document["paths"][path]["post"]["requestBody"]["content"]["application/json"]

    assert json_body("/api/experiments")["schema"]["unevaluatedProperties"] is False
    files = json_body("/api/compare")["schema"]["oneOf"][0]  # (the other: stored tasks)
    assert files["unevaluatedProperties"] is False


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"profil": "exact"}, "$.profil: not a key of a submission; did you mean 'profile'?"),
        ({"langauge": "de"}, "$.langauge: not a key of a submission; did you mean 'language'?"),
        ({"xyz": 1}, "$.xyz: not a key of a submission; expected one of"),
    ],
)
def test_a_mistyped_key_is_refused_not_ignored(server, body, said: str) -> None:
    """``{"profil": "exact"}`` was accepted (202) and the run scored under the default
    profile: a typo changed what was measured without a word."""
    answers = (DEMO_DIR / "answers-strong.json").read_text(encoding="utf-8")
    submission = {"dataset": "demo", "systems": [{"name": "s", "answers": answers}], **body}
    refused = server.post("api/experiments", json=submission)
    assert refused.status_code == 400 and said in refused.json()["error"], refused.text
    system = {"name": "s", "answer": answers}  # one system's key too
    wrong = server.post("api/experiments", json={"dataset": "demo", "systems": [system]})
    assert wrong.status_code == 400, wrong.text
    assert (
        "$.systems[0].answer: not a key of a submission; did you mean 'answers'?"
        in (wrong.json()["error"])
    )
    compared = server.post("api/compare", json={**submission, "measure": "macroF1"})
    assert compared.status_code == 400 and said in compared.json()["error"], compared.text


@pytest.mark.parametrize(
    ("body", "path", "said"),
    [
        (  # a mistyped key of an inline file: was ignored (its name lost, its format sniffed)
            {"systems": [{"name": "s", "answers": {"filenme": "a.json", "content": STRONG}}]},
            "$.systems[0].answers.filenme",
            "not a key of a file; did you mean 'filename'?",
        ),
        (
            {"systems": [{"name": "s", "answers": {"formt": "qald-json", "content": STRONG}}]},
            "$.systems[0].answers.formt",
            "not a key of a file; did you mean 'format'?",
        ),
        (
            {"systems": [{"name": "s", "answers": {"name": "a.json", "content": STRONG}}]},
            "$.systems[0].answers.name",
            "not a key of a file; did you mean 'filename'?",
        ),
        (
            {
                "dataset": {"filenme": "q.json", "content": QUESTIONS},
                "systems": [{"name": "s", "answers": STRONG}],
            },
            "$.dataset.filenme",
            "not a key of a file; did you mean 'filename'?",
        ),
        (
            {"gold": {"formt": "qald-json", "content": QUESTIONS}, "systems": [{"name": "s"}]},
            "$.gold.formt",
            "not a key of a file; did you mean 'format'?",
        ),
        # the path of a key below the top: was "$.nme", "$.license"
        (
            {"systems": [{"nme": "s", "answers": STRONG}]},
            "$.systems[0].nme",
            "not a key of a submission; did you mean 'name'?",
        ),
        (
            {
                "dataset": {"content": QUESTIONS},
                "about": {"license": "CC-BY-4.0"},
                "systems": [{"name": "s", "answers": STRONG}],
            },
            "$.about.license",
            "expected an http(s) IRI, got 'CC-BY-4.0'",
        ),
        (
            {"systems": [{"name": 5, "answers": STRONG}]},
            "$.systems[0].name",
            "expected a string, got int",
        ),
        # null where the document says a string was taken as left out (explore64 F5)
        *[
            (
                {"systems": [{"name": "s", "answers": STRONG}], **body},
                path,
                "expected a string, got null (leave the key out for none)",
            )
            for body, path in [
                ({"title": None}, "$.title"),
                ({"profile": None}, "$.profile"),
                ({"kb": None}, "$.kb"),
                ({"language": None}, "$.language"),
                ({"systems": [{"name": None, "answers": STRONG}]}, "$.systems[0].name"),
            ]
        ],
    ],
)
def test_a_problem_s_path_is_the_whole_json_path(server, body, path: str, said: str) -> None:
    """``problems[].path`` points a client at the value to fix: the key alone (``$.nme`` for
    ``$.systems[0].nme``) pointed at another one, or at none."""
    refused = server.post("api/experiments", json={"dataset": "demo", **body})
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"] == f"{path}: {said}", refused.text
    (problem,) = refused.json()["problems"]
    assert problem["path"] == path, problem


def test_a_bad_system_name_and_a_long_title_have_their_paths(server) -> None:
    """A system name with a '/' and a frozen leaderboard's title past 300 characters were
    refused with ``problems`` empty: no path for a client to point at."""
    systems = [{"name": "ok", "answers": STRONG}, {"name": "S/2", "answers": STRONG}]
    refused = server.post("api/experiments", json={"dataset": "demo", "systems": systems})
    assert refused.status_code == 400 and "system 2: name 'S/2'" in refused.json()["error"]
    assert [p["path"] for p in refused.json()["problems"]] == ["$.systems[1].name"]
    refused = server.post("api/leaderboards", json={"title": "t" * 301})
    assert refused.status_code == 400, refused.text
    assert [p["path"] for p in refused.json()["problems"]] == ["$.title"]
    for key in ("title", "dataset", "sort", "language"):  # null was left out (explore64 F5)
        refused = server.post("api/leaderboards", json={key: None})
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"].startswith(f"$.{key}: expected a string, got null")
        assert [p["path"] for p in refused.json()["problems"]] == [f"$.{key}"]


def test_a_form_field_about_the_dataset_has_its_json_path(server) -> None:
    """The run form's ``dataset_license`` is the JSON ``about.license``: the problem said
    ``$.license``."""
    refused = server.post(
        "api/experiments",
        files=[("dataset_file", ("q.json", QUESTIONS.encode()))],
        data={"dataset_license": "CC-BY-4.0", "reference": "baseline"},
    )
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"].startswith("dataset_license: expected an http(s) IRI")
    assert [p["path"] for p in refused.json()["problems"]] == ["$.about.license"]


def test_a_run_pooled_over_languages_answers_as_documented(server, document) -> None:
    """A task pooled over languages (``"language": "en,de"``) carries ``byLanguage``, which
    the schema did not name (explore22 4)."""
    import json

    questions = [
        {
            "id": str(i),
            "question": [
                {"language": "en", "string": f"Question {i}?"},
                {"language": "de", "string": f"Frage {i}?"},
            ],
            "answers": [
                {
                    "head": {"vars": ["x"]},
                    "results": {"bindings": [{"x": {"type": "literal", "value": f"a{i}"}}]},
                }
            ],
        }
        for i in (1, 2, 3)
    ]
    data = json.dumps({"dataset": {"id": "two-languages"}, "questions": questions})
    made = server.post(
        "api/experiments",
        json={
            "dataset": {"filename": "two.json", "content": data},
            "language": "en,de",
            "systems": [{"name": "gold", "answers": data}],
        },
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    server.wait_finished(ticket["id"], ticket["token"])
    conformance = Conformance(document)
    answered = server.get(
        f"api/experiments/{ticket['id']}", headers={"Authorization": f"Bearer {ticket['token']}"}
    )
    body = conformance.check("/api/experiments/{id}", "get", answered)
    assert set(body["evaluations"][0]["byLanguage"]) == {"en", "de"}
    assert conformance.mismatches == []


# (value, the server takes it): each as the submission's profile, an answer file's format or the
# language; the server's answer and the document's schema must agree on every one (explore31
# F10: the enums were lower-case, so FAIR, QALD-JSON and " fair", which the server takes, failed
# the document, and "language": " " passed minLength but is a 400)
NAMED = {
    "profile": [
        *[(v, True) for v in ("fair", "FAIR", "Exact", " fair ", "\tQALD6\n", "text2SPARQL", "")],
        *[(v, False) for v in (" ", "f air", "fair,exact", "fairer", "exact.", "Kexact")],
    ],
    "format": [
        *[(v, True) for v in ("qald-json", "QALD-JSON", " Qald-Json ", "", "eqald-json")],
        *[(v, True) for v in ("application/qald+json", "Application/QALD+JSON; charset=utf-8")],
        *[(v, False) for v in (" ", "json", "application/json", "qald_json", "qald-json;x")],
    ],
    "language": [
        *[(v, True) for v in ("en", " en ", "en,en", ",en,", "en, ,", "all", " all ", "all,all")],
        *[(v, True) for v in ("EN", " En ", "eN,en", "ALL", "All,all")],  # BCP 47: any case
        *[(v, False) for v in ("", " ", "all,en", "x", "en-", "e1", "en de", "enxx", "en-a_")],
        *[(v, False) for v in ("ALL,en", "en,All")],
    ],
}


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.web.conftest import start_server, stop_server

    running = start_server(tmp_path_factory.mktemp("openapi-names"))
    yield running
    stop_server(running)


@pytest.mark.parametrize("field", sorted(NAMED))
def test_the_submission_schema_takes_the_names_the_server_takes(own_server, field: str) -> None:
    document = own_server.get("api/openapi.json").json()
    disagree = []
    for value, taken in NAMED[field]:
        answers: dict[str, Any] = {"filename": "a.json", "content": STRONG}
        body: dict[str, Any] = {"dataset": "demo", "systems": [{"name": "s", "answers": answers}]}
        if field == "format":
            answers["format"] = value
        else:
            body[field] = value
        answered = own_server.post("api/experiments", json=body)
        assert answered.status_code in (202, 400), answered.text
        if answered.status_code == 202:
            ticket = answered.json()
            own_server.wait_finished(ticket["id"], ticket["token"])
        schema_ok = _request_errors(document, "/api/experiments", body) == []
        server_ok = answered.status_code == 202
        if (schema_ok, server_ok) != (taken, taken):
            disagree.append(f"{value!r}: schema {schema_ok}, server {server_ok}, expected {taken}")
    assert disagree == []


def test_a_rescoring_s_profile_is_matched_as_the_submission_s(own_server) -> None:
    """A re-scoring reads its ``profile`` as a submission does (``FAIR`` is ``fair``): its
    schema was the same lower-case enum."""
    document = own_server.get("api/openapi.json").json()
    answers = {"filename": "a.json", "content": STRONG}
    made = own_server.post(
        "api/experiments", json={"dataset": "demo", "systems": [{"name": "s", "answers": answers}]}
    )
    ticket = made.json()
    own_server.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    for value, taken in NAMED["profile"]:
        said = _request_errors(document, "/api/experiments/{id}/rescore", {"profile": value})
        answered = own_server.post(
            f"api/experiments/{ticket['id']}/rescore", json={"profile": value}, headers=auth
        )
        assert answered.status_code in (202, 400), answered.text
        if answered.status_code == 202:
            revision = answered.json()
            own_server.wait_finished(revision["id"], revision["token"])
        assert (said == [], answered.status_code == 202) == (taken, taken), (value, said)


# a form's blank field is one left to its default (explore35 F4: the profile, dataset_format
# and gold_format patterns refused "  ", which the server takes): an answers_format left to be
# sniffed, the default profile and language
BLANK = [(v, True) for v in (" ", "  ", "\t", " \n ")]
FORM_NAMED = {
    "profile": [(v, t or not v.strip()) for v, t in NAMED["profile"]] + BLANK,
    "answers_format": [*NAMED["format"][:-5], *BLANK, *NAMED["format"][-4:]],
    "dataset_format": [(v, t or not v.strip()) for v, t in NAMED["format"]] + BLANK,
    "gold_format": [(v, t or not v.strip()) for v, t in NAMED["format"]] + BLANK,
    "language": [(v, t or not v.strip()) for v, t in NAMED["language"]] + BLANK,
}


@pytest.mark.parametrize("field", sorted(FORM_NAMED))
def test_the_form_schema_takes_the_names_the_server_takes(own_server, field: str) -> None:
    document = own_server.get("api/openapi.json").json()
    root = {**document, "$ref": "#/components/schemas/SubmissionForm"}
    disagree = []
    for value, taken in FORM_NAMED[field]:
        form = {"dataset": "demo", field: value}
        files = [("answers", ("a.json", STRONG.encode()))]
        if field == "dataset_format":  # an uploaded dataset's format
            form = {"kb": "demo", field: value}
            files.append(("dataset_file", ("questions.json", QUESTIONS.encode())))
        elif field == "gold_format":  # an uploaded gold's format
            files.append(("gold_file", ("gold.json", QUESTIONS.encode())))
        answered = own_server.post("api/experiments", data=form, files=files)
        assert answered.status_code in (202, 400), answered.text
        if answered.status_code == 202:
            ticket = answered.json()
            own_server.wait_finished(ticket["id"], ticket["token"])
        shown = {**form, **{name: "file" for name, _ in files[1:]}, "answers": ["a.json"]}
        if field == "answers_format":
            shown[field] = [value]
        schema_ok = not list(Draft202012Validator(root).iter_errors(shown))
        server_ok = answered.status_code == 202
        if (schema_ok, server_ok) != (taken, taken):
            disagree.append(f"{value!r}: schema {schema_ok}, server {server_ok}, expected {taken}")
    assert disagree == []
