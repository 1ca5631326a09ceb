"""Running experiments (blueprint ``run``): the one submit path behind ``POST /api/experiments``
and the run page ``experiments/new``; an experiment's live status (``status_payload``, what the
API answers and what the experiment page polls at ``experiment/{id}/status``); the owner's
cancel button.

The run page is a plain HTML form that posts the same fields as the API's multipart encoding
(``submission.from_form``), so it works without JavaScript; a small script served by the
service (``static/run.js``) adds a dataset search and a copy button. A submission that fails
its checks comes back as the form with the error and the file positions next to it, with
nothing reserved; one that passes shows its owner token once, with the owner link and a
cookie already set for the experiment's pages.
"""

from __future__ import annotations

import json
import logging
import math
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

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
from werkzeug.datastructures import MultiDict
from werkzeug.wrappers import Response as BaseResponse

from service.dataset_about import ABOUT_FIELDS, named_version
from service.errors import BadRequest, Busy, Conflict, Forbidden, ServiceError
from service.web.access import (
    is_owner,
    not_public_yet,
    owner_page,
    require_experiment,
    wrong_token_said,
)
from service.web.own_runs import for_this_browser, own_runs, own_tasks
from service.web.state import services
from service.web.ui import page_of

if TYPE_CHECKING:
    from service.graph.experiments import Ticket
    from service.web.submission import RawSubmission

bp = Blueprint("run", __name__)


def start(raw: RawSubmission) -> Ticket:
    """Check a submission (cheap checks always; small uploads parsed at once, so ordinary
    mistakes are a 400 naming file, line and column), then reserve its id, save its job and
    queue it; nothing is reserved for a submission that fails its checks."""
    from service.experiments.run import named_upload, prepare
    from service.web import submission
    from service.web.demo import configured_kbs

    state = services()
    spec, uploads = submission.to_spec(raw, kbs=configured_kbs(state.config))
    spec, kept = named_upload(spec, state.storage)  # a published upload, by its name
    uploads = {**uploads, **kept}
    if raw.revision_of is not None:  # what it cannot replace is refused, full queue or not
        _may_replace(raw.revision_of, spec)
    from service.experiments.inputs import Files
    from service.experiments.recording import check_about, inherit_withheld_gold

    # inherited first: what is checked of a withheld gold holds for an inherited one too
    spec = inherit_withheld_gold(spec, state.storage)
    check_about(spec, state.storage, Files(uploads))
    _may_version(spec)
    with room_for_one_more(state):  # taken before the files are read, given back once queued
        files = prepare(
            spec,
            uploads,
            policy=state.config.network_policy(),
            parse_bytes=state.config.sync_parse_bytes,
            storage=state.storage,
            limits=state.config.format_limits(),
        )
        summary = None
        if raw.dataset_name == submission.DEMO_DATASET:  # named "demo" while it runs
            summary = json.dumps({**json.loads(spec.summary()), "dataset": "demo", "demo": True})
        ticket = state.runner.submit(spec, uploads=uploads, files=files, summary=summary)
    g.name_in_use = _name_in_use(spec, raw.revision_of)  # what the API's answer warns of
    return ticket


def _name_in_use(spec: Any, revision_of: str | None) -> str | None:
    """That a system name of this submission is one published experiments ran under already
    (its own line of revisions left out): said at once, so its submitter can choose another
    before publishing (explore58 F2); None otherwise."""
    from service.experiments.rescore import looks_the_same, looks_the_same_said, published_under

    state = services()
    names = [s.info().name for s in spec.systems if not s.info().reference]
    systems = [state.storage.uris.system(name) for name in names]
    same, looks = looks_the_same(published_under(state.storage, systems, revision_of), names)
    notes = []
    if same:
        said = "; ".join(f"system/{name} by {', '.join(ids[:5])}" for name, ids in same.items())
        notes.append(
            f"a system of this name was published already: {said}. A system is its name: once "
            "published, this run is listed and ranked as the same system; if it is not yours, "
            "submit again under a name of your own (answers_name, or the name beside the file "
            "on the run page) and delete this one"
        )
    if looks:  # a name stored before names were kept in NFC: another system (explore66 F1)
        notes.append(
            looks_the_same_said(
                looks, listed="once published, this run is", undo="delete this experiment"
            )
        )
    return ". ".join(notes) or None


def _may_replace(experiment_id: str, spec: Any) -> None:
    """A resubmission replaces ``experiment_id``: its owner only (the token of the old one,
    or the browser that submitted it), a finished experiment on the same questions."""
    from service.experiments.rescore import check_resubmission
    from service.graph.uris import EXPERIMENT_ID

    if not EXPERIMENT_ID.match(experiment_id):
        raise BadRequest(
            f"$.revisionOf: {experiment_id[:40]!r}, expected an experiment id such as 202611260001",
            field="revisionOf",
        )
    require_experiment(experiment_id)
    if not is_owner(experiment_id):
        raise Forbidden(
            f"a resubmission replacing experiment {experiment_id} needs its owner token "
            "(Authorization: Bearer <token>, or the browser that submitted it)"
            f"{wrong_token_said(experiment_id)}",
            field="revisionOf",
        )
    check_resubmission(services().storage, experiment_id, spec)


