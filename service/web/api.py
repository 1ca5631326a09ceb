"""The JSON API (blueprint ``api``), documented by ``openapi.py`` at ``api/openapi.json``.

Submitting answers at once (202) with the experiment URI and the owner token; the experiment
then runs in the background (``runner.py``). The owner token goes in ``Authorization: Bearer``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import (
    Blueprint,
    Response,
    g,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse

from service.errors import BadRequest, Conflict, Forbidden, NotFound, ServiceError
from service.memory import give_back_memory
from service.web import conneg, listings, pages
from service.web.access import (
    bearer_token,
    is_admin,
    is_owner,
    require_experiment,
    wrong_token_said,
)
from service.web.state import services
from service.web.ui import base_url, page_of

bp = Blueprint("api", __name__)


def json_answer(payload: Any, status: int = 200) -> Response:
    response = jsonify(payload)
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    return response


POLL_SECONDS = (1, 2, 30)  # the least, the default (time left unknown) and the most


def _poll_after(response: Response, remaining: float | None = None) -> Response:
    """``Retry-After`` on the answer about a run still to end: half the time left (the
    estimate may be long), within bounds, so pipelines share one back-off."""
    least, default, most = POLL_SECONDS
    wait = default if remaining is None else round(remaining / 2)
    response.headers["Retry-After"] = str(min(most, max(least, wait)))
    return response


@bp.get("/api")
@bp.get("/api/")
def docs() -> BaseResponse:
    """The API's documentation for people; a client asking for JSON is sent (303) to the
    OpenAPI document it is written from."""
    from service.web.openapi import openapi_document

    if conneg.negotiate(request, (conneg.HTML, conneg.JSON)) is conneg.JSON:
        # under the base, as the listings' 303: not on the request's Host (explore56 F3)
        moved = redirect(base_url("api.openapi"), code=303)
    else:
        page = render_template("api.html", doc=openapi_document(services().config.base))
        moved = Response(page, content_type="text/html; charset=utf-8")
    moved.vary.add("Accept")
    return moved


@bp.get("/api/openapi.json")
def openapi() -> Response:
    from service.web.openapi import openapi_document

    response = jsonify(openapi_document(services().config.base))
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response


def _kbs() -> dict[str, tuple[str, ...]]:
    from service.web.demo import configured_kbs

    return configured_kbs(services().config)


def json_body() -> Any:
    """The request's JSON. A body that is not JSON is a 400 saying where it stops being JSON
    (bytes that are not UTF-8, -16 or -32, a number past 4,300 digits, the end too soon), and
    JSON nested past the parser's recursion limit is one too, not a crash; so are NaN,
    Infinity and a number too large for a float, which JSON has not."""
    import json

    from service.formats.base import (
        RepeatedKeyFound,
        finite_float,
        json_path,
        json_refusal,
        one_key_each,
        refuse_constant,
        repeated_keys,
    )

    data = request.get_data(cache=True)
    try:
        # NaN, Infinity and 1e999 refused where they are, as the file readers refuse them:
        # they were read, then said to be "a float" or "nan" (explore47 F1)
        return json.loads(
            data,
            object_pairs_hook=one_key_each,
            parse_constant=refuse_constant,
            parse_float=finite_float,
        )
    except RepeatedKeyFound:
        # the last value silently won ("filename" twice: the second file named; explore44 16)
        try:
            first = repeated_keys(data.decode(json.detect_encoding(data)))[0]
        except RecursionError:  # the walk that finds it is Python's: shallower than json's
            raise BadRequest("$: the JSON nests too deeply (expected the request object)") from None
        raise BadRequest(
            f"{json_path((*first.at, first.key))}: the key is given twice in one object "
            "(expected each key once)"
        ) from None
    except RecursionError:
        raise BadRequest("$: the JSON nests too deeply (expected the request object)") from None
    except ValueError as err:  # JSONDecodeError, UnicodeDecodeError, too many digits
        if isinstance(err, json.JSONDecodeError | UnicodeDecodeError):
            raise BadRequest(f"$: not valid JSON: {err} (expected the request object)") from None
        # an integer past Python's digit limit: its advice ("use sys.set_int_max_str_digits()")
        # is not for users (explore44 4)
        said = json_refusal(data.decode(json.detect_encoding(data), "replace"), err, None)
        where = f" at line {said.line}, column {said.column}" if said.line else ""
        raise BadRequest(
            f"$: not valid JSON{where}: {said.message.removeprefix('not valid JSON: ')} "
            f"(expected {said.expected})"
        ) from None


FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")


def unsupported_body(what: str) -> ServiceError:
    """415 for a body that is neither JSON nor a form, naming the type sent."""
    return ServiceError(  # 415: the body's type, not its content, is wrong
        f"send {what} as application/json or a form (multipart/form-data, "
        f"application/x-www-form-urlencoded), not {request.mimetype or 'a body without a type'}",
        status=415,
    )


def body_or_form(what: str) -> Any:
    """An API write's body: its JSON, its form, or nothing; a body of another type is a 415
    (text/plain was read as JSON by one endpoint and as an empty form by others)."""
    if request.is_json or (not request.mimetype and request.get_data(cache=True)):
        return json_body()  # a body without a type (a bare curl -d) is read as JSON
    if request.mimetype in FORM_TYPES or not request.get_data(cache=True):
        return request.form
    raise unsupported_body(what)


@bp.post("/api/experiments")
def submit() -> Response:
    """Check the submission, then reserve its id and queue it (``running.start``)."""
    from service.web import submission
    from service.web.running import start

    if request.mimetype == "application/json":
        raw = submission.from_json(json_body())
    elif request.mimetype in FORM_TYPES:
        submission.check_form_fields([*request.form.keys(), *request.files.keys()])
        raw = submission.from_form(request.form, request.files, size=request.content_length)
    else:
        raise unsupported_body("the submission")
    ticket = start(raw)
    body: dict[str, Any] = {
        "id": ticket.id,
        "uri": ticket.uri,
        "token": ticket.token,
        "status": "queued",
        **_status_urls(ticket.id),
        "ownerLink": f"{ticket.uri}?token={ticket.token}",
        "note": "Keep the token: it is shown once. Send it as 'Authorization: Bearer <token>'. "
        + POLL_NOTE,
    }
    if note := g.get("name_in_use"):  # a system name published already (explore58 F2)
        body["warnings"] = [note]
    response = _poll_after(json_answer(body, 202))
    response.headers["Location"] = ticket.uri
    return response


POLL_NOTE = (
    "Poll pollUrl (no per-question records: a few KB at any size) until its status is "
    "finished, then GET statusUrl once for the per-question records."
)


def _status_urls(experiment_id: str) -> dict[str, str]:
    """Where a submission's client follows its run: ``statusUrl``, the whole answer (its
    per-question records once finished: megabytes and seconds for a large run), and
    ``pollUrl``, the same without them, for polling."""
    url = f"{services().config.base}api/experiments/{experiment_id}"
    return {"statusUrl": url, "pollUrl": f"{url}?questions=false"}


@bp.post("/api/compare")
def compare_systems() -> Response:
    """``gerbil-qa compare`` over HTTP: the submission's answer files scored and compared at
    once (nothing is stored), answering the compare JSON contract
    (:func:`service.web.comparing.compare_request`)."""
    from service.web import conneg
    from service.web.comparing import compare_request, latex_answer

    body = json_body() if request.mimetype == "application/json" else None
    if request.mimetype == "application/json" and not isinstance(body, dict):
        raise BadRequest("$: expected a JSON object (the submission and the options)")
    # the paper's tables where asked for by name or preferred in Accept; else the JSON, as
    # any other Accept always had it; a format named is json or latex (406 else, as at GET
    # compare), said before the work
    offered = (conneg.JSON, conneg.LATEX)
    chosen = conneg.choose_from_accept(request.headers.get("Accept"), offered, default=offered[0])
    if request.args.get("format"):
        chosen = conneg.negotiate(request, offered)
    found = compare_request(body, kbs=_kbs())
    if chosen is conneg.LATEX:
        response = latex_answer(found)
        response.headers["Cache-Control"] = "no-store"
        response.vary.add("Accept")
        return response
    response = json_answer(found.to_json())
    response.vary.add("Accept")
    return response


LARGE_READ = 100_000  # quads read for one status past which their memory is given back


def _experiment_json(experiment_id: str, *, questions: bool = True) -> dict[str, Any]:
    """An experiment's status and progress (``running.status_payload``) and, once recorded,
    its results; without ``questions``, its evaluations without their per-question records,
    read from the experiment's document as its page is (a 20,000-question run's whole graph,
    2.2 million quads, took 47 s to read and index for each poll)."""
    from service.web.running import status_payload

    out = status_payload(experiment_id)
    out.update(dataset=None, papers=[], notes=[], results=[], evaluations=[])
    out["datasetFindings"] = None
    if out["status"] != "finished":
        return out
    storage = services().storage
    from service.experiments.dataset_checks import experiment_findings, findings_json

    # an uploaded dataset's checks: its owner learns them before publishing it (not while its
    # gold is withheld: a finding may quote a gold answer or query)
    store = storage.public if out["public"] else storage.private
    withheld = storage.catalogue.withheld_of_experiment(store, experiment_id)
    if withheld is None and (found := experiment_findings(storage, experiment_id)) is not None:
        out["datasetFindings"] = findings_json(found)
    from service.evaluation.profiles import explains_misses
    from service.graph.reader import evaluations

    # the answers only where a profile says from them why an answer was wrong (poleval: one
    # short line a question); otherwise never read (one 52 MB answer file took 2 s)
    asked = out.get("asked") or {}
    document = _document(experiment_id)
    quads = document
    if questions:
        explains = explains_misses(str(asked.get("profile") or ""))
        quads = storage.experiments.quads(experiment_id, answers=explains)
    page = pages.experiment_page(experiment_id, document, storage.uris)
    # the command line's contract: `gerbil-qa evaluate --output json`, one object per system
    out["evaluations"] = evaluations(quads, storage.uris, experiment_id, questions=questions)
    if questions and len(quads) > LARGE_READ:  # as Python objects: ~1 GB for 20,000 questions
        del quads
        give_back_memory()  # it walks the heap: not for every small status
    # a re-scoring: what changed, if the old one may be seen; the revision's owner may see it,
    # as only the old one's owner (or the operator) could make the revision
    revision_owner = bool(out["revisionOf"]) and is_owner(experiment_id)
    for old in out["revisionOf"]:
        if revision_owner or storage.experiments.is_public(old) or is_owner(old):
            from service.web.changes import since

            before = None if questions else _document(old)
            out["changes"] = since(old, out["evaluations"], before, now=page.dataset)
    by = _by()
    if by:  # `evaluate --by`: the QA experiment's measures per feature of the questions
        _add_slices(out["evaluations"], experiment_id, page, by)
    out["dataset"] = page.dataset
    if out["public"]:  # the badge is served once published (403 before)
        from service.web.badges import every_system

        out["badges"] = every_system(page)
    out["papers"] = list(page.papers)
    out["notes"] = list(page.notes)
    out["results"] = [
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
    ]
    return out


def _by() -> str | None:
    """``?by=``: the dimensions asked for (None: none); given twice, a 400 naming it, as a
    listing's parameters are (``listings.single_arg``)."""
    return listings.single_arg(request.args, "by")


