-- market_index: a chain-linked price index per GPU model and pricing model, and one per pricing
-- model over all GPU models (gpu_id = 'all'), that moves only with the prices of offers listed
-- on consecutive days, never because offers or providers joined or left.
-- Formula (Jevons, chain-linked): for day d, the matched offers M(d) are those whose price fed
-- both d and d-1 in daily_provider_prices (same offer and source, neither suspect nor stale on
-- either day; an offer's price on a day is its last interval's USD per GPU-hour). The link is
-- the geometric mean of their price relatives,
--     link(d) = exp( sum over M(d) of ln(p_d / p_d-1) / |M(d)| ),   link(d) = 1 when M(d) is empty,
-- and the index is the running product from the first day of the series (the base, = 100):
--     index(d) = 100 * link(base + 1) * ... * link(d).
-- Every matched offer weighs the same (a provider with many listings weighs more); a day
-- without matched offers carries the index over unchanged, so a change across a gap in the
-- data is not seen. Beside it, for context only: the day's price level (median / min / max
-- across providers of each provider's cheapest offer, as daily_gpu_prices) and, on on-demand
-- rows, the median of imported external market summaries (e.g. Prime Intellect, whose
-- statistics mix spot and on-demand offers).
-- Grain: one row per (day, gpu_id, pricing) with offers, gpu_id 'all' for the whole market;
-- plus on-demand rows for days only the external summaries cover (index null).
-- Depends on: daily_provider_prices, daily_gpu_prices, market_summaries.
create or replace view market_index as
with provider_links as (
    select
        day,
        gpu_id,
        pricing,
        matched_offer_count,
        log_price_relative_sum
    from daily_provider_prices
),

per_gpu as (
    select
        day,
        gpu_id,
        pricing,
        sum(matched_offer_count) as matched_offer_count,
        sum(log_price_relative_sum) as log_price_relative_sum
    from provider_links
    group by day, gpu_id, pricing
),

whole_market as (
    select
        day,
        'all' as gpu_id,
        pricing,
        sum(matched_offer_count) as matched_offer_count,
        sum(log_price_relative_sum) as log_price_relative_sum
    from provider_links
    group by day, pricing
),

levels as (
    select
        day,
        gpu_id,
        pricing,
        median_usd_per_gpu_hour,
        min_usd_per_gpu_hour,
        max_usd_per_gpu_hour,
        provider_count,
        offer_count
    from daily_gpu_prices
),

whole_market_levels as (
    select
        day,
        'all' as gpu_id,
        pricing,
        null::decimal(18, 6) as median_usd_per_gpu_hour,
        null::decimal(18, 6) as min_usd_per_gpu_hour,
        null::decimal(18, 6) as max_usd_per_gpu_hour,
        count(distinct provider) as provider_count,
        sum(offer_count) as offer_count
    from daily_provider_prices
    group by day, pricing
),

links as (
    select
        l.day,
        l.gpu_id,
        l.pricing,
        l.matched_offer_count::bigint as matched_offer_count,
        case
            when l.matched_offer_count > 0
                then l.log_price_relative_sum / l.matched_offer_count
            else 0
        end as log_link,
        v.median_usd_per_gpu_hour,
        v.min_usd_per_gpu_hour,
        v.max_usd_per_gpu_hour,
        v.provider_count,
        v.offer_count
    from (select * from per_gpu union all select * from whole_market) as l
    inner join (select * from levels union all select * from whole_market_levels) as v
        on l.day = v.day and l.gpu_id = v.gpu_id and l.pricing = v.pricing
),

chained as (
    select
        day,
        gpu_id,
        pricing,
        round(100 * exp(sum(log_link) over series - first_value(log_link) over series), 4)
            as price_index,
        round(exp(log_link), 6) as link_ratio,
        matched_offer_count,
        provider_count,
        offer_count,
        median_usd_per_gpu_hour,
        min_usd_per_gpu_hour,
        max_usd_per_gpu_hour
    from links
    window series as (
        partition by gpu_id, pricing order by day
        rows between unbounded preceding and current row
    )
),

external as (
    select
        timezone('UTC', observed_at)::date as day,
        gpu_id,
        'on_demand' as pricing,
        round(median(median_usd_per_gpu_hour), 6)::decimal(18, 6) as median_usd_per_gpu_hour,
        count(*) as summaries
    from market_summaries
    where gpu_id is not null
    group by all
)

select
    coalesce(c.day, e.day) as day,
    coalesce(c.gpu_id, e.gpu_id) as gpu_id,
    coalesce(c.pricing, e.pricing) as pricing,
    c.price_index,
    c.link_ratio,
    coalesce(c.matched_offer_count, 0) as matched_offer_count,
    coalesce(c.provider_count, 0) as provider_count,
    coalesce(c.offer_count, 0) as offer_count,
    c.median_usd_per_gpu_hour,
    c.min_usd_per_gpu_hour,
    c.max_usd_per_gpu_hour,
    e.median_usd_per_gpu_hour as external_median_usd_per_gpu_hour,
    coalesce(e.summaries, 0) as external_summaries
from chained as c
full outer join external as e
    on c.day = e.day and c.gpu_id = e.gpu_id and c.pricing = e.pricing
