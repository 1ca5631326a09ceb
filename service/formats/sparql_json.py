"""SPARQL 1.1 Query Results JSON, as QALD and eQALD files embed it, read leniently.

Real files bend the W3C format: ``"type": "typed-literal"`` (the 2008 note), ``"results": {}``,
both ``results`` and ``boolean``, ``"type": "uri"`` values in angle brackets or holding a
literal, bindings of variables missing from ``head.vars``. Values are kept exactly as written
(the scorer profile decides what matches); each oddity is reported once per answer set.
"""

from __future__ import annotations

import re
from typing import Any

from service.formats.base import Report, Step
from service.formats.terms import element_term
from service.model import AnswerSet, AnswerType, Row, Term, TermKind, normalise_answer_type
from service.valid_terms import is_valid_iri, valid_term

TERM_TYPES = {
    "uri": TermKind.IRI,
    "literal": TermKind.LITERAL,
    "typed-literal": TermKind.LITERAL,
    "bnode": TermKind.BNODE,
}


_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s<>\"{}|\\^`]+")


def looks_like_iri(value: str) -> bool:
    """``scheme:rest`` with an RFC 3986 scheme and no character an IRI cannot hold."""
    return _IRI.fullmatch(value) is not None


def count_raw_answers(answers: Any) -> int:
    """How many answers a question's raw ``answers`` value holds, counted without building any:
    the bindings of each results object (``results.bindings``, eQALD's ``bindings``), 1 for a
    boolean or any other entry (QALD-5's ``{"string": …}``, one per answer); for the limits
    (:meth:`~service.formats.base.Report.count_answers`), so an oversized file is refused
    before its rows are read."""
    entries = answers if type(answers) is list else [answers] if type(answers) is dict else []
    count = 0
    for entry in entries:
        bindings = None
        if type(entry) is dict:
            results = entry.get("results")
            if type(results) is dict:
                bindings = results.get("bindings")
            if bindings is None:
                bindings = entry.get("bindings")
        count += len(bindings) if type(bindings) is list else 1
    return count


def read_results(
    value: Any, report: Report, *, at: tuple[Step, ...], qid: str | None, bindings_key: bool
) -> AnswerSet | None:
    """One results object; ``None`` after reporting an error when it cannot be read.

    ``bindings_key`` also accepts eQALD's ``{"bindings": [...]}`` without ``results``.
    """
    if not isinstance(value, dict):
        report.error(
            "answers entry is not an object",
            at=at,
            question_id=qid,
            expected='SPARQL JSON results {"head", "results": {"bindings"}} or {"head", "boolean"}',
        )
        return None
    head_vars = _read_head(value.get("head"), report, at=(*at, "head"), qid=qid)
    boolean = value.get("boolean")
    if boolean is not None and not isinstance(boolean, bool):
        report.error(
            f"boolean is {kind_of(boolean)}",
            at=(*at, "boolean"),
            question_id=qid,
            expected="true or false",
        )
        boolean = None
    bindings: Any = None
    bindings_at: tuple[Step, ...] = (*at, "results", "bindings")
    results = value.get("results")
    if results is not None:
        if not isinstance(results, dict):
            report.error(
                f"results is {kind_of(results)}",
                at=(*at, "results"),
                question_id=qid,
                expected='an object {"bindings": [...]}',
            )
        else:
            bindings = results.get("bindings")  # "results": {} is an empty answer (QALD-7)
    if bindings is None and bindings_key and "bindings" in value:
        bindings, bindings_at = value["bindings"], (*at, "bindings")
    rows = _read_bindings(bindings, report, at=bindings_at, qid=qid, head=head_vars)
    if rows is None:
        return None
    if boolean is not None and results is not None:
        if rows:
            report.warn(
                "both results and boolean are given; the bindings are used, the boolean dropped",
                at=(*at, "boolean"),
                question_id=qid,
                expected="either results or boolean",
            )
            boolean = None
        else:
            report.warn(
                "both results and boolean are given; the boolean is used (there are no bindings)"
                + (
                    ", except by the qald6 profile, which reads the empty bindings array"
                    if isinstance(bindings, list)
                    else ""
                ),
                at=(*at, "boolean"),
                question_id=qid,
                expected="either results or boolean",
            )
    # QALD-6 evaluation.rb reads a results.bindings array whenever there is one, even empty.
    from_results = bindings_at[-2:] == ("results", "bindings")
    empty_bindings = boolean is not None and isinstance(bindings, list) and from_results
    return AnswerSet(
        vars=head_vars, rows=tuple(rows), boolean=boolean, empty_bindings=empty_bindings
    )


