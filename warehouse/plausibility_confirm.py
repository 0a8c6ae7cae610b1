"""Confirmation of prices the plausibility screen's value rules question
(``price_status = 'confirmed'``, migration 0021).

The rule (also in ``warehouse.plausibility_rules``, docs/history.md): an offer whose every
screen reason is a value rule (``plausibility_rules.CONFIRMABLE``: ``below_market``,
``above_market``, ``repeated_price``) is *confirmed* when the same offer at the same quoted
price (amount, currency, unit, basis) was

- observed by a successful scrape of its provider on another UTC calendar date (an observed,
  not announced, ``offer_history`` interval of that price first or last seen on a day other
  than the screened observation's), or
- read off another source document of the provider (an observation of another scrape with a
  different ``source_url``: an API and a web page are independent reads).

Either direction counts: a later capture confirms the earlier observation as well as the
earlier one confirms the later, so ``confirm_stored`` re-judges stored suspect verdicts after
every run (a history interval opened by a price judged suspect then feeds the rollups again).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import NamedTuple

import duckdb

from warehouse.plausibility_rules import CONFIRMED, Reason, confirmable

CONFIRMATION_CODE = "confirmed"


class Screened(NamedTuple):
    """One observation whose price a confirmation is looked up for."""

    scrape_id: str
    offer_id: str
    price: Decimal  # as quoted
    currency: str
    price_unit: str
    price_per: str
    observed_at: datetime
    source_url: str  # "": not known (no independent-source lookup)


_CONFIRM_SQL = """
with screened as (
    select
        unnest(?) as k, unnest(?) as scrape_id, unnest(?) as offer_id,
        unnest(?)::decimal(18, 9) as price, unnest(?) as currency, unnest(?) as price_unit,
        unnest(?) as price_per, unnest(?)::timestamptz as observed_at, unnest(?) as source_url
),

-- the UTC days each observed interval of the same offer and price was first and last seen
seen_days as (
    select
        s.k,
        timezone('UTC', s.observed_at)::date as own_day,
        unnest([
            timezone('UTC', h.valid_from)::date,
            timezone('UTC', coalesce(h.last_seen_at, h.valid_from))::date
        ]) as day
    from screened as s
    inner join offer_history as h
        on h.offer_id = s.offer_id and h.price = s.price and h.currency = s.currency
    where
        h.source = 'scrape'
        and not coalesce(h.announced, false)
        and coalesce(h.price_unit, s.price_unit) = s.price_unit
        and coalesce(h.price_per, s.price_per) = s.price_per
),

other_day as (
    select k, min(day) as day from seen_days where day <> own_day group by k
),

-- the same price read off another document by another successful scrape
other_source as (
    select s.k, min(o.source_url) as source_url
    from screened as s
    inner join observations as o
        on
            o.offer_id = s.offer_id and o.price = s.price and o.currency = s.currency
            and o.price_unit = s.price_unit and o.price_per = s.price_per
    inner join scrapes as x on o.scrape_id = x.scrape_id
    where
        x.status = 'success' and o.scrape_id <> s.scrape_id and s.source_url <> ''
        and o.source_url <> s.source_url
    group by s.k
)

select s.k, d.day, u.source_url
from screened as s
left join other_day as d on s.k = d.k
left join other_source as u on s.k = u.k
where d.day is not null or u.source_url is not null
"""


def confirmations(
    con: duckdb.DuckDBPyConnection, screened: Sequence[Screened]
) -> dict[int, Reason]:
    """The confirmation of each observation of ``screened`` that has one, by its position."""
    if not screened:
        return {}
    columns = [list(c) for c in zip(*screened, strict=True)]
    columns[2] = [str(p) for p in columns[2]]  # exact decimals, whatever their scale
    found = con.execute(_CONFIRM_SQL, [list(range(len(screened))), *columns]).fetchall()
    out: dict[int, Reason] = {}
    for k, day, source_url in found:
        said = []
        if day is not None:
            said.append(f"the same price was also observed on {day.isoformat()}")
        if source_url is not None:
            said.append(f"the same price was also read off {source_url}")
        out[k] = Reason(CONFIRMATION_CODE, "; ".join(said))
    return out


# Stored suspect verdicts, with the observed price each judged: the observation while it is
# kept (retention), else the scrape's history interval of the offer.
_STORED_SUSPECT_SQL = """
select
    ps.scrape_id, ps.offer_id, ps.reasons,
    coalesce(o.price, h.price) as price, coalesce(o.currency, h.currency) as currency,
    coalesce(o.price_unit, h.price_unit) as price_unit,
    coalesce(o.price_per, h.price_per) as price_per, s.observed_at,
    coalesce(o.source_url, '') as source_url
from price_screens as ps
inner join scrapes as s on ps.scrape_id = s.scrape_id
left join observations as o on ps.scrape_id = o.scrape_id and ps.offer_id = o.offer_id
left join offer_history as h
    on
        h.offer_id = ps.offer_id and h.source = 'scrape' and not coalesce(h.announced, false)
        and h.valid_from <= s.observed_at and (h.valid_to is null or s.observed_at < h.valid_to)
where ps.price_status = 'suspect'
qualify row_number() over (partition by ps.scrape_id, ps.offer_id order by h.valid_from desc) = 1
"""


def confirm_stored(con: duckdb.DuckDBPyConnection, now: datetime) -> bool:
    """Re-judge every stored suspect verdict of value rules only: ``confirmed`` when another
    capture confirms its price now. Runs inside the caller's transaction; returns True if a
    verdict changed."""
    candidates = []
    for scrape_id, offer_id, reasons, price, currency, unit, per, observed_at, url in con.execute(
        _STORED_SUSPECT_SQL
    ).fetchall():
        found = [Reason(r["code"], r["detail"]) for r in json.loads(reasons)]
        if price is None or unit is None or per is None or not confirmable(found):
            continue
        candidates.append(
            (Screened(scrape_id, offer_id, price, currency, unit, per, observed_at, url), found)
        )
    confirmed = confirmations(con, [c for c, _ in candidates])
    rows = [
        [
            CONFIRMED,
            json.dumps([r.as_dict() for r in [*found, confirmed[k]]]),
            now,
            screened.scrape_id,
            screened.offer_id,
        ]
        for k, (screened, found) in enumerate(candidates)
        if k in confirmed
    ]
    if rows:
        con.executemany(
            "update price_screens set price_status = ?, reasons = ?, screened_at = ?"
            " where scrape_id = ? and offer_id = ?",
            rows,
        )
    return bool(rows)
