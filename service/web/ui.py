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
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from service import catalog
from service.csv_table import items_cell
from service.errors import BadRequest, NotFound
from service.evaluation.profiles import get_profile
from service.evaluation.results import COUNT_MEASURES, ExperimentType, signature_fields
from service.graph.leaderboards import MAX_ROWS
from service.release import source
from service.web import comparing, conneg, listings, pages
from service.web.cache import PUBLIC_CACHE
from service.web.citation import doi_of
from service.web.pages import local
from service.web.rdf_out import context_document
from service.web.state import services

bp = Blueprint("ui", __name__, static_folder="static", static_url_path="/static")

HOME_LEADERBOARD_ROWS = 15
HOME_EXPERIMENTS = 10
HOME_DATASETS = 12  # datasets offered next to the home leaderboard (the catalogue has all)


@bp.app_context_processor
def _globals() -> dict[str, object]:
    return {"version": source().version, "web_link": pages.web_link, "base_url": base_url}


def site_root() -> str:
    """The root of the site as its client asked it: the base when the client asked the base's
    host and path (a proxy in front ends TLS, so the request says ``http`` where the base says
    ``https``), else the address asked (the service reached directly, or under another name)."""
    base = services().storage.uris.base
    if not request.host:  # a host Werkzeug does not read (``gerbil_qa``: service.web.hosts)
        return base
    asked = url_for("ui.home", _external=True)
    ours, theirs = urlsplit(base), urlsplit(asked)
    same = (ours.netloc.lower(), ours.path) == (theirs.netloc.lower(), theirs.path)
    return base if same else asked


def page_of(uri: str) -> str:
    """The page of one of our URIs on the host the client asked (:func:`site_root`): where a
    form sends its browser after a POST. The base URI (another name, ``localhost`` for
    ``127.0.0.1``) was blocked by the page's own CSP ``form-action 'self'``, which also holds
    for the redirect after a form: the work was done and the page stayed as it was. Absolute
    under the base when the client asked the base's host and path; else the path alone, which
    the client resolves on the host it asked: the request's ``Host`` is not written back
    (``Host: evil.example`` gave ``http://evil.example/…``: explore56 F3), as the token's
    redirect and the one to a submitted run's page are paths too."""
    base = services().storage.uris.base
    if not uri.startswith(base):
        return uri
    root = site_root()
    return (root if root == base else url_for("ui.home")) + uri[len(base) :]


def external_url(endpoint: str, **values: Any) -> str:
    """``url_for(endpoint, _external=True)`` under :func:`site_root`."""
    return site_root() + url_for(endpoint, **values)[len(url_for("ui.home")) :]


def base_url(endpoint: str, **values: Any) -> str:
    """``url_for(endpoint, _external=True)`` under the store's base (``--base``), whatever host
    was asked: a URL a page or document gives to be used elsewhere (``POST …/rescore`` said on
    the experiment page, a frozen board's ``live``), as every URI and the API's ``statusUrl``
    are; they were on the request's host, 127.0.0.1:PORT for a service reached directly
    (explore35 9). What the client follows here and now (a redirect, the sitemap, a table's
    ``next``) stays on the host asked: :func:`external_url`."""
    return services().storage.uris.base + url_for(endpoint, **values)[len(url_for("ui.home")) :]


def cached_page(
    key: tuple[object, ...], render: Callable[[], str], *, content_type: str = "text/html"
) -> BaseResponse:
    """A page of public data (HTML, or a table's JSON or CSV), from the page cache when it was
    rendered since the last write (an ETag lets browsers revalidate). Kept per host asked: a
    page's absolute links (the sitemap, a table's ``next``) are on that host, so one request
    under another ``Host`` must not set what everyone else reads."""
    cache = services().cache
    key = (request.root_url, *key)
    rendered = cache.get(key)
    if rendered is None:
        rendered = cache.rendered(render().encode("utf-8"), f"{content_type}; charset=utf-8")
        cache.put(key, rendered)
    response = Response(rendered.body, content_type=rendered.content_type)
    response.headers["Cache-Control"] = PUBLIC_CACHE  # revalidated, as every public document
    response.set_etag(rendered.etag)
    return response.make_conditional(request)


# The catalogue names the home page (its foaf:homepage) and describes it; a client asking the
# home page for RDF is sent there (303) rather than handed HTML it did not ask for.
HOME_OFFERS = conneg.offers(quads=True)


