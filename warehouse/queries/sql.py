"""SQL of the read side over ``current_offers`` (and ``provider_status``): the page and count
queries of an :class:`~warehouse.queries.filters.OfferQuery`, bound parameters only, sort
columns from an allow-list."""

from __future__ import annotations

from typing import Any

import duckdb

from warehouse.queries.filters import OfferQuery, Where
from warehouse.vocabulary import INSTANCE_SORTS

# cheapest_per_gpu: one row per group (provider, GPU model, pricing; an unresolved GPU by the
# provider's spelling, never merged with other GPUs), the cheapest by this sort (ascending)
CHEAPEST_GROUP = ("provider", "coalesce(gpu_id, 'name:' || gpu_name_provider)", "pricing")
CHEAPEST_SORT = "price_per_gpu"
# Rows DuckDB turns into Python objects per call. One fetchall converts the whole result holding
# the GIL: a snapshot's ~900 current offers held it 150-210 ms in the API's loader thread, and
# every request on the event loop stalled that long at each snapshot swap (issue 27). Between
# batches the loop gets its turn.
FETCH_BATCH_ROWS = 64

# The items' columns: the API's InstanceItem fields (api/schemas/instances.py; bodies follow the
# schema's order), all selected from current_offers. offers_in_group is last (the
# cheapest_per_gpu count; null otherwise).
# The stored JSON text of the screen's reasons (price_screens.reasons) as a list of
# {code, detail}: GET /instances' and GET /instances/{id}/history's price_status_reasons.
PRICE_STATUS_REASONS = (
    """from_json(price_status_reasons, '[{"code": "VARCHAR", "detail": "VARCHAR"}]')"""
)
INSTANCE_COLUMNS = f"""
    offer_id as id, provider, instance_type, region, cloud_tier, country, continent, gpu_id,
    gpu_family, gpu_name,
    gpu_name_provider, gpu_vendor, gpu_candidates, gpu_count, gpu_fraction,
    vram_gb_per_gpu,
    vram_gb_usable, vram_gb_total, vram_gb_reported, vram_report_mismatch,
    memory_type, memory_bandwidth_gbps, fp8, bf16, interconnect, vcpus, ram_gb, storage_gb,
    pricing, reserved_term_months, price, currency, price_unit, price_per, price_per_hour,
    usd_per_unit, fx_rate_date, price_per_hour_usd, price_per_gpu_hour_usd,
    price_per_vram_gb_hour_usd, announced, announced_from, announced_price,
    announced_price_per_hour_usd, announced_price_per_gpu_hour_usd, previous_price,
    previous_price_per_hour_usd, previous_price_per_gpu_hour_usd, listings, single_gpu_price,
    single_gpu_price_per_hour_usd, price_status,
    {PRICE_STATUS_REASONS} as price_status_reasons,
    serverless, observed_at, observed_precision, age_days, stale,
    price_kind, shelf_life_days, expires_at, expired, available, available_until, data_origin,
    source_url, source_kind, observed_basis,
    price_source, billing_granularity, billing_granularity_s, minimum_charge_s,
    egress_usd_per_gb, block_storage_usd_per_gb_month, spot_available
"""

# --- SQL --------------------------------------------------------------------------------------


def _order_by(sort: str) -> str:
    """``price`` -> ``price_per_hour_usd asc nulls last``; ``-price`` -> ``... desc nulls last``.
    ``sort`` must be one of INSTANCE_SORT_KEYS (KeyError otherwise)."""
    column = INSTANCE_SORTS[sort.removeprefix("-")]
    return f"{column} {'desc' if sort.startswith('-') else 'asc'} nulls last"


def instances_sql(where: Where, sort: str) -> tuple[str, str]:
    """(page query, count query). ``sort`` must be one of INSTANCE_SORT_KEYS (``-`` prefix:
    descending); rows without the value come last either way, ties go by offer id. The page
    query takes ``where.params`` then limit and offset."""
    page = (
        f"select {INSTANCE_COLUMNS}, null::integer as offers_in_group from current_offers"
        f" {where.sql()} order by {_order_by(sort)}, offer_id limit ? offset ?"
    )
    count = f"select count(*) as n from current_offers {where.sql()}"
    return page, count


