"""Data Cube integrity constraints and SHACL shapes over real experiments written by the store.

The experiment: QALD-8 train (multilingual) x the six systems of system-outputs/qald8-train,
scored by the real evaluator (default profile and experiment types), written by
``ExperimentRepository.record`` and read back from the store (what it *serves*, after Oxigraph's
literal normalisation). The IC queries are the Recommendation's own files.
"""

from __future__ import annotations

from pathlib import Path

import pyoxigraph
import pytest

from service.graph.checks import (
    datacube_violations,
    ic12_by_grouping,
    integrity_constraints,
    normalised_store,
    run_constraint,
    shacl_violations,
)
from service.graph.dumps import export
from service.graph.results import EXPLAINED_PER_KIND, DatasetRef
from service.graph.store import open_storage
from service.graph.vocabulary import vocabulary_triples
from tests.conftest import DATA, QALD, STANDARDS

DATACUBE = STANDARDS / "datacube"
SYSTEMS = DATA / "system-outputs" / "qald8-train"
QALD8_TRAIN = QALD / "8" / "data" / "qald-8-train-multilingual.json"


def _manifest() -> list[tuple[str, list[str], str]]:
    path = DATACUBE / "fixtures" / "MANIFEST.tsv"
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        ic, files, expected = line.split("\t")
        rows.append((ic, files.split(","), expected))
    return rows


@pytest.mark.parametrize(
    ("ic", "files", "expected"), _manifest(), ids=lambda x: x if isinstance(x, str) else None
)
def test_checker_agrees_with_the_spec_editors_fixtures(
    standards_dir: Path, ic: str, files: list[str], expected: str
) -> None:
    quads = []
    for name in files:
        quads += pyoxigraph.parse(
            path=str(DATACUBE / "fixtures" / name), format=pyoxigraph.RdfFormat.TURTLE
        )
    store = normalised_store(quads)
    [constraint] = [c for c in integrity_constraints() if c.name == ic]
    assert run_constraint(store, constraint) == (expected == "fail")


def test_every_ic_file_is_run(standards_dir: Path) -> None:
    names = {c.name for c in integrity_constraints()}
    files = {"-".join(p.name.split("-")[:2]) for p in (DATACUBE / "ic").glob("ic-*.rq")}
    assert files <= names and "ic-00" in names
    # IC-17 is the portable variant (the REC text never fires under SPARQL 1.1 algebra).
    [ic17] = [c for c in integrity_constraints() if c.name == "ic-17"]
    assert "HAVING (COUNT(?obs2) != ?numMeasures)" in (ic17.query or "")


def _evaluations(
    names: list[str] | None = None, *, types: list[str] | None = None, first: int | None = None
):
    from dataclasses import replace

    from service import formats
    from service.evaluation import evaluate
    from service.model import system_run

    dataset = formats.read(QALD8_TRAIN)
    if first is not None:
        dataset = replace(dataset, questions=dataset.questions[:first])
    out = []
    for path in sorted(SYSTEMS.glob("*.json")):
        name = path.name.split("_")[0]
        if names is None or name in names:
            run = system_run(formats.read(path), system=name)
            out.append(evaluate(dataset, run, profile="fair", experiment_types=types))
    return dataset, out


def _recorded(names: list[str] | None = None, **options):
    """An in-memory store holding one experiment of those systems: (store, ticket, evaluations),
    each with its bootstrap intervals, as the application layer records them."""
    from service.evaluation.comparison import with_intervals

    dataset, evaluations = _evaluations(names, **options)
    evaluations = [with_intervals(ev, resamples=200) for ev in evaluations]
    store = open_storage(None)
    name = "qald-8-train-multilingual"
    store.catalogue.store_questions(name, dataset)
    ticket = store.experiments.record(evaluations, dataset=DatasetRef.catalogue(name, dataset))
    return store, ticket, evaluations


@pytest.fixture(scope="module")
def experiment(data_dir: Path, standards_dir: Path):
    """All six systems in one experiment, the QA task (IC-12 is quadratic in the questions of
    a data set, so the sub-experiments are covered by ``small`` below)."""
    store, ticket, evaluations = _recorded(types=["QA"])
    yield store, ticket, evaluations
    store.close()


