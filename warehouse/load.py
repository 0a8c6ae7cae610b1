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
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

from warehouse.db import bulk_insert
from warehouse.gpus import load_gpus, resolve
from warehouse.history import SCRAPE_SOURCE as SCRAPE_SOURCE  # re-export: sources live there
from warehouse.history import apply_scrape_history
from warehouse.quality import latest_plausible_observation
from warehouse.units import price_per_hour, quantize_money, to_usd

_HISTORY_KEY = ("price", "currency", "gpu_id", "gpu_count")
# The least USD per instance-hour that is a price (after rounding to the warehouse's 6
# decimals). The cheapest real offer in every capture is $0.12/h (a RunPod RTX A2000); a parser
# or unit bug (a per-second price read as per-year, $3.64 read as $0.0000001) lands far below.
MIN_PRICE_PER_HOUR_USD = Decimal("0.001")
_PRICE_QUANTUM = Decimal("0.000000001")  # observations.price is decimal(18, 9)


class LoadError(RuntimeError):
    pass


def offer_id(provider: str, instance_type: str, region: str, pricing: str, term: int | None) -> str:
    """Stable id of an offer: the same (provider, instance type, region, pricing) keeps it."""
    key = "\x1f".join([provider, instance_type, region, pricing, str(term or "")])
    return hashlib.sha256(key.encode()).hexdigest()[:16]


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
    con.execute("begin transaction")
    con.execute("delete from scrapes where scrape_id = ?", [scrape_id])
    con.execute("delete from fetches where scrape_id = ?", [scrape_id])
    con.execute(
        "insert into scrapes (scrape_id, provider, run_id, mode, source, started_at, status)"
        " values (?, ?, ?, ?, ?, ?, 'running')",
        [scrape_id, provider, run_id, mode, source, datetime.now(UTC)],
    )
    if fetches:  # duckdb's executemany rejects an empty parameter list
        con.executemany(
            "insert into fetches values (?, ?, ?, ?, ?, ?, ?)",
            [
                [scrape_id, i, f.method, f.url, f.status, f.fetched_at, f.sha256]
                for i, f in enumerate(fetches)
            ],
        )
    con.execute("commit")
    return True


def fail_scrape(con: duckdb.DuckDBPyConnection, scrape_id: str, error: str) -> None:
    con.execute(
        "update scrapes set status = 'failed', error = ?, finished_at = ? where scrape_id = ?",
        [error[:2000], datetime.now(UTC), scrape_id],
    )


def record_skip(
    con: duckdb.DuckDBPyConnection, *, provider: str, run_id: str | None, reason: str
) -> None:
    now = datetime.now(UTC)
    con.execute(
        "insert into scrapes (scrape_id, provider, run_id, mode, source, started_at, finished_at,"
        " status, error) values (?, ?, ?, 'live', 'live', ?, ?, 'skipped', ?)",
        [f"skip-{provider}-{now.timestamp():.6f}", provider, run_id, now, now, reason],
    )


@dataclass
class Validation:
    """What the asset checks look at, computed before anything is committed.

    Empty scrapes, non-positive prices (also one that is positive only before rounding to what
    the warehouse stores, or below ``MIN_PRICE_PER_HOUR_USD`` per instance-hour) and offers
    observed in the future reject the scrape (``ok`` is False). A GPU name the
    canonical table does not know is a warning, not a rejection: the offer's price is still
    right, so it is loaded with ``gpu_id`` null (served without specs) and the provider's
    ``gpus_resolve`` check goes red until the alias or GPU row is added. Rejecting instead would
    freeze a provider's whole price list every time it launches a new GPU.
    """

    offer_count: int = 0
    non_positive_prices: list[str] = field(default_factory=list)
    # observed later than now plus the allowed clock skew (warehouse.quality)
    future_observations: list[str] = field(default_factory=list)
    unresolved_gpus: list[str] = field(default_factory=list)
    # warning: the provider's memory figure is more than VRAM_REPORT_TOLERANCE away from the
    # canonical GPU's datasheet (served: the datasheet figure; kept: vram_gb_reported)
    vram_mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            self.offer_count > 0 and not self.non_positive_prices and not self.future_observations
        )

    def problems(self) -> list[str]:
        out = []
        if self.offer_count == 0:
            out.append("no offers parsed")
        if self.non_positive_prices:
            out.append(
                f"{len(self.non_positive_prices)} offers with price <= 0 (as stored, or under "
                f"{MIN_PRICE_PER_HOUR_USD} USD/h): " + ", ".join(self.non_positive_prices[:5])
            )
        if self.future_observations:
            out.append(
                f"{len(self.future_observations)} offers observed in the future: "
                + ", ".join(self.future_observations[:5])
            )
        if self.unresolved_gpus:
            out.append(unresolved_message(self.unresolved_gpus))
        return out


