"""Backfill price history from public datasets: import, rebuild, publish.

Plain functions shared by ``gpuprices backfill`` and the Dagster ``backfill`` job. Imports are
idempotent (``warehouse.importers``): running a backfill twice changes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from warehouse.db import Warehouse, load_seeds
from warehouse.derive import rebuild
from warehouse.importers import ImportResult, import_all
from warehouse.paths import Paths
from warehouse.publish import SnapshotInfo, publish

HISTORY_DIR_ENV = "GPUPRICES_HISTORY_DIR"
DEFAULT_HISTORY_DIR = Path("../shared/history")


def history_dir(value: str | None = None, env: Mapping[str, str] = os.environ) -> Path:
    """The datasets folder: ``value``, else ``$GPUPRICES_HISTORY_DIR``, else ../shared/history
    (relative to the working directory)."""
    return Path(value or env.get(HISTORY_DIR_ENV) or DEFAULT_HISTORY_DIR).expanduser().resolve()


@dataclass
class BackfillReport:
    results: list[ImportResult] = field(default_factory=list)
    snapshot: SnapshotInfo | None = None

    def lines(self) -> list[str]:
        return [r.summary() for r in self.results]


def import_history(
    paths: Paths, folder: Path, datasets: Sequence[str] | None = None
) -> list[ImportResult]:
    """Seed the reference tables (GPU aliases and FX rates resolve imported rows), then import.

    Raises KeyError for an unknown dataset and importers.DatasetError for unreadable files.
    """
    with Warehouse(paths.warehouse).connect() as con:
        con.execute("begin transaction")
        load_seeds(con)
        con.execute("commit")
        return import_all(con, folder, datasets)


def run_backfill(
    paths: Paths,
    folder: Path,
    datasets: Sequence[str] | None = None,
    *,
    publish_snapshot: bool = True,
) -> BackfillReport:
    """Import, then rebuild the derived tables and publish a snapshot holding the history."""
    report = BackfillReport(import_history(paths, folder, datasets))
    if publish_snapshot:
        with Warehouse(paths.warehouse).connect() as con:
            rebuild(con)
            report.snapshot = publish(con, paths.published)
    return report
