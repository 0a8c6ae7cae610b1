"""The API's view of the data: an in-memory copy of the newest published snapshot.

The API never opens the warehouse file. It reads ``published/CURRENT``, copies that snapshot
into an in-memory DuckDB, and swaps it in when the pointer changes (checked at most once per
``reload_interval_s``, in a background thread: requests never wait for a load). A request
holds one ``Snapshot`` object from start to end, so every response is consistent with exactly
one snapshot; the few newest stay held for requests pinned with ``?as_of=`` (``PinnedStore``).

At load, ``current_offers`` is also read into a ``warehouse.queries.OfferTable`` with every row
pre-encoded (``Snapshot.offers``, ``api.offers``): GET /instances answers any query from it
without SQL or a cache. The one response cache (``Snapshot.cached``, ``api.cache``) holds the
other endpoints' encoded 200 answers, keyed by their normalised parameters, per snapshot (a swap
drops it), bounded in bytes keys included (``$GPUPRICES_RESPONSE_CACHE_BYTES``, default
64 MB; 0 turns it off).
"""

from __future__ import annotations

import gc
import logging
import re
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any

import duckdb
from litestar.di import NamedDependency
from litestar.params import QueryParameter

from api.cache import ResponseCache
from api.offers import EncodedOffers
from warehouse.publish import (
    SnapshotError,
    SnapshotInfo,
    current,
    load_into_memory,
    published_snapshots,
)
from warehouse.queries import FilterVocabulary, OfferFilter, OfferTable, exclusions_sql
from warehouse.queries.sql import main_tables
from warehouse.settings import DEFAULT_RESPONSE_CACHE_BYTES

# Snapshots kept in memory for requests pinned with as_of: the current one and the one before
# (the API passes Settings.held_snapshots, GPUPRICES_HELD_SNAPSHOTS).
HELD_SNAPSHOTS = 2
log = logging.getLogger("gpuprices.api")
# a URL or an absolute path inside an error message: server internals, kept out of answers
_LOCATION = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"]*|(?<![\w.])/[^\s'\"]+)")


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Run a snapshot load without the cyclic garbage collector, then keep everything alive
    out of its future collections (``gc.freeze``).

    The loader thread and the event loop share the GIL, and a collection holds it while it
    walks every object it tracks: the load's allocations set off a full collection (the app's
    and the snapshots' objects, 100-150 ms in the server, 1.1 s in a test process), and every
    request waited for it (issue 27). Paused, the load's objects are walked once, by a young
    collection (which also frees the load's and the requests' cyclic garbage), and then frozen
    with the rest, so later collections walk only what is newer. A snapshot no longer held is
    still freed, by reference counting: it holds no reference cycle
    (``tests/api/test_snapshot_swap_stall.py``)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.collect(0)
        gc.freeze()
        if enabled:
            gc.enable()


class NoSnapshot(RuntimeError):
    pass


@dataclass
class Snapshot:
    info: SnapshotInfo
    con: duckdb.DuckDBPyConnection
    tables: frozenset[str]
    offers: EncodedOffers | None = None
    cache_bytes: int = DEFAULT_RESPONSE_CACHE_BYTES
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

    def excluded(self, f: OfferFilter) -> dict[str, Any]:
        """What ``f``'s rules (expired, max_age_days, suspect) leave out of the offers matching
        its other filters, as every answer that lists or ranks offers carries it (``excluded``,
        ``api.schemas.Excluded``): from the in-memory OfferTable, else by SQL; the same counts
        (``warehouse.queries.excluded``)."""
        if self.offers is not None:
            return self.offers.table.exclusions(f).as_dict()
        return exclusions_sql(self.cursor(), f).as_dict()

    @cached_property
    def vocabulary(self) -> FilterVocabulary:
        """The GPUs, providers, regions and countries this snapshot knows: a filter value none
        of them is answers 400 with the closest known one (``warehouse.queries.vocabulary``).
        Built at load (``SnapshotStore.refresh``); built twice at worst, never wrong."""
        return FilterVocabulary.load(self.cursor())

    def __post_init__(self) -> None:
        self.responses = ResponseCache(self.cache_bytes)  # one per snapshot: a swap drops it

    def cached(self, key: Hashable, build: Callable[[], bytes]) -> bytes:
        """``build()``'s bytes, kept under ``key`` (hashable, normalised by the caller) for
        this snapshot: see :meth:`api.cache.ResponseCache.get_or_build`."""
        return self.responses.get_or_build(key, build)

    @property
    def cached_bytes(self) -> int:
        return self.responses.bytes

    def drop_cache(self) -> None:
        """Empty the response cache and keep nothing more (a snapshot no longer current)."""
        self.cache_bytes = 0
        self.responses = ResponseCache(0)


