"""QALD-XML (QALD-1..5, some QALD-7 files).

``<dataset id>`` holds ``<question id answertype aggregation onlydbo hybrid>`` elements with
``<string lang>``, ``<keywords lang>``, ``<query>`` or ``<pseudoquery>`` and
``<answers><answer>…</answer></answers>``. An ``<answer>`` is one row; its children
(``<uri>``, ``<string>``, ``<date>``, ``<number>``, ``<boolean>``) or its bare text are the
row's bindings, named after the element (see :mod:`service.formats.terms`). Text is stripped
of surrounding whitespace; CDATA is optional; a missing ``lang`` means English (QALD-1/2).

Parsed with defusedxml (no DTDs, no entity declarations, no external references), imported
when first needed so that importing the formats stays cheap.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from typing import Any, NoReturn

from service.formats.base import (
    UTF32_BOMS,
    Format,
    Report,
    Source,
    check_question_count,
    doubled_bom,
    fail,
)
from service.formats.fields import (
    FLAGS,
    OUT_OF_SCOPE,
    check_answertype,
    check_questions,
    element_answers,
    eqald_losses,
    language_read_with,
    qald_question,
    text2sparql_losses,
)
from service.formats.terms import (
    BARE,
    ELEMENTS,
    element_for,
    element_term,
    is_date,
    numeric_datatype,
)
from service.model import (
    AnswerSet,
    Dataset,
    Question,
    QuestionText,
)
from service.valid_terms import valid_term

NAME = "qald-xml"
DEFAULT_LANGUAGE = "en"  # QALD-1/2 files have no lang attribute: their questions are English
_ROOT = re.compile(r"(<\?xml[^>]*\?>|<!--.*?-->|\s)*<dataset[\s>/]", re.DOTALL)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
# Characters XML 1.0 cannot carry, even escaped. Compiled when first needed: the surrogate
# range makes ``re`` build a large bitmap (about 1 ms), which reading JSON should not pay.
_NOT_XML_CLASS = "[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]"


@lru_cache(maxsize=1)
def _not_xml() -> re.Pattern[str]:
    return re.compile(_NOT_XML_CLASS)


def sniff(src: Source) -> bool:
    return _ROOT.match(src.head) is not None


class Node:
    """An element with the position of its start tag (ElementTree does not keep one).

    A plain class: a dataclass would cost a millisecond at every import of the formats.
    """

    __slots__ = ("attrib", "children", "column", "index", "line", "parent", "parts", "tag")

    def __init__(
        self,
        tag: str,
        attrib: dict[str, str],
        line: int,
        column: int,
        parent: Node | None = None,
        index: int = 1,  # among the parent's children of the same tag, from 1
    ) -> None:
        self.tag = tag
        self.attrib = attrib
        self.line = line
        self.column = column
        self.parent = parent
        self.index = index
        self.children: list[Node] = []
        self.parts: list[str] = []

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def path(self) -> str:
        """``/dataset/question[3]/answers[1]``; built on demand (deep files would make storing
        every path quadratic)."""
        steps = []
        node: Node | None = self
        while node is not None:
            steps.append(f"{node.tag}[{node.index}]" if node.parent else node.tag)
            node = node.parent
        return "/" + "/".join(reversed(steps))

    def where(self) -> dict[str, Any]:
        return {"line": self.line, "column": self.column, "xml_path": self.path}


class _Builder:
    """An ElementTree parser target that records where each element starts."""

    def __init__(self) -> None:
        self.parser: Any = None
        self.stack: list[Node] = []
        self.root: Node | None = None
        self._counts: list[dict[str, int]] = [{}]

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        counts = self._counts[-1]
        counts[tag] = counts.get(tag, 0) + 1
        expat = self.parser.parser
        parent = self.stack[-1] if self.stack else None
        node = Node(
            tag,
            dict(attrib),
            expat.CurrentLineNumber,
            expat.CurrentColumnNumber + 1,
            parent,
            counts[tag],
        )
        if parent is not None:
            parent.children.append(node)
        else:
            self.root = node
        self.stack.append(node)
        self._counts.append({})

    def end(self, tag: str) -> None:
        self.stack.pop()
        self._counts.pop()

    def data(self, text: str) -> None:
        if self.stack:
            self.stack[-1].parts.append(text)

    def close(self) -> Node | None:
        return self.root


def parse(src: Source) -> Node:
    """The element tree of ``src``; FormatError with line, column and what was expected."""
    from defusedxml.ElementTree import DefusedXMLParser

    builder = _Builder()
    parser = DefusedXMLParser(target=builder, forbid_dtd=True)
    builder.parser = parser
    try:
        root = _feed(src, parser, builder)
    except BaseException:
        # The error's traceback holds this frame in a cycle until the cyclic collector comes
        # round: empty what the builder holds now (a hostile 100,000-deep file left ~70 MB).
        release(builder.root)
        builder.root = None
        builder.stack.clear()
        builder._counts.clear()
        raise
    finally:
        # The parser holds the builder as its target (a cycle), and expat's state for every
        # element still open: the traceback keeps the parser, not what it holds.
        builder.parser = None
        parser.parser = parser._parser = parser.target = parser._target = None
    if root is None:
        fail(src, "no root element", expected="<dataset>")
    return root


def release(root: Node | None) -> None:
    """Break a tree's parent/children cycles once it was read (or refused), so that reference
    counting frees it at once instead of the cyclic collector, whenever it comes round (the
    uploads of one soak run held 330 MB)."""
    todo = [root] if root is not None else []
    while todo:
        node = todo.pop()
        todo.extend(node.children)
        node.children = []
        node.parent = None


def _feed(src: Source, parser: Any, builder: _Builder) -> Node | None:
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import ParseError

    if src.data[:4] in UTF32_BOMS:  # expat has no UTF-32: said as such, not "invalid token"
        src.text  # noqa: B018 - raises the FormatError saying it
    try:
        parser.feed(src.data)
        return parser.close()
    except ParseError as err:
        _syntax_error(src, err, builder)
    except DefusedXmlException as err:
        expected = "XML without DTD, entity declarations or external references"
        _fail_where_expat_is(src, parser.parser, _refused(err), expected)
    except (LookupError, UnicodeError, ValueError) as err:
        # An encoding expat cannot use (unknown, or multi-byte) from the XML declaration.
        if not isinstance(err, LookupError | UnicodeError) and "encoding" not in str(err):
            raise
        expected = "UTF-8, UTF-16, ISO-8859-1 or another single-byte encoding"
        _fail_where_expat_is(src, parser.parser, f"cannot decode the file: {err}", expected)


def _refused(err: Any) -> str:
    """defusedxml's refusal in words (its str() is a Python repr: ``DTDForbidden(name=…)``)."""
    from defusedxml import DTDForbidden

    if isinstance(err, DTDForbidden):  # forbid_dtd: the first refusal of a hostile file
        what = f"a document type declaration (<!DOCTYPE {err.name}>)"
    else:
        what = "an entity declaration or a reference to an external resource"
    return f"refused: {what}; QALD-XML needs none, and it could make a reader fetch or expand"


