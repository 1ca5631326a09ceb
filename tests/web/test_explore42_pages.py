"""explore42's findings on the owner's and the reader's pages in a browser, against a real
server: the reveal page's ``?token=`` (explore42 3), the links of a withheld run's files
(explore42 2), a revealed dataset's description (explore42 5), the links between systems and
experiments (explore42 6), Back after a form's post (explore42 4), a wrong ``?token=`` and a
repeated filter (explore42 8, 9), the refused re-scoring's sentence (explore42 7)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest
import requests

from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_explore37_versions import _bearer, _publish, _submit, _version

PORT = 18931


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("explore42"), port=PORT, demo=False)
    yield running
    stop_server(running)


def _words(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_the_reveal_page_takes_its_owner_link(site: Server) -> None:
    """GET /experiment/ID/reveal?token=TOKEN stayed at that URL, set no cookie and said only
    its organiser could reveal it (explore42 3): as the re-score page, the token goes into the
    cookie and the browser to the URL without it, where the form is."""
    organiser = _submit(site, _version("reveal42", None))
    _publish(site, organiser)
    browser = requests.Session()
    url = f"{site.url}experiment/{organiser['id']}/reveal"
    moved = browser.get(f"{url}?token={organiser['token']}", allow_redirects=False, timeout=30)
    assert moved.status_code == 303, moved.text
    assert moved.headers["Location"].endswith(f"/experiment/{organiser['id']}/reveal")
    assert moved.headers["Cache-Control"] == "no-store"
    cookies = {c.value for c in browser.cookies if c.name == f"gqa_owner_{organiser['id']}"}
    assert cookies == {organiser["token"]}
    page = browser.get(url, timeout=30)
    assert page.status_code == 200 and 'id="reveal-form"' in page.text, page.text


def _file_links(page: str) -> dict[str, str]:
    """The page's "File (ROLE)" rows: role -> the row's HTML."""
    return dict(re.findall(r"<dt[^>]*>File \(([^)]+)\)</dt><dd>(.*?)</dd>", page))


def test_a_withheld_runs_files_are_marked_not_linked_until_the_reveal(site: Server) -> None:
    """The "File (dataset)" and "File (answers)" links of a run on a withheld test set led to
    the 403 "the files … are withheld" page, its owner's too (explore42 2): marked withheld,
    no link, while the file route refuses them; linked again after the reveal."""
    organiser = _submit(site, _version("files42", None))
    name = _publish(site, organiser)
    owner = requests.Session()
    owner.cookies.set(f"gqa_owner_{organiser['id']}", organiser["token"])
    page = owner.get(f"{site.url}experiment/{organiser['id']}", timeout=30).text
    rows = _file_links(page)
    assert {"dataset", "answers"} <= set(rows), rows
    for role in ("dataset", "answers"):
        assert "file-withheld" in rows[role] and "/file/" not in rows[role], rows[role]
        assert "the gold of <a href=" in rows[role] and f">{name}</a> is revealed" in rows[role]
        sha = re.search(r"sha256 ([0-9a-f]{64})", rows[role])
        assert sha
        refused = owner.get(f"{site.url}experiment/{organiser['id']}/file/{sha.group(1)}")
        assert refused.status_code == 403  # what the mark says
    assert site.post(f"api/datasets/{name}/reveal", headers=_bearer(organiser)).status_code == 200
    after = _file_links(site.get(f"experiment/{organiser['id']}").text)
    for role in ("dataset", "answers"):
        link = re.search(r'href="([^"]+/file/[0-9a-f]{64})"', after[role])
        assert link and "file-withheld" not in after[role], after[role]
        assert requests.get(link.group(1), timeout=30).status_code == 200


def _described(page: str, local: str) -> str:
    """The Description table's value of the property ``local`` (its local name)."""
    row = re.search(rf">{local}</a></th>\s*<td>(.*?)</td>", page, re.S)
    assert row, page
    return _words(row.group(1))