def _may_version(spec: Any) -> None:
    """A newer version of an uploaded dataset: its author's only (the owner token of an
    experiment that uploaded it with its description, or the browser holding its owner link;
    of a test set whose gold is withheld, one that uploaded it withheld). Anyone's was
    announced on its page, its citation and its runs' as "a corrected file its author
    published", and its teams were sent to re-score there (explore21 3, explore34 1). The
    server's demo dataset changes only by its operator. The CLI's own store is its
    operator's: it is not asked."""
    from service.experiments.reveal import version_authors
    from service.experiments.spec import FileDataset
    from service.web.demo import demo_sha256

    source, storage = spec.dataset, services().storage
    previous = (
        dict(source.about).get("previousVersion") if isinstance(source, FileDataset) else None
    )
    if not previous:
        return
    name = previous[0]
    found = storage.catalogue.published_upload(name)
    if found is not None and found[0] == demo_sha256():
        raise Forbidden(
            f"about.previousVersion (--dataset-previous): dataset/{name} is the service's "
            "built-in demo dataset, which changes only by its operator: upload your file "
            "without a previous version",
            field="about.previousVersion",
        )
    # one line of versions: a second "next version" of one file confused its pages, each
    # calling itself the next (explore36 5); the same bytes again are refused before this
    newer = storage.catalogue.newer_uploads(name)
    if newer:
        raise Conflict(
            f"about.previousVersion (--dataset-previous): dataset/{name} has a newer version "
            f"already, dataset/{newer[-1].name}: name that one as the previous version",
            field="about.previousVersion",
        )
    # its author is the author of any older version of it too, withheld or not (the browser
    # holding v1's owner link publishes v3 after v2: explore36 5; a withheld one's organiser
    # as well: explore37 1; an open v1's author after a withheld v2: explore40 1)
    if any(is_owner(eid) for eid in version_authors(storage, name)):
        return
    if storage.catalogue.gold_withheld(name):
        raise Forbidden(
            f"about.previousVersion (--dataset-previous): dataset/{name} is a test set whose "
            "gold its organiser withholds: only its organiser publishes a newer version of it "
            "(the owner token of the experiment that uploaded it withheld, or of one that "
            "uploaded an older version of it: Authorization: Bearer <token>, or the browser "
            "that holds its owner link)",
            field="about.previousVersion",
        )
    raise Forbidden(
        f"about.previousVersion (--dataset-previous): dataset/{name} is another's upload: "
        "only its author publishes a newer version of it (the owner token of the experiment "
        "that uploaded it: Authorization: Bearer <token>, or the browser that holds its owner "
        "link)",
        field="about.previousVersion",
    )


WAITING_RETRY = 60  # seconds a submission refused for a full queue is told to wait


def room_for_one_more(state: Any) -> AbstractContextManager[None]:
    """A place in the queue for one submission, held while it is prepared and queued (``with
    room_for_one_more(state): ...``): refused (503, Retry-After) while ``max_waiting_runs``
    runs wait or run in this process or are being submitted to it: the queue would otherwise
    grow without bound, each run's uploads kept on disk. The count and the taking are one step
    (ten submissions at once all passed a count made before any was queued: explore58 F1);
    a submission whose files fail their checks gives its place back. The bound is this
    process's: each replica of a shared store keeps its own."""
    from service.experiments.runner import QueueFull

    limit = state.config.max_waiting_runs
    try:
        return state.runner.place(limit)
    except QueueFull as full:
        raise Busy(
            f"the service has {full.waiting} runs queued or running, its limit "
            f"(GERBIL_QA_MAX_WAITING_RUNS={limit}): submit again in a minute",
            retry_after=WAITING_RETRY,
        ) from None


