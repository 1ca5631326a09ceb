"""The application layer: specs stored as small JSON beside uploads kept as files, no id left
behind when a submission cannot be saved, recovery after a crash, every system kind."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from service.errors import Conflict, FormatError
from service.experiments.asked import Reference, WebService
from service.experiments.jobs import JobStore
from service.experiments.run import run_experiment
from service.experiments.runner import ExperimentRunner
from service.experiments.spec import (
    CatalogueDataset,
    ExperimentSpec,
    FileDataset,
    FileRef,
    KBSpec,
    RunOptions,
)
from service.experiments.systems import AnswerFile
from service.graph.experiments import Status
from service.graph.store import open_storage
from service.graph.workspace import DirWorkspace
from service.paths import DEMO_DIR

QUESTIONS = DEMO_DIR / "questions.json"
PARTIAL = DEMO_DIR / "answers-partial.json"


def _upload_spec() -> tuple[ExperimentSpec, dict[str, bytes]]:
    data, answers = QUESTIONS.read_bytes(), PARTIAL.read_bytes()
    dataset, partial = FileRef.upload("q.json", data), FileRef.upload("p.json", answers)
    spec = ExperimentSpec(
        FileDataset(dataset, title="solar"),
        (AnswerFile("partial", partial),),
        profile="exact",
    )
    return spec, {dataset.sha256 or "": data, partial.sha256 or "": answers}


def _saved_job(storage, jobs: JobStore, status: str = "queued"):
    """An experiment with its job saved, then left ``status`` (as a dead process leaves it)."""
    spec, uploads = _upload_spec()
    ticket = storage.experiments.reserve()
    jobs.create(ticket.id, spec, uploads)
    storage.experiments.set_status(ticket.id, "queued")
    if status != "queued":
        storage.experiments.set_status(ticket.id, status)
    return ticket


def test_a_spec_reads_back_equal_for_every_kind() -> None:
    spec = ExperimentSpec(
        CatalogueDataset("qald-9-test-multilingual", version="2018"),
        (
            AnswerFile("a", FileRef.local("/tmp/a.json", format="qald-json"), label="A"),
            AnswerFile("b", FileRef.upload("b.json", b"{}")),
            WebService("w", "https://qa.example.org/api", label="W"),
            Reference("g", "gold-sparql"),
        ),
        profile="gerbil",
        languages=("de",),
        experiment_types=("QA", "C2KB"),
        kb=KBSpec(("kb.ttl", "more.nt"), version="2016-10", name="dbpedia"),
        gold=FileDataset(FileRef.local("gold.json")),
        options=RunOptions(ranked=True, publish=True, force=True, concurrency=2, timeout=5.0),
    )
    text = json.dumps(spec.to_json())
    assert ExperimentSpec.from_json(json.loads(text)) == spec
    assert "https://qa.example.org/api" in text and '"kind": "reference"' in text


def test_a_job_keeps_a_small_spec_and_the_uploads_as_files(tmp_path: Path) -> None:
    spec, uploads = _upload_spec()
    big = b'{"questions": []}' + b" " * 1_000_000  # a 1 MB upload stays a file of its own
    ref = FileRef.upload("big.json", big)
    spec = ExperimentSpec(spec.dataset, (*spec.systems, AnswerFile("big", ref)))
    jobs = JobStore(DirWorkspace(tmp_path))
    jobs.create("202401010001", spec, {**uploads, ref.sha256 or "": big})
    job = tmp_path / "jobs" / "202401010001"
    assert (job / "spec.json").stat().st_size < 2000
    assert (job / "files" / (ref.sha256 or "")).read_bytes() == big
    assert jobs.spec("202401010001") == spec and jobs.ids() == ["202401010001"]


class _FailingJobs(JobStore):
    def create(self, *args: object, **kwargs: object) -> None:
        raise OSError("No space left on device")


def test_a_submission_that_cannot_be_saved_leaves_no_id_behind(tmp_path: Path) -> None:
    """Nothing at all: it was left ``error`` ("the submission could not be saved: …") under an
    id its submitter was never told (explore52 F11)."""
    spec, uploads = _upload_spec()
    with open_storage(tmp_path / "store", catalog=False) as storage:
        runner = ExperimentRunner(storage, jobs=_FailingJobs(DirWorkspace(tmp_path)), workers=1)
        with pytest.raises(OSError, match="No space left"):
            runner.submit(spec, uploads=uploads)
        assert storage.experiments.listing(include_private=True) == []
        assert runner.active() == []
        runner.close()


def test_a_cancel_the_store_could_not_take_is_honoured_at_the_next_start(tmp_path: Path) -> None:
    """A run a full store left ``running`` whose owner cancelled it (the cancel marker beside
    its job, the status not written): the next start ends it cancelled. It was resumed, the
    cancel forgotten (explore52 F4)."""
    with open_storage(tmp_path / "store", catalog=False) as storage:
        experiments = storage.experiments
        jobs = JobStore(DirWorkspace(tmp_path / "store"))
        running = _saved_job(storage, jobs, "running")
        interrupted = _saved_job(storage, jobs, "interrupted")  # its end taken, the cancel not
        for ticket in (running, interrupted):
            jobs.request_cancel(ticket.id)
        runner = ExperimentRunner(storage, workers=1)  # recovers at start
        try:
            assert runner.resume_interrupted() == []
            for ticket in (running, interrupted):
                assert experiments.status(ticket.id).status is Status.CANCELLED
        finally:
            runner.close()


def test_recovery_ends_every_active_id(tmp_path: Path) -> None:
    spec, uploads = _upload_spec()
    with open_storage(tmp_path / "store", catalog=False) as storage:
        experiments = storage.experiments
        jobs = JobStore(DirWorkspace(tmp_path / "store"))
        ghost = experiments.reserve()  # reserved, then the process died: no job
        queued = experiments.reserve()
        jobs.create(queued.id, spec, uploads)
        experiments.set_status(queued.id, "queued")  # saved and queued, then it died
        runner = ExperimentRunner(storage, workers=1)  # recovers at start
        assert experiments.status(ghost.id).status is Status.ERROR
        assert experiments.status(queued.id).status is Status.INTERRUPTED
        with pytest.raises(Conflict, match="no saved job"):
            runner.resume(ghost.id)
        runner.resume(queued.id)  # the job's uploads are read from its files
        runner.wait(queued.id, timeout=60)
        assert experiments.status(queued.id).status is Status.FINISHED
        assert not jobs.has(queued.id)
        runner.close()


def test_a_start_resumes_what_a_crash_or_a_shutdown_interrupted(tmp_path: Path, caplog) -> None:
    """What ``serve`` does at start: queued and running ids a dead process left, and one a
    shutdown marked interrupted, run to their end without anyone resuming them; a cancelled
    one stays cancelled. Its log says the queued one had not started and that both are
    queued again: each queued run was logged "interrupted …; resume it to continue
    (gerbil-qa resume …)", then resumed half a second later (explore58 F3)."""
    import logging

    with open_storage(tmp_path / "store", catalog=False) as storage:
        experiments = storage.experiments
        jobs = JobStore(DirWorkspace(tmp_path / "store"))
        left = {}
        for status in ("queued", "running", "interrupted", "cancelled"):
            left[status] = _saved_job(storage, jobs, status).id
        with caplog.at_level(logging.INFO, logger="service.graph.experiments"):
            runner = ExperimentRunner(storage, workers=1, resuming=True)
        said = {r.getMessage().split(":")[0].split()[-1]: r.getMessage() for r in caplog.records}
        assert (
            "queued -> interrupted: queued when the service stopped, not started; "
            in (said[left["queued"]])
        )
        assert "running -> interrupted: interrupted by a restart; " in said[left["running"]]
        for eid in (left["queued"], left["running"]):
            assert said[eid].endswith("queued again as the service starts"), said[eid]
        resumed = runner.resume_interrupted()
        assert sorted(resumed) == sorted(left[s] for s in ("queued", "running", "interrupted"))
        for eid in resumed:
            runner.wait(eid, timeout=60)
            assert experiments.status(eid).status is Status.FINISHED
            assert not jobs.has(eid)
        assert experiments.status(left["cancelled"]).status is Status.CANCELLED
        assert runner.resume_interrupted() == []  # nothing left to resume
        runner.close()