def test_a_revealed_datasets_description_says_withheld_until_the_reveal(site: Server) -> None:
    """A revealed dataset's Description table listed goldWithheld "true" beside goldRevealed,
    under the notice that its gold is public (explore42 5): it says until when."""
    organiser = _submit(site, _version("said42", None))
    name = _publish(site, organiser)
    assert _described(site.get(f"dataset/{name}").text, "goldWithheld") == "true"
    done = site.post(f"api/datasets/{name}/reveal", headers=_bearer(organiser))
    assert done.status_code == 200, done.text
    day = done.json()["goldRevealedAt"][:10]
    page = site.get(f"dataset/{name}").text
    said = _described(page, "goldWithheld")
    assert said == f"true until {day}: withheld, then revealed", said
    assert _described(page, "goldRevealed").startswith(day)


def test_systems_and_their_experiments_link_each_other(site: Server) -> None:
    """The system page had no link to /experiments?system=NAME, and the experiment and task
    pages none to the system's page: a reader typed the URL (explore42 6)."""
    body = _version("systems42", None, withheld=False)
    body["systems"] = [{**body["systems"][0], "name": "linked-42"}]
    run = _submit(site, body)
    _publish(site, run)
    system = f"{site.url}system/linked-42"
    listing = "/experiments?system=linked-42"
    page = site.get(f"experiment/{run['id']}").text
    found = re.search(r'<dd id="systems">(.*?)</dd>', page)
    assert found, page
    assert f'href="{system}" class="system-link">linked-42</a>' in found.group(1)
    assert f'href="{listing}"' in found.group(1)
    task = re.search(r'href="([^"]+/task/\d+)"', page)
    assert task
    task_page = requests.get(task.group(1), timeout=30).text
    assert f'<a href="{system}" id="task-system">linked-42</a>' in task_page
    assert f'href="{listing}" id="task-system-experiments"' in task_page
    system_page = site.get("system/linked-42").text
    link = re.search(r'<p id="system-experiments">.*?href="([^"]+)"', system_page)
    assert link and link.group(1) == listing, system_page
    listed = site.get(listing.lstrip("/")).text
    assert f"experiment/{run['id']}" in listed


def _reloads_on_back(page: str, site: Server) -> bool:
    """Whether ``page`` loads the script that reads a page restored by Back again."""
    script = re.search(r'<script src="([^"]+)" id="reload-on-back"></script>', page)
    if script is None:
        return False
    code = site.get(script.group(1).lstrip("/")).text
    return "pageshow" in code and "event.persisted" in code and "reload()" in code


def test_owner_pages_with_a_form_are_read_again_after_back(site: Server) -> None:
    """Back after publishing or revealing showed the page as it was, its form offered again
    (Chromium's back/forward cache, despite no-store: explore42 4): the owner's pages with a
    form read a restored page again; a reader's page without a form has no script."""
    run = _submit(site, _version("back42", None))
    owner = requests.Session()
    owner.cookies.set(f"gqa_owner_{run['id']}", run["token"])
    private = owner.get(f"{site.url}experiment/{run['id']}", timeout=30).text
    assert f'action="/experiment/{run["id"]}/publish"' in private, private
    assert _reloads_on_back(private, site)
    name = _publish(site, run)
    for path in (f"experiment/{run['id']}/reveal", f"experiment/{run['id']}/withdraw"):
        page = owner.get(site.url + path, timeout=30).text
        assert 'method="post"' in page and _reloads_on_back(page, site), path
    # anyone else: the same pages, no form, no script
    assert not _reloads_on_back(site.get(f"experiment/{run['id']}/reveal").text, site)
    assert not _reloads_on_back(site.get(f"experiment/{run['id']}").text, site)
    assert site.post(f"api/datasets/{name}/reveal", headers=_bearer(run)).status_code == 200
    page = owner.get(f"{site.url}experiment/{run['id']}/rescore", timeout=30).text
    assert 'id="rescore-form"' in page and _reloads_on_back(page, site)


