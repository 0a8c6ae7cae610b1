-- 0003: curated provider facts, serverless platforms and tiers, reference LLMs (seed mirrors,
-- replaced from warehouse/seeds/*.csv on every run), and the derived token_estimates table
-- (rebuilt every run by warehouse/estimates.py). Units are in the column names; money is USD.

-- warehouse/seeds/provider_facts.csv: one row per provider slug. Empty cells are null (unknown).
create table provider_facts (
    provider                        varchar primary key,
    name                            varchar not null,
    kind                            varchar not null check (kind in ('cloud', 'marketplace', 'serverless')),
    billing_granularity             varchar check (billing_granularity in ('second', 'minute', 'hour', 'month')),
    billing_granularity_s           decimal(12, 3),
    minimum_charge_s                decimal(12, 3),
    egress_usd_per_gb               decimal(18, 6),
    block_storage_usd_per_gb_month  decimal(18, 6),
    spot_available                  boolean,
    interconnect_notes              varchar,
    facts_as_of                     date not null,
    source_urls                     varchar not null,   -- space-separated https URLs
    notes                           varchar
);

-- warehouse/seeds/serverless_platforms.csv: how each serverless GPU platform bills and scales.
create table serverless_platforms (
    platform                varchar primary key,
    name                    varchar not null,
    deployment              varchar not null,
    billing_granularity_s   decimal(12, 3),
    minimum_charge_s        decimal(12, 3),
    scale_to_zero           boolean,
    idle_charged            varchar check (idle_charged in ('true', 'false', 'partial')),
    min_replicas_supported  boolean,
    warm_pool               varchar,
    cold_start_mitigations  varchar,
    max_request_duration_s  integer,
    concurrency_controls    varchar,
    autoscaling_controls    varchar,
    persistent_volumes      varchar,
    facts_as_of             date not null,
    source_urls             varchar not null,
    notes                   varchar
);

-- warehouse/seeds/serverless_tiers.csv: one row per platform x GPU tier (pooled tiers: one row
-- per canonical GPU). offer_id / instance_type / price_per_hour are computed at load time so a
-- tier can be served as an offer (warehouse.load.offer_id, warehouse.units.price_per_hour).
create table serverless_tiers (
    offer_id            varchar primary key,
    platform            varchar not null,
    tier                varchar not null,
    instance_type       varchar not null,       -- tier, plus the GPU id when a tier pools GPUs
    gpu_id              varchar,                -- null: the source does not pin the GPU down
    gpu_count           decimal(10, 4) not null,
    price               decimal(18, 9) not null,
    currency            varchar not null,
    price_unit          varchar not null check (price_unit in ('second', 'minute', 'hour', 'month')),
    price_per_hour      decimal(18, 6) not null, -- whole tier, in `currency`
    price_per_hour_usd  decimal(18, 6) not null, -- whole tier
    facts_as_of         date not null,
    source_url          varchar not null,
    notes               varchar,
    always_on           boolean not null        -- workers run and bill 24/7 (no scale to zero)
);

-- warehouse/seeds/models.csv: reference LLMs (architecture numbers from each config.json).
create table models (
    model_id                varchar primary key,
    name                    varchar not null,
    hf_repo                 varchar not null,
    architecture            varchar not null check (architecture in ('dense', 'moe')),
    params_total_b          double not null,
    params_active_b         double not null,
    layers                  integer not null,
    hidden_size             integer not null,
    attention_heads         integer not null,
    kv_heads                integer not null,
    head_dim                integer not null,
    kv_latent_dim           integer,
    max_context_tokens      integer not null,
    sliding_window_tokens   integer,
    sliding_window_layers   integer not null,
    num_experts             integer,
    experts_per_token       integer,
    checkpoint_precision    varchar not null,
    source_url              varchar not null
);

-- Derived, rebuilt every run: serving estimates for every current offer with a canonical GPU x
-- every reference model, at the standard settings (warehouse.estimates.STANDARD_*).
-- Grain: one row per (offer_id, model_id). Rates are for the whole instance.
create table token_estimates (
    offer_id                        varchar not null,
    model_id                        varchar not null,
    provider                        varchar not null,
    instance_type                   varchar not null,
    region                          varchar not null,
    pricing                         varchar not null,
    serverless                      boolean not null,
    gpu_id                          varchar not null,
    gpu_count                       decimal(10, 4) not null,
    input_tokens                    integer not null,
    output_tokens                   integer not null,
    precision_requested             varchar not null,
    weight_precision                varchar not null,
    compute_precision               varchar not null,
    kv_precision                    varchar not null,
    precision_native                boolean not null,
    fallback_reason                 varchar,
    fits                            boolean not null,
    not_estimated_reason            varchar,
    gpus_used                       integer not null,
    tensor_parallel                 integer not null,
    data_parallel                   integer not null,
    batch_per_replica               integer not null,
    output_tokens_per_s             double not null,
    total_tokens_per_s              double not null,
    price_per_hour_usd              decimal(18, 6) not null,
    usd_per_million_output_tokens   decimal(18, 6),
    usd_per_million_total_tokens    decimal(18, 6),
    observed_at                     timestamptz not null,
    primary key (offer_id, model_id)
);
