"""The SQL of ``warehouse.history.apply_batch``, statement by statement (rules: that module).

The batch tables it reads (temporary, per connection):

- ``BATCH_TABLE``: ``scrape_id, provider, observed_at, coverage`` -- one row per successful
  scrape; ``coverage`` 'full' or 'partial' (``scrapes.coverage``, migration 0016);
- the observed table (``OBSERVED_TABLE`` or a caller's table or view): observation-shaped rows
  of those scrapes, ``records.HistoryObservation``'s columns.

``$source`` is the ``offer_history.source`` the batch writes (``'scrape'``, ``'import:...'``).

Announced prices enter these rules as ordinary states: ``warehouse.announcements.add_states``
adds to ``_history_seq`` a partial pseudo-scrape per provider and effective date (listing the
offers whose announcement takes effect then, at their announced prices) and to the observed
rows their observations, so the states below open, close and confirm an announced price like
any other. A pseudo-scrape's ``observed_at`` is the date, so the interval it opens has
``last_seen_at`` = ``valid_from`` until a real scrape lists the price unchanged.
"""

from __future__ import annotations

BATCH_TABLE = "_history_batch"
OBSERVED_TABLE = "_history_observed"

# The batch's scrapes in time order per provider (seq 1..n), leaving out those older than the
# provider's newest history point (a change, an end, or the newest confirmation of a price):
# history is built forward in time.
SEQUENCE_SQL = f"""
create or replace temp table _history_seq as
with marks as (
    select provider,
           max(greatest(valid_from, coalesce(valid_to, last_seen_at, valid_from))) as mark
    from offer_history
    where source = $source and provider in (select provider from {BATCH_TABLE})
    group by provider
)
select
    b.scrape_id,
    b.provider,
    b.observed_at,
    b.coverage = 'full' as full_coverage,
    row_number() over (partition by b.provider order by b.observed_at, b.scrape_id) as seq
from {BATCH_TABLE} as b
left join marks as m on b.provider = m.provider
where m.mark is null or b.observed_at >= m.mark
"""

# The runs of the batch, one row per interval it touches. Per offer, its states in time order:
# seq 0 its open interval before the batch, then one state per scrape of its provider: present
# with its values, or absent -- a full scrape that does not list the offer. A partial scrape that
# does not list it gives it no state at all: it says nothing about the offer. A transition (an
# appearance, a disappearance, other values) starts a run; the states up to the next transition
# belong to it. Per run start (seq 0 or a transition): `present`, `last_seen_at` (the newest
# state of the run that saw the price) and `next_t` (when the next run starts, ending this one).
# A unit or basis that an interval written before migration 0016 does not know (null) is not a
# change by itself.
RUNS_SQL = """
create or replace temp table _history_changes as
with open_rows as (
    select offer_id, provider, valid_from, last_seen_at, price, currency, price_unit,
           price_per, gpu_count, gpu_id
    from offer_history
    where source = $source and valid_to is null
      and provider in (select provider from _history_seq)
),

observed as (
    select o.offer_id, o.provider, o.scrape_id, o.price, o.currency, o.price_unit, o.price_per,
           o.gpu_count, o.gpu_id
    from {observed} as o
    semi join _history_seq as s on o.scrape_id = s.scrape_id
),

universe as (
    select offer_id, provider from open_rows
    union
    select offer_id, provider from observed
),

states as (
    select offer_id, 0::bigint as seq, valid_from as t, null::varchar as scrape_id,
           true as present, coalesce(last_seen_at, valid_from) as seen, price, currency,
           price_unit, price_per, gpu_count, gpu_id
    from open_rows
    union all
    select u.offer_id, s.seq, s.observed_at, s.scrape_id, o.offer_id is not null,
           case when o.offer_id is not null then s.observed_at end, o.price, o.currency,
           o.price_unit, o.price_per, o.gpu_count, o.gpu_id
    from universe as u
    inner join _history_seq as s on u.provider = s.provider
    left join observed as o on s.scrape_id = o.scrape_id and u.offer_id = o.offer_id
    where s.full_coverage or o.offer_id is not null
),

lagged as (
    select
        *,
        lag(present) over w as prev_present,
        lag(price) over w as prev_price,
        lag(currency) over w as prev_currency,
        lag(price_unit) over w as prev_price_unit,
        lag(price_per) over w as prev_price_per,
        lag(gpu_count) over w as prev_gpu_count,
        lag(gpu_id) over w as prev_gpu_id
    from states
    window w as (partition by offer_id order by seq)
),

flagged as (
    select
        offer_id, seq, t, scrape_id, present, seen,
        seq > 0
        and (present <> coalesce(prev_present, false)
             or (present and (price is distinct from prev_price
                              or currency is distinct from prev_currency
                              or gpu_count is distinct from prev_gpu_count
                              or gpu_id is distinct from prev_gpu_id
                              or (prev_price_unit is not null
                                  and price_unit is distinct from prev_price_unit)
                              or (prev_price_per is not null
                                  and price_per is distinct from prev_price_per)))) as starts_run
    from lagged
),

runs as (
    select
        *,
        sum(starts_run::integer) over (
            partition by offer_id order by seq rows between unbounded preceding and current row
        ) as run
    from flagged
),

run_seen as (
    select offer_id, run, max(seen) as last_seen_at
    from runs
    group by offer_id, run
)

select
    r.offer_id, r.seq, r.t, r.scrape_id, r.present, s.last_seen_at,
    lead(r.t) over (partition by r.offer_id order by r.seq) as next_t
from runs as r
inner join run_seen as s on r.offer_id = s.offer_id and r.run = s.run
where r.starts_run or r.seq = 0
"""

# The open intervals the batch touched: ended by the first transition (valid_to) and/or
# confirmed later (last_seen_at). An interval the batch neither ends nor confirms is not
# written (re-applying a scrape writes nothing).
UPDATE_OPEN_SQL = """
update offer_history as h
set valid_to = c.next_t, last_seen_at = c.last_seen_at
from _history_changes as c
where c.seq = 0 and h.offer_id = c.offer_id and h.source = $source and h.valid_to is null
  and (c.next_t is not null or c.last_seen_at is distinct from h.last_seen_at)
"""

# The intervals the batch opens: one per run that starts with the offer present.
OPEN_SQL = """
insert into offer_history (
    offer_id, provider, valid_from, valid_to, instance_type, region, pricing,
    reserved_term_months, gpu_id, gpu_count, price, currency, price_per_hour_usd, source,
    scrape_id, gpu_name_provider, serverless, price_per_gpu_hour_usd, last_seen_at, price_unit,
    price_per, price_per_hour, cloud_tier
)
select
    c.offer_id, o.provider, c.t, c.next_t, o.instance_type, o.region, o.pricing,
    o.reserved_term_months, o.gpu_id, o.gpu_count, o.price, o.currency, o.price_per_hour_usd,
    $source, case when $keep_scrape_id then c.scrape_id end, o.gpu_name_provider, o.serverless,
    o.price_per_gpu_hour_usd, c.last_seen_at, o.price_unit, o.price_per, o.price_per_hour,
    o.cloud_tier
from _history_changes as c
inner join {observed} as o on c.scrape_id = o.scrape_id and c.offer_id = o.offer_id
where c.seq > 0 and c.present
"""

# Counts of the batch: intervals ended (open ones and ones opened in the batch), of them the
# open ones, and the first instant at which history changed.
COUNTS_SQL = """
select
    count(*) filter (where next_t is not null and (seq = 0 or present)),
    count(*) filter (where next_t is not null and seq = 0),
    min(t) filter (where seq > 0)
from _history_changes
"""
