-- 0012: the USD price per GPU-hour, stored beside the per-instance price (issue 14).
-- Forward-only.
-- It was derived in SQL (price_per_hour_usd / gpu_count, rounded to 6 decimals) by every model,
-- view and rollup that needed it; a per-GPU quote went per GPU -> per instance in Python and
-- back in SQL. It is now computed once by the conversion layer (warehouse/units.py,
-- price_per_gpu_hour) when a row is written: a per-GPU quote's own converted price, a
-- per-instance quote's price_per_hour_usd / gpu_count rounded once. Readers select it.
-- Null only when gpu_count is 0 (no row has one: scrapers and seeds require gpu_count > 0).
-- Rows written before 0012 get the formula the SQL used, so an old warehouse reads the same.
alter table observations add column price_per_gpu_hour_usd decimal(18, 6);
update observations
set price_per_gpu_hour_usd = round(price_per_hour_usd / nullif(gpu_count, 0), 6);

alter table offer_history add column price_per_gpu_hour_usd decimal(18, 6);
update offer_history
set price_per_gpu_hour_usd = round(price_per_hour_usd / nullif(gpu_count, 0), 6);

-- replaced from seeds/serverless_tiers.csv on every run; filled here for the rows until then
alter table serverless_tiers add column price_per_gpu_hour_usd decimal(18, 6);
update serverless_tiers
set price_per_gpu_hour_usd = round(price_per_hour_usd / nullif(gpu_count, 0), 6);
