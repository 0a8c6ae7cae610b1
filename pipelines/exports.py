"""Exports that other tools read, written from a published snapshot's current offers.

``gpuhunt`` (dstack's gpuhunt catalog: ``pipelines.export_gpuhunt``) and ``skypilot``
(SkyPilot's catalog v8: ``pipelines.export_skypilot``), both in the tool's own names
(``pipelines.export_common``, ``interop_names.csv``). How they read in the real tools:
docs/interop.md.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb

from pipelines.export_common import NAMES_CSV, ExportReport, ToolNames
from pipelines.export_gpuhunt import export_gpuhunt
from pipelines.export_skypilot import export_skypilot
from warehouse.publish import SnapshotInfo, load_into_memory

__all__ = [
    "FORMATS",
    "NAMES_CSV",
    "ExportReport",
    "ToolNames",
    "export",
    "export_gpuhunt",
    "export_skypilot",
]


Exporter = Callable[[duckdb.DuckDBPyConnection, Path, str], ExportReport]
FORMATS: dict[str, Exporter] = {"gpuhunt": export_gpuhunt, "skypilot": export_skypilot}


def export(fmt: str, snapshot: SnapshotInfo, out_dir: Path) -> ExportReport:
    """Write ``fmt`` (a key of FORMATS) from ``snapshot`` into ``out_dir``.

    Raises KeyError for an unknown format and duckdb/OS errors for an unreadable snapshot or an
    unwritable directory. Files are replaced one by one (each atomically).
    """
    exporter = FORMATS[fmt]
    con = load_into_memory(snapshot)
    try:
        return exporter(con, out_dir, snapshot.snapshot_id)
    finally:
        con.close()
