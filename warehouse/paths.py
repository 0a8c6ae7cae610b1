"""Where gpuprices keeps its data: everything lives under one home directory.

``warehouse.settings.Settings.paths()`` says which (``$GPUPRICES_HOME``, default
``$XDG_DATA_HOME/gpuprices``, i.e. ``~/.local/share/gpuprices``); this module reads no
environment.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Paths:
    home: Path

    @property
    def warehouse(self) -> Path:
        """The DuckDB file: opened only by the pipeline."""
        return self.home / "warehouse.duckdb"

    @property
    def raw(self) -> Path:
        """Content-addressed, gzip-compressed response bodies."""
        return self.home / "raw"

    @property
    def published(self) -> Path:
        """Immutable snapshots and the CURRENT pointer: what the API and analysts read."""
        return self.home / "published"

    @property
    def dagster_home(self) -> Path:
        return self.home / "dagster"
