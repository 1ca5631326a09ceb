"""An operator's scale-out, as the READMEs tell it (README "A remote store and several replicas",
service/web/README.md "Connections and a reverse proxy"): an embedded store with public and
private experiments (the demo data and QALD-8, made with the CLI) moved into two ``oxigraph
serve`` by ``export --files``/``import``; two ``gerbil-qa serve`` replicas on it behind a real
nginx running the web README's proxy configuration as printed (only the addresses and the TLS
listener replaced); a run submitted and watched through nginx and on each replica, its replica
killed with SIGKILL and the run taken over by the other; a backup made while it runs; published
and read by content negotiation and SPARQL through nginx; the store restarted under the
replicas. The moving steps (``export --files``, ``import``, the live backup) and the servers run
as the operator runs them, each in its own process; the stores' making and reading
(``evaluate``, ``publish``, ``experiments``, ``export``) run the same commands in this process
(``tests.helpers.gerbil_qa_here``), without an interpreter's start each.

Before: the README's ``proxy_set_header Host $host`` drops the port the client asked, so behind a
proxy on any port but the scheme's the absolute links a response gives (the sitemap in
``robots.txt``, the sitemap index, a frozen leaderboard's ``Location``) named another site.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import tarfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import rdflib
import requests
from rdflib.namespace import PROV

from service.paths import DEMO_DIR
from tests.helpers import gerbil_qa_here
from tests.reliability.figures import ROOT, Served, cli, record
from tests.reliability.runs import (
    IN_FLIGHT,
    QUESTIONS,
    CountingQA,
    question_count,
    run_status,
    until,
)
from tests.remote import RemotePair, free_port, remote_pair, running_nginx, start_oxigraph

pytestmark = pytest.mark.proxy

LEASE = 2.0
METRICS_TOKEN = "scaleout-metrics"
QALD8 = "system-outputs/qald8-train/AskNow_QALD8_Train.json"
TEMP_PATHS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


def readme_proxy(root: Path, port: int, replicas: tuple[str, str]) -> str:
    """The web README's two nginx blocks as one configuration: the server block with the
    upstream's ``location /`` lines, on ``127.0.0.1:port`` instead of ``443 ssl`` (no
    certificate here) and with the replicas' addresses for the README's."""
    text = (ROOT / "service" / "web" / "README.md").read_text(encoding="utf-8")
    server, upstream = re.findall(r"```nginx\n(.*?)```", text, re.S)
    inside = re.search(r"# in `location /`: (.*)", upstream)
    assert inside is not None, "the README says what goes in `location /`"
    upstream = upstream.replace(inside.group(0), "")
    for placeholder, address in zip(("10.0.0.6:8081", "10.0.0.7:8081"), replicas, strict=True):
        assert placeholder in upstream, placeholder
        upstream = upstream.replace(placeholder, address)
    for printed, ours in (
        ("listen 443 ssl;", f"listen 127.0.0.1:{port};"),
        ("proxy_pass http://127.0.0.1:8080;", inside.group(1)),
        ("/var/log/nginx/gerbil-qa.access.log", f"{root}/access.log"),
    ):
        assert printed in server, printed
        server = server.replace(printed, ours)
    temp = " ".join(f"{kind}_temp_path {root}/{kind};" for kind in TEMP_PATHS)
    user = "user root root;" if os.geteuid() == 0 else ""  # as in test_store_proxy
    return (
        f"{user}\nworker_processes 1;\npid {root}/nginx.pid;\nerror_log {root}/error.log warn;\n"
        f"events {{ worker_connections 256; }}\nhttp {{\naccess_log off;\n{temp}\n"
        f"{upstream}\n{server}\n}}\n"
    )


@contextlib.contextmanager
def proxy(root: Path, port: int, replicas: tuple[str, str]) -> Iterator[str]:
    root.mkdir(parents=True, exist_ok=True)
    config = readme_proxy(root, port, replicas)
    with running_nginx(root, config, port, probe="health/live") as url:
        yield url


def _recorded(run: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    """The id and owner token ``evaluate --store`` printed."""
    assert run.returncode == 0, run.stderr
    found = re.search(r"recorded experiment (\d{12}) .* owner token: ([\w-]+)\)", run.stderr)
    assert found is not None, run.stderr
    return found.group(1), found.group(2)


def _embedded(store: Path, base: str, data_dir: Path) -> dict[str, tuple[str, str]]:
    """The store to move: the demo and QALD-8 train, public and private, made with the CLI."""
    demo, qald = DEMO_DIR / "questions.json", "qald-8-train-multilingual"
    made = {
        "public-demo": ("--dataset", str(demo), "--answers", str(DEMO_DIR / "answers-strong.json")),
        "public-qald": ("--dataset", qald, "--answers", str(data_dir / QALD8)),
        "private-demo": (
            "--dataset",
            str(demo),
            "--answers",
            str(DEMO_DIR / "answers-partial.json"),
        ),
    }
    tickets = {}
    for name, args in made.items():
        tickets[name] = _recorded(
            gerbil_qa_here("evaluate", *args, "--store", str(store), "--base", base)
        )
    for name in ("public-demo", "public-qald"):
        published = gerbil_qa_here("publish", "--store", str(store), tickets[name][0])
        assert published.returncode == 0, published.stderr
    return tickets


def _listing(store: str, **env: str) -> list[dict[str, object]]:
    listed = gerbil_qa_here("experiments", "--store", store, "--output", "json", **env)
    assert listed.returncode == 0, listed.stderr
    return [json.loads(line) for line in listed.stdout.splitlines()]


def _dump(store: str, output: Path, **env: str) -> set[str]:
    """The store's N-Quads without blank-node lines (their labels are the writer's) and the
    closing line (its SHA-256 is of the bytes, in the order the store wrote them)."""
    exported = gerbil_qa_here("export", "--store", store, "--output", str(output), **env)
    assert exported.returncode == 0, exported.stderr
    lines = output.read_text().splitlines()
    assert lines[-1].startswith("# gerbil-qa dump of a whole store: ")
    return {line for line in lines[:-1] if "_:" not in line}


def _done(state: dict[str, object]) -> int:
    systems = state.get("systems") or []
    assert isinstance(systems, list)
    return sum(int(system.get("done") or 0) for system in systems)


def _runs(replica: Served) -> tuple[float, float]:
    """The replica's runs active and taken over (``/metrics``)."""
    response = requests.get(
        replica.url + "metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=30
    )
    assert response.status_code == 200, response.text
    values = dict(re.findall(r"^(gerbil_qa_runs_\w+) (\S+)$", response.text, re.M))
    return float(values["gerbil_qa_runs_active"]), float(values["gerbil_qa_runs_taken_over_total"])


