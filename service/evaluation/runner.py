"""``evaluate``: score one system run on one dataset under one profile. Pure: no HTTP, no store.

The order of work is fixed so that a remote KB is asked a bounded number of times:

1. one record per gold question: skipped (no text in the language), missing, failed or scored;
2. the inputs of every experiment type (gold and system answers; markings from SPARQL, each
   distinct query string parsed once, and from eQALD annotations);
3. every KB lookup of the whole experiment collected and asked in one batch per kind
   (:mod:`service.evaluation.kbview`);
4. each question matched, then the aggregates computed from the per-question records.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from service.errors import BadRequest, Problem, first_ids, grouped_across_questions
from service.evaluation.kbview import KBRequests, KBView, resolve
from service.evaluation.matchers.base import Judged
from service.evaluation.matchers.sets import IriSetMatcher, canonical_relation, match_keys
from service.evaluation.measures import MEASURES, Reporting, TaskRecords, has_confidence
from service.evaluation.profiles import Profile, get_profile
from service.evaluation.profiles.base import AnswerItems
from service.evaluation.results import (
    QUERY_LEVEL_TYPES,
    Evaluation,
    ExperimentType,
    QuestionScore,
    QuestionStatus,
    TaskScores,
)
from service.evaluation.subexperiments import Markings, from_annotations, from_query
from service.evaluation.values import boolean_value, date_value, number_value
from service.kb import LOCAL_FROM, KnowledgeBase, describe
from service.model import AnswerSet, Dataset, Question, SystemAnswer, SystemRun, Term
from service.model import normalise_answer_type as _answer_type

if TYPE_CHECKING:
    from service.evaluation.scoring import Scoring
    from service.sparql import ParsedQuery

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while questions are matched."""

SUB_TYPES = (
    ExperimentType.C2KB,
    ExperimentType.P2KB,
    ExperimentType.RE2KB,
    ExperimentType.AT,
    ExperimentType.AIT2KB,
)
_MARKING_TYPES = frozenset(QUERY_LEVEL_TYPES)
_IRI_TYPES = {
    ExperimentType.C2KB: "resources",
    ExperimentType.P2KB: "properties",
    ExperimentType.AIT2KB: "item_types",
}


class _Case(NamedTuple):
    """One gold question with what the system gave for it."""

    question: Question
    answer: SystemAnswer
    status: QuestionStatus

    @property
    def scored(self) -> bool:
        return self.status is not QuestionStatus.NO_TEXT


class _Queries:
    """Parses each distinct query string once per run (a gold file given as answers, or a
    system echoing the gold query, repeats every query) for the sub-experiments' markings and
    the per-question query shapes alike; a parse failure becomes a warning each time the
    query's markings are asked for."""

    def __init__(self, problems: list[Problem], profile: Profile, dataset: Dataset) -> None:
        self._parsed: dict[str, tuple[ParsedQuery, list[str]] | str] = {}  # or the error
        self._markings: dict[str, Markings] = {}
        self._shapes: dict[str, dict[str, Any]] = {}
        self._problems = problems
        self._gerbil = profile.gerbil_markings
        self._classes = profile.unprojected_classes_in_c2kb
        self._fold = profile.fold_literals
        self._dataset = dataset  # its prefixes may be used undeclared (TEXT2SPARQL's ':')
        self._prefixes: dict[str, str] | None = None
        self._parser: Callable[..., Any] | None = None

    def _parse(self, text: str) -> tuple[ParsedQuery, list[str]] | str:
        found = self._parsed.get(text)
        if found is None:
            if self._parser is None:  # imported only when a query is read
                from service.formats.text2sparql import prefix_environment
                from service.sparql.parser import Parser

                self._parser = Parser
                self._prefixes = dict(prefix_environment(self._dataset)) or None
            try:  # the lexer runs in the constructor: it raises too
                parser = self._parser(text, strict=False, base=None, prefixes=self._prefixes)
                try:
                    found = (parser.parse(), parser.kinds)
                except RecursionError:
                    raise parser.nested_too_deeply() from None
            except ValueError as err:  # SparqlSyntaxError is a ValueError
                found = str(err) or type(err).__name__
            self._parsed[text] = found
        return found

    def markings(self, text: str | None, *, who: str, question_id: str) -> Markings | None:
        """The markings of ``text``; ``None`` when there is no query or it does not parse."""
        if text is None or not text.strip():
            return None
        found = self._parse(text)
        if isinstance(found, str):
            self._problems.append(
                Problem(
                    f"the {who} SPARQL query does not parse ({found}); "
                    "it gives no sub-experiment markings",
                    severity="warning",
                    question_id=question_id,
                )
            )
            return None
        marked = self._markings.get(text)
        if marked is None:
            marked = self._markings[text] = from_query(
                found[0], gerbil=self._gerbil, fold_literals=self._fold, classes=self._classes
            )
        return marked

    def shape(self, text: str) -> dict[str, Any]:
        """The compact shape of ``text`` (``service.sparql.complexity.compact``) or its error."""
        shape = self._shapes.get(text)
        if shape is None:
            from service.sparql.complexity import compact_shape

            found = self._parse(text)
            shape = {"error": found} if isinstance(found, str) else compact_shape(*found)
            self._shapes[text] = shape
        return shape


