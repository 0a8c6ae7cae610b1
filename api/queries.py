"""Every SQL statement the API runs that is not about current offers (those are
``warehouse.queries``). Values are always bound parameters;
identifiers (sort columns) come only from the allow-lists below."""

from __future__ import annotations

from typing import Any

# Offers (GET /instances, `gpuprices query`, the economics endpoints' offer filters) are
# warehouse.queries: re-exported here for the endpoints that have not moved yet.
from warehouse.queries import (
    INSTANCE_COLUMNS,
    PROVIDER_STATUS_SQL,
    PROVIDERS_SQL,
    OfferFilter,
    Where,
    cheapest_per_gpu_sql,
    gpu_filter,
    gpu_prefix_pattern,
    instances_sql,
)

__all__ = [
    "INSTANCE_COLUMNS",
    "PROVIDERS_SQL",
    "PROVIDER_STATUS_SQL",
    "OfferFilter",
    "Where",
    "cheapest_per_gpu_sql",
    "gpu_prefix_pattern",
    "instances_sql",
    "instances_where",
    "normalise_gpu_filter",
]


def normalise_gpu_filter(value: str) -> str:
    """A GPU value -> its filter term (``warehouse.queries.gpu_filter``)."""
    return gpu_filter(value)


def instances_where(f: dict[str, Any] | OfferFilter) -> Where:
    """Offer filters (an OfferFilter, or a dict of its fields holding normalised values, as
    the economics endpoints build them) -> a bound where clause over current_offers."""
    if isinstance(f, OfferFilter):
        return f.where()
    given: dict[str, Any] = {
        k: (tuple(v) if isinstance(v, list) else v)
        for k, v in f.items()
        if v is not None and not (k == "include_suspect" and not v)
    }
    return OfferFilter(**given).where()


GPUS_SQL = "select * from gpus order by vendor, gpu_id"
HEALTH_SQL = """
    select count(*) as offers, count(distinct provider) as providers,
           count(*) filter (where expired) as expired_offers
    from current_offers
"""
HEALTH_ORIGINS_SQL = """
    select data_origin, count(*) as offers, count(distinct provider) as providers,
           min(age_days) as newest_age_days, max(age_days) as oldest_age_days
    from current_offers group by data_origin order by data_origin
"""


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

# --- economics (GET /models, /estimates, /fit, /breakeven) ------------------------------------
MODELS_SQL = "select * from models order by model_id"
MODEL_IDS_SQL = "select model_id from models order by model_id"
ECONOMICS_GPUS_SQL = "select * from gpus"
# token_estimates joined with the filtered offers (filters are instances_where over
# current_offers, applied in a CTE so their column names stay unambiguous).
ESTIMATE_ITEM_COLUMNS = """
    e.offer_id, e.provider, e.instance_type, e.region, e.pricing, e.serverless,
    e.gpu_id, e.gpu_count, e.model_id, e.input_tokens, e.output_tokens,
    e.precision_requested, e.weight_precision, e.compute_precision, e.kv_precision,
    e.precision_native, e.fallback_reason, e.gpus_used, e.tensor_parallel, e.data_parallel,
    e.batch_per_replica, e.output_tokens_per_s, e.total_tokens_per_s, e.price_per_hour_usd,
    e.usd_per_million_output_tokens, e.usd_per_million_total_tokens, e.observed_at, o.source_url,
    o.price_kind, o.shelf_life_days, o.expires_at, o.expired, e.engine_class,
    e.batch_cap_per_replica, e.batch_limited_by, e.kv_cache_gb_per_replica,
    e.hbm_bandwidth_fraction, e.limiting_regime
"""


def token_estimates_sql(where: Where) -> tuple[str, str]:
    """(page, count) over token_estimates for one model (first bound parameter after the
    filters), fitting rows only, cheapest USD per million total tokens first."""
    base = (
        "with offers as (select offer_id, source_url, price_kind, shelf_life_days, expires_at,"
        f" expired from current_offers {where.sql()})"
        " select {cols} from token_estimates as e inner join offers as o using (offer_id)"
        " where e.model_id = ? and e.fits"
    )
    page = (
        base.format(cols=ESTIMATE_ITEM_COLUMNS)
        + " order by e.usd_per_million_total_tokens, e.offer_id limit ?"
    )
    return page, base.format(cols="count(*) as n")


