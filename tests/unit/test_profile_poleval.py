"""The ``poleval`` profile: geval LenientHarden/ExtractNumber/Lower/Fuzzy/Accuracy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main
from service.errors import BadRequest
from service.evaluation import evaluate, get_profile
from service.evaluation.matchers.base import MatchRule
from service.evaluation.matchers.poleval import extract_number, judge_line, roman_value
from service.evaluation.results import ExperimentType
from service.model import AnswerSet, Dataset, Question, SystemAnswer, SystemRun, Term


@pytest.mark.parametrize(
    ("word", "value"),
    [("XII", 12), ("IV", 4), ("MCMXC", 1990), ("IIII", 4), ("C", 100), ("xii", None), ("A", None)],
)
def test_roman_values(word: str, value: int | None) -> None:
    assert roman_value(word) == value


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("w XII wieku", "12"),
        ("rok 1410", "1410"),
        ("-3.5 stopnia", "-3.5"),
        ("-5", "5"),  # geval's regex: the sign belongs to the decimal alternative only
        ("witamina C", "100"),
        ("Lara Croft", None),
        ("Ludwik XIV i Ludwik XV", "14"),
    ],
)
def test_extract_number(text: str, number: str | None) -> None:
    assert extract_number(text) == number


NUMBER, FUZZY = MatchRule.NUMBER_EXTRACT, MatchRule.FUZZY


def test_roman_numeral_equals_its_decimal() -> None:
    assert judge_line("12", "XII") == (1.0, NUMBER)
    assert judge_line("XII", "12") == (1.0, NUMBER)
    assert judge_line("w XII wieku", "XII") == (1.0, NUMBER)
    assert judge_line("13", "XII") == (0.0, NUMBER)


def test_witamina_c_needs_the_c() -> None:
    # The gold yields the number 100 (roman C): only an answer yielding 100 counts.
    assert judge_line("C", "witamina C") == (1.0, NUMBER)
    assert judge_line("witamina C", "witamina C") == (1.0, NUMBER)
    assert judge_line("witamina", "witamina C") == (0.0, NUMBER)
    # a lower-case c is no roman numeral
    assert judge_line("witamina c", "witamina C") == (0.0, NUMBER)


def test_numbers_are_compared_as_strings() -> None:
    assert judge_line("1410 r.", "1410") == (1.0, NUMBER)
    assert judge_line("12.0", "12") == (0.0, NUMBER)


def test_levenshtein_at_most_half_the_gold_length_lower_cased() -> None:
    assert judge_line("jerozolima", "w Jerozolimie") == (1.0, FUZZY)  # distance 4 <= 13/2
    assert judge_line("LARA CROFT", "Lara Croft") == (1.0, FUZZY)
    assert judge_line("abcd", "abcdefgh") == (1.0, FUZZY)  # distance 4 = 8/2
    assert judge_line("abc", "abcdefgh") == (0.0, FUZZY)  # distance 5 > 4
    assert judge_line("", "") == (0.0, FUZZY)  # an empty gold never matches


def run(gold: list[list[str]], answers: list[str]):
    qs = tuple(
        Question(str(i + 1), answers=AnswerSet.of(Term.literal(a) for a in alts))
        for i, alts in enumerate(gold)
    )
    sys_answers = {
        str(i + 1): SystemAnswer(str(i + 1), answers=AnswerSet.of([Term.literal(a)] if a else []))
        for i, a in enumerate(answers)
    }
    return evaluate(Dataset("d", qs), SystemRun("s", sys_answers), profile="poleval")


def test_best_alternative_counts_and_accuracy_is_mean_credit() -> None:
    ev = run(
        [["Richard I", "Ryszard Lwie Serce"], ["52"], ["tak"], ["Pobożny"]],
        ["Ryszard Lwie Serca", "52 tygodnie", "nie", ""],
    )
    assert ev.language == "pl"
    task = ev.tasks[ExperimentType.QA]
    assert [q.f1 for q in task.questions] == [1.0, 1.0, 0.0, 0.0]
    assert task.measures["accuracy"] == 0.5
    assert task.measures["macroF1"] == 0.5


def test_line_counts_must_match() -> None:
    with pytest.raises(BadRequest, match="one answer line per question"):
        run([["a"], ["b"]], ["a"])


def test_poleval_scores_qa_only() -> None:
    assert get_profile("poleval").experiment_types == (ExperimentType.QA,)
    assert get_profile("poleval").default_language == "pl"


def test_poleval_dev_through_the_cli(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real PolEval 2021 dev-0 gold (expected.tsv with in.tsv beside it) and two out.tsv."""
    expected = data_dir / "poleval2021" / "dev-0" / "expected.tsv"
    lines = expected.read_text(encoding="utf-8").splitlines()
    perfect = tmp_path / "out.tsv"
    perfect.write_text("\n".join(line.split("\t")[-1] for line in lines) + "\n", encoding="utf-8")
    half = tmp_path / "out-half.tsv"
    half.write_text(
        "\n".join(line.split("\t")[0] if i % 2 else "zzzzzzzzzzzz" for i, line in enumerate(lines))
        + "\n",
        encoding="utf-8",
    )
    args = ["evaluate", "--dataset", str(expected), "--profile", "poleval", "--output", "json"]
    assert main([*args, "--answers", str(perfect), "--answers", str(half)]) == 0
    first, second = (json.loads(x) for x in capsys.readouterr().out.splitlines())
    assert first["language"] == "pl" and first["results"]["QA"]["questions"] == len(lines)
    assert first["results"]["QA"]["accuracy"] == 1.0
    # odd lines carry a gold alternative (credit 1), even lines a nonsense answer (credit 0)
    assert second["results"]["QA"]["accuracy"] == (len(lines) // 2) / len(lines)


def test_several_values_given_for_one_question_are_warned_of() -> None:
    """A web service or QALD-JSON file giving two values for a question was scored with them
    joined by a tab, silently: junk before a number cost nothing (explore28 F16)."""
    from service.model import QuestionText

    pl = (QuestionText("pl", "Ile?"),)
    ds = Dataset(
        "d",
        (
            Question("1", pl, answers=AnswerSet.of([Term.literal("1000")])),
            Question("2", pl, answers=AnswerSet.of([Term.literal("Łódź")])),
        ),
    )
    two = AnswerSet.of([Term.literal("zupełnie nie to"), Term.literal("1000")])
    run = SystemRun("s", {"1": SystemAnswer("1", answers=two), "2": SystemAnswer("2", answers=two)})
    ev = evaluate(ds, run, profile="poleval")
    said = [p.message for p in ev.problems if "several values" in p.message]
    assert said == [
        "2 questions were answered with several values (1, 2): the poleval profile reads one "
        "answer line per question, so they are joined with tabs into one (a number anywhere "
        "in it counts, any other text is compared whole); give one value per question"
    ]
    single = AnswerSet.of([Term.literal("1000")])
    one = SystemRun(
        "s", {"1": SystemAnswer("1", answers=single), "2": SystemAnswer("2", answers=single)}
    )
    assert not [p for p in evaluate(ds, one, profile="poleval").problems if "several" in p.message]
