"""Pages that are not resources of their own (blueprint ``ui``): the home page, the lists of
public experiments and systems, and the published JSON-LD ``@context``."""

from __future__ import annotations

import json

from flask import Blueprint, Response, redirect, render_template, url_for

from service import __version__
from service.web import listings
from service.web.rdf_out import context_document
from service.web.state import services

bp = Blueprint("ui", __name__, static_folder="static", static_url_path="/static")


@bp.app_context_processor
def _globals() -> dict[str, object]:
    return {"version": __version__}


@bp.get("/")
def home() -> str:
    state = services()
    return render_template(
        "home.html",
        experiments=listings.experiments(limit=10),
        leaderboard=listings.leaderboard()[:15],
        base=state.config.base,
    )


@bp.get("/experiments")
def experiments() -> str:
    return render_template("experiments.html", rows=listings.experiments())


@bp.get("/systems")
def systems() -> str:
    return render_template("systems.html", rows=listings.systems())


@bp.get("/favicon.ico")
def favicon() -> Response:
    return redirect(url_for("static", filename="favicon.svg"), code=301)


@bp.get("/context.jsonld")
def context() -> Response:
    """The JSON-LD context every JSON-LD document of the service refers to (a stable URL)."""
    body = json.dumps(context_document(), indent=2)
    response = Response(body, content_type="application/ld+json; charset=utf-8")
    response.headers["Access-Control-Allow-Origin"] = "*"  # JSON-LD processors in browsers
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response
