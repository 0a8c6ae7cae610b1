"""Typed problems of a scrape: a code saying what went wrong, and a one-line detail for people.

A problem is made where it is found (``warehouse.quality`` for the bounds and price jumps,
``warehouse.normalise`` for validation, ``warehouse.recovery`` for scrapes it quarantines,
``warehouse.scrape`` for exceptions by ``Stage``, named by ``pipelines.outcomes.problem_of``).
Whatever decides something about a scrape (the Dagster asset checks, the ingest report) reads
the ``code``; the ``detail`` is only shown, so rewording a message never changes a decision.
The codes are stored with the scrape (``scrapes.problem_codes``, migration 0011).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


class ProblemCode(enum.StrEnum):
    # fetch
    FETCH_FAILED = "fetch_failed"  # a FetchError: HTTP status, timeout, size limit, deadline
    FETCH_ERROR = "fetch_error"  # an unexpected exception while fetching (a bug, not the site)
    TOKEN_MISSING = "token_missing"  # the provider needs a token that is not set (skipped)
    TOKEN_UNUSABLE = "token_unusable"  # a token that cannot go into an HTTP header
    NO_CAPTURE = "no_capture"  # nothing to replay, or no recorded offers ship (skipped)
    # parse
    PARSE_FAILED = "parse_failed"  # a ScraperError of the parser: schema drift, a row that fails
    PARSE_ERROR = "parse_error"  # an unexpected exception while parsing (InvalidOperation, ...)
    INVALID_RECORD = "invalid_record"  # a parsed offer the Offer model refuses
    NO_OFFERS_PARSED = "no_offers_parsed"
    # validation (warehouse.load.prepare)
    NON_POSITIVE_PRICE = "non_positive_price"
    FUTURE_OFFERS = "future_offers"  # offers observed later than now plus the clock skew
    GPU_UNRESOLVED = "gpu_unresolved"  # a warning: loaded with gpu_id null
    DUPLICATE_OFFER = "duplicate_offer"  # two different prices for one offer id
    NO_FX_RATE = "no_fx_rate"
    # bounds and gates (warehouse.quality)
    FUTURE_OBSERVATION = "future_observation"  # the scrape itself is dated in the future
    TOO_MANY_OFFERS = "too_many_offers"
    PRICE_JUMP = "price_jump"  # quarantined: a 10x move against the current price
    # load and storage
    LOAD_ERROR = "load_error"  # an unexpected exception while writing the scrape
    DISK_FULL = "disk_full"
    # found later (warehouse.recovery)
    INTERRUPTED = "interrupted"
    QUARANTINED_TOO_MANY_OFFERS = "quarantined_too_many_offers"
    QUARANTINED_FUTURE_OBSERVATION = "quarantined_future_observation"


class Stage(enum.StrEnum):
    """Where an exception was caught: what an unexpected one is reported as."""

    FETCH = "fetch"
    PARSE = "parse"
    LOAD = "load"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a scrape. ``detail`` is a one-line message for people (credentials
    scrubbed where they may occur); nothing may branch on its wording."""

    code: ProblemCode
    detail: str


def codes(problems: Iterable[Problem]) -> list[str]:
    """The distinct codes of ``problems``, in order of first appearance (as stored)."""
    return list(dict.fromkeys(str(p.code) for p in problems))


def message(problems: Iterable[Problem], prefix: str = "") -> str:
    """The one-line ``error`` of a scrape with ``problems``."""
    return prefix + "; ".join(p.detail for p in problems)


def disk_full(exc: BaseException) -> bool:
    """True when ``exc`` (or what it was raised from) says the disk or quota is full: an
    ``OSError`` with ENOSPC or EDQUOT, or a DuckDB / SQLite error with that message."""
    import errno

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        text = str(current).lower()
        if "no space left on device" in text or "database or disk is full" in text:
            return True
        current = current.__cause__ or current.__context__
    return False


def record_problems(con, scrape_id: str, problems: Iterable[Problem]) -> None:
    """Store the codes of ``problems`` with scrape ``scrape_id`` (``scrapes.problem_codes``);
    nothing when there are none. ``con`` is a DuckDB connection to the warehouse."""
    found = codes(problems)
    if found:
        con.execute("update scrapes set problem_codes = ? where scrape_id = ?", [found, scrape_id])
