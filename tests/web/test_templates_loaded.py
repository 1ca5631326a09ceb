"""A running server renders with the templates it started with (explore-13 note): templates were
read on first use, so a checkout updated under a running server gave a page the new template
and the old code, which did not give it the names it asks for (500 on `/leaderboards` until a
restart). Every template is compiled when the app is made."""

from __future__ import annotations

from pathlib import Path

from jinja2 import TemplateNotFound

from tests.web.conftest import start_server, stop_server


def test_pages_render_without_reading_a_template_after_start(tmp_path: Path) -> None:
    running = start_server(tmp_path / "store", demo=False)
    try:
        # the files are gone for this app: what it renders it compiled at start (the same
        # loader, which the templates are cached under, now finds none)
        def gone(_environment: object, name: str) -> None:
            raise TemplateNotFound(name)

        running.app.jinja_env.loader.get_source = gone
        for path in ("", "leaderboards", "experiments", "systems", "compare", "experiments/new"):
            response = running.get(path, headers={"Accept": "text/html"})
            assert response.status_code == 200, (path, response.status_code)
        missing = running.get("no-such-page", headers={"Accept": "text/html"})
        assert missing.status_code == 404 and "<html" in missing.text  # its error page too
    finally:
        stop_server(running)
