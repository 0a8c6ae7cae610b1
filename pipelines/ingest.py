"""One provider's ingest, end to end: which sessions it runs, in order, then the raw-archive
retention.

Plain functions, so the Dagster assets stay thin and tests can drive them directly. This module
only chooses the sessions (``pipelines.sessions``: live, prefetched, replay, fallback, recorded)
and runs each one's scrape lifecycle (the session hands its responses, the parser and the
token's scrubber to ``warehouse.scrape``: archive -> parse -> validate -> screen -> commit, which
stores the problems found and derives the outcome). A failing scrape records its error
and leaves the provider's last good data current.

Bounds (issue 15), from the settings a provider's ingest is given (``warehouse.settings``, the
Dagster resource's): the fetch limits (``pipelines.sessions.fetch_limits``), the offers per
scrape, the clock skew and the price-jump factor of ``warehouse.quality``, and the raw-archive
retention of ``warehouse.retention``, applied after every provider.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import nullcontext
from datetime import datetime
from pathlib import Path

import httpx

from pipelines.credentials import Scrubber, TokenError, replay_token, token_for
from pipelines.outcomes import ScrapeOutcome, ScrapeStatus
from pipelines.sessions import (
    Fetched,
    Session,
    fetch_limits,
    lifecycle,
    load_fetched,
    refuse_session,
    run_recorded,
    run_session,
    sessions_for,
)
from scrapers import http as scraper_http
from scrapers.base import Provider
from warehouse import retention
from warehouse.db import Warehouse, transaction
from warehouse.identity import merge_offer_identities
from warehouse.paths import Paths
from warehouse.problems import Problem, ProblemCode
from warehouse.recovery import recover
from warehouse.seeding import load_seeds
from warehouse.settings import Settings

# The names tests and benchmarks import from here (the steps moved to their own modules).
__all__ = [
    "ScrapeOutcome",
    "ScrapeStatus",
    "Scrubber",
    "Session",
    "ensure_seeded",
    "fetch_limits",
    "iter_failures",
    "run_session",
    "scrape_provider",
    "token_for",
]


def ensure_seeded(warehouse: Warehouse) -> dict[str, int]:
    with warehouse.connect() as con, transaction(con):
        return load_seeds(con)


def scrape_provider(
    provider: Provider,
    *,
    paths: Paths,
    replay_dir: Path | None,
    fallback_replay_dir: Path | None = None,
    run_id: str | None = None,
    env: Mapping[str, str] = os.environ,
    transport: httpx.BaseTransport | None = None,
    on_outcome: Callable[[ScrapeOutcome], None] | None = None,
    recorded_fallback: bool = False,
    prefetched: Fetched | None = None,
    settings: Settings | None = None,
    now: datetime | None = None,
) -> list[ScrapeOutcome]:
    """Every session of one provider, in order. Returns one outcome per session.

    A live fetch that fails (or is skipped for lack of a token) is followed, with
    ``fallback_replay_dir``, by a replay of the provider's captures in it; where that directory
    is missing or holds none, and ``recorded_fallback`` is set, by the recorded offers that ship
    with the project. The failure stays recorded (and fails the asset); the recorded data,
    labelled with its capture dates, is served until a live fetch succeeds (a live scrape is
    newer, so it wins). ``prefetched``: the live session's fetch, already done (concurrently
    with other providers', ``pipelines.prefetch``); only its load runs here.

    ``settings`` (the Dagster resource's) bound the scrapes; a direct caller without them gets
    the process environment's with ``env``'s variables over it. ``env`` holds the provider's
    token variable. Raises ``SettingError`` for a bad setting. ``now`` (default the wall clock,
    read once per use) is the run's clock: what new input may be dated (the clock-skew bound)
    and where retention windows end; it never deletes or hides a stored scrape.
    """
    settings = settings if settings is not None else Settings.load({**os.environ, **env})
    warehouse = Warehouse(paths.warehouse)
    # A replay, or a live fetch already done (``prefetched``), never waits on the network here,
    # so all of the provider's work shares one warehouse connection: each open of the DuckDB
    # file (~50 ms, a WAL replay and a checkpoint on close) cost more than loading a capture.
    unwaited = replay_dir is not None or prefetched is not None
    with warehouse.held() if unwaited else nullcontext():
        limits = fetch_limits(settings)
        # the sessions first: what to ask with, and where the responses come from
        try:
            token, token_error = token_for(provider, env), None
        except TokenError as exc:
            token, token_error = None, exc
        replay = replay_token(provider)
        throttle = scraper_http.HostThrottle() if replay_dir is None else None
        sessions = sessions_for(provider.slug, replay_dir, transport)
        with warehouse.connect() as con:
            # leftovers of an ingest that was killed mid-run, and stored scrapes now out of bounds
            recover(con, paths.raw, now=now, max_offers=settings.max_offers_per_scrape)
            # offers stored under a spelling the scraper now keys as another product's, or at a
            # place it now states otherwise (a tier once stored as the region): one series
            merge_offer_identities(
                con, provider.slug, provider.product_key, place_of=provider.place
            )
        outcomes: list[ScrapeOutcome] = []

        def report(outcome: ScrapeOutcome) -> None:
            outcomes.append(outcome)
            if on_outcome is not None:
                on_outcome(outcome)

        if not sessions:
            problem = Problem(
                ProblemCode.NO_CAPTURE,
                f"no replayable captures for {provider.slug} in {replay_dir}",
            )
            nothing = Session("replay", str(replay_dir))
            outcomes.append(lifecycle(provider, nothing, run_id, settings).skip(problem).outcome())
        for session in sessions:
            if token_error is not None and not session.is_replay:
                outcome = refuse_session(
                    provider,
                    session,
                    warehouse=warehouse,
                    paths=paths,
                    run_id=run_id,
                    error=token_error,
                    settings=settings,
                )
            elif prefetched is not None and not session.is_replay:
                outcome = load_fetched(
                    session,
                    prefetched,
                    warehouse=warehouse,
                    paths=paths,
                    token=token,
                    run_id=run_id,
                    settings=settings,
                    now=now,
                )
            else:
                outcome = run_session(
                    provider,
                    session,
                    warehouse=warehouse,
                    paths=paths,
                    token=replay if session.is_replay else token,
                    run_id=run_id,
                    throttle=throttle,
                    limits=limits,
                    settings=settings,
                    now=now,
                )
            report(outcome)
        live_failed = replay_dir is None and any(
            o.status in (ScrapeStatus.FAILED, ScrapeStatus.SKIPPED) for o in outcomes
        )
        fallback_sessions = (
            sessions_for(provider.slug, fallback_replay_dir, fallback=True)
            if live_failed and fallback_replay_dir is not None and fallback_replay_dir.is_dir()
            else []
        )
        # nothing waits on the network from here on (recorded offers, captures on disk, retention):
        # one connection for all of it, not one open and checkpoint of the DuckDB file per step
        with warehouse.held():
            if live_failed and not fallback_sessions and recorded_fallback:
                report(
                    run_recorded(
                        provider, warehouse=warehouse, paths=paths, run_id=run_id, settings=settings
                    )
                )
            for session in fallback_sessions:
                outcome = run_session(
                    provider,
                    session,
                    warehouse=warehouse,
                    paths=paths,
                    token=replay,
                    run_id=run_id,
                    limits=limits,
                    settings=settings,
                    now=now,
                )
                report(outcome)
            with warehouse.connect() as con:
                # a bounded raw/ (see warehouse.retention)
                retention.prune_raw(
                    con, paths.raw, policy=retention.RawRetention.of(settings), now=now
                )
        return outcomes


def iter_failures(outcomes: list[ScrapeOutcome]) -> Iterator[ScrapeOutcome]:
    return (o for o in outcomes if o.status == ScrapeStatus.FAILED)
