-- 0010: family-level history (issue 12 point 8) and complete import bookkeeping.
-- Forward-only.
--
-- Some sources name only a GPU family: gpuhunt's catalog says "H100" (SXM, PCIe or NVL),
-- gpu-hunt.com says "NVIDIA A100" (40 or 80 GB, SXM or PCIe). Such a row keeps `gpu_id` null
-- (it is no specific model) and now says which family it is: `gpu_family` is the family id
-- (warehouse/importers/gpu_families.csv), whose members are the canonical GPUs whose gpu_id is
-- the family id or starts with it plus '-' (h100 -> h100-sxm, h100-pcie, h100-nvl), the rule
-- the API's `gpu=h100` filter uses. `gpu_family` is set only on such family-level rows: a row
-- with a gpu_id names its model, and its family follows from the id. Rows written before 0010,
-- and scraped rows, leave it null.
alter table offer_history add column gpu_family varchar;
alter table imported_daily_prices add column gpu_family varchar;
alter table market_summaries add column gpu_family varchar;

-- What each import did with every row it read, so that the counts add up:
-- rows_read = rows_to_model + sum(rows_to_family) + sum(unresolved_gpus) + sum(excluded).
-- `rows_by_table` is what the import wrote per table (the warehouse holds exactly these rows
-- of the source until the next import); `excluded_parts` counts parts of kept rows that were
-- left out (per-provider lines of a market summary), which are not rows.
alter table history_imports add column rows_to_model bigint;
alter table history_imports add column rows_to_family varchar;   -- JSON: gpu_family -> rows
alter table history_imports add column rows_by_table varchar;    -- JSON: table -> rows written
alter table history_imports add column excluded_parts varchar;   -- JSON: reason -> parts