@pytest.fixture(scope="module")
def small(data_dir: Path, standards_dir: Path):
    """One system with the default experiment types (QA and the sub-experiments it has data
    for), so the experiment has several tasks."""
    store, ticket, evaluations = _recorded(["GANSWER2"])
    yield store, ticket, evaluations
    store.close()


@pytest.fixture(scope="module")
def tiny(data_dir: Path, standards_dir: Path):
    """Two systems on the first 40 questions, every experiment type they have data for: small
    enough for the published (quadratic) IC-12 query."""
    store, ticket, _ = _recorded(["GANSWER2", "TeBaQA"], first=40)
    yield store.experiments.quads(ticket.id), store.uris, ticket
    store.close()


def _ic12():
    [ic] = [c for c in integrity_constraints() if c.name == "ic-12"]
    return ic


def _fixture_sets() -> list[list[str]]:
    return sorted({tuple(files) for _, files, _ in _manifest()})  # type: ignore[misc]


@pytest.mark.parametrize("files", _fixture_sets(), ids=lambda f: "+".join(f))
def test_grouped_ic12_gives_the_published_verdict_on_every_fixture(
    standards_dir: Path, files: list[str]
) -> None:
    quads = []
    for name in files:
        quads += pyoxigraph.parse(
            path=str(DATACUBE / "fixtures" / name), format=pyoxigraph.RdfFormat.TURTLE
        )
    store = normalised_store(quads)
    assert run_constraint(store, _ic12()) == run_constraint(store, _ic12(), exact=True)


def test_grouped_ic12_gives_the_published_verdict_on_real_and_broken_cubes(tiny) -> None:
    quads, uris, ticket = tiny
    gqa = "http://w3id.org/gerbil/qa/vocab#"
    g = pyoxigraph.NamedNode(uris.experiment_graph(ticket.id))
    task1 = pyoxigraph.NamedNode(uris.task(ticket.id, 1))
    results = [q for q in quads if q.predicate.value == gqa + "resultOf" and q.object == task1]
    first, second = results[0].subject, results[1].subject

    def copy_of(subject, name: str) -> list:  # another observation with the same dimensions
        new = pyoxigraph.NamedNode(subject.value + name)
        return [
            pyoxigraph.Quad(new, q.predicate, q.object, g) for q in quads if q.subject == subject
        ]

    question = pyoxigraph.NamedNode(gqa + "question")
    variants = {
        "as written": quads,
        "duplicate question observation": [*quads, *copy_of(first, "-copy")],
        "duplicate task observation": [*quads, *copy_of(task1, "-copy")],
        "two questions with one id": [
            *(q for q in quads if not (q.subject == second and q.predicate == question)),
            *(
                pyoxigraph.Quad(second, question, q.object, g)
                for q in quads
                if q.subject == first and q.predicate == question
            ),
        ],
        "missing dimension value": [
            q for q in quads if not (q.subject == first and q.predicate == question)
        ],
        "literal dimension value": [
            *(q for q in quads if not (q.subject == first and q.predicate == question)),
            pyoxigraph.Quad(first, question, pyoxigraph.Literal("1"), g),
        ],
    }
    verdicts = {}
    for name, data in variants.items():
        store = normalised_store([*data, *vocabulary_triples()])
        exact = run_constraint(store, _ic12(), exact=True)
        assert run_constraint(store, _ic12()) == exact, name
        verdicts[name] = (exact, ic12_by_grouping(store))
    assert verdicts == {
        "as written": (False, False),  # the grouping decides our cubes (no fallback)
        "duplicate question observation": (True, True),
        "duplicate task observation": (True, True),
        "two questions with one id": (True, True),
        "missing dimension value": (True, None),  # the rest equal: the REC query flags it
        "literal dimension value": (False, None),
    }


def test_real_experiment_has_no_ic_violation(experiment) -> None:
    store, ticket, evaluations = experiment
    quads = store.experiments.quads(ticket.id)
    assert len({e.system for e in evaluations}) == 6
    assert datacube_violations(quads, target=ticket.uri) == []


