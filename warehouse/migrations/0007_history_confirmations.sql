-- 0007: the daily rollup compares like with like (see warehouse/rollups/daily_provider_prices.sql).
-- Forward-only.
-- A price now feeds a day only while it is confirmed (a successful scrape of its provider saw it
-- at most GPUPRICES_STALE_AFTER_DAYS days before the day began; every applied successful scrape
-- either confirms an open interval or closes it, so `scrapes` already records each confirmation
-- and offer_history needs no new column) and unless the screen judged it suspect
-- (price_screens, migration 0005). Beside its price range each rollup row now carries the
-- chain link of the market index: how many of the provider's offers had a price on both this
-- day and the day before, and the sum of the natural logs of their price relatives
-- (USD per GPU-hour today / yesterday). market_index chains those links.
alter table daily_provider_prices add column matched_offer_count integer default 0;
-- decimal, not double: a sum of decimals does not depend on the order of its terms, so an
-- incremental refresh writes exactly what a full rebuild writes
alter table daily_provider_prices add column log_price_relative_sum decimal(18, 12) default 0;

-- The staleness threshold the rollup was built with: when the setting changes, the next
-- refresh rebuilds every day (warehouse.history.refresh_rollup).
alter table history_rollup_state add column stale_after_days double;

-- The rows written so far ignore both rules: rebuild everything on the next refresh.
update history_rollup_state set refreshed_through = null where rollup = 'daily_provider_prices';
