"""The plausibility screen over the warehouse: what it reads of the market, and the verdicts it
stores in ``price_screens`` (the rules themselves: ``warehouse.plausibility_rules``).

``screen_current`` screens the whole current market after a derived build; ``screen_scrape`` one
provider's prepared rows against the other providers' current offers, before its scrape commits.
A price whose reasons are value rules only is stored ``confirmed`` when another capture confirms
it (``warehouse.plausibility_confirm``); ``screen_current`` also re-judges stored suspect verdicts
that a later capture now confirms.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import duckdb

from warehouse.plausibility_confirm import Screened, confirm_stored, confirmations
from warehouse.plausibility_rules import (
    CONFIRMED,
    OK,
    SUSPECT,
    MarketOffer,
    Reason,
    confirmable,
    screen,
    status,
)
from warehouse.records import Observation

__all__ = [
    "CONFIRMED",
    "OK",
    "SUSPECT",
    "MarketOffer",
    "Reason",
    "screen",
    "screen_current",
    "screen_scrape",
]


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
    "source_url",
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
        observed_at=row.get("observed_at"),
        source_url=str(row.get("source_url") or ""),
    )


def _own_offer(
    row: Observation,
    scrape_id: str,
    vram_gb_per_gpu: Decimal | None,
    earlier: Mapping[tuple[str, Decimal], bool],
) -> MarketOffer:
    """What the screen reads of one prepared observation of the scrape ``scrape_id``
    (``vram_gb_per_gpu``: the canonical GPU's datasheet figure)."""
    price = Decimal(row.price)
    return MarketOffer(
        offer_id=row.offer_id,
        scrape_id=scrape_id,
        provider=row.provider,
        instance_type=row.instance_type,
        region=row.region,
        cloud_tier=row.cloud_tier,
        pricing=str(row.pricing),
        gpu_id=row.gpu_id,
        gpu_name_provider=row.gpu_name_provider,
        gpu_count=Decimal(row.gpu_count),
        vram_gb_per_gpu=vram_gb_per_gpu,
        price=price,
        currency=row.currency,
        price_unit=str(row.price_unit),
        price_per=str(row.price_per),
        price_per_hour_usd=Decimal(row.price_per_hour_usd),
        price_per_gpu_hour_usd=Decimal(str(row.price_per_gpu_hour_usd)),
        offered=row.offered,
        earlier_offered=earlier.get((row.offer_id, price)),
        serverless=bool(row.serverless),
        observed_at=row.observed_at,
        source_url=str(row.source_url or ""),
    )


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> list[dict]:
    cursor = con.execute(sql, params or [])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]


# Past the observations' retention the stored verdicts remember the flag: the newest earlier
# verdict of the same offer at the same price (its history interval's) said not_offered or not.
_EARLIER_VERDICTS_SQL = """
    select
        c.offer_id, c.price,
        arg_max(
            list_contains(json_extract_string(ps.reasons, '$[*].code'), 'not_offered'),
            s.observed_at
        ) as not_offered
    from (
        select unnest(?) as offer_id, unnest(?)::decimal(18, 9) as price,
            unnest(?)::timestamptz as observed_before
    ) as c
    inner join price_screens as ps on ps.offer_id = c.offer_id
    inner join scrapes as s on ps.scrape_id = s.scrape_id
    inner join offer_history as h
        on
            h.offer_id = c.offer_id and h.source = 'scrape' and h.price = c.price
            and h.valid_from <= s.observed_at
            and (h.valid_to is null or s.observed_at < h.valid_to)
    where s.status = 'success' and s.observed_at < c.observed_before
    group by c.offer_id, c.price
"""


@dataclass(frozen=True)
class _Unflagged:
    """An offer whose response says nothing of being offered: its earlier flag is looked up."""

    offer_id: str
    price: Decimal
    observed_at: datetime


