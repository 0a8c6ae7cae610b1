"""``gpuprices backfill`` and the table formats of ``gpuprices export`` (csv, parquet).

``backfill`` imports the public history datasets into the warehouse and publishes a snapshot
(none when nothing changed and the current snapshot already holds the imports).
``export --format csv|parquet`` copies tables of the current published snapshot (never the
warehouse, so it works while the pipeline runs) into files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb

from pipelines.backfill import HISTORY_DIR_ENV, history_dir, run_backfill
from warehouse.importers import IMPORTERS, DatasetError
from warehouse.paths import Paths
from warehouse.publish import SnapshotInfo

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
    snapshot: SnapshotInfo, fmt: str, out_dir: Path, what: str = "all"
) -> list[tuple[Path, int]]:
    """Write each table of ``EXPORT_SETS[what]`` to ``out_dir/<table>.<fmt>``.

    Times are written in UTC; CSV files have a header row. Returns (file, rows) per table.
    Raises KeyError for an unknown ``what`` or ``fmt``, duckdb.Error if the snapshot is
    unreadable. Each file is written to a temporary name and renamed when complete.
    """
    if fmt not in TABLE_FORMATS:
        raise KeyError(f"unknown table format {fmt!r}")
    tables = EXPORT_SETS[what]
    out_dir.mkdir(parents=True, exist_ok=True)
    options = "format parquet, compression zstd" if fmt == "parquet" else "format csv, header"
    written = []
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
            con.execute(f"copy (select * from {table}) to '{literal}' ({options})")
            tmp.replace(target)
            rows = con.execute(f"select count(*) from {table}").fetchall()[0][0]
            written.append((target, int(rows)))
    finally:
        con.close()
    return written


def run_table_export(args: argparse.Namespace) -> int:
    """``gpuprices export --format csv|parquet [--out DIR] [--what ...]``."""
    from pipelines.cli_exports import current_snapshot

    found = current_snapshot(Paths.from_env())
    if isinstance(found, str):
        print(f"error: {found}", file=sys.stderr)
        return 1
    out = Path(args.out or args.dir or DEFAULT_OUT)
    for path, rows in export_tables(found, args.format, out, args.what):
        print(f"{path}  {rows} rows")
    print(f"exported {args.what} ({args.format}) from snapshot {found.snapshot_id} to {out}")
    return 0


def _backfill(args: argparse.Namespace) -> int:
    folder = history_dir(args.dir)
    if not folder.is_dir():
        print(
            f"error: history directory {folder} does not exist (--dir or ${HISTORY_DIR_ENV})",
            file=sys.stderr,
        )
        return 2
    try:
        report = run_backfill(
            Paths.from_env(), folder, args.dataset, publish_snapshot=not args.no_publish
        )
    except (KeyError, DatasetError) as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 1
    for line in report.lines():
        print(line)
    return 0


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``backfill`` to the ``gpuprices`` parser (``export`` lives in cli_exports)."""
    parser = sub.add_parser(
        "backfill",
        help="import public price-history datasets into the warehouse",
        description="Imports " + ", ".join(IMPORTERS) + " from DIR/<dataset>/ (rows marked "
        "source='import:<dataset>'; importing twice changes nothing), then rebuilds the "
        "derived tables and publishes a snapshot, unless nothing changed and the current "
        "snapshot already holds the imports. Per dataset it prints what became of every row "
        "read: GPU resolved to a model, only to a family (gpu_family), unresolved, excluded.",
    )
    parser.add_argument(
        "--dir",
        metavar="DIR",
        help=f"datasets folder (default: ${HISTORY_DIR_ENV}, else ../shared/history)",
    )
    parser.add_argument(
        "--dataset",
        action="append",
        choices=sorted(IMPORTERS),
        help="only this dataset (repeatable)",
    )
    parser.add_argument(
        "--no-publish",
        action="store_true",
        help="import only; the next `gpuprices ingest` publishes",
    )
    parser.set_defaults(func=_backfill)
    return parser


def add_table_export_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--out``/``--what`` options ``export`` takes for the csv and parquet formats."""
    parser.add_argument(
        "--out", metavar="DIR", help=f"csv/parquet: output directory (default: ./{DEFAULT_OUT})"
    )
    parser.add_argument(
        "--what",
        choices=sorted(EXPORT_SETS),
        default="all",
        help="csv/parquet: current offers, price history, or both (default)",
    )
