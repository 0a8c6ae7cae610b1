"""The read queries of price history, over a published snapshot: what GET /history,
GET /instances/{id}/history, GET /changes, GET /history/catalog and the history charts select.

They select from the analysis objects (``warehouse/views/*.sql``: ``market_history``,
``offer_intervals``, ``price_changes``, ``gpu_matches``) and restate none of their rules, so an
answer is what a user gets from the same SQL on the snapshot file (``docs/sql.md``). The
objects are created in every snapshot and in every in-memory copy of one
(``warehouse.publish.load_into_memory``); the catalog statistics select from
``imported_daily_prices``. Values are always bound parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

from warehouse.queries.sql import PRICE_STATUS_REASONS
from warehouse.vocabulary import HISTORY_BUCKETS

# Whether a series term is one canonical GPU (gpu_level 'model') or a family prefix ('family'):
# the rule gpu_matches and market_history apply, over the snapshot's gpus. Parameter: the term.
GPU_LEVEL_SQL = """
    select case when exists (select 1 from gpus where gpu_id = ?) then 'model' else 'family' end
        as gpu_level
"""

# GET /history: one row per bucket (USD per GPU-hour as doubles, as the API serves them).
# Parameters: market_history_params.
MARKET_HISTORY_SQL = """
    select
        start,
        min_usd_per_gpu_hour::double as min_usd_per_gpu_hour,
        median_usd_per_gpu_hour::double as median_usd_per_gpu_hour,
        max_usd_per_gpu_hour::double as max_usd_per_gpu_hour,
        provider_count,
        offer_count,
        family_level_provider_count,
        family_level_offer_count,
        providers,
        provider_set_changed
    from market_history(?::varchar, ?::varchar, ?::varchar, ?::date, ?::date)
    order by start
"""


def market_history_params(
    series: str, kind: str, bucket: str, first: date, last: date, as_of: datetime
) -> list[Any]:
    """Parameters of MARKET_HISTORY_SQL: the GPU of the ``series`` (a normalised canonical id
    or family term), its pricing ``kind``, ``bucket`` (a key of HISTORY_BUCKETS; KeyError
    otherwise) and the UTC days ``first``..``last`` inclusive. ``last`` is cut at the
    snapshot's day (``as_of``): no price is claimed for a day the snapshot had not reached,
    even for an interval still open."""
    through = min(last, as_of.astimezone(UTC).date())
    if bucket not in HISTORY_BUCKETS:  # the date_trunc parts market_history accepts
        raise KeyError(bucket)
    return [series, kind, bucket, first, through]


# GET /instances/{id}/history: every change interval of one offer, oldest first. Parameter: id.
OFFER_INTERVALS_SQL = f"""
    select
        valid_from, valid_to, last_seen_at, no_data_from, no_data_until, no_data_days, price,
        currency, price_unit, price_per, price_per_gpu_hour, price_per_hour_usd,
        price_per_gpu_hour_usd, gpu_id, gpu_count, source,
        coalesce(announced, false) as announced,
        provider, instance_type, region, pricing, reserved_term_months, price_status,
        coalesce({PRICE_STATUS_REASONS}, []) as price_status_reasons
    from offer_intervals
    where offer_id = ?
    order by valid_from, source
"""

_CHANGE_COLUMNS = """
    changed_at, offer_id as id, provider, instance_type, region, cloud_tier, pricing, gpu_id,
    gpu_count, old_price, new_price, old_currency, currency, old_price_unit, new_price_unit,
    old_price_per, new_price_per, old_price_per_hour_usd, new_price_per_hour_usd,
    old_price_per_gpu_hour, new_price_per_gpu_hour,
    old_price_per_gpu_hour_usd::double as old_price_per_gpu_hour_usd,
    new_price_per_gpu_hour_usd::double as new_price_per_gpu_hour_usd,
    pct_change, pct_change_usd, pct_change_basis, old_last_seen_at, gap_days, announced,
    source, old_price_status, new_price_status
"""


def changes_sql(
    since: datetime,
    providers: Sequence[str] | None,
    gpus: Sequence[str] | None,
    until: datetime | None = None,
    *,
    list_suspect: bool = False,
) -> tuple[str, str, list[Any]]:
    """GET /changes over the price_changes view: (page query, count query, their parameters).
    The page query takes ``limit`` and ``offset`` after the parameters; newest first. The count
    query gives ``n`` (the changes listed) and ``suspect`` (those left out because one side is a
    suspect price; 0 with ``list_suspect``, which lists them: GET /changes?include_suspect=true).

    ``since``: changes at or after it; ``until`` (the snapshot instant): none after it, so an
    announced price still to come is not a change yet. ``providers``: slugs, any case.
    ``gpus``: normalised GPU terms, each a canonical id or family (``gpu_matches``)."""
    clauses = ["changed_at >= ?", "changed_at <= ?"]
    params: list[Any] = [since, until or datetime.max.replace(tzinfo=UTC)]
    if providers:
        clauses.append(f"provider in ({', '.join('?' for _ in providers)})")
        params.extend(p.lower() for p in providers)
    if gpus:
        clauses.append("(" + " or ".join("gpu_matches(gpu_id, ?::varchar)" for _ in gpus) + ")")
        params.extend(gpus)
    where = " and ".join(clauses)
    hidden = "false" if list_suspect else "suspect"  # the changes left out
    listed = f"{where} and not ({hidden})"
    page = (
        f"select {_CHANGE_COLUMNS} from price_changes where {listed}"
        " order by changed_at desc, offer_id, source limit ? offset ?"
    )
    count = (
        f"select count(*) filter (not ({hidden})) as n, count(*) filter ({hidden}) as suspect"
        f" from price_changes where {where}"
    )
    return page, count, params


# GET /charts/{offer_id}/history.svg: one offer's change intervals, oldest first.
OFFER_HISTORY_SQL = """
    select valid_from, valid_to, price_per_hour_usd, provider, instance_type, region, pricing
    from offer_history
    where offer_id = ?
    order by valid_from
"""


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
