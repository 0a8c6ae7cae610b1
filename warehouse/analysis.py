"""The analysis views (one object per ``warehouse/views/<name>.sql``) over price history.

They are created in the warehouse after every ingestion and inside every published snapshot,
and read only tables that the snapshot holds, so ``duckdb published/snapshot-*.duckdb`` can
query them. ``docs/sql.md`` shows them in use.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

VIEWS_DIR = Path(__file__).resolve().parent / "views"

# Creation order: an object comes after every object it reads (each file's header names them).
VIEW_ORDER: tuple[str, ...] = (
    "price_kind",  # a scalar macro: price_kind(pricing, serverless, provider_kind)
    "offer_intervals",
    "daily_offer_prices",
    "daily_gpu_prices",
    "daily_family_level_prices",
    "price_changes",
    "market_index",
    "offers_as_of",  # a table macro: offers_as_of(timestamp '2025-06-16')
    "gpu_matches",  # a scalar macro: where gpu_matches(gpu_id, 'h100')
    "market_history",  # a table macro: market_history('h100', 'on_demand', 'week', null, null)
)
# The macros among them (the others are views).
TABLE_MACROS: frozenset[str] = frozenset({"offers_as_of", "market_history"})
SCALAR_MACROS: frozenset[str] = frozenset({"gpu_matches", "price_kind"})
# Tables the views read; a snapshot must contain all of them.
VIEW_TABLES: tuple[str, ...] = (
    "offer_history",
    "gpus",
    "daily_provider_prices",
    "market_summaries",
)


def view_sql(name: str) -> str:
    if name not in VIEW_ORDER:
        raise KeyError(f"unknown view {name!r}")
    return (VIEWS_DIR / f"{name}.sql").read_text(encoding="utf-8")


def create_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Create or replace every view and macro on ``con`` (its default database). Returns names.

    Raises duckdb.CatalogException when a table in ``VIEW_TABLES`` is missing.
    """
    for name in VIEW_ORDER:
        con.execute(view_sql(name))
    return list(VIEW_ORDER)