def status_payload(experiment_id: str) -> dict[str, Any]:
    """An experiment's status for its owner or, once public, anyone: one indexed lookup and
    its progress while it runs (a small file beside its job, never the job itself), with the
    time elapsed and an estimate of the time left."""
    state = services()
    status = require_experiment(experiment_id)
    if not status.public and not is_owner(experiment_id):
        raise Forbidden(not_public_yet(experiment_id))
    progress = None if status.status == "finished" else state.runner.progress(experiment_id)
    # An ended run keeps its progress (the errors and their reasons) but no clock and no
    # phase: its last progress has no end time, so the time since it started would grow for
    # ever, and its phase is where the run stopped, not what it is doing.
    elapsed, remaining, phase = None, None, None
    stopped = None if status.status.active else status.status.value
    if progress is not None and status.status.active:
        elapsed, remaining = progress.timing(time.time())
        phase = progress.phase
    message = status.message
    ahead = state.runner.ahead(experiment_id) if status.status.value == "queued" else None
    if ahead is not None and message is None:  # a queued run said only "queued"
        message = (
            "next in the queue"
            if ahead == 0
            else f"{ahead} run{'' if ahead == 1 else 's'} ahead of it in the queue"
        )
    silent = _runner_silent(state, status.uri) if status.status.value == "running" else None
    if silent is not None:
        # its replica died: nobody asks its questions until another takes it over, so an
        # estimate would grow for nothing (it did, 26 s to 68 s "left", for half a minute)
        remaining = None
        lease = state.runner.claims.lease
        within = max(lease - silent, 0) + lease / 3  # its lease left, then a take-over round
        phase = (
            f"waiting: the replica running it has not been heard from for {silent:.0f} s; if "
            f"it stopped, another takes the run over within about {within:.0f} s"
            if silent != math.inf
            else "waiting to be taken over by another replica (the one running it stopped)"
        )
    older, newer = state.storage.experiments.revisions(
        experiment_id, include_private=is_owner(experiment_id)
    )
    from service.experiments.overview import what_ran

    return {
        # what the submission named, known from the start (``dataset`` is the URI the
        # results are recorded under: null until they are)
        "asked": what_ran(status.job, None) or None,
        "revisionOf": older,
        "revisedBy": newer,
        **status.to_json(),
        "progress": progress.text(phase=status.status.active)
        if progress is not None
        else status.progress,
        "phase": phase,
        "systems": [
            s.to_json(stopped=stopped, recording=progress.phase == "recording" and not stopped)
            for s in progress.systems
        ]
        if progress is not None
        else [],
        "elapsedSeconds": _rounded(elapsed),
        "remainingSeconds": _rounded(remaining),
        # the same as times of day, which stay true in a poller's last body: a 304 keeps it
        # (the clock is left out of the ETag), and "5.9 s left" read then stood still
        **_clock_times(elapsed, remaining),
        "message": message,
    }


def _clock_times(elapsed: float | None, remaining: float | None) -> dict[str, str | None]:
    """``startedAt`` and ``expectedEndAt`` (xsd:dateTime, UTC) of a running status's clock."""
    from datetime import UTC, datetime

    now = time.time()

    def at(seconds: float | None) -> str | None:
        if seconds is None:
            return None
        when = datetime.fromtimestamp(now + seconds, UTC)
        return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    return {
        "startedAt": at(None if elapsed is None else -elapsed),
        "expectedEndAt": at(remaining),
    }


def _runner_silent(state: Any, uri: str) -> float | None:
    """Seconds since the replica running ``uri`` last beat, when it missed two heartbeats
    (they go every lease/3) or its claim is gone: it was killed or cut off, and another
    replica takes the run over once its lease lapses. None otherwise (and on a store no one
    shares, or while the store is away: the status says what it can without this)."""
    claims = state.runner.claims
    if not claims.shared:
        return None
    try:
        silent = claims.silent_for(uri)
        if silent is None:  # no claim with a heartbeat: waiting for a take-over round
            return math.inf if claims.holder(uri) is None else None
    except ServiceError:
        return None
    return silent if silent > claims.lease * 2 / 3 else None


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 1)


# -- the pages -----------------------------------------------------------------------------------


@bp.get("/experiments/new")
def new() -> BaseResponse:
    """The run form, for people (a program submits at ``POST api/experiments``)."""
    from service.web import conneg

    conneg.negotiate(request, conneg.HTML_ONLY)  # any other Accept: a 406 naming text/html
    filled = replacing()
    response = make_response(_form(filled=filled))
    response.vary.add("Accept")
    for_this_browser(response)
    if filled is not None:  # an owner's details (a bearer token may have opened them)
        owner_page(response)
    return response


REPLACE = "replace"  # the action of the run form's check for revisionOf (access.form_check)


def replace_checks() -> dict[str, str]:
    """The run form's anti-forgery checks, one per run this browser owns (its owner cookie
    checked): ``check-ID``, sent back with ``revisionOf`` ID, as the other owner forms send
    theirs (:func:`_replace_checked`)."""
    from service.web.access import COOKIE_PREFIX, form_check

    checks = {}
    for status in own_runs():
        token = request.cookies.get(COOKIE_PREFIX + status.id)
        if token:
            checks[status.id] = form_check(status.id, token, REPLACE)
    return checks


