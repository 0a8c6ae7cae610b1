-- current_offers: the comparison the API serves.
-- Grain: one row per offer_id, from each provider's newest successful scrape (and, after one
-- that skipped parts, the scrapes before it back to a complete one: below), plus the curated
-- serverless tiers (seeds/serverless_tiers.csv) of platforms that are not scraped.
-- Kind: model
-- Depends on: scrapes, scrape_skipped_parts, observations, price_screens, gpus,
-- serverless_tiers, provider_facts, serverless_platforms, shelf_lives, regions, countries,
-- price_kind; variables as_of (the snapshot instant) and stale_after_days.
-- Published: yes
-- A provider whose newest scrape failed keeps serving its last good scrape ("not seen is not gone").
-- Skipped parts: a successful scrape with parts of its fetch that failed alone (an AWS region, a
-- page; scrape_skipped_parts) saw a subset of its provider's list, so it does not take away the
-- offers it does not list: each offer is served from its newest observation in the provider's
-- newest scrape without skipped parts or any later successful one (the skipped region's last
-- good offers stay current, dated by their own observation; the other regions update), as
-- offer_history keeps them open (docs/history.md, "Coverage").
-- Interconnect is the instance's: none for one GPU or a share of one (gpu_count <= 1), else the
-- GPU model's (the part the source names: SXM -> nvlink, NVL -> nvlink_bridge, PCIe -> pcie).
-- listings: how many identical source rows the offer stands for (1 but for marketplaces);
-- single_gpu_price*: a price for one GPU the source prints beside the instance price.
-- Billing facts come from provider_facts, else (serverless platforms) serverless_platforms;
-- null = unknown.
-- GPU: gpu_id is the canonical model; a row no model fits alone carries the family its facts
-- allow instead (gpu_family, e.g. 'a100-80gb'; gpu_id null, migration 0019).
-- Memory: vram_gb_per_gpu is the canonical GPU's datasheet figure, always; the provider's own
-- figure is vram_gb_reported (flagged when more than 10% away). A share of a GPU (gpu_count < 1:
-- MIG profile, vGPU share) gives the user gpu_count x the datasheet memory (vram_gb_usable);
-- filters, $/GB and model fit use usable memory. Unknown GPU: specs and capabilities null.
-- Price per GPU-hour: the observation's (tier's) stored price_per_gpu_hour_usd, computed once by
-- warehouse/units.py, never derived here. An announced price in force at as_of is the price
-- (its stored figures, announced = true, previous_* the one it replaces); one still to come is
-- announced_price* from announced_from.
-- Place: region is the provider's own id (cloud_tier its product tier, where it has tiers);
-- country, continent and city come from the regions seed (an exact id before a 'PREFIX*' row),
-- or, where the row itself names its country (observations.country, e.g. a host's location),
-- from that and the countries seed. Null: the region names no place (global, unknown).
-- Age: age_days is the price's own age at as_of (observed_at, at its stated precision), and
-- stale = age_days > stale_after_days, whatever the scrape did.
-- Shelf life: price_kind (the price_kind macro: dynamic, spot, marketplace, on_demand, reserved,
-- serverless) decides how long the price stays in force (shelf_lives, written from the settings
-- before this model is built); expires_at = observed_at + that many days, and expired =
-- as_of >= expires_at. Expired offers stay in the table (include_expired=true shows them);
-- every answer that lists or ranks offers leaves them out by default.
-- Availability: available is what the source says (observations.available: true on sale, false
-- not on sale, null unknown), false from the offer's announced end of service on
-- (available_until <= as_of). Unavailable offers stay in the table (include_unavailable=true
-- shows them); every answer that lists or ranks offers leaves them out by default.
-- Provenance: source_kind (provider, third_party) and observed_basis (published, captured,
-- retrieved, undated; warehouse/provenance.py) say where the price and its date come from. A
-- scraped price is the provider's own, dated by the stored response (captured); a curated tier
-- carries its seed row's. An undated tier (a third-party source that prints no date) has no
-- observed_at and no age: it is stale and expired, so max_age_days and default answers skip it.
-- Plausibility: price_status is the screen's stored verdict (price_screens, written by
-- warehouse/plausibility.py; none = 'ok'): 'suspect' (left out by default, include_suspect
-- lists it), 'ok', or 'confirmed' = the value rules (below_market, above_market,
-- repeated_price) questioned the price, but the same offer at the same quoted price was also
-- observed by a successful scrape on another UTC date, or read off another source_url of the
-- provider; served like 'ok'. A not_offered flag or a sibling rule (spot vs on-demand of the
-- SKU, community vs secure) is never confirmed. price_status_reasons (JSON {code, detail})
-- says what the screen found and, last, the confirmation.
create or replace table current_offers as
with successes as (
    select
        s.provider,
        s.scrape_id,
        s.observed_at,
        exists (
            select 1 from scrape_skipped_parts as k where k.scrape_id = s.scrape_id
        ) as skipped_parts
    from scrapes as s
    where s.status = 'success'
),

