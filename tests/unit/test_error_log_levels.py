"""A 503 the load or the client's query caused is logged at WARNING, a fault of the server's at
ERROR: an alert on ERROR fired all day on refused queries (explore57 F4), and the remote
store's refusal of a query shape that just ran past the limit was still ERROR."""

from __future__ import annotations

import logging

from service.errors import Busy, ServiceError
from service.web.query_pool import PoolBusy, QueryTimeout


def test_the_load_and_the_clients_query_are_warnings_a_fault_an_error() -> None:
    assert Busy("held", retry_after=1).log_level == logging.WARNING  # remote shape, runs' queue
    assert PoolBusy("busy", retry_after=1).log_level == logging.WARNING
    assert QueryTimeout("too long").log_level == logging.WARNING
    assert ServiceError("broken", status=500).log_level == logging.ERROR
