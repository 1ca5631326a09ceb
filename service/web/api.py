"""The JSON API (blueprint ``api``), documented by ``openapi.py`` at ``api/openapi.json``.

Submitting answers at once (202) with the experiment URI and the owner token; the experiment
then runs in the background (``runner.py``). The owner token goes in ``Authorization: Bearer``.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from flask import Blueprint, Response, jsonify, redirect, render_template, request

from service.errors import BadRequest, Conflict, Forbidden
from service.web import listings, pages
from service.web.access import bearer_token, is_admin, is_owner, require_experiment
from service.web.state import services

bp = Blueprint("api", __name__)


def _json(payload: Any, status: int = 200) -> Response:
    response = jsonify(payload)
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/api")
@bp.get("/api/")
def docs() -> str:
    from service.web.openapi import openapi_document

    return render_template("api.html", doc=openapi_document(services().config.base))


@bp.get("/api/openapi.json")
def openapi() -> Response:
    from service.web.openapi import openapi_document

    response = jsonify(openapi_document(services().config.base))
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response


def _kbs() -> dict[str, tuple[str, ...]]:
    from service.web.demo import configured_kbs

    return configured_kbs(services().config)


@bp.post("/api/experiments")
def submit() -> Response:
    from service.web import submission
    from service.web.runner import ExperimentJob, SystemSpec, Upload

    if request.mimetype == "application/json":
        raw = submission.from_json(request.get_json(silent=True))
    elif request.mimetype in ("multipart/form-data", "application/x-www-form-urlencoded"):
        raw = submission.from_form(request.form, request.files)
    else:
        raise BadRequest("send the submission as multipart/form-data or application/json")
    valid = submission.validate(raw, kbs=_kbs(), policy=services().config.network_policy())
    state = services()
    ticket = state.storage.experiments.reserve(summary=valid.summary())
    uploads = []
    if valid.dataset_upload is not None:
        up = valid.dataset_upload
        uploads.append(Upload(up.filename, up.sha256, len(up.data), "dataset"))
    for system in valid.systems:
        if system.upload is not None:
            up = system.upload
            uploads.append(Upload(up.filename, up.sha256, len(up.data), "answers", system.name))
    job = ExperimentJob(
        experiment_id=ticket.id,
        experiment_uri=ticket.uri,
        dataset=valid.dataset,
        dataset_name=valid.dataset_name,
        systems=tuple(SystemSpec(s.name, answers=s.answers, url=s.url) for s in valid.systems),
        profile=valid.profile,
        language=valid.language,
        experiment_types=valid.experiment_types,
        catalogued=valid.catalogued,
        dataset_sha256=valid.dataset_upload.sha256 if valid.dataset_upload else None,
        kb=valid.kb,
        uploads=tuple(uploads),
    )
    state.runner.submit(job)
    body = {
        "id": ticket.id,
        "uri": ticket.uri,
        "token": ticket.token,
        "status": "queued",
        "statusUrl": f"{state.config.base}api/experiments/{ticket.id}",
        "ownerLink": f"{ticket.uri}?token={ticket.token}",
        "note": "Keep the token: it is shown once. Send it as 'Authorization: Bearer <token>'.",
    }
    response = _json(body, 202)
    response.headers["Location"] = ticket.uri
    return response


def _experiment_json(experiment_id: str) -> dict[str, Any]:
    from service.web.describe import FOLLOW_EXPERIMENT, document_quads

    state = services()
    status = require_experiment(experiment_id)
    if not status.public and not is_owner(experiment_id):
        raise Forbidden(f"experiment {experiment_id} is not public yet")
    storage = state.storage
    store = storage.public if status.public else storage.private
    quads = document_quads(
        store,
        status.uri,
        graph=storage.uris.experiment_graph(experiment_id),
        follow=FOLLOW_EXPERIMENT,
    )
    page = pages.experiment_page(experiment_id, quads, storage.uris)
    progress = getattr(state.runner, "progress", None)
    per_system = progress(experiment_id) if progress and status.status != "finished" else []
    return {
        "id": status.id,
        "uri": status.uri,
        "status": status.status,
        "public": status.public,
        "created": status.created,
        "publishedAt": status.published_at,
        "progress": status.progress,
        "systems": [{"system": p.system, "done": p.done, "total": p.total} for p in per_system],
        "message": status.message,
        "dataset": page.dataset,
        "papers": list(page.papers),
        "results": [
            {
                "task": t.uri,
                "system": t.system,
                "systemLabel": t.system_label,
                "dataset": t.dataset,
                "experimentType": t.experiment_type,
                "language": t.language,
                "profile": t.profile,
                "profileVersion": t.profile_version,
                "signature": t.signature,
                "knowledgeBase": t.knowledge_base,
                "measures": t.measures,
            }
            for t in page.tasks
        ],
    }


@bp.get("/api/experiments/<experiment_id>")
def experiment(experiment_id: str) -> Response:
    response = _json(_experiment_json(experiment_id))
    return response


@bp.get("/api/experiments")
def experiments() -> Response:
    """Published experiments, newest first, a page at a time (``?page=N&size=M``, 100 by
    default, ``next`` links the following page); with the admin token, every experiment and
    its status."""
    state = services()
    if is_admin(bearer_token()):
        items = [
            {"id": s.id, "uri": s.uri, "status": s.status, "public": s.public}
            for s in state.storage.experiments.listing(include_private=True)
        ]
        return _json({"experiments": items})
    page = listings.page_from(request.args, size=100, max_size=500)
    rows = listings.experiments(limit=page.size + 1, offset=page.offset)
    following = None
    if len(rows) > page.size:
        following = f"{state.config.base}api/experiments?page={page.number + 1}&size={page.size}"
    return _json(
        {
            "experiments": [
                {
                    "id": r.id,
                    "uri": r.uri,
                    "ended": r.ended,
                    "datasets": list(r.datasets),
                    "systems": list(r.systems),
                }
                for r in rows[: page.size]
            ],
            "page": page.number,
            "size": page.size,
            "next": following,
        }
    )


def _require_owner(experiment_id: str) -> None:
    require_experiment(experiment_id)
    if not is_owner(experiment_id, bearer_token()):
        raise Forbidden(
            f"publishing or changing experiment {experiment_id} needs its owner token "
            "(Authorization: Bearer <token>)"
        )


@bp.post("/api/experiments/<experiment_id>/publish")
def publish(experiment_id: str) -> Response:
    _require_owner(experiment_id)
    state = services()
    status = state.storage.experiments.publish(experiment_id)
    state.changed()
    return _json(
        {
            "id": status.id,
            "uri": status.uri,
            "public": status.public,
            "publishedAt": status.published_at,
        }
    )


def publish_check(experiment_id: str, token: str) -> str:
    """The value the publish form must send back: proves the page was rendered for the owner
    (a cross-site form cannot know it), so the cookie alone cannot publish (CSRF)."""
    return hmac.new(token.encode(), f"publish:{experiment_id}".encode(), hashlib.sha256).hexdigest()


@bp.post("/experiment/<experiment_id>/publish")
def publish_form(experiment_id: str) -> Response:
    from service.web.access import COOKIE_PREFIX

    require_experiment(experiment_id)
    token = request.cookies.get(COOKIE_PREFIX + experiment_id)
    check = request.form.get("check", "")
    if not (
        token
        and is_owner(experiment_id, token)
        and hmac.compare_digest(check, publish_check(experiment_id, token))
    ):
        raise Forbidden("only the owner can publish this experiment")
    state = services()
    state.storage.experiments.publish(experiment_id)
    state.changed()
    return redirect(state.storage.uris.experiment(experiment_id), code=303)


@bp.post("/api/experiments/<experiment_id>/papers")
def attach_paper(experiment_id: str) -> Response:
    from service.graph.experiments import paper_iri

    _require_owner(experiment_id)
    data = request.get_json(silent=True) if request.is_json else request.form
    if not isinstance(data, dict) or not (data.get("doi") or data.get("url")):
        raise BadRequest('send {"doi": "10.…"} or {"url": "https://…"}')
    doi, url = data.get("doi"), data.get("url")
    if not isinstance(doi or url, str):
        raise BadRequest("'doi' and 'url' are strings")
    if doi and not paper_iri(doi).startswith("https://doi.org/"):
        raise BadRequest(f"not a DOI: {doi!r} (expected e.g. 10.3233/SW-180312)")
    state = services()
    paper = state.storage.experiments.attach_paper(experiment_id, doi or url)
    state.changed()
    return _json({"id": experiment_id, "paper": paper}, 201)


@bp.post("/api/experiments/<experiment_id>/cancel")
def cancel(experiment_id: str) -> Response:
    _require_owner(experiment_id)
    state = services()
    active = state.runner.cancel(experiment_id)
    status = state.storage.experiments.status(experiment_id)
    return _json({"id": experiment_id, "cancelling": active, "status": status.status})


@bp.post("/api/experiments/<experiment_id>/resume")
def resume(experiment_id: str) -> Response:
    """Queue an interrupted, cancelled or failed experiment again (the systems area's runner
    reuses the answers it already has)."""
    _require_owner(experiment_id)
    state = services()
    resume_job = getattr(state.runner, "resume", None)
    if resume_job is None:
        raise Conflict("this service's runner cannot resume experiments")
    resume_job(experiment_id)
    status = state.storage.experiments.status(experiment_id)
    return _json({"id": experiment_id, "status": status.status}, 202)


@bp.get("/api/datasets")
def datasets() -> Response:
    rows = listings.datasets()
    return _json(
        {
            "datasets": [
                {
                    "name": r.name,
                    "uri": r.uri,
                    "title": r.title,
                    "questions": r.questions,
                    "languages": list(r.languages),
                    "knowledgeBase": r.knowledge_base,
                }
                for r in rows
            ]
        }
    )


@bp.get("/api/systems")
def systems() -> Response:
    return _json(
        {
            "systems": [
                {"uri": s.uri, "label": s.label, "experiments": s.experiments}
                for s in listings.systems()
            ]
        }
    )


@bp.get("/api/profiles")
def profiles() -> Response:
    from service.evaluation.profiles import PROFILES

    return _json(
        {
            "profiles": [
                {
                    "name": p.name,
                    "version": p.version,
                    "iri": p.iri,
                    "signature": p.signature,
                    "description": p.description,
                    "defaultLanguage": p.default_language,
                }
                for p in PROFILES.values()
            ],
            "knowledgeBases": sorted(_kbs()),
        }
    )
