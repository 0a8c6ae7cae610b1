"""Backfill importers: one module per dataset under ``../shared/history/<dataset>/``.

Each module has ``DATASET`` (its folder name) and ``import_dataset(con, folder)``; every row it
writes carries ``source = 'import:<dataset>'``, so imported history is told apart from scraped
history, and importing twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import duckdb

from warehouse.importers import gpu_hunt_site, gpuhunt_catalog, prime_intellect
from warehouse.importers.common import DatasetError, ImportResult

IMPORTERS: dict[str, ModuleType] = {
    m.DATASET: m for m in (gpuhunt_catalog, gpu_hunt_site, prime_intellect)
}

__all__ = ["IMPORTERS", "DatasetError", "ImportResult", "import_all"]


def import_all(
    con: duckdb.DuckDBPyConnection, history_dir: Path, datasets: Sequence[str] | None = None
) -> list[ImportResult]:
    """Import ``datasets`` (default: every known one) from ``history_dir/<dataset>/``.

    Raises KeyError for an unknown dataset name and DatasetError for a missing folder or a
    file the importer cannot read (datasets imported before it stay imported).
    """
    names = list(datasets) if datasets else list(IMPORTERS)
    unknown = [n for n in names if n not in IMPORTERS]
    if unknown:
        raise KeyError(f"unknown dataset(s) {', '.join(unknown)}; known: {', '.join(IMPORTERS)}")
    return [IMPORTERS[n].import_dataset(con, history_dir / n) for n in names]
