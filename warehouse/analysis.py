"""The analysis views and macros (``warehouse/views/<name>.sql``) over price history.

Which objects there are, their order and which a snapshot carries come from the files'
headers (``warehouse.graph``). They are created in the warehouse by every build
(``warehouse.derive``) and the published ones inside every snapshot, where they read only
published tables, so ``duckdb published/snapshot-*.duckdb`` can query them. ``docs/sql.md``
shows them in use.
"""

from __future__ import annotations

import duckdb

from warehouse.graph import VIEW_KINDS, graph


def create_views(con: duckdb.DuckDBPyConnection, *, published: bool = False) -> list[str]:
    """Create or replace every view and macro on ``con`` (its default database), in
    dependency order; only the published ones when ``published`` (inside a snapshot). Returns
    their names.

    Raises duckdb.CatalogException when a table one of them reads is missing.
    """
    views = graph().views(published=published)
    for obj in views:
        con.execute(obj.sql)
    return [obj.name for obj in views]


def create_upstream_views(con: duckdb.DuckDBPyConnection, name: str) -> list[str]:
    """Create or replace the views and macros the object ``name`` reads (directly or not),
    before a build step that runs it alone (``warehouse.history.refresh_rollup``)."""
    views = [obj for obj in graph().upstream(name) if obj.kind in VIEW_KINDS]
    for obj in views:
        con.execute(obj.sql)
    return [obj.name for obj in views]
