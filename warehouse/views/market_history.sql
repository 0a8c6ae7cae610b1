-- market_history(gpu, pricing, bucket, from_day, to_day): the market of one GPU model or family
-- per day, week or month, as GET /history serves it.
-- Usage: select * from market_history('h100-sxm', 'on_demand', 'day', date '2026-03-01',
--            date '2026-04-01');      (from_day / to_day inclusive UTC days; null = unbounded)
-- `gpu` is a canonical id (a row of gpus: that GPU only, so 'h200' is not 'h200-nvl') or a
-- family prefix ('h100': every gpu_id starting with 'h100-', plus the family-level offers of
-- daily_family_level_prices whose gpu_family is 'h100' or starts with 'h100-'): the rule of
-- gpu_matches(gpu, term), applied to gpu_id and, for a family, to gpu_family. A family-level
-- "H100" may be a PCIe or an NVL: a canonical id never takes one, nor does a narrower family
-- ('a100-80gb' takes no 'a100' row, which may have 40 GB). `bucket` is a date_trunc part:
-- 'day', 'week' (starting Monday) or 'month'.
-- Grain: one row per bucket with prices. Per UTC day, each provider counts once, with its
-- cheapest USD per GPU-hour: its daily_provider_prices rows for the GPU (or the family's
-- models) and, for a family, its daily_family_level_prices rows; where it has rows from
-- scraped and imported intervals that day, the scraped ones win (else the first source by
-- name), so one source's prices are never mixed with another's for a provider and day. The
-- rollup's rules apply unchanged: no suspect price, none last observed more than its kind's
-- shelf life before the day (GPUPRICES_SHELF_LIFE_DAYS_*; see
-- warehouse/rollups/daily_provider_prices.sql).
-- For a canonical id and bucket 'day' every row equals daily_gpu_prices for that day.
-- Per bucket: each provider's price is the cheapest of its days in the bucket; min / median /
-- max are taken across those provider prices; provider_count counts the providers with a
-- price on any day of it. offer_count adds up, per provider, the most offers it had on one day
-- of the bucket (the daily rows count offers but do not say which, so this is the number of
-- distinct offers when a provider's list was stable, and a lower bound otherwise); for a day
-- it is the day's offer count. family_level_offer_count is the same count over family-level
-- offers; family_level_provider_count counts the providers whose price is a family-level
-- offer's (a tie with a model-level offer counts as model level).
-- providers lists those providers (slugs, sorted); provider_set_changed is true where the list
-- differs from the previous bucket's of the answer (false for its first bucket): a median or
-- a min that moves there may be providers joining or leaving (a price passing its shelf life
-- leaves), not a price change, so the chart (api/charts.py) starts a new line there.
-- Kind: table macro
-- Depends on: daily_provider_prices, daily_family_level_prices, gpus, gpu_matches.
-- Published: yes
create or replace macro market_history(series_gpu, series_pricing, series_bucket, from_day, to_day)
as table
with series as (
    select series_gpu::varchar in (select gpu_id from gpus) as is_model
),

provider_rows as (
    select p.day, p.provider, p.source, false as family_level, p.min_usd_per_gpu_hour,
        p.offer_count
    from daily_provider_prices as p
    where p.pricing = series_pricing
      and (from_day is null or p.day >= from_day::date)
      and (to_day is null or p.day <= to_day::date)
      and gpu_matches(p.gpu_id, series_gpu)
    union all
    select f.day, f.provider, f.source, true as family_level, f.min_usd_per_gpu_hour,
        f.offer_count
    from daily_family_level_prices as f, series as s
    where not s.is_model
      and f.pricing = series_pricing
      and (from_day is null or f.day >= from_day::date)
      and (to_day is null or f.day <= to_day::date)
      and gpu_matches(f.gpu_family, series_gpu)
),

kept as (
    -- one source per provider and day: scraped over imported
    select *
    from provider_rows
    qualify dense_rank() over (
        partition by day, provider order by (source = 'scrape') desc, source
    ) = 1
),

provider_days as (
    select
        day,
        provider,
        min(min_usd_per_gpu_hour) as usd_per_gpu_hour,
        min(min_usd_per_gpu_hour) filter (where not family_level) as model_usd_per_gpu_hour,
        sum(offer_count) as offer_count,
        coalesce(sum(offer_count) filter (where family_level), 0) as family_level_offer_count
    from kept
    group by day, provider
),

provider_buckets as (
    select
        date_trunc(series_bucket, day)::date as bucket_start,
        provider,
        min(usd_per_gpu_hour) as usd_per_gpu_hour,
        min(model_usd_per_gpu_hour) as model_usd_per_gpu_hour,
        max(offer_count) as offer_count,
        max(family_level_offer_count) as family_level_offer_count
    from provider_days
    group by bucket_start, provider
),

buckets as (
    select
        bucket_start as start,
        min(usd_per_gpu_hour) as min_usd_per_gpu_hour,
        round(median(usd_per_gpu_hour), 6)::decimal(18, 6) as median_usd_per_gpu_hour,
        max(usd_per_gpu_hour) as max_usd_per_gpu_hour,
        count(*) as provider_count,
        sum(offer_count) as offer_count,
        count(*) filter (
            where model_usd_per_gpu_hour is null or model_usd_per_gpu_hour > usd_per_gpu_hour
        ) as family_level_provider_count,
        sum(family_level_offer_count) as family_level_offer_count,
        list(provider order by provider) as providers
    from provider_buckets
    group by bucket_start
),

with_changes as (
    select
        *,
        coalesce(providers <> lag(providers) over (order by start), false)
            as provider_set_changed
    from buckets
)

select * from with_changes
order by start
