"""Opening the warehouse: the DuckDB file, numbered migrations, and seed tables.

Only the pipeline process opens the warehouse file (DuckDB allows one writer process and no
readers beside it); the API reads published snapshots instead (see ``warehouse.publish``).
"""

from __future__ import annotations

import csv
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import duckdb
from filelock import FileLock, Timeout

from warehouse.gpus import alias_table

PACKAGE_DIR = Path(__file__).resolve().parent
MIGRATIONS_DIR = PACKAGE_DIR / "migrations"
MODELS_DIR = PACKAGE_DIR / "models"
SEEDS_DIR = PACKAGE_DIR / "seeds"
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
        con.execute("begin transaction")
        try:
            con.execute(path.read_text(encoding="utf-8"))
            con.execute(
                "insert into schema_migrations values (?, ?, ?)",
                [version, name, datetime.now(UTC)],
            )
            con.execute("commit")
        except Exception:
            con.execute("rollback")
            raise
        done.append(version)
    return done


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _nullable(value: str | None) -> str | None:
    return None if value is None or value.strip() == "" else value.strip()


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


def load_seeds(con: duckdb.DuckDBPyConnection, seeds_dir: Path = SEEDS_DIR) -> dict[str, int]:
    """Replace the seed tables from the CSV files (inside the caller's transaction)."""
    counts: dict[str, int] = {}
    gpu_columns = [
        row[0]
        for row in con.execute(
            "select column_name from information_schema.columns"
            " where table_name = 'gpus' order by ordinal_position"
        ).fetchall()
    ]
    gpu_rows = _csv_rows(seeds_dir / "gpus.csv")
    con.execute("delete from gpus")
    bulk_insert(
        con,
        "gpus",
        gpu_columns,
        [[_nullable(row.get(col)) for col in gpu_columns] for row in gpu_rows],
    )
    counts["gpus"] = len(gpu_rows)

    con.execute("delete from gpu_aliases")
    aliases = alias_table(seeds_dir)
    bulk_insert(
        con,
        "gpu_aliases",
        ["alias_key", "gpu_id"],
        [[key, gpu_id] for key, gpu_id in aliases.items()],
    )
    counts["gpu_aliases"] = len(aliases)

    fx_path = seeds_dir / "fx_rates.csv"
    con.execute("delete from fx_rates where source like 'seed:%'")
    fx_rows = _csv_rows(fx_path) if fx_path.is_file() else []
    con.execute(
        "delete from fx_rates where (rate_date, currency) in (select unnest($1)::date, unnest($2))",
        [[r["rate_date"] for r in fx_rows], [r["currency"] for r in fx_rows]],
    )
    bulk_insert(
        con,
        "fx_rates",
        ["rate_date", "currency", "usd_per_unit", "source"],
        [
            [r["rate_date"], r["currency"], r["usd_per_unit"], f"seed:{r.get('source_url', '')}"]
            for r in fx_rows
        ],
    )
    con.execute(
        "insert or replace into fx_rates values (date '1970-01-01', 'USD', 1, 'seed:identity')"
    )
    counts["fx_rates"] = len(fx_rows) + 1
    from warehouse.fx import load_ecb_history  # fx uses bulk_insert from this module

    # The ECB's own rates for every working day (skipped when this file is already stored).
    counts["fx_rates_ecb_history"] = load_ecb_history(con).stored

    from warehouse.facts import load_fact_seeds  # facts uses bulk_insert from this module

    counts.update(load_fact_seeds(con, seeds_dir))
    return counts


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
            key = str(self.path)
            outer = held.get(key)
            held[key] = con
            try:
                yield con
            finally:
                if outer is None:
                    held.pop(key, None)

    @contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        held = getattr(_HELD, "connections", {}).get(str(self.path))
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
