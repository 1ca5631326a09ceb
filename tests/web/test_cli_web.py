"""``gerbil-qa serve`` and ``gerbil-qa publish`` as real processes (what ``make run`` does)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.web.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GERBIL_QA_")}
    env["GERBIL_QA_SPARQL_WORKERS"] = "1"
    return env


def _children(pid: int) -> set[int]:
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.add(int(entry.name))
    return out


def _terminal_signals_default() -> None:
    """Ctrl-C's and a closed terminal's signals as a terminal gives them: a job started in the
    background (`cmd &`) has SIGINT ignored, one under `nohup` SIGHUP, which serve keeps
    ignored (the suite run under `nohup` timed out waiting for serve to stop on SIGHUP)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _start(store: Path, port: int, *, own_group: bool = False) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "service", "serve", "--store", str(store), "--port", str(port)],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=own_group,  # its own process group, as a terminal's foreground job
        preexec_fn=_terminal_signals_default if own_group else None,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            requests.get(f"http://127.0.0.1:{port}/api/profiles", timeout=1)
            return process
        except (requests.ConnectionError, requests.Timeout):  # bound, still starting
            if process.poll() is not None:
                raise AssertionError(process.stdout.read() if process.stdout else "") from None
            time.sleep(0.2)
    process.kill()
    raise AssertionError("gerbil-qa serve did not start")


def _stop(process: subprocess.Popen) -> str:
    children = _children(process.pid)
    process.send_signal(signal.SIGTERM)
    output, _ = process.communicate(timeout=20)
    assert process.returncode == 0, output
    deadline = time.monotonic() + 10  # SPARQL workers and multiprocessing's resource tracker
    while [c for c in children if Path(f"/proc/{c}").exists()] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [c for c in children if Path(f"/proc/{c}").exists()], "workers outlived serve"
    return output


def test_serve_starts_with_a_published_demo_and_restarts(tmp_path: Path) -> None:
    store = tmp_path / "store"
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    process = _start(store, port)
    try:
        experiments = requests.get(url + "api/experiments", timeout=10).json()["experiments"]
        assert len(experiments) == 1
        demo = experiments[0]
        assert demo["uri"] == f"http://localhost:{port}/experiment/{demo['id']}"  # default base
        turtle = requests.get(
            f"{url}experiment/{demo['id']}", headers={"Accept": "text/turtle"}, timeout=10
        )
        assert turtle.status_code == 200 and "gqa:Experiment" in turtle.text
        ask = requests.get(
            url + "sparql",
            params={"query": "ASK { ?t a <http://w3id.org/gerbil/qa/vocab#Task> }"},
            headers={"Accept": "application/sparql-results+json"},
            timeout=10,
        )
        assert ask.json()["boolean"] is True
        catalog = requests.get(url + "api/datasets", timeout=10).json()["datasets"]
        assert len(catalog) >= 20  # the built-in catalogue
    finally:
        output = _stop(process)
    assert "serving" in output.lower()
    # a clean stop is in the log, told from a crash (explore26 F7)
    assert "service.serve: shutting down (signal SIGTERM)" in output
    assert "stopping:" not in output  # the demo's run had ended: nothing handed over
    assert output.rstrip().endswith("service.serve: stopped"), output[-400:]
    assert not (store / ".public-snapshots").exists()  # cleaned up at exit
    assert not (store / ".snapshots").exists()  # empty: removed at exit (explore57 F5)

    process = _start(store, port)  # a restart keeps the store and does not recompute the demo
    try:
        again = requests.get(url + "api/experiments", timeout=10).json()["experiments"]
        assert [e["id"] for e in again] == [demo["id"]]
    finally:
        _stop(process)


def test_serve_on_a_port_in_use_says_so_before_making_anything(tmp_path: Path) -> None:
    # Before: a traceback (OSError: Address already in use) after the store was created, with
    # that port's base, and the demo computed
    store = tmp_path / "store"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "service", "serve", "--store", str(store), "--port", str(port)],
            cwd=ROOT,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith(f"gerbil-qa: cannot serve on 127.0.0.1:{port}: the address")
    assert "already in use" in done.stderr and "--port N" in done.stderr
    assert not store.exists()  # no store, so no base of the port it could not serve on


