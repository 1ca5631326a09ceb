"""Several languages in one task: a system scored once per language, then pooled.

TEXT2SPARQL'25 averages over every question x language of DB25 (English and Spanish); QALD
reports one language at a time. :func:`pooled` gives both: a task whose records are every
language's records (each carrying its ``language``), whose measures are recomputed over all of
them by the measures registry (so micro and macro mean "over every question x language"), with
the per-language measures kept beside (``extra["byLanguage"]``). It works for every profile:
nothing is rescored, the registry's computations run on the pooled records.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from service.errors import BadRequest
from service.evaluation.measures import MEASURES, TaskRecords
from service.evaluation.results import Evaluation, TaskScores
from service.model import Question

# What a run takes for a language of the dataset (``run.check_spec``; the OpenAPI Submission's
# ``language`` pattern is built from the same two parts): an ISO 639 code, then subtags, in
# any case (BCP 47; :func:`canonical_tag` records them as it recommends).
LANGUAGE_PRIMARY = "[A-Za-z]{2,3}"
LANGUAGE_SUBTAG = "[A-Za-z0-9]{1,8}"
LANGUAGE_TAG = f"{LANGUAGE_PRIMARY}(?:-{LANGUAGE_SUBTAG})*"
SEPARATOR = ","  # the language of a pooled evaluation: its languages joined, e.g. "en,es"


def canonical_tag(tag: str) -> str:
    """A language a run is asked in, as BCP 47 recommends writing it (RFC 5646 §2.1.1: tags
    are case-insensitive): the language lower-case, a script title-case, a region upper-case,
    ``_`` as ``-`` (QALD's ``pt_BR``); ``EN`` -> ``en``, ``En-us`` -> ``en-US``, as a dataset's
    ``pt_BR`` is stored ``pt-BR``; ``ALL`` -> ``all``. Was refused: "EN" (explore31 F11)."""
    parts = tag.strip().replace("_", "-").split("-")
    out = [parts[0].lower()]
    for part in parts[1:]:
        if len(part) == 2 and part.isalpha() and out[0] not in ("x", "i"):
            out.append(part.upper())
        elif len(part) == 4 and part.isalpha() and len(out) == 1:
            out.append(part.title())
        else:
            out.append(part.lower())
    return "-".join(out)


def text_languages(questions: Iterable[Question], untagged: str) -> tuple[str, ...]:
    """The languages ``questions`` have a text in, most questions first: what ``--lang all``
    asks and scores, and what the ``datasets`` listing shows (sorted there). A text counts only
    when its string is not blank: QALD-7 test multilingual has ``"string": ""`` in fa, es, nl
    and ro in every question, and ``all`` asked fa and failed (explore54 F1). Texts of no
    language (``""``) count as ``untagged`` (the profile's default language), which they are
    read in. Each as :func:`canonical_tag` writes it, as ``--lang`` takes it: QALD-9's
    ``pt_BR`` is ``pt-BR``. A tag that is none (:func:`~service.valid_terms.is_asked_language_tag`:
    ``en--US``, ``123``) is no language: its texts are skipped."""
    from service.valid_terms import is_asked_language_tag

    counts: dict[str, int] = {}
    for question in questions:
        tags = (
            canonical_tag(t.language) if t.language else untagged
            for t in question.texts
            if t.string and t.string.strip()
            if not t.language or is_asked_language_tag(t.language)
        )
        for language in dict.fromkeys(tags):
            counts[language] = counts.get(language, 0) + 1
    return tuple(sorted(counts, key=lambda lang: -counts[lang]))


def parse_languages(text: str) -> tuple[str, ...]:
    """``"en, es"`` -> ``("en", "es")`` (order kept, repeats dropped, each
    :func:`canonical_tag`); ``all`` stays ``all``. A tag that is none (``LANGUAGE_TAG``) is
    refused quoted as given: ``run.check_spec`` quoted it as :func:`canonical_tag` made it,
    ``"ＥＮ"`` as ``'ｅｎ'``, ``"İn"`` as ``'i̇n'`` (explore35 8)."""
    import re

    given = [p.strip() for p in text.split(SEPARATOR) if p.strip()]
    for tag in given:
        made = canonical_tag(tag)
        if made != "all" and not re.fullmatch(LANGUAGE_TAG, made):
            raise BadRequest(
                f"language {tag!r}: expected an ISO 639 code such as 'en'", field="language"
            )
    found = tuple(dict.fromkeys(canonical_tag(p) for p in given))
    if not found:
        raise BadRequest("no language given: expected codes such as en or en,es, or all")
    return found


def pooled(evaluations: Sequence[Evaluation]) -> Evaluation:
    """One system's per-language evaluations (same dataset, profile and KB) as one: the
    experiment types every language has, their records concatenated in language order, the
    reported measures recomputed over them; ``language`` is the languages joined by commas."""
    if not evaluations:
        raise ValueError("nothing to pool")
    if len(evaluations) == 1:
        return evaluations[0]
    first = evaluations[0]
    for ev in evaluations[1:]:
        if (ev.system, ev.dataset, ev.signature) != (first.system, first.dataset, first.signature):
            raise ValueError("pooled evaluations must share system, dataset and signature")
    types = [t for t in first.tasks if all(t in ev.tasks for ev in evaluations)]
    tasks: dict = {}
    for etype in types:
        records = tuple(
            replace(q, language=ev.language)
            for ev in evaluations
            for q in ev.tasks[etype].questions
        )
        names = first.tasks[etype].measures.keys() | {
            n for ev in evaluations for n in ev.tasks[etype].measures
        }
        measures = MEASURES.recompute(names, TaskRecords(records, first.scoring_of(etype)))
        tasks[etype] = TaskScores(etype, measures, records)
    problems = tuple(dict.fromkeys(p for ev in evaluations for p in ev.problems))
    by_language = {
        ev.language: {t.value: dict(task.measures) for t, task in ev.tasks.items()}
        for ev in evaluations
    }
    return replace(
        first,
        language=SEPARATOR.join(ev.language for ev in evaluations),
        tasks=tasks,
        problems=problems,
        extra={**first.extra, "byLanguage": by_language},
    )