def test_an_operators_scale_out_behind_the_readme_proxy(
    tmp_path: Path, data_dir: Path, qa: CountingQA, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))
    port = free_port()
    base = f"http://127.0.0.1:{port}/"  # the proxy's address is the site's
    embedded = tmp_path / "embedded"
    tickets = _embedded(embedded, base, data_dir)
    backup = tmp_path / "backup.tar.gz"
    exported = cli("export", "--store", str(embedded), "--files", "--output", str(backup))
    assert exported.returncode == 0, exported.stderr
    with remote_pair(tmp_path / "stores") as pair:
        env = {**pair.env, "GERBIL_QA_ALLOW_NETWORKS": "127.0.0.1/32"}
        imported = cli("import", "--store", pair.url, str(backup), **env)
        assert imported.returncode == 0, imported.stderr
        # nothing lost: the same experiments, the same quads
        assert _listing(pair.url, **env) == _listing(str(embedded))
        moved = _dump(pair.url, tmp_path / "remote.nq", **env)
        assert moved == _dump(str(embedded), tmp_path / "embedded.nq")
        _serve_behind_the_proxy(tmp_path, pair, env, port, base, tickets, qa)


def _serve_behind_the_proxy(
    tmp_path: Path,
    pair: RemotePair,
    env: dict[str, str],
    port: int,
    base: str,
    tickets: dict[str, tuple[str, str]],
    qa: CountingQA,
) -> None:
    settings = {
        **env,
        "GERBIL_QA_LEASE_SECONDS": str(LEASE),
        "GERBIL_QA_METRICS_TOKEN": METRICS_TOKEN,
    }
    a = Served(pair.url, base=base, **{**settings, "GERBIL_QA_WORK_DIR": str(tmp_path / "a")})
    try:
        b = Served(pair.url, base=base, **{**settings, "GERBIL_QA_WORK_DIR": str(tmp_path / "b")})
        try:
            addresses = (f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}")
            with proxy(tmp_path / "nginx", port, addresses) as site:
                assert site == base
                logged = tmp_path / "nginx" / "access.log"
                _moved_experiments_read_through_the_proxy(site, tickets, logged)
                _a_run_through_the_proxy(tmp_path, pair, env, site, (a, b), qa)
        finally:
            b.stop()
    finally:
        a.stop()