def _replace_checked(form: Any) -> None:
    """A run form replacing ``revisionOf`` on the strength of its owner cookie carries the
    form's ``check-ID`` (:func:`replace_checks`): a page of another origin of the same site
    (another port, a sibling subdomain; SameSite=Lax lets the cookie go with it) posted a
    replacement of the owner's experiment with answers of its choosing (explore34 11). A
    bearer token, which no other page's form can send, needs none; anyone else is refused by
    ``_may_replace`` as before."""
    from service.graph.experiments import same_secret
    from service.graph.uris import EXPERIMENT_ID
    from service.web.access import COOKIE_PREFIX, bearer_token, form_check

    old = (form.get("revisionOf") or "").strip()
    if not EXPERIMENT_ID.match(old):
        return
    bearer = bearer_token()
    if bearer and is_owner(old, bearer):
        return
    token = request.cookies.get(COOKIE_PREFIX + old)
    if not token or not is_owner(old, token):
        return
    if not same_secret(form.get(f"check-{old}", ""), form_check(old, token, REPLACE)):
        raise Forbidden(
            f"replacing experiment {old} from the run form needs the form's check, which only "
            f"this service's run form holds for this browser's runs: open "
            f"experiments/new?revisionOf={old} here and submit it from there (a program sends "
            "the owner token instead: Authorization: Bearer <token>)",
            field="revisionOf",
        )


@bp.post("/experiments/new")
def submitted() -> BaseResponse:
    from service.web.access import set_owner_cookie
    from service.web.app import problems_of
    from service.web.submission import from_form

    try:
        raw = from_form(request.form, request.files, size=request.content_length)
        _replace_checked(request.form)
        _dataset_chosen(raw)
        ticket = start(raw)
    except ServiceError as err:  # next to the form, with the file positions, nothing reserved
        refused = make_response(
            _form(error=err.public_message, problems=problems_of(err), at_fault=at_fault(err))
        )
        refused.status_code = err.status
        if isinstance(err, Busy):  # what the API says too: when to submit again
            refused.headers["Retry-After"] = str(err.retry_after)
        return for_this_browser(refused)  # the form lists the browser's runs again
    except OSError as err:  # a full disk: said next to the form too (was Flask's 500 page)
        from service.shortages import no_space
        from service.web.app import NO_SPACE_MESSAGE

        if not no_space(err):
            raise
        logging.getLogger(__name__).error("the run form: the disk is full: %s", err)
        services().runner.write_failures.note(err)
        refused = make_response(_form(error=NO_SPACE_MESSAGE, problems=[], at_fault=None))
        refused.status_code = 507
        return for_this_browser(refused)
    # Post/Redirect/Get: the page that shows the token is a GET, so reloading it (or going
    # back to it) does not post the form again (30 reloads made 30 runs)
    response = redirect(url_for("run.submitted_page", experiment_id=ticket.id), 303)
    response.headers["Cache-Control"] = "no-store"
    # the submitter's browser is the owner's: its experiment pages open without the link,
    # and the page it is sent to reads the token from it
    set_owner_cookie(response, ticket.id, ticket.token)
    return response


@bp.get("/experiments/new/submitted/<experiment_id>")
def submitted_page(experiment_id: str) -> BaseResponse:
    """The owner token of a run this browser submitted (its owner cookie holds it), with the
    owner link and where to watch it; any other browser is sent to the experiment's page."""
    from service.web.access import COOKIE_PREFIX

    state = services()
    token = request.cookies.get(COOKIE_PREFIX + experiment_id, "")
    uri = state.storage.uris.experiment(experiment_id)
    if not token or not is_owner(experiment_id, token):
        return redirect(page_of(uri), 303)
    ticket = state.storage.experiments.status(experiment_id)
    owner_link = f"{uri}?token={token}"
    page = render_template(
        "submitted.html",
        ticket=ticket,
        token=token,
        owner_link=owner_link,
        experiment_url=_watch_link(uri, owner_link),
    )
    response = owner_page(make_response(page))
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def _watch_link(uri: str, owner_link: str) -> str:
    """Where "Watch it run" goes: the experiment's URI when this page was asked for on its
    host, where the owner cookie was just set; else the owner link, whose token sets the cookie
    on the URI's host. `make run` listens on 127.0.0.1 and mints http://localhost:8080/ URIs:
    the cookie of 127.0.0.1 did not go to localhost, and the owner saw "not public yet"."""
    if urlsplit(uri).netloc.lower() == request.host.lower():
        return uri
    return owner_link


def _dataset_chosen(raw: RawSubmission) -> None:
    """The form's own words for a missing dataset, or for two (the API's message names its
    field). The list starts at the demo, so a file chosen without touching it meets both."""
    if not raw.dataset_name and raw.dataset_file is None:
        raise BadRequest(
            'Choose a dataset: pick one in the "Dataset" list or upload one in "or a dataset '
            'file".',
            field=NO_DATASET,  # both fields marked and linked, as the compare form's
        )
    if raw.dataset_name and raw.dataset_file is not None:
        raise BadRequest(
            f'Choose one dataset: the "Dataset" list says {raw.dataset_name} and "or a dataset '
            f'file" holds {raw.dataset_file.filename}; set the list to "(upload a dataset file '
            'instead)" to use the file (choose the files again: the browser does not keep them).',
            field=NO_DATASET,
        )


