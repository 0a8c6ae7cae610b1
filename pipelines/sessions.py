"""Where a scrape's responses come from, fetching them, and handing them to the scrape lifecycle.

Each session is one scrape: live (``run_session``), prefetched (a live fetch already done,
``pipelines.prefetch``; ``load_fetched``), replay (one per capture), fallback (the replay of a
failed live fetch), refused (a token that cannot be sent: ``refuse_session``) and recorded (the
offers that ship with the project: ``run_recorded``). ``fetch`` runs a session's requests and
keeps every response for the raw archive, touching no warehouse; it never raises for a provider
fault, so fetches can run side by side while loads stay one at a time.

Everything from archiving the responses to the commit is the warehouse's scrape lifecycle
(``warehouse.scrape``: archive -> parse -> validate -> screen -> commit), which stores the
problems it finds and derives the outcome. What a session adds is what the warehouse must not
know: the provider's fetch and parser (``scrapers``), its token and the scrubbing of it from
whatever is kept (``pipelines.credentials``), and the names of the scrapers' exceptions
(``pipelines.outcomes.problem_of``).

Fetch bounds (issue 15), from the settings a provider's ingest is given:
``scrapers.http.FetchLimits`` from ``GPUPRICES_MAX_RESPONSE_MB``, ``GPUPRICES_REQUEST_DEADLINE_S``
and ``GPUPRICES_PROVIDER_DEADLINE_S`` (``fetch_limits``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import httpx

from pipelines.credentials import Scrubber, archivable_body
from pipelines.outcomes import ScrapeOutcome, problem_of
from scrapers import http as scraper_http
from scrapers import recorded
from scrapers.base import MissingTokenError, Offer, Provider, RawResponse, ScraperError
from scrapers.replay import Capture, ReplayTransport, discover
from warehouse.db import Warehouse
from warehouse.paths import Paths
from warehouse.problems import Problem, ProblemCode, Stage
from warehouse.scrape import Received, Scrape
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
    """What one session's fetch of ``provider`` (slug) left: every response seen (for the
    archive), the responses the provider returned (for its parser, ``parse``), the parts skipped
    alone, and what went wrong."""

    provider: str
    parse: Callable[[list[RawResponse]], tuple[list[Offer], Counter[str]]]
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
    fetched = Fetched(provider.slug, provider.parse_report, recorded=recorder.responses)
    try:
        with client:
            fetched.responses, fetched.skipped = provider.fetch_report(client, token)
        fetched.error = scraper_http.budget_exceeded(client)  # the whole scrape, not a part
    except MissingTokenError as exc:
        fetched.missing_token = exc
    except Exception as exc:  # a provider fault must not stop the other providers
        fetched.error = scraper_http.budget_exceeded(client) or exc
    if fetched.error is not None and scraper_http.budget_exceeded(client) is not None:
        fetched.responses = []  # what the budget refused is not kept for the parser
    return fetched


def fetch_limits(settings: Settings) -> scraper_http.FetchLimits:
    """``FetchLimits`` from ``GPUPRICES_MAX_RESPONSE_MB`` (decoded MB per response, default 64),
    ``GPUPRICES_REQUEST_DEADLINE_S`` (default 60) and ``GPUPRICES_PROVIDER_DEADLINE_S`` (default
    300), as ``settings`` hold them; the scrape's byte budget is ``scrapers.http.MAX_SCRAPE_BYTES``
    or two such responses, whichever is more."""
    per_response = max(1, int(settings.max_response_mb * 1024 * 1024))
    return scraper_http.FetchLimits(
        max_response_bytes=per_response,
        request_deadline_s=settings.request_deadline_s,
        provider_deadline_s=settings.provider_deadline_s,
        # a scrape may always read two responses of the largest size allowed
        max_scrape_bytes=max(scraper_http.MAX_SCRAPE_BYTES, 2 * per_response),
    )


# -- running a session: its responses handed to the scrape lifecycle (warehouse.scrape) ---------


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
    (default: the defaults) bound what the scrape may claim (``warehouse.scrape``)."""
    fetched = fetch(provider, session, token, throttle=throttle, limits=limits)
    return load_fetched(
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
    """Run the lifecycle of what ``sessions.fetch`` returned (one writer at a time: the
    warehouse lock is held from archiving to commit). ``now``: the run's clock (default the
    wall clock), what the scrape may be dated at most."""
    scrub = Scrubber(token, [r.request for r in fetched.recorded])
    scrape = Scrape(
        fetched.provider,
        session,
        run_id,
        settings or Settings.load({}),
        explain=partial(problem_of, scrub=scrub.text),
        scrub=scrub.text,
        now=now,
    )
    if fetched.missing_token is not None:
        with warehouse.connect() as con:
            return scrape.skip(problem_of(fetched.missing_token, Stage.FETCH, str), con).outcome()
    received, fetch_error = fetched.received(scrub)
    return scrape.run(
        warehouse,
        paths.raw,
        received,
        partial(fetched.parse, fetched.responses),
        fetch_error=fetch_error,
        skipped_parts={part: scrub.text(error) for part, error in fetched.skipped.items()},
    )


def refuse_session(
    provider: Provider,
    session: Session,
    *,
    warehouse: Warehouse,
    paths: Paths,
    run_id: str | None,
    error: ScraperError,
    settings: Settings | None = None,
) -> ScrapeOutcome:
    """Record a live session that could not start (a token that cannot be sent) as failed."""
    scrape = lifecycle(provider, session, run_id, settings, Scrubber(None, []))
    return scrape.run(warehouse, paths.raw, [], fetch_error=error)


def run_recorded(
    provider: Provider,
    *,
    warehouse: Warehouse,
    paths: Paths,
    run_id: str | None,
    settings: Settings | None = None,
) -> ScrapeOutcome:
    """Load the provider's recorded offers that ship with the project (``scrapers.recorded``),
    after its live fetch failed: one scrape observed at their capture date, labelled recorded
    (mode 'replay'). Loading the same rows again is 'unchanged'."""
    capture = recorded.capture_of(provider.slug)
    observed_at = recorded.captured_at(provider.slug)
    if capture is None or observed_at is None:
        scrape = lifecycle(provider, Session("replay", "recorded", fallback=True), run_id, settings)
        detail = f"no recorded offers for {provider.slug} ship with this version"
        return scrape.skip(Problem(ProblemCode.NO_CAPTURE, detail)).outcome()
    session = Session(
        "replay",
        f"recorded offers of {capture} (shipped)",
        observed_precision=recorded.precision_of(provider.slug),
        fallback=True,
    )
    return lifecycle(provider, session, run_id, settings).run(
        warehouse,
        paths.raw,
        [],
        partial(recorded.parse_report, provider.slug),
        fingerprint=recorded.fingerprint(provider.slug),
        observed_at=observed_at,
    )


def lifecycle(
    provider: Provider,
    session: Session,
    run_id: str | None,
    settings: Settings | None,
    scrub: Scrubber | None = None,
) -> Scrape:
    """The lifecycle of one scrape of ``provider`` from ``session`` (``settings`` default: the
    defaults), its stored messages scrubbed of the scrape's credentials."""
    scrub = scrub or Scrubber(None, [])
    return Scrape(
        provider.slug,
        session,
        run_id,
        settings or Settings.load({}),
        explain=partial(problem_of, scrub=scrub.text),
        scrub=scrub.text,
    )
