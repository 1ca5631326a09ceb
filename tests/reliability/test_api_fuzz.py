"""Fuzzing the JSON API from its OpenAPI document (issue 13, item 4): every malformed request
gets a 4xx naming what was wrong, nothing is left behind.

The document the service serves (``GET /api/openapi.json``) drives everything: each operation
with a JSON request body gets bodies generated from its schema (``$ref``, ``oneOf``, ``enum``,
required and optional properties, with realistic values for some names so that a few
submissions are accepted), most of them then mutated: a wrong JSON type anywhere, nesting deep
enough to exhaust the parser, lone surrogates, numbers past every float (``1e999999999``,
5,000 digits, ``NaN``) written raw into the text, keys dropped or unknown, an empty object, a
top level that is not an object, and at the byte level UTF-16/UTF-32 encodings, a BOM,
invalid UTF-8 and truncation. Operations with a multipart/form-data body get forms from its
schema, mutated too (bytes that are not UTF-8, odd values, fields unknown, missing, repeated,
files for fields, thousands of fields, url-encoded, truncated or without a boundary). Path and
query parameters of every operation get strings, negative, huge and non-ASCII numbers, and
bytes that are not UTF-8.

For every request: no 5xx but one; a 4xx is JSON ``{"error": "...", "status": ...}``. When a JSON
body's one fault is a wrong type or a lone surrogate where the schema wants text, the 400 names
the field; a body that is not JSON gets a 400 saying so; a query number outside the schema's
bounds is a 400 naming the parameter; the one 5xx allowed is the documented 503 of a full queue
(with Retry-After). A 202 is followed until its experiment finishes or fails (at most 6 of the
fuzz's runs at once, so they never pile up), and after each test the store holds no experiment
the fuzz did not see accepted (nothing left behind by a refused request). Reproducible
(``derandomize``) and bounded, per operation of the document: in CI 100 JSON bodies, 150 forms
and 50 parameter requests (with today's 6, 2 and 18 operations: 600, 300 and 900, ~55 s with
the runs it waits for); ``make soak`` sends 300, 150 and 100 (1,800, 300 and 1,800).
"""

from __future__ import annotations

import copy
import json
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.paths import DEMO_DIR
from tests.reliability.figures import scaled
from tests.web.conftest import Server

QUESTIONS = (DEMO_DIR / "questions.json").read_text()
STRONG = (DEMO_DIR / "answers-strong.json").read_text()
PARTIAL = (DEMO_DIR / "answers-partial.json").read_text()

FUZZ = settings(
    max_examples=scaled(100, 300),  # JSON bodies per operation
    deadline=None,
    derandomize=True,  # reproducible: CI runs the same requests every time
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
TERMINAL = ("finished", "error")  # an accepted submission ends one way or the other
# a catalogue dataset the shared folder holds (GERBIL_QA_DATA: nothing is downloaded): QALD-7's
# multilingual test, QALD's JSON in 8 languages as QALD-9's test, 43 questions (164 KB; QALD-9's
# 150 are 1 MB): the same reader and scoring, each accepted run cheaper
MIRRORED = "qald-7-multilingual-test"

# --- the document ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    spec: dict[str, Any]

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.path}"

    @property
    def json_schema(self) -> dict[str, Any] | None:
        content = self.spec.get("requestBody", {}).get("content", {})
        return content.get("application/json", {}).get("schema")

    def parameters(self, where: str) -> list[dict[str, Any]]:
        return [p for p in self.spec.get("parameters", []) if p["in"] == where]


@dataclass
class Api:
    doc: dict[str, Any]
    operations: list[Operation]

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        """``schema`` with its ``$ref`` followed and its ``allOf`` parts merged."""
        while "$ref" in schema:
            target: Any = self.doc
            for part in schema["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            schema = target
        if "allOf" not in schema:
            return schema
        merged: dict[str, Any] = {"properties": {}, "required": []}
        for part in [self.resolve(p) for p in schema["allOf"]]:
            merged["properties"].update(part.get("properties", {}))
            merged["required"] += part.get("required", [])
            merged.update({k: v for k, v in part.items() if k not in merged})
        return merged

    def accepts(self, schema: dict[str, Any]) -> set[str]:
        """The JSON types a schema accepts."""
        schema = self.resolve(schema)
        if "enum" in schema:
            return {json_type(v) for v in schema["enum"]}
        kind = schema.get("type")
        for key in ("oneOf", "anyOf"):
            if key in schema and kind is None:
                return set().union(*(self.accepts(s) for s in schema[key]))
        if kind is None:
            return set(JSON_TYPES)
        kinds = set(kind) if isinstance(kind, list) else {kind}
        return kinds | {"integer"} if "number" in kinds else kinds

    def branch(self, schema: dict[str, Any] | None, value: Any) -> dict[str, Any] | None:
        """The part of ``schema`` that describes ``value`` (the ``oneOf`` branch of its type)."""
        if schema is None:
            return None
        schema = self.resolve(schema)
        for key in ("oneOf", "anyOf"):
            for option in schema.get(key, ()) if "type" not in schema else ():
                if json_type(value) in self.accepts(option):
                    return self.resolve(option)
        return schema


JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


# --- values ---------------------------------------------------------------------------------

LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
)
JSON_VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
# one value of each JSON type (and some of their edges): what a wrong type is drawn from
WRONG = [0, -1, 2.5, 10**30, "", "x", [], [1, "a"], {}, {"content": 1}, None, True, False]


