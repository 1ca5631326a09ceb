"""fair 1.4.0 (explore53): the same answer in other characters — an IRI in NFD or with its
combining mark percent-encoded, an internationalised host and its punycode (F6)."""

from __future__ import annotations

import pytest

from service.evaluation import evaluate
from service.evaluation.results import ExperimentType, QuestionScore
from service.kb.identity import _by_the_rules, canonical_iri, canonical_iris, is_plain_http_iri
from service.model import AnswerSet, Dataset, Question, QuestionText, SystemAnswer, SystemRun, Term

CAFE = "http://dbpedia.org/resource/Caf\u00e9"  # NFC, as Wikipedia titles are


def scored(
    gold: list[Term], given: list[Term], *, answertype: str | None = None, profile: str = "fair"
) -> QuestionScore:
    """One question (English, untagged answers) with ``gold``, answered with ``given``."""
    question = Question(
        "1", (QuestionText("en", "q?"),), answertype=answertype, answers=AnswerSet.of(gold)
    )
    run = SystemRun("s", {"1": SystemAnswer("1", answers=AnswerSet.of(given))})
    ev = evaluate(Dataset("d", (question,)), run, profile=profile, experiment_types=["QA"])
    record: QuestionScore = ev.tasks[ExperimentType.QA].questions[0]
    return record


def counts(record: QuestionScore) -> tuple[int | None, int | None, int | None]:
    return record.tp, record.fp, record.fn


@pytest.mark.parametrize(
    "spelling",
    [
        "http://dbpedia.org/resource/Cafe\u0301",  # NFD
        "http://dbpedia.org/resource/Cafe%CC%81",  # NFD, the combining mark percent-encoded
        "http://dbpedia.org/resource/Cafe%cc%81",
        "https://en.wikipedia.org/wiki/Cafe\u0301",
        "<http://dbpedia.org/resource/Caf%C3%A9>",
    ],
)
def test_an_iri_is_compared_in_nfc(spelling: str) -> None:
    assert canonical_iri(spelling) == CAFE
    assert canonical_iri(CAFE) == CAFE
    assert counts(scored([Term.iri(CAFE)], [Term.iri(spelling)])) == (1, 0, 0)
    assert counts(scored([Term.iri(spelling)], [Term.iri(CAFE)])) == (1, 0, 0)  # either side


@pytest.mark.parametrize(
    "spelling",
    [
        "http://xn--mller-kva.example/x",
        "http://XN--MLLER-KVA.example/x",
        "http://M\u00dcLLER.example/x",
        "http://mu\u0308ller.example/x",  # NFD host
        "https://m\u00fcller.example:443/x",
    ],
)
def test_an_internationalised_host_is_its_punycode(spelling: str) -> None:
    gold = "http://m\u00fcller.example/x"
    assert canonical_iri(spelling) == canonical_iri(gold) == "http://xn--mller-kva.example/x"
    assert counts(scored([Term.iri(gold)], [Term.iri(spelling)])) == (1, 0, 0)
    assert counts(scored([Term.iri(spelling)], [Term.iri(gold)])) == (1, 0, 0)
    assert counts(scored([Term.iri(gold)], [Term.iri("http://muller.example/x")])) == (0, 1, 1)


def test_the_kb_is_asked_for_both_spellings_of_an_internationalised_host() -> None:
    spellings = canonical_iris("http://xn--mller-kva.example/x")
    assert "http://m\u00fcller.example/x" in spellings
    assert {canonical_iri(x) for x in spellings} == {"http://xn--mller-kva.example/x"}


def test_the_shortcut_leaves_no_nfd_iri_unnormalised() -> None:
    nfd = "http://dbpedia.org/resource/Cafe\u0301"
    assert not is_plain_http_iri(nfd)
    assert is_plain_http_iri(CAFE) and is_plain_http_iri("http://dbpedia.org/resource/Berlin")
    assert _by_the_rules(CAFE) == CAFE


def test_only_fair_reads_iris_so() -> None:
    """The exact profile compares IRI strings as written: NFD is another string there."""
    nfd = "http://dbpedia.org/resource/Cafe\u0301"
    assert counts(scored([Term.iri(CAFE)], [Term.iri(nfd)], profile="exact")) == (0, 1, 1)


@pytest.mark.parametrize(
    ("gold", "given"),
    [
        ("\u0130stanbul", "istanbul"),  # explore53 F7: was 0
        ("istanbul", "\u0130STANBUL"),  # was 1 already
        ("\u0130stanbul", "\u0130STANBUL"),
        ("\u0130stanbul", "i\u0307stanbul"),  # İ lower-cased by the Unicode default rule
        ("I\u0307stanbul", "istanbul"),  # İ written decomposed
        ("\u0130stanbul", "ISTANBUL"),
    ],
)
def test_a_dotted_capital_i_folds_alike_on_either_side(gold: str, given: str) -> None:
    """One fold for gold and system: swapping them never changes the score."""
    assert counts(scored([Term.literal(gold)], [Term.literal(given)])) == (1, 0, 0)
    assert counts(scored([Term.literal(given)], [Term.literal(gold)])) == (1, 0, 0)


