"""A store the version before the application layer (up to 2026-11-21) wrote, opened by this
one: what an operator upgrading in place meets. The old state is written here as that version
wrote it (its files and triples), not produced by running it."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.errors import Conflict
from service.evaluation.results import ExperimentType
from service.experiments.run import run_experiment
from service.experiments.runner import ExperimentRunner
from service.experiments.spec import ExperimentSpec, FileDataset, FileRef
from service.experiments.systems import AnswerFile
from service.graph.adapter import Side
from service.graph.checks import check_store
from service.graph.experiments import Status
from service.graph.nodes import DefaultGraph, NamedNode
from service.graph.store import Storage, open_storage
from service.graph.uris import GERBIL, GQA
from service.paths import DEMO_DIR

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def _legacy_job(store: Path, experiment_id: str) -> None:
    """The job an older version saved for a web-service run it was asking when it stopped:
    one ``job.json`` (its dataset parsed inline, uploads only named) and the answers log."""
    folder = store / "jobs" / experiment_id
    (folder / "answers").mkdir(parents=True)
    job = {"__type__": "ExperimentJob", "experiment_id": experiment_id, "profile": "fair"}
    (folder / "job.json").write_text(json.dumps(job), encoding="utf-8")
    (folder / "answers" / "0.jsonl").write_text('{"question_id": "1"}\n', encoding="utf-8")


def test_a_run_an_older_version_left_says_why_it_cannot_resume(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with open_storage(store, catalog=False) as storage:
        experiments = storage.experiments
        old = experiments.reserve()
        experiments.set_status(old.id, "queued")
        experiments.set_status(old.id, "running")  # the old server was stopped mid-run
        _legacy_job(store, old.id)
        runner = ExperimentRunner(storage, workers=1)  # the upgraded server's start
        try:
            status = experiments.status(old.id)
            assert status.status is Status.ERROR
            # not "the submission did not complete": it did, under the older version
            assert status.message is not None
            assert "older version" in status.message and "cannot read" in status.message
            # no server path in what its owner reads (it named jobs/ID/job.json)
            assert "job.json" not in status.message
            with pytest.raises(Conflict, match=r"older version .* submit it again"):
                runner.resume(old.id)
        finally:
            runner.close()


def _recorded(storage: Storage, name: str, answers: str = "answers-partial.json") -> str:
    """An experiment of the demo's questions and one answer file, recorded now; its id."""
    spec = ExperimentSpec(
        FileDataset(FileRef.local(str(DEMO_DIR / "questions.json"))),
        (AnswerFile(name, FileRef.local(str(DEMO_DIR / answers))),),
        profile="exact",
    )
    ticket = storage.experiments.reserve()
    run_experiment(spec, storage=storage, ticket=ticket)
    return ticket.id


def _as_written_before_2026_11_24(storage: Storage, experiment_id: str, side: Side) -> None:
    """Its graph as versions before 2026-11-24 wrote it: experiment types in our namespace,
    systems typed gqa:System only, tasks without GERBIL's status, time and sub-experiment link
    (in the public dataset, its default graph's copy too)."""
    graph = f"<{storage.uris.experiment_graph(experiment_id)}>"
    prov = "http://www.w3.org/ns/prov#"
    for where in [graph] + ([""] if side is Side.PUBLIC else []):
        inside = functools.partial(_inside, where)
        scope = f"GRAPH {graph} {{ ?t a <{GQA}Task> }}"
        for kind in ExperimentType:
            new, old = f"<{GERBIL}{kind.value}>", f"<{GQA}{kind.value}>"
            storage.store.update(
                side,
                f"DELETE {{ {inside(f'?t <{GERBIL}experimentType> {new}')} }} "
                f"INSERT {{ {inside(f'?t <{GERBIL}experimentType> {old}')} }} "
                f"WHERE {{ {scope} {inside(f'?t <{GERBIL}experimentType> {new}')} }}",
            )
        for p in ("statusCode", "timestamp", "subExperimentOf"):
            storage.store.update(
                side,
                f"DELETE {{ {inside(f'?t <{GERBIL}{p}> ?o')} }} "
                f"WHERE {{ {scope} {inside(f'?t <{GERBIL}{p}> ?o')} }}",
            )
        for kind in ("SoftwareAgent", "Agent", "Entity"):
            storage.store.update(
                side,
                f"DELETE {{ {inside(f'?s a <{prov}{kind}>')} }} WHERE {{ "
                f"GRAPH {graph} {{ ?s a <{GQA}System> }} {inside(f'?s a <{prov}{kind}>')} }}",
            )


def _inside(graph: str, pattern: str) -> str:
    """``pattern`` in ``graph`` (the default graph when "")."""
    return f"GRAPH {graph} {{ {pattern} }}" if graph else pattern


def _graph(storage: Storage, experiment_id: str, side: Side) -> set[str]:
    """The experiment's quads in ``side`` (its named graph, and for the public dataset its
    share of the default graph: the copies of its triples), as N-Quads lines. Other public
    graphs' triples about its subjects are not its own (its uploaded dataset's check findings,
    which serve start writes too)."""
    reader = storage.public if side is Side.PUBLIC else storage.private
    graph = storage.uris.experiment_graph(experiment_id)
    quads = list(reader.quads_for_pattern(None, None, None, NamedNode(graph)))
    named = {str(q) for q in quads}
    if side is Side.PRIVATE:
        return named
    own = {(q.subject, q.predicate, q.object) for q in quads}
    copies = {
        str(q)
        for s in {q.subject for q in quads}
        for q in reader.quads_for_pattern(s, None, None, DefaultGraph())
        if (q.subject, q.predicate, q.object) in own
    }
    return named | copies


