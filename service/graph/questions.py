"""Questions of a dataset as RDF, and the checks run when a dataset is loaded (stored as RDF).

Each question gets ``dataset/{name}/question/{qid}`` with its texts and keywords (language-tagged),
features (answer type, aggregation, onlydbo, hybrid, out of scope), gold query and gold answers,
so SPARQL can join per-question results with question features. Duplicate ids keep the first
question (as :meth:`Dataset.by_id` does) and are reported as findings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeAlias
from urllib.parse import quote

from service.graph import dcat
from service.graph import nodes as n
from service.graph import terms as t
from service.graph.nodes import BlankNode, Literal, NamedNode, Quad, node
from service.graph.terms import DATAID, DCAT, DCT, FOAF, PROV, RDF, RDFS, XSD
from service.graph.uris import GQA, Uris, finding_of, question_of
from service.model import FINDING_KINDS, Dataset, Question, check_set

Object: TypeAlias = NamedNode | BlankNode | Literal
TYPE = node(RDF + "type")


def _p(ns: str, local: str) -> NamedNode:
    return node(ns + local)


@dataclass(frozen=True, slots=True)
class Finding:
    """One result of the dataset checks (``kind`` is a gqa:findingKinds notation)."""

    kind: str
    message: str
    severity: str = "warning"
    question_id: str | None = None
    language: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in FINDING_KINDS:  # a kind outside the registry: no code list entry
            raise ValueError(f"finding kind {self.kind!r} is not in FINDING_KINDS")


def _without_gold(q: Question) -> bool:
    """Whether ``q`` has neither gold answers nor a gold query and is not out of scope (the
    question ``gerbil-qa validate`` warns of: :data:`service.formats.fields.NO_GOLD`)."""
    return q.answers is None and not (q.sparql and q.sparql.strip()) and not q.out_of_scope


def _default_parser() -> Callable[[str], None] | None:
    """The project's SPARQL parser (lenient: QALD gold queries often omit PREFIX declarations)."""
    try:
        from service.sparql import parse_query
    except (ImportError, SyntaxError):  # not available (yet): the finding says it was skipped
        return None

    def parse(text: str) -> None:
        parse_query(text, dialect="lenient")

    return parse


def check_dataset(
    dataset: Dataset, *, parse: Callable[[str], None] | bool | None = True
) -> list[Finding]:
    """Run the dataset checks: gold SPARQL parses, empty gold sets, questions without gold
    (neither answers nor a query, as ``gerbil-qa validate`` warns; one finding of the dataset
    when no question has any, as it says it), duplicate ids, questions without text in a
    language of the dataset, out-of-scope questions, reader problems.

    ``parse`` raises on a query that does not parse; True picks the project's parser (the check
    is skipped, and said so, while none is available); False skips it.
    """
    from service.formats.fields import NO_GOLD  # validate's words (the module is loaded)

    parser = _default_parser() if parse is True else (parse or None)
    findings: list[Finding] = []
    from service.evaluation.languages import canonical_tag

    languages: dict[str, None] = {}  # as a run names them: QALD-9's pt_BR is pt-BR
    for q in dataset.questions:
        for lang in q.languages:
            languages.setdefault(canonical_tag(lang) if lang else lang, None)
    seen: set[str] = set()
    lacking = {q.id for q in dataset.questions if _without_gold(q)}
    every = len(lacking) > 1 and len(lacking) == len(dataset.by_id())
    if every:  # a file of questions only, its gold given apart: said once
        findings.append(
            Finding(
                "no-gold",
                f"no question has gold answers or a gold query: the {len(lacking)} questions "
                "are scored only with gold given apart",
            )
        )
    for q in dataset.questions:
        if q.id in seen:
            findings.append(
                Finding(
                    "duplicate-id",
                    f"question id {q.id!r} occurs again; the first is used",
                    "error",
                    q.id,
                )
            )
            continue
        seen.add(q.id)
        if q.out_of_scope:
            findings.append(Finding("out-of-scope", "marked OUT OF SCOPE", "warning", q.id))
        if q.answers is not None and q.answers.is_empty and not q.out_of_scope:
            findings.append(Finding("empty-gold", "the gold answer set is empty", "warning", q.id))
        if q.id in lacking and not every:
            said = f"{NO_GOLD}: it is scored only with gold given apart"
            findings.append(Finding("no-gold", said, "warning", q.id))
        for lang in languages:
            if not q.text(lang):
                findings.append(
                    Finding("missing-text", f"no question text in {lang!r}", "warning", q.id, lang)
                )
        if parser and q.sparql and not q.out_of_scope and q.sparql.strip() != "OUT OF SCOPE":
            try:
                parser(q.sparql)
            except Exception as err:
                findings.append(
                    Finding("unparsable-query", f"gold SPARQL does not parse: {err}", "error", q.id)
                )
    if parse is True and parser is None:
        findings.append(
            Finding("format", "gold SPARQL not checked: no SPARQL parser available", "warning")
        )
    for problem in dataset.problems:
        message = str(problem.without_folders())  # a file read from a path: no folders
        findings.append(Finding("format", message, problem.severity, problem.question_id))
    return findings


