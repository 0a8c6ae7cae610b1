-- 0016: history that sees across gaps, changes on comparable prices (issue 21). Forward-only.

-- How much of its provider's list a successful scrape saw. 'full': every offer the provider
-- lists (an offer it does not list is gone); 'partial': a subset (a recorded excerpt, a
-- filtered or sampled capture, a live fetch with parts that failed alone), which never closes
-- an offer it does not list. coverage_reason says why a scrape is partial ("PROVENANCE: EXCERPT",
-- "skipped parts: region ap-east-2"); null for a full one. Both are set when a scrape succeeds
-- (warehouse.load.commit_scrape, warehouse.batch.commit_batch) and null for running, failed
-- and skipped scrapes. Scrapes recorded before this migration were applied as full scrapes
-- (they closed the offers they did not list), so they are marked full, with the reason saying
-- it was assumed.
alter table scrapes add column coverage varchar;
alter table scrapes add column coverage_reason varchar;
update scrapes
set coverage = 'full', coverage_reason = 'assumed: recorded before coverage was stored'
where status = 'success';

-- The newest observation that saw an interval's price: set when the interval opens, advanced by
-- every applied scrape that lists the offer unchanged (warehouse.history.apply_batch). Between
-- it and the next interval of the offer nothing is known ("no data"; views/offer_intervals.sql).
alter table offer_history add column last_seen_at timestamptz;
-- A scraped interval: the newest successful scrape of its provider inside [valid_from,
-- valid_to), the confirmation rule the rollup applied until now (every applied scrape either
-- saw the offer unchanged or ended its interval, and every scrape before 0016 was full). The
-- newest scrape before the interval's end, found per interval by an as-of join.
update offer_history as h
set last_seen_at = seen.observed_at
from (
    select i.offer_id, i.valid_from, s.observed_at
    from (
        select offer_id, valid_from, provider,
               coalesce(valid_to, 'infinity'::timestamptz) as ends_at
        from offer_history
        where source = 'scrape'
    ) as i
    asof inner join (
        select provider, observed_at from scrapes
        where status = 'success' and observed_at is not null
    ) as s
        on i.provider = s.provider and i.ends_at > s.observed_at
    where s.observed_at >= i.valid_from
) as seen
where h.offer_id = seen.offer_id and h.valid_from = seen.valid_from;
-- An imported interval (and any scraped one no scrape is found for): its first observation,
-- the only one known here. `gpuprices backfill` re-imports (the importer's version changed)
-- and writes the exact value.
update offer_history set last_seen_at = valid_from where last_seen_at is null;

-- The price as quoted: its unit ('hour', 'month', ...), its basis ('gpu' or 'instance') and the
-- whole instance per hour in `currency` (warehouse/units.py), as observations store them.
-- price_changes compares the price per GPU-hour in the offer's own currency when the unit or
-- basis changed between two intervals (views/price_changes.sql).
alter table offer_history add column price_unit varchar;
alter table offer_history add column price_per varchar;
alter table offer_history add column price_per_hour decimal(18, 6);
-- Filled from an observation of the offer inside the interval at its price, where one is still
-- kept (observations are pruned after 14 days). Imported rows are instance-hour prices in
-- `currency` (migration 0002). Rows left null: price_changes compares USD per GPU-hour for them.
update offer_history as h
set price_unit = o.price_unit, price_per = o.price_per, price_per_hour = o.price_per_hour
from (
    select h2.offer_id, h2.valid_from,
           arg_max(o.price_unit, o.observed_at) as price_unit,
           arg_max(o.price_per, o.observed_at) as price_per,
           arg_max(o.price_per_hour, o.observed_at) as price_per_hour
    from offer_history as h2
    inner join observations as o
        on o.offer_id = h2.offer_id
        and o.observed_at >= h2.valid_from
        and o.observed_at < coalesce(h2.valid_to, 'infinity'::timestamptz)
        and o.price = h2.price and o.currency = h2.currency
    where h2.source = 'scrape'
    group by h2.offer_id, h2.valid_from
) as o
where h.offer_id = o.offer_id and h.valid_from = o.valid_from;
update offer_history
set price_unit = 'hour', price_per = 'instance', price_per_hour = price
where source like 'import:%';

-- The rollup's confirmations are now each interval's last_seen_at: rebuild it on the next refresh.
update history_rollup_state set refreshed_through = null where rollup = 'daily_provider_prices';
