-- daily_family_level_prices: daily_provider_prices for family-level offers. Each provider's
-- cheapest and dearest USD per GPU-hour per GPU family, pricing model and UTC day, over the
-- offers whose source named only the family ("NVIDIA H100": SXM, PCIe or NVL; offer_history
-- rows with gpu_id null and gpu_family set, migration 0010).
-- Grain: one row per (day, provider, gpu_family, pricing). Where a provider has the family's
-- offers from two sources on a day, one is used (`source`, the first by name), as in the rollup.
-- The rollup's rules (warehouse/rollups/daily_provider_prices.sql) hold here without the scrape
-- log or the screen verdicts, which a snapshot does not carry: family-level rows come only
-- from imported datasets (scraped rows never set gpu_family), imported intervals count as
-- confirmed while open, and the plausibility screen judges scraped observations only. A
-- scraped family-level row, should one ever exist, is left out: whether it was still
-- confirmed on a day cannot be told here. Serverless tiers and gpu_count <= 0 are left out.
-- Family-level rows never enter daily_provider_prices, daily_gpu_prices or market_index (they
-- are per GPU model); market_history(...) combines the two for a family.
-- Kind: view
-- Depends on: offer_history. Open intervals (valid_to null) run until now().
-- Published: yes
create or replace view daily_family_level_prices as
with intervals as (
    select
        offer_id,
        provider,
        gpu_family,
        pricing,
        source,
        valid_from,
        price_per_gpu_hour_usd as usd_per_gpu_hour,
        coalesce(valid_to, now()) as valid_until
    from offer_history
    where gpu_id is null
      and gpu_family is not null
      and gpu_count > 0
      and serverless is not true
      and source <> 'scrape'
      and valid_from <= now()
),

offer_days as (
    -- a day counts when the interval covers any part of it; a zero-length interval (an offer
    -- seen once at the end of an imported dataset) counts for its own day
    select
        *,
        unnest(generate_series(
            timezone('UTC', valid_from)::date,
            timezone('UTC', greatest(valid_from, valid_until - interval 1 microsecond))::date,
            interval 1 day
        ))::date as day
    from intervals
),

per_source as (
    select
        day,
        provider,
        gpu_family,
        pricing,
        source,
        min(usd_per_gpu_hour) as min_usd_per_gpu_hour,
        max(usd_per_gpu_hour) as max_usd_per_gpu_hour,
        count(distinct offer_id) as offer_count
    from offer_days
    group by day, provider, gpu_family, pricing, source
)

select
    day,
    provider,
    gpu_family,
    pricing,
    source,
    round(min_usd_per_gpu_hour, 6)::decimal(18, 6) as min_usd_per_gpu_hour,
    round(max_usd_per_gpu_hour, 6)::decimal(18, 6) as max_usd_per_gpu_hour,
    offer_count::integer as offer_count
from per_source
qualify row_number() over (
    partition by day, provider, gpu_family, pricing order by source
) = 1
