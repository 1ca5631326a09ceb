"""The answer file of a web-service run: what the service said, kept so it can be re-scored.

A QALD-JSON file (written by ``service.formats``; eQALD-JSON when an answer holds what QALD-JSON
drops: a confidence, answer item types, annotations) with one entry per question asked: the
question string sent, the SPARQL and answers the service returned. Extra per-question keys
keep what QALD-JSON has no field for, so re-scoring the archive gives the same results as the
live run: ``"error"`` (why the call failed), ``"runtimeMs"`` (wall time of an answered
question, retries included) and, for a question asked more than once, ``"attempts"`` and
``"retryReason"`` (why the attempt before the last failed). Any QALD-JSON reader ignores
them; :func:`answers_from` restores them. A Text2SPARQL service's run is kept as
TEXT2SPARQL answers JSON (:data:`QUERY_FORMAT`: its queries, each entry's ``qname`` and
``endpoint``), with the same extra keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TypeVar

from service.errors import Problem
from service.formats.fields import ATTEMPTS_KEY, RUNTIME_KEY  # written as numbers
from service.model import (
    NOT_ASKED,
    AnswerSet,
    Dataset,
    Question,
    QuestionText,
    SystemAnswer,
    SystemRun,
    system_run,
)

ERROR_KEY = "error"
RETRY_KEY = "retryReason"
# what was odd in the service's response (another dataset or question echoed…), one a line:
# `system run` printed it and the file lost it, so `evaluate` of the file said nothing
# (explore25 7); read back as the warnings it was
WARNINGS_KEY = "responseWarnings"
CALL_KEYS = (ERROR_KEY, RUNTIME_KEY, ATTEMPTS_KEY, RETRY_KEY)
_N = TypeVar("_N", int, float)
ARCHIVE_FORMAT = "qald-json"
RICH_ARCHIVE_FORMAT = "eqald-json"  # when an answer holds what QALD-JSON drops (confidences…)
QUERY_FORMAT = "text2sparql-answers"


def answer_file(
    run: SystemRun, dataset: Dataset, *, language: str, format: str | None = None
) -> bytes:
    """``run`` as an answer file, in the order of ``dataset``'s questions: ``format``, else
    QALD-JSON, or eQALD-JSON when an answer holds what only it keeps (a confidence, answer
    item types, annotations), so re-scoring the file gives what the live run gave."""
    return answer_file_in({language: run}, dataset, format=format)


def answer_file_in(
    runs: Mapping[str, SystemRun], dataset: Dataset, *, format: str | None = None
) -> bytes:
    """The runs of one system, one per language (``{"en": run, "es": run}``), as one answer
    file: each question's entries in the order of the languages. Only TEXT2SPARQL answers
    (:data:`QUERY_FORMAT`, one entry per question and language, as DB25's) hold several."""
    from service import formats
    from service.formats.fields import eqald_losses

    if len(runs) > 1 and format != QUERY_FORMAT:
        raise ValueError("only TEXT2SPARQL answers keep one entry per question and language")
    system = next(iter(runs.values())).system
    entries: list[Question] = []
    for question in dataset.questions:
        for language, run in runs.items():
            answer = run.get(question.id)
            if answer is not None:
                entries.append(_entry(question, answer, run, language, format))
    if format is None:
        rich = any(next(eqald_losses(entry), None) for entry in entries)
        format = RICH_ARCHIVE_FORMAT if rich else ARCHIVE_FORMAT
    archive = Dataset(
        # TEXT2SPARQL answers name the dataset as its services are asked (its file's IRI)
        id=dataset.file_id if format == QUERY_FORMAT else dataset.id,
        questions=tuple(entries),
        # the dataset's prefix names each TEXT2SPARQL answer's item (``ck25:1-en``)
        metadata=(("dataset.system", system), *_prefix_of(dataset)),
    )
    return formats.write(archive, format)


def _entry(
    question: Question, answer: SystemAnswer, run: SystemRun, language: str, format: str | None
) -> Question:
    """One question's entry: the text asked, what the service answered and the call's keys."""
    extra: list[tuple[str, str]] = []
    if answer.error is not None:
        extra.append((ERROR_KEY, answer.error))
    if answer.runtime_ms is not None:
        # repr: the shortest form that reads back as the same float, so the archive's
        # runtimes (and meanRuntime) score as the live run's did, to the last digit
        extra.append((RUNTIME_KEY, repr(float(answer.runtime_ms))))
    if answer.attempts > 1:
        extra.append((ATTEMPTS_KEY, str(answer.attempts)))
    if answer.retry_reason is not None:
        extra.append((RETRY_KEY, answer.retry_reason))
    if format == QUERY_FORMAT and run.source:
        extra.append(("endpoint", run.source))  # the TEXT2SPARQL answers' own field
    said = [p.message for p in run.problems if p.question_id == question.id]
    if said:
        extra.append((WARNINGS_KEY, "\n".join(" ".join(m.split()) for m in said)))
    text = question.text(language)
    return Question(
        id=question.id,
        language=language if format == QUERY_FORMAT else None,
        texts=(QuestionText(language, text, annotations=answer.annotations),),
        answertype=answer.answertype,
        sparql=answer.sparql,
        answers=answer.answers if answer.error is None else AnswerSet(),
        answer_item_types=answer.answer_item_types,
        confidence=answer.confidence,
        extra=tuple(extra),
    )


def _prefix_of(dataset: Dataset) -> tuple[tuple[str, str], ...]:
    from service.formats.text2sparql import PREFIX_KEY

    return tuple((k, v) for k, v in dataset.metadata if k == PREFIX_KEY)


def answers_from(
    dataset: Dataset,
    *,
    system: str | None = None,
    name: str | None = None,
    language: str | None = None,
) -> SystemRun:
    """A parsed answer file as a system's answers: what :func:`answer_file` kept of each call
    (``error``, ``runtimeMs``, ``attempts``, ``retryReason``) is restored, so a ``gerbil-qa
    system run`` archive scores with its failed calls, runtimes and retries; the system is
    named ``system``, else as the file says."""
    from service.formats.fields import EMPTY_ANSWER_SET

    recorded = dict(dataset.metadata).get("dataset.system")
    run = system_run(dataset, system=system or recorded or name or "system", language=language)
    answers = dict(run.answers)
    problems = list(run.problems)
    for question in dataset.questions:
        extra = dict(question.extra)
        problems += [
            Problem(line, severity="warning", file=name or dataset.source, question_id=question.id)
            for line in extra.get(WARNINGS_KEY, "").splitlines()
            if line.strip()
        ]
        if question.id not in answers or not any(key in extra for key in CALL_KEYS):
            continue
        where = (name or dataset.source, question.id)
        runtime = _number(extra, RUNTIME_KEY, float, "milliseconds as a decimal number", where)
        attempts = _number(extra, ATTEMPTS_KEY, int, "a whole number of calls", where)
        answers[question.id] = replace(
            answers[question.id],
            error=extra.get(ERROR_KEY),
            runtime_ms=runtime[0],
            attempts=max(1, attempts[0] or 1),
            retry_reason=extra.get(RETRY_KEY),
        )
        problems += runtime[1] + attempts[1]
    # A failed call's entry is empty because the call failed: its error says so already; an
    # answered call's empty set is an answer, as the live run took it (systems.response: a
    # reproduction warned where the experiment did not, explore22 7).
    called = {q.id for q in dataset.questions if any(k in dict(q.extra) for k in CALL_KEYS)}
    problems = [
        p for p in problems if not (p.message == EMPTY_ANSWER_SET and p.question_id in called)
    ]
    # an aborted run's file: its never-asked questions are no calls (DESIGN §3 "errors =
    # failed calls"); left out, they score as unanswered, as a question with no entry does
    unasked = [qid for qid, a in answers.items() if a.error and a.error.startswith(NOT_ASKED)]
    if unasked:
        why = answers[unasked[0]].error or NOT_ASKED
        reason = why.removeprefix(NOT_ASKED).strip().removeprefix("(").removesuffix(")")
        problems.append(
            Problem(
                f"the file is of an aborted run ({reason or 'by the error-rate rule'}): "
                f"{len(unasked)} of its {len(answers)} questions were never asked, scored as "
                "not answered, not as failed calls; this file is scored as given, where an "
                "experiment that calls the service itself leaves an aborted system out",
                severity="warning",
                file=name or dataset.source,
            )
        )
        answers = {qid: a for qid, a in answers.items() if qid not in set(unasked)}
    return replace(run, answers=answers, problems=tuple(problems))


def never_asked(dataset: Dataset) -> tuple[str, ...]:
    """The ids of an answer file's questions that an aborted ``system run`` never asked (each
    kept with the error :data:`NOT_ASKED` …): :func:`answers_from` leaves them out."""
    return tuple(
        q.id
        for q in dataset.questions
        if (dict(q.extra).get(ERROR_KEY) or "").startswith(NOT_ASKED)
    )


def _number(
    extra: dict[str, str],
    key: str,
    kind: Callable[[str], _N],
    expected: str,
    where: tuple[str | None, str],
) -> tuple[_N | None, list[Problem]]:
    """A number the archive kept under ``key`` (None when absent), or a warning saying why not."""
    if key not in extra:
        return None, []
    try:
        return kind(extra[key]), []
    except ValueError:
        file, question_id = where
        problem = Problem(
            f"{key} is not a number: {extra[key]!r}",
            severity="warning",
            file=file,
            question_id=question_id,
            expected=expected,
        )
        return None, [problem]
