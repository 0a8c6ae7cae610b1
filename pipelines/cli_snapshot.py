"""The settings the CLI's commands run with, and the snapshot its read commands (``query``,
``status``, ``sql``, ``export``) read: ``$GPUPRICES_HOME/published``, or
``$GPUPRICES_SNAPSHOT_URL`` when set."""

from __future__ import annotations

import sys

import duckdb

from pipelines import cli_output
from warehouse import remote
from warehouse.publish import SnapshotError, SnapshotInfo, load_into_memory
from warehouse.settings import SettingError, Settings


def current_snapshot(settings: Settings | None = None) -> SnapshotInfo | str:
    """The snapshot readers use, or a one-line reason there is none (a bad setting included).

    ``settings`` default: ``Settings.load()``, the process environment."""
    try:
        settings = settings or Settings.load()
        info = remote.locate(
            settings.paths(),
            snapshot_url=settings.snapshot_url,
            cache_dir=settings.snapshot_cache_dir(),
        )
    except (SnapshotError, SettingError) as exc:
        return str(exc)
    if info is None:
        return "no snapshot published yet: run `gpuprices ingest` first"
    return info


def load_settings() -> Settings | None:
    """``Settings.load()``, or None after printing the one-line error (the command exits 2)."""
    try:
        return Settings.load()
    except SettingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def open_snapshot() -> tuple[SnapshotInfo, duckdb.DuckDBPyConnection] | None:
    """The current snapshot loaded into memory, or None after printing why there is none."""
    found = current_snapshot()
    if isinstance(found, str):
        cli_output.error(found)
        return None
    return found, load_into_memory(found)
