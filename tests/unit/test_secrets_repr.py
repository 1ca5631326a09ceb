"""No secret in a repr (explore52 F3): a ``serve`` that failed at start printed its settings,
the operator's ``admin_token`` with them, into its log (an atexit traceback names the bound
method of the object that holds them). A secret setting is marked in the settings registry
(:data:`service.web.config.SECRET`) and shown as whether it is set."""

from __future__ import annotations

import dataclasses

from service.graph.experiments import Ticket
from service.graph.remote import RemoteSettings
from service.web.config import load_config, secret_settings

TOKEN = "admin-sekrit-4711"
METRICS = "metrics-sekrit-0815"


def test_the_secret_settings_are_marked() -> None:
    assert secret_settings() == ("admin_token", "metrics_token")


def test_a_config_repr_shows_no_secret() -> None:
    config = load_config(
        {"admin_token": TOKEN, "metrics_token": METRICS, "SECRET_KEY": "flask-sekrit"},
        environ={},
    )
    assert config.admin_token == TOKEN  # the value is kept: only its repr is blanked
    for text in (repr(config), str(config), f"{config!r}", repr([config])):
        assert TOKEN not in text and METRICS not in text and "flask-sekrit" not in text
        assert "admin_token='<set, not shown>'" in text
        assert "metrics_token='<set, not shown>'" in text
    unset = repr(load_config({}, environ={}))
    assert "admin_token=None" in unset  # whether it is set is still said


def test_a_store_url_is_shown_without_its_credentials() -> None:
    config = dataclasses.replace(
        load_config({}, environ={}), store="https://ann-user:pw-sekrit@db/x"
    )
    assert "pw-sekrit" not in repr(config) and "ann-user" not in repr(config)
    assert "store='https://<credentials>@db/x'" in repr(config)


def test_store_credentials_and_owner_tokens_are_not_in_a_repr() -> None:
    remote = RemoteSettings.from_env(
        "http://ann:url-sekrit@db:7878/public",
        {
            "GERBIL_QA_PRIVATE_STORE": "http://db:7878/private",
            "GERBIL_QA_STORE_PASSWORD": "pw-sekrit",
        },
    )
    assert remote.password == "pw-sekrit"
    assert "pw-sekrit" not in repr(remote) and "url-sekrit" not in repr(remote)
    ticket = Ticket("202611290001", "http://localhost:8080/experiment/202611290001", "owner-sekrit")
    assert "owner-sekrit" not in repr(ticket)