def test_check_says_which_experiments_an_older_version_wrote_and_what_to_do(
    tmp_path: Path,
) -> None:
    with open_storage(tmp_path / "store", catalog=False) as storage:
        old, new = _recorded(storage, "old"), _recorded(storage, "new")
        _as_written_before_2026_11_24(storage, old, Side.PRIVATE)
        found = check_store(storage, shapes=False)
        # Before: only IC-19A "Codes from code list" (and, with the shapes, one line per task
        # and system), nothing saying where they came from or what to do
        advice = [v for v in found if v.check == "upgrade"]
        assert [v.target for v in advice] == [storage.uris.experiment_graph(old)]
        assert "before 2026-11-24" in advice[0].message
        assert "gerbil-qa upgrade" in advice[0].message
        assert not [v for v in found if v.target == storage.uris.experiment_graph(new)]


def test_serve_upgrades_what_older_versions_wrote_to_exactly_what_is_written_now(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Before: the old experiments were left out of the leaderboards and GERBIL-era queries,
    and failed check, with no way to upgrade them but an export edited by hand."""
    from service.web import close_app, create_app

    with open_storage(tmp_path / "store", catalog=False) as storage:
        published, private = _recorded(storage, "old"), _recorded(storage, "private")
        storage.experiments.publish(published)  # its graph moves to the public dataset
        today = {
            e: _graph(storage, e, side)
            for e, side in ((published, Side.PUBLIC), (private, Side.PRIVATE))
        }
        _as_written_before_2026_11_24(storage, published, Side.PUBLIC)
        _as_written_before_2026_11_24(storage, private, Side.PRIVATE)
        assert _graph(storage, published, Side.PUBLIC) != today[published]
        with caplog.at_level(logging.WARNING, logger="service.web.app"):
            app = create_app({"base": storage.uris.base, "demo": False}, storage=storage)
        try:  # quad for quad what this version writes, in the named graph and the public union
            assert _graph(storage, published, Side.PUBLIC) == today[published]
            assert _graph(storage, private, Side.PRIVATE) == today[private]
            assert [v for v in check_store(storage) if "experiment" in v.target] == []
        finally:
            close_app(app)
    said = [r.getMessage() for r in caplog.records if r.name == "service.web.app"]
    assert any(
        "upgraded 2 experiment graphs written by a version before 2026-11-24" in m for m in said
    ), said


def test_the_upgrade_command_does_it_too_and_twice_changes_nothing(tmp_path: Path, capsys) -> None:
    from service.cli import main

    store = tmp_path / "store"
    with open_storage(store, catalog=False) as storage:
        old = _recorded(storage, "old")
        today = _graph(storage, old, Side.PRIVATE)
        _as_written_before_2026_11_24(storage, old, Side.PRIVATE)
    assert main(["upgrade", "--store", str(store)]) == 0
    assert "1 experiment graph(s) written by a version before 2026-11-24 upgraded" in (
        capsys.readouterr().err
    )
    assert main(["upgrade", "--store", str(store)]) == 0
    assert "0 experiment graph(s)" in capsys.readouterr().err
    with open_storage(store, catalog=False) as storage:
        assert _graph(storage, old, Side.PRIVATE) == today
    # a mistyped path: refused, not made an empty store that "needed nothing"
    typo = tmp_path / "stroe"
    assert main(["upgrade", "--store", str(typo)]) == 1
    assert "no store at" in capsys.readouterr().err and not typo.exists()


def test_an_upgrade_leaves_a_withdrawn_experiment_withdrawn(tmp_path: Path) -> None:
    """Its graph upgraded like any other; its results not copied back into the default graph
    (the leaderboards), which of a withdrawn experiment holds only the note."""
    from service.graph.legacy import upgrade

    with open_storage(tmp_path / "store", catalog=False) as storage:
        old = _recorded(storage, "old")
        storage.experiments.publish(old)
        _as_written_before_2026_11_24(storage, old, Side.PUBLIC)
        storage.experiments.withdraw(old, "superseded")
        graph = storage.uris.experiment_graph(old)
        assert upgrade(storage) == [graph]
        uri = storage.uris.experiment(old)
        in_default = (
            f"ASK {{ ?t a <{GQA}Task> ; <http://purl.org/linked-data/cube#dataSet> <{uri}> }}"
        )
        assert not storage.public.query(in_default)
        upgraded = f"ASK {{ GRAPH <{graph}> {{ ?t <{GERBIL}experimentType> <{GERBIL}QA> }} }}"
        assert storage.public.query(upgraded)
        assert storage.experiments.status(old).withdrawal_reason == "superseded"


def test_an_experiment_scored_under_an_older_profile_version_says_why_it_has_no_breakdown(
    tmp_path: Path,
) -> None:
    """Its page offered links to a breakdown by feature, each a 400 ('re-score it before
    comparing'): the stored results are recomputed, and this version scores it otherwise."""
    from service.web import close_app, create_app

    with open_storage(tmp_path / "store", catalog=False) as storage:
        old = _recorded(storage, "old")
        graph = storage.uris.experiment_graph(old)
        signature = f"<{GQA}signature>"
        storage.store.update(  # as a profile version before this one signed it
            Side.PRIVATE,
            f"DELETE {{ GRAPH <{graph}> {{ ?t {signature} ?s }} }} "
            f'INSERT {{ GRAPH <{graph}> {{ ?t {signature} "gerbil-qa:exact|v:0.9.0|older" }} }} '
            f"WHERE {{ GRAPH <{graph}> {{ ?t {signature} ?s }} }}",
        )
        storage.experiments.publish(old)
        app = create_app({"base": storage.uris.base, "demo": False}, storage=storage)
        try:
            page = app.test_client().get(f"/experiment/{old}").get_data(as_text=True)
        finally:
            close_app(app)
    assert 'id="breakdown-refused"' in page and "?by=answertype" not in page
    assert "gerbil-qa:exact|v:0.9.0|older" in page and "this version scores as" in page


def _as_signed_by_an_older_profile_version(storage: Storage, experiment_id: str) -> None:
    graph = storage.uris.experiment_graph(experiment_id)
    signature = f"<{GQA}signature>"
    storage.store.update(
        Side.PRIVATE,
        f"DELETE {{ GRAPH <{graph}> {{ ?t {signature} ?s }} }} "
        f'INSERT {{ GRAPH <{graph}> {{ ?t {signature} "gerbil-qa:exact|v:0.9.0|older" }} }} '
        f"WHERE {{ GRAPH <{graph}> {{ ?t {signature} ?s }} }}",
    )


@contextlib.contextmanager
def _exact_boards(storage: Storage) -> Iterator[tuple[Any, dict[str, str]]]:
    """A client of the app served over ``storage``, and the filters of the demo dataset's
    leaderboard under exact."""
    import re

    from service.web import close_app, create_app

    app = create_app({"base": storage.uris.base, "demo": False}, storage=storage)
    try:
        client = app.test_client()
        listing = client.get("/leaderboards").get_data(as_text=True)
        dataset = re.search(r'<option value="(gerbil-qa-demo-[^"]+)"', listing)
        assert dataset, listing[:300]
        yield client, {"dataset": dataset[1], "profile": "exact"}
    finally:
        close_app(app)


def _exact_board(storage: Storage, query: dict[str, str]) -> str:
    """The demo dataset's leaderboard under exact, as served over ``storage``."""
    with _exact_boards(storage) as (client, wanted):
        return client.get("/leaderboards", query_string={**wanted, **query}).get_data(as_text=True)


def _tiers(board: str) -> list[tuple[str, str]]:
    """Each row's tier cell as (why it has none, what it shows): a "–" links its reason, said
    as text under the table (a title tooltip alone: explore32 4)."""
    import html
    import re

    reasons = {
        n: html.unescape(text)
        for n, text in re.findall(r'<li id="tier-reason-(\d+)">No tier: (.*?)\.</li>', board)
    }
    cells = re.findall(
        r'<td class="num tier">(?:<a href="#tier-reason-(\d+)"'
        r"|([^<]+))",
        board,
    )
    return [(reasons[n], "–") if n else ("", shown) for n, shown in cells]


def test_a_row_scored_under_an_older_profile_version_leaves_the_others_their_tiers(
    tmp_path: Path,
) -> None:
    """Before: one such row on a leaderboard took the tiers of every row away, unexplained."""

    with open_storage(tmp_path / "store", catalog=False) as storage:
        ids = [_recorded(storage, name) for name in ("first", "second", "older")]
        _as_signed_by_an_older_profile_version(storage, ids[2])
        for experiment_id in ids:
            storage.experiments.publish(experiment_id)
        board = _exact_board(storage, {})
    # the tier, or the "–" of a row without one (its reason said under the table)
    tiers = _tiers(board)
    assert sorted(t for _, t in tiers) == ["1", "1", "–"], tiers  # the old: none
    assert [why for why, t in tiers if t == "–"] == [
        "scored under an older version of its profile, whose per-question results are not "
        "scored again here: not tested against the others; its owner re-scores it under this "
        "version (POST /api/experiments/ID/rescore, gerbil-qa rescore; a run that asked a web "
        "service is submitted again instead, its archived answers with revisionOf) for a tier"
    ], tiers


def test_rows_of_an_older_version_aggregated_alike_are_tiered_among_themselves(
    tmp_path: Path,
) -> None:
    """After the bumps of 2026-11-29 (exact 1.1.0: an unanswered question scores 0) every row of an
    upgraded store lost its tier, the demo's for good (explore27 F1): rows of a version this
    one aggregates alike are tested among themselves, under their own signature."""

    with open_storage(tmp_path / "store", catalog=False) as storage:
        ids = [_recorded(storage, name) for name in ("first", "second")]
        for experiment_id in ids:
            _as_scored_by(storage, experiment_id, "exact", "(unanswered|qald-empty|c2kb):[^|]*")
            storage.experiments.publish(experiment_id)
        rows = json.loads(_exact_board(storage, {"format": "json"}))["rows"]
    assert len(rows) == 2 and all(r["tier"] for r in rows), rows
    assert all("gerbil-qa:exact|v:1.0.0|" in r["tierSignature"] for r in rows), rows
    assert all(r["intervals"] for r in rows)


def test_rows_of_two_profile_versions_are_ranked_apart_and_said_so_live_and_frozen(
    tmp_path: Path,
) -> None:
    """A board holding rows of exact 1.0.0 and of today's version tiered each version's rows
    among themselves but ranked them in one sequence (1, 2, 3, 3), and a board frozen from it
    said nothing of why (explore27 1): each version's rows are ranked among themselves, each
    row names its version, and the live and the frozen board say the versions are mixed."""
    import re

    from service.evaluation.profiles import get_profile

    current = get_profile("exact").version
    with open_storage(tmp_path / "store", catalog=False) as storage:
        runs = [("old-strong", "answers-strong.json"), ("old-baseline", "answers-baseline.json")]
        runs += [("new-partial", "answers-partial.json"), ("new-baseline", "answers-baseline.json")]
        ids = [_recorded(storage, name, answers) for name, answers in runs]
        for experiment_id in ids[:2]:
            _as_scored_by(storage, experiment_id, "exact", "(unanswered|qald-empty|c2kb):[^|]*")
        for experiment_id in ids:
            storage.experiments.publish(experiment_id)
        with _exact_boards(storage) as (client, wanted):
            live_json = client.get(
                "/leaderboards", query_string={**wanted, "format": "json"}
            ).get_data(as_text=True)
            rows = json.loads(live_json)["rows"]
            page = client.get("/leaderboards", query_string=wanted).get_data(as_text=True)
            frozen = client.post("/api/leaderboards", json={**wanted, "title": "t"}).json
            frozen_page = client.get(frozen["uri"].split("/", 3)[3]).get_data(as_text=True)
            frozen_csv = client.get(
                frozen["uri"].split("/", 3)[3], headers={"Accept": "text/csv"}
            ).get_data(as_text=True)
    ranks = {r["system"]: (r["profileVersion"], r["rank"]) for r in rows}
    assert ranks == {
        "old-strong": ("1.0.0", 1),
        "old-baseline": ("1.0.0", 2),
        "new-partial": (current, 1),
        "new-baseline": (current, 2),
    }, rows
    # and each version's rows are tested among themselves (the older ones lost tier and
    # interval to one row of this version; explore30 F1), each under its own signature
    assert all(r["tier"] and r["intervals"] for r in rows), rows
    signed = {r["system"]: r["tierSignature"] for r in rows}
    assert "|v:1.0.0|" in signed["old-strong"] and f"|v:{current}|" in signed["new-partial"]
    assert json.loads(live_json)["mixedProfileVersions"] == {"exact": ["1.0.0", current]}
    said = re.search(r'<p class="notice" id="mixed-versions">(.*?)</p>', page, re.S)
    assert said and f"versions 1.0.0 and {current}" in said[1], page[:2000]
    assert "ranked and tiered among themselves" in said[1]
    assert 'id="ranks-mixed"' in page  # the rank note: a system has a rank in each
    # the frozen board: the ranks as frozen, each row's version, the notice
    assert frozen["mixedProfileVersions"] == {"exact": ["1.0.0", current]}, frozen
    assert {(r["profileVersion"], r["rank"]) for r in frozen["rows"]} == set(ranks.values())
    # listed as the live board lists them (by score, ties as live breaks them), not by rank,
    # which interleaved the versions (1, 1, 2, 2: explore35 5)
    assert [r["task"] for r in frozen["rows"]] == [r["task"] for r in rows], frozen["rows"]
    shown_order = re.findall(r'<a href="([^"]+/task/[^"]+)">', frozen_page)
    assert shown_order == [r["task"] for r in rows], shown_order
    notice = re.search(r'<p class="notice" id="mixed-versions">(.*?)</p>', frozen_page, re.S)
    assert notice and "each version's rows are ranked among themselves" in notice[1]
    assert f"<td>exact {current}</td>" in frozen_page and "<td>exact 1.0.0</td>" in frozen_page
    assert ",profileVersion," in frozen_csv.splitlines()[0], frozen_csv[:300]
    assert f"scored under versions 1.0.0 and {current}" in frozen_page  # its BibTeX note


def test_a_board_frozen_under_an_older_profile_version_names_that_version(
    tmp_path: Path,
) -> None:
    """A frozen board whose rows were all scored under exact 1.0.0 said "Profile exact" and
    "profile exact" in its BibTeX, though the current exact scores otherwise (its JSON and CSV
    gave each row's version; explore35 12): the page and the BibTeX name the rows' version, as
    a board of the current version names its own."""
    import html
    import re

    from service.evaluation.profiles import get_profile

    current = get_profile("exact").version
    with open_storage(tmp_path / "store", catalog=False) as storage:
        ids = [_recorded(storage, name) for name in ("first", "second")]
        for experiment_id in ids:
            _as_scored_by(storage, experiment_id, "exact", "(unanswered|qald-empty|c2kb):[^|]*")
            storage.experiments.publish(experiment_id)
        with _exact_boards(storage) as (client, wanted):
            old = client.post("/api/leaderboards", json={**wanted, "title": "old"}).json
            old_page = client.get(old["uri"].split("/", 3)[3]).get_data(as_text=True)
            old_bib = client.get(old["uri"].split("/", 3)[3] + ".bib").get_data(as_text=True)
    # a board of rows of each version: "exact", beside its versions' note; and its rows
    # listed as the live board lists them, by score, not by rank: the two partial rows tie,
    # 2nd of 1.0.0 and 1st of the current version, and were listed new, then old (explore35 5)
    with open_storage(tmp_path / "both", catalog=False) as storage:
        older = [_recorded(storage, "strong", "answers-strong.json"), _recorded(storage, "first")]
        for experiment_id in older:
            _as_scored_by(storage, experiment_id, "exact", "(unanswered|qald-empty|c2kb):[^|]*")
        for experiment_id in (*older, _recorded(storage, "third")):
            storage.experiments.publish(experiment_id)
        with _exact_boards(storage) as (client, wanted):
            live = client.get("/leaderboards", query_string={**wanted, "format": "json"}).json
            both = client.post("/api/leaderboards", json={**wanted, "title": "both"}).json
            both_page = client.get(both["uri"].split("/", 3)[3]).get_data(as_text=True)
    listed = [(r["system"], r["rank"]) for r in live["rows"]]
    assert listed == [("strong", 1), ("first", 2), ("third", 1)], listed
    assert [(r["system"], r["rank"]) for r in both["rows"]] == listed, both["rows"]
    shown_order = re.findall(r'<a href="[^"]+/task/[^"]+">', both_page)
    assert len(shown_order) == 3
    assert shown_order == [f'<a href="{r["task"]}">' for r in live["rows"]], shown_order
    assert {r["profileVersion"] for r in old["rows"]} == {"1.0.0"}, old["rows"]
    assert "<dt>Profile</dt><dd>exact 1.0.0</dd>" in old_page
    assert "profile exact 1.0.0," in " ".join(html.unescape(old_bib).split()), old_bib
    assert both["mixedProfileVersions"] == {"exact": ["1.0.0", current]}, both
    assert "<dt>Profile</dt><dd>exact</dd>" in both_page
    said = re.search(r'<details id="frozen-bibtex">(.*?)</details>', both_page, re.S)
    assert said and f"scored under versions 1.0.0 and {current}" in " ".join(said[1].split())


def _as_scored_by(storage: Storage, experiment_id: str, profile: str, setting: str) -> None:
    """Its graph as ``profile`` 1.0.0 wrote it: that version, and its signature without the
    settings ``setting`` (a regular expression) matches (text2sparql 1.0.0 had no
    ``subexperiments`` and no ``c2kb``, its sub-experiments took the set rule too; exact 1.0.0
    no ``unanswered`` and no ``c2kb``)."""
    from service.evaluation.profiles import get_profile

    graph = storage.uris.experiment_graph(experiment_id)
    current = get_profile(profile).version
    now = f"gerbil-qa:{profile}|v:{current}|"
    version = current.replace(".", "\\\\.")
    old = rf"""STRDT(REPLACE(REPLACE(STR(?o), "\\|v:{version}\\|", "|v:1.0.0|"),
        "\\|{setting}", ""), DATATYPE(?o))"""
    storage.store.update(
        Side.PRIVATE,
        f"DELETE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }} INSERT {{ GRAPH <{graph}> {{ ?s ?p ?old }} }}"
        f' WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o FILTER(isLiteral(?o) && CONTAINS(STR(?o), "{now}"))'
        f" }} BIND({old} AS ?old) }}",
    )
    version_property = f"<{GQA}profileVersion>"
    storage.store.update(
        Side.PRIVATE,
        f"DELETE {{ GRAPH <{graph}> {{ ?t {version_property} ?v }} }} INSERT {{ GRAPH <{graph}> "
        f'{{ ?t {version_property} "1.0.0" }} }} WHERE {{ GRAPH <{graph}> '
        f"{{ ?t {version_property} ?v }} }}",
    )


def test_a_text2sparql_run_scored_under_1_0_0_is_still_listed_and_read(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """text2sparql 1.1.0 scores the sub-experiments with the standard rule (explore-14 1). A
    run stored under 1.0.0 keeps its numbers as scored: it is listed, its page reads and says
    the rules moved on, its leaderboard row stays without a tier (the others keep theirs), and
    comparing it asks for a re-scoring instead of recomputing it under the new rule."""
    import re

    from service.experiments.spec import CatalogueDataset
    from service.web import close_app, create_app

    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))
    franz = data_dir / "text2sparql2025" / "systems" / "FRANZ" / "ck25_answers.json"
    with open_storage(tmp_path / "store", catalog=False) as storage:
        ids, tokens = [], []
        for name in ("first", "second", "older"):
            spec = ExperimentSpec(
                CatalogueDataset("text2sparql-2025-ck25"),
                (AnswerFile(name, FileRef.local(str(franz))),),
                profile="text2sparql",
                experiment_types=("QA", "C2KB"),
            )
            ticket = storage.experiments.reserve()
            run_experiment(spec, storage=storage, ticket=ticket)
            ids.append(ticket.id)
            tokens.append(ticket.token)
        _as_scored_by(storage, ids[2], "text2sparql", "(subexperiments|qald-empty|c2kb):[^|]*")
        for experiment_id in ids:
            storage.experiments.publish(experiment_id)
        assert {e.id for e in storage.experiments.listing()} == set(ids)
        app = create_app({"base": storage.uris.base, "demo": False}, storage=storage)
        try:
            client = app.test_client()
            page = client.get(f"/experiment/{ids[2]}").get_data(as_text=True)
            board = client.get(
                "/leaderboards",
                query_string={"dataset": "text2sparql-2025-ck25", "profile": "text2sparql"},
            ).get_data(as_text=True)
            state = client.get(f"/api/experiments/{ids[2]}").get_json()
            tasks = [  # the C2KB tasks of a 1.3.0 run and the 1.0.0 one
                r["task"]
                for i in ids[1:]
                for r in client.get(f"/api/experiments/{i}").get_json()["results"]
                if r["experimentType"] == "C2KB"
            ]
            compared = client.post("/api/compare", json={"tasks": tasks})
            # its re-scoring's page offers no comparison with the 1.0.0 run, which the compare
            # page refuses ("re-score it": what was just done; explore27 F2)
            owner = {"Authorization": f"Bearer {tokens[2]}"}
            revision = client.post(f"/api/experiments/{ids[2]}/rescore", headers=owner)
            assert revision.status_code == 202, revision.get_data(as_text=True)
            made = revision.get_json()
            for _ in range(600):
                got = client.get(f"/api/experiments/{made['id']}?questions=false", headers={
                    "Authorization": f"Bearer {made['token']}"}).get_json()  # fmt: skip
                if got["status"] in ("finished", "error"):
                    break
                time.sleep(0.1)
            assert got["status"] == "finished", got
            revised = client.get(
                f"/experiment/{made['id']}", headers={"Authorization": f"Bearer {made['token']}"}
            ).get_data(as_text=True)
            # published, the old run's notice names its revision, not a re-scoring that
            # answers 409 (explore27 F14)
            mine = {"Authorization": f"Bearer {made['token']}"}
            assert (
                client.post(f"/api/experiments/{made['id']}/publish", headers=mine).status_code
                == 200
            )
            again = client.get(f"/experiment/{ids[2]}").get_data(as_text=True)
        finally:
            close_app(app)
    assert "What changed since" in revised
    moved = re.search(r'<dd class="newer-profile">(.*?)</dd>', again, re.S)
    assert moved and "revised by <a href=" in moved.group(1) and made["id"] in moved.group(1)
    assert "/rescore" not in moved.group(1)
    assert 'class="compare-runs"' not in revised
    old = re.search(r"gerbil-qa:text2sparql\|v:1\.0\.0\|[^ <]*", page)
    assert old and "|empty:0/0|kb:" in old[0]  # as 1.0.0 signed it, beside today's signature
    notice = re.search(r'<dd class="newer-profile">(.*?)</dd>', page, re.S)
    assert notice and "text2sparql is version 1.3.0 here now" in notice.group(1)
    assert "scored under 1.0.0" in notice.group(1)
    (ev,) = state["evaluations"]
    assert ev["profileVersion"] == "1.0.0" and ev["results"]["C2KB"]["macroF1"] is not None
    tiers = _tiers(board)
    assert sorted(t for _, t in tiers) == ["1", "1", "–"], tiers
    assert [why for why, t in tiers if t == "–"] == [
        "scored under an older version of its profile (text2sparql 1.0.0; 1.3.0 here now): "
        "tested among rows of that version only, not against the others; its owner re-scores "
        "it under this version (POST /api/experiments/ID/rescore, gerbil-qa rescore; a run "
        "that asked a web service is submitted again instead, its archived answers with "
        "revisionOf) for a tier among them"
    ]
    # compared with a 1.3.0 run: refused, the two signatures named (1.0.0 aggregates alike,
    # so its stored records are read, under its own signature)
    assert len(tasks) == 2 and compared.status_code == 400
    said = compared.get_json()["error"]
    assert "gerbil-qa:text2sparql|v:1.0.0|" in said
    # the same profile in two versions: re-score the older one (not "one profile": explore30 F3)
    assert "two versions of profile text2sparql (1.0.0 and 1.3.0): re-score the older" in said


def _without(storage: Storage, experiment_id: str, *predicates: str, obj: str = "?o") -> None:
    """The published experiment's triples of ``predicates`` (and ``obj``) taken out, from its
    graph and the public union."""
    graph = f"<{storage.uris.experiment_graph(experiment_id)}>"
    for predicate in predicates:
        for where in (graph, ""):
            pattern = _inside(where, f"?s <{predicate}> {obj}")
            storage.store.update(
                Side.PUBLIC,
                f"DELETE {{ {pattern} }} WHERE {{ GRAPH {graph} {{ ?s <{predicate}> {obj} }} "
                f"{pattern} }}",
            )


def test_an_upload_published_by_a_version_that_kept_no_files_checks_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A version before 2026-11-24 kept no files: its published uploads have no distribution
    and their file entities no download address. Before, `check` failed each of them for good
    (no upgrade can make a file that was never kept) and told the operator to restore 'from an
    export --files backup' that no backup of that version holds."""
    from service.cli import main

    dcat = "http://www.w3.org/ns/dcat#"
    store = tmp_path / "store"
    with open_storage(store, catalog=False) as storage:
        kept_none, kept = _recorded(storage, "old"), _recorded(storage, "new")
        for experiment in (kept_none, kept):
            storage.experiments.publish(experiment)
        # its graph as such a version wrote it: the file an entity, not a distribution
        _without(storage, kept_none, dcat + "distribution", dcat + "downloadURL")
        _without(storage, kept_none, dcat + "accessURL", "http://data.europa.eu/r5r/availability")
        _without(storage, kept_none, RDF_TYPE, obj=f"<{dcat}Distribution>")
        today = _graph(storage, kept, Side.PUBLIC)
        _without(storage, kept, dcat + "distribution")  # its file had an address: still wrong
        found = [v for v in check_store(storage) if v.check == "SHACL"]
        assert [v.target for v in found] == [storage.uris.experiment_graph(kept)], found
        # as a version of 2026-11-26 left it: the upgrade describes its kept file as its
        # distribution, as today's publication does (check failed it after the upgrade)
        from service.graph.uploads import complete_published_uploads

        dataset = storage.experiments.recorded_datasets()[kept]
        assert complete_published_uploads(storage) == [dataset]
        assert [v for v in check_store(storage) if v.check == "SHACL"] == []
        assert _graph(storage, kept, Side.PUBLIC) == today
        assert complete_published_uploads(storage) == []  # once
    for sha in {p.name for p in (store / "files").iterdir()}:  # as if no file was kept
        (store / "files" / sha).unlink()
    capsys.readouterr()
    main(["check", "--store", str(store), "--no-shapes"])
    said = capsys.readouterr().err
    assert f"of 1 experiment(s) ({kept_none}) were recorded by a version that kept no" in said
    assert "nothing to restore" in said
    assert f"warning: experiment {kept} used answers-partial.json" in said  # restorable
    assert f"warning: experiment {kept_none} used" not in said


def test_the_store_says_which_version_wrote_it_and_a_newer_format_is_told(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """An operator who rolls back learned nothing: no store recorded which version wrote it.
    Its marker now says the version and store format that last opened it to write; an older
    version that finds a newer format says so at open and leaves that mark; a dump carries
    neither (they are the store's, not its data)."""
    from service import release
    from service.graph.dumps import STORE_FORMAT_MARK, STORE_MARKER, WRITTEN_BY, export
    from service.graph.store import STORE_FORMAT

    marker = NamedNode(STORE_MARKER)

    def mark(storage: Storage) -> tuple[list[str], list[str]]:
        read = storage.private.quads_for_pattern
        return (
            [q.object.value for q in read(marker, NamedNode(STORE_FORMAT_MARK), None)],
            [q.object.value for q in read(marker, NamedNode(WRITTEN_BY), None)],
        )

    store = tmp_path / "store"
    with open_storage(store, catalog=False) as storage:
        assert mark(storage) == ([str(STORE_FORMAT)], [release.source().version])
        dumped = export(storage)
        assert f"<{STORE_MARKER}> <{GQA}base>".encode() in dumped
        assert f"<{STORE_MARKER}> <{STORE_FORMAT_MARK}>".encode() not in dumped
        storage.store.update(  # as a newer version leaves it
            Side.PRIVATE,
            f"DELETE WHERE {{ <{STORE_MARKER}> <{STORE_FORMAT_MARK}> ?f }} ; "
            f'INSERT DATA {{ <{STORE_MARKER}> <{STORE_FORMAT_MARK}> "{STORE_FORMAT + 1}" }} ; '
            f"DELETE WHERE {{ <{STORE_MARKER}> <{WRITTEN_BY}> ?v }} ; "
            f'INSERT DATA {{ <{STORE_MARKER}> <{WRITTEN_BY}> "9.9.9" }}',
        )
    with (
        caplog.at_level(logging.WARNING, logger="service.graph.store"),
        open_storage(store, catalog=False) as storage,
    ):
        assert mark(storage) == ([str(STORE_FORMAT + 1)], ["9.9.9"])  # kept
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "last written by gerbil-qa 9.9.9" in said and "newer" in said
    # `upgrade` does not rewrite what a newer version wrote (it warned, then upgraded)
    from service.cli import main

    capsys.readouterr()
    assert main(["upgrade", "--store", str(store)]) == 1
    refused = capsys.readouterr().err
    assert "last written by gerbil-qa 9.9.9 (store format 2)" in refused, refused
    assert "nothing upgraded" in refused


def test_the_operators_listing_names_what_an_older_versions_run_used(tmp_path: Path) -> None:
    """Runs older versions recorded kept no spec: `gerbil-qa experiments` listed them with no
    systems and ``"dataset": null``, though their graphs name both."""
    from service.experiments.overview import operator_rows

    with open_storage(tmp_path / "store", catalog=False) as storage:
        old = _recorded(storage, "Older QA")
        admin = storage.uris.admin_graph
        storage.store.update(  # as such a version left it: no spec
            Side.PRIVATE, f"DELETE WHERE {{ GRAPH <{admin}> {{ ?e <{GQA}spec> ?s }} }}"
        )
        assert old not in storage.experiments.specs()
        row = next(r for r in operator_rows(storage) if r["id"] == old)
    assert row["systems"] == ["Older QA"]
    assert row["dataset"] == row["datasetUri"].rsplit("/", 1)[1]
    assert row["dataset"].startswith("gerbil-qa-demo-")


def test_importing_an_older_versions_dump_says_to_upgrade_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dump an older version made imports as it was written: `check` then failed each of its
    graphs; the import now says to upgrade them."""
    from service.cli import main
    from service.graph.dumps import export

    with open_storage(tmp_path / "old", catalog=False) as storage:
        old = _recorded(storage, "old")
        _as_written_before_2026_11_24(storage, old, Side.PRIVATE)
        (tmp_path / "old.nq").write_bytes(export(storage))
    new = tmp_path / "new"
    capsys.readouterr()
    assert main(["import", "--store", str(new), str(tmp_path / "old.nq")]) == 0
    said = capsys.readouterr().err
    assert "1 experiment graph(s) are in the terms of a version before 2026-11-24" in said
    assert f"gerbil-qa upgrade --store {new}" in said


def test_the_commands_that_only_read_write_nothing_to_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check`, `experiments`, `leaderboards` and `export` opened the store as `serve` does:
    run from another release, they marked the store as written by it and put back its own
    vocabulary (explore20 #12). They read the store as it is now; a dump of it before and
    after is the same, the marks and the vocabulary's hash included."""
    from service.cli import main
    from service.graph.dumps import STORE_MARKER, WRITTEN_BY

    store = tmp_path / "store"
    with open_storage(store, catalog=False) as storage:
        _recorded(storage, "a system")
        admin, vocab = storage.uris.admin_graph, storage.uris.vocab_graph
        storage.store.update(  # as another release left it: its version, its vocabulary
            Side.PRIVATE,
            f"DELETE WHERE {{ <{STORE_MARKER}> <{WRITTEN_BY}> ?v }} ; "
            f'INSERT DATA {{ <{STORE_MARKER}> <{WRITTEN_BY}> "0.0.1" }} ; '
            f"DELETE WHERE {{ GRAPH <{admin}> {{ <{vocab}> <{GQA}contentHash> ?h }} }} ; "
            f'INSERT DATA {{ GRAPH <{admin}> {{ <{vocab}> <{GQA}contentHash> "older" }} }}',
        )

    def everything() -> tuple[set[str], set[str]]:
        import pyoxigraph as ox

        sides = []
        for side in ("private", "public"):
            reader = ox.Store.read_only(str(store / side))
            sides.append({str(q) for q in reader})
            del reader
        return sides[0], sides[1]

    before = everything()
    assert f'<{STORE_MARKER}> <{WRITTEN_BY}> "0.0.1"' in " ".join(before[0])
    for command in (
        ["check", "--store", str(store)],
        ["experiments", "--store", str(store)],
        ["leaderboard", "list", "--store", str(store)],
        ["export", "--store", str(store), "--output", str(tmp_path / "dump.nq")],
    ):
        main(command)
        capsys.readouterr()
        assert everything() == before, command
    # the next writing open brings it up to date, as before
    with open_storage(store, catalog=False) as storage:
        assert storage.catalogue._content_hash(vocab) != "older"


def test_an_upgrade_removes_the_intervals_of_runs_on_a_withheld_test_set(tmp_path: Path) -> None:
    """Runs on a test set whose gold is withheld were recorded with their bootstrap intervals
    (2026-11-28), which with their published seed tell a small set's outcomes (explore21 9):
    new runs have none, and `upgrade` (or the next serve) removes the old ones' (explore21 20),
    leaving their measures; a run on a dataset whose gold is public keeps its own."""
    from service.graph.legacy import remove_withheld_intervals, upgrade

    with open_storage(tmp_path / "store", catalog=False) as storage:
        spec = ExperimentSpec(
            FileDataset(
                FileRef.local(str(DEMO_DIR / "questions.json")),
                about=(("gold", ("withheld",)),),
            ),
            (AnswerFile("team", FileRef.local(str(DEMO_DIR / "answers-partial.json"))),),
            profile="exact",
        )
        ticket = storage.experiments.reserve()
        run_experiment(spec, storage=storage, ticket=ticket)
        other = _recorded(storage, "open")
        graph = storage.uris.experiment_graph(ticket.id)

        def intervals(eid: str) -> int:
            g = storage.uris.experiment_graph(eid)
            rows = storage.private.query(
                f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{g}> {{ ?t <{GQA}interval> ?ci }} }}"
            )
            return int(next(iter(rows))["n"].value)

        assert intervals(ticket.id) == 0 and intervals(other) > 0  # recorded without, now
        task = storage.uris.task(ticket.id, 1)
        storage.store.update(  # as 2026-11-28's version wrote it
            Side.PRIVATE,
            f"INSERT DATA {{ GRAPH <{graph}> {{ <{task}> <{GQA}interval> <{task}#interval-f1> ; "
            f'<{GQA}intervalSignature> "seed:12345" . <{task}#interval-f1> a <{GQA}Interval> ; '
            f'<{GQA}lowerBound> "0.1"^^<http://www.w3.org/2001/XMLSchema#double> }} }}',
        )
        assert intervals(ticket.id) == 1
        assert upgrade(storage) == []  # nothing written before 2026-11-24 (explore23 6)
        assert remove_withheld_intervals(storage) == [graph]
        assert intervals(ticket.id) == 0 and intervals(other) > 0
        left = storage.private.query(f"ASK {{ GRAPH <{graph}> {{ <{task}#interval-f1> ?p ?o }} }}")
        assert not left and remove_withheld_intervals(storage) == []


