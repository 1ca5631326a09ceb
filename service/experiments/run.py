"""``run_experiment``: the one way an experiment is run, whoever asks for it.

1. the spec is checked (profile, language, systems and their addresses) and the dataset read;
2. each system's answers are obtained (:mod:`service.experiments.systems`): read from a file,
   or asked from a service with every answer logged as it arrives when a job keeps state;
3. each system is evaluated (pure: :func:`service.evaluation.evaluate`), and a run that scores
   no question at all is refused with the reason;
4. with a store, the experiment is recorded in one transaction (and published if asked).

PROV times: the start is taken before anything is read, the end just before the results are
written, both to the millisecond.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from service.errors import BadRequest, FormatError, NotFound, Problem, ServiceError
from service.experiments.inputs import (
    Files,
    check_has_text,
    check_scored,
    check_stated_language,
    check_unique_ids,
    read_dataset,
)
from service.experiments.queries import has_query_kb, no_query_kb
from service.experiments.spec import ExperimentSpec, FileDataset
from service.experiments.systems import (
    Aborted,
    Cancelled,
    Obtained,
    OutOfTime,
    SystemContext,
    check_name,
)

ALL_LANGUAGES = "all"  # a spec's languages: every language the dataset has

if TYPE_CHECKING:
    import threading
    from datetime import datetime

    from service.evaluation.profiles import Profile
    from service.evaluation.results import Evaluation
    from service.experiments.progress import ProgressCallback
    from service.experiments.systems import AnswerLog
    from service.formats.base import Limits
    from service.graph.claims import Hold

    class JobState(Protocol):
        """What a durable job keeps while it runs (:class:`service.experiments.jobs.JobFiles`)."""

        def log(self, system_index: int, language: str | None = None) -> AnswerLog: ...

        def archive(self, name: str, data: bytes) -> None: ...

    from service.graph.experiments import Ticket
    from service.graph.store import Storage
    from service.model import Dataset, SystemAnswer
    from service.systems.safety import NetworkPolicy


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a run produced: one evaluation per system (in the spec's order), the recorded
    experiment's ticket (with a store), when it started and ended (POSIX seconds; as UTC
    datetimes: :attr:`started`, :attr:`ended`), and whether public data changed."""

    evaluations: tuple[Evaluation, ...]
    ticket: Ticket | None
    started_at: float
    ended_at: float
    public_changed: bool = False
    dataset: Dataset | None = None  # the dataset as read (its questions' features, types)
    notes: tuple[str, ...] = ()  # systems left out with why (the error-rate rule stopped them)

    @property
    def started(self) -> datetime:
        from service.graph.clock import from_posix

        return from_posix(self.started_at)

    @property
    def ended(self) -> datetime:
        from service.graph.clock import from_posix

        return from_posix(self.ended_at)


