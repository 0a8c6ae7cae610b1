"""The read queries of the catalog, over a published snapshot: what GET /gpus, GET /providers/{slug}
and GET /serverless select (GET /providers is ``PROVIDERS_SQL`` of ``warehouse.queries.sql``).

Values are always bound parameters.
"""

from __future__ import annotations

GPUS_SQL = "select * from gpus order by vendor, gpu_id"

# --- provider facts and serverless platforms (GET /providers/{slug}, GET /serverless) ---------
PROVIDER_FACTS_SQL = "select * from provider_facts where provider = ?"
KNOWN_PROVIDERS_SQL = """
    select provider from provider_status
    union select provider from provider_facts
    union select platform from serverless_platforms
    order by 1
"""
PLATFORM_SQL = "select * from serverless_platforms where platform = ?"
PLATFORMS_SQL = "select * from serverless_platforms order by platform"
# The platform's tiers as they are served: curated tiers and, for a scraped platform, its offers
# (a catalogue of the platform: expired tiers are listed, marked expired).
PLATFORM_TIERS_SQL = """
    select o.offer_id as id, o.provider as platform, o.instance_type as tier,
           o.gpu_id, o.gpu_count, o.price, o.currency, o.price_unit,
           o.price_per_hour_usd, coalesce(t.always_on, false) as always_on, o.price_source,
           o.observed_at, o.source_url, o.source_kind, o.observed_basis, o.price_kind,
           o.shelf_life_days, o.expires_at, o.expired
    from current_offers as o
    left join serverless_tiers as t using (offer_id)
    where o.serverless and o.provider in (select unnest(?))
    order by o.provider, o.price_per_hour_usd, o.offer_id
"""
