-- market_index: one number per GPU model per UTC day: the median, across providers, of each
-- provider's cheapest on-demand USD per GPU-hour (scraped and imported offer history), rebased
-- to 100 on the model's first day; beside it the median of external market summaries
-- (imported, e.g. Prime Intellect, whose statistics mix spot and on-demand offers).
-- Grain: one row per (day, gpu_id) present in either source.
-- Depends on: daily_gpu_prices, market_summaries.
create or replace view market_index as
with offers as (
    select
        day,
        gpu_id,
        median_usd_per_gpu_hour,
        min_usd_per_gpu_hour,
        max_usd_per_gpu_hour,
        provider_count
    from daily_gpu_prices
    where pricing = 'on_demand'
),

external as (
    select
        timezone('UTC', observed_at)::date as day,
        gpu_id,
        round(median(median_usd_per_gpu_hour), 6)::decimal(18, 6) as median_usd_per_gpu_hour,
        count(*) as summaries
    from market_summaries
    where gpu_id is not null
    group by all
),

combined as (
    select
        coalesce(o.day, e.day) as day,
        coalesce(o.gpu_id, e.gpu_id) as gpu_id,
        o.median_usd_per_gpu_hour as index_usd_per_gpu_hour,
        o.min_usd_per_gpu_hour,
        o.max_usd_per_gpu_hour,
        coalesce(o.provider_count, 0) as provider_count,
        e.median_usd_per_gpu_hour as external_median_usd_per_gpu_hour,
        coalesce(e.summaries, 0) as external_summaries
    from offers as o
    full outer join external as e on o.day = e.day and o.gpu_id = e.gpu_id
)

select
    *,
    round(100 * index_usd_per_gpu_hour / first_value(index_usd_per_gpu_hour ignore nulls) over (
        partition by gpu_id order by day
        rows between unbounded preceding and unbounded following
    ), 2) as index_rebased_100
from combined
