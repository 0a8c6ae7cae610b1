"""The API's view of the data: an in-memory copy of the newest published snapshot.

The API never opens the warehouse file. It reads ``published/CURRENT``, copies that snapshot
into an in-memory DuckDB, and swaps it in when the pointer changes (checked at most once per
``reload_interval_s``). A request holds one ``Snapshot`` object from start to end, so every
response is consistent with exactly one snapshot.

At load, ``current_offers`` is also read into a ``warehouse.queries.OfferTable`` with every row
pre-encoded (``Snapshot.offers``, ``api.offers``): GET /instances answers any query from it
without SQL or a cache. The one response cache (``Snapshot.cached``, ``api.cache``) holds the
other endpoints' encoded 200 answers, keyed by their normalised parameters, per snapshot (a swap
drops it), bounded in bytes keys included (``$GPUPRICES_RESPONSE_CACHE_BYTES``, default
``RESPONSE_CACHE_BYTES``; 0 turns it off).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
from litestar.di import NamedDependency

from api.cache import RESPONSE_CACHE_BYTES, RESPONSE_CACHE_BYTES_ENV, ResponseCache
from api.offers import EncodedOffers
from warehouse.publish import SnapshotError, SnapshotInfo, current, load_into_memory
from warehouse.queries import OfferTable

__all__ = ["RESPONSE_CACHE_BYTES", "RESPONSE_CACHE_BYTES_ENV"]  # api.app reads them from here


class NoSnapshot(RuntimeError):
    pass


@dataclass
class Snapshot:
    info: SnapshotInfo
    con: duckdb.DuckDBPyConnection
    tables: frozenset[str]
    offers: EncodedOffers | None = None
    cache_bytes: int = RESPONSE_CACHE_BYTES
    responses: ResponseCache = field(init=False)
    _local: threading.local = field(default_factory=threading.local)

    @property
    def as_of(self) -> datetime:
        return self.info.as_of

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A per-thread cursor (DuckDB connections are not shared between threads)."""
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            cur = self.con.cursor()
            self._local.cursor = cur
        return cur

    def query(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        cur = self.cursor()
        result = cur.execute(sql, params or [])
        columns = [d[0] for d in result.description or []]
        return [dict(zip(columns, row, strict=True)) for row in result.fetchall()]

    def __post_init__(self) -> None:
        self.responses = ResponseCache(self.cache_bytes)  # one per snapshot: a swap drops it

    def cached(self, key: Hashable, build: Callable[[], bytes]) -> bytes:
        """``build()``'s bytes, kept under ``key`` (hashable, normalised by the caller) for
        this snapshot: see :meth:`api.cache.ResponseCache.get_or_build`."""
        return self.responses.get_or_build(key, build)

    @property
    def cached_bytes(self) -> int:
        return self.responses.bytes


class SnapshotStore:
    """Holds the current snapshot and swaps in newer ones without a restart."""

    def __init__(
        self,
        published_dir: Path,
        reload_interval_s: float = 1.0,
        locate: Callable[[], SnapshotInfo | None] | None = None,
        where: str | None = None,
        cache_bytes: int = RESPONSE_CACHE_BYTES,
    ) -> None:
        self.published_dir = published_dir
        self.cache_bytes = cache_bytes
        self.reload_interval_s = reload_interval_s
        # Where the current snapshot is found: the local published directory by default, or
        # e.g. warehouse.remote.RemoteSnapshots(url, cache).current for replicas elsewhere.
        self._locate = locate or (lambda: current(self.published_dir))
        self.where = where or str(published_dir)
        self._snapshot: Snapshot | None = None
        self._checked_at = float("-inf")
        self._lock = threading.Lock()
        self.last_error: str | None = None

    def get(self) -> Snapshot:
        now = time.monotonic()
        if now - self._checked_at >= self.reload_interval_s:
            self.refresh()
        snapshot = self._snapshot
        if snapshot is None:
            raise NoSnapshot(
                f"no snapshot published under {self.where} yet: run `gpuprices ingest`"
                + (f" ({self.last_error})" if self.last_error else "")
            )
        return snapshot

    def refresh(self) -> bool:
        """Load the snapshot CURRENT names if it is not the one held. Returns True on a swap."""
        with self._lock:
            self._checked_at = time.monotonic()
            try:
                info = self._locate()
            except SnapshotError as exc:
                self.last_error = str(exc)
                return False
            if info is None or (
                self._snapshot and self._snapshot.info.snapshot_id == info.snapshot_id
            ):
                return False
            try:
                con = load_into_memory(info)
                tables = frozenset(
                    r[0]
                    for r in con.execute(
                        "select table_name from information_schema.tables"
                        " where table_schema = 'main'"
                    ).fetchall()
                )
                offers = EncodedOffers(OfferTable.load(con)) if "current_offers" in tables else None
            except (duckdb.Error, OSError) as exc:
                # Keep serving the snapshot we have; a pruned or unreadable file is retried later.
                self.last_error = f"could not load snapshot {info.snapshot_id}: {exc}"
                return False
            self._snapshot = Snapshot(info, con, tables, offers, self.cache_bytes)
            self.last_error = None
            return True


# Handlers declare ``store: Store``: the app-wide SnapshotStore, injected by name.
Store = NamedDependency[SnapshotStore]