def run_experiment(
    spec: ExperimentSpec,
    *,
    storage: Storage | None = None,
    ticket: Ticket | None = None,
    files: Files | None = None,
    job: JobState | None = None,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    policy: NetworkPolicy | None = None,
    hold: Hold | None = None,
    started: float | None = None,
    admit: Callable[[int, Callable[[str], None]], None] | None = None,
    ask_seconds: float | None = None,
    interval_resamples: int | None = None,
    interval_seed: int | None = None,
) -> Outcome:
    """Run ``spec`` (module docstring). Without ``storage`` nothing is recorded (``evaluate``
    without ``--store``); with a ``ticket`` (a reserved id) that experiment is completed, else
    a new id is allocated. Raises :class:`~service.errors.ServiceError` subclasses a user can
    act on (:class:`Cancelled` when ``cancel`` is set). ``hold``: the runner's claim on the
    experiment (a shared store), the precondition of its record. ``started``: when the run
    first started (seconds since the epoch), for a run resumed or taken over from its logged
    answers: its PROV start is when they began to be asked, not this resumption. ``admit``:
    called with the questions times systems once the dataset is read, and with what to say
    while it waits; returns when the run may go on (the server's question budget).
    ``ask_seconds``: how long this run may spend asking web services, from its first call
    (the server's ``runner_ask_seconds``); past it the system being asked is stopped.
    ``interval_resamples``, ``interval_seed``: the bootstrap of the intervals recorded (None:
    the defaults), ``evaluate --store --resamples N --seed S``: it printed intervals of N
    resamples and recorded those of 1000 (explore61 F6)."""
    from service.evaluation import evaluate
    from service.evaluation.profiles import get_profile

    if started is None:
        started = time.time()  # the PROV start: before anything is read
    stop = cancel or _NeverSet()
    files = files or Files()
    profile = get_profile(spec.profile)
    languages = check_spec(
        spec, policy=policy, default_language=profile.default_language, profile=profile
    )
    report = _Reporter([(s.name, s.kind) for s in spec.systems], progress, started)
    spec = registered_version(spec, storage)

    report.phase("reading")
    named = named_language(spec)
    as_tagged: Dataset | None = None  # under "all": the texts as the file tags them
    if languages == (ALL_LANGUAGES,):
        as_tagged = read_dataset(spec.dataset, files, language=None, types=spec.experiment_types)
        languages = _dataset_languages(as_tagged, profile.default_language)
    kb = None
    if spec.kb is not None:
        from service.kb.open import open_kb

        kb = open_kb(list(spec.kb.sources), version=spec.kb.version)
    # reference systems without a KB given run on the one the dataset's queries run on
    # (CK25's graphs): gold-sparql there is the TEXT2SPARQL upper bound
    asked_kb = kb if kb is not None else _reference_kb(spec)

    # one pass per language (a web service is asked in each); several are pooled per system
    by_language: list[dict[int, Evaluation]] = []
    obtained: dict[int, list[Obtained]] = {}
    aborted: dict[int, str] = {}  # systems the error-rate rule stopped: no results, the others'
    clock = AskClock(ask_seconds)
    dataset: Dataset | None = None
    for language in languages:
        read = read_dataset(
            spec.dataset,
            files,
            language=language,
            named=named,
            gold=spec.gold,
            types=spec.experiment_types,
        )
        check_stated_language(spec.dataset, read, language, named=named)
        if storage is not None and dataset is None:
            check_unique_ids(read)  # its results are named by question id in the graph
        if admit is not None and dataset is None:
            admit(len(read.questions) * len(spec.systems), report.phase)
            report.phase("reading")
        dataset = dataset or read  # recorded with every text
        if as_tagged is not None:  # each text once, in its own language
            read = own_texts(read, as_tagged, language, untagged=profile.default_language)
        got = _ask(spec, read, language, kb=asked_kb, files=files, job=job, stop=stop,
                   report=report, policy=policy, aborted=aborted, first=languages[0],
                   clock=clock)  # fmt: skip
        for index, answers in got.items():
            obtained.setdefault(index, []).append(answers)
        report.phase("scoring")
        scored: dict[int, Evaluation] = {}
        for index, answers in got.items():
            if stop.is_set():
                raise Cancelled("cancelled while scoring; resume to continue")
            report.system(index, state="scoring", done=0)
            evaluation = evaluate(
                read,
                answers.run,
                profile=profile,
                language=language,
                kb=kb,
                experiment_types=spec.experiment_types or None,
                progress=report.scoring(index),
                ranked=spec.options.ranked,
            )
            check_scored(evaluation, read)
            if answers.kb is not None and evaluation.kb is None:
                # the answers came from this KB (queries run, a reference system): the
                # result depends on it even where the profile's matching does not
                evaluation = replace(evaluation, kb=answers.kb)
            scored[index] = evaluation
            report.system(index, state="done")
        by_language.append(scored)
    assert dataset is not None  # check_spec gives at least one language
    if len(aborted) == len(spec.systems):  # nothing to record: the experiment fails
        raise Aborted("; ".join(aborted.values()))
    kept = [i for i in range(len(spec.systems)) if i not in aborted]  # asked in every language
    if len(languages) == 1:
        evaluations = [by_language[0][i] for i in kept]
        recorded_evaluations = list(evaluations)
    else:
        from service.evaluation.languages import pooled

        per_system = [[each[i] for each in by_language] for i in kept]
        evaluations = [pooled(list(each)) for each in per_system]
        # the graph keeps the pooled task and each language's (its per-language measures)
        recorded_evaluations = [*evaluations, *(ev for each in per_system for ev in each)]

    notes = _notes(aborted) + _version_kb_notes(spec, storage, evaluations)
    public_changed = False
    if storage is not None:
        from service.experiments.recording import dataset_record
        from service.graph.clock import from_posix, timestamp

        results = sum(len(t.questions) for ev in recorded_evaluations for t in ev.tasks.values())
        recording_began = time.time()
        report.recording(results, results * _record_pace)

        def recording() -> None:  # called until the one write: a cancel then writes nothing
            if stop.is_set():
                raise Cancelled("cancelled while recording, nothing recorded; resume to continue")

        # every stored number carries its interval (NumPy, loaded only to record)
        from service.evaluation.comparison import with_intervals

        bootstrap = {"resamples": interval_resamples, "seed": interval_seed}
        recorded_evaluations = [
            ev if "intervals" in ev.extra else with_intervals(ev, **bootstrap)
            for ev in recorded_evaluations
        ]
        recording()
        evaluations = recorded_evaluations[: len(evaluations)]
        workspace = storage.workspace
        from service.experiments.kept import keep

        if workspace is not None:  # the bytes first, then the graph that names them
            for ref in spec.files():
                keep(workspace, files.checksum(ref)[0], files.data(ref))
        from service.experiments.recording import kb_files

        kb_uploads, kb_paths = kb_files(spec, (ev.kb for ev in recorded_evaluations))
        if workspace is not None:  # a KB from files: downloadable as the other files are
            from service.experiments.kept import file_key

            # local files only (none for a catalogue dataset's, served from the mirror)
            for up, path in zip(kb_uploads, kb_paths, strict=False):
                if not workspace.exists(file_key(up.sha256)):  # a large KB: read once
                    keep(workspace, up.sha256, path.read_bytes())
        recorded = dataset_record(
            spec.dataset,
            dataset,
            files,
            storage.catalogue,
            gold=spec.gold,
            revising=spec.options.revision_of is not None,
        )
        public_changed = recorded.stored_questions
        notes += recorded.notes + _unknown_answer_notes(
            spec, dataset, obtained, kept, recorded.ref.name
        )
        uploads = list(recorded.uploads)
        # a file asked in several languages is one entity (FileEntity is a frozen value)
        answers_files = (f for i in kept for g in obtained[i] for f in g.files)
        uploads += [f.uploaded(files) for f in dict.fromkeys(answers_files)]
        uploads += kb_uploads  # listed last: what the answers were matched or run on
        from service.experiments.rescore import recorded_spec
        from service.experiments.spec import call_settings_of

        ticket = storage.experiments.record(
            recorded_evaluations,
            spec=recorded_spec(spec, files),
            revision_of=spec.options.revision_of,
            answers_of=spec.options.answers_of,
            dataset=recorded.ref,
            systems=[s.info() for s in spec.systems],
            uploads=uploads,
            started=from_posix(started),
            ended=timestamp(),
            ticket=ticket,
            hold=hold,
            notes=notes,
            call_settings=tuple((c.iri, c.datatype, v) for c, v in call_settings_of(spec)),
            check=recording,
        )
        if spec.options.publish:
            from service.experiments.dataset_checks import publish_upload_findings

            storage.experiments.publish(ticket.id)
            publish_upload_findings(storage, ticket.id)
            public_changed = True
        _measured_pace(results, time.time() - recording_began)
    ended = time.time()
    report.phase("done")
    return Outcome(tuple(evaluations), ticket, started, ended, public_changed, dataset, notes)


