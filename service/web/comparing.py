"""Comparing uploaded answer files at once: ``POST /api/compare`` (the compare JSON) and the
``compare`` page for people (a form; tiers, intervals, p-values, charts, per-question differences).

Both read a submission like ``POST /api/experiments`` (a dataset by name or upload, systems as
answer files, profile, language), score it without recording anything (``run_experiment``
without a store) and compare the systems with :func:`service.evaluation.comparison.compare`,
the function behind ``gerbil-qa compare``. The work is bounded: uploads up to the synchronous
parse limit, at most :data:`MAX_RESAMPLES` resamples and :data:`MAX_SAMPLES` test samples.

Stored tasks compare too (:func:`compare_stored`), on their own experiment type (QA or a
sub-experiment: C2KB, P2KB…, one type at a time): a leaderboard's ticked rows, or the QA tasks of
the browser's own runs (``own_runs.own_tasks``, ticked on this page or the run page), or
``{"tasks": [...]}`` with the owner tokens of private ones (``tokens``: id -> token).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypedDict

from flask import Blueprint, Response, jsonify, make_response, render_template, request
from werkzeug.wrappers import Response as BaseResponse

from service.errors import BadRequest, Forbidden, ServiceError
from service.evaluation.results import (
    COUNT_MEASURES,
    ExperimentType,
    QuestionStatus,
    signature_fields,
    undefined_resamples_note,
)
from service.web.own_runs import for_this_browser, own_runs, own_tasks
from service.web.state import services

if TYPE_CHECKING:
    from service.evaluation.comparison import Comparison
    from service.evaluation.results import Evaluation
    from service.graph.reader import TaskResult

bp = Blueprint("compare", __name__)

MAX_RESAMPLES = 10_000
MAX_SAMPLES = 100_000
MAX_DIFFERENCES = 500  # rows of the per-question differences shown on the page
MAX_STORED = 20  # stored tasks compared at once
# the measures the pages' forms offer to compare on (the API takes any quality measure)
MEASURE_CHOICES = ("macroF1", "microF1", "macroF1QALD", "accuracy", "macroPrecision", "macroRecall")


def measure_choices() -> list[tuple[str, str]]:
    """The forms' measure choices (the compare form's, the own runs' list): name, label."""
    from service.web.pages import measure_label

    return [(m, measure_label(m)) for m in MEASURE_CHOICES]


LEADERBOARD_TIERS = 10  # a leaderboard's top rows given tiers


