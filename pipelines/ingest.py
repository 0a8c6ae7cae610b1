"""One provider's scrape, end to end: fetch (archiving every response) -> parse -> validate -> load.

Plain functions, so the Dagster assets stay thin and tests can drive them directly. Each
session (a live fetch, or the replay of one capture) is one scrape; a failing scrape records
its error and leaves the provider's last good data current.

Bounds (issue 15), from the settings a provider's ingest is given (``warehouse.settings``, the
Dagster resource's): the fetch limits of ``scrapers.http.FetchLimits``
(``GPUPRICES_MAX_RESPONSE_MB``, ``GPUPRICES_REQUEST_DEADLINE_S``,
``GPUPRICES_PROVIDER_DEADLINE_S``), the offers per scrape, the clock skew and the price-jump
factor of ``warehouse.quality``, and the raw-archive retention of ``warehouse.retention``,
applied after every provider. Tokens are stripped of surrounding whitespace when read (a Windows
env file's ``\r``); one with a control or non-ASCII character inside fails with a line naming the
variable, never its value.
"""

from __future__ import annotations

import os
import unicodedata
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import httpx
import msgspec
from pydantic import ValidationError

from scrapers import http as scraper_http
from scrapers import recorded
from scrapers.base import FetchError, MissingTokenError, Offer, Provider, ScraperError
from scrapers.replay import REPLAY_TOKEN, Capture, ReplayTransport, discover
from warehouse import plausibility, quality, retention
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
from warehouse.recovery import recover
from warehouse.seeding import load_seeds
from warehouse.settings import Settings

MAX_RESPONSE_MB_ENV = "GPUPRICES_MAX_RESPONSE_MB"
REQUEST_DEADLINE_ENV = "GPUPRICES_REQUEST_DEADLINE_S"
PROVIDER_DEADLINE_ENV = "GPUPRICES_PROVIDER_DEADLINE_S"


@dataclass(frozen=True)
class Session:
    """How one scrape's requests are answered: live (transport None) or one replayed capture."""

    mode: str
    source: str
    transport: httpx.BaseTransport | None = None
    observed_precision: str = "second"  # a live fetch knows the instant

    @property
    def is_replay(self) -> bool:
        return self.mode == "replay"

    @classmethod
    def replay(cls, capture: Capture) -> Session:
        return cls(
            "replay",
            f"{capture.provider}/{capture.path.name}",
            ReplayTransport(capture),
            capture.precision,
        )


@dataclass
class ScrapeOutcome:
    provider: str
    source: str
    status: str  # success | failed | skipped | unchanged
    offer_count: int = 0
    error: str | None = None
    scrape_id: str | None = None
    observed_at: datetime | None = None
    history: dict[str, int] = field(default_factory=dict)
    fallback: bool = False  # replayed because the live fetch failed
    unresolved_gpus: list[str] = field(default_factory=list)  # loaded with gpu_id null
    vram_mismatches: list[str] = field(default_factory=list)  # served at datasheet memory
    # plausibility screen (warehouse.plausibility): offer description -> reason codes
    suspect: dict[str, list[str]] = field(default_factory=dict)
    # rows the parser recognised as not offers, per reason (stored in scrape_exclusions)
    excluded: dict[str, int] = field(default_factory=dict)
    # parts of a multi-request fetch that failed alone: part -> one-line error (the rest loaded)
    skipped_parts: dict[str, str] = field(default_factory=dict)


def sessions_for(
    provider: str, replay_dir: Path | None, transport: httpx.BaseTransport | None = None
) -> list[Session]:
    """Live: one session. Replay: one session per replayable capture, oldest first."""
    if replay_dir is None:
        return [Session("live", "live", transport)]
    captures = discover(replay_dir, [provider]).get(provider, [])
    return [Session.replay(c) for c in captures]


class _Recorder:
    """httpx response hook: keeps every response (body read) for the raw archive."""

    def __init__(self) -> None:
        self.responses: list[httpx.Response] = []

    def __call__(self, response: httpx.Response) -> None:
        response.read()
        self.responses.append(response)


def _archivable_body(response: httpx.Response, scrub: _Scrubber) -> bytes:
    """The body to archive: never one that carries credentials (e.g. an OAuth token response),
    and never a credential a server echoed back (an error page quoting the key)."""
    if scraper_http.is_sensitive(response.request):
        return b"[body not archived: credential exchange]"
    return scrub.body(response.content)


