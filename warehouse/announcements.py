"""Announced prices in ``offer_history``: the step of ``history.apply_batch`` that writes them.

An observation may carry a price its source announces from a later date (``announced_price``,
``announced_from``). History stores it as the offer's next interval, valid from that date,
``announced = true``; the interval before it ends there. The rules (docs/history.md,
"Announced prices"), per offer, over its provider's applied scrapes in time order (a partial
scrape that does not list the offer says nothing about it, as for any price):

- **pending**: the newest scrape's announcement opens ``[announced_from, null)``, its
  ``last_seen_at`` = ``valid_from`` (no scrape has seen it; the announcing one states it for
  that instant);
- **repeated**: a later scrape before the date showing the same announcement (date, price,
  currency) changes nothing: the interval is the one the first announcing scrape wrote;
- **withdrawn**: a later scrape before the date that no longer shows it (or shows another date
  or price, or a full scrape that no longer lists the offer) takes the interval out of
  ``offer_history`` (the interval before it is open again) and records it in
  ``announcement_withdrawals``;
- **in force**: a scrape on or after the date is compared with the announced price like with
  any price: the same price confirms it (``last_seen_at`` advances, ``announced`` becomes
  false; no new interval), another price (the old one again, say) is a real change at that
  scrape, and the announced interval ``[announced_from, scrape)`` stays ``announced = true``.

How, with the interval rules of ``warehouse.history_sql`` unchanged: before the batch is
sequenced, :func:`retract` takes the provider's pending announced intervals out (so the scrapes
before their dates are in order and compare with the price in force); :func:`add_states` gives
each announcement that takes effect before the offer's next state (or after the last one) a
**partial pseudo-scrape** of its provider at its date listing the announced offers at their
announced prices, added to ``_history_seq`` and to the observed rows the interval rules read,
so they open, close and confirm it like any other price; :func:`settle` marks what those states
opened as announced, records withdrawals and confirms. All inside the caller's transaction.
"""

from __future__ import annotations

from typing import Any

import duckdb

from warehouse.records import (
    ANNOUNCEMENT_COLUMNS,
    ANNOUNCEMENT_WITHDRAWAL_COLUMNS,
    HISTORY_OBSERVATION_COLUMNS,
)

SEQUENCE = "_history_seq"  # warehouse.history_sql.SEQUENCE_SQL's table
STASH = "_announce_stash"  # the pending announced intervals taken out for the batch
STATES = "_announce_states"  # per offer with an announcement, its state at each scrape
INJECTED = "_announce_injected"  # the pseudo-scrapes' observation rows
OBSERVED = "_announce_observed"  # the batch's observed rows plus INJECTED (a view)
ANNOUNCED = "_announce_scrape"  # one stored scrape's announced prices (of_scrape)
# A pseudo-scrape's id: its provider, "#announced@", the date's epoch seconds
STATE_ID = "{p}.provider || '#announced@' || cast(epoch({p}.announced_from)::bigint as varchar)"
_NO_ANNOUNCEMENTS = (
    "(select null::varchar as scrape_id, null::varchar as offer_id,"
    " null::timestamptz as announced_from, null::decimal(18, 9) as announced_price,"
    " null::decimal(18, 6) as announced_price_per_hour,"
    " null::decimal(18, 6) as announced_price_per_hour_usd,"
    " null::decimal(18, 6) as announced_price_per_gpu_hour_usd limit 0)"
)

_RETRACT_SQL = """
create or replace temp table {stash} as
select h.*, s.observed_at as announced_at, p.last_seen_at as previous_last_seen_at
from offer_history as h
left join scrapes as s on h.scrape_id = s.scrape_id
left join offer_history as p
    on p.offer_id = h.offer_id and p.source = h.source and p.valid_to = h.valid_from
where h.source = $source and h.announced and h.valid_to is null
  and exists (
    -- a scrape of the batch before its date, after the scrape that announced it
    select 1 from {batch} as b
    where b.provider = h.provider and b.observed_at < h.valid_from
      and b.observed_at > coalesce(s.observed_at, '-infinity'::timestamptz))
"""