def _moved_experiments_read_through_the_proxy(
    site: str, tickets: dict[str, tuple[str, str]], access_log: Path
) -> None:
    turtle = {"Accept": "text/turtle"}
    for name, (eid, token) in tickets.items():
        anonymous = requests.get(f"{site}experiment/{eid}", headers=turtle, timeout=30)
        assert anonymous.status_code == (403 if name.startswith("private") else 200), name
        owner = {**turtle, "Authorization": f"Bearer {token}"}  # owner tokens moved along
        assert requests.get(f"{site}experiment/{eid}", headers=owner, timeout=30).ok, name
    # an owner link followed through the proxy: its token is not in the proxy's log (the
    # README's block logged it whole, explore26 F3), the rest of the request line is
    eid, token = tickets["private-demo"]
    link = f"{site}experiment/{eid}?lang=en&token={token}&x=1"
    followed = requests.get(link, allow_redirects=False, timeout=30)
    assert followed.status_code == 303, followed.text
    # a second token=, a name percent-encoded: none of their values either (explore27 F11)
    for odd in (f"token=junk&token={token}", f"%74oken={token}"):
        requests.get(f"{site}experiment/{eid}?{odd}", allow_redirects=False, timeout=30)
    logged = access_log.read_text()
    assert token not in logged and "junk" not in logged
    assert logged.count(f'GET /experiment/{eid}?token=- HTTP/1.1"') == 3, logged
    # the absolute links name the site as the client asked it, its port included
    robots = requests.get(site + "robots.txt", timeout=30).text
    assert f"Sitemap: {site}sitemap.xml" in robots, robots
    sitemap = requests.get(site + "sitemap.xml", timeout=30).text
    assert f"<loc>{site}sitemap/1.xml</loc>" in sitemap, sitemap