def test_a_shutdown_says_which_runs_it_hands_over_and_which_had_not_started(
    tmp_path: Path, caplog
) -> None:
    """``stopping: 10 running experiment(s) handed over`` when 2 ran and 8 waited (explore58
    F3): the running and the queued are said apart."""
    import logging
    from concurrent.futures import Future

    from service.experiments.runner import _Running

    with open_storage(tmp_path / "store", catalog=False) as storage:
        runner = ExperimentRunner(storage, workers=1, recover=False)
        started: Future[None] = Future()
        started.set_running_or_notify_cancel()
        runner._running = {"202611290001": _Running(started), "202611290002": _Running(Future())}
        with caplog.at_level(logging.INFO, logger="service.experiments.runner"):
            runner.close(wait=0)
        assert (
            "stopping: 1 running experiment(s) handed over (202611290001); 1 queued "
            "experiment(s) not started, a start that resumes runs takes them (202611290002)"
        ) in caplog.messages


def test_an_interrupted_run_its_owner_cancels_is_not_resumed_at_start(tmp_path: Path) -> None:
    """The owner of a run a shutdown interrupted (``serve --no-resume`` left it) cancels it
    (the API's cancel is ``runner.cancel``): it is cancelled. Before, the cancel only left a
    request for a run active nowhere, the status stayed ``interrupted``, and the next start
    resumed it (clearing the request) and called the owner's services again."""
    with open_storage(tmp_path / "store", catalog=False) as storage:
        experiments = storage.experiments
        jobs = JobStore(DirWorkspace(tmp_path / "store"))
        ticket = _saved_job(storage, jobs, "interrupted")
        runner = ExperimentRunner(storage, workers=1)
        try:
            assert runner.cancel(ticket.id) is False  # nothing ran here to stop
            assert experiments.status(ticket.id).status is Status.CANCELLED
            assert runner.resume_interrupted() == []
            runner.resume(ticket.id)  # its owner may still resume it by hand
            runner.wait(ticket.id, timeout=60)
            assert experiments.status(ticket.id).status is Status.FINISHED
        finally:
            runner.close()


