"""One scrape's lifecycle: started -> archived -> parsed -> validated -> screened -> committed,
or failed at any step (skipped: never attempted).

The pipeline chooses where a scrape's responses come from (``pipelines.sessions``: live,
prefetched, replay, fallback, recorded), makes a ``Scrape`` and calls ``run``; everything from
archiving the responses to the commit happens here, in this order:

- ``archive``: every response body into ``raw/`` (content-addressed), the scrape row stored
  ``running`` with its fetches; the same scrape already committed ends here, ``unchanged``;
- ``parse``: refused unparsed when observed in the future, and right after parsing when it
  holds more than ``GPUPRICES_MAX_OFFERS_PER_SCRAPE`` offers (``warehouse.quality``);
- ``validate``: the offers as observation rows (``warehouse.normalise.prepare``) and what is wrong
  with them (``Validation``: non-positive prices, offers in the future, no offers);
- ``screen``: the price-jump gate (``warehouse.quality``: a 10x move quarantines the scrape);
- ``commit``: observations, history and status in one transaction, then the plausibility
  verdicts (``warehouse.plausibility``), which flag offers but never block them.

Each transition stores the problems it finds (``problems``, by state, each a
``warehouse.problems.Problem`` with its code; a failure stores them with the scrape row), and
``outcome`` is the one place a ``ScrapeOutcome`` is made, from the state reached. A full disk
fails the scrape with one line (``DISK_FULL``): nothing more can be written, so the scrape (if
started) is left ``running``, which no model reads and the next ingest marks interrupted.
"""

from __future__ import annotations

import enum
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import duckdb

from warehouse import plausibility, quality
from warehouse.db import Warehouse
from warehouse.load import (
    FetchRecord,
    Validation,
    archive_body,
    commit_scrape,
    fail_scrape,
    prepare,
    record_skip,
    scrape_id,
    start_scrape,
)
from warehouse.outcome import ScrapeOutcome, ScrapeStatus
from warehouse.problems import WARNINGS, Problem, Stage, disk_full, message, record_problems
from warehouse.records import Observation, OfferLike
from warehouse.settings import Settings

__all__ = ["Explain", "Origin", "Received", "Scrape", "ScrapeOutcome", "ScrapeStatus", "State"]


class State(enum.StrEnum):
    STARTED = "started"  # made; nothing of it stored
    ARCHIVED = "archived"  # bodies in raw/, the scrape row 'running' with its fetches
    PARSED = "parsed"  # offers read, within the bounds
    VALIDATED = "validated"  # observation rows prepared, nothing wrong with them
    SCREENED = "screened"  # no price jumped
    COMMITTED = "committed"  # visible (or this exact scrape already was: ``unchanged``)
    FAILED = "failed"
    SKIPPED = "skipped"  # never attempted: no token, nothing to replay


class Origin(Protocol):
    """Where a scrape's responses came from (``pipelines.sessions.Session``)."""

    @property
    def mode(self) -> str: ...  # 'live' or 'replay'
    @property
    def source(self) -> str: ...  # 'live', '<provider>/<capture file>', ...
    @property
    def observed_precision(self) -> str: ...  # how much of observed_at is known
    @property
    def partial_reason(self) -> str | None: ...  # why the responses are a subset, or None
    @property
    def fallback(self) -> bool: ...  # replayed because the live fetch failed


@dataclass(frozen=True)
class Received:
    """One response as it is archived: credentials already scrubbed, the URL redacted."""

    method: str
    url: str
    status: int
    fetched_at: datetime  # UTC
    content_type: str
    body: bytes


# What an exception caught at a stage stands for (``pipelines.outcomes.problem_of``: the pipeline
# knows the scrapers' exception types, which the warehouse does not import).
Explain = Callable[[BaseException, Stage], Problem]
Parse = Callable[[], tuple[Sequence[OfferLike], Counter[str]]]