def _document(experiment_id: str) -> list[Any]:
    """An experiment's document as its page reads it: the experiment, its tasks with their
    measures and intervals, its dataset and systems; not its per-question records."""
    from service.web.describe import ELSEWHERE_EXPERIMENT, FOLLOW_EXPERIMENT, document_quads

    storage = services().storage
    public = storage.experiments.is_public(experiment_id)  # where its graph is, as quads() reads
    return document_quads(
        storage.public if public else storage.private,
        storage.uris.experiment(experiment_id),
        graph=storage.uris.experiment_graph(experiment_id),
        follow=FOLLOW_EXPERIMENT,
        elsewhere=ELSEWHERE_EXPERIMENT,
    )


def _questions_asked() -> bool:
    """``?questions=false``: the evaluations without their per-question records (a poller's
    light answer); true, or no parameter, keeps them (the contract's default)."""
    value = request.args.get("questions", "true").strip().lower()
    if value not in ("true", "false"):
        raise BadRequest(f"questions={value!r}: expected true or false")
    return value == "true"


def _add_slices(objects: list[dict[str, Any]], experiment_id: str, page: Any, by: str) -> None:
    """Each evaluation's QA measures per value of the dimensions ``by`` (``slices``)."""
    from service.evaluation.slices import parse_dimensions
    from service.web.figures import stored_slices

    found = stored_slices(experiment_id, page, parse_dimensions(by))
    for obj in objects:
        key = (obj["system"], obj["language"], obj["profile"])
        if key in found:
            obj["slices"] = found[key]


