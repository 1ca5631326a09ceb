"""``POST /api/compare`` with the owner tokens of several private experiments (``tokens``: id →
token). A request carried one bearer token, so two private runs of two tokens (a system's v1
and v2, or a system and its baseline) could not be compared before one was published. A token
opens its own experiment only (and those it revises), a wrong one nothing, in the words a
missing experiment gets."""

from __future__ import annotations

import pytest

from service.paths import DEMO_DIR


def _task(server, experiment_id: str) -> str:
    return f"{server.url}experiment/{experiment_id}/task/1"


@pytest.fixture(scope="module")
def two(server):
    """Two separate private experiments of the demo, each with its own token."""
    return server.submit_demo(systems=("partial",)), server.submit_demo(systems=("strong",))


def _compare(server, body: dict, token: str | None = None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return server.post("api/compare", json=body, headers=headers)


def test_two_private_experiments_of_two_tokens_compare(server, two) -> None:
    a, b = two
    tasks = [_task(server, a["id"]), _task(server, b["id"])]
    # one bearer token opens one of them: the other is refused (what a developer met before)
    one = _compare(server, {"tasks": tasks}, a["token"])
    assert one.status_code == 400
    assert one.json()["error"] == f"{tasks[1]}: experiment {b['id']} is not public"
    both = _compare(server, {"tasks": tasks, "tokens": {a["id"]: a["token"], b["id"]: b["token"]}})
    assert both.status_code == 200, both.text
    assert [s["system"] for s in both.json()["systems"]] == ["answers-strong", "answers-partial"]
    assert both.headers["Cache-Control"] == "no-store"
    # a bearer token and `tokens` together: each opens its own
    mixed = _compare(server, {"tasks": tasks, "tokens": {b["id"]: b["token"]}}, a["token"])
    assert mixed.status_code == 200, mixed.text
    assert mixed.json()["pairs"] == both.json()["pairs"]
    # nothing was published by it
    assert not server.storage.experiments.is_public(a["id"])
    assert not server.storage.experiments.is_public(b["id"])


def test_a_wrong_token_is_refused_as_a_missing_experiment(server, two) -> None:
    a, b = two
    tasks = [_task(server, a["id"]), _task(server, b["id"])]
    missing = "209901010001"  # never minted
    ghost = _compare(
        server,
        {"tasks": [tasks[0], _task(server, missing)], "tokens": {a["id"]: a["token"]}},
    )
    assert ghost.status_code == 400

    def said(response, experiment_id: str) -> str:
        return response.json()["error"].replace(experiment_id, "ID")

    for tokens in (
        {a["id"]: a["token"], b["id"]: a["token"]},  # another owner's token
        {a["id"]: a["token"], b["id"]: "not-the-token"},
        {a["id"]: b["token"], b["id"]: a["token"]},  # the right tokens under each other's id
        {a["id"]: a["token"]},
    ):
        refused = _compare(server, {"tasks": tasks, "tokens": tokens})
        assert refused.status_code == ghost.status_code, (tokens, refused.text)
        which = b["id"] if tokens.get(a["id"]) == a["token"] else a["id"]
        assert said(refused, which) == said(ghost, missing), refused.text
        assert "answers-" not in refused.text
    # the token of a public experiment's id opens nothing private either
    demo = server.demo_id
    borrowed = _compare(server, {"tasks": tasks, "tokens": {demo: a["token"], a["id"]: "x"}})
    assert borrowed.status_code == 400 and "is not public" in borrowed.json()["error"]


@pytest.mark.parametrize(
    ("tokens", "words"),
    [
        (["a", "b"], "$.tokens: expected an object of owner tokens by experiment id, got list"),
        ("tok", "$.tokens: expected an object of owner tokens by experiment id, got str"),
        ({"12": "t"}, "$.tokens: '12' is not an experiment id (twelve digits"),
        ({"202611270001": 7}, "$.tokens.202611270001: expected the experiment's owner token"),
        ({"202611270001": ""}, "$.tokens.202611270001: expected the experiment's owner token"),
        (
            {f"2026112700{n:02d}": "t" for n in range(21)},
            "$.tokens: at most 20 experiments' tokens, not 21",
        ),
    ],
)
def test_tokens_of_the_wrong_shape_are_named(server, two, tokens, words: str) -> None:
    a, b = two
    tasks = [_task(server, a["id"]), _task(server, b["id"])]
    response = _compare(server, {"tasks": tasks, "tokens": tokens})
    assert response.status_code == 400
    assert response.json()["error"].startswith(words), response.json()


def test_a_wrong_option_is_named_before_the_tokens(server, two) -> None:
    """Every field's type before the store is read (the fuzz's rule: the one fault named)."""
    a, _ = two
    body = {"tasks": [_task(server, a["id"])] * 2, "tokens": [], "measure": 5}
    assert _compare(server, body).json()["error"].startswith("$.measure: expected a string")


def test_a_revisions_token_opens_the_run_it_revises(server, two) -> None:
    """As the bearer token does: a resubmission's token reads the run it replaces, so the two
    compare with the resubmission's token alone."""
    a, _ = two
    files = [
        ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", ("partial.json", (DEMO_DIR / "answers-strong.json").read_bytes())),
    ]
    sent = server.post(
        "api/experiments",
        files=files,
        data={"profile": "fair", "kb": "demo", "answers_name": "partial", "revisionOf": a["id"]},
        headers={"Authorization": f"Bearer {a['token']}"},
    )
    assert sent.status_code == 202, sent.text
    newer = sent.json()
    server.wait_finished(newer["id"], newer["token"])
    tasks = [_task(server, a["id"]), _task(server, newer["id"])]
    opened = _compare(server, {"tasks": tasks, "tokens": {newer["id"]: newer["token"]}})
    assert opened.status_code == 200, opened.text
    # not the other way round: a token opens its experiment and those it revises, not newer ones
    older_only = _compare(server, {"tasks": tasks, "tokens": {a["id"]: a["token"]}})
    assert older_only.status_code == 400
    assert older_only.json()["error"].endswith(f"experiment {newer['id']} is not public")


def test_the_openapi_document_describes_tokens(server) -> None:
    schema = server.get("api/openapi.json").json()["components"]["schemas"]["CompareTasks"]
    tokens = schema["properties"]["tokens"]
    assert tokens["type"] == "object" and tokens["maxProperties"] == 20
    assert tokens["propertyNames"] == {"pattern": "^[0-9]{12}$"}
    assert tokens["additionalProperties"] == {"type": "string", "minLength": 1}
    assert "same words as a missing experiment" in tokens["description"]


def test_two_runs_of_one_system_are_told_apart_by_their_experiments(server, two) -> None:
    """A system's v1 and v2 often carry one name: each is named by its experiment too."""
    a, _ = two
    again = server.submit_demo(systems=("partial",))
    tokens = {a["id"]: a["token"], again["id"]: again["token"]}
    body = {"tasks": [_task(server, a["id"]), _task(server, again["id"])], "tokens": tokens}
    response = _compare(server, body)
    assert response.status_code == 200, response.text
    assert sorted(s["system"] for s in response.json()["systems"]) == sorted(
        [f"answers-partial ({a['id']})", f"answers-partial ({again['id']})"]
    )


def test_a_task_uri_that_is_not_unicode_is_named_by_its_place(server, two) -> None:
    """A lone surrogate (JSON writes one, no URI holds one) in a task is named as the task's
    place in the list; it was 'not a task URI of this service', which named no field (the API
    fuzz draws it now and then)."""
    a, _ = two
    answer = _compare(server, {"tasks": [_task(server, a["id"]), "\ud800"]})
    assert answer.status_code == 400
    assert answer.json()["error"].startswith("$.tasks[1]: holds a lone UTF-16 surrogate"), (
        answer.text
    )