def dataset_profiles() -> dict[str, str | None]:
    """Each catalogue dataset's (and published upload's) own profile: the one made for its
    language (poleval for PolEval's Polish) or its challenge (text2sparql for TEXT2SPARQL'25's),
    said beside it on the run and compare pages and chosen with it while the profile is not
    chosen by hand (run.js), also when the page opens with it (``?dataset=NAME``, a dataset's
    page's link: before, a PolEval dataset opened under the default profile)."""
    from service import catalog
    from service.evaluation.profiles import own_profile

    found = {e.name: own_profile(e.languages, e.questions_file.format) for e in catalog.entries()}
    return {**found, **{u.name: u.profile for u in published_uploads()}}


@dataclass(frozen=True, slots=True)
class UploadChoice:
    """A published uploaded dataset as the run and compare pages list it: run by its name, as
    ``GET /api/datasets`` lists it."""

    name: str
    title: str
    questions: int | None
    languages: tuple[str, ...]
    profile: str | None  # the one made for its language, as a catalogue dataset's
    version: str | None = None  # its author's label (two versions share a title)
    newer: str | None = None  # the name of its newest published version, if any
    gold_withheld: bool = False  # a shared task's test set: its results are measures only

    @property
    def label(self) -> str:
        return named_version(self.title, self.version, self.name)


UPLOADS_KEY = ("run", "uploads")  # the page cache's entry for the published uploads


def published_uploads() -> list[UploadChoice]:
    """The published uploaded datasets, kept in the page cache until the next public write:
    the run page lists them for every browser (the list is one query over every listed
    experiment graph, 1.0 s at 10,000 uploads). Before, a browser could not pick one: a
    second team downloaded the author's file and uploaded it again. The demo's published
    dataset is left out: the list offers it first, as "demo"."""
    from service.evaluation.profiles import own_profile
    from service.web import listings
    from service.web.demo import demo_sha256

    state = services()
    cache = state.cache
    kept = cache.get(UPLOADS_KEY)
    if kept is None:
        demo = state.storage.catalogue.upload_for_sha256(demo_sha256())
        newer = state.storage.catalogue.newest_upload_versions()
        rows = [
            [
                r.name,
                r.title,
                r.questions,
                list(r.languages),
                own_profile(r.languages, ""),
                r.version,
                newer.get(r.name),
                r.gold_withheld,
            ]
            for r in listings.uploaded_datasets()
            if demo is None or r.name != demo[0]
        ]
        kept = cache.rendered(json.dumps(rows).encode(), "application/json")
        cache.put(UPLOADS_KEY, kept)
    return [
        UploadChoice(name, title, questions, tuple(languages), profile, version, newer, withheld)
        for name, title, questions, languages, profile, version, newer, withheld in json.loads(
            kept.body
        )
    ]


@dataclass(frozen=True, slots=True)
class Replacing:
    """The experiment "Run it again to replace it" (``?revisionOf=ID``) replaces, as its
    owner's run form is filled from it: the fields, and the files a form cannot hold (a browser
    fills in no file), which the page asks to choose again."""

    id: str
    chosen: MultiDict[str, str]
    dataset_file: str | None  # an uploaded dataset's file name (else a name the list holds)
    gold_file: str | None
    answer_files: tuple[str, ...]
    questions_file: str | None = None  # the in.tsv uploaded with a TSV expected.tsv
    # each service asked with secret request headers, and their names (the values are gone)
    secret_headers: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # False: ``?from=ID``, a new experiment filled from another (a resubmission replaces a
    # finished experiment only)
    replaces: bool = True
    ended_empty: bool = False  # the experiment it is filled from ended without results

    @property
    def header_lines(self) -> str:
        """The secrets box's ``NAME: Header:`` lines, each sent to that service only, left
        for the values to be entered again."""
        return "\n".join(f"{s}: {h}: " for s, names in self.secret_headers for h in names)


