-- 0005: what an offer's numbers mean (issue 10).
-- Forward-only.
-- observations: the provider's memory figure is kept as it was reported (`vram_gb_reported`, per
-- whole GPU); the served `vram_gb_per_gpu` is always the canonical GPU's datasheet figure
-- (models/current_offers.sql). `offered` is the provider's own availability flag for this price
-- (null: the response carries none). Pricing kind 'dynamic' = a price the provider says changes
-- daily (not a fixed on-demand rate). DuckDB cannot alter a check constraint, so the table is
-- rebuilt with the same rows.
create table observations_v5 (
    scrape_id               varchar not null,
    offer_id                varchar not null,
    provider                varchar not null,
    instance_type           varchar not null,
    region                  varchar not null,
    pricing                 varchar not null
        check (pricing in ('on_demand', 'spot', 'reserved', 'dynamic')),
    reserved_term_months    integer,
    gpu_name                varchar not null,
    gpu_id                  varchar,
    gpu_count               decimal(10, 4) not null,
    vram_gb_reported        decimal(10, 2),
    vcpus                   decimal(10, 2),
    ram_gb                  decimal(12, 2),
    storage_gb              decimal(14, 2),
    price                   decimal(18, 9) not null,
    currency                varchar not null,
    price_unit              varchar not null,
    price_per               varchar not null,
    serverless              boolean not null,
    source_url              varchar not null,
    observed_at             timestamptz not null,
    price_per_hour          decimal(18, 6) not null,
    usd_per_unit            decimal(18, 8) not null,
    fx_rate_date            date,               -- null: quoted in USD, no conversion
    price_per_hour_usd      decimal(18, 6) not null,
    offered                 boolean,
    primary key (scrape_id, offer_id)
);
insert into observations_v5
select
    scrape_id, offer_id, provider, instance_type, region, pricing, reserved_term_months,
    gpu_name, gpu_id, gpu_count, vram_gb_per_gpu, vcpus, ram_gb, storage_gb, price, currency,
    price_unit, price_per, serverless, source_url, observed_at, price_per_hour, usd_per_unit,
    case when currency = 'USD' then null else fx_rate_date end, price_per_hour_usd,
    null
from observations;
drop table observations;
alter table observations_v5 rename to observations;

-- How precisely a scrape's observed_at is known: 'second' (a live fetch), 'minute', 'day' or
-- 'month' (a capture dated only to the day or the month; its observed_at is the first instant
-- of that period).
alter table scrapes add column observed_precision varchar;
update scrapes set observed_precision = case when mode = 'live' then 'second' end;

-- The plausibility screen (warehouse/plausibility.py): one row per screened observation.
-- Written when a scrape is loaded (against the market current at the time) and again for the
-- current offers after every run (against the whole current market), so history keeps which
-- prices were judged suspect. `reasons` is a JSON array of {code, detail}.
create table price_screens (
    scrape_id       varchar not null,
    offer_id        varchar not null,
    provider        varchar not null,
    price_status    varchar not null check (price_status in ('ok', 'suspect')),
    reasons         varchar not null,
    screened_at     timestamptz not null,
    primary key (scrape_id, offer_id)
);
