"""Exports that other tools read, written from a published snapshot's current offers.

``gpuhunt`` (dstack's gpuhunt catalog: ``pipelines.export_gpuhunt``) and ``skypilot``
(SkyPilot's catalog v8: ``pipelines.export_skypilot``), both in the tool's own names
(``pipelines.export_common``, ``interop_names.csv``). How they read in the real tools:
docs/interop.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import duckdb

from pipelines.export_common import DEFAULT_RULES, NAMES_CSV, ExportReport, ToolNames, export_rules
from pipelines.export_gpuhunt import export_gpuhunt
from pipelines.export_skypilot import export_skypilot
from warehouse.publish import SnapshotInfo, load_into_memory
from warehouse.queries import OfferFilter

__all__ = [
    "FORMATS",
    "NAMES_CSV",
    "ExportReport",
    "ToolNames",
    "export",
    "export_gpuhunt",
    "export_rules",
    "export_skypilot",
]


class Exporter(Protocol):
    def __call__(
        self,
        con: duckdb.DuckDBPyConnection,
        out_dir: Path,
        snapshot_id: str,
        names: ToolNames | None = None,
        rules: OfferFilter = DEFAULT_RULES,
    ) -> ExportReport: ...


FORMATS: dict[str, Exporter] = {"gpuhunt": export_gpuhunt, "skypilot": export_skypilot}


def export(
    fmt: str, snapshot: SnapshotInfo, out_dir: Path, rules: OfferFilter = DEFAULT_RULES
) -> ExportReport:
    """Write ``fmt`` (a key of FORMATS) from ``snapshot`` into ``out_dir``: the offers ``rules``
    let through (``export_rules``: expired prices left out unless asked).

    Raises KeyError for an unknown format and duckdb/OS errors for an unreadable snapshot or an
    unwritable directory. Files are replaced one by one (each atomically).
    """
    exporter = FORMATS[fmt]
    con = load_into_memory(snapshot)
    try:
        return exporter(con, out_dir, snapshot.snapshot_id, rules=rules)
    finally:
        con.close()
