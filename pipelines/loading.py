"""One scrape from a chosen session: its responses (fetched here, or already) handed to the
scrape lifecycle of the warehouse (``warehouse.scrape``: archive -> parse -> validate -> screen
-> commit), which stores what it found and derives the outcome.

What the pipeline adds is what the warehouse must not know: the provider's fetch and parser
(``scrapers``), its token and the scrubbing of it from whatever is kept
(``pipelines.credentials``), and the names of the scrapers' exceptions
(``pipelines.outcomes.problem_of``).
"""

from __future__ import annotations

from functools import partial

from pipelines.credentials import Scrubber
from pipelines.outcomes import ScrapeOutcome, problem_of
from pipelines.sessions import Fetched, Session, fetch
from scrapers import http as scraper_http
from scrapers import recorded
from scrapers.base import Provider, ScraperError
from warehouse.db import Warehouse
from warehouse.paths import Paths
from warehouse.problems import Problem, ProblemCode, Stage
from warehouse.scrape import Scrape
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
) -> ScrapeOutcome:
    """Fetch, archive, parse, validate and load one scrape. Never raises for provider faults.

    ``limits`` bound the fetch (default ``FetchLimits()``: response size, request and provider
    deadlines); a response they refuse fails the scrape and is never archived. ``settings``
    (default: the defaults) bound what the scrape may claim (``warehouse.scrape``)."""
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
) -> ScrapeOutcome:
    """Run the lifecycle of what ``sessions.fetch`` returned (one writer at a time: the
    warehouse lock is held from archiving to commit)."""
    scrub = Scrubber(token, [r.request for r in fetched.recorded])
    scrape = lifecycle(provider, session, run_id, settings, scrub)
    if fetched.missing_token is not None:
        with warehouse.connect() as con:
            return scrape.skip(problem_of(fetched.missing_token, Stage.FETCH, str), con).outcome()
    received, fetch_error = fetched.received(scrub)
    return scrape.run(
        warehouse,
        paths.raw,
        received,
        partial(provider.parse_report, fetched.responses),
        fetch_error=fetch_error,
        skipped_parts=fetched.skipped,
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
