-- current_offers: the comparison the API serves.
-- Grain: one row per offer_id, from each provider's newest successful scrape, plus the curated
-- serverless tiers (seeds/serverless_tiers.csv) of platforms that are not scraped.
-- Depends on: scrapes, observations, gpus, serverless_tiers, provider_facts, serverless_platforms;
-- variable stale_before.
-- A provider whose newest scrape failed keeps serving its last good scrape ("not seen is not gone").
-- Billing facts come from provider_facts, else (serverless platforms) serverless_platforms;
-- null = unknown.
create or replace table current_offers as
with latest_scrape as (
    select provider, arg_max(scrape_id, observed_at) as scrape_id
    from scrapes
    where status = 'success'
    group by provider
),

scraped as (
    select o.*, 'scrape' as price_source
    from observations as o
    inner join latest_scrape as l on o.scrape_id = l.scrape_id
),

-- A platform that is also scraped (its slug has a successful scrape) is served from the scrape.
curated_serverless as (
    select
        t.offer_id,
        t.platform as provider,
        t.instance_type,
        'global' as region,
        'on_demand' as pricing,
        null::integer as reserved_term_months,
        t.tier as gpu_name,
        t.gpu_id,
        t.gpu_count,
        null::decimal(10, 2) as vram_gb_per_gpu,
        null::decimal(10, 2) as vcpus,
        null::decimal(12, 2) as ram_gb,
        null::decimal(14, 2) as storage_gb,
        t.price,
        t.currency,
        t.price_unit,
        'instance' as price_per,
        t.price_per_hour,
        (t.price_per_hour_usd / t.price_per_hour)::decimal(18, 8) as usd_per_unit,
        t.facts_as_of as fx_rate_date,
        t.price_per_hour_usd,
        true as serverless,
        t.source_url,
        t.facts_as_of::timestamptz as observed_at,
        'curated' as price_source
    from serverless_tiers as t
    where t.platform not in (select provider from latest_scrape)
),

offers as (
    select * exclude (scrape_id) from scraped
    union all by name
    select * from curated_serverless
),

typed as (
    select
        o.offer_id,
        o.provider,
        o.instance_type,
        o.region,
        o.pricing,
        o.reserved_term_months,
        o.gpu_name,
        o.gpu_id,
        g.name as gpu_model,
        g.vendor as gpu_vendor,
        o.gpu_count,
        coalesce(o.vram_gb_per_gpu, g.vram_gb) as vram_gb_per_gpu,
        g.memory_type,
        g.memory_bandwidth_gbps,
        coalesce(g.fp8_support, false) as fp8,
        coalesce(g.bf16_support, false) as bf16,
        g.interconnect,
        o.vcpus,
        o.ram_gb,
        o.storage_gb,
        o.price,
        o.currency,
        o.price_unit,
        o.price_per,
        o.price_per_hour,
        o.usd_per_unit,
        o.fx_rate_date,
        o.price_per_hour_usd,
        o.serverless,
        o.source_url,
        o.observed_at,
        o.price_source,
        coalesce(
            f.billing_granularity,
            case p.billing_granularity_s when 1 then 'second' when 60 then 'minute'
                when 3600 then 'hour' end
        ) as billing_granularity,
        coalesce(f.billing_granularity_s, p.billing_granularity_s) as billing_granularity_s,
        coalesce(f.minimum_charge_s, p.minimum_charge_s) as minimum_charge_s,
        f.egress_usd_per_gb,
        f.block_storage_usd_per_gb_month,
        f.spot_available
    from offers as o
    left join gpus as g on o.gpu_id = g.gpu_id
    left join provider_facts as f on o.provider = f.provider
    left join serverless_platforms as p on o.provider = p.platform
)

select
    *,
    gpu_count * vram_gb_per_gpu as vram_gb_total,
    round(price_per_hour_usd / gpu_count, 6) as price_per_gpu_hour_usd,
    case when vram_gb_per_gpu > 0
        then round(price_per_hour_usd / (gpu_count * vram_gb_per_gpu), 6)
    end as price_per_vram_gb_hour_usd,
    -- stale: the provider's last successful scrape finished before the freshness cut-off
    -- (variable set by warehouse.derive.rebuild; see warehouse/quality.py). Unscraped rows: false.
    coalesce((
        select max(s.finished_at) from scrapes as s
        where s.provider = typed.provider and s.status = 'success'
    ) < getvariable('stale_before'), false) as stale
from typed
order by provider, instance_type, region, pricing;