@dataclass
class Scrape:
    """One scrape of ``provider`` (slug) from ``origin``, bounded by ``settings``.

    ``explain`` names exceptions; ``scrub`` removes credentials from stored messages."""

    provider: str
    origin: Origin
    run_id: str | None
    settings: Settings
    explain: Explain
    scrub: Callable[[str], str] = str
    state: State = State.STARTED
    problems: dict[State, list[Problem]] = field(default_factory=dict)
    scrape_id: str | None = None
    observed_at: datetime | None = None
    unchanged: bool = False  # this exact scrape was already committed
    offer_count: int = 0
    excluded: Counter[str] = field(default_factory=Counter)
    skipped_parts: dict[str, str] = field(default_factory=dict)
    history: dict[str, int] = field(default_factory=dict)
    suspect: dict[str, list[str]] = field(default_factory=dict)  # offer -> plausibility codes
    _offers: Sequence[OfferLike] = ()
    _rows: list[Observation] = field(default_factory=list)
    _validation: Validation = field(default_factory=Validation)
    _error: str | None = None  # the one line stored and shown for a failed or skipped scrape
    now: datetime | None = None  # the run's clock (default the wall clock): the latest date allowed

    def run(
        self,
        warehouse: Warehouse,
        raw_dir: Path,
        received: Sequence[Received],
        parse: Parse | None = None,
        *,
        fetch_error: BaseException | None = None,
        skipped_parts: dict[str, str] | None = None,
        fingerprint: str | None = None,
        observed_at: datetime | None = None,
    ) -> ScrapeOutcome:
        """Archive ``received``, parse them with ``parse``, validate, screen and commit: one
        writer at a time (the warehouse lock is held from archiving to commit). Never raises for
        a provider fault. ``fetch_error``: what went wrong fetching (the scrape fails once its
        responses are archived); ``skipped_parts``: part -> the (scrubbed) error of a request
        that failed alone. ``fingerprint`` and ``observed_at`` identify a scrape that has
        no responses (recorded offers)."""
        try:
            with warehouse.connect() as con:
                self.archive(
                    con,
                    raw_dir,
                    received,
                    fetch_error=fetch_error,
                    skipped_parts=skipped_parts,
                    fingerprint=fingerprint,
                    observed_at=observed_at,
                )
                self.parse(con, parse)
                self.validate(con)
                self.screen(con)
                self.commit(con)
        except Exception as exc:
            if not disk_full(exc):
                raise
            self.scrape_id = None  # nothing of it can be written, the row stays 'running'
            self.offer_count = 0
            self._end(State.FAILED, [self.explain(exc, Stage.LOAD)])
        return self.outcome()

    # -- transitions (each a no-op once the scrape has ended or failed) ------------------------

    def skip(self, problem: Problem, con: duckdb.DuckDBPyConnection | None = None) -> Scrape:
        """Never attempted (no token, nothing to replay); with ``con`` a 'skipped' scrape row
        with the problem's code says so."""
        if con is not None:
            record_skip(
                con,
                provider=self.provider,
                run_id=self.run_id,
                reason=problem.detail,
                problem_codes=[str(problem.code)],
            )
        return self._end(State.SKIPPED, [problem])

    def archive(
        self,
        con: duckdb.DuckDBPyConnection,
        raw_dir: Path,
        received: Sequence[Received],
        *,
        fetch_error: BaseException | None = None,
        skipped_parts: dict[str, str] | None = None,
        fingerprint: str | None = None,
        observed_at: datetime | None = None,
    ) -> Scrape:
        """Store the bodies and the scrape row ('running'). Its id is a function of the provider,
        the observation time and the bodies (or ``fingerprint``), so the same scrape again is
        ``unchanged``; a scrape whose fetch failed gets a random one and fails."""
        if self.state is not State.STARTED:
            return self
        records = [
            FetchRecord(
                r.method,
                r.url,
                r.status,
                r.fetched_at,
                archive_body(con, raw_dir, r.body, r.content_type, r.fetched_at),
            )
            for r in received
        ]
        self.observed_at = observed_at or min(
            (r.fetched_at for r in received), default=datetime.now(UTC)
        )
        self.skipped_parts = dict(sorted((skipped_parts or {}).items()))
        hashes = [fingerprint] if fingerprint is not None else [f.sha256 for f in records]
        self.scrape_id = (
            scrape_id(self.provider, self.observed_at, hashes)
            if hashes and fetch_error is None
            else uuid.uuid4().hex[:20]
        )
        started = start_scrape(
            con,
            scrape_id=self.scrape_id,
            provider=self.provider,
            run_id=self.run_id,
            mode=self.origin.mode,
            source=self.origin.source,
            fetches=records,
        )
        if not started:
            self.unchanged = True
            return self._end(State.COMMITTED)
        self.state = State.ARCHIVED
        if fetch_error is not None:
            return self._fail(con, State.ARCHIVED, [self.explain(fetch_error, Stage.FETCH)])
        return self

    def parse(self, con: duckdb.DuckDBPyConnection, parse: Parse | None) -> Scrape:
        """Read the offers: refused unread when observed in the future, and when too many."""
        if self.state is not State.ARCHIVED or self.observed_at is None:
            return self
        if parse is None:
            raise ValueError(f"a scrape of {self.provider} with nothing to parse did not fail")
        latest = quality.latest_plausible_observation(self.now, self.settings.clock_skew_s)
        refused = quality.future_observation(self.observed_at, latest)
        if refused is not None:
            return self._fail(con, State.PARSED, [refused])
        try:
            offers, excluded = parse()
        except Exception as exc:
            if disk_full(exc):
                raise
            return self._fail(con, State.PARSED, [self.explain(exc, Stage.PARSE)])
        self.offer_count = len(offers)
        refused = quality.too_many_offers(len(offers), self.settings.max_offers_per_scrape)
        if refused is not None:
            del offers  # the records of an oversized scrape go before anything else is built
            return self._fail(con, State.PARSED, [refused])
        self._offers, self.excluded = offers, excluded
        self.state = State.PARSED
        return self

    def validate(self, con: duckdb.DuckDBPyConnection) -> Scrape:
        """The offers as observation rows; failed (codes stored) when ``Validation`` says so."""
        if self.state is not State.PARSED:
            return self
        latest = quality.latest_plausible_observation(self.now, self.settings.clock_skew_s)
        try:
            rows, validation = prepare(con, self._offers, latest_observed_at=latest)
        except Exception as exc:
            if disk_full(exc):
                raise
            self.offer_count = 0
            return self._fail(con, State.VALIDATED, [self.explain(exc, Stage.PARSE)])
        self._offers = ()
        self.offer_count = validation.offer_count
        if not validation.ok:
            coded = validation.coded_problems()
            scrubbed = [Problem(p.code, self.scrub(p.detail)) for p in coded]
            return self._fail(con, State.VALIDATED, scrubbed, prefix="check failed: ")
        self._rows, self._validation = rows, validation
        self.offer_count = len(rows)
        self.state = State.VALIDATED
        return self

    def screen(self, con: duckdb.DuckDBPyConnection) -> Scrape:
        """A 10x move against the current price is a parser or unit bug far more often than a
        real change: the whole scrape is held back (quarantined, see ``warehouse.quality``)."""
        if self.state is not State.VALIDATED or self.scrape_id is None:
            return self
        factor = self.settings.price_jump_factor
        jumps = quality.price_jumps(con, self.provider, self._rows, factor)
        if jumps:
            problem = quality.quarantine(
                con, scrape_id=self.scrape_id, provider=self.provider, jumps=jumps, factor=factor
            )
            return self._fail(con, State.SCREENED, [problem])
        self.state = State.SCREENED
        return self

    def commit(self, con: duckdb.DuckDBPyConnection) -> Scrape:
        """Make the scrape visible, then store the plausibility verdicts of its offers."""
        if self.state is not State.SCREENED or self.scrape_id is None or self.observed_at is None:
            return self
        try:
            self.history = commit_scrape(
                con,
                scrape_id=self.scrape_id,
                provider=self.provider,
                observed_at=self.observed_at,
                rows=self._rows,
                observed_precision=self.origin.observed_precision,
                exclusions=self.excluded,
                skipped_parts=self.skipped_parts,
                partial_reason=self.origin.partial_reason,
            )
        except Exception as exc:
            if disk_full(exc):
                raise
            self.offer_count = 0
            return self._fail(con, State.COMMITTED, [self.explain(exc, Stage.LOAD)])
        coded = self._validation.coded_problems()
        warnings = [p for p in coded if p.code in WARNINGS]
        record_problems(con, self.scrape_id, warnings)
        verdicts = plausibility.screen_scrape(
            con, scrape_id=self.scrape_id, provider=self.provider, rows=self._rows
        )
        by_id = {r.offer_id: r for r in self._rows}
        self.suspect = {
            _describe(by_id[offer_id]): [r.code for r in reasons]
            for offer_id, reasons in verdicts.items()
        }
        return self._end(State.COMMITTED, warnings)

    def outcome(self) -> ScrapeOutcome:
        """What the scrape came to, from the state it reached (the only ``ScrapeOutcome`` made):
        committed is ``success`` (``unchanged`` when it was already), failed and skipped carry
        the failing transition's problems and their one-line ``error``."""
        status = {
            State.COMMITTED: ScrapeStatus.UNCHANGED if self.unchanged else ScrapeStatus.SUCCESS,
            State.FAILED: ScrapeStatus.FAILED,
            State.SKIPPED: ScrapeStatus.SKIPPED,
        }.get(self.state)
        if status is None:
            raise RuntimeError(f"scrape of {self.provider} has not ended: {self.state}")
        problems = [p for found in self.problems.values() for p in found]
        validation = self._validation if status is ScrapeStatus.SUCCESS else Validation()
        return ScrapeOutcome(
            self.provider,
            self.origin.source,
            status,
            self.offer_count if status is not ScrapeStatus.UNCHANGED else 0,
            self._error,
            self.scrape_id,
            self.observed_at,
            self.history,
            fallback=self.origin.fallback,
            unresolved_gpus=sorted(set(validation.unresolved_gpus)),
            vram_mismatches=validation.vram_mismatches,
            excluded=dict(sorted(self.excluded.items())) if status is ScrapeStatus.SUCCESS else {},
            skipped_parts=self.skipped_parts if status is ScrapeStatus.SUCCESS else {},
            suspect=self.suspect,
            problems=problems,
        )

    def _fail(
        self,
        con: duckdb.DuckDBPyConnection,
        step: State,
        problems: list[Problem],
        prefix: str = "",
    ) -> Scrape:
        """Fail a started scrape at ``step``: its error and problem codes stored with its row."""
        self._end(State.FAILED, problems, step=step, prefix=prefix)
        if self.scrape_id is not None and self._error is not None:
            fail_scrape(con, self.scrape_id, self._error)
            record_problems(con, self.scrape_id, problems)
        return self

    def _end(
        self,
        state: State,
        problems: list[Problem] | None = None,
        *,
        step: State | None = None,
        prefix: str = "",
    ) -> Scrape:
        """Enter the final ``state``; ``problems`` found by the transition to ``step``."""
        if problems:
            self.problems.setdefault(step or state, []).extend(problems)
            if state is not State.COMMITTED:
                self._error = message(problems, prefix)
        self.state = state
        return self


def _describe(row: Observation) -> str:
    return f"{row.instance_type} {row.region} {row.pricing} {row.price} {row.currency}"
