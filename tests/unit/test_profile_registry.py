"""Every profile in the registry: a frozen value with name, version, IRI, signature, description;
and the ``exact`` profile's rules."""

from __future__ import annotations

import dataclasses

import pytest

from service.errors import BadRequest
from service.evaluation import PROFILES, evaluate, get_profile
from service.evaluation.profiles import DEFAULT_PROFILE, VOCAB, Profile
from service.evaluation.results import ExperimentType
from service.model import AnswerSet, Dataset, Question, QuestionText, SystemAnswer, SystemRun, Term

NAMES = ["gerbil", "qald6", "qald-legacy", "exact", "fair", "poleval", "text2sparql"]


def test_the_seven_profiles_and_the_default() -> None:
    assert sorted(PROFILES) == sorted(NAMES)
    assert DEFAULT_PROFILE == "fair"
    assert next(iter(PROFILES)) == "fair"


@pytest.mark.parametrize("name", NAMES)
def test_profile_is_a_frozen_value_with_identity(name: str) -> None:
    p = get_profile(name)
    assert p.name == name
    assert p.iri == f"http://w3id.org/gerbil/qa/vocab#profile-{name}"
    assert p.iri.startswith(VOCAB)
    assert p.version.count(".") == 2
    assert len(p.description) > 200 and "\n" not in p.description
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.version = "9"  # type: ignore[misc]


@pytest.mark.parametrize("name", NAMES)
def test_signature_is_built_from_the_explicit_settings(name: str) -> None:
    p = get_profile(name)
    fields = p.signature.split("|")
    assert fields[0] == f"gerbil-qa:{name}"
    assert fields[1] == f"v:{p.version}"
    assert fields[2] == f"ref:{p.reference}"
    assert fields[3:-1] == [f"{k}:{v}" for k, v in p.settings]
    assert fields[-1] == ("kb:none" if p.uses_kb else "kb:no")


def test_signatures_differ_and_carry_the_kb() -> None:
    assert len({p.signature for p in PROFILES.values()}) == len(PROFILES)
    sig = get_profile("gerbil").signature_for("file:sha256:ab (DBpedia 2016-10)")
    assert sig.endswith("|kb:file:sha256:ab_(DBpedia_2016-10)")
    exact = get_profile("exact")
    assert exact.signature_for(None) == exact.signature and exact.signature.endswith("|kb:no")
    # a profile that matches without a KB still names the KB the answers came from (queries
    # run on it): results on two KBs are not one result
    assert exact.signature_for("file:sha256:ab") == exact.signature[: -len("no")] + "file:sha256:ab"


def test_a_setting_cannot_break_the_signature() -> None:
    with pytest.raises(ValueError, match="breaks the signature"):
        dataclasses.replace(get_profile("exact"), settings=(("match", "a|b"),))


def test_unknown_profile_is_a_clear_error() -> None:
    with pytest.raises(BadRequest, match="known profiles: fair, gerbil"):
        get_profile("nope")
    assert isinstance(get_profile(" FAIR "), Profile)


def test_kb_use_and_experiment_types_per_profile() -> None:
    assert {n for n, p in PROFILES.items() if p.uses_kb} == {"gerbil", "fair"}
    full = {n for n, p in PROFILES.items() if p.experiment_types == tuple(ExperimentType)}
    assert full == {"gerbil", "fair", "exact", "text2sparql"}


# -- exact ----------------------------------------------------------------------------------------


def score_exact(gold: AnswerSet, system: AnswerSet):
    ds = Dataset("d", (Question("1", (QuestionText("en", "q?"),), answers=gold),))
    run = SystemRun("s", {"1": SystemAnswer("1", answers=system)})
    return evaluate(ds, run, profile="exact").tasks[ExperimentType.QA].questions[0]


def test_exact_compares_value_strings_of_every_variable() -> None:
    gold = AnswerSet(vars=("a", "b"), rows=({"a": Term.iri("http://x/1"), "b": Term.literal("1")},))
    system = AnswerSet.of([Term.literal("http://x/1"), Term.literal("1", lang="en")])
    q = score_exact(gold, system)
    assert (q.tp, q.fp, q.fn) == (2, 0, 0)


def test_exact_has_no_normalisation_and_set_semantics() -> None:
    q = score_exact(AnswerSet.of([Term.literal("8")]), AnswerSet.of([Term.literal("8.0")]))
    assert (q.tp, q.fp, q.fn) == (0, 1, 1)
    q = score_exact(
        AnswerSet.of([Term.literal("a")]), AnswerSet.of([Term.literal("a"), Term.literal("a")])
    )
    assert (q.tp, q.fp, q.fn, q.f1) == (1, 0, 0, 1.0)


def test_exact_booleans_and_empty_rules() -> None:
    assert score_exact(AnswerSet(boolean=False), AnswerSet.of([Term.literal("false")])).f1 == 1.0
    assert score_exact(AnswerSet(), AnswerSet()).f1 == 1.0
    assert score_exact(AnswerSet(), AnswerSet(boolean=True)).f1 == 0.0
    assert score_exact(AnswerSet(boolean=True), AnswerSet()).f1 == 0.0
