-- 0006: a serverless tier is one offer, dated by its source (seeds/serverless_tiers.csv).
-- Forward-only.
-- A tier that may land on several GPUs (RunPod's "16 GB" tier: RTX A4000, A4500 or 4000 Ada) was
-- one row per GPU; it is now one row per platform x tier with its candidate GPUs and the memory
-- per GPU the tier guarantees. `gpu_id` stays the one id downstream joins use: for a pooled tier
-- the candidate with the lowest memory bandwidth (the guaranteed minimum; specs served for the
-- tier are the minimum over `gpu_candidates`), and `instance_type` is the tier name itself.
-- `facts_as_of` (the day the row was typed in) becomes `source_date`, the date of the source
-- document, with `source_date_basis` saying how it is known; `ends_on` is the first day the
-- source says the tier is deprecated or gone (current_offers stops serving it from then on).
-- DuckDB cannot add a check constraint to an existing table, so the table is rebuilt with the
-- same rows (typed-in dates kept as 'retrieved'); the seed loader replaces them on the next run.
create table serverless_tiers_v6 (
    offer_id            varchar primary key,
    platform            varchar not null,
    tier                varchar not null,
    instance_type       varchar not null,       -- = tier
    gpu_id              varchar,                -- null: the source does not pin the GPU down
    gpu_candidates      varchar[],              -- ids the tier may land on; null with gpu_id
    vram_gb_guaranteed  decimal(10, 2),         -- per GPU, what the tier promises; null: unknown
    gpu_count           decimal(10, 4) not null,
    price               decimal(18, 9) not null,
    currency            varchar not null,
    price_unit          varchar not null
        check (price_unit in ('second', 'minute', 'hour', 'month')),
    price_per_hour      decimal(18, 6) not null, -- whole tier, in `currency`
    price_per_hour_usd  decimal(18, 6) not null, -- whole tier
    source_date         date not null,
    source_date_basis   varchar not null
        check (source_date_basis in ('commit', 'page', 'capture', 'lower_bound', 'retrieved')),
    ends_on             date,                   -- null: the source names no end
    source_url          varchar not null,
    notes               varchar,
    always_on           boolean not null        -- workers run and bill 24/7 (no scale to zero)
);
insert into serverless_tiers_v6
select
    offer_id, platform, tier, instance_type, gpu_id,
    case when gpu_id is not null then [gpu_id] end,
    null, gpu_count, price, currency, price_unit, price_per_hour, price_per_hour_usd,
    facts_as_of, 'retrieved', null, source_url, notes, always_on
from serverless_tiers;
drop table serverless_tiers;
alter table serverless_tiers_v6 rename to serverless_tiers;