def _fail_where_expat_is(src: Source, expat: Any, message: str, expected: str) -> NoReturn:
    fail(
        src,
        message,
        line=expat.CurrentLineNumber,
        column=expat.CurrentColumnNumber + 1,
        expected=expected,
    )


def _syntax_error(src: Source, err: Any, builder: _Builder) -> NoReturn:
    line, offset = getattr(err, "position", (None, None))
    if line == 1 and src.data.startswith(b"\xef\xbb\xbf" * 2):
        raise doubled_bom(src.name) from None
    column = offset + 1 if offset is not None else None
    message = str(err).split(":", 1)[0] if ": line" in str(err) else str(err)
    expected = "well-formed XML"
    if message == "mismatched tag" and builder.stack:
        open_node = builder.stack[-1]
        found = _closing_tag_at(src.data, line, offset)
        message = (
            f"mismatched tag: found </{found}> but <{open_node.tag}> "
            f"(opened at line {open_node.line}) is still open"
        )
        expected = f"</{open_node.tag}>"
    elif builder.stack:
        expected += f" inside <{builder.stack[-1].tag}> (opened at line {builder.stack[-1].line})"
    fail(
        src,
        f"not well-formed XML: {message}",
        line=line,
        column=column,
        path=builder.stack[-1].path if builder.stack else None,
        expected=expected,
    )