class Raw:
    """Text written into the JSON body as it is (what ``json.dumps`` cannot write)."""

    def __init__(self, text: str) -> None:
        self.text = text


NESTING = [
    Raw("[" * 64 + "]" * 64),
    Raw("[" * 5000 + "]" * 5000),
    Raw("[" * 60_000 + "]" * 60_000),
    Raw('{"a":' * 3000 + "1" + "}" * 3000),
    Raw('{"a":' * 30_000 + "{}" + "}" * 30_000),
]
SURROGATES = [Raw('"\\ud800"'), Raw('"a\\udfffb"'), Raw('"\\udc00\\ud800"'), Raw('"\\ud83d"')]
NUMBERS = [
    Raw("1e999999999"),
    Raw("-1e999999999"),
    Raw("9" * 5000),
    Raw("-" + "1" * 4301),
    Raw("1" + "0" * 400),
    Raw("1E400"),
    Raw("4.9e-999999"),
    Raw("NaN"),
    Raw("-Infinity"),
    Raw("-0"),
]
RAW_VALUES = NESTING + SURROGATES + NUMBERS
ODD_KEYS = ["", " dataset", "DATASET", "__proto__", "constructor", "systems\u0000", "é" * 50]


def serialize(value: Any) -> bytes:
    """``value`` as JSON text (UTF-8), with every :class:`Raw` written in as it is; lone
    surrogates in strings become ``\\udxxx`` escapes (``ensure_ascii``)."""
    fragments: list[str] = []

    def mark(item: Any) -> Any:
        if isinstance(item, Raw):
            fragments.append(item.text)
            return f"@@raw{len(fragments) - 1}@@"
        if isinstance(item, dict):
            return {mark(k): mark(v) for k, v in item.items()}
        if isinstance(item, list):
            return [mark(v) for v in item]
        return item

    text = json.dumps(mark(value))
    for n, fragment in enumerate(fragments):
        text = text.replace(f'"@@raw{n}@@"', fragment, 1)
    return text.encode()


class Bodies:
    """Request bodies from a JSON schema: ``valid`` ones, and ``mutated`` ones."""

    def __init__(self, api: Api, hints: dict[str, st.SearchStrategy[Any]]) -> None:
        self.api = api
        self.hints = hints

    def valid(self, schema: dict[str, Any], path: tuple[str, ...] = ()) -> st.SearchStrategy[Any]:
        """Values ``schema`` accepts at ``path`` (property names, ``[]`` for an array's items):
        two in three from the hint for its last two names (``dataset.content``) or its name, if
        there is one."""
        generated = self._generated(schema, path)
        hint = self.hints.get(".".join(path[-2:]))
        if hint is None and path:
            hint = self.hints.get(path[-1])
        return generated if hint is None else st.one_of(hint, hint, generated)

    def _generated(self, schema: dict[str, Any], path: tuple[str, ...]) -> st.SearchStrategy[Any]:
        schema = self.api.resolve(schema)
        if "enum" in schema:
            return st.sampled_from(schema["enum"])
        kind = schema.get("type")
        for key in ("oneOf", "anyOf"):
            if key in schema and kind is None:
                return st.one_of([self.valid(s, path) for s in schema[key]])
        if isinstance(kind, list):
            return st.one_of([self.valid({**schema, "type": k}, path) for k in kind])
        if kind == "object":
            properties = schema.get("properties")
            if properties is None:
                return st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=3)
            return st.one_of([self._object(properties, need, path) for need in _choices(schema)])
        if kind == "array":
            least = schema.get("minItems", 0)
            items = self.valid(schema.get("items", {}), (*path, "[]"))
            return st.lists(items, min_size=least, max_size=max(3, least))
        if kind == "string":
            return st.text(max_size=24)
        if kind == "integer":
            return st.integers(schema.get("minimum"), schema.get("maximum"))
        if kind == "number":  # within the schema's bounds, as for integers
            least, most = schema.get("minimum"), schema.get("maximum")
            return st.floats(least, most, allow_nan=False, allow_infinity=False)
        if kind == "boolean":
            return st.booleans()
        if kind == "null":
            return st.none()
        return JSON_VALUES

    def _object(
        self, properties: dict[str, Any], need: tuple[set[str], set[str]], path: tuple[str, ...]
    ) -> st.SearchStrategy[dict[str, Any]]:
        required, left_out = need
        return st.fixed_dictionaries(
            {k: self.valid(s, (*path, k)) for k, s in properties.items() if k in required},
            optional={
                k: self.valid(s, (*path, k))
                for k, s in properties.items()
                if k not in required and k not in left_out
            },
        )

    def locations(
        self, value: Any, schema: dict[str, Any] | None, path: tuple = ()
    ) -> list[tuple[tuple, dict[str, Any] | None]]:
        """Every place inside ``value`` with the schema that describes it (None: unknown)."""
        schema = self.api.branch(schema, value)
        out: list[tuple[tuple, dict[str, Any] | None]] = []
        if isinstance(value, dict):
            properties = (schema or {}).get("properties", {})
            for key, item in value.items():
                sub = properties.get(key) if isinstance(key, str) else None
                out.append(((*path, key), sub))
                out.extend(self.locations(item, sub, (*path, key)))
        elif isinstance(value, list):
            items = (schema or {}).get("items")
            for n, item in enumerate(value):
                out.append(((*path, n), items))
                out.extend(self.locations(item, items, (*path, n)))
        return out