def _read_head(head: Any, report: Report, *, at: tuple[Step, ...], qid: str | None) -> tuple:
    if head is None:
        return ()
    if not isinstance(head, dict):
        report.error(f"head is {kind_of(head)}", at=at, question_id=qid, expected="an object")
        return ()
    names = head.get("vars", [])
    if not isinstance(names, list) or not all(isinstance(v, str) for v in names):
        report.error(
            "head.vars is not a list of names",
            at=(*at, "vars"),
            question_id=qid,
            expected="a list of strings",
        )
        return ()
    link = head.get("link")
    if link:
        report.warn("head.link is not kept", at=(*at, "link"), question_id=qid, expected="no links")
    return tuple(dict.fromkeys(names))


def _read_bindings(
    bindings: Any,
    report: Report,
    *,
    at: tuple[Step, ...],
    qid: str | None,
    head: tuple[str, ...],
) -> list[Row] | None:
    if bindings is None:
        return []
    if not isinstance(bindings, list):
        report.error(
            f"bindings is {kind_of(bindings)}", at=at, question_id=qid, expected="a list of objects"
        )
        return None
    rows: list[Row] = []
    oddities = Oddities()
    ok = True
    for i, binding in enumerate(bindings):
        if not isinstance(binding, dict):
            report.error(
                f"binding is {kind_of(binding)}",
                at=(*at, i),
                question_id=qid,
                expected="an object mapping variable names to terms",
            )
            ok = False
            continue
        row: dict[str, Term] = {}
        for var, raw in binding.items():
            term = read_term(raw, report, at=(*at, i, var), qid=qid, oddities=oddities)
            if term is None:
                ok = False
                continue
            if head and var not in head:
                oddities.note(f"variable ?{var} is bound but not in head.vars", (*at, i, var))
            row[var] = term
        rows.append(row)
    oddities.report(report, qid=qid)
    return rows if ok else None


class Oddities:
    """Tolerated oddities of one answer set: reported once each, where first seen, with a count."""

    def __init__(self) -> None:
        self._seen: dict[str, list] = {}

    def note(self, message: str, at: tuple[Step, ...]) -> None:
        entry = self._seen.setdefault(message, [at, 0])
        entry[1] += 1

    def report(self, report: Report, *, qid: str | None) -> None:
        for message, (at, count) in self._seen.items():
            suffix = f" ({count} values)" if count > 1 else ""
            report.warn(message + suffix, at=at, question_id=qid)


def _oddities(term: Term) -> list[str]:
    """What is odd about ``term``, including how it is stored when it is no valid RDF term
    (``service/valid_terms.py``: the value is kept as written for scoring)."""
    stored = valid_term(term)
    if term.kind is TermKind.IRI:
        if stored.changed:
            if term.value.startswith("<") and term.value.endswith(">"):
                odd = "IRI value written in angle brackets"
            elif not looks_like_iri(term.value):
                odd = "value of type uri is not an absolute IRI"
            else:
                odd = f"{term.value[:80]!r} is not a valid IRI"
            return [f"{odd} (kept as written; stored {stored.rule})"]
        return []
    found = ["empty literal value"] if term.kind is TermKind.LITERAL and term.value == "" else []
    if stored.changed:
        found.append(stored.warning())
    return found


