-- daily_offer_prices: the price of every offer on every UTC day it was offered.
-- Grain: one row per (day, offer_id, source). A day counts when one of the offer's intervals
-- covers any part of it; if the price changed that day, min/max cover the day and the `price*`
-- columns are those of the day's last interval.
-- Every interval counts, including prices the daily figures leave out (judged suspect, or last
-- confirmed too long before the day: see warehouse/rollups/daily_provider_prices.sql); the
-- published snapshot carries neither the screen verdicts nor the scrape log.
-- `gpu_family` is set only where the source named just a GPU family ("NVIDIA A100"): gpu_id
-- stays null and gpu_family says which family ('a100'; migration 0010), so
-- `where gpu_id like 'a100-%' or gpu_family = 'a100'` is all A100 history, model and
-- family level.
-- Kind: view
-- Published: yes
-- Depends on: offer_intervals. Open intervals (valid_to null) run until now(). Expands all of
-- history, so filter on offer_id or provider for speed; daily_gpu_prices is the fast path.
create or replace view daily_offer_prices as
with intervals as (
    select
        *,
        coalesce(valid_to, now()) as valid_until
    from offer_intervals
    where valid_from <= now()
),

offer_days as (
    select
        *,
        unnest(generate_series(
            timezone('UTC', valid_from)::date,
            timezone('UTC', greatest(valid_from, valid_until - interval 1 microsecond))::date,
            interval 1 day
        ))::date as day
    from intervals
)

select
    day,
    offer_id,
    source,
    provider,
    arg_max(instance_type, valid_from) as instance_type,
    arg_max(region, valid_from) as region,
    arg_max(cloud_tier, valid_from) as cloud_tier,
    arg_max(pricing, valid_from) as pricing,
    arg_max(gpu_id, valid_from) as gpu_id,
    arg_max(gpu_family, valid_from) as gpu_family,
    arg_max(gpu_count, valid_from) as gpu_count,
    arg_max(price, valid_from) as price,
    arg_max(currency, valid_from) as currency,
    arg_max(price_per_hour_usd, valid_from) as price_per_hour_usd,
    arg_max(price_per_gpu_hour_usd, valid_from) as price_per_gpu_hour_usd,
    min(price_per_hour_usd) as min_price_per_hour_usd,
    max(price_per_hour_usd) as max_price_per_hour_usd,
    count(*) as intervals
from offer_days
group by day, offer_id, source, provider