def test_the_turkish_rule_still_tells_the_dotless_i_apart() -> None:
    """Under tr a capital I is the dotless ı: gold ``Istanbul``@tr is not ``istanbul``."""
    gold = [Term.literal("Istanbul", lang="tr")]
    assert counts(scored(gold, [Term.literal("\u0131stanbul")])) == (1, 0, 0)
    assert counts(scored(gold, [Term.literal("istanbul")])) == (0, 1, 1)


INTEGER = "http://www.w3.org/2001/XMLSchema#integer"


@pytest.mark.parametrize(
    ("gold", "given"),
    [
        ("42", "\uff14\uff12"),  # full-width
        ("3", "\u0663"),  # Arabic-Indic
        ("3", "\u06f3"),  # Persian (Extended Arabic-Indic)
        ("1978", "\u0661\u0669\u0667\u0668"),
        ("42", "42\u200f"),  # with a right-to-left mark
        ("42", "\u200e42"),  # with a left-to-right mark
        ("2.5", "\u0662.\u0665"),
        ("42", "\u2067\u0664\u0662\u2069"),  # in an isolate
    ],
)
def test_digits_of_any_script_are_read_as_numbers(gold: str, given: str) -> None:
    """explore53 F8: these were strings, wrong against the number with no note."""
    record = scored(
        [Term.literal(gold, datatype=INTEGER if "." not in gold else None)],
        [Term.literal(given)],
        answertype="number",
    )
    assert counts(record) == (1, 0, 0)
    # and as the gold: an Arabic-Indic gold is the number an ASCII answer gives
    assert counts(scored([Term.literal(given)], [Term.literal(gold)])) == (1, 0, 0)


def test_a_year_in_arabic_indic_digits_is_the_year() -> None:
    gold = [Term.literal("\u0661\u0669\u0667\u0668")]
    assert counts(scored(gold, [Term.literal("1978-05-02")], answertype="date")) == (1, 0, 0)


def test_grouped_digits_of_another_script_still_get_the_note() -> None:
    """``４２,０００`` is ``42,000``: not read, and the question's note says so."""
    record = scored(
        [Term.literal("42000", datatype=INTEGER)],
        [Term.literal("\uff14\uff12,\uff10\uff10\uff10")],
        answertype="number",
    )
    assert counts(record) == (0, 1, 1)
    assert record.note is not None and record.note.startswith("not read as a number: '")


@pytest.mark.parametrize(
    "given",
    [
        "4\u0662",  # a Latin 4, an Arabic-Indic 2
        "\u0664\u06f2",  # Arabic-Indic 4, Persian 2
        "\uff142",  # a full-width 4, a Latin 2
    ],
)
def test_a_number_is_written_in_the_digits_of_one_script(given: str) -> None:
    """explore54 F7: 1.4.0 read ``4٢`` as 42 (Python's ``int()`` takes mixed scripts); a number
    is written in one script's digits, so the mixed form is wrong and the note says why."""
    record = scored([Term.literal("42", datatype=INTEGER)], [Term.literal(given)])
    assert counts(record) == (0, 1, 1)
    assert record.note is not None, given
    assert record.note.startswith(f"not read as a number: {given!r} (fair reads digits of any one")
    # a date too: 1978 with one digit of another script is no year
    mixed_year = [Term.literal("\u0661\u0669\u06f7\u0668")]
    assert counts(scored(mixed_year, [Term.literal("1978-05-02")], answertype="date"))[0] == 0


@pytest.mark.parametrize(
    ("gold", "given"),
    [
        ("\u06a9\u06cc\u06a9", "\u0643\u064a\u0643"),  # Persian کیک typed with Arabic kaf and yeh
        ("\u0645\u0648\u0633\u06cc", "\u0645\u0648\u0633\u0649"),  # a final yeh as alef maksura
    ],
)
def test_the_arabic_and_persian_kaf_and_yeh_are_one_letter(gold: str, given: str) -> None:
    """They look alike and come in either form from the keyboard (explore53 F9): under fair one
    letter, on either side; under exact still different strings."""
    assert counts(scored([Term.literal(gold)], [Term.literal(given)])) == (1, 0, 0)
    assert counts(scored([Term.literal(given)], [Term.literal(gold)])) == (1, 0, 0)
    exact = scored([Term.literal(gold)], [Term.literal(given)], profile="exact")
    assert counts(exact) == (0, 1, 1)
