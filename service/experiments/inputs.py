"""Reading and checking what an experiment is given: its files, its dataset, its answers.

Every check a user can trip over is here, once, for the command line and the API alike: an
unreadable file (``file:line:column``, from the format readers), a dataset without questions or
without gold answers, answers whose question ids barely match the dataset's (answers to another
dataset, unless forced), and a run that leaves every question skipped (no question has text in
the chosen language).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from service.errors import BadRequest, FormatError, Problem
from service.evaluation.results import QUERY_LEVEL_TYPES, ExperimentType
from service.experiments.spec import CatalogueDataset, DatasetSource, FileDataset, FileRef

if TYPE_CHECKING:
    from service.evaluation.profiles import Profile
    from service.evaluation.results import Evaluation
    from service.experiments.locate import Sources
    from service.formats.base import Limits
    from service.model import Dataset, Question, SystemRun

MIN_MATCHED_IDS = 0.5  # below this share of the dataset's question ids, answers are refused


class Files:
    """The bytes, checksums and parsed content of the files an experiment reads.

    A local file is read from its path; an upload from ``blobs`` (the job's files, or the
    request's while a submission is checked). Each file is parsed once per language."""

    def __init__(
        self,
        blobs: Mapping[str, bytes] | Callable[[str], bytes] | None = None,
        *,
        limits: Limits | None = None,
    ) -> None:
        self._blobs = blobs
        self.limits = limits  # None: the format readers' (the environment's answer limits)
        self._parsed: dict[tuple[str, str | None, str, bool, str], Dataset] = {}
        self._sums: dict[str, tuple[str, int]] = {}

    def data(self, ref: FileRef) -> bytes:
        if ref.path is not None:
            try:
                return Path(ref.path).read_bytes()
            except OSError as err:
                raise FormatError(
                    Problem(f"cannot read the file: {err.strerror or err}", file=ref.path)
                ) from None
        if ref.sha256 is None or self._blobs is None:
            raise BadRequest(f"{ref.name}: the uploaded file is not available")
        if callable(self._blobs):
            return self._blobs(ref.sha256)
        if ref.sha256 not in self._blobs:
            raise BadRequest(f"{ref.name}: the uploaded file is not available")
        return self._blobs[ref.sha256]

    def checksum(self, ref: FileRef) -> tuple[str, int]:
        """SHA-256 and size (read from the file when the reference has none)."""
        if ref.sha256 is not None and ref.size is not None:
            return ref.sha256, ref.size
        key = ref.path or ref.name
        if key not in self._sums:
            import hashlib  # not at import: OpenSSL's start-up is felt by `evaluate`

            data = self.data(ref)
            self._sums[key] = (hashlib.sha256(data).hexdigest(), len(data))
        return self._sums[key]

    def dataset(
        self,
        ref: FileRef,
        *,
        language: str | None,
        answers: bool = False,
        questions: FileRef | None = None,
    ) -> Dataset:
        """The file read as a dataset or, with ``answers``, as a system's answer file
        (FormatError naming file and position); ``questions``: a TSV ``expected.tsv``'s
        ``in.tsv``, its question texts."""
        from service import formats

        given = None
        if questions is not None:
            named = questions.path or PurePosixPath(questions.name).name or "in.tsv"
            given = (named, self.data(questions))
        beside = (questions.path or questions.sha256 or questions.name) if questions else ""
        key = (ref.path or ref.sha256 or ref.name, ref.format, language or "", answers, beside)
        if key not in self._parsed:
            if ref.path is not None:
                parsed = formats.read(
                    ref.path,
                    format=ref.format,
                    language=language,
                    limits=self.limits,
                    answers=answers,
                    questions=given,
                )
            else:
                name = PurePosixPath(ref.name).name or "upload"
                parsed = formats.read(
                    self.data(ref),
                    format=ref.format,
                    name=name,
                    language=language,
                    limits=self.limits,
                    answers=answers,
                    questions=given,
                )
                # later checks name the file by its source: an upload's is its name, not None
                parsed = replace(parsed, source=parsed.source or name)
            self._parsed[key] = parsed
        return self._parsed[key]


def read_dataset(
    source: DatasetSource,
    files: Files,
    *,
    language: str | None,
    named: bool = True,
    gold: DatasetSource | None = None,
    types: Sequence[str] = (),
) -> Dataset:
    """The dataset of a spec, read and checked (:func:`check_dataset`); with ``gold`` (a result
    set or any answers file, or a catalogue dataset) its gold answers are taken from there,
    matched by question id and language (:func:`service.model.attach_gold`; what does not match
    is reported as warnings). ``types``: the experiment types asked for, which say what gold
    the dataset must have. ``named``: the run names ``language`` (``--lang``, "language"); not
    named, it is the profile's default and a file whose texts state no language (TSV) is read
    in that of the profile made for its format (:func:`texts_language`)."""
    if isinstance(source, CatalogueDataset):
        from service import catalog

        entry = catalog.get_entry(source.name)  # NotFound names `gerbil-qa datasets`
        if source.version not in (None, entry.version):
            raise BadRequest(
                f"dataset {entry.name}: only its catalogue version {entry.version!r} can be "
                f"evaluated by name, not {source.version!r}; give a registered version's file"
            )
        dataset = catalog.load(entry.name)
        name = entry.name
    else:
        tagged = texts_language(source, language if named else None) or language
        dataset = files.dataset(source.file, language=tagged, questions=source.questions)
        if source.title:  # a registered version, named as the catalogue's
            dataset = dataset.renamed(source.title)
        name = None
    if gold is not None:
        dataset = _with_gold(dataset, gold, files, language=language)
    sources = None  # with its gold from another file, the values are not all in its own
    if isinstance(source, FileDataset) and gold is None:
        from service.experiments.locate import sources_of

        sources = sources_of(source, files)
    check_dataset(dataset, name=name, types=types, sources=sources)
    return dataset


def texts_language(source: FileDataset, named: str | None) -> str | None:
    """The language of a dataset file's texts that state none (TSV's): the one the run names,
    else that of the profile made for the file's format (PolEval's TSV: pl), as the built-in
    PolEval dataset's are. Before, they took the profile's default: `--profile fair` on an
    expected.tsv was scored and labelled as English where the built-in name was refused
    naming --lang and --profile poleval."""
    if named:
        return named
    from service.catalog import texts_language_of_file

    return texts_language_of_file(source.file.name, source.file.format)


def check_stated_language(
    source: DatasetSource, dataset: Dataset, language: str, *, named: bool
) -> None:
    """Refuse a run that names no language on a file whose questions have no text to tell it by
    (a PolEval expected.tsv without its in.tsv) where its format's language is another than the
    profile's default: with its in.tsv the run is refused (no text in that language); without,
    it was scored and labelled in the default (``fair``: en) — PolEval's questions as English."""
    from service.catalog import own_profile_of_file

    if named or not isinstance(source, FileDataset) or any(q.texts for q in dataset.questions):
        return
    own = texts_language(source, None)
    if own is None or own == language:
        return
    profile = own_profile_of_file(source.file.name, source.file.format)
    raise BadRequest(
        f"{source.file.name}: its questions state no language and have no text to tell it by; "
        f"a file of this format is read as {own!r} (as the built-in dataset's), not as "
        f"{language!r}, this profile's default: name the language (--lang {own}; the API: "
        f'"language"; the pages: the "Language" field) or choose --profile {profile}',
        field="language",
    )


def _with_gold(
    dataset: Dataset, source: DatasetSource, files: Files, *, language: str | None
) -> Dataset:
    from service.model import attach_gold

    if isinstance(source, CatalogueDataset):
        from service import catalog

        gold = catalog.load(catalog.get_entry(source.name).name)
    else:
        gold = files.dataset(source.file, language=language)
    if language is not None:  # the entries of the language scored (and those for every one)
        kept = tuple(q for q in gold.questions if q.language in (None, language))
        gold = replace(gold, questions=kept)
    return attach_gold(dataset, gold)


def check_dataset(
    dataset: Dataset,
    *,
    name: str | None = None,
    types: Sequence[str] = (),
    sources: Sources | None = None,
) -> None:
    """A dataset must have questions and gold for the experiment ``types`` (empty: the default,
    QA first) to score against: QA and AT need gold answers, the query-level sub-experiments
    gold queries (or annotations), as the scorer marks a question without them ``no-gold``.
    ``name``: the catalogue's, said instead of its file (a web user never sees the mirror);
    ``sources``: its files, read again to say where a refused character is."""
    where = name or dataset.source
    if not dataset.questions:
        raise FormatError(Problem("the dataset has no questions", file=where))
    refuse_unwritable(dataset, where, sources=sources)
    wanted = _known_types(types)
    answers = any(q.answers is not None or q.out_of_scope for q in dataset.questions)
    queries = any(map(_has_gold_markings, dataset.questions))
    by_answers = not types or any(t not in QUERY_LEVEL_TYPES for t in wanted)
    by_queries = any(t in QUERY_LEVEL_TYPES for t in wanted)
    # each type asked by name needs its gold: QA beside C2KB on a dataset without answers
    # was recorded as a QA task of "undef." measures, where QA alone was refused
    lacking = [t for t in wanted if not (queries if t in QUERY_LEVEL_TYPES else answers)]
    if lacking and len(lacking) < len(wanted):
        gold = {False: "gold answers", True: "gold queries or annotations"}
        missing = {gold[t in QUERY_LEVEL_TYPES] for t in lacking}
        able = ",".join(t.value for t in wanted if t not in lacking)
        raise FormatError(
            Problem(
                f"the dataset has no {' or '.join(sorted(missing))}, so "
                f"{', '.join(t.value for t in lacking)} cannot be scored; score the others "
                f'alone: --types {able} (the API: "experimentTypes"; the pages: the '
                "experiment type boxes)",
                file=where,
                expected="experiment types the dataset has gold for",
            )
        )
    if (by_answers and answers) or (by_queries and queries) or (types and not wanted):
        return  # something can be scored (unknown types: the scorer names the known ones)
    if by_answers:
        raise FormatError(
            Problem(
                "the dataset has no gold answers, so nothing can be scored"
                + _gold_queries_hint(dataset, name or dataset.source or "FILE"),
                file=where,
                expected="questions with answers",
            )
        )
    asked = ", ".join(t.value for t in wanted)
    raise FormatError(
        Problem(
            f"the dataset has no gold queries or annotations, so {asked} cannot be scored",
            file=where,
            expected="questions with a gold SPARQL query",
        )
    )


_MAX_NAMED = 10  # characters XML cannot carry: the first ones named, then a count
# what no language tag holds, and an IRI or a task's label cannot: spaces (U+2028 too), control
# characters (C1 and DEL too), lone surrogates, a BOM and noncharacters (explore31 F3: a
# "language": "all" run on a question tagged "en x/y" ended in an internal error)
_UNNAMING = re.compile(r"[\s\x00-\x1f\x7f-\x9f\ud800-\udfff\ufeff\ufffe\uffff<>\"{}|\\^`]")


def _printable(text: str) -> str:
    """``text``, or its escapes (``2\\ud800``) when it holds what cannot be printed."""
    return text if text.isprintable() else repr(text)[1:-1]


def _code_point(found: re.Match[str] | None) -> str:
    """The character ``found`` matched, by code point and place."""
    if found is None:
        return "nothing"
    return f"U+{ord(found.group()):04X} at character {found.start() + 1}"


def refuse_unwritable(
    dataset: Dataset, where: str | None, *, sources: Sources | None = None
) -> None:
    """Refuse a dataset holding a character XML 1.0 cannot carry (a control character but tab,
    LF and CR; U+FFFE, U+FFFF) in a question's text, keywords, query, gold answer or other
    field: stored, every RDF/XML document, SPARQL XML result and HTML page holding it would
    not be well-formed (README "Only valid terms are stored"). FormatError naming the file,
    each question and field, and the character by code point and place; with ``sources`` (the
    files read again), the line, column and JSON path of each value too (explore31 F8) and,
    for a PolEval pair's texts, its in.tsv (F7). A lone surrogate (half an emoji) is stored
    as U+FFFD, as before (the rule of ``service/valid_terms.py``)."""
    from service.experiments.locate import Refused, located
    from service.valid_terms import (
        first_unwritable,
        has_control,
        has_unwritable,
        unwritable_expected,
        unwritable_problem,
    )

    refused: list[Refused] = []
    about = [(f"the dataset's {key}", value) for key, value in dataset.metadata]
    about += [("the dataset's id", dataset.id)] if dataset.id is not None else []
    for question in (None, *dataset.questions):
        strings = _question_strings(question) if question is not None else about
        # an id holding what is refused is named by its escapes, which every output can write
        qid = None if question is None else _printable(question.id)
        for field, value in strings:
            if field == "the language tag" and _UNNAMING.search(value):
                found = _UNNAMING.search(value)
                refused.append(  # it names the language's IRI and task: a run died on it
                    Refused(
                        Problem(
                            f"{field} {value!r} holds {_code_point(found)}, which no language "
                            "tag has",
                            file=where,
                            question_id=qid,
                            expected="an ISO 639 code such as de, or a BCP 47 tag such as en-US",
                        ),
                        value,
                        found,
                    )
                )
                continue
            # an id is a key: a lone surrogate made U+FFFD would merge two ids (explore31 F1)
            keyed = field == "the question id" and has_unwritable(value)
            if has_control(value) or keyed:
                said = unwritable_problem(value, surrogates=keyed).removeprefix("the value ")
                refused.append(
                    Refused(
                        Problem(
                            f"{field}: {said}",
                            file=where,
                            question_id=qid,
                            expected=f"{unwritable_expected(value, surrogates=keyed)} "
                            "(XML 1.0 §2.2 Char), which no RDF/XML document or HTML page can "
                            "carry",
                        ),
                        value,
                        first_unwritable(value, surrogates=keyed),
                        text=field.startswith("the question text"),
                    )
                )
    if refused:
        named = located(refused[:_MAX_NAMED], sources, dataset.format)
        if len(refused) > _MAX_NAMED:
            last = named[-1]
            extra = f"{last.message} (and {len(refused) - _MAX_NAMED} more such fields)"
            named[-1] = replace(last, message=extra)
        raise FormatError(named)


def _question_strings(question: Question) -> Iterable[tuple[str, str]]:
    """Every text of ``question`` that can be stored, with what it is."""
    yield "the question id", question.id
    for text in question.texts:
        for what, value in (("question text", text.string), ("keywords", text.keywords)):
            if value is not None:
                yield f"the {what} ({text.language})", value
        yield "the language tag", text.language
    for what, query in (
        ("gold query", question.sparql),
        ("pseudo query", question.pseudo_query),
        ("schemaless query", question.schemaless_query),
    ):
        if query is not None:
            yield f"the {what}", query
    if question.answers is not None:
        for row in question.answers.rows:
            for var, term in row.items():
                yield f"the gold answer ?{var}", term.value
    for key, value in question.extra:
        yield f"the field {key!r}", value
    if question.answertype is not None:
        yield "the answer type", question.answertype


def _known_types(types: Sequence[str]) -> list[ExperimentType]:
    known = {t.value: t for t in ExperimentType}
    return [known[k] for k in (str(t).strip().upper() for t in types) if k in known]


def _has_gold_markings(question: Question) -> bool:
    """Whether the query-level sub-experiments have gold for ``question``: its gold query (or
    pseudo query) when in scope, or annotations and answer item types (as the scorer reads)."""
    query = question.sparql or question.pseudo_query
    if query and query.strip() and not question.out_of_scope:
        return True
    return bool(question.answer_item_types) or any(t.annotations for t in question.texts)


def _gold_queries_hint(dataset: Dataset, name: str) -> str:
    """How a dataset of gold queries without answers (LC-QuAD 1.0) gets its answers, or is
    scored without them."""
    queries = sum(1 for q in dataset.questions if q.sparql and q.sparql.strip())
    if not queries:
        return ""
    types = ",".join(t.value for t in QUERY_LEVEL_TYPES)
    return (
        f"; its {queries} questions have gold SPARQL: `gerbil-qa dataset refresh {name} "
        "--kb FILE|URL` runs them on its knowledge base into a dataset with answers, or give "
        'the gold answers apart with --gold (the API: "gold"; the run page: "gold answers '
        f'from a file"), or score only what the queries mark: --types {types} (the API: '
        '"experimentTypes")'
    )


def check_unique_ids(dataset: Dataset) -> None:
    """Refuse a dataset whose question ids repeat, for an experiment to be recorded: the graph
    names each question's result by its id (two results under one URI merged their numbers, and
    the store's check found the task invalid), and a system's answers are matched by id, so two
    questions of one id cannot be told apart. Each repeat is named where its reader found it;
    ``evaluate`` without a store still scores such a file, with the readers' warnings."""
    from service.formats.fields import DUPLICATE_ID

    repeated = [p for p in dataset.problems if p.message.startswith(DUPLICATE_ID)]
    if not repeated:  # a reader that gives no such warning
        seen: set[tuple[str, str | None]] = set()  # a question per language (TEXT2SPARQL)
        for question in dataset.questions:
            key = (question.id, question.language)
            if key in seen:
                repeated.append(Problem(f"{DUPLICATE_ID} {question.id}", file=dataset.source))
            seen.add(key)
    expected = (
        "unique question ids (the store names each question's result by its id, and "
        "answers are matched by it)"
    )
    if repeated:  # the reader's "lookups by id use the first" holds for answers, not a store
        raise FormatError(
            [
                replace(p, severity="error", expected=expected, message=p.message.split(";")[0])
                for p in repeated
            ]
        )


# The run page's box for ``ranked`` (``evaluate --ranked``), and its one-line explanation, which
# the OpenAPI Submission's ``ranked`` says too.
RANKED_LABEL = "each system's answers are in rank order, best first"
RANKED_HELP = (
    "Also score MRR and Hits@1, 5 and 10: the rank of the first right item in each answer "
    "list as the system ordered it"
)

# The web forms' box for ``force``; the refusal below names it, so a reader knows what to tick.
FORCE_LABEL = "score answer files even when they answer under half of the questions"


def check_answer_ids(
    dataset: Dataset, run: SystemRun, *, force: bool, where: str, unasked: Iterable[str] = ()
) -> None:
    """Refuse answers that answer less than half of the dataset's questions by id (answers to
    another dataset, e.g. QALD-8 answers against QALD-9 test), unless ``force``. ``unasked``:
    the file's entries for questions an aborted run never asked (not in ``run``): the
    dataset's ids all the same."""
    ids = {q.id for q in dataset.questions}
    matched = sum(1 for qid in {*run.answers, *unasked} if qid in ids)
    if force or not ids or matched >= MIN_MATCHED_IDS * len(ids):
        return
    if not run.answers and not matched:  # ``[]``: not another dataset's (explore41 F7)
        raise FormatError(
            Problem(
                "the file holds no entries: no question has an answer here, so every one would "
                f'score 0. Force scoring it with --force (the API: "force": true; the run and '
                f'compare pages: tick "{FORCE_LABEL}")',
                file=where,
                expected=f"answers to the dataset's question ids (such as {_some(ids)})",
            )
        )
    foreign = [qid for qid in run.answers if qid not in ids][:3]
    shown = (
        f"; ids such as {', '.join(map(repr, foreign))} are not the dataset's" if foreign else ""
    )
    # a problem of the file, as the readers' (the API's problems[] named none)
    raise FormatError(
        Problem(
            f"only {matched} of the dataset's {len(ids)} question ids have an answer here"
            f"{shown}: are these answers to another dataset? Force scoring them with --force "
            f'(the API: "force": true; the run and compare pages: tick "{FORCE_LABEL}")',
            file=where,
            question_id=foreign[0] if foreign else None,
            expected=f"answers to the dataset's question ids (such as {_some(ids)})",
        )
    )


def _some(ids: set[str]) -> str:
    """Three of a dataset's question ids, in their natural order."""
    shown = sorted(ids, key=lambda i: (len(i), i))[:3]
    return ", ".join(map(repr, shown))


def check_answer_count(dataset: Dataset, answers: Dataset, *, profile: str) -> None:
    """Refuse an answer file with more or fewer answers than the dataset has questions, for a
    profile that pairs them by position (poleval): at the line where the first missing or
    extra answer is, not after the experiment is reserved (a 201, then an error)."""
    given, wanted = len(answers.questions), len(dataset.questions)
    if given == wanted:
        return
    lines = answers.format == "tsv"
    what = "answer lines" if lines else "answers"
    said = what.removesuffix("s") if given == 1 else what
    raise FormatError(
        Problem(
            f"{given} {said} for {wanted} questions: the {profile} profile needs one answer "
            + ("line per question, in the dataset's order" if lines else "per question")
            + (" (an empty line is an empty answer)" if lines and given < wanted else ""),
            file=answers.source,
            line=min(given, wanted) + 1 if lines else None,
            column=1 if lines else None,
            expected=f"{wanted} {what}",
        )
    )


def check_header(dataset: Dataset, answers: Dataset, *, where: str) -> None:
    """Refuse a TSV answer file whose line 1 looks like a header: TSV has none (a question is
    its line number), so the header would be question 1's answers and every answer after it
    one question off. A first cell that is one of the dataset's question ids is no header."""
    if answers.format != "tsv":
        return
    from service.formats.tsv import HEADER_KEY

    header = dict(answers.metadata).get(HEADER_KEY)
    cells = [cell.strip() for cell in header.split("\t")] if header is not None else []
    if not cells or cells[0] in {q.id for q in dataset.questions}:
        return
    raise FormatError(
        Problem(
            f"line 1 looks like a header (`{'  '.join(cells)}`): TSV answer files have no "
            "header; remove it",
            file=where,
            line=1,
            column=1,
            expected="line n to hold the answers to question n, from line 1",
        )
    )


def check_scored(evaluation: Evaluation, dataset: Dataset) -> None:
    """A run that leaves every question skipped is an error that says why, not a table of n/a."""
    from service.evaluation.results import QuestionStatus

    records = [qs for task in evaluation.tasks.values() for qs in task.questions]
    if records and any(qs.status is not QuestionStatus.NO_TEXT for qs in records):
        return
    raise _no_text(evaluation.dataset, dataset, evaluation.language, evaluation.profile)


def check_has_text(dataset: Dataset, language: str, profile: Profile) -> None:
    """Refuse, before a run, a language no question of the dataset has a text in: every
    question would be skipped (what :func:`check_scored` says after the run)."""
    from service.evaluation.runner import has_text

    if not any(has_text(q, language) for q in dataset.questions):
        raise _no_text(dataset.label, dataset, language, profile)


def _no_text(name: str, dataset: Dataset, language: str, profile: Profile) -> BadRequest:
    languages = sorted(  # where some text is there: an empty string is no question
        {
            t.language
            for q in dataset.questions
            for t in q.texts
            if t.language and ((t.string or "").strip() or (t.keywords or "").strip())
        }
    )
    has = f"it has questions in {', '.join(languages)}" if languages else "it has no question text"
    return BadRequest(
        f"every question of {name} was skipped: none has text in language "
        f"{language!r} (the {profile.name} profile's default is "
        f"{profile.default_language!r}); {has}. Choose one with --lang "
        '(the API: "language"; the run and compare pages: the "Language" field)'
        + _profile_for(languages, profile)
    )


def _profile_for(languages: list[str], profile: Profile) -> str:
    """The profiles made for one of the dataset's languages (poleval for Polish): a PolEval
    participant told only to choose a language got fair's numbers, which count every
    alternative answer as one to find."""
    from service.evaluation.profiles import made_for

    made = made_for(languages, besides=profile.default_language)
    if not made:
        return ""
    return (
        ", or a profile made for it: "
        + ", ".join(f"--profile {n}" for n in made)
        + (' (the API and the pages: "profile")')
    )


def media_type_of(dataset: Dataset) -> str | None:
    """The registered (IANA) media type of the format a file was read as: its generic one
    (``application/json`` for the JSON formats, ``application/xml``, …), since our ``+json``
    names are not registered and the graph links media types to IANA's registry."""
    from service.formats import FORMATS

    fmt = FORMATS.get(dataset.format or "")
    if fmt is None or not fmt.media_types:
        return None
    media = fmt.media_types[-1]
    for suffix, generic in (("+json", "application/json"), ("+xml", "application/xml")):
        if media.endswith(suffix):
            return generic
    return media