@bp.get("/")
def home() -> BaseResponse:
    rep = conneg.negotiate(request, HOME_OFFERS, default=conneg.HTML)
    if rep is not conneg.HTML:
        moved = redirect(f"{services().storage.uris.catalog}.{rep.extension}", code=303)
        moved.vary.add("Accept")
        return moved
    asked = request.args.get("dataset") or None

    def render() -> str:
        used = listings.datasets_with_results(listings.row_counts("QA"))
        chosen = next((d for d in used if d.name == asked), None) if asked else None
        if chosen is None and used and asked is None:
            chosen = used[0]
        if asked and chosen is None:  # a mistyped name: 400 naming the nearest, as leaderboards
            _known_dataset(asked, services().storage.uris.dataset(asked), used)
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

    response = cached_page(("page:home", asked), render)
    response.vary.add("Accept")
    return response


LEADERBOARD_COLUMNS = COUNT_MEASURES  # the headline measures


ALL_DATASETS = "all"


@dataclass(frozen=True, slots=True)
class LeaderboardFilter:
    """What ``leaderboards`` shows: one experiment type on one dataset (or all), in one
    language and profile (or all), sorted by one measure, best first."""

    dataset: str | None = None  # the dataset's name; None: the most used; "all": every one
    language: str | None = None  # an ISO 639 code
    profile: str | None = None  # a profile's name
    experiment_type: str = "QA"
    sort: str = "macroF1"
    default_sort: str = "macroF1"  # what it is sorted by unless told: left out of its links

    @classmethod
    def from_args(cls, args: Any) -> LeaderboardFilter:
        """The filter of a request's query; a bad value is a 400 naming it and what fits."""
        from service.evaluation.results import ExperimentType
        from service.graph.terms import language_iri

        language = args.get("language") or None
        if language is not None and language_iri(language) is None:
            raise BadRequest(f"language={language!r}: expected an ISO 639 code such as en")
        profile = args.get("profile") or None
        if profile is not None:
            get_profile(profile)  # 400 naming the known profiles
        etype = args.get("type") or "QA"
        if etype not in {t.value for t in ExperimentType}:
            known = ", ".join(t.value for t in ExperimentType)
            raise BadRequest(f"type={etype!r}: expected one of {known}")
        dataset = args.get("dataset") or None
        default = default_sort(profile, dataset)  # one lookup a request, its links use it too
        sort = args.get("sort") or default
        if sort not in sortable_measures():
            raise BadRequest(f"sort={sort!r}: expected one of {', '.join(sortable_measures())}")
        return cls(dataset, language, profile, etype, sort, default)

    def args(self, **changed: str) -> dict[str, str]:
        """The filter as query arguments (defaults left out), with ``changed`` applied."""
        values = {
            "dataset": self.dataset,
            "language": self.language,
            "profile": self.profile,
            "type": None if self.experiment_type == "QA" else self.experiment_type,
            "sort": None if self.sort == self.default_sort else self.sort,
        }
        values.update(changed)
        return {k: v for k, v in values.items() if v}


def default_sort(profile: str | None, dataset: str | None) -> str:
    """What a leaderboard is ranked by unless ``sort`` says: the measure of the profile chosen,
    else of the dataset's own (a built-in one's, a published upload's), else macro F1 (a
    PolEval board was "by macro F1" where its task's metric is accuracy)."""
    from service.evaluation.profiles import PROFILES

    if profile is None and dataset not in (None, "all"):
        from service import catalog

        profile = catalog.own_profile_of(dataset)
        if profile is None and not any(e.name == dataset for e in catalog.entries()):
            profile = catalog.own_profile_of_upload(services().storage.catalogue, dataset)
    found = PROFILES.get(profile) if profile else None
    return found.ranked_by if found is not None else "macroF1"


def sortable_measures() -> list[str]:
    """Every measure a leaderboard can be sorted by: the registry's, but the counts."""
    from service.evaluation.measures import MEASURES

    return [
        m
        for m in MEASURES
        if m not in ("questions", "skippedQuestions", "errorCount", "meanRuntime")
    ]


# A leaderboard is a table: a challenge links it, and scripts read it, at the page's own URL.
LEADERBOARD_OFFERS = (conneg.HTML, conneg.JSON, conneg.CSV)