# Seconds per question result the recording phase takes (the intervals, the quads and their
# one write): ~0.5 ms measured here (2,000 questions × 6 types in 6 s; 20,000 in ~70 s); each
# large recording of this process sets it, so the estimate follows this store's own pace.
_record_pace = 5e-4
PACE_FROM = 1000  # question results from which a recording's pace is telling


def _measured_pace(results: int, seconds: float) -> None:
    global _record_pace
    if results >= PACE_FROM and seconds > 0:
        _record_pace = seconds / results


def _notes(aborted: Mapping[int, str]) -> tuple[str, ...]:
    """What the experiment says of the systems left out while others were scored."""
    return tuple(
        f"{aborted[i]}: no results for it; the other systems are scored" for i in sorted(aborted)
    )


UNKNOWN_SHOWN = 10  # question ids a note names of the answers to questions not in the dataset


def _unknown_answer_notes(
    spec: ExperimentSpec,
    dataset: Dataset,
    obtained: Mapping[int, Sequence[Obtained]],
    kept: Sequence[int],
    name: str,
) -> tuple[str, ...]:
    """What a run says of each system's answers to question ids its dataset does not have:
    they are ignored (a warning of its task says so), but participants who answered an
    outdated version of a shared task's dataset are worth telling its organiser of."""
    known = {q.id for q in dataset.questions}
    notes = []
    for i in kept:
        answered = (qid for o in obtained.get(i, ()) for qid in o.run.answers)
        unknown = list(dict.fromkeys(qid for qid in answered if qid not in known))
        if unknown:
            shown = ", ".join(unknown[:UNKNOWN_SHOWN])
            more = f", first {UNKNOWN_SHOWN}" if len(unknown) > UNKNOWN_SHOWN else ""
            said = f"{len(unknown)} answers name questions"
            if len(unknown) == 1:
                said = "1 answer names a question"
            notes.append(
                f"{said} not in {name} (id{'s' if len(unknown) > 1 else ''} {shown}{more}): "
                f"{spec.systems[i].name}'s, not scored (answers to an older or other version?)"
            )
    return tuple(notes)


