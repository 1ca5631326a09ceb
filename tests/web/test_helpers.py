"""The web layer's small pure parts: the SPARQL lexer, Accept parsing, format URLs, settings,
citations, paper IRIs, the document cache (no server needed)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from service.errors import BadRequest
from service.graph.experiments import paper_iri
from service.web import conneg
from service.web.cache import DocumentCache
from service.web.citation import citation_for, experiment_subject
from service.web.config import load_config
from service.web.sparql_guard import inspect_query


@pytest.mark.parametrize(
    ("query", "form", "service", "volatile"),
    [
        ('SELECT * { ?s ?p "SERVICE" }', "SELECT", False, False),
        ("select * {service<http://x/>{?s ?p ?o}}", "SELECT", True, False),
        ("ASK { ?s <http://x/service> ?o } # SERVICE in a comment", "ASK", False, False),
        (
            "PREFIX ex: <x:> SELECT ?service { ?service ex:service '''SERVICE\n''' }",
            "SELECT",
            False,
            False,
        ),
        (
            "PREFIX service: <x:> CONSTRUCT { ?s service:p ?o } WHERE { ?s ?p ?o }",
            "CONSTRUCT",
            False,
            False,
        ),
        (
            "SELECT * { ?s ?p ?o FILTER(?o < 3 && ?o > 1) SERVICE SILENT <x:y> {} }",
            "SELECT",
            True,
            False,
        ),
        ("DESCRIBE <http://x/>", "DESCRIBE", False, False),
        ("SELECT (RAND() AS ?r) {}", "SELECT", False, True),
        ("SELECT (now() AS ?t) {}", "SELECT", False, True),
        ('SELECT ?now { ?now ?p "RAND" }', "SELECT", False, False),
        ("PREFIX : <x:> SELECT * { :a :b :c }", "SELECT", False, False),
    ],
)
def test_inspect_query(query: str, form: str, service: bool, volatile: bool) -> None:
    facts = inspect_query(query)
    assert (facts.form, facts.uses_service, facts.volatile) == (form, service, volatile)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        # Oxigraph reads \u escapes only inside IRIs and strings: elsewhere a syntax error
        (r"SELECT * { \u0053ERVICE <http://x/> {} }", "query syntax error"),
        ("SELECT * { ?s ex:p ?o }", "undeclared prefix"),
        ("SELECT * WHERE " + "{" * 65 + "}" * 65, "more than 64 levels deep"),
        ("ASK { " + " " * 70_000 + "}", "limit of 65,536 bytes"),
    ],
)
def test_inspect_query_refuses(query: str, message: str) -> None:
    with pytest.raises(BadRequest, match=message):
        inspect_query(query)


OFFERS = conneg.offers(quads=True, csv=True)


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, "html"),
        ("", "html"),
        ("*/*", "html"),
        ("text/turtle;q=0.9, text/*;q=1", "html"),
        ("application/n-triples;q=0.2, application/rdf+xml;q=0.3", "rdfxml"),
        ("text/turtle;q=bad, application/ld+json;q=0.1", "jsonld"),
        ("text/turtle;q=0", None),
        ("image/*", None),
        ("application/trig;q=0.5, application/n-quads;q=0.5", "nquads"),
        # a range matches a representation's own type, not its aliases: application/* got
        # text/html by HTML's alias application/xhtml+xml (and text/* Turtle by text/n3 …)
        ("application/*", "jsonld"),
        ("application/xhtml+xml", "html"),  # named, an alias still counts
        ("text/plain", "ntriples"),
        ("text/*;q=0.5, application/*;q=0.4", "html"),
    ],
)
def test_choose_from_accept(accept: str | None, expected: str | None) -> None:
    chosen = conneg.choose_from_accept(accept, OFFERS, default=conneg.HTML)
    assert (chosen.key if chosen else None) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("202401010001.ttl", ("202401010001", "ttl")),
        ("202401010001.TTL", ("202401010001", "ttl")),
        ("202401010001", ("202401010001", None)),
        ("qald-9.train", ("qald-9.train", None)),
        ("x.jsonld", ("x", "jsonld")),
        (".ttl", (".ttl", None)),
    ],
)
def test_split_extension(name: str, expected: tuple[str, str | None]) -> None:
    assert conneg.split_extension(name) == expected


def test_config_mapping_then_environment() -> None:
    config = load_config(
        {"base": "http://h/x", "sparql_timeout": "2.5", "demo": "yes", "other": 1},
        environ={"GERBIL_QA_SPARQL_TIMEOUT": "4", "GERBIL_QA_PORT": "9000"},
    )
    assert config.base == "http://h/x/"  # always ends with a slash
    assert config.sparql_timeout == 4.0  # the environment wins
    assert config.port == 9000 and config.demo is True
    assert config.extra == {"other": 1}
    with pytest.raises(BadRequest, match="sparql_workers"):
        load_config({"sparql_workers": "many"}, environ={})


def test_an_https_base_marks_the_owner_cookie_secure_unless_told_otherwise() -> None:
    # behind a TLS proxy (the replicas' README) the owner cookie went out without Secure
    assert load_config({"base": "https://qa.example.org/"}, environ={}).cookies_secure
    assert not load_config({"base": "http://qa.example.org/"}, environ={}).cookies_secure
    off = {"GERBIL_QA_SECURE_COOKIES": "false"}
    assert not load_config({"base": "https://qa.example.org/"}, environ=off).cookies_secure
    on = {"GERBIL_QA_SECURE_COOKIES": "true"}
    assert load_config({"base": "http://qa.example.org/"}, environ=on).cookies_secure
    # `serve --base` replaces the base after the settings were read
    replaced = dataclasses.replace(load_config({}, environ={}), base="https://qa.example.org/")
    assert replaced.cookies_secure


def test_citation_is_fixed_by_id_and_uri() -> None:
    c = citation_for(
        "202403150007",
        "https://w3id.org/gerbil/qa/experiment/202403150007",
        base="https://w3id.org/gerbil/qa/",
    )
    assert c.bibtex.startswith("@misc{gerbilqa-202403150007,")
    assert "year = {2024}" in c.bibtex and "month = mar" in c.bibtex
    assert "url = {https://w3id.org/gerbil/qa/experiment/202403150007}" in c.bibtex
    assert c.text == (
        "GERBIL QA (2024). GERBIL QA experiment 202403150007. w3id.org. "
        "https://w3id.org/gerbil/qa/experiment/202403150007"
    )


@pytest.mark.parametrize(
    ("systems", "dataset", "expected"),
    [
        (["FRANZ"], "text2sparql-2025-ck25", "FRANZ on text2sparql-2025-ck25"),
        (["A", "B"], "d", "A and B on d"),
        (["A", "B", "C", "D"], "d", "A, B, C and D on d"),
        (["A", "B", "C", "D", "E"], "d", "A, B, C and 2 other systems on d"),
        (["A  b"], None, "A b"),
        ([], "d", "d"),
        ([], None, None),
    ],
)
def test_experiment_subject(systems: list[str], dataset: str | None, expected: str | None) -> None:
    assert experiment_subject(systems, dataset) == expected


def test_a_citations_subject_is_in_its_title_escaped_for_latex() -> None:
    uri = "https://w3id.org/gerbil/qa/experiment/202403150007"
    c = citation_for(
        "202403150007", uri, base="https://w3id.org/gerbil/qa/", subject="Q&A_1 on {x} 50%"
    )
    title = "  title = {{GERBIL QA experiment 202403150007: Q\\&A\\_1 on \\textbraceleft{}x"
    title += "\\textbraceright{} 50\\%}},\n"
    assert title in c.bibtex
    assert c.text.startswith("GERBIL QA (2024). GERBIL QA experiment 202403150007: Q&A_1 on {x}")
    assert c.bibtex.count("{") == c.bibtex.count("}")


def test_citation_carries_the_doi_of_each_attached_paper() -> None:
    uri = "https://w3id.org/gerbil/qa/experiment/202403150007"
    plain = citation_for("202403150007", uri, base="https://w3id.org/gerbil/qa/")
    c = citation_for(
        "202403150007",
        uri,
        base="https://w3id.org/gerbil/qa/",
        papers=["https://doi.org/10.1000/a%23b", "https://example.org/paper.pdf"],
    )
    assert c.bibtex.startswith(plain.bibtex)  # the experiment's own entry does not change
    assert c.dois == ("10.1000/a#b",)
    assert "doi = {10.1000/a#b}" in c.bibtex
    assert "url = {https://example.org/paper.pdf}" in c.bibtex
    assert c.bibtex.count("@misc{") == 3
    # each paper's entry has a title styles print (none: an empty reference) that says what is
    # known of it, not its DOI as if it were its title (explore45 16)
    assert "title = {{The paper with DOI 10.1000/a\\#b}}" in c.bibtex
    assert "title = {{The paper at https://example.org/paper.pdf}}" in c.bibtex
    # a paper known by its URL is named too (it was left out)
    assert c.text.endswith("Cited by doi:10.1000/a#b, https://example.org/paper.pdf")
    # balanced braces: every entry closes
    assert c.bibtex.count("{") == c.bibtex.count("}")
    # a DOI holding balanced braces is printed as it is (dropping them named another DOI)
    braces = citation_for("202403150007", uri, base="https://w3id.org/gerbil/qa/",
                          papers=["https://doi.org/10.1000/%7Bbraces%7Dx"])  # fmt: skip
    assert "doi = {10.1000/{braces}x}" in braces.bibtex, braces.bibtex
    assert braces.bibtex.count("{") == braces.bibtex.count("}")
    # unbalanced, or with a backslash: percent-encoded as the DOI's URL has it, the same DOI
    # (dropped, 10.1000/a}b{c became 10.1000/abc: explore-11 6)
    odd_papers = ["https://doi.org/10.1000/a%7Db%7Bc", "https://doi.org/10.1/x%5Cy"]
    odd = citation_for("202403150007", uri, base="https://w3id.org/gerbil/qa/", papers=odd_papers)
    assert "doi = {10.1000/a%7Db%7Bc}" in odd.bibtex and "doi = {10.1/x%5Cy}" in odd.bibtex
    # its title prints the DOI as it is, escaped (explore55 F10)
    said = "10.1000/a\\textbraceright{}b\\textbraceleft{}c"
    assert f"title = {{{{The paper with DOI {said}}}}}" in odd.bibtex, odd.bibtex
    assert odd.bibtex.count("{") == odd.bibtex.count("}")


@pytest.mark.parametrize(
    ("reference", "iri"),
    [
        ("10.3233/SW-180312", "https://doi.org/10.3233/SW-180312"),
        ("doi:10.3233/SW-180312", "https://doi.org/10.3233/SW-180312"),
        ("https://doi.org/10.1000/xyz", "https://doi.org/10.1000/xyz"),
        ("https://dx.doi.org/10.1000/a%23b", "https://doi.org/10.1000/a%23b"),
        ("10.1000/a#b?c", "https://doi.org/10.1000/a%23b%3Fc"),
        ("https://example.org/paper.pdf", "https://example.org/paper.pdf"),
    ],
)
def test_paper_iri(reference: str, iri: str) -> None:
    assert paper_iri(reference) == iri


@pytest.mark.parametrize("reference", ["", " ", "11.1/x", "ftp://x/", "https://x/<a>", "nope"])
def test_paper_iri_refuses(reference: str) -> None:
    with pytest.raises(BadRequest):
        paper_iri(reference)


def test_document_cache_is_bounded() -> None:
    cache = DocumentCache(max_entries=2, max_bytes=800)
    for n in range(3):
        cache.put(("k", n), cache.rendered(b"x" * 10, "text/plain"))
    assert cache.get(("k", 0)) is None and cache.get(("k", 2)) is not None
    cache.put(("big",), cache.rendered(b"x" * 200, "text/plain"))  # > max_bytes / 8: not kept
    assert cache.get(("big",)) is None
    off = DocumentCache(max_entries=0)
    off.put(("k",), off.rendered(b"x", "text/plain"))
    assert off.get(("k",)) is None
    first = cache.rendered(b"same", "a")
    assert first.etag == cache.rendered(b"same", "b").etag != cache.rendered(b"other", "a").etag


def test_a_papers_bibtex_key_stays_when_another_is_attached() -> None:
    """Keys were numbered over the sorted paper IRIs: attaching an arXiv link made
    ``…-paper-1`` name it instead of the journal paper a bibliography had cited by that key."""
    uri = "https://w3id.org/gerbil/qa/experiment/202403150007"
    journal, preprint = "https://doi.org/10.3233/SW-180312", "https://arxiv.org/abs/2101.00001"

    def keys(*papers: str) -> dict[str, str]:
        bib = citation_for("202403150007", uri, base="https://w3id.org/gerbil/qa/", papers=papers)
        found = re.findall(
            r"@misc\{(gerbilqa-202403150007-paper-\w+),\n  url = \{([^}]+)\}", bib.bibtex
        )
        return {url: key for key, url in found}

    before = keys(journal)
    after = keys(journal, preprint)
    assert after[journal] == before[journal] and len(set(after.values())) == 2


def _bibtex_entries(text: str) -> list[tuple[str, str, dict[str, str]]]:
    """A strict reading of a .bib (no BibTeX parser is installed): ``@type{key,`` then
    ``name = {value}`` (braces balanced), a number or a month macro, comma-separated, then
    ``}``; anything else between entries, a field twice or an unclosed brace fails."""
    entries = []
    at = 0
    head = re.compile(r"\s*@(\w+)\{([^\s,{}]+),")
    field = re.compile(r"\s*(\w+)\s*=\s*")
    months = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
    while text[at:].strip():
        found = head.match(text, at)
        assert found, f"not an entry at {text[at : at + 40]!r}"
        kind, key, at = found[1].lower(), found[2], found.end()
        fields: dict[str, str] = {}
        while True:
            name = field.match(text, at)
            assert name, f"not a field at {text[at : at + 40]!r}"
            at = name.end()
            if text[at] == "{":
                depth, start = 0, at
                for at in range(start, len(text)):
                    depth += {"{": 1, "}": -1}.get(text[at], 0)
                    if depth == 0:
                        break
                assert depth == 0, f"unclosed value in {key}"
                value, at = text[start + 1 : at], at + 1
            else:
                bare = re.compile(r"\d+|\w+").match(text, at)
                assert bare and (bare[0].isdigit() or bare[0] in months), text[at : at + 40]
                value, at = bare[0], bare.end()
            assert name[1].lower() not in fields, f"{key}: {name[1]} twice"
            fields[name[1].lower()] = value
            rest = re.compile(r"\s*(,?)\s*(\}?)").match(text, at)
            assert rest is not None
            at = rest.end()
            if rest[2]:
                break
            assert rest[1], f"{key}: no comma after {name[1]}"
        entries.append((kind, key, fields))
    return entries


def test_an_attached_papers_entry_is_valid_bibtex_with_its_doi_and_a_title_that_says_so() -> None:
    """An attached paper known only by its DOI had the DOI as its title
    (``title = {{doi:10.3233/SW-180312}}``), as if it were the paper's: its title says it is the
    paper with that DOI, its ``doi`` field gives the DOI, and the .bib reads strictly."""
    uri = "https://w3id.org/gerbil/qa/experiment/202611290005"
    papers = ["https://doi.org/10.3233/SW-180312", "https://example.org/paper_1.pdf"]
    bib = citation_for("202611290005", uri, base="https://w3id.org/gerbil/qa/", papers=papers)
    entries = _bibtex_entries(bib.bibtex)
    assert entries[0][:2] == ("misc", "gerbilqa-202611290005")
    by_url = {fields["url"]: fields for _, _, fields in entries[1:]}
    doi = by_url["https://doi.org/10.3233/SW-180312"]
    assert doi["doi"] == "10.3233/SW-180312"
    assert doi["title"] == "{The paper with DOI 10.3233/SW-180312}"
    assert "doi:" not in doi["title"]
    assert by_url["https://example.org/paper_1.pdf"]["title"] == (
        "{The paper at https://example.org/paper\\_1.pdf}"
    )
    assert all("title" in fields for _, _, fields in entries)
    assert len({key for _, key, _ in entries}) == 3


def test_each_entry_writes_its_url_once_verbatim_in_url() -> None:
    """A paper URL with ``%`` or ``#`` (a DOI URL's ``%3C``) in ``howpublished = {\\url{…}}``
    stopped biblatex+biber ("File ended while scanning use of \\field"), and every entry
    printed its URL twice (``howpublished`` and ``url``): each is written once, in ``url``, as
    it is (explore55 F3, F6)."""
    from service.web.citation import dataset_citation, leaderboard_bibtex

    uri = "https://w3id.org/gerbil/qa/experiment/202611290002"
    papers = ["https://example.org/papers/a%20b_c?x=1&y=2#sec~3", "https://doi.org/10.1/%3Cx%3E"]
    bib = citation_for("202611290002", uri, base="https://w3id.org/gerbil/qa/", papers=papers)
    board = leaderboard_bibtex("0a", "http://x/leaderboard/0a", "T", "2026-11-26T18:30", base="x")
    dataset = dataset_citation("d", "http://x/dataset/d", "D", authors=[]).bibtex
    for text in (bib.bibtex, board, dataset):
        assert "howpublished" not in text and "\\url" not in text, text
    entries = _bibtex_entries(bib.bibtex)
    assert [fields["url"] for _, _, fields in entries] == [uri, *sorted(papers)]


def test_user_text_in_bibtex_is_escaped_as_the_compare_latex_escapes_it() -> None:
    """BibTeX dropped braces and backslashes from what a user typed (``\\emph{a}`` printed
    "empha", a withdrawal reason's ``\\cite{x}`` "citex") and wrote ``<``/``>`` raw (a Wiley
    DOI's ``<693::…>`` printed "¡693::…¿" under OT1): every text field is escaped as the compare
    LaTeX escapes a name, the ``url`` and ``doi`` fields stay as they are (explore55 F10, F11)."""
    from service.tex import tex_escape
    from service.web.citation import dataset_citation

    typed = "Title {test $x$ ~ ^ \\emph{a} <b> & 50% #1_a"  # a brace left open too
    escaped = (
        "Title \\textbraceleft{}test \\$x\\$ \\textasciitilde{} \\textasciicircum{} "
        "\\textbackslash{}emph\\textbraceleft{}a\\textbraceright{} "
        "\\textless{}b\\textgreater{} \\& 50\\% \\#1\\_a"
    )
    assert tex_escape(typed) == escaped
    doi = "10.1002/(SICI)1097-4571(199808)49:8<693::AID-ASI4>3.0.CO;2-O"
    uri = "https://w3id.org/gerbil/qa/experiment/202611290004"
    bib = citation_for(
        "202611290004",
        uri,
        base="https://w3id.org/gerbil/qa/",
        papers=["https://doi.org/" + doi],
        withdrawn=("2026-11-29T10:00:00Z", typed),
        subject=typed,
        scoring=typed,
    ).bibtex
    [own, paper] = _bibtex_entries(bib)
    assert own[2]["title"] == "{GERBIL QA experiment 202611290004: " + escaped + "}"
    assert own[2]["note"].count(escaped) == 2  # the scoring and the withdrawal reason
    assert paper[2]["title"] == (
        "{The paper with DOI 10.1002/(SICI)1097-4571(199808)49:8\\textless{}693::AID-ASI4"
        "\\textgreater{}3.0.CO;2-O}"
    )
    assert paper[2]["doi"] == doi and paper[2]["url"] == "https://doi.org/" + doi
    cited = dataset_citation("d", "http://x/dataset/d", typed, authors=[typed], note=typed)
    [(_, _, fields)] = _bibtex_entries(cited.bibtex)
    assert fields["title"] == fields["author"] == "{" + escaped + "}"
    assert fields["note"] == escaped


def test_a_dataset_cites_its_people_by_split_names_and_says_its_version_in_its_note() -> None:
    """Creators who are people were braced as one name (``{Łukasz Żółtowski}``: biber took the
    whole as the family name, natbib sorted by the given name), and the version was only in a
    ``version`` field plain BibTeX styles ignore (explore55 F4, F5): a person's name is
    unbraced (split at its last space), an organisation's braced, the version in the note."""
    from service.web.citation import dataset_citation

    cited = dataset_citation(
        "pl",
        "http://x/dataset/pl",
        "Polski QA",
        authors=["Łukasz Żółtowski", "Anna Nowak-Węgrzyn", "Open Lab", "Tom and Jerry"],
        people={"Łukasz Żółtowski", "Anna Nowak-Węgrzyn", "Tom and Jerry"},
        version="1.0_beta",
        note="withdrawn on 2026-11-29",
    )
    [(_, _, fields)] = _bibtex_entries(cited.bibtex)
    assert fields["author"] == (
        "Łukasz Żółtowski and Anna Nowak-Węgrzyn and {Open Lab} and {Tom and Jerry}"
    )
    assert fields["note"] == "Version 1.0\\_beta; withdrawn on 2026-11-29"
    assert "version" not in fields  # biblatex printed it twice: "Version 1.0_beta. Version …"
    alone = dataset_citation("d", "http://x/dataset/d", "D", authors=["Open Lab"], version="2")
    [(_, _, fields)] = _bibtex_entries(alone.bibtex)
    assert fields["author"] == "{Open Lab}" and fields["note"] == "Version 2"


def test_a_creators_type_says_whether_it_is_cited_as_a_person(monkeypatch) -> None:
    """``--dataset-creator-type 'PrivateIndividual(s)'`` made no difference to the citation:
    every creator was braced as one name (explore55 F4)."""
    from types import SimpleNamespace

    from service.graph.reader import Node
    from service.graph.terms import DCT, FOAF
    from service.graph.uris import Uris
    from service.web import resources

    storage = SimpleNamespace(uris=Uris("http://x/"))
    monkeypatch.setattr(resources, "services", lambda: SimpleNamespace(storage=storage))
    term = SimpleNamespace
    ds = "http://x/dataset/d"
    main, nodes = Node(ds), {}
    for k, (name, kind) in enumerate([("Ann Nowak", "PrivateIndividual(s)"), ("Lab", "Company")]):
        agent = Node(f"{ds}#creator-{k + 1}")
        agent.props[FOAF + "name"].append(term(value=name))
        agent.props[DCT + "type"].append(term(value="http://purl.org/adms/publishertype/" + kind))
        main.props[DCT + "creator"].append(term(value=agent.uri))
        nodes[agent.uri] = agent
    assert resources._authors(main, nodes) == [("Ann Nowak", True), ("Lab", False)]


def test_a_kb_file_name_in_the_note_is_quoted_and_cannot_pose_as_another_part() -> None:
    """A KB file named ``a, b; evaluator X.ttl`` read as two files and a second evaluator in
    the note (explore61 F5): each name is quoted, ``…'' in BibTeX, "…" in the text."""
    from service.web.citation import scoring_note

    forged = "a, b; evaluator X.ttl"
    note = scoring_note(
        dataset="d", kbs=["file:sha256:ab (1.0)"], kb_files=["kb.ttl", forged], evaluator="E 1"
    )
    uri = "https://w3id.org/gerbil/qa/experiment/202611290007"
    cited = citation_for("202611290007", uri, base="https://w3id.org/gerbil/qa/", scoring=note)
    [(_, _, fields)] = _bibtex_entries(cited.bibtex)
    assert fields["note"].endswith(
        "; knowledge base file:sha256:ab (1.0), files ``kb.ttl'', ``a, b; evaluator X.ttl''; "
        "evaluator E 1"
    )
    assert cited.text.endswith(
        '; knowledge base file:sha256:ab (1.0), files "kb.ttl", "a, b; evaluator X.ttl"; '
        "evaluator E 1"
    )
    # a name's own quote marks do not close it
    odd = scoring_note(dataset="d", kbs=["k"], kb_files=["x'' y `z\" w.ttl"])
    cited = citation_for("202611290007", uri, base="https://w3id.org/gerbil/qa/", scoring=odd)
    assert "file ``x\\textquotesingle{}\\textquotesingle{} y \\textasciigrave{}z\" w.ttl''" in (
        cited.bibtex
    )
    assert 'file "x\'\' y `z\\" w.ttl"' in cited.text


def test_a_notes_every_part_is_escaped_the_host_and_uris_too() -> None:
    """Only the user's parts of a note were escaped: a base whose host or path held a LaTeX
    special (``_``, ``%``, ``#``) went raw into the note (explore55 F10)."""
    from service.web.citation import RevisionWords, leaderboard_bibtex

    base = "https://qa_lab.example/gerbil%20qa/"
    uri, older = base + "experiment/202611290006", base + "experiment/202611290001"
    bib = citation_for(
        "202611290006",
        uri,
        base=base,
        papers=["https://example.org/p.pdf"],
        revises=[RevisionWords("202611290001", older)],
    ).bibtex
    [own, paper] = _bibtex_entries(bib)
    assert "at qa\\_lab.example;" in own[2]["note"]
    assert "(https://qa\\_lab.example/gerbil\\%20qa/experiment/202611290001)" in own[2]["note"]
    assert paper[2]["note"].endswith(
        "https://qa\\_lab.example/gerbil\\%20qa/experiment/202611290006"
    )
    board = leaderboard_bibtex("0a", base + "leaderboard/0a", "T", "2026-11-26T18:30", base=base)
    [(_, _, fields)] = _bibtex_entries(board)
    assert fields["note"] == "Leaderboard frozen on 2026-11-26 at GERBIL QA, qa\\_lab.example"