@bp.get("/api/experiments/<experiment_id>")
def experiment(experiment_id: str) -> BaseResponse:
    from service.graph.experiments import Status

    status = require_experiment(experiment_id)
    questions = _questions_asked()
    if status.public and status.status is Status.FINISHED and not is_owner(experiment_id):
        # a published result as anyone reads it depends on public data only: rendered once
        # until the next public write, like its page (~75 ms for the demo's three systems)
        from service.web.ui import cached_page

        def render() -> str:
            payload = _experiment_json(experiment_id, questions=questions)
            return json_answer(payload).get_data(as_text=True)

        key = ("api:experiment", experiment_id, _by(), questions)
        cached = cached_page(key, render, content_type="application/json")
        cached.headers["Cache-Control"] = "no-store"  # as every status answer says
        return cached
    if questions and status.status is Status.FINISHED:
        return _finished_with_questions(experiment_id)
    payload = _experiment_json(experiment_id, questions=questions)
    response = json_answer(payload)
    # a poller sends the ETag back: an unchanged status (a long run) is a 304 without a body
    if Status(payload["status"]).active:
        _poll_after(response, payload["remainingSeconds"])
        # made without its clock, which moves at every poll: a run whose progress did not
        # move is a 304 (it never was, explore-17b 5); a 304 keeps Retry-After
        response.set_etag(_etag(_without_clock(payload)))
    else:
        response.add_etag()
    response.make_conditional(request)  # in place: 304 when the ETag matches
    return response


# what a running status says of time only (its times of day too: each poll rounds them anew)
CLOCK = ("elapsedSeconds", "remainingSeconds", "startedAt", "expectedEndAt")


def _without_clock(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if k not in CLOCK}


def _etag(payload: dict[str, Any]) -> str:
    import hashlib
    import json

    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _finished_with_questions(experiment_id: str) -> Response:
    """A finished experiment's whole answer, its ETag made from its light one
    (``?questions=false``): the per-question records never change once it finished (a
    re-scoring is another experiment), so a poller that sends the ETag back learns in
    milliseconds that nothing did, where the whole answer took 30 s at 20,000 questions."""
    import hashlib

    from service import release

    light = json_answer(_experiment_json(experiment_id, questions=False)).get_data()
    # the release too: a newer one may say the same records in other words (`upgrade`)
    made_by = release.source().version.encode()
    etag = hashlib.sha256(b"questions\0" + made_by + b"\0" + light).hexdigest()[:32]
    if request.if_none_match.contains_weak(etag):
        unchanged = Response(status=304)
        unchanged.set_etag(etag)
        return unchanged
    # kept by that ETag: the same light answer (whoever asks: its owner's may name private
    # revisions) has the same whole answer; its owner's polls were each read again (3.5 s at
    # 2,000 questions), the anonymous ones of a published run came from the page cache
    answers = services().answers
    key = ("api:experiment", etag, _by())
    kept = answers.get(key)
    if kept is None:
        body = json_answer(_experiment_json(experiment_id, questions=True)).get_data()
        kept = answers.rendered(body, "application/json")
        answers.put(key, kept)
    response = Response(kept.body, content_type=kept.content_type)
    response.headers["Cache-Control"] = "no-store"  # as every status answer says
    response.set_etag(etag)
    return response


