"""DCAT-AP 3.0.1 (issue 9 item 5): pyshacl with the profile's shapes over every catalogue and
dataset description the running service serves, in Turtle and in JSON-LD.

The mandatory shapes (``html_shacl_shapes.ttl``) find nothing. The recommended, range and
controlled-vocabulary shapes find only what the README lists as remaining, with its reason
(:data:`REMAINING`); anything else fails the test.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest
import rdflib

from tests.conftest import STANDARDS

DCAT_AP = STANDARDS / "dcat-ap-3.0.1"
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
DCAT = "http://www.w3.org/ns/dcat#"
DCT = "http://purl.org/dc/terms/"
FOAF = "http://xmlns.com/foaf/0.1/"
SPDX = "http://spdx.org/rdf/terms#"
SYNTAXES = {"text/turtle": "turtle", "application/ld+json": "json-ld"}

# What the other shapes still report, by (severity, path): the README says why.
REMAINING = {
    # recommended properties that do not apply to QA benchmarks
    ("Warning", DCT + "spatial"),
    ("Warning", DCT + "temporal"),
    # our publishers are research groups, not bodies of the EU corporate-body table
    ("Warning", DCT + "publisher"),
    # the shape wants algorithm IRIs under https://spdx.org/rdf/terms; SPDX's are http://
    ("Violation", SPDX + "algorithm"),
    # PolEval publishes no licence; an upload whose author stated none (the demo's)
    ("Warning", DCT + "license"),
    # an uploaded dataset whose author named no contact (its file is its distribution)
    ("Warning", DCAT + "contactPoint"),
    # a refreshed version (`dataset refresh`): its file is kept beside the store, not offered
    ("Warning", DCAT + "distribution"),
}


@cache
def shapes(*names: str) -> rdflib.Graph:
    graph = rdflib.Graph()
    for name in names:
        graph.parse(DCAT_AP / name, format="turtle")
    return graph


def descriptions(server) -> list[str]:
    """The catalogue, every dataset it lists, and the demo's uploaded dataset."""
    import json

    catalog = server.get("catalog.jsonld").content
    graph = rdflib.Graph().parse(data=catalog, format="json-ld", publicID=server.url)
    datasets = sorted(str(o) for o in graph.objects(None, rdflib.URIRef(DCAT + "dataset")))
    from service import catalog as built_in

    names = {f"{server.url}dataset/{e.name}" for e in built_in.entries()}
    assert names <= set(datasets)  # every built-in dataset is listed
    demo = server.get(f"api/experiments/{server.demo_id}").json()
    uploaded = json.dumps(demo)
    found = [d for d in (f"{server.url}dataset/{w}" for w in _dataset_names(uploaded)) if d]
    assert set(found) <= set(datasets)  # and the published demo's uploaded dataset
    return [f"{server.url}catalog", *sorted(names), *(d for d in datasets if d not in names)]


def _dataset_names(text: str) -> list[str]:
    import re

    return sorted(set(re.findall(r"dataset/([A-Za-z0-9._-]+-[0-9a-f]{8})", text)))


def results(server, uri: str, media_type: str, *shape_files: str) -> Counter:
    import pyshacl

    response = server.get(uri.replace(server.url, ""), headers={"Accept": media_type})
    assert response.status_code == 200, (uri, media_type)
    data = rdflib.Graph().parse(data=response.content, format=SYNTAXES[media_type], publicID=uri)
    assert len(data) > 5
    _conforms, report, _text = pyshacl.validate(
        data, shacl_graph=shapes(*shape_files), inference="none", advanced=True
    )
    found: Counter = Counter()
    for result in report.objects(None, SH.result):  # top-level results, not their details
        severity = str(report.value(result, SH.resultSeverity)).rsplit("#", 1)[1]
        found[(severity, str(report.value(result, SH.resultPath)))] += 1
    return found


