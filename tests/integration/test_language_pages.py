"""Task pages show the text a task asked, whatever the case or form of its tag (explore53 F4):
the store keeps QALD-9's ``pt_BR`` texts as ``@pt-br``, and the page looked ``pt`` (the task's
ISO 639 language) or the tag as written up in it, so a ``pt-BR`` task showed the English text."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.cli import main
from tests.conftest import QALD

QALD9_TEST = QALD / "9" / "data" / "qald-9-test-multilingual.json"
PT_BR = "Qual o fuso horário da cidade de Salt Lake?"  # question 99 (its pt text is another)
PT = "Qual é o fuso horário da Salt Lake City?"


@pytest.fixture
def recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[tuple[Any, list]]:
    """QALD-9 test scored as its own answers in pt_BR, and pooled over en and pt_BR, published;
    the app on that store."""
    from service.web import close_app, create_app

    store = tmp_path / "store"
    ids = []
    for lang in ("pt_BR", "en,pt_BR"):
        argv = ["evaluate", "--dataset", str(QALD9_TEST), "--answers", str(QALD9_TEST)]
        argv += ["--types", "QA", "--lang", lang, "--store", str(store), "--output", "json"]
        assert main(argv) == 0
        ids.append(json.loads(capsys.readouterr().out)["experiment"]["id"])
        assert main(["publish", "--store", str(store), ids[-1]]) == 0
        capsys.readouterr()
    app = create_app({"store": store, "sparql_workers": 1, "demo": False})
    try:
        yield app, ids
    finally:
        close_app(app)


def _page(app: Any, path: str) -> str:
    got = app.test_client().get(path, headers={"Accept": "text/html"})
    assert got.status_code == 200, (path, got.status_code)
    return html.unescape(got.get_data(as_text=True))


def test_a_regional_tasks_page_shows_its_own_text(recorded: tuple[Any, list]) -> None:
    app, (alone, _pooled) = recorded
    page = _page(app, f"/experiment/{alone}/task/1")
    assert f'lang="pt-BR" dir="auto">{PT_BR}</a>' in page
    assert PT not in page and "What is the time zone of Salt Lake City?" not in page
    one = _page(app, f"/experiment/{alone}/task/1/question/99")
    assert f'lang="pt-BR" dir="auto">{PT_BR}</a>' in one


def test_a_pooled_tasks_page_shows_each_languages_text(recorded: tuple[Any, list]) -> None:
    app, (_alone, pooled) = recorded
    english = _page(app, f"/experiment/{pooled}/task/1/question/99@en")
    assert 'lang="en" dir="auto">What is the time zone of Salt Lake City?</a>' in english
    brazilian = _page(app, f"/experiment/{pooled}/task/1/question/99@pt-BR")
    assert f'lang="pt-BR" dir="auto">{PT_BR}</a>' in brazilian


def test_a_pooled_tasks_rows_name_the_full_tag(recorded: tuple[Any, list]) -> None:
    """A pooled task's row named its question "99 (pt)": gqa:language's ISO 639 code drops the
    region the result was asked in (its URI's @pt-BR)."""
    app, (_alone, pooled) = recorded
    rows = "".join(_page(app, f"/experiment/{pooled}/task/1?page={n}") for n in range(1, 4))
    assert ">99 (pt-BR)</a>" in rows and ">99 (en)</a>" in rows
    assert ">99 (pt)</a>" not in rows


def test_a_question_without_the_tasks_text_says_so_not_another_languages(
    recorded: tuple[Any, list],
) -> None:
    """A question with no pt-BR text (98: de, ru, pt, hi_IN…) showed the first text stored,
    German, marked ``lang="de"`` on a pt-BR page, and "Given: none" (explore56 F1, F7): a
    placeholder now, and why it was not scored."""
    app, (alone, _pooled) = recorded
    for path in (f"/experiment/{alone}/task/1/question/98", f"/experiment/{alone}/task/1"):
        page = _page(app, path)
        assert "Wer hat Caesar getötet?" not in page and 'lang="de"' not in page, path
    one = _page(app, f"/experiment/{alone}/task/1/question/98")
    assert 'class="muted no-task-text">no pt-BR text</a>' in one
    assert "not scored: no pt-BR text" in one
    assert "Given:" not in one
    scored = _page(app, f"/experiment/{alone}/task/1/question/99")
    assert "not scored" not in scored and PT_BR in scored