def test_experiment_with_several_tasks_has_no_ic_violation(small) -> None:
    store, ticket, evaluations = small
    assert len(evaluations[0].tasks) >= 2
    assert datacube_violations(store.experiments.quads(ticket.id), target=ticket.uri) == []


def test_real_experiment_has_every_task_and_question_observation(experiment) -> None:
    store, ticket, evaluations = experiment
    graph = store.uris.experiment_graph(ticket.id)
    rows = list(
        store.private.query(
            f"""PREFIX qb: <http://purl.org/linked-data/cube#>
            PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#>
            SELECT (COUNT(DISTINCT ?task) AS ?tasks) (COUNT(DISTINCT ?q) AS ?qs) WHERE {{
              GRAPH <{graph}> {{ ?task qb:dataSet <{ticket.uri}> .
                                 ?q gqa:resultOf ?task ; qb:dataSet ?set . }} }}"""
        )
    )
    n_tasks = sum(len(e.tasks) for e in evaluations)
    n_questions = sum(len(t.questions) for e in evaluations for t in e.tasks.values())
    assert int(rows[0]["tasks"].value) == n_tasks == 6
    assert int(rows[0]["qs"].value) == n_questions


def _without(quads, subject, predicate):
    return [q for q in quads if not (q.subject == subject and q.predicate == predicate)]


def test_a_broken_cube_is_flagged(small) -> None:
    store, ticket, _ = small
    quads = store.experiments.quads(ticket.id)
    task1 = pyoxigraph.NamedNode(store.uris.task(ticket.id, 1))
    f1 = pyoxigraph.NamedNode("http://w3id.org/gerbil/vocab#microF1")
    annotator = pyoxigraph.NamedNode("http://w3id.org/gerbil/vocab#annotator")
    only = ["ic-11", "ic-14"]
    assert [v.check for v in datacube_violations(_without(quads, task1, f1), only=only)] == [
        "IC-14"
    ]
    no_dimension = _without(quads, task1, annotator)
    assert [v.check for v in datacube_violations(no_dimension, only=only)] == ["IC-11"]


def test_shapes_pass_on_what_the_store_serves(small) -> None:
    store, ticket, _ = small
    served = pyoxigraph.parse(
        export(store, experiment_id=ticket.id), format=pyoxigraph.RdfFormat.N_QUADS
    )
    assert shacl_violations(served, target=ticket.uri) == []
    for graph in (store.uris.catalog_graph, store.uris.dataset_graph("qald-8-train-multilingual")):
        quads = store.public.quads_for_pattern(None, None, None, pyoxigraph.NamedNode(graph))
        assert shacl_violations(quads, target=graph) == []


def test_a_broken_write_breaks_a_shape(tiny) -> None:
    quads, uris, ticket = tiny
    g = pyoxigraph.NamedNode(uris.experiment_graph(ticket.id))
    task1 = pyoxigraph.NamedNode(uris.task(ticket.id, 1))
    f1 = pyoxigraph.NamedNode("http://w3id.org/gerbil/vocab#microF1")
    annotator = pyoxigraph.NamedNode("http://w3id.org/gerbil/vocab#annotator")
    # a measure written as a plain string (GERBIL wrote literals where numbers/IRIs belong)
    broken = [*_without(quads, task1, f1), pyoxigraph.Quad(task1, f1, pyoxigraph.Literal("0.5"), g)]
    found = shacl_violations(broken)
    assert found and all("microF1" in str(v) for v in found)
    # the system as a literal instead of its IRI
    literal_system = [
        *_without(quads, task1, annotator),
        pyoxigraph.Quad(task1, annotator, pyoxigraph.Literal("gAnswer2"), g),
    ]
    assert any("annotator" in str(v) for v in shacl_violations(literal_system))


MACRO_F1_PER_ANSWER_TYPE = """
PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#>
PREFIX gerbil: <http://w3id.org/gerbil/vocab#>
PREFIX qb: <http://purl.org/linked-data/cube#>
PREFIX dct: <http://purl.org/dc/terms/>
SELECT ?system ?answerType (AVG(?f1) AS ?macroF1) (COUNT(?result) AS ?questions) WHERE {
  ?result gqa:f1 ?f1 ; gqa:question ?question ; gqa:resultOf ?task ; qb:dataSet ?set .
  ?task gerbil:annotator ?system ; gerbil:experimentType gerbil:QA .
  ?question gqa:answerType ?answerType ; dct:isPartOf <%s> .
} GROUP BY ?system ?answerType ORDER BY ?system ?answerType
"""


