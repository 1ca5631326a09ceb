"""How a reader reproduces an experiment's numbers from its page alone: the files it scored
(each downloaded from the address its graph gives and checked against its SHA-256) and the one
``gerbil-qa evaluate`` command, with every setting its graph records, that prints them again.

Read from the same quads as the page: the files the experiment used (``gqa:fileRole``:
``dataset``, ``gold``, ``answers`` with ``gqa:answersOf``, ``kb``) and its tasks (profile,
language, experiment types, the KB and its version, ranked measures). Before, the page listed
the files and the profile but not the language, the KB, which file was whose answers or how
they go together, so a reviewer reconstructed the command by trial (and a TEXT2SPARQL run's KB
was not among its files at all: ``service.experiments.recording.kb_files``).
"""

from __future__ import annotations

import hashlib
import re
import shlex
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from service.evaluation.measures import MEASURES, When
from service.evaluation.results import ExperimentType
from service.graph.queries import REFERENCE_NOTE
from service.graph.reader import Node, TaskResult
from service.graph.terms import DCT, RDF, RDFS, SCHEMA
from service.graph.uris import GQA

DCAT_DOWNLOAD = "http://www.w3.org/ns/dcat#downloadURL"
# where a private experiment's script reads its owner token from, and what it says without it
TOKEN_VAR = "GERBIL_QA_TOKEN"
ASK = "set it to the owner token of this private experiment"
# the downloads: silent but for errors, failing on an HTTP error, over HTTP(S) only (also
# after a redirect) and with no URL globbing ([…] and {…} taken as written), whatever address
# a store holds
CURL = "curl --proto =http,https --proto-redir =http,https --globoff -sSf"


@dataclass(frozen=True, slots=True)
class Download:
    name: str  # the file's name as the command uses it
    url: str
    sha256: str


