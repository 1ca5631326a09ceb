"""Small caches of what the public view renders: resource documents and SPARQL results.

Oxigraph decodes every term of every quad it returns with its own key-value lookups (about
30 µs per quad here), so building a 900-quad experiment summary takes ~40 ms, while the
document only changes when the store does. Rendered bodies of *public* resources are kept,
keyed by URI and representation; public SPARQL results likewise, keyed by the query text, the
protocol dataset and the format. Both caches are dropped on every write (``Services.changed``),
so a publication or an attached paper shows at once; private views are never cached. Each
entry carries an ETag so clients can revalidate with ``If-None-Match``.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass

# how a public document is sent: it changes when a run is published or withdrawn, so a browser
# revalidates it each time (its ETag: a 304 while unchanged), where "max-age=60" showed the
# board of a minute before to the browser that had just published a run (explore32 3)
PUBLIC_CACHE = "public, no-cache"


@dataclass(frozen=True, slots=True)
class Rendered:
    body: bytes
    content_type: str
    etag: str


class DocumentCache:
    """LRU of :class:`Rendered` bodies, bounded by entries and bytes; ``max_entries=0`` is off.

    An entry larger than an eighth of ``max_bytes`` is not kept."""

    def __init__(self, *, max_entries: int = 1024, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[object, ...], Rendered] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def rendered(body: bytes, content_type: str) -> Rendered:
        return Rendered(body, content_type, hashlib.sha256(body).hexdigest()[:32])

    def get(self, key: tuple[object, ...]) -> Rendered | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return item

    def put(self, key: tuple[object, ...], item: Rendered) -> None:
        if self.max_entries <= 0 or len(item.body) > self.max_bytes // 8:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= len(old.body)
            self._items[key] = item
            self._bytes += len(item.body)
            while len(self._items) > self.max_entries or self._bytes > self.max_bytes:
                _, dropped = self._items.popitem(last=False)
                self._bytes -= len(dropped.body)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0

    def size(self) -> tuple[int, int]:
        """(entries, bytes) kept now (/metrics)."""
        with self._lock:
            return len(self._items), self._bytes