def test_sparql_macro_f1_per_answer_type_for_each_system(experiment) -> None:
    store, ticket, evaluations = experiment
    # What anyone sees once the experiment is public: the union of the public graphs.
    store.experiments.publish(ticket.id)
    dataset_uri = store.uris.dataset("qald-8-train-multilingual")
    rows = list(store.public.query(MACRO_F1_PER_ANSWER_TYPE % dataset_uri))
    got = {(r["system"].value, r["answerType"].value): float(r["macroF1"].value) for r in rows}
    from service import formats

    dataset = formats.read(QALD8_TRAIN).by_id()
    expected: dict[tuple[str, str], list[float]] = {}
    for ev in evaluations:
        for qs in ev.tasks[next(iter(ev.tasks))].questions:
            at = dataset[qs.question_id].answer_type
            if qs.f1 is None or at is None:
                continue
            key = (store.uris.system(ev.system), f"http://w3id.org/gerbil/qa/vocab#answerType-{at}")
            expected.setdefault(key, []).append(qs.f1)
    assert len({s for s, _ in got}) == 6
    assert len({a for _, a in got}) >= 4  # resource, number, date, boolean… in QALD-8 train
    assert got.keys() == expected.keys()
    for key, values in expected.items():
        assert got[key] == pytest.approx(sum(values) / len(values), abs=1e-12)


EXPLANATIONS = """
PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#>
SELECT ?result ?tp (COUNT(DISTINCT ?match) AS ?matches) WHERE {
  ?result gqa:resultOf <%s> ; gqa:tp ?tp .
  OPTIONAL {
    { ?result gqa:answerMatch ?match . ?match gqa:matchRule ?rule ;
        gqa:matchedGiven ?given ; gqa:matchedGold ?gold . ?result gqa:givenAnswer ?given }
    UNION
    { ?result gqa:exactAnswer ?match . ?result gqa:givenAnswer ?match }
  }
} GROUP BY ?result ?tp
"""


GQA_EXACT = "http://w3id.org/gerbil/qa/vocab#exactAnswer"


def test_every_true_positive_is_explained_in_the_graph(small) -> None:
    """Each result's true positives are its exact answers and its ``gqa:AnswerMatch``
    resources, each with its rule, a given answer that is one of the result's given answers,
    and a gold answer; the rules are codes of the vocabulary's ``gqa:matchRules``; the false and
    missed answers are the rest."""
    store, ticket, evaluations = small
    [ev] = evaluations
    graph = pyoxigraph.NamedNode(store.uris.experiment_graph(ticket.id))
    quads = store.experiments.quads(ticket.id)
    local = pyoxigraph.Store()
    local.extend(pyoxigraph.Quad(q.subject, q.predicate, q.object) for q in quads)
    qa = ev.tasks[next(iter(ev.tasks))]
    solutions = local.query(EXPLANATIONS % store.uris.task(ticket.id, 1))
    assert isinstance(solutions, pyoxigraph.QuerySolutions)
    rows = list(solutions)
    assert len(rows) == sum(1 for q in qa.questions if q.tp is not None)
    cap = EXPLAINED_PER_KIND  # exact answers and other matches: each at most this many
    for row in rows:
        tp, found = int(row["tp"].value), int(row["matches"].value)
        assert found == tp or cap <= found <= tp, row["result"]
    used = local.query(
        "SELECT DISTINCT ?rule WHERE { ?m <http://w3id.org/gerbil/qa/vocab#matchRule> ?rule }"
    )
    assert isinstance(used, pyoxigraph.QuerySolutions)
    rules = {r["rule"].value for r in used}
    vocabulary = {
        r["c"].value
        for r in store.public.query(
            "SELECT ?c WHERE { GRAPH ?g { ?c <http://www.w3.org/2004/02/skos/core#inScheme> "
            "<http://w3id.org/gerbil/qa/vocab#matchRules> } }"
        )
    }
    assert len(vocabulary) == 12 and rules <= vocabulary  # without a KB: mostly exact here
    exact = sum(1 for q in quads if q.predicate.value == GQA_EXACT)
    assert exact > 0
    false = sum(
        1 for q in quads if q.predicate.value.endswith("#falseAnswer") and q.graph_name == graph
    )
    missed = sum(1 for q in quads if q.predicate.value.endswith("#missedAnswer"))
    assert false == sum(
        min(cap, len(q.given) - len({m[0] for m in q.matches})) for q in qa.questions
    )
    assert missed == sum(
        min(cap, len(q.gold) - len({m[1] for m in q.matches})) for q in qa.questions
    )
    assert max(len(q.gold) for q in qa.questions) > cap  # the cap was put to the test