def _version_kb_notes(
    spec: ExperimentSpec, storage: Storage | None, evaluations: Sequence[Evaluation]
) -> tuple[str, ...]:
    """What a run on a registered dataset version says when its answers came from (queries
    run on, labels matched in) another KB than the one its gold was refreshed on: the scores
    then measure how the two KBs differ as much as the systems."""
    source = spec.dataset
    if storage is None or not isinstance(source, FileDataset) or source.version_of is None:
        return ()
    version = source.version_of
    refreshed = storage.catalogue.version_kb(version.name, version.version or "")
    if refreshed is None:
        return ()
    used = sorted({ev.kb for ev in evaluations if ev.kb} - {refreshed})
    identity = refreshed.split(" ", 1)[0]
    return tuple(
        f"the gold of {version.name} version {version.version} was refreshed on the KB "
        f"{refreshed}; the answers were run or matched on {kb}: their scores compare the two "
        "KBs as much as the systems"
        for kb in used
        if kb.split(" ", 1)[0] != identity
    )


def _ask(
    spec: ExperimentSpec,
    dataset: Dataset,
    language: str,
    *,
    kb: Any,
    files: Files,
    job: JobState | None,
    stop: Any,
    report: _Reporter,
    policy: NetworkPolicy | None,
    aborted: dict[int, str],
    first: str | None = None,
    clock: AskClock | None = None,
) -> dict[int, Obtained]:
    """Every system's answers in ``language`` (asked, read or run; SPARQL answers run on the
    pinned KB), by the system's index. A system the error-rate rule stops is left out and
    ``aborted`` says why (as GERBIL ends that system's task, not the others'); one stopped in
    an earlier language is not asked again. A run of answer files only asks nothing: its
    phase is "reading". ``first``: the run's first language; a later one's answers are logged
    and archived apart."""
    report.phase("reading" if all(s.from_files for s in spec.systems) else "asking")
    obtained: dict[int, Obtained] = {}
    later = language if first is not None and language != first else None
    _probe_kb(spec, aborted)
    for index, system in enumerate(spec.systems):
        if index in aborted:
            continue
        if stop.is_set():
            raise Cancelled("cancelled before every system was asked; resume to continue")
        report.system(index, state="asking")
        context = SystemContext(
            index=index,
            dataset=dataset,
            language=language,
            options=spec.options,
            files=files,
            cancel=stop,
            progress=report.counter(index),
            answered=report.errors_of(index),
            kb=kb,
            policy=policy,
            log=job.log(index, later) if job is not None else None,
            archive=job.archive if job is not None else None,
            later_language=later,
            one_answer_each=_one_answer_each(spec.profile),
            ask_clock=clock,
        )
        try:
            got = system.obtain(context)
        except OutOfTime:
            report.system(index, state="stopped")
            raise
        except Aborted as err:
            aborted[index] = err.message  # the note says the others are scored, if any are
            report.system(index, state="aborted")
            continue
        if got.queries:  # answers are SPARQL queries: run them on the pinned KB
            from service.experiments.queries import answer_queries, kb_sources
            from service.kb.remote import RemoteKBError

            sources, version = kb_sources(spec)
            try:
                run, used = answer_queries(got.run, dataset, sources, version=version, stop=stop)
            except RemoteKBError as err:
                raise RemoteKBError(
                    _kb_unreachable(system.name, err, kept=job is not None)
                ) from err
            got = replace(got, run=run, kb=used)
        obtained[index] = got
    return obtained


class AskClock:
    """A run's time for asking web services (``runner_ask_seconds``), counted from the first
    web service's first question, over its systems and languages; None: no bound."""

    SETTING = "GERBIL_QA_RUNNER_ASK_SECONDS"

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self._until: float | None = None

    def until(self) -> float | None:
        """When asking must end (``time.monotonic()``), started at the first call."""
        if self.seconds is None:
            return None
        if self._until is None:
            self._until = time.monotonic() + self.seconds
        return self._until

    def reason(self) -> str:
        return (
            f"the run's time for asking web services, {self.seconds:g} s ({self.SETTING}), ran out"
        )


