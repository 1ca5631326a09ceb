"""Pages that are not resources of their own (blueprint ``ui``): the home page, the lists of
public experiments and systems, and the published JSON-LD ``@context``.

The home page stays cheap however many experiments are public: it shows the leaderboard of one
dataset (chosen with ``?dataset=NAME``, else the one with the most public QA results), the top
rows only, with the dataset's full leaderboard one click away (its page, paged), and the newest
experiments (``experiments?page=N`` pages through the rest). Rendered pages are kept in the
page cache until the next write, like resource documents (``cache.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from flask import Blueprint, Response, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from service import __version__
from service.web import listings
from service.web.rdf_out import context_document
from service.web.state import services

bp = Blueprint("ui", __name__, static_folder="static", static_url_path="/static")

HOME_LEADERBOARD_ROWS = 15
HOME_EXPERIMENTS = 10
HOME_DATASETS = 12  # datasets offered next to the home leaderboard (the catalogue has all)


@bp.app_context_processor
def _globals() -> dict[str, object]:
    return {"version": __version__}


def cached_page(key: tuple[object, ...], render: Callable[[], str]) -> BaseResponse:
    """An HTML page of public data, from the page cache when it was rendered since the last
    write (an ETag lets browsers revalidate)."""
    cache = services().cache
    rendered = cache.get(key)
    if rendered is None:
        rendered = cache.rendered(render().encode("utf-8"), "text/html; charset=utf-8")
        cache.put(key, rendered)
    response = Response(rendered.body, content_type=rendered.content_type)
    response.headers["Cache-Control"] = "public, max-age=60"
    response.set_etag(rendered.etag)
    return response.make_conditional(request)


@bp.get("/")
def home() -> BaseResponse:
    asked = request.args.get("dataset") or None

    def render() -> str:
        used = listings.datasets_with_results()
        chosen = next((d for d in used if d.name == asked), None) if asked else None
        if chosen is None and used and asked is None:
            chosen = used[0]
        rows = (
            listings.leaderboard(dataset=chosen.uri, limit=HOME_LEADERBOARD_ROWS) if chosen else []
        )
        return render_template(
            "home.html",
            experiments=listings.experiments(limit=HOME_EXPERIMENTS),
            leaderboard=rows,
            chosen=chosen,
            asked=asked,
            datasets=used[:HOME_DATASETS],
            more_datasets=len(used) > HOME_DATASETS,
            base=services().config.base,
        )

    return cached_page(("page:home", asked), render)


@bp.get("/experiments")
def experiments() -> BaseResponse:
    page = listings.page_from(request.args)

    def render() -> str:
        rows = listings.experiments(limit=page.size + 1, offset=page.offset)
        return render_template(
            "experiments.html",
            rows=rows[: page.size],
            page=page,
            has_next=len(rows) > page.size,
            endpoint="ui.experiments",
            args=listings.page_args(request.args),
        )

    return cached_page(("page:experiments", page), render)


@bp.get("/systems")
def systems() -> BaseResponse:
    return cached_page(
        ("page:systems",), lambda: render_template("systems.html", rows=listings.systems())
    )


@bp.get("/favicon.ico")
def favicon() -> BaseResponse:
    return redirect(url_for("static", filename="favicon.svg"), code=301)


@bp.get("/context.jsonld")
def context() -> BaseResponse:
    """The JSON-LD context every JSON-LD document of the service refers to (a stable URL)."""
    body = json.dumps(context_document(), indent=2)
    response = Response(body, content_type="application/ld+json; charset=utf-8")
    response.headers["Access-Control-Allow-Origin"] = "*"  # JSON-LD processors in browsers
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response