@dataclass(frozen=True, slots=True)
class Reproduction:
    downloads: tuple[Download, ...]
    argv: tuple[str, ...]  # gerbil-qa evaluate …, as a reader types it
    evaluator: str | None  # the software version the experiment ran
    revision: str | None  # its commit (40 hex digits), when known
    modified: bool  # it ran with changes that commit does not have
    repository: str | None = None  # where its code is published (schema:codeRepository)
    left_out: tuple[str, ...] = ()  # systems whose answers are in no file (reference systems)
    kb_unnamed: str | None = None  # a KB its results name by checksum, its files not named
    # reference systems whose answers, computed here on the KB, are scored from their archived
    # values: the signature of the command's result names no KB where the recorded one does
    # (the numbers are the same; explore25 3)
    from_values: tuple[str, ...] = ()
    # files the reader brings: (the file, the operator's KB it is), whose file this service
    # does not serve (GERBIL_QA_PUBLIC_KBS does not list it; explore34 13)
    provided: tuple[tuple[Download, str], ...] = ()

    @property
    def systems(self) -> int:
        """How many systems the command scores (one ``--system`` each): each prints its own
        JSON object, one a line."""
        return sum(1 for arg in self.argv if arg == "--system")

    @property
    def checkout(self) -> str | None:
        """The commands that install the evaluator of the experiment from the repository its
        graph names (its URL and commit quoted as one shell word each), None without both."""
        if self.repository is None or self.revision is None:
            return None
        return (  # POSIX quoting, for any shell: bash's $'…' was (explore61 F14)
            f"git clone {shlex.quote(self.repository)} gerbil-qa && cd gerbil-qa && "
            f"git checkout {shlex.quote(self.revision)} && pip install ."
        )

    @property
    def intervals(self) -> bool:
        """Whether the command prints the bootstrap intervals the experiment stores."""
        return "--intervals" in self.argv

    def with_unserved(self, kbs: Mapping[str, str]) -> Reproduction:
        """This reproduction with the files of ``kbs`` (SHA-256 -> the operator's KB name)
        brought by the reader, not downloaded: their address answers 403."""
        mine = [d for d in self.downloads if _hex(d.sha256) in kbs]
        if not mine:
            return self
        return replace(
            self,
            downloads=tuple(d for d in self.downloads if d not in mine),
            provided=(*self.provided, *((d, kbs[_hex(d.sha256)]) for d in mine)),
        )

    @property
    def script(self) -> str:
        """The downloads, their checksums checked, and the command: a shell script."""
        return self._script(curl=f"{CURL} -o")

    @property
    def owner_script(self) -> str:
        """:attr:`script` for a private experiment, whose files answer its owner only: each
        download sends the owner token from ``$GERBIL_QA_TOKEN`` (the token is never written
        into the page; a download without it was refused, so the script stopped at once)."""
        return self._script(curl=f'{CURL} -H "Authorization: Bearer ${{{TOKEN_VAR}:?{ASK}}}" -o')

    def _script(self, *, curl: str) -> str:
        """Every stored value (a file's name, its address and checksum, a system's name, the
        profile, language and KB settings) is written as data the shell does not read as code,
        on the line it belongs to: quoted (:func:`quoted`), and the checksums' here-document
        closed by a word none of its lines is. An uploaded file name holding a newline and
        ``EOF`` closed the here-document before, and the lines after it ran (explore34 6)."""
        lines = ["set -e"]  # a download or checksum that fails stops it
        lines += self._evaluator_check()
        lines += [f"{curl} {quoted(d.name)} {quoted(d.url)}" for d in self.downloads]
        for d, kb in self.provided:  # not served: the reader puts it here, it is checked too
            why = (
                f"{d.name}: the file of the knowledge base {kb}, which this service's operator "
                f"configures and does not serve: put it here (SHA-256 {_hex(d.sha256)})"
            )
            lines.append(f"[ -f {quoted(d.name)} ] || {{ echo {quoted(why)} >&2; exit 1; }}")
        checked = [*self.downloads, *(d for d, _ in self.provided)]
        if checked:
            sums = [f"{_hex(d.sha256)}  {_unbroken(d.name)}" for d in checked]
            end = _delimiter(sums)
            # --strict: a line that is not a checksum line fails the check, not a warning
            lines.append(f"sha256sum --check --quiet --strict <<'{end}'")
            lines += [*sums, end]
        lines.append(" \\\n    ".join(_wrapped(self.argv)))
        return "\n".join(lines)

    def _evaluator_check(self) -> list[str]:
        """Lines that stop the script, before any download, when no ``gerbil-qa`` is on PATH,
        saying how to get the evaluator the experiment ran (as the page says it), and warn
        when the one on PATH is another version: in an empty folder it downloaded the files,
        then stopped at "gerbil-qa: command not found" (exit 127), and another version ran
        silently (explore61 F13)."""
        if self.checkout is not None:
            how = f"install it from its repository: {self.checkout}"
        elif self.revision is not None:
            how = f"pip install . in a checkout of its commit {self.revision}"
        else:
            how = "install that release (pip install . in a checkout of its code)"
        ran = f"GERBIL QA for Python {self.evaluator}" if self.evaluator else "GERBIL QA for Python"
        missing = f"gerbil-qa is not on PATH: this script runs the evaluator {ran}; {how}"
        lines = [
            f"command -v gerbil-qa >/dev/null 2>&1 || {{ echo {quoted(missing)} >&2; exit 1; }}"
        ]
        if self.evaluator:
            other = (
                f"warning: the gerbil-qa on PATH is not {self.evaluator}, the evaluator this "
                "experiment ran: a number may differ"
            )
            said = quoted(f"gerbil-qa {self.evaluator}")  # as gerbil-qa --version prints it
            lines.append(
                f'[ "$(gerbil-qa --version 2>/dev/null)" = {said} ] || echo {quoted(other)} >&2'
            )
        return lines


def _unprintable(text: str) -> bool:
    """Whether ``text`` holds a character that breaks a line, hides or reorders text, or is
    not a character at all: a control, format (bidi), private-use or unassigned one, or a
    line or paragraph separator."""
    return any(unicodedata.category(c)[0] == "C" or c in "\u2028\u2029" for c in text)


def quoted(value: str) -> str:
    """``value`` as one shell word, on one line: ``shlex.quote`` where it is printable, else
    bash's ``$'…'`` with each unprintable character escaped (a newline of a stored name
    would otherwise stand in the script as a line of its own, inside quotes or not)."""
    if not _unprintable(value):
        return shlex.quote(value)
    out = []
    for c in value:
        if c in "\\'":
            out.append("\\" + c)
        elif _unprintable(c):
            code = ord(c)
            out.append(f"\\x{code:02x}" if code < 0x80 else f"\\U{code:08x}")
        else:
            out.append(c)
    return "$'" + "".join(out) + "'"


def _unbroken(name: str) -> str:
    """A name with its unprintable characters shown as ``?`` (the check then fails for that
    file: its download was saved under the name itself)."""
    return "".join("?" if _unprintable(c) else c for c in name)


def _hex(sha256: str) -> str:
    """A stored checksum's hex digits only: anything else in it is no part of a checksum line
    (a wrong checksum fails the check)."""
    return re.sub(r"[^0-9a-fA-F]", "", sha256).lower() or "0"


