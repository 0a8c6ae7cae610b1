"""Writing scrapes into the warehouse: raw archive, observations and price history.

A scrape becomes visible atomically: its observations, history changes and its ``success``
status commit in one transaction. A crash before that leaves a ``running`` scrape that no
derived model reads, so a half-loaded provider is never served.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import msgspec

from warehouse.db import insert_records, transaction
from warehouse.history import FULL, PARTIAL, apply_scrape_history
from warehouse.history import SCRAPE_SOURCE as SCRAPE_SOURCE  # re-export: sources live there

# The one path from offers to observation rows (shared with warehouse.batch), re-exported:
# callers load a scrape with prepare -> commit_scrape from this module.
from warehouse.normalise import MIN_PRICE_PER_HOUR_USD as MIN_PRICE_PER_HOUR_USD
from warehouse.normalise import VRAM_REPORT_TOLERANCE as VRAM_REPORT_TOLERANCE
from warehouse.normalise import LoadError as LoadError
from warehouse.normalise import Validation as Validation
from warehouse.normalise import fx_rate as fx_rate
from warehouse.normalise import prepare as prepare
from warehouse.normalise import unresolved_message as unresolved_message
from warehouse.normalise import vram_report_mismatch as vram_report_mismatch
from warehouse.ranges import CONVERSION_ERRORS, conversion_problem
from warehouse.records import Fetch, Observation, ScrapeExclusion, ScrapeSkippedPart
from warehouse.records import offer_id as offer_id


def scrape_id(provider: str, observed_at: datetime, body_hashes: Iterable[str]) -> str:
    """Deterministic id: re-running the same scrape (same bytes, same time) is a no-op."""
    key = "\x1f".join([provider, observed_at.isoformat(), *sorted(body_hashes)])
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def archive_body(
    con: duckdb.DuckDBPyConnection,
    raw_dir: Path,
    body: bytes,
    content_type: str,
    fetched_at: datetime,
) -> str:
    """Store a response body once (content-addressed); return its sha256."""
    digest = hashlib.sha256(body).hexdigest()
    target = raw_dir / digest[:2] / f"{digest}.gz"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(gzip.compress(body, mtime=0))
        os.replace(tmp, target)
    con.execute(
        "insert into raw_responses values (?, ?, ?, ?) on conflict do nothing",
        [digest, content_type, len(body), fetched_at],
    )
    return digest


def read_body(raw_dir: Path, digest: str) -> bytes:
    return gzip.decompress((raw_dir / digest[:2] / f"{digest}.gz").read_bytes())


@dataclass(frozen=True)
class FetchRecord:
    method: str
    url: str
    status: int
    fetched_at: datetime
    sha256: str


def start_scrape(
    con: duckdb.DuckDBPyConnection,
    *,
    scrape_id: str,
    provider: str,
    run_id: str | None,
    mode: str,
    source: str,
    fetches: Sequence[FetchRecord],
) -> bool:
    """Record a scrape as running. Returns False if this exact scrape already succeeded."""
    row = con.execute("select status from scrapes where scrape_id = ?", [scrape_id]).fetchone()
    if row is not None and row[0] == "success":
        return False
    with transaction(con):
        con.execute("delete from scrapes where scrape_id = ?", [scrape_id])
        con.execute("delete from fetches where scrape_id = ?", [scrape_id])
        con.execute(
            "insert into scrapes (scrape_id, provider, run_id, mode, source, started_at, status)"
            " values (?, ?, ?, ?, ?, ?, 'running')",
            [scrape_id, provider, run_id, mode, source, datetime.now(UTC)],
        )
        insert_records(
            con,
            "fetches",
            [
                Fetch(
                    scrape_id=scrape_id,
                    seq=i,
                    method=f.method,
                    url=f.url,
                    status=f.status,
                    fetched_at=f.fetched_at,
                    sha256=f.sha256,
                )
                for i, f in enumerate(fetches)
            ],
        )
    return True


def fail_scrape(con: duckdb.DuckDBPyConnection, scrape_id: str, error: str) -> None:
    con.execute(
        "update scrapes set status = 'failed', error = ?, finished_at = ? where scrape_id = ?",
        [error[:2000], datetime.now(UTC), scrape_id],
    )


def record_skip(
    con: duckdb.DuckDBPyConnection,
    *,
    provider: str,
    run_id: str | None,
    reason: str,
    problem_codes: Sequence[str] | None = None,
) -> None:
    """Record a live scrape that was not attempted (``reason``, with its problem codes)."""
    now = datetime.now(UTC)
    con.execute(
        "insert into scrapes (scrape_id, provider, run_id, mode, source, started_at, finished_at,"
        " status, error, problem_codes) values (?, ?, ?, 'live', 'live', ?, ?, 'skipped', ?, ?)",
        [
            f"skip-{provider}-{now.timestamp():.6f}",
            provider,
            run_id,
            now,
            now,
            reason,
            list(problem_codes) if problem_codes else None,
        ],
    )


def commit_scrape(
    con: duckdb.DuckDBPyConnection,
    *,
    scrape_id: str,
    provider: str,
    observed_at: datetime,
    rows: Sequence[Observation],
    observed_precision: str = "second",
    exclusions: Mapping[str, int] | None = None,
    skipped_parts: Mapping[str, str] | None = None,
    partial_reason: str | None = None,
) -> dict[str, int]:
    """Write observations and history for a validated scrape, and mark it successful, atomically.

    ``rows`` come from :func:`prepare` (their ``scrape_id`` is set to ``scrape_id`` here).
    ``observed_precision`` ("second", "minute", "day", "month") says how much of ``observed_at``
    is known: a capture dated only to a month is observed at the month's first instant.
    ``exclusions`` (reason -> rows the parser left out) and ``skipped_parts`` (part -> the error
    of a request that failed alone) are stored with the scrape.

    Coverage (``scrapes.coverage``): the scrape is 'partial' when ``partial_reason`` says why it
    saw only a subset of its provider's list (a recorded excerpt: ``scrapers.replay``) or when
    parts of it were skipped; a partial scrape never closes an offer it does not list."""
    coverage, coverage_reason = scrape_coverage(partial_reason, skipped_parts)
    try:
        with transaction(con):
            insert_records(
                con,
                "observations",
                [
                    r
                    if r.scrape_id == scrape_id
                    else msgspec.structs.replace(r, scrape_id=scrape_id)
                    for r in rows
                ],
            )
            changes = apply_history(
                con,
                scrape_id=scrape_id,
                provider=provider,
                observed_at=observed_at,
                coverage=coverage,
            )
            insert_records(
                con,
                "scrape_exclusions",
                [
                    ScrapeExclusion(
                        scrape_id=scrape_id, provider=provider, reason=reason, row_count=n
                    )
                    for reason, n in sorted((exclusions or {}).items())
                    if n > 0
                ],
            )
            insert_records(
                con,
                "scrape_skipped_parts",
                [
                    ScrapeSkippedPart(scrape_id=scrape_id, provider=provider, part=p, error=err)
                    for p, err in sorted((skipped_parts or {}).items())
                ],
            )
            con.execute(
                "update scrapes set status = 'success', observed_at = ?, finished_at = ?,"
                " offer_count = ?, observed_precision = ?, coverage = ?, coverage_reason = ?"
                " where scrape_id = ?",
                [
                    observed_at,
                    datetime.now(UTC),
                    len(rows),
                    observed_precision,
                    coverage,
                    coverage_reason,
                    scrape_id,
                ],
            )
    except CONVERSION_ERRORS as exc:  # a value a column cannot hold that prepare let through
        problem = conversion_problem(exc)
        raise LoadError(problem.detail, problem.code) from None
    return changes


def scrape_coverage(
    partial_reason: str | None, skipped_parts: Mapping[str, str] | None = None
) -> tuple[str, str | None]:
    """(``scrapes.coverage``, ``scrapes.coverage_reason``) of a successful scrape: 'partial'
    with its reasons when ``partial_reason`` is given or parts were skipped, else ('full',
    None)."""
    reasons = [partial_reason] if partial_reason else []
    if skipped_parts:
        reasons.append("skipped parts: " + ", ".join(sorted(skipped_parts)))
    if not reasons:
        return FULL, None
    return PARTIAL, "; ".join(reasons)[:500]


def apply_history(
    con: duckdb.DuckDBPyConnection,
    *,
    scrape_id: str,
    provider: str,
    observed_at: datetime,
    coverage: str = FULL,
) -> dict[str, int]:
    """Collapse a scrape into change intervals (runs inside the caller's transaction).

    Offers whose price or shape changed, or that a full scrape no longer lists, get their open
    interval closed at ``observed_at``; changed and new offers get a new open interval, and
    unchanged ones a newer ``last_seen_at``. A partial scrape (``coverage``) closes nothing it
    does not list. A scrape
    older than the provider's newest history point only adds observations (history is built
    forward in time). The set-based implementation, shared with batch loads and the history
    importers, is ``warehouse.history.apply_batch``.
    """
    return apply_scrape_history(
        con, scrape_id=scrape_id, provider=provider, observed_at=observed_at, coverage=coverage
    )