class SnapshotGone(RuntimeError):
    """A request pinned to an ``as_of`` the server no longer (or never) held."""

    def __init__(self, as_of: datetime, current: Snapshot, held: list[Snapshot]) -> None:
        self.current_as_of = current.as_of
        self.held = [s.as_of for s in held]
        super().__init__(
            f"the snapshot of as_of {_iso(as_of)} is no longer held; the current one is "
            f"as_of {_iso(current.as_of)} (held: {', '.join(_iso(s.as_of) for s in held)}): "
            "start again from the first page"
        )


def _iso(moment: datetime) -> str:
    """As answers spell it: UTC with a Z (as given when UTC would overflow year 1 or 9999)."""
    try:
        moment = moment.astimezone(UTC)
    except OverflowError:
        return moment.isoformat()
    return moment.isoformat().replace("+00:00", "Z")


class SnapshotStore:
    """Holds the current snapshot (and the few before it) and swaps in newer ones without a
    restart.

    Requests never wait for a load: once the first snapshot is in, a due check of CURRENT
    (every ``reload_interval_s``) runs in a background thread that reads the pointer, loads the
    new snapshot into memory and then swaps one reference; requests meanwhile keep answering
    from the snapshot they have. Only the very first load (nothing to serve yet) is waited for.
    A pointer or snapshot that cannot be read leaves the last good snapshot served and the
    reason in ``last_error`` (``/health`` shows it); at the first load, with nothing served yet,
    an unreadable current snapshot gives way to the newest intact one published before it. The
    ``held`` newest snapshots stay in memory so a client paging with ``as_of`` gets pages of
    one snapshot (:meth:`get`)."""

    def __init__(
        self,
        published_dir: Path,
        reload_interval_s: float = 1.0,
        locate: Callable[[], SnapshotInfo | None] | None = None,
        where: str | None = None,
        cache_bytes: int = DEFAULT_RESPONSE_CACHE_BYTES,
        held: int = HELD_SNAPSHOTS,
    ) -> None:
        self.published_dir = published_dir
        self.cache_bytes = cache_bytes
        self.reload_interval_s = reload_interval_s
        # Where the current snapshot is found: the local published directory by default, or
        # e.g. warehouse.remote.RemoteSnapshots(url, cache).current for replicas elsewhere.
        self._locate = locate or (lambda: current(self.published_dir))
        self._locate_given = locate is not None  # elsewhere: no older local files to fall back on
        self.where = where or str(published_dir)
        self.held = max(1, held)
        self._snapshot: Snapshot | None = None
        self._history: list[Snapshot] = []  # oldest first, the current one last
        self._checked_at = float("-inf")
        self._lock = threading.Lock()  # one load at a time
        self._flag_lock = threading.Lock()
        self._loading = False
        self.last_error: str | None = None

    def get(self, as_of: datetime | None = None) -> Snapshot:
        """The current snapshot, or with ``as_of`` the held snapshot published then.

        Raises NoSnapshot before the first load, SnapshotGone for an ``as_of`` not held."""
        now = time.monotonic()
        if now - self._checked_at >= self.reload_interval_s:
            if self._snapshot is None:
                self.refresh()  # nothing to serve yet: the first load is waited for
            else:
                self._refresh_in_background(now)
        snapshot = self._snapshot
        if snapshot is None:
            raise NoSnapshot(
                "no snapshot published yet: run `gpuprices ingest`"
                + (f" ({self.last_error})" if self.last_error else "")
            )
        if as_of is None or as_of == snapshot.as_of:
            return snapshot
        history = list(self._history)
        found = next((s for s in history if s.as_of == as_of), None)
        if found is None:
            raise SnapshotGone(as_of, snapshot, history)
        return found

    @property
    def snapshots(self) -> list[Snapshot]:
        """The held snapshots, oldest first (the current one last)."""
        return list(self._history)

    def _refresh_in_background(self, now: float) -> None:
        with self._flag_lock:
            if self._loading:
                return
            self._loading = True
            self._checked_at = now  # no other request starts one meanwhile
        thread = threading.Thread(target=self._background, name="snapshot-reload", daemon=True)
        thread.start()

    def _background(self) -> None:
        try:
            self.refresh()
        except Exception:  # never let a reload kill the thread silently
            log.exception("snapshot reload failed")
        finally:
            self._loading = False

    def _failed(self, message: str) -> bool:
        """Log ``message`` (once while it repeats) and keep it, without paths or URLs, as
        ``last_error`` for /health and the 503 body."""
        public = _LOCATION.sub("<snapshots>", message.replace(self.where, "<snapshots>"))
        if public != self.last_error:
            log.warning("%s (%s); the snapshot served so far, if any, stays", message, self.where)
        self.last_error = public
        return False

    def refresh(self) -> bool:
        """Load the snapshot CURRENT names if it is not the one held. Returns True on a swap.
        Blocks while the load runs (the caller's thread; :meth:`get` uses a background one)."""
        with self._lock:
            self._checked_at = time.monotonic()
            try:
                info = self._locate()
            except SnapshotError as exc:
                return self._failed(str(exc))
            if info is None:
                return False
            if self._snapshot and self._snapshot.info.snapshot_id == info.snapshot_id:
                self.last_error = None
                return False
            fresh = self._load(info)
            if fresh is None:
                failure = f"could not load snapshot {info.snapshot_id}"
                if self._snapshot is not None or self._locate_given:
                    # keep serving the snapshot we have; an unreadable file is retried later
                    return self._failed(failure)
                # nothing served yet: the newest intact snapshot before it, rather than a 503
                fresh = next(
                    (
                        loaded
                        for older in published_snapshots(self.published_dir)
                        if older.as_of < info.as_of and (loaded := self._load(older)) is not None
                    ),
                    None,
                )
                if fresh is None:
                    return self._failed(failure)
                self._failed(f"{failure}; serving the newest intact one, {fresh.info.snapshot_id}")
                self._install(fresh)
                return True
            self._install(fresh)
            self.last_error = None
            return True

    def _load(self, info: SnapshotInfo) -> Snapshot | None:
        """The snapshot ``info`` names, in memory, or None (logged) when it cannot be read."""
        with _collector_paused():
            return self._read(info)

    def _read(self, info: SnapshotInfo) -> Snapshot | None:
        try:
            # one DuckDB thread: the other core keeps answering requests meanwhile
            con = load_into_memory(info, threads=1)
            tables = main_tables(con)
            offers = EncodedOffers(OfferTable.load(con)) if "current_offers" in tables else None
        except (duckdb.Error, OSError, ValueError, SnapshotError) as exc:
            log.warning("could not load snapshot %s: %s", info.snapshot_id, exc)
            return None
        fresh = Snapshot(info, con, tables, offers, self.cache_bytes)
        fresh.vocabulary  # noqa: B018 - built here, off the request path
        return fresh

    def _install(self, fresh: Snapshot) -> None:
        """Make ``fresh`` current (one reference swapped) and hold the few before it."""
        history = [s for s in self._history if s.as_of != fresh.as_of] + [fresh]
        for older in history[:-1]:
            # pinned pages are rare: only the current snapshot keeps a response cache; one
            # no longer held is freed when the last request using it ends
            older.drop_cache()
        self._history = history[-self.held :]
        self._snapshot = fresh  # the swap: one reference


