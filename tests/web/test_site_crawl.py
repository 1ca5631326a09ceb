"""A link checker over the real site, as a maintainer would run one: from the home page, follow
every same-site link (``a[href]``, ``link[href]``, GET forms' ``action``, ``img``/``script``
``src``) breadth first, with a browser's ``Accept`` header, and check what a reader meets:

* every page answers below 400 (each broken link is listed with the page it was on);
* every HTML page is well formed (no stray or unclosed element), has no duplicate ``id``, no
  ``<img>`` without ``alt``, no form control without a label (``<label for>``, a wrapping
  ``<label>``, ``aria-label`` or ``aria-labelledby``);
* every ``Link: <…>; rel="alternate"; type=…`` target answers 200 with that media type (up to
  ``ALTERNATES_PER_KIND`` of each kind of page and media type).

The store holds the demo experiment and, published beside it, one more recorded through the API.
Bounded: at most ``MAX_URLS`` URLs and ``QUERY_VARIANTS`` query strings per path.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urldefrag, urlencode, urljoin, urlsplit

import pytest
import requests

MAX_URLS = 400
QUERY_VARIANTS = 3
ALTERNATES_PER_KIND = 4
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
# elements that never have an end tag, and those whose end tag HTML lets a page leave out
VOID = frozenset(
    "area base br col embed hr img input link meta source track wbr".split()  # noqa: SIM905
)
OPTIONAL_END = frozenset(
    "p li dt dd tr td th thead tbody tfoot option optgroup colgroup caption".split()  # noqa: SIM905
)
UNLABELLED_TYPES = frozenset({"hidden", "submit", "button", "reset", "image"})
LINK_ALTERNATE = re.compile(r'<([^>]*)>\s*;([^,]*rel="?alternate"?[^,]*)')
LINK_TYPE = re.compile(r'type="?([^";,]+)"?')


@dataclass
class Page:
    """What one HTML page links to (a GET form twice: its action, and what submitting it
    unchanged asks for), its ids and what is wrong in it."""

    links: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)


@dataclass
class _Form:
    """A GET form being read: its action and the values a browser would submit as they are."""

    action: str
    fields: list[tuple[str, str]] = field(default_factory=list)
    select: str | None = None  # the name of the open <select>
    options: list[tuple[str, bool]] = field(default_factory=list)  # value, selected
    textarea: str | None = None
    text: str = ""

    def url(self) -> str:
        return f"{self.action.split('#')[0]}?{urlencode(self.fields)}"


class _PageReader(HTMLParser):
    """Collects links, ids, labels, controls and GET forms; checks that elements nest."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self.ids: dict[str, int] = {}
        self.label_for: set[str] = set()
        self.controls: list[tuple[str, dict[str, str], bool]] = []  # tag, attrs, in a label
        self.stack: list[str] = []
        self.form: _Form | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        self._collect(tag, values)
        if self.form is not None:
            self._form_field(self.form, tag, values)
        if tag not in VOID:
            self._close_implied(tag)
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_data(self, data: str) -> None:
        if self.form is not None:
            self.form.text += data

    def handle_endtag(self, tag: str) -> None:
        if self.form is not None:
            self._form_end(self.form, tag)
        if tag in VOID:
            return
        if tag not in self.stack:
            self.page.problems.append(f"stray </{tag}> at line {self.getpos()[0]}")
            return
        while self.stack:
            open_tag = self.stack.pop()
            if open_tag == tag:
                return
            if open_tag not in OPTIONAL_END:
                self.page.problems.append(
                    f"<{open_tag}> not closed before </{tag}> at line {self.getpos()[0]}"
                )

    def _close_implied(self, tag: str) -> None:
        # a new <li>, <tr>, <td>, <option>… ends the open one of its kind, as HTML says
        siblings = {"li": {"li"}, "tr": {"tr", "td", "th"}, "td": {"td", "th"}, "th": {"td", "th"}}
        siblings |= {"option": {"option"}, "dt": {"dt", "dd"}, "dd": {"dt", "dd"}}
        ends = siblings.get(tag, set())
        while self.stack and self.stack[-1] in ends:
            self.stack.pop()

    def _collect(self, tag: str, attrs: dict[str, str]) -> None:
        if "id" in attrs:
            self.ids[attrs["id"]] = self.ids.get(attrs["id"], 0) + 1
        if tag in ("a", "link") and attrs.get("href"):
            self.page.links.append(attrs["href"])
        elif tag in ("img", "script") and attrs.get("src"):
            self.page.links.append(attrs["src"])
        elif tag == "form" and attrs.get("method", "get").lower() == "get":
            self.page.links.append(attrs.get("action") or "")
            self.form = _Form(attrs.get("action") or "")
        if tag == "img" and "alt" not in attrs:
            self.page.problems.append(f"<img src={attrs.get('src')!r}> has no alt")
        if tag == "label" and attrs.get("for"):
            self.label_for.add(attrs["for"])
        if tag in ("select", "textarea") or (
            tag == "input" and attrs.get("type", "text").lower() not in UNLABELLED_TYPES
        ):
            self.controls.append((tag, attrs, "label" in self.stack))

    @staticmethod
    def _form_field(form: _Form, tag: str, attrs: dict[str, str]) -> None:
        """What a browser submits of a control left as the page set it."""
        name, kind = attrs.get("name"), attrs.get("type", "text").lower()
        if tag == "input" and name and kind not in ("submit", "button", "reset", "image"):
            if kind not in ("checkbox", "radio") or "checked" in attrs:
                form.fields.append((name, attrs.get("value", "on" if kind == "checkbox" else "")))
        elif tag == "select" and name:
            form.select, form.options = name, []
        elif tag == "option" and form.select is not None:
            _name_option(form)
            form.options.append((attrs.get("value", "\0"), "selected" in attrs))
            form.text = ""
        elif tag == "textarea" and name:
            form.textarea, form.text = name, ""

    def _form_end(self, form: _Form, tag: str) -> None:
        if tag in ("option", "select"):
            _name_option(form)
        if tag == "select" and form.select is not None:
            chosen = [v for v, selected in form.options if selected] or [
                v for v, _ in form.options[:1]
            ]
            form.fields += [(form.select, v) for v in chosen]
            form.select = None
        elif tag == "textarea" and form.textarea is not None:
            form.fields.append((form.textarea, form.text.removeprefix("\n")))
            form.textarea = None
        elif tag == "form":
            self.page.links.append(form.url())
            self.form = None

    def finish(self) -> Page:
        self.close()
        unclosed = [t for t in self.stack if t not in OPTIONAL_END | {"html", "body", "head"}]
        if unclosed:
            self.page.problems.append(f"never closed: {', '.join(unclosed)}")
        for ident, count in self.ids.items():
            if count > 1:
                self.page.problems.append(f"id {ident!r} used {count} times")
        for tag, attrs, wrapped in self.controls:
            named = attrs.get("aria-label") or attrs.get("aria-labelledby")
            if not (wrapped or named or attrs.get("id", "\0") in self.label_for):
                self.page.problems.append(f"<{tag} name={attrs.get('name')!r}> has no label")
        self.page.ids = set(self.ids)
        return self.page


