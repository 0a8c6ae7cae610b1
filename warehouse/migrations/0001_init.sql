-- 0001: raw archive, scrapes, observations, seeds, price history.
-- Forward-only. Money is decimal(18,6) with an explicit currency column; times are UTC timestamptz.

-- Content-addressed archive of response bodies: one row per distinct body (sha256 of the bytes).
-- The bytes themselves live gzip-compressed under $GPUPRICES_HOME/raw/<sha[:2]>/<sha>.gz.
create table raw_responses (
    sha256          varchar primary key,
    content_type    varchar not null,
    size_bytes      bigint not null,
    first_seen_at   timestamptz not null
);

-- One attempt to scrape one provider: a live fetch, or the replay of one capture file.
create table scrapes (
    scrape_id       varchar primary key,
    provider        varchar not null,
    run_id          varchar,
    mode            varchar not null check (mode in ('live', 'replay')),
    source          varchar not null,
    started_at      timestamptz not null,
    finished_at     timestamptz,
    observed_at     timestamptz,
    status          varchar not null check (status in ('running', 'success', 'failed', 'skipped')),
    error           varchar,
    offer_count     integer
);

-- Every HTTP exchange of a scrape (no request headers are stored: they may carry credentials).
create table fetches (
    scrape_id       varchar not null,
    seq             integer not null,
    method          varchar not null,
    url             varchar not null,
    status          integer not null,
    fetched_at      timestamptz not null,
    sha256          varchar not null,
    primary key (scrape_id, seq)
);

-- What a successful scrape saw: one row per offer per scrape, prices as the provider states them
-- plus the one normalisation to USD per instance-hour (see warehouse/units.py).
create table observations (
    scrape_id               varchar not null,
    offer_id                varchar not null,
    provider                varchar not null,
    instance_type           varchar not null,
    region                  varchar not null,
    pricing                 varchar not null check (pricing in ('on_demand', 'spot', 'reserved')),
    reserved_term_months    integer,
    gpu_name                varchar not null,
    gpu_id                  varchar,
    gpu_count               decimal(10, 4) not null,
    vram_gb_per_gpu         decimal(10, 2),
    vcpus                   decimal(10, 2),
    ram_gb                  decimal(12, 2),
    storage_gb              decimal(14, 2),
    price                   decimal(18, 9) not null,  -- as quoted (some SKUs carry 9 decimals)
    currency                varchar not null,
    price_unit              varchar not null,
    price_per               varchar not null,
    serverless              boolean not null,
    source_url              varchar not null,
    observed_at             timestamptz not null,
    price_per_hour          decimal(18, 6) not null,
    usd_per_unit            decimal(18, 8) not null,
    fx_rate_date            date not null,
    price_per_hour_usd      decimal(18, 6) not null,
    primary key (scrape_id, offer_id)
);

-- Change intervals per offer: a new row only when the offer's price or shape changes.
-- valid_to null = current. `source` tells scraped rows from imported history.
create table offer_history (
    offer_id                varchar not null,
    provider                varchar not null,
    valid_from              timestamptz not null,
    valid_to                timestamptz,
    instance_type           varchar not null,
    region                  varchar not null,
    pricing                 varchar not null,
    reserved_term_months    integer,
    gpu_id                  varchar,
    gpu_count               decimal(10, 4) not null,
    price                   decimal(18, 9) not null,
    currency                varchar not null,
    price_per_hour_usd      decimal(18, 6) not null,
    source                  varchar not null,
    scrape_id               varchar,
    primary key (offer_id, valid_from)
);

-- Seeds (replaced from warehouse/seeds/*.csv on every run).
create table gpus (
    gpu_id                      varchar primary key,
    name                        varchar not null,
    vendor                      varchar not null,
    architecture                varchar,
    vram_gb                     decimal(8, 2) not null,
    memory_type                 varchar,
    memory_bandwidth_gbps       decimal(10, 1),
    fp16_tflops_dense           decimal(10, 2),
    bf16_tflops_dense           decimal(10, 2),
    fp8_tflops_dense            decimal(10, 2),
    int8_tops_dense             decimal(10, 2),
    fp4_tflops_dense            decimal(10, 2),
    fp8_support                 boolean not null,
    bf16_support                boolean not null,
    form_factor                 varchar,
    interconnect                varchar,
    interconnect_bandwidth_gbps decimal(10, 1),
    tdp_watts                   integer,
    source_url                  varchar not null
);

create table gpu_aliases (
    alias_key   varchar primary key,   -- warehouse.gpus.normalise_gpu_name(spelling)
    gpu_id      varchar not null
);

create table fx_rates (
    rate_date       date not null,
    currency        varchar not null,
    usd_per_unit    decimal(18, 8) not null,
    source          varchar not null,
    primary key (rate_date, currency)
);