@pytest.mark.parametrize("media_type", sorted(SYNTAXES))
def test_mandatory_shapes_pass_on_every_served_description(server, media_type: str) -> None:
    uris = descriptions(server)
    assert any(u.endswith(tuple("0123456789abcdef")) for u in uris[41:]), "no uploaded dataset"
    failures = {
        uri: found
        for uri in uris
        if (found := results(server, uri, media_type, "html_shacl_shapes.ttl"))
    }
    assert failures == {}


OTHERS = (
    "html_shacl_shapes_recommended.ttl",
    "html_shacl_range.ttl",
    "html_shacl_mdr-vocabularies.shape.ttl",
    "html_shacl_deprecateduris.ttl",
)


def dcat_ap_findings(graph: rdflib.Graph, what: str) -> set[tuple[str, str]]:
    """``graph`` passes DCAT-AP's mandatory shapes (asserted, naming ``what``); what the other
    shapes report of it, by (severity, path), for the caller to hold against :data:`REMAINING`."""
    import pyshacl

    conforms, _, text = pyshacl.validate(
        graph, shacl_graph=shapes("html_shacl_shapes.ttl"), inference="none", advanced=True
    )
    assert conforms, (what, text[:3000])
    _, report, _ = pyshacl.validate(
        graph, shacl_graph=shapes(*OTHERS), inference="none", advanced=True
    )
    return {
        (
            str(report.value(r, SH.resultSeverity)).rsplit("#", 1)[1],
            str(report.value(r, SH.resultPath)),
        )
        for r in report.objects(None, SH.result)
    }


@pytest.mark.parametrize("media_type", sorted(SYNTAXES))
def test_other_shapes_report_only_what_the_readme_lists(server, media_type: str) -> None:
    total: Counter = Counter()
    for uri in descriptions(server):
        total += results(server, uri, media_type, *OTHERS)
    unexpected = {key: n for key, n in total.items() if key not in REMAINING}
    assert unexpected == {}
    print(sorted(total.items()))


def test_checksums_and_byte_sizes_are_served_with_their_dataset(server) -> None:
    uri = f"{server.url}dataset/qald-9-test-multilingual"
    data = rdflib.Graph().parse(data=server.get(uri.replace(server.url, "") + ".ttl").content)
    (checksum,) = data.objects(None, rdflib.URIRef(SPDX + "checksum"))
    assert str(checksum) == f"{uri}#distribution-checksum"
    assert (checksum, rdflib.RDF.type, rdflib.URIRef(SPDX + "Checksum")) in data
    (size,) = data.objects(None, rdflib.URIRef(DCAT + "byteSize"))
    assert size.datatype == rdflib.XSD.nonNegativeInteger and int(size) > 0
    (language,) = [
        o for o in data.objects(rdflib.URIRef(uri), rdflib.URIRef(DCT + "language"))
        if str(o).endswith("/ENG")
    ]  # fmt: skip
    assert str(language) == "http://publications.europa.eu/resource/authority/language/ENG"
    assert (language, rdflib.RDF.type, rdflib.URIRef(DCT + "LinguisticSystem")) in data


def test_lists_and_the_api_still_name_languages_by_their_codes(server) -> None:
    """The descriptions name EU authority IRIs; the JSON API, the CSV and ``gerbil-qa
    datasets`` keep the ISO 639-1 codes they always gave."""
    from service.catalog import get_entry

    rows = {d["name"]: d for d in server.get("api/datasets").json()["datasets"]}
    assert rows["qald-9-test-multilingual"]["languages"][:3] == ["de", "en", "es"]
    (line,) = [x for x in server.get("catalog.csv").text.splitlines() if "qald-9-plus" in x]
    assert ",ba be de en es fr hy lt ru uk," in line
    assert get_entry("poleval-2021-qa-dev-0").languages == ("pl",)