def economics_offers_sql(where: Where) -> str:
    """Current offers with a canonical GPU and a positive price matching the filters, with the
    billing facts the economics endpoints need (serverless platform facts where they apply)."""
    return f"""
        with offers as (select * from current_offers {where.sql()})
        select o.offer_id, o.provider, o.instance_type, o.region, o.pricing, o.serverless,
               o.gpu_id, o.gpu_count, o.price_per_hour_usd, o.observed_at, o.source_url,
               o.price_kind, o.shelf_life_days, o.expires_at, o.expired,
               o.billing_granularity_s, o.minimum_charge_s, p.scale_to_zero, p.idle_charged,
               coalesce(t.always_on, false) as always_on, t.gpu_candidates,
               t.vram_gb_guaranteed
        from offers as o
        left join serverless_platforms as p on o.provider = p.platform
        left join serverless_tiers as t on o.offer_id = t.offer_id
        where o.gpu_id is not null and o.price_per_hour_usd > 0
        order by o.offer_id
    """


# GET /charts/{offer_id}/history.svg: one offer's change intervals, oldest first.
OFFER_HISTORY_SQL = """
    select valid_from, valid_to, price_per_hour_usd, provider, instance_type, region, pricing
    from offer_history
    where offer_id = ?
    order by valid_from
"""


# --- price history: GET /instances/{id}/history, /history, /changes ---------------------------

# GET /history/catalog: imported catalog statistics (imported_daily_prices: one row per day,
# source, provider and GPU name, in USD per instance-hour, with no GPU count), per day and GPU
# level. Parameters, in order: first day (date, inclusive; null = from the first), last day
# (date, inclusive), gpu term, its prefix pattern (gpu_prefix_pattern; null for a canonical
# id). The GPU rule is GET /history's: a term matches its own gpu_id and, for a family term,
# its members' ids and the family-level rows it covers (gpu_id null, gpu_family set). Model-
# and family-level rows are never merged: a "gpuhunt H100" row may be any H100 variant.
# A provider listing one GPU under two spellings on a day (two rows mapping to one model or
# family) counts once, with its cheapest price, as in GET /history.
CATALOG_HISTORY_SQL = """
    with params as (
        select ?::date as day_from, ?::date as day_to, ?::varchar as gpu,
               ?::varchar as gpu_prefix
    ),

    matching as (
        select
            i.day,
            i.source,
            i.provider,
            case when i.gpu_id is null then 'family' else 'model' end as gpu_level,
            i.gpu_id,
            case when i.gpu_id is null then i.gpu_family end as gpu_family,
            i.offer_count,
            i.min_price_per_hour_usd
        from imported_daily_prices as i, params as p
        where (p.day_from is null or i.day >= p.day_from)
          and i.day <= p.day_to
          and (
              i.gpu_id = p.gpu
              or i.gpu_id like p.gpu_prefix escape '\\'
              or (
                  i.gpu_id is null
                  and p.gpu_prefix is not null
                  and (i.gpu_family = p.gpu or i.gpu_family like p.gpu_prefix escape '\\')
              )
          )
    ),

    per_provider as (
        select
            day, source, gpu_level, gpu_id, gpu_family, provider,
            min(min_price_per_hour_usd) as usd_per_instance_hour,
            sum(offer_count) as offers
        from matching
        group by all
    )

    select
        day,
        gpu_level,
        gpu_id,
        gpu_family,
        round(min(usd_per_instance_hour), 6)::double as min_usd_per_instance_hour,
        round(median(usd_per_instance_hour), 6)::double as median_usd_per_instance_hour,
        round(max(usd_per_instance_hour), 6)::double as max_usd_per_instance_hour,
        count(*) as provider_count,
        sum(offers)::bigint as offer_count,
        source
    from per_provider
    group by day, source, gpu_level, gpu_id, gpu_family
    order by day, gpu_id nulls last, gpu_family, source
"""