class _Scrubber:
    """Replaces the credentials of one scrape (the provider token, its ``id:secret`` parts, and
    whatever the requests carried) in archived bodies and stored error messages, in every form a
    server or an exception may print them (``scrapers.http.credential_forms``: as is, stripped,
    Python-, JSON- or URL-escaped). ``text`` is the one sanitiser of stored errors."""

    MIN_LENGTH = 6  # shorter "secrets" would also erase ordinary text

    def __init__(self, token: str | None, requests: list[httpx.Request]) -> None:
        found = {token, *(token or "").split(":")}
        for request in requests:
            found |= scraper_http.request_credentials(request)
        bare = {s for s in found if s and len(s.strip()) >= self.MIN_LENGTH}
        self.raw_secrets = bare
        self.secrets = sorted(
            {
                f
                for s in bare
                for f in scraper_http.credential_forms(s)
                if len(f) >= self.MIN_LENGTH
            },
            key=len,
            reverse=True,
        )

    def body(self, content: bytes) -> bytes:
        for secret in self.secrets:
            content = content.replace(secret.encode(), scraper_http.REDACTED.encode())
        return content

    def text(self, text: str) -> str:
        text = scraper_http.scrub_error_text(text, self.raw_secrets)
        for secret in self.secrets:
            text = text.replace(secret, scraper_http.REDACTED)
        return text


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return f"invalid offer record ({where}: {first.get('msg')}); {exc.error_count()} error(s)"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text if isinstance(exc, ScraperError) else f"{type(exc).__name__}: {text}"


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
) -> ScrapeOutcome:
    """Fetch, archive, parse, validate and load one scrape. Never raises for provider faults.

    ``limits`` bound the fetch (default ``FetchLimits()``: response size, request and provider
    deadlines); a response they refuse fails the scrape and is never archived. ``settings``
    (default: the defaults) bound what the scrape may claim (``_load``)."""
    recorder = _Recorder()
    client = scraper_http.make_client(
        session.transport, throttle=throttle, on_response=recorder, limits=limits
    )
    responses = []
    skipped: dict[str, str] = {}
    fetch_error: BaseException | None = None
    try:
        with client:
            responses, skipped = provider.fetch_report(client, token)
    except MissingTokenError as exc:
        with warehouse.connect() as con:
            record_skip(con, provider=provider.slug, run_id=run_id, reason=_one_line(exc))
        return ScrapeOutcome(provider.slug, session.source, "skipped", error=_one_line(exc))
    except Exception as exc:  # a provider fault must not stop the other providers
        fetch_error = exc

    fetched: list[tuple[httpx.Response, datetime]] = []
    for r in recorder.responses:
        try:
            fetched.append((r, scraper_http.fetched_at(r)))
        except ScraperError as exc:  # a replayed capture time that does not read
            fetched.append((r, datetime.now(UTC)))
            fetch_error = fetch_error or exc
    observed_at = min((t for _, t in fetched), default=datetime.now(UTC))
    scrub = _Scrubber(token, [r.request for r in recorder.responses])
    skipped = {part: scrub.text(error) for part, error in sorted(skipped.items())}
    with warehouse.connect() as con:
        records = [
            FetchRecord(
                r.request.method,
                scraper_http.redact_url(r.request.url),
                r.status_code,
                t,
                archive_body(
                    con, paths.raw, _archivable_body(r, scrub), r.headers.get("content-type", ""), t
                ),
            )
            for r, t in fetched
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
            return _failed(con, provider, session, sid, fetch_error, scrub)
        return _load(
            con,
            provider,
            session,
            sid,
            observed_at,
            lambda: provider.parse_report(responses),
            skipped,
            scrub,
            settings or Settings.load({}),
        )


def _load(
    con: duckdb.DuckDBPyConnection,
    provider: Provider,
    session: Session,
    sid: str,
    observed_at: datetime,
    parse: Callable[[], tuple[list[Offer], Counter[str]]],
    skipped: dict[str, str],
    scrub: _Scrubber,
    settings: Settings,
) -> ScrapeOutcome:
    """Parse, validate, screen and commit one started scrape (its row is 'running').

    Refused before anything of it is stored: a scrape observed in the future, and one with more
    offers than ``GPUPRICES_MAX_OFFERS_PER_SCRAPE`` (checked right after parsing)."""
    skew = settings.clock_skew_s
    refused = quality.future_observation(
        observed_at, quality.latest_plausible_observation(clock_skew_s=skew)
    )
    if refused is not None:
        return _rejected(con, provider, session, sid, refused, observed_at)
    try:
        offers, excluded = parse()
        refused = quality.too_many_offers(len(offers), settings.max_offers_per_scrape)
        if refused is not None:
            count = len(offers)
            del offers  # the records of an oversized scrape go before anything else is built
            return _rejected(con, provider, session, sid, refused, observed_at, count)
        rows, validation = prepare(
            con, offers, latest_observed_at=quality.latest_plausible_observation(clock_skew_s=skew)
        )
    except Exception as exc:
        return _failed(con, provider, session, sid, exc, scrub)
    if not validation.ok:
        error = scrub.text("check failed: " + "; ".join(validation.problems()))
        fail_scrape(con, sid, error)
        return ScrapeOutcome(
            provider.slug,
            session.source,
            "failed",
            validation.offer_count,
            error,
            sid,
            observed_at,
        )
    # A 10x move against the current price is a parser or unit bug far more often than a
    # real change: hold the whole scrape back (see warehouse.quality).
    factor = settings.price_jump_factor
    # the quality and plausibility screens read rows as mappings
    mappings = [msgspec.structs.asdict(r) for r in rows]
    jumps = quality.price_jumps(con, provider.slug, mappings, factor)
    if jumps:
        error = quality.quarantine(
            con, scrape_id=sid, provider=provider.slug, jumps=jumps, factor=factor
        )
        fail_scrape(con, sid, error)
        return ScrapeOutcome(
            provider.slug, session.source, "failed", len(rows), error, sid, observed_at
        )
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
        )
    except Exception as exc:
        return _failed(con, provider, session, sid, exc, scrub)
    verdicts = plausibility.screen_scrape(con, scrape_id=sid, provider=provider.slug, rows=mappings)
    by_id = {r["offer_id"]: r for r in mappings}
    return ScrapeOutcome(
        provider.slug,
        session.source,
        "success",
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
        provider.slug, session.source, "unchanged", scrape_id=sid, observed_at=observed_at
    )


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
        reason = f"no recorded offers for {provider.slug} ship with this version"
        return ScrapeOutcome(provider.slug, "recorded", "skipped", error=reason)
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
            _Scrubber(None, []),
            settings or Settings.load({}),
        )