latest_scrape as (
    select
        provider,
        arg_max(scrape_id, observed_at) as scrape_id,
        max(observed_at) filter (where not skipped_parts) as complete_at
    from successes
    group by provider
),

-- the newest scrape without skipped parts and every later one (only the newest, unless it or
-- the ones before it skipped parts)
serving_scrapes as (
    select s.provider, s.scrape_id
    from successes as s
    inner join latest_scrape as l on s.provider = l.provider
    where s.scrape_id = l.scrape_id or s.observed_at >= coalesce(l.complete_at, '-infinity')
),

scraped as (
    select
        o.*,
        'scrape' as price_source,
        'provider' as source_kind,
        'captured' as observed_basis,
        case s.mode when 'live' then 'live' else 'recorded' end as data_origin,
        coalesce(s.observed_precision, 'second') as observed_precision
    from observations as o
    inner join serving_scrapes as l on o.scrape_id = l.scrape_id
    inner join scrapes as s on o.scrape_id = s.scrape_id
    qualify row_number() over (
        partition by o.offer_id order by o.observed_at desc, o.scrape_id desc
    ) = 1
),

-- Announced prices (observations.announced_*, docs/history.md): from announced_from on (at
-- as_of) the announced figures are the offer's price (announced = true; previous_* keep the
-- price the scrape showed in force); before it the scraped price stands and announced_price*
-- say what comes from announced_from. The same currency, unit and basis either way.
scraped_priced as (
    select
        * exclude (
            price, price_per_hour, price_per_hour_usd, price_per_gpu_hour_usd, announced_price,
            announced_price_per_hour, announced_price_per_hour_usd,
            announced_price_per_gpu_hour_usd
        ),
        case when announced then announced_price else price end as price,
        case when announced then announced_price_per_hour else price_per_hour end
            as price_per_hour,
        case when announced then announced_price_per_hour_usd else price_per_hour_usd end
            as price_per_hour_usd,
        case when announced then announced_price_per_gpu_hour_usd else price_per_gpu_hour_usd end
            as price_per_gpu_hour_usd,
        case when not announced then announced_price end as announced_price,
        case when not announced then announced_price_per_hour_usd end
            as announced_price_per_hour_usd,
        case when not announced then announced_price_per_gpu_hour_usd end
            as announced_price_per_gpu_hour_usd,
        case when announced then price end as previous_price,
        case when announced then price_per_hour_usd end as previous_price_per_hour_usd,
        case when announced then price_per_gpu_hour_usd end as previous_price_per_gpu_hour_usd
    from (
        select
            *,
            coalesce(announced_from <= getvariable('as_of')::timestamptz, false) as announced
        from scraped
    )
),

