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
    # a response past the parse budget: HTML bytes, nesting or elements, or the parse deadline
    PAGE_OVER_BUDGET = "page_over_budget"
    NO_OFFERS_PARSED = "no_offers_parsed"
    # validation (warehouse.load.prepare)
    NON_POSITIVE_PRICE = "non_positive_price"
    FUTURE_OFFERS = "future_offers"  # offers observed later than now plus the clock skew
    GPU_UNRESOLVED = "gpu_unresolved"  # a warning: loaded with gpu_id null
    DUPLICATE_OFFER = "duplicate_offer"  # two different prices for one offer id
    NO_FX_RATE = "no_fx_rate"
    VALUE_OUT_OF_RANGE = "value_out_of_range"  # a figure its column cannot hold (warehouse.ranges)
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
    # no longer made (issue 27: the clock never deletes a stored scrape); scrapes stored before
    # carry it
    QUARANTINED_FUTURE_OBSERVATION = "quarantined_future_observation"


# Codes that warn and never reject a scrape: found by a transition that still succeeds, they
# are stored with the committed scrape (``scrapes.problem_codes``) and carried in its outcome's
# ``problems``, where a warning check (``pipelines.defs.providers.RED_WHEN``) reads them.
WARNINGS = frozenset({ProblemCode.GPU_UNRESOLVED})


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


# What a storage engine (SQLite under Dagster, DuckDB) says when the file system fails it.
_STORAGE_WORDS = (
    "disk i/o error",
    "database or disk is full",
    "attempt to write a readonly database",
    "unable to open database file",
)


def storage_failure(exc: BaseException) -> str | None:
    """One line for an exception whose cause is the file system (issue 27: a permission error
    or SQLite's "disk I/O error" under a full disk ended the CLI in a traceback): an ``OSError``
    (its words and path) or a storage engine's error saying so; None for anything else."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError):
            words = current.strerror or type(current).__name__
            where = f": {current.filename}" if current.filename else ""
            return f"{words}{where}"
        lines = str(current).strip().splitlines()
        first = lines[0] if lines else ""
        if any(w in first.lower() for w in _STORAGE_WORDS):
            return first[:300]
        current = current.__cause__ or current.__context__
    return None