def _listing_filters() -> dict[str, str]:
    """The listing's ``system`` and ``dataset`` names, read as its other parameters are (the
    first value; empty: none)."""
    return listings.named_filters(request.args)


@bp.get("/api/experiments")
def experiments() -> Response:
    """Published experiments, newest first, a page at a time (``?page=N&size=M``, 100 by
    default, ``next`` links the following page; ``system``, ``dataset``: only those that used
    them); with the admin token, every experiment, as ``gerbil-qa experiments`` lists them."""
    state = services()
    if is_admin(bearer_token()):  # the operator's view: the rows of `gerbil-qa experiments`
        from service.experiments.overview import operator_rows

        return json_answer({"experiments": operator_rows(state.storage)})
    page = listings.page_from(request.args, size=100, max_size=500)
    named = _listing_filters()
    using = [getattr(state.storage.uris, kind)(name) for kind, name in named.items()]
    rows = listings.experiments(limit=page.size + 1, offset=page.offset, using=using)
    following = None
    if len(rows) > page.size:
        query = urlencode({**named, "page": page.number + 1, "size": page.size})
        following = f"{state.config.base}api/experiments?{query}"
    return json_answer(
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
            f"(Authorization: Bearer <token>){wrong_token_said(experiment_id)}"
        )


@bp.post("/api/experiments/<experiment_id>/publish")
def publish(experiment_id: str) -> Response:
    """Publish (idempotent); a withdrawn experiment is a 409: publishing it again would not
    list it, and a 200 told a pipeline it was (``gerbil-qa publish --paper`` still links a
    paper to one)."""
    from service.experiments.rescore import publish_checked

    _require_owner(experiment_id)
    state = services()
    state.storage.experiments.refuse_withdrawn(experiment_id)
    status = publish_checked(state.storage, experiment_id)
    state.changed()
    note = name_in_use(experiment_id)
    return json_answer(
        {
            "id": status.id,
            "uri": status.uri,
            "public": status.public,
            "publishedAt": status.published_at,
            "warnings": [note] if note else [],
        }
    )


def name_in_use(experiment_id: str, *, published: bool = True) -> str | None:
    """What the owner publishing ``experiment_id`` is told when a system name of it is one
    other published experiments ran under, those this request's owner holds left out (the
    browser's cookies of its other runs, or the token sent): two teams under one name were
    merged into one system without a word (explore58 F2). Published with the note, not
    refused: a system is its name, and tokens are per experiment, so the same team's next
    run under its name looks no different. Its owner's page says it before publishing too."""
    from service.experiments.rescore import name_in_use_note, names_in_use, own_system_names

    storage = services().storage
    shared = names_in_use(storage, experiment_id)
    others = {name: [e for e in ids if not is_owner(e)] for name, ids in shared.items()}
    return name_in_use_note(
        {name: ids for name, ids in others.items() if ids},
        published=published,
        own=own_system_names(storage, experiment_id) if others else (),
    )


@bp.post("/experiment/<experiment_id>/publish")
def publish_form(experiment_id: str) -> BaseResponse:
    from service.experiments.rescore import publish_checked
    from service.web.access import require_owner_form

    require_owner_form(experiment_id, "publish")
    state = services()
    publish_checked(state.storage, experiment_id)
    state.changed()
    # the page says it was published, and the reader is taken there (it only gained a row);
    # a system name others published under already is said there too (nameInUse)
    said = "&nameInUse=1" if name_in_use(experiment_id) else ""
    return redirect(
        page_of(state.storage.uris.experiment(experiment_id)) + f"?published=1{said}#published",
        code=303,
    )


@bp.delete("/api/experiments/<experiment_id>")
def delete(experiment_id: str) -> Response:
    """Delete an unpublished experiment that is not running (204); 409 when it is published
    (its URI stays citable) or queued or running (cancel it first)."""
    from service.experiments.deletion import delete_experiment

    _require_owner(experiment_id)
    delete_experiment(services().storage, experiment_id)
    response = Response(status=204)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/experiment/<experiment_id>/delete")
def delete_form(experiment_id: str) -> str:
    from service.experiments.deletion import delete_experiment
    from service.web.access import require_owner_form

    require_owner_form(experiment_id, "delete")
    delete_experiment(services().storage, experiment_id)
    return render_template("deleted.html", experiment_id=experiment_id)


@bp.post("/api/experiments/<experiment_id>/withdraw")
def withdraw(experiment_id: str) -> Response:
    """Withdraw a published experiment: out of leaderboards and listings, its URI kept."""
    from service.web.submission import utf8

    _require_owner(experiment_id)
    data = body_or_form("the withdrawal")
    reason = data.get("reason") if isinstance(data, dict) else None
    if not isinstance(reason, str):
        raise BadRequest('send {"reason": "why it is withdrawn"} (a string, shown with it)')
    utf8(reason, "$.reason")
    status = _withdrawn(experiment_id, reason)
    return json_answer(
        {
            "id": status.id,
            "uri": status.uri,
            "withdrawnAt": status.withdrawn_at,
            "withdrawalReason": status.withdrawal_reason,
        }
    )


