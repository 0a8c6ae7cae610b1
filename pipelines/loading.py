"""One scrape into the warehouse: archive its responses -> parse -> validate -> screen -> commit.

A failing scrape records its error and problem codes (``pipelines.outcomes``) and leaves the
provider's last good data current. Refused before anything of it is stored: a scrape observed
in the future and one with more offers than ``GPUPRICES_MAX_OFFERS_PER_SCRAPE``
(``warehouse.quality``). A full disk fails the scrape with one line (``DISK_FULL``).
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import duckdb
import httpx
import msgspec

from pipelines.credentials import Scrubber, archivable_body
from pipelines.outcomes import ScrapeOutcome, ScrapeStatus, Stage, message, problem_of
from pipelines.sessions import Fetched, Session, fetch
from scrapers import http as scraper_http
from scrapers.base import Offer, Provider, ScraperError
from warehouse import plausibility, quality
from warehouse.db import Warehouse
from warehouse.load import (
    FetchRecord,
    archive_body,
    commit_scrape,
    fail_scrape,
    prepare,
    record_skip,
    scrape_id,
    start_scrape,
)
from warehouse.paths import Paths
from warehouse.problems import Problem, ProblemCode, disk_full, record_problems
from warehouse.settings import Settings


def run_session(
    provider: Provider,
    session: Session,
    *,
    warehouse: Warehouse,
    paths: Paths,
    token: str | None,
    run_id: str | None,
    throttle: scraper_http.HostThrottle | None = None,
    limits: scraper_http.FetchLimits | None = None,
    settings: Settings | None = None,
    now: datetime | None = None,
) -> ScrapeOutcome:
    """Fetch, archive, parse, validate and load one scrape. Never raises for provider faults.

    ``limits`` bound the fetch (default ``FetchLimits()``: response size, request and provider
    deadlines); a response they refuse fails the scrape and is never archived. ``settings``
    (default: the defaults) bound what the scrape may claim (``_load``)."""
    fetched = fetch(provider, session, token, throttle=throttle, limits=limits)
    return load_fetched(
        provider,
        session,
        fetched,
        warehouse=warehouse,
        paths=paths,
        token=token,
        run_id=run_id,
        settings=settings,
        now=now,
    )


def load_fetched(
    provider: Provider,
    session: Session,
    fetched: Fetched,
    *,
    warehouse: Warehouse,
    paths: Paths,
    token: str | None,
    run_id: str | None,
    settings: Settings | None = None,
    now: datetime | None = None,
) -> ScrapeOutcome:
    """Archive, parse, validate and load what ``sessions.fetch`` returned (one writer at a time:
    the warehouse lock is held from archiving to commit). ``now``: the run's clock (default the
    wall clock), what the scrape may be dated at most (``_load``)."""
    if fetched.missing_token is not None:
        problem = problem_of(fetched.missing_token, Stage.FETCH, str)
        with warehouse.connect() as con:
            record_skip(con, provider=provider.slug, run_id=run_id, reason=problem.detail)
            con.execute(
                "update scrapes set problem_codes = ? where scrape_id = (select"
                " arg_max(scrape_id, started_at) from scrapes where provider = ?"
                " and status = 'skipped')",
                [[str(problem.code)], provider.slug],
            )
        return ScrapeOutcome(
            provider.slug,
            session.source,
            ScrapeStatus.SKIPPED,
            error=problem.detail,
            problems=[problem],
        )
    fetch_error = fetched.error
    stamped: list[tuple[httpx.Response, datetime]] = []
    for r in fetched.recorded:
        try:
            stamped.append((r, scraper_http.fetched_at(r)))
        except ScraperError as exc:  # a replayed capture time that does not read
            stamped.append((r, datetime.now(UTC)))
            fetch_error = fetch_error or exc
    observed_at = min((t for _, t in stamped), default=datetime.now(UTC))
    scrub = Scrubber(token, [r.request for r in fetched.recorded])
    skipped = {part: scrub.text(error) for part, error in sorted(fetched.skipped.items())}
    try:
        with warehouse.connect() as con:
            records = [
                FetchRecord(
                    r.request.method,
                    scraper_http.redact_url(r.request.url),
                    r.status_code,
                    t,
                    archive_body(
                        con,
                        paths.raw,
                        archivable_body(r, scrub),
                        r.headers.get("content-type", ""),
                        t,
                    ),
                )
                for r, t in stamped
            ]
            sid = (
                scrape_id(provider.slug, observed_at, [f.sha256 for f in records])
                if records and fetch_error is None
                else uuid.uuid4().hex[:20]
            )
            unchanged = _start(con, provider, session, sid, observed_at, run_id, records)
            if unchanged is not None:
                return unchanged
            if fetch_error is not None:
                return _failed(con, provider, session, sid, fetch_error, scrub, Stage.FETCH)
            return _load(
                con,
                provider,
                session,
                sid,
                observed_at,
                lambda: provider.parse_report(fetched.responses),
                skipped,
                scrub,
                settings or Settings.load({}),
                now,
            )
    except Exception as exc:
        if not disk_full(exc):
            raise
        # nothing more can be written: the scrape (if started) is left 'running', which no
        # model reads and the next ingest marks interrupted; the old data stays current
        problem = problem_of(exc, Stage.LOAD, scrub.text)
        return ScrapeOutcome(
            provider.slug,
            session.source,
            ScrapeStatus.FAILED,
            error=problem.detail,
            observed_at=observed_at,
            problems=[problem],
        )


def _load(
    con: duckdb.DuckDBPyConnection,
    provider: Provider,
    session: Session,
    sid: str,
    observed_at: datetime,
    parse: Callable[[], tuple[list[Offer], Counter[str]]],
    skipped: dict[str, str],
    scrub: Scrubber,
    settings: Settings,
    now: datetime | None = None,
) -> ScrapeOutcome:
    """Parse, validate, screen and commit one started scrape (its row is 'running').

    Refused before anything of it is stored: a scrape observed in the future of ``now`` (default
    the wall clock) plus the clock skew, and one with more offers than
    ``GPUPRICES_MAX_OFFERS_PER_SCRAPE`` (checked right after parsing)."""
    latest = quality.latest_plausible_observation(now, settings.clock_skew_s)
    refused = quality.future_observation(observed_at, latest)
    if refused is not None:
        return _rejected(con, provider, session, sid, refused, observed_at)
    try:
        offers, excluded = parse()
        refused = quality.too_many_offers(len(offers), settings.max_offers_per_scrape)
        if refused is not None:
            count = len(offers)
            del offers  # the records of an oversized scrape go before anything else is built
            return _rejected(con, provider, session, sid, refused, observed_at, count)
        rows, validation = prepare(con, offers, latest_observed_at=latest)
    except Exception as exc:
        if disk_full(exc):
            raise
        return _failed(con, provider, session, sid, exc, scrub, Stage.PARSE)
    if not validation.ok:
        problems = [Problem(p.code, scrub.text(p.detail)) for p in validation.coded_problems()]
        error = message(problems, "check failed: ")
        fail_scrape(con, sid, error)
        record_problems(con, sid, problems)
        return ScrapeOutcome(
            provider.slug,
            session.source,
            ScrapeStatus.FAILED,
            validation.offer_count,
            error,
            sid,
            observed_at,
            problems=problems,
        )
    # A 10x move against the current price is a parser or unit bug far more often than a
    # real change: hold the whole scrape back (see warehouse.quality).
    factor = settings.price_jump_factor
    # the quality and plausibility screens read rows as mappings
    mappings = [msgspec.structs.asdict(r) for r in rows]
    jumps = quality.price_jumps(con, provider.slug, mappings, factor)
    if jumps:
        problem = quality.quarantine(
            con, scrape_id=sid, provider=provider.slug, jumps=jumps, factor=factor
        )
        return _rejected(con, provider, session, sid, problem, observed_at, len(rows))
    try:
        history = commit_scrape(
            con,
            scrape_id=sid,
            provider=provider.slug,
            observed_at=observed_at,
            rows=rows,
            observed_precision=session.observed_precision,
            exclusions=excluded,
            skipped_parts=skipped,
            partial_reason=session.partial_reason,
        )
    except Exception as exc:
        if disk_full(exc):
            raise
        return _failed(con, provider, session, sid, exc, scrub, Stage.LOAD)
    warnings = [p for p in validation.coded_problems() if p.code is ProblemCode.GPU_UNRESOLVED]
    record_problems(con, sid, warnings)
    verdicts = plausibility.screen_scrape(con, scrape_id=sid, provider=provider.slug, rows=mappings)
    by_id = {r["offer_id"]: r for r in mappings}
    return ScrapeOutcome(
        provider.slug,
        session.source,
        ScrapeStatus.SUCCESS,
        len(rows),
        None,
        sid,
        observed_at,
        history,
        unresolved_gpus=sorted(set(validation.unresolved_gpus)),
        vram_mismatches=validation.vram_mismatches,
        excluded=dict(sorted(excluded.items())),
        skipped_parts=skipped,
        suspect={
            _describe(by_id[offer_id]): [r.code for r in reasons]
            for offer_id, reasons in verdicts.items()
        },
        problems=warnings,
    )


def _start(
    con: duckdb.DuckDBPyConnection,
    provider: Provider,
    session: Session,
    sid: str,
    observed_at: datetime,
    run_id: str | None,
    records: list[FetchRecord],
) -> ScrapeOutcome | None:
    """Record the scrape as running; the 'unchanged' outcome if this exact scrape succeeded."""
    if start_scrape(
        con,
        scrape_id=sid,
        provider=provider.slug,
        run_id=run_id,
        mode=session.mode,
        source=session.source,
        fetches=records,
    ):
        return None
    return ScrapeOutcome(
        provider.slug,
        session.source,
        ScrapeStatus.UNCHANGED,
        scrape_id=sid,
        observed_at=observed_at,
    )


def _rejected(
    con: duckdb.DuckDBPyConnection,
    provider: Provider,
    session: Session,
    sid: str,
    problem: Problem,
    observed_at: datetime,
    count: int = 0,
) -> ScrapeOutcome:
    fail_scrape(con, sid, problem.detail)
    record_problems(con, sid, [problem])
    return ScrapeOutcome(
        provider.slug,
        session.source,
        ScrapeStatus.FAILED,
        count,
        problem.detail,
        sid,
        observed_at=observed_at,
        problems=[problem],
    )


def _describe(row: Mapping[str, Any]) -> str:
    return (
        f"{row['instance_type']} {row['region']} {row['pricing']} {row['price']} {row['currency']}"
    )


def _failed(
    con: duckdb.DuckDBPyConnection,
    provider: Provider,
    session: Session,
    sid: str,
    exc: BaseException,
    scrub: Scrubber,
    stage: Stage,
) -> ScrapeOutcome:
    problem = problem_of(exc, stage, scrub.text)
    fail_scrape(con, sid, problem.detail)
    record_problems(con, sid, [problem])
    return ScrapeOutcome(
        provider.slug,
        session.source,
        ScrapeStatus.FAILED,
        0,
        problem.detail,
        sid,
        problems=[problem],
    )


def refuse_session(
    provider: Provider,
    session: Session,
    *,
    warehouse: Warehouse,
    run_id: str | None,
    error: ScraperError,
) -> ScrapeOutcome:
    """Record a live session that could not start (a token that cannot be sent) as failed."""
    sid = uuid.uuid4().hex[:20]
    with warehouse.connect() as con:
        start_scrape(
            con,
            scrape_id=sid,
            provider=provider.slug,
            run_id=run_id,
            mode=session.mode,
            source=session.source,
            fetches=[],
        )
        return _failed(con, provider, session, sid, error, Scrubber(None, []), Stage.FETCH)
