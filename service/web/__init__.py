"""The web service: W3ID-style URIs by content negotiation, the public SPARQL endpoint, the JSON
API and HTML pages, private until published. ``create_app`` is imported lazily so that the
SPARQL worker processes (which import ``service.web.query_pool``) do not load Flask."""

from __future__ import annotations

from typing import Any

__all__ = ["close_app", "create_app"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from service.web import app

        return getattr(app, name)
    raise AttributeError(name)
