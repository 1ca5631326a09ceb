"""The registries are the source of truth: the committed generated files match them, and a
measure or a profile added to a registry (and nothing else) reaches every contract: the JSON of
``evaluate``, the vocabulary and Data Cube structure, the SHACL shapes, the OpenAPI document
and the CLI help."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pyoxigraph as ox
import pytest

from service.cli import main
from service.contracts import GENERATED, check, render, write
from service.errors import BadRequest
from service.evaluation import evaluate
from service.evaluation.matchers.exact import ExactMatcher
from service.evaluation.measures import (
    MEASURES,
    Measure,
    MeasureInfo,
    Reporting,
    TaskRecords,
    When,
    require,
)
from service.evaluation.profiles import PROFILES, QA_ONLY, Profile, get_profile
from service.evaluation.results import ExperimentType, QuestionScore, TaskScores
from service.evaluation.scoring import STANDARD
from service.formats import read
from service.graph.results import DatasetRef, ExperimentRecord, experiment_quads
from service.graph.uris import Uris
from service.model import Dataset, Question, QuestionText, SystemAnswer, SystemRun, system_run
from service.paths import PROJECT_ROOT
from service.release import Source
from service.web.openapi import openapi_document
from service.web.pages import measure_label
from tests.helpers import lits

XSD = "http://www.w3.org/2001/XMLSchema#"
GQA = "http://w3id.org/gerbil/qa/vocab#"
QB = "http://purl.org/linked-data/cube#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
SHAPES = "http://w3id.org/gerbil/qa/shapes#"
SH = "http://www.w3.org/ns/shacl#"


# -- the committed files ---------------------------------------------------------------------


def test_every_generated_file_matches_the_registries() -> None:
    stale = check()
    assert stale == {}, "run `make contracts`:\n" + "\n".join(stale.values())


def test_check_finds_a_stale_file_and_write_fixes_it(tmp_path: Path) -> None:
    for path in GENERATED:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PROJECT_ROOT / path, tmp_path / path)
    edited = tmp_path / "ontology/generated-measures.ttl"
    edited.write_text(edited.read_text().replace('"macro F1 (QALD)"@en', '"macro F1 QALD"@en'))
    stale = check(tmp_path)
    assert list(stale) == ["ontology/generated-measures.ttl"]
    assert '-    rdfs:label "macro F1 QALD"@en ;' in stale["ontology/generated-measures.ttl"]
    assert write(tmp_path) == ["ontology/generated-measures.ttl"]
    assert check(tmp_path) == {}


def test_the_command_checks_and_names_what_to_run() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "service.contracts", "check"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_one_label_per_measure_in_every_contract() -> None:
    """The drift the registries end: one label, from the registry, in the vocabulary, the
    pages and the OpenAPI document."""
    graph = _parse(render()["ontology/generated-measures.ttl"])
    api = openapi_document("http://localhost/")["components"]["schemas"]["Measures"]
    for name, info in MEASURES.items():
        labels = [
            str(t.object.value)
            for t in graph.quads_for_pattern(
                ox.NamedNode(info.iri), ox.NamedNode(RDFS + "label"), None
            )
        ]
        assert labels == [info.label], name
        assert measure_label(name) == info.label
        assert api["properties"][name]["title"] == info.label
    assert MEASURES["macroF1QALD"].label == "macro F1 (QALD)"


# -- a new measure: one registry entry plus its computation ----------------------------------


def _mean_gold_size(task: TaskRecords) -> float | None:
    rows = task.scored
    return sum(r.n_gold or 0 for r in rows) / len(rows) if rows else None


MEAN_GOLD = MeasureInfo(
    Measure("meanGoldSize"),
    "mean gold size",
    "Mean number of gold answers of the scored questions (a measure only this test defines).",
    XSD + "double",
    _mean_gold_size,
)


@pytest.fixture
def extra_measure() -> Iterator[MeasureInfo]:
    MEASURES.register(MEAN_GOLD)
    try:
        yield MEAN_GOLD
    finally:
        MEASURES.unregister(MEAN_GOLD.name)


def _two_questions() -> tuple[Dataset, SystemRun]:
    ds = Dataset(
        "d",
        (
            Question("1", (QuestionText("en", "q?"),), answers=lits("a", "b")),
            Question("2", (QuestionText("en", "q?"),), answers=lits("c")),
        ),
    )
    run = SystemRun("s", {"1": SystemAnswer("1", answers=lits("a")), "2": SystemAnswer("2")})
    return ds, run


def _parse(text: str) -> ox.Store:
    store = ox.Store()
    store.load(text.encode(), format=ox.RdfFormat.TURTLE)  # strict: an error fails the test
    return store


def test_a_new_measure_reaches_every_contract(extra_measure: MeasureInfo) -> None:
    name = extra_measure.name
    # the JSON contract: computed from the per-question records, after the registry's others
    ds, run = _two_questions()
    ev = evaluate(ds, run, profile="exact")
    results = ev.to_json()["results"]["QA"]
    assert results[name] == 1.5 and list(results)[-1] == name

    # the vocabulary: a measure property and its Data Cube component specification
    files = render()
    vocab = _parse(files["ontology/generated-measures.ttl"])
    prop = ox.NamedNode(GQA + name)
    assert ox.Quad(prop, ox.NamedNode(RDFS + "range"), ox.NamedNode(XSD + "double")) in vocab
    assert (
        ox.Quad(prop, ox.NamedNode(RDFS + "label"), ox.Literal("mean gold size", language="en"))
        in vocab
    )
    component = ox.NamedNode(GQA + f"component-{name}")
    assert ox.Quad(component, ox.NamedNode(QB + "measure"), prop) in vocab

    # the shapes: the task observations' shape checks it
    shapes = _parse(files["shapes/generated-shapes.ttl"])
    shape = ox.NamedNode(SHAPES + f"measure-{name}")
    assert ox.Quad(ox.NamedNode(SHAPES + "Task"), ox.NamedNode(SH + "property"), shape) in shapes
    assert ox.Quad(shape, ox.NamedNode(SH + "path"), prop) in shapes

    # an experiment's Data Cube structure lists it and its observation carries the value
    uris = Uris("http://localhost:8080/")
    record = ExperimentRecord(
        "202401010001",
        (ev,),
        DatasetRef("d", catalogued=False, dataset=ds),
        datetime(2024, 1, 1, tzinfo=UTC),
        datetime(2024, 1, 1, tzinfo=UTC),
        Source("0.1.0"),
    )
    quads = experiment_quads(record, uris, uris.experiment_graph("202401010001"))
    structure = uris.experiment_structure("202401010001")
    assert any(
        q.subject.value == structure and q.object.value == GQA + f"component-{name}" for q in quads
    )
    assert any(q.predicate.value == GQA + name and q.object.value == "1.5" for q in quads)

    # the OpenAPI document, the pages
    schema = openapi_document("http://localhost/")["components"]["schemas"]["Measures"]
    assert schema["properties"][name]["description"] == extra_measure.description
    assert measure_label(name) == "mean gold size"

    # and the committed files are now stale: the check says so until `make contracts`
    assert set(check()) == {"ontology/generated-measures.ttl", "shapes/generated-shapes.ttl"}


def test_a_measure_of_one_profile_and_type_is_reported_only_there() -> None:
    info = MeasureInfo(
        Measure("exactOnly"),
        "exact only",
        "A test measure only the exact profile reports, in QA only.",
        XSD + "integer",
        lambda task: len(task.records),
        experiment_types=QA_ONLY,
        profiles=("exact",),
    )
    MEASURES.register(info)
    try:
        ds, run = _two_questions()
        assert evaluate(ds, run, profile="exact").to_json()["results"]["QA"]["exactOnly"] == 2
        assert "exactOnly" not in evaluate(ds, run, profile="fair").to_json()["results"]["QA"]
        assert info.optional
    finally:
        MEASURES.unregister("exactOnly")
    assert "exactOnly" not in MEASURES


def _none(task: TaskRecords) -> None:
    return None


def test_a_misspelt_or_unknown_measure_fails_loudly() -> None:
    with pytest.raises(ValueError, match="did you mean macroF1"):
        require("macroF2")
    with pytest.raises(KeyError, match="unknown measure 'microf1'"):
        MEASURES["microf1"]
    with pytest.raises(ValueError, match="already registered"):
        MEASURES.register(MEASURES["microF1"])
    with pytest.raises(ValueError, match="parses back"):
        # Hits@3 written as a plain name: it would not parse back to the measure it claims
        MEASURES.register(MeasureInfo(Measure("hitsAt3"), "x", "x.", XSD + "double", _none))
    # a results table naming a measure the registry does not know is not written to the graph
    ds, run = _two_questions()
    ev = evaluate(ds, run, profile="exact")
    task = ev.tasks[ExperimentType.QA]
    bad = TaskScores(task.experiment_type, {**task.measures, "macroF2": 0.5}, task.questions)
    broken = type(ev)(ev.dataset, ev.system, ev.profile, ev.language, {ExperimentType.QA: bad})
    uris = Uris("http://localhost:8080/")
    record = ExperimentRecord(
        "202401010001",
        (broken,),
        DatasetRef("d", catalogued=False, dataset=ds),
        datetime(2024, 1, 1, tzinfo=UTC),
        datetime(2024, 1, 1, tzinfo=UTC),
        Source("0.1.0"),
    )
    with pytest.raises(ValueError, match="'macroF2' is not in the measures registry"):
        experiment_quads(record, uris, uris.experiment_graph("202401010001"))


# -- a new profile: one module (here: one value) plus one registration -----------------------

TEST_PROFILE = Profile(
    name="testonly",
    version="0.0.1",
    reference="none",
    title="A profile only this test defines",
    description="Exact string matching that also reports the figures over processed questions.",
    settings=(("items", "values"), ("match", "string"), ("sets", "distinct")),
    matcher=ExactMatcher(),
    scoring=STANDARD,
    experiment_types=QA_ONLY,
    processed_measures=True,
)


@pytest.fixture
def extra_profile() -> Iterator[Profile]:
    PROFILES.register(TEST_PROFILE)
    try:
        yield TEST_PROFILE
    finally:
        PROFILES.unregister(TEST_PROFILE.name)


def test_a_new_profile_reaches_every_contract(
    extra_profile: Profile, capsys: pytest.CaptureFixture[str]
) -> None:
    assert get_profile("testonly") is extra_profile
    ds, run = _two_questions()
    out = evaluate(ds, run, profile="testonly").to_json()
    # its signature is built from its fields; its processed_measures field adds those measures
    assert (
        out["signature"]
        == "gerbil-qa:testonly|v:0.0.1|ref:none|items:values|match:string|sets:distinct|kb:no"
    )
    assert "processedMacroF1" in out["results"]["QA"]

    codelists = _parse(render()["ontology/generated-codelists.ttl"])
    iri = ox.NamedNode(extra_profile.iri)
    assert (
        ox.Quad(iri, ox.NamedNode(RDFS + "label"), ox.Literal("testonly", language="en"))
        in codelists
    )
    scheme = ox.NamedNode(GQA + "profiles")
    assert (
        ox.Quad(scheme, ox.NamedNode("http://www.w3.org/2004/02/skos/core#hasTopConcept"), iri)
        in codelists
    )

    submission = openapi_document("http://localhost/")["components"]["schemas"]["Submission"]
    profile = submission["properties"]["profile"]
    assert "testonly" in profile["examples"]
    assert re.fullmatch(profile["pattern"], " TestOnly ")
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    assert "testonly" in capsys.readouterr().out
    assert set(check()) == {"ontology/generated-codelists.ttl"}


def test_profile_registry_errors() -> None:
    with pytest.raises(ValueError, match="already registered"):
        PROFILES.register(get_profile("exact"))
    with pytest.raises(BadRequest, match="known profiles: fair, gerbil, qald6"):
        get_profile("testonly")
    with pytest.raises(ValueError, match="settings must start with items and hold match"):
        Profile(**{**_fields(TEST_PROFILE), "settings": (("match", "x"),)})
    with pytest.raises(ValueError, match="items must be one of"):
        Profile(**{**_fields(TEST_PROFILE), "settings": (("items", "cells"), ("match", "x"))})


def _fields(profile: Profile) -> dict[str, object]:
    return {name: getattr(profile, name) for name in profile.__dataclass_fields__}


def test_the_core_has_no_profile_name_switch() -> None:
    """Behaviour differs by profile fields, never by comparing a profile's name to a string."""
    switch = re.compile(r"\bprof\w*\.name\s*[!=]=\s*['\"]")
    found = [
        f"{path.relative_to(PROJECT_ROOT)}:{n}"
        for path in (PROJECT_ROOT / "service").rglob("*.py")
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if switch.search(line)
    ]
    assert found == []


