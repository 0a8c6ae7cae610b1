"""``gpuprices export --format gpuhunt|skypilot|csv|parquet``: files other tools read.

Reads the current published snapshot (``$GPUPRICES_HOME/published``, or
``$GPUPRICES_SNAPSHOT_URL`` when set). ``gpuhunt`` and ``skypilot`` write ``pipelines.exports``
catalogs into DIR (how they read in the real tools, and the layout rules: docs/interop.md,
checked by benchmarks/interop_check.py); ``csv`` and ``parquet`` copy tables of the snapshot
(``pipelines.export_tables``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pipelines.cli_snapshot import current_snapshot
from pipelines.export_common import export_rules
from pipelines.export_tables import DEFAULT_OUT, EXPORT_SETS, TABLE_FORMATS, export_tables
from pipelines.exports import FORMATS, export
from warehouse.queries import OfferFilter

FORMAT_HELP = {
    "csv": "tables of the snapshot as CSV: --what current|history|all, --out DIR",
    "parquet": "tables of the snapshot as Parquet: --what current|history|all, --out DIR",
    "gpuhunt": "gpuhunt catalog CSVs (GPUHUNT_CATALOG_DIR=DIR GPUHUNT_CATALOG_URL=file://DIR)",
    "skypilot": "SkyPilot catalog v8: DIR/<cloud>/vms.csv (GCP with accelerator rows)",
}


def _rules(args: argparse.Namespace) -> OfferFilter:
    """The offers an export reads: ``--include-expired``, ``--include-unavailable``,
    ``--max-age-days``."""
    return export_rules(
        include_expired=args.include_expired,
        include_unavailable=args.include_unavailable,
        max_age_days=args.max_age_days,
    )


def _days(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 100_000:  # the bounds of max_age_days in warehouse.queries.FILTERS
        raise argparse.ArgumentTypeError("must be 0 to 100000 days")
    return value


def run_table_export(args: argparse.Namespace) -> int:
    """``gpuprices export --format csv|parquet [--out DIR] [--what ...]``."""
    found = current_snapshot()
    if isinstance(found, str):
        print(f"error: {found}", file=sys.stderr)
        return 1
    out = Path(args.out or args.dir or DEFAULT_OUT)
    written, left_out = export_tables(found, args.format, out, args.what, _rules(args))
    for path, rows in written:
        print(f"{path}  {rows} rows")
    for line in left_out.lines():
        print(f"current_offers: {line}")
    print(f"exported {args.what} ({args.format}) from snapshot {found.snapshot_id} to {out}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    """Write ``args.format`` into ``args.dir``; 1 if there is no snapshot to export."""
    if args.format in TABLE_FORMATS:
        return run_table_export(args)
    if not args.dir:
        print(f"error: --format {args.format} needs the output directory DIR", file=sys.stderr)
        return 2
    found = current_snapshot()
    if isinstance(found, str):
        print(f"error: {found}", file=sys.stderr)
        return 1
    report = export(args.format, found, Path(args.dir), _rules(args))
    for line in report.lines():
        print(line)
    print(
        f"exported {report.rows} rows ({args.format}) from snapshot {report.snapshot_id} "
        f"to {report.out_dir}"
    )
    return 0


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


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``export`` subcommand to the ``gpuprices`` parser."""
    parser = sub.add_parser(
        "export",
        help="write the current offers in a format another tool reads",
        description="; ".join(f"{k}: {v}" for k, v in FORMAT_HELP.items()),
    )
    parser.add_argument(
        "--format",
        required=True,
        choices=sorted([*FORMATS, *TABLE_FORMATS]),
        help="what to write (each format is described above)",
    )
    parser.add_argument(
        "dir", metavar="DIR", nargs="?", help="output directory (created if missing)"
    )
    add_table_export_arguments(parser)
    parser.add_argument(
        "--include-expired",
        action="store_true",
        help="also export offers whose price is past the shelf life of its kind (dynamic 2 "
        "days, spot and marketplace 30, list prices 180 by default); left out by default",
    )
    parser.add_argument(
        "--include-unavailable",
        action="store_true",
        help="also export offers the source says are not on sale now (available false); left "
        "out by default",
    )
    parser.add_argument(
        "--max-age-days",
        type=_days,
        metavar="DAYS",
        help="only offers whose price is at most DAYS days old",
    )
    parser.set_defaults(func=run_export)
    return parser
