"""The ``--sprt`` settings: parsing, defaults, one-line errors, Wald's bounds, verdicts."""

from __future__ import annotations

import math

import pytest

from arena.abtest.sprt import SprtSpec, SprtSpecError, Verdict, parse_sprt


def test_the_command_line_form_is_parsed() -> None:
    spec = parse_sprt("elo0=0 elo1=10 alpha=0.05 beta=0.05")
    assert spec == SprtSpec(elo0=0.0, elo1=10.0, alpha=0.05, beta=0.05, model="logistic")


def test_tokens_may_come_as_a_list_with_commas_and_in_any_case() -> None:
    spec = parse_sprt(["ELO0=-2.5,elo1=3", "Alpha=0.1", "beta=0.2", "model=Normalised"])
    assert (spec.elo0, spec.elo1, spec.alpha, spec.beta) == (-2.5, 3.0, 0.1, 0.2)
    assert spec.model == "normalized"


def test_missing_settings_take_the_documented_defaults() -> None:
    assert parse_sprt("") == SprtSpec(0.0, 10.0, 0.05, 0.05, "logistic")
    assert parse_sprt("elo1=5").elo1 == 5.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("elo0=0 elo2=10", "unknown SPRT setting 'elo2'"),
        ("elo0=0 elo1=0", "elo1 must be greater than elo0"),
        ("elo0=5 elo1=2", "elo1 must be greater than elo0"),
        ("alpha=0", "alpha must lie strictly between 0 and 0.5"),
        ("alpha=0.5", "alpha must lie strictly between 0 and 0.5"),
        ("beta=-0.1", "beta must lie strictly between 0 and 0.5"),
        ("beta=0.7", "beta must lie strictly between 0 and 0.5"),
        ("elo1=ten", "elo1='ten' is not a number"),
        ("elo1=nan", "elo1 must be a finite number"),
        ("elo1=inf", "elo1 must be a finite number"),
        ("elo1", "expected KEY=VALUE"),
        ("elo1=", "expected KEY=VALUE"),
        ("elo1=3 elo1=4", "given twice"),
        ("model=bayes", "unknown model 'bayes'"),
        ("elo1=5000", "within ±1000"),
    ],
)
def test_bad_settings_are_rejected_with_a_one_line_message(text: str, message: str) -> None:
    with pytest.raises(SprtSpecError) as err:
        parse_sprt(text)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_spec_errors_are_value_errors_for_callers_that_catch_those() -> None:
    with pytest.raises(ValueError):
        SprtSpec(elo0=1, elo1=1)


def test_wald_bounds_follow_from_alpha_and_beta() -> None:
    spec = SprtSpec(alpha=0.05, beta=0.05)
    assert spec.lower == pytest.approx(math.log(0.05 / 0.95))
    assert spec.upper == pytest.approx(math.log(0.95 / 0.05))
    assert spec.upper == pytest.approx(2.944438979)
    skewed = SprtSpec(alpha=0.01, beta=0.2)
    assert skewed.lower == pytest.approx(math.log(0.2 / 0.99))
    assert skewed.upper == pytest.approx(math.log(0.8 / 0.01))


def test_the_verdict_is_read_off_the_bounds() -> None:
    spec = SprtSpec()
    assert spec.verdict(spec.upper) is Verdict.ACCEPT_H1
    assert spec.verdict(spec.lower) is Verdict.ACCEPT_H0
    assert spec.verdict(0.0) is Verdict.CONTINUE
    assert spec.verdict(spec.upper - 1e-9) is Verdict.CONTINUE
    assert Verdict.ACCEPT_H1.text == "H1 accepted"


def test_a_spec_round_trips_through_its_dict_and_prints_in_command_line_form() -> None:
    spec = SprtSpec(-1, 4, 0.02, 0.1, "normalized")
    assert SprtSpec.from_dict(spec.as_dict()) == spec
    assert parse_sprt(str(spec).replace(" (normalized)", " model=normalized")) == spec