def _rejected(
    con: duckdb.DuckDBPyConnection,
    provider: Provider,
    session: Session,
    sid: str,
    error: str,
    observed_at: datetime,
    count: int = 0,
) -> ScrapeOutcome:
    fail_scrape(con, sid, error)
    return ScrapeOutcome(
        provider.slug, session.source, "failed", count, error, sid, observed_at=observed_at
    )


def _describe(row: Mapping[str, Any]) -> str:
    return (
        f"{row['instance_type']} {row['region']} {row['pricing']} {row['price']} {row['currency']}"
    )


def _failed(
    con, provider: Provider, session: Session, sid: str, exc: BaseException, scrub: _Scrubber
) -> ScrapeOutcome:
    error = scrub.text(_one_line(exc))
    if isinstance(exc, FetchError):
        error = f"fetch failed: {error}"
    elif isinstance(exc, ScraperError):
        error = f"parse failed: {error}"
    fail_scrape(con, sid, error)
    return ScrapeOutcome(provider.slug, session.source, "failed", 0, error, sid)


def replay_token(provider: Provider) -> str | None:
    """Replay: a placeholder where fetch insists on a token, else none (optional APIs stay off,
    so a replay answers the same requests the capture was made with)."""
    return REPLAY_TOKEN if provider.token_required else None


class TokenError(FetchError):
    """A provider token that cannot be sent (a control or non-ASCII character inside it)."""


def token_for(provider: Provider, env: Mapping[str, str] = os.environ) -> str | None:
    """The provider's token from its variable, without surrounding whitespace (Windows env files
    and Kubernetes secret files end it with ``\r`` or ``\n``); None when unset or blank.

    Raises ``TokenError`` naming the variable, never the value, when a character inside the
    token could not go into an HTTP header (a control or non-ASCII character)."""
    if not provider.token_env:
        return None
    token = (env.get(provider.token_env) or "").strip()
    if not token:
        return None
    for position, char in enumerate(token, start=1):
        if not (" " <= char <= "~"):
            kind = "control" if unicodedata.category(char).startswith("C") else "non-ASCII"
            raise TokenError(
                f"{provider.token_env} holds a {kind} character (at position {position}), which"
                " cannot be sent in an HTTP header; the token was not used (fix the variable)"
            )
    return token


