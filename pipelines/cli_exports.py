"""``gpuprices export --format gpuhunt|skypilot DIR``: catalogs other tools read.

Reads the current published snapshot (``$GPUPRICES_HOME/published``, or
``$GPUPRICES_SNAPSHOT_URL`` when set) and writes ``pipelines.exports`` formats into DIR. How they
read in the real tools, and the layout rules: docs/interop.md (checked by
benchmarks/interop_check.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pipelines.cli_history import TABLE_FORMATS, add_table_export_arguments, run_table_export
from pipelines.exports import FORMATS, export
from warehouse import remote
from warehouse.paths import Paths
from warehouse.publish import SnapshotError, SnapshotInfo

FORMAT_HELP = {
    "csv": "tables of the snapshot as CSV: --what current|history|all, --out DIR",
    "parquet": "tables of the snapshot as Parquet: --what current|history|all, --out DIR",
    "gpuhunt": "gpuhunt catalog CSVs (GPUHUNT_CATALOG_DIR=DIR GPUHUNT_CATALOG_URL=file://DIR)",
    "skypilot": "SkyPilot catalog v8: DIR/<cloud>/vms.csv (GCP with accelerator rows)",
}


def current_snapshot(paths: Paths) -> SnapshotInfo | str:
    """The snapshot readers use, or a one-line reason there is none."""
    try:
        info = remote.locate(paths)
    except SnapshotError as exc:
        return str(exc)
    if info is None:
        return "no snapshot published yet: run `gpuprices ingest` first"
    return info


def run_export(args: argparse.Namespace) -> int:
    """Write ``args.format`` into ``args.dir``; 1 if there is no snapshot to export."""
    if args.format in TABLE_FORMATS:
        return run_table_export(args)
    if not args.dir:
        print(f"error: --format {args.format} needs the output directory DIR", file=sys.stderr)
        return 2
    found = current_snapshot(Paths.from_env())
    if isinstance(found, str):
        print(f"error: {found}", file=sys.stderr)
        return 1
    report = export(args.format, found, Path(args.dir))
    for line in report.lines():
        print(line)
    print(
        f"exported {report.rows} rows ({args.format}) from snapshot {report.snapshot_id} "
        f"to {report.out_dir}"
    )
    return 0


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
    parser.set_defaults(func=run_export)
    return parser