LEASE = "GERBIL_QA_LEASE_SECONDS"


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["--port", "99999"], {}, "setting port (--port): expected a whole number from 1 to 65535"),
        (
            ["--port", "0"],
            {},
            "setting port (--port): expected a whole number from 1 to 65535, got 0",
        ),
        (
            [],
            {"GERBIL_QA_PORT": "70000"},
            "setting port (GERBIL_QA_PORT): expected a whole number from 1 to 65535",
        ),
        (
            [],
            {"GERBIL_QA_SPARQL_WORKERS": "0"},
            "setting sparql_workers (GERBIL_QA_SPARQL_WORKERS): expected a whole number ≥ 1, got 0",
        ),
        # one wording a kind: 1.5 was "cannot read '1.5' as int", 0 "a finite number ≥ 1"
        *(
            (
                [],
                {"GERBIL_QA_THREADS": value},
                f"setting threads (GERBIL_QA_THREADS): expected a whole number ≥ 1, got {value}\n",
            )
            for value in ("1.5", "0", "abc")
        ),
        (
            [],
            {"GERBIL_QA_SPARQL_TIMEOUT": "abc"},
            "setting sparql_timeout (GERBIL_QA_SPARQL_TIMEOUT): expected a finite number ≥ 0.001, "
            "got abc\n",
        ),
        (
            [],
            {"GERBIL_QA_DEMO": "maybe"},
            "setting demo (GERBIL_QA_DEMO): expected 1/true/yes/on or 0/false/no/off, got maybe",
        ),
        (
            [],
            {"GERBIL_QA_ALLOW_NETWORKS": "10.0.0.0/33"},
            "setting allow_networks (GERBIL_QA_ALLOW_NETWORKS): not an IP network in the "
            "allow-list: '10.0.0.0/33'",
        ),
        *(
            (
                [],
                {"GERBIL_QA_RUNNER_ASK_SECONDS": value},
                "setting runner_ask_seconds (GERBIL_QA_RUNNER_ASK_SECONDS): expected a finite "
                f"number ≥ 0, got {said}",
            )
            for value, said in (("-1", "-1.0"), ("inf", "inf"), ("1e400", "inf"), ("nan", "nan"))
        ),
        # unquoted, as the others (it said got '0.5'; explore51 F7)
        *(
            (
                [],
                {LEASE: value},
                f"setting lease_seconds ({LEASE}): expected a number ≥ 1, got {value}\n",
            )
            for value in ("abc", "0", "0.5")
        ),
        # an empty value said "got " with nothing after (explore54 F10); spaces alone quoted
        (
            [],
            {"GERBIL_QA_THREADS": ""},
            "setting threads (GERBIL_QA_THREADS): expected a whole number ≥ 1, got an empty "
            "value\n",
        ),
        (
            [],
            {"GERBIL_QA_SPARQL_TIMEOUT": "  "},
            "setting sparql_timeout (GERBIL_QA_SPARQL_TIMEOUT): expected a finite number ≥ 0.001, "
            "got '  '\n",
        ),
    ],
)
def test_a_setting_out_of_its_range_is_one_line_before_anything_starts(
    tmp_path: Path, args: list[str], env: dict[str, str], said: str
) -> None:
    """--port 99999 was announced ("serving on …:99999"), listened nowhere and made the store's
    base http://localhost:99999/ for good; a bad allow-list died with two tracebacks after the
    SPARQL workers started; 0 workers ran one; a lease of 'abc' was 30 s, of 0 one second."""
    store = tmp_path / "store"
    done = subprocess.run(
        [sys.executable, "-m", "service", "serve", "--store", str(store), *args],
        cwd=ROOT,
        env={**_env(), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.startswith(f"gerbil-qa: {said}"), done.stderr
    assert "Traceback" not in done.stderr and "serving" not in done.stdout
    assert not store.exists()


def test_a_port_a_starting_serve_holds_is_in_use_for_a_second_one() -> None:
    """Two serve started together on one port: the first holds the address while it opens its
    store, the second must be told the port is in use. A bound socket not yet listening let a
    second bind succeed (SO_REUSEADDR on Linux), so the second made its store and failed late,
    in waitress, with a traceback (or took the port from the first)."""
    import dataclasses

    import pytest

    from service.errors import ServiceError
    from service.web.config import WebConfig
    from service.web.serving import bind_sockets

    config = dataclasses.replace(WebConfig(), host="127.0.0.1", port=free_port())
    first = bind_sockets(config)
    try:
        with pytest.raises(ServiceError, match="already in use"):
            for sock in bind_sockets(config):
                sock.close()
    finally:
        for sock in first:
            sock.close()


def test_serve_keeps_a_connection_open_after_a_304_or_204() -> None:
    """``serve``'s waitress (``serving.create_server``) has the channel that does not close a
    connection after a response without content (explore45 12; the behaviour is tested over
    HTTP on the test server, which uses the same channel: ``test_conneg``)."""
    import dataclasses

    from waitress import wasyncore
    from waitress.server import BaseWSGIServer

    from service.web.config import WebConfig
    from service.web.serving import _keep_alive_channel, bind_sockets, create_server

    def app(environ, start_response):  # pragma: no cover - never called
        start_response("204 No Content", [])
        return [b""]

    config = dataclasses.replace(WebConfig(), host="127.0.0.1", port=free_port())
    server = create_server(app, config, bind_sockets(config))
    # one address: the server itself; several: a MultiSocketServer over them
    sockets = server.map if hasattr(server, "map") else server._map
    try:
        listeners = [s for s in sockets.values() if isinstance(s, BaseWSGIServer)]
        assert listeners and all(s.channel_class is _keep_alive_channel() for s in listeners)
    finally:
        server.task_dispatcher.shutdown()
        wasyncore.close_all(sockets)


def test_publish_from_the_command_line(tmp_path: Path) -> None:
    from service.experiments.run import run_experiment
    from service.experiments.spec import ExperimentSpec, FileDataset, FileRef
    from service.experiments.systems import AnswerFile
    from service.graph.store import open_storage
    from service.paths import DEMO_DIR
    from service.web.config import WebConfig

    store = tmp_path / "store"
    base = "http://example.org/gqa/"
    with open_storage(store, base=base) as graph:
        spec = ExperimentSpec(
            FileDataset(FileRef.local(DEMO_DIR / "questions.json"), title="solar"),
            (AnswerFile("cli-system", FileRef.local(DEMO_DIR / "answers-partial.json")),),
            profile="exact",
        )
        ticket = run_experiment(spec, storage=graph).ticket
        assert ticket is not None
        assert not graph.experiments.is_public(ticket.id)
    assert WebConfig().base != base  # publish finds the store's own base without --base
    command = [sys.executable, "-m", "service", "publish", "--store", str(store), ticket.id]
    bad = subprocess.run(
        [*command, "--paper", "not-a-doi"], cwd=ROOT, env=_env(), capture_output=True, text=True
    )
    assert bad.returncode == 1 and "not a DOI or an http(s) URL: 'not-a-doi'" in bad.stderr
    done = subprocess.run(
        [*command, "--paper", "doi:10.3233/SW-180312"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert f"published {ticket.id}: {base}experiment/{ticket.id}" in done.stdout
    assert "referenced by https://doi.org/10.3233/SW-180312" in done.stdout
    with open_storage(store, base=base, catalog=False) as graph:
        assert graph.experiments.is_public(ticket.id)
        assert graph.public.query(
            f"ASK {{ <{ticket.uri}> <http://purl.org/dc/terms/isReferencedBy> "
            "<https://doi.org/10.3233/SW-180312> }"
        )
    unknown = subprocess.run(
        [sys.executable, "-m", "service", "publish", "--store", str(store), "209901019999"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert unknown.returncode == 1 and "209901019999" in unknown.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "service", "publish", "--store", str(tmp_path / "none"), "x"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 1


def test_the_log_tells_an_operator_what_happened(tmp_path: Path) -> None:
    """serve's log had the start banner and nothing more: no request, no submission, run,
    publication or withdrawal. Now each experiment's changes are logged, the operator's token
    use too, and with --access-log one line a request, owner tokens blanked."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    env_token = "operator-secret"
    command = [sys.executable, "-m", "service", "serve", "--store", str(tmp_path / "store")]
    process = subprocess.Popen(
        [*command, "--port", str(port), "--access-log", "--no-demo"],
        cwd=ROOT,
        env={**_env(), "GERBIL_QA_ADMIN_TOKEN": env_token},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                requests.get(url + "api/profiles", timeout=1)
                break
            except (requests.ConnectionError, requests.Timeout):
                assert process.poll() is None, process.stdout.read() if process.stdout else ""
                time.sleep(0.2)
        demo = ROOT / "datasets" / "demo"
        files = [
            ("dataset_file", ("questions.json", (demo / "questions.json").read_bytes())),
            ("answers", ("strong.json", (demo / "answers-strong.json").read_bytes())),
        ]
        ticket = requests.post(url + "api/experiments", files=files, timeout=60).json()
        eid, token = ticket["id"], ticket["token"]
        owner = {"Authorization": f"Bearer {token}"}
        deadline = time.monotonic() + 60
        while requests.get(url + f"api/experiments/{eid}", headers=owner).json().get(
            "status"
        ) not in ("finished", "error"):
            assert time.monotonic() < deadline
            time.sleep(0.2)
        requests.get(url + f"experiment/{eid}", params={"token": token}, timeout=10)
        admin = {"Authorization": f"Bearer {env_token}"}
        published = requests.post(url + f"api/experiments/{eid}/publish", headers=admin)
        assert published.status_code == 200, published.text
        frozen = requests.post(url + "api/leaderboards", json={"title": "Kept for a paper"})
        assert frozen.status_code in (200, 201), frozen.text
        # an operator's read while serve holds the store (it was refused: "in use")
        listed = subprocess.run(
            [*command[:3], "leaderboard", "list", "--store", str(tmp_path / "store")],
            cwd=ROOT,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert listed.returncode == 0 and "Kept for a paper" in listed.stdout, listed.stderr
    finally:
        output = _stop(process)
    assert "frozen: Kept for a paper" in output, output
    assert f"experiment {eid}: reserved" in output, output
    assert f"experiment {eid}: recorded, finished" in output, output
    assert f"experiment {eid}: published" in output, output
    assert f"admin token used: POST /api/experiments/{eid}/publish" in output, output
    assert re.search(rf'"POST /api/experiments/{eid}/publish" 200 \d+ [0-9.]+ms', output), output
    assert f'"GET /experiment/{eid}?token=…" ' in output, output
    assert token not in output and env_token not in output


ADMIN = "with `Authorization: Bearer $GERBIL_QA_ADMIN_TOKEN`"
DEMO = ROOT / "datasets" / "demo"


@pytest.mark.parametrize(
    ("command", "way"),
    [
        (["publish", "209901010001"], f"`POST /api/experiments/209901010001/publish` {ADMIN}"),
        (
            ["withdraw", "209901010001", "--reason", "wrong file"],
            '`POST /api/experiments/209901010001/withdraw` with {"reason": …} ' + ADMIN,
        ),
        (["delete", "209901010001"], f"`DELETE /api/experiments/209901010001` {ADMIN}"),
        (
            ["leaderboard", "remove", "00ff00ff00ff00ff"],
            f"`DELETE /api/leaderboards/00ff00ff00ff00ff` {ADMIN}",
        ),
        (["rescore", "209901010001"], "`POST /api/experiments/209901010001/rescore` (with"),
        (
            [
                *("evaluate", "--dataset", str(DEMO / "questions.json")),
                *("--answers", str(DEMO / "answers-partial.json")),
            ],
            "submit the run to it: `POST /api/experiments` or its run page (/experiments/new)",
        ),
    ],
)
def test_a_write_on_a_served_store_says_how_to_do_it_while_it_serves(
    server, command: list[str], way: str
) -> None:
    """Refused while serve held the store, each said only "in use by another process (a
    running `gerbil-qa serve` …)": nothing said to stop it or to use the API (explore-15 5)."""
    store = str(server.storage.work_dir)
    done = subprocess.run(
        [sys.executable, "-m", "service", *command, "--store", store],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stdout
    said = " ".join(done.stderr.split())
    assert f"the store at {store} is in use by another process" in said, said
    assert "stop that process (or let it end) first; while it serves, " in said, said
    assert way in said, said


def test_a_store_made_without_base_says_so_and_serve_on_another_port_too(tmp_path: Path) -> None:
    """The README's publishing command (no --base) fixed the store's base to
    http://localhost:8080/ silently; ``serve --port P`` kept it, its help saying the default
    was localhost:PORT, so every owner link and "Watch it run" led nowhere (explore32 2). The
    store keeps its base (its URIs are in its graphs); both commands say so, and how out."""
    from service.cli.web import base_elsewhere
    from service.paths import DEMO_DIR

    store, port = tmp_path / "store", free_port()
    cli = [sys.executable, "-m", "service"]
    questions = str(DEMO_DIR / "questions.json")
    made = subprocess.run(
        [*cli, "evaluate", "--store", str(store), "--dataset", questions, "--answers", questions],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    assert "its URIs are under http://localhost:8080/ for good" in made.stderr
    assert "--base URI" in made.stderr
    helped = subprocess.run(
        [sys.executable, "-m", "service", "serve", "--help"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "a store keeps the one it was made with" in " ".join(helped.stdout.split())
    process = subprocess.Popen(
        [*cli, "serve", "--store", str(store), "--port", str(port), "--no-demo"],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                requests.get(f"http://127.0.0.1:{port}/api/profiles", timeout=1)
                break
            except (requests.ConnectionError, requests.Timeout):
                assert process.poll() is None, process.stdout.read() if process.stdout else ""
                time.sleep(0.2)
    finally:
        output = _stop(process)
    assert "URIs under http://localhost:8080/" in output
    assert "note: this store's URIs are under http://localhost:8080/" in output
    assert "--port 8080" in output and f"--base http://localhost:{port}/ --rebase" in output
    # served where its base says, or under a public base (a proxy in front): nothing said
    assert base_elsewhere("http://localhost:8080/", 8080) is None
    assert base_elsewhere("https://qa.example.org/", port) is None


def test_the_base_note_names_the_store_as_given_and_the_base_host_as_it_is() -> None:
    """explore37 5: on a remote store serve's note said ``export --store DIR`` and suggested
    ``--base http://localhost:PORT/`` for a store whose base is on 127.0.0.1. The store is named
    as given (the URL, no password), the base keeps its host, and a remote store's replicas
    (one base behind a proxy) are said to be the usual case."""
    from service.cli.web import base_elsewhere

    remote = base_elsewhere("http://127.0.0.1:18762/", 18763, store="http://127.0.0.1:18760/")
    assert remote is not None
    assert "export --store http://127.0.0.1:18760/ --files" in remote
    assert "--base http://127.0.0.1:18763/ --rebase FILE" in remote
    assert "localhost:18763" not in remote and "DIR" not in remote
    assert "replicas of a remote store serve one base behind a proxy" in remote
    # the store's base and how to serve it, not how a directory gets one (explore65 F9)
    assert "(the base it was made with), not port 18763" in remote and "evaluate" not in remote
    local = base_elsewhere("http://localhost:8080/", 18764, store="/srv/qa/store")
    assert local is not None
    assert "export --store /srv/qa/store --files" in local
    assert "--base http://localhost:18764/ --rebase FILE" in local
    assert "replicas" not in local
    assert "`evaluate --store` without --base makes http://localhost:8080/" in local
    v6 = base_elsewhere("http://[::1]:8080/", 18765, store="/srv/qa/store")
    assert v6 is not None and "--base http://[::1]:18765/ --rebase" in v6


def test_the_base_note_says_a_loopback_base_with_a_path_and_keeps_its_scheme() -> None:
    """explore40 10: a loopback base under a path (``http://127.0.0.1:18853/gerbil/``) served on
    another port got no note, and the suggested base dropped https and the path; the first
    line left out the --url-prefix path."""
    from service.cli.web import base_elsewhere, served_at

    pathed = base_elsewhere("http://127.0.0.1:18853/gerbil/", 18854, store="/srv/qa/store")
    assert pathed is not None
    assert "--port 18853 --url-prefix /gerbil," in pathed
    assert "--base http://127.0.0.1:18854/gerbil/ --rebase FILE" in pathed
    assert base_elsewhere("http://127.0.0.1:18853/gerbil/", 18853) is None
    secure = base_elsewhere("https://localhost:8443/", 18855)
    assert secure is not None and "--base https://localhost:18855/ --rebase" in secure
    assert served_at("127.0.0.1", 18854, "/gerbil") == "http://127.0.0.1:18854/gerbil/"
    assert served_at("127.0.0.1", 18854, "gerbil/") == "http://127.0.0.1:18854/gerbil/"
    assert served_at("::1", 18854) == "http://[::1]:18854/"


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGHUP], ids=["SIGINT", "SIGHUP"])
def test_ctrl_c_twice_lets_serve_finish_its_shutdown(tmp_path: Path, stop: int) -> None:
    """Ctrl-C in a terminal signals serve's whole process group: a second SIGINT cut the
    shutdown short (exit 130, no "stopped" line), the log said "(interrupted)", and each SPARQL
    worker printed a KeyboardInterrupt traceback (explore49 F4). SIGINT is handled as SIGTERM
    is: the first stops, a later one is said and ignored; the workers leave it to serve. So is
    SIGHUP (a closed terminal, a rotation tool's reload), which killed serve at once: no
    "stopped", its public snapshot left, runs cut instead of handed over (explore57 F2)."""
    store = tmp_path / "store"
    port = free_port()
    process = _start(store, port, own_group=True)
    try:
        requests.get(  # a SPARQL worker is up and has answered
            f"http://127.0.0.1:{port}/sparql", params={"query": "ASK {}"}, timeout=30
        )
        os.killpg(process.pid, stop)
        time.sleep(0.05)
        with contextlib.suppress(ProcessLookupError):  # gone already: nothing left to cut
            os.killpg(process.pid, stop)
        output, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, output[-3000:]
    name = signal.Signals(stop).name
    assert f"service.serve: shutting down (signal {name})" in output, output[-3000:]
    assert output.rstrip().endswith("service.serve: stopped"), output[-3000:]
    assert "KeyboardInterrupt" not in output and "Traceback" not in output, output[-3000:]
    assert not (store / ".public-snapshots").exists()  # cleaned up at exit
    assert not (store / ".snapshots").exists()  # empty: removed at exit (explore57 F5)