def cheapest_per_gpu_sql(where: Where, sort: str) -> tuple[str, str]:
    """Like ``instances_sql``, but one row per (provider, GPU model, pricing): the offer with the
    lowest USD per GPU-hour, with ``offers_in_group`` = matching offers in its group. Offers with
    an unresolved GPU are grouped by the provider's spelling, never merged with other GPUs."""
    group = ", ".join(CHEAPEST_GROUP)
    ranked = f"""
        with matching as (select * from current_offers {where.sql()}),
        ranked as (
            select *,
                count(*) over (partition by {group}) as offers_in_group,
                row_number() over (
                    partition by {group} order by {INSTANCE_SORTS[CHEAPEST_SORT]} asc, offer_id
                ) as group_rank
            from matching
        )
    """
    page = (
        f"{ranked} select {INSTANCE_COLUMNS}, offers_in_group from ranked where group_rank = 1"
        f" order by {_order_by(sort)}, offer_id limit ? offset ?"
    )
    count = f"{ranked} select count(*) as n from ranked where group_rank = 1"
    return page, count


def fetch_all(result: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    """``result.fetchall()``, converted ``FETCH_BATCH_ROWS`` rows per call (the GIL is free
    between calls)."""
    out: list[tuple[Any, ...]] = []
    while batch := result.fetchmany(FETCH_BATCH_ROWS):
        out.extend(batch)
    return out


MAIN_TABLES_SQL = "select table_name from information_schema.tables where table_schema = 'main'"


def main_tables(con: duckdb.DuckDBPyConnection) -> frozenset[str]:
    """The tables and views of ``con``'s main schema (a snapshot, the warehouse)."""
    return frozenset(r[0] for r in con.execute(MAIN_TABLES_SQL).fetchall())


def rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    result = con.execute(sql, params)
    columns = [d[0] for d in result.description or []]
    return [dict(zip(columns, row, strict=True)) for row in fetch_all(result)]


def query_offers_sql(
    con: duckdb.DuckDBPyConnection, query: OfferQuery
) -> tuple[list[dict[str, Any]], int]:
    """(page of items, total matching) of ``query``, by SQL over ``con``'s current_offers."""
    where = query.filter.where()
    build = cheapest_per_gpu_sql if query.cheapest_per_gpu else instances_sql
    page_sql, count_sql = build(where, query.sort)
    items = rows(con, page_sql, [*where.params, query.limit, query.offset])
    total = rows(con, count_sql, where.params)[0]["n"]
    return items, total


def item_columns(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The items' field names, in order (those of every page query)."""
    sql = f"select {INSTANCE_COLUMNS}, null::integer as offers_in_group from current_offers"
    return [d[0] for d in con.execute(sql + " limit 0").description or []]


# --- providers (GET /providers, `gpuprices status`) -------------------------------------------

# excluded_rows (and its benign_rows, unknown_rows), skipped_parts and expired_by_kind are
# stored as JSON text; served as objects
_PROVIDER_STATUS = (
    "select * replace ("
    "from_json(excluded_rows, '\"MAP(VARCHAR, INTEGER)\"') as excluded_rows,"
    " from_json(benign_rows, '\"MAP(VARCHAR, INTEGER)\"') as benign_rows,"
    " from_json(unknown_rows, '\"MAP(VARCHAR, INTEGER)\"') as unknown_rows,"
    " from_json(skipped_parts, '\"MAP(VARCHAR, VARCHAR)\"') as skipped_parts,"
    " from_json(expired_by_kind, '\"MAP(VARCHAR, INTEGER)\"') as expired_by_kind)"
    " from provider_status"
    # what its parser is verified against (the facts seed's copy of the registry's field)
    " left join (select provider, verified from provider_facts) using (provider)"
)
PROVIDERS_SQL = f"{_PROVIDER_STATUS} order by provider"
PROVIDER_STATUS_SQL = f"{_PROVIDER_STATUS} where provider = ?"
