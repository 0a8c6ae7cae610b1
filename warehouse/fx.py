"""Storing exchange rates: live reference rates beside the seeded fallback in ``fx_rates``.

``fx_rates`` holds USD per unit of a currency per date. Seeded rows carry ``seed:<url>`` as
their source and are replaced from ``seeds/fx_rates.csv`` on every run; live rows (source
``ecb``) are kept, so the loader (``warehouse.load.fx_rate``: latest rate on or before the
observation date) uses the newest live rate once one exists and the seeded table before that.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from decimal import Decimal

import duckdb

from warehouse.db import bulk_insert

LIVE_SOURCE = "ecb"
_RATE_QUANTUM = Decimal("0.00000001")  # fx_rates.usd_per_unit is decimal(18, 8)


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
    con.execute("begin transaction")
    try:
        con.execute(
            "delete from fx_rates where rate_date = ? and currency in (select unnest(?))",
            [rate_date, [r[1] for r in rows]],
        )
        bulk_insert(con, "fx_rates", ["rate_date", "currency", "usd_per_unit", "source"], rows)
        con.execute("commit")
    except Exception:
        con.execute("rollback")
        raise
    return len(rows)