VRAM_REPORT_TOLERANCE = Decimal("0.10")


def vram_report_mismatch(reported_gb: Decimal, gpu_id: str) -> bool:
    """True if a provider's per-GPU memory figure is more than 10% away from the datasheet
    figure of ``gpu_id`` (MiB read as GB, or CPU and GPU memory added together). The same rule
    as ``current_offers.vram_report_mismatch``."""
    datasheet = Decimal(str(load_gpus()[gpu_id].vram_gb))
    return abs(reported_gb - datasheet) > VRAM_REPORT_TOLERANCE * datasheet


def unresolved_message(names: list[str]) -> str:
    return "GPU names not in the alias table: " + ", ".join(sorted(set(names))[:10])


def fx_rate(con: duckdb.DuckDBPyConnection, currency: str, on: date) -> tuple[Decimal, date | None]:
    """USD per unit of ``currency`` and the rate's date: the latest rate on or before ``on``,
    else the earliest. USD is (1, None): no conversion, so no rate date."""
    if currency == "USD":
        return Decimal(1), None
    row = con.execute(
        "select usd_per_unit, rate_date from fx_rates where currency = ?"
        " order by (rate_date <= ?) desc, case when rate_date <= ? then rate_date end desc,"
        " rate_date asc limit 1",
        [currency, on, on],
    ).fetchone()
    if row is None:
        raise LoadError(f"no exchange rate for {currency}; add it to warehouse/seeds/fx_rates.csv")
    return Decimal(row[0]), row[1]


def prepare(
    con: duckdb.DuckDBPyConnection,
    offers: Sequence[Mapping[str, Any]],
    *,
    latest_observed_at: datetime | None = None,
) -> tuple[list[dict[str, Any]], Validation]:
    """Resolve GPUs, normalise prices and validate, without writing anything.

    Prices are judged as stored: rounded to the columns' scale (``price`` 9 decimals, per-hour
    figures 6). An offer observed after ``latest_observed_at`` (default: now plus the allowed
    clock skew, ``warehouse.quality.latest_plausible_observation``) is a validation problem."""
    latest = latest_observed_at or latest_plausible_observation()
    validation = Validation(offer_count=len(offers))
    rows: dict[str, dict[str, Any]] = {}
    fx_cache: dict[tuple[str, date], tuple[Decimal, date | None]] = {}
    for offer in offers:
        row = dict(offer)
        row["offer_id"] = offer_id(
            row["provider"],
            row["instance_type"],
            row["region"],
            str(row["pricing"]),
            row.get("reserved_term_months"),
        )
        vram = row.get("vram_gb_reported")
        row["gpu_id"] = resolve(row["gpu_name"], float(vram) if vram is not None else None)
        if row["gpu_id"] is None:
            validation.unresolved_gpus.append(row["gpu_name"])
        elif vram is not None and vram_report_mismatch(Decimal(vram), row["gpu_id"]):
            validation.vram_mismatches.append(
                f"{row['instance_type']}: {row['gpu_name']} reported {vram} GB, datasheet "
                f"{load_gpus()[row['gpu_id']].vram_gb:g} GB"
            )
        if row["observed_at"] > latest:
            validation.future_observations.append(
                f"{row['instance_type']} {row['observed_at'].astimezone(UTC):%Y-%m-%dT%H:%MZ}"
            )
            continue
        if row["price"] <= 0 or Decimal(row["price"]).quantize(_PRICE_QUANTUM) <= 0:
            validation.non_positive_prices.append(f"{row['instance_type']} {row['price']}")
            continue
        hourly = price_per_hour(
            row["price"], str(row["price_unit"]), str(row["price_per"]), row["gpu_count"]
        )
        day = row["observed_at"].astimezone(UTC).date()
        if (row["currency"], day) not in fx_cache:
            fx_cache[(row["currency"], day)] = fx_rate(con, row["currency"], day)
        usd_per_unit, rate_date = fx_cache[(row["currency"], day)]
        row["price_per_hour"] = quantize_money(hourly)
        row["usd_per_unit"] = usd_per_unit
        row["fx_rate_date"] = rate_date
        row["price_per_hour_usd"] = quantize_money(to_usd(hourly, usd_per_unit))
        # judged as stored: $3.64/h mis-read as $0.0000001/h rounds to 0.000000 (issue 15)
        if row["price_per_hour"] <= 0 or row["price_per_hour_usd"] < MIN_PRICE_PER_HOUR_USD:
            validation.non_positive_prices.append(
                f"{row['instance_type']} {row['price']} ({row['price_per_hour_usd']} USD/h)"
            )
            continue
        previous = rows.get(row["offer_id"])
        if previous is not None and _history_values(previous) != _history_values(row):
            raise LoadError(
                f"two different prices for one offer: {row['instance_type']} {row['region']} "
                f"{row['pricing']}: {previous['price']} vs {row['price']}"
            )
        rows[row["offer_id"]] = row
    return list(rows.values()), validation


