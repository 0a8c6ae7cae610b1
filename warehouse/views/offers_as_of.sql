-- offers_as_of(at_time): the comparison as it stood at one instant, from the price intervals.
-- Grain: one row per offer (and source) valid at `at_time`, cheapest per GPU-hour first.
-- Usage: select * from offers_as_of(timestamp '2025-06-16');   (a timestamp without zone is UTC
-- in the warehouse; the DuckDB CLI uses its session time zone)
-- Includes offers of providers whose later scrapes failed (not seen is not gone) and imported
-- history (`source` = 'import:<dataset>'). `gpu_family` is set only on family-level rows
-- (gpu_id null; the source named just the family).
-- Kind: table macro
-- Depends on: offer_intervals, gpus.
-- Published: yes
create or replace macro offers_as_of(at_time) as table
select
    h.offer_id,
    h.source,
    h.provider,
    h.instance_type,
    h.region,
    h.cloud_tier,
    h.pricing,
    h.reserved_term_months,
    h.gpu_name_provider,
    h.gpu_id,
    h.gpu_family,
    g.name as gpu_name,
    h.gpu_count,
    g.vram_gb as vram_gb_per_gpu,
    h.serverless,
    h.price,
    h.currency,
    h.price_per_hour_usd,
    h.price_per_gpu_hour_usd,
    h.valid_from,
    h.valid_to
from offer_intervals as h
left join gpus as g on h.gpu_id = g.gpu_id
where h.valid_from <= at_time::timestamptz
  and (h.valid_to is null or h.valid_to > at_time::timestamptz)
order by price_per_gpu_hour_usd nulls last, h.provider, h.instance_type
