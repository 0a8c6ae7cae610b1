"""How long a price stays in force after it was observed: its shelf life, per kind of price.

A price is only worth ranking while the provider can still be expected to charge it. How long
that is depends on what kind of price it is, not on the provider's scrape schedule:

- ``dynamic``: a price the provider resets from day to day (DataCrunch's "dynamic" pricing):
  2 days;
- ``spot`` and ``marketplace``: interruptible capacity, host bids and server auctions (Vast.ai,
  Akash, Hetzner's server auction), which move with supply: 30 days;
- ``on_demand``, ``reserved`` and ``serverless``: list prices, which change a few times a year:
  180 days.

An offer *expires* ``shelf_life_days`` after its ``observed_at`` (``expires_at``); from then on it
is ``expired`` and every answer that lists or ranks offers leaves it out unless asked
(``include_expired=true``), and the daily history (rollup, medians, market index) stops using it.
The figures are settings (``GPUPRICES_SHELF_LIFE_DAYS_<KIND>``); the pipeline writes them into
the ``shelf_lives`` table of the warehouse on every run, and every snapshot carries that table,
so an answer can say which rule left an offer out.

The kind of a price is the ``price_kind(pricing, serverless, provider_kind)`` SQL macro
(``warehouse/views/price_kind.sql``), the one place the rule is written.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

import duckdb


class PriceKind(enum.StrEnum):
    DYNAMIC = "dynamic"
    SPOT = "spot"
    MARKETPLACE = "marketplace"
    ON_DEMAND = "on_demand"
    RESERVED = "reserved"
    SERVERLESS = "serverless"


DEFAULT_SHELF_LIFE_DAYS: Mapping[PriceKind, float] = {
    PriceKind.DYNAMIC: 2.0,
    PriceKind.SPOT: 30.0,
    PriceKind.MARKETPLACE: 30.0,
    PriceKind.ON_DEMAND: 180.0,
    PriceKind.RESERVED: 180.0,
    PriceKind.SERVERLESS: 180.0,
}

# What each kind means, for the answers that say why an offer was left out.
DESCRIPTIONS: Mapping[PriceKind, str] = {
    PriceKind.DYNAMIC: "a price the provider resets from day to day",
    PriceKind.SPOT: "an interruptible (spot) price",
    PriceKind.MARKETPLACE: "a marketplace listing, bid or auction price",
    PriceKind.ON_DEMAND: "an on-demand list price",
    PriceKind.RESERVED: "a reserved-term list price",
    PriceKind.SERVERLESS: "a serverless list price",
}

TABLE = "shelf_lives"


def shelf_lives(days: Mapping[str, float] | None = None) -> dict[PriceKind, float]:
    """Every kind's shelf life in days: ``days`` (keys are kind names) over the defaults.

    Raises ``ValueError`` for an unknown kind or a negative or non-finite figure.
    """
    merged = dict(DEFAULT_SHELF_LIFE_DAYS)
    for name, value in (days or {}).items():
        kind = PriceKind(name)
        figure = float(value)
        if not (0 <= figure < float("inf")):
            raise ValueError(f"shelf life of {kind} prices must be >= 0 days, got {value!r}")
        merged[kind] = figure
    return merged


def write_shelf_lives(con: duckdb.DuckDBPyConnection, days: Mapping[str, float] | None) -> None:
    """Replace ``shelf_lives`` (price_kind, shelf_life_days, description) with ``days`` over the
    defaults, inside the caller's transaction."""
    rows = [[str(k), v, DESCRIPTIONS[k]] for k, v in shelf_lives(days).items()]
    con.execute(
        f"create or replace table {TABLE} (price_kind varchar primary key,"
        " shelf_life_days double not null, description varchar not null)"
    )
    con.executemany(f"insert into {TABLE} values (?, ?, ?)", rows)
