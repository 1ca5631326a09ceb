"""The access log blanks every secret parameter of a request's query, however its name is
spelt: ``token`` percent-encoded was blanked, ``TOKEN`` was logged whole (explore56 F5)."""

from __future__ import annotations

import pytest

from service.web.access_log import SECRET_PARAMETERS, shown_target


@pytest.mark.parametrize("name", ["token", "tok%65n", "TOKEN", "Token", "TOK%45N", "%54oken"])
def test_a_secret_parameter_is_blanked_whatever_its_spelling(name: str) -> None:
    shown = shown_target("/experiment/202611290001", f"x=1&{name}=s3cret-owner&b=2")
    assert "s3cret-owner" not in shown
    assert shown == f"/experiment/202611290001?x=1&{name}=…&b=2"


def test_every_secret_name_is_blanked_in_any_case() -> None:
    for secret in SECRET_PARAMETERS:
        shown = shown_target("/x", f"{secret.upper()}=s3cret&{secret}=s3cret")
        assert "s3cret" not in shown


def test_other_parameters_are_kept() -> None:
    assert shown_target("/x", "tokens=a&mytoken=b&q=token") == "/x?tokens=a&mytoken=b&q=token"
    assert shown_target("/x", "") == "/x"
