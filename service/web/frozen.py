"""Frozen leaderboards on the web (:mod:`service.graph.leaderboards`): freezing the leaderboard a
page shows (its form, ``POST /api/leaderboards``), its URI by content negotiation (HTML, the RDF
syntaxes, CSV), its rows as JSON in the API, and the list of them.

Anyone may freeze: a frozen leaderboard holds only public results, and its id is a hash of its
filters and rows, so freezing one state again writes nothing and answers the same URI.
"""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from service.errors import BadRequest, Forbidden, NotFound, ServiceError
from service.evaluation.measures import MEASURES
from service.evaluation.results import interval_resamples, undefined_resamples_note
from service.graph import leaderboards
from service.graph.nodes import refuse_non_text
from service.graph.uris import gerbil
from service.web import conneg, listings, pages
from service.web.api import json_answer, json_body, unsupported_body
from service.web.citation import leaderboard_bibtex
from service.web.comparing import LEADERBOARD_TIERS
from service.web.resources import alternates, public_document, respond
from service.web.state import services
from service.web.submission import known_keys, utf8
from service.web.ui import (
    base_url,
    json_elsewhere,
    kb_of,
    kbs_mixed,
    kbs_unknown,
    page_of,
    paging,
    version_of,
    versions_mixed,
)

bp = Blueprint("frozen", __name__)

OFFERS = conneg.offers(quads=True, csv=True, bibtex=True)
FILTER_FIELDS = ("dataset", "language", "profile", "type", "sort")
FREEZE_KEYS = frozenset({*FILTER_FIELDS, "title"})  # POST /api/leaderboards' (OpenAPI, tested)
CSV_HEADER = (
    "rank",
    "tier",
    "system",
    "systemUri",
    "experiment",
    "task",
    "score",
    "scoreLow",
    "scoreHigh",
    "withdrawnAt",
    # new columns only at the end (the CSV's columns are a contract)
    "languageTag",  # the row's language(s): a board of several languages has a row for each
    "otherRunOf",  # another run of a ranked system: the task of its ranked run
    "profile",  # the row's profile: a board of several profiles has a row for each
    "knowledgeBase",  # the kb: field of the row's signature: rows of two KBs do not compare
    "undefinedResamples",  # resamples the ranked measure was undefined on (empty: none)
    "profileVersion",  # the v: field of the row's signature: versions rank apart
    "tierNote",  # why a row had no tier when frozen (boards frozen before 2026-11-29: empty)
    "tierSignature",  # how its tier and interval were computed (frozen before 2026-11-29: empty)
)


def _freeze(values: dict[str, Any]) -> tuple[str, bool]:
    """Freeze the leaderboard ``values`` name (the live leaderboard's filters, ``title``);
    its URI and whether it was written now. 400 for a bad filter or an empty leaderboard."""
    from service.web import ui

    given = {k: values[k] for k in (*FILTER_FIELDS, "title") if values.get(k) is not None}
    for name, value in given.items():  # each named, before anything is looked up: types
        if not isinstance(value, str):  # first, as every API body's are
            raise BadRequest(f"$.{name}: expected a string")
    for name, value in given.items():
        utf8(value, f"$.{name}")
        refuse_non_text(" ".join(value.split()), f"$.{name}")
    title = given.get("title", "")
    if len(title) > leaderboards.TITLE_LENGTH:  # the OpenAPI document's maxLength: refused
        raise BadRequest(  # as documented, not cut where a reader would not see it
            f"$.title: expected at most {leaderboards.TITLE_LENGTH} characters, got {len(title):,}",
            field="title",  # problems[].path, as every submission's 400 has it
        )
    chosen = ui.LeaderboardFilter.from_args(values)
    model = ui.leaderboard_model(chosen, listings.Page(1, leaderboards.MAX_ROWS), {})
    rows = ui.leaderboard_rows(model)
    if not rows:
        raise BadRequest("this leaderboard has no rows to freeze (no public results match it)")
    shown = model["chosen"]
    if all(r["measures"].get(shown.sort) is None for r in rows):  # every row "–": none ranked
        raise BadRequest(
            f"$.sort: no row of this leaderboard has {pages.measure_label(shown.sort)} "
            f"({shown.sort}), so it ranks nothing; freeze it sorted by a measure its rows have",
            field="sort",
        )
    dataset, language, profile = ui.filter_iris(shown)
    standing = leaderboards.Standing(
        experiment_type=gerbil(shown.experiment_type),
        measure=MEASURES[shown.sort].iri,
        dataset=dataset,
        language=language,
        profile=profile,
    )
    # rows tiered or told why not: the board had tiers; a row of it with neither is one below
    # the tiered ones, and keeps that as its reason (a row without a reason is then one of a
    # board frozen before reasons were kept, whatever its date: explore40 3)
    tiered = any(r["tierSignature"] or r["tierNote"] for r in rows)
    frozen = [
        leaderboards.Row(
            rank=r["rank"],
            task=r["task"],
            score=r["measures"].get(shown.sort),
            low=(r["intervals"].get(shown.sort) or (None, None))[0],
            high=(r["intervals"].get(shown.sort) or (None, None))[1],
            tier=r["tier"],
            tier_note=None if r["tier"] is not None else _tier_note(r, tiered),
            tier_signature=r["tierSignature"],  # the live row's (explore60 F3)
            other_run_of=r["otherRunOf"],
            **_undefined_resamples(r, shown.sort),
        )
        for r in rows
        if r["rank"] is not None  # a row without the measure ranks nowhere
    ]
    title = (values.get("title") or "").strip() or _default_title(shown)
    state = services()
    uri, created = leaderboards.freeze(state.storage, standing, frozen, title=title)
    if created:
        state.changed()  # a public write: listings, the sitemap and the endpoint see it
    return uri, created


