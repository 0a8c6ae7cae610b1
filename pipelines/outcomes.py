"""What one scrape came to: a status from a closed set and the problems found, each with a code.

Decisions (the Dagster asset checks in ``pipelines.defs.providers``, the failure of a provider's
asset) read ``status`` and the problems' codes; ``error`` is the one-line message people read
(stored in ``scrapes.error``, shown by the CLI and ``GET /providers``) and may be reworded freely.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import ValidationError

from pipelines.credentials import TokenError
from scrapers.base import FetchError, MissingTokenError, PageOverBudget, ScraperError
from warehouse.load import LoadError
from warehouse.problems import Problem, ProblemCode, disk_full


class ScrapeStatus(enum.StrEnum):
    SUCCESS = "success"
    FAILED = "failed"
    SKIPPED = "skipped"  # not attempted: no token, no capture to replay
    UNCHANGED = "unchanged"  # this exact scrape (same bytes, same time) is already loaded


class Stage(enum.StrEnum):
    """Where an exception was caught: what an unexpected one is reported as."""

    FETCH = "fetch"
    PARSE = "parse"
    LOAD = "load"


_UNEXPECTED = {
    Stage.FETCH: ProblemCode.FETCH_ERROR,
    Stage.PARSE: ProblemCode.PARSE_ERROR,
    Stage.LOAD: ProblemCode.LOAD_ERROR,
}


@dataclass
class ScrapeOutcome:
    provider: str
    source: str
    status: ScrapeStatus
    offer_count: int = 0
    error: str | None = None  # one line for people, from ``problems``; never branch on it
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
    # what was wrong, with codes (a failed or skipped scrape has at least one)
    problems: list[Problem] = field(default_factory=list)

    @property
    def codes(self) -> set[ProblemCode]:
        return {p.code for p in self.problems}


def one_line(exc: BaseException) -> str:
    """An exception as one line: an invalid offer record summarised, a ScraperError's own
    message, anything else prefixed with its type (``InvalidOperation: ...``)."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return f"invalid offer record ({where}: {first.get('msg')}); {exc.error_count()} error(s)"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text if isinstance(exc, ScraperError) else f"{type(exc).__name__}: {text}"


def problem_of(exc: BaseException, stage: Stage, scrub: Callable[[str], str]) -> Problem:
    """The problem an exception caught at ``stage`` stands for. Every exception maps to a code:
    one nobody expected (``InvalidOperation`` from a parser) is ``PARSE_ERROR``, not silence."""
    if disk_full(exc):
        lines = str(exc).strip().splitlines()
        return Problem(ProblemCode.DISK_FULL, f"disk full: {scrub(lines[0] if lines else '')}")
    text = scrub(one_line(exc))
    if isinstance(exc, MissingTokenError):
        return Problem(ProblemCode.TOKEN_MISSING, text)
    if isinstance(exc, TokenError):
        return Problem(ProblemCode.TOKEN_UNUSABLE, f"fetch failed: {text}")
    if isinstance(exc, FetchError):
        return Problem(ProblemCode.FETCH_FAILED, f"fetch failed: {text}")
    if isinstance(exc, PageOverBudget):
        return Problem(ProblemCode.PAGE_OVER_BUDGET, f"parse failed: {text}")
    if isinstance(exc, ScraperError):
        return Problem(ProblemCode.PARSE_FAILED, f"parse failed: {text}")
    if isinstance(exc, ValidationError):
        return Problem(ProblemCode.INVALID_RECORD, f"parse failed: {text}")
    if isinstance(exc, LoadError):
        return Problem(exc.code, text)
    if stage is Stage.PARSE:
        return Problem(_UNEXPECTED[stage], f"parse failed: {text}")
    return Problem(_UNEXPECTED[stage], text)


def message(problems: Iterable[Problem], prefix: str = "") -> str:
    """The one-line ``error`` of a scrape with ``problems``."""
    return prefix + "; ".join(p.detail for p in problems)


def failures(outcomes: Iterable[ScrapeOutcome]) -> list[ScrapeOutcome]:
    return [o for o in outcomes if o.status == ScrapeStatus.FAILED]


class Served(enum.StrEnum):
    """What a provider's run ended serving (the progress rows of ``gpuprices ingest``)."""

    LIVE = "live"  # a live scrape of this run
    RECORDED = "recorded"  # the live fetch failed or was skipped: recorded captures or offers
    REPLAYED = "replayed"  # a replay run (``--replay``): recorded captures, asked for
    NOTHING = "nothing"  # nothing loaded this run (the last good data, if any, stays)


def served_from(
    outcomes: Iterable[ScrapeOutcome], *, replay: bool
) -> tuple[Served, datetime | None]:
    """What the run of one provider ended with, and when the newest of that data was observed
    (UTC; None for ``Served.NOTHING``). A fallback (``ScrapeOutcome.fallback``) that loaded
    is recorded data, whatever failed before it; loaded or unchanged scrapes count alike."""
    loaded = [
        o
        for o in outcomes
        if o.status in (ScrapeStatus.SUCCESS, ScrapeStatus.UNCHANGED) and o.observed_at
    ]
    fallback = [o for o in loaded if o.fallback]
    if fallback:
        return Served.RECORDED, max(o.observed_at for o in fallback if o.observed_at)
    if loaded:
        newest = max(o.observed_at for o in loaded if o.observed_at)
        return (Served.REPLAYED if replay else Served.LIVE), newest
    return Served.NOTHING, None