def fetch_limits(settings: Settings) -> scraper_http.FetchLimits:
    """``FetchLimits`` from ``GPUPRICES_MAX_RESPONSE_MB`` (decoded MB per response, default 64),
    ``GPUPRICES_REQUEST_DEADLINE_S`` (default 60) and ``GPUPRICES_PROVIDER_DEADLINE_S`` (default
    300)."""
    return scraper_http.FetchLimits(
        max_response_bytes=max(1, int(settings.max_response_mb * 1024 * 1024)),
        request_deadline_s=settings.request_deadline_s,
        provider_deadline_s=settings.provider_deadline_s,
    )


def _refuse_session(
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
        return _failed(con, provider, session, sid, error, _Scrubber(None, []))


def ensure_seeded(warehouse: Warehouse) -> dict[str, int]:
    with warehouse.connect() as con:
        con.execute("begin transaction")
        counts = load_seeds(con)
        con.execute("commit")
    return counts


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
    settings: Settings | None = None,
) -> list[ScrapeOutcome]:
    """Every session of one provider, in order. Returns one outcome per session.

    A live fetch that fails (or is skipped for lack of a token) is followed, with
    ``fallback_replay_dir``, by a replay of the provider's captures in it; where that directory
    is missing or holds none, and ``recorded_fallback`` is set, by the recorded offers that ship
    with the project. The failure stays recorded (and fails the asset); the recorded data,
    labelled with its capture dates, is served until a live fetch succeeds (a live scrape is
    newer, so it wins).

    ``settings`` (the Dagster resource's) bound the scrapes; a direct caller without them gets
    the process environment's with ``env``'s variables over it. ``env`` holds the provider's
    token variable. Raises ``SettingError`` for a bad setting.
    """
    settings = settings if settings is not None else Settings.load({**os.environ, **env})
    warehouse = Warehouse(paths.warehouse)
    limits = fetch_limits(settings)
    with warehouse.connect() as con:
        # leftovers of an ingest that was killed mid-run, and stored scrapes now out of bounds
        recover(
            con,
            paths.raw,
            max_offers=settings.max_offers_per_scrape,
            clock_skew_s=settings.clock_skew_s,
        )
    outcomes: list[ScrapeOutcome] = []
    throttle = scraper_http.HostThrottle() if replay_dir is None else None
    sessions = sessions_for(provider.slug, replay_dir, transport)
    if not sessions:
        reason = f"no replayable captures for {provider.slug} in {replay_dir}"
        sessions = []
        outcomes.append(ScrapeOutcome(provider.slug, str(replay_dir), "skipped", error=reason))
    try:
        token, token_error = token_for(provider, env), None
    except TokenError as exc:
        token, token_error = None, exc
    for session in sessions:
        if token_error is not None and not session.is_replay:
            outcome = _refuse_session(
                provider, session, warehouse=warehouse, run_id=run_id, error=token_error
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
            )
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)
    live_failed = replay_dir is None and any(o.status in ("failed", "skipped") for o in outcomes)
    fallback_sessions = (
        sessions_for(provider.slug, fallback_replay_dir)
        if live_failed and fallback_replay_dir is not None and fallback_replay_dir.is_dir()
        else []
    )
    if live_failed and not fallback_sessions and recorded_fallback:
        outcome = run_recorded(provider, warehouse=warehouse, run_id=run_id, settings=settings)
        outcome.fallback = True
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)
    if fallback_sessions:
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
            )
            outcome.fallback = True
            outcomes.append(outcome)
            if on_outcome is not None:
                on_outcome(outcome)
    with warehouse.connect() as con:
        # a bounded raw/ (see warehouse.retention)
        retention.prune_raw(con, paths.raw, policy=retention.RawRetention.of(settings))
    return outcomes


def iter_failures(outcomes: list[ScrapeOutcome]) -> Iterator[ScrapeOutcome]:
    return (o for o in outcomes if o.status == "failed")