def _delimiter(lines: Sequence[str]) -> str:
    """A here-document's closing word that none of ``lines`` is (made from their hash)."""
    digest = hashlib.sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()
    end = f"SHA256SUMS_{digest[:12]}"
    while end in lines:
        end += "_"
    return end


def _wrapped(argv: Sequence[str]) -> list[str]:
    """The command split before each option, so each setting is a line of its own."""
    parts: list[list[str]] = []
    for arg in argv:
        if arg.startswith("--") or not parts:
            parts.append([arg])
        else:
            parts[-1].append(arg)
    return [" ".join(quoted(a) for a in p) for p in parts]


def reproduction(
    experiment: Node, nodes: dict[str, Node], tasks: Sequence[TaskResult]
) -> Reproduction | None:
    """The command that reproduces ``tasks`` from the experiment's files, or None when it has
    no results or scored no file (every system asked over the network before answers were
    archived)."""
    if not tasks:
        return None
    files: dict[str, list[tuple[int, str, str, str, str | None]]] = {}
    references: set[str] = set()
    for used in experiment.all("http://www.w3.org/ns/prov#used"):
        node = nodes.get(used.value)
        role = node.text(GQA + "fileRole") if node is not None else None
        url = node.text(DCAT_DOWNLOAD) if node is not None else None
        if node is None or role is None or url is None:
            continue  # recorded before files had addresses: nothing to download
        number = used.value.rsplit("#file-", 1)[-1]
        owner = node.text(GQA + "answersOf")
        system = nodes[owner].text(DCT + "identifier") if owner in nodes else None
        files.setdefault(role, []).append(
            (
                int(number) if number.isdigit() else 0,
                node.text(DCT + "title") or "file",
                url,
                node.text(GQA + "sha256") or "",
                system,
            )
        )
        if owner in nodes and system and _reference(nodes[owner]):
            references.add(system)
    for each in files.values():
        each.sort()
    # a system's name when its file's system is not recorded: its uploaded name's stem
    stems = [a[1].rsplit(".", 1)[0] for a in files.get("answers", [])]
    _name_locally(files)
    datasets, golds = files.get("dataset", []), files.get("gold", [])
    answers, kbs = files.get("answers", []), files.get("kb", [])
    if not datasets and not golds:
        return None
    argv = ["gerbil-qa", "evaluate"]
    if golds and golds[0][1].lower().endswith(".tsv"):
        argv += ["--dataset", golds[0][1]]  # PolEval: expected.tsv, its in.tsv beside it
    else:
        argv += ["--dataset", datasets[0][1]]
        if golds:
            argv += ["--gold", golds[0][1]]
    argv += ["--answers", *(a[1] for a in answers)]
    for a, stem in zip(answers, stems, strict=True):
        argv += ["--system", a[4] or stem]
    profiles = sorted({t.profile for t in tasks})
    argv += ["--profile", profiles[0]]
    pooled = [t.language_tag for t in tasks if "," in t.language_tag]
    argv += ["--lang", pooled[0] if pooled else tasks[0].language_tag]
    for kb in kbs:
        argv += ["--kb", kb[1]]
    described = next((t.knowledge_base for t in tasks if t.knowledge_base), None)
    if described and not kbs and "://" in described and not described.startswith("file:"):
        argv += ["--kb", described.split(" ", 1)[0]]  # a SPARQL endpoint
    if described and " (" in described and described.endswith(")"):
        argv += ["--kb-version", described.split(" (", 1)[1][:-1]]
    by_system: dict[str, set[str]] = {}
    for t in tasks:
        by_system.setdefault(t.system_name, set()).add(t.experiment_type)
    kinds = {frozenset(v) for v in by_system.values()}
    if len(kinds) == 1:  # else the default chose per system (those its answers have data for)
        present = next(iter(kinds))
        argv += ["--types", ",".join(e.value for e in ExperimentType if e.value in present)]
    if any(
        name in MEASURES and MEASURES[name].when is When.RANKED
        for t in tasks
        for name in t.measures
    ):
        argv.append("--ranked")
    argv += _interval_options(tasks)
    # only the check that the answers cover half of the dataset's question ids, which a run
    # may have been told to skip and its graph does not say: the scores are the same either way
    argv += ["--force", "--output", "json"]
    # a KB named by its files' checksum only (recorded before its files were named)
    unnamed = described.split(" ", 1)[0] if described and described.startswith("file:") else None
    scored = {a[4] for a in answers}
    left_out = tuple(sorted({t.system_name for t in tasks} - scored))
    software = experiment.text("http://www.w3.org/ns/prov#wasAssociatedWith")
    agent = nodes.get(software or "")
    return Reproduction(
        downloads=tuple(Download(f[1], f[2], f[3]) for f in [*datasets, *golds, *answers, *kbs]),
        argv=tuple(argv),
        evaluator=agent.text(GQA + "softwareVersion") if agent else None,
        revision=agent.text(GQA + "sourceRevision") if agent else None,
        modified=(agent.text(GQA + "sourceModified") == "true") if agent else False,
        repository=_repository(agent),
        left_out=left_out,
        kb_unnamed=unnamed if not kbs else None,
        from_values=tuple(sorted(references & scored - {None})) if _kb_named(tasks) else (),
    )