def _name_option(form: _Form) -> None:
    """An option without a value submits its text."""
    if form.options and form.options[-1][0] == "\0":
        form.options[-1] = (form.text.strip(), form.options[-1][1])


def read_page(html: str) -> Page:
    reader = _PageReader()
    reader.feed(html)
    return reader.finish()


def alternates(response: requests.Response) -> list[tuple[str, str]]:
    """``(url, media type)`` of each ``rel="alternate"`` in the ``Link`` header."""
    found = []
    for target, params in LINK_ALTERNATE.findall(response.headers.get("Link", "")):
        kind = LINK_TYPE.search(params)
        if kind:
            found.append((urljoin(response.url, target), kind.group(1).strip()))
    return found


@dataclass
class Crawl:
    """The outcome of one crawl: pages seen, broken links, page problems, alternates."""

    base: str
    seen: dict[str, int] = field(default_factory=dict)  # url → status
    broken: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    alternates: dict[str, str] = field(default_factory=dict)  # url → media type
    found_on: dict[str, str] = field(default_factory=dict)
    variants: dict[str, int] = field(default_factory=dict)
    ids: dict[str, set[str]] = field(default_factory=dict)  # HTML page → its ids
    fragments: set[tuple[str, str, str]] = field(default_factory=set)  # page, #id, linked from

    def same_site(self, url: str) -> bool:
        return urlsplit(url).netloc == urlsplit(self.base).netloc

    def admit(self, url: str, page: str) -> bool:
        """Queue ``url`` once, a few query strings per path."""
        if url in self.found_on or not self.same_site(url):
            return False
        parts = urlsplit(url)
        if parts.query:
            key = parts.path
            if self.variants.get(key, 0) >= QUERY_VARIANTS:
                return False
            self.variants[key] = self.variants.get(key, 0) + 1
        self.found_on[url] = page
        return True


