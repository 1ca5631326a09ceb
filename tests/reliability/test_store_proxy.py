"""A remote store behind a real reverse proxy (Debian nginx on 127.0.0.1 in front of two
``oxigraph serve``), as operators run Oxigraph's server, which has no access control of its own:

- HTTP Basic credentials (``GERBIL_QA_STORE_USER``/``_PASSWORD``, or in the URL as
  ``http://user:password@host/``) reach the store; without them, or wrong, the command stops
  with the store's 401 and writes nothing; the password never shows in what it prints;
- the Fuseki layout (``GERBIL_QA_STORE_LAYOUT=fuseki``: ``sparql``, ``update``, ``data`` under
  the dataset's URL) routes every kind of request where Fuseki has it: the proxy maps those
  paths onto Oxigraph's (a test of our layout and protocol use, not of Fuseki itself, which
  is not installable here).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from textwrap import dedent
from urllib.parse import quote

import pytest
import requests

from service.graph.uris import DEFAULT_BASE
from service.paths import DEMO_DIR
from tests.reliability.figures import Served, cli
from tests.remote import RemotePair, free_port, remote_pair, running_nginx

pytestmark = pytest.mark.proxy

USER, PASSWORD = "gqa-operator", "s3cret-Pa55word"
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"


def _config(root: Path, port: int, pair: RemotePair) -> str:
    (root / "users").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    upstream = {"public": pair.public.url, "private": pair.private.url}
    locations = []
    for side, url in upstream.items():
        locations.append(f"location /oxigraph/{side}/ {{ proxy_pass {url}; }}")
        for fuseki, oxigraph in (("sparql", "query"), ("update", "update"), ("data", "store")):
            target = f"proxy_pass {url}{oxigraph};"
            locations.append(f"location = /fuseki/{side}/{fuseki} {{ {target} }}")
    temp = " ".join(
        f"{kind}_temp_path {root}/{kind};" for kind in ("client_body", "proxy", "fastcgi")
    )
    # as root, nginx's workers would run as nobody, who cannot read the test's private folder
    user = "user root root;" if os.geteuid() == 0 else ""
    return dedent(
        f"""\
        {user}
        worker_processes 1;
        pid {root}/nginx.pid;
        error_log {root}/error.log warn;
        events {{ worker_connections 64; }}
        http {{
          access_log off;
          {temp} uwsgi_temp_path {root}/uwsgi; scgi_temp_path {root}/scgi;
          client_max_body_size 0;
          proxy_request_buffering off;
          proxy_buffering off;
          proxy_http_version 1.1;
          server {{
            listen 127.0.0.1:{port};
            auth_basic "gerbil-qa store";
            auth_basic_user_file {root}/users;
            {chr(10).join(locations)}
          }}
        }}
        """
    )


@contextlib.contextmanager
def proxy(root: Path, pair: RemotePair) -> Iterator[str]:
    """nginx in front of the pair, on a free port; yields its base URL."""
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    with running_nginx(root, _config(root, port, pair), port) as url:
        yield url


@pytest.fixture()
def behind(tmp_path: Path) -> Iterator[tuple[RemotePair, str]]:
    with remote_pair(tmp_path / "stores") as pair, proxy(tmp_path / "nginx", pair) as url:
        yield pair, url


def _evaluate(store: str, private: str, **env: str) -> subprocess.CompletedProcess[str]:
    return cli(
        "evaluate",
        "--dataset",
        str(DEMO_DIR / "questions.json"),
        "--answers",
        str(DEMO_DIR / "answers-strong.json"),
        "--output",
        "json",
        "--store",
        store,
        GERBIL_QA_PRIVATE_STORE=private,
        **env,
    )


def _stored(pair: RemotePair) -> int:
    return int(pair.private.query(COUNT)[0]["n"])


def test_credentials_reach_a_store_behind_a_proxy_and_never_show(
    behind: tuple[RemotePair, str], tmp_path: Path
) -> None:
    pair, url = behind
    public, private = url + "oxigraph/public/", url + "oxigraph/private/"
    assert requests.get(public + "query", params={"query": "ASK {}"}).status_code == 401
    # no credentials, then a wrong password: the store's 401, said; nothing written
    for env in ({}, {"GERBIL_QA_STORE_USER": USER, "GERBIL_QA_STORE_PASSWORD": "wrong"}):
        refused = _evaluate(public, private, **env)
        assert refused.returncode != 0
        said = refused.stderr
        assert "answered 401" in said and "GERBIL_QA_STORE_USER" in said and url in said, said
        assert "wrong" not in refused.stdout + refused.stderr
        assert _stored(pair) == 0
    # the operator's credentials: the experiment lands in the private server
    done = _evaluate(public, private, GERBIL_QA_STORE_USER=USER, GERBIL_QA_STORE_PASSWORD=PASSWORD)
    assert done.returncode == 0, done.stderr[-2000:]
    assert _stored(pair) > 100
    assert PASSWORD not in done.stdout + done.stderr
    # credentials in the URLs, as many clients take them: used, and never printed back
    secret = f"http://{USER}:{PASSWORD}@{url.removeprefix('http://')}"
    done = _evaluate(secret + "oxigraph/public/", secret + "oxigraph/private/")
    assert done.returncode == 0, done.stderr[-2000:]
    # a replica on it: the public endpoint's queries go through with the credentials, the
    # health probe says nothing of them
    log = tmp_path / "serve.log"
    served = Served(
        secret + "oxigraph/public/",
        base=DEFAULT_BASE,  # the store's, as `evaluate` made it
        output=log,
        GERBIL_QA_PRIVATE_STORE=secret + "oxigraph/private/",
    )
    try:
        answer = requests.get(served.url + "sparql", params={"query": "ASK { ?s ?p ?o }"})
        assert answer.status_code == 200 and answer.json()["boolean"] is True
        health = requests.get(served.url + "health", timeout=30)
        assert health.status_code == 200 and PASSWORD not in health.text, health.text
    finally:
        served.stop()
    # the start banner named the store with its password
    said = log.read_text()
    assert "GERBIL QA serving" in said and PASSWORD not in said, said
    wrong = f"http://{USER}:not-{PASSWORD}@{url.removeprefix('http://')}"
    refused = _evaluate(wrong + "oxigraph/public/", wrong + "oxigraph/private/")
    assert refused.returncode != 0 and "answered 401" in refused.stderr, refused.stderr
    assert PASSWORD not in refused.stdout + refused.stderr


def test_a_password_a_url_cannot_hold_as_it_is_must_be_percent_encoded(
    behind: tuple[RemotePair, str], tmp_path: Path
) -> None:
    _, url = behind
    odd = "p@ss/w#rd?%x"
    with (tmp_path / "nginx" / "users").open("a") as users:  # nginx reads it at each request
        users.write(f"odd:{{PLAIN}}{odd}\n")
    host = url.removeprefix("http://")
    encoded = f"http://odd:{quote(odd, safe='')}@{host}"
    done = _evaluate(encoded + "oxigraph/public/", encoded + "oxigraph/private/")
    assert done.returncode == 0, done.stderr[-2000:]
    raw = f"http://odd:{odd}@{host}"
    refused = _evaluate(raw + "oxigraph/public/", raw + "oxigraph/private/")
    said = refused.stdout + refused.stderr
    assert refused.returncode != 0 and "percent-encode" in said, said
    assert not any(part in said for part in ("ss/w", "w#rd", "rd?%x")), said


def test_the_fuseki_layout_routes_every_request_where_fuseki_has_it(
    behind: tuple[RemotePair, str], tmp_path: Path
) -> None:
    pair, url = behind
    public, private = url + "fuseki/public/", url + "fuseki/private/"
    env = {
        "GERBIL_QA_STORE_LAYOUT": "fuseki",
        "GERBIL_QA_STORE_USER": USER,
        "GERBIL_QA_STORE_PASSWORD": PASSWORD,
    }
    done = _evaluate(public, private, **env)
    env["GERBIL_QA_PRIVATE_STORE"] = private
    assert done.returncode == 0, done.stderr[-2000:]
    assert _stored(pair) > 100
    eid = done.stderr.split("recorded experiment ")[1].split()[0]
    published = cli("publish", eid, "--store", public, **env)  # an update and graph reads
    assert published.returncode == 0, published.stderr[-2000:]
    assert int(pair.public.query(COUNT)[0]["n"]) > 100
    dump = tmp_path / "dump.nq"  # whole graphs by the Graph Store Protocol ("data")
    exported = cli("export", "--store", public, "--output", str(dump), **env)
    assert exported.returncode == 0, exported.stderr[-2000:]
    assert f"graph/experiment/{eid}>" in dump.read_text()
    checked = cli("check", "--store", public, **env)
    assert checked.returncode == 0 and "0 violation(s)" in checked.stdout + checked.stderr