def has_text(question: Question, language: str) -> bool:
    """A question is asked in ``language`` when it has a string or keywords in it, or in no
    stated language (``""``: a TSV file read without one). A question with no texts at all
    (TSV ``expected.tsv`` alone) is never skipped."""
    if not question.texts:
        return True
    texts = (*question.texts_in(language), *(t for t in question.texts if t.language == ""))
    return any(
        (t.string and t.string.strip()) or (t.keywords and t.keywords.strip()) for t in texts
    )


def _gold_answers(question: Question) -> AnswerSet | None:
    if question.answers is not None:
        return question.answers
    return AnswerSet() if question.out_of_scope else None


def _cases(dataset: Dataset, run: SystemRun, language: str) -> list[_Case]:
    cases: list[_Case] = []
    for q in dataset.questions:
        answer = run.get(q.id)
        if not has_text(q, language):
            status = QuestionStatus.NO_TEXT
        elif answer is None:
            status = QuestionStatus.MISSING
        elif answer.error is not None:
            status = QuestionStatus.ERROR
        else:
            status = QuestionStatus.SCORED
        if answer is None or answer.error is not None:
            answer = SystemAnswer(
                question_id=q.id,
                error=answer.error if answer else None,
                runtime_ms=answer.runtime_ms if answer else None,
                # a query that failed is kept: the per-question view shows what was asked
                sparql=answer.sparql if answer else None,
                attempts=answer.attempts if answer else 1,
                retry_reason=answer.retry_reason if answer else None,
                rewrites=answer.rewrites if answer else (),
            )
        cases.append(_Case(q, answer, status))
    return cases


def _system_has(etype: ExperimentType, answers: Iterable[SystemAnswer]) -> bool:
    for a in answers:
        kinds = {(x.kind or "ENTITY").upper() for x in a.annotations}
        if etype is ExperimentType.AT and a.answertype:
            return True
        if etype is ExperimentType.AIT2KB and (a.answer_item_types or "CLASS" in kinds):
            return True
        if etype is ExperimentType.C2KB and kinds - {"PROPERTY", "CLASS"}:
            return True
        if etype is ExperimentType.P2KB and "PROPERTY" in kinds:
            return True
        if etype is not ExperimentType.AT and a.sparql and a.sparql.strip():
            return True
    return False


def _choose_types(
    profile: Profile,
    requested: Sequence[ExperimentType | str] | None,
    cases: Sequence[_Case],
    problems: list[Problem],
) -> list[ExperimentType]:
    if requested is None:
        answers = [c.answer for c in cases if c.scored]
        chosen = [ExperimentType.QA]
        chosen += [
            t for t in SUB_TYPES if t in profile.experiment_types and _system_has(t, answers)
        ]
        return chosen
    chosen = []
    for raw in requested:
        try:
            etype = ExperimentType(str(raw).strip().upper())
        except ValueError:
            known = ", ".join(t.value for t in ExperimentType)
            raise BadRequest(f"unknown experiment type {raw!r}; known: {known}") from None
        if etype not in profile.experiment_types:
            problems.append(
                Problem(
                    f"the {profile.name} profile scores only "
                    f"{', '.join(t.value for t in profile.experiment_types)}; "
                    f"{etype.value} is left out",
                    severity="warning",
                )
            )
        elif etype not in chosen:
            chosen.append(etype)
    return sorted(chosen, key=list(ExperimentType).index)