def crawl(base: str, *, limit: int = MAX_URLS) -> Crawl:
    state = Crawl(base)
    queue = deque([base])
    state.found_on[base] = "(start)"
    session = requests.Session()
    session.headers["Accept"] = BROWSER_ACCEPT
    while queue and len(state.seen) < limit:
        url = queue.popleft()
        response = session.get(url, timeout=60)
        state.seen[url] = response.status_code
        if response.status_code >= 400:
            state.broken.append(
                f"{url} → {response.status_code} (linked from {state.found_on[url]})"
            )
            continue
        for target, media_type in alternates(response):
            state.alternates.setdefault(target, media_type)
        if response.headers.get("Content-Type", "").startswith("text/html"):
            page = read_page(response.text)
            state.ids[url] = page.ids
            state.problems += [f"{url}: {p}" for p in page.problems]
            for link in page.links:
                absolute, fragment = urldefrag(urljoin(response.url, link))
                if fragment and state.same_site(absolute):
                    state.fragments.add((absolute, fragment, url))
                if state.admit(absolute, url):
                    queue.append(absolute)
    return state


def missing_anchors(state: Crawl) -> list[str]:
    """``page#id`` links whose page was read and has no such id."""
    return sorted(
        f"{target}#{fragment} (linked from {page})"
        for target, fragment, page in state.fragments
        if target in state.ids and fragment not in state.ids[target]
    )


def alternate_sample(state: Crawl) -> list[tuple[str, str]]:
    """Up to :data:`ALTERNATES_PER_KIND` alternates of each kind (the path with its numbers
    blanked, and the media type), spread over the kind's: whether an alternate answers is the
    route's and the format's doing; what each document says is read by the linked-data crawl
    (test_linked_data_crawl.py). 1,129 alternates were 70 of each question document's format."""
    kinds: dict[tuple[str, str], list[str]] = {}
    for url, media_type in sorted(state.alternates.items()):
        kinds.setdefault((re.sub(r"[0-9]+", "N", urlsplit(url).path), media_type), []).append(url)
    sample = []
    for (_, media_type), urls in kinds.items():
        step = max(1, -(-len(urls) // ALTERNATES_PER_KIND))  # ceil: at most the bound
        sample += [(url, media_type) for url in urls[::step]]
    return sample


def check_alternates(state: Crawl) -> list[str]:
    """Each alternate sampled answers 200 with the media type the Link header promised."""
    wrong = []
    for url, media_type in alternate_sample(state):
        response = requests.get(url, timeout=60)
        given = response.headers.get("Content-Type", "").split(";")[0].strip()
        if response.status_code != 200 or given != media_type:
            wrong.append(f"{url}: {response.status_code} {given!r}, Link said {media_type!r}")
    return wrong


@pytest.fixture(scope="module")
def crawled(server) -> Crawl:
    ticket = server.submit_demo(systems=("strong", "baseline"))
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    state = crawl(server.url)
    assert f"{server.url}experiment/{ticket['id']}" in state.seen  # the crawl reached it
    return state


def test_every_link_answers(crawled: Crawl) -> None:
    assert len(crawled.seen) > 50, sorted(crawled.seen)
    assert crawled.broken == []


def test_every_page_is_well_formed_and_labelled(crawled: Crawl) -> None:
    assert crawled.problems == []


def test_every_anchor_is_on_its_page(crawled: Crawl) -> None:
    assert crawled.fragments
    assert missing_anchors(crawled) == []


def test_every_alternate_answers_with_its_media_type(crawled: Crawl) -> None:
    assert len(crawled.alternates) > 20
    sample = alternate_sample(crawled)
    assert len({media_type for _, media_type in sample}) >= 8 and len(sample) > 200
    assert check_alternates(crawled) == []


def test_the_page_reader_finds_what_it_looks_for() -> None:
    page = read_page(
        '<div id="a"><p id="a"><img src="x.png"><input name="q"></p>'
        '<label>Find <select name="s"></select></label><a href="/y">y</a></span>'
    )
    assert page.links == ["x.png", "/y"]
    assert "id 'a' used 2 times" in page.problems
    assert "<img src='x.png'> has no alt" in page.problems
    assert "<input name='q'> has no label" in page.problems
    assert not any("name='s'" in p for p in page.problems)  # wrapped in its label
    assert any(p.startswith("stray </span>") for p in page.problems)
    assert "never closed: div" in page.problems
