"""Retention of the raw archive (``$GPUPRICES_HOME/raw``): what is kept, what is deleted.

Every response body is archived gzip-compressed and content-addressed (``warehouse.load``); left
alone the archive grows with every scrape. After each provider's ingest (``pipelines.ingest``)
``prune_raw`` keeps a body when a scrape that matters references it (table ``fetches``):

1. always: every *current* scrape — each provider's newest successful scrape (what
   ``current_offers`` serves; it also holds every price an open history interval says is
   current), its newest one not dated in the future (the current one once the clock has caught
   up with a scrape stored while it was set ahead), and any scrape still ``running``. These are
   never deleted, whatever the cap says;
2. the newest ``GPUPRICES_RAW_KEEP_SCRAPES`` scrapes of each provider (default 20, whatever
   their status: a failed scrape's body is what one debugs it with);
3. every scrape started in the last ``GPUPRICES_RAW_KEEP_DAYS`` days (default 30) before now
   or before the newest scrape's start, whichever is earlier: a clock set ahead (issue 27) never
   makes the whole archive look old.

Everything else is deleted: bodies only older scrapes reference, and bodies no scrape references
(left by a process killed between archiving and recording its scrape). Then, while the archive
is still larger than ``GPUPRICES_RAW_MAX_MB`` (default 1024, compressed bytes on disk), the
bodies of rules 2 and 3 go too, those whose newest referencing scrape is oldest first; rule 1
is kept even above the cap. A deleted body's ``raw_responses`` row goes with it; ``fetches``
keeps the URL, status, time and hash of every exchange. A scrape re-run with a body that was
deleted archives it again.

Call ``prune_raw`` while holding the warehouse lock (inside ``Warehouse.connect``): a body is
archived and its scrape recorded under one lock hold, so nothing is half-recorded meanwhile.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb

from warehouse.history import FUTURE_TOLERANCE
from warehouse.settings import (
    DEFAULT_RAW_KEEP_DAYS,
    DEFAULT_RAW_KEEP_SCRAPES,
    DEFAULT_RAW_MAX_MB,
    Settings,
)

KEEP_SCRAPES_ENV = "GPUPRICES_RAW_KEEP_SCRAPES"
DEFAULT_KEEP_SCRAPES = DEFAULT_RAW_KEEP_SCRAPES
KEEP_DAYS_ENV = "GPUPRICES_RAW_KEEP_DAYS"
DEFAULT_KEEP_DAYS = DEFAULT_RAW_KEEP_DAYS
MAX_MB_ENV = "GPUPRICES_RAW_MAX_MB"
DEFAULT_MAX_MB = DEFAULT_RAW_MAX_MB


@dataclass(frozen=True)
class RawRetention:
    keep_scrapes: int = DEFAULT_KEEP_SCRAPES
    keep_days: float = DEFAULT_KEEP_DAYS
    max_bytes: int = int(DEFAULT_MAX_MB * 1024 * 1024)

    @classmethod
    def of(cls, settings: Settings) -> RawRetention:
        """The policy ``settings`` state (``GPUPRICES_RAW_*``, see the module docstring)."""
        return cls(
            settings.raw_keep_scrapes,
            settings.raw_keep_days,
            int(settings.raw_max_mb * 1024 * 1024),
        )


@dataclass(frozen=True)
class RawPruned:
    files_deleted: int
    bytes_deleted: int
    bytes_kept: int
    # bytes of bodies current scrapes reference (kept even when they alone pass the cap)
    bytes_current: int


def archive_files(raw_dir: Path, pattern: str) -> Iterator[Path]:
    """The files matching ``pattern`` in the archive's own two-level layout (``raw/ab/<sha>``),
    never through a symbolic link: a linked folder or file under ``raw/`` may point outside the
    home, and retention must never delete there (issue 27)."""
    for entry in _archive_entries(raw_dir, pattern):
        yield Path(entry.path)


def _archive_entries(raw_dir: Path, pattern: str) -> Iterator[os.DirEntry[str]]:
    """``archive_files`` as directory entries: ``os.scandir`` tells links, folders and files
    apart from the listing itself, where ``Path.glob`` and ``is_file`` cost a ``stat`` and
    several ``Path`` objects per file: a third of the time per walk (``benchmarks/raw_walk.py``),
    paid by retention and recovery once per provider in every ingest."""
    try:
        folders = list(os.scandir(raw_dir))
    except (FileNotFoundError, NotADirectoryError):
        return
    for folder in folders:
        if not folder.is_dir(follow_symlinks=False):  # a link to a folder is no archive folder
            continue
        try:
            with os.scandir(folder.path) as entries:
                found = [
                    e
                    for e in entries
                    if fnmatch.fnmatchcase(e.name, pattern) and e.is_file(follow_symlinks=False)
                ]
        except FileNotFoundError:  # removed meanwhile
            continue
        yield from found


def _body_path(raw_dir: Path, digest: str) -> Path:
    return raw_dir / digest[:2] / f"{digest}.gz"


def prune_raw(
    con: duckdb.DuckDBPyConnection,
    raw_dir: Path,
    *,
    policy: RawRetention | None = None,
    now: datetime | None = None,
) -> RawPruned:
    """Apply the retention policy (default ``RawRetention()``, the defaults) to ``raw_dir``."""
    policy = policy or RawRetention()
    now = now or datetime.now(UTC)
    if not raw_dir.is_dir():
        return RawPruned(0, 0, 0, 0)
    on_disk: dict[str, int] = {}
    for entry in _archive_entries(raw_dir, "*.gz"):
        try:
            on_disk[entry.name.removesuffix(".gz")] = entry.stat(follow_symlinks=False).st_size
        except FileNotFoundError:
            continue
    # the window ends at the newest start or now, whichever is earlier (module docstring, 3.)
    newest_start = con.execute("select max(started_at) from scrapes").fetchone()
    window_end = min(now, newest_start[0]) if newest_start and newest_start[0] else now
    # per body: is a current scrape among its references, is a kept one, and the newest start
    rows = con.execute(
        """
        with ranked as (
            select scrape_id, provider, status, started_at,
                   row_number() over (partition by provider order by started_at desc) as rank
            from scrapes
        ),
        current_scrapes as (
            select arg_max(scrape_id, observed_at) as scrape_id
            from scrapes where status = 'success' group by provider
            union
            -- a scrape dated in the future (stored while the clock was ahead) would hide the
            -- provider's current one by the clock: that one is kept too
            select arg_max(scrape_id, observed_at) as scrape_id
            from scrapes where status = 'success' and observed_at <= $latest group by provider
            union
            select scrape_id from scrapes where status = 'running'
        )
        select
            f.sha256,
            bool_or(f.scrape_id in (select scrape_id from current_scrapes)) as current,
            bool_or(r.rank <= $keep or r.started_at >= $since) as recent,
            max(r.started_at) as newest
        from fetches as f
        inner join ranked as r using (scrape_id)
        group by f.sha256
        """,
        {
            "keep": policy.keep_scrapes,
            "since": window_end - timedelta(days=policy.keep_days),
            "latest": now + FUTURE_TOLERANCE,
        },
    ).fetchall()
    referenced = {
        sha: (bool(current), bool(recent), newest) for sha, current, recent, newest in rows
    }
    doomed = [sha for sha in on_disk if not any(referenced.get(sha, (False, False))[:2])]
    gone = set(doomed)
    kept = {sha: size for sha, size in on_disk.items() if sha not in gone}
    total = sum(kept.values())
    current_bytes = sum(size for sha, size in kept.items() if referenced[sha][0])
    if total > policy.max_bytes:
        # over the cap: the kept-but-not-current bodies, oldest newest-reference first
        for sha in sorted(
            (sha for sha in kept if not referenced[sha][0]), key=lambda s: referenced[s][2]
        ):
            if total <= policy.max_bytes:
                break
            doomed.append(sha)
            total -= kept.pop(sha)
    freed = 0
    for sha in doomed:
        path = _body_path(raw_dir, sha)  # listed by archive_files: no link on its way
        freed += on_disk[sha]
        path.unlink(missing_ok=True)
    if doomed:
        con.execute(
            "delete from raw_responses where sha256 in (select unnest(?::varchar[]))", [doomed]
        )
    return RawPruned(len(doomed), freed, total, current_bytes)
