"""The store layer: URIs, ids and counters, private until published, dumps, crash safety."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pyoxigraph
import pytest

from service.errors import BadRequest, Conflict, NotFound, ServiceError
from service.evaluation.profiles import get_profile
from service.evaluation.results import (
    Evaluation,
    ExperimentType,
    QuestionScore,
    QuestionStatus,
    TaskScores,
)
from service.graph.checks import check_store
from service.graph.dumps import export, import_dump
from service.graph.experiments import Ticket
from service.graph.results import DatasetRef, UploadedFile
from service.graph.store import Storage, open_storage
from service.graph.uris import Uris
from service.model import AnswerSet, Dataset, Question, QuestionText, Term

ROOT = Path(__file__).resolve().parents[2]


def _dataset(n: int = 3) -> Dataset:
    return Dataset(
        "tiny",
        tuple(
            Question(
                f"q{i}/x" if i == 2 else f"q{i}",
                texts=(QuestionText("en", f"Question {i}?"), QuestionText("de", f"Frage {i}?")),
                answertype="resource" if i % 2 else "number",
                answers=AnswerSet.of([Term.iri(f"http://example.org/a{i}")]),
            )
            for i in range(1, n + 1)
        ),
    )


def _one_published(path: Path) -> tuple[Storage, Ticket]:
    """A store at ``path`` holding one published experiment (on a tiny uploaded dataset)."""
    dataset = _dataset()
    storage = open_storage(path, catalog=False)
    ticket = storage.experiments.record(
        [_evaluation(dataset)], dataset=DatasetRef.upload("t", dataset)
    )
    storage.experiments.publish(ticket.id)
    return storage, ticket


def _evaluation(dataset: Dataset, *, system: str = "sys", undefined: bool = False) -> Evaluation:
    scored = [
        QuestionScore(
            q.id,
            tp=1,
            fp=0,
            fn=0,
            precision=1.0,
            recall=1.0,
            f1=1.0,
            given=(f"<http://example.org/a{i}>", '"x"@en'),
        )
        for i, q in enumerate(dataset.questions, start=1)
    ]
    skipped = QuestionScore("skipped", status=QuestionStatus.NO_TEXT, processed=False)
    scores = (*scored, skipped)
    measures = {"microF1": 1.0, "macroF1": 1.0, "questions": len(dataset), "errorCount": 0}
    measures["macroF1QALD"] = None if undefined else 0.5
    task = TaskScores(ExperimentType.QA, measures, scores)
    return Evaluation("tiny", system, get_profile("exact"), "en", {ExperimentType.QA: task})


def _public_graphs(store: Storage) -> list[str]:
    return sorted(g.value for g in store.public.named_graphs())


def test_uris_round_trip() -> None:
    uris = Uris("https://w3id.org/gerbil/qa")
    assert uris.base == "https://w3id.org/gerbil/qa/"
    cases = {
        uris.experiment("202401020003"): ("experiment", {"experiment": "202401020003"}),
        uris.task("202401020003", 2): ("task", {"experiment": "202401020003", "task": "2"}),
        uris.question_result("202401020003", 1, "a/b c"): (
            "question-result",
            {"experiment": "202401020003", "task": "1", "question": "a/b c"},
        ),
        uris.question("qald-9 train", "7"): (
            "question",
            {"dataset": "qald-9 train", "question": "7"},
        ),
        uris.dataset_version("d", "2018-08-17"): (
            "dataset-version",
            {"dataset": "d", "version": "2018-08-17"},
        ),
        uris.system("Ask Now/2"): ("system", {"system": "Ask Now/2"}),
        uris.catalog: ("catalog", {}),
        uris.sparql: ("sparql", {}),
        uris.experiment_graph("202401020003"): ("graph-experiment", {"experiment": "202401020003"}),
        f"{uris.base}experiment?id=202401020003": (
            "gerbil-experiment",
            {"experiment": "202401020003"},
        ),
    }
    for uri, (kind, keys) in cases.items():
        found = uris.locate(uri)
        assert found is not None and (found.kind, found.keys) == (kind, keys), uri
    assert "%2F" in uris.question_result("202401020003", 1, "a/b c")
    assert uris.locate(uris.task_questions("202401020003", 1)).fragment == "questions"
    assert uris.locate("https://example.org/experiment/202401020003") is None
    assert uris.locate(uris.base + "experiment/12") is None
    with pytest.raises(ValueError):
        uris.experiment("2024-01-02")


def test_ids_continue_after_restart_and_tokens_are_hashed(tmp_path: Path) -> None:
    day = datetime(2024, 3, 1, 12, tzinfo=UTC)
    store = open_storage(tmp_path / "s", catalog=False)
    a = store.experiments.reserve(now=day)
    b = store.experiments.reserve(now=day)
    store.close()
    store = open_storage(tmp_path / "s", catalog=False)
    c = store.experiments.reserve(now=day)
    d = store.experiments.reserve(now=datetime(2024, 3, 2, tzinfo=UTC))
    assert [a.id, b.id, c.id, d.id] == [
        "202403010001",
        "202403010002",
        "202403010003",
        "202403020001",
    ]
    assert store.experiments.check_token(a.id, a.token) and not store.experiments.check_token(
        a.id, b.token
    )
    dump = export(store, format="nquads")
    assert a.token.encode() not in dump  # only the hash is kept
    store.close()


def test_record_is_private_until_published(tmp_path: Path) -> None:
    dataset = _dataset()
    store = open_storage(tmp_path / "s", catalog=False)
    ticket = store.experiments.record(
        [_evaluation(dataset)], dataset=DatasetRef.upload("tiny", dataset)
    )
    status = store.experiments.status(ticket.id)
    assert (status.status, status.public) == ("finished", False)
    assert not store.experiments.is_public(ticket.id)
    graph = store.uris.experiment_graph(ticket.id)
    assert graph not in _public_graphs(store)
    everything = store.public.query(f"ASK {{ <{ticket.uri}> ?p ?o }}")
    assert not everything
    assert store.experiments.listing() == []
    assert [s.id for s in store.experiments.listing(include_private=True)] == [ticket.id]
    # The uploaded dataset's questions are private with the experiment.
    assert not store.public.query("ASK { ?q a <http://w3id.org/gerbil/qa/vocab#Question> }")
    published = store.experiments.publish(ticket.id)
    assert published.public and published.published_at
    assert store.experiments.is_public(ticket.id) and graph in _public_graphs(store)
    assert store.public.query(f"ASK {{ <{ticket.uri}> <http://purl.org/dc/terms/issued> ?t }}")
    assert not store.private.contains_named_graph(pyoxigraph.NamedNode(graph))
    assert [s.id for s in store.experiments.listing()] == [ticket.id]
    store.close()


def test_a_record_stopped_while_its_quads_are_built_writes_nothing(tmp_path: Path) -> None:
    """``record``'s ``check`` (a run's cancel) is called as the quads are built, once per
    subject, and once more before the one write; what it raises stops the record with
    nothing written. Unstopped, every quad is written (handed over to the transaction one by
    one, each let go as it is taken)."""
    from service.graph.adapter import handed_over

    items = [1, 2, 3]
    assert list(handed_over(items)) == [1, 2, 3] and items == []
    dataset = _dataset()
    store = open_storage(tmp_path / "s", catalog=False)
    ticket = store.experiments.reserve()
    graph = pyoxigraph.NamedNode(store.uris.experiment_graph(ticket.id))
    calls: list[int] = []

    def cancelled_at(n: int):
        def check() -> None:
            calls.append(1)
            if len(calls) == n:
                raise ServiceError("cancelled")

        return check

    record = {"dataset": DatasetRef.upload("tiny", dataset), "ticket": ticket}
    with pytest.raises(ServiceError, match="cancelled"):
        store.experiments.record([_evaluation(dataset)], check=cancelled_at(3), **record)
    assert not store.private.contains_named_graph(graph)
    assert store.experiments.status(ticket.id).status == "reserved"
    calls.clear()
    store.experiments.record([_evaluation(dataset)], check=cancelled_at(0), **record)
    assert len(calls) > len(dataset.questions)  # each question's result, and before the write
    assert store.experiments.status(ticket.id).status == "finished"
    from service import release
    from service.graph.results import ExperimentRecord, experiment_quads

    now = datetime.now(UTC)
    built = experiment_quads(
        ExperimentRecord(ticket.id, (_evaluation(dataset),), record["dataset"], now, now,
                         release.source()),
        store.uris,
        graph.value,
    )  # fmt: skip
    written = list(store.private.quads_for_pattern(None, None, None, graph))
    assert len(written) == len(set(built)) > 50  # a quad built twice is one in the store
    store.close()


def test_undefined_measures_are_recorded_not_invented(tmp_path: Path) -> None:
    dataset = _dataset()
    store = open_storage(None, catalog=False)
    ticket = store.experiments.record(
        [_evaluation(dataset, undefined=True)], dataset=DatasetRef.upload("tiny", dataset)
    )
    task = store.uris.task(ticket.id, 1)
    quads = store.experiments.quads(ticket.id)
    gqa = "http://w3id.org/gerbil/qa/vocab#"
    assert not [q for q in quads if q.predicate.value == gqa + "macroF1QALD"]
    undefined = [
        q.object.value
        for q in quads
        if q.subject.value == task and q.predicate.value == gqa + "undefinedMeasure"
    ]
    assert undefined == [gqa + "macroF1QALD"]
    # the DSD lists only measures every task has; the skipped question is no observation
    structure = store.uris.experiment_structure(ticket.id)
    components = {q.object.value for q in quads if q.subject.value == structure}
    assert (
        gqa + "component-macroF1QALD" not in components and gqa + "component-macroF1" in components
    )
    skipped = store.uris.question_result(ticket.id, 1, "skipped")
    types = {
        q.object.value
        for q in quads
        if q.subject.value == skipped and q.predicate.value.endswith("#type")
    }
    assert "http://purl.org/linked-data/cube#Observation" not in types


def test_answers_and_uploads_are_rdf_terms(tmp_path: Path) -> None:
    dataset = _dataset()
    store = open_storage(None, catalog=False)
    upload = UploadedFile("answers.json", "ab" * 32, 123, "answers", system="sys")
    ticket = store.experiments.record(
        [_evaluation(dataset)], dataset=DatasetRef.upload("tiny", dataset), uploads=[upload]
    )
    rows = list(
        store.private.query(
            "PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#> SELECT ?a WHERE { GRAPH ?g { "
            "?r gqa:givenAnswer ?a } }"
        )
    )
    kinds = {type(r["a"]).__name__ for r in rows}
    assert kinds == {"NamedNode", "Literal"}
    assert any(getattr(r["a"], "language", None) == "en" for r in rows)
    sha = list(
        store.private.query(
            "PREFIX spdx: <http://spdx.org/rdf/terms#> SELECT ?v WHERE { GRAPH ?g { "
            "?f spdx:checksum/spdx:checksumValue ?v } }"
        )
    )
    assert [r["v"].value for r in sha] == ["ab" * 32]
    assert ticket.id


def test_publish_refuses_unfinished_and_unknown(tmp_path: Path) -> None:
    store = open_storage(None, catalog=False)
    ticket = store.experiments.reserve(summary='{"dataset": "x"}')
    store.experiments.set_status(ticket.id, "running", progress="3/10")
    st = store.experiments.status(ticket.id)
    assert (st.status, st.progress, st.job) == ("running", "3/10", '{"dataset": "x"}')
    with pytest.raises(Conflict):
        store.experiments.publish(ticket.id)
    with pytest.raises(NotFound):
        store.experiments.status("209901010001")
    with pytest.raises(BadRequest):
        store.experiments.set_status(ticket.id, "done")
    dataset = _dataset()
    done = store.experiments.record(
        [_evaluation(dataset)], dataset=DatasetRef.upload("tiny", dataset), ticket=ticket
    )
    assert done.id == ticket.id and store.experiments.status(ticket.id).status == "finished"
    with pytest.raises(Conflict):
        store.experiments.record(
            [_evaluation(dataset)], dataset=DatasetRef.upload("tiny", dataset), ticket=ticket
        )


def test_attach_paper_keeps_the_public_copy_in_step(tmp_path: Path) -> None:
    dataset = _dataset()
    store = open_storage(tmp_path / "s", catalog=False)
    ticket = store.experiments.record(
        [_evaluation(dataset)], dataset=DatasetRef.upload("tiny", dataset)
    )
    referenced = "http://purl.org/dc/terms/isReferencedBy"
    graph = pyoxigraph.NamedNode(store.uris.experiment_graph(ticket.id))
    default = pyoxigraph.DefaultGraph()

    def papers(where: pyoxigraph.Store, in_graph: object) -> set[str]:
        subject, predicate = pyoxigraph.NamedNode(ticket.uri), pyoxigraph.NamedNode(referenced)
        return {q.object.value for q in where.quads_for_pattern(subject, predicate, None, in_graph)}

    before = len(store.private)
    # unpublished: the link is in the private graph only
    first = store.experiments.attach_paper(ticket.id, "doi:10.3233/SW-180312")
    assert first == "https://doi.org/10.3233/SW-180312"
    assert papers(store.private, graph) == {first} and len(store.private) == before + 1
    assert not store.public.query(f"ASK {{ ?e <{referenced}> ?p }}")
    assert store.experiments.attach_paper(ticket.id, "https://doi.org/10.3233/SW-180312") == first
    assert len(store.private) == before + 1  # the same paper again changes nothing
    store.experiments.publish(ticket.id)
    assert papers(store.public, graph) == papers(store.public, default) == {first}
    # published: the public graph and the default graph (what SPARQL reads) together
    second = store.experiments.attach_paper(ticket.id, " https://example.org/paper.pdf ")
    assert second == "https://example.org/paper.pdf"
    assert papers(store.public, graph) == papers(store.public, default) == {first, second}
    assert not store.private.contains_named_graph(graph)
    query = f"SELECT ?p WHERE {{ <{ticket.uri}> <{referenced}> ?p }}"
    assert {r["p"].value for r in store.public.query(query)} == {first, second}
    # bad input: a clear error, nothing written
    size = len(store.public)
    for bad in ("", "nope", "11.1/x", "ftp://example.org/p", "https://example.org/<a>"):
        with pytest.raises(BadRequest):
            store.experiments.attach_paper(ticket.id, bad)
    with pytest.raises(NotFound):
        store.experiments.attach_paper("209901010001", "10.1000/x")
    queued = store.experiments.reserve()
    store.experiments.set_status(queued.id, "queued")
    with pytest.raises(Conflict, match="queued"):
        store.experiments.attach_paper(queued.id, "10.1000/x")
    assert len(store.public) == size
    store.close()
    # it survives a restart, in both copies
    again = open_storage(tmp_path / "s", catalog=False)
    assert papers(again.public, default) == {first, second}
    again.close()


def test_export_import_round_trip(tmp_path: Path) -> None:
    dataset = _dataset()
    one = open_storage(tmp_path / "one", catalog=False)
    public = one.experiments.record(
        [_evaluation(dataset)], dataset=DatasetRef.upload("tiny", dataset)
    )
    private = one.experiments.record(
        [_evaluation(dataset, system="other")], dataset=DatasetRef.upload("tiny", dataset)
    )
    one.experiments.publish(public.id)
    dump = export(one, format="trig")
    turtle = export(one, format="turtle", experiment_id=private.id)
    with pytest.raises(BadRequest):
        export(one, format="turtle")
    one.close()
    two = open_storage(tmp_path / "two", catalog=False)
    import_dump(two, dump, format="trig")
    assert two.experiments.is_public(public.id) and not two.experiments.is_public(private.id)
    assert two.experiments.check_token(private.id, private.token)
    assert export(two, format="turtle", experiment_id=private.id) == turtle
    nxt = two.experiments.reserve()
    assert nxt.id not in (public.id, private.id)
    two.close()
    other_base = open_storage(tmp_path / "three", base="https://example.org/qa/", catalog=False)
    with pytest.raises(BadRequest):
        import_dump(other_base, dump, format="trig")


def _canonical_store(store: Storage) -> set[str]:
    """Every quad of both datasets, blank nodes canonically named."""
    quads = [
        q
        for side in (store.public, store.private)
        for q in side.quads_for_pattern(None, None, None)
    ]
    dataset = pyoxigraph.Dataset(quads)
    dataset.canonicalize(pyoxigraph.CanonicalizationAlgorithm.UNSTABLE)
    return {str(q) for q in dataset}


def test_a_dump_imported_again_changes_nothing(tmp_path: Path) -> None:
    """Before: each import added the dump's experiments again, blank nodes renamed, so a dump
    imported twice (or a backup restored into the store it came from) doubled every warning
    and interval: the API listed each warning twice. Now an experiment the store holds stays
    as it is, and the import says which."""
    from service.errors import Problem

    dataset = _dataset()
    source = open_storage(tmp_path / "source", catalog=False)
    warned = replace(_evaluation(dataset), problems=(Problem("odd", severity="warning"),))
    tickets = [
        source.experiments.record([warned], dataset=DatasetRef.upload("tiny", dataset))
        for _ in range(2)
    ]
    source.experiments.publish(tickets[0].id)
    assert any(isinstance(q.object, pyoxigraph.BlankNode) for q in export_quads(source))
    dump = export(source, format="nquads")
    held = _canonical_store(source)
    again = import_dump(source, dump)
    assert _canonical_store(source) == held
    assert again.kept == sorted(t.id for t in tickets)
    source.close()
    restored = open_storage(tmp_path / "restored", catalog=False)
    assert import_dump(restored, dump).kept == []
    once = _canonical_store(restored)
    again = import_dump(restored, dump)
    assert _canonical_store(restored) == once
    assert again.kept == sorted(t.id for t in tickets)
    restored.close()


def test_an_export_of_one_experiment_is_refused_by_import(tmp_path: Path) -> None:
    """Before: ``import`` of ``export --experiment`` said "imported N quads" and left a graph
    without its admin record: no page, listing or token reached it. Now it is refused, saying
    what the file is, and nothing is written."""
    dataset = _dataset()
    source = open_storage(tmp_path / "source", catalog=False)
    ticket = source.experiments.record(
        [_evaluation(dataset)], dataset=DatasetRef.upload("t", dataset)
    )
    one = export(source, format="nquads", experiment_id=ticket.id)
    source.close()
    other = open_storage(tmp_path / "other", catalog=False)
    before = _canonical_store(other)
    with pytest.raises(BadRequest, match=f"experiment {ticket.id} without its record"):
        import_dump(other, one)
    assert _canonical_store(other) == before
    other.close()


def test_a_cut_or_edited_dump_is_refused_at_its_file_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "cannot read the dump: Parser error at line 73 …" named no file, and an import
    into a new directory left a store made there. Now the dump is read before any store is
    opened or made: file:line:column, nothing written."""
    from service.cli import main

    dataset = _dataset()
    source = open_storage(tmp_path / "source", catalog=False)
    source.experiments.record([_evaluation(dataset)], dataset=DatasetRef.upload("t", dataset))
    data = export(source, format="nquads")
    held = _canonical_store(source)
    source.close()
    lines = data.split(b"\n")
    edited = b"\n".join([*lines[:20], lines[20].replace(b"<http", b"<ht tp", 1), *lines[21:]])
    cut = tmp_path / "cut.nq"
    cut.write_bytes(data[: len(data) // 2 + 7])
    changed = tmp_path / "edited.nq"
    changed.write_bytes(edited)
    for dump, line in ((cut, data[: len(data) // 2 + 7].count(b"\n") + 1), (changed, 21)):
        fresh = tmp_path / f"fresh-{dump.stem}"
        assert main(["import", "--store", str(fresh), str(dump)]) == 1
        assert f"{dump}:{line}:" in capsys.readouterr().err
        assert not fresh.exists()
        assert main(["import", "--store", str(tmp_path / "source"), str(dump)]) == 1
        with open_storage(tmp_path / "source", catalog=False) as again:
            assert _canonical_store(again) == held


def test_a_dump_cut_at_a_line_end_or_empty_is_refused_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before (explore-3 #3): a dump cut at a line end parses, and was imported as whole, exit
    0: published experiments came back private, one half-written; an empty file made an empty
    store. Now a whole-store dump ends with a closing line that counts its quads: a dump cut
    short, a line lost from its middle, an empty file, Turtle are refused at file:line, saying
    what was expected, no store made and none changed. A dump of a version before that line
    is taken only with --legacy-dump, said to be unchecked."""
    from service.cli import main

    source, ticket = _one_published(tmp_path / "source")
    data = export(source, format="nquads")
    held = _canonical_store(source)
    turtle = export(source, format="turtle", experiment_id=ticket.id)
    source.close()
    lines = data.splitlines(keepends=True)
    closing = lines[-1].decode()
    assert closing.startswith("# gerbil-qa dump of a whole store: ")
    count = int(closing.split(": ")[1].split()[0])
    # a value edited in place: as many quads, other bytes (explore26 F1: a score changed from
    # 1 to 0.2 was imported as whole, and check passed it)
    scored = next(i for i, line in enumerate(lines) if b'"1"^^<' in line and b"#double>" in line)
    edited = [*lines]
    edited[scored] = lines[scored].replace(b'"1"^^<', b'"0.2"^^<')
    assert int(closing.split(": ")[1].split()[0]) and ", sha256 " in closing
    files = {
        "cut": b"".join(lines[: len(lines) // 2]),
        "lost": b"".join([*lines[:10], *lines[11:]]),
        "empty": b"",
        "one": turtle,
        "edited": b"".join(edited),
    }
    said = {
        "cut": f":{len(lines) // 2 + 1}: expected the dump's closing line",
        "lost": f":{len(lines) - 1}: the closing line says {count} quads, the dump holds "
        f"{count - 1}: lines were lost",
        "empty": ":1: empty, expected a dump",
        "one": ":1:1: not a dump (nothing imported): it starts with a prefix declaration",
        "edited": f":{len(lines)}: the closing line says the dump's SHA-256 is ",
    }
    for name, body in files.items():
        dump = tmp_path / f"{name}.nq"
        dump.write_bytes(body)
        fresh = tmp_path / f"fresh-{name}"
        assert main(["import", "--store", str(fresh), str(dump)]) == 1
        err = capsys.readouterr().err
        assert f"{dump}{said[name]}" in err, err
        assert "nothing imported" in err
        assert not fresh.exists()
        assert main(["import", "--store", str(tmp_path / "source"), str(dump)]) == 1
        assert f"{dump}{said[name]}" in capsys.readouterr().err
        with open_storage(tmp_path / "source", catalog=False) as again:
            assert _canonical_store(again) == held
    old = tmp_path / "old.nq"  # a dump of a version before the closing line
    old.write_bytes(b"".join(lines[:-1]))
    assert main(["import", "--store", str(tmp_path / "refused"), str(old)]) == 1
    assert "import --legacy-dump takes it" in capsys.readouterr().err
    assert main(["import", "--store", str(tmp_path / "old"), "--legacy-dump", str(old)]) == 0
    assert "imported unchecked" in capsys.readouterr().err
    with open_storage(tmp_path / "old", catalog=False) as restored:
        assert restored.experiments.is_public(ticket.id)
    # its lines copied with CRLF endings: the same quads, taken (refused as "edited" at first;
    # explore27 F10)
    crlf = tmp_path / "crlf.nq"
    crlf.write_bytes(data.replace(b"\n", b"\r\n"))
    assert main(["import", "--store", str(tmp_path / "crlf"), str(crlf)]) == 0, capsys.readouterr()
    capsys.readouterr()
    # a closing line of a version before its SHA-256 (2026-11-29): counted, still taken
    counted = tmp_path / "counted.nq"
    counted.write_bytes(b"".join(lines[:-1]) + closing.split(", sha256 ")[0].encode() + b"\n")
    assert main(["import", "--store", str(tmp_path / "counted"), str(counted)]) == 0
    # ... and said to be: dropping the digest of an edited dump passed silently (explore27 F4)
    assert "closing line has no sha256" in capsys.readouterr().err
    # a whole dump: import says the number its closing line says (it said one fewer, the
    # store marker left out, which read as a quad lost)
    whole = tmp_path / "whole.nq"
    whole.write_bytes(data)
    assert main(["import", "--store", str(tmp_path / "whole"), str(whole)]) == 0
    assert f"imported {count} quads from {whole}" in capsys.readouterr().out
    # again: its experiments are left as the store has them, so the quads were read, not
    # written (it said "imported", explore-12 10b)
    assert main(["import", "--store", str(tmp_path / "whole"), str(whole)]) == 0
    out, err = capsys.readouterr()
    assert f"read {count} quads from {whole}" in out and "left as the store has them" in err


def test_a_run_in_progress_in_the_dump_is_imported_as_ended(tmp_path: Path) -> None:
    """Before (explore-3 #2): a run in progress when the dump was made was listed running after
    the import until a serve started on the store. Now the import ends it at once, saying a
    dump holds no runs in progress."""
    from service.graph.experiments import Status

    source = open_storage(tmp_path / "source", catalog=False)
    running = source.experiments.reserve()
    source.experiments.set_status(running.id, Status.RUNNING, progress="asking")
    queued = source.experiments.reserve()
    source.experiments.set_status(queued.id, Status.QUEUED)
    cancelled = source.experiments.reserve()
    source.experiments.set_status(cancelled.id, Status.CANCELLED, message="cancelled")
    dump = export(source, format="nquads")
    source.close()
    restored = open_storage(tmp_path / "restored", catalog=False)
    import_dump(restored, dump)
    for ticket in (running, queued):
        status = restored.experiments.status(ticket.id)
        assert status.status is Status.ERROR
        assert "a dump holds no runs in progress" in (status.message or "")
    assert restored.experiments.status(cancelled.id).status is Status.CANCELLED
    assert restored.experiments.check_token(running.id, running.token)
    restored.close()


def test_a_refused_import_leaves_no_new_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: an export of one experiment from https://example.org/qa/ imported into a new
    directory made a store there with the default base, then refused the dump; the operator's
    retry with --base was then refused as well (the store's base is fixed). Now the directory
    the import made goes with the refusal. And the first refusal says what the dump is (it
    said "a graph that is not one of this store's", which sent the operator to --base, to
    learn only then that such an export cannot be imported)."""
    from service.cli import main

    dataset = _dataset()
    base = "https://example.org/qa/"
    source = open_storage(tmp_path / "source", base=base, catalog=False)
    ticket = source.experiments.record(
        [_evaluation(dataset)], dataset=DatasetRef.upload("t", dataset)
    )
    one = tmp_path / "one.nq"
    one.write_bytes(export(source, format="nquads", experiment_id=ticket.id))
    source.close()
    fresh = tmp_path / "fresh"
    assert main(["import", "--store", str(fresh), str(one)]) == 1
    said = capsys.readouterr().err
    assert f"experiment {ticket.id} without its record" in said, said
    assert "export --experiment" in said
    assert not fresh.exists()
    assert main(["import", "--store", str(fresh), "--base", base, str(one)]) == 1
    assert "without its record" in capsys.readouterr().err
    assert not fresh.exists()


def test_a_damaged_store_directory_is_said_so_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A store directory copied while serve wrote to it (measured: 4 of 6 `cp -a` copies under
    a stream of submissions) misses files RocksDB compacted away under the copy. Before, every
    command ended in a Python traceback (RuntimeError: Corruption …, or a FileNotFoundError
    from the flush of the failed opening); now it is one message saying what is wrong and
    what to do."""
    from service.cli import main

    dataset = _dataset()
    store = open_storage(tmp_path / "s", catalog=False)
    store.experiments.record([_evaluation(dataset)], dataset=DatasetRef.upload("t", dataset))
    store.close()
    tables = sorted((tmp_path / "s" / "public").glob("*.sst"))
    assert tables
    tables[-1].unlink()  # as a copy misses a table compacted away while it was made
    assert main(["check", "--store", str(tmp_path / "s"), "--no-shapes"]) == 1
    said = capsys.readouterr().err
    assert f"the store at {tmp_path / 's'} cannot be read" in said
    assert "is not a backup" in said and "gerbil-qa import" in said


@pytest.mark.parametrize("cause", ["Read-only file system", "Permission denied"])
def test_a_store_on_a_read_only_path_is_not_called_damaged(tmp_path: Path, cause: str) -> None:
    """RocksDB's words for a directory it may not write (a read-only mount, another user's
    files) were read as a damaged copy, with advice to restore a dump over a healthy store
    (explore26 F5). The message is RocksDB's as it gave it on a read-only bind mount; the
    mount itself needs root, which tests do not have."""
    from service.graph.embedded import damaged

    rocksdb = OSError(f"IO error: While open a file for appending: {tmp_path}/public/LOG: {cause}")
    said = damaged(tmp_path, rocksdb).message
    assert said.startswith(f"the store at {tmp_path} cannot be opened: IO error")
    assert "is not writable" in said and "write access" in said
    assert "restore" not in said and "is not a backup" not in said
    corrupt = damaged(tmp_path, RuntimeError("Corruption: missing table 000012.sst")).message
    assert "is not a backup" in corrupt and "is not writable" not in corrupt


def test_another_deployments_experiment_under_a_held_id_is_refused(tmp_path: Path) -> None:
    """Two deployments number experiments alike (yyyyMMdd + counter). Before, importing one's
    dump into the other merged each pair of experiments sharing an id: their graphs mixed and
    two owner tokens on one record (later: the store's private experiment replaced by the
    dump's published one). Now the import is refused, naming the ids, and nothing is written."""
    dataset = _dataset()
    source, theirs = _one_published(tmp_path / "source")
    dump = export(source, format="nquads")
    source.close()
    other = open_storage(tmp_path / "other", catalog=False)
    ours = other.experiments.record(
        [_evaluation(dataset, system="ours")], dataset=DatasetRef.upload("t", dataset)
    )
    assert ours.id == theirs.id
    before = _canonical_store(other)
    with pytest.raises(BadRequest, match=f"experiment {ours.id} is not the store's"):
        import_dump(other, dump)
    assert _canonical_store(other) == before
    assert not other.experiments.check_token(ours.id, theirs.token)
    # two of them: said in the plural (it read "experiment A, B is not the store's …")
    ticket = DatasetRef.upload("t", dataset)
    second = other.experiments.record([_evaluation(dataset, system="ours")], dataset=ticket)
    with open_storage(tmp_path / "source", catalog=False) as source:
        source.experiments.record([_evaluation(dataset)], dataset=ticket)
        dump = export(source, format="nquads")
    both = f"{ours.id}, {second.id}"
    with pytest.raises(BadRequest, match=f"experiments {both} are not the store's experiments"):
        import_dump(other, dump)
    other.close()


def export_quads(store: Storage) -> list[pyoxigraph.Quad]:
    return list(
        pyoxigraph.parse(export(store, format="nquads"), format=pyoxigraph.RdfFormat.N_QUADS)
    )


def test_store_refuses_another_base(tmp_path: Path) -> None:
    open_storage(tmp_path / "s", catalog=False).close()
    with pytest.raises(ServiceError):
        open_storage(tmp_path / "s", base="https://example.org/", catalog=False)


def test_vocabulary_covers_every_measure_profile_and_status() -> None:
    from service.evaluation.measures import MEASURES
    from service.evaluation.profiles import PROFILES
    from service.graph.terms import measure_iri

    store = open_storage(None, catalog=False)
    rows = store.public.query(
        "SELECT ?m ?r WHERE { ?m a <http://purl.org/linked-data/cube#MeasureProperty> ; "
        "<http://www.w3.org/2000/01/rdf-schema#range> ?r }"
    )
    ranges = {row["m"].value: row["r"].value for row in rows}
    for name, info in MEASURES.items():
        assert ranges.get(measure_iri(name)) == info.datatype, name
    gqa = "http://w3id.org/gerbil/qa/vocab#"
    for profile in PROFILES.values():
        rows = list(
            store.public.query(
                f"SELECT ?v WHERE {{ <{profile.iri}> a <{gqa}Profile> ; "
                f"<http://www.w3.org/2004/02/skos/core#inScheme> <{gqa}profiles> ; "
                f"<http://www.w3.org/2002/07/owl#versionInfo> ?v }}"
            )
        )
        assert [r["v"].value for r in rows] == [profile.version], profile.name
    for status in QuestionStatus:
        assert store.public.query(f"ASK {{ <{gqa}status-{status.value}> a <{gqa}QuestionStatus> }}")
    for etype in ExperimentType:
        gerbil = "http://w3id.org/gerbil/vocab#"  # GERBIL's own experiment type IRIs
        assert store.public.query(f"ASK {{ <{gerbil}{etype.value}> a <{gqa}ExperimentType> }}")
    # every term of ours has a label and a comment
    missing = list(
        store.public.query(
            "SELECT ?t WHERE { ?t a ?k . FILTER(STRSTARTS(STR(?t), 'http://w3id.org/gerbil/')) "
            "FILTER NOT EXISTS { ?t <http://www.w3.org/2000/01/rdf-schema#label> ?l ; "
            "<http://www.w3.org/2000/01/rdf-schema#comment> ?c } }"
        )
    )
    assert missing == []
    # ... and points to the vocabulary that defines it (a reader of one term finds the rest)
    undefined = list(
        store.public.query(
            "SELECT DISTINCT ?t WHERE { ?t a ?k . "
            "FILTER(STRSTARTS(STR(?t), 'http://w3id.org/gerbil/')) "
            "FILTER(?t != <http://w3id.org/gerbil/qa/vocab>) "
            "FILTER NOT EXISTS { ?t <http://www.w3.org/2000/01/rdf-schema#isDefinedBy> "
            "<http://w3id.org/gerbil/qa/vocab> } }"
        )
    )
    assert undefined == []


CRASH_CHILD = r"""
import sys
from service.graph.results import DatasetRef
from service.graph.store import open_storage
from tests.integration.test_graph_store import _dataset, _evaluation
store = open_storage(sys.argv[1], catalog=False)
dataset = _dataset(400)
evaluation = _evaluation(dataset)
print("ready", flush=True)
while True:
    store.experiments.record([evaluation], dataset=DatasetRef.upload("tiny", dataset))
"""


@pytest.mark.slow
def test_a_killed_writer_leaves_no_partial_experiment(tmp_path: Path) -> None:
    path = tmp_path / "store"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for delay in (0.35, 0.6, 0.9):
        child = subprocess.Popen(
            [sys.executable, "-c", CRASH_CHILD, str(path)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
        )
        assert child.stdout is not None and child.stdout.readline().strip() == b"ready"
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        store = open_storage(path, catalog=False)
        finished = {s.id for s in store.experiments.listing(include_private=True)}
        graphs = {
            g.value.rsplit("/", 1)[1]
            for g in store.private.named_graphs()
            if "/graph/experiment/" in g.value
        }
        assert graphs == finished  # no graph without its admin record, and vice versa
        for eid in graphs:
            n = len(
                list(
                    store.private.query(
                        f"SELECT ?r WHERE {{ GRAPH <{store.uris.experiment_graph(eid)}> {{ "
                        "?r <http://w3id.org/gerbil/qa/vocab#resultOf> ?t } }"
                    )
                )
            )
            assert n == 401, eid  # 400 questions + the skipped one: the whole experiment
        store.close()
    assert finished  # the child did write complete experiments before being killed


PUBLISH_CHILD = r"""
import os, signal, sys
from service.graph.results import DatasetRef
from service.graph.store import open_storage
from tests.integration.test_graph_store import _dataset, _evaluation
store = open_storage(sys.argv[1], catalog=False)
dataset = _dataset(int(sys.argv[3]))
evaluation = _evaluation(dataset)
if sys.argv[2] == "between":
    # killed right after the public copy is written, before the admin record follows it
    store.experiments._finish_publication = lambda *a: os.kill(os.getpid(), signal.SIGKILL)
    ticket = store.experiments.record([evaluation], dataset=DatasetRef.upload("tiny", dataset))
    print(ticket.id, flush=True)
    store.experiments.publish(ticket.id)
    raise SystemExit("not killed")
while True:
    ticket = store.experiments.record([evaluation], dataset=DatasetRef.upload("tiny", dataset))
    store.experiments.publish(ticket.id)
    print("published", flush=True)
"""

GQA = "http://w3id.org/gerbil/qa/vocab#"
PUBLISHED_QUESTIONS = 120  # + the skipped question of _evaluation


def _results_in(store: Storage, experiment_id: str, *, where: str) -> int:
    """Question results of an experiment in its graph (public or private store) or in the
    public default graph."""
    uri = store.uris.experiment(experiment_id)
    pattern = f"?r <{GQA}resultOf> ?t . ?t <http://purl.org/linked-data/cube#dataSet> <{uri}>"
    if where == "default":
        source, body = store.public, pattern
    else:
        source = store.public if where == "public" else store.private
        body = f"GRAPH <{store.uris.experiment_graph(experiment_id)}> {{ {pattern} }}"
    rows = list(source.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ {body} }}"))
    return int(rows[0]["n"].value)


def _assert_publication_consistent(store: Storage) -> int:
    """Every experiment is either wholly private or wholly public (named graph, default-graph
    copy, admin record); returns how many are public."""
    public = 0
    for st in store.experiments.listing(include_private=True):
        graph = pyoxigraph.NamedNode(store.uris.experiment_graph(st.id))
        if store.public.contains_named_graph(graph):
            public += 1
            assert st.public and st.published_at, st.id
            assert not store.private.contains_named_graph(graph), st.id
            assert _results_in(store, st.id, where="public") == PUBLISHED_QUESTIONS + 1, st.id
            assert _results_in(store, st.id, where="default") == PUBLISHED_QUESTIONS + 1, st.id
            assert store.public.query(f"ASK {{ <{st.uri}> <http://purl.org/dc/terms/issued> ?t }}")
        else:
            assert not st.public, st.id
            assert _results_in(store, st.id, where="private") == PUBLISHED_QUESTIONS + 1, st.id
            assert _results_in(store, st.id, where="default") == 0, st.id
    return public


def _child(path: Path, mode: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", PUBLISH_CHILD, str(path), mode, str(PUBLISHED_QUESTIONS)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
    )


@pytest.mark.slow
def test_a_publication_killed_between_the_stores_is_completed_on_open(tmp_path: Path) -> None:
    path = tmp_path / "store"
    child = _child(path, "between")
    assert child.stdout is not None
    experiment_id = child.stdout.readline().decode().strip()
    assert child.wait(timeout=60) == -signal.SIGKILL
    # what the crash left: the public copy written, the admin record not yet updated
    public = pyoxigraph.Store(str(path / "public"))
    graph = pyoxigraph.NamedNode(Uris().experiment_graph(experiment_id))
    assert public.contains_named_graph(graph)
    del public
    store = open_storage(path, catalog=False)  # the next open completes the publication
    status = store.experiments.status(experiment_id)
    assert status.public and status.published_at
    assert _assert_publication_consistent(store) == 1
    store.close()


@pytest.mark.slow
def test_a_killed_publisher_leaves_every_experiment_wholly_private_or_public(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store"
    published = 0
    for delay in (0.05, 0.3, 0.6):
        child = _child(path, "loop")
        # one publication done, then killed somewhere in the next record/publish cycle
        assert child.stdout is not None and child.stdout.readline().strip() == b"published"
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        store = open_storage(path, catalog=False)
        published = _assert_publication_consistent(store)
        store.close()
    assert published >= 3  # each child published at least once before being killed


IMPORT_CHILD = r"""
import os, signal, sys
from service.graph.adapter import Side
from service.graph.store import open_storage
store = open_storage(sys.argv[1], catalog=False)
data = open(sys.argv[2], "rb").read()
stop_at = int(sys.argv[3])  # die when the import writes (add or update) the stop_at-th time
writes = 0
def dying(write):
    def written(side, what):
        global writes
        writes += 1
        if writes == stop_at:
            os.kill(os.getpid(), signal.SIGKILL)
        write(side, what)
    return written
store.store.add = dying(store.store.add)
store.store.update = dying(store.store.update)
from service.graph.dumps import import_dump
import_dump(store, data, format="nquads")
raise SystemExit("not killed")
"""


@pytest.mark.slow
def test_an_import_killed_between_its_writes_leaves_no_partial_experiment(
    tmp_path: Path,
) -> None:
    # Before: the public graphs were written first, then the admin records: killed between
    # the two, the published experiments were in the public store (and the endpoint) with no
    # admin record. Now every experiment is first written private with its admin record.
    dataset = _dataset(PUBLISHED_QUESTIONS)
    source = open_storage(tmp_path / "source", catalog=False)
    tickets = [
        source.experiments.record(
            [_evaluation(dataset, system=f"s{n}")], dataset=DatasetRef.upload("tiny", dataset)
        )
        for n in range(3)
    ]
    source.experiments.publish(tickets[0].id)
    dump = tmp_path / "dump.nq"
    dump.write_bytes(export(source, format="nquads"))
    source.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for stop_at in (1, 2, 3):  # before each of the import's three writes
        path = tmp_path / f"killed-{stop_at}"
        child = subprocess.Popen(
            [sys.executable, "-c", IMPORT_CHILD, str(path), str(dump), str(stop_at)],
            cwd=ROOT,
            env=env,
        )
        assert child.wait(timeout=60) == -signal.SIGKILL
        store = open_storage(path, catalog=False)
        listed = {s.id: s.public for s in store.experiments.listing(include_private=True)}
        assert listed in (
            {},
            {t.id: False for t in tickets},
            {t.id: n == 0 for n, t in enumerate(tickets)},
        ), listed
        _assert_publication_consistent(store)
        graphs = {
            g.value.rsplit("/", 1)[1]
            for side in (store.public, store.private)
            for g in side.named_graphs()
            if "/graph/experiment/" in g.value
        }
        assert graphs == set(listed)  # no graph without its admin record
        # killed after its first write, the import is reported (before: nothing said that the
        # published experiment was still private), and running it again completes it
        reported = [v for v in check_store(store, shapes=False) if v.check == "import"]
        assert [v.target for v in reported] == ([] if stop_at == 1 else ["the dump"])
        import_dump(store, dump.read_bytes(), format="nquads")  # run again: all of it there
        assert _assert_publication_consistent(store) == 1
        assert not [v for v in check_store(store, shapes=False) if v.check == "import"]
        assert store.experiments.check_token(tickets[1].id, tickets[1].token)
        store.close()


def test_a_recorded_ticket_outranks_its_old_status_until_settled(tmp_path: Path) -> None:
    dataset = _dataset()
    store = open_storage(tmp_path / "s", catalog=False)
    ticket = store.experiments.reserve()
    store.experiments.set_status(ticket.id, "running", progress="1/2")
    # as if the process died between the experiment's transaction and the status clean-up
    store.experiments._settle_status = lambda experiment_id: None  # type: ignore[method-assign]
    store.experiments.record(
        [_evaluation(dataset)], dataset=DatasetRef.upload("tiny", dataset), ticket=ticket
    )
    assert store.experiments.status(ticket.id).status == "finished"
    assert [s.status for s in store.experiments.listing(include_private=True)] == ["finished"]
    store.close()
    store = open_storage(tmp_path / "s", catalog=False)
    statuses = store.experiments._admin_select(f"<{ticket.uri}> <{GQA}status> ?s")
    assert statuses == [{"s": "finished"}]
    store.close()