def replacing() -> Replacing | None:
    """The replaced experiment's dataset, profile, languages, types, KB, force, call settings
    and systems as the run form's fields, the query string's own values over them; for its
    owner only (a private experiment's details are nobody else's). None for anyone else, an
    unknown id, or an experiment recorded before specs were kept."""
    from service.call_settings import CALL_SETTINGS
    from service.experiments.asked import Reference, Text2SparqlService, WebService
    from service.experiments.spec import CatalogueDataset, ExperimentSpec, FileDataset
    from service.experiments.systems import AnswerFile
    from service.graph.uris import EXPERIMENT_ID
    from service.web.demo import configured_kbs, demo_sha256
    from service.web.submission import DEMO_DATASET

    replaces = "revisionOf" in request.args
    old = (request.args.get("revisionOf") or request.args.get("from") or "").strip()
    if request.method != "GET" or not EXPERIMENT_ID.match(old):
        return None
    try:
        if not is_owner(old):
            return None
        text = services().storage.experiments.spec_of(old)
        spec = ExperimentSpec.from_json(json.loads(text)) if text else None
        jobs = services().runner.jobs
        if spec is None and jobs is not None and jobs.has(old):  # ended before its record
            spec = jobs.spec(old)
    except (ServiceError, ValueError, KeyError, TypeError):  # gone, or an older layout
        return None
    if spec is None:
        asked = jobs.legacy_asked(old) if jobs is not None else None
        return _from_legacy(old, asked, replaces) if asked else None
    fields: MultiDict[str, str] = MultiDict()
    dataset, dataset_file = spec.dataset, None
    if isinstance(dataset, CatalogueDataset):
        fields["dataset"] = dataset.name
    elif dataset.file.sha256 == demo_sha256():
        fields["dataset"] = DEMO_DATASET
    elif dataset.file.sha256 and (
        published := services().storage.catalogue.upload_for_sha256(dataset.file.sha256)
    ):
        # the list's "Uploaded datasets" holds it by name: its file is not asked for again
        fields["dataset"] = published[0]
    else:
        fields["dataset"] = ""  # "(upload a dataset file instead)"
        dataset_file = dataset.file.name
        fields["dataset_format"] = dataset.file.format or ""
    if isinstance(dataset, FileDataset) and dataset.title and dataset_file:
        fields["title"] = dataset.title  # a published one keeps its own title
    fields["profile"] = spec.profile
    fields["language"] = ",".join(spec.languages)
    fields.setlist("experiment_type", list(spec.experiment_types))
    if spec.kb is not None and spec.kb.name in configured_kbs(services().config):
        fields["kb"] = spec.kb.name
    fields["force"] = "1" if spec.options.force else ""
    fields["ranked"] = "1" if spec.options.ranked else ""
    for setting in CALL_SETTINGS:
        value = getattr(spec.options, setting.field)
        fields[setting.name] = "" if value == setting.default else f"{value:g}"
    names, answer_files, secret = [], [], []
    boxes: dict[str, list[str]] = {"webservice": [], "text2sparql": []}
    for system in spec.systems:
        if isinstance(system, AnswerFile):
            names.append(system.name)
            answer_files.append(system.file.name)
        elif isinstance(system, WebService):  # a Text2SparqlService is one too
            box = "text2sparql" if isinstance(system, Text2SparqlService) else "webservice"
            boxes[box].append(f"{system.name}={system.url}")
            if system.header_names:
                secret.append((system.name, tuple(system.header_names)))
        elif isinstance(system, Reference):  # by its name, if it had its own
            named = system.name != system.reference
            fields.add(
                "reference", f"{system.name}={system.reference}" if named else system.reference
            )
    fields["answers_name"] = "\n".join(names)
    for box, lines in boxes.items():
        fields[box] = "\n".join(lines)
    for key in request.args:  # what the link itself says wins
        if key != "from":
            fields.setlist(key, request.args.getlist(key))
    gold_file = spec.gold.file.name if isinstance(spec.gold, FileDataset) else None
    questions = dataset.questions if isinstance(dataset, FileDataset) else None
    return Replacing(
        old,
        fields,
        dataset_file,
        gold_file,
        tuple(answer_files),
        questions.name if questions and dataset_file else None,
        tuple(secret),
        replaces,
        ended_empty=_ended_empty(old),
    )


def _from_legacy(old: str, asked: dict[str, Any], replaces: bool) -> Replacing:
    """The run form filled from a job an older version saved (it cannot be resumed): what
    a new submission can take over of it (the dataset, profile, language, web services)."""
    fields: MultiDict[str, str] = MultiDict()
    for key in ("dataset", "profile", "language"):
        fields[key] = asked[key]
    fields["webservice"] = "\n".join(asked["webservice"])
    fields["answers_name"] = "\n".join(asked["answers"])
    for key in request.args:  # what the link itself says wins
        if key != "from":
            fields.setlist(key, request.args.getlist(key))
    return Replacing(
        old,
        fields,
        asked["dataset_file"] or None,
        None,
        tuple(asked["answers"]),
        replaces=replaces,
        ended_empty=_ended_empty(old),
    )


def _ended_empty(experiment_id: str) -> bool:
    """Whether a run was cancelled or failed (a finished one has results, a running one may)."""
    from service.graph.experiments import Status

    try:
        status = services().storage.experiments.status(experiment_id).status
        return status in (Status.CANCELLED, Status.ERROR)
    except ServiceError:  # known to its job only: it ended before its record
        return True