def _reference_kb(spec: ExperimentSpec) -> Any:
    """The KB the dataset's own queries run on (``queries.kb_sources``), opened for the
    reference systems of a run given none; None without reference systems or such a KB."""
    if not any(s.kind == "reference" for s in spec.systems) or not has_query_kb(spec):
        return None
    from service.experiments.queries import kb_sources
    from service.kb.open import open_kb

    sources, version = kb_sources(spec)
    return open_kb(list(sources), version=version)


def _probe_kb(spec: ExperimentSpec, aborted: Mapping[int, str]) -> None:
    """Stop before asking when the KB the Text2SPARQL services' queries run on cannot be
    reached (``service.experiments.queries.probe_kb``)."""
    names = [
        s.name for i, s in enumerate(spec.systems) if s.kind == "text2sparql" and i not in aborted
    ]
    if not names:
        return
    from service.experiments.queries import probe_kb
    from service.kb.remote import RemoteKBError

    try:
        probe_kb(spec)
    except RemoteKBError as err:
        raise RemoteKBError(
            f"the queries of {', '.join(names)} would run on the knowledge base, which cannot "
            f"be reached: {err}; nothing was asked: resume the experiment once the endpoint "
            "answers"
        ) from err


def _kb_unreachable(system: str, err: Exception, *, kept: bool) -> str:
    """Why a run stopped after asking: the KB its queries run on could not be reached (every
    question had been asked; the bare endpoint error said neither that nor what comes next)."""
    message = f"the queries of {system} could not be run on the knowledge base: {err}"
    if kept:  # a job logged every answer: a resume runs them, it does not ask again
        message += (
            "; its answers are kept: resume the experiment once the endpoint answers "
            "(the service is not asked again)"
        )
    return message


def named_upload(
    spec: ExperimentSpec, storage: Storage | None
) -> tuple[ExperimentSpec, dict[str, bytes]]:
    """A dataset named by a name the catalogue does not have, which is a published uploaded
    dataset of ``storage`` (``dataset/{name}``: someone's benchmark, run by name as a
    catalogue dataset is): the spec with that file, as if uploaded again, and its bytes (the
    store kept them). Any other spec as it is."""
    from dataclasses import replace

    from service import catalog
    from service.experiments.spec import CatalogueDataset, FileDataset, FileRef

    source = spec.dataset
    if not isinstance(source, CatalogueDataset) or source.version is not None:
        return spec, {}
    if storage is None or any(e.name == source.name for e in catalog.entries()):
        return spec, {}
    found = storage.catalogue.published_upload(source.name)
    if found is None and storage.catalogue.withdrawn_upload(source.name):
        newer = [v.name for v in storage.catalogue.newer_uploads(source.name)]
        raise NotFound(  # before: "no dataset", as if it had never been
            f"dataset {source.name!r} was withdrawn: every run that published it was "
            "withdrawn, so it is run no more"
            + (f"; its newer version is {newer[-1]!r}" if newer else ""),
            field="dataset",
        )
    if found is None:  # the catalogue's names and this store's published uploads: neither
        names = [e.name for e in catalog.entries()] + storage.catalogue.published_upload_names()
        raise NotFound(
            f"no dataset {source.name!r}: neither a built-in dataset nor a published uploaded "
            f"dataset of this store{catalog.did_you_mean(source.name, names=names)} (GET "
            "/api/datasets lists both; gerbil-qa datasets the built-in ones)",
            field="dataset",
        )
    sha, title = found
    from service.experiments.kept import file_key

    data = storage.workspace.read(file_key(sha)) if storage.workspace is not None else None
    if data is None:
        raise BadRequest(f"dataset/{source.name}: its file is not kept by this store")
    tsv, in_sha = storage.catalogue.published_tsv(source.name)
    # a TSV is known by its extension: without it a published expected.tsv was "unknown"
    ref = FileRef(source.name, sha, len(data), format="tsv" if tsv else None)
    kept = {sha: data}
    questions = None  # an expected.tsv's in.tsv, published with it: its question texts
    in_data = storage.workspace.read(file_key(in_sha)) if in_sha and storage.workspace else None
    if in_sha and in_data is not None:
        questions, kept[in_sha] = FileRef("in.tsv", in_sha, len(in_data), format="tsv"), in_data
    return replace(spec, dataset=FileDataset(ref, title=title, questions=questions)), kept