def _a_run_through_the_proxy(
    tmp_path: Path,
    pair: RemotePair,
    env: dict[str, str],
    site: str,
    replicas: tuple[Served, Served],
    qa: CountingQA,
) -> None:
    submitted = requests.post(
        site + "api/experiments",
        files=[("dataset_file", ("questions.json", QUESTIONS))],
        data={"kb": "demo", "webservice": f"scaled={qa.url}scaled/2.0"},
        timeout=30,
    )
    assert submitted.status_code == 202, submitted.text
    ticket = submitted.json()
    # progress through the proxy and on each replica directly
    for url in (site, *(replica.url for replica in replicas)):
        until(f"progress at {url}", lambda url=url: _done(run_status(url, ticket)) > 0, 30)
    # the replica running it killed: the other takes it over within the lease
    running = until("the runner", lambda: [r for r in replicas if _runs(r)[0] >= 1], 30)[0]
    other = replicas[1] if running is replicas[0] else replicas[0]
    running.kill()
    killed, killed_at = time.monotonic(), time.time()
    # until it is taken over, the survivor says its replica is silent, with no estimate: it
    # showed "running" and a time left that grew for the whole lease (explore-12 5)
    waiting = until(
        "the silent replica said",
        lambda: (
            "has not been heard from" in ((s := run_status(other.url, ticket))["phase"] or "") and s
        ),
        LEASE * 3,
    )
    assert waiting["status"] == "running" and waiting["remainingSeconds"] is None, waiting
    # a backup while the run goes on (the README's procedure: export --files on the live store)
    backup = tmp_path / "live.tar.gz"
    exported = cli("export", "--store", pair.url, "--files", "--output", str(backup), **env)
    assert exported.returncode == 0, exported.stderr
    assert run_status(site, ticket)["status"] == "running"  # the backup was made during the run
    with tarfile.open(backup) as archive:
        assert "dump.nq" in archive.getnames()
    final = until(
        "the take-over",
        lambda: (s := run_status(site, ticket))["status"] == "finished" and s,
        30,
    )
    after_kill = time.monotonic() - killed
    assert _runs(other)[1] >= 1  # counted as a take-over on the survivor
    asked = qa.of("scaled")
    assert len(asked) == question_count(), asked
    assert Counter(asked.values())[2] <= IN_FLIGHT and max(asked.values()) <= 2, asked
    assert final["status"] == "finished"
    # published and read through the proxy, by content negotiation and SPARQL
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    published = requests.post(
        f"{site}api/experiments/{ticket['id']}/publish", headers=owner, timeout=30
    )
    assert published.status_code == 200, published.text
    page = requests.get(ticket["uri"], headers={"Accept": "text/turtle"}, timeout=30)
    assert page.status_code == 200 and ticket["uri"] in page.text
    assert page.headers.get("Content-Encoding") == "gzip"  # requests asks for it, as browsers do
    _compressed_answers_keep_their_etags(site, ticket)
    # its PROV start is when its questions began to be asked, on the killed replica (it was
    # the take-over's, after the answers it reused)
    graph = rdflib.Graph().parse(data=page.text, format="turtle")
    started = graph.value(rdflib.URIRef(ticket["uri"]), PROV.startedAtTime)
    assert started is not None and started.toPython().timestamp() < killed_at - 1, started
    ask = f"ASK {{ GRAPH <{site}graph/experiment/{ticket['id']}> {{ ?s ?p ?o }} }}"
    answer = requests.get(site + "sparql", params={"query": ask}, timeout=30)
    assert answer.json()["boolean"] is True
    # the store restarted under the surviving replica: not ready while away, ready after
    pair.public.process.kill()
    pair.public.process.wait(10)
    assert requests.get(site + "health", timeout=10).status_code == 503
    started = start_oxigraph(pair.public.location, int(pair.public.url.rsplit(":", 1)[1][:-1]))
    pair.public.process = started.process
    until("ready again", lambda: requests.get(site + "health", timeout=10).status_code == 200, 30)
    assert requests.get(ticket["uri"], headers={"Accept": "text/turtle"}, timeout=30).ok
    record("operator-scaleout", finished_after_kill_s=round(after_kill, 1), lease_s=LEASE)


def _compressed_answers_keep_their_etags(site: str, ticket: dict[str, str]) -> None:
    """The README's proxy compresses what programs read (JSON, RDF, CSV), not only HTML: a
    2,000-question run's whole answer was 1.2 MB uncompressed; its ETag, weak once compressed,
    still answers a 304 for the owner's whole answer and the anonymous one."""
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    for headers in (owner, {}):
        url = f"{site}api/experiments/{ticket['id']}"
        whole = requests.get(url, headers=headers, timeout=30)
        assert whole.ok and whole.headers.get("Content-Encoding") == "gzip", whole.headers
        assert whole.json()["evaluations"][0]["questions"], "the per-question records"
        etag = whole.headers["ETag"]
        again = requests.get(url, headers={**headers, "If-None-Match": etag}, timeout=30)
        assert again.status_code == 304, (etag, again.status_code, again.headers)