@dataclass(frozen=True, slots=True)
class Compared:
    comparison: Comparison
    evaluations: tuple[Evaluation, ...]
    measure: str
    answer_types: Mapping[str, str]  # question id -> answer type, where the dataset says
    withdrawn: tuple[dict[str, str], ...] = ()  # experiments compared that were withdrawn
    tasks: tuple[str, ...] = ()  # stored tasks compared, in the evaluations' order
    private: bool = False  # a stored task compared is private (its owner's): not cached
    # what was compared: QA for answer files, the stored tasks' own type (C2KB…) for them
    experiment_type: ExperimentType = ExperimentType.QA
    # a published uploaded dataset compared on (by its name, or its bytes uploaded again):
    # its URI, name and label ("Planets QA, version 1 (planets-qa-a5ce79b0)"), where "dataset"
    # is its title alone, which two versions share (explore32 7)
    dataset_named: tuple[str, str, str] | None = None
    # why a stored task's measures beyond its counts (CWS…) are not compared: said as warnings
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The compare JSON (``gerbil-qa compare --output json``'s) with what a cited
        comparison was made of (explore60 F6: systems by name only): each stored system's
        ``task``, the ``evaluator`` that computed it (its version, as an experiment records
        it) and on which day (``computedOn``, UTC: a day, so one seed still gives one answer
        byte for byte within it): a later evaluator may answer the same link otherwise."""
        from datetime import UTC, datetime

        from service import release

        out = self.comparison.to_json()
        out["warnings"] = [*out["warnings"], *self.notes]
        tasks = dict(zip((e.system for e in self.evaluations), self.tasks, strict=False))
        for system in out["systems"]:
            if system["system"] in tasks:
                system["task"] = tasks[system["system"]]
        if self.dataset_named is not None:
            uri, name, label = self.dataset_named
            out.update(datasetUri=uri, datasetName=name, datasetLabel=label)
        if self.withdrawn:
            out["withdrawn"] = list(self.withdrawn)
        out["evaluator"] = release.source().version  # keys only added, at the end
        out["computedOn"] = datetime.now(UTC).date().isoformat()
        return out


def published_upload_named(storage: Any, sha256: str | None) -> tuple[str, str, str] | None:
    """The URI, name and label of the published uploaded dataset whose file has ``sha256``."""
    from service.web import listings

    found = storage.catalogue.upload_for_sha256(sha256) if sha256 else None
    if found is None:
        return None
    uri = storage.uris.dataset(found[0])
    return uri, found[0], listings.upload_labels([uri]).get(uri, found[1])


# what a comparison reads besides its submission (JSON keys, form fields)
COMPARE_OPTIONS = frozenset({"measure", "test", "seed", "resamples", "samples"})
COMPARE_TASK_KEYS = frozenset({"tasks", "tokens"})  # the OpenAPI CompareTasks' (tested)


def compare_request(
    body: Any, *, kbs: Mapping[str, tuple[str, ...]], page: bool = False
) -> Compared:
    """Score and compare the submission of this request (JSON ``body``, else the form);
    ``page``: the compare page's form, whose missing choices are said in its words."""
    from service.evaluation.comparison import compare
    from service.experiments.run import named_upload, run_experiment
    from service.web import submission

    if isinstance(body, dict) and "tasks" in body:  # stored tasks, not files
        # a key it does not read is refused as a submission's ({"mesure": …} compared on
        # macroF1 without a word; explore64 F4)
        submission.known_keys(body, COMPARE_TASK_KEYS | COMPARE_OPTIONS, "$", what="a comparison")
        tasks = body["tasks"]
        if not isinstance(tasks, list):
            raise BadRequest("$.tasks: expected a list of task URIs")
        for key in sorted(COMPARE_OPTIONS | {"tokens"}):  # as a submission's nulls are
            if key in body and body[key] is None:
                raise BadRequest(f"$.{key}: got null (leave the key out for the default)")
        return compare_stored(tasks, body, tokens=body.get("tokens"))
    from service.web.api import FORM_TYPES, unsupported_body

    if body is not None:
        raw = submission.from_json(body, also=COMPARE_OPTIONS)
        options: Any = body if isinstance(body, dict) else {}
    elif request.mimetype in FORM_TYPES:
        raw = submission.from_form(request.form, request.files, size=request.content_length)
        if page:
            _form_choices(raw)
        options = request.form
    else:
        raise unsupported_body("the comparison")
    # the options are read before any scoring: a bad one costs nothing
    measure = _text(options, "measure")  # none: the profile's (PolEval's accuracy), below
    test = _text(options, "test") or "auto"
    numbers = _numbers(options, form=body is None)
    state = services()
    spec, uploads = submission.to_spec(raw, kbs=dict(kbs))
    _refuse_withheld(spec, state.storage)
    spec, kept = named_upload(spec, state.storage)  # a published upload, by its name
    uploads = {**uploads, **kept}
    if len(spec.systems) < 2 or any(not s.from_files for s in spec.systems):
        raise BadRequest(
            "$.systems: compare needs two or more answer files (run web services as an "
            "experiment first)"
        )
    files, policy = _prepared(
        spec,
        uploads,
        "The uploaded files are",
        "Compare them as stored runs instead: run each answer file as an experiment (on the "
        "run page, which reads larger files), then tick their tasks on this page; or compare "
        "the files with gerbil-qa compare on the command line.",
        field="answers",  # "Answer files", marked and linked (it marked none: explore62 F4)
    )
    outcome = run_experiment(spec, files=files, policy=policy)
    if not measure:
        measure = outcome.evaluations[0].profile.ranked_by if outcome.evaluations else "macroF1"
    result = compare(
        list(outcome.evaluations),
        measure=measure,
        experiment_type=ExperimentType.QA,
        test=test,
        **numbers,
    )
    questions = outcome.dataset.questions if outcome.dataset is not None else ()
    types = {q.id: q.answer_type.value for q in questions if q.answer_type is not None}
    from service.experiments.spec import FileDataset

    named = None
    if isinstance(spec.dataset, FileDataset) and spec.gold is None:
        named = published_upload_named(state.storage, files.checksum(spec.dataset.file)[0])
    return Compared(result, outcome.evaluations, measure, types, dataset_named=named)


def compare_stored(
    tasks: list[Any], options: Any, *, ticked: str | None = None, tokens: Any = None
) -> Compared:
    """Compare stored tasks (their URIs, as the leaderboards link them) on their stored
    per-question results of their experiment type (every task has one; all must have the
    same): public experiments, or private ones whose owner token the request carries
    (``tokens``: the API's ``{experiment id: token}``, several owners' at once). The same
    checks as for files: one dataset, profile (and version) and language. ``ticked``:
    the compare page, where the tasks were ticked (a key of :data:`TICKED`), refused in its
    words."""
    from service.evaluation.comparison import compare
    from service.web.submission import utf8

    if not all(isinstance(t, str) for t in tasks):
        raise BadRequest("$.tasks: expected a list of task URIs")
    # the options are read before anything is read from the store, and before the tasks'
    # values are judged: every field's type first, as every API body's (the soak's fuzz: a
    # wrong type at measure was named after two equal tasks)
    measure = _text(options, "measure") or "macroF1"
    test = _text(options, "test") or "auto"
    numbers = _numbers(options, form=ticked is not None)
    held = _tokens(tokens)
    _stored_measure(measure)
    for i, uri in enumerate(tasks):  # JSON can write a lone surrogate, no URI holds one
        utf8(uri, f"$.tasks[{i}]")
    tasks = list(dict.fromkeys(tasks))
    if ticked is not None:
        _ticked(tasks, ticked)
    if not 2 <= len(tasks) <= MAX_STORED:
        raise BadRequest(f"$.tasks: compare 2 to {MAX_STORED} stored tasks, not {len(tasks)}")
    types: dict[str, str] = {}
    references: set[str] = set()
    notes: list[str] = []
    evaluations = stored_evaluations(
        tasks,
        answer_types=types,
        tokens=held,
        measure=measure,
        references=references,
        notes=notes,
    )
    if ticked is not None:
        _alike(evaluations, ticked)
    etype = _one_type(tasks, evaluations)
    _recorded(tasks, evaluations, measure)
    result = compare(  # a reference system is shown, not tested: as on the leaderboards
        evaluations,
        measure=measure,
        experiment_type=etype,
        test=test,
        references=references,
        stored=True,
        **numbers,
    )
    storage = services().storage
    located = [storage.uris.locate(t) for t in tasks]  # each a task: read above
    private = not all(storage.experiments.is_public(at.keys["experiment"]) for at in located if at)
    return Compared(
        result,
        tuple(evaluations),
        measure,
        types,
        _withdrawn(tasks),
        tuple(tasks),
        private,
        etype,
        notes=tuple(notes),
    )


def _stored_measure(measure: str) -> None:
    """A measure stored runs can be compared on, else a refusal saying which they can: the
    count measures recomputed from each question's stored counts, any other quality measure a
    task records (CWS, K1, MRR…: :data:`~service.evaluation.statistics.ITEM_MEASURES`, the
    processed-question ones) from the answer files the experiment kept
    (:func:`_with_recorded`). Refused before the store is read ("system 'X' has no QA cws"
    was said of a measure that does not exist)."""
    from service.evaluation.measures import MEASURES
    from service.evaluation.statistics import NO_INTERVAL

    if measure in MEASURES and measure not in NO_INTERVAL:
        return
    kept = [m for m in MEASURES if m not in COUNT_MEASURES and m not in NO_INTERVAL]
    which = f"{', '.join(COUNT_MEASURES)} (from each question's counts) and " + ", ".join(kept)
    said = f"{measure!r} is no measure" if measure not in MEASURES else f"{measure} is not"
    raise BadRequest(
        f"$.measure: {said}; stored runs are compared on {which} where they record them "
        "(from the answer files their experiments kept; compare other measures on the files: "
        "POST /api/compare with them, gerbil-qa compare)",
        field="measure",
    )


def _recorded(tasks: Sequence[str], evaluations: Sequence[Evaluation], measure: str) -> None:
    """Refuse, naming the task, a measure one of the stored ``tasks`` does not record (a run
    without confidences has no CWS, one not ranked no MRR): it said "system 'SysC
    (202611290001)' has no QA mrr" without saying which task or what it records."""
    for uri, evaluation in zip(tasks, evaluations, strict=True):
        measures = next(iter(evaluation.tasks.values())).measures
        if measure not in measures:
            from service.evaluation.statistics import NO_INTERVAL

            has = ", ".join(m for m in measures if m not in NO_INTERVAL)
            raise BadRequest(
                f"$.measure: {uri} ({evaluation.system}) records no {measure}; compare on a "
                f"measure every task records (it records {has})",
                field="measure",
            )


def _type_of(evaluation: Evaluation) -> ExperimentType:
    return next(iter(evaluation.tasks))  # a stored evaluation has one task


def _one_type(tasks: Sequence[str], evaluations: Sequence[Evaluation]) -> ExperimentType:
    """The experiment type the stored ``tasks`` share, or a refusal naming two that differ:
    a QA task and a C2KB one score different things of the same questions."""
    types = [_type_of(e) for e in evaluations]
    for uri, etype in zip(tasks, types, strict=True):
        if etype is not types[0]:
            raise BadRequest(
                f"$.tasks: {tasks[0]} is a {types[0].value} task and {uri} a {etype.value} "
                "task; compare tasks of one experiment type (a leaderboard's rows are of the "
                "one its type filter shows)"
            )
    return types[0]


def _tokens(value: Any) -> dict[str, str]:
    """The API's ``tokens``: each private experiment's owner token by its id, so one request
    compares the runs of several owners' tokens (a bearer token is one owner's)."""
    from service.graph.uris import EXPERIMENT_ID
    from service.web.submission import utf8

    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadRequest(
            f"$.tokens: expected an object of owner tokens by experiment id, got "
            f"{type(value).__name__}"
        )
    if len(value) > MAX_STORED:
        raise BadRequest(f"$.tokens: at most {MAX_STORED} experiments' tokens, not {len(value)}")
    for key, token in value.items():
        if not EXPERIMENT_ID.match(key):
            raise BadRequest(
                f"$.tokens: {key[:40]!r} is not an experiment id (twelve digits such as "
                "202611260001)"
            )
        if not isinstance(token, str) or not token:
            raise BadRequest(f"$.tokens.{key}: expected the experiment's owner token (a string)")
        utf8(token, f"$.tokens.{key}")
    return dict(value)


def _withdrawn(tasks: Sequence[str]) -> tuple[dict[str, str], ...]:
    """The compared tasks' experiments that their owners withdrew: a cited comparison still
    answers, and says so."""
    storage = services().storage
    out = []
    for uri in tasks:
        located = storage.uris.locate(uri)
        status = storage.experiments.status(located.keys["experiment"]) if located else None
        if status is not None and status.withdrawn_at is not None:
            out.append(
                {
                    "task": uri,
                    "experiment": status.uri,
                    "withdrawnAt": status.withdrawn_at,
                    "withdrawalReason": status.withdrawal_reason or "",
                }
            )
    return tuple(out)


def stored_evaluations(
    tasks: Sequence[str],
    *,
    public_only: bool = False,
    answer_types: dict[str, str] | None = None,
    refused: dict[str, str] | None = None,
    tokens: Mapping[str, str] | None = None,
    experiment_type: str | None = None,
    measure: str | None = None,
    references: set[str] | None = None,
    notes: list[str] | None = None,
) -> list[Evaluation]:
    """The stored tasks ``tasks`` as evaluations (``graph.reader.stored_evaluation``) of
    ``experiment_type`` (a task of another is refused), or with None of each task's own, one
    system name each: a system run in two experiments is named by experiment too. With
    ``answer_types``, the answer type of each question id is added to it. With ``refused``, a
    task whose results cannot be recomputed here (an older profile version, per-question
    results withheld) is put there with why and left out, instead of refusing them all.
    ``tokens``: owner tokens by experiment id, besides the request's bearer token and cookies
    (``access.may_read``). ``measure``: one of an answer's items (CWS, MRR…): each task is
    scored again from its kept files (:func:`_recomputed`). ``references``: filled with the
    names of the evaluations that are a reference system's (``gqa:ReferenceSystem``). With
    ``measure``, each task carries every measure it records (:func:`_with_recorded`); where
    those its counts do not give cannot be scored again, why is put in ``notes``."""
    from service.graph.reader import (
        question_id_of,
        stored_evaluation,
        stored_results,
        stored_task,
    )
    from service.web.access import may_read
    from service.web.figures import answer_types_of

    storage = services().storage
    found: list[tuple[str, Evaluation]] = []  # (experiment id, its stored task)
    of_reference: list[bool] = []
    for uri in tasks:
        located = storage.uris.locate(uri)
        if located is None or located.kind != "task":
            raise BadRequest(f"{uri}: not a task URI of this service (…/experiment/ID/task/N)")
        if located.fragment is not None or "#" in uri:
            # a fragment (…/task/1#x) names no task: looked up whole, one holding ">" or a
            # space was no IRI at all, a 500 (explore34 2)
            raise BadRequest(
                f"{uri}: not a task URI of this service: a task URI has no fragment "
                "(…/experiment/ID/task/N, nothing after it)"
            )
        experiment_id = located.keys["experiment"]
        if storage.experiments.is_public(experiment_id):
            store = storage.public
        elif not public_only and may_read(experiment_id, tokens):
            store = storage.private
        else:  # the same words for a private experiment and one that is not there
            raise BadRequest(f"{uri}: experiment {experiment_id} is not public")
        graph = storage.uris.experiment_graph(experiment_id)
        task = stored_task(store, graph, uri, storage.uris)
        if task is None:
            raise BadRequest(f"{uri}: no such task (yet)")
        results = stored_results(store, graph, [uri]).get(uri, [])
        try:
            etype = experiment_type or task.experiment_type
            evaluation = stored_evaluation(task, results, storage.uris, experiment_type=etype)
            if measure is not None:  # a comparison: every measure the task records
                evaluation = _with_recorded(experiment_id, task, evaluation, measure, notes)
            found.append((experiment_id, _with_run_measures(evaluation, task.measures)))
            of_reference.append(_of_reference(store, graph, uri))
        except BadRequest:
            if refused is None:
                raise
            refused[uri] = _withheld(task, storage) if task.questions_withheld else OLDER_VERSION
            continue
        if answer_types is not None and not answer_types:  # one dataset: its types once
            uris = [r.question for r in results]
            typed = answer_types_of(storage.public, uris) or answer_types_of(store, uris)
            answer_types.update({question_id_of(q, storage.uris): t for q, t in typed.items()})
    if not found:
        return []
    names = [e.system for _, e in found]
    named = [
        replace(e, system=f"{e.system} ({eid})") if names.count(e.system) > 1 else e
        for eid, e in found
    ]
    if references is not None:
        references.update(e.system for e, ref in zip(named, of_reference, strict=True) if ref)
    return [_in_order_of(named[0], e) for e in named]


def _of_reference(store: Any, graph: str, task: str) -> bool:
    """Whether ``task`` (in ``graph`` of ``store``) is a reference system's run (as
    ``listings.reference_tasks`` tells it for a leaderboard's rows)."""
    from service.graph.queries import reference_system
    from service.graph.uris import GERBIL

    pattern = f"<{task}> <{GERBIL}annotator> ?s . {reference_system('?s')}"
    return bool(store.query(f"ASK {{ GRAPH <{graph}> {{ {pattern} }} }}"))


def _refuse_withheld(spec: Any, storage: Any) -> None:
    """A comparison on a dataset whose gold is withheld says how each answer was scored, one
    question at a time: refused (a run on it publishes the measures of each task only)."""
    from service.experiments.spec import CatalogueDataset

    source = spec.dataset
    named = isinstance(source, CatalogueDataset) and source.version is None
    if named and storage.catalogue.gold_withheld(source.name):
        raise Forbidden(
            f"dataset {source.name}: its gold is withheld (a shared task's test set), so "
            "answer files are not compared on it, question by question; run them on it "
            "as an experiment (its results are the measures of each task)",
            field="dataset",
        )


class TooLargeToCompare(BadRequest):
    """Files too large for a comparison answered at once: choosing them again cannot help (the
    page asks for no file again)."""


def mebibytes(size: int) -> str:
    """A byte count in MiB for a reader: ``2 MiB``, ``2.9 MiB``."""
    return f"{size / 2**20:.2g} MiB" if size < 10 * 2**20 else f"{size / 2**20:.0f} MiB"


def _prepared(
    spec: Any, uploads: dict[str, bytes], they_are: str, instead: str, field: str | None = None
) -> Any:
    """The files of a comparison answered at once, read and checked (``prepare``), and the
    network policy to score them under; refused when larger than the request's parse limit
    (``they_are``: the subject of that refusal, ``instead``: what to do, ``field``: the
    submission's field it is about, uploaded answers: the form marks and links it)."""
    from service.experiments.run import prepare

    config = services().config
    limit = config.sync_parse_bytes
    size = sum(len(data) for data in uploads.values())
    if size > limit:  # (it said "larger than 2097152 bytes … (GERBIL_QA_SYNC_PARSE_BYTES)",
        # a setting no browser user sets, and the form then asked for the same files again)
        raise TooLargeToCompare(
            f"{they_are} {mebibytes(size)} together, more than the {mebibytes(limit)} a "
            f"comparison answered at once reads. {instead}",
            field=field,
        )
    policy = config.network_policy()
    files = prepare(spec, uploads, policy=policy, parse_bytes=limit, limits=config.format_limits())
    return files, policy


def _with_recorded(
    experiment_id: str,
    task: TaskResult,
    stored: Evaluation,
    measure: str,
    notes: list[str] | None,
) -> Evaluation:
    """``stored`` (read from the task's per-question counts) with every measure the task
    records, as its answer files give them: the measures of each answer's items (CWS, K1, K,
    R; MRR and Hits@k of a ranked run…), which counts do not give, are scored again from the
    files its experiment kept (:func:`_recomputed`). A comparison of stored tasks gave their
    count measures only, where ``gerbil-qa compare`` on the same files gave them all (explore60
    F2). When they cannot be scored again, a comparison on a count measure goes on without
    them, saying why in ``notes``; one on such a measure is refused."""
    from service.evaluation.statistics import NO_INTERVAL

    etype = next(iter(stored.tasks))  # a stored evaluation has one task
    counted = stored.tasks[etype].measures
    others = [
        m for m in task.measures if m not in counted and m not in NO_INTERVAL and m != measure
    ]
    if measure in COUNT_MEASURES and not others:
        return stored
    wanted = ([] if measure in COUNT_MEASURES else [measure]) + others
    try:
        return _recomputed(experiment_id, task, stored, wanted)
    except BadRequest as err:
        if measure not in COUNT_MEASURES or notes is None:
            raise
        notes.append(f"{', '.join(others)} not compared: {err.message}")
        return stored


def _recomputed(
    experiment_id: str, task: TaskResult, stored: Evaluation, measures: Sequence[str]
) -> Evaluation:
    """``stored`` with its records scored again from the files its experiment kept (its spec,
    dataset and answer files, read as re-scoring reads them) under the profile it was scored
    with (``stored_evaluation`` refused another version of it): ``measure`` needs each
    answer's items, verdicts and confidence, which the stored counts do not hold. Refused,
    saying why, when the answers were not an answer file scored alone (a reference system's
    or queries run on a KB, a web service's), a file is not kept, or the kept files no
    longer give one of the stored ``measures`` (the first is the one compared on)."""
    import json
    import math

    from service.experiments.rescore import restored
    from service.experiments.run import run_experiment
    from service.experiments.spec import ExperimentSpec
    from service.experiments.systems import QUERY_ANSWERS_FORMAT

    state = services()
    said = ", ".join(measures)
    verb = "is" if len(measures) == 1 else "are"
    why = f"{task.uri}: {said} {verb} scored again from the files its experiment kept, but"
    text = state.storage.experiments.spec_of(experiment_id)
    if text is None:
        raise BadRequest(
            f"{why} experiment {experiment_id} kept no spec (recorded before specs were "
            "kept): compare its answer files (POST /api/compare with them, gerbil-qa compare)"
        )
    spec = ExperimentSpec.from_json(json.loads(text))
    system = next((s for s in spec.systems if s.name == task.system_name), None)
    if system is None or not system.from_files:
        how = {
            "reference": "were computed on its KB by a reference system",
            "text2sparql": "are SPARQL queries a Text2SPARQL service gave, run on its KB",
        }.get(getattr(system, "kind", ""), "were asked of a web service, not uploaded")
        raise BadRequest(f"{why} its answers {how}", field="tasks")
    languages = spec.languages if task.language_tag == "mul" else (task.language_tag,)
    spec = replace(spec, systems=(system,), profile=task.profile, languages=languages)
    try:
        spec, uploads = restored(state.storage, experiment_id, spec)
    except BadRequest as err:  # a file not kept: said of this task
        raise BadRequest(f"{why} {err.message}") from None
    files, policy = _prepared(
        spec, uploads, f"{why} they are", "Compare the files with gerbil-qa compare."
    )
    for ref in spec.systems[0].files():
        if files.dataset(ref, language=None, answers=True).format == QUERY_ANSWERS_FORMAT:
            raise BadRequest(f"{why} its answers are SPARQL queries, run on its KB")
    etype = next(iter(stored.tasks))  # a stored evaluation has one task
    again = run_experiment(spec, files=files, policy=policy).evaluations[0].tasks.get(etype)
    for measure in measures:
        before = task.measures.get(measure)
        now = again.measures.get(measure) if again is not None else None
        same = (before is None and now is None) or (
            before is not None and now is not None and math.isclose(before, now, abs_tol=1e-9)
        )
        if again is None or not same:
            raise BadRequest(
                f"{why} they no longer give its stored result ({measure} {before} stored, "
                f"{now} from the files): re-score the experiment"
            )
    assert again is not None  # measures is never empty
    return replace(stored, tasks={etype: again})


def _with_run_measures(evaluation: Evaluation, stored: Mapping[str, Any]) -> Evaluation:
    """``evaluation`` with the stored task's failed calls and mean time (``errorCount``,
    ``meanRuntime``): no resample recomputes them, but a comparison of answer files shows
    them, so a comparison of stored tasks shows them alike (it had neither)."""
    etype, task = next(iter(evaluation.tasks.items()))  # a stored evaluation has one task
    run = {m: stored[m] for m in ("errorCount", "meanRuntime") if m in stored}
    measures = {**task.measures, **run}
    return replace(evaluation, tasks={etype: replace(task, measures=measures)})


def _in_order_of(first: Evaluation, other: Evaluation) -> Evaluation:
    """``other`` with its task's questions in ``first``'s order when both hold the same questions,
    one record each: paired tests pair rows. A graph written before questions carried their
    position (``gqa:position``, 2026-11-21 and earlier) reads back in URI order, so the same
    questions came in another order and were refused as different ones."""
    etype = next(iter(first.tasks))  # a stored evaluation has one task
    if etype not in other.tasks:
        return other  # of another experiment type: compare_stored names both
    order = [q.question_id for q in first.tasks[etype].questions]
    task = other.tasks[etype]
    by_id = {q.question_id: q for q in task.questions}
    if (
        len(set(order)) != len(order)
        or len(by_id) != len(task.questions)
        or set(order) != set(by_id)
    ):
        return other  # not the same questions: compare says so
    questions = tuple(by_id[q] for q in order)
    return replace(other, tasks={**other.tasks, etype: replace(task, questions=questions)})


@dataclass(frozen=True, slots=True)
class Standing:
    """A leaderboard row's tier and the 95 % interval of the measure it is ranked by."""

    tier: int | None
    interval: tuple[float, float] | None
    # how tier and interval were computed (profile, resamples, seed, test, Holm's family over
    # the rows shown), so a reader can redo them
    signature: str | None = None
    # why a row among the top ones has no tier (a bare "–" left the reader guessing)
    reason: str | None = None
    # on how many of the resamples the measure was undefined (more than 25: no interval)
    undefined: int = 0
    resamples: int = 0

    @property
    def note(self) -> str | None:
        """What the leaderboard says of the resamples the measure was undefined on."""
        if not self.undefined:
            return None
        bounded = self.interval is not None
        return undefined_resamples_note(self.undefined, self.resamples, bounded=bounded)


def leaderboard_tiers(
    tasks: Sequence[str], measure: str, experiment_type: str = "QA"
) -> dict[str, Standing]:
    """Tiers and intervals of a leaderboard's top rows (public tasks of one experiment type,
    dataset, language and profile, best first): :func:`~service.evaluation.comparison.compare` on
    their stored results with the compare page's resamples and shuffles (the same tiers). Rows
    scored under another signature or pooled over other languages than the first recomputable
    one (every pooled task's language is ``mul``), or under a profile version this one scores
    otherwise, are left out (None): one such row took the tiers of every other row away. Rows
    of an older version this one still aggregates are tiered among themselves."""
    if not tasks:  # one row has its interval too (explore22 12)
        return {}
    refused: dict[str, str] = {}
    try:
        evaluations = stored_evaluations(
            tasks, public_only=True, refused=refused, experiment_type=experiment_type
        )
    except ServiceError:
        return {}
    recomputable = [t for t in tasks if t not in refused]
    if not evaluations:  # why the rows have no tier, when the store says it
        return {t: Standing(None, None, reason=why) for t, why in refused.items()}
    # the rows scored under this version of their profile are tiered, when there are any;
    # else the first row's kind (an older version's, tested among its own)
    first = next((e for e in evaluations if e.recorded_signature is None), evaluations[0])
    kept, apart = [], {}
    older: dict[tuple[str, str], list[tuple[str, Evaluation]]] = {}
    for t, e in zip(recomputable, evaluations, strict=True):
        why = _apart(e, first)
        if not why:
            kept.append((t, e))
        elif e.recorded_signature and e.language == first.language:
            # an older version's rows are tested among themselves, recomputed with their own
            # schemes (Profile.older): they lost tier and interval to one row of this version
            # while the notice said they kept them (explore30 F1)
            older.setdefault((e.signature, e.language), []).append((t, e))
            apart[t] = Standing(None, None, reason=why)  # what a row alone there keeps
        else:
            apart[t] = Standing(None, None, reason=why)
    apart.update((t, Standing(None, None, reason=why)) for t, why in refused.items())
    out = apart
    for group in [kept, *older.values()]:
        if not group:
            continue
        standings = _tiered(group, measure, experiment_type)
        if standings is None:
            return {}
        for task, standing in standings.items():
            said = out.get(task)  # an older version's row alone: why, beside its interval
            if said is not None and standing.reason == ALONE:
                standing = replace(standing, reason=said.reason)
            out[task] = standing
    return out


def _tiered(
    kept: list[tuple[str, Evaluation]], measure: str, experiment_type: str
) -> dict[str, Standing] | None:
    """The tier and interval of each of ``kept`` (task, its stored evaluation: rows of one
    kind), tested among themselves; None when the comparison cannot be made."""
    from service.evaluation.comparison import compare

    try:
        result = compare(
            [e for _, e in kept],
            measure=measure,
            # the compare page's resamples and shuffles, so both give these rows one tier: with
            # 1,000 shuffles Holm's floor over 45 pairs was 0.045, and a pair whose p is 0.0004
            # came out "not significant" by the chance of one or two shuffles (explore-14 2)
            experiment_type=ExperimentType(experiment_type),
            stored=True,
        )
    except ServiceError:
        return None
    out: dict[str, Standing] = {}
    # the comparison lists its systems best first by ITS measure and tier: taken by name, not
    # by position (zipped with the board's order, a board sorted by micro F1 gave rows the
    # intervals and tiers of others, and froze them so; explore24 5)
    by_name = {s.system: s for s in result.systems}
    for task, evaluation in kept:
        system = by_name[evaluation.system]
        ci = system.intervals.get(ExperimentType(experiment_type), {}).get(measure)
        pair = (ci.low, ci.high) if ci and ci.low is not None and ci.high is not None else None
        count, drawn = (ci.undefined, ci.resamples) if ci else (0, 0)
        # a tier says which rows a row is not worse than: alone, it has its interval only
        # (a lone testable row below untested ones read "tier 1": explore23 11)
        alone = len(kept) == 1
        tier = None if alone else system.tier
        out[task] = Standing(
            tier,
            pair,
            result.signature,
            reason=ALONE if alone else None,
            undefined=count,
            resamples=drawn,
        )
    return out


REFERENCE = (
    "a reference system (gold-sparql: the gold queries run on the KB, the upper bound; or a "
    "baseline run here): shown for scale, neither ranked nor tested against the systems"
)


ALONE = (
    "the only row here whose per-question results are tested: its interval, and no tier, "
    "which compares rows"
)


WITHHELD = (
    "its dataset's gold is withheld, and so are its per-question results, which tiers are "
    "tested on: no tier until the gold is revealed and the run re-scored"
)
REVEALED_SINCE = (
    "scored while its dataset's gold was withheld, and so are its per-question results, which "
    "tiers are tested on; the gold was revealed on {when}: re-scoring the run gives it a tier"
)


def _withheld(task: Any, storage: Any) -> str:
    """Why a task scored while its dataset's gold was withheld has no tier: still withheld,
    or revealed since (explore21 4: after the reveal the rows still waited for it)."""
    from urllib.parse import unquote

    when = storage.catalogue.revealed_at(unquote(task.dataset.rsplit("/", 1)[-1]))
    return WITHHELD if when is None else REVEALED_SINCE.format(when=when[:10])


OLDER_VERSION = (
    "scored under an older version of its profile, whose per-question results are not "
    "scored again here: not tested against the others; its owner re-scores it under this "
    "version (POST /api/experiments/ID/rescore, gerbil-qa rescore; a run that asked a web "
    "service is submitted again instead, its archived answers with revisionOf) for a tier"
)


def _apart(row: Evaluation, first: Evaluation) -> str:
    """Why a leaderboard row is not tested with the first tiered one ("" when it is): rows
    pooled over other languages, or scored under another signature, named by the fields
    it differs in (a result set and queries run on a KB differ in ``kb`` alone)."""
    if row.language != first.language:
        return (
            f"its languages ({row.language}) are not those of the rows tiered "
            f"({first.language}): not tested against them"
        )
    if row.signature == first.signature:
        return ""
    mine, theirs = signature_fields(row.signature), signature_fields(first.signature)
    if row.recorded_signature and not first.recorded_signature:  # an older version's row
        return (
            f"scored under an older version of its profile ({row.profile.name} "
            f"{mine.get('v', '?')}; {theirs.get('v', '?')} here now): tested among rows of that "
            "version only, not against the others; its owner re-scores it under this version "
            "(POST /api/experiments/ID/rescore, gerbil-qa rescore; a run that asked a web "
            "service is submitted again instead, its archived answers with revisionOf) for a "
            "tier among them"
        )
    differ = [
        f"{key} {mine.get(key, '(none)')} against {theirs.get(key, '(none)')}"
        for key in dict.fromkeys([*mine, *theirs])
        if mine.get(key) != theirs.get(key)
    ]
    return (
        f"scored under another signature than the rows tiered ({'; '.join(differ)}): "
        "not tested against them"
    )


def _text(options: Any, key: str) -> str | None:
    from service.web.submission import utf8

    value = options.get(key)
    if value is not None and not isinstance(value, str):
        raise BadRequest(f"$.{key}: expected a string, got {type(value).__name__}")
    if value:
        utf8(value, f"$.{key}")
    return value or None


class Numbers(TypedDict, total=False):
    """The numbers a comparison may be given (each checked, its work bounded)."""

    seed: int
    resamples: int
    samples: int


def _numbers(options: Any, *, form: bool) -> Numbers:
    """``seed``, ``resamples`` and ``samples``, checked (integers, bounded work); an empty
    form field is an absent one, an empty JSON string is not a number."""
    bounds = {"seed": 2**63 - 1, "resamples": MAX_RESAMPLES, "samples": MAX_SAMPLES}
    out: dict[str, int] = {}
    for key, most in bounds.items():
        value = options.get(key)
        if value is None or (form and value == ""):
            continue
        least = 0 if key == "seed" else 1
        try:
            number = None if isinstance(value, bool | float) else int(value)
        except (TypeError, ValueError):
            number = None
        if number is None or not least <= number <= most:
            raise BadRequest(f"$.{key}: expected an integer from {least} to {most}")
        out[key] = number
    return Numbers(**out)  # type: ignore[typeddict-item]


# -- the page's words: a person fills its form or ticks leaderboard rows; the API's messages name
# the API's fields ("$.systems", 'dataset'), which such a person never sees --------------------

# a dimension ticked rows must share: how they differ, what to tick, the leaderboard's filter
ALIKE: tuple[tuple[str, str, str, Callable[[Evaluation], str]], ...] = (
    (
        "of different experiment types",
        "of one experiment type",
        "Experiment type",
        lambda e: _type_of(e).value,
    ),
    ("on different datasets", "of one dataset", "Dataset", lambda e: e.dataset),
    ("in different languages", "in one language", "Language", lambda e: e.language),
    ("under different profiles", "under one profile", "Profile", lambda e: e.profile.name),
)

# where the compare page's tasks were ticked (its ``from`` parameter; a leaderboard by
# default): (what was ticked, where to tick, the button, where a dimension is said)
TICKED = {
    "leaderboard": (
        "rows",
        "on a leaderboard",
        "Compare the ticked systems",
        'choose it in the leaderboard\'s "{label}" filter',
    ),
    "runs": (
        "tasks",
        'in "Your runs in this browser"',
        "Compare the ticked tasks",
        "each task says its {lower}",
    ),
}


def _form_choices(raw: Any) -> None:
    """Refuse, naming the form's fields by their labels, a comparison without a dataset or
    with fewer than two answer files (``raw``: the form as a submission)."""
    from service.web.running import NO_DATASET

    if not raw.dataset_name and raw.dataset_file is None:
        raise BadRequest(
            'Choose the dataset the answer files answer: pick it in "Catalogue dataset" or '
            'upload it in "or a dataset file".',
            field=NO_DATASET,  # both fields marked and linked
        )
    if raw.dataset_name and raw.dataset_file is not None:
        raise BadRequest(
            'Choose one dataset: a "Catalogue dataset" or a dataset file, not both (set the '
            'list back to "(upload a file instead)" to use the file).',
            field=NO_DATASET,  # both fields marked and linked, as the run form's (explore66 F8)
        )
    answers = sum(1 for system in raw.systems if system.answers is not None)
    if answers < 2:
        raise BadRequest(
            f'Choose two or more answer files in "Answer files", one per system (you chose '
            f"{answers}); several can be picked at once.",
            field="answers",
        )


def _ticked(tasks: Sequence[Any], where: str) -> None:
    what, place, button, _ = TICKED[where]
    if not 2 <= len(tasks) <= MAX_STORED:
        ticked = f"{len(tasks)} {'is' if len(tasks) == 1 else 'are'} ticked"
        raise BadRequest(
            f"Tick two to {MAX_STORED} {what} {place} to compare them ({ticked}), then "
            f'press "{button}".'
        )


def _alike(evaluations: Sequence[Evaluation], where: str) -> None:
    """Refuse, saying where to see it, ticked rows that are not results on one dataset, in one
    language and under one profile (and version and KB): paired tests pair the answers to the
    same questions, scored alike (:func:`~service.evaluation.comparison.compare` refuses
    them too, in the API's words)."""
    what, _, _, said = TICKED[where]
    for differ, one, label, value in ALIKE:
        values = sorted({value(e) for e in evaluations})
        if len(values) > 1:
            how = said.format(label=label, lower=label.lower())
            raise BadRequest(
                f"The ticked {what} are results {differ} ({', '.join(values)}); a paired test "
                f"needs the same questions scored alike: tick {what} {one} ({how})."
            )
    if len({e.signature for e in evaluations}) > 1:
        raise BadRequest(
            f"The ticked {what} were scored by different versions of the profile or on "
            "different knowledge bases (a profile shows its signature when pointed at): tick "
            f"{what} scored alike."
        )


# -- the page ------------------------------------------------------------------------------------


@bp.get("/compare")
def form() -> Response:
    response = make_response(_form_answer())
    response.vary.add("Accept")  # HTML or JSON at one URL
    if response.mimetype == "text/html":  # lists this browser's own runs, if it has any
        for_this_browser(response)
    return response


def _form_answer() -> Any:
    """The form; with ``?task=URI&task=URI…`` (the leaderboards' ticked rows) the comparison
    of those stored tasks; with a leaderboard's ``measure`` but no row ticked, how to tick.
    The same link answers the compare JSON contract (``POST /api/compare``'s) to a client that
    asks for ``application/json`` or ``?format=json``: a paper's link to its significance
    tests is readable by programs too."""
    tasks = request.args.getlist("task")
    wanted = _wanted(rdf=bool(tasks))
    if wanted is not None and wanted.rdf is not None:
        return _rdf_comparison(tasks, wanted)
    if wanted is not None:
        return _json_comparison(tasks) if wanted.key == "json" else _latex_comparison(tasks)
    if not tasks and set(request.args) <= {"dataset"}:  # the navigation's or a dataset's link
        return _page()
    # ticked in the browser's own runs (this page's or the run page's list) or on a leaderboard
    ticked = "runs" if request.args.get("from") == "runs" else "leaderboard"
    try:
        found = compare_stored(tasks, request.args, ticked=ticked)
    except ServiceError as err:
        # no row ticked is the form's own state (its button pressed early), not a bad request:
        # the page says how to tick, with 200 like the form itself
        return _page(error=err), err.status if tasks else 200
    return _page(found=found), 200, _privacy(found)


PRIVATE = {"Cache-Control": "private, no-store"}


def _privacy(found: Compared) -> dict[str, str]:
    """The headers of a comparison of stored tasks: one holding an owner's private task is
    kept by no cache (it was read with that owner's token or cookie)."""
    return PRIVATE if found.private else {}


def _wanted(*, rdf: bool) -> Any:
    """The representation ``?format=`` or ``Accept`` ask for (JSON, LaTeX, and where ``rdf``,
    a comparison of tasks, an RDF syntax of triples), None for HTML; any other is a 406 (the
    form alone has no RDF)."""
    from service.web import conneg

    offered = (conneg.HTML, conneg.JSON, conneg.LATEX, *(conneg.TRIPLES if rdf else ()))
    rep = conneg.negotiate(request, offered)
    return None if rep is conneg.HTML else rep


def comparison_query(args: Any) -> str:
    """The query of a comparison's link, as its page links its formats and its RDF names it:
    the tasks in their order, then the options it reads (:data:`COMPARE_OPTIONS`), task URIs
    written as they are; other arguments (a leaderboard's ``from``, ``dataset``) left out, so
    one comparison has one name (the RDF re-encoded the tasks and kept them: explore67 F1)."""
    from urllib.parse import quote, urlencode

    pairs = [("task", t) for t in args.getlist("task")]
    pairs += [(k, args[k]) for k in sorted(COMPARE_OPTIONS) if args.get(k)]
    return urlencode(pairs, safe=":/", quote_via=quote)


def _rdf_comparison(tasks: list[str], rep: Any) -> Response:
    """The comparison of stored ``tasks`` as RDF (:mod:`service.web.comparison_rdf`), about
    this link without its ``format``; a refusal as text."""
    from service.web.comparison_rdf import comparison_quads
    from service.web.rdf_out import CONTEXT_PATH, serialize

    base = services().config.base
    try:
        options = {k: v for k, v in request.args.items() if k not in ("task", "format")}
        found = compare_stored(tasks, options)
        uri = f"{base}compare?{comparison_query(request.args)}"
        quads = comparison_quads(found, uri, services().storage.uris)
        body = serialize(quads, rep.rdf, context_url=base + CONTEXT_PATH)
        response = Response(body, content_type=f"{rep.media_type}; charset=utf-8")
        response.headers.update(_privacy(found))
    except ServiceError as err:
        response = Response(
            err.public_message + "\n", err.status, content_type="text/plain; charset=utf-8"
        )
    response.vary.add("Accept")
    return response


def latex_answer(found: Compared, *, download: bool = False) -> Response:
    """``found`` as the LaTeX tables ``gerbil-qa compare --output latex`` prints (its writer:
    one for both); as a file to save (``comparison.tex``) where ``download``."""
    import io

    from service.evaluation.comparison_out import emit
    from service.mediatypes import LATEX

    out = io.StringIO()
    etype = found.experiment_type.value  # a C2KB… comparison's own numbers
    emit(found.comparison, "latex", out, measure=found.measure, experiment_type=etype)
    response = Response(out.getvalue(), content_type=f"{LATEX}; charset=utf-8")
    response.headers.update(_privacy(found))
    if download:
        response.headers["Content-Disposition"] = 'attachment; filename="comparison.tex"'
    return response


def _latex_comparison(tasks: list[str]) -> Response:
    """The comparison of stored ``tasks`` as the LaTeX tables ``gerbil-qa compare --output
    latex`` prints (its writer: one for both); a refusal as text."""
    try:
        options = {k: v for k, v in request.args.items() if k not in ("task", "format")}
        response = latex_answer(compare_stored(tasks, options))
    except ServiceError as err:
        response = Response(
            err.public_message + "\n", err.status, content_type="text/plain; charset=utf-8"
        )
    response.vary.add("Accept")
    return response


def _json_comparison(tasks: list[str]) -> Response:
    """The comparison of stored ``tasks`` as JSON; a refusal as the API's error object."""
    try:
        options = {k: v for k, v in request.args.items() if k not in ("task", "format")}
        found = compare_stored(tasks, options)
        response = jsonify(found.to_json())
        response.headers.update(_privacy(found))
    except ServiceError as err:
        from service.web.app import api_problems, json_error

        response = json_error(err.status, err.public_message, api_problems(err))
    response.vary.add("Accept")
    return response


@bp.post("/compare")
def compared() -> BaseResponse:
    from service.web.demo import configured_kbs

    try:
        found = compare_request(None, kbs=configured_kbs(services().config), page=True)
        if request.form.get("format") == "latex":  # the form's "LaTeX tables" button
            return latex_answer(found, download=True)
        response = make_response(_page(found=found))
    except ServiceError as err:  # shown next to the form, values kept where a form can keep them
        response = make_response(_page(error=err), err.status)
    return for_this_browser(response)


def _page(*, found: Compared | None = None, error: ServiceError | None = None) -> str:
    from service import catalog
    from service.evaluation.comparison import format_p_value
    from service.evaluation.profiles import DEFAULT_PROFILE, PROFILES
    from service.experiments.inputs import FORCE_LABEL
    from service.web import charts, pages
    from service.web.app import problems_of
    from service.web.running import (
        COMPARE_FIELDS,
        at_fault,
        dataset_profiles,
        files_to_pick_again,
        published_uploads,
    )

    figures = _figures(found) if found is not None else None
    tasks = own_tasks()
    return render_template(
        "compare.html",
        own_runs=[run for run in own_runs() if run.id in tasks],  # finished, with QA tasks
        own_tasks=tasks,
        measures=measure_choices(),
        ticked=request.args.getlist("task") if request.method == "GET" else [],
        compare_query=comparison_query(request.args) if request.method == "GET" else "",
        datasets=catalog.entries(),
        uploads=published_uploads(),
        own_profiles=dataset_profiles(),
        profiles=[PROFILES[name] for name in PROFILES],
        default_profile=DEFAULT_PROFILE,
        chosen=request.form if request.method == "POST" else request.args,
        result=found.to_json() if found is not None else None,
        withdrawn=found.withdrawn if found is not None else (),
        measure=found.measure if found is not None else "macroF1",
        etype=found.experiment_type.value if found is not None else "QA",
        figures=figures,
        error=error.public_message if error is not None else None,
        problems=problems_of(error) if error is not None else [],  # each file's, listed
        # the fields it is about, marked and linked as on the run page (explore59 F5)
        at_fault=at_fault(error, COMPARE_FIELDS) if error is not None else {},
        at_fault_notice="compare-error",
        # no browser refills them; files too large fail again, chosen again (explore48 2)
        repick=files_to_pick_again()
        if error is not None and not isinstance(error, TooLargeToCompare)
        else [],
        parse_limit=mebibytes(services().config.sync_parse_bytes),
        force_label=FORCE_LABEL,
        p_value=format_p_value,  # as gerbil-qa compare prints it: never p = 0.0000
        charts=charts,
        pages=pages,
    )


def _figures(found: Compared) -> dict[str, Any]:
    """The charts (measures with intervals, per-question F1 of the first two systems) and the
    per-question differences on the experiment type compared (QA, or the stored tasks' own)."""
    from service.web.charts import BarChart, Scatter, Series
    from service.web.figures import CHART_MEASURES, answer_type_bars
    from service.web.pages import measure_label

    etype = found.experiment_type
    key, qa = etype.value, etype is ExperimentType.QA
    data = found.comparison.to_json()
    systems = data["systems"]
    names = [
        m
        for m in CHART_MEASURES
        if any(s["results"].get(key, {}).get(m) is not None for s in systems)
    ]
    bars = BarChart(
        ident="chart-compare-measures",
        title=f"{key} measures of each system with 95 % bootstrap intervals",
        description=(
            f"Bar chart of {', '.join(measure_label(m) for m in names)} for "
            f"{', '.join(s['system'] for s in systems)}, each with its interval. The numbers are "
            "in the table under it."
        ),
        categories=tuple(measure_label(m) for m in names),
        series=tuple(
            Series(
                s["system"],
                tuple(s["results"].get(key, {}).get(m) for m in names),
                tuple(_pair(s["intervals"].get(key, {}).get(m)) for m in names),
            )
            for s in systems
        ),
        axis_label="score, 0 to 1",
    )
    per_question = [
        {q.question_id: q for q in ev.tasks[etype].questions}
        for ev in found.evaluations
        if etype in ev.tasks
    ]
    scatter = None
    if len(per_question) >= 2:
        a, b = per_question[0], per_question[1]
        both = [q for q in a if q in b and a[q].f1 is not None and b[q].f1 is not None]
        points = tuple((float(a[q].f1 or 0), float(b[q].f1 or 0)) for q in both)
        if points:
            first, second = found.evaluations[0].system, found.evaluations[1].system
            better = sum(1 for x, y in points if x > y), sum(1 for x, y in points if y > x)
            scatter = Scatter(
                ident="chart-compare-scatter",
                title=f"Per-question F1{'' if qa else f' ({key})'}: {first} against {second}",
                description=(
                    f"One circle per distinct pair of F1 values over {len(points)} questions. "
                    f"{first} is better on {better[0]}, {second} on {better[1]}; the differing "
                    "questions are listed below."
                ),
                x_label=first,
                y_label=second,
                points=points,
            )
    # in the measures chart's order (by score), so a system keeps its colour in both charts
    order = {s["system"]: i for i, s in reversed(list(enumerate(systems)))}
    systems_f1 = sorted(
        (
            (ev.system, {q.question_id: q.f1 for q in ev.tasks[etype].questions})
            for ev in found.evaluations
            if etype in ev.tasks
        ),
        key=lambda named: order.get(named[0], len(order)),
    )
    # QA's alone, as on the experiment page: an answer type is the QA answer's, a
    # sub-experiment's F1 (of the query's resources, properties…) is not split by it
    by_type, type_rows = answer_type_bars(
        "chart-compare-answer-types", systems_f1, found.answer_types if qa else {}
    )
    # the stored tasks compared (none for answer files), in per_question's order: each cell
    # links the task's result for the question (what was answered, which rule matched)
    stored = found.tasks or (None,) * len(found.evaluations)
    tasks = [
        task if "," not in (ev.language or "") else None  # a pooled task's are `…@lang`
        for ev, task in zip(found.evaluations, stored, strict=True)
        if etype in ev.tasks
    ]
    ids = list(per_question[0]) if per_question else []
    rows = []
    scored_apart = 0  # the rows whose F1 differs; the others differ in outcome alone
    for qid in ids:
        results = [pq.get(qid) for pq in per_question]
        values = [r.f1 if r else None for r in results]
        statuses = {r.status for r in results if r}
        # an error in one run, a wrong answer in the other: F1 0 both times, still a change,
        # but not counted as scored differently (all 14 at 0.000 were: explore48 5)
        apart = len({v for v in values if v is not None}) > 1
        scored_apart += apart
        if apart or len(statuses) > 1:
            cells = [
                (
                    value,
                    r.status.value if r and r.status is not QuestionStatus.SCORED else None,
                    f"{task}/question/{qid}" if task and r else None,
                )
                for value, r, task in zip(values, results, tasks, strict=True)
            ]
            rows.append((qid, cells))
    return {
        "measures": bars,
        "answer_types": by_type,
        "answer_type_rows": type_rows,
        "scatter": scatter,
        "systems": [ev.system for ev in found.evaluations],
        "differences": rows[:MAX_DIFFERENCES],
        "differences_total": len(rows),
        "scored_apart": scored_apart,
    }


def _pair(value: Any) -> tuple[float, float] | None:
    if not value or value[0] is None or value[1] is None:
        return None
    return (float(value[0]), float(value[1]))