# Per offer with an announcement (pending before the batch: seq 0; or in an applied scrape),
# its state at each applied scrape of its provider after the announcing one that is full or
# lists it: the announcement it shows (null: none, or a full scrape without the offer), and
# its fate from the next state: 'effective' (no next state before the date: the date gets a
# pseudo-scrape), 'repeated' (the next state shows the same), 'withdrawn' (it does not).
_STATES_SQL = """
create or replace temp table {states} as
with announced as (
    select a.*, o.provider, o.currency
    from {announced} as a
    inner join {observed} as o on a.scrape_id = o.scrape_id and a.offer_id = o.offer_id
    semi join {seq} as r on a.scrape_id = r.scrape_id
),

universe as (
    select offer_id, provider, max(announced_at) as since
    from (
        select offer_id, provider, announced_at from {stash}
        union all
        select offer_id, provider, null from announced
    )
    group by offer_id, provider
),

states as (
    select offer_id, provider, 0::bigint as seq, announced_at as t, scrape_id,
           valid_from as announced_from, price as announced_price, currency,
           price_per_hour as announced_price_per_hour, price_per_hour_usd,
           price_per_gpu_hour_usd
    from {stash}
    union all
    select u.offer_id, u.provider, r.seq, r.observed_at, r.scrape_id, a.announced_from,
           a.announced_price, a.currency, a.announced_price_per_hour,
           a.announced_price_per_hour_usd, a.announced_price_per_gpu_hour_usd
    from universe as u
    inner join {seq} as r
        on u.provider = r.provider and r.observed_at > coalesce(u.since, '-infinity')
    left join {observed} as o on r.scrape_id = o.scrape_id and u.offer_id = o.offer_id
    left join announced as a on r.scrape_id = a.scrape_id and u.offer_id = a.offer_id
    where r.full_coverage or o.offer_id is not null
),

followed as (
    select
        *,
        lead(t) over w as next_t,
        lead(scrape_id) over w as next_scrape_id,
        coalesce(
            lag(announced_from) over w is not distinct from announced_from
            and lag(announced_price) over w is not distinct from announced_price
            and lag(currency) over w is not distinct from currency,
            false
        ) as repeats,
        coalesce(
            lead(announced_from) over w is not distinct from announced_from
            and lead(announced_price) over w is not distinct from announced_price
            and lead(currency) over w is not distinct from currency,
            false
        ) as repeated
    from states
    window w as (partition by offer_id order by seq)
),

chained as (
    select *, sum(case when repeats then 0 else 1 end) over w as chain
    from followed
    window w as (partition by offer_id order by seq rows unbounded preceding)
)

select
    *,
    first_value(scrape_id) over (partition by offer_id, chain order by seq) as first_scrape_id,
    case
        when announced_from is null then 'none'
        when next_t is null or announced_from < next_t then 'effective'
        when repeated then 'repeated'
        else 'withdrawn'
    end as fate
from chained
"""


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any] | None = None) -> Any:
    rows = con.execute(sql, params or {}).fetchall()
    return rows[0][0] if rows else None


def retract(con: duckdb.DuckDBPyConnection, *, source: str, batch: str) -> int:
    """Take out the pending announced intervals of the providers that a scrape in ``batch``
    (after the announcing scrape, before the date) may repeat or withdraw, reopening the
    interval before each. Runs before the batch is sequenced. Returns how many."""
    con.execute(_RETRACT_SQL.format(stash=STASH, batch=batch), {"source": source})
    count = int(_one(con, f"select count(*) from {STASH}") or 0)
    if count:
        con.execute(
            f"delete from offer_history as h using {STASH} as st"
            " where h.offer_id = st.offer_id and h.source = st.source"
            " and h.valid_from = st.valid_from"
        )
        con.execute(
            f"update offer_history as h set valid_to = null from {STASH} as st"
            " where h.offer_id = st.offer_id and h.source = st.source"
            " and h.valid_to = st.valid_from"
        )
    return count


def add_states(con: duckdb.DuckDBPyConnection, *, observed: str, announced: str | None) -> str:
    """Decide each announcement's fate (``STATES``); for those that take effect add a partial
    pseudo-scrape per provider and date to ``_history_seq`` (renumbering ``seq``) and return
    the observed rows to read with them (a view over ``observed`` and their rows; ``observed``
    itself when none takes effect). Runs after :func:`retract` and the batch's sequencing."""
    source = announced or _NO_ANNOUNCEMENTS
    con.execute(
        _STATES_SQL.format(
            states=STATES, announced=source, observed=observed, seq=SEQUENCE, stash=STASH
        )
    )
    if not _one(con, f"select count(*) from {STATES} where fate = 'effective'"):
        return observed
    # each state that takes effect, as an observation of its pseudo-scrape: the announcing
    # observation (or the retracted interval) with the announced figures
    replaced = {
        "scrape_id": STATE_ID.format(p="e"),
        "price": "e.announced_price",
        "price_per_hour": "e.announced_price_per_hour",
        "price_per_hour_usd": "e.price_per_hour_usd",
        "price_per_gpu_hour_usd": "e.price_per_gpu_hour_usd",
    }
    cols = HISTORY_OBSERVATION_COLUMNS
    columns = ", ".join(cols)
    chosen = ", ".join(f"{replaced.get(c, f'o.{c}')} as {c}" for c in cols)
    con.execute(f"""
        create or replace temp table {INJECTED} as
        select {chosen} from {STATES} as e
        inner join {observed} as o on e.scrape_id = o.scrape_id and e.offer_id = o.offer_id
        where e.fate = 'effective' and e.seq > 0
        union all
        select {", ".join(f"{replaced.get(c, f'st.{c}')} as {c}" for c in cols)}
        from {STATES} as e
        inner join {STASH} as st on e.offer_id = st.offer_id
        where e.fate = 'effective' and e.seq = 0
    """)
    con.execute(f"""
        create or replace temp view {OBSERVED} as
        select {columns} from {observed}
        union all
        select {columns} from {INJECTED}
    """)
    # a pseudo-scrape comes before a real scrape at the same instant (which saw the page then)
    con.execute(f"""
        create or replace temp table {SEQUENCE} as
        select scrape_id, provider, observed_at, full_coverage,
               row_number() over (
                   partition by provider order by observed_at, pseudo desc, scrape_id) as seq
        from (
            select scrape_id, provider, observed_at, full_coverage, false as pseudo
            from {SEQUENCE}
            union all
            select distinct {STATE_ID.format(p="e")}, e.provider, e.announced_from, false, true
            from {STATES} as e where e.fate = 'effective'
        )
    """)
    return OBSERVED


