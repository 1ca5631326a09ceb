"""The long-lived objects of one app (store, public snapshots, query workers, runner)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from flask import current_app

if TYPE_CHECKING:
    from service.graph.store import GraphStore
    from service.web.config import WebConfig
    from service.web.public_view import PublicView
    from service.web.query_pool import QueryPool
    from service.web.runner import ExperimentRunner

EXTENSION = "gerbil_qa"


@dataclass(slots=True)
class Services:
    """What the blueprints share. ``changed()`` must follow every write to the store."""

    config: WebConfig
    graph: GraphStore
    view: PublicView
    pool: QueryPool
    runner: ExperimentRunner
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def changed(self) -> None:
        """Take a new public snapshot so the endpoint sees the write (publication, papers…)."""
        self.view.refresh()

    def close(self) -> None:
        self.runner.close()
        self.pool.close()
        self.view.close()
        self.graph.close()


def services() -> Services:
    return current_app.extensions[EXTENSION]
