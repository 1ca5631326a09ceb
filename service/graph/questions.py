"""Questions of a dataset as RDF, and the checks run when a dataset is loaded (stored as RDF).

Each question gets ``dataset/{name}/question/{qid}`` with its texts and keywords (language-tagged),
features (answer type, aggregation, onlydbo, hybrid, out of scope), gold query and gold answers,
so SPARQL can join per-question results with question features. Duplicate ids keep the first
question (as :meth:`Dataset.by_id` does) and are reported as findings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from service.graph import terms as t
from service.graph.terms import DATAID, DCAT, DCT, PROV, RDF, RDFS, XSD, iri, literal
from service.graph.uris import GQA, Uris
from service.model import Dataset, Question

TYPE = iri(RDF + "type")


def _p(ns: str, local: str) -> str:
    return f"<{ns}{local}>"


@dataclass(frozen=True, slots=True)
class Finding:
    """One result of the dataset checks (``kind`` is a gqa:findingKinds notation)."""

    kind: str
    message: str
    severity: str = "warning"
    question_id: str | None = None
    language: str | None = None


def _default_parser() -> Callable[[str], None] | None:
    """The project's SPARQL parser (lenient: QALD gold queries often omit PREFIX declarations)."""
    try:
        from service.sparql import parse_query  # type: ignore[attr-defined]
    except (ImportError, SyntaxError):  # not available (yet): the finding says it was skipped
        return None

    def parse(text: str) -> None:
        parse_query(text, dialect="lenient")

    return parse


def check_dataset(
    dataset: Dataset, *, parse: Callable[[str], None] | bool | None = True
) -> list[Finding]:
    """Run the dataset checks: gold SPARQL parses, empty gold sets, duplicate ids, questions
    without text in a language of the dataset, out-of-scope questions, reader problems.

    ``parse`` raises on a query that does not parse; True picks the project's parser (the check
    is skipped, and said so, while none is available); False skips it.
    """
    parser = _default_parser() if parse is True else (parse or None)
    findings: list[Finding] = []
    languages: dict[str, None] = {}
    for q in dataset.questions:
        for lang in q.languages:
            languages.setdefault(lang, None)
    seen: set[str] = set()
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
        findings.append(Finding("format", str(problem), problem.severity, problem.question_id))
    return findings


def question_triples(name: str, dataset: Dataset, uris: Uris) -> list[str]:
    """N-Triples lines describing every question of ``dataset`` (first of duplicate ids)."""
    out: list[str] = []
    ds = iri(uris.dataset(name))
    for q in dataset.by_id().values():
        out += _question(iri(uris.question(name, q.id)), ds, q)
    return out


def _question(s: str, ds: str, q: Question) -> list[str]:
    pairs: list[tuple[str, str]] = [
        (TYPE, _p(GQA, "Question")),
        (_p(DCT, "identifier"), literal(q.id)),
        (_p(DCT, "isPartOf"), ds),
        (_p(GQA, "outOfScope"), t.boolean(q.out_of_scope)),
    ]
    for text in q.texts:
        if text.string and text.string.strip():
            pairs.append(
                (_p(GQA, "questionText"), literal(text.string.strip(), lang=text.language))
            )
        if text.keywords and text.keywords.strip():
            pairs.append((_p(GQA, "keywords"), literal(text.keywords.strip(), lang=text.language)))
    first = q.text("en") or next((x.string for x in q.texts if x.string), None)
    if first:
        pairs.append((_p(RDFS, "label"), literal(first.strip())))
    if q.answer_type is not None:
        pairs.append((_p(GQA, "answerType"), _p(GQA, f"answerType-{q.answer_type.value}")))
    for prop, value in (
        ("aggregation", q.aggregation),
        ("onlyDbo", q.onlydbo),
        ("hybrid", q.hybrid),
    ):
        if value is not None:
            pairs.append((_p(GQA, prop), t.boolean(value)))
    if q.sparql:
        pairs.append((_p(GQA, "goldQuery"), literal(q.sparql)))
    if q.pseudo_query:
        pairs.append((_p(GQA, "pseudoQuery"), literal(q.pseudo_query)))
    if q.answers is not None:
        values = {t.answer_term(v) for v in q.answers.values()}
        pairs.append((_p(GQA, "goldAnswerCount"), t.integer(len(values))))
        pairs += [(_p(GQA, "goldAnswer"), v) for v in sorted(values)]
    for item_type in q.answer_item_types:
        if t.is_valid_iri(item_type):
            pairs.append((_p(GQA, "answerItemType"), iri(item_type)))
    return [f"{s} {p} {o} ." for p, o in pairs]


def finding_triples(name: str, findings: list[Finding], uris: Uris, checked_at) -> list[str]:
    """The findings as ``gqa:DatasetFinding`` resources (hash URIs of the dataset)."""
    ds = iri(uris.dataset(name))
    out = [f"{ds} {_p(GQA, 'checkedAt')} {t.date_time(checked_at)} ."]
    for n, f in enumerate(findings, start=1):
        s = iri(uris.dataset_finding(name, n))
        pairs = [
            (TYPE, _p(GQA, "DatasetFinding")),
            (_p(GQA, "findingKind"), _p(GQA, f"finding-{f.kind}")),
            (_p(GQA, "severity"), literal(f.severity)),
            (_p(RDFS, "comment"), literal(f.message)),
        ]
        if f.question_id is not None:
            pairs.append((_p(GQA, "aboutQuestion"), iri(uris.question(name, f.question_id))))
        if f.language and (lang := t.language_iri(f.language)):
            pairs.append((_p(GQA, "aboutLanguage"), iri(lang)))
        out.append(f"{ds} {_p(GQA, 'finding')} {s} .")
        out += [f"{s} {p} {o} ." for p, o in pairs]
    return out


def dataset_description_triples(ref, uris: Uris) -> list[str]:  # ref: results.DatasetRef
    """A dataset that is not in the catalogue (an upload), described where its results are."""
    ds = iri(uris.dataset(ref.name))
    pairs = [
        (TYPE, _p(DCAT, "Dataset")),
        (TYPE, _p(DATAID, "Dataset")),
        (TYPE, _p(PROV, "Entity")),
        (_p(DCT, "identifier"), literal(ref.name)),
        (_p(DCT, "title"), literal(ref.title or ref.name)),
    ]
    if ref.sha256:
        pairs.append((_p(GQA, "sha256"), literal(ref.sha256, datatype=XSD + "hexBinary")))
    if ref.dataset is not None:
        pairs.append((_p(GQA, "questionCount"), t.integer(len(ref.dataset.by_id()))))
        langs = {lang for q in ref.dataset.questions for lang in q.languages}
        for code in sorted(langs):
            if lang := t.language_iri(code):
                pairs.append((_p(DCT, "language"), iri(lang)))
    return [f"{ds} {p} {o} ." for p, o in pairs]
