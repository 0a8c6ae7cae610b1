"""Dagster's SQLite run and event-log storage, keeping its database connections open: the
storage of the instance ``gpuprices ingest`` runs its jobs on (``pipelines.run.dagster_instance``).

Dagster's own SQLite storages open a new SQLAlchemy engine and connection for every read and
every write (``poolclass=NullPool``) and close it afterwards. An ingest of every capture stores
about 760 events, most of them two to four writes (the run's own database, the cross-run index,
the asset-check table), so about 2,000 connections are opened, and each close of the last
connection to a WAL-mode database checkpoints it (writes the WAL back and fsyncs). On 2 shared
cores that was the largest single cost of a replay ingest (issue 23, ``docs/performance.md``).

These subclasses change only how connections are held: one engine per database file, whose
pool keeps the connection open between writes (and the answer, once yes, to "has the index this
table?", which Dagster asks through a new engine before every asset-check write), and SQLite's
``synchronous=NORMAL``, the setting SQLite recommends with WAL (a commit no longer waits on an
fsync of the WAL; the database stays consistent after any crash, and only the last events
before a power loss can be lost). Files, schema and rows are Dagster's: ``dagster dev``, the
daemon and other processes read the same storage with Dagster's own classes, concurrently, as
before (WAL allows readers beside a writer). Dagster is pinned (pyproject.toml): these override
private methods of its SQLite storages (``_connect``, ``connect``), which an upgrade must check.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
import sqlalchemy.event
from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage
from dagster._core.storage.runs.sqlite.sqlite_run_storage import SqliteRunStorage
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS
from dagster._core.storage.sqlite_storage import _event_logs_directory, _runs_directory
from dagster._serdes import ConfigurableClassData

MODULE = __name__


def _relaxed_sync(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("pragma synchronous = normal")
    cursor.close()


def _engine(conn_string: str, **connect_args: Any) -> sa.Engine:
    # SQLAlchemy's pool for a SQLite file keeps connections open, shareable across threads
    # (check_same_thread=False); Dagster's classes pass NullPool to open one per use.
    engine = sa.create_engine(conn_string, connect_args=connect_args)
    sqlalchemy.event.listen(engine, "connect", _relaxed_sync)
    return engine


class PooledSqliteEventLogStorage(SqliteEventLogStorage):
    """``SqliteEventLogStorage`` (one database per run plus a cross-run index) with one open
    engine per database file."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None) -> None:
        self._engines: dict[str, sa.Engine] = {}
        self._engines_lock = threading.Lock()
        self._tables: set[str] = set()
        super().__init__(base_dir, inst_data)

    @classmethod
    def from_config_value(  # type: ignore[override]
        cls, inst_data: ConfigurableClassData | None, config_value: Any
    ) -> PooledSqliteEventLogStorage:
        return cls(inst_data=inst_data, **config_value)

    def _shard_engine(self, shard: str) -> sa.Engine:
        with self._engines_lock:
            engine = self._engines.get(shard)
            if engine is None:
                engine = _engine(
                    self.conn_string_for_shard(shard), timeout=SQLITE_BUSY_TIMEOUT_SECONDS
                )
                self._engines[shard] = engine
            return engine

    @contextmanager
    def _connect(self, shard: str) -> Iterator[sa.Connection]:
        # as SqliteEventLogStorage._connect, without creating and disposing an engine each time
        with self._db_lock:
            engine = self._shard_engine(shard)
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn, conn.begin():
                yield conn

    def has_table(self, table_name: str) -> bool:
        # Dagster asks before every asset-check and asset-tag write, each time through a new
        # engine; a table, once there, stays (migrations only add)
        if table_name in self._tables:
            return True
        found = super().has_table(table_name)
        if found:
            self._tables.add(table_name)
        return found

    def _close_shard(self, shard: str) -> None:
        with self._engines_lock:
            engine = self._engines.pop(shard, None)
        if engine is not None:
            engine.dispose()

    def delete_events(self, run_id: str) -> None:
        super().delete_events(run_id)
        self._close_shard(run_id)  # its file may be deleted next (pipelines.run_retention)

    def wipe(self) -> None:
        for shard in list(self._engines):
            self._close_shard(shard)
        self._tables.clear()
        super().wipe()

    def dispose(self) -> None:
        super().dispose()
        for shard in list(self._engines):
            self._close_shard(shard)


class PooledSqliteRunStorage(SqliteRunStorage):
    """``SqliteRunStorage`` (``history/runs.db``) with one open engine."""

    _pooled: sa.Engine | None = None

    @classmethod
    def from_config_value(  # type: ignore[override]
        cls, inst_data: ConfigurableClassData | None, config_value: Any
    ) -> PooledSqliteRunStorage:
        return cls.from_local(inst_data=inst_data, **config_value)

    @contextmanager
    def connect(self) -> Iterator[sa.Connection]:
        if self._pooled is None:
            self._pooled = _engine(self._conn_string)
        with self._pooled.connect() as conn, conn.begin():
            yield conn

    def dispose(self) -> None:
        super().dispose()
        if self._pooled is not None:
            self._pooled.dispose()
            self._pooled = None


def storage_overrides(dagster_home: str) -> dict[str, Any]:
    """Instance ``overrides`` selecting these storages over ``dagster_home``'s own files (where
    Dagster's default ``storage: sqlite`` keeps them; schedules stay Dagster's default)."""
    return {
        "run_storage": {
            "module": MODULE,
            "class": PooledSqliteRunStorage.__name__,
            "config": {"base_dir": _runs_directory(dagster_home)},
        },
        "event_log_storage": {
            "module": MODULE,
            "class": PooledSqliteEventLogStorage.__name__,
            "config": {"base_dir": _event_logs_directory(dagster_home)},
        },
    }