def test_a_job_this_version_cannot_read_does_not_stop_the_start(tmp_path: Path) -> None:
    """A job whose spec this version cannot read (saved by a newer version before a rollback)
    among the interrupted ones: the start resumes the others and ends that one as error
    saying why (its owner resumes it once a version that reads it runs). Before, its
    BadRequest left ``resume_interrupted``, so ``serve`` did not start at all."""
    from service.experiments.spec import SPEC_VERSION

    with open_storage(tmp_path / "store", catalog=False) as storage:
        experiments = storage.experiments
        jobs = JobStore(DirWorkspace(tmp_path / "store"))
        ids = []
        for _ in range(2):
            ids.append(_saved_job(storage, jobs, "interrupted").id)
        newer, readable = ids
        saved = next((tmp_path / "store").rglob(f"jobs/{newer}/spec.json"))
        data = json.loads(saved.read_text())
        saved.write_text(json.dumps({**data, "version": SPEC_VERSION + 1}))
        cut = _saved_job(storage, jobs, "interrupted")  # its spec cut short (a full disk)
        short = next((tmp_path / "store").rglob(f"jobs/{cut.id}/spec.json"))
        short.write_bytes(short.read_bytes()[:20])
        runner = ExperimentRunner(storage, workers=1)
        try:
            assert runner.resume_interrupted() == [readable]
            runner.wait(readable, timeout=60)
            assert experiments.status(readable).status is Status.FINISHED
            left = experiments.status(newer)
            assert left.status is Status.ERROR and "cannot be read" in (left.message or "")
            assert jobs.has(newer)  # kept, for a version that reads it
            assert experiments.status(cut.id).status is Status.ERROR
        finally:
            runner.close()


def test_a_run_its_process_keeps_dying_in_is_left_to_a_person(tmp_path: Path) -> None:
    """A start resumes a run its process died in (found ``running``) at most MAX_RESTARTS
    times; the next death ends it as error saying why, and a resume by hand runs it again."""
    from service.experiments.runner import MAX_RESTARTS

    with open_storage(tmp_path / "store", catalog=False) as storage:
        experiments = storage.experiments
        jobs = JobStore(DirWorkspace(tmp_path / "store"))
        ticket = _saved_job(storage, jobs)
        for death in range(1, MAX_RESTARTS + 2):
            experiments.set_status(ticket.id, "running")  # then the process dies
            runner = ExperimentRunner(storage, workers=1, recover=False)
            busy = threading.Event()  # its one worker busy: what it queues waits
            runner._pool.submit(busy.wait, 60)
            runner.recover()
            assert jobs.restarts(ticket.id) == death
            resumed = runner.resume_interrupted()
            runner._pool.shutdown(wait=False, cancel_futures=True)  # it dies before the run
            busy.set()
            if death <= MAX_RESTARTS:
                assert resumed == [ticket.id]
                assert experiments.status(ticket.id).status is Status.QUEUED
        status = experiments.status(ticket.id)
        assert status.status is Status.ERROR
        assert f"stopped {MAX_RESTARTS + 1} times while this experiment ran" in status.message
        runner = ExperimentRunner(storage, workers=1)
        runner.resume(ticket.id)  # a person tries again: its deaths are forgotten
        assert jobs.restarts(ticket.id) == 0
        runner.wait(ticket.id, timeout=60)
        assert experiments.status(ticket.id).status is Status.FINISHED
        runner.close()


