"""The reliability tests that need the service as the web tests run it use the same ``server``
fixture (``tests/web/conftest.py``: a real server on 127.0.0.1, the demo published)."""

from tests.web.conftest import server

__all__ = ["server"]