def _form(
    *,
    error: str | None = None,
    problems: list[dict[str, Any]] | None = None,
    filled: Replacing | None = None,
    at_fault: dict[str, tuple[str, str]] | None = None,
) -> str:
    from service import catalog
    from service.call_settings import CALL_SETTINGS
    from service.dataset_about import ABOUT_FIELDS
    from service.evaluation.profiles import DEFAULT_PROFILE, PROFILES
    from service.evaluation.results import ExperimentType
    from service.experiments.inputs import FORCE_LABEL, RANKED_HELP, RANKED_LABEL
    from service.formats import FORMATS
    from service.systems.reference import SYSTEM_NAMES
    from service.web.comparing import measure_choices
    from service.web.demo import DEMO_QUESTIONS, configured_kbs
    from service.web.submission import DEMO_DATASET

    groups: dict[str, list[catalog.CatalogEntry]] = {}
    for entry in catalog.entries():
        groups.setdefault(challenge_of(entry.name), []).append(entry)
    chosen = (
        filled.chosen
        if filled is not None
        else request.form
        if request.method == "POST"
        else request.args
    )
    # a reference system given a name of its own ("gold=gold-sparql") keeps it
    named = {}
    for value in chosen.getlist("reference"):
        name, sep, reference = value.partition("=")
        if sep:
            named[reference.strip()] = name.strip()
    return render_template(
        "run.html",
        demo=DEMO_DATASET,
        demo_questions=_demo_size(DEMO_QUESTIONS),
        groups=groups,
        uploads=published_uploads(),
        own_profiles=dataset_profiles(),
        profiles=[PROFILES[name] for name in PROFILES],
        default_profile=DEFAULT_PROFILE,
        experiment_types=[t.value for t in ExperimentType],
        formats=list(FORMATS),
        references=SYSTEM_NAMES,
        kbs=sorted(configured_kbs(services().config)),
        chosen=chosen,
        reference_names=named,
        replacing=filled,
        error=error,
        problems=problems or [],
        at_fault=at_fault or {},
        repick=files_to_pick_again() if error or problems else [],
        force_label=FORCE_LABEL,
        ranked_label=RANKED_LABEL,
        ranked_help=RANKED_HELP,
        calls=CALL_SETTINGS,  # how the web services are called: the registry's fields
        about=ABOUT_FIELDS,  # what an uploaded dataset's author says of it: the registry's
        own_runs=own_runs(),
        replace_checks=replace_checks(),
        own_tasks=own_tasks(),  # their QA tasks, ticked there to compare them
        measures=measure_choices(),
    )


def _words(key: str) -> str:
    """An ``about`` key as words: ``previousVersion`` -> ``previous version``."""
    import re

    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key).lower()


# The run form's fields a refusal can be about (form name: the field's id and its label), so
# the notice links to the field and the field is marked invalid (WCAG 3.3.1): the field at
# fault was far below the notice and carried no mark.
RUN_FIELDS = {
    "dataset": ("run-dataset", "Dataset"),
    "dataset_file": ("run-dataset-file", "or a dataset file"),
    "dataset_questions": ("run-dataset-questions", "its questions, in.tsv"),
    "dataset_format": ("run-dataset-format", "its format"),
    "gold_file": ("run-gold-file", "gold answers from a file"),
    "answers": ("run-answers", "Answer files"),
    "answers_name": ("run-answers-name", "their system names"),
    "webservice": ("run-webservice", "QA web services"),
    "text2sparql": ("run-text2sparql", "Text2SPARQL services"),
    "service_headers": ("run-service_headers", "Secret request headers"),
    "profile": ("run-profile", "Profile"),
    "language": ("run-language", "Language"),
    "kb": ("run-kb", "Knowledge base"),
    "revisionOf": ("run-revision", "Replaces my earlier experiment"),
    # "About your dataset file": each of the registry's fields (folded: opened when at fault)
    **{
        # its key in words ("previous version"): the form shows no key (explore36 6)
        f.form_field: (f"run-{f.form_field}", f"About your dataset file: {_words(f.key)}")
        for f in ABOUT_FIELDS
    },
}
# the API's names (a JSON path's head) where the form's differ
_FORM_NAMES = {
    "languages": "language",
    "dataset.questions": "dataset_questions",
    "dataset.format": "dataset_format",
    **{f"about.{f.key}": f.form_field for f in ABOUT_FIELDS},
}


# The compare form's fields (its ids start with cmp-), as the run form's are marked and linked
COMPARE_FIELDS = {
    "dataset": ("cmp-dataset", "Catalogue dataset"),
    "dataset_file": ("cmp-dataset-file", "or a dataset file"),
    "dataset_questions": ("cmp-dataset-questions", "its questions, in.tsv"),
    "answers": ("cmp-answers", "Answer files"),
    "answers_name": ("cmp-answers-name", "their system names"),
    "profile": ("cmp-profile", "Profile"),
    "language": ("cmp-language", "Language"),
    "measure": ("cmp-measure", "Measure compared"),
}
# "no systems": the boxes that make them (the compare form has one)
_SYSTEM_BOXES = ("answers", "webservice", "text2sparql")
# a form's "no dataset" or "two datasets" (its refusal's field): the two fields that give one,
# which it names (only the list was marked and linked, on the run form none: explore62 F3)
NO_DATASET = "dataset_or_file"
_DATASET_BOXES = ("dataset", "dataset_file")