def test_a_large_upload_with_a_format_error_ends_the_job_saying_where(tmp_path: Path) -> None:
    broken = QUESTIONS.read_bytes()[:-40]  # truncated: parsed in the job, not the request
    ref = FileRef.upload("solar.json", broken)
    spec = ExperimentSpec(FileDataset(ref), (AnswerFile("p", FileRef.local(PARTIAL)),))
    with open_storage(tmp_path / "store", catalog=False) as storage:
        runner = ExperimentRunner(storage, workers=1)
        ticket = runner.submit(spec, uploads={ref.sha256 or "": broken})
        runner.wait(ticket.id, timeout=60)
        status = storage.experiments.status(ticket.id)
        runner.close()
    with pytest.raises(FormatError) as direct:
        _read(broken)
    assert status.status is Status.ERROR
    assert status.message == direct.value.message  # exactly what the request would have said
    assert status.message.startswith("solar.json:") and "not valid JSON" in status.message


def _read(data: bytes) -> None:
    from service import formats

    formats.read(data, name="solar.json")


def test_a_reference_system_is_a_kind_like_the_others() -> None:
    spec = ExperimentSpec(
        FileDataset(FileRef.local(QUESTIONS)),
        (Reference("upper-bound", "gold-sparql"), AnswerFile("partial", FileRef.local(PARTIAL))),
        profile="fair",
        kb=KBSpec((str(DEMO_DIR / "kb.ttl"),)),
    )
    outcome = run_experiment(spec)
    upper, partial = outcome.evaluations
    assert upper.system == "upper-bound" and partial.system == "partial"
    # the gold queries on the KB they were computed from: the upper bound, with runtimes
    assert upper.tasks["QA"].measures["macroF1"] == 1.0  # type: ignore[index]
    assert upper.tasks["QA"].measures["meanRuntime"] is not None  # type: ignore[index]
    assert partial.tasks["QA"].measures["macroF1"] < 1.0  # type: ignore[index,operator]
    assert outcome.ticket is None and outcome.started <= outcome.ended


def test_answer_files_are_read_not_asked_in_the_progress() -> None:
    # Before: an answer file's row said "asking 13/13" until it was scored (on the run page,
    # in its script and in the status JSON), and a run of answer files only was "asking"
    from service.experiments.progress import RunProgress

    spec = ExperimentSpec(
        FileDataset(FileRef.local(QUESTIONS)),
        (
            AnswerFile("partial", FileRef.local(PARTIAL)),
            AnswerFile("strong", FileRef.local(DEMO_DIR / "answers-strong.json")),
        ),
        profile="exact",
    )
    seen: list[RunProgress] = []
    run_experiment(spec, progress=seen.append)
    assert "asking" not in {p.phase for p in seen} and "scoring" in {p.phase for p in seen}
    rows = [s.to_json() for p in seen for s in p.systems]
    assert {r["kind"] for r in rows} == {"answers"}
    assert not [r for r in rows if "ask" in r["activity"]], rows
    # while the first file is scored, the second one's answers are read and wait their turn
    first_scored = [p for p in seen if p.systems[0].state == "scoring"][-1]
    second = first_scored.systems[1].to_json()
    assert second["activity"] == "read, waiting to be scored"
    assert second["done"] == second["total"] == 14
    assert "strong 14/14 answers read" in first_scored.text()
    # the scorer counts a question once per experiment type: "84/84 questions" for 14
    scoring = [s for p in seen for s in p.systems if s.state == "scoring" and s.done]
    assert scoring and {s.total for s in scoring} == {14}, {s.total for s in scoring}
    assert max(s.done for s in scoring) == 14
    # before its answers are read a file counts nothing: its row said "0/0 questions"
    assert not [p.text() for p in seen if "0/0" in p.text()]


