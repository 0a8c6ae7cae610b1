"""``gpuprices export --format csv|parquet``: tables of a published snapshot as files.

Copies tables of the current published snapshot (never the warehouse, so it works while the
pipeline runs); the table names only ever come from ``EXPORT_SETS``. ``current_offers`` is
copied without the offers whose price expired (or is older than ``max_age_days``) unless asked
(the ``rules`` of ``pipelines.export_common.export_rules``); the history tables whole.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from pipelines.export_common import DEFAULT_RULES
from warehouse.csv_cells import inert_sql
from warehouse.publish import SnapshotInfo
from warehouse.queries import Exclusions, OfferFilter, exclusions_sql

TABLE_FORMATS = ("csv", "parquet")
# --what -> tables of the snapshot (identifiers only ever come from here)
EXPORT_SETS: dict[str, tuple[str, ...]] = {
    "current": ("current_offers",),
    "history": (
        "offer_history",
        "daily_provider_prices",
        "market_summaries",
        "market_summary_providers",
        "imported_daily_prices",
    ),
}
EXPORT_SETS["all"] = EXPORT_SETS["current"] + EXPORT_SETS["history"]
DEFAULT_OUT = Path("export")


def export_tables(
    snapshot: SnapshotInfo,
    fmt: str,
    out_dir: Path,
    what: str = "all",
    rules: OfferFilter = DEFAULT_RULES,
) -> tuple[list[tuple[Path, int]], Exclusions]:
    """Write each table of ``EXPORT_SETS[what]`` to ``out_dir/<table>.<fmt>``, current_offers
    with the offers ``rules`` let through.

    Times are written in UTC; CSV files have a header row. Returns (file, rows) per table and
    what ``rules`` left out of current_offers (nothing when it is not exported).
    Raises KeyError for an unknown ``what`` or ``fmt``, duckdb.Error if the snapshot is
    unreadable. Each file is written to a temporary name and renamed when complete.
    """
    if fmt not in TABLE_FORMATS:
        raise KeyError(f"unknown table format {fmt!r}")
    tables = EXPORT_SETS[what]
    out_dir.mkdir(parents=True, exist_ok=True)
    options = "format parquet, compression zstd" if fmt == "parquet" else "format csv, header"
    written = []
    left_out = Exclusions()
    con = duckdb.connect(str(snapshot.path), read_only=True)
    try:
        con.execute("set timezone = 'UTC'")
        present = {
            r[0] for r in con.execute("select table_name from information_schema.tables").fetchall()
        }
        for table in tables:
            if table not in present:
                continue  # a snapshot published before the table existed
            target = out_dir / f"{table}.{fmt}"
            tmp = out_dir / f".{table}.{fmt}.tmp"
            literal = str(tmp).replace("'", "''")
            where = rules.where() if table == "current_offers" else None
            columns = "*" if fmt != "csv" else _inert_columns(con, table)
            rows_sql = f"select {columns} from {table} {where.sql() if where else ''}"
            params = where.params if where else []
            con.execute(f"copy ({rows_sql}) to '{literal}' ({options})", params)
            tmp.replace(target)
            rows = con.execute(f"select count(*) from ({rows_sql})", params).fetchall()[0][0]
            written.append((target, int(rows)))
            if table == "current_offers":
                left_out = exclusions_sql(con, rules)
    finally:
        con.close()
    return written, left_out


def _inert_columns(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """``table``'s columns with every text column made inert against formula injection
    (``warehouse.csv_cells``; ``table`` is from ``EXPORT_SETS``)."""
    rows = con.execute(
        "select column_name, data_type from information_schema.columns where table_name = ?"
        " order by ordinal_position",
        [table],
    ).fetchall()
    return ", ".join(
        f"{inert_sql(quoted)} as {quoted}" if kind == "VARCHAR" else quoted
        for name, kind in rows
        for quoted in ['"' + name.replace('"', '""') + '"']
    )