def _withdrawn(experiment_id: str, reason: str) -> Any:
    """Withdraw a published experiment (the API's and the page's); its status after."""
    from service.experiments.dataset_checks import after_withdrawal

    state = services()
    status = state.storage.experiments.withdraw(experiment_id, reason)
    after_withdrawal(state.storage, experiment_id)
    state.changed()
    return status


@bp.get("/experiment/<experiment_id>/withdraw")
def withdraw_page(experiment_id: str) -> BaseResponse:
    """The owner's form to withdraw a published experiment (its page, the same for every
    reader, links here); anyone else is told who can."""
    from service.web.access import COOKIE_PREFIX, form_check, owner_page

    status = require_experiment(experiment_id)
    token = request.cookies.get(COOKIE_PREFIX + experiment_id)
    owner = bool(token) and is_owner(experiment_id, token)
    if not status.public:
        raise Conflict(f"experiment {experiment_id} is not published: there is nothing to withdraw")
    # anyone else reads who can (the link is on every reader's page: not an error to follow)
    # a withdrawn one offers no form again: it said nothing of it, and the post was a 409
    # (explore48 6)
    owner = owner and status.withdrawn_at is None
    check = form_check(experiment_id, token or "", "withdraw") if owner else None
    return owner_page(make_response(render_template("withdraw.html", status=status, check=check)))


@bp.post("/experiment/<experiment_id>/withdraw")
def withdraw_form(experiment_id: str) -> BaseResponse:
    from service.web.access import require_owner_form

    require_owner_form(experiment_id, "withdraw")
    reason = request.form.get("reason", "").strip()
    if not reason or request.form.get("confirm") != "on":
        raise BadRequest("a withdrawal needs its reason (shown with it) and the box ticked")
    _withdrawn(experiment_id, reason)
    return redirect(page_of(services().storage.uris.experiment(experiment_id)), code=303)


PAPER_KEYS = frozenset({"doi", "url"})


@bp.post("/api/experiments/<experiment_id>/papers")
def attach_paper(experiment_id: str) -> Response:
    from service.graph.experiments import paper_iri
    from service.web.submission import known_keys, utf8

    _require_owner(experiment_id)
    data = body_or_form("the paper")
    if not isinstance(data, dict):
        raise BadRequest('send {"doi": "10.…"} or {"url": "https://…"}')
    # a key it does not take is refused, not dropped ("title" was, without a word)
    known_keys(dict(data), PAPER_KEYS, "$", what="a paper")
    for key in ("doi", "url"):  # a wrong type is named, never read as absent
        if data.get(key) is not None and not isinstance(data[key], str):
            raise BadRequest(f"$.{key}: expected a string, got {type(data[key]).__name__}")
        utf8(data.get(key) or "", f"$.{key}")
    doi, url = data.get("doi"), data.get("url")
    if doi and url:  # one is attached: the other was ignored, unchecked
        raise BadRequest(
            'give the paper as a DOI or as a URL, not both: {"doi": "10.…"} or {"url": "https://…"}'
        )
    reference = doi or url
    if not reference:
        raise BadRequest('send {"doi": "10.…"} or {"url": "https://…"}')
    if doi and not paper_iri(doi).startswith("https://doi.org/"):
        raise BadRequest(f"not a DOI: {doi!r} (expected e.g. 10.3233/SW-180312)")
    state = services()
    paper = state.storage.experiments.attach_paper(experiment_id, reference)
    state.changed()
    return json_answer({"id": experiment_id, "paper": paper}, 201)


@bp.post("/api/experiments/<experiment_id>/cancel")
def cancel(experiment_id: str) -> Response:
    from service.graph.experiments import Status

    _require_owner(experiment_id)
    state = services()
    active = state.runner.cancel(experiment_id)
    status = state.runner.as_ended(state.storage.experiments.status(experiment_id)).status
    # a run that recorded its end as the cancel came is not stopped by it: it said
    # {"cancelling": true, "status": "finished"} (explore66 F10)
    stopping = active and status in (Status.QUEUED, Status.RUNNING, Status.CANCELLED)
    return json_answer({"id": experiment_id, "cancelling": stopping, "status": status.value})


def _rescored(experiment_id: str, profile: str | None, version: str | None) -> tuple[Any, str]:
    """Queue the re-scoring of ``experiment_id`` (the API's and the page's): its ticket and
    the experiment it revises."""
    from service.experiments.rescore import rescore_spec
    from service.experiments.run import prepare
    from service.valid_terms import writable_text_problem
    from service.web.running import room_for_one_more

    # a lone surrogate or a control character is named as the field's, not as no version
    if version is not None and (problem := writable_text_problem(version, "$.datasetVersion")):
        raise BadRequest(problem, field="datasetVersion")
    state = services()
    # an experiment that cannot be re-scored is a 409 whether the queue is full or not
    spec, uploads = rescore_spec(
        state.storage, experiment_id, profile=profile, dataset_version=version
    )
    with room_for_one_more(state):  # a revision is a run like any other
        files = prepare(
            spec,
            uploads,
            policy=state.config.network_policy(),
            parse_bytes=state.config.sync_parse_bytes,
            limits=state.config.format_limits(),
        )
        ticket = state.runner.submit(spec, uploads=uploads, files=files)
    return ticket, spec.options.revision_of or experiment_id