-- A platform that is also scraped (its slug has a successful scrape) is served from the scrape.
-- One row per tier, dated by its source (source_date, UTC midnight); a tier whose source names
-- an end (ends_on) is not served from that day on. A tier that may land on several GPUs carries
-- them (gpu_candidates) and the memory per GPU it guarantees; gpu_id is the guaranteed minimum.
curated_serverless as (
    select
        t.offer_id,
        t.platform as provider,
        t.instance_type,
        'global' as region,
        null::varchar as cloud_tier,
        null::varchar as country,
        'on_demand' as pricing,
        null::integer as reserved_term_months,
        t.tier as gpu_name_provider,
        t.gpu_id,
        t.gpu_family,
        t.gpu_candidates,
        t.vram_gb_guaranteed,
        t.gpu_count,
        null::decimal(10, 2) as vram_gb_reported,
        null::decimal(10, 2) as vcpus,
        null::decimal(12, 2) as ram_gb,
        null::decimal(14, 2) as storage_gb,
        t.price,
        t.currency,
        t.price_unit,
        'instance' as price_per,
        t.price_per_hour,
        (t.price_per_hour_usd / t.price_per_hour)::decimal(18, 8) as usd_per_unit,
        case when t.currency = 'USD' then null else t.source_date end as fx_rate_date,
        t.price_per_hour_usd,
        t.price_per_gpu_hour_usd,
        true as serverless,
        t.source_url,
        timezone('UTC', t.source_date::timestamp) as observed_at,
        null::boolean as offered,
        null::boolean as available,
        null::timestamptz as available_until,
        1 as listings,
        'curated' as scrape_id,
        'curated' as price_source,
        t.source_kind,
        t.observed_basis,
        'curated' as data_origin,
        'day' as observed_precision
    from serverless_tiers as t
    where
        t.platform not in (select provider from latest_scrape)
        and (
            t.ends_on is null
            or timezone('UTC', t.ends_on::timestamp) > getvariable('as_of')::timestamptz
        )
),

offers as (
    select * from scraped_priced
    union all by name
    select * from curated_serverless
),

-- Where each offer's region is: its exact id in the regions seed, else the longest prefix row.
offer_places as (
    select distinct on (o.offer_id) o.offer_id, r.country, r.continent, r.city
    from offers as o
    inner join regions as r
        on o.provider = r.provider
        and (
            lower(o.region) = lower(r.region)
            or (r.region like '%*' and starts_with(lower(o.region), lower(rtrim(r.region, '*'))))
        )
    order by o.offer_id, r.region like '%*', length(r.region) desc
),

-- Capabilities every candidate GPU of a pooled tier has (bool_and: false if one lacks it).
candidate_capabilities as (
    select o.offer_id, bool_and(g.fp8_support) as fp8_all, bool_and(g.bf16_support) as bf16_all
    from offers as o, unnest(o.gpu_candidates) as u(gpu_id)
    inner join gpus as g on u.gpu_id = g.gpu_id
    where o.gpu_candidates is not null
    group by o.offer_id
),

