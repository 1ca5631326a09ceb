"""Running a dataset against a QA system over HTTP: a GERBIL QA web service, or a Text2SPARQL
service (``interface="text2sparql"``: ``GET url?question=…&dataset=<dataset id>`` answering JSON
``{"dataset", "question", "query"}``, TEXT2SPARQL'25; the query is the answer, run later on the
KB by :mod:`service.experiments.queries`). Both share everything below: network policy,
concurrency, time limits, retries, error reasons and the error-rate abort.

For each question: POST ``query`` (the question string) and ``lang`` (ISO 639-1), form-encoded
as UTF-8, and read QALD-JSON or eQALD-JSON back (GERBIL QA wiki, ``seeds/001``). Questions run
concurrently (``concurrency`` calls in flight per system). Each call has a time limit for the
whole response; connection failures, 5xx and 429 are retried with exponential backoff (a 4xx,
a read timeout or a malformed answer is not: asking again gives the same), honouring the
``Retry-After`` of a 429 or 503 (one longer than the question has left ends it, saying so),
and a question with its retries and the waits before them never takes longer than
``timeout × (retries + 1)``. Every failure is kept with its question and reason;
an answer says how many attempts it took and why the one before the last failed. GERBIL's
error policy applies: the run is aborted once more than 25 % of the questions have failed
(``ceil(0.25 × questions)`` errors, GERBIL ``ErrorCountingAnnotatorDecorator``), or earlier
when more than 25 % of at least ``min_calls`` calls so far failed; questions not asked then
carry that reason.
"""

from __future__ import annotations

import contextlib
import math
import socket
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from functools import partial
from http import HTTPStatus
from typing import TYPE_CHECKING
from urllib.parse import urlencode, urljoin, urlsplit

from service import jsontext
from service.errors import BadRequest, Problem
from service.model import INTERFACES, NOT_ASKED, Dataset, Question, SystemAnswer, SystemRun
from service.systems.response import (
    MAX_QUERY_BYTES,
    BadResponse,
    parse_answer,
    parse_query_answer,
    placeholder_ids_dropped,
    snippet,
)
from service.systems.safety import NetworkPolicy, UnsafeURL
from service.systems.secret_headers import Headers, origin, redact

if TYPE_CHECKING:
    import requests

FORM_TYPE = "application/x-www-form-urlencoded; charset=UTF-8"
ACCEPT = "application/json, application/sparql-results+json;q=0.9, application/xml;q=0.5"
_REDIRECTS = (301, 302, 303, 307, 308)
# A Text2SPARQL response holds one query of at most MAX_QUERY_BYTES (64 KiB): room for it with
# every character escaped (``\u00e9``: 6 bytes) and the question echoed; a larger body is
# refused as it is read, not kept whole (explore46 2: 10 MB queries).
TEXT2SPARQL_MAX_RESPONSE_BYTES = 1024 * 1024
JSON_ACCEPT = "application/json"
HANG_UP_AFTER = 1.0  # seconds the calls in flight get to answer after a cancel
_STOP_POLL = 0.1  # seconds between looks at the cancel while calls are in flight


