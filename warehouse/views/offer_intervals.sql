-- offer_intervals: offer_history with each interval's price per GPU-hour, the one place the
-- history objects read it.
-- Grain: one row per (offer_id, source, valid_from): the price held from valid_from
-- (inclusive) to valid_to (exclusive; null = still current). price_per_gpu_hour_usd is the
-- stored one (offer_history.price_per_gpu_hour_usd, migration 0012, computed once by
-- warehouse/units.py: USD, 6 decimals; a share of a GPU, gpu_count < 1, gives its whole-GPU
-- equivalent), null when gpu_count is 0; served as the DOUBLE it was before 0012. Every
-- interval is here, including prices the daily figures leave out (suspect, or last confirmed
-- too long before a day).
-- Depends on: offer_history.
create or replace view offer_intervals as
select
    * exclude (price_per_gpu_hour_usd),
    price_per_gpu_hour_usd::double as price_per_gpu_hour_usd
from offer_history
