"""A frozen leaderboard in the graph (service/graph/leaderboards.py), on the embedded store and
on a remote one (two ``oxigraph serve``): its shapes hold, it stays as it stood when an
experiment of it is withdrawn, and a dump restores it. The experiments are recorded and
published by ``gerbil-qa`` run in this process (``tests.helpers.gerbil_qa_here``)."""

from __future__ import annotations

from pathlib import Path

from service.evaluation.measures import MEASURES
from service.graph import leaderboards
from service.graph.checks import check_store
from service.graph.dumps import dump_base, export, import_dump
from service.graph.store import open_storage
from service.graph.uris import gerbil
from service.paths import DEMO_DIR
from tests.helpers import gerbil_qa_here, recorded
from tests.remote import environment, remote_pair

GQA = "http://w3id.org/gerbil/qa/vocab#"


def _tasks(storage) -> list[str]:
    """The public QA tasks, best macro F1 first."""
    query = f"""SELECT ?task WHERE {{ ?task <{gerbil("experimentType")}> <{gerbil("QA")}> ;
                <{MEASURES["macroF1"].iri}> ?f1 }} ORDER BY DESC(?f1)"""
    return [row["task"].value for row in storage.public.query(query)]


def _walk(store: str, env: dict[str, str], tmp_path: Path) -> None:
    strong = recorded(store, DEMO_DIR / "answers-strong.json", here=True, **env)
    weak = recorded(store, DEMO_DIR / "answers-baseline.json", here=True, **env)
    for eid in (strong, weak):
        assert gerbil_qa_here("publish", eid, "--store", store, **env).returncode == 0
    with environment(env), open_storage(store, base=None, catalog=False) as storage:
        tasks = _tasks(storage)
        assert len(tasks) == 2
        standing = leaderboards.Standing(gerbil("QA"), MEASURES["macroF1"].iri)
        rows = [
            leaderboards.Row(1, tasks[0], 0.82, low=0.6, high=1.0, tier=1),
            leaderboards.Row(2, tasks[1], 0.26, tier=2),
        ]
        uri, created = leaderboards.freeze(storage, standing, rows, title="Demo <b>& co</b>")
        assert created
        assert leaderboards.freeze(storage, standing, rows, title="x") == (uri, False)
        assert check_store(storage) == []  # shapes, valid terms, Data Cube checks
        assert _tasks(storage) == tasks  # its rows are no results
        storage.experiments.withdraw(weak, "a test")
        kept = leaderboards.read(storage, uri.rsplit("/", 1)[1])
        assert kept is not None and kept.rows == rows and kept.title == "Demo <b>& co</b>"
        about = leaderboards.tasks_about(storage, tasks)
        assert about[tasks[1]].get("withdrawnAt") and "withdrawnAt" not in about[tasks[0]]
        assert about[tasks[0]]["experiment"].endswith(strong)
        withdrawn = storage.uris.experiment(weak)  # its page still names the leaderboard
        found = leaderboards.including(storage, withdrawn, storage.uris.experiment_graph(weak))
        assert [x["uri"] for x in found] == [uri]
        dump = export(storage, format="nquads")
    with open_storage(tmp_path / "restored", base=dump_base(dump), catalog=False) as restored:
        import_dump(restored, dump)
        again = leaderboards.read(restored, uri.rsplit("/", 1)[1])
        assert again is not None and again.rows == rows
        assert [x["uri"] for x in leaderboards.listing(restored)] == [uri]


def test_on_the_embedded_store(tmp_path: Path) -> None:
    _walk(str(tmp_path / "store"), {}, tmp_path)


def test_on_a_remote_store(tmp_path: Path) -> None:
    with remote_pair(tmp_path / "remote") as pair:
        _walk(pair.public.url, pair.env, tmp_path)


def test_two_replicas_freezing_one_state_at_once_write_it_once(tmp_path: Path) -> None:
    """Two processes on one remote store (two ``oxigraph serve``) freezing the same standings at
    once: each found no graph of that id and wrote its own, so the leaderboard had two titles
    and two times (its shape says one of each) and was listed twice. A snapshot-isolated store
    makes no check-then-write exclusive (:mod:`service.graph.claims`)."""
    import threading

    with remote_pair(tmp_path / "remote") as pair:
        store = pair.public.url
        eid = recorded(store, DEMO_DIR / "answers-strong.json", here=True, **pair.env)
        assert gerbil_qa_here("publish", eid, "--store", store, **pair.env).returncode == 0
        with (
            environment(pair.env),
            open_storage(store, base=None, catalog=False) as one,
            open_storage(store, base=None, catalog=False) as two,
        ):
            task = _tasks(one)[0]
            rounds = 4  # each round its own standings (another score), so its own id
            for n in range(rounds):
                standing = leaderboards.Standing(gerbil("QA"), MEASURES["macroF1"].iri)
                rows = [leaderboards.Row(1, task, n / 10)]
                start = threading.Barrier(2)
                made: list[bool] = []
                both = [
                    threading.Thread(target=_freeze_at_once, args=(s, standing, rows, start, made))
                    for s in (one, two)
                ]
                for t in both:
                    t.start()
                for t in both:
                    t.join(60)
                assert sorted(made) == [False, True], made  # one wrote it, the other found it
            listed = leaderboards.listing(one)
            assert len(listed) == rounds == len({x["uri"] for x in listed}), listed
            assert check_store(one) == []  # one title and one time each (its shape)


def _freeze_at_once(storage, standing, rows, start, made: list[bool]) -> None:
    start.wait()  # both check and write together
    made.append(leaderboards.freeze(storage, standing, rows, title=f"by {id(storage)}")[1])


def test_another_run_below_the_next_system_reads_back_where_it_was_frozen(tmp_path: Path) -> None:
    """Ranks count systems (explore-7 3): a weaker run of the system ranked 2 stands below the
    system ranked 3, as ``#rank-2-2``; read back in the order frozen (by IRI, it came before
    rank 3), with its ``gqa:otherRunOf``. Standings without another run keep the id they had
    before rows could name one (the same standings are one URI)."""
    import hashlib
    import json
    from dataclasses import asdict

    with open_storage(tmp_path / "store", base="http://x.test/", catalog=False) as storage:
        task = [f"http://x.test/experiment/202611280001/task/{n}" for n in range(4)]
        standing = leaderboards.Standing(gerbil("QA"), MEASURES["macroF1"].iri)
        rows = [
            leaderboards.Row(1, task[0], 0.9),
            leaderboards.Row(2, task[1], 0.5),
            leaderboards.Row(3, task[2], 0.4),
            leaderboards.Row(2, task[3], 0.3, other_run_of=task[1], undefined=12, resamples=1000),
        ]
        uri, _ = leaderboards.freeze(storage, standing, rows, title="t")
        kept = leaderboards.read(storage, uri.rsplit("/", 1)[1])
        assert kept is not None and kept.rows == rows
        assert check_store(storage) == []  # gqa:otherRunOf is a term of the vocabulary, shaped
        found = storage.public.query(f"SELECT ?e WHERE {{ ?e <{GQA}otherRunOf> <{task[1]}> }}")
        assert [row["e"].value for row in found] == [uri + "#rank-2-2"]
        plain = rows[:3]
        # fields rows got since (the tier note is never part of the id)
        later = ("other_run_of", "undefined", "resamples", "tier_note", "tier_signature")
        before = [{k: v for k, v in asdict(r).items() if k not in later} for r in plain]
        text = json.dumps([asdict(standing), before], sort_keys=True)
        old_id = hashlib.sha256(text.encode()).hexdigest()[:16]
        assert leaderboards.frozen_id(standing, plain) == old_id
