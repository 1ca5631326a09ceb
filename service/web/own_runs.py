"""The runs this browser submitted, found again from its owner cookies: the run page and the
compare page list them (a private run was found again only through its link, which a closed
tab lost), and the compare page ticks their QA tasks to compare them before anything is
published. Each cookie is checked against its run; a page listing any is for this browser
alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from flask import g, request
from werkzeug.wrappers import Response as BaseResponse

from service.errors import ServiceError
from service.web.access import COOKIE_PREFIX
from service.web.state import services

if TYPE_CHECKING:
    from service.graph.experiments import ExperimentStatus

# the owner cookies a browser sends that are checked (a token lookup each): its newest runs
OWN_RUNS = 50


def own_runs() -> list[ExperimentStatus]:
    """The runs this browser submitted, newest first: their owner cookies reach the run form
    and the compare page (``access.set_owner_cookie``) and each is checked against its run.
    Cached for the request."""
    if "own_runs" in g:
        return g.own_runs
    experiments = services().storage.experiments
    held = sorted(
        (
            (n.removeprefix(COOKIE_PREFIX), t)
            for n, t in request.cookies.items()
            if n.startswith(COOKIE_PREFIX)
        ),
        reverse=True,
    )
    found = []
    for experiment_id, token in held[:OWN_RUNS]:
        try:
            if experiments.check_token(experiment_id, token):
                found.append(experiments.status(experiment_id))
        except ServiceError:  # not an id, or a run deleted since: its cookie is stale
            continue
    g.own_runs = found
    return found


def for_this_browser(response: BaseResponse) -> BaseResponse:
    """``response`` is a page that lists this browser's own runs when it holds owner cookies
    (the run and compare pages): it varies with the cookies and, listing any, is kept by no
    cache."""
    response.vary.add("Cookie")
    if own_runs():
        response.headers["Cache-Control"] = "private, no-store"
    return response


@dataclass(frozen=True, slots=True)
class OwnTask:
    """A QA task of one of this browser's finished runs, as its compare list shows it."""

    uri: str
    ident: str  # the checkbox's id: experiment and task number
    system: str
    dataset: str
    language: str
    profile: str


def own_tasks() -> dict[str, list[OwnTask]]:
    """The QA tasks of this browser's own finished runs (:func:`own_runs`), by experiment id,
    to tick and compare: private runs too, each read with its own cookie, so two runs of
    different tokens compare in one browser."""
    from service.graph.experiments import Status
    from service.graph.reader import local, stored_tasks

    storage = services().storage
    out: dict[str, list[OwnTask]] = {}
    for run in own_runs():
        if run.status is not Status.FINISHED:
            continue
        store = storage.public if storage.experiments.is_public(run.id) else storage.private
        graph = storage.uris.experiment_graph(run.id)
        found = [
            OwnTask(
                t.uri,
                f"own-task-{run.id}-{t.number}",
                t.system_label,
                local(t.dataset),
                t.language_tag,
                t.profile,
            )
            for t in stored_tasks(store, graph, run.uri, storage.uris, experiment_type="QA")
        ]
        if found:
            out[run.id] = found
    return out