@bp.get("/leaderboards")
def leaderboards() -> BaseResponse:
    """Leaderboards filtered by dataset, language, profile and experiment type, sorted by any
    measure on the server (``?dataset=…&language=…&profile=…&type=…&sort=…&page=N``):
    the published query sorted by that one measure, the shown rows' other measures and
    papers read by index lookups. Without ``dataset``, the dataset with the most rows of
    the experiment type (as on the home page, QA); ``dataset=all`` ranks every dataset's results
    together. Each filter value shows its rows (``listings.RowCounts``). The same rows as JSON
    or CSV (``?format=json|csv`` or ``Accept``)."""
    chosen = LeaderboardFilter.from_args(request.args)
    page = listings.page_from(request.args)
    # what the cache key holds, not the request's own query: the first requester's extra
    # arguments (?ref=…) were in the cached page's alternate links everyone got (explore40 6)
    args = {**chosen.args(), **parsed_page_args(page)}
    rep = conneg.negotiate(request, LEADERBOARD_OFFERS, default=conneg.HTML)

    write = {"json": _leaderboard_json, "csv": _leaderboard_csv}.get(rep.key)

    def render() -> str:
        model = leaderboard_model(chosen, page, args)
        if write:
            return write(model)
        shown = format_alternates(LEADERBOARD_OFFERS, args)
        return render_template("leaderboards.html", alternates=shown, **model)

    key = ("page:leaderboards", chosen, page, rep.key)
    response = cached_page(key, render, content_type=rep.media_type)
    response.vary.add("Accept")
    return with_alternates(response, rep, LEADERBOARD_OFFERS, args, "leaderboards")


def parsed_page_args(page: listings.Page) -> dict[str, str]:
    """``page`` as query arguments, defaults left out (the page's number, its size)."""
    default = listings.page_from({})
    out = {"page": str(page.number)} if page.number != default.number else {}
    if page.size != default.size:
        out["size"] = str(page.size)
    return out


def format_alternates(
    offered: Sequence[conneg.Representation],
    args: Mapping[str, str],
    *,
    json_at: str | None = None,
) -> list[dict[str, str]]:
    """The other formats of a listing page offered by ``?format=`` (its filters kept), as
    ``resources.alternates`` gives a resource's: for ``<link rel="alternate">`` and ``Link``.
    ``json_at``: the API's URL of the rows, where the page's JSON is a 303 to it
    (:func:`json_elsewhere`): ``systems?format=json`` was said to be ``application/json``
    and answered a redirect (explore51 F4)."""
    from urllib.parse import urlencode

    # under the store's base, as every other page's: the host asked gave each replica (each
    # name of the service) its own page and ETag of /leaderboards and /experiments (explore37 4)
    here = base_url(request.endpoint or "ui.home", **(request.view_args or {}))
    return [
        {
            "media_type": r.media_type,
            "href": json_at
            if json_at is not None and r is conneg.JSON
            else f"{here}?{urlencode({**args, 'format': r.key})}",
            "label": r.label,
        }
        for r in offered
        if r is not conneg.HTML
    ]


def with_alternates(
    response: BaseResponse,
    rep: conneg.Representation,
    offered: Sequence[conneg.Representation],
    args: Mapping[str, str],
    name: str,
    *,
    json_at: str | None = None,
) -> BaseResponse:
    """``Link: rel="alternate"`` to each other format of a listing page (RFC 8288, as every
    negotiated resource says them), and a CSV's file name, as a frozen board's CSV has
    (explore29 7)."""
    links = [
        f'<{a["href"]}>; rel="alternate"; type="{a["media_type"]}"'
        for a in format_alternates(offered, args, json_at=json_at)
    ]
    existing = response.headers.get("Link")
    response.headers["Link"] = ", ".join([*([existing] if existing else []), *links])
    if rep is conneg.CSV:
        response.headers["Content-Disposition"] = f'inline; filename="{name}.csv"'
    return response