def read_term(
    raw: Any,
    report: Report,
    *,
    at: tuple[Step, ...],
    qid: str | None,
    oddities: Oddities,
) -> Term | None:
    expected = '{"type": "uri"|"literal"|"bnode", "value": "…"} (SPARQL 1.1 JSON results)'
    if not isinstance(raw, dict):
        report.error(f"term is {kind_of(raw)}", at=at, question_id=qid, expected=expected)
        return None
    declared = raw.get("type")
    kind = TERM_TYPES.get(declared) if isinstance(declared, str) else None
    value = raw.get("value")
    if kind is None and isinstance(declared, str) and isinstance(value, str):
        # Answer types used as term types in real files ("resource", "list", "number", "text"):
        # read as the term that answer type stands for.
        guessed = _term_of_answer_type(declared, value)
        if guessed is not None:
            oddities.note(
                f"non-standard term type {declared!r} read as {guessed.kind.value}", (*at, "type")
            )
            return guessed
    if kind is None:
        report.error(
            f"unknown term type {raw.get('type')!r}",
            at=(*at, "type"),
            question_id=qid,
            expected='"uri", "literal", "typed-literal" or "bnode"',
        )
        return None
    if not isinstance(value, str):
        report.error(
            f"term value is {kind_of(value)}",
            at=(*at, "value"),
            question_id=qid,
            expected="a string",
        )
        return None
    datatype, lang = raw.get("datatype"), raw.get("xml:lang")
    for key, got in (("datatype", datatype), ("xml:lang", lang)):
        if got is not None and not isinstance(got, str):
            report.error(
                f"{key} is {kind_of(got)}", at=(*at, key), question_id=qid, expected="a string"
            )
            return None
    unknown = [k for k in raw if k not in ("type", "value", "datatype", "xml:lang")]
    if unknown:
        oddities.note(f"term keys {unknown} are not kept", (*at, unknown[0]))
    if kind is not TermKind.LITERAL and (datatype or lang):
        oddities.note(f"a {raw['type']} cannot have a datatype or language", at)
        datatype = lang = None
    term = Term(value, kind, datatype or None, lang or None)
    for odd in _oddities(term):
        oddities.note(odd, (*at, "value"))
    return term


def _term_of_answer_type(declared: str, value: str) -> Term | None:
    answer_type = normalise_answer_type(declared)
    if answer_type is AnswerType.RESOURCE:
        return Term.iri(value)
    if answer_type is AnswerType.STRING:
        return Term.literal(value)
    if answer_type is AnswerType.NUMBER:
        return element_term("number", value)
    if answer_type is AnswerType.DATE:
        return element_term("date", value)
    if answer_type is AnswerType.BOOLEAN:
        return element_term("boolean", value)
    return None


# --- the fast path (see service.formats.qald_json.plain_question) ---------------------------


def _plain_iri(value: str) -> bool:
    """A valid IRI the careful reader takes without a word: :func:`looks_like_iri` too, which
    for a valid IRI only adds that something follows the scheme's colon."""
    if not is_valid_iri(value):
        return False
    if value.isascii():  # no character a valid IRI holds is \s or a bracket of _IRI in ASCII
        return value.index(":") < len(value) - 1
    return _IRI.fullmatch(value) is not None  # (Unicode spaces are \s but IRI characters)


class NotPlain(Exception):
    """Raised by the fast path where the careful reader would report or special-case something."""