def at_fault(
    err: ServiceError, fields: dict[str, tuple[str, str]] = RUN_FIELDS
) -> dict[str, tuple[str, str]]:
    """The run form's fields ``err`` is about (see :data:`RUN_FIELDS`; the compare form's with
    :data:`COMPARE_FIELDS`): a file's upload field, or the submission field it names;
    ``systems[n]`` is the n-th system in the order the form makes them (answer files, QA web
    services, Text2SPARQL services, reference systems), ``systems`` alone the boxes of all."""
    import re

    from service.errors import FormatError
    from service.web.submission import _numbered_lines

    names: list[str] = []
    if isinstance(err, FormatError):
        broken = {p.file for p in err.problems}
        names = [
            name
            for name in ("answers", "dataset_file", "dataset_questions", "gold_file")
            if any(f.filename in broken for f in request.files.getlist(name))
        ]
    elif err.field is not None:
        system = re.match(r"systems\[(\d+)\]", err.field)
        if system:
            n = int(system.group(1))
            boxes = [("answers", sum(1 for f in request.files.getlist("answers") if f.filename))]
            boxes += [
                (box, len(_numbered_lines(request.form.getlist(box))))
                for box in ("webservice", "text2sparql")
            ]
            for box, count in boxes:
                if n < count:
                    names = [box]
                    break
                n -= count
        else:
            path = re.split(r"[^A-Za-z_.]", err.field)[0]  # without its [n] or ", line n"
            names = [_FORM_NAMES.get(path, path.split(".")[0])]
            if path == "about":  # the description as a whole (it is refused for these bytes)
                names = [f.form_field for f in ABOUT_FIELDS if request.form.get(f.form_field)]
            if path == "systems":
                names = list(_SYSTEM_BOXES)
            if path == NO_DATASET:
                names = list(_DATASET_BOXES)
    return {name: fields[name] for name in names if name in fields}


# The file fields of the run and compare forms, in their order, with the words of their labels.
_FILE_FIELDS = {
    name: RUN_FIELDS[name][1] for name in ("dataset_file", "dataset_questions", "gold_file")
} | {"answers": "Answer files"}


def files_to_pick_again() -> list[tuple[str, list[str]]]:
    """The files a refused run or compare form was sent with, by field (its label's words):
    the page sent back has every file field empty (no browser fills one in), the valid files'
    too, and said nothing of it (explore44 F10). Nothing is kept for a retry: a refused
    submission leaves no file behind (README "The web service")."""
    if request.method != "POST":
        return []
    picked = [
        (label, [f.filename for f in request.files.getlist(name) if f.filename])
        for name, label in _FILE_FIELDS.items()
    ]
    return [(label, names) for label, names in picked if names]


def challenge_of(name: str) -> str:
    """The challenge a catalogue dataset belongs to, for grouping: ``qald-9-test-…`` is QALD-9."""
    head, _, rest = name.partition("-")
    number = rest.split("-", 1)[0]
    if head == "qald":
        return f"QALD-{number}"
    if head == "lc":
        return "LC-QuAD"
    if head in ("poleval", "text2sparql"):
        return {"poleval": "PolEval", "text2sparql": "TEXT2SPARQL"}[head] + f" {number}"
    return head.upper()


def _demo_size(path: Any) -> int:

    try:
        return len(json.loads(path.read_bytes()).get("questions", []))
    except (OSError, ValueError):
        return 0


@bp.get("/experiment/<experiment_id>/status")
def status(experiment_id: str) -> Response:
    """The live status the experiment page polls (the owner's cookie is scoped to
    ``/experiment/``, so the page cannot use the API's URL)."""
    payload = status_payload(experiment_id)
    response = jsonify(payload)
    response.headers["Cache-Control"] = "no-store"
    if not services().storage.experiments.is_public(experiment_id):
        owner_page(response)  # its owner's: anyone else is refused here
    return response


@bp.post("/experiment/<experiment_id>/cancel")
def cancel(experiment_id: str) -> BaseResponse:
    from service.web.access import require_owner_form

    require_owner_form(experiment_id, "cancel")
    services().runner.cancel(experiment_id)
    return redirect(page_of(services().storage.uris.experiment(experiment_id)), code=303)


def resume_run(experiment_id: str) -> str:
    """Queue a cancelled, failed or interrupted run again (the API's resume and the owner
    page's button); its status after. A resumed run waits in the same queue as a new one: the
    same bound, after the 409 of a run that cannot be resumed."""
    state = services()
    resumable = state.storage.experiments.status(experiment_id).status.resumable
    with room_for_one_more(state) if resumable else nullcontext():
        state.runner.resume(experiment_id)
    return state.storage.experiments.status(experiment_id).status.value


@bp.post("/experiment/<experiment_id>/resume")
def resume(experiment_id: str) -> BaseResponse:
    """The owner page's Resume button: a browser user who kept only the owner cookie has no
    token to send to ``POST /api/experiments/{id}/resume``."""
    from service.web.access import require_owner_form

    require_owner_form(experiment_id, "resume")
    resume_run(experiment_id)
    return redirect(page_of(services().storage.uris.experiment(experiment_id)), code=303)
