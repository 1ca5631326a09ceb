"""Every URI the service mints, in one place, and the inverse (URI -> kind + keys) for routing.

All URIs live under a configurable base (default ``http://localhost:8080/``; a deployment sets
e.g. ``https://w3id.org/gerbil/qa/``). Our vocabulary terms do not: they live in the fixed
namespace :data:`GQA` whatever the deployment, which serves that vocabulary at its ``vocab`` path.

Layout (``{id}`` is ``yyyyMMdd`` + a 4-digit daily counter; names and question ids are
percent-encoded with nothing kept but RFC 3986 unreserved characters):

=====================================================  ===================================
``experiment/{id}``                                    experiment (qb:DataSet, prov:Activity)
``experiment/{id}/task/{n}``                           one task observation (n from 1)
``experiment/{id}/task/{n}/question/{qid}``            one per-question observation
``dataset/{name}``                                     dataset (dcat:Dataset, dataid:Dataset)
``dataset/{name}/version/{version}``                   a version of a dataset
``dataset/{name}/question/{qid}``                      one question of a dataset
``dataset/{name}/version/{version}/question/{qid}``    one question of a dataset version
``system/{name}``                                      a QA system
``software/{version}``                                 this evaluator (prov:SoftwareAgent)
``catalog`` ``vocab`` ``sparql``                       catalogue, vocabulary document, endpoint
``graph/{vocab|catalog|admin}``                        named graphs of the store
``graph/dataset/{name}`` ``graph/experiment/{id}``
``graph/dataset/{name}/version/{version}``
=====================================================  ===================================

Structural resources that no one browses to on their own (Data Cube structures, the per-task
data set of question observations, uploaded-file entities, dataset check findings) are hash URIs
of the document they belong to (``experiment/{id}#structure``, ``…/task/{n}#questions``), so they
dereference with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import quote, unquote

from service.errors import BadRequest

GQA = "http://w3id.org/gerbil/qa/vocab#"
GERBIL = "http://w3id.org/gerbil/vocab#"
DEFAULT_BASE = "http://localhost:8080/"

# ASCII digits only, and nothing after them: "\d" takes any Unicode digit, "$" a final newline
EXPERIMENT_ID = re.compile(r"^([0-9]{8})([0-9]{4})\Z")


def normalise_base(base: str) -> str:
    """``'http://h/x'`` -> ``'http://h/x/'``: every URI is ``base + relative path``."""
    if not re.match(r"^https?://[^/\s]+", base):
        raise ValueError(f"base URI must be an absolute http(s) URI, got {base!r}")
    return base if base.endswith("/") else base + "/"


@lru_cache(maxsize=1 << 16)
def enc(key: str) -> str:
    """Percent-encode one path segment (a name or a question id); '/' is encoded too. Cached:
    question ids and names recur in every experiment."""
    return quote(str(key), safe="")


@dataclass(frozen=True, slots=True)
class Located:
    """What a URI under the base names: ``kind`` and its keys (decoded), plus any fragment."""

    kind: str
    keys: dict[str, str] = field(default_factory=dict)
    fragment: str | None = None


@dataclass(frozen=True, slots=True)
class Uris:
    """URI minting under one base. ``Uris()`` uses :data:`DEFAULT_BASE`."""

    base: str = DEFAULT_BASE

    def __post_init__(self) -> None:
        object.__setattr__(self, "base", normalise_base(self.base))

    # -- resources -------------------------------------------------------------------------
    def experiment(self, experiment_id: str) -> str:
        check_experiment_id(experiment_id)
        return f"{self.base}experiment/{experiment_id}"

    def experiment_structure(self, experiment_id: str) -> str:
        return self.experiment(experiment_id) + "#structure"

    def upload(self, experiment_id: str, n: int) -> str:
        return f"{self.experiment(experiment_id)}#file-{n}"

    def upload_download(self, experiment_id: str, sha256: str) -> str:
        """Where the file an experiment used is served (``resources.experiment_file``)."""
        return f"{self.experiment(experiment_id)}/file/{sha256.lower()}"

    def task(self, experiment_id: str, n: int) -> str:
        return f"{self.experiment(experiment_id)}/task/{int(n)}"

    def task_questions(self, experiment_id: str, n: int) -> str:
        """The qb:DataSet holding the per-question observations of one task."""
        return self.task(experiment_id, n) + "#questions"

    def task_question_structure(self, experiment_id: str, n: int) -> str:
        return self.task(experiment_id, n) + "#structure"

    def question_result(
        self, experiment_id: str, n: int, question_id: str, language: str | None = None
    ) -> str:
        """A per-question result; in a task pooled over languages, one per language
        (``…/question/{id}@{lang}``: an '@' in an id is percent-encoded, so this one is not)."""
        tail = f"@{language}" if language else ""
        return f"{self.task(experiment_id, n)}/question/{enc(question_id)}{tail}"

    def dataset(self, name: str) -> str:
        return f"{self.base}dataset/{enc(name)}"

    def dataset_version(self, name: str, version: str) -> str:
        return f"{self.dataset(name)}/version/{enc(version)}"

    def version_download(self, name: str, version: str) -> str:
        """Where a registered version's kept file is served (``resources.dataset_version``)."""
        return f"{self.dataset_version(name, version)}/file"

    def question(self, dataset_name: str, question_id: str) -> str:
        return question_of(self.dataset(dataset_name), question_id)

    def version_question(self, name: str, version: str, question_id: str) -> str:
        return question_of(self.dataset_version(name, version), question_id)

    def version_activity(self, name: str, version: str) -> str:
        """The activity (a gold refresh) that generated a dataset version."""
        return self.dataset_version(name, version) + "#activity"

    def version_kb(self, name: str, version: str) -> str:
        """The knowledge base (as a PROV entity) a dataset version's activity used."""
        return self.dataset_version(name, version) + "#kb"

    def system(self, name: str) -> str:
        return f"{self.base}system/{enc(name)}"

    def software(self, version: str) -> str:
        return f"{self.base}software/{enc(version)}"

    def leaderboard(self, leaderboard_id: str) -> str:
        """A frozen leaderboard (:mod:`service.graph.leaderboards`)."""
        return f"{self.base}leaderboard/{enc(leaderboard_id)}"

    @property
    def catalog(self) -> str:
        return self.base + "catalog"

    @property
    def vocab(self) -> str:
        return self.base + "vocab"

    @property
    def sparql(self) -> str:
        return self.base + "sparql"

    # -- named graphs ----------------------------------------------------------------------
    @property
    def vocab_graph(self) -> str:
        return self.base + "graph/vocab"

    @property
    def catalog_graph(self) -> str:
        return self.base + "graph/catalog"

    @property
    def admin_graph(self) -> str:
        """Experiment status, owner-token hashes, counters: never public."""
        return self.base + "graph/admin"

    def dataset_graph(self, name: str) -> str:
        return f"{self.base}graph/dataset/{enc(name)}"

    def dataset_version_graph(self, name: str, version: str) -> str:
        return f"{self.dataset_graph(name)}/version/{enc(version)}"

    def leaderboard_graph(self, leaderboard_id: str) -> str:
        return f"{self.base}graph/leaderboard/{enc(leaderboard_id)}"

    def experiment_graph(self, experiment_id: str) -> str:
        check_experiment_id(experiment_id)
        return f"{self.base}graph/experiment/{experiment_id}"

    def listed_experiment_graph(self, var: str = "?g") -> str:
        """SPARQL filters: ``var`` is an experiment's graph that is not withdrawn (in the public
        store: a published experiment whose dataset, an upload, is offered and listed)."""
        return (
            f'FILTER(STRSTARTS(STR({var}), "{self.base}graph/experiment/")) '
            f"FILTER NOT EXISTS {{ GRAPH {var} {{ ?withdrawn <{GQA}withdrawnAt> ?withdrawn_at }} }}"
        )

    # -- the inverse -----------------------------------------------------------------------
    def locate(self, uri: str) -> Located | None:
        """The kind and keys of a URI minted here, or None when it is not one of ours.

        >>> Uris().locate("http://localhost:8080/experiment/202401020003/task/1")
        Located(kind='task', keys={'experiment': '202401020003', 'task': '1'}, fragment=None)
        """
        if not uri.startswith(self.base):
            return None
        rest, _, fragment = uri[len(self.base) :].partition("#")
        frag = fragment or None
        if "?" in rest:
            path, _, query = rest.partition("?")
            m = re.fullmatch(r"id=([^&]+)", query)
            if path == "experiment" and m and EXPERIMENT_ID.match(unquote(m.group(1))):
                return Located("gerbil-experiment", {"experiment": unquote(m.group(1))}, frag)
            return None
        parts = rest.split("/")
        for kind, pattern in _PATTERNS:
            if len(pattern) != len(parts):
                continue
            keys: dict[str, str] = {}
            for want, got in zip(pattern, parts, strict=True):
                if want.startswith("{"):
                    if not got:
                        break
                    keys[want[1:-1]] = unquote(got)
                elif want != got:
                    break
            else:
                if "experiment" in keys and not EXPERIMENT_ID.match(keys["experiment"]):
                    return None
                if "task" in keys and not keys["task"].isdigit():
                    return None
                return Located(kind, keys, frag)
        return None