def _closing_tag_at(data: bytes, line: int | None, offset: int | None) -> str:
    """The name of the end tag expat stopped at (its message does not say)."""
    if line is None or offset is None:
        return "?"
    lines = data.split(b"\n", line)
    if len(lines) < line:
        return "?"
    text = lines[line - 1].decode("utf-8", "replace")
    found = re.match(r"</?\s*([^\s>/]+)", text[max(offset - 2, 0) :]) or re.match(
        r"([^\s>/]+)", text[offset:]
    )
    return found.group(1) if found else "?"


def read(src: Source) -> Dataset:
    root = parse(src)
    try:
        return _read_tree(src, root)
    finally:
        release(root)


def _read_tree(src: Source, root: Node) -> Dataset:
    report = Report(src)
    if root.tag != "dataset":
        report.error(f"root element is <{root.tag}>", **root.where(), expected="<dataset>")
        report.finish()
    metadata = tuple((f"dataset.{k}", v) for k, v in root.attrib.items() if k != "id")
    nodes = [n for n in root.children if n.tag == "question"]
    for other in root.children:
        if other.tag != "question":
            report.warn(
                f"element <{other.tag}> is not kept", **other.where(), expected="<question>"
            )
    questions: list[Question] = []
    places: list[dict[str, Any]] = []
    if check_question_count(report, len(nodes)):
        for node in nodes:
            answers = next((c for c in node.children if c.tag == "answers"), None)
            if answers is not None:
                report.count_answers(
                    sum(1 for c in answers.children if c.tag == "answer" or c.tag in ELEMENTS),
                    **answers.where(),
                    question_id=node.attrib.get("id"),
                )
            q = _read_question(node, report)
            if q is not None:
                questions.append(q)
                places.append(node.where())
        check_questions(questions, report, places)
    return Dataset(
        id=root.attrib.get("id"),
        questions=tuple(questions),
        format=NAME,
        problems=report.finish(),
        metadata=metadata,
    )


def _read_question(node: Node, report: Report) -> Question | None:
    qid = node.attrib.get("id")
    if qid is None:
        report.error("question has no id attribute", **node.where(), expected='id="…"')
        return None
    answertype = node.attrib.get("answertype")
    check_answertype(answertype, report, **node.where(), question_id=qid)
    flags: dict[str, bool | None] = {}
    extra: list[tuple[str, str]] = []
    for name in FLAGS:
        raw = node.attrib.get(name)
        if raw is None or raw.strip().lower() in ("true", "false"):
            flags[name] = None if raw is None else raw.strip().lower() == "true"
        else:
            flags[name] = None
            extra.append((name, raw))
            report.warn(
                f"{name}={raw!r} (kept as written)",
                **node.where(),
                question_id=qid,
                expected="true or false",
            )
    known = ("id", "answertype", *FLAGS)
    extra += [(k, v) for k, v in node.attrib.items() if k not in known]
    texts: list[QuestionText] = []
    fields: dict[str, str] = {}
    answers: AnswerSet | None = None
    last_string: int | None = None
    for child in node.children:
        value = child.text.strip()
        lang = child.attrib.get("lang", DEFAULT_LANGUAGE)
        if child.tag in ("string", "keywords") and not lang.strip():  # lang="" was silent
            lang = language_read_with(
                report,
                f"<{child.tag}> with an empty lang {lang!r}",
                **child.where(),
                question_id=qid,
            )
        if child.tag == "string":
            texts.append(QuestionText(lang, value))
            last_string = len(texts) - 1
        elif child.tag == "keywords":
            _attach_keywords(texts, lang, value, last_string)
            last_string = None
        elif child.tag in ("query", "pseudoquery"):
            if child.tag in fields:
                report.warn(f"a second <{child.tag}> is not kept", **child.where(), question_id=qid)
            else:
                fields[child.tag] = value
        elif child.tag == "answers":
            if answers is not None:
                report.warn("a second <answers> is not kept", **child.where(), question_id=qid)
            else:
                answers = _read_answers(child, report, qid)
        else:
            extra.append((f"element.{child.tag}", value))
    return qald_question(
        qid,
        flags,
        texts=tuple(texts),
        answertype=answertype,
        sparql=fields.get("query"),
        pseudo_query=fields.get("pseudoquery"),
        answers=answers,
        extra=tuple(extra),
    )