def _history_values(row: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(row[k] for k in _HISTORY_KEY)


# Column order of the observations table as the loaders write it (shared with warehouse.batch).
OBSERVATION_COLUMNS = [
    "scrape_id",
    "offer_id",
    "provider",
    "instance_type",
    "region",
    "pricing",
    "reserved_term_months",
    "gpu_name",
    "gpu_id",
    "gpu_count",
    "vram_gb_reported",
    "vcpus",
    "ram_gb",
    "storage_gb",
    "price",
    "currency",
    "price_unit",
    "price_per",
    "serverless",
    "source_url",
    "observed_at",
    "price_per_hour",
    "usd_per_unit",
    "fx_rate_date",
    "price_per_hour_usd",
    "offered",
]


def commit_scrape(
    con: duckdb.DuckDBPyConnection,
    *,
    scrape_id: str,
    provider: str,
    observed_at: datetime,
    rows: Sequence[Mapping[str, Any]],
    observed_precision: str = "second",
    exclusions: Mapping[str, int] | None = None,
    skipped_parts: Mapping[str, str] | None = None,
) -> dict[str, int]:
    """Write observations and history for a validated scrape, and mark it successful, atomically.

    ``observed_precision`` ("second", "minute", "day", "month") says how much of ``observed_at``
    is known: a capture dated only to a month is observed at the month's first instant.
    ``exclusions`` (reason -> rows the parser left out) and ``skipped_parts`` (part -> the error
    of a request that failed alone) are stored with the scrape."""
    con.execute("begin transaction")
    try:
        bulk_insert(
            con,
            "observations",
            OBSERVATION_COLUMNS,
            [
                [
                    scrape_id if c == "scrape_id" else _sql_value(r.get(c))
                    for c in OBSERVATION_COLUMNS
                ]
                for r in rows
            ],
        )
        changes = apply_history(
            con, scrape_id=scrape_id, provider=provider, observed_at=observed_at
        )
        excluded = sorted((reason, n) for reason, n in (exclusions or {}).items() if n > 0)
        bulk_insert(
            con,
            "scrape_exclusions",
            ["scrape_id", "provider", "reason", "row_count"],
            [[scrape_id, provider, reason, n] for reason, n in excluded],
        )
        bulk_insert(
            con,
            "scrape_skipped_parts",
            ["scrape_id", "provider", "part", "error"],
            [[scrape_id, provider, p, err] for p, err in sorted((skipped_parts or {}).items())],
        )
        con.execute(
            "update scrapes set status = 'success', observed_at = ?, finished_at = ?,"
            " offer_count = ?, observed_precision = ?"
            " where scrape_id = ?",
            [observed_at, datetime.now(UTC), len(rows), observed_precision, scrape_id],
        )
        con.execute("commit")
    except Exception:
        con.execute("rollback")
        raise
    return changes


def _sql_value(value: Any) -> Any:
    return value.value if hasattr(value, "value") and not isinstance(value, Decimal) else value


def apply_history(
    con: duckdb.DuckDBPyConnection, *, scrape_id: str, provider: str, observed_at: datetime
) -> dict[str, int]:
    """Collapse a scrape into change intervals (runs inside the caller's transaction).

    Offers whose price or shape changed, or that the scrape no longer lists, get their open
    interval closed at ``observed_at``; changed and new offers get a new open interval. A scrape
    older than the provider's newest history point only adds observations (history is built
    forward in time); unchanged offers write nothing. The set-based implementation, shared with
    batch loads and the history importers, is ``warehouse.history.apply_batch``.
    """
    return apply_scrape_history(
        con, scrape_id=scrape_id, provider=provider, observed_at=observed_at
    )