# Order matters only for readability: patterns differ in length or literal segments.
_PATTERNS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("experiment", ("experiment", "{experiment}")),
    ("task", ("experiment", "{experiment}", "task", "{task}")),
    (
        "question-result",
        ("experiment", "{experiment}", "task", "{task}", "question", "{question}"),
    ),
    ("dataset", ("dataset", "{dataset}")),
    ("dataset-version", ("dataset", "{dataset}", "version", "{version}")),
    ("question", ("dataset", "{dataset}", "question", "{question}")),
    (
        "version-question",
        ("dataset", "{dataset}", "version", "{version}", "question", "{question}"),
    ),
    ("system", ("system", "{system}")),
    ("software", ("software", "{version}")),
    ("leaderboard", ("leaderboard", "{leaderboard}")),
    ("catalog", ("catalog",)),
    ("vocab", ("vocab",)),
    ("sparql", ("sparql",)),
    ("graph-vocab", ("graph", "vocab")),
    ("graph-catalog", ("graph", "catalog")),
    ("graph-admin", ("graph", "admin")),
    ("graph-dataset", ("graph", "dataset", "{dataset}")),
    ("graph-dataset-version", ("graph", "dataset", "{dataset}", "version", "{version}")),
    ("graph-experiment", ("graph", "experiment", "{experiment}")),
    ("graph-leaderboard", ("graph", "leaderboard", "{leaderboard}")),
)


def question_of(dataset_uri: str, question_id: str) -> str:
    """A question's URI under its dataset's (or dataset version's) URI."""
    return f"{dataset_uri}/question/{enc(question_id)}"


def finding_of(dataset_uri: str, n: int) -> str:
    """A dataset check finding: a hash URI of the dataset's (or version's) document."""
    return f"{dataset_uri}#finding-{n}"


class InvalidExperimentId(BadRequest, ValueError):
    """An experiment id that is not one: a clear 400 / CLI message, still a ValueError."""


def check_experiment_id(experiment_id: str) -> str:
    if not EXPERIMENT_ID.match(experiment_id):
        raise InvalidExperimentId(f"not an experiment id (yyyyMMdd + 4 digits): {experiment_id!r}")
    return experiment_id


def gerbil(local: str) -> str:
    return GERBIL + local
