"""Recovering from an ingest process that died mid-run (kill -9, OOM, power loss).

What a crash can leave behind, and why each is harmless until cleaned here:

- DuckDB's write-ahead log: replayed by DuckDB itself when the file is next opened; an
  uncommitted transaction (a half-loaded scrape) is discarded with it.
- A scrape row left ``running`` (the process died between ``start_scrape`` and its commit):
  no derived model reads non-successful scrapes, so it is never served; it is marked failed
  here so that ``provider_status`` and operators see what happened.
- Temporary files of the raw archive (``*.tmp<pid>``): written, then renamed into place, so a
  leftover one is never read; removed here.
- The warehouse file lock: an OS lock (``flock``), released by the kernel when its holder dies.

Call ``recover`` while holding the warehouse lock (inside ``Warehouse.connect``): every scrape
is loaded inside one locked connection, so under the lock nothing else is mid-flight.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

INTERRUPTED = "interrupted: the ingest process stopped before this scrape was committed"


@dataclass(frozen=True)
class Recovered:
    interrupted_scrapes: int
    temp_files_removed: int


def recover(con: duckdb.DuckDBPyConnection, raw_dir: Path) -> Recovered:
    """Mark scrapes left ``running`` as failed and delete orphaned raw-archive temp files."""
    row = con.execute(
        "update scrapes set status = 'failed', error = ?, finished_at = ? where status = 'running'",
        [INTERRUPTED, datetime.now(UTC)],
    ).fetchone()
    removed = 0
    if raw_dir.is_dir():
        for tmp in raw_dir.glob("*/*.tmp*"):
            tmp.unlink(missing_ok=True)
            removed += 1
    return Recovered(int(row[0]) if row else 0, removed)
