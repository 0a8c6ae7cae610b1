"""Where gpuprices keeps its data: everything lives under ``$GPUPRICES_HOME``.

Default: ``$XDG_DATA_HOME/gpuprices`` (``~/.local/share/gpuprices``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

HOME_ENV = "GPUPRICES_HOME"


def default_home(env: Mapping[str, str] = os.environ) -> Path:
    data = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "gpuprices"


@dataclass(frozen=True)
class Paths:
    home: Path

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Paths:
        value = env.get(HOME_ENV)
        return cls(Path(value).expanduser().resolve() if value else default_home(env))

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