def _cpu_seconds(pid: int) -> float:
    """A process's CPU time so far (user and system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_query_given_up_is_not_piled_on_the_remote_store(tmp_path: Path) -> None:
    """A query the endpoint gives up at its time limit goes on in ``oxigraph serve`` (it does
    not stop when the connection closes, nor at its own ``--timeout-s``): a client retrying it
    put one more copy on the store's cores each time, each computing for good. Its shape is
    now refused for a while, at once, saying why; other queries go on."""
    with remote_pair(tmp_path) as pair:
        replica = Served(
            pair.url,
            GERBIL_QA_SPARQL_TIMEOUT="2",
            GERBIL_QA_METRICS_TOKEN=METRICS_TOKEN,
            **pair.env,
        )
        try:
            heavy = "SELECT ?a WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f } ORDER BY ?f LIMIT %d"
            first = requests.get(replica.url + "sparql", params={"query": heavy % 1}, timeout=30)
            assert first.status_code == 503 and "given up" in first.text, first.text
            # the reason: the store is still at it (lift GIVEN_UP_HOLD once this fails)
            store = pair.public.process.pid
            before = _cpu_seconds(store)
            time.sleep(1.5)
            assert _cpu_seconds(store) - before > 0.5
            started = time.monotonic()
            again = requests.get(replica.url + "sparql", params={"query": heavy % 2}, timeout=30)
            took = time.monotonic() - started
            assert again.status_code == 503 and took < 1.0, (took, again.text)
            assert "may still be computing it" in again.text, again.text
            assert int(again.headers["Retry-After"]) > 60
            other = requests.get(replica.url + "sparql", params={"query": "ASK {}"}, timeout=30)
            assert other.status_code == 200, other.text
            metrics = requests.get(
                replica.url + "metrics",
                headers={"Authorization": f"Bearer {METRICS_TOKEN}"},
                timeout=30,
            ).text
            assert "gerbil_qa_sparql_abandoned_total 1.0" in metrics, metrics
        finally:
            replica.stop()


def test_serving_a_moved_store_under_another_base_says_how(tmp_path: Path) -> None:
    """An operator moving the store of a trial (made at the default base) serves it under the
    public base: refused, which was right, but the message named neither the setting nor the
    README's ``--rebase`` move, only the two bases."""
    store = tmp_path / "trial"
    made = gerbil_qa_here(
        "evaluate",
        *("--dataset", str(DEMO_DIR / "questions.json")),
        *("--answers", str(DEMO_DIR / "answers-strong.json")),
        *("--store", str(store)),
    )
    assert made.returncode == 0, made.stderr
    public = "https://qa.example.org/"
    served = cli("serve", "--store", str(store), "--base", public, "--port", str(free_port()))
    assert served.returncode == 1
    assert "give --base http://localhost:8080/ (or GERBIL_QA_BASE)" in served.stderr
    assert f"import --store NEW --base {public} --rebase backup.tar.gz" in served.stderr
    # the step it names works: the moved store serves under the new base
    backup = tmp_path / "backup.tar.gz"
    assert cli("export", "--store", str(store), "--files", "--output", str(backup)).returncode == 0
    moved = tmp_path / "moved"
    imported = cli("import", "--store", str(moved), "--base", public, "--rebase", str(backup))
    assert imported.returncode == 0, imported.stderr
    listed = _listing(str(moved))
    assert [row["uri"] for row in listed] == [f"{public}experiment/{listed[0]['id']}"]


def test_a_public_store_serving_the_union_of_its_graphs_is_refused(tmp_path: Path) -> None:
    """``oxigraph serve --union-default-graph`` on the public dataset (an operator reading
    "the default graph is the union of the public graphs") made every default-graph triple
    match twice: measured behind two replicas, ``api/experiments`` listed each experiment twice
    and a withdrawn one was back. Now refused when opened, saying so."""
    with remote_pair(tmp_path) as pair:
        made = gerbil_qa_here(
            "evaluate",
            *("--dataset", str(DEMO_DIR / "questions.json")),
            *("--answers", str(DEMO_DIR / "answers-strong.json")),
            *("--store", pair.url),
            **pair.env,
        )
        eid, _ = _recorded(made)
        assert gerbil_qa_here("publish", "--store", pair.url, eid, **pair.env).returncode == 0
        assert gerbil_qa_here("experiments", "--store", pair.url, **pair.env).returncode == 0
        port = int(pair.public.url.rstrip("/").rsplit(":", 1)[1])
        pair.public.stop()
        union = start_oxigraph(pair.public.location, port, ("--union-default-graph",))
        pair.public.process = union.process
        listed = gerbil_qa_here("experiments", "--store", pair.url, **pair.env)
    assert listed.returncode == 1, listed.stdout
    assert "answers queries over the union of its graphs" in listed.stderr, listed.stderr
    assert "--union-default-graph" in listed.stderr
