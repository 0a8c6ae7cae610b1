"""The one response cache: encoded 200 answers of one snapshot, bounded in bytes, keys included.

Each ``api.store.Snapshot`` holds one :class:`ResponseCache`, so a snapshot swap drops it (the
old snapshot and its cache go together). Handlers call ``snapshot.cached(key, build)`` with a key
made of their normalised parameters (``("fit", model, precision, ...)``): two spellings of one
query share an entry. A 4xx never reaches the cache: ``build`` raises it (Litestar answers from
the exception) and nothing is stored; an empty body (a handler's "not found") is not kept either.

Memory is bounded by ``max_bytes`` counting every entry as its body, plus its key (estimated
from its ``repr``), plus ``ENTRY_OVERHEAD`` for the dictionary slot and objects around it:
a client cannot grow it with many distinct or large keys (issue 15: 5,000 distinct
``limit=1000`` URLs took the server from 143 MB to 3.3 GB when entries were counted, not bytes;
600 requests with a 1 MB header added 600 MB when keys were not counted). Least recently used
out first. GET /instances does not use it: any query is answered from the snapshot's in-memory
offers faster than a cache of every query would be (``api.instances``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from warehouse.settings import DEFAULT_RESPONSE_CACHE_BYTES

# per entry beyond body and key text: the OrderedDict node, the key tuple and its objects
ENTRY_OVERHEAD = 256


def entry_bytes(key: Hashable, body: bytes) -> int:
    """What one entry counts against the bound (bytes)."""
    return len(body) + len(repr(key)) + ENTRY_OVERHEAD


class ResponseCache:
    """Encoded answers of one snapshot under normalised keys; thread-safe."""

    def __init__(self, max_bytes: int = DEFAULT_RESPONSE_CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, tuple[bytes, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0

    @property
    def bytes(self) -> int:
        """Bytes counted against ``max_bytes`` now (bodies, keys, overhead)."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def held_keys(self) -> list[Hashable]:
        with self._lock:
            return list(self._entries)

    def peek(self, key: Hashable) -> bytes | None:
        """The body kept under ``key`` (counted as a hit), or None."""
        with self._lock:
            hit = self._entries.get(key)
            if hit is None:
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return hit[0]

    def get_or_build(self, key: Hashable, build: Callable[[], bytes]) -> bytes:
        """``build()``'s bytes, kept under ``key`` if they fit; a hit is not built again.

        Not kept: an empty body, an entry larger than the whole bound; ``build`` raising (a 4xx)
        keeps nothing and propagates."""
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return hit[0]
        body = build()
        if not body:
            return body
        size = entry_bytes(key, body)
        if size > self.max_bytes:
            return body
        with self._lock:
            if key not in self._entries:
                self._entries[key] = (body, size)
                self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._bytes -= dropped
        return body