def registered_version(spec: ExperimentSpec, storage: Storage | None) -> ExperimentSpec:
    """A catalogue dataset named with a version other than the catalogue's (one that
    ``dataset refresh --store`` registered) is read from the file that store kept for it; its
    results are a dataset of their own (another gold than the catalogue's)."""
    from dataclasses import replace

    from service.experiments.spec import CatalogueDataset, FileDataset, FileRef

    source = spec.dataset
    if not isinstance(source, CatalogueDataset) or source.version is None:
        return spec
    from service import catalog  # only here: it costs `evaluate` on a file ~3 ms (hashlib)

    if source.version == catalog.get_entry(source.name).version:
        return replace(spec, dataset=CatalogueDataset(source.name))
    workspace = storage.workspace if storage is not None else None
    if storage is None or workspace is None:
        raise BadRequest(
            f"version {source.version!r} of {source.name} is read from the store that "
            "registered it: give --store"
        )
    sha = storage.catalogue.version_file(source.name, source.version)
    if sha is None:
        raise BadRequest(
            f"{source.name} has no registered version {source.version!r} with a kept file "
            f"(gerbil-qa dataset refresh {source.name} --store … registers one)"
        )
    from service.experiments.kept import file_key

    path = workspace.path(file_key(sha))
    if path is None:
        raise BadRequest(f"{source.name} version {source.version!r}: its file is not kept")
    ref = FileRef(f"{source.name}-{source.version}.json", sha, None, str(path))
    title = f"{source.name} version {source.version}"
    return replace(spec, dataset=FileDataset(ref, title=title, version_of=source))


def _dataset_languages(dataset: Dataset, untagged: str) -> tuple[str, ...]:
    """Every language the dataset's questions have a (non-blank) text in, most questions first
    (:func:`~service.evaluation.languages.text_languages`; one text of ``"language": ""``
    listed en twice: explore44 F9; ``pt_BR`` is ``pt-BR``: explore51 F2)."""
    from service.evaluation.languages import text_languages

    found = text_languages(dataset.questions, untagged)
    if not found:
        raise BadRequest("the dataset's questions have no text in any language")
    return found


def own_texts(dataset: Dataset, as_tagged: Dataset, language: str, *, untagged: str) -> Dataset:
    """``dataset`` (read for ``language``) with only the texts whose own tag is ``language``:
    the tag ``as_tagged`` (the same file read with no language) gives each, as
    :func:`canonical_tag` writes it, an untagged text's being ``untagged`` (the profile's
    default); the others keep their place with no string, so the question is not asked in
    ``language``. What ``all`` asks and scores, each text once: it scored a ``pt_BR`` text as
    ``pt-BR`` and again as ``pt`` (a bare language asked by name takes a question's regional text
    where it has none of its own), ``zh-Hant-TW`` as ``zh``, and an untagged text in every
    language (read in each; explore53 F2)."""
    from service.evaluation.languages import canonical_tag
    from service.model import QuestionText

    def tag(text: QuestionText) -> str:
        return canonical_tag(text.language) if text.language else untagged

    questions = []
    for question, tagged in zip(dataset.questions, as_tagged.questions, strict=True):
        tags = [tag(t) for t in tagged.texts]
        if len(tags) != len(question.texts):  # not the same texts: as read for the language
            tags = [tag(t) for t in question.texts]
        texts = tuple(
            t if own == language else QuestionText(t.language)
            for t, own in zip(question.texts, tags, strict=True)
        )
        questions.append(replace(question, texts=texts))
    return replace(dataset, questions=tuple(questions))