def test_a_wrong_owner_link_is_said_on_the_page(site: Server) -> None:
    """A wrong ``?token=`` on a published run's page or its re-score page was a 303 to the
    page, which said nothing of it (explore42 8): the page says the link's token is not this
    experiment's, sets no cookie, and the page without it says nothing."""
    run = _submit(site, _version("wrong42", None, withheld=False))
    _publish(site, run)
    # and the owner links made of a task's or a question's URL (it was dropped there too)
    task = f"experiment/{run['id']}/task/1"
    for path in (
        f"experiment/{run['id']}",
        f"experiment/{run['id']}/rescore",
        task,
        task + "/question/1",
    ):
        browser = requests.Session()
        moved = browser.get(f"{site.url}{path}?token=wrong", allow_redirects=False, timeout=30)
        assert moved.status_code == 303, moved.text
        assert moved.headers["Location"].endswith(f"/{path}?tokenRefused=1")
        assert not [c for c in browser.cookies if c.name.startswith("gqa_owner_")]
        page = browser.get(site.url + moved.headers["Location"].lstrip("/"), timeout=30).text
        said = re.search(r'<p class="notice" id="token-refused"[^>]*>(.*?)</p>', page)
        assert said and "is not the owner token of this experiment" in _words(said.group(1))
        # the page without it (cached apart) says nothing of a token
        assert 'id="token-refused"' not in site.get(path).text
    # the owner's link: no such word, the cookie set
    owner = requests.Session()
    moved = owner.get(f"{site.url}experiment/{run['id']}?token={run['token']}", timeout=30)
    assert moved.url.endswith(f"/experiment/{run['id']}") and 'id="token-refused"' not in moved.text


@pytest.mark.parametrize("path", ["experiments", "experiments?format=csv", "api/experiments"])
def test_a_repeated_filter_is_refused_naming_it(site: Server, path: str) -> None:
    """``/experiments?system=a&system=b`` listed a's experiments and said nothing of b
    (explore42 9): the page, its CSV and the API refuse it with 400 naming the parameter; a
    repeated same name or a blank one is one name; ``page`` and ``size`` alike."""
    joiner = "&" if "?" in path else "?"
    refused = site.get(f"{path}{joiner}system=team-a&system=team-b")
    assert refused.status_code == 400, refused.text
    assert "system is given 2 times ('team-a', 'team-b')" in html.unescape(refused.text)
    for query in ("system=team-a&system=team-a", "system=&system=team-a"):
        assert site.get(f"{path}{joiner}{query}").status_code == 200, query
    # a page or size given twice: the first was used without a word (explore64 F6)
    for listing in (path, "api/leaderboards"):
        joined = "&" if "?" in listing else "?"
        for name in ("size", "page"):
            refused = site.get(f"{listing}{joined}{name}=1&{name}=zzz")
            assert refused.status_code == 400, (listing, refused.text)
            assert f"{name} is given 2 times ('1', 'zzz')" in html.unescape(refused.text)
            assert site.get(f"{listing}{joined}{name}=1&{name}=1").status_code == 200


@pytest.mark.browser
def test_back_after_publishing_shows_the_page_as_it_is_now(site: Server, browser) -> None:
    """In Chromium, Back after the publish form's post showed the private page with its
    Publish form (the back/forward cache, despite no-store: explore42 4): the restored page
    is read again, and says it is published."""
    from selenium.webdriver.common.by import By

    from tests.web.test_browser import wait_until

    run = _submit(site, _version("bfcache42", None, withheld=False))
    publish = f'form[action$="/experiment/{run["id"]}/publish"]'
    browser.get(f"{site.url}experiment/{run['id']}?token={run['token']}")
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, publish))
    browser.find_element(By.ID, "publish-confirm").click()
    browser.find_element(By.ID, "publish").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "published"))
    browser.back()
    wait_until(browser, lambda d: "?published" not in d.current_url)
    wait_until(browser, lambda d: d.find_elements(By.ID, "withdraw-link"))
    assert not browser.find_elements(By.CSS_SELECTOR, publish)