@dataclass(frozen=True, slots=True)
class WebService:
    """A QA system reachable over HTTP, and how to call it.

    ``timeout`` bounds one call (connect, wait and the whole body), in seconds; ``retries`` is
    how many times a transient failure is retried, after ``backoff × 2^n`` seconds or the
    server's ``Retry-After`` if longer. A question, its retries and the waits before them
    included, never takes longer than :attr:`question_limit` (``timeout × (retries + 1)``): a
    retry that could not have its whole ``timeout`` within it is not made, and the error says
    why (a ``Retry-After`` longer than what is left ends the retries at once).
    """

    url: str
    name: str | None = None
    concurrency: int = 4
    timeout: float = 60.0
    retries: int = 2
    backoff: float = 0.5
    max_error_rate: float = 0.25
    min_calls: int = 20
    policy: NetworkPolicy = field(default_factory=NetworkPolicy.from_env)
    interface: str = "qa"  # "qa" (POST query, lang) or "text2sparql" (GET question, dataset)
    dataset_id: str | None = None  # the ``dataset`` a Text2SPARQL service is asked about
    # secret request headers (service.systems.secret_headers): sent to the service's own
    # origin only, never shown (repr=False: a logged or printed client keeps them out)
    headers: Headers = field(default=(), repr=False)

    def __post_init__(self) -> None:
        if self.interface not in INTERFACES:
            raise BadRequest(
                f"unknown interface {self.interface!r}; known: {', '.join(INTERFACES)}"
            )
        if self.concurrency < 1:
            raise BadRequest(f"concurrency must be at least 1, got {self.concurrency}")
        if self.timeout <= 0:
            raise BadRequest(f"the timeout must be positive, got {self.timeout}")
        if self.retries < 0:
            raise BadRequest(f"retries cannot be negative, got {self.retries}")
        if not 0 <= self.max_error_rate <= 1:
            raise BadRequest(f"max_error_rate must be in [0, 1], got {self.max_error_rate}")

    @property
    def question_limit(self) -> float:
        """The most a question may take, in seconds, every attempt and wait included."""
        return self.timeout * (self.retries + 1)

    @property
    def system(self) -> str:
        """The system's name as recorded with results (its URL when no name is given, without
        a user name and password: they would be written into the answers file)."""
        return self.name or without_userinfo(self.url)

    def check(self) -> None:
        """Refuse an unsafe URL at registration time, with a clear reason (raises UnsafeURL)."""
        self.policy.check_url(self.url)


@dataclass(frozen=True, slots=True)
class WebServiceRun:
    """What running a dataset against a web service produced.

    ``run`` holds an answer for every question asked (failed ones with ``error`` set; with
    ``aborted`` set, the questions never asked carry the abort reason as their error).
    ``pending`` lists the questions neither asked nor answered (after a cancellation), so a
    resumed run knows what is left. ``mean_runtime_ms`` is over the questions answered, each
    timed from its first call to its answer (retries and the waits before them included);
    ``retried`` counts the questions asked more than once.
    """

    run: SystemRun
    calls: int
    errors: int
    mean_runtime_ms: float | None
    aborted: str | None = None
    cancelled: bool = False
    pending: tuple[str, ...] = ()
    retried: int = 0