@bp.get("/experiment/<experiment_id>/rescore")
def rescore_page(experiment_id: str) -> BaseResponse:
    """The owner's form to re-score a finished experiment (its page, the same for every
    reader, links here: a team that ran in the browser had only the API's and the command
    line's way, its token shown once: explore32 9); ``?datasetVersion=NAME`` onto a newer
    version of its dataset. Anyone else reads who can."""
    from service.experiments.rescore import rescore_refused
    from service.valid_terms import writable_text_problem
    from service.web.access import (
        COOKIE_PREFIX,
        form_check,
        owner_page,
        token_redirect,
        token_refused,
    )

    status = require_experiment(experiment_id)
    # an owner link made of its URL is taken as the experiment page's is (explore37 7)
    redirected = token_redirect(experiment_id, say_refused=True)
    if redirected is not None:
        return redirected
    if status.status.value != "finished":
        raise Conflict(
            f"experiment {experiment_id} {status.status.said}; only a finished one is re-scored"
        )
    version = (request.args.get("datasetVersion") or "").strip() or None
    storage = services().storage
    refused = revises = revised = version_uri = None
    if version is not None:  # said now, not after the button (any name was offered: explore36 3)
        from service.experiments.rescore import rescore_spec, revises_another_note

        if problem := writable_text_problem(version, "datasetVersion"):
            raise BadRequest(problem, field="datasetVersion")
        spec, _ = rescore_spec(storage, experiment_id, profile=None, dataset_version=version)
        # what the API's note says: it revises the one of its line standing there (explore42 1)
        revised = spec.options.revision_of or experiment_id
        revises = revises_another_note(experiment_id, version, revised)
        registered = getattr(spec.dataset, "version_of", None)
        if registered is not None:  # a registered version of its uploaded dataset: its page
            version_uri = storage.uris.dataset_version(registered.name, registered.version)
    token = request.cookies.get(COOKIE_PREFIX + experiment_id)
    owner = bool(token) and is_owner(experiment_id, token)
    if version is None and (owner or status.public):
        # a revision of its line stands in its place: what the 409 says, and no form
        # (explore38 9); a private one's line is its owner's to read
        refused = rescore_refused(storage, experiment_id)
    owner = owner and refused is None
    held = storage.catalogue.withholding_dataset(storage.public, experiment_id)
    # its owner's copy holds the form's check: kept by no cache (explore36 1)
    return owner_page(
        make_response(
            render_template(
                "rescore.html",
                status=status,
                dataset_version=version,  # not "version": the footer's software version
                version_uri=version_uri,  # a registered version's, not dataset/{version}
                revealed=storage.catalogue.revealed_at(held) if held else None,
                refused=refused,
                revises=revised if revises else None,
                revises_note=revises,
                check=form_check(experiment_id, token or "", "rescore") if owner else None,
                token_refused=token_refused(),
            )
        )
    )


@bp.post("/experiment/<experiment_id>/rescore")
def rescore_form(experiment_id: str) -> BaseResponse:
    """The re-score page's form: queued as ``POST /api/experiments/{id}/rescore`` is; the
    browser holds the new experiment's owner cookie and is sent to the page that shows its
    token and owner link, as a run form's submission is."""
    from service.web.access import require_owner_form, set_owner_cookie

    require_owner_form(experiment_id, "rescore")
    version = (request.form.get("datasetVersion") or "").strip() or None
    ticket, _ = _rescored(experiment_id, None, version)
    response = redirect(url_for("run.submitted_page", experiment_id=ticket.id), 303)
    response.headers["Cache-Control"] = "no-store"
    set_owner_cookie(response, ticket.id, ticket.token)
    return response


# The keys of a re-scoring's body (the OpenAPI document's, tested to agree).
RESCORE_KEYS = frozenset({"profile", "datasetVersion"})


@bp.post("/api/experiments/<experiment_id>/rescore")
def rescore(experiment_id: str) -> Response:
    """Re-score a finished experiment into a new revision (``gerbil-qa rescore``): its kept
    spec and files, the profile's current version or ``{"profile": …}``; 202 with the new
    experiment (its own owner token), which says ``prov:wasRevisionOf`` this one."""

    from service.experiments.rescore import revises_another_note
    from service.web.submission import json_kind, known_keys

    _require_owner(experiment_id)
    body = body_or_form("the re-scoring")
    # the body's keys, as a submission's: {"profle": "exact"} was a revision under the old
    # profile, and false, [], 123 or null one of the same (explore64 F3); no body: none given
    if not hasattr(body, "get"):
        raise BadRequest(
            f"$: expected a JSON object (the re-scoring's {' and '.join(sorted(RESCORE_KEYS))}), "
            f"got {json_kind(body)}"
        )
    known_keys(body, RESCORE_KEYS, "$", what="a re-scoring")
    profile = body.get("profile")
    if "profile" in body and not isinstance(profile, str):  # null too: the document's string
        raise BadRequest('$.profile: expected a profile name such as "exact"')
    version = body.get("datasetVersion")
    if "datasetVersion" in body and not isinstance(version, str):
        raise BadRequest("$.datasetVersion: expected a version label or a dataset's name")
    ticket, revised = _rescored(experiment_id, profile or None, version or None)
    body = {
        "id": ticket.id,
        "uri": ticket.uri,
        "token": ticket.token,
        "status": "queued",
        "revisionOf": revised,
        **_status_urls(ticket.id),
        "ownerLink": f"{ticket.uri}?token={ticket.token}",
    }
    # these answers replace older ones already on that version (its re-score page says so)
    if (note := revises_another_note(experiment_id, version, revised)) is not None:
        body["note"] = note
    response = json_answer(body, 202)
    response.headers["Location"] = ticket.uri
    return _poll_after(response)