def test_a_finished_run_keeps_no_phase(tmp_path: Path) -> None:
    spec, uploads = _upload_spec()
    with open_storage(tmp_path / "store", catalog=False) as storage:
        runner = ExperimentRunner(storage, workers=1)
        ticket = runner.submit(spec, uploads=uploads)
        runner.wait(ticket.id, timeout=60)
        runner.close()
        status = storage.experiments.status(ticket.id)
    # it kept "recording", the phase it was in before its record: the API and `progress`
    # showed a finished experiment as still recording
    assert status.status is Status.FINISHED and status.progress is None, status


def test_a_finished_record_not_yet_settled_reads_without_its_runs_phase(tmp_path: Path) -> None:
    """A record is inserted, then settled (its old status, phase and message dropped) in a
    second update: a status read between the two said "finished" with progress "recording"
    (a poller saw it once, and its whole answer was made and kept under that ETag)."""
    from service.graph.adapter import Side
    from service.graph.uris import GQA

    with open_storage(tmp_path / "store", catalog=False) as storage:
        experiments = storage.experiments
        ticket = experiments.reserve()
        experiments.set_status(ticket.id, Status.QUEUED)
        experiments.set_status(ticket.id, Status.RUNNING, message="resumed", progress="recording")
        admin, exp = storage.uris.admin_graph, ticket.uri
        finished = f"INSERT DATA {{ GRAPH <{admin}> {{ <{exp}> <{GQA}status> 'finished' }} }}"
        storage.store.update(Side.PRIVATE, finished)  # the insert-only record, unsettled
        status = experiments.status(ticket.id)
    assert status.status is Status.FINISHED, status
    assert status.progress is None and status.message is None, status


def test_an_experiment_records_how_it_called_web_services_only_when_it_did() -> None:
    """The call settings go into the graph (``gqa:callTimeout`` …) for a run that asked web
    services, with the values it ran with; a run of answer files asked nothing."""
    from service.call_settings import CALL_SETTINGS
    from service.experiments.spec import call_settings_of

    files, _ = _upload_spec()
    assert call_settings_of(files) == ()
    asked = ExperimentSpec(
        files.dataset,
        (WebService("w", "https://qa.example.org/api"),),
        options=RunOptions(timeout=300.0, retries=0, concurrency=1),
    )
    assert [(c.iri.rsplit("#", 1)[1], v) for c, v in call_settings_of(asked)] == [
        ("callTimeout", 300.0),
        ("callRetries", 0.0),
        ("callConcurrency", 1.0),
        ("callMaxErrorRate", 0.25),
    ]
    assert [c.name for c, _ in call_settings_of(asked)] == [c.name for c in CALL_SETTINGS]


def test_a_reference_systems_logged_answers_count_at_once(tmp_path: Path) -> None:
    """``reused`` (the answers a resumed run had logged, not its pace): a reference system
    counted its questions one at a time, logged or asked, so its first count was 1 whatever it
    reused (a fresh run's pace twice too slow at its second answer; a resumed one's as fast as
    reading its log)."""
    from service.experiments.progress import RunProgress

    spec = ExperimentSpec(
        FileDataset(FileRef.local(QUESTIONS)),
        (Reference("upper-bound", "gold-sparql"),),
        profile="fair",
        kb=KBSpec((str(DEMO_DIR / "kb.ttl"),)),
    )
    jobs = JobStore(DirWorkspace(tmp_path))
    jobs.create("202401010001", spec, {})

    def asking(job: object) -> list[tuple[int, int | None]]:
        seen: list[RunProgress] = []
        run_experiment(spec, job=job, progress=seen.append)  # type: ignore[arg-type]
        return [
            (p.systems[0].done, p.systems[0].reused)
            for p in seen
            if p.systems[0].state == "asking" and p.systems[0].reused is not None
        ]

    fresh = asking(jobs.files_of("202401010001"))
    assert fresh and {reused for _, reused in fresh} == {0}, fresh
    again = asking(jobs.files_of("202401010001"))  # every answer logged: none asked again
    total = again[-1][0]
    assert total > 1 and {reused for _, reused in again} == {total}, again