class PlainTerms:
    """The terms built by one read, each distinct term once (files repeat IRIs a lot), and the
    IRIs already checked."""

    __slots__ = ("iris", "literals")

    def __init__(self) -> None:
        self.iris: dict[str, Term] = {}
        self.literals: dict[tuple[str, str | None, str | None], Term] = {}

    def term(self, raw: Any) -> Term:
        """A well-formed SPARQL JSON term that the careful reader reads without a finding."""
        if type(raw) is not dict:
            raise NotPlain
        kind, value = raw.get("type"), raw.get("value")
        if type(value) is not str:
            raise NotPlain
        if kind == "uri":
            term = self.iris.get(value)
            if term is None:
                if len(raw) != 2 or not _plain_iri(value):
                    raise NotPlain
                term = self.iris[value] = Term(value, TermKind.IRI)
            elif len(raw) != 2:
                raise NotPlain
            return term
        if (kind != "literal" and kind != "typed-literal") or not value:
            raise NotPlain
        datatype, lang = raw.get("datatype"), raw.get("xml:lang")
        if len(raw) != 2 + ("datatype" in raw) + ("xml:lang" in raw):
            raise NotPlain
        if (datatype is not None and type(datatype) is not str) or (
            lang is not None and type(lang) is not str
        ):
            raise NotPlain
        if datatype and lang:
            raise NotPlain
        key = (value, datatype or None, lang or None)
        term = self.literals.get(key)
        if term is None:
            term = Term(value, TermKind.LITERAL, key[1], key[2])
            if valid_term(term).changed:
                raise NotPlain  # the careful reader says how it is stored
            self.literals[key] = term
        return term


def plain_results(value: Any, terms: PlainTerms) -> AnswerSet:
    """A well-formed results object as :func:`read_results` reads it (``bindings_key`` False)
    when that reports nothing; NotPlain otherwise."""
    if type(value) is not dict:
        raise NotPlain
    head = value.get("head")
    names: dict[str, None] = {}
    if head is not None:
        if type(head) is not dict or head.get("link"):
            raise NotPlain
        listed = head.get("vars", [])
        if type(listed) is not list:
            raise NotPlain
        for name in listed:
            if type(name) is not str:
                raise NotPlain
            names[name] = None
    boolean, results = value.get("boolean"), value.get("results")
    if boolean is not None and (type(boolean) is not bool or results is not None):
        raise NotPlain
    rows: list[Row] = []
    if results is not None:
        if type(results) is not dict:
            raise NotPlain
        bindings = results.get("bindings")
        if bindings is not None:
            if type(bindings) is not list:
                raise NotPlain
            iris, term = terms.iris, terms.term
            for binding in bindings:
                if type(binding) is not dict:
                    raise NotPlain
                row: dict[str, Term] = {}
                for var, raw in binding.items():
                    if names and var not in names:
                        raise NotPlain  # a variable missing from head.vars is reported
                    # IRIs inline: most terms are IRIs, and a call per term is half the cost.
                    if type(raw) is dict and len(raw) == 2 and raw.get("type") == "uri":
                        value = raw.get("value")
                        found = iris.get(value)
                        if found is None:
                            if type(value) is not str or not _plain_iri(value):
                                raise NotPlain
                            found = iris[value] = Term(value, TermKind.IRI)
                        row[var] = found
                    else:
                        row[var] = term(raw)
                rows.append(row)
    return AnswerSet(vars=tuple(names), rows=tuple(rows), boolean=boolean)


def write_results(answers: AnswerSet, *, bindings_only: bool = False) -> dict[str, Any]:
    """The SPARQL JSON results object for ``answers`` (eQALD's ``bindings_only`` shape too)."""
    out: dict[str, Any] = {}
    if answers.vars or not bindings_only:
        out["head"] = {"vars": list(answers.vars)} if answers.vars else {}
    if answers.boolean is not None:
        if answers.empty_bindings:
            out["results"] = {"bindings": []}
        out["boolean"] = answers.boolean
        return out
    bindings = [{var: write_term(t) for var, t in row.items()} for row in answers.rows]
    if bindings_only:
        out["bindings"] = bindings
    else:
        out["results"] = {"bindings": bindings}
    return out


def write_term(term: Term) -> dict[str, str]:
    out = {"type": term.kind.value, "value": term.value}
    if term.datatype:
        out["datatype"] = term.datatype
    if term.lang:
        out["xml:lang"] = term.lang
    return out


def kind_of(value: Any) -> str:
    """``'a list'``, ``'null'``… for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return "a number"