def _earlier_flags(
    con: duckdb.DuckDBPyConnection, unflagged: Sequence[_Unflagged]
) -> dict[tuple[str, Decimal], bool]:
    """For offers without a flag: the newest flag of the same offer and price observed before
    the offer itself, by (offer_id, price); past the observations' retention, False where the
    newest earlier stored verdict of that price said not_offered. One query each for any
    number of scrapes."""
    if not unflagged:
        return {}
    flags = {
        (offer_id, Decimal(price)): bool(offered)
        for offer_id, price, offered in con.execute(
            _EARLIER_FLAGS_SQL,
            [[r.offer_id for r in unflagged], [r.observed_at for r in unflagged]],
        ).fetchall()
    }
    rest = [r for r in unflagged if (r.offer_id, r.price) not in flags]
    if rest:
        for offer_id, price, not_offered in con.execute(
            _EARLIER_VERDICTS_SQL,
            [
                [r.offer_id for r in rest],
                [str(r.price) for r in rest],
                [r.observed_at for r in rest],
            ],
        ).fetchall():
            if not_offered:
                flags[(offer_id, Decimal(price))] = False
    return flags


def _confirmed(
    con: duckdb.DuckDBPyConnection,
    offers: Sequence[MarketOffer],
    verdicts: Mapping[str, list[Reason]],
) -> dict[str, Reason]:
    """The confirmation of each offer whose reasons a confirming capture clears, by offer_id."""
    candidates = [
        Screened(
            o.scrape_id,
            o.offer_id,
            o.price,
            o.currency,
            o.price_unit,
            o.price_per,
            o.observed_at,
            o.source_url,
        )
        for o in offers
        if o.observed_at is not None and confirmable(verdicts.get(o.offer_id, []))
    ]
    found = confirmations(con, candidates)
    return {candidates[k].offer_id: reason for k, reason in found.items()}


def _store(
    con: duckdb.DuckDBPyConnection,
    offers: Sequence[MarketOffer],
    verdicts: Mapping[str, list[Reason]],
    confirmed: Mapping[str, Reason],
    now: datetime,
) -> bool:
    """Upsert one verdict per (scrape_id, offer_id); True if any stored verdict changed."""
    rows = []
    for o in offers:
        reasons = verdicts.get(o.offer_id, [])
        confirmation = confirmed.get(o.offer_id)
        said = status(reasons, confirmation)
        if said == CONFIRMED and confirmation is not None:
            reasons = [*reasons, confirmation]
        rows.append(
            [
                o.scrape_id,
                o.offer_id,
                o.provider,
                said,
                json.dumps([r.as_dict() for r in reasons]),
                now,
            ]
        )
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
    then rebuilds ``current_offers`` to carry it). Then every stored suspect verdict of value
    rules only that another capture now confirms becomes ``confirmed`` (history included).
    """
    now = now or datetime.now(UTC)
    rows = _rows(con, _CURRENT_SQL)
    unflagged = [
        _Unflagged(r["offer_id"], Decimal(r["price"]), r["observed_at"])
        for r in rows
        if r.get("offered") is None
    ]
    earlier = _earlier_flags(con, unflagged)
    offers = [_market_offer(r, earlier) for r in rows]
    verdicts = screen(offers)
    changed = _store(con, offers, verdicts, _confirmed(con, offers, verdicts), now)
    return confirm_stored(con, now) or changed


def screen_scrape(
    con: duckdb.DuckDBPyConnection,
    *,
    scrape_id: str,
    provider: str,
    rows: Sequence[Observation],
    store: bool = True,
) -> dict[str, list[Reason]]:
    """Screen one provider's prepared rows (``warehouse.load.prepare``) against the other
    providers' current offers; returns the reasons per suspect offer of ``rows`` (a confirmed
    one is not suspect) and (``store``) records the verdicts of this scrape in ``price_screens``.

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
    earlier = _earlier_flags(
        con,
        [
            _Unflagged(r.offer_id, Decimal(r.price), r.observed_at)
            for r in rows
            if r.offered is None
        ],
    )
    own = [_own_offer(r, scrape_id, gpus.get(r.gpu_id or ""), earlier) for r in rows]
    verdicts = {k: v for k, v in screen([*market, *own]).items() if k in {o.offer_id for o in own}}
    confirmed = _confirmed(con, own, verdicts)
    if store:
        _store(con, own, verdicts, confirmed, datetime.now(UTC))
    return {k: v for k, v in verdicts.items() if status(v, confirmed.get(k)) == SUSPECT}
