-- 0002: imported price history, market summaries, the daily price rollup, raw-data retention.
-- Forward-only. Money is decimal(18,6) USD unless a currency column says otherwise; times UTC.

-- offer_history gains the provider's GPU spelling (kept for rows whose GPU does not resolve, e.g.
-- imported history naming only a family such as "NVIDIA H100") and the serverless flag (the
-- daily rollup compares instances, not serverless tiers). Rows written before 0002 leave both null.
-- For imported rows (source 'import:<dataset>') `price` is the dataset's instance-hour price in
-- `currency`; for scraped rows it is the provider's price as quoted (see observations).
alter table offer_history add column gpu_name varchar;
alter table offer_history add column serverless boolean;

-- Aggregated market snapshots (Prime Intellect: one row per GPU market per ~30 minutes).
-- Prices are USD per GPU-hour as the dataset states them; spot and on-demand offers are mixed.
create table market_summaries (
    source                          varchar not null,   -- 'import:<dataset>'
    market                          varchar not null,   -- the dataset's key, e.g. 'H100_80GB SXM5'
    observed_at                     timestamptz not null,
    gpu_name                        varchar not null,
    socket                          varchar,
    gpu_id                          varchar,            -- null = did not resolve (reported)
    min_usd_per_gpu_hour            decimal(18, 6),
    p10_usd_per_gpu_hour            decimal(18, 6),
    p25_usd_per_gpu_hour            decimal(18, 6),
    median_usd_per_gpu_hour         decimal(18, 6),
    p75_usd_per_gpu_hour            decimal(18, 6),
    p90_usd_per_gpu_hour            decimal(18, 6),
    max_usd_per_gpu_hour            decimal(18, 6),
    mean_usd_per_gpu_hour           decimal(18, 6),
    offers_total                    integer,
    offers_available                integer,
    availability_low                integer,
    availability_medium             integer,
    availability_high               integer,
    primary key (source, market, observed_at)
);

-- Per-provider lines of a market snapshot (provider names as the dataset spells them).
create table market_summary_providers (
    source                  varchar not null,
    market                  varchar not null,
    observed_at             timestamptz not null,
    provider                varchar not null,
    offer_count             integer not null,
    min_usd_per_gpu_hour    decimal(18, 6) not null,
    avg_usd_per_gpu_hour    decimal(18, 6) not null,
    primary key (source, market, observed_at, provider)
);

-- Datasets that list offers without a stable identity or a GPU count (gpuhunt catalog query
-- results: GPU family, instance-hour price, provider) cannot become offer intervals; they are
-- kept as per-(day, provider, GPU) statistics of the instance-hour price instead.
create table imported_daily_prices (
    source                      varchar not null,
    day                         date not null,
    captured_at                 timestamptz not null,
    provider                    varchar not null,   -- as the dataset spells it
    gpu_name                    varchar not null,   -- as the dataset spells it
    gpu_id                      varchar,            -- null = family name or unknown (reported)
    offer_count                 integer not null,
    min_price_per_hour_usd      decimal(18, 6) not null,
    median_price_per_hour_usd   decimal(18, 6) not null,
    max_price_per_hour_usd      decimal(18, 6) not null,
    primary key (source, day, provider, gpu_name)
);

-- One row per imported dataset: what was read, written, excluded and left unresolved.
-- `fingerprint` covers the input files and the importer version: an equal fingerprint means
-- the import would write exactly the same rows, so it is skipped.
create table history_imports (
    source              varchar primary key,
    fingerprint         varchar not null,
    files               integer not null,
    rows_read           bigint not null,
    rows_written        bigint not null,
    excluded            varchar not null,   -- JSON object: reason -> row count
    unresolved_gpus     varchar not null,   -- JSON object: GPU spelling -> row count
    first_observed_at   timestamptz,
    last_observed_at    timestamptz,
    imported_at         timestamptz not null
);

-- Daily rollup of offer_history (see warehouse/rollups/daily_provider_prices.sql): refreshed
-- incrementally from `dirty_from` (lowered by every history change and every import) and from
-- the last refreshed day (open intervals grow by a day every day).
create table daily_provider_prices (
    day                     date not null,
    provider                varchar not null,
    gpu_id                  varchar not null,
    pricing                 varchar not null,
    source                  varchar not null,
    min_usd_per_gpu_hour    decimal(18, 6) not null,
    max_usd_per_gpu_hour    decimal(18, 6) not null,
    offer_count             integer not null
);

create table history_rollup_state (
    rollup              varchar primary key,
    dirty_from          date,
    refreshed_through   date,
    refreshed_at        timestamptz
);
insert into history_rollup_state values ('daily_provider_prices', null, null, null);

-- Retention of raw rows. Observations are re-derivable from the raw archive (every response
-- body is kept, content-addressed) and their history lives on in offer_history, so only a
-- recent window is kept. Change keep_days with an UPDATE; the next pipeline run applies it.
create table retention_policy (
    table_name  varchar primary key,
    keep_days   integer not null check (keep_days >= 0),
    rule        varchar not null
);
insert into retention_policy values (
    'observations', 14,
    'delete observations of scrapes observed more than keep_days before the newest successful '
    || 'scrape, except each provider''s newest successful scrape (current_offers reads it)'
);