def test_shapes_run_quietly_over_dates_before_year_one(caplog: pytest.LogCaptureFixture) -> None:
    # QALD-10's gold holds "-3600000-01-01T00:00:00Z"^^xsd:dateTime (valid XSD 1.1): rdflib
    # logged a traceback for each such date, and `gerbil-qa check` printed 49 lines of them
    question = pyoxigraph.NamedNode("http://example.org/dataset/q10/question/1")
    date = pyoxigraph.Literal("-3600000-01-01T00:00:00Z", datatype=pyoxigraph.NamedNode(
        "http://www.w3.org/2001/XMLSchema#dateTime"))  # fmt: skip
    gold = pyoxigraph.NamedNode("http://w3id.org/gerbil/qa/vocab#goldAnswer")
    with caplog.at_level("WARNING"):
        found = shacl_violations([pyoxigraph.Triple(question, gold, date)])
    assert found == []
    assert [r.getMessage() for r in caplog.records] == []


def test_an_answer_match_without_its_rule_breaks_a_shape(tiny) -> None:
    quads, _uris, _ticket = tiny
    gqa = "http://w3id.org/gerbil/qa/vocab#"
    result = next(q.subject for q in quads if q.predicate.value == gqa + "resultOf")
    graph = quads[0].graph_name
    match = pyoxigraph.NamedNode(result.value + "#match-99")

    def with_match(*extra: tuple[str, object]) -> list:
        added = [
            (gqa + "answerMatch", None),
            (
                "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
                pyoxigraph.NamedNode(gqa + "AnswerMatch"),
            ),
            (gqa + "matchedGiven", pyoxigraph.Literal("8.0")),
            (gqa + "matchedGold", pyoxigraph.Literal("8")),
            *extra,
        ]
        out = list(quads)
        for p, o in added:
            subject, obj = (result, match) if o is None else (match, o)
            out.append(pyoxigraph.Quad(subject, pyoxigraph.NamedNode(p), obj, graph))  # type: ignore[arg-type]
        return out

    rule = gqa + "matchRule"
    assert shacl_violations(with_match((rule, pyoxigraph.NamedNode(gqa + "rule-numeric")))) == []
    assert any("matchRule" in str(v) for v in shacl_violations(with_match()))
    none = with_match((rule, pyoxigraph.NamedNode(gqa + "rule-none")))
    assert any("matchRule" in str(v) for v in shacl_violations(none))


INTERVALS = """
PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#>
PREFIX gerbil: <http://w3id.org/gerbil/vocab#>
SELECT ?task ?low ?high ?signature WHERE { GRAPH ?g {
  ?task gerbil:experimentType gerbil:QA ; gerbil:macroF1 ?f1 ; gqa:intervalSignature ?signature ;
        gqa:interval [ gqa:intervalOf gerbil:macroF1 ; gqa:lowerBound ?low ;
                       gqa:upperBound ?high ] .
} }
"""