def test_a_command_that_only_reads_makes_nothing_of_an_empty_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty ``private/`` was opened as a store (two RocksDB databases made) and then said
    "no store … (nothing written)" (explore23 16)."""
    from service.cli import main

    (tmp_path / "store" / "private").mkdir(parents=True)
    assert main(["experiments", "--store", str(tmp_path / "store")]) != 0
    assert "no store at" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "store").rglob("*")) == ["private"]


def test_items_an_older_exact_run_kept_as_strings_are_found_as_the_readme_says(
    tmp_path: Path,
) -> None:
    """exact and text2sparql results scored before 2026-11-29 keep their missed and false items
    as plain strings, an IRI too, and results since keep IRIs: a query for the IRI found the
    newer results only (explore35 7). ``upgrade`` leaves them, and the README's upgrade notes
    give the query that finds both."""
    import re

    from service.graph import legacy

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    said = re.search(r"`(SELECT \?result WHERE \{ \?result gqa:missedAnswer [^`]*)`", readme)
    assert said and 'STR(?item) = "http://…"' in said[1], "the README's query"
    prefix = f"PREFIX gqa: <{GQA}>\n"
    with open_storage(tmp_path / "store", catalog=False) as storage:
        old, new = _recorded(storage, "old"), _recorded(storage, "new")
        for experiment_id in (old, new):
            storage.experiments.publish(experiment_id)
        graph = f"<{storage.uris.experiment_graph(old)}>"
        missed = f"?r <{GQA}missedAnswer> ?o"
        iris = sorted(
            {
                row["o"].value
                for row in storage.public.query(
                    f"SELECT ?o WHERE {{ GRAPH {graph} {{ {missed} FILTER(isIRI(?o)) }} }}"
                )
            }
        )
        assert iris, "the demo's partial answers miss an IRI"
        for where in ("", graph):  # as an older version wrote them: plain strings (the
            # public default graph's copy first: the named graph's IRIs say which)
            pattern = _inside(where, missed)
            written = _inside(where, f"?r <{GQA}missedAnswer> ?s")
            storage.store.update(
                Side.PUBLIC,
                f"DELETE {{ {pattern} }} INSERT {{ {written} }} WHERE {{ GRAPH {graph} "
                f"{{ {missed} FILTER(isIRI(?o)) }} {pattern} BIND(STR(?o) AS ?s) }}",
            )
        literal = f"SELECT ?o WHERE {{ GRAPH {graph} {{ {missed} FILTER(isLiteral(?o)) }} }}"
        strings = len(list(storage.public.query(literal)))
        legacy.upgrade(storage)  # leaves them
        assert strings and len(list(storage.public.query(literal))) == strings
        by_term = prefix + f"SELECT ?result WHERE {{ ?result gqa:missedAnswer <{iris[0]}> }}"
        documented = prefix + said[1].replace("http://…", iris[0])
        found = {
            name: sorted(row["result"].value for row in storage.public.query(query))
            for name, query in (("term", by_term), ("string", documented))
        }
    experiment = storage.uris.experiment
    assert [r.split("/task/")[0] for r in found["term"]] == [experiment(new)], found
    assert [r.split("/task/")[0] for r in found["string"]] == [
        experiment(old),
        experiment(new),
    ], found