def _choices(schema: dict[str, Any]) -> list[tuple[set[str], set[str]]]:
    """(required, left out) property names for each way an object can be valid: branches of
    ``oneOf`` (exactly one) or ``anyOf`` (one or more) that only require properties."""
    ways: list[tuple[set[str], set[str]]] = [(set(schema.get("required", ())), set())]
    for key in ("oneOf", "anyOf"):
        branches = [set(b.get("required", ())) for b in schema.get(key, ())]
        every = set().union(*branches) if key == "oneOf" else set()  # oneOf: the others out
        ways = [(need | b, out | (every - b)) for need, out in ways for b in branches] or ways
    return ways


def _at(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


def _field(path: tuple) -> str | None:
    """The last property name on ``path`` (what an error message should name)."""
    return next((step for step in reversed(path) if isinstance(step, str)), None)


@dataclass
class Case:
    body: bytes
    content_type: str
    mutations: list[str]
    expect: str | None = None  # a field the 400 must name

    @property
    def readable(self) -> bool:
        """Whether the body is JSON at all (Python's reader, the service's)."""
        try:
            json.loads(self.body)
        except (ValueError, RecursionError):
            return False
        return True

    def __str__(self) -> str:
        shown = self.body[:300] + (b"..." if len(self.body) > 300 else b"")
        return f"{self.mutations} {self.content_type} {shown!r}"


CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "application/json; charset=utf-16",
    "application/json; charset=latin-1",
    "Application/JSON",
    "application/problem+json",
]


MUTATIONS = [
    "wrong type",
    "nesting",
    "surrogate",
    "number",
    "unknown key",
    "drop",
    "empty",
    "top level",
]
LONE = ["\ud800", "a\udfffb", "\udc00\ud800", "ok\ud83d"]  # written as \udxxx escapes