@pytest.fixture(scope="module")
def refreshed(server, data_dir) -> str:
    """A dataset version as ``gerbil-qa dataset refresh --store`` registers it, of QALD-9's
    multilingual test questions (eleven languages), under a name outside the catalogue."""
    from service import formats
    from service.web.state import EXTENSION

    questions = data_dir / "qald" / "ag-sc_QALD" / "9" / "data" / "qald-9-test-multilingual.json"
    version = server.storage.catalogue.register_version(
        "refreshed-qald-9-multilingual",
        formats.read(questions),
        kb="https://dbpedia.org/sparql",
        version="2025-06",
    )
    server.app.extensions[EXTENSION].changed()
    return version.uri


@pytest.mark.parametrize("media_type", sorted(SYNTAXES))
def test_a_refreshed_version_passes_as_the_catalogue_does(
    server, refreshed: str, media_type: str
) -> None:
    """The version's document passes the mandatory shapes, and the others report only what
    they report of the catalogue's datasets; its languages are the EU authority IRIs."""
    assert results(server, refreshed, media_type, "html_shacl_shapes.ttl") == Counter()
    others = results(server, refreshed, media_type, *OTHERS)
    assert set(others) <= REMAINING, others
    data = rdflib.Graph().parse(data=server.get(refreshed.replace(server.url, "") + ".ttl").content)
    version = rdflib.URIRef(refreshed)
    assert data.value(version, rdflib.URIRef(DCT + "description")).language == "en"
    languages = {str(o) for o in data.objects(version, rdflib.URIRef(DCT + "language"))}
    eu = "http://publications.europa.eu/resource/authority/language/"
    assert len(languages) == 11 and {lang.removeprefix(eu) for lang in languages} >= {
        "ENG",
        "DEU",
        "RUS",
    }
    for language in languages:
        assert (
            rdflib.URIRef(language),
            rdflib.RDF.type,
            rdflib.URIRef(DCT + "LinguisticSystem"),
        ) in data


@pytest.mark.parametrize("media_type", ["text/turtle", "application/ld+json"])
def test_a_refreshed_catalogue_version_says_its_datasets_publisher_and_licence(
    server, data_dir, media_type: str
) -> None:
    """explore38 1: a registered version of a catalogue dataset named no publisher and no
    licence (its BibTeX named AKSW); it restates its dataset's, its file's distribution the
    licence, and passes the shapes as before."""
    from service import catalog, formats
    from service.web.state import EXTENSION

    name = "text2sparql-2025-ck25"
    entry = catalog.get_entry(name)
    questions = data_dir / "qald" / "ag-sc_QALD" / "9" / "data" / "qald-9-test-multilingual.json"
    version = "refreshed-" + media_type.split("/")[1].replace("+", "-")
    uri = f"{server.url}dataset/{name}/version/{version}"
    server.storage.catalogue.register_version(
        name,
        formats.read(questions),
        kb="https://example.org/sparql",
        version=version,
        file_sha256="ab" * 32,
        file_size=10,
    )
    server.app.extensions[EXTENSION].changed()
    assert results(server, uri, media_type, "html_shacl_shapes.ttl") == Counter()
    assert set(results(server, uri, media_type, *OTHERS)) <= REMAINING
    data = rdflib.Graph().parse(data=server.get(f"dataset/{name}/version/{version}.ttl").content)
    v = rdflib.URIRef(uri)
    assert str(data.value(v, rdflib.URIRef(DCT + "title"))) == f"{entry.title}, version {version}"
    assert {str(o) for o in data.objects(v, rdflib.URIRef(DCT + "license"))} == {entry.licence}
    publisher = data.value(v, rdflib.URIRef(DCT + "publisher"))
    assert str(publisher) == "https://github.com/AKSW"
    assert data.value(publisher, rdflib.URIRef("http://xmlns.com/foaf/0.1/name"))
    dist = rdflib.URIRef(uri + "#distribution")
    assert {str(o) for o in data.objects(dist, rdflib.URIRef(DCT + "license"))} == {entry.licence}