class _SubInputs(NamedTuple):
    gold: Markings | None  # None: the gold says nothing for sub-experiments
    system: Markings
    gold_type: str | None
    system_type: str | None
    # the gold markings hold a query's: relations (RE2KB) come from nothing else, so a gold of
    # annotations alone has none to compare (it scored RE2KB 1.0: explore28 F18)
    gold_query: bool = False


def _sub_inputs(
    case: _Case, types: Sequence[ExperimentType], language: str, queries: _Queries
) -> _SubInputs:
    """What the sub-experiments in ``types`` compare for one question; markings (SPARQL parsed)
    only when a marking type is scored, answer types only for AT."""
    q, a = case.question, case.answer
    gold: Markings | None = None
    system = Markings()
    gold_query = False
    if any(t in _MARKING_TYPES for t in types):
        if not q.out_of_scope:
            gold = queries.markings(q.sparql or q.pseudo_query, who="gold", question_id=q.id)
            gold_query = gold is not None
        notes = q.annotations(language)
        if notes or q.answer_item_types:
            extra = from_annotations(notes, q.answer_item_types)
            gold = extra if gold is None else gold.union(extra)
        if case.status is QuestionStatus.SCORED:  # a failed call marks nothing
            system = queries.markings(a.sparql, who="system", question_id=q.id) or system
        if a.annotations or a.answer_item_types:
            system = system.union(from_annotations(a.annotations, a.answer_item_types))
    gold_type = system_type = None
    if ExperimentType.AT in types:
        gold_type = q.answer_type.value if q.answer_type else None
        if a.answertype and a.answertype.strip():
            normal = _answer_type(a.answertype)
            system_type = normal.value if normal else a.answertype.strip().lower()
    return _SubInputs(gold, system, gold_type, system_type, gold_query)


def _relations(markings: Markings, profile: Profile) -> list[Any]:
    if profile.identity == "fair":
        return [canonical_relation(r) for r in markings.relations]
    return list(markings.relations)