def of_scrape(con: duckdb.DuckDBPyConnection, scrape_id: str) -> str:
    """A table of one stored scrape's announced prices (``records.Announcement`` rows)."""
    con.execute(
        f"create or replace temp table {ANNOUNCED} as"
        f" select {', '.join(ANNOUNCEMENT_COLUMNS)} from observations"
        " where scrape_id = ? and announced_from is not null",
        [scrape_id],
    )
    return ANNOUNCED


_UNCHANGED_SQL = f"""
-- retracted intervals the batch wrote again as they were (and the interval before them: its
-- closing is a rewrite too; `seen` says whether the batch saw that price again)
select count(*), count(*) filter (where p.last_seen_at is distinct from st.previous_last_seen_at)
from {STASH} as st
inner join offer_history as h
    on h.offer_id = st.offer_id and h.source = st.source and h.valid_from = st.valid_from
left join offer_history as p
    on p.offer_id = st.offer_id and p.source = st.source and p.valid_to = st.valid_from
where h.valid_to is null and h.price = st.price and h.currency = st.currency
  and h.gpu_count = st.gpu_count and h.gpu_id is not distinct from st.gpu_id
  and h.scrape_id is not distinct from st.scrape_id
"""


def settle(
    con: duckdb.DuckDBPyConnection, counts: dict[str, int], *, source: str, keep_scrape_id: bool
) -> dict[str, int]:
    """After the interval rules ran: mark the intervals the pseudo-scrapes opened (their
    ``scrape_id`` the first scrape that announced them), record withdrawals, and confirm the
    announced intervals a real scrape saw in force. Returns ``counts`` (the interval rules',
    less the retracted intervals the batch wrote again as they were: not a change) plus
    ``announced`` (intervals marked), ``withdrawn`` and ``announced_confirmed``."""
    params = {"source": source, "keep": keep_scrape_id}
    marked = int(
        _one(
            con,
            f"""
            update offer_history as h
            set announced = true,
                scrape_id = case when $keep then e.first_scrape_id else h.scrape_id end
            from {STATES} as e
            where e.fate = 'effective' and h.offer_id = e.offer_id and h.source = $source
              and h.valid_from = e.announced_from
            """,
            params,
        )
        or 0
    )
    unchanged, seen_again = con.execute(_UNCHANGED_SQL).fetchall()[0]
    withdrawn = int(
        _one(
            con,
            f"""
            insert into announcement_withdrawals ({", ".join(ANNOUNCEMENT_WITHDRAWAL_COLUMNS)})
            select e.offer_id, e.provider, $source, e.announced_from, e.announced_price,
                   e.currency, e.price_per_hour_usd, e.price_per_gpu_hour_usd,
                   case when $keep then e.first_scrape_id end,
                   case when $keep then e.next_scrape_id end, e.next_t
            from {STATES} as e
            where e.fate = 'withdrawn'
            on conflict do nothing
            """,
            params,
        )
        or 0
    )
    # seen in force: a real scrape on or after the date listed the price unchanged, which
    # advanced last_seen_at past valid_from (where the pseudo-scrape left it)
    confirmed = int(
        _one(
            con,
            f"""
            update offer_history as h set announced = false
            where h.announced and h.source = $source and h.last_seen_at > h.valid_from
              and h.provider in (select provider from {SEQUENCE})
            """,
            {"source": source},
        )
        or 0
    )
    for table in (STASH, STATES, INJECTED):
        con.execute(f"drop table if exists {table}")
    con.execute(f"drop view if exists {OBSERVED}")
    return {
        **counts,
        "opened": counts["opened"] - int(unchanged),
        "closed": counts["closed"] - int(unchanged),
        "confirmed": counts["confirmed"] + int(seen_again),
        "announced": marked,
        "withdrawn": withdrawn,
        "announced_confirmed": confirmed,
    }
