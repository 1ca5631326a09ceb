"""TEXT2SPARQL questions YAML (the TEXT2SPARQL'25 challenge's CK25 and DB25 files).

``{dataset: {id, prefix, defaultNamespace}, questions: [{id, question: {en: …, es: …},
features: [...], classes: [...], properties: [...], query: {sparql: …}}]}``. No gold answers:
the challenge publishes them apart, as a result set (``result-set-json``).

Read with PyYAML's safe composer, which keeps each node's position, so every problem is named
by line and column. Scalars are taken as written (YAML 1.1 would read ``en: No`` as false and
``id: 010`` as 8): a question text, id or query is the scalar's text. Aliases are refused (the
format has no use for them, and expanding them is the "billion laughs" attack). Importing this
module does not import PyYAML; reading or writing does.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from typing import TYPE_CHECKING, Any

from service.formats.base import Format, Report, Source, Step, check_question_count, fail
from service.formats.fields import check_questions, metadata_losses
from service.model import Dataset, Question, QuestionText

if TYPE_CHECKING:
    from yaml.nodes import Node

NAME = "text2sparql-yaml"
_NULL = "tag:yaml.org,2002:null"
_QUESTION_KEYS = ("id", "question", "features", "classes", "properties", "query")
_LISTS = ("features", "classes", "properties")
_SHAPE = "{dataset: {id, prefix, defaultNamespace}, questions: [...]}"
_HEAD = r"(?m)^questions[ \t]*:"  # compiled by re's cache when first sniffed, not at import


def sniff(src: Source) -> bool:
    head = src.head
    return not head.startswith(("{", "[", "<")) and re.search(_HEAD, head) is not None


class _Reader:
    """Walks the composed node tree; every finding is located by the node's start mark."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.seen: set[int] = set()

    def error(self, message: str, node: Node, at: tuple[Step, ...], **kw: Any) -> None:
        mark = node.start_mark
        self.report.error(message, at=at, line=mark.line + 1, column=mark.column + 1, **kw)

    def warn(self, message: str, node: Node, at: tuple[Step, ...], **kw: Any) -> None:
        mark = node.start_mark
        self.report.warn(message, at=at, line=mark.line + 1, column=mark.column + 1, **kw)

    def visit(self, node: Node, at: tuple[Step, ...]) -> bool:
        """False (and an error) for a node met twice: an alias (``*name``), located where its
        anchor (``&name``) is, as the composer keeps no other position for it."""
        if id(node) in self.seen:
            self.error(
                "this node is used again through a YAML alias (*name); aliases are not allowed",
                node,
                at,
                expected="a value written out",
            )
            return False
        self.seen.add(id(node))
        return True

    def mapping(
        self, node: Node, at: tuple[Step, ...], *, what: str, qid: str | None = None
    ) -> list[tuple[str, Node]] | None:
        from yaml.nodes import MappingNode, ScalarNode

        if not isinstance(node, MappingNode):
            self.error(f"{what} is {_kind(node)}", node, at, question_id=qid, expected="a mapping")
            return None
        if not self.visit(node, at):
            return None
        pairs: list[tuple[str, Node]] = []
        keys: set[str] = set()
        for key, value in node.value:
            if not isinstance(key, ScalarNode):
                self.error("a key is not a plain value", key, at, question_id=qid)
                continue
            if key.value in keys:
                self.warn(
                    f"key {key.value!r} given twice; the last one is used",
                    key,
                    (*at, key.value),
                    question_id=qid,
                )
                pairs = [p for p in pairs if p[0] != key.value]
            keys.add(key.value)
            pairs.append((key.value, value))
        return pairs

    def scalar(
        self, node: Node, at: tuple[Step, ...], *, what: str, qid: str | None = None
    ) -> str | None:
        """The scalar's text as written; ``None`` (after an error) for anything else or null."""
        from yaml.nodes import ScalarNode

        if isinstance(node, ScalarNode) and node.tag != _NULL:
            return str(node.value)
        self.error(f"{what} is {_kind(node)}", node, at, question_id=qid, expected="a value")
        return None

    def strings(
        self, node: Node, at: tuple[Step, ...], *, what: str, qid: str | None
    ) -> tuple[str, ...]:
        from yaml.nodes import ScalarNode, SequenceNode

        if isinstance(node, ScalarNode) and node.tag == _NULL:
            return ()
        if not isinstance(node, SequenceNode):
            self.error(f"{what} is {_kind(node)}", node, at, question_id=qid, expected="a list")
            return ()
        if not self.visit(node, at):
            return ()
        out = []
        for i, item in enumerate(node.value):
            value = self.scalar(item, (*at, i), what=f"an entry of {what}", qid=qid)
            if value is not None:
                out.append(value)
        return tuple(out)