def _tier_note(row: dict[str, Any], tiered: bool) -> str | None:
    """Why a live row without a tier has none, as its frozen row keeps it."""
    if row["tierNote"]:
        return str(row["tierNote"])
    if tiered and not row["tierSignature"]:
        return f"tiers are given to the top {LEADERBOARD_TIERS} rows only"
    return None


def _undefined_resamples(row: dict[str, Any], measure: str) -> dict[str, int]:
    """A live row's count of resamples its ranked measure was undefined on, and of how many
    (from its tiers' signature, which names the intervals' resamples), as a frozen row keeps
    them; none when either is unknown."""
    undefined = row["undefinedResamples"].get(measure, 0)
    resamples = interval_resamples(row["tierSignature"]) or 0
    return {"undefined": undefined, "resamples": resamples} if undefined and resamples else {}


def _default_title(chosen: Any) -> str:
    where = "" if chosen.dataset == "all" else f" on {chosen.dataset}"
    language = f", {chosen.language}" if chosen.language else ""
    profile = f", profile {chosen.profile}" if chosen.profile else ""
    measure = pages.measure_label(chosen.sort)
    return f"{chosen.experiment_type}{where}{language}{profile}: by {measure}"


@bp.post("/leaderboards/freeze")
def freeze_form() -> BaseResponse:
    """The leaderboard page's button: freeze what it shows, then show the frozen one."""
    uri, _ = _freeze({k: v for k, v in request.form.items() if v != ""})
    return redirect(page_of(uri), code=303)


@bp.post("/api/leaderboards")
def freeze_api() -> Response:
    if request.mimetype and not request.is_json:  # text/plain was read as JSON
        raise unsupported_body("the leaderboard's filters")
    body = json_body()
    if not isinstance(body, dict):
        raise BadRequest("$: expected a JSON object (the leaderboard's filters and a title)")
    # {"sortt": …} was frozen under the default sort without a word (explore64 F4)
    known_keys(body, FREEZE_KEYS, "$", what="a leaderboard's filters")
    for name, value in body.items():  # null was a filter left out; the document says a string
        if value is None:
            raise BadRequest(
                f"$.{name}: expected a string, got null (leave the key out for the default)",
                field=name,
            )
    uri, created = _freeze(body)
    lid = uri.rsplit("/", 1)[1]
    found = _read(lid)
    answer = _as_json(found)
    given = " ".join(str(body.get("title") or "").split())
    if not created and given and given != found.title:
        # the first freezer's title names the standings; a later one's was dropped unsaid,
        # as if the board were theirs (explore34 7)
        answer["alreadyFrozen"] = (
            f"these standings were frozen already (at {found.frozen_at}) as {found.title!r}, "
            f"at this URI: the title given, {given!r}, is not kept (a frozen leaderboard is "
            "named by its first freezer; cite it by its URI)"
        )
    response = json_answer(answer, 201 if created else 200)
    # its URI, as a submission's Location (the document's format uri): the path alone under
    # another host was relative (explore64 F8); the base is the store's, not the request's Host
    response.headers["Location"] = uri
    return response