def _attach_keywords(
    texts: list[QuestionText], language: str, keywords: str, last_string: int | None
) -> None:
    """Keywords go with the string just before them, else with the latest string of their
    language still without keywords (QALD-3 lists all strings, then all keywords)."""
    candidates = [last_string] if last_string is not None else []
    candidates += [i for i in range(len(texts) - 1, -1, -1) if texts[i].language == language]
    for i in candidates:
        if texts[i].language == language and texts[i].keywords is None:
            texts[i] = replace(texts[i], keywords=keywords)
            return
    texts.append(QuestionText(language, None, keywords))


def _read_answers(node: Node, report: Report, qid: str) -> AnswerSet:
    rows: list[list[tuple[str | None, str]]] = []
    for child in node.children:
        if child.tag == "answer":
            rows.append(_read_row(child, report, qid))
        elif child.tag in ELEMENTS:
            report.warn(
                f"<{child.tag}> directly inside <answers> (read as one answer)",
                **child.where(),
                question_id=qid,
                expected="<answer>",
            )
            rows.append(_cells([child], report, qid))
        else:
            report.warn(
                f"element <{child.tag}> in <answers> is not kept",
                **child.where(),
                question_id=qid,
                expected="<answer>",
            )
    return element_answers(rows)


def _read_row(node: Node, report: Report, qid: str) -> list[tuple[str | None, str]]:
    bare = node.text.strip()
    if not node.children:
        if not bare:
            report.warn("empty <answer>", **node.where(), question_id=qid)
            return []
        return [(None, bare)]
    if bare:
        report.warn(
            f"text {bare[:30]!r} beside child elements of <answer> is not kept",
            **node.where(),
            question_id=qid,
            expected="either text or child elements",
        )
    return _cells(node.children, report, qid)


def _cells(nodes: list[Node], report: Report, qid: str) -> list[tuple[str | None, str]]:
    cells: list[tuple[str | None, str]] = []
    for child in nodes:
        value = child.text.strip()
        element: str | None = child.tag
        if child.tag not in ELEMENTS:
            report.warn(
                f"unknown answer element <{child.tag}> (read as a string)",
                **child.where(),
                question_id=qid,
                expected="<uri>, <string>, <date>, <number> or <boolean>",
            )
            element = "string"
        elif child.tag == "number" and numeric_datatype(value) is None:
            report.warn(
                f"<number> {value[:30]!r} is not a number (read as a plain literal)",
                **child.where(),
                question_id=qid,
            )
        elif child.tag == "date" and not is_date(value):
            report.warn(
                f"<date> {value[:30]!r} is not an xsd:date (kept as written; stored "
                f"{valid_term(element_term('date', value)).rule})",
                **child.where(),
                question_id=qid,
                expected="YYYY-MM-DD",
            )
        elif child.tag == "boolean" and value.lower() not in ("true", "false"):
            report.warn(
                f"<boolean> {value[:30]!r} is not true or false (kept as written; stored as a "
                "plain literal)",
                **child.where(),
                question_id=qid,
            )
        else:
            stored = valid_term(element_term(element, value))
            if stored.changed:
                report.warn(f"<{child.tag}> {stored.warning()}", **child.where(), question_id=qid)
        cells.append((element, value))
    return cells


# --- writing -----------------------------------------------------------------------------


def write(dataset: Dataset) -> bytes:
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    attrs = {} if dataset.id is None else {"id": dataset.id}
    attrs.update(
        (k.removeprefix("dataset."), v) for k, v in dataset.metadata if _is_attribute(k, "dataset.")
    )
    out.append(f"<dataset{_attributes(attrs)}>")
    for q in dataset.questions:
        out.extend(_write_question(q))
    out.append("</dataset>")
    return ("\n".join(out) + "\n").encode("utf-8")


def _is_attribute(key: str, prefix: str) -> bool:
    return key.startswith(prefix) and _NAME.fullmatch(key.removeprefix(prefix)) is not None


def escape(text: str) -> str:
    # Not xml.sax.saxutils: it imports urllib.request (~40 ms), and this is all it would do.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoteattr(text: str) -> str:
    escaped = escape(text).replace('"', "&quot;")
    return '"' + escaped.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;") + '"'