def leaderboard_model(
    chosen: LeaderboardFilter, page: listings.Page, args: dict[str, str]
) -> dict[str, Any]:
    """Everything a leaderboard shows, in any of its formats (the template's names)."""
    from service.evaluation.statistics import DEFAULT_RESAMPLES, DEFAULT_SHUFFLES

    counts = listings.row_counts(chosen.experiment_type)
    # each dataset's rows under the other filters: the default is the one with the most (a
    # profile chosen alone showed the demo's "No public results" while another dataset had them)
    ranked = listings.datasets_with_results(counts, filter_iris(replace(chosen, dataset=None)))
    # one dataset unless all are asked for: a ranking across datasets compares little, and
    # sorting every task of every dataset is what costs (~0.5 s at 5,000 experiments)
    default = max(ranked, key=lambda d: d.tasks).name if ranked else ALL_DATASETS
    dataset = chosen.dataset or default
    shown_filter = replace(chosen, dataset=dataset)
    filters = filter_iris(shown_filter)
    _known_dataset(dataset, filters[0], ranked)
    query = partial(
        listings.leaderboard,
        dataset=filters[0],
        language=filters[1],
        profile=filters[2],
        experiment_type=chosen.experiment_type,
        measures=(chosen.sort,),
    )
    rows = query(limit=page.size + 1, offset=page.offset)
    shown = rows[: page.size]
    ranks, other_runs = _competition_ranks(shown, chosen.sort, page.offset, query)
    columns = [chosen.sort, *(m for m in LEADERBOARD_COLUMNS if m != chosen.sort)]
    # tiers where rows are comparable: one dataset, language, profile, a count measure (of any
    # experiment type: a sub-experiment's per-question records are scored as QA's);
    # a language or profile is one when chosen or when every row shown has the same
    # the tiers are the top rows' (LEADERBOARD_TIERS): a later page within them shows its
    # rows' (with size=2, page 2's ranks 3 and 4 had theirs on no page), one after them none
    top_n = comparing.LEADERBOARD_TIERS
    top = shown if page.offset == 0 else query(limit=top_n, offset=0) if page.offset < top_n else []
    alike = (
        dataset != ALL_DATASETS
        and (chosen.language or len({r.language for r in top or shown}) == 1)
        and (chosen.profile or len({r.profile for r in top or shown}) == 1)
        and chosen.sort in COUNT_MEASURES
    )
    comparable = alike and bool(top)
    tested = _tested_rows(top, top_n, query)
    standings = (
        comparing.leaderboard_tiers([r.task for r in tested], chosen.sort, chosen.experiment_type)
        if comparable
        else {}
    )
    if comparable:
        standings.update(
            (r.task, comparing.Standing(None, None, reason=comparing.REFERENCE))
            for r in top
            if r.reference
        )
    if page.offset:  # the page's rows only: the note says whose tiers they are
        standings = {r.task: standings[r.task] for r in shown if r.task in standings}
    return {
        "chosen": shown_filter,
        "rows": shown,
        "ranks": ranks,
        "other_runs": other_runs,
        "kbs_mixed": kbs_mixed((r.profile, kb_of(r.signature)) for r in shown),
        "kbs_unknown": kbs_unknown((r.profile, kb_of(r.signature)) for r in shown),
        "versions_mixed": versions_mixed((r.profile, version_of(r.signature)) for r in shown),
        "version_of": version_of,
        # the failed calls beside the scores (not a column to sort by: fewer is not better
        # when the service was not asked at all)
        "measures": listings.task_measures([r.task for r in shown], [*columns, "errorCount"]),
        "papers": listings.papers(r.experiment for r in shown),
        "columns": columns,
        "sortable": sortable_measures(),
        **_filter_choices(counts, shown_filter, filters),
        "all_datasets": ALL_DATASETS,
        "types": [t.value for t in ExperimentType],
        "page": page,
        "has_next": len(rows) > page.size,
        "endpoint": "ui.leaderboards",
        "args": {**shown_filter.args(), **listings.page_args(args)},
        "doi_of": doi_of,
        "pages": pages,
        "compare_measures": COUNT_MEASURES,
        "standings": standings,
        # why a row has no tier, each said once as text under the table (each "–" links its
        # own): a title tooltip was no keyboard's, touch's or every screen reader's (explore32 4)
        "tier_reasons": list(
            dict.fromkeys(
                s.reason
                for r in shown
                if (s := standings.get(r.task)) is not None and s.reason and not s.tier
            )
        ),
        "tiers_given": any(s.tier or s.interval for s in standings.values()),
        "tiers_offered": bool(comparable),
        "tiers_before_this_page": bool(alike) and not top,
        # a system takes a rank per dataset, language and profile (version): said when rows
        # mix them
        "ranks_mixed": len(
            {(r.dataset, r.languages, r.profile, version_of(r.signature)) for r in shown}
        )
        > 1,
        "tier_rows": comparing.LEADERBOARD_TIERS,
        # the note says how the tiers were computed: the compare page's defaults, named here
        "tier_resamples": DEFAULT_RESAMPLES,
        "tier_shuffles": DEFAULT_SHUFFLES,
        "freeze_rows": MAX_ROWS,
    }


