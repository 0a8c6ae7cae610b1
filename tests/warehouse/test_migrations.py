from __future__ import annotations

from decimal import Decimal

import duckdb

from warehouse import db
from warehouse.db import Warehouse, migrate, migrations
from warehouse.seeding import load_seeds
from warehouse.units import share_per_gpu_usd


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


def test_0012_backfills_the_per_gpu_price_as_sql_derived_it(tmp_path, monkeypatch):
    # a warehouse at 0011 holds rows without a stored per-GPU price; 0012 fills them with the
    # figure current_offers/offer_intervals derived, round(price_per_hour_usd / gpu_count, 6)
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    monkeypatch.setattr(db, "migrations", lambda: [m for m in migrations() if m[0] <= 11])
    migrate(con)
    for usd, gpus in [("4.561301", 2), ("12.601310", 4), ("19.920000", 8)]:
        oid = f"o-{usd}"
        con.execute(
            "insert into offer_history (offer_id, provider, valid_from, instance_type, region,"
            " pricing, gpu_count, price, currency, price_per_hour_usd, source) values"
            " (?, 'p', '2026-01-09', 'i', 'global', 'on_demand', ?, ?, 'USD', ?, 'scrape')",
            [oid, gpus, usd, usd],
        )
        con.execute(
            "insert into observations (scrape_id, offer_id, provider, instance_type, region,"
            " pricing, gpu_name, gpu_count, price, currency, price_unit, price_per, serverless,"
            " source_url, observed_at, price_per_hour, usd_per_unit, fx_rate_date,"
            " price_per_hour_usd) values ('s', ?, 'p', 'i', 'global', 'on_demand', 'g', ?, ?,"
            " 'USD', 'hour', 'instance', false, 'u', '2026-01-09', ?, 1, '2026-01-09', ?)",
            [oid, gpus, usd, usd, usd],
        )
    monkeypatch.undo()
    assert migrate(con) == [v for v, _, _ in migrations() if v > 11]
    # 4.561301 / 2 = 2.2806505 and 12.601310 / 4 = 3.1503275 are ties: rounded as DuckDB's
    # DOUBLE division rounded them (up, down), which warehouse.units.share_per_gpu_usd repeats
    expected = [Decimal("2.280651"), Decimal("2.490000"), Decimal("3.150327")]
    for table in ("observations", "offer_history"):
        stored = con.execute(
            f"select price_per_gpu_hour_usd from {table} order by price_per_gpu_hour_usd"
        ).fetchall()
        assert [r[0] for r in stored] == expected, table
    shares = [
        share_per_gpu_usd(Decimal(u), Decimal(g))
        for u, g in [("4.561301", 2), ("19.920000", 8), ("12.601310", 4)]
    ]
    assert shares == expected  # new rows get the same figures