def _clean(text: str) -> str:
    return _not_xml().sub("\ufffd", text)


def _attributes(attrs: dict[str, str]) -> str:
    return "".join(f" {k}={quoteattr(_clean(v))}" for k, v in attrs.items())


def _element(tag: str, text: str, attrs: dict[str, str] | None = None) -> str:
    return f"<{tag}{_attributes(attrs or {})}>{escape(_clean(text))}</{tag}>"


def _write_question(q: Question) -> list[str]:
    attrs = {"id": q.id}
    if q.answertype is not None:
        attrs["answertype"] = q.answertype
    for flag in FLAGS:
        value = getattr(q, flag)
        if value is not None:
            attrs[flag] = "true" if value else "false"
    for key, value in q.extra:
        if _NAME.fullmatch(key) and key not in attrs:
            attrs[key] = value
    lines = [f"<question{_attributes(attrs)}>"]
    for t in q.texts:
        if t.string is not None:
            lines.append(_element("string", t.string, {"lang": t.language}))
        if t.keywords is not None:
            lines.append(_element("keywords", t.keywords, {"lang": t.language}))
    if q.out_of_scope:
        lines.append(_element("query", OUT_OF_SCOPE))
    elif q.sparql is not None:
        lines.append(_element("query", q.sparql))
    if q.pseudo_query is not None:
        lines.append(_element("pseudoquery", q.pseudo_query))
    for key, value in q.extra:
        if _is_attribute(key, "element."):
            lines.append(_element(key.removeprefix("element."), value))
    if q.answers is not None:
        lines.extend(_write_answers(q.answers))
    lines.append("</question>")
    return lines


def _write_answers(answers: AnswerSet) -> list[str]:
    if answers.boolean is not None:
        value = "true" if answers.boolean else "false"
        return ["<answers>", f"<answer>{_element('boolean', value)}</answer>", "</answers>"]
    if not answers.rows:
        return ["<answers/>"]
    lines = ["<answers>"]
    for row in answers.rows:
        cells = [(element_for(var, term)[0], term.value) for var, term in row.items()]
        if len(cells) == 1 and cells[0][0] is None:
            lines.append(f"<answer>{escape(_clean(cells[0][1]))}</answer>")
        else:
            inner = "".join(_element(element or "string", value) for element, value in cells)
            lines.append(f"<answer>{inner}</answer>")
    lines.append("</answers>")
    return lines


def losses(dataset: Dataset) -> list[str]:
    found = Counter(_lost(dataset))
    return [f"{what} ({n} questions)" for what, n in found.items()]


def _lost(dataset: Dataset) -> Iterator[str]:
    for q in dataset.questions:
        yield from eqald_losses(q)
        yield from text2sparql_losses(q)
        if any(not _NAME.fullmatch(k) and not _is_attribute(k, "element.") for k, _ in q.extra):
            yield "extra fields whose names are not XML names"
        if q.answers is not None and q.answers.boolean is None and _lossy_rows(q.answers):
            yield "answer datatypes, languages, blank nodes or variable names"
        texts = [v for t in q.texts for v in (t.string, t.keywords) if v is not None]
        if any(v != v.strip() for v in [*texts, q.sparql or ""]):
            yield "surrounding whitespace"
        if any(_not_xml().search(v) for v in texts):
            yield "characters XML cannot carry"


def _lossy_rows(answers: AnswerSet) -> bool:
    for row in answers.rows:
        cells = [(var, *element_for(var, term), term) for var, term in row.items()]
        for var, element, exact, term in cells:
            if not exact or term.value != term.value.strip() or term.value == "":
                return True
            name = element or BARE
            if var != name and not var.startswith(f"{name}_"):
                return True
        if len(cells) > 1 and any(c[1] is None for c in cells):
            return True
    return False


FORMAT = Format(
    name=NAME,
    label="QALD-XML",
    media_types=("application/qald+xml", "application/xml", "text/xml"),
    extensions=("xml",),
    read=read,
    write=write,
    sniff=sniff,
    losses=losses,
    description="QALD-1..5 XML: <dataset>, <question>, <string lang>, <query>, <answers>",
)