class PinnedStore(SnapshotStore):
    """The store as one request pinned to ``as_of`` sees it: ``get()`` is that held snapshot."""

    def __init__(self, store: SnapshotStore, as_of: datetime) -> None:  # no super(): a view
        self._store = store
        self._pinned = as_of

    def get(self, as_of: datetime | None = None) -> Snapshot:
        return self._store.get(as_of or self._pinned)

    def refresh(self) -> bool:
        return self._store.refresh()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


AS_OF_DOC = (
    "Answer from the snapshot with this as_of (the as_of of an earlier answer, e.g. page 1 of "
    "an offset listing) while the server still holds it, so pages stay consistent across a "
    "snapshot swap; 410 naming the current as_of once it is gone. Default: the current snapshot"
)


def pinned_store(store: SnapshotStore) -> Callable[..., SnapshotStore]:
    """The ``store`` dependency: ``store`` itself, or a :class:`PinnedStore` for ``?as_of=``."""

    def provide(
        as_of: Annotated[
            datetime | None, QueryParameter(name="as_of", description=AS_OF_DOC)
        ] = None,
    ) -> SnapshotStore:
        if as_of is None:
            return store
        return PinnedStore(store, as_of if as_of.tzinfo else as_of.replace(tzinfo=UTC))

    return provide


# Handlers declare ``store: Store``: the app-wide SnapshotStore (or a pinned view of it).
Store = NamedDependency[SnapshotStore]
