from __future__ import annotations

import duckdb

from warehouse.db import Warehouse, migrate, migrations
from warehouse.seeding import load_seeds


def test_migration_files_are_numbered_without_gaps():
    versions = [v for v, _, _ in migrations()]
    assert versions == list(range(1, len(versions) + 1))


def test_migrate_applies_each_migration_once(tmp_path):
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    applied = migrate(con)
    assert applied == [v for v, _, _ in migrations()]
    assert migrate(con) == []
    tables = {
        r[0] for r in con.execute("select table_name from information_schema.tables").fetchall()
    }
    assert {
        "raw_responses",
        "scrapes",
        "fetches",
        "observations",
        "offer_history",
        "gpus",
        "gpu_aliases",
        "fx_rates",
        "schema_migrations",
    } <= tables


def test_reopening_the_file_keeps_data(tmp_path):
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.connect() as con:
        load_seeds(con)
        gpus = con.execute("select count(*) from gpus").fetchall()[0][0]
    with wh.connect() as con:
        assert con.execute("select count(*) from gpus").fetchall()[0][0] == gpus > 30
        assert con.execute("select count(*) from schema_migrations").fetchall()[0][0] == len(
            migrations()
        )


def test_seed_reload_is_idempotent(tmp_path):
    with Warehouse(tmp_path / "w.duckdb").connect() as con:
        first = load_seeds(con)
        second = load_seeds(con)
        assert first == second
        assert con.execute("select count(*) from gpus").fetchall()[0][0] == first["gpus"]
