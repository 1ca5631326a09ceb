"""A whole store through ``gerbil-qa export`` and ``import``: experiments in every state
(published with a paper attached, a published re-scored revision of it, private, failed) come
back as the same quads in both datasets (compared canonically: an import renames blank nodes),
and the service started on the restored store serves the same documents and pages, to the
public and to each owner, but for what a dump does not hold: a run's per-system progress (job
files beside the store), which the failed run's page says is not kept. (Per-graph and
remote-store round trips: tests/integration/test_graph_store.py, test_odd_literals.py,
tests/reliability/test_remote_store.py.)"""

from __future__ import annotations

import gc
import re
import time
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

from service.cli import main
from service.graph.store import open_storage
from tests.web.conftest import Server, free_port, start_server, stop_server

PAPER = "10.3233/SW-180312"
RDF_SYNTAXES = {"text/turtle": ox.RdfFormat.TURTLE, "application/n-quads": ox.RdfFormat.N_QUADS}


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _wait(server: Server, experiment_id: str, token: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        state = server.get(f"api/experiments/{experiment_id}", headers=_bearer(token)).json()
        if state["status"] not in ("reserved", "queued", "running"):
            return state
        assert time.monotonic() < deadline, state
        time.sleep(0.1)


def _every_state(server: Server, slow_qa: str) -> dict[str, dict[str, str]]:
    """Experiments in every state, with their owner tokens."""
    published = server.submit_demo()
    owner = _bearer(published["token"])
    assert server.post(f"api/experiments/{published['id']}/publish", headers=owner).ok
    paper = server.post(
        f"api/experiments/{published['id']}/papers", headers=owner, json={"doi": PAPER}
    )
    assert paper.ok, paper.text
    revision = server.post(
        f"api/experiments/{published['id']}/rescore", headers=owner, json={"profile": "exact"}
    )
    assert revision.status_code == 202, revision.text
    rescored = revision.json()
    assert _wait(server, rescored["id"], rescored["token"])["status"] == "finished"
    assert server.post(
        f"api/experiments/{rescored['id']}/publish", headers=_bearer(rescored["token"])
    ).ok
    private = server.submit_demo(systems=("baseline",))
    body = {"dataset": "demo", "kb": "demo", "systems": [{"name": "no", "url": slow_qa + "refuse"}]}
    refused = server.post("api/experiments", json=body)
    assert refused.status_code == 202, refused.text
    failed = refused.json()
    assert _wait(server, failed["id"], failed["token"])["status"] == "error"
    return {"published": published, "rescored": rescored, "private": private, "failed": failed}


def _paths(server: Server, experiments: dict[str, dict[str, str]]) -> list[tuple[str, str | None]]:
    """What to fetch, and with whose token (None: as the public)."""
    published = experiments["published"]["id"]
    dataset = server.get(f"experiment/{published}.csv").text.splitlines()[1].split(",")[2]
    out: list[tuple[str, str | None]] = [
        ("catalog", None),
        ("vocab", None),
        ("system/demo-strong", None),
        (dataset.removeprefix(server.url), None),
    ]
    for state, ticket in experiments.items():
        eid = ticket["id"]
        token = ticket["token"]
        out += [(f"experiment/{eid}", None), (f"experiment/{eid}", token)]
        if state != "failed":
            out += [
                (f"experiment/{eid}/task/1", token),
                (f"experiment/{eid}/task/1/question/1", token),
            ]
    return out


def _canonical(body: bytes, syntax: ox.RdfFormat) -> set[str]:
    dataset = ox.Dataset(ox.parse(body, format=syntax))
    dataset.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    return {str(q) for q in dataset}


def _served(server: Server, paths: list[tuple[str, str | None]]) -> dict[tuple, Any]:
    """Each path's status and, when 200, its graph (canonical) and HTML page (nonces out)."""
    out: dict[tuple, Any] = {}
    for path, token in paths:
        headers = _bearer(token) if token else {}
        for media_type, syntax in RDF_SYNTAXES.items():
            response = server.get(path, headers={**headers, "Accept": media_type})
            body = _canonical(response.content, syntax) if response.ok else None
            out[(path, token, media_type)] = (response.status_code, body)
            if media_type == "text/turtle" and response.ok:  # and its very bytes: below
                out[(path, token, "bytes")] = response.content
        page = server.get(path, headers={**headers, "Accept": "text/html"})
        out[(path, token, "text/html")] = (
            page.status_code,
            re.sub(r'nonce="[^"]*"', "", page.text),
        )
    api = server.get("api/experiments").json()
    out[("api/experiments",)] = api
    return out


PROGRESS = re.compile(r'<section id="progress".*?</section>', re.S)


def _progress(page: str) -> str:
    found = PROGRESS.search(page)
    assert found is not None
    return found.group(0)


def _without_progress(page: str) -> str:
    return PROGRESS.sub("", page)


def _without_notice(page: str) -> str:
    return re.sub(r"<p><strong>Private:</strong>.*?</p>", "", page, flags=re.S)


def _canonical_store(storage: Any) -> set[str]:
    """Every quad of both datasets, blank nodes canonically named."""
    quads = [
        q
        for side in (storage.public, storage.private)
        for q in side.quads_for_pattern(None, None, None, None)
    ]
    dataset = ox.Dataset(quads)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    return {str(q) for q in dataset}


def test_export_then_import_restores_the_store_and_what_it_serves(
    tmp_path: Path, slow_qa: str
) -> None:
    port = free_port()
    original, restored, dump = tmp_path / "original", tmp_path / "restored", tmp_path / "all.nq"
    running_dump = tmp_path / "running.nq"
    server = start_server(original, port=port, demo=False)
    try:
        experiments = _every_state(server, slow_qa)
        paths = _paths(server, experiments)
        before = _served(server, paths)
        # exported while it is served, as an operator would (a checkpoint the server takes)
        assert main(["export", "--store", str(original), "--output", str(dump)]) == 0
        held = _canonical_store(server.storage)
        running = server.post(
            "api/experiments",
            json={"dataset": "demo", "kb": "demo", "systems": [{"url": slow_qa + "delay/0.3"}]},
        ).json()
        assert main(["export", "--store", str(original), "--output", str(running_dump)]) == 0
        _wait(server, running["id"], running["token"])  # it finished; the dump has it running
    finally:
        stop_server(server)
    base = server.url
    assert main(["import", "--store", str(restored), "--base", base, str(dump)]) == 0
    with open_storage(restored, base=base) as storage:
        assert _canonical_store(storage) == held
    gc.collect()  # the store's last reference goes: its directory lock with it

    server = start_server(restored, port=port, demo=False)
    try:
        after = _served(server, paths)
        kept = server.get(f"experiment/{experiments['published']['id']}")
        download = re.search(r'href="[^"]*/(experiment/\d+/file/[0-9a-f]{64})"', kept.text)
        assert download is not None
        missing = server.get(download.group(1))
    finally:
        stop_server(server)
    gc.collect()
    assert main(["import", "--store", str(tmp_path / "again"), str(running_dump)]) == 0
    server = start_server(tmp_path / "again", port=port, demo=False)
    try:
        lost = _wait(server, running["id"], running["token"])
    finally:
        stop_server(server)
    # What a dump does not hold, said as such (before: the file "was recorded before the
    # service kept the files it scores", and the run "the submission did not complete").
    assert missing.status_code == 404 and "restored by gerbil-qa import" in missing.text
    assert lost["status"] == "error" and "a dump holds no runs in progress" in lost["message"]
    assert after.keys() == before.keys()
    # byte for byte, blank-node labels too: a cited document's hash holds across a restore
    # (an import renamed every blank node: the same triples under other labels, explore60 F5)
    as_bytes = [key for key in before if key[-1] == "bytes"]
    assert as_bytes and all(after[key] == before[key] for key in as_bytes), [
        key[0] for key in as_bytes if after[key] != before[key]
    ]
    # A run's per-system progress is a job file beside the store, not in the dump: the failed
    # run's owner page says so where it showed its systems' errors; the rest is the same.
    failed = (f"experiment/{experiments['failed']['id']}", experiments["failed"]["token"])
    shown, restored_page = before[(*failed, "text/html")][1], after[(*failed, "text/html")][1]
    assert "this service does not answer questions about planets" in _progress(shown)
    assert "is not kept here" in _progress(restored_page)
    # nor can it be resumed from a dump alone: said, instead of a Resume button that answered
    # 409 "no saved job" (explore-3 #1; an export --files backup holds its job, below)
    assert 'id="resume-form"' in shown and 'id="resume-form"' not in restored_page
    assert 'id="not-resumable"' not in shown
    assert "it cannot be resumed here, its job is not kept in this store" in restored_page
    assert _without_notice(_without_progress(shown)) == _without_notice(
        _without_progress(restored_page)
    )
    differing = [key for key in before if after[key] != before[key]]
    assert differing == [(*failed, "text/html")]
    # what was fetched is what each state shows: the public sees only the published ones
    public = {
        state: before[(f"experiment/{t['id']}", None, "text/turtle")][0]
        for state, t in experiments.items()
    }
    assert public == {"published": 200, "rescored": 200, "private": 403, "failed": 403}
    private = experiments["private"]
    assert after[(f"experiment/{private['id']}", private["token"], "text/turtle")][0] == 200
    (_, graph) = before[(f"experiment/{experiments['rescored']['id']}", None, "text/turtle")]
    assert any("wasRevisionOf" in line for line in graph)
    (_, graph) = before[(f"experiment/{experiments['published']['id']}", None, "text/turtle")]
    assert any(PAPER in line for line in graph)
    # A dump reusing labels the store holds (this store's own, its experiment under another
    # id; closing line gone, as an edit needs) gets fresh blank nodes for them: kept labels
    # joined the two experiments' nodes, one file with two checksums (explore61 F12); a
    # published graph's copy in the default graph is the same node
    gc.collect()
    eid = experiments["published"]["id"]
    lines = dump.read_text().replace(eid, eid[:8] + "0099").rstrip().splitlines()[:-1]
    edited = tmp_path / "edited.nq"
    edited.write_text("\n".join(lines) + "\n")
    assert main(["import", "--store", str(restored), "--legacy-dump", str(edited)]) == 0
    with open_storage(restored, base=base) as storage:
        graphs: dict[Any, set[Any]] = {}
        for side in (storage.public, storage.private):
            for q in side.quads_for_pattern(None, None, None):
                for term in (q.subject, q.object):
                    if isinstance(term, ox.BlankNode) and q.graph_name != ox.DefaultGraph():
                        graphs.setdefault(term, set()).add(q.graph_name)
        assert len(graphs) > 10 and not [b for b, g in graphs.items() if len(g) > 1]


def test_a_backup_with_its_files_restores_downloads_and_rescoring(
    tmp_path: Path, slow_qa: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``export --files`` (while served): the dump and the kept files in one archive; restored
    by ``import``, the uploads and a web service's archived answers download again, byte for
    byte, and the upload run can be re-scored (from the dump alone: 404 and refused)."""
    port = free_port()
    original, restored, backup = tmp_path / "original", tmp_path / "restored", tmp_path / "b.tgz"
    server = start_server(original, port=port, demo=False)
    try:
        upload = server.submit_demo(systems=("strong",))
        asked = server.post(
            "api/experiments",
            json={"dataset": "demo", "kb": "demo", "systems": [{"url": slow_qa + "delay/0.01"}]},
        ).json()
        assert _wait(server, asked["id"], asked["token"])["status"] == "finished"
        files = {}
        for ticket in (upload, asked):
            page = server.get(f"experiment/{ticket['id']}", headers=_bearer(ticket["token"])).text
            for link in re.findall(r'href="[^"]*/(experiment/\d+/file/[0-9a-f]{64})"', page):
                files[link] = (ticket["token"], server.get(link, headers=_bearer(ticket["token"])))
        assert len(files) >= 3 and all(r.status_code == 200 for _, r in files.values())
        assert main(["export", "--store", str(original), "--files", "--output", str(backup)]) == 0
        dump = tmp_path / "graphs-only.nq"
        assert main(["export", "--store", str(original), "--output", str(dump)]) == 0
        # check beside the server reads the files where the store keeps them (it read the
        # server's checkpoint, which holds graphs only, and warned of every file)
        capsys.readouterr()
        assert main(["check", "--store", str(original), "--no-shapes"]) == 0
        assert "warning" not in capsys.readouterr().err
    finally:
        stop_server(server)
    capsys.readouterr()
    assert main(["import", "--store", str(restored), str(backup)]) == 0
    said = capsys.readouterr().out
    # every file restored: no "others" named (it said "(the others were there)" anyway)
    assert re.search(r"restored (\d+) of its \1 kept file\(s\)\n", said), said
    # check names the files a store restored from a dump alone lacks (before: clean, silent)
    assert main(["check", "--store", str(restored), "--no-shapes"]) == 0
    assert "warning" not in capsys.readouterr().err
    graphs_only = tmp_path / "graphs-only"
    assert main(["import", "--store", str(graphs_only), str(dump)]) == 0
    capsys.readouterr()
    assert main(["check", "--store", str(graphs_only), "--no-shapes"]) == 0  # still valid
    warned = capsys.readouterr().err
    shas = {link.rsplit("/", 1)[1] for link in files}
    named = set(
        re.findall(r"^warning: experiment \d+ used .* \(SHA-256 ([0-9a-f]{64})\)", warned, re.M)
    )
    assert named == shas, warned
    assert f"experiment {upload['id']} used answers-strong.json" in warned
    gc.collect()
    server = start_server(restored, port=port, demo=False)
    try:
        for link, (token, before) in files.items():
            after = server.get(link, headers=_bearer(token))
            assert after.status_code == 200, (link, after.text)
            assert after.content == before.content
        again = server.post(
            f"api/experiments/{upload['id']}/rescore",
            headers=_bearer(upload["token"]),
            json={"profile": "exact"},
        )
        assert again.status_code == 202, again.text
        assert _wait(server, again.json()["id"], again.json()["token"])["status"] == "finished"
    finally:
        stop_server(server)
    twice = tmp_path / "twice"  # (the served store stays locked a while: another one)
    assert main(["import", "--store", str(twice), str(backup)]) == 0
    capsys.readouterr()
    assert main(["import", "--store", str(twice), str(backup)]) == 0  # once more
    said = capsys.readouterr().out
    assert re.search(r"restored 0 of its (\d+) kept file\(s\); \1 were there already", said)


def test_a_cancelled_run_restored_from_a_backup_is_resumed_where_it_stopped(
    tmp_path: Path, slow_qa: str
) -> None:
    """Before (explore-3 #1): the backup held no job of a cancelled run, so on the restored
    store its page offered "Resume this experiment" and resume answered 409 "no saved job".
    Now ``export --files`` carries the jobs of runs that ended without a result (cancelled,
    failed), their answers so far with them: resumed on the restored store, the run reuses
    them and finishes."""
    port = free_port()
    original, restored, backup = tmp_path / "original", tmp_path / "restored", tmp_path / "b.tar"
    server = start_server(original, port=port, demo=False)
    try:
        body = {"dataset": "demo", "kb": "demo", "systems": [{"url": slow_qa + "delay/0.2"}]}
        ticket = server.post("api/experiments", json=body).json()
        owner = _bearer(ticket["token"])
        url = f"api/experiments/{ticket['id']}"
        deadline = time.monotonic() + 30
        while not (state := server.get(url, headers=owner).json())["systems"] or (
            state["systems"][0]["done"] < 2
        ):
            assert time.monotonic() < deadline, state
            time.sleep(0.05)
        assert server.post(f"{url}/cancel", headers=owner).ok
        cancelled = _wait(server, ticket["id"], ticket["token"])
        assert cancelled["status"] == "cancelled", cancelled
        refused = {**body, "systems": [{"url": slow_qa + "refuse"}]}
        failed = server.post("api/experiments", json=refused).json()
        assert _wait(server, failed["id"], failed["token"])["status"] == "error"
        assert main(["export", "--store", str(original), "--files", "--output", str(backup)]) == 0
    finally:
        stop_server(server)
    assert main(["import", "--store", str(restored), str(backup)]) == 0
    log = restored / "jobs" / ticket["id"] / "answers" / "0.jsonl"
    assert len(log.read_text().splitlines()) >= 2  # what it had asked: not asked again
    gc.collect()
    server = start_server(restored, port=port, demo=False)
    try:
        page = server.get(f"experiment/{ticket['id']}", headers=owner).text
        assert "is not kept here" not in _progress(page)  # its per-system progress came along
        assert 'id="resume-form"' in page and 'id="not-resumable"' not in page
        resumed = server.post(f"{url}/resume", headers=owner)
        assert resumed.status_code == 202, resumed.text  # before: 409 "no saved job"
        final = server.wait_finished(ticket["id"], ticket["token"])
        again = server.post(
            f"api/experiments/{failed['id']}/resume", headers=_bearer(failed["token"])
        )
        assert again.status_code == 202, again.text
    finally:
        stop_server(server)
    assert final["status"] == "finished"
    asked = final["results"][0]["measures"]["questions"]
    assert asked == state["systems"][0]["total"]


def test_serving_a_store_whose_public_graphs_are_lost_says_so_at_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An empty server behind --store, a wrong --location, a failed restore: serve started
    healthy, its published experiments "finished" over no results (explore-12 8). It now says
    at start which of the newest publications have no graph, and what to do."""
    import logging

    from service.graph.adapter import Side
    from service.paths import DEMO_DIR

    store = tmp_path / "store"
    argv = ["evaluate", "--dataset", str(DEMO_DIR / "questions.json"), "--store", str(store)]
    assert (
        main([*argv, "--answers", str(DEMO_DIR / "answers-strong.json"), "--output", "json"]) == 0
    )
    with open_storage(store) as storage:
        (eid,) = [s.id for s in storage.experiments.listing(include_private=True)]
        storage.experiments.publish(eid)
        base = storage.uris.base
        storage.store.update(Side.PUBLIC, f"DROP GRAPH <{storage.uris.experiment_graph(eid)}>")
    gc.collect()
    with caplog.at_level(logging.ERROR, logger="service.web.app"):
        site = start_server(store, demo=False, base=base)
        try:  # its page says so too, where it showed an empty finished run
            page = site.get(f"experiment/{eid}", headers={"Accept": "text/html"})
            assert page.status_code == 200 and 'id="results-missing"' in page.text
        finally:
            stop_server(site)
    said = " ".join(r.getMessage() for r in caplog.records if r.name == "service.web.app")
    assert f"holds no graph of the published experiment(s) {eid}" in said, said
    assert "run gerbil-qa check" in said