ROLES = ("dataset", "gold", "answers", "kb")  # the order of the script's downloads
UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
LONGEST = 100  # characters of a local name


def local_name(stored: str, taken: set[str]) -> str:
    """The name the script saves a file under, in the reader's folder: the last segment of its
    stored name, each character but ``A-Za-z0-9._-`` made ``_``, without leading dots or
    dashes (no hidden file, no option), at most 100 characters, and made unique (``-2``,
    ``-3`` … before its extension; letter case aside, for case-blind file systems). Before,
    it was the stored name itself: ``../x`` or ``/tmp/x`` from an uploader wrote outside the
    reader's folder (explore34 10), and two uploads named alike overwrote each other."""
    base = UNSAFE.sub("_", re.split(r"[/\\]", stored)[-1]).lstrip(".-") or "file"
    stem, dot, extension = base.rpartition(".")
    if not stem:
        stem, dot, extension = base, "", ""
    extension = extension[:20]
    stem = stem[: LONGEST - len(dot + extension)]
    name, n = stem + dot + extension, 1
    while name.lower() in taken:
        n += 1
        name = f"{stem[: LONGEST - len(dot + extension) - len(str(n)) - 1]}-{n}{dot}{extension}"
    taken.add(name.lower())
    return name


def _name_locally(files: dict[str, list[tuple[int, str, str, str, str | None]]]) -> None:
    """Each file's stored name replaced by its :func:`local_name`, in the downloads' order."""
    taken: set[str] = set()
    for role in ROLES:
        each = files.get(role, [])
        each[:] = [(f[0], local_name(f[1], taken), *f[2:]) for f in each]


def _interval_options(tasks: Sequence[TaskResult]) -> list[str]:
    """``--intervals`` when the tasks store bootstrap intervals, with ``--resamples`` and
    ``--seed`` where their signature names others than the command's defaults: without it the
    command printed no interval, though the page shows them and says every number comes again
    (explore60 F1). A withheld gold's run stores none (nor prints any)."""
    from service.evaluation import statistics as st

    signature = next((t.interval_signature for t in tasks if t.intervals), None)
    if signature is None:
        return []
    fields = signature.split("|")
    start = next((i for i, f in enumerate(fields) if f.startswith("ci:")), len(fields))
    named = dict(f.split(":", 1) for f in fields[start + 1 :] if ":" in f)
    options = ["--intervals"]
    for option, key, default in (
        ("--resamples", "n", st.DEFAULT_RESAMPLES),
        ("--seed", "seed", st.DEFAULT_SEED),
    ):
        if named.get(key, "").isdigit() and int(named[key]) != default:
            options += [option, str(int(named[key]))]
    return options


def _repository(agent: Node | None) -> str | None:
    """The http(s) URL of the evaluator's code repository, as its graph names it (an IRI; any
    other value, or one :func:`service.release.repository_problem` refuses, is not linked nor
    cloned)."""
    import pyoxigraph as ox

    found = agent.one(SCHEMA + "codeRepository") if agent is not None else None
    if found is None or not isinstance(found, ox.NamedNode):
        return None
    from service.release import repository_problem

    url = str(found.value)
    if repository_problem(url) is not None:  # recorded before such URLs were refused
        return None
    return url if url.lower().startswith(("http://", "https://")) else None


def _kb_named(tasks: Sequence[TaskResult]) -> bool:
    """Whether a task's signature names a KB its profile does not match through: the KB the
    answers were computed on, which values scored from a file do not name."""
    from service.evaluation.profiles import get_profile

    return any(
        "|kb:file:" in (t.signature or "") and not get_profile(t.profile).uses_kb for t in tasks
    )


def _reference(system: Node) -> bool:
    """A reference system (``gqa:ReferenceSystem``; before 2026-11-29 said in its comment)."""
    types = {t.value for t in system.all(RDF + "type")}
    comment = system.text(RDFS + "comment") or ""
    return GQA + "ReferenceSystem" in types or comment.startswith(REFERENCE_NOTE)
