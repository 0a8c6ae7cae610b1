-- current_offers: the comparison the API serves.
-- Grain: one row per offer_id, from each provider's newest successful scrape.
-- Depends on: scrapes, observations, gpus.
-- A provider whose newest scrape failed keeps serving its last good scrape ("not seen is not gone").
create or replace table current_offers as
with latest_scrape as (
    select provider, arg_max(scrape_id, observed_at) as scrape_id
    from scrapes
    where status = 'success'
    group by provider
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
        o.observed_at
    from observations as o
    inner join latest_scrape as l on o.scrape_id = l.scrape_id
    left join gpus as g on o.gpu_id = g.gpu_id
)

select
    *,
    gpu_count * vram_gb_per_gpu as vram_gb_total,
    round(price_per_hour_usd / gpu_count, 6) as price_per_gpu_hour_usd,
    case when vram_gb_per_gpu > 0
        then round(price_per_hour_usd / (gpu_count * vram_gb_per_gpu), 6)
    end as price_per_vram_gb_hour_usd
from typed
order by provider, instance_type, region, pricing;