typed as (
    select
        o.offer_id,
        o.provider,
        o.instance_type,
        o.region,
        o.cloud_tier,
        coalesce(o.country, pl.country) as country,
        coalesce(k.continent, pl.continent) as continent,
        pl.city,
        o.pricing,
        o.reserved_term_months,
        o.gpu_name_provider,
        o.gpu_id,
        o.gpu_family,
        g.name as gpu_name,
        g.vendor as gpu_vendor,
        o.gpu_count,
        least(o.gpu_count, 1)::decimal(10, 4) as gpu_fraction,
        o.gpu_candidates,
        -- a pooled serverless tier: the memory it guarantees, if below its minimum GPU's
        least(g.vram_gb, coalesce(o.vram_gb_guaranteed, g.vram_gb))::decimal(10, 2)
            as vram_gb_per_gpu,
        o.vram_gb_reported,
        coalesce(abs(o.vram_gb_reported - g.vram_gb) > 0.10 * g.vram_gb, false)
            as vram_report_mismatch,
        (least(g.vram_gb, coalesce(o.vram_gb_guaranteed, g.vram_gb)) * least(o.gpu_count, 1))
            ::decimal(10, 2) as vram_gb_usable,
        g.memory_type,
        g.memory_bandwidth_gbps,
        -- null: GPU unknown, so are its capabilities; a pooled tier has one only if every
        -- candidate GPU has it
        coalesce(c.fp8_all, g.fp8_support) as fp8,
        coalesce(c.bf16_all, g.bf16_support) as bf16,
        case when o.gpu_count <= 1 then 'none' else g.interconnect end as interconnect,
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
        o.price_per_gpu_hour_usd,
        coalesce(o.announced, false) as announced,
        o.announced_from,
        o.announced_price,
        o.announced_price_per_hour_usd,
        o.announced_price_per_gpu_hour_usd::double as announced_price_per_gpu_hour_usd,
        o.previous_price,
        o.previous_price_per_hour_usd,
        o.previous_price_per_gpu_hour_usd::double as previous_price_per_gpu_hour_usd,
        coalesce(o.listings, 1) as listings,
        o.single_gpu_price,
        o.single_gpu_price_per_hour_usd,
        o.serverless,
        o.source_url,
        o.observed_at,
        o.observed_precision,
        o.offered,
        case
            when o.available_until <= getvariable('as_of')::timestamptz then false
            else o.available
        end as available,
        o.available_until,
        o.scrape_id,
        o.price_source,
        o.source_kind,
        o.observed_basis,
        o.data_origin,
        coalesce(ps.price_status, 'ok') as price_status,
        coalesce(ps.reasons, '[]') as price_status_reasons,
        coalesce(
            f.billing_granularity,
            case p.billing_granularity_s when 1 then 'second' when 60 then 'minute'
                when 3600 then 'hour' end
        ) as billing_granularity,
        coalesce(f.billing_granularity_s, p.billing_granularity_s) as billing_granularity_s,
        coalesce(f.minimum_charge_s, p.minimum_charge_s) as minimum_charge_s,
        f.egress_usd_per_gb,
        f.block_storage_usd_per_gb_month,
        f.spot_available,
        price_kind(o.pricing, o.serverless, f.kind) as price_kind
    from offers as o
    left join gpus as g on o.gpu_id = g.gpu_id
    left join provider_facts as f on o.provider = f.provider
    left join serverless_platforms as p on o.provider = p.platform
    left join price_screens as ps on o.scrape_id = ps.scrape_id and o.offer_id = ps.offer_id
    left join candidate_capabilities as c on o.offer_id = c.offer_id
    left join offer_places as pl on o.offer_id = pl.offer_id
    left join countries as k on coalesce(o.country, pl.country) = k.country
)

select
    typed.* exclude (price_per_gpu_hour_usd),
    (gpu_count * vram_gb_per_gpu)::decimal(12, 2) as vram_gb_total,
    -- stored (warehouse/units.py), served as the DOUBLE it was before migration 0012
    price_per_gpu_hour_usd::double as price_per_gpu_hour_usd,
    case when vram_gb_per_gpu > 0
        then round(price_per_hour_usd / (gpu_count * vram_gb_per_gpu), 6)
    end as price_per_vram_gb_hour_usd,
    round(epoch(getvariable('as_of')::timestamptz - observed_at) / 86400, 1) as age_days,
    -- no observed date (undated source): no age, stale and expired
    coalesce(
        epoch(getvariable('as_of')::timestamptz - observed_at) / 86400
        > getvariable('stale_after_days'),
        true
    ) as stale,
    l.shelf_life_days,
    -- exact microseconds, so the expiry does not depend on the session's time zone
    observed_at + to_microseconds(round(l.shelf_life_days * 86400000000)::bigint) as expires_at,
    coalesce(getvariable('as_of')::timestamptz >= expires_at, true) as expired
from typed
inner join shelf_lives as l on typed.price_kind = l.price_kind
order by provider, instance_type, region, cloud_tier, pricing;