class _Transient(Exception):
    """A failure worth retrying; ``retry_after`` is the server's ``Retry-After`` in seconds, if
    any (a 429's or a 503's): waited for when it fits the question's limit, else it ends the
    question saying so (a 503's was replaced by the short backoff, unsaid: explore46 6)."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _Permanent(Exception):
    """A failure that asking again would repeat."""


def run_web_service(
    dataset: Dataset,
    service: WebService,
    *,
    language: str = "en",
    done: Mapping[str, SystemAnswer] | None = None,
    on_answer: Callable[[SystemAnswer], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
    until: float | None = None,
    out_of_time: str = "the time for asking ran out",
) -> WebServiceRun:
    """Ask ``service`` every question of ``dataset`` that has text in ``language``.

    ``done`` holds answers from an earlier, interrupted run: those questions are not asked
    again. ``on_answer`` is called (in the calling thread) with each new answer as it arrives, so
    a caller can persist progress; ``progress(done, total)`` likewise. Setting ``cancel`` stops
    asking new questions; the calls in flight get :data:`HANG_UP_AFTER` seconds to answer, then
    their connections are shut (a slow service would otherwise hold a cancelled run for up to
    its timeout). A call that fails once ``cancel`` is set leaves its question pending, to be
    asked again when the run resumes, not recorded as the service's error. ``until`` (a
    ``time.monotonic()`` value): past it no question is asked any more, the calls in flight
    are hung up as after a cancel, and what is left ends not asked, ``out_of_time`` saying
    why (``aborted``; the run's ``runner_ask_seconds``).
    """
    service.check()
    previous = dict(done or {})
    # Duplicate ids (a real oddity of some files): the first question wins, as in by_id().
    askable = [q for q in dataset.by_id().values() if q.text(language) is not None]
    todo = [q for q in askable if q.id not in previous]
    total = len(askable)
    answers: dict[str, SystemAnswer] = {q.id: previous[q.id] for q in askable if q.id in previous}
    errors = sum(1 for a in answers.values() if a.error is not None)
    calls = len(answers)
    problems: list[Problem] = []
    # a resumed run: the rule judged these answers when they came (a kill may have come after)
    aborted = _too_many_errors(service, errors=errors, calls=calls, total=total) if calls else None
    stop = cancel or threading.Event()
    halt = threading.Event()  # the calls' stop: set on the cancel, or when the time ran out
    local = threading.local()
    sessions: list[requests.Session] = []
    connections: weakref.WeakSet[object] = weakref.WeakSet()  # to hang up after a cancel
    sessions_lock = threading.Lock()

    def opened(connection: object) -> None:
        with sessions_lock:
            connections.add(connection)

    def session() -> requests.Session:
        if not hasattr(local, "session"):
            local.session = service.policy.session(opened=opened)
            with sessions_lock:
                sessions.append(local.session)
        return local.session

    def hang_up() -> None:
        with sessions_lock:
            for connection in list(connections):
                _shutdown(connection)

    def task(question: Question) -> tuple[SystemAnswer, tuple[Problem, ...]]:
        text = question.text(language) or ""
        return ask(service, text, language, question_id=question.id, session=session(), stop=halt)

    if progress is not None:
        progress(len(answers), total)
    queue = iter(todo)
    in_flight: dict[Future[tuple[SystemAnswer, tuple[Problem, ...]]], str] = {}
    with ThreadPoolExecutor(max_workers=service.concurrency, thread_name_prefix="qa-call") as pool:

        def ran_out() -> bool:
            return until is not None and time.monotonic() >= until

        def refill() -> None:
            nonlocal aborted
            if aborted is None and ran_out():
                aborted = out_of_time
            while len(in_flight) < service.concurrency and not stop.is_set() and aborted is None:
                question = next(queue, None)
                if question is None:
                    return
                in_flight[pool.submit(task, question)] = question.id

        refill()
        stopped_at: float | None = None  # when the calls in flight were told of the cancel
        while in_flight:
            finished, _ = wait(in_flight, timeout=_STOP_POLL, return_when=FIRST_COMPLETED)
            if ran_out():
                aborted = aborted or out_of_time
                halt.set()
            if stop.is_set():
                halt.set()
            if halt.is_set():
                now = time.monotonic()
                stopped_at = stopped_at or now
                if now - stopped_at >= HANG_UP_AFTER:
                    hang_up()  # again each round: a call may connect after the first
            for future in finished:
                in_flight.pop(future)
                answer, warnings = future.result()
                if answer.error is not None and halt.is_set():
                    continue  # hung up or cut short by the cancel (or the time): asked again
                answers[answer.question_id] = answer
                problems.extend(warnings)
                calls += 1
                errors += answer.error is not None
                if on_answer is not None:
                    on_answer(answer)
                if progress is not None:
                    progress(len(answers), total)
                if aborted is None:
                    aborted = _too_many_errors(service, errors=errors, calls=calls, total=total)
            refill()
    for s in sessions:
        s.close()

    pending = tuple(q.id for q in askable if q.id not in answers)
    if aborted is not None:
        for qid in pending:
            answers[qid] = SystemAnswer(qid, error=f"{NOT_ASKED} ({aborted})")
        pending = ()
    problems = placeholder_ids_dropped(problems)  # the GERBIL QA template's "1" in every one
    ok = [a.runtime_ms for a in answers.values() if a.error is None and a.runtime_ms is not None]
    ordered = {q.id: answers[q.id] for q in askable if q.id in answers}
    return WebServiceRun(
        run=SystemRun(
            system=service.system,
            answers=ordered,
            source=without_userinfo(service.url),
            problems=tuple(problems),
        ),
        calls=calls,
        errors=errors,
        mean_runtime_ms=sum(ok) / len(ok) if ok else None,
        aborted=aborted,
        cancelled=stop.is_set() and aborted is None and bool(pending),
        pending=pending,
        retried=sum(1 for a in answers.values() if a.attempts > 1),
    )


def _too_many_errors(service: WebService, *, errors: int, calls: int, total: int) -> str | None:
    rate = service.max_error_rate
    limit = math.ceil(rate * total)
    if errors > limit:
        return f"{errors} of {total} questions failed, more than {rate:.0%} of them"
    if calls >= service.min_calls and errors > rate * calls:
        return f"{errors} of the first {calls} calls failed, more than {rate:.0%}"
    return None


Retrying = Callable[[str, float, int], None]
"""Told before each wait for a retry: why the attempt failed, the wait in seconds, the number
of the attempt to come."""


def ask(
    service: WebService,
    text: str,
    language: str,
    *,
    question_id: str,
    session: requests.Session | None = None,
    stop: threading.Event | None = None,
    on_retry: Retrying | None = None,
) -> tuple[SystemAnswer, tuple[Problem, ...]]:
    """One question, with retries. Never raises for a failed call: the answer carries ``error``,
    how many ``attempts`` it took and why the one before the last failed (``retry_reason``).
    Its ``runtime_ms`` is the whole question's (every attempt and the waits between them).
    What it says of a failure never holds a secret header's value (:func:`redact`)."""
    if not service.headers:
        return _ask(service, text, language, question_id, session, stop, on_retry)

    def said(reason: str, delay: float, attempt: int) -> None:
        if on_retry is not None:
            on_retry(redact(reason, service.headers), delay, attempt)

    answer, warnings = _ask(service, text, language, question_id, session, stop, said)
    hide = partial(redact, headers=service.headers)
    answer = replace(
        answer,
        error=answer.error and hide(answer.error),
        retry_reason=answer.retry_reason and hide(answer.retry_reason),
    )
    return answer, tuple(
        replace(p, message=hide(p.message), expected=p.expected and hide(p.expected))
        for p in warnings
    )


def _ask(
    service: WebService,
    text: str,
    language: str,
    question_id: str,
    session: requests.Session | None,
    stop: threading.Event | None,
    on_retry: Retrying | None,
) -> tuple[SystemAnswer, tuple[Problem, ...]]:
    """:func:`ask` as the calls tell it."""
    own = session is None
    http = session or service.policy.session()
    started = time.perf_counter()
    deadline = time.monotonic() + service.question_limit
    attempt, earlier = 1, None

    def tried(answer: SystemAnswer) -> SystemAnswer:
        return replace(answer, attempts=attempt, retry_reason=earlier)

    try:
        while True:
            try:
                answer, warnings = _call(service, http, text, language, question_id)
                runtime = (time.perf_counter() - started) * 1000
                return tried(replace(answer, runtime_ms=runtime)), warnings
            except _Transient as err:
                left = deadline - time.monotonic()
                delay = _delay(service, err, attempt)
                ended = _no_retry(service, err, attempt, delay, left)
                if ended is not None:
                    return tried(SystemAnswer(question_id, error=f"{err}{ended}")), ()
                if on_retry is not None:
                    on_retry(str(err), delay, attempt + 1)
                if _waited_out(stop, delay):
                    error = f"{err} (cancelled before retry)"
                    return tried(SystemAnswer(question_id, error=error)), ()
                attempt, earlier = attempt + 1, str(err)
            except (_Permanent, BadResponse, UnsafeURL) as err:
                return tried(SystemAnswer(question_id, error=str(err))), ()
    finally:
        if own:
            http.close()


def _call(
    service: WebService, http: requests.Session, text: str, language: str, question_id: str
) -> tuple[SystemAnswer, tuple[Problem, ...]]:
    """One attempt: the service's answer, read by its interface."""
    body, content_type = _post(service, http, text, language)
    if service.interface == "text2sparql":
        return parse_query_answer(
            body, question_id=question_id, dataset=service.dataset_id, asked=text
        )
    return parse_answer(
        body,
        question_id=question_id,
        system=service.system,
        content_type=content_type,
        asked=(language, text),
    )


def _delay(service: WebService, err: _Transient, attempt: int) -> float:
    """The wait before the next attempt: the backoff, or the server's Retry-After if longer."""
    delay = service.backoff * 2 ** (attempt - 1)
    if err.retry_after is not None:
        delay = max(delay, err.retry_after)
    return delay


def _no_retry(
    service: WebService, err: _Transient, attempt: int, delay: float, left: float
) -> str | None:
    """Why a transient failure ends the question (the end of its error message), or None to
    retry: no retries left, or the wait and a whole next call do not fit in what is left of
    the question's limit (``timeout × (retries + 1)``)."""
    after = f"after {attempt} attempts" if attempt > 1 else ""
    if attempt > service.retries:
        return f" ({after})" if after else ""
    if delay + service.timeout <= left:
        return None
    limit = (
        f"the {max(left, 0.0):.1f} s left of the question's limit of "
        f"{service.question_limit:g} s (timeout × (retries + 1))"
    )
    if err.retry_after is not None and err.retry_after >= delay:
        why = f"Retry-After asks for {err.retry_after:g} s"
    else:
        why = f"the wait of {delay:g} s before a retry"
    why += f" and a next call of up to {service.timeout:g} s are more than {limit}"
    return f" ({after}; not retried: {why})" if after else f" (not retried: {why})"


def _waited_out(stop: threading.Event | None, delay: float) -> bool:
    """Wait ``delay`` seconds before a retry; True when ``stop`` was set meanwhile."""
    if stop is None:
        time.sleep(delay)
        return False
    return stop.wait(delay)


def _post(
    service: WebService, http: requests.Session, text: str, language: str
) -> tuple[bytes, str | None]:
    """POST the question (following redirects by hand, each hop re-checked); body and type."""
    import requests

    deadline = time.monotonic() + service.timeout
    # urlencode is application/x-www-form-urlencoded over UTF-8: '&', '=', '%', '+' and
    # non-ASCII text are escaped, spaces become '+' (WHATWG URL, form-urlencoded serializer).
    # The charset parameter is not required by that spec but Java servlet containers (GERBIL's
    # own template service) assume ISO-8859-1 without it.
    form = urlencode({"query": text, "lang": language}, encoding="utf-8").encode("ascii")
    url, method = service.url, "POST"
    if service.interface == "text2sparql":  # TEXT2SPARQL'25: the question in the query string
        query = urlencode({"question": text, "dataset": service.dataset_id or ""}, encoding="utf-8")
        url, method = f"{url}{'&' if '?' in url else '?'}{query}", "GET"
    for _hop in range(service.policy.max_redirects + 1):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _Permanent(f"no complete answer within {service.timeout:g} s")
        headers = {"Accept": JSON_ACCEPT if service.interface == "text2sparql" else ACCEPT}
        if method == "POST":
            headers["Content-Type"] = FORM_TYPE
        if origin(url) == origin(service.url):  # a hop elsewhere gets no secret (requests
            headers.update(service.headers)  # drops Authorization only, not X-API-Key)
        try:
            response = http.request(
                method,
                url,
                data=form if method == "POST" else None,
                headers=headers,
                timeout=(min(remaining, 10.0), remaining),
                stream=True,
                allow_redirects=False,
            )
        except requests.exceptions.ConnectTimeout as err:
            raise _Transient(f"cannot connect to {_host(url)}: connection timed out") from err
        except requests.exceptions.ReadTimeout as err:
            # said with its remedy: a large model's service needs a longer limit, not retries
            from service.call_settings import CALLED

            most = CALLED["timeout"].most
            raise _Permanent(
                f"no answer within {service.timeout:g} s (the limit per call, not retried: "
                f"raise it with --timeout, the API's or the run page's timeout, up to {most:g} s)"
            ) from err
        except requests.exceptions.ConnectionError as err:
            raise _Transient(f"cannot connect to {_host(url)}: {_root_cause(err)}") from err
        except requests.exceptions.RequestException as err:
            raise _Permanent(f"the request failed: {_root_cause(err)}") from err
        with response:
            status = response.status_code
            if status in _REDIRECTS and response.headers.get("Location"):
                target = urljoin(url, response.headers["Location"])
                if urlsplit(target).scheme.lower() not in service.policy.schemes:
                    raise _Permanent(f"redirected to a non-HTTP URL: {target}")
                # The interface is POST-only: a 301/302 that a browser would turn into GET would
                # lose the question, so it is re-POSTed (like 307/308); 303 means "GET the
                # result there". The target's address is checked again when connecting.
                if status == 303:
                    method = "GET"
                url = target
                continue
            body = _read_body(response, service, deadline)
            cut = _headers_cut(response, body)
            if cut is not None:  # retried as a connection error is (explore46 7)
                raise _Transient(cut)
            if status >= 500:  # a 503's Retry-After is what RFC 9110 §10.2.3 names it for
                hint = response.headers.get("Retry-After") if status == 503 else None
                raise _Transient(
                    f"{_status_line(status)}: {_reason_in(body)}", retry_after=_retry_after(hint)
                )
            if status == 429:
                raise _Transient(
                    f"HTTP 429 Too Many Requests: {_reason_in(body)}",
                    retry_after=_retry_after(response.headers.get("Retry-After")),
                )
            if status == 405:
                hint = _method_hint(service, response)
                raise _Permanent(f"{_status_line(405)}: {_reason_in(body)} ({hint})")
            if status >= 400:
                raise _Permanent(f"{_status_line(status)}: {_reason_in(body)}")
            if status != 200:
                raise _Permanent(f"{_status_line(status)}: expected 200 with an answer")
            return body, response.headers.get("Content-Type")
    raise _Permanent(f"more than {service.policy.max_redirects} redirects")


def _read_body(response: requests.Response, service: WebService, deadline: float) -> bytes:
    """The body, cut at the size limit and at the deadline (a drip-feeding server included)."""
    limit, why = service.policy.max_response_bytes, ""
    if service.interface == "text2sparql" and limit > TEXT2SPARQL_MAX_RESPONSE_BYTES:
        limit = TEXT2SPARQL_MAX_RESPONSE_BYTES
        why = f" (a Text2SPARQL answer: one query of at most {MAX_QUERY_BYTES:,} bytes)"
    length = response.headers.get("Content-Length")
    if length and length.isdigit() and int(length) > limit:
        raise _Permanent(
            f"the response is {readable_size(int(length))}, more than the limit of "
            f"{readable_size(limit)}{why}"
        )
    # A watchdog shuts the socket at the deadline, which wakes a read blocked on a silent server.
    connection = response.raw.connection
    watchdog = threading.Timer(max(0.0, deadline - time.monotonic()), _shutdown, (connection,))
    watchdog.daemon = True
    watchdog.start()
    chunks: list[bytes] = []
    size = 0
    try:
        while True:
            try:
                chunk = response.raw.read1(65536, decode_content=True)
            except Exception as err:
                if time.monotonic() >= deadline:
                    raise _Permanent(f"no complete answer within {service.timeout:g} s") from err
                raise _Transient(_broken(err)) from err
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise _Permanent(
                    f"the response is larger than the limit of {readable_size(limit)}{why}"
                )
            chunks.append(chunk)
            if time.monotonic() >= deadline:
                raise _Permanent(f"no complete answer within {service.timeout:g} s")
    finally:
        watchdog.cancel()
    if time.monotonic() >= deadline:  # the watchdog ended the read: the body is cut short
        raise _Permanent(f"no complete answer within {service.timeout:g} s")
    return b"".join(chunks)


def readable_size(n: int) -> str:
    """A byte count readable with its unit: ``1 MiB``, ``1.0 MiB (1,048,577 bytes)``,
    ``1,000,000 bytes`` (a bare "1048577 bytes, more than the limit of 1048576" said neither
    the unit of the limit nor its size; explore49 F6)."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            if n % scale == 0:
                return f"{n // scale:,} {unit}"
            if n % 1000 == 0:  # a round decimal limit is clearest as written
                return f"{n:,} bytes"
            return f"{n / scale:,.1f} {unit} ({n:,} bytes)"
    return f"{n:,} bytes"


def _status_line(status: int) -> str:
    """``HTTP 401 Unauthorized``: the code's standard phrase, not the service's reason phrase
    (which is its text, and may quote a secret; :func:`redact` keeps this line as written)."""
    try:
        return f"HTTP {status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"HTTP {status}"


def _reason_in(body: bytes) -> str:
    """What an error response says: its JSON ``error``/``message``/``detail``, else its start;
    "an empty body" when it has none (it was quoted as ``''``: explore48 12)."""
    if not body.strip():
        return "an empty body"
    try:
        doc = jsontext.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):  # ValueError: not JSON, or nested too deeply
        return snippet(body)
    if isinstance(doc, dict):
        for key in ("error", "message", "detail"):
            if isinstance(doc.get(key), str):
                return snippet(doc[key])
    return snippet(body)


def _method_hint(service: WebService, response: requests.Response) -> str:
    """What a 405 means here: the service answers other methods than its interface's."""
    allowed = response.headers.get("Allow", "").strip()
    said = f"the service allows {allowed}; " if allowed else ""
    if service.interface == "text2sparql":
        return f"{said}a Text2SPARQL service is asked by GET, with question and dataset"
    return f"{said}a QA web service is asked by POST, with the form fields query and lang"


def _headers_cut(response: requests.Response, body: bytes) -> str | None:
    """Why an empty response is no answer but a connection closed early: before the blank line
    that ends the headers (the connection's response says so: ``_guarded.WatchedResponse``;
    else a last line without a colon shows it), or, for a 200, with nothing saying the body's
    length (before, both were "the response body is empty", not retried)."""
    if body:
        return None
    original = getattr(response.raw, "_original_response", None)
    if getattr(original, "headers_ended", None) is False:  # no blank line ended them: cut,
        # however the last line looks ("Content-Type: applic" passed as whole: explore48 10)
        tail: bytes = getattr(original, "headers_tail", b"")
        text = tail.rstrip(b"\r\n")
        said = ""
        if text and tail.endswith(b"\n"):  # a whole line, then the close
            said = f" (after the line {snippet(text)})"
        elif text:
            said = f" (it ends in {snippet(text)})"
        return f"the connection closed before the response headers ended{said}"
    sent = getattr(original, "msg", None)
    if sent is not None and sent.defects:
        left = sent.get_payload()
        said = f" (it ends in {snippet(left.encode())})" if isinstance(left, str) and left else ""
        return f"the connection closed before the response headers ended{said}"
    framed = "Content-Length" in response.headers or "Transfer-Encoding" in response.headers
    if response.status_code == 200 and not framed:
        return (
            "the connection closed before any body came, with no Content-Length (its headers "
            "may have been cut short too)"
        )
    return None


def _broken(err: BaseException) -> str:
    """Why a body stopped: how much of it came when the connection closed early."""
    current: BaseException | None = err
    while current is not None:
        partial, expected = getattr(current, "partial", None), getattr(current, "expected", None)
        if isinstance(partial, int) and isinstance(expected, int):  # urllib3's IncompleteRead
            total = partial + expected
            return f"the connection closed before the whole body came ({partial} of {total} bytes)"
        current = current.__cause__ or current.__context__ or _reason(current)
    return f"the connection broke while reading: {_root_cause(err)}"


def _shutdown(connection: object) -> None:
    sock = getattr(connection, "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):  # already closed: nothing left to wake
            sock.shutdown(socket.SHUT_RDWR)


def _retry_after(value: str | None) -> float | None:
    """The seconds a ``Retry-After`` asks for: delay-seconds, or an HTTP-date (RFC 9110
    §10.2.3) from now; None for neither."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None  # neither: our own backoff
    if when.tzinfo is None:
        return None
    return max(0.0, round(when.timestamp() - time.time(), 1))  # a date is to the second


def _host(url: str) -> str:
    parts = urlsplit(url)
    return parts.netloc.rpartition("@")[2] or url


def without_userinfo(url: str) -> str:
    """``url`` without a user name and password (``http://user:pw@host/`` -> ``http://host/``),
    for what is written or said about a service: a message, an answers file."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def _root_cause(err: BaseException) -> str:
    """The innermost reason of a requests/urllib3 error, e.g. 'Connection refused'."""
    seen: list[BaseException] = []
    current: BaseException | None = err
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__ or _reason(current)
    text = str(seen[-1]) or type(seen[-1]).__name__
    if "] " in text and text.startswith("[Errno"):
        text = text.split("] ", 1)[1]
    return text


def _reason(err: BaseException) -> BaseException | None:
    reason = getattr(err, "reason", None)
    if isinstance(reason, BaseException):
        return reason
    args = getattr(err, "args", ())
    return next((a for a in args if isinstance(a, BaseException)), None)