@bp.get("/leaderboards/frozen")
def listing() -> Any:
    """The frozen leaderboards, newest first, a page at a time (``?page=N&size=M``; JSON: a
    303 to the API's list)."""
    if conneg.negotiate(request, (conneg.HTML, conneg.JSON)) is conneg.JSON:
        return json_elsewhere("frozen.list_api", **paging(request.args))
    page = listings.page_from(request.args)
    rows = leaderboards.listing(services().storage, limit=page.size + 1, offset=page.offset)
    response = Response(
        render_template(
            "frozen_leaderboards.html",
            rows=rows[: page.size],
            pages=pages,
            page=page,
            has_next=len(rows) > page.size,
            endpoint="frozen.listing",
            args=listings.page_args(request.args),
        ),
        content_type="text/html; charset=utf-8",
    )
    response.vary.add("Accept")
    return response


@bp.get("/api/leaderboards")
def list_api() -> Response:
    """Newest first, a page at a time (``?page=N&size=M``, 100 by default, ``next`` links the
    following page), as ``GET /api/experiments``."""
    page = listings.page_from(request.args, size=100, max_size=500)
    rows = leaderboards.listing(services().storage, limit=page.size + 1, offset=page.offset)
    following = None
    if len(rows) > page.size:
        query = urlencode({"page": page.number + 1, "size": page.size})
        following = f"{services().config.base}api/leaderboards?{query}"
    return json_answer(
        {
            "leaderboards": rows[: page.size],
            "page": page.number,
            "size": page.size,
            "next": following,
        }
    )


@bp.get("/api/leaderboards/<leaderboard_id>")
def one_api(leaderboard_id: str) -> Response:
    """The board's JSON; 410 Gone, saying when, for one the operator removed, as its URI
    answers (it said 404 "no frozen leaderboard" while the URI said 410; explore54 F3)."""
    try:
        found = _read(leaderboard_id)
    except NotFound:
        when = leaderboards.removed_at(services().storage, leaderboard_id)
        if when is None:
            raise
        raise ServiceError(_removed_message(leaderboard_id, when), status=410) from None
    return json_answer(_as_json(found))


@bp.delete("/api/leaderboards/<leaderboard_id>")
def remove_api(leaderboard_id: str) -> Response:
    """The operator removes a frozen leaderboard (``gerbil-qa leaderboard remove``): anyone
    may freeze, so spam and offensive titles must be removable on the running service."""
    from service.web.access import bearer_token, is_admin

    if not is_admin(bearer_token()):
        raise Forbidden("removing a frozen leaderboard needs the operator's admin token")
    found = _read(leaderboard_id)
    state = services()
    if not leaderboards.remove(state.storage, found.id):
        raise NotFound(f"no frozen leaderboard {leaderboard_id!r}")
    state.changed()  # a public write: listings, the sitemap, the endpoint and pages forget it
    return json_answer({"id": found.id, "uri": found.uri, "removed": True})


@bp.get("/leaderboard/<name>")
def frozen(name: str) -> BaseResponse:
    lid, ext = conneg.split_extension(name)
    try:
        found = _read(lid)
    except NotFound:
        gone = _removed(lid, ext)
        if gone is None:
            raise
        return gone
    rep = conneg.negotiate(request, OFFERS, extension=ext, default=conneg.HTML)
    quads = public_document(found.uri, rep)
    base = services().storage.uris.base

    # the rows (a query of their tasks) only for the representations that show them: the
    # RDF ones are the stored graph alone
    @cache
    def rows() -> list[dict[str, Any]]:
        return _shown_rows(found)

    @cache
    def bibtex() -> str:
        ranks = _ranks(
            found, _kbs_mixed(rows()), _versions_mixed(rows()), _profile_label(found, rows())
        )
        return leaderboard_bibtex(
            found.id, found.uri, found.title, found.frozen_at, base=base, ranks=ranks
        )

    return respond(
        found.uri,
        OFFERS,
        rep,
        quads=lambda: quads,
        html=lambda: render_template(
            "frozen_leaderboard.html",
            frozen=found,
            rows=rows(),
            language=_language_label(found, rows()),
            # rows of several languages or profiles: a column tells them apart, and a system
            # takes a rank in each (the note says so)
            languages_mixed=len({r["languageTag"] for r in rows()}) > 1,
            profiles_mixed=len({r["profile"] for r in rows()}) > 1,
            kbs_mixed=_kbs_mixed(rows()),  # the live board's notice, kept with its rows
            kbs_unknown=kbs_unknown((r["profile"], r["knowledgeBase"]) for r in rows()),
            versions_mixed=_versions_mixed(rows()),
            # why rows had no tier, each said once under the table, as the live board does
            tier_reasons=list(dict.fromkeys(r["tierNote"] for r in rows() if r["tierNote"])),
            tier_methods=tier_methods(rows()),
            ranks_by_version=_ranked_by_version(rows()),
            live=url_for("ui.leaderboards", **_live_args(found)),
            labels=_filter_labels(found),
            profile=_profile_label(found, rows()),
            dataset=_dataset_label(found.standing.dataset) if found.standing.dataset else None,
            bibtex=bibtex(),
            alternates=alternates(found.uri, OFFERS),
            pages=pages,
        ),
        # ending in a newline as the experiments' and datasets' do: `cat a.bib b.bib` joined
        # "}@misc{" on one line (explore55 F8)
        bibtex=lambda: (bibtex() + "\n").encode("utf-8"),
        csv=lambda: pages.csv_table(list(CSV_HEADER), [[r[k] for k in CSV_HEADER] for r in rows()]),
    )


