"""The published "Reproduce these numbers" script is safe to run whatever the store holds
(explore34 6 and 10).

A reader pastes the script of a public experiment page into a shell, so every stored value that
reaches it (an uploaded file's name, a system's name, …) must stay data. Before, a file name
holding a newline and ``EOF`` closed the script's ``<<'EOF'`` here-document and the lines after
it ran; and each file was saved under the name its uploader gave, so ``../x`` or ``/tmp/x``
wrote outside the reader's folder. The service now refuses such names at upload, but stores
made before hold them: the tests write them into the store, as an older version accepted them.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server

DCT = "http://purl.org/dc/terms/"
GQA = "http://w3id.org/gerbil/qa/vocab#"
# a fake gerbil-qa: writes the arguments it was given, as JSON, to argv.json
FAKE = "#!{python}\nimport json, sys\nopen('argv.json', 'w').write(json.dumps(sys.argv[1:]))\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("repro-store"), demo=False)
    yield running
    stop_server(running)


def _published(site: Server, systems: list[tuple[str, str, str]]) -> str:
    """An experiment on the demo questions, published: (system name, file name, answers)."""
    body: dict[str, Any] = {
        "dataset": {
            "filename": "questions.json",
            "content": (DEMO_DIR / "questions.json").read_text(encoding="utf-8"),
        },
        "profile": "exact",
        "force": True,
        "systems": [
            {
                "name": name,
                "answers": {
                    "filename": filename,
                    "content": (DEMO_DIR / f"answers-{which}.json").read_text(encoding="utf-8"),
                },
            }
            for name, filename, which in systems
        ],
    }
    made = site.post("api/experiments", json=body)
    assert made.status_code == 202, made.text
    ticket = made.json()
    site.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    return str(ticket["id"])


def _literal(text: str) -> str:
    return json.dumps(text)  # a SPARQL string literal (JSON's escapes are SPARQL's)


def _as_stored_before(site: Server, renames: dict[str, str]) -> None:
    """Each stored ``dct:title`` or ``dct:identifier`` ``old`` replaced by ``new``, in every
    graph: what an older version accepted at upload."""
    from service.graph.adapter import Side
    from service.web.state import EXTENSION

    for old, new in renames.items():
        for p in (DCT + "title", DCT + "identifier"):
            site.storage.store.update(
                Side.PUBLIC,
                f"DELETE {{ GRAPH ?g {{ ?s <{p}> {_literal(old)} }} }} "
                f"INSERT {{ GRAPH ?g {{ ?s <{p}> {_literal(new)} }} }} "
                f"WHERE {{ GRAPH ?g {{ ?s <{p}> {_literal(old)} }} }}",
            )
    site.app.extensions[EXTENSION].changed()


def _script(site: Server, experiment_id: str) -> str:
    page = site.get(f"experiment/{experiment_id}", headers={"Accept": "text/html"})
    assert page.status_code == 200
    found = re.search(r'<pre id="reproduce-script"[^>]*>(.*?)</pre>', page.text, re.S)
    assert found, "no reproduce script"
    return html.unescape(found.group(1))


def _run(script: str, workdir: Path) -> subprocess.CompletedProcess[str]:
    """The script run in ``workdir`` as a reader runs it (its downloads from the test server),
    with a fake ``gerbil-qa`` that records its arguments."""
    bin_dir = workdir.parent / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / "gerbil-qa"
    fake.write_text(FAKE.format(python=sys.executable), encoding="utf-8")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0
    return subprocess.run(
        ["bash", "-c", script], cwd=workdir, env=env, capture_output=True, text=True, timeout=120
    )


INJECTED = "\nEOF\ntouch PWNED-name\n: <<'EOF'\nz$(touch PWNED-sub)`touch PWNED-tick`'\".json"
SYSTEM = "sys\nEOF\ntouch PWNED-sys\n'\"$(touch PWNED-q) `touch PWNED-b` \\ ${HOME}"


def test_stored_names_with_newlines_eof_and_substitutions_run_nothing(
    site: Server, tmp_path: Path
) -> None:
    experiment = _published(site, [("plainsys", "plain-answers.json", "partial")])
    _as_stored_before(site, {"plain-answers.json": INJECTED, "plainsys": SYSTEM})
    script = _script(site, experiment)
    assert not any(line.startswith("touch") for line in script.splitlines()), script
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f]", script), "a control character in the script"
    workdir = tmp_path / "reader"
    workdir.mkdir()
    _run(script, workdir)
    ran = [p for p in tmp_path.rglob("PWNED*")] + list(Path.cwd().glob("PWNED*"))
    assert not ran, f"injected commands ran: {ran}\n{script}"
    argv = json.loads((workdir / "argv.json").read_text(encoding="utf-8"))
    assert argv[argv.index("--system") + 1] == SYSTEM  # passed as data, unchanged


def test_kept_files_are_saved_under_safe_names_in_the_readers_folder(
    site: Server, tmp_path: Path
) -> None:
    outside = tmp_path / "ABSOLUTE.json"
    experiment = _published(
        site,
        [("pathsys", "path-answers.json", "partial"), ("abssys", "abs-answers.json", "strong")],
    )
    _as_stored_before(
        site,
        {"path-answers.json": "../../TRAVERSED.json", "abs-answers.json": str(outside)},
    )
    workdir = tmp_path / "a" / "b" / "reader"
    workdir.mkdir(parents=True)
    done = _run(_script(site, experiment), workdir)
    assert done.returncode == 0, done.stderr
    assert not outside.exists()
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert all(p.parts[0] == "a" or p.parts[0] == "bin" for p in written), written
    assert not (tmp_path / "a" / "TRAVERSED.json").exists()
    argv = json.loads((workdir / "argv.json").read_text(encoding="utf-8"))
    given = argv[argv.index("--answers") + 1 : argv.index("--system")]
    assert sorted(given) == ["ABSOLUTE.json", "TRAVERSED.json"]
    systems = [argv[i + 1] for i, a in enumerate(argv) if a == "--system"]
    assert sorted(systems) == ["abssys", "pathsys"]
    which = ["partial" if s == "pathsys" else "strong" for s in systems]
    for name, answers in zip(given, which, strict=True):
        assert "/" not in name and (workdir / name).is_file()
        assert (workdir / name).read_bytes() == (DEMO_DIR / f"answers-{answers}.json").read_bytes()


def test_the_script_downloads_over_http_only_and_takes_no_url_as_a_pattern(
    tmp_path: Path,
) -> None:
    """A store's download address is the service's own, but the script trusts none: a
    ``file:`` address (or a redirect to one) is refused by curl, and ``[…]``/``{…}`` are no
    URL patterns fetching other files (hq57's leftover)."""
    from service.web.reproduce import Download, Reproduction

    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET", encoding="utf-8")
    made = Reproduction(
        downloads=(Download("kb.ttl", f"file://{secret}", "0" * 64),),
        argv=("gerbil-qa", "evaluate"),
        evaluator=None,
        revision=None,
        modified=False,
    )
    assert "--proto =http,https" in made.script and "--globoff" in made.script
    workdir = tmp_path / "reader"
    workdir.mkdir()
    done = _run(made.script, workdir)
    assert done.returncode != 0  # set -e: the refused download stops it
    assert not (workdir / "kb.ttl").exists(), done.stderr


def test_without_gerbil_qa_on_path_the_script_stops_first_saying_how_to_install_it(
    tmp_path: Path,
) -> None:
    """In an empty folder the script downloaded the files, then stopped at "gerbil-qa: command
    not found" (127), the install step only in the page's HTML; another version ran silently
    (explore61 F13). Now: no download, the page's checkout command, exit 1; a warning (not a
    stop) when ``gerbil-qa --version`` is not the recorded one."""
    from service.web.reproduce import Download, Reproduction

    made = Reproduction(
        downloads=(Download("kb.ttl", "http://127.0.0.1:9/kb.ttl", "0" * 64),),
        argv=("gerbil-qa", "evaluate"),
        evaluator="0.1.0+g0123456789ab",
        revision="0123456789abcdef0123456789abcdef01234567",
        modified=False,
        repository="https://git.example.org/gerbil-qa.git",
    )
    workdir = tmp_path / "reader"
    workdir.mkdir()
    bare = {**os.environ, "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        ["bash", "-c", made.script], cwd=workdir, env=bare, capture_output=True, text=True
    )
    assert done.returncode == 1 and not list(workdir.iterdir()), done.stderr
    assert done.stderr == (
        "gerbil-qa is not on PATH: this script runs the evaluator GERBIL QA for Python "
        f"0.1.0+g0123456789ab; install it from its repository: {made.checkout}\n"
    )
    done = _run(made.script, workdir)  # a fake gerbil-qa, which prints no version
    assert "warning: the gerbil-qa on PATH is not 0.1.0+g0123456789ab" in done.stderr
    assert "curl" in done.stderr  # it went on to the download (which fails here)