def _tested_rows(
    top: list[listings.LeaderboardRow],
    top_n: int,
    query: Callable[..., list[listings.LeaderboardRow]],
) -> list[listings.LeaderboardRow]:
    """The board's first ``top_n`` participants (reference runs are shown, not tested), read
    past ``top`` when its reference rows leave fewer: page 1 took them from its own rows, a
    later page from the first ``top_n`` rows less the reference ones, and the two pages
    tested other families (explore27 F13)."""
    if not top:
        return []
    tested = [r for r in top if not r.reference][:top_n]
    limit = len(top)
    while len(tested) < top_n and limit == len(top):  # more rows may follow
        limit += top_n
        top = query(limit=limit, offset=0)
        tested = [r for r in top if not r.reference][:top_n]
    return tested


def same_score(a: float | None, b: float | None) -> bool:
    """Whether two scores tie: equal but for the last bits of a float (a pooled task's mean
    summed in another order differed from the same answers' mean in its 16th digit, and three
    rows showing one score ranked 1, 1, 3)."""
    return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _competition_ranks(
    shown: list[listings.LeaderboardRow],
    sort: str,
    offset: int,
    query: Callable[..., list[listings.LeaderboardRow]],
) -> tuple[dict[str, int | None], dict[str, str]]:
    """Each shown row's rank, and the rows that are another run of a system ranked above.

    Ranks count systems, not runs: a system published twice (two experiments, the same answer
    file) was ranked 2 and 2, and the next system "4th" of three. A system's best run on the
    row's dataset, language(s) and profile takes its rank (one more than the systems scoring
    better, so equal scores share it: 1, 1, 3); its other runs there keep that rank, consume
    none, and name the task that holds it (the second dict: task → its best run's task). A
    later page reads the rows before it for that (the systems ranked there). A row without
    the measure (sorted last) is not ranked: None, shown as "–"."""
    before: list[listings.LeaderboardRow] = []
    if offset and shown and shown[0].measures.get(sort) is not None:
        before = query(limit=offset, offset=0)
    ranks: dict[str, int | None] = {}
    other_runs: dict[str, str] = {}
    best: dict[tuple[str | None, ...], tuple[str, int]] = {}  # system's key → (task, rank)
    # ranks count within a dataset, language(s) and profile: rows mixing them were numbered
    # 1 to 6 across all, so a system's rank in its language depended on the others (explore25 13)
    counted: dict[tuple[str | None, ...], int] = {}
    previous: dict[tuple[str | None, ...], tuple[float, int]] = {}
    for row in [*before, *shown]:
        score = row.measures.get(sort)
        if score is None or row.reference:  # a reference run is shown, not ranked
            ranks[row.task] = None
            continue
        # and within a version of the profile, as the tiers are (explore27 1)
        group = (row.dataset, row.languages, row.profile, version_of(row.signature))
        key = (row.system, *group)
        if key in best:
            other_runs[row.task], ranks[row.task] = best[key]
            continue
        counted[group] = position = counted.get(group, 0) + 1
        last = previous.get(group)
        rank = last[1] if last and same_score(last[0], score) else position
        best[key] = (row.task, rank)
        ranks[row.task] = rank
        previous[group] = (score, rank)
    return ranks, other_runs