def tier_methods(rows: list[dict[str, Any]]) -> list[str]:
    """How the tiers and intervals of a frozen board's rows were computed, one sentence per
    ``tierSignature`` its rows keep (rows of an older profile version are tiered among
    themselves: a signature of their own); none for a board frozen before they were kept (a
    frozen board kept its tiers, not how they were computed: explore60 F3)."""
    out = []
    for signature in dict.fromkeys(r["tierSignature"] for r in rows if r["tierSignature"]):
        interval, _, test = signature.partition("|test:")
        ci = dict(f.split(":", 1) for f in interval.split("|ci:", 1)[-1].split("|") if ":" in f)
        fields = dict(f.split(":", 1) for f in f"test:{test}".split("|") if ":" in f)
        name = {
            "ar": "approximate randomisation",
            "mcnemar": "McNemar's test",
            "bootstrap": "a paired bootstrap",
        }.get(fields.get("test", ""), fields.get("test", "?"))
        unit = {"ar": "shuffles", "bootstrap": "resamples"}.get(fields.get("test", ""), "samples")
        samples = f", {int(fields['n']):,} {unit}" if fields.get("n", "").isdigit() else ""
        seed = f", seed {fields['seed']}" if "seed" in fields else ""
        correction = fields.get("correction", "?").capitalize()
        pairs = fields.get("pairs", "?")
        resamples = f"{int(ci['n']):,}" if ci.get("n", "").isdigit() else "?"
        out.append(
            f"Tiers tested with {name}{samples}{seed}, {correction}-corrected over "
            f"{pairs} pair{'' if pairs == '1' else 's'} (alpha {fields.get('alpha', '?')}); "
            f"intervals from {resamples} bootstrap resamples, seed {ci.get('seed', '?')}"
        )
    return out


def _removed(leaderboard_id: str, ext: str | None) -> BaseResponse | None:
    """410 Gone for a frozen leaderboard the operator removed (the admin graph keeps when:
    ``gqa:removedAt``), in the representation asked: a page, or the one triple saying when in
    an RDF syntax; nothing else of it (its title may be why it went). None: never frozen."""
    import pyoxigraph as ox

    from service.graph.uris import GQA
    from service.web.rdf_out import CONTEXT_PATH, serialize

    storage = services().storage
    when = leaderboards.removed_at(storage, leaderboard_id)
    if when is None:
        return None
    uri = storage.uris.leaderboard(leaderboard_id)
    rep = conneg.negotiate(request, OFFERS, extension=ext, default=conneg.HTML)
    message = _removed_message(leaderboard_id, when)
    if rep is conneg.HTML:
        page = render_template(
            "error.html", status=410, reason="Gone", message=message, problems=None
        )
        response = Response(page, content_type="text/html; charset=utf-8")
    elif rep.rdf is not None:
        quad = ox.Quad(ox.NamedNode(uri), ox.NamedNode(GQA + "removedAt"), when)
        context = services().config.base + CONTEXT_PATH
        body = serialize([quad], rep.rdf, context_url=context)
        response = Response(body, content_type=f"{rep.media_type}; charset=utf-8")
    else:  # CSV, BibTeX: no table or citation of what is gone
        response = Response(message + "\n", content_type="text/plain; charset=utf-8")
    response.status_code = 410
    response.headers["Cache-Control"] = "public, no-cache"
    response.vary.add("Accept")
    return response


