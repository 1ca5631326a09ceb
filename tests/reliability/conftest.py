"""The reliability tests that need the service as the web tests run it use the same fixtures
(``tests/web/conftest.py``): ``server`` (a real server on 127.0.0.1, the demo published) and
``slow_qa`` (a QA web service on 127.0.0.1 that takes its time)."""

from tests.web.conftest import server, slow_qa

__all__ = ["server", "slow_qa"]