@bp.post("/api/experiments/<experiment_id>/resume")
def resume(experiment_id: str) -> Response:
    """Queue an interrupted, cancelled or failed experiment again (the systems area's runner
    reuses the answers it already has)."""
    from service.web.running import resume_run

    _require_owner(experiment_id)
    status = resume_run(experiment_id)
    return _poll_after(json_answer({"id": experiment_id, "status": status}, 202))


@bp.post("/api/datasets/<name>/reveal")
def reveal(name: str) -> Response:
    """Reveal the withheld gold of a published uploaded dataset (its organiser's token)."""
    from service.experiments.reveal import reveal_gold

    state = services()
    done = reveal_gold(state.storage, name, owns=lambda eid: is_owner(eid, bearer_token()))
    state.changed()
    return json_answer(
        {
            "dataset": done.dataset,
            "goldRevealedAt": done.revealed_at,
            "questions": done.questions,
            "scoredWhileWithheld": [state.storage.uris.experiment(e) for e in done.runs],
            # the unpublished ones too: scored while withheld, re-scored by their owners as
            # the published ones are (explore37 6)
            "scoredWhileWithheldPrivate": [
                state.storage.uris.experiment(e) for e in done.private_runs
            ],
            "note": (
                "the gold is public now: its questions' pages, SPARQL and the files of its runs "
                "have it, and new runs on it have per-question results; a run scored while it "
                "was withheld (scoredWhileWithheld: published; scoredWhileWithheldPrivate: not "
                "published) has none: its owner re-scores it (POST /api/experiments/ID/rescore) "
                "to get them"
            ),
        }
    )


@bp.get("/experiment/<experiment_id>/reveal")
def reveal_page(experiment_id: str) -> BaseResponse:
    """The organiser's form to reveal the withheld gold of the dataset their experiment
    uploaded (under the experiment's path, where the browser's owner cookie is sent; the
    dataset page links here); anyone else reads who can."""
    from itertools import islice

    from service.experiments.reveal import older_withheld, refuse_unlisted, version_authors
    from service.web.access import form_check, owner_page, token_redirect, token_refused

    require_experiment(experiment_id)
    # its owner link made of this URL: the cookie, then the URL without the token, as the
    # experiment and re-score pages take it (it stayed in the address bar, no cookie set, and
    # the page said only its organiser could reveal it: explore42 3)
    redirected = token_redirect(experiment_id, say_refused=True)
    if redirected is not None:
        return redirected
    storage = services().storage
    name = storage.catalogue.withheld_of_experiment(storage.public, experiment_id)
    was = storage.catalogue.withholding_dataset(storage.public, experiment_id)
    if name is None and was is not None and (when := storage.catalogue.revealed_at(was)):
        raise Conflict(  # its organiser's link, followed again (explore21 4)
            f"the gold of dataset {was} was revealed on {when[:10]}: it is public now, with "
            "each question's result of the runs re-scored since"
        )
    if name is None:
        raise Conflict(
            f"experiment {experiment_id} is not a published run on a dataset that withholds "
            "its gold (revealed already, or never withheld)"
        )
    refuse_unlisted(storage, name)
    # the API's rule: the owner link of the run that uploaded it withheld or of one that
    # uploaded an older version of it (every owner cookie is sent under /experiment/: v1's
    # browser got no form on v2's page, its token revealing v2 by the API: explore40 7)
    by = _revealing_owner(storage, name)
    organisers = list(islice(version_authors(storage, name), 5))  # who can, for anyone else
    # a correction still withheld shares most of this one's gold (explore21 15)
    newer = storage.catalogue.newer_uploads(name)
    still = [v for v in newer if storage.catalogue.gold_withheld(v.name)]
    page = render_template(
        "reveal.html",
        experiment_id=experiment_id,
        name=name,
        newer_withheld=still,
        # an older version withholding its gold: this one is not revealed before (explore32 11)
        older_withheld=older_withheld(storage, name),
        uri=storage.uris.dataset(name),
        organisers=organisers,
        by=by[0] if by else None,
        check=form_check(by[0], by[1], f"reveal:{name}") if by else None,
        token_refused=token_refused(),
    )
    return owner_page(make_response(page))


