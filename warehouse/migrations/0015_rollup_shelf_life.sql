-- 0015: the daily rollup keeps
-- each kind of price for its shelf life, and its chain links match observations across gaps
-- (see warehouse/rollups/daily_provider_prices.sql). Forward-only.
-- A price now feeds a day while the day is within its kind's shelf life (warehouse/shelf_life.py,
-- GPUPRICES_SHELF_LIFE_DAYS_*) of its last observation, instead of the one threshold
-- GPUPRICES_STALE_AFTER_DAYS, and a row's matched_offer_count / log_price_relative_sum now
-- count the provider's offers observed that day against their previous observation, however
-- many days before (migration 0007 compared with the day before only).
-- The shelf lives the rollup was built with, as a JSON object (price kind -> days, keys sorted):
-- when a setting changes, the next refresh rebuilds every day (warehouse.history.refresh_rollup).
-- It replaces the single threshold of migration 0007, which the rollup no longer reads.
alter table history_rollup_state add column shelf_life_days varchar;
alter table history_rollup_state drop column stale_after_days;

-- The rows written so far follow the old rules: rebuild everything on the next refresh.
update history_rollup_state set refreshed_through = null where rollup = 'daily_provider_prices';
