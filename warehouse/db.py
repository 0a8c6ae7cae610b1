"""Opening the warehouse: the DuckDB file, numbered migrations, and seed tables.

Only the pipeline process opens the warehouse file (DuckDB allows one writer process and no
readers beside it); the API reads published snapshots instead (see ``warehouse.publish``).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import msgspec
import pyarrow as pa
from filelock import FileLock, Timeout

from warehouse.records import columns

PACKAGE_DIR = Path(__file__).resolve().parent
MIGRATIONS_DIR = PACKAGE_DIR / "migrations"
_MIGRATION_NAME = re.compile(r"^(?P<version>\d{4})_(?P<name>[a-z0-9_]+)\.sql$")


class MigrationError(RuntimeError):
    pass


def migrations() -> list[tuple[int, str, Path]]:
    """(version, name, path) of every migration file, in order; versions must be 1..n."""
    found = []
    for path in sorted(MIGRATIONS_DIR.glob("*.sql")):
        match = _MIGRATION_NAME.match(path.name)
        if match is None:
            raise MigrationError(f"migration file name not NNNN_name.sql: {path.name}")
        found.append((int(match["version"]), match["name"], path))
    versions = [v for v, _, _ in found]
    if versions != list(range(1, len(found) + 1)):
        raise MigrationError(f"migration versions must be 1..n without gaps, got {versions}")
    return found


def migrate(con: duckdb.DuckDBPyConnection) -> list[int]:
    """Apply pending migrations, each in its own transaction. Returns the versions applied."""
    con.execute(
        "create table if not exists schema_migrations ("
        " version integer primary key, name varchar not null, applied_at timestamptz not null)"
    )
    applied = {row[0] for row in con.execute("select version from schema_migrations").fetchall()}
    done = []
    for version, name, path in migrations():
        if version in applied:
            continue
        with transaction(con):
            con.execute(path.read_text(encoding="utf-8"))
            con.execute(
                "insert into schema_migrations values (?, ?, ?)",
                [version, name, datetime.now(UTC)],
            )
        done.append(version)
    return done


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """``begin`` ... ``commit`` around the block, ``rollback`` if it raises (and re-raise)."""
    con.execute("begin transaction")
    try:
        yield con
    except BaseException:
        # DuckDB may have ended the failed transaction itself: what failed is what is raised
        with contextlib.suppress(duckdb.TransactionException):
            con.execute("rollback")
        raise
    con.execute("commit")


def bulk_insert(
    con: duckdb.DuckDBPyConnection, table: str, columns: list[str], rows: list[list[object]]
) -> None:
    """Insert many rows in one statement (column-wise lists + unnest): DuckDB's executemany
    runs one statement per row, ~100x slower. ``table``/``columns`` are code constants."""
    if not rows:
        return
    unnests = ", ".join(f"unnest(${i + 1}) as c{i}" for i in range(len(columns)))
    con.execute(
        f"insert into {table} ({', '.join(columns)}) select {unnests}",
        [list(col) for col in zip(*rows, strict=True)],
    )


def insert_records(
    con: duckdb.DuckDBPyConnection, table: str, records: Sequence[msgspec.Struct]
) -> int:
    """Insert ``records`` (all of one ``warehouse.records`` type, whose fields are the columns)
    into ``table`` in one statement, through an Arrow table (column-wise, no per-row SQL).
    DuckDB casts each column to the table's type on insert (decimals exactly). Returns the
    row count. ``table`` is a code constant."""
    if not records:
        return 0
    names = columns(type(records[0]))
    data = pa.table({n: [getattr(r, n) for r in records] for n in names})
    insert_arrow(con, table, data)
    return len(records)


def insert_arrow(con: duckdb.DuckDBPyConnection, table: str, data: pa.Table) -> None:
    """``insert into table (<data's columns>) select ... from data`` (``table``: a constant)."""
    # register() refuses to run while an earlier result is unread (a fetchone() leaves one);
    # a statement of our own, read to the end, closes it
    con.execute("select 1").fetchall()
    con.register("_insert_arrow", data)
    try:
        names = ", ".join(data.column_names)
        con.execute(f"insert into {table} ({names}) select {names} from _insert_arrow")
    finally:
        con.unregister("_insert_arrow")


class WarehouseBusy(RuntimeError):
    pass


# Connections kept open by Warehouse.held(), per thread: {warehouse path: connection}.
_HELD = threading.local()


class Warehouse:
    """The warehouse file under ``$GPUPRICES_HOME``: open (one writer at a time), migrate.

    DuckDB allows one read-write process per file; parallel pipeline steps (multiprocess
    executor) therefore take an exclusive file lock around each connection instead of failing.
    """

    def __init__(self, path: Path, lock_timeout_s: float = 300.0) -> None:
        self.path = path
        self.lock_timeout_s = lock_timeout_s
        # what held() connections are found by: one file however its path is spelled
        self._key = str(path.expanduser().resolve())

    @contextmanager
    def held(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """Keep one connection (and the file lock) for the block: every ``connect()`` of this
        warehouse file in this thread reuses it instead of opening the file again.

        Opening a DuckDB database costs ~40-60 ms (instance start-up, plus a checkpoint on
        close), which dominated replays: one provider's replay opened it once per capture.
        Use it only around work that does not wait on the network, since the lock is held
        throughout. Reentrant: a nested ``held()`` reuses the outer connection.
        """
        with self.connect() as con:
            held = _HELD.__dict__.setdefault("connections", {})
            key = self._key
            outer = held.get(key)
            held[key] = con
            try:
                yield con
            finally:
                if outer is None:
                    held.pop(key, None)

    @contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        held = getattr(_HELD, "connections", {}).get(self._key)
        if held is not None:  # inside held(): reuse its open, locked, migrated connection
            yield held
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.path) + ".lock")
        try:
            lock.acquire(timeout=self.lock_timeout_s)
        except Timeout:
            raise WarehouseBusy(
                f"warehouse {self.path} is locked by another process "
                f"for {self.lock_timeout_s:.0f} s"
            ) from None
        try:
            con = duckdb.connect(str(self.path))
            try:
                con.execute("set timezone = 'UTC'")
                migrate(con)
                yield con
            finally:
                con.close()
        finally:
            lock.release()