@st.composite
def cases(draw: Callable, bodies: Bodies, schema: dict[str, Any]) -> Case:
    """A body for ``schema``: valid now and then, mostly mutated once or a few times."""
    value = copy.deepcopy(draw(bodies.valid(schema)))
    count = draw(st.sampled_from([0, 1, 1, 1, 1, 1, 2, 2, 3]))
    done: list[str] = []
    expect = None
    for _ in range(count):
        kind = draw(st.sampled_from(MUTATIONS))
        places = bodies.locations(value, schema) if isinstance(value, dict | list) else []
        objects = [(), *(p for p, _ in places if isinstance(_at(value, p), dict))]
        texts = [(p, sub) for p, sub in places if isinstance(_at(value, p), str)]
        if kind in ("wrong type", "nesting", "number") and places:
            path, sub = draw(st.sampled_from(places))
            pool = {"wrong type": WRONG, "nesting": NESTING, "number": NUMBERS}[kind]
            # a copy: the pools' lists and objects are shared, and a later mutation adding a
            # key to one changed it for every later example (or made a body that holds itself)
            new = copy.deepcopy(draw(st.sampled_from(pool)))
            _at(value, path[:-1])[path[-1]] = new
            wrong = sub is not None and new is not None and not isinstance(new, Raw)
            if wrong and json_type(new) not in bodies.api.accepts(sub):
                expect = _field(path)
            done.append(f"{kind} at {'/'.join(map(str, path))}")
        elif kind == "surrogate" and texts:
            path, sub = draw(st.sampled_from(texts))
            _at(value, path[:-1])[path[-1]] = draw(st.sampled_from(LONE + SURROGATES))
            expect = _field(path) if sub is not None else None
            done.append(f"{kind} at {'/'.join(map(str, path))}")
        elif kind == "unknown key" and isinstance(value, dict):
            where = draw(st.sampled_from(objects))
            key = draw(st.sampled_from(ODD_KEYS) | st.text(max_size=8))
            _at(value, where)[key] = draw(JSON_VALUES | st.sampled_from(RAW_VALUES))
            done.append(f"unknown key {key!r}")
        elif kind == "drop" and isinstance(value, dict):
            where = draw(st.sampled_from(objects))
            target = _at(value, where)
            if target:
                key = draw(st.sampled_from(sorted(target, key=str)))
                del target[key]
                done.append(f"dropped {'/'.join(map(str, (*where, key)))}")
        elif kind == "empty":
            value = {}
            done.append("empty object")
        elif kind == "top level":
            value = draw(
                st.sampled_from([[], [value], "x", 0, None, True, Raw("1e999999999"), NESTING[2]])
            )
            done.append("top level not an object")
    body = serialize(value)
    if draw(st.integers(0, 5)) == 0:  # at the byte level
        body, how = draw(encodings(body))
        done.append(how)
    content_type = draw(st.sampled_from(CONTENT_TYPES[:1] * 6 + CONTENT_TYPES))
    # a field is named only when it is the request's one fault
    named = expect if len(done) == 1 and content_type == CONTENT_TYPES[0] else None
    return Case(body, content_type, done or ["valid"], named)


INVALID_UTF8 = [b"\xff", b"\xfe\xff", b"\x80", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]


@st.composite
def encodings(draw: Callable, body: bytes) -> tuple[bytes, str]:
    kind = draw(st.sampled_from(["codec", "invalid utf-8", "truncated", "bytes"]))
    if kind == "codec":
        codec = draw(st.sampled_from(["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-8-sig"]))
        return body.decode().encode(codec), codec
    if kind == "invalid utf-8":
        at = draw(st.integers(0, len(body)))
        return body[:at] + draw(st.sampled_from(INVALID_UTF8)) + body[at:], f"invalid utf-8 at {at}"
    if kind == "truncated":
        at = draw(st.integers(0, len(body)))
        return body[:at], f"truncated at {at}"
    return draw(st.binary(max_size=64)), "bytes"


IN_FLIGHT = 6  # the fuzz's accepted runs it lets run at once (more wait for the oldest)

# --- the running service --------------------------------------------------------------------


@dataclass
class Ledger:
    """What the fuzz saw accepted, against what the store holds afterwards."""

    server: Server
    before: set[str] = field(default_factory=set)
    accepted: dict[str, str] = field(default_factory=dict)  # id -> owner token
    running: list[str] = field(default_factory=list)  # accepted, not yet seen ended
    statuses: Counter = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.before = _ids(self.server)

    def check(self, response: Any, what: str) -> None:
        """The properties of every answer."""
        status = response.status_code
        self.statuses[status] += 1
        if status == 503 and "Retry-After" in response.headers:  # the documented back-pressure
            assert "runs queued or running" in response.json()["error"], what
            return
        assert status < 500, f"{what}: {status} {response.text[:2000]}"
        if 400 <= status < 500:
            assert response.headers.get("Content-Type", "").startswith("application/json"), what
            error = response.json()
            assert isinstance(error, dict), what
            assert isinstance(error.get("error"), str) and error["error"].strip(), what
            assert error.get("status") == status, what
        elif status in (200, 201, 202):
            payload = response.json()
            assert isinstance(payload, dict), what
            # a submission, or a re-scoring (a new experiment with its own token)
            path = response.request.path_url
            if status == 202 and (path == "/api/experiments" or path.endswith("/rescore")):
                self.accepted[payload["id"]] = payload["token"]
                self.running.append(payload["id"])
                if len(self.running) > IN_FLIGHT:  # the fuzz's own runs never pile up
                    self._ended(self.running.pop(0), time.monotonic() + 60)

    def _ended(self, experiment_id: str, deadline: float) -> None:
        token = self.accepted[experiment_id]
        while True:
            state = self.server.get(
                f"api/experiments/{experiment_id}", headers={"Authorization": f"Bearer {token}"}
            ).json()
            if state["status"] in TERMINAL:
                return
            assert time.monotonic() < deadline, f"{experiment_id} stuck: {state}"
            time.sleep(0.1)

    def settle(self, timeout: float = 60) -> None:
        """Every accepted experiment finishes or fails, and no other experiment appeared."""
        deadline = time.monotonic() + timeout
        # those not yet seen ended: an ended one stays so, and a finished one's status reads
        # its results (and a re-scoring's changes) again each time it is asked
        while self.running:
            self._ended(self.running.pop(0), deadline)
        ghosts = _ids(self.server) - self.before - set(self.accepted)
        assert not ghosts, [
            (s.id, s.status.value, s.message)
            for s in self.server.storage.experiments.listing(include_private=True)
            if s.id in ghosts
        ]


