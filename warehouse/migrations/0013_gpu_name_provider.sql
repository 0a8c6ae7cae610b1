-- 0013: one naming (issue 13). Forward-only.
-- `gpu_name` is the canonical GPU's display name (the `gpus` seed) in current_offers,
-- offers_as_of, the API, the CLI and the exports; the stored tables called the source's own
-- spelling `gpu_name` too. They now say `gpu_name_provider`, values unchanged.
-- offers_as_of names the old column: dropped here, recreated by warehouse.analysis.create_views
-- (after every ingest and in every snapshot). The other views read the renamed column through
-- `select *` or not at all.
drop macro table if exists offers_as_of;
alter table observations rename column gpu_name to gpu_name_provider;
alter table offer_history rename column gpu_name to gpu_name_provider;
alter table imported_daily_prices rename column gpu_name to gpu_name_provider;
alter table market_summaries rename column gpu_name to gpu_name_provider;