def _kind(node: Node) -> str:
    from yaml.nodes import MappingNode, SequenceNode

    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    return "empty (null)" if node.tag == _NULL else "a plain value"


def _compose(src: Source) -> Node | None:
    import yaml

    try:
        return yaml.compose(src.text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        message = " ".join(p for p in (err.context, err.problem) if p) or "malformed YAML"
        fail(
            src,
            f"not valid YAML: {message}",
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
            expected="a YAML document",
        )
    except yaml.YAMLError as err:  # the reader's errors: a character YAML does not allow
        fail(src, f"not valid YAML: {err}", expected="a YAML document")
    except RecursionError:
        fail(src, "not valid YAML: nested too deeply", expected="a YAML document")


def read(src: Source) -> Dataset:
    report = Report(src)
    root = _compose(src)
    if root is None:
        fail(src, "the document is empty", expected=_SHAPE)
    reader = _Reader(report)
    top = reader.mapping(root, (), what="the document")
    if top is None:
        report.finish()
        fail(src, "the document is not a mapping", expected=_SHAPE)
    parts = dict(top)
    dataset_id, metadata = _read_dataset(reader, parts.get("dataset"))
    for key, node in top:
        if key not in ("dataset", "questions"):
            reader.warn(f"top-level key {key!r} is not kept", node, (key,))
    listed = parts.get("questions")
    questions: list[Question] = []
    places: list[dict[str, Any]] = []
    if listed is None:
        reader.error("no questions", root, ("questions",), expected=_SHAPE)
    else:
        from yaml.nodes import SequenceNode

        if not isinstance(listed, SequenceNode):
            reader.error(f"questions is {_kind(listed)}", listed, ("questions",), expected="a list")
        elif check_question_count(report, len(listed.value), at=("questions",)) and reader.visit(
            listed, ("questions",)
        ):
            for i, node in enumerate(listed.value):
                at: tuple[Step, ...] = ("questions", i)
                question = _read_question(reader, node, at)
                if question is not None:
                    questions.append(question)
                    mark = node.start_mark
                    places.append({"at": at, "line": mark.line + 1, "column": mark.column + 1})
    check_questions(questions, report, places)
    return Dataset(
        id=dataset_id,
        questions=tuple(questions),
        format=NAME,
        problems=report.finish(),
        metadata=metadata,
    )


def _read_dataset(
    reader: _Reader, node: Node | None
) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    if node is None:
        reader.report.warn("no dataset description (id, prefix, defaultNamespace)", at=())
        return None, ()
    pairs = reader.mapping(node, ("dataset",), what="dataset")
    if pairs is None:
        return None, ()
    dataset_id: str | None = None
    metadata: list[tuple[str, str]] = []
    for key, value in pairs:
        text = reader.scalar(value, ("dataset", key), what=f"dataset {key}")
        if text is None:
            continue
        if key == "id":
            dataset_id = text
        else:
            metadata.append((key, text))
    return dataset_id, tuple(metadata)


def _read_question(reader: _Reader, node: Node, at: tuple[Step, ...]) -> Question | None:
    pairs = reader.mapping(node, at, what="question")
    if pairs is None:
        return None
    fields = dict(pairs)
    if "id" not in fields:
        reader.error("question has no id", node, at, expected="an id")
        return None
    qid = reader.scalar(fields["id"], (*at, "id"), what="question id")
    if qid is None:
        return None
    texts: list[QuestionText] = []
    if "question" in fields:
        for lang, text_node in (
            reader.mapping(fields["question"], (*at, "question"), what="question texts", qid=qid)
            or ()
        ):
            text = reader.scalar(
                text_node, (*at, "question", lang), what=f"the {lang!r} question", qid=qid
            )
            if text is not None:
                texts.append(QuestionText(lang, text))
    lists = {
        key: reader.strings(fields[key], (*at, key), what=key, qid=qid)
        for key in _LISTS
        if key in fields
    }
    sparql = _read_query(reader, fields.get("query"), (*at, "query"), qid)
    extra: list[tuple[str, str]] = []
    for key, value in pairs:
        if key in _QUESTION_KEYS:
            continue
        from yaml.nodes import ScalarNode

        if isinstance(value, ScalarNode):
            extra.append((key, str(value.value)))
        else:
            reader.warn(f"question key {key!r} is not kept", value, (*at, key), question_id=qid)
    return Question(
        id=qid,
        texts=tuple(texts),
        sparql=sparql,
        extra=tuple(extra),
        features=lists.get("features", ()),
        classes=lists.get("classes", ()),
        properties=lists.get("properties", ()),
    )


def _read_query(reader: _Reader, node: Node | None, at: tuple[Step, ...], qid: str) -> str | None:
    from yaml.nodes import ScalarNode

    if node is None or (isinstance(node, ScalarNode) and node.tag == _NULL):
        return None
    if isinstance(node, ScalarNode):
        reader.warn("query is a plain value; read as query.sparql", node, at, question_id=qid)
        return str(node.value)
    pairs = reader.mapping(node, at, what="query", qid=qid)
    if pairs is None:
        return None
    sparql: str | None = None
    for key, value in pairs:
        if key == "sparql":
            sparql = reader.scalar(value, (*at, key), what="query.sparql", qid=qid)
        else:
            reader.warn(f"query key {key!r} is not kept", value, (*at, key), question_id=qid)
    return sparql


# --- writing ---------------------------------------------------------------------------------

_INTEGER = r"0|[1-9][0-9]*"


def write(dataset: Dataset) -> bytes:
    import yaml

    doc: dict[str, Any] = {}
    head: dict[str, str] = {}
    if dataset.id is not None:
        head["id"] = dataset.id
    head.update((k, v) for k, v in dataset.metadata if "." not in k and k != "id")
    if head:
        doc["dataset"] = head
    doc["questions"] = [_question(q) for q in dataset.questions]
    text = yaml.dump(
        doc, Dumper=_dumper(), default_flow_style=False, allow_unicode=True, sort_keys=False
    )
    return text.encode("utf-8")


def _question(q: Question) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": int(q.id) if re.fullmatch(_INTEGER, q.id) else q.id}
    texts: dict[str, str] = {}
    for t in q.texts:
        if t.string is not None:
            texts.setdefault(t.language, t.string)
    if texts:
        entry["question"] = texts
    for key in _LISTS:
        values = getattr(q, key)
        if values:
            entry[key] = list(values)
    if q.sparql is not None:
        entry["query"] = {"sparql": q.sparql}
    for key, value in q.extra:
        if key not in entry:
            entry[key] = value
    return entry


@cache
def _dumper() -> type:
    import yaml

    class Dumper(yaml.SafeDumper):
        """Multi-line strings (the queries) as ``|`` blocks, as the challenge's files write them;
        PyYAML falls back to a quoted string where a block cannot hold the text exactly."""

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return Dumper


def losses(dataset: Dataset) -> list[str]:
    found: Counter[str] = Counter()
    for q in dataset.questions:
        languages = [t.language for t in q.texts if t.string is not None]
        dropped = [
            ("gold answers (they go in a result set)", q.answers is not None),
            ("texts beyond the first per language", len(languages) != len(set(languages))),
            ("texts without a string", any(t.string is None for t in q.texts)),
            *metadata_losses(q),
            ("pseudo or schemaless queries", bool(q.pseudo_query or q.schemaless_query)),
            ("out-of-scope marks", q.out_of_scope),
            ("answer item types and confidences", bool(q.answer_item_types) or q.confidence),
            ("per-language entries", q.language is not None),
        ]
        found.update(what for what, lost in dropped if lost)
    return [f"{what} ({n} questions)" for what, n in found.items()]


FORMAT = Format(
    name=NAME,
    label="TEXT2SPARQL questions YAML",
    media_types=("application/x-text2sparql+yaml",),
    extensions=("yml", "yaml"),
    read=read,
    write=write,
    sniff=sniff,
    losses=losses,
    description=(
        "TEXT2SPARQL'25 questions: dataset id, prefix and default namespace; per question its "
        "texts by language, features, classes, properties and reference SPARQL"
    ),
)