def leaderboard_rows(model: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows a leaderboard shows, as data: rank, tier and the ranked measure's interval
    (where the page shows them), the links to cite, every measure of the page's columns."""
    page, sort = model["page"], model["chosen"].sort
    out = []
    for position, row in enumerate(model["rows"], start=page.offset + 1):
        rank = model["ranks"].get(row.task, position)
        standing = model["standings"].get(row.task)
        interval = standing.interval if standing else None
        undefined = standing.undefined if standing else 0
        out.append(
            {
                "rank": rank,
                "tier": standing.tier if standing else None,
                "system": row.system_label,
                "systemUri": row.system,
                "experiment": row.experiment,
                "task": row.task,
                "dataset": row.dataset,
                "language": row.language,
                "languageTag": row.languages,
                "profile": row.profile,
                "profileVersion": version_of(row.signature),  # the version it was scored under
                "signature": row.signature,
                "measures": {
                    m: model["measures"].get(row.task, {}).get(m) for m in model["columns"]
                },
                "intervals": {sort: list(interval)} if interval else {},
                # on how many resamples the ranked measure was undefined (more than 25 of
                # 1,000: no interval)
                "undefinedResamples": {sort: undefined} if undefined else {},
                "papers": list(model["papers"].get(row.experiment, ())),
                "revisionOf": row.revision_of,
                "tierSignature": standing.signature if standing else None,
                # why a row has no tier (another signature or languages, an older version)
                "tierNote": standing.reason if standing else None,
                "errorCount": _count(model["measures"].get(row.task, {}).get("errorCount")),
                # another run of a system ranked above: the task of its ranked (best) run
                "otherRunOf": model["other_runs"].get(row.task),
                "reference": row.reference,  # a reference system's run: shown, not ranked
            }
        )
    return out


def _count(value: Any) -> int | None:
    return None if value is None else int(value)


def _leaderboard_json(model: dict[str, Any]) -> str:
    chosen, page = model["chosen"], model["page"]
    following = {**model["args"], "page": str(page.number + 1), "format": "json"}
    return json.dumps(
        {
            "dataset": chosen.dataset,
            "language": chosen.language,
            "profile": chosen.profile,
            "type": chosen.experiment_type,
            "sort": chosen.sort,
            "page": page.number,
            "size": page.size,
            "next": external_url("ui.leaderboards", **following) if model["has_next"] else None,
            # the page's notice, as the frozen board's JSON gives it (explore30 F2)
            "mixedProfileVersions": model["versions_mixed"],
            "rows": leaderboard_rows(model),
        },
        indent=1,
    )


def _leaderboard_csv(model: dict[str, Any]) -> str:
    sort = model["chosen"].sort
    header = ["rank", "tier", "system", "experiment", "task", "dataset", "language", "profile"]
    header += [*model["columns"], f"{sort}Low", f"{sort}High", "signature", "languageTag"]
    header += ["papers", "revisionOf"]  # as the JSON gives them: what cites, what it re-scores
    header += ["tierSignature"]  # how the tier and interval were computed
    header += ["errorCount"]  # the system's failed calls
    header += ["tierNote"]  # why a row has no tier
    header += ["otherRunOf"]  # another run of a ranked system: its ranked run's task
    header += [f"{sort}UndefinedResamples"]  # beside an interval: resamples left out of it
    header += ["reference"]  # a reference system's run: shown for scale, not ranked
    header += ["profileVersion"]  # the version of the profile it was scored under
    rows = []
    for r in leaderboard_rows(model):
        low, high = r["intervals"].get(sort) or (None, None)
        rows.append(
            [r[k] for k in header[:8]]
            + [r["measures"][m] for m in model["columns"]]
            + [low, high, r["signature"], r["languageTag"]]
            + [" ".join(r["papers"]), r["revisionOf"], r["tierSignature"], r["errorCount"]]
            + [r["tierNote"], r["otherRunOf"], r["undefinedResamples"].get(sort)]
            + ["true" if r["reference"] else "false", r["profileVersion"]]
        )
    return pages.csv_table(header, rows).decode("utf-8")


def _known_dataset(name: str, iri: str | None, ranked: list[listings.DatasetUse]) -> None:
    """A dataset the public graphs know nothing of is a 400 naming the nearest name: a
    mistyped one in a paper's link showed "No public results" as if it had none."""
    if iri is None or any(d.uri == iri for d in ranked) or listings.described(iri):
        return
    names = sorted({d.name for d in ranked} | {d.name for d in listings.datasets()})
    hint = catalog.did_you_mean(name, names=names) or " (the catalogue's names: catalog)"
    raise BadRequest(
        f"dataset={name!r}: no dataset of that name; expected a dataset's name or "
        f"{ALL_DATASETS!r}{hint}"
    )


def filter_iris(chosen: LeaderboardFilter) -> tuple[str | None, str | None, str | None]:
    """The dataset, language and profile IRIs a filter keeps rows of (None: any)."""
    from service.graph.terms import language_iri

    dataset = chosen.dataset
    return (
        None if dataset in (None, ALL_DATASETS) else services().storage.uris.dataset(dataset),
        language_iri(chosen.language) if chosen.language else None,
        get_profile(chosen.profile).iri if chosen.profile else None,
    )


def _filter_choices(
    counts: listings.RowCounts,
    chosen: LeaderboardFilter,
    filters: tuple[str | None, str | None, str | None],
) -> dict[str, Any]:
    """Each filter's values with the rows the leaderboard shows when that value is chosen and
    the other filters stay as they are ("all" included); a chosen value without rows is
    listed too (0), so the form shows what the page shows."""
    datasets = listings.datasets_with_results(counts, filters)
    if filters[0] is not None and filters[0] not in {d.uri for d in datasets}:
        datasets.append(listings.DatasetUse(filters[0], chosen.dataset or "", 0))
    languages = [(local(v), counts.count(1, v, filters)) for v in counts.values(1)]
    if filters[1] is not None and filters[1] not in counts.values(1):
        languages.append((chosen.language or "", 0))
    profiles = [
        (local(v).removeprefix("profile-"), counts.count(2, v, filters)) for v in counts.values(2)
    ]
    if filters[2] is not None and filters[2] not in counts.values(2):
        profiles.append((chosen.profile or "", 0))
    from service.web.running import published_uploads

    uploads = published_uploads()
    return {
        "datasets": datasets,
        # an upload by its title and version, as the run page lists it (its name alone did
        # not say which of two versions is the newer)
        "dataset_labels": {
            u.name: u.label + (f"; has a newer version, {u.newer}" if u.newer else "")
            for u in uploads
        },
        # the board's heading and tab title name an upload as its page does (explore32 8)
        "dataset_names": {u.name: u.label for u in uploads},
        "languages": languages,
        "profiles": profiles,
        # what each "all" option shows: that filter cleared, the others kept
        "totals": [
            counts.total([None if d == k else f for d, f in enumerate(filters)]) for k in range(3)
        ],
        # the profiles the rows shown mix (the notice), not every profile with results
        "mixed": sum(1 for _, n in profiles if n),
    }


def kb_of(signature: str | None) -> str | None:
    """The ``kb:`` field of a signature: ``none``, ``no`` (a profile without a KB), or the KB's
    identity (``file:sha256:…``).

    >>> kb_of("gerbil-qa:fair|v:1.0.0|kb:none"), kb_of(None)
    ('none', None)
    """
    return signature_fields(signature).get("kb")


def version_of(signature: str | None) -> str | None:
    """The ``v:`` field of a signature: the version of the profile a result was scored under.

    >>> version_of("gerbil-qa:fair|v:1.0.0|kb:none"), version_of(None)
    ('1.0.0', None)
    """
    return signature_fields(signature).get("v")


def versions_mixed(rows: Iterable[tuple[str | None, str | None]]) -> dict[str, list[str]]:
    """The profiles whose rows (each row's profile and :func:`version_of` its signature) were
    scored under several versions of it, and those versions: a row of each is ranked and
    tiered among its own version's rows only, which a board's notice says.

    >>> versions_mixed([("fair", "1.1.0"), ("fair", "1.0.0"), ("exact", "1.1.0")])
    {'fair': ['1.0.0', '1.1.0']}
    """
    versions: dict[str, set[str]] = {}
    for profile, version in rows:
        if version is not None:
            versions.setdefault(profile or "", set()).add(version)
    return {p: sorted(v) for p, v in sorted(versions.items()) if len(v) > 1}


def kbs_mixed(rows: Iterable[tuple[str | None, str | None]]) -> list[str]:
    """The profiles whose rows (each row's profile and :func:`kb_of` its signature) were
    computed on different knowledge bases (a Text2SPARQL system's queries run on another KB
    score otherwise), for the notice of a live or a frozen board; numbers of one profile are
    else comparable."""
    kbs: dict[str, set[str]] = {}
    for profile, kb in rows:
        if kb is not None:
            kbs.setdefault(profile or "", set()).add(kb)
    return sorted(profile for profile, found in kbs.items() if len(found) > 1)


# a signature's ``kb:`` of a result no KB computed here (answers given): its KB is unknown
UNKNOWN_KBS = ("no", "none")


def kbs_unknown(rows: Iterable[tuple[str | None, str | None]]) -> list[str]:
    """Of the profiles :func:`kbs_mixed` names, those with a row whose ``kb:`` names no KB
    (``no``, ``none``: a result set given, scored with no KB): its KB is unknown, not another
    one (a published result set read as "computed on different knowledge bases": explore41
    F6)."""
    rows = list(rows)
    mixed = set(kbs_mixed(rows))
    return sorted({p or "" for p, kb in rows if (p or "") in mixed and kb in UNKNOWN_KBS})


LISTING_OFFERS = (conneg.HTML, conneg.JSON, conneg.CSV)


def paging(args: Any) -> dict[str, str]:
    """The page asked for (``page``, ``size``), as the API's listings take them."""
    return {k: args[k] for k in ("page", "size") if args.get(k)}


def json_elsewhere(endpoint: str, **values: Any) -> BaseResponse:
    """A 303 to the API's JSON of what a page lists: one JSON shape of the rows, not two (a
    client asking the page for JSON was handed HTML, or a 406, before). Its ``Location`` is
    absolute, under the store's base (:func:`base_url`) as the trailing-slash 301 and the
    canonical link are (it was the path alone, ``/api/systems``: explore51 F4): it was on the
    request's ``Host``, so a forged one (``Host: evil.example``) was sent back as the place to
    go, and a malformed one gave ``http:///api/systems`` (explore56 F3)."""
    moved = redirect(base_url(endpoint, **values), code=303)
    moved.vary.add("Accept")
    return moved


@bp.get("/datasets")
def datasets_page() -> BaseResponse:
    """The navigation's "Datasets" is the catalogue (``/catalog``): ``/datasets``, beside
    ``/experiments`` and ``/systems``, was a 404 (explore24 6). Its query (a page) kept."""
    query = request.query_string.decode("latin-1")
    target = url_for("resources.catalog") + (f"?{query}" if query else "")
    return redirect(target, code=301)


@bp.get("/experiments")
def experiments() -> BaseResponse:
    """Published experiments, newest first, a page at a time; the page's rows as CSV too
    (``?format=csv`` or ``Accept: text/csv``); JSON: a 303 to ``api/experiments``. ``system``,
    ``dataset``: only those that used them, as the API lists them (the page and its CSV
    ignored them while their alternate links carried them on; explore39 F9)."""
    page = listings.page_from(request.args)
    named = listings.named_filters(request.args)
    rep = conneg.negotiate(request, LISTING_OFFERS, default=conneg.HTML)
    if rep is conneg.JSON:
        return json_elsewhere("api.experiments", **named, **paging(request.args))
    # the page's JSON is the API's: its Link and <link> name that URL (explore51 F4)
    json_at = base_url("api.experiments", **named, **parsed_page_args(page))
    uris = services().storage.uris
    using = [getattr(uris, kind)(name) for kind, name in named.items()]

    def render() -> str:
        rows = listings.experiments(limit=page.size + 1, offset=page.offset, using=using)
        if not rows and page.number > 1:  # past the last page: not "no public experiment yet"
            total = listings.experiment_count(using=using)
            which = "".join(f" that used {kind} {name}" for kind, name in named.items())
            raise NotFound(
                f"page={page.number}: there are {total} public experiments{which}, "
                f"{page.size} a page: the pages are 1 to {max(1, -(-total // page.size))}"
            )
        if rep.key == "csv":
            return _experiments_csv(rows[: page.size])
        return render_template(
            "experiments.html",
            rows=rows[: page.size],
            page=page,
            has_next=len(rows) > page.size,
            endpoint="ui.experiments",
            args={**named, **listings.page_args(request.args)},
            filters=named,
            alternates=format_alternates(LISTING_OFFERS, shown, json_at=json_at),
        )

    # the parsed filters, as the cache key: not the first requester's query (explore40 6)
    shown = {**named, **parsed_page_args(page)}
    key = ("page:experiments", page, rep.key, tuple(named.items()))
    response = cached_page(key, render, content_type=rep.media_type)
    response.vary.add("Accept")
    return with_alternates(response, rep, LISTING_OFFERS, shown, "experiments", json_at=json_at)


def _experiments_csv(rows: list[listings.ExperimentRow]) -> str:
    header = ["experiment", "id", "ended", "datasets", "systems"]
    cells = [[r.uri, r.id, r.ended, items_cell(r.datasets), items_cell(r.systems)] for r in rows]
    return pages.csv_table(header, cells).decode("utf-8")


@bp.get("/systems")
def systems() -> BaseResponse:
    """The systems with public results; as CSV too; JSON: a 303 to ``api/systems``."""
    rep = conneg.negotiate(request, LISTING_OFFERS, default=conneg.HTML)
    if rep is conneg.JSON:
        return json_elsewhere("api.systems")
    json_at = base_url("api.systems")  # the page's JSON is the API's (explore51 F4)

    def render() -> str:
        rows = listings.systems()
        if rep.key == "csv":
            cells = [[r.uri, r.label, r.experiments] for r in rows]
            return pages.csv_table(["system", "label", "experiments"], cells).decode("utf-8")
        return render_template(
            "systems.html",
            rows=rows,
            alternates=format_alternates(LISTING_OFFERS, {}, json_at=json_at),
        )

    response = cached_page(("page:systems", rep.key), render, content_type=rep.media_type)
    response.vary.add("Accept")
    return with_alternates(response, rep, LISTING_OFFERS, {}, "systems", json_at=json_at)


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
