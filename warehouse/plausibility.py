"""The plausibility screen over the warehouse: what it reads of the market, and the verdicts it
stores in ``price_screens`` (the rules themselves: ``warehouse.plausibility_rules``).

``screen_current`` screens the whole current market after a derived build; ``screen_scrape`` one
provider's prepared rows against the other providers' current offers, before its scrape commits.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import duckdb

from warehouse.plausibility_rules import OK, SUSPECT, MarketOffer, Reason, screen

__all__ = ["OK", "SUSPECT", "MarketOffer", "Reason", "screen", "screen_current", "screen_scrape"]


# What the screen reads of current_offers (also: the columns a build must have to be read).
_MARKET_COLUMNS = (
    "offer_id",
    "scrape_id",
    "provider",
    "instance_type",
    "region",
    "cloud_tier",
    "pricing",
    "gpu_id",
    "gpu_name_provider",
    "gpu_count",
    "vram_gb_per_gpu",
    "price",
    "currency",
    "price_unit",
    "price_per",
    "price_per_hour_usd",
    "price_per_gpu_hour_usd",
    "offered",
    "serverless",
    "observed_at",
)
# columns: code constants
_CURRENT_SQL = "select " + ", ".join(_MARKET_COLUMNS) + " from current_offers"

# The newest earlier flag of each (offer, price) that the screened scrapes do not flag.
_EARLIER_FLAGS_SQL = """
    select o.offer_id, o.price, arg_max(o.offered, o.observed_at) as offered
    from observations as o
    inner join (select unnest(?) as offer_id, unnest(?) as observed_before) as c
        on o.offer_id = c.offer_id
    where o.offered is not null and o.observed_at < c.observed_before
    group by o.offer_id, o.price
"""


def _market_offer(
    row: Mapping[str, Any], earlier: Mapping[tuple[str, Decimal], bool]
) -> MarketOffer:
    price = Decimal(row["price"])
    return MarketOffer(
        offer_id=row["offer_id"],
        scrape_id=row["scrape_id"],
        provider=row["provider"],
        instance_type=row["instance_type"],
        region=row["region"],
        cloud_tier=row.get("cloud_tier"),
        pricing=str(row["pricing"]),
        gpu_id=row["gpu_id"],
        gpu_name_provider=row["gpu_name_provider"],
        gpu_count=Decimal(row["gpu_count"]),
        vram_gb_per_gpu=None if row["vram_gb_per_gpu"] is None else Decimal(row["vram_gb_per_gpu"]),
        price=price,
        currency=row["currency"],
        price_unit=str(row["price_unit"]),
        price_per=str(row["price_per"]),
        price_per_hour_usd=Decimal(row["price_per_hour_usd"]),
        # current_offers serves it as DOUBLE: its shortest text is the stored 6-decimal figure
        price_per_gpu_hour_usd=Decimal(str(row["price_per_gpu_hour_usd"])),
        offered=row.get("offered"),
        earlier_offered=earlier.get((row["offer_id"], price)),
        serverless=bool(row.get("serverless")),
    )


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> list[dict]:
    cursor = con.execute(sql, params or [])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]


def _earlier_flags(
    con: duckdb.DuckDBPyConnection, rows: Sequence[Mapping[str, Any]]
) -> dict[tuple[str, Decimal], bool]:
    """For the rows without a flag: the newest flag of the same offer and price observed before
    the row itself, by (offer_id, price). One query for any number of scrapes."""
    unflagged = [r for r in rows if r.get("offered") is None]
    if not unflagged:
        return {}
    return {
        (offer_id, Decimal(price)): bool(offered)
        for offer_id, price, offered in con.execute(
            _EARLIER_FLAGS_SQL,
            [[r["offer_id"] for r in unflagged], [r["observed_at"] for r in unflagged]],
        ).fetchall()
    }


def _store(
    con: duckdb.DuckDBPyConnection,
    offers: Sequence[MarketOffer],
    verdicts: Mapping[str, list[Reason]],
    now: datetime,
) -> bool:
    """Upsert one verdict per (scrape_id, offer_id); True if any stored verdict changed."""
    rows = [
        [
            o.scrape_id,
            o.offer_id,
            o.provider,
            SUSPECT if o.offer_id in verdicts else OK,
            json.dumps([r.as_dict() for r in verdicts.get(o.offer_id, [])]),
            now,
        ]
        for o in offers
    ]
    if not rows:
        return False
    keys = [[r[0] for r in rows], [r[1] for r in rows]]
    before = {
        (s, o): (status, reasons)
        for s, o, status, reasons in con.execute(
            "select scrape_id, offer_id, price_status, reasons from price_screens"
            " where (scrape_id, offer_id) in (select unnest(?), unnest(?))",
            keys,
        ).fetchall()
    }
    changed = any(before.get((r[0], r[1])) != (r[3], r[4]) for r in rows)
    if changed:
        con.execute(
            "delete from price_screens where (scrape_id, offer_id) in"
            " (select unnest(?), unnest(?))",
            keys,
        )
        con.execute(
            "insert into price_screens select unnest(?), unnest(?), unnest(?), unnest(?),"
            " unnest(?), unnest(?)",
            [list(c) for c in zip(*rows, strict=True)],
        )
    return changed


def screen_current(con: duckdb.DuckDBPyConnection, *, now: datetime | None = None) -> bool:
    """Screen the whole current market (``current_offers``) and store the verdicts.

    Runs inside the caller's transaction. Returns True if a stored verdict changed (the caller
    then rebuilds ``current_offers`` to carry it).
    """
    now = now or datetime.now(UTC)
    rows = _rows(con, _CURRENT_SQL)
    earlier = _earlier_flags(con, rows)
    offers = [_market_offer(r, earlier) for r in rows]
    return _store(con, offers, screen(offers), now)


def screen_scrape(
    con: duckdb.DuckDBPyConnection,
    *,
    scrape_id: str,
    provider: str,
    rows: Sequence[Mapping[str, Any]],
    store: bool = True,
) -> dict[str, list[Reason]]:
    """Screen one provider's prepared rows (``warehouse.load.prepare``) against the other
    providers' current offers; returns the reasons per suspect offer of ``rows`` and (``store``)
    records the verdicts of this scrape in ``price_screens``.

    Before the first derived build there is no market: only the provider's own rules apply.
    """
    market: list[MarketOffer] = []
    built = {
        r[0]
        for r in con.execute(
            "select column_name from information_schema.columns where table_name = 'current_offers'"
        ).fetchall()
    }
    # no derived build yet, or one from before migration 0005/0018 (upgrade): no market to
    # compare
    if built >= set(_MARKET_COLUMNS):
        others = [r for r in _rows(con, _CURRENT_SQL) if r["provider"] != provider]
        market = [_market_offer(r, {}) for r in others]
    gpus = {
        gpu_id: Decimal(vram)
        for gpu_id, vram in con.execute("select gpu_id, vram_gb from gpus").fetchall()
    }
    own_rows = [
        {
            **r,
            "scrape_id": scrape_id,
            "vram_gb_per_gpu": gpus.get(r.get("gpu_id") or ""),
        }
        for r in rows
    ]
    earlier = _earlier_flags(con, own_rows)
    own = [_market_offer(r, earlier) for r in own_rows]
    verdicts = {k: v for k, v in screen([*market, *own]).items() if k in {o.offer_id for o in own}}
    if store:
        _store(con, own, verdicts, datetime.now(UTC))
    return verdicts