def _ids(server: Server) -> set[str]:
    return {s.id for s in server.storage.experiments.listing(include_private=True)}


@pytest.fixture(scope="module")
def api(server: Server) -> Api:
    response = server.get("api/openapi.json")
    assert response.status_code == 200
    doc = response.json()
    operations = [
        Operation(method, path, spec)
        for path, item in doc["paths"].items()
        for method, spec in item.items()
    ]
    return Api(doc, operations)


@pytest.fixture(scope="module")
def owned(server: Server) -> dict[str, Any]:
    """A finished private experiment and its owner token (papers are attached to it)."""
    return server.submit_demo()


@pytest.fixture(scope="module")
def bodies(server: Server, api: Api) -> Bodies:
    datasets = [d["name"] for d in server.get("api/datasets").json()["datasets"]]
    assert MIRRORED in datasets
    kbs = server.get("api/profiles").json()["knowledgeBases"]
    own = server.url.rstrip("/")
    urls = [
        "http://127.0.0.1:9/qa",
        f"{own}/api/experiments",
        "http://169.254.169.254/latest",
        "http://10.0.0.1/",
        "http://[::1]:9/",
        "ftp://127.0.0.1/",
        "file:///etc/passwd",
        "http://",
        "",
    ]
    hints = {
        "dataset": st.sampled_from([MIRRORED, "no-such-dataset", ""]),
        "systems": st.sampled_from(
            [
                [{"name": "strong", "answers": STRONG}, {"name": "partial", "answers": PARTIAL}],
                [{"answers": {"content": STRONG, "filename": "s.json"}}, {"answers": PARTIAL}],
            ]
        ),
        "dataset.content": st.sampled_from([QUESTIONS, STRONG, "", "{}", "<a/>"]),
        "answers.content": st.sampled_from([STRONG, PARTIAL, QUESTIONS, "", "{}", "id\tq"]),
        "title": st.sampled_from(["Solar", "", " ", "x" * 2000]),
        "name": st.sampled_from(["strong", "partial", "", "a/b", "../x", "n" * 300]),
        "filename": st.sampled_from(["q.json", "a.xml", "b.tsv", "../../etc/passwd", ""]),
        "language": st.sampled_from(["en", "de", "pt-BR", "english!", "", "e\u0000n"]),
        "kb": st.sampled_from([*kbs, "nope", ""]),
        # the policy allows only 127.0.0.1 (nothing listens on port 9) and never the service
        "url": st.sampled_from(urls),
        # the form's names for the same
        "dataset_file": st.sampled_from([QUESTIONS, STRONG, "", "<a/>"]),
        "answers.[]": st.sampled_from([STRONG, PARTIAL, QUESTIONS, "", "id\tq"]),
        "answers_name.[]": st.sampled_from(["strong", "partial", "", "a/b"]),
        "webservice.[]": st.sampled_from([*urls, *(f"ws={u}" for u in urls), "=", "ws="]),
        "text2sparql.[]": st.sampled_from([*urls, *(f"t2s={u}" for u in urls)]),
        # compare's owner tokens by experiment id: well formed, none of them right
        "tokens": st.sampled_from([{}, {"202611260001": "not-the-token"}, {"2026": "t"}]),
        "doi": st.sampled_from(
            ["10.3233/SW-180312", "doi:10.1000/182", "https://doi.org/10.1/a%23b", "10.", "10/x"]
        ),
    }
    return Bodies(api, hints)


def _send(server: Server, op: Operation, case: Case, owned: dict[str, Any]) -> Any:
    path = op.path.replace("{id}", owned["id"]).lstrip("/")
    headers = {"Content-Type": case.content_type, "Authorization": f"Bearer {owned['token']}"}
    return server.request(op.method, path, data=case.body, headers=headers)


def _refused(response: Any, what: str, words: str) -> None:
    """A 400 whose message says ``words`` (names the field, says what was wrong)."""
    assert response.status_code == 400, f"{what}: {response.status_code} {response.text}"
    message = response.json()["error"]
    assert words in message, f"{what}: {message!r} does not say {words!r}"