def question_quads(
    dataset_uri: str, dataset: Dataset, graph: NamedNode, *, withheld: bool = False
) -> list[Quad]:
    """Quads (in ``graph``) describing every question of ``dataset`` (first of duplicate ids)
    under ``dataset_uri`` (a dataset's or a dataset version's URI); ``withheld``: its gold
    is withheld (``about.gold``), so only what a participant is given (:data:`GIVEN`)."""
    out: list[Quad] = []
    ds = node(dataset_uri)
    for q in dataset.by_id().values():
        s = NamedNode(question_of(dataset_uri, q.id))
        pairs = _question(ds, q)
        if withheld:
            pairs = [(p, o) for p, o in pairs if p.value in GIVEN]
        out += [Quad(s, p, o, graph) for p, o in pairs]
    return out


def gold_quads(dataset_uri: str, dataset: Dataset, graph: NamedNode) -> list[Quad]:
    """What :func:`question_quads` leaves out of a withheld dataset's questions (its gold
    answers and queries, answer types, features, flags), in ``graph``: its gold revealed."""
    given = {
        (q.subject, q.predicate, q.object)
        for q in question_quads(dataset_uri, dataset, graph, withheld=True)
    }
    return [
        q
        for q in question_quads(dataset_uri, dataset, graph)
        if (q.subject, q.predicate, q.object) not in given
    ]


def given_only(dataset: Dataset) -> Dataset:
    """``dataset`` with what a team is given of each question (:data:`GIVEN`: its id, texts
    and keywords): the questions file of a test set whose gold is withheld."""
    from dataclasses import replace

    from service.model import Question

    asked = tuple(Question(id=q.id, texts=q.texts, language=q.language) for q in dataset.questions)
    return replace(dataset, questions=asked, problems=(), metadata=())


# what a question of a dataset whose gold is withheld says: what a participant is asked (the
# rest is its gold or derived from it: answers, queries, answer types, features, flags)
GIVEN = frozenset(
    {
        RDF + "type",
        DCT + "identifier",
        DCT + "isPartOf",
        GQA + "questionText",
        GQA + "keywords",
        RDFS + "label",
    }
)


def _question(ds: NamedNode, q: Question) -> list[tuple[NamedNode, Object]]:
    pairs: list[tuple[NamedNode, Object]] = [
        (TYPE, _p(GQA, "Question")),
        (_p(DCT, "identifier"), n.literal(q.id)),
        (_p(DCT, "isPartOf"), ds),
        (_p(GQA, "outOfScope"), n.boolean(q.out_of_scope)),
    ]
    for text in q.texts:
        if text.string and text.string.strip():
            pairs.append(
                (_p(GQA, "questionText"), n.literal(text.string.strip(), lang=text.language))
            )
        if text.keywords and text.keywords.strip():
            pairs.append(
                (_p(GQA, "keywords"), n.literal(text.keywords.strip(), lang=text.language))
            )
    if (labelled := _label_text(q)) is not None:  # tagged: pages mark it (lang=) from the tag
        pairs.append((_p(RDFS, "label"), n.literal(labelled[0], lang=labelled[1])))
    if q.answer_type is not None:
        pairs.append((_p(GQA, "answerType"), _p(GQA, f"answerType-{q.answer_type.value}")))
    for prop, value in (
        ("aggregation", q.aggregation),
        ("onlyDbo", q.onlydbo),
        ("hybrid", q.hybrid),
    ):
        if value is not None:
            pairs.append((_p(GQA, prop), n.boolean(value)))
    # the query features a dataset states (TEXT2SPARQL: SELECT, COUNT, RESULT_ORDER_MATTERS…)
    pairs += [(_p(GQA, "queryFeature"), n.literal(f)) for f in dict.fromkeys(q.features)]
    if q.sparql:
        pairs.append((_p(GQA, "goldQuery"), n.literal(q.sparql)))
    if q.pseudo_query:
        pairs.append((_p(GQA, "pseudoQuery"), n.literal(q.pseudo_query)))
    if q.answers is not None:
        values = set(map(n.answer_term, q.answers.values()))
        pairs.append((_p(GQA, "goldAnswerCount"), n.integer(len(values))))
        pairs += [(_p(GQA, "goldAnswer"), v) for v in sorted(values, key=str)]
    for item_type in q.answer_item_types:
        if (item := n.checked_iri(item_type)) is not None:
            pairs.append((_p(GQA, "answerItemType"), item))
    return pairs


