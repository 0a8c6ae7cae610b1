-- offer_intervals: offer_history with each interval's price per GPU-hour and the span after it
-- in which nothing was observed, the one place the history objects read them.
-- Grain: one row per (offer_id, source, valid_from): the price held from valid_from
-- (inclusive) to valid_to (exclusive; null = still current). price_per_gpu_hour_usd is the
-- stored one (offer_history.price_per_gpu_hour_usd, migration 0012, computed once by
-- warehouse/units.py: USD, 6 decimals; a share of a GPU, gpu_count < 1, gives its whole-GPU
-- equivalent), null when gpu_count is 0; served as the DOUBLE it was before 0012.
-- price_per_gpu_hour is the same in the offer's own `currency`: the stored instance-hour price
-- (price_per_hour, warehouse/units.py) per GPU, 6 decimals; null where the interval was written
-- before migration 0016 and no observation of it was left to fill it.
-- What was seen: the price was observed from valid_from to last_seen_at (the newest scrape that
-- listed it unchanged). A closed interval is followed by a span with no data: from last_seen_at
-- to the next interval of the offer (same source) or, when none follows, to valid_to (the
-- first full scrape that no longer listed it); no_data_days is its length. The price is not
-- known there (it may have changed at any point), so nothing reads it as the old price. Null
-- for an open interval: last_seen_at says how recent the current price is.
-- An announced interval (offer_history.announced: a price the source announced from valid_from,
-- not yet seen in force) has last_seen_at = valid_from: nothing observed it, so once closed
-- (the old price seen again after the date) its whole span is no data; the interval before it
-- has no data from its newest sighting to the announced date.
-- Every interval is here, including prices the daily figures leave out (suspect, or last
-- confirmed too long before a day). price_status and price_status_reasons (JSON text, as
-- stored) are the plausibility screen's verdict on the observation that opened the interval
-- (price_screens by scrape_id and offer_id, the rule the daily rollup applies): ok, suspect
-- (left out of the daily figures and of GET /changes unless include_suspect=true) or
-- confirmed; null for an interval no screen judged (imported history).
-- Kind: view
-- Depends on: offer_history, price_screens.
-- Published: yes
create or replace view offer_intervals as
with ordered as (
    select
        *,
        lead(valid_from) over (partition by offer_id, source order by valid_from)
            as next_valid_from
    from offer_history
)

select
    o.* exclude (price_per_gpu_hour_usd, next_valid_from),
    o.price_per_gpu_hour_usd::double as price_per_gpu_hour_usd,
    round(price_per_hour / nullif(gpu_count, 0), 6)::decimal(18, 6) as price_per_gpu_hour,
    case when valid_to is not null then last_seen_at end as no_data_from,
    case when valid_to is not null then coalesce(next_valid_from, valid_to) end as no_data_until,
    case when valid_to is not null then round(
        epoch(coalesce(next_valid_from, valid_to) - last_seen_at) / 86400, 3
    ) end as no_data_days,
    s.price_status,
    s.reasons as price_status_reasons
from ordered as o
left join price_screens as s on o.scrape_id = s.scrape_id and o.offer_id = s.offer_id
