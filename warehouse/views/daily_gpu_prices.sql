-- daily_gpu_prices: the market for one GPU model on one UTC day, per pricing model.
-- Grain: one row per (day, gpu_id, pricing). Each provider counts once, with its cheapest offer
-- (USD per GPU-hour): min/median/max are taken across those provider prices, so `max` is the
-- dearest provider's cheapest offer, not the dearest offer.
-- Only prices that may feed the day count: none the plausibility screen judged suspect, none
-- last observed more than its kind's shelf life (GPUPRICES_SHELF_LIFE_DAYS_*: 180 days for an
-- on-demand list price, 30 for spot and marketplace, 2 for dynamic) before the day began (rules
-- in warehouse/rollups/daily_provider_prices.sql); daily_offer_prices keeps them all.
-- Kind: view
-- Depends on: daily_provider_prices. That is the incremental rollup of offer_history; scraped
-- intervals win over imported ones for the same provider and day.
-- Published: yes
create or replace view daily_gpu_prices as
select
    day,
    gpu_id,
    pricing,
    min(min_usd_per_gpu_hour) as min_usd_per_gpu_hour,
    round(median(min_usd_per_gpu_hour), 6)::decimal(18, 6) as median_usd_per_gpu_hour,
    max(min_usd_per_gpu_hour) as max_usd_per_gpu_hour,
    count(*) as provider_count,
    sum(offer_count) as offer_count,
    count(*) filter (where source <> 'scrape') as imported_provider_count
from daily_provider_prices
group by day, gpu_id, pricing
