"""How to cite an experiment: BibTeX and plain text, and the papers that cite it.

The experiment's key, URI and date never change (its URI and citation exist from the start,
DESIGN §4): the id (whose first 8 digits are the submission date), the URI and the service's
base. Its title names what was evaluated (the systems and the dataset's title), its note what
a reader needs to reproduce a number: the dataset's name and version, the profile and its
version, the evaluator's release (:func:`scoring_note`); both come from its results, which
never change once it finished (while it runs, the title names what the submission asked and
the note has no results to describe). A withdrawal is the one later change, which its note
then says (with the date and the reason). Papers attached to it (``dct:isReferencedBy``,
``GraphStore.attach_paper``) are added after it, one entry each; a paper known only by its DOI
or URL gets a title that says it is the paper with that DOI (or at that URL), which BibTeX
styles print (an entry without title, author or year printed as an empty reference; the DOI
itself as its title read as the paper's title: explore45 16), its ``doi`` field, and reference
managers complete a DOI entry from the DOI. Each entry writes its URL once, in ``url``, as it
is (biblatex reads it verbatim, natbib's styles print it with ``\\url``): a ``howpublished =
{\\url{…}}`` as well printed it twice, and a ``%`` or ``#`` in it (a paper's URL, a DOI URL's
``%3C``) stopped biblatex with "File ended while scanning use of \\field" (explore55 F3, F6).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
DOI_PREFIXES = ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/")


@dataclass(frozen=True, slots=True)
class Citation:
    uri: str
    bibtex: str
    text: str
    dois: tuple[str, ...] = ()  # of the attached papers (``10.3233/SW-180312``)


def doi_of(paper: str) -> str | None:
    """The DOI of a paper IRI (``https://doi.org/10.…``), None for other URLs."""
    for prefix in DOI_PREFIXES:
        if paper.lower().startswith(prefix):
            return unquote(paper[len(prefix) :])
    return None


def paper_key(paper: str) -> str:
    """A paper's part of its BibTeX key, from its IRI alone: numbered over the sorted papers,
    a key a bibliography used moved to another paper when one more was attached."""
    import hashlib

    return hashlib.sha256(paper.encode("utf-8")).hexdigest()[:8]


def _verbatim(text: str) -> str:
    """``text`` for a field BibTeX and biblatex read verbatim (``doi``, ``url``): as it is where its
    braces balance (a DOI may hold them: dropping them named another DOI), else with its
    braces and backslashes percent-encoded, as a DOI's URL writes them (``10.1000/a%7Db``
    resolves to the DOI ``10.1000/a}b``; dropped, ``10.1000/ab`` was another one)."""
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            break
    if depth == 0 and "\\" not in text:
        return text
    return text.replace("{", "%7B").replace("}", "%7D").replace("\\", "%5C")


def citation_for(
    experiment_id: str,
    uri: str,
    *,
    base: str,
    papers: Sequence[str] = (),
    withdrawn: tuple[str, str] | None = None,
    subject: str | None = None,
    scoring: str | None = None,
    revises: Sequence[RevisionWords] = (),
    revised_by: Sequence[RevisionWords] = (),
) -> Citation:
    """``withdrawn``: when and why its owner withdrew it. The one change an entry takes after
    the submission: whoever copies it later must not cite withdrawn numbers unawares.
    ``subject``: what was evaluated (:func:`experiment_subject`), appended to the title;
    ``scoring``: on and with what (:func:`scoring_note`), in the note. ``revises``: the
    published experiments this one revises, ``revised_by``: the published ones that revise
    it, named in the note and the text as the pages name them: a paper citing a
    superseded run said nothing of its revision, nor a revision of the run it replaces
    (explore38 2)."""
    year, month, day = experiment_id[:4], int(experiment_id[4:6]), int(experiment_id[6:8])
    host = urlsplit(base).netloc or base
    title = f"GERBIL QA experiment {experiment_id}"
    if subject:
        title += f": {' '.join(subject.split())}"
    note = f"Experiment submitted on {year}-{month:02d}-{day:02d} to GERBIL QA at {host}"
    if scoring:
        note += f"; {scoring}"
    if withdrawn is not None:
        when, why = withdrawn
        note += f"; withdrawn on {when[:10]}: {why}"
    links = _revision_links(revises, revised_by)
    for link in links:
        note += f"; {link}"
    entries = [
        f"@misc{{gerbilqa-{experiment_id},\n"
        f"  title = {{{{{_latex(title)}}}}},\n"
        f"  author = {{{{GERBIL QA}}}},\n"
        f"  url = {{{_verbatim(uri)}}},\n"
        f"  year = {{{year}}},\n"
        f"  month = {MONTHS[month - 1]},\n"
        f"  note = {{{_note_latex(note)}}}\n"  # all of it escaped: the host and URIs too
        f"}}"
    ]
    dois = []
    for paper in sorted(papers):
        doi = doi_of(paper)
        # what is known of the paper is its DOI or URL: a title that says so, which styles
        # print (plain, IEEE, APA print a @misc without title, author and year as an empty
        # reference), not the DOI as if it were the paper's title
        known = f"The paper with DOI {doi}" if doi is not None else f"The paper at {paper}"
        fields = [
            f"  url = {{{_verbatim(paper)}}}",
            f"  title = {{{{{_latex(known)}}}}}",
            f"  note = {{{_latex(f'Cites GERBIL QA experiment {experiment_id}, {uri}')}}}",
        ]
        if doi is not None:
            dois.append(doi)
            fields.insert(1, f"  doi = {{{_verbatim(doi)}}}")
        key = f"gerbilqa-{experiment_id}-paper-{paper_key(paper)}"
        entries.append(f"@misc{{{key},\n" + ",\n".join(fields) + "\n}")
    text = f"GERBIL QA ({year}). {title}. {host}. {uri}"
    if scoring:
        text += f". {_plain(' '.join(scoring.split()))}"
    if withdrawn is not None:
        text += f". Withdrawn on {withdrawn[0][:10]}: {' '.join(withdrawn[1].split())}"
    for link in links:
        text += f". {link[:1].upper()}{link[1:]}"
    if papers:  # each by its DOI, else its URL (a paper known by its URL was left out)
        shown = [f"doi:{d}" if (d := doi_of(p)) else p for p in sorted(papers)]
        text += ". Cited by " + ", ".join(shown)
    return Citation(uri=uri, bibtex="\n\n".join(entries), text=text, dois=tuple(dois))


@dataclass(frozen=True, slots=True)
class RevisionWords:
    """One revision link of a citation: the other experiment (id, URI) and how it relates
    (``service.experiments.rescore.RevisionLink``'s decision; None: not known, said neutrally)."""

    id: str
    uri: str
    link: Any = None


def _revision_links(
    revises: Sequence[RevisionWords], revised_by: Sequence[RevisionWords]
) -> list[str]:
    """The note's words for an experiment's revision links (ids and URIs: no LaTeX in them):
    "replace" only where the revision's numbers stand in the leaderboards in place of the older
    one's (as its page says), otherwise the link named as it is (explore40 4, 5)."""
    return [_revises(w) for w in revises] + [_revised_by(w) for w in revised_by]


def _kind(link: Any) -> str:
    if link is None or link.rescoring is None:
        return "re-scored or run again"
    return "re-scored" if link.rescoring else "run again"


def _replaced(link: Any) -> str:
    """ ", for system(s) …" when a revision replaces some of the older one's systems only."""
    if link.all_systems:
        return ""
    names = ", ".join(link.replaces)
    return f" for system{'s' if len(link.replaces) > 1 else ''} {names}"


def _elsewhere(link: Any) -> str:
    """Where a revision's numbers went instead of the older one's place, or ""."""
    if link.dataset:
        return f" onto dataset version {link.dataset}"
    if link.profile:
        return f" under profile {link.profile}"
    return ""


def _revises(words: RevisionWords) -> str:
    named, link = f"experiment {words.id} ({words.uri})", words.link
    if link is not None and link.replaces:
        what = "re-scoring" if link.rescoring else "resubmission"
        if link.rescoring is None:
            what = "re-scoring or resubmission"
        return f"a revision ({what}) of {named}, whose numbers it replaces{_replaced(link)}"
    if link is None:
        return f"a revision (re-scoring or resubmission) of {named}"
    what = "a re-scoring" if link.rescoring else "a resubmission"
    if link.rescoring is None:
        what = "a revision"
    if where := _elsewhere(link):
        return f"{what} of {named}{where} (its numbers stand as scored)"
    return f"{what} of {named}"


def _revised_by(words: RevisionWords) -> str:
    named, link = f"experiment {words.id} ({words.uri})", words.link
    if link is not None and link.replaces:
        return f"revised ({_kind(link)}) by {named}, whose numbers replace these{_replaced(link)}"
    if link is not None and link.withdrawn:
        return f"revised ({_kind(link)}) by {named}, withdrawn since: these numbers stand"
    if link is not None and (where := _elsewhere(link)):
        return f"{_kind(link)}{where} as {named}: these numbers stand as scored"
    return f"revised ({_kind(link)}) by {named}"


def scoring_note(
    *,
    dataset: str | None,
    dataset_name: str | None = None,
    dataset_version: str | None = None,
    profiles: Sequence[str] = (),
    evaluator: str | None = None,
    languages: Sequence[str] = (),
    kbs: Sequence[str] = (),
    kb_files: Sequence[str] = (),
) -> str | None:
    """On and with what an experiment's numbers were computed, as its citation's note says it:
    ``dataset Birds QA (birds-qa-f1a2849c), version 1; profile fair 1.2; evaluator GERBIL QA
    for Python 0.1.0+g682c9dfbc0d5`` (the title named the dataset by its name alone, with no
    version of it, of the profile or of the evaluator: a reader could not tell which numbers
    the entry stood for). ``profiles``: each ``name version`` the results were scored under;
    ``languages``: each language tag of its results (``en``, pooled ``en,es``); ``kbs``: each
    knowledge base its results record (``file:sha256:H (version)``, an endpoint), ``kb_files``
    the names of the files it was given as, each set apart (:func:`_file_name`): ``…; profile
    fair 1.4.0; language en; knowledge base file:sha256:4ebe… (1.0), file "kb.ttl"; evaluator
    …``. The language and the KB change the numbers (the demo's answers-strong scores 0.8214
    without its KB, 1 with it) and the note named neither (explore60 F4); a frozen
    leaderboard's names its language."""
    parts = []
    if dataset:
        said = f"dataset {dataset}"
        if dataset_name and dataset_name != dataset:
            said += f" ({dataset_name})"
        parts.append(said + (f", version {dataset_version}" if dataset_version else ""))
    if profiles:
        parts.append(f"profile{'s' if len(profiles) > 1 else ''} {', '.join(profiles)}")
    if languages:
        parts.append(f"language{'s' if len(languages) > 1 else ''} {', '.join(languages)}")
    if kbs:
        said = f"knowledge base{'s' if len(kbs) > 1 else ''} {', '.join(kbs)}"
        if kb_files:
            names = ", ".join(_file_name(f) for f in kb_files)
            said += f", file{'s' if len(kb_files) > 1 else ''} {names}"
        parts.append(said)
    if evaluator:
        parts.append(f"evaluator {evaluator}")
    return "; ".join(" ".join(p.split()) for p in parts) or None


# A file name in a note, set apart: quoted as the note is written (``…'' in BibTeX, "…" in the
# plain text), so that a name holding the note's own separators (``a, b; evaluator X.ttl``)
# cannot pose as two files and another part of the note (explore61 F5)
_NAME_OPEN, _NAME_CLOSE = "\ue000", "\ue001"  # private-use: taken out of the names themselves
_NAMED = re.compile(f"{_NAME_OPEN}([^{_NAME_CLOSE}]*){_NAME_CLOSE}")


def _file_name(name: str) -> str:
    return _NAME_OPEN + " ".join(name.translate({0xE000: None, 0xE001: None}).split()) + _NAME_CLOSE


def _plain(note: str) -> str:
    """A note as the plain-text citation says it: each file name in double quotes (a quote or
    backslash in it escaped, as JSON writes a string)."""
    return _NAMED.sub(lambda m: json.dumps(m.group(1), ensure_ascii=False), note)


def _note_latex(note: str) -> str:
    """A note as BibTeX (:func:`_latex`), each file name in LaTeX quotes; its own quote marks
    are written as characters, not as quotes that could close the name's."""
    from service.tex import tex_escape

    note = " ".join(note.split())  # on one line, as _latex writes it
    out, at = [], 0
    for found in _NAMED.finditer(note):
        out.append(tex_escape(note[at : found.start()]))
        name = tex_escape(found.group(1)).replace("`", r"\textasciigrave{}")
        out.append("``" + name.replace("'", r"\textquotesingle{}") + "''")
        at = found.end()
    out.append(tex_escape(note[at:]))
    return "".join(out)


# How many systems a citation's title names before it counts the rest.
NAMED_SYSTEMS = 3


def experiment_subject(systems: Sequence[str], dataset: str | None) -> str | None:
    """What an experiment evaluated, as its citation's title says it: ``FRANZ on TEXT2SPARQL'25
    CK25``, ``A, B and C on …``, ``A, B, C and 7 other systems on …``."""
    names = [" ".join(s.split()) for s in systems if s.strip()]
    if len(names) > NAMED_SYSTEMS + 1:
        names = [*names[:NAMED_SYSTEMS], f"{len(names) - NAMED_SYSTEMS} other systems"]
    if not names:
        return dataset or None
    joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"
    return f"{joined} on {dataset}" if dataset else joined


def _latex(text: str) -> str:
    """A user's text as a BibTeX value LaTeX compiles and prints as typed, on one line: escaped
    as the compare LaTeX escapes it (:func:`service.tex.tex_line`), braces and backslashes
    included (dropped, ``\\emph{a}`` printed "empha"; ``<`` printed "¡" under OT1: explore55
    F10, F11)."""
    from service.tex import tex_line

    return tex_line(text)


def leaderboard_bibtex(
    leaderboard_id: str, uri: str, title: str, frozen_at: str, *, base: str, ranks: str = ""
) -> str:
    """The BibTeX entry of a frozen leaderboard (``@misc``, dated the day it was frozen);
    ``ranks``: what it ranks (``QA macro F1 on qald-9-test-multilingual, profile exact``), in
    its note: the title is whatever its freezer typed, so two boards titled alike differed
    only by their URLs in a bibliography."""
    year, month, day = frozen_at[:4], int(frozen_at[5:7]), frozen_at[8:10]
    host = urlsplit(base).netloc or base
    what = f": {ranks}" if ranks else ""
    note = _latex(f"Leaderboard frozen on {year}-{month:02d}-{day} at GERBIL QA, {host}{what}")
    return (
        f"@misc{{gerbilqa-leaderboard-{leaderboard_id},\n"
        f"  title = {{{{{_latex(title)}}}}},\n"
        f"  author = {{{{GERBIL QA}}}},\n"
        f"  url = {{{_verbatim(uri)}}},\n"
        f"  year = {{{year}}},\n"
        f"  month = {MONTHS[month - 1]},\n"
        f"  note = {{{note}}}\n"
        f"}}"
    )


def dataset_citation(
    name: str,
    uri: str,
    title: str,
    *,
    authors: Sequence[str],
    people: Collection[str] = (),
    version: str | None = None,
    issued: str | None = None,
    note: str | None = None,
) -> Citation:
    """How to cite a dataset (its page): its title, its creators (else its publisher), its
    version and year when its description says them, and its URI, which stays; ``note``: that
    it was withdrawn (when, why, its newer version). ``people``: the authors whose type says
    they are persons, written unbraced (BibTeX splits ``Łukasz Żółtowski`` at its last space:
    family name Żółtowski), the others (organisations, or of no type said) braced as one name
    (a person braced was sorted and abbreviated by the whole name: explore55 F4). The version
    is in the note (``Version 2``), which every style prints, not in a ``version`` field: plain
    BibTeX styles ignore one (two versions of a dataset differed only by their URLs), and with
    both biblatex printed "Version 2. Version 2" (explore55 F5)."""
    author = " and ".join(_name(a, person=a in people) for a in authors) or "{GERBIL QA}"
    fields = [
        f"  title = {{{{{_latex(title)}}}}}",
        f"  author = {{{author}}}",
        f"  url = {{{_verbatim(uri)}}}",
    ]
    year = issued[:4] if issued and issued[:4].isdigit() else None
    if year:
        fields.append(f"  year = {{{year}}}")
    said = "; ".join(([f"Version {version}"] if version else []) + ([note] if note else []))
    if said:
        fields.append(f"  note = {{{_latex(said)}}}")
    key = "".join(c if c.isalnum() or c in "-_." else "-" for c in name)
    bibtex = f"@misc{{gerbilqa-dataset-{key},\n" + ",\n".join(fields) + "\n}"
    who = ", ".join(authors) or "GERBIL QA"
    text = f"{who}{f' ({year})' if year else ''}. {' '.join(title.split())}"
    text += f", version {version}. {uri}" if version else f". {uri}"
    if note:
        text += f". {' '.join(note.split())[:1].upper()}{' '.join(note.split())[1:]}"
    return Citation(uri=uri, bibtex=bibtex, text=text)


def _name(name: str, *, person: bool) -> str:
    """An author's name in a BibTeX ``author`` field: a person's as it is (BibTeX splits it
    into given and family names), braced when it would be read as two authors (`` and ``) or
    is not a person's (an organisation's name is one name: ``{Open Lab}``)."""
    if person and " and " not in f" {name.lower()} ":
        return _latex(name)
    return f"{{{_latex(name)}}}"