def test_every_measure_is_stored_with_its_interval(small) -> None:
    """The intervals are Data Cube attributes of each task (the ICs and shapes above pass with
    them), one gqa:Interval per measure, the numbers `evaluate --intervals` prints."""
    store, ticket, evaluations = small
    [row] = list(store.private.query(INTERVALS))
    [qa_intervals] = [evaluations[0].extra["intervals"]["QA"]]
    assert [row["low"].value, row["high"].value] == [str(v) for v in qa_intervals["macroF1"]]
    assert row["signature"].value.endswith("|ci:bootstrap-percentile|n:200|seed:12345|level:0.95")
    structure = pyoxigraph.NamedNode(store.uris.experiment_structure(ticket.id))
    components = {
        q.object.value
        for q in store.private.quads_for_pattern(
            structure, pyoxigraph.NamedNode("http://purl.org/linked-data/cube#component"), None
        )
    }
    assert "http://w3id.org/gerbil/qa/vocab#component-interval" in components


def test_an_interval_upside_down_breaks_a_shape(tiny) -> None:
    quads, uris, ticket = tiny
    ci = pyoxigraph.NamedNode(uris.task(ticket.id, 1) + "#interval-macroF1")
    lower = pyoxigraph.NamedNode("http://w3id.org/gerbil/qa/vocab#lowerBound")
    g = pyoxigraph.NamedNode(uris.experiment_graph(ticket.id))
    double = pyoxigraph.NamedNode("http://www.w3.org/2001/XMLSchema#double")
    broken = [
        *_without(quads, ci, lower),
        pyoxigraph.Quad(ci, lower, pyoxigraph.Literal("2.0", datatype=double), g),
    ]
    found = shacl_violations(broken)
    assert found and any("lowerBound" in str(v) for v in found)


def test_an_interval_undefined_on_many_resamples_is_stored_without_bounds_and_counted() -> None:
    """explore-14 1: one right answer of 40; Macro F1 QALD is undefined on the ~36 % of
    resamples without it. Its gqa:Interval has no bounds (more undefined resamples than the
    2.5 % tail) and says on how many (gqa:undefinedResamples); the shapes pass; the API's
    `evaluations` read the count back as `evaluate --intervals --output json` prints it; an
    interval whose measure was always defined carries no count."""
    from service.evaluation import evaluate
    from service.evaluation.comparison import with_intervals
    from service.graph.reader import evaluations as read_back
    from service.model import Dataset, Question, QuestionText, SystemAnswer, SystemRun
    from tests.helpers import lits

    qs = tuple(
        Question(str(i), (QuestionText("en", "q?"),), answers=lits(f"g{i}")) for i in range(40)
    )
    given = {str(i): SystemAnswer(str(i), answers=lits("g0" if i == 0 else "x")) for i in range(40)}
    ev = evaluate(Dataset("onegood", qs), SystemRun("onegood", given), profile="exact")
    ev = with_intervals(ev)
    count = ev.extra["undefinedResamples"]["QA"]["macroF1QALD"]
    assert ev.extra["undefinedResamples"] == {"QA": {"macroF1QALD": count}}
    assert 300 < count < 430 and ev.extra["intervals"]["QA"]["macroF1QALD"] == [None, None]
    assert ev.extra["intervals"]["QA"]["macroF1"][0] == 0.0  # defined everywhere: bounds
    store = open_storage(None)
    try:
        dataset = Dataset("onegood", qs)
        store.catalogue.store_questions("onegood", dataset)
        ticket = store.experiments.record([ev], dataset=DatasetRef.catalogue("onegood", dataset))
        quads = store.experiments.quads(ticket.id)
        gqa = "http://w3id.org/gerbil/qa/vocab#"
        task = store.uris.task(ticket.id, 1)
        about = {
            (q.subject.value.rsplit("#", 1)[1], q.predicate.value.removeprefix(gqa)): q.object
            for q in quads
            if q.subject.value.startswith(task + "#interval-")
        }
        stored = about[("interval-macroF1QALD", "undefinedResamples")]
        integer = "http://www.w3.org/2001/XMLSchema#integer"
        assert (stored.value, stored.datatype.value) == (str(count), integer)
        assert ("interval-macroF1QALD", "lowerBound") not in about
        assert ("interval-macroF1", "lowerBound") in about
        assert ("interval-macroF1", "undefinedResamples") not in about
        assert shacl_violations(quads) == []
        [back] = read_back(quads, store.uris, ticket.id)
        assert back["undefinedResamples"] == ev.extra["undefinedResamples"]
        assert back["intervals"]["QA"]["macroF1QALD"] == [None, None]
    finally:
        store.close()