def _label_text(q: Question) -> tuple[str, str] | None:
    """The text a question is labelled by, and its language: its first English text, else its
    first one."""
    texts = [(t.string.strip(), t.language) for t in q.texts if t.string and t.string.strip()]
    return next((t for t in texts if t[1] == "en"), texts[0] if texts else None)


def finding_quads(
    dataset_uri: str, findings: Sequence[Finding], checked_at: datetime, graph: NamedNode
) -> list[Quad]:
    """The findings as ``gqa:DatasetFinding`` resources (hash URIs of the dataset's document)."""
    ds = node(dataset_uri)
    out = [
        Quad(ds, _p(GQA, "checkedAt"), n.date_time(checked_at), graph),
        Quad(ds, _p(GQA, "checkSet"), n.literal(check_set()), graph),
    ]
    for k, f in enumerate(findings, start=1):
        s = NamedNode(finding_of(dataset_uri, k))
        pairs: list[tuple[NamedNode, Object]] = [
            (TYPE, _p(GQA, "DatasetFinding")),
            (_p(GQA, "findingKind"), _p(GQA, f"finding-{f.kind}")),
            (_p(GQA, "severity"), n.literal(f.severity)),
            (_p(RDFS, "comment"), n.literal(f.message)),
        ]
        if f.question_id is not None:
            pairs.append(
                (_p(GQA, "aboutQuestion"), NamedNode(question_of(dataset_uri, f.question_id)))
            )
        if f.language and (lang := t.language_iri(f.language)):
            pairs.append((_p(GQA, "aboutLanguage"), node(lang)))
        out.append(Quad(ds, _p(GQA, "finding"), s, graph))
        out += [Quad(s, p, o, graph) for p, o in pairs]
    return out


VCARD = "http://www.w3.org/2006/vcard/ns#"


def topic_pairs() -> list[tuple[NamedNode, Object]]:
    """What every QA benchmark we describe outside the catalogue is about (DCAT-AP recommends
    keywords and a theme): an uploaded dataset, a registered version."""
    return [
        (_p(DCAT, "keyword"), n.literal("question answering", lang="en")),
        (_p(DCAT, "keyword"), n.literal("benchmark", lang="en")),
        (_p(DCAT, "theme"), node(dcat.DATA_THEMES + "/TECH")),
    ]


def service_agent(uris: Uris) -> str:
    """This service as an agent (``catalog#gerbil-qa``, described in the catalogue): the
    publisher of an uploaded dataset whose author named no creator, as it makes it available."""
    return uris.catalog + "#gerbil-qa"


def generated_description(title: str, count: int | None) -> Literal:
    """The description this service writes of an upload its author did not describe (its
    ``dct:title``, its ``gqa:questionCount`` if known): marked ``gqa:generatedDescription``,
    and recognised in stores written before the mark (``service.graph.uploads``)."""
    about = f" ({count} questions)" if count is not None else ""
    return n.literal(f"The dataset file {title}{about}, uploaded for an experiment.", lang="en")


def dataset_description(ref, uris: Uris) -> list[tuple[NamedNode, Object]]:  # ref: DatasetRef
    """A dataset that is not in the catalogue (an upload), described where its results are:
    the (predicate, object) pairs of its URI."""
    title = ref.title or ref.name
    count = len(ref.dataset.by_id()) if ref.dataset is not None else None
    about = f" ({count} questions)" if count is not None else ""
    said = dict(ref.about)
    pairs: list[tuple[NamedNode, Object]] = [
        (TYPE, _p(DCAT, "Dataset")),
        (TYPE, _p(DATAID, "Dataset")),
        (TYPE, _p(PROV, "Entity")),
        (_p(DCT, "identifier"), n.literal(ref.name)),
        (_p(DCT, "title"), n.literal(title)),
    ]
    if "description" in said:
        pairs.append((_p(DCT, "description"), n.literal(said["description"][0])))
    elif ref.version_of:
        text = f"The kept file of {title}{about}, a registered version: {ref.version_of}."
        pairs.append((_p(DCT, "description"), n.literal(text, lang="en")))
    elif not ref.described:  # DCAT-AP's mandatory description, until its author gives one
        generated = generated_description(title, count)
        # marked: the author's, stated later, replaces it (``service.graph.uploads``)
        pairs += [(_p(DCT, "description"), generated), (_p(GQA, "generatedDescription"), generated)]
    if ref.version_of:  # the version it is the file of: what a reader follows to its gold's
        pairs.append((_p(PROV, "wasDerivedFrom"), node(ref.version_of)))
    pairs += topic_pairs()
    pairs += _author_pairs(ref, uris, said)
    if not ref.published_by:  # DCAT-AP's publisher: its first creator, else this service
        creators = "creators" in said
        publisher = f"{uris.dataset(ref.name)}#creator-1" if creators else service_agent(uris)
        pairs.append((_p(DCT, "publisher"), node(publisher)))
    if ref.sha256:
        pairs.append((_p(GQA, "sha256"), n.literal(ref.sha256, datatype=XSD + "hexBinary")))
    if ref.dataset is not None:
        pairs.append((_p(GQA, "questionCount"), n.integer(count or 0)))
        langs = {lang for q in ref.dataset.questions for lang in q.languages}
        for code in sorted(langs):
            if lang := dcat.language_iri(code):
                pairs.append((_p(DCT, "language"), node(lang)))
    return pairs