def prepare(
    spec: ExperimentSpec,
    uploads: Mapping[str, bytes],
    *,
    policy: NetworkPolicy | None,
    parse_bytes: int,
    storage: Storage | None = None,
    limits: Limits | None = None,
) -> Files:
    """Check a submission before it gets an id. The cheap checks always (:func:`check_spec`,
    the catalogue name, the upload sizes); when the uploads total at most ``parse_bytes``, they
    are also read now, with the dataset and the answer files' checks, so an ordinary mistake is
    a 400 naming ``file:line:column``. Larger uploads are read in the job (a format error then
    ends the experiment as ``error`` with the same message). ``limits``: the readers' (the
    answer limits; None: the environment's). Returns the files, parsed or not, for the job."""
    from service import catalog
    from service.evaluation.profiles import get_profile
    from service.experiments.spec import CatalogueDataset
    from service.formats.base import DEFAULT_LIMITS

    with _about("profile"):
        profile = get_profile(spec.profile)
    languages = check_spec(
        spec, policy=policy, default_language=profile.default_language, profile=profile
    )
    language = None if languages == (ALL_LANGUAGES,) else languages[0]
    if isinstance(spec.dataset, CatalogueDataset):
        with _about("dataset"):
            catalog.get_entry(spec.dataset.name)  # NotFound names `gerbil-qa datasets`
    for ref in spec.files():
        if (ref.size or 0) > DEFAULT_LIMITS.max_bytes:
            raise BadRequest(
                f"{ref.name}: {ref.size} bytes, more than the limit of "
                f"{DEFAULT_LIMITS.max_bytes} bytes per file"
            )
    files = Files(uploads, limits=limits)
    if sum(len(data) for data in uploads.values()) > parse_bytes:
        return files
    read = registered_version(spec, storage) if storage is not None else spec
    dataset = read_dataset(
        read.dataset,
        files,
        language=language,
        named=named_language(spec),
        gold=spec.gold,
        types=spec.experiment_types,
    )
    if storage is not None:  # to be recorded (a comparison on the page records nothing)
        check_unique_ids(dataset)
    for asked in () if language is None else languages:  # each one must ask something
        check_has_text(dataset, asked, profile)
        check_stated_language(read.dataset, dataset, asked, named=named_language(spec))
    # "all": answers read as in the first
    language = language or _dataset_languages(dataset, profile.default_language)[0]
    ignore = _NeverSet()
    refused: list[Problem] = []  # every answer file's problems at once, not the first file's
    for index, system in enumerate(spec.systems):
        if system.from_files:  # nothing to ask: read and check its answers now
            try:
                system.obtain(
                    SystemContext(
                        index=index,
                        dataset=dataset,
                        language=language,
                        options=spec.options,
                        files=files,
                        cancel=ignore,
                        progress=lambda done, total: None,
                        answered=lambda answer: None,
                        one_answer_each=_one_answer_each(spec.profile),
                    )
                )
            except FormatError as err:
                refused += err.problems
    if refused:
        raise FormatError(refused)
    return files


def _one_answer_each(profile: str) -> str | None:
    """The profile's name when it pairs answers with questions by position (poleval)."""
    from service.evaluation.profiles import get_profile

    return profile if get_profile(profile).answer_count_must_match else None


@contextmanager
def _about(field: str) -> Iterator[None]:
    """Name ``field`` on a ServiceError raised inside that has none (the API's problems)."""
    try:
        yield
    except ServiceError as err:
        if err.field is None:
            err.field = field
        raise


def named_language(spec: ExperimentSpec) -> bool:
    """Whether the run names its language (``--lang``, "language"), not its profile's default."""
    return any(lang.strip() for lang in spec.languages)


def check_spec(
    spec: ExperimentSpec,
    *,
    policy: NetworkPolicy | None,
    default_language: str,
    profile: Profile | None = None,
) -> tuple[str, ...]:
    """The cheap checks, before anything is read or asked: the languages (returned; or
    ``("all",)``, every language of the dataset), the
    experiment types (with ``profile``: at least one it scores), the systems (names, addresses
    against the network policy, what they need). Raises BadRequest (UnsafeURL for an
    address)."""
    import re

    from service.evaluation.languages import LANGUAGE_TAG, canonical_tag
    from service.evaluation.results import ExperimentType

    # hi_IN (as QALD writes it, and as its error named it) is the tag hi-IN; case-insensitive
    # (BCP 47): "EN" is en, "en-us" en-US (explore31 F11)
    languages = tuple(dict.fromkeys(canonical_tag(lang) for lang in spec.languages if lang.strip()))
    languages = languages or (default_language,)
    if ALL_LANGUAGES in languages and len(languages) > 1:
        raise BadRequest(
            f"{ALL_LANGUAGES!r} stands alone: every language of the dataset", field="language"
        )
    for language in languages:
        if language != ALL_LANGUAGES and not re.fullmatch(LANGUAGE_TAG, language):
            raise BadRequest(
                f"language {language!r}: expected an ISO 639 code such as 'en'", field="language"
            )
    known = [e.value for e in ExperimentType]
    for value in spec.experiment_types:
        if value not in known:
            raise BadRequest(
                f"unknown experiment type {value!r}; expected some of {', '.join(known)}",
                field="experimentTypes",
            )
    if profile is not None and spec.experiment_types:
        _check_scored_types(spec.experiment_types, profile)
    if not spec.systems:
        raise BadRequest(
            "no systems: give answer files, web-service URLs or reference systems",
            field="systems",
        )
    has_kb = spec.kb is not None or has_query_kb(spec)
    if not has_kb and any(s.kind == "text2sparql" for s in spec.systems):
        # refused before it is queued, not after every question was asked
        raise BadRequest(no_query_kb(spec), field="kb")
    seen: set[str] = set()
    for n, system in enumerate(spec.systems, start=1):
        name = check_name(system.name, n)
        if name in seen:
            raise BadRequest(f"two systems are called {name!r}; give each a distinct name")
        seen.add(name)
        try:
            system.check(policy=policy, has_kb=has_kb)
        except FormatError:
            raise
        except ServiceError as err:  # several services: say which one (its address alone hid it)
            err.message = f"system {name!r}: {err.message}"
            err.args = (err.message,)
            if err.field is None:  # the API's problems (and the run page) name its entry
                err.field = f"systems[{n - 1}]"
            raise
    return languages