def test_a_profile_module_is_imported_only_when_asked_for() -> None:
    code = (
        "import sys\n"
        "from service.evaluation.profiles import PROFILES, get_profile\n"
        "names = list(PROFILES)\n"
        "get_profile('exact')\n"
        "print(' '.join(m for m in sys.modules if m.startswith('service.evaluation.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    loaded = set(done.stdout.split())
    assert "service.evaluation.profiles.exact" in loaded
    assert not loaded & {
        "service.evaluation.profiles.fair",
        "service.evaluation.matchers.fair",
        "service.evaluation.matchers.gerbil",
        "service.evaluation.matchers.poleval",
        "service.evaluation.runner",
    }


# -- aggregates are functions of the per-question records ------------------------------------


# poleval needs one answer line per question, which the QALD-8 answers are not
@pytest.mark.parametrize("profile", [p for p in PROFILES if p != "poleval"])
def test_aggregates_are_recomputed_from_the_records(profile: str, data_dir: Path) -> None:
    """What H5's resampling relies on: a task's measures are the registry's computations over
    its records; computed on a resample, they are the resample's aggregates."""
    path = data_dir / "system-outputs" / "qald8-train" / "TeBaQA_QALD8_Train.json"
    gold = data_dir / "qald" / "ag-sc_QALD" / "8" / "data" / "qald-8-train-multilingual.json"
    prof = get_profile(profile)
    ev = evaluate(read(gold), system_run(read(path), system="TeBaQA"), profile=prof, ranked=True)
    for etype, task in ev.tasks.items():
        reporting = Reporting(
            etype, prof.name, processed=prof.processed_measures, confidence=False, ranked=True
        )
        again = MEASURES.compute(TaskRecords(task.questions, prof.scoring), reporting)
        assert again == dict(task.measures)
        assert MEASURES.recompute(task.measures, TaskRecords(task.questions, prof.scoring)) == again
        # every question twice: the means are unchanged, the counts double
        twice = MEASURES.recompute(task.measures, TaskRecords(task.questions * 2, prof.scoring))
        assert twice["questions"] == 2 * task.measures["questions"]
        for name in ("macroPrecision", "macroRecall", "microPrecision", "macroF1QALD"):
            assert twice[name] == pytest.approx(task.measures[name]), name


def test_each_record_carries_what_the_aggregates_need() -> None:
    ds, run = _two_questions()
    qa = evaluate(ds, run, profile="exact").tasks[ExperimentType.QA].questions
    assert [(q.n_gold, q.n_system, q.tp, q.processed) for q in qa] == [
        (2, 1, 1, True),
        (1, 0, 0, True),
    ]
    failed = SystemRun(
        "s",
        {
            "1": SystemAnswer("1", error="timeout"),
            "2": SystemAnswer("2", answers=lits("c"), runtime_ms=12.0, confidence=0.5),
        },
    )
    qa = evaluate(ds, failed, profile="exact").tasks[ExperimentType.QA]
    assert [q.failed for q in qa.questions] == [True, False]
    assert [q.runtime_ms for q in qa.questions] == [None, 12.0]
    assert qa.questions[1].confidence == 0.5 and qa.questions[1].verdicts
    assert qa.measures["errorCount"] == 1 and qa.measures["meanRuntime"] == 12.0
    assert isinstance(qa.questions[0], QuestionScore) and "cws" in qa.measures
    assert MEASURES["cws"].when is When.CONFIDENCE


def test_every_operation_has_a_unique_generated_operation_id() -> None:
    """explore38 7: no operation had an ``operationId`` (code generators name their methods by
    it); each has one now, made from its method and path where the document is built, so it is
    unique and does not change while the path stays."""
    from service.web.openapi import HTTP_METHODS, openapi_document, operation_id

    ids = [
        (operation.get("operationId"), method, path)
        for path, item in openapi_document("http://localhost/")["paths"].items()
        for method, operation in item.items()
        if method in HTTP_METHODS
    ]
    assert len(ids) >= 20
    for given, method, path in ids:
        assert given == operation_id(method, path), (method, path)
        assert re.fullmatch(r"[a-z]+[A-Za-z0-9]*", given), given
    assert len({given for given, _, _ in ids}) == len(ids)
    # a tag each, the path's first segment: a generated client's modules (explore64 F10)
    document = openapi_document("http://localhost/")
    tags = {
        path: operation.get("tags")
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in HTTP_METHODS
    }
    assert tags["/api/experiments/{id}/publish"] == ["experiments"]
    assert (
        {t for (t,) in tags.values()}
        == {tag["name"] for tag in document["tags"]}
        >= {
            "experiments",
            "datasets",
            "systems",
            "leaderboards",
            "compare",
            "profiles",
        }
    )
    assert operation_id("get", "/api/experiments/{id}") == "getExperimentsById"
    assert operation_id("post", "/api/datasets/{name}/reveal") == "postDatasetsByNameReveal"


def _schemas_in(node: object) -> Iterator[dict]:
    """Every object of the document (schemas among them), depth first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _schemas_in(value)
    elif isinstance(node, list):
        for value in node:
            yield from _schemas_in(value)


def test_every_const_says_its_type() -> None:
    """explore64 F1: ``{"const": true}`` without ``"type": "boolean"`` (questionsWithheld, the
    leaderboard DELETE's ``removed``) made openapi-python-client write ``Trueand``: a client
    generated from the document did not import."""
    document = openapi_document("http://localhost/")
    consts = [s for s in _schemas_in(document) if "const" in s]
    assert len(consts) >= 2
    kinds = {bool: "boolean", int: "integer", str: "string"}
    assert [s for s in consts if s.get("type") != kinds[type(s["const"])]] == []


def test_the_form_bodies_have_no_required_only_branches() -> None:
    """explore64 F2: SubmissionForm's ``oneOf``/``anyOf`` branches that listed only
    ``required`` made openapi-python-client type the form ``Any``: the generated
    ``post_experiments`` failed at import, and compare's form was left out. The rule (one of
    ``dataset`` and ``dataset_file``, a system at least) is said in words, and the server
    refuses the rest (tests/web/test_run_page.py)."""
    document = openapi_document("http://localhost/")
    schemas = document["components"]["schemas"]
    forms = [
        content["multipart/form-data"]["schema"]
        for item in document["paths"].values()
        for operation in item.values()
        if "multipart/form-data" in (content := operation.get("requestBody", {}).get("content", {}))
    ]
    assert len(forms) == 2  # a submission's, a comparison's
    for form in forms:
        for part in form.get("allOf", [form]):
            part = schemas[part["$ref"].rsplit("/", 1)[1]] if "$ref" in part else part
            assert "oneOf" not in part and "anyOf" not in part, part.get("description")
    assert "exactly one of `dataset` and `dataset_file`" in schemas["SubmissionForm"]["description"]


def test_the_json_bodies_name_the_keys_the_server_reads() -> None:
    """explore64 F3, F4: a re-scoring, a freeze and a comparison of stored tasks ignored a key
    they do not read (``profle``, ``sortt``, ``mesure``): the server refuses one now, and the
    document closes their bodies to others, naming the keys the server reads."""
    from service.web.api import RESCORE_KEYS
    from service.web.comparing import COMPARE_TASK_KEYS
    from service.web.frozen import FREEZE_KEYS

    document = openapi_document("http://localhost/")

    def body(path: str) -> dict:
        return document["paths"][path]["post"]["requestBody"]["content"]["application/json"]

    rescore = body("/api/experiments/{id}/rescore")["schema"]
    assert set(rescore["properties"]) == RESCORE_KEYS
    assert rescore["additionalProperties"] is False
    freeze = body("/api/leaderboards")["schema"]
    assert set(freeze["properties"]) == FREEZE_KEYS and freeze["additionalProperties"] is False
    tasks = body("/api/compare")["schema"]["oneOf"][1]  # (the other: files)
    compare_tasks = document["components"]["schemas"]["CompareTasks"]
    assert set(compare_tasks["properties"]) == COMPARE_TASK_KEYS
    assert tasks["unevaluatedProperties"] is False


def test_the_document_says_what_the_server_takes_and_answers() -> None:
    """explore64 F7, F8: ``?by=xyz`` was a plain string the server refused (a pattern from
    the dimensions' registry now, agreeing with ``parse_dimensions``); an empty ``?system=`` is
    no filter, where the document said minLength 1; the ``Location`` of a submission, a
    re-scoring and a freeze was undocumented on some answers."""
    from service.evaluation.slices import parse_dimensions

    paths = openapi_document("http://localhost/")["paths"]
    [by] = [p for p in paths["/api/experiments/{id}"]["get"]["parameters"] if p["name"] == "by"]
    for value in ("", "answertype", " feature , extra:template,", "xyz", ",", "extra:", " "):
        try:
            taken = not value or bool(parse_dimensions(value))
        except BadRequest:
            taken = False
        assert bool(re.search(by["schema"]["pattern"], value)) is taken, value
    listing = {p["name"]: p["schema"] for p in paths["/api/experiments"]["get"]["parameters"]}
    assert "minLength" not in listing["system"] and "minLength" not in listing["dataset"]
    for path, status in [
        ("/api/experiments", "202"),
        ("/api/experiments/{id}/rescore", "202"),
        ("/api/leaderboards", "201"),
        ("/api/leaderboards", "200"),
    ]:
        location = paths[path]["post"]["responses"][status]["headers"]["Location"]
        assert location["schema"]["format"] == "uri", (path, status)
