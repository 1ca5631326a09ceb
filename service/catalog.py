"""The built-in dataset catalogue: DataID/DCAT descriptions in ``datasets/*.ttl``.

Each dataset names its upstream files (``dcat:downloadURL``), their size and SHA-256, and where
they lie in a local mirror of the upstream files (``gqa:mirrorPath``). Loading a dataset takes
a file from the mirror folder (setting ``GERBIL_QA_DATA``, else ``../shared/data``:
:func:`mirror_dir`) or downloads it (into ``GERBIL_QA_CACHE``), and refuses a file whose
checksum is not the catalogue's.

A file's role (``gqa:fileRole``) says what it is: ``questions``; ``expected`` (TSV gold
answers); ``gold`` (gold answers given apart, as TEXT2SPARQL does: attached to the questions by
question id and language when the dataset is loaded); ``kb`` (a file of the dataset's knowledge
graph: :func:`kb_files`). A dataset whose KB is a remote endpoint names it
(``void:sparqlEndpoint``).

>>> [e.name for e in entries()][:2]
['qald-1-dbpedia-train', 'qald-1-dbpedia-test']
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from service.errors import BadRequest, NotFound, ServiceError
from service.paths import DATASETS_DIR, PROJECT_ROOT

DCAT = "http://www.w3.org/ns/dcat#"
DCT = "http://purl.org/dc/terms/"
SPDX = "http://spdx.org/rdf/terms#"
GQA = "http://w3id.org/gerbil/qa/vocab#"
VOID = "http://rdfs.org/ns/void#"
_LOCAL_BASE = "http://localhost/"  # a neutral base to read the relative IRIs with


@dataclass(frozen=True, slots=True)
class Distribution:
    """One file of a dataset: ``role`` is ``questions``, ``expected``, ``gold`` or ``kb``."""

    role: str
    download_url: str
    mirror_path: str
    sha256: str
    byte_size: int
    media_type: str
    format: str


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    name: str
    title: str
    description: str
    question_count: int
    languages: tuple[str, ...]  # ISO 639-1 codes (the catalogue names EU authority IRIs)
    knowledge_base: str | None
    knowledge_base_version: str
    version: str
    issued: str
    licence: str | None
    distributions: tuple[Distribution, ...]
    select_hybrid: bool | None = None
    sparql_endpoint: str | None = None  # the KB as a remote endpoint, when it is one

    @property
    def questions_file(self) -> Distribution:
        return next(d for d in self.distributions if d.role == "questions")

    @property
    def kb_distributions(self) -> tuple[Distribution, ...]:
        """The files of the dataset's knowledge graph (empty when the KB is not part of it), in
        a fixed order (a local KB's identity is the checksum of its files in order)."""
        return tuple(sorted((d for d in self.distributions if d.role == "kb"), key=_by_path))

    @property
    def format(self) -> str:
        return self.questions_file.format


def _by_path(dist: Distribution) -> str:
    return dist.mirror_path


def catalog_files() -> tuple[Path, ...]:
    return tuple(sorted(p for p in DATASETS_DIR.glob("*.ttl")))


def catalog_bytes() -> bytes:
    return b"\n".join(p.read_bytes() for p in catalog_files())


def catalog_quads(uris, graph: str) -> list:  # uris: service.graph.uris.Uris
    """Every catalogue triple, relative IRIs resolved against the deployment base, in ``graph``,
    with the descriptions DCAT-AP asks for of the authority concepts and media types named
    (:func:`service.graph.dcat.linked_descriptions`).

    Blank nodes (a distribution's checksum, a rights statement) become hash IRIs of the
    resource that points at them, named after the property (``dataset/x#distribution-checksum``,
    ``dataset/x#rights``), so they are served in that resource's document."""
    import pyoxigraph

    from service.graph.dcat import linked_descriptions

    parsed = [
        q
        for path in catalog_files()
        for q in pyoxigraph.parse(
            path=str(path), format=pyoxigraph.RdfFormat.TURTLE, base_iri=uris.base
        )
    ]
    names: dict[str, pyoxigraph.NamedNode] = {}
    for q in parsed:
        if isinstance(q.object, pyoxigraph.BlankNode) and q.object.value not in names:
            owner, local = q.subject.value, _local_name(q.predicate.value)
            name = f"{owner}-{local}" if "#" in owner else f"{owner}#{local}"
            while pyoxigraph.NamedNode(name) in names.values():
                name += "-2"
            names[q.object.value] = pyoxigraph.NamedNode(name)

    def skolem(term):
        if isinstance(term, pyoxigraph.BlankNode):
            return names[term.value]
        return term

    target = pyoxigraph.NamedNode(graph)
    out = [
        pyoxigraph.Quad(skolem(q.subject), q.predicate, skolem(q.object), target) for q in parsed
    ]
    named = (q.object.value for q in parsed if isinstance(q.object, pyoxigraph.NamedNode))
    out += [pyoxigraph.Quad(s, p, o, target) for s, p, o in linked_descriptions(named)]
    return out


def _local_name(iri: str) -> str:
    return re.split(r"[#/]", iri.rstrip("/#"))[-1]


def _select(store, query: str):  # -> pyoxigraph.QuerySolutions
    import pyoxigraph

    rows = store.query(query)
    if not isinstance(rows, pyoxigraph.QuerySolutions):
        raise TypeError(f"expected solutions of a SELECT query, got {type(rows).__name__}")
    return rows


@lru_cache(maxsize=1)
def _entries() -> tuple[CatalogEntry, ...]:
    import pyoxigraph

    from service.graph.dcat import language_code

    store = pyoxigraph.Store()
    for path in catalog_files():
        store.load(path=str(path), format=pyoxigraph.RdfFormat.TURTLE, base_iri=_LOCAL_BASE)
    rows = _select(
        store,
        f"""SELECT ?d ?name ?title ?desc ?count ?kb ?kbv ?version ?issued ?lic ?hybrid ?endpoint
        (GROUP_CONCAT(DISTINCT STR(?lang); separator=" ") AS ?langs) WHERE {{
          <{_LOCAL_BASE}catalog> <{DCAT}dataset> ?d .
          ?d <{DCT}identifier> ?name ; <{DCT}title> ?title ; <{DCT}description> ?desc ;
             <{GQA}questionCount> ?count ; <{GQA}knowledgeBaseVersion> ?kbv ;
             <{DCAT}version> ?version ; <{DCT}issued> ?issued ; <{DCT}language> ?lang .
          OPTIONAL {{ ?d <{GQA}knowledgeBase> ?kb }}
          OPTIONAL {{ ?d <{DCT}license> ?lic }}
          OPTIONAL {{ ?d <{GQA}selectHybrid> ?hybrid }}
          OPTIONAL {{ ?d <{VOID}sparqlEndpoint> ?endpoint }}
        }}
        GROUP BY ?d ?name ?title ?desc ?count ?kb ?kbv ?version ?issued ?lic ?hybrid ?endpoint""",
    )
    found: list[CatalogEntry] = []
    for r in rows:
        dists = []
        for d in _select(
            store,
            f"""SELECT ?role ?url ?path ?sha ?size ?mt ?fmt WHERE {{
              <{r["d"].value}> <{DCAT}distribution> ?x .
              ?x <{GQA}fileRole> ?role ; <{DCAT}downloadURL> ?url ; <{GQA}mirrorPath> ?path ;
                 <{SPDX}checksum>/<{SPDX}checksumValue> ?sha ; <{DCAT}byteSize> ?size ;
                 <{DCAT}mediaType> ?mt ; <{GQA}format> ?fmt }}""",
        ):
            dists.append(
                Distribution(
                    role=d["role"].value,
                    download_url=d["url"].value,
                    mirror_path=d["path"].value,
                    sha256=d["sha"].value.lower(),
                    byte_size=int(d["size"].value),
                    media_type=d["mt"].value.rsplit("/media-types/", 1)[-1],
                    format=d["fmt"].value,
                )
            )
        hybrid = r["hybrid"]
        found.append(
            CatalogEntry(
                name=r["name"].value,
                title=r["title"].value,
                description=r["desc"].value,
                question_count=int(r["count"].value),
                languages=tuple(sorted(language_code(x) for x in r["langs"].value.split())),
                knowledge_base=r["kb"].value if r["kb"] else None,
                knowledge_base_version=r["kbv"].value,
                version=r["version"].value,
                issued=r["issued"].value,
                licence=r["lic"].value if r["lic"] else None,
                distributions=tuple(sorted(dists, key=lambda x: x.role != "questions")),
                select_hybrid=None if hybrid is None else hybrid.value == "true",
                sparql_endpoint=r["endpoint"].value if r["endpoint"] else None,
            )
        )
    order = _member_order()
    return tuple(sorted(found, key=lambda e: order.get(e.name, len(order))))


def _member_order() -> dict[str, int]:
    # The order of the catalogue's dcat:dataset list (RDF itself keeps no order).
    text = (DATASETS_DIR / "catalog.ttl").read_text(encoding="utf-8")
    names = re.findall(r"<dataset/([^>#]+)>", text)
    return {n: i for i, n in enumerate(dict.fromkeys(names))}


def entries() -> list[CatalogEntry]:
    """Every built-in dataset, in catalogue order."""
    return list(_entries())


def listed_languages(entry: CatalogEntry) -> tuple[str, ...]:
    """The languages ``gerbil-qa datasets`` lists for ``entry``, sorted: for a dataset of several
    languages, those its local copy has a non-blank text in, each tag as ``--lang all`` asks it
    (:func:`service.evaluation.languages.text_languages`, the one function for both): the
    catalogue listed es, fa, nl and ro for QALD-7 test multilingual, whose texts in them are all
    empty, and ``hi`` for QALD's ``hi_IN`` (explore54 F8). The catalogue's own languages where
    no local copy can be read (nothing is downloaded) or it names one language (a TSV is read
    in it)."""
    from service.errors import ServiceError
    from service.evaluation.languages import text_languages
    from service.evaluation.profiles import DEFAULT_PROFILE, get_profile

    if len(entry.languages) < 2:
        return entry.languages
    try:
        dataset = load(entry.name, download=False)
    except (ServiceError, OSError):
        return entry.languages
    untagged = get_profile(own_profile_of(entry.name) or DEFAULT_PROFILE).default_language
    return tuple(sorted(text_languages(dataset.questions, untagged))) or entry.languages


def own_profile_of(name: str) -> str | None:
    """The profile made for built-in dataset ``name`` (``poleval`` for PolEval's Polish,
    ``text2sparql`` for TEXT2SPARQL'25: :func:`service.evaluation.profiles.own_profile`): the
    one it is scored with when none is chosen. None for any other name."""
    from service.evaluation.profiles import own_profile

    entry = next((e for e in _entries() if e.name == name), None)
    return own_profile(entry.languages, entry.questions_file.format) if entry else None


def own_profile_of_file(name: str, format: str | None) -> str | None:
    """The profile made for a dataset file's format (``format`` declared, else the one format
    claiming its extension): ``poleval`` for a gonito ``expected.tsv``, ``text2sparql`` for a
    TEXT2SPARQL'25 questions file; None for any other."""
    from pathlib import PurePath

    from service.evaluation.profiles import own_profile
    from service.formats import FORMATS

    if not format:  # none declared (a form's "by content" is empty)
        ext = PurePath(name).suffix.lower().lstrip(".")
        claimed = [f.name for f in FORMATS.values() if ext and ext in f.extensions]
        format = claimed[0] if len(claimed) == 1 else None
    return own_profile((), format) if format else None


def texts_language_of_file(name: str, format: str | None) -> str | None:
    """The language of a dataset file's texts where the file states none (a TSV's): that of the
    profile made for its format (PolEval's TSV: pl), as the built-in PolEval dataset's are;
    None where no profile is made for it. The one place ``evaluate``/``system`` runs and
    ``convert`` take it from (convert wrote ``"language": ""`` and suggested ``--lang en`` for
    a PolEval in.tsv that evaluate reads as pl; explore54 F6)."""
    from service.evaluation.profiles import get_profile

    own = own_profile_of_file(name, format)
    return get_profile(own).default_language if own else None


def own_profile_of_upload(catalogue: Any, name: str) -> str | None:
    """The profile of the published uploaded dataset ``name`` of a store's ``catalogue``
    (``CatalogueRepository``): the one its first publisher's run was scored with (what they
    chose, else their file's format's: a TSV expected.tsv ``poleval``, QALD-JSON ``fair``),
    else the one its languages or format call for; None for another name. The API and
    ``evaluate --store`` both take it when no profile is named: by its languages alone, a
    Polish QALD-JSON scored ``fair`` at its upload was ``poleval`` when named, two profiles
    and two leaderboards for one dataset and one answer file (0.8214 against 0.6429)."""
    from service.evaluation.profiles import own_profile
    from service.formats.tsv import FORMAT

    first = catalogue.published_profile(name)
    if first is not None:
        return str(first)
    tsv, _ = catalogue.published_tsv(name)
    return own_profile(catalogue.published_languages(name), FORMAT.name if tsv else "")


def get_entry(name: str) -> CatalogEntry:
    for e in _entries():
        if e.name == name:
            return e
    raise NotFound(f"no built-in dataset {name!r}{did_you_mean(name)} (see `gerbil-qa datasets`)")


def did_you_mean(name: str, *, names: Sequence[str] | None = None) -> str:
    """``"; did you mean 'x'?"`` (or ``'x', 'y' or 'z'``) naming :func:`nearest`, else ``""``."""
    near = [repr(n) for n in nearest(name, names=names)]
    if not near:
        return ""
    listed = near[0] if len(near) == 1 else f"{', '.join(near[:-1])} or {near[-1]}"
    return f"; did you mean {listed}?"


def nearest(name: str, *, names: Sequence[str] | None = None, most: int = 3) -> list[str]:
    """The dataset names (``names``, else the built-in ones) a user most likely meant by
    ``name``: those holding each of its parts (``qald-8-train``: ``qald-8-train-multilingual``),
    those it begins first and the shortest first; else, among those keeping the numbers typed
    (the challenge's), the closest by spelling to as many parts of theirs; else the closest by
    spelling. Spelling alone put equal-length names of another challenge first (``qald-9-test``
    and ``qald-9-tst`` -> ``qald-10-test``, ``qald-9-trian`` -> ``qald-7-hybrid-train``)."""
    import difflib

    names = [e.name for e in _entries()] if names is None else list(names)
    parts = _name_parts(name)
    ranked: list[tuple[bool, int, int, str]] = []
    for index, candidate in enumerate(names):
        tokens = _name_parts(candidate)
        if parts and all(tokens.count(p) >= parts.count(p) for p in parts):
            begins = tokens[: len(parts)] == parts
            ranked.append((not begins, len(tokens) - len(parts), index, candidate))
    if ranked:
        return [candidate for *_, candidate in sorted(ranked)[:most]]
    numbers = [p for p in parts if p.isdigit()]
    typed = "-".join(parts)
    spelled: list[tuple[float, int, int, str]] = []
    for index, candidate in enumerate(names):
        tokens = _name_parts(candidate)
        if numbers and all(tokens.count(n) >= numbers.count(n) for n in numbers):
            # its first parts as many as typed: qald-9-tst is qald-9-test, not the whole name
            score = difflib.SequenceMatcher(None, typed, "-".join(tokens[: len(parts)])).ratio()
            if score >= 0.6:
                spelled.append((-score, len(tokens), index, candidate))  # the shortest
    if spelled:
        return [min(spelled)[-1]]
    return difflib.get_close_matches(name, names, n=1, cutoff=0.6)


def _name_parts(name: str) -> list[str]:
    """``qald9-Test`` -> ``["qald", "9", "test"]``: words and numbers, however joined."""
    return re.findall(r"[a-z]+|[0-9]+", name.lower())


def find_by_sha256(sha256: str) -> CatalogEntry | None:
    """The catalogue dataset whose questions file has this checksum (when a file is uploaded)."""
    wanted = sha256.lower()
    return next((e for e in _entries() if e.questions_file.sha256 == wanted), None)


def distribution_bytes(sha256: str) -> bytes | None:
    """The bytes of a catalogue file by its SHA-256 (its KB's too: an experiment whose answers
    came from it names them), from the data mirror or the download cache, never downloaded
    here; None when neither holds it."""
    wanted = sha256.lower()
    for entry in _entries():
        for dist in entry.distributions:
            if dist.sha256 == wanted:
                try:
                    return resolve(dist, download=False).read_bytes()
                except (NotFound, BadRequest):
                    return None
    return None


def is_distribution(sha256: str) -> bool:
    """Whether a catalogue file (a dataset's or its KB's) has this SHA-256."""
    wanted = sha256.lower()
    return any(d.sha256 == wanted for e in _entries() for d in e.distributions)


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def mirror_dir() -> Path | None:
    """The local copy of the benchmark data: ``GERBIL_QA_DATA``, else ``data/`` under
    ``GERBIL_QA_SHARED``, else the checkout's ``../shared/data`` where that folder exists (as
    the standards folder defaults to ``../shared/standards``); None: files are downloaded. Only
    ``make run`` and ``make bench`` set it, so ``gerbil-qa evaluate --dataset NAME`` from a
    checkout downloaded, offline in vain, beside the copy (explore51 F1)."""
    value = os.environ.get("GERBIL_QA_DATA")
    if value:
        return Path(value)
    shared = os.environ.get("GERBIL_QA_SHARED")
    folder = Path(shared) / "data" if shared else PROJECT_ROOT.parent / "shared" / "data"
    return folder if folder.is_dir() else None


def cache_dir() -> Path:
    value = os.environ.get("GERBIL_QA_CACHE")
    return Path(value) if value else Path.home() / ".cache" / "gerbil-qa" / "datasets"


class DownloadFailed(ServiceError):
    """A catalogue file neither in the local copy nor downloadable (its message names the
    setting of the copy, ``GERBIL_QA_DATA``: it said only ``NameResolutionError`` offline)."""

    status = 502


def _verify(path: Path, dist: Distribution, where: str) -> None:
    """Refuse a file whose checksum is not the catalogue's; the message names it by its
    catalogue path (``where`` it lies: the data mirror, the download cache), since it reaches
    API and run page users, who must not learn the server's folders."""
    got = sha256_of(path)
    if got != dist.sha256:
        raise BadRequest(
            f"{dist.mirror_path} in the {where}: SHA-256 {got} does not match the catalogue's "
            f"{dist.sha256} for {dist.download_url}; refusing to use it"
        )


def resolve(
    dist: Distribution,
    *,
    mirror: Path | None = None,
    download: bool = True,
    cache: Path | None = None,
    timeout: float = 60.0,
) -> Path:
    """The local file of a distribution: from the mirror folder, the download cache, or
    downloaded now. The checksum is always verified; a mismatch raises BadRequest."""
    mirror = mirror if mirror is not None else mirror_dir()
    if mirror is not None:
        local = mirror / dist.mirror_path
        if local.is_file():
            _verify(local, dist, "data mirror (GERBIL_QA_DATA)")
            return local
    target = (cache or cache_dir()) / dist.sha256 / Path(dist.mirror_path).name
    if target.is_file():
        _verify(target, dist, "download cache (GERBIL_QA_CACHE)")
        return target
    if not download:
        raise NotFound(
            f"{dist.mirror_path} is not in the data mirror (GERBIL_QA_DATA) and downloads are off"
            + (
                "; the folder GERBIL_QA_DATA names does not exist"
                if mirror is not None and not mirror.is_dir()
                else ""
            )
        )
    import requests

    try:
        response = requests.get(dist.download_url, timeout=timeout)
        response.raise_for_status()
    except requests.RequestException as err:
        copy = (
            f"offline, set GERBIL_QA_DATA to a local copy of the benchmark data (holding "
            f"{dist.mirror_path})"
            if mirror is None
            # not the folder: the API says it too (explore54 F9: "holds no" of no folder)
            else f"the folder GERBIL_QA_DATA names does not exist (a local copy of the "
            f"benchmark data, holding {dist.mirror_path})"
            if not mirror.is_dir()
            else f"the local copy GERBIL_QA_DATA names holds no {dist.mirror_path}"
        )
        raise DownloadFailed(f"cannot download {dist.download_url}: {err}; {copy}") from err
    data = response.content
    got = hashlib.sha256(data).hexdigest()
    if got != dist.sha256:
        raise BadRequest(
            f"{dist.download_url}: SHA-256 {got} does not match the catalogue's {dist.sha256}; "
            "refusing to use it"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(target.suffix + ".part")
    try:
        tmp.write_bytes(data)
        tmp.replace(target)
    except BaseException:  # a full disk: no partial file left behind
        tmp.unlink(missing_ok=True)
        raise
    return target


def load(name: str, **resolve_options):  # -> service.model.Dataset
    """Read a built-in dataset by name (the file resolved and verified as :func:`resolve`).

    Its ``source``, and the file each of its problems names, is :func:`shown_name`, never the
    server's path: readers' findings reach the public dataset page, the graph, the API and run
    pages (``dataset refresh`` takes the path from :func:`resolve`)."""
    from service.errors import FormatError

    entry = get_entry(name)
    wanted = [d for d in entry.distributions if d.role != "kb"]
    files = {d.role: (resolve(d, **resolve_options), d.format) for d in wanted}
    shown = {str(path): shown_name(entry.name, path) for path, _ in files.values()}
    try:
        dataset = _read(entry, files)
    except FormatError as err:
        raise FormatError([_shown_problem(p, shown) for p in err.problems]) from None
    problems = tuple(_shown_problem(p, shown) for p in dataset.problems)
    source = shown.get(dataset.source or "", dataset.source)
    # its file's id kept: a TEXT2SPARQL service is asked by it
    return replace(dataset, source=source, problems=problems).renamed(name)


def shown_name(name: str, path: Path) -> str:
    """How a catalogue dataset's file is named to users: by the dataset's name and the file's
    own name (``nlq-shared-task-1 (nlq1_vis.json)``), not by the mirror's or cache's folders."""
    return f"{name} ({path.name})"


def _shown_problem(problem, shown: dict[str, str]):  # -> service.errors.Problem
    return replace(problem, file=shown.get(problem.file or "", problem.file))


def _read(entry: CatalogEntry, files: dict[str, tuple[Path, str]]):  # -> Dataset
    """The dataset of ``entry`` from its resolved files (questions, expected or gold answers)."""
    from service import formats

    # The catalogue's files are the operator's choice: no answer or question limits (those are
    # for uploads).
    limits = formats.UNLIMITED
    # a file that names no language (TSV) is in the catalogue's, when it states one
    language = entry.languages[0] if len(entry.languages) == 1 else None
    dataset = formats.read(
        files["questions"][0], format=entry.format, language=language, limits=limits
    )
    if "expected" in files:
        dataset = _with_expected(dataset, *files["expected"], limits=limits)
    if "gold" in files:
        from service.model import attach_gold

        path, gold_format = files["gold"]
        dataset = attach_gold(dataset, formats.read(path, format=gold_format, limits=limits))
    if entry.select_hybrid is not None:
        dataset = replace(
            dataset,
            questions=tuple(q for q in dataset.questions if bool(q.hybrid) == entry.select_hybrid),
        )
    return dataset


def _with_expected(dataset, path: Path, fmt: str, *, limits):  # -> service.model.Dataset
    """``dataset`` (an ``in.tsv``) with the answers of its ``expected.tsv``, line by line.

    The file is read as bytes: from a path the TSV reader would read the ``in.tsv`` beside it
    again, and a downloaded copy has none beside it (each file is cached under its checksum).
    """
    from service import formats
    from service.formats.tsv import NO_TEXTS
    from service.model import attach_gold

    gold = formats.read(path.read_bytes(), format=fmt, name=str(path), limits=limits)
    # the texts are in in.tsv
    kept = tuple(p for p in gold.problems if not p.message.startswith(NO_TEXTS))
    return attach_gold(dataset, replace(gold, problems=kept))


def kb_files(name: str, **resolve_options) -> list[Path]:
    """The local files of a built-in dataset's knowledge graph (resolved and verified as
    :func:`resolve`); empty when its KB is not part of it (see ``CatalogEntry.sparql_endpoint``)."""
    return [resolve(d, **resolve_options) for d in get_entry(name).kb_distributions]


def load_into(catalogue, name: str, **resolve_options):  # -> list[Finding]
    """Load a built-in dataset, run the dataset checks and store questions and findings in a
    store's catalogue (a :class:`~service.graph.catalogue.CatalogueRepository`)."""
    dataset = load(name, **resolve_options)
    return catalogue.store_questions(name, dataset)
