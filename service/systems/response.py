"""Reading what a QA web service answered to one question, and saying exactly what was wrong.

The interface (GERBIL QA wiki, ``seeds/001``) wants QALD-JSON (``{"questions": [{"answers":
[SPARQL JSON results]}]}``) or eQALD-JSON; the old QALD-XML is accepted too. GERBIL answered a
service that sent ``{"answers": …}`` at the top level with only "The annotator caused too many
single errors" and hid the parser's complaint in its log (dice-group/gerbil#393). Here every
failure becomes a :class:`BadResponse` whose message names the problem, where it is (a JSON
path) and what was expected; it is kept with the question it happened on.

The shape of the envelope is checked here; the answers themselves are read by
``service.formats`` (the one reader of these formats), whose errors carry the JSON path.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from service.errors import FormatError, Problem
from service.jsontext import TooDeep, loads
from service.model import NO_TEXT, SystemAnswer, system_run
from service.sparql import MAX_QUERY_BYTES

SNIPPET = 120
# Where a warning about a response is (its line and column are in the body the service sent).
RESPONSE = "response"
_RESULTS_KEYS = {"head", "results", "boolean", "bindings"}
# Reader warnings that describe a normal answer, not a problem: services need not echo the
# question text (and "no answer" is an answer: fields.EMPTY_ANSWER_SET, in parse_answer).
_NORMAL_IN_RESPONSES = (NO_TEXT,)


@dataclass(frozen=True, slots=True)
class AnotherId(Problem):
    """The warning that a response names another question id than the one asked
    (``echoed``). The interface sends no id (``query`` and ``lang`` only), so a service knows
    ours only when it looks the question up; one that writes the same id into every response
    (the GERBIL QA template's ``"1"``) is not mixing questions up: a run drops these warnings
    then (:func:`placeholder_ids_dropped`), and ``system ask``, whose id is made up, always."""

    echoed: str = ""


def placeholder_ids_dropped(problems: list[Problem]) -> list[Problem]:
    """``problems`` of one run without its :class:`AnotherId` warnings when there are several
    and all name one id: a placeholder every response carries, not a question mixed up."""
    others = {p.echoed for p in problems if isinstance(p, AnotherId)}
    several = sum(1 for p in problems if isinstance(p, AnotherId)) > 1
    if several and len(others) == 1:
        return [p for p in problems if not isinstance(p, AnotherId)]
    return problems


class BadResponse(Exception):
    """A response that is not an answer in an accepted format; ``str()`` says why."""


def snippet(data: bytes | str, *, limit: int = SNIPPET) -> str:
    """The start of a body, quoted, for messages (control characters escaped)."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    cut = text[:limit]
    return repr(cut) + ("…" if len(text) > limit else "")


def parse_answer(
    body: bytes,
    *,
    question_id: str,
    system: str,
    content_type: str | None = None,
    asked: tuple[str, str] | None = None,
) -> tuple[SystemAnswer, tuple[Problem, ...]]:
    """The system's answer to question ``question_id`` in ``body``, and any warnings (also
    when the question the response echoes is not ``asked``: its language and text).

    Raises :class:`BadResponse` when ``body`` is not QALD-JSON, eQALD-JSON or QALD-XML holding
    at least one question.
    """
    from service import formats
    from service.formats.fields import EMPTY_ANSWER_SET

    text = body.removeprefix(b"\xef\xbb\xbf")
    if not text.strip():
        raise BadResponse("the response body is empty (expected QALD-JSON or eQALD-JSON)")
    recoded: list[Problem] = []
    echoed: str | None = None  # the id the response gave its question (QALD-XML's: below)
    markup = text.lstrip().startswith(b"<")
    if markup:
        _check_markup(text, content_type)
    else:
        text, recoded = _as_utf8(text, content_type, question_id=question_id)
        doc = _check_envelope(text, content_type)
        # The service need not echo an id (the interface sends none): we know which question
        # we asked. The first question, the one used, takes its id, so what the reader says
        # of it names that question; the id it echoed is compared below.
        _check_answer_count(doc, question_id)  # before a second reading builds them
        questions = doc["questions"]
        said = questions[0].get("id")
        echoed = str(said) if isinstance(said, str | int) and not isinstance(said, bool) else None
        others = [  # the others keep theirs, unless missing or ours
            (number, q)
            for number, q in enumerate(questions[1:], start=2)
            if isinstance(q, dict) and ("id" not in q or str(q["id"]).strip() == question_id)
        ]
        if echoed != question_id or others:  # else the body is read as sent (its positions)
            questions[0]["id"] = question_id
            for number, question in others:
                question["id"] = f"response-{number}"
            # escaped: a lone surrogate a service sent (\ud800) cannot be encoded raw, and the
            # whole run died of it (explore31 F13); read back, it is cleaned as a file's is
            text = json.dumps(doc).encode("ascii")
        del doc, questions, others  # one reading of the response alive at a time, not two
    try:
        dataset = formats.read(text, name=RESPONSE)
    except FormatError as err:
        errors = [p for p in err.problems if p.severity == "error"] or list(err.problems)
        details = "; ".join(_problem_text(p) for p in errors[:3])
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise BadResponse(f"the response is not a valid QA answer: {details}{more}") from None
    if not dataset.questions:
        raise BadResponse(
            'the response holds no question: expected {"questions": [{…, "answers": […]}]}'
        )
    first = dataset.questions[0]
    warnings = recoded + [
        replace(p, question_id=question_id, file=RESPONSE, message=_one_question(p, question_id))
        for p in dataset.problems
        if p.severity == "warning"
        and p.message != EMPTY_ANSWER_SET
        and not any(n in p.message for n in _NORMAL_IN_RESPONSES)
    ]
    if len(dataset.questions) > 1:
        warnings.append(
            Problem(
                f"the response holds {len(dataset.questions)} questions; the first one "
                f"(id {first.id!r}) is used",
                severity="warning",
                file=RESPONSE,
                question_id=question_id,
                expected="one question per response",
            )
        )
    echoed = first.id if markup else echoed
    if echoed is not None and echoed.strip() != question_id.strip():  # mixed up, as a text
        warnings.append(
            AnotherId(
                f"the response answers another question: id {echoed!r} (asked: id {question_id!r})",
                severity="warning",
                file=RESPONSE,
                question_id=question_id,
                expected="the answer to the question asked, with its id or none",
                echoed=echoed,
            )
        )
    echoed = first.text(asked[0]) if asked is not None else None
    if asked is not None and echoed is not None and _plain(echoed) != _plain(asked[1]):
        warnings.append(
            Problem(
                f"the response answers another question: {snippet(echoed)} "
                f"(asked: {snippet(asked[1])})",
                severity="warning",
                file=RESPONSE,
                question_id=question_id,
                expected="the answer to the question asked",
            )
        )
    single = replace(dataset, questions=(first,), problems=())
    answer = system_run(single, system=system).answers[first.id]
    return replace(answer, question_id=question_id), tuple(warnings)


def _check_answer_count(doc: dict[str, Any], question_id: str) -> None:
    """Refuse a first question with more bindings than the limit per question (the reader's,
    ``GERBIL_QA_MAX_ANSWERS_PER_QUESTION``) from the JSON already decoded: the reader would
    decode the body again beside it to say so (150,000 bindings, 8 MB: ~230 MB, explore46 4)."""
    from service.formats.base import ANSWERS_PER_QUESTION_ENV, Limits

    answers = doc["questions"][0].get("answers")
    if not isinstance(answers, list):
        return
    count = 0
    for item in answers:
        results = item.get("results") if isinstance(item, dict) else None
        bindings = results.get("bindings") if isinstance(results, dict) else None
        count += len(bindings) if isinstance(bindings, list) else 0
    limit = Limits().max_answers_per_question
    if count > limit:
        raise BadResponse(
            f"the response is not a valid QA answer: at $.questions[0].answers: question "
            f"{question_id!r} has {count:,} answers, more than the limit of {limit:,} per "
            f"question ({ANSWERS_PER_QUESTION_ENV})"
        )


def _one_question(problem: Problem, question_id: str) -> str:
    """A reader's grouped warning about a response (its confidences, each said as ``question
    ID: value``) without the question, which the warning names: the same values in every
    response are then one warning (``errors.grouped_across_questions``, explore31 F15)."""
    from service.formats.eqald_json import BAD_CONFIDENCE

    if not problem.message.startswith(BAD_CONFIDENCE):
        return problem.message
    return problem.message.replace(f"question {question_id}: ", "")


def _plain(text: str) -> str:
    """A question's text as echoed, spacing and case aside (services normalise both)."""
    return " ".join(text.split()).casefold()


def _as_utf8(
    body: bytes, content_type: str | None, *, question_id: str
) -> tuple[bytes, list[Problem]]:
    """A body that is not UTF-8 but says its charset (``charset=ISO-8859-1``: Java servlets'
    default) read in that charset, with a warning; a UTF-8 body is UTF-8 whatever the header
    says (JSON is UTF-8, RFC 8259), and anything else is left for the UTF-8 check to refuse."""
    declared = _CHARSET.search(content_type or "")
    if declared is None or _is_utf8(body):
        return body, []
    charset = declared.group(1)
    try:
        text = body.decode(charset)
    except (LookupError, UnicodeDecodeError):
        return body, []
    warning = Problem(
        f"the response is in {charset}, as its Content-Type says; it was read so",
        severity="warning",
        file=RESPONSE,
        question_id=question_id,
        expected="UTF-8 (RFC 8259: JSON is UTF-8)",
    )
    return text.encode("utf-8"), [warning]


def _is_utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_CHARSET = re.compile(r'(?i);\s*charset\s*=\s*"?([^";\s]+)')


def _problem_text(problem: Problem) -> str:
    text = problem.message
    if problem.path:
        text = f"at {problem.path}: {text}"
    elif problem.line is not None:
        text = f"at line {problem.line}, column {problem.column}: {text}"
    if problem.expected:
        text += f" (expected {problem.expected})"
    return text


def _check_markup(body: bytes, content_type: str | None) -> None:
    """Markup is fine only when it is QALD-XML (accepted, though discouraged, by the wiki)."""
    from service import formats

    try:
        if formats.sniff(body) == "qald-xml":
            return
    except FormatError:
        pass
    kind = f" (Content-Type {content_type})" if content_type else ""
    raise BadResponse(
        f"the response is markup{kind} but not QALD-XML; expected QALD-JSON or eQALD-JSON. "
        f"It starts with {snippet(body)}"
    )


def _check_envelope(body: bytes, content_type: str | None) -> dict[str, Any]:
    """Diagnose the outer shape of a JSON answer (the mistakes services really make)."""
    try:
        doc = loads(body.decode("utf-8"))
    except TooDeep as err:
        raise BadResponse(f"the response is {err}; QALD-JSON goes a few levels deep") from None
    except UnicodeDecodeError as err:
        raise BadResponse(
            f"the response is not UTF-8 (byte {err.start} is {body[err.start]:#04x}); "
            "QALD-JSON must be UTF-8"
        ) from None
    except json.JSONDecodeError as err:
        kind = f" (Content-Type {content_type})" if content_type else ""
        raise BadResponse(
            # json's "Unterminated string starting at" ends in "at" already
            f"the response is not JSON{kind}: {err.msg.removesuffix(' at')} at line "
            f"{err.lineno}, column {err.colno}; "
            f"it starts with {snippet(body)}"
        ) from None
    if not isinstance(doc, dict):
        raise BadResponse(
            f"the response is a JSON {_kind(doc)}, not an object: expected QALD-JSON "
            '{"questions": [{…, "answers": […]}]}'
        )
    if "questions" not in doc:
        found = sorted(_RESULTS_KEYS & doc.keys()) or sorted(doc.keys() & {"answers", "question"})
        keys = ", ".join(repr(k) for k in sorted(doc)) or "none"
        if found:
            raise BadResponse(
                f"the response has {', '.join(repr(k) for k in found)} at the top level but no "
                '"questions": QALD-JSON wraps a question\'s answers as {"questions": [{"question": '
                '[…], "answers": [{"head": …, "results": …}]}]} (top-level keys: '
                f"{keys})"
            )
        raise BadResponse(
            f'the response has no "questions" list (top-level keys: {keys}); expected QALD-JSON '
            '{"questions": [{…, "answers": […]}]}'
        )
    questions = doc["questions"]
    if not isinstance(questions, list):
        raise BadResponse(
            f'"questions" is a JSON {_kind(questions)}; expected a list holding one question '
            'object {"answers": […]}'
        )
    if not questions:
        raise BadResponse('"questions" is an empty list; expected one question with its answers')
    first = questions[0]
    if not isinstance(first, dict):
        raise BadResponse(
            f'"questions"[0] is a JSON {_kind(first)}; expected an object {{"answers": […]}}'
        )
    return doc


def _kind(value: object) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    return "object"


def parse_query_answer(
    body: bytes,
    *,
    question_id: str,
    dataset: str | None = None,
    asked: str | None = None,
    max_query_bytes: int = MAX_QUERY_BYTES,
) -> tuple[SystemAnswer, tuple[Problem, ...]]:
    """A Text2SPARQL service's answer: JSON ``{"dataset", "question", "query"}``; the query is
    kept exactly as returned (an empty string or prose is real output, judged when it runs),
    with a warning when the ``dataset`` it names is not the one asked about, or the
    ``question`` it echoes is not the one ``asked`` (a service that translated a Spanish
    question, or answered another one from its cache).

    A query longer than ``max_query_bytes`` (UTF-8; 64 KiB, the SPARQL endpoint's default
    limit, whatever the server's ``sparql_max_query_bytes``: the reason said it followed that
    setting; explore49 F5) is :class:`BadResponse`, that question's error, and is not kept: a
    service sending 10 MB queries filled the log, the answers file and the server's memory
    (explore46 2)."""
    text = body.removeprefix(b"\xef\xbb\xbf")
    try:
        doc = loads(text.decode("utf-8"))
    except TooDeep as err:
        raise BadResponse(
            f'the response is {err} (expected {{"dataset", "question", "query"}})'
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BadResponse(
            f"the response is not JSON ({err}): {snippet(body)} "
            '(expected {"dataset", "question", "query"})'
        ) from err
    if not isinstance(doc, dict) or not isinstance(doc.get("query"), str):
        raise BadResponse(
            f"the response has no query string: {snippet(body)} "
            '(expected {"dataset", "question", "query"})'
        )
    query: str = doc["query"]
    size = len(query.encode("utf-8", "surrogatepass"))
    if size > max_query_bytes:
        fixed = (
            ", fixed at 64 KiB: the SPARQL endpoint's default, not its setting"
            if max_query_bytes == MAX_QUERY_BYTES
            else ""
        )
        raise BadResponse(
            f"the query is {size:,} bytes long, more than the limit of {max_query_bytes:,} bytes "
            f"(the bound on a Text2SPARQL answer's query{fixed}); it starts with {snippet(query)}"
        )
    said = doc.get("dataset")
    warnings: tuple[Problem, ...] = ()
    if dataset and isinstance(said, str) and said and said != dataset:
        warnings = (
            Problem(
                f"the response is about dataset {said!r}, not the one asked about ({dataset!r})",
                severity="warning",
                file=RESPONSE,
                question_id=question_id,
                expected="the query for the dataset asked about",
            ),
        )
    echoed = doc.get("question")
    if (
        asked is not None
        and isinstance(echoed, str)
        and echoed.strip()
        and _plain(echoed) != _plain(asked)
    ):
        warnings += (
            Problem(
                f"the response echoes another question: {snippet(echoed)} "
                f"(asked: {snippet(asked)})",
                severity="warning",
                file=RESPONSE,
                question_id=question_id,
                expected="the query for the question asked, in its language",
            ),
        )
    return SystemAnswer(question_id, sparql=query), warnings
