"""Publishing immutable snapshots for readers, and reading them back.

The pipeline is the only process that opens the warehouse. After each run it copies the
published tables (every ``.sql`` object whose header says ``Published: yes``: models, rollups,
python-built tables and the declared sources; ``warehouse.graph``) into a new DuckDB file
(``snapshot-<id>.duckdb``), then atomically replaces the ``CURRENT`` pointer file (temp file +
fsync + rename). Readers (the API, the DuckDB CLI) open whatever ``CURRENT`` names; a snapshot
file is never modified after it is published.

Snapshots are written in an older DuckDB storage format than the Python package's default
(``SNAPSHOT_STORAGE_VERSION``), so that DuckDB CLIs a user can install (the PyPI ``duckdb-cli``
lags the Python package) open them: a file in the newest format is refused by every older
reader ("Trying to read a database file with version number ..."). The warehouse itself stays
in the current format; only the pipeline opens it.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from warehouse.analysis import create_views
from warehouse.graph import graph

POINTER = "CURRENT"
# What CURRENT may name: a snapshot file in the same directory (never a path).
SNAPSHOT_FILE = re.compile(r"snapshot-[0-9A-Za-z]+\.duckdb")
# DuckDB 1.4 (the long-term-support line) and every later DuckDB, the PyPI duckdb-cli 1.4.x and
# 1.5.x included, read this format; tests/pipelines/test_cli_sql.py opens a snapshot with the
# duckdb-cli binary. Raising it locks those readers out: see the README's SQL section.
SNAPSHOT_STORAGE_VERSION = "v1.4.0"
KEEP_SNAPSHOTS = 5
SNAPSHOT_ID_FORMAT = "%Y%m%dT%H%M%S%fZ"  # the publish instant, UTC
META_TABLE = "snapshot_meta"  # the snapshot's id and instant, written by publish


class SnapshotError(RuntimeError):
    pass


@dataclass(frozen=True)
class SnapshotInfo:
    snapshot_id: str
    as_of: datetime
    path: Path


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish(
    con: duckdb.DuckDBPyConnection, published_dir: Path, *, now: datetime | None = None
) -> SnapshotInfo:
    """Write a new snapshot from the warehouse connection and make it current, atomically."""
    as_of = now or datetime.now(UTC)
    snapshot_id = as_of.strftime(SNAPSHOT_ID_FORMAT)
    published_dir.mkdir(parents=True, exist_ok=True)
    final = published_dir / f"snapshot-{snapshot_id}.duckdb"
    tmp = published_dir / f".tmp-snapshot-{snapshot_id}-{os.getpid()}.duckdb"
    existing = {
        row[0]
        for row in con.execute(
            "select table_name from information_schema.tables where table_schema = 'main'"
        ).fetchall()
    }
    # identifiers only ever come from the graph (file names)
    tables = graph().published_tables()
    missing = [t for t in tables if t not in existing]
    if missing:
        raise SnapshotError(f"cannot publish: warehouse lacks {', '.join(missing)}")
    pointer_tmp = published_dir / f".{POINTER}.{os.getpid()}.tmp"
    try:
        _write_snapshot(con, tmp, tables, snapshot_id, as_of)
        os.replace(tmp, final)
        pointer_tmp.write_text(
            json.dumps(
                {"snapshot_id": snapshot_id, "file": final.name, "as_of": as_of.isoformat()}
            ),
            encoding="utf-8",
        )
        with pointer_tmp.open("rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(pointer_tmp, published_dir / POINTER)
    except BaseException:
        # a full disk (or a kill) midway must not leave its partial file behind: each failed
        # publish used to add one, until published/ was full of them (issue 27)
        for partial in (tmp, tmp.with_name(tmp.name + ".wal"), pointer_tmp):
            partial.unlink(missing_ok=True)
        raise
    _fsync_dir(published_dir)
    _prune(published_dir, keep=final.name)
    return SnapshotInfo(snapshot_id, as_of, final)


def _write_snapshot(
    con: duckdb.DuckDBPyConnection,
    tmp: Path,
    tables: tuple[str, ...],
    snapshot_id: str,
    as_of: datetime,
) -> None:
    con.execute(f"attach ? as snap{_storage_option()}", [str(tmp)])
    try:
        for table in tables:
            con.execute(f"create table snap.{table} as select * from main.{table}")
        con.execute(
            f"create table snap.{META_TABLE} as select ?::varchar as snapshot_id,"
            " ?::timestamptz as as_of",
            [snapshot_id, as_of],
        )
    finally:
        con.execute("detach snap")
    # The published views and macros, created inside the file so they bind to its own tables.
    snap = duckdb.connect(str(tmp))
    try:
        create_views(snap, published=True)
    finally:
        snap.close()
    with tmp.open("rb+") as handle:
        os.fsync(handle.fileno())


def published_snapshots(published_dir: Path) -> list[SnapshotInfo]:
    """Every snapshot file in ``published_dir``, newest first (id and as_of from its name)."""
    found = []
    for path in published_dir.glob("snapshot-*.duckdb"):
        snapshot_id = path.name.removeprefix("snapshot-").removesuffix(".duckdb")
        try:
            as_of = datetime.strptime(snapshot_id, SNAPSHOT_ID_FORMAT).replace(tzinfo=UTC)
        except ValueError:
            continue
        found.append(SnapshotInfo(snapshot_id, as_of, path))
    return sorted(found, key=lambda info: info.as_of, reverse=True)


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.lstrip("v").split(".")[:3] if part.isdigit())


def _storage_option() -> str:
    """`` (storage_version 'v1.4.0')`` for ATTACH; none for a DuckDB older than that version,
    which writes a format that version reads anyway (and may not know the option: 1.2+)."""
    if _version_tuple(duckdb.__version__) < _version_tuple(SNAPSHOT_STORAGE_VERSION):
        return ""
    return f" (storage_version '{SNAPSHOT_STORAGE_VERSION}')"


def _prune(published_dir: Path, keep: str) -> None:
    snapshots = sorted(published_dir.glob("snapshot-*.duckdb"))
    for old in snapshots[:-KEEP_SNAPSHOTS]:
        if old.name != keep:
            old.unlink(missing_ok=True)
    # Leftovers of a publish that was killed midway (only one process publishes at a time:
    # the caller holds the warehouse lock), never read by anyone.
    leftovers = [*published_dir.glob(".tmp-snapshot-*"), *published_dir.glob(f".{POINTER}.*.tmp")]
    for stale in leftovers:
        stale.unlink(missing_ok=True)


def current(published_dir: Path) -> SnapshotInfo | None:
    """The snapshot ``CURRENT`` points at, or None if nothing was published yet.

    Raises SnapshotError (its message names no path) for a pointer that is not JSON, lacks a
    field, has a bad ``as_of``, or whose ``file`` is anything but a ``snapshot-*.duckdb`` name
    in ``published_dir`` itself (no ``..``, no absolute path)."""
    try:
        text = (published_dir / POINTER).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        reason = type(exc).__name__
        raise SnapshotError(f"unreadable snapshot pointer {POINTER}: {reason}") from None
    try:
        pointer = json.loads(text)
        snapshot_id, as_of_text, name = (pointer["snapshot_id"], pointer["as_of"], pointer["file"])
        if not all(isinstance(v, str) for v in (snapshot_id, as_of_text, name)):
            raise TypeError("a field is not a string")
        as_of = datetime.fromisoformat(as_of_text)
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        reason = f"missing field {exc}" if isinstance(exc, KeyError) else type(exc).__name__
        raise SnapshotError(f"malformed snapshot pointer {POINTER} ({reason})") from None
    if not SNAPSHOT_FILE.fullmatch(name):
        raise SnapshotError(
            f"snapshot pointer {POINTER} names {name[:80]!r}, not a snapshot-*.duckdb file "
            "beside it"
        )
    if as_of.tzinfo is None:
        as_of = as_of.replace(tzinfo=UTC)
    return SnapshotInfo(snapshot_id, as_of, published_dir / name)


def load_into_memory(
    info: SnapshotInfo, *, threads: int | None = None
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB holding a copy of every published table of the snapshot file (one
    published before a table existed lacks it), and the published views and macros over them
    (``warehouse.analysis``), so readers select from the same SQL objects a user finds in the
    file. Raises duckdb.Error for a snapshot lacking a table they read, SnapshotError for a path
    that is missing or not a regular file (never opened)."""
    try:
        mode = os.stat(info.path).st_mode
    except OSError as exc:
        raise SnapshotError(f"snapshot {info.snapshot_id} cannot be read: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        # a FIFO or device blocks on open: a reload waiting on it froze every later one
        raise SnapshotError(f"snapshot {info.snapshot_id} is not a regular file")
    con = duckdb.connect(":memory:")
    con.execute("set timezone = 'UTC'")
    default_threads = con.execute("select current_setting('threads')").fetchone()
    if threads is not None:  # a load beside a serving process: leave it the other cores
        con.execute(f"set threads = {int(threads)}")
    con.execute("attach ? as snap (read_only)", [str(info.path)])
    carried = {*graph().published_tables(), META_TABLE}
    try:
        tables = [
            row[0]
            for row in con.execute(
                "select table_name from information_schema.tables where table_catalog = 'snap'"
            ).fetchall()
        ]
        for table in tables:
            if table not in carried:
                continue
            con.execute(f"create table main.{table} as select * from snap.{table}")
    finally:
        con.execute("detach snap")
    try:
        create_views(con, published=True)
    except duckdb.Error:
        con.close()
        raise
    if threads is not None and default_threads is not None:
        con.execute(f"set threads = {int(default_threads[0])}")
    return con
