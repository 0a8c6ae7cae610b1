"""Where a scrape's responses come from, and fetching them: no warehouse is touched here.

The sessions (each one scrape): live, prefetched (a live fetch already done,
``pipelines.prefetch``), replay (one per capture), fallback (the replay of a failed live fetch)
and recorded (the offers that ship with the project, ``pipelines.loading.run_recorded``).

Each session (a live fetch, or the replay of one capture) is one scrape. ``fetch`` runs its
requests and keeps every response for the raw archive; it never raises for a provider fault, so
fetches can run side by side (``pipelines.prefetch``) while loads stay one at a time.

Fetch bounds (issue 15), from the settings a provider's ingest is given:
``scrapers.http.FetchLimits`` from ``GPUPRICES_MAX_RESPONSE_MB``, ``GPUPRICES_REQUEST_DEADLINE_S``
and ``GPUPRICES_PROVIDER_DEADLINE_S`` (``fetch_limits``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx

from pipelines.credentials import Scrubber, archivable_body
from scrapers import http as scraper_http
from scrapers.base import MissingTokenError, Provider, RawResponse, ScraperError
from scrapers.replay import Capture, ReplayTransport, discover
from warehouse.scrape import Received
from warehouse.settings import Settings


@dataclass(frozen=True)
class Session:
    """How one scrape's requests are answered: live (transport None) or one replayed capture."""

    mode: str
    source: str
    transport: httpx.BaseTransport | None = None
    observed_precision: str = "second"  # a live fetch knows the instant
    # why the responses hold only a subset of the provider's list (a recorded excerpt), or None;
    # a live fetch knows it saw a subset through its skipped parts instead
    partial_reason: str | None = None
    fallback: bool = False  # replayed because the live fetch failed

    @property
    def is_replay(self) -> bool:
        return self.mode == "replay"

    @classmethod
    def replay(cls, capture: Capture, *, fallback: bool = False) -> Session:
        return cls(
            "replay",
            f"{capture.provider}/{capture.path.name}",
            ReplayTransport(capture),
            capture.precision,
            capture.partial_reason,
            fallback,
        )


def sessions_for(
    provider: str,
    replay_dir: Path | None,
    transport: httpx.BaseTransport | None = None,
    *,
    fallback: bool = False,
) -> list[Session]:
    """Live: one session. Replay: one session per replayable capture, oldest first
    (``fallback``: replayed because the live fetch failed)."""
    if replay_dir is None:
        return [Session("live", "live", transport)]
    captures = discover(replay_dir, [provider]).get(provider, [])
    return [Session.replay(c, fallback=fallback) for c in captures]


class _Recorder:
    """httpx response hook: keeps every response (body read) for the raw archive."""

    def __init__(self) -> None:
        self.responses: list[httpx.Response] = []

    def __call__(self, response: httpx.Response) -> None:
        response.read()
        self.responses.append(response)


@dataclass
class Fetched:
    """What one session's fetch left: every response seen (for the archive), the responses the
    provider returned (for the parser), the parts skipped alone, and what went wrong."""

    recorded: list[httpx.Response] = field(default_factory=list)
    responses: list[RawResponse] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    error: BaseException | None = None
    missing_token: MissingTokenError | None = None

    def received(self, scrub: Scrubber) -> tuple[list[Received], BaseException | None]:
        """Every response as it is archived (credentials scrubbed, URL redacted, stamped with
        its fetch time), and the fetch's error: a replayed capture time that does not read is
        one (that response is stamped now)."""
        error = self.error
        out = []
        for r in self.recorded:
            try:
                fetched_at = scraper_http.fetched_at(r)
            except ScraperError as exc:
                fetched_at = datetime.now(UTC)
                error = error or exc
            out.append(
                Received(
                    r.request.method,
                    scraper_http.redact_url(r.request.url),
                    r.status_code,
                    fetched_at,
                    r.headers.get("content-type", ""),
                    archivable_body(r, scrub),
                )
            )
        return out, error


def fetch(
    provider: Provider,
    session: Session,
    token: str | None,
    *,
    throttle: scraper_http.HostThrottle | None = None,
    limits: scraper_http.FetchLimits | None = None,
) -> Fetched:
    """Run one session's requests. Never raises for a provider fault (it is in ``error``)."""
    recorder = _Recorder()
    client = scraper_http.make_client(
        session.transport, throttle=throttle, on_response=recorder, limits=limits
    )
    fetched = Fetched(recorded=recorder.responses)
    try:
        with client:
            fetched.responses, fetched.skipped = provider.fetch_report(client, token)
    except MissingTokenError as exc:
        fetched.missing_token = exc
    except Exception as exc:  # a provider fault must not stop the other providers
        fetched.error = exc
    return fetched


def fetch_limits(settings: Settings) -> scraper_http.FetchLimits:
    """``FetchLimits`` from ``GPUPRICES_MAX_RESPONSE_MB`` (decoded MB per response, default 64),
    ``GPUPRICES_REQUEST_DEADLINE_S`` (default 60) and ``GPUPRICES_PROVIDER_DEADLINE_S`` (default
    300), as ``settings`` hold them."""
    return scraper_http.FetchLimits(
        max_response_bytes=max(1, int(settings.max_response_mb * 1024 * 1024)),
        request_deadline_s=settings.request_deadline_s,
        provider_deadline_s=settings.provider_deadline_s,
    )