# --- JSON bodies ----------------------------------------------------------------------------


def test_the_document_has_the_json_operations(api: Api) -> None:
    with_json = {str(op) for op in api.operations if op.json_schema is not None}
    assert with_json >= {
        "POST /api/experiments",
        "POST /api/compare",
        "POST /api/experiments/{id}/papers",
    }


def test_json_bodies(
    server: Server, api: Api, bodies: Bodies, owned: dict[str, Any], data_dir: Path, monkeypatch
) -> None:
    """Each operation with a JSON body, in turn: 100 requests (the soak: 300)."""
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))  # the local mirror: never download
    operations = [op for op in api.operations if op.json_schema is not None]
    ledger = Ledger(server)
    seen: Counter = Counter()

    def fuzzer(op: Operation, schema: dict[str, Any]) -> Callable[[], None]:
        @FUZZ
        @given(case=cases(bodies, schema))
        def fuzz(case: Case) -> None:
            seen[str(op)] += 1
            response = _send(server, op, case, owned)
            what = f"{op} {case}"
            ledger.check(response, what)
            if case.expect is not None:
                _refused(response, what, case.expect)
            if case.content_type == CONTENT_TYPES[0] and not case.readable:
                _refused(response, what, "JSON")  # not JSON, or nested past the reader

        return fuzz

    for op in operations:
        assert op.json_schema is not None
        fuzzer(op, op.json_schema)()
    ledger.settle()
    print(f"\n{sum(seen.values())} bodies: {dict(seen)}; answers {dict(ledger.statuses)}")
    print(f"accepted: {sorted(ledger.accepted)}")


# --- forms ---------------------------------------------------------------------------------

BOUNDARY = "fuzz-b0undary"
ODD_FIELD_VALUES = [b"", b"9" * 5000, b"\x00", b"-1", "\u00b2".encode(), b" ", b"x" * 70_000]
FILENAMES = ["q.json", "a.json", "", "../../x.json", "\u00e9.json", 'a"b.json', "a\r\nb.json"]


@dataclass
class Form:
    parts: list[tuple[str, str | None, bytes]]  # (name, filename or None for a field, data)
    mutations: list[str]
    content_type: str = f"multipart/form-data; boundary={BOUNDARY}"
    raw: bytes | None = None  # the body as sent, when not the parts'

    def body(self) -> bytes:
        if self.raw is not None:
            return self.raw
        out = b""
        for name, filename, data in self.parts:
            disposition = f'form-data; name="{_quoted(name)}"'
            if filename is not None:
                disposition += f'; filename="{_quoted(filename)}"'
            out += f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n".encode()
            if filename is not None:
                out += b"Content-Type: application/octet-stream\r\n"
            out += b"\r\n" + data + b"\r\n"
        return out + f"--{BOUNDARY}--\r\n".encode()

    def __str__(self) -> str:
        fields = [(n, f, d[:60]) for n, f, d in self.parts[:12]]
        return f"{self.mutations} {self.content_type} {fields}"


def _quoted(text: str) -> str:
    """A name in a Content-Disposition header, as browsers write it (HTML's rule)."""
    return text.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def _parts(api: Api, schema: dict[str, Any], value: dict[str, Any], names: list[str]) -> list:
    """The form's parts for ``value``: a file for each ``binary`` string, a field per item of
    an array."""
    properties = api.resolve(schema)["properties"]
    parts = []
    for key, item in value.items():
        sub = api.resolve(properties[key])
        binary = api.resolve(sub.get("items", {})) if sub.get("type") == "array" else sub
        for n, one in enumerate(item if isinstance(item, list) else [item]):
            text = json.dumps(one) if isinstance(one, bool) else str(one)
            filename = names[n % len(names)] if binary.get("format") == "binary" else None
            parts.append((key, filename, text.encode()))
    return parts


