"""One provider's ingest, end to end: its sessions, in order, then the raw-archive retention.

Plain functions, so the Dagster assets stay thin and tests can drive them directly. The steps
live beside this module: ``pipelines.sessions`` (where responses come from, and fetching),
``pipelines.credentials`` (tokens, and scrubbing them from what is kept), ``pipelines.loading``
(archive -> parse -> validate -> load) and ``pipelines.outcomes`` (what a scrape came to: a
status and coded problems). A failing scrape records its error and leaves the provider's last
good data current.

Bounds (issue 15), from the settings a provider's ingest is given (``warehouse.settings``, the
Dagster resource's): the fetch limits (``pipelines.sessions.fetch_limits``), the offers per
scrape, the clock skew and the price-jump factor of ``warehouse.quality``, and the raw-archive
retention of ``warehouse.retention``, applied after every provider.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path

import httpx

from pipelines.credentials import Scrubber, TokenError, replay_token, token_for
from pipelines.loading import _load, _start, load_fetched, refuse_session, run_session
from pipelines.outcomes import ScrapeOutcome, ScrapeStatus
from pipelines.sessions import Fetched, Session, fetch_limits, sessions_for
from scrapers import http as scraper_http
from scrapers import recorded
from scrapers.base import Provider
from warehouse import retention
from warehouse.db import Warehouse, transaction
from warehouse.identity import merge_offer_identities
from warehouse.load import scrape_id
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
    limits = fetch_limits(settings)
    with warehouse.connect() as con:
        # leftovers of an ingest that was killed mid-run, and stored scrapes now out of bounds
        recover(con, paths.raw, now=now, max_offers=settings.max_offers_per_scrape)
        # offers stored under a spelling the scraper now keys as another product's, or at a
        # place it now states otherwise (a tier once stored as the region): one series
        merge_offer_identities(con, provider.slug, provider.product_key, place_of=provider.place)
    outcomes: list[ScrapeOutcome] = []

    def report(outcome: ScrapeOutcome) -> None:
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)

    throttle = scraper_http.HostThrottle() if replay_dir is None else None
    sessions = sessions_for(provider.slug, replay_dir, transport)
    if not sessions:
        problem = Problem(
            ProblemCode.NO_CAPTURE, f"no replayable captures for {provider.slug} in {replay_dir}"
        )
        outcomes.append(
            ScrapeOutcome(
                provider.slug,
                str(replay_dir),
                ScrapeStatus.SKIPPED,
                error=problem.detail,
                problems=[problem],
            )
        )
    try:
        token, token_error = token_for(provider, env), None
    except TokenError as exc:
        token, token_error = None, exc
    for session in sessions:
        if token_error is not None and not session.is_replay:
            outcome = refuse_session(
                provider, session, warehouse=warehouse, run_id=run_id, error=token_error
            )
        elif prefetched is not None and not session.is_replay:
            outcome = load_fetched(
                provider,
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
                token=replay_token(provider) if session.is_replay else token,
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
        sessions_for(provider.slug, fallback_replay_dir)
        if live_failed and fallback_replay_dir is not None and fallback_replay_dir.is_dir()
        else []
    )
    if live_failed and not fallback_sessions and recorded_fallback:
        outcome = run_recorded(provider, warehouse=warehouse, run_id=run_id, settings=settings)
        outcome.fallback = True
        report(outcome)
    for session in fallback_sessions:
        outcome = run_session(
            provider,
            session,
            warehouse=warehouse,
            paths=paths,
            token=replay_token(provider),
            run_id=run_id,
            limits=limits,
            settings=settings,
            now=now,
        )
        outcome.fallback = True
        report(outcome)
    with warehouse.connect() as con:
        # a bounded raw/ (see warehouse.retention)
        retention.prune_raw(con, paths.raw, policy=retention.RawRetention.of(settings), now=now)
    return outcomes


def run_recorded(
    provider: Provider,
    *,
    warehouse: Warehouse,
    run_id: str | None,
    settings: Settings | None = None,
) -> ScrapeOutcome:
    """Load the provider's recorded offers that ship with the project (``scrapers.recorded``):
    one scrape observed at their capture date, labelled recorded (mode 'replay'). Loading the
    same rows again is 'unchanged'."""
    capture = recorded.capture_of(provider.slug)
    observed_at = recorded.captured_at(provider.slug)
    if capture is None or observed_at is None:
        problem = Problem(
            ProblemCode.NO_CAPTURE,
            f"no recorded offers for {provider.slug} ship with this version",
        )
        return ScrapeOutcome(
            provider.slug,
            "recorded",
            ScrapeStatus.SKIPPED,
            error=problem.detail,
            problems=[problem],
        )
    session = Session(
        "replay",
        f"recorded offers of {capture} (shipped)",
        observed_precision=recorded.precision_of(provider.slug),
    )
    sid = scrape_id(provider.slug, observed_at, [recorded.fingerprint(provider.slug)])
    with warehouse.connect() as con:
        unchanged = _start(con, provider, session, sid, observed_at, run_id, [])
        if unchanged is not None:
            return unchanged
        return _load(
            con,
            provider,
            session,
            sid,
            observed_at,
            lambda: (recorded.offers(provider.slug), Counter()),
            {},
            Scrubber(None, []),
            settings or Settings.load({}),
        )


def iter_failures(outcomes: list[ScrapeOutcome]) -> Iterator[ScrapeOutcome]:
    return (o for o in outcomes if o.status == ScrapeStatus.FAILED)