def _revealing_owner(storage: Any, name: str) -> tuple[str, str] | None:
    """(experiment id, owner token) of the owner cookie this browser sends for an experiment
    whose owner may reveal dataset ``name`` (``version_authors``), else None."""
    from service.experiments.reveal import version_authors
    from service.web.access import COOKIE_PREFIX

    held = {
        key[len(COOKIE_PREFIX) :]: value
        for key, value in request.cookies.items()
        if key.startswith(COOKIE_PREFIX) and value
    }
    if not held:
        return None
    for eid in version_authors(storage, name):
        if eid in held and is_owner(eid, held[eid]):
            return eid, held[eid]
    return None


@bp.post("/experiment/<experiment_id>/reveal")
def reveal_form(experiment_id: str) -> BaseResponse:
    from service.experiments.reveal import reveal_gold, version_authors
    from service.graph.experiments import same_secret
    from service.web.access import COOKIE_PREFIX, form_check, require_experiment

    require_experiment(experiment_id)
    state = services()
    name = state.storage.catalogue.withheld_of_experiment(state.storage.public, experiment_id)
    if name is None:
        raise Conflict(f"experiment {experiment_id}'s dataset withholds no gold")
    # the owner cookie the page's form was made for: this run's or an older version's
    # organiser's (explore40 7), with its check (a cross-site form cannot know it)
    author = request.form.get("by") or experiment_id
    token = request.cookies.get(COOKIE_PREFIX + author, "")
    if not (
        token
        and is_owner(author, token)
        and same_secret(request.form.get("check", ""), form_check(author, token, f"reveal:{name}"))
        and author in version_authors(state.storage, name)
    ):
        raise Forbidden("only the owner can reveal this experiment")
    if request.form.get("confirm") != "on":
        raise BadRequest("revealing the gold needs the box ticked: it cannot be withheld again")
    reveal_gold(state.storage, name, owns=lambda eid: eid == author)
    state.changed()
    return redirect(page_of(state.storage.uris.dataset(name)), code=303)


@bp.get("/api/datasets")
def datasets() -> BaseResponse:
    # public data only: rendered once until the next public write (10,000 published uploads
    # took 1.0 s a request to list)
    from service.web.ui import cached_page

    def render() -> str:
        return _datasets().get_data(as_text=True)

    cached = cached_page(("api:datasets",), render, content_type="application/json")
    cached.headers["Cache-Control"] = "no-store"  # as before: a new upload shows at once
    return cached


def _datasets() -> Response:
    rows = [(r, False) for r in listings.datasets()]
    rows += [(r, True) for r in listings.uploaded_datasets()]  # a submission names them too
    findings = listings.finding_counts()
    newest = services().storage.catalogue.newest_upload_versions()
    return json_answer(
        {
            "datasets": [
                {
                    "name": r.name,
                    "uri": r.uri,
                    "title": r.title,
                    "questions": r.questions,
                    "languages": list(r.languages),
                    "knowledgeBase": r.knowledge_base,
                    "uploaded": uploaded,
                    "findings": findings.get(r.uri),
                    "knowledgeBaseIri": r.knowledge_base_iri,
                    "version": r.version,
                    "goldWithheld": r.gold_withheld,
                    "previousVersion": r.previous_version,
                    "newestVersion": newest.get(r.name),
                }
                for r, uploaded in rows
            ]
        }
    )


@bp.get("/api/systems")
def systems() -> Response:
    return json_answer(
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

    return json_answer(
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


@bp.get("/api/datasets/<name>/runs")
def runs_on_withheld(name: str) -> Response:
    """Every recorded run on a test set whose gold is withheld, private ones too (id, time,
    status, whether published, its systems), for its organiser (the owner token of an
    experiment that uploaded it withheld) or the operator: a private run's measures tell its
    owner which guessed answers are right, so the organiser sees how often each team asked
    (explore34 9). No results: those stay their owners' until published."""
    from service.experiments.overview import operator_rows
    from service.experiments.reveal import version_authors

    storage = services().storage
    catalogue = storage.catalogue
    # revealed since, it is listed still: its organiser looks once the task ends (it was a
    # 404, and the private runs scored on the hidden gold vanished from view: explore37 3)
    revealed = catalogue.gold_revealed(name)
    if not (revealed or catalogue.gold_withheld(name)):
        raise NotFound(
            f"dataset {name!r} is no published test set whose gold is or was withheld here (the "
            "runs on any other dataset are listed once published: GET /api/experiments?dataset=)"
        )
    token = bearer_token()
    # the author of an older version, withheld or not, is the organiser of this one
    # (explore37 1, explore40 1)
    organisers = version_authors(storage, name)
    if not (is_admin(token) or any(is_owner(e, token) for e in organisers)):
        raise Forbidden(
            f"the runs on dataset {name} are listed for its organiser: the owner token of the "
            "experiment that uploaded it withheld (Authorization: Bearer <token>)"
        )
    uri = storage.uris.dataset(name)
    keys = ("id", "uri", "status", "public", "created", "publishedAt", "systems")
    runs = [
        {k: row.get(k) for k in keys}
        for row in operator_rows(storage)
        if row.get("datasetUri") == uri
        # once revealed, a private run made since is its owner's alone: those scored while
        # it was withheld are listed, as before
        and (
            not revealed
            or row.get("public")
            or catalogue.scored_withheld_on(storage.private, row["id"]) is not None
        )
    ]
    return json_answer({"dataset": uri, "count": len(runs), "runs": runs})
