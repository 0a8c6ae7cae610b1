"""The read queries of the economics endpoints, over a published snapshot: what GET /models,
/economics/estimates, /fit and /breakeven select.

An /estimates item is written once, as ``ESTIMATE_ITEM_KEYS``: the page query over
``token_estimates`` selects those columns (the offer's own ones, ``ESTIMATE_OFFER_KEYS``, from
``current_offers``), and an answer computed at other settings picks the same keys off the
estimate and the offer (``api.economics.estimates.ranked_estimates``). Offer filters are an
``OfferFilter``'s bound where clause over ``current_offers``. Values are always bound parameters.
"""

from __future__ import annotations

from warehouse import economics
from warehouse.queries.excluded import PRICE_TIME_COLUMNS
from warehouse.queries.filters import Where

MODELS_SQL = "select * from models order by model_id"
ECONOMICS_GPUS_SQL = "select * from gpus"

# Keys of one /estimates item, in order (token_estimates columns, and the offer's source, age
# and shelf life).
ESTIMATE_ITEM_KEYS: tuple[str, ...] = (
    "offer_id", "provider", "instance_type", "region", "pricing", "serverless", "gpu_id",
    "gpu_count", "model_id", "input_tokens", "output_tokens", "precision_requested",
    "weight_precision", "compute_precision", "kv_precision", "precision_native",
    "fallback_reason", "gpus_used", "tensor_parallel", "data_parallel", "batch_per_replica",
    "output_tokens_per_s", "total_tokens_per_s", "price_per_hour_usd",
    "usd_per_million_output_tokens", "usd_per_million_total_tokens", "observed_at", "source_url",
    *PRICE_TIME_COLUMNS, *economics.ASSUMPTION_COLUMNS,
)  # fmt: skip
# the keys read off the offer (current_offers), not the estimate
ESTIMATE_OFFER_KEYS: frozenset[str] = frozenset({"source_url", *PRICE_TIME_COLUMNS})
_OFFER_COLUMNS = ", ".join(("offer_id", "source_url", *PRICE_TIME_COLUMNS))
ESTIMATE_ITEM_COLUMNS = ", ".join(
    f"{'o' if key in ESTIMATE_OFFER_KEYS else 'e'}.{key}" for key in ESTIMATE_ITEM_KEYS
)


def token_estimates_sql(where: Where) -> tuple[str, str]:
    """(page, count) over token_estimates for one model (first bound parameter after the
    filters), fitting rows only, cheapest USD per million total tokens first. The filters are
    applied in a CTE over current_offers, so their column names stay unambiguous."""
    base = (
        f"with offers as (select {_OFFER_COLUMNS} from current_offers {where.sql()})"
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
               o.age_days, o.price_kind, o.shelf_life_days, o.expires_at, o.expired,
               o.billing_granularity_s, o.minimum_charge_s, p.scale_to_zero, p.idle_charged,
               coalesce(t.always_on, false) as always_on, t.gpu_candidates,
               t.vram_gb_guaranteed
        from offers as o
        left join serverless_platforms as p on o.provider = p.platform
        left join serverless_tiers as t on o.offer_id = t.offer_id
        where o.gpu_id is not null and o.price_per_hour_usd > 0
        order by o.offer_id
    """