def _check_scored_types(types: Sequence[str], profile: Profile) -> None:
    """Refused when ``profile`` scores none of the experiment types asked for: every type was
    left out, and the run stopped with a false "every question was skipped: none has text in
    language 'en'" (the API accepted it, the job ended in error; explore39 F3). A type it does
    not score beside one it does stays a warning (``runner._choose_types``)."""
    from service.evaluation.profiles import PROFILES

    scored = [t.value for t in profile.experiment_types]
    if any(value in scored for value in types):
        return
    asked = " and ".join(types)
    others = [
        p.name
        for p in PROFILES.values()
        if all(value in [t.value for t in p.experiment_types] for value in types)
    ]
    raise BadRequest(
        f"the {profile.name} profile scores only {', '.join(scored)}, so {asked} would score "
        f"nothing: ask for {' or '.join(scored)}"
        + (f", or choose a profile that scores {asked} ({', '.join(others)})" if others else ""),
        field="experimentTypes",
    )


class _NeverSet:
    """A cancel event no one sets (``threading`` is not imported for ``evaluate``)."""

    def is_set(self) -> bool:
        return False


class _Reporter:
    """Keeps the structured progress and hands each change to the callback (if any; without
    one nothing is built)."""

    def __init__(
        self, systems: list[tuple[str, str]], callback: ProgressCallback | None, started: float
    ) -> None:
        """``systems``: each system's name and kind; ``started``: when the run started."""
        self._callback = callback
        if callback is None:
            return
        import threading

        from service.experiments.progress import RunProgress, SystemProgress

        self._lock = threading.Lock()
        self.current = RunProgress(
            "reading",
            tuple(SystemProgress(name, kind=kind) for name, kind in systems),
            started=started,
        )

    def _emit(self, value: Any) -> None:
        self.current = value
        if self._callback is not None:
            self._callback(value)

    def phase(self, name: str) -> None:
        if self._callback is not None:
            from dataclasses import replace

            with self._lock:
                self._emit(replace(self.current, phase=name))

    def recording(self, results: int, expected: float) -> None:
        """The recording phase begins: ``results`` question results, ``expected`` seconds."""
        if self._callback is not None:
            from dataclasses import replace

            from service.experiments.progress import Recording

            with self._lock:
                now = time.time()
                rec = Recording(results, now, expected)
                self._emit(replace(self.current, phase="recording", recording=rec))

    def system(self, index: int, **changes: object) -> None:
        if self._callback is not None:
            with self._lock:
                self._emit(self.current.system(index, time.time(), **changes))

    def answered(self, index: int, answer: SystemAnswer) -> None:
        if self._callback is None or answer.error is None:
            return
        from service.experiments.progress import MAX_REASONS, QuestionError

        with self._lock:
            before = self.current.systems[index]
            reasons = before.reasons
            if len(reasons) < MAX_REASONS:
                reasons = (*reasons, QuestionError(answer.question_id, answer.error))
            self._emit(self.current.system(index, errors=before.errors + 1, reasons=reasons))

    def counter(self, index: int) -> Callable[[int, int], None]:
        def count(done: int, total: int) -> None:
            self.system(index, done=done, total=total)

        return count

    def errors_of(self, index: int) -> Callable[[SystemAnswer], None]:
        def answered(answer: SystemAnswer) -> None:
            self.answered(index, answer)

        return answered

    def scoring(self, index: int) -> Callable[[int, int], None] | None:
        if self._callback is None:
            return None
        return lambda done, total: self.system(index, done=done, total=total)
