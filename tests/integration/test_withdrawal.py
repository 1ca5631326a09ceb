"""Withdrawing a published experiment (``gerbil-qa withdraw``), on the embedded store and on a
remote one (two ``oxigraph serve``): its results leave the public default graph (what every
leaderboard and listing reads) while its graph stays whole at its URI with the note of when and
why; what another published experiment shares stays; a dump restores it withdrawn.

The commands run in this process (``tests.helpers.gerbil_qa_here``: the same ``gerbil-qa``
command without an interpreter's start each); the operator's commands without ``--base`` run as
a user runs them, each in its own process."""

from __future__ import annotations

import json
from pathlib import Path

from service.graph.store import open_storage
from service.graph.uris import GQA
from service.paths import DEMO_DIR
from tests.helpers import gerbil_qa, gerbil_qa_here, recorded
from tests.remote import environment, remote_pair

QB = "http://purl.org/linked-data/cube#"
REASON = "the answers file  was the\nwrong one"  # stored with its spaces folded


def _run(*args: str, process: bool = False, **env: str) -> str:
    done = (gerbil_qa if process else gerbil_qa_here)(*args, **env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _refused(*args: str, **env: str) -> str:
    done = gerbil_qa_here(*args, **env)
    assert done.returncode == 1, done.stdout + done.stderr
    return done.stderr


class Seen:
    """What the public dataset holds of the experiments, read in this process."""

    def __init__(self, store: str, **env: str) -> None:
        self.store, self.env = store, env

    def read(self, query: str) -> list[dict[str, str]]:
        with environment(self.env), open_storage(self.store, catalog=False) as storage:
            results = storage.public.query(query)
            names = [v.value for v in results.variables]
            return [{n: row[n].value for n in names if row[n] is not None} for row in results]

    def tasks(self, uri: str) -> int:
        """Task observations of the experiment in the default graph (what leaderboards read)."""
        rows = self.read(
            f"SELECT (COUNT(*) AS ?n) WHERE {{ ?t a <{GQA}Task> ; <{QB}dataSet> <{uri}> }}"
        )
        return int(rows[0]["n"])

    def in_graph(self, graph: str) -> int:
        return int(
            self.read(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}")[0]["n"]
        )

    def uri(self, experiment_id: str) -> str:
        rows = self.read(
            f"SELECT ?e WHERE {{ ?e a <{GQA}Experiment> ; "
            f'<http://purl.org/dc/terms/identifier> "{experiment_id}" }}'
        )
        return rows[0]["e"]

    def about(self, uri: str) -> set[str]:
        """The predicates of the experiment's own triples in the default graph."""
        return {row["p"] for row in self.read(f"SELECT DISTINCT ?p WHERE {{ <{uri}> ?p ?o }}")}


def _walk(store: str, tmp_path: Path, **env: str) -> tuple[str, str, Seen]:
    """Two published experiments on one dataset (the same evaluator, the same questions); the
    first withdrawn. Returns both URIs and the reader."""
    mine = tmp_path / "mine.json"
    mine.write_text((DEMO_DIR / "answers-strong.json").read_text() + "\n", encoding="utf-8")
    first = recorded(store, mine, here=True, **env)
    second = recorded(store, DEMO_DIR / "answers-baseline.json", here=True, **env)
    unpublished = recorded(store, DEMO_DIR / "answers-baseline.json", here=True, **env)
    for eid in (first, second):
        _run("publish", "--store", store, eid, **env)
    seen = Seen(store, **env)
    a, b = (seen.uri(eid) for eid in (first, second))
    graph = a.replace("/experiment/", "/graph/experiment/")
    assert seen.tasks(a) > 0 and seen.tasks(b) > 0
    whole = seen.in_graph(graph)

    said = _run("withdraw", "--store", store, first, "--reason", REASON, **env)
    assert said.startswith(f"withdrawn {first}: {a} (")

    assert seen.tasks(a) == 0  # out of every leaderboard and listing
    assert seen.about(a) == {GQA + "withdrawnAt", GQA + "withdrawalReason"}
    note = seen.read(f"SELECT ?why WHERE {{ <{a}> <{GQA}withdrawalReason> ?why }}")
    assert note == [{"why": "the answers file was the wrong one"}]
    assert seen.in_graph(graph) == whole + 2  # the graph whole, with the note
    assert seen.tasks(b) > 0  # the other experiment untouched, and what it shares with it
    shared = (
        f"ASK {{ <{b}> <http://www.w3.org/ns/prov#wasAssociatedWith> ?e . ?e a <{GQA}Evaluator> }}"
    )
    with environment(env), open_storage(store, catalog=False) as storage:
        assert storage.public.query(shared)

    again = _refused("withdraw", "--store", store, first, "--reason", "twice", **env)
    assert f"experiment {first} was withdrawn on" in again
    private = _refused("withdraw", "--store", store, unpublished, "--reason", "x", **env)
    assert f"experiment {unpublished} is not published: delete it instead" in private
    empty = _refused("withdraw", "--store", store, second, "--reason", "  ", **env)
    assert "a withdrawal needs a reason" in empty

    listed = _run("experiments", "--store", store, "--output", "json", **env)
    rows = {row["id"]: row for row in map(json.loads, listed.splitlines())}
    assert rows[first]["withdrawalReason"] == "the answers file was the wrong one"
    assert rows[first]["withdrawnAt"] and rows[first]["public"] is True
    assert "withdrawnAt" not in rows[second]
    table = _run("experiments", "--store", store, **env).splitlines()
    assert [line.split()[2] for line in table if line.startswith(first)] == ["withdrawn"]
    checked = gerbil_qa_here("check", "--store", store, **env)  # the shapes hold on the note
    assert checked.returncode == 0 and checked.stderr.startswith("0 violation(s)"), checked.stderr
    return a, b, seen


def test_withdraw_on_the_embedded_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    a, b, _ = _walk(str(store), tmp_path)
    # a dump restores it withdrawn: the import rebuilds the default graph without its results
    dump = tmp_path / "dump.nq"
    _run("export", "--store", str(store), "--output", str(dump))
    restored = tmp_path / "restored"
    _run("import", "--store", str(restored), str(dump))
    seen = Seen(str(restored))
    assert seen.tasks(a) == 0 and seen.tasks(b) > 0
    assert seen.about(a) == {GQA + "withdrawnAt", GQA + "withdrawalReason"}
    # a published experiment whose results are gone from the public dataset (an empty server,
    # a wrong location, a failed restore) is named by `check`, which said "0 violation(s)"
    # over records saying "finished, public" and no results (explore-12 8)
    from service.graph.adapter import Side

    with open_storage(str(restored), catalog=False) as storage:
        graph = storage.uris.experiment_graph(b.rsplit("/", 1)[1])
        storage.store.update(Side.PUBLIC, f"DROP GRAPH <{graph}>")
    checked = gerbil_qa_here("check", "--store", str(restored))
    assert checked.returncode != 0, checked.stderr
    assert f"{b}" in checked.stdout + checked.stderr
    assert f"holds no graph {graph}: its results are lost" in checked.stdout + checked.stderr


def test_withdraw_on_a_remote_store(tmp_path: Path) -> None:
    with remote_pair(tmp_path / "remote") as pair:
        _walk(pair.url, tmp_path, **pair.env)


def test_a_paper_linked_after_the_withdrawal_stays_out_of_the_default_graph(
    tmp_path: Path,
) -> None:
    store = str(tmp_path / "store")
    eid = recorded(store, DEMO_DIR / "answers-baseline.json", here=True)
    _run("publish", "--store", store, eid)
    _run("withdraw", "--store", store, eid, "--reason", "superseded")
    _run("publish", "--store", store, eid, "--paper", "10.3233/SW-180312")
    seen = Seen(store)
    uri = seen.read(f"SELECT ?e WHERE {{ ?e <{GQA}withdrawnAt> ?t }}")[0]["e"]
    assert seen.about(uri) == {GQA + "withdrawnAt", GQA + "withdrawalReason"}
    graph = uri.replace("/experiment/", "/graph/experiment/")
    linked = seen.read(
        f"SELECT ?p WHERE {{ GRAPH <{graph}> {{ "
        f"<{uri}> <http://purl.org/dc/terms/isReferencedBy> ?p }} }}"
    )
    assert linked == [{"p": "https://doi.org/10.3233/SW-180312"}]


def test_the_operator_commands_take_the_base_from_the_store(tmp_path: Path) -> None:
    """A deployment's store is made with its own base (``evaluate --store --base``); publish,
    withdraw and delete then act on it without ``--base``, as the README's command lines show.
    Before, withdraw and delete checked it against ``http://localhost:8080/`` and refused."""
    store = str(tmp_path / "store")
    base = "http://127.0.0.1:8731/"
    done = gerbil_qa(
        "evaluate", "--dataset", str(DEMO_DIR / "questions.json"), "--store", store,
        "--base", base, "--answers", str(DEMO_DIR / "answers-strong.json"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    published = recorded(store, DEMO_DIR / "answers-baseline.json")
    unpublished = recorded(store, DEMO_DIR / "answers-baseline.json")
    said = _run("publish", "--store", store, published, process=True)
    assert said.startswith(f"published {published}: {base}experiment/{published} (")
    said = _run("withdraw", "--store", store, published, "--reason", "superseded", process=True)
    assert said.startswith(f"withdrawn {published}: {base}experiment/{published} (")
    assert _run("delete", "--store", store, unpublished, process=True) == f"deleted {unpublished}\n"


def _held_only_by_withdrawn(seen: Seen) -> int:
    """Default-graph triples (the notes aside) that no graph still listed holds: only withdrawn
    graphs have them, so the materialised union must not."""
    return int(
        seen.read(
            f"SELECT (COUNT(*) AS ?n) WHERE {{ ?s ?p ?o . "
            f"FILTER(?p NOT IN (<{GQA}withdrawnAt>, <{GQA}withdrawalReason>)) "
            f"FILTER NOT EXISTS {{ GRAPH ?g {{ ?s ?p ?o }} "
            f"FILTER NOT EXISTS {{ GRAPH ?g {{ ?w <{GQA}withdrawnAt> ?t }} }} }} }}"
        )[0]["n"]
    )


def _withdraw_both(store: str, **env: str) -> Seen:
    """Two published experiments on one uploaded dataset (they share its questions), both
    withdrawn, one after the other."""
    ids = [
        recorded(store, DEMO_DIR / f"answers-{k}.json", here=True, **env)
        for k in ("strong", "baseline")
    ]
    for eid in ids:
        _run("publish", "--store", store, eid, **env)
    for eid in ids:
        _run("withdraw", "--store", store, eid, "--reason", "superseded", **env)
    return Seen(store, **env)


def test_what_only_withdrawn_experiments_share_leaves_the_default_graph(tmp_path: Path) -> None:
    """The second withdrawal counted the first, withdrawn, graph as still holding what both
    share (the upload's questions and description): they stayed in the default graph, where a
    dump's import (which copies no withdrawn graph) then had none."""
    seen = _withdraw_both(str(tmp_path / "store"))
    assert _held_only_by_withdrawn(seen) == 0


def test_what_only_withdrawn_experiments_share_leaves_a_remote_default_graph(
    tmp_path: Path,
) -> None:
    with remote_pair(tmp_path / "remote") as pair:
        seen = _withdraw_both(pair.url, **pair.env)
        assert _held_only_by_withdrawn(seen) == 0


def test_publishing_a_withdrawn_experiment_again_is_refused_as_the_api_does(
    tmp_path: Path,
) -> None:
    """``gerbil-qa publish`` of a withdrawn experiment printed "published …" and exited 0 (the
    API's 409 says why: a pipeline took it for listed); with ``--paper`` it links the paper
    and says the experiment stays withdrawn."""
    store = str(tmp_path / "store")
    eid = recorded(store, DEMO_DIR / "answers-baseline.json", here=True)
    _run("publish", "--store", store, eid)
    _run("withdraw", "--store", store, eid, "--reason", "superseded")
    refused = _refused("publish", "--store", store, eid)
    assert f"experiment {eid} was withdrawn on" in refused and "stays withdrawn" in refused
    linked = _run("publish", "--store", store, eid, "--paper", "10.3233/SW-180312")
    assert linked.startswith(f"withdrawn {eid}: ") and "stays withdrawn" in linked
    assert "referenced by https://doi.org/10.3233/SW-180312" in linked
    assert "published" not in linked