@st.composite
def forms(draw: Callable, bodies: Bodies, schema: dict[str, Any]) -> Form:
    """A form for ``schema``, valid now and then, mostly mutated: bytes that are not UTF-8,
    odd values, fields unknown, missing, repeated, a file for a field and a field for a file,
    thousands of fields, url-encoded instead, or a body that is not multipart at all."""
    value = draw(bodies.valid(schema))
    names = draw(st.lists(st.sampled_from(FILENAMES), min_size=1, max_size=3))
    form = Form(_parts(bodies.api, schema, value, names), [])
    parts = form.parts
    for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2]))):
        kind = draw(
            st.sampled_from(
                [
                    "invalid utf-8",
                    "odd value",
                    "unknown field",
                    "drop",
                    "repeat",
                    "file or field",
                    "many fields",
                    "url-encoded",
                    "not multipart",
                ]
            )
        )
        at = draw(st.integers(0, len(parts) - 1)) if parts else None
        if kind == "invalid utf-8" and at is not None:
            name, filename, data = parts[at]
            parts[at] = (name, filename, data + draw(st.sampled_from(INVALID_UTF8)))
        elif kind == "odd value" and at is not None:
            name, filename, _ = parts[at]
            parts[at] = (name, filename, draw(st.sampled_from(ODD_FIELD_VALUES)))
        elif kind == "unknown field":
            name = draw(st.sampled_from(ODD_KEYS) | st.text(max_size=8))
            parts.append((name, draw(st.none() | st.sampled_from(FILENAMES)), b"x"))
        elif kind == "drop" and at is not None:
            del parts[at]
        elif kind == "repeat" and at is not None:
            parts.append(parts[at])
        elif kind == "file or field" and at is not None:
            name, filename, data = parts[at]
            parts[at] = (name, "f.json" if filename is None else None, data)
        elif kind == "many fields":
            parts.extend((f"x{n}", None, b"1") for n in range(3000))
        elif kind == "url-encoded":
            pairs = [(n, d) for n, f, d in parts if f is None]
            form.raw = "&".join(f"{quote(n)}={quote(d)}" for n, d in pairs).encode()
            form.content_type = "application/x-www-form-urlencoded"
        elif kind == "not multipart":
            raw = form.body()
            form.raw = raw[: draw(st.integers(0, len(raw)))]
            form.content_type = draw(
                st.sampled_from(
                    [
                        "multipart/form-data",  # no boundary
                        "multipart/form-data; boundary=other",
                        f"multipart/form-data; boundary={BOUNDARY}",  # truncated
                        f'multipart/form-data; boundary="{BOUNDARY}"; charset=utf-16',
                    ]
                )
            )
        else:
            continue
        form.mutations.append(kind)
    form.mutations = form.mutations or ["valid"]
    return form


def test_form_bodies(server: Server, api: Api, bodies: Bodies, data_dir: Path, monkeypatch) -> None:
    """Each operation with a multipart/form-data body, in turn: 150 forms."""
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))  # the local mirror: never download
    with_forms = [
        (op, content["multipart/form-data"]["schema"])
        for op in api.operations
        if "multipart/form-data" in (content := op.spec.get("requestBody", {}).get("content", {}))
    ]
    assert {str(op) for op, _ in with_forms} >= {"POST /api/experiments", "POST /api/compare"}
    ledger = Ledger(server)
    seen: Counter = Counter()

    def fuzzer(op: Operation, schema: dict[str, Any]) -> Callable[[], None]:
        @settings(FUZZ, max_examples=150)
        @given(form=forms(bodies, schema))
        def fuzz(form: Form) -> None:
            seen[str(op)] += 1
            headers = {"Content-Type": form.content_type}
            response = server.request(
                op.method, op.path.lstrip("/"), data=form.body(), headers=headers
            )
            ledger.check(response, f"{op} {form}")

        return fuzz

    for op, schema in with_forms:
        fuzzer(op, schema)()
    ledger.settle()
    print(f"\n{sum(seen.values())} forms: {dict(seen)}; answers {dict(ledger.statuses)}")
    print(f"accepted: {sorted(ledger.accepted)}")


# --- path and query parameters --------------------------------------------------------------

ODD_NUMBERS = [
    "",
    "0",
    "-1",
    "1e3",
    "1.0",
    "+1",
    " 1",
    "0x10",
    "\u00b2",  # superscript two: str.isdigit() but not int()
    "\u0661\u0662",  # Arabic-Indic 12
    "\U0001d7d9",  # mathematical double-struck one
    "9" * 5000,
    "NaN",
    "true",
]
RAW_QUERY = ["%ff", "%ed%a0%80", "%00", "%", "%zz", "1%2", "%c0%af"]


@dataclass
class Query:
    text: str  # the query string as sent
    values: dict[str, list[str | None]]  # decoded values (None: raw bytes, not UTF-8)


@st.composite
def query_values(draw: Callable) -> tuple[str, str | None]:
    """(as sent, decoded) for a query value."""
    kind = draw(st.sampled_from(["number", "odd", "text", "raw"]))
    if kind == "raw":
        raw = draw(st.sampled_from(RAW_QUERY))
        return raw, None
    if kind == "number":
        text = str(draw(st.integers(-(10**30), 10**30) | st.integers(-2, 600)))
    elif kind == "odd":
        text = draw(st.sampled_from(ODD_NUMBERS))
    else:
        text = draw(st.text(max_size=12))
    return quote(text, safe=""), text