def _author_pairs(
    ref, uris: Uris, said: dict[str, tuple[str, ...]]
) -> list[tuple[NamedNode, Object]]:
    """What the author said of an upload (``service.dataset_about``: each with its property),
    as DCAT; the description is :func:`dataset_description`'s. The KB a run used (a file, an
    endpoint on a lab's network) is the run's: the dataset's is the author's word."""
    from service.dataset_about import ABOUT_FIELDS

    ds = uris.dataset(ref.name)
    pairs: list[tuple[NamedNode, Object]] = []
    for f in ABOUT_FIELDS:
        values = said.get(f.key, ())
        if f.key in ("description", "creatorType") or not values:  # creatorType: of each agent
            continue
        predicate = node(f.predicate)
        if f.key == "creators":  # agents, described by author_triples
            objects: list[Object] = [node(f"{ds}#creator-{k}") for k in range(1, len(values) + 1)]
        elif f.kind == "contact":
            objects = [node(f"{ds}#contact")]
        elif f.kind == "dataset":
            objects = [node(uris.dataset(values[0]))]
            pairs.append((_p(DCT, "isVersionOf"), objects[0]))
        elif f.key == "gold":  # withheld, the one choice: a flag readers ask for
            objects = [n.boolean(True)]
        elif f.kind == "iri":
            objects = [node(values[0])]
        else:
            objects = [n.literal(values[0])]
        pairs += [(predicate, o) for o in objects]
    return pairs


def author_triples(ref, uris: Uris) -> list[tuple[NamedNode, NamedNode, Object]]:
    """The resources the author's statements link to, described (creators, contact, licence),
    and the previous version's link to this one (``dcat:hasVersion``)."""
    said = dict(ref.about)
    ds = uris.dataset(ref.name)
    out: list[tuple[NamedNode, NamedNode, Object]] = []
    kind = said.get("creatorType", ())
    for k, name in enumerate(said.get("creators", ()), start=1):
        agent = node(f"{ds}#creator-{k}")
        out += [(agent, TYPE, _p(FOAF, "Agent")), (agent, _p(FOAF, "name"), n.literal(name))]
        if kind:  # DCAT-AP's ADMS publisher type, described (concept, scheme, label)
            out.append((agent, _p(DCT, "type"), node(dcat.PUBLISHER_TYPES + kind[0])))
    if kind and "creators" in said:
        out += dcat.linked_descriptions([dcat.PUBLISHER_TYPES + kind[0]])
    if "contact" in said:
        contact, value = node(f"{ds}#contact"), said["contact"][0]
        out += [(contact, TYPE, _p(VCARD, "Kind")), (contact, _p(VCARD, "fn"), n.literal(value))]
        if value.startswith(("http://", "https://")):
            out.append((contact, _p(VCARD, "hasURL"), node(value)))
        elif value.lower().startswith("mailto:"):  # an IRI already (checked: dataset_about)
            out.append((contact, _p(VCARD, "hasEmail"), node(value)))
        else:
            out.append((contact, _p(VCARD, "hasEmail"), node(f"mailto:{quote(value, safe='@')}")))
    if "license" in said:  # DCAT-AP's range: a licence document
        out.append((node(said["license"][0]), TYPE, _p(DCT, "LicenseDocument")))
    if "previousVersion" in said:
        before = node(uris.dataset(said["previousVersion"][0]))
        out.append((before, _p(DCAT, "hasVersion"), node(ds)))
    return out


def linked_descriptions(pairs: list[tuple[NamedNode, Object]]) -> list[dcat.Triple]:
    """What DCAT-AP asks to see described of the IRIs ``pairs`` link to (languages…)."""
    return list(dcat.linked_descriptions(o.value for _, o in pairs if isinstance(o, NamedNode)))
