"""Live fetches of every selected provider at once, within per-host limits; loads one at a time.

Under the in-process executor Dagster runs the provider steps one after another, so one slow
host (a byte every few seconds, up to the 300 s provider deadline) used to hold every provider
after it. ``gpuprices ingest`` (``pipelines.execution.execute_ingest``) therefore starts the live
fetches of all selected providers on a bounded thread pool (``DEFAULT_FETCH_CONCURRENCY``) before
the steps run, sharing one ``scrapers.http.HostThrottle`` (at most ``MAX_CONCURRENT_PER_HOST``
exchanges per host and ``MIN_INTERVAL_PER_HOST_S`` between their starts, across providers).
Each provider's step then takes its fetch (waiting only for its own) and loads it: archiving,
parsing and writing stay in the step, one at a time, as DuckDB's single writer requires.

A fetch touches no warehouse and never raises for a provider fault (``pipelines.sessions``).
Replays are not prefetched (nothing waits on a network), nor are providers whose token cannot
be sent (the step records that refusal), nor runs under the multiprocess executor (its steps
already overlap).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor

from pipelines.credentials import TokenError, token_for
from pipelines.sessions import Fetched, Session, fetch, fetch_limits
from scrapers import http as scraper_http
from scrapers.base import Provider
from warehouse.settings import Settings

INVOCATION_TAG = "gpuprices/invocation"  # run tag naming the invocation (pipelines.execution)
DEFAULT_FETCH_CONCURRENCY = 4  # providers fetched at once (threads: the work is waiting)

_ACTIVE: dict[str, Prefetcher] = {}  # invocation id -> its prefetcher (this process only)
_ACTIVE_LOCK = threading.Lock()


class Prefetcher:
    """The live fetches of ``providers``, started on ``max_workers`` threads (see the module
    docstring). Use as a context manager around the run; ``take`` from the provider's step."""

    def __init__(
        self,
        providers: Iterable[Provider],
        *,
        max_workers: int = DEFAULT_FETCH_CONCURRENCY,
        settings: Settings | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """``settings`` bound the fetches (default: ``Settings.load()``, as the Dagster
        resource resolves them); ``env`` holds the token variables (default the process's)."""
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self.providers = list(providers)
        self.max_workers = max_workers
        self.env = env
        self.settings = settings
        self._pool: ThreadPoolExecutor | None = None
        self._futures: dict[str, Future[Fetched]] = {}

    def __enter__(self) -> Prefetcher:
        limits = fetch_limits(self.settings if self.settings is not None else Settings.load())
        throttle = scraper_http.HostThrottle()
        self._pool = ThreadPoolExecutor(self.max_workers, thread_name_prefix="prefetch")
        for provider in self.providers:
            try:
                token = token_for(provider) if self.env is None else token_for(provider, self.env)
            except TokenError:
                continue  # the step refuses the session and says why
            self._futures[provider.slug] = self._pool.submit(
                fetch, provider, Session("live", "live"), token, throttle=throttle, limits=limits
            )
        return self

    def __exit__(self, *_: object) -> None:
        if self._pool is not None:
            # fetches no step took (a run stopped early) are cancelled or end at their deadline
            self._pool.shutdown(wait=True, cancel_futures=True)

    def take(self, slug: str) -> Fetched | None:
        """The provider's finished fetch (waiting for it), once; None if it was not prefetched."""
        future = self._futures.pop(slug, None)
        return future.result() if future is not None else None


def register(invocation: str, prefetcher: Prefetcher) -> None:
    with _ACTIVE_LOCK:
        _ACTIVE[invocation] = prefetcher


def unregister(invocation: str) -> None:
    with _ACTIVE_LOCK:
        _ACTIVE.pop(invocation, None)


def take(invocation: str | None, slug: str) -> Fetched | None:
    """The prefetched live fetch of ``slug`` in the run tagged ``invocation``, if there is one."""
    if invocation is None:
        return None
    with _ACTIVE_LOCK:
        prefetcher = _ACTIVE.get(invocation)
    return prefetcher.take(slug) if prefetcher is not None else None
