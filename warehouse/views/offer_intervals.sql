-- offer_intervals: offer_history with each interval's price per GPU-hour, the one place the
-- history objects derive it.
-- Grain: one row per (offer_id, source, valid_from): the price held from valid_from
-- (inclusive) to valid_to (exclusive; null = still current). price_per_gpu_hour_usd is
-- price_per_hour_usd / gpu_count (USD, rounded to 6 decimals; a share of a GPU, gpu_count < 1,
-- gives its whole-GPU equivalent), null when gpu_count is 0. Every interval is here, including
-- prices the daily figures leave out (suspect, or last confirmed too long before a day).
-- Depends on: offer_history.
create or replace view offer_intervals as
select
    *,
    round(price_per_hour_usd / nullif(gpu_count, 0), 6) as price_per_gpu_hour_usd
from offer_history