def _removed_message(leaderboard_id: str, when: Any) -> str:
    """What a removed frozen leaderboard's URI and JSON say. Not "gone for good": freezing the
    same standings again brings the same URI back, as the README says (explore54 F2)."""
    uri = services().storage.uris.leaderboard(leaderboard_id)
    said = f"{when.value[:19].replace('T', ' ')} UTC"
    return (
        f"The frozen leaderboard {uri} was removed by the operator of this service on {said}; "
        "its URI answers again if the same standings are frozen anew (the live leaderboards "
        f"are at {services().config.base}leaderboards)."
    )


def _read(leaderboard_id: str) -> leaderboards.Frozen:
    found = None
    if len(leaderboard_id) == 16 and all(c in "0123456789abcdef" for c in leaderboard_id):
        found = leaderboards.read(services().storage, leaderboard_id)
    if found is None:
        raise NotFound(f"no frozen leaderboard {leaderboard_id!r}")
    return found


def _shown_rows(found: leaderboards.Frozen) -> list[dict[str, Any]]:
    """Each row with the system and experiment of its task, and when that experiment was
    withdrawn if it was (the row stays: the leaderboard is as it stood)."""
    about = leaderboards.tasks_about(services().storage, [r.task for r in found.rows])
    out = []
    for row, entry in zip(found.rows, found.entries, strict=True):
        facts = about.get(row.task, {})
        out.append(
            {
                "rank": row.rank,
                "tier": row.tier,
                "tierNote": row.tier_note,
                "tierSignature": row.tier_signature,
                "system": facts.get("systemLabel"),
                "systemUri": facts.get("system"),
                "experiment": facts.get("experiment"),
                "languageTag": facts.get("languageTag"),
                "profile": facts.get("profile"),
                "knowledgeBase": kb_of(facts.get("signature")),
                "profileVersion": version_of(facts.get("signature")),
                "task": row.task,
                "score": row.score,
                "scoreLow": row.low,
                "scoreHigh": row.high,
                # on how many resamples the ranked measure was undefined, said as the live
                # leaderboard says it (null: never)
                "undefinedResamples": row.undefined or None,
                "intervalNote": (
                    undefined_resamples_note(
                        row.undefined, row.resamples, bounded=row.low is not None
                    )
                    if row.undefined and row.resamples
                    else None
                ),
                "withdrawnAt": facts.get("withdrawnAt"),
                "otherRunOf": row.other_run_of,
                "entry": entry,
            }
        )
    return out


def _kbs_mixed(rows: list[dict[str, Any]]) -> list[str]:
    """The profiles whose rows were computed on different knowledge bases: read from the
    ranked tasks' signatures, not stored with the rows, so a board frozen before this was
    said keeps its id (the hash of its rows) and says it too."""
    return kbs_mixed((r["profile"], r["knowledgeBase"]) for r in rows)


def _versions_mixed(rows: list[dict[str, Any]]) -> dict[str, list[str]]:
    """The profiles whose rows were scored under several of its versions, and those: read from
    the ranked tasks' signatures, as the KBs are."""
    return versions_mixed((r["profile"], r["profileVersion"]) for r in rows)


def _profile_label(found: leaderboards.Frozen, rows: list[dict[str, Any]]) -> str | None:
    """The profile a board was filtered to, with the version its rows were scored under when
    they share one ("qald6 1.1.0"): a board frozen under an older version than the profile's
    current one said "qald6" alone, though that version's rule is not the current one's
    (explore35 12; the version is the ``v:`` field of each row's signature). Rows of several
    versions: the name alone (the page and the BibTeX name the versions beside it)."""
    profile = _filter_labels(found)["profile"]
    if not profile:
        return None
    versions = {r["profileVersion"] for r in rows if r["profile"] == profile}
    version = next(iter(versions)) if len(versions) == 1 else None
    return f"{profile} {version}" if version else profile


def _ranked_by_version(rows: list[dict[str, Any]]) -> bool:
    """Whether each version of a profile was ranked among its own rows (each counts from 1),
    as boards frozen from 29 November 2026 are; the ranks of those frozen before ran through
    them all (explore27 1)."""
    first: dict[tuple[Any, ...], int] = {}
    for r in rows:
        if r["rank"] is not None:
            key = (r["languageTag"], r["profile"], r["profileVersion"])
            first[key] = min(first.get(key, r["rank"]), r["rank"])
    return all(rank == 1 for rank in first.values())


