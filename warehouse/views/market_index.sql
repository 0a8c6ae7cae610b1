-- market_index: a chain-linked price index per GPU model and pricing model, and one per pricing
-- model over all GPU models (gpu_id = 'all'), that moves only with the prices of offers seen
-- again, never because offers or providers joined or left.
-- Formula (Jevons, chain-linked across gaps): for day d, the matched offers M(d) are the offers
-- observed on d whose previous observation (any number of days before: same offer, source and
-- GPU, never suspect) had a price (daily_provider_prices: an offer's price on a day is that of
-- its last interval observed that day, USD per GPU-hour). The link is the geometric mean of their
-- price relatives,
--     link(d) = exp( sum over M(d) of ln(p_d / p_prev) / |M(d)| ),
-- an offer seen again unchanged counting with ln 1 = 0. A day links only when M(d) holds offers
-- of at least MIN_PROVIDERS (below) providers; on any other day the link and the index are
-- null (no data, never 100 or carried over). The base day (the series' first day with prices)
-- is 100; every linked day is the previous published level times its link:
--     index(d) = 100 * product of link(e) over the linked days e in (base, d],
-- so a null day is a gap in the series and the next linked day chains on from the level before
-- it, the change across the gap included (p_prev is the price before the gap).
-- MIN_PROVIDERS = 1: a link needs matched offers, from any number of providers. The
-- recorded history observes most providers on days no other provider was captured (the
-- replay: every h100-sxm change is a one-provider day but 2026-09-01), so requiring two would
-- leave a real repricing such as Lambda's 8x H100 $2.59 -> $2.99 (2024-11-03, alone that day)
-- out of the index forever; matching offers with themselves already keeps the provider mix
-- out of it. matched_provider_count says how many providers a link rests on; a reader who wants
-- the two-provider rule filters on it (docs/history.md).
-- Every matched offer weighs the same (a provider with many listings weighs more). Beside it,
-- for context only: the day's price level (median / min / max across providers of each
-- provider's cheapest offer, as daily_gpu_prices) and, on on-demand rows, the median of
-- imported external market summaries (e.g. Prime Intellect, whose statistics mix spot and
-- on-demand offers).
-- Grain: one row per (day, gpu_id, pricing) with prices, gpu_id 'all' for the whole market;
-- plus on-demand rows for days only the external summaries cover (index null).
-- Kind: view
-- Depends on: daily_provider_prices, daily_gpu_prices, market_summaries.
-- Published: yes
create or replace view market_index as
with per_gpu as (
    select
        day,
        gpu_id,
        pricing,
        sum(matched_offer_count) as matched_offer_count,
        count(distinct provider) filter (where matched_offer_count > 0)
            as matched_provider_count,
        sum(log_price_relative_sum) as log_price_relative_sum
    from daily_provider_prices
    group by day, gpu_id, pricing
),

whole_market as (
    select
        day,
        'all' as gpu_id,
        pricing,
        sum(matched_offer_count) as matched_offer_count,
        count(distinct provider) filter (where matched_offer_count > 0)
            as matched_provider_count,
        sum(log_price_relative_sum) as log_price_relative_sum
    from daily_provider_prices
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
        l.matched_provider_count::bigint as matched_provider_count,
        case
            -- MIN_PROVIDERS = 1 (header)
            when l.matched_offer_count > 0 and l.matched_provider_count >= 1
                then l.log_price_relative_sum / l.matched_offer_count
        end as log_link,
        row_number() over (partition by l.gpu_id, l.pricing order by l.day) = 1 as is_base,
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
        case
            when is_base then 100
            when log_link is not null
                then round(100 * exp(sum(case when not is_base then log_link end) over series), 4)
        end as price_index,
        case when not is_base then round(exp(log_link), 6) end as link_ratio,
        matched_offer_count,
        matched_provider_count,
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
    coalesce(c.matched_provider_count, 0) as matched_provider_count,
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