@st.composite
def queries(draw: Callable, op: Operation) -> Query:
    names = [p["name"] for p in op.parameters("query")]
    chosen = draw(st.lists(st.sampled_from(names), max_size=3)) if names else []
    chosen += draw(st.lists(st.sampled_from(["token", "x", "", "size[]"]), max_size=1))
    parts, values = [], {}
    for name in chosen:
        sent, decoded = draw(query_values())
        parts.append(f"{quote(name, safe='')}={sent}")
        values.setdefault(name, []).append(decoded)
    return Query("&".join(parts), values)


def _invalid(op: Operation, query: Query) -> set[str]:
    """The integer parameters whose value the document does not allow, or given twice with
    two values (the first was read, the other dropped: explore64 F6): a 400 must name one of
    them."""
    invalid = set()
    for parameter in op.parameters("query"):
        sent = [v for v in dict.fromkeys(query.values.get(parameter["name"]) or ()) if v != ""]
        if not sent or parameter["schema"].get("type") != "integer":
            continue  # absent or empty: the default
        if len(sent) > 1:
            invalid.add(parameter["name"])
            continue
        text = sent[0]
        least = parameter["schema"].get("minimum", -(10**999))
        most = parameter["schema"].get("maximum", 10**999)
        if text is None or not (re.fullmatch("[0-9]{1,4000}", text) and least <= int(text) <= most):
            invalid.add(parameter["name"])
    return invalid


def _repeated(op: Operation, query: Query) -> set[str]:
    """The string parameters given more than once: the document gives each one value (not an
    array), so the service may read one or refuse naming the parameter (api/experiments'
    system and dataset refuse two names: a filter dropped without a word)."""
    return {
        p["name"]
        for p in op.parameters("query")
        if p["schema"].get("type") == "string" and len(query.values.get(p["name"], [])) > 1
    }


IDS = [
    "209901019999",
    "000000000000",
    "2026010100001",
    "\u0662" * 12,  # Arabic-Indic digits
    "202601010001\n",
    "..",
    ".",
    " ",
    "%",
    "a/b",
]


def test_path_and_query_parameters(server: Server, api: Api, owned: dict[str, Any]) -> None:
    """Each operation in turn (no body): 50 requests (the soak: 100)."""
    ledger = Ledger(server)
    seen: Counter = Counter()

    def fuzzer(op: Operation) -> Callable[[], None]:
        @settings(FUZZ, max_examples=scaled(50, 100))
        @given(data=st.data())
        def fuzz(data: st.DataObject) -> None:
            path = op.path
            if "{id}" in path:
                ident = data.draw(
                    st.sampled_from([owned["id"], server.demo_id, *IDS])
                    | st.from_regex(r"[0-9]{12}", fullmatch=True)
                    | st.text(max_size=16),
                    label="id",
                )
                path = path.replace("{id}", quote(ident, safe="").replace(".", "%2E"))
            if "{name}" in path:  # a dataset's name (GET /api/datasets/{name}/runs)
                name = data.draw(
                    st.sampled_from(["gerbil-qa-demo", "nonesuch"]) | st.text(max_size=16),
                    label="name",
                )
                path = path.replace("{name}", quote(name, safe="").replace(".", "%2E"))
            query = data.draw(queries(op), label="query")
            headers = {}
            if op.method == "get":  # the owner's token only where it changes nothing
                token = data.draw(st.sampled_from([None, owned["token"], "x", ""]), label="token")
                if token is not None:
                    headers["Authorization"] = f"Bearer {token}"
            url = path.lstrip("/") + (f"?{query.text}" if query.text else "")
            seen[str(op)] += 1
            response = server.request(op.method, url, headers=headers, data=b"")
            what = f"{op.method.upper()} /{url[:300]} {headers}"
            ledger.check(response, what)
            invalid = _invalid(op, query)
            repeated = _repeated(op, query)
            if invalid:
                _refused(response, what, "")
                message = response.json()["error"]
                assert any(name in message for name in invalid), f"{what}: {message}"
            elif repeated and response.status_code == 400:  # one value each: a 400 names it
                message = response.json()["error"]
                assert any(name in message for name in repeated), f"{what}: {message}"
            elif op.method == "get" and "{" not in op.path:  # no id or name to miss
                assert response.status_code == 200, (
                    f"{what}: {response.status_code} {response.text}"
                )

        return fuzz

    for op in api.operations:
        fuzzer(op)()
    ledger.settle()
    print(f"\n{sum(seen.values())} requests: {dict(seen)}; answers {dict(ledger.statuses)}")
    assert not ledger.accepted