def _as_json(found: leaderboards.Frozen) -> dict[str, Any]:
    standing = found.standing
    rows = _shown_rows(found)
    return {
        "uri": found.uri,
        "id": found.id,
        "title": found.title,
        "frozenAt": found.frozen_at,
        "type": _local(standing.experiment_type),
        "rankedBy": _local(standing.measure),
        "dataset": standing.dataset,
        "language": standing.language,
        "profile": standing.profile,
        "live": base_url("ui.leaderboards", **_live_args(found)),
        "mixedKnowledgeBases": _kbs_mixed(rows),
        "mixedProfileVersions": _versions_mixed(rows),
        "rows": rows,
    }


def _live_args(found: leaderboards.Frozen) -> dict[str, Any]:
    """The live leaderboard's filters for this frozen one (to see how it stands now)."""
    labels = _filter_labels(found)
    args = {
        "dataset": labels["dataset"] or "all",
        "language": labels["language"],
        "profile": labels["profile"],
        "type": labels["type"],
        "sort": labels["rankedBy"],
    }
    return {k: v for k, v in args.items() if v}


def _filter_labels(found: leaderboards.Frozen) -> dict[str, str | None]:
    standing = found.standing
    return {
        "dataset": _local(standing.dataset, unquote=True),
        "language": _local(standing.language),
        "profile": _local(standing.profile).removeprefix("profile-") if standing.profile else None,
        "type": _local(standing.experiment_type),
        "rankedBy": _local(standing.measure),
    }


def _dataset_label(iri: str) -> str:
    """A ranked dataset as a paper reporting the standings names it: an upload by title and
    version ("Birds QA, version 2 (birds-qa-9bcc958d)"), as an experiment's citation does; a
    catalogue dataset by its name."""
    return listings.upload_labels([iri]).get(iri) or _local(iri, unquote=True)


def _language_label(found: leaderboards.Frozen, rows: list[dict[str, Any]]) -> str | None:
    """The Language the page says: for the pooled tasks (``mul``, a code few readers know), the
    languages they pool ("en,es"), as the live leaderboard's Lang. column says them."""
    language = _filter_labels(found)["language"]
    tags = sorted({r["languageTag"] for r in rows if r["languageTag"]})
    return "; ".join(tags) if language == "mul" and tags else language


def _local(iri: str | None, *, unquote: bool = False) -> Any:
    """The last segment (or fragment) of an IRI: a dataset's name, a measure's, a code's."""
    if iri is None:
        return None
    from urllib.parse import unquote as decode

    name = iri.rsplit("#", 1)[-1] if "#" in iri else iri.rstrip("/").rsplit("/", 1)[-1]
    return decode(name) if unquote else name


def _ranks(
    found: leaderboards.Frozen,
    mixed_kbs: list[str],
    mixed_versions: dict[str, list[str]],
    profile: str | None = None,
) -> str:
    """What a frozen leaderboard ranks, in words: its experiment type and measure, the
    dataset, profile and language it was filtered to (else "all profiles", "all languages"),
    and the profiles whose rows were computed on different KBs (``mixed_kbs``) or scored under
    different versions (``mixed_versions``), which a reader of the ranks alone would take for
    one standing; ``profile``: the filtered profile as the page names it, with its version."""
    standing = found.standing
    measure = next((n for n, m in MEASURES.items() if m.iri == standing.measure), None)
    said = f"ranks {pages.local(standing.experiment_type)} results by "
    said += pages.measure_label(measure) if measure else pages.local(standing.measure)
    if standing.dataset:
        said += f" on {_dataset_label(standing.dataset)}"
    filters = [  # or, unfiltered, that its rows mix them (a system ranked in each)
        f"profile {profile or pages.profile_name(standing.profile)}"
        if standing.profile
        else "all profiles",
        f"language {_local(standing.language)}" if standing.language else "all languages",
    ]
    said += "".join(f", {f}" for f in filters if f)
    if mixed_kbs:
        said += (
            f"; rows of profile {', '.join(mixed_kbs)} were computed on different knowledge "
            "bases: only rows of one knowledge base are comparable"
        )
    for profile, versions in mixed_versions.items():
        said += f"; rows of profile {profile} were scored under versions {' and '.join(versions)}"
    return said