def evaluate(
    dataset: Dataset,
    run: SystemRun,
    *,
    profile: Profile | str,
    language: str | None = None,
    kb: KnowledgeBase | None = None,
    experiment_types: Sequence[ExperimentType | str] | None = None,
    progress: Progress | None = None,
    ranked: bool = False,
) -> Evaluation:
    """Score ``run`` against ``dataset`` under ``profile`` (a :class:`Profile` or its name).

    ``language`` defaults to the profile's (``en``; ``pl`` for poleval). ``kb`` is used by
    profiles that match through a KB (``gerbil``, ``fair``). ``experiment_types`` defaults to QA
    plus every sub-experiment the profile scores and the run has data for (a SPARQL query,
    annotations, an answer type). ``ranked`` declares that each answer list is in rank order,
    adding MRR and Hits@k; the confidence measures appear when any answer has a confidence.
    ``progress(done, total)`` is called as questions are matched, in questions (with several
    experiment types, ``done`` counts the share of the work done in questions: 14, not 84).
    """
    prof = get_profile(profile)
    lang = language or prof.default_language
    # a web service's same warning in every response, once (its archive keeps each question's)
    order = [q.id for q in dataset.questions]
    problems: list[Problem] = grouped_across_questions(run.problems, order=order)
    if prof.answer_count_must_match and len(run.answers) != len(dataset.questions):
        # geval refuses files whose line counts differ; so do profiles that follow it.
        raise BadRequest(
            f"{run.source or run.system}: {len(run.answers)} answers for "
            f"{len(dataset.questions)} questions; the {prof.name} profile needs one answer line "
            "per question"
        )
    known = {q.id for q in dataset.questions}
    unknown = [qid for qid in run.answers if qid not in known]
    if unknown:
        shown = first_ids(unknown)
        problems.append(
            Problem(
                f"{len(unknown)} answers for question ids the dataset does not have ({shown}); "
                "they are ignored",
                severity="warning",
                file=run.source,
            )
        )
    cases = _cases(dataset, run, lang)
    missing = [c.question.id for c in cases if c.status is QuestionStatus.MISSING]
    if missing:  # a truncated file reads as a weak system in a paper's table
        shown = first_ids(missing)
        asked = sum(1 for c in cases if c.scored)
        # what the profile makes of them: GERBIL reads a missing answer as an empty one (an
        # empty gold then scores 1), which "scored as not answered" did not say (explore33 F7)
        made = (
            f"each is read as an empty answer, as {prof.title} does"
            if prof.scoring.missing_as_empty
            else "each is scored as not answered (0)"
        )
        problems.append(
            Problem(
                f"{len(missing)} of {asked} question{'s' if asked != 1 else ''} "
                f"{'has' if len(missing) == 1 else 'have'} no answer ({shown}): {made}",
                severity="warning",
                file=run.source,
            )
        )
    unapplied = [c.question.id for c in cases if c.scored and LOCAL_FROM in c.answer.rewrites]
    if unapplied:  # scored as if the clause were not there: a paper may need to say so
        shown = first_ids(unapplied)
        problems.append(
            Problem(
                f"{len(unapplied)} {'query names' if len(unapplied) == 1 else 'queries name'} "
                "graphs with FROM / FROM NAMED, not applied on "
                f"this local KB, whose files are one graph ({shown}): on an engine holding "
                "named graphs a FROM naming one it does not hold gives no answers",
                severity="warning",
                file=run.source,
            )
        )
    if prof.confidence_measures:
        note = _confidence_gaps(cases)
        if note is not None:
            problems.append(Problem(note, severity="warning", file=run.source))
    # one note: the alternatives' names the PolEval profile already (a TSV is PolEval's)
    note = _alternatives_note(dataset, prof) or _challenge_note(dataset, prof)
    if note is not None:
        problems.append(Problem(note, severity="warning", file=dataset.label))
    types = _choose_types(prof, experiment_types, cases, problems)
    scored = [c for c in cases if c.scored]
    if kb is None and ExperimentType.QA in types:
        unlinked = _labels_without_kb(prof, scored)
        if unlinked is not None:
            problems.append(Problem(unlinked, severity="warning", file=run.source))
    if (several := _several_values_note(prof, scored)) is not None:
        problems.append(Problem(several, severity="warning", file=run.source))

    queries = _Queries(problems, prof, dataset)
    subs: dict[int, _SubInputs] = {}
    if any(t is not ExperimentType.QA for t in types):
        for i, c in enumerate(cases):
            if c.scored:
                subs[i] = _sub_inputs(c, types, lang, queries)

    unmarked = []
    # what the system gave, not what was marked: a query that failed on the KB (an INSERT, a
    # CONSTRUCT, a SERVICE call: every one of a Text2SPARQL file's) marks nothing, and the
    # warning said "gave no SPARQL query" of a file with one in every entry (explore46 8)
    gave = any(
        (cases[i].answer.sparql or "").strip()
        or cases[i].answer.annotations
        or cases[i].answer.answer_item_types
        for i in subs
    )
    if subs and not gave and not any(any(s.system) for s in subs.values()):
        unmarked = [t.value for t in types if t in _MARKING_TYPES]
    typed = [s for s in subs.values() if s.gold_type]  # the gold's answer types: AT's
    if ExperimentType.AT in types and typed and not any(s.system_type for s in subs.values()):
        unmarked.append(ExperimentType.AT.value)  # no answer type given: AT's 0 too
    if unmarked:
        # a C2KB of 0.0025 read as the system's linking when it gave nothing to link
        # (explore28 F19); AT's and the gold's side have notes of their own
        problems.append(
            Problem(
                f"{', '.join(unmarked)}: the system gave no SPARQL query, annotation, answer "
                "item type or answer type for any question, so every question whose gold marks "
                "something scores 0 there: these numbers measure nothing of the system",
                severity="warning",
                file=run.source,
            )
        )
    iri_matcher = IriSetMatcher(prof.identity)
    view = _lookups(prof, kb, types, cases, subs, iri_matcher, lang)

    total = len(scored) * len(types)
    done = 0
    # the query shapes come with the query-level sub-experiments, which parse the same queries
    marked = any(t in _MARKING_TYPES for t in types)
    shapes = _query_shapes(cases, queries) if marked else {}
    tasks: dict[ExperimentType, TaskScores] = {}
    for etype in types:
        records: list[QuestionScore] = []
        on_qa = etype is ExperimentType.QA
        scoring = prof.scoring_of(etype)
        for i, c in enumerate(cases):
            judged = _judge(etype, i, c, prof, view, subs, iri_matcher, lang)
            records.append(_record(c, judged, prof, scoring, shapes.get(i) if on_qa else None))
            if judged is not None:
                done += 1
                if progress is not None:  # in questions: each is judged once per type
                    progress(done * len(scored) // total, len(scored))
        reporting = Reporting(
            etype,
            prof.name,
            processed=prof.processed_measures,
            confidence=prof.confidence_measures and has_confidence(records),
            ranked=ranked,
        )
        measures = MEASURES.compute(TaskRecords(records, scoring), reporting)
        tasks[etype] = TaskScores(etype, measures, tuple(records))
        if (note := tasks[etype].unscored_note) is not None:  # stored with the task, so pages say
            problems.append(Problem(note, severity="warning", file=dataset.label))

    used_kb = kb is not None and prof.uses_kb
    return Evaluation(
        dataset=dataset.label,
        system=run.system,
        profile=prof,
        language=lang,
        tasks=tasks,
        kb=describe(kb) if used_kb else None,
        problems=tuple(problems),
    )


def _labels_without_kb(prof: Profile, cases: Sequence[_Case]) -> str | None:
    """Label golds scored without a KB (explore28 F13): under a profile that matches labels
    and IRIs through a KB (``label`` in its ``match`` setting: a system label to a gold IRI;
    ``label(both)`` also a system IRI to a gold label), a question whose gold items are all
    literals and whose system items are all IRIs (or the reverse) scores 0 when no KB was
    given, however right the answer (NLQ's label golds, DBpedia IRIs given): say so."""
    match = dict(prof.settings).get("match", "")
    if not prof.uses_kb or "label" not in match:
        return None
    both = "label(both" in match  # label(both) or label(both,casefold)
    labels_gold = iris_gold = 0  # gold labels with system IRIs; gold IRIs with system labels
    for c in cases:
        gold = _gold_answers(c.question)
        if c.status is not QuestionStatus.SCORED or gold is None:
            continue
        g, s = list(gold.values()), list(c.answer.answers.values())
        if not g or not s:
            continue
        if both and all(_label_like(t) for t in g) and all(_iri_like(t) for t in s):
            labels_gold += 1
        elif all(_iri_like(t) for t in g) and all(_label_like(t) for t in s):
            iris_gold += 1
    if not labels_gold + iris_gold:
        return None
    said = [
        f"{n} of {len(cases)} questions have {what}"
        for n, what in (
            (
                labels_gold,
                "gold answers that are labels (literals) and system answers that are IRIs",
            ),
            (iris_gold, "gold answers that are IRIs and system answers that are labels (literals)"),
        )
        if n
    ]
    return (
        "; ".join(said)
        + f": the {prof.name} profile matches labels and IRIs through a KB and none was given, "
        "so each of them scores as wrong: give --kb (or the run's kb) to match labels and IRIs"
    )


def _iri_like(term: Term) -> bool:
    """An answer item a profile reads as an IRI: a ``uri`` value with a scheme (``<…>`` and
    whitespace stripped) or a literal holding an http(s) URL; any other value is a label."""
    text = term.value.strip().removeprefix("<").removesuffix(">").strip()
    if term.is_iri:
        return _SCHEME.match(text) is not None
    return term.is_literal and _HTTP_URL.match(text) is not None


def _label_like(term: Term) -> bool:
    """An answer item that may be a label: a literal that is no IRI, number, date or boolean
    (a count or a year has no label to look up: QAKIS's QALD-8 run had 26 such warned of,
    explore30 F5)."""
    if _iri_like(term) or not term.is_literal:
        return False
    text = term.value
    return number_value(text) is None and date_value(text) is None and boolean_value(term) is None


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_HTTP_URL = re.compile(r"https?://\S", re.IGNORECASE)


def _several_values_note(prof: Profile, cases: Sequence[_Case]) -> str | None:
    """A profile reading one answer line per question (poleval) joins several values with
    tabs, as an out.tsv line holding a tab: a web service or QALD-JSON file giving two values
    was scored so with no word, and a number among junk still counts (explore28 F16)."""
    if prof.items is not AnswerItems.LINE:
        return None
    several = [c.question.id for c in cases if len(c.answer.answers.values()) > 1]
    if not several:
        return None
    shown = first_ids(several)
    return (
        f"{len(several)} {'question was' if len(several) == 1 else 'questions were'} answered "
        f"with several values ({shown}): the {prof.name} profile reads one answer line per "
        "question, so they are joined with tabs into one (a number anywhere in it counts, any "
        "other text is compared whole); give one value per question"
    )


def _confidence_gaps(cases: Sequence[_Case]) -> str | None:
    """Answers without a confidence among answers with one count as confidence 0 in CWS, K1,
    K and r (CLEF's "no knowledge"): a system that forgot it on some answers should hear so
    (explore28 F12: two right answers of 13 lowered r and went last in CWS without a word)."""
    answered = [c for c in cases if c.status is QuestionStatus.SCORED]
    without = [c.question.id for c in answered if c.answer.confidence is None]
    if not without or len(without) == len(answered):
        return None
    shown = first_ids(without)
    return (
        f"{len(without)} of {len(answered)} answers give no confidence while the others do "
        f"({shown}): each counts as confidence 0 in cws, k1, k and r"
    )


def _alternatives_note(dataset: Dataset, prof: Profile) -> str | None:
    """A PolEval ``expected.tsv`` lists one answer in several forms; a profile that reads them
    as a set wants every form found (a perfect answer file scores 0.89 on dev-0 under fair)."""
    from service.evaluation.profiles.base import GOLD_ALTERNATIVES

    if dataset.format != "tsv" or GOLD_ALTERNATIVES in prof.settings:
        return None
    several = sum(1 for q in dataset.questions if q.answers and len(q.answers.values()) > 1)
    if not several:
        return None
    return (
        f"the gold of {several} questions lists alternative answers (tab-separated, PolEval "
        f"expected.tsv): the {prof.name} profile counts each as a gold answer to find, so one "
        "right answer scores recall below 1; --profile poleval counts the best alternative"
    )


def _challenge_note(dataset: Dataset, prof: Profile) -> str | None:
    """A challenge's dataset scored under another profile than the one reproducing the
    challenge: a TEXT2SPARQL'25 team that left the default read fair's 0.72 for an LLM run the
    challenge's rules score 0.70, and nothing said these were not the official numbers."""
    from service.evaluation.profiles import PROFILES

    own = next((p for p in PROFILES.values() if dataset.format in p.challenge_formats), None)
    if own is None or own.name == prof.name:
        return None
    return (
        f"a {own.title} dataset: these are the {prof.name} profile's numbers, not the "
        f'challenge\'s; --profile {own.name} (the API and the pages: "profile") scores it as '
        "the challenge did"
    )


def _lookups(
    prof: Profile,
    kb: KnowledgeBase | None,
    types: Sequence[ExperimentType],
    cases: Sequence[_Case],
    subs: dict[int, _SubInputs],
    iri_matcher: IriSetMatcher,
    lang: str,
) -> KBView:
    """Every KB lookup of the experiment, asked at once (at most one call per kind)."""
    if kb is None or not prof.uses_kb:
        return KBView()
    requests: list[KBRequests] = []
    for i, c in enumerate(cases):
        if not c.scored:
            continue
        if ExperimentType.QA in types:
            gold = _gold_answers(c.question)
            if gold is not None:
                requests.append(prof.matcher.requests(gold, c.answer.answers, language=lang))
        sub = subs.get(i)
        if sub is None or sub.gold is None:
            continue
        for etype, attr in _IRI_TYPES.items():
            if etype in types:
                requests.append(
                    iri_matcher.requests(getattr(sub.gold, attr), getattr(sub.system, attr))
                )
    return resolve(kb, KBRequests.merge(requests))


def _judge(
    etype: ExperimentType,
    i: int,
    c: _Case,
    prof: Profile,
    view: KBView,
    subs: dict[int, _SubInputs],
    iri_matcher: IriSetMatcher,
    lang: str,
) -> Judged | None:
    """The matched question, or ``None`` when it is skipped or the gold has nothing for it."""
    if not c.scored:
        return None
    if etype is ExperimentType.QA:
        gold = _gold_answers(c.question)
        if gold is None:
            return None
        answer_type = c.question.answer_type
        return prof.matcher.match(
            gold,
            c.answer.answers,
            view,
            language=lang,
            answer_type=answer_type.value if answer_type is not None else None,
        )
    sub = subs[i]
    if etype is ExperimentType.AT:
        if sub.gold_type is None:
            return None
        return match_keys([sub.gold_type], [sub.system_type] if sub.system_type else [])
    if sub.gold is None:
        return None
    if etype is ExperimentType.RE2KB:
        if not sub.gold_query:  # annotations give no relations: no gold for RE2KB
            return None
        return match_keys(_relations(sub.gold, prof), _relations(sub.system, prof))
    attr = _IRI_TYPES[etype]
    return iri_matcher.match(getattr(sub.gold, attr), getattr(sub.system, attr), view)


def _query_shapes(cases: Sequence[_Case], queries: _Queries) -> dict[int, dict[str, Any]]:
    """The shapes of each system query and its question's gold query (TEXT2SPARQL's query
    analysis), by case, from the parses the sub-experiments share; nothing for runs without
    queries."""
    out: dict[int, dict[str, Any]] = {}
    for i, c in enumerate(cases):
        if not c.answer.sparql or not c.answer.sparql.strip():
            continue
        shape = {"system": queries.shape(c.answer.sparql)}
        if c.question.sparql and c.question.sparql.strip():
            shape["gold"] = queries.shape(c.question.sparql)
        out[i] = shape
    return out


def _record(
    c: _Case,
    judged: Judged | None,
    prof: Profile,
    scoring: Scoring,
    shape: Mapping[str, Any] | None = None,
) -> QuestionScore:
    """The per-question record of one case in one task (``judged`` None: left out; ``scoring``:
    the task's, :meth:`Profile.scoring_of`; ``shape``: the query shapes of the case, on the QA
    task's record)."""
    asked = c.scored  # the question has text in the language: the system was asked it
    call = _call_fields(c, shape)
    if judged is None:
        return QuestionScore(
            c.question.id,
            status=c.status if not asked else QuestionStatus.NO_GOLD,
            processed=False,
            **call,
        )
    processed = c.status is QuestionStatus.SCORED
    p, r, f = scoring.question(judged, processed=processed)
    return QuestionScore(
        c.question.id,
        status=c.status,
        tp=judged.tp,
        fp=judged.fp,
        fn=judged.fn,
        precision=p,
        recall=r,
        f1=f,
        processed=processed,
        gold=judged.gold,
        given=judged.given,
        n_gold=judged.n_gold,
        n_system=judged.n_system,
        credit=judged.credit,
        verdicts=judged.verdicts,
        ranked=judged.ranked,
        matches=judged.matches,
        note=_note(prof, c) or judged.note,
        **call,
    )


def _note(prof: Profile, c: _Case) -> str | None:
    """What the profile's matcher says of the system's answer, when its items are not what the
    system said (:class:`~service.evaluation.matchers.base.NotesAnswers`)."""
    from service.evaluation.matchers.base import NotesAnswers

    matcher = prof.matcher
    return matcher.note(c.answer.answers) if isinstance(matcher, NotesAnswers) else None


def _answered(c: _Case) -> bool:
    """Whether the system answered (its time counts): a scored question, or one whose query
    it gave failed on the KB (a Text2SPARQL service answered, in its time; before, a slow
    service's failed queries showed no runtime and left meanRuntime). A failed call has no
    runtime."""
    if c.status is QuestionStatus.SCORED:
        return True
    return c.status is QuestionStatus.ERROR and c.answer.sparql is not None


def _call_fields(c: _Case, shape: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a record keeps of the system's call for its question, scored or left out: whether
    it failed and why, its runtime and confidence, the SPARQL it gave and its shape, retries."""
    return {
        "failed": c.status is QuestionStatus.ERROR,
        "runtime_ms": c.answer.runtime_ms if _answered(c) else None,
        "confidence": c.answer.confidence if c.scored else None,
        "error": c.answer.error,
        # as the system gave it, to the byte (its trailing newline was dropped, so the record
        # was not what the README calls it; explore25 12); only whitespace alone is none
        "system_query": c.answer.sparql if c.answer.sparql and c.answer.sparql.strip() else None,
        "query_rewrites": c.answer.rewrites,
        "query_shape": shape,
        "attempts": c.answer.attempts,
        "retry_reason": c.answer.retry_reason,
    }
