-- daily_provider_prices: each provider's cheapest and dearest USD per GPU-hour per GPU model,
-- pricing model and UTC day, from the price intervals.
-- Grain: one row per (day, provider, gpu_id, pricing). Where a provider has both scraped and
-- imported intervals for that key and day, the scraped ones win (imported history can hold a
-- site's stale fallback values); `source` says which was used.
-- Depends on: offer_history. Excludes serverless tiers, unresolved GPUs and gpu_count <= 0.
-- Incremental: warehouse.history.refresh_rollup deletes the days >= $start and runs this insert
-- with $start (midnight UTC of the first day to redo) and $now (open intervals end there).
insert into daily_provider_prices
with intervals as (
    select
        offer_id,
        provider,
        gpu_id,
        pricing,
        source,
        price_per_hour_usd / gpu_count as usd_per_gpu_hour,
        greatest(valid_from, $start) as clipped_from,
        least(coalesce(valid_to, $now), $now) as clipped_to
    from offer_history
    where gpu_id is not null
      and gpu_count > 0
      and serverless is not true
      and valid_from <= $now
      and (valid_to is null or valid_to > $start or (valid_to = valid_from and valid_from >= $start))
),

offer_days as (
    -- a day counts when the interval covers any part of it; a zero-length interval (an offer
    -- seen once at the end of an imported dataset) counts for its own day
    select
        offer_id,
        provider,
        gpu_id,
        pricing,
        source,
        usd_per_gpu_hour,
        unnest(generate_series(
            timezone('UTC', clipped_from)::date,
            timezone('UTC', greatest(clipped_from, clipped_to - interval 1 microsecond))::date,
            interval 1 day
        ))::date as day
    from intervals
),

per_source as (
    select
        day,
        provider,
        gpu_id,
        pricing,
        source,
        min(usd_per_gpu_hour) as min_usd_per_gpu_hour,
        max(usd_per_gpu_hour) as max_usd_per_gpu_hour,
        count(distinct offer_id) as offer_count
    from offer_days
    group by all
)

select
    day,
    provider,
    gpu_id,
    pricing,
    source,
    round(min_usd_per_gpu_hour, 6)::decimal(18, 6),
    round(max_usd_per_gpu_hour, 6)::decimal(18, 6),
    offer_count::integer
from per_source
qualify row_number() over (
    partition by day, provider, gpu_id, pricing order by (source = 'scrape') desc, source
) = 1
