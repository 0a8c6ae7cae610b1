"""Naming what went wrong (``problem_of``: an exception as a coded problem), and what a
provider's run ended serving (``served_from``).

A scrape's outcome (``ScrapeOutcome``: a status from a closed set and the problems found, each
with a code) is made by its lifecycle, ``warehouse.scrape``; it is re-exported here. Decisions
(the Dagster asset checks in ``pipelines.defs.providers``, the failure of a provider's asset) read
``status`` and the problems' codes; ``error`` is the one-line message people read (stored in
``scrapes.error``, shown by the CLI and ``GET /providers``) and may be reworded freely.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from datetime import datetime

from pydantic import ValidationError

from pipelines.credentials import TokenError
from scrapers.base import FetchError, MissingTokenError, PageOverBudget, ScraperError
from warehouse.load import LoadError
from warehouse.outcome import ScrapeOutcome, ScrapeStatus
from warehouse.problems import Problem, ProblemCode, Stage, disk_full

__all__ = [
    "ScrapeOutcome",
    "ScrapeStatus",
    "Served",
    "Stage",
    "failures",
    "one_line",
    "problem_of",
    "served_from",
]


_UNEXPECTED = {
    Stage.FETCH: ProblemCode.FETCH_ERROR,
    Stage.PARSE: ProblemCode.PARSE_ERROR,
    Stage.LOAD: ProblemCode.LOAD_ERROR,
}


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
