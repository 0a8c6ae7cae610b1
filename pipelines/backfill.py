"""Backfill price history from public datasets: import, rebuild, publish.

Plain functions shared by ``gpuprices backfill`` and the Dagster ``backfill`` job. Imports are
idempotent (``warehouse.importers``): running a backfill twice changes nothing, and the second
run publishes no new snapshot when the current one already holds the imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from warehouse.db import Warehouse, transaction
from warehouse.derive import rebuild
from warehouse.importers import ImportResult, import_all
from warehouse.importers.common import held_imports
from warehouse.paths import Paths
from warehouse.publish import SnapshotInfo, current, publish
from warehouse.seeding import load_seeds
from warehouse.settings import Settings, env_var

HISTORY_DIR_ENV = env_var("history_dir")
DEFAULT_HISTORY_DIR = Path("../shared/history")


def history_dir(value: str | Path | None = None) -> Path:
    """The datasets folder: ``value`` (the caller's option, else ``$GPUPRICES_HISTORY_DIR``),
    else ../shared/history (relative to the working directory)."""
    return Path(value or DEFAULT_HISTORY_DIR).expanduser().resolve()


@dataclass
class BackfillReport:
    """The imports' results and what happened to the published snapshot.

    ``snapshot`` is the snapshot this backfill published (None when it published none);
    ``served`` the one that holds the imports when nothing was published because nothing
    changed; ``publish_skipped`` says why no snapshot was published, if none was.
    """

    results: list[ImportResult] = field(default_factory=list)
    snapshot: SnapshotInfo | None = None
    served: SnapshotInfo | None = None
    publish_skipped: str | None = None

    @property
    def changed(self) -> bool:
        """True when at least one import wrote rows."""
        return any(r.wrote for r in self.results)

    def lines(self) -> list[str]:
        """One line per dataset, then one saying whether and why a snapshot was published."""
        out = [r.summary() for r in self.results]
        imported = [r.dataset for r in self.results if r.wrote]
        if self.snapshot is not None:
            why = (
                f"imported {', '.join(imported)}"
                if imported
                else "nothing imported, but the current snapshot did not hold these imports"
            )
            out.append(f"published snapshot {self.snapshot.snapshot_id} ({why})")
        elif self.publish_skipped is not None:
            out.append(self.publish_skipped)
        return out


def import_history(
    paths: Paths, folder: Path, datasets: Sequence[str] | None = None
) -> list[ImportResult]:
    """Seed the reference tables (GPU aliases and FX rates resolve imported rows), then import.

    Raises KeyError for an unknown dataset and importers.DatasetError for unreadable files.
    """
    with Warehouse(paths.warehouse).connect() as con:
        with transaction(con):
            load_seeds(con)
        return import_all(con, folder, datasets)


def snapshot_holds(info: SnapshotInfo | None, results: Sequence[ImportResult]) -> bool:
    """True when the snapshot ``info`` holds exactly these imports (same source and
    fingerprint in its ``history_imports``). False for no snapshot or an unreadable one."""
    if info is None or not info.path.is_file():
        return False
    held = held_imports(info.path)
    if held is None:
        return False
    return all(held.get(r.source) == r.fingerprint for r in results)


def run_backfill(
    paths: Paths,
    folder: Path,
    datasets: Sequence[str] | None = None,
    *,
    publish_snapshot: bool = True,
    settings: Settings | None = None,
) -> BackfillReport:
    """Import, then rebuild the derived tables and publish a snapshot holding the history.

    No snapshot is published when no import wrote anything and the current snapshot already
    holds these imports (a re-run with unchanged files): there is nothing new to serve.
    Raises what ``import_history`` raises; warehouse.publish.SnapshotError if the current
    snapshot pointer is unreadable. ``settings`` give the staleness thresholds (default: the
    defaults).
    """
    report = BackfillReport(import_history(paths, folder, datasets))
    if not publish_snapshot:
        report.publish_skipped = (
            "not published (--no-publish): the next `gpuprices ingest` publishes"
            if report.changed
            else "nothing changed; not published (--no-publish)"
        )
        return report
    if not report.changed:
        served = current(paths.published)
        if snapshot_holds(served, report.results):
            assert served is not None
            report.served = served
            report.publish_skipped = (
                f"nothing changed: snapshot {served.snapshot_id} already holds these imports;"
                " no new snapshot published"
            )
            return report
    with Warehouse(paths.warehouse).connect() as con:
        if settings is None:
            rebuild(con)
        else:
            rebuild(
                con,
                stale_after_hours=settings.stale_after_hours,
                stale_after_days=settings.stale_after_days,
                shelf_life_days=settings.shelf_life_days(),
            )
        report.snapshot = publish(con, paths.published)
    return report
