from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import duckdb
import pytest

from warehouse import db
from warehouse.analysis import create_views
from warehouse.db import Warehouse, migrate, migrations
from warehouse.history import refresh_rollup
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


def _migrate_before(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Apply the migrations before ``name`` as ``migrate`` would (an older warehouse)."""
    con.execute(
        "create table schema_migrations ("
        " version integer primary key, name varchar not null, applied_at timestamptz not null)"
    )
    for version, migration, path in migrations():
        if migration == name:
            return
        con.execute(path.read_text(encoding="utf-8"))
        con.execute("insert into schema_migrations values (?, ?, now())", [version, migration])
    raise AssertionError(f"no migration {name}")


def test_upgrade_renames_provider_spelling_keeping_the_values(tmp_path):
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    _migrate_before(con, "gpu_name_provider")
    con.execute("""
        insert into observations (scrape_id, offer_id, provider, instance_type, region, pricing,
            gpu_name, gpu_id, gpu_count, price, currency, price_unit, price_per, serverless,
            source_url, observed_at, price_per_hour, usd_per_unit, price_per_hour_usd)
        values ('s1', 'o1', 'lambda', 'gpu_8x_h100_sxm5', 'global', 'on_demand',
            'NVIDIA H100 SXM', 'h100-sxm', 8, 2.99, 'USD', 'hour', 'gpu', false,
            'https://lambda.ai/pricing', '2026-01-09 10:39+00', 23.92, 1, 23.92)
    """)
    con.execute("""
        insert into offer_history (offer_id, provider, valid_from, instance_type, region,
            pricing, gpu_id, gpu_count, price, currency, price_per_hour_usd, source, gpu_name,
            serverless)
        values ('o1', 'lambda', '2026-01-09 10:39+00', 'gpu_8x_h100_sxm5', 'global',
            'on_demand', 'h100-sxm', 8, 2.99, 'USD', 23.92, 'scrape', 'NVIDIA H100 SXM', false)
    """)
    con.execute("""
        insert into imported_daily_prices (source, day, captured_at, provider, gpu_name,
            gpu_id, offer_count, min_price_per_hour_usd, median_price_per_hour_usd,
            max_price_per_hour_usd)
        values ('import:cat', '2025-04-12', '2025-04-12 00:00+00', 'lambdalabs', 'H100', null,
            80, 2.49, 2.99, 23.92)
    """)
    con.execute("""
        insert into market_summaries (source, market, observed_at, gpu_name, gpu_id)
        values ('import:pi', 'H100_80GB SXM5', '2025-06-16 00:00+00', 'H100_80GB', 'h100-sxm')
    """)
    # the analysis objects of the older warehouse, one of them naming the old column
    con.execute("create macro offers_as_of(at_time) as table select gpu_name from offer_history")

    assert migrate(con) == [v for v, n, _ in migrations() if v >= _version("gpu_name_provider")]
    spelled = {
        table: con.execute(f"select gpu_name_provider from {table}").fetchall()
        for table in ("observations", "offer_history", "imported_daily_prices", "market_summaries")
    }
    assert spelled == {
        "observations": [("NVIDIA H100 SXM",)],
        "offer_history": [("NVIDIA H100 SXM",)],
        "imported_daily_prices": [("H100",)],
        "market_summaries": [("H100_80GB",)],
    }
    assert not con.execute(
        "select table_name from information_schema.columns where column_name = 'gpu_name'"
        " and table_schema = 'main'"
    ).fetchall()
    # the key still holds under its new name: the same row again is a conflict
    with pytest.raises(duckdb.ConstraintException):
        con.execute("""
            insert into imported_daily_prices (source, day, captured_at, provider,
                gpu_name_provider, offer_count, min_price_per_hour_usd,
                median_price_per_hour_usd, max_price_per_hour_usd)
            values ('import:cat', '2025-04-12', '2025-04-12 00:00+00', 'lambdalabs', 'H100',
                1, 1, 1, 1)
        """)
    load_seeds(con)
    create_views(con)
    assert con.execute(
        "select gpu_name_provider, gpu_id, gpu_name from offers_as_of(timestamp '2026-01-10')"
    ).fetchall() == [("NVIDIA H100 SXM", "h100-sxm", "NVIDIA H100 SXM5 80GB")]


def _version(name: str) -> int:
    return next(v for v, n, _ in migrations() if n == name)


def test_upgrade_rebuilds_a_rollup_built_with_the_single_stale_threshold(tmp_path):
    # a warehouse whose rollup was built with GPUPRICES_STALE_AFTER_DAYS = 30 and links of
    # consecutive days only: the upgrade forgets the threshold and asks for a full rebuild
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    _migrate_before(con, "rollup_shelf_life")
    con.execute(
        "update history_rollup_state set refreshed_through = '2026-03-01',"
        " refreshed_at = '2026-03-01 12:00+00', stale_after_days = 30"
        " where rollup = 'daily_provider_prices'"
    )
    con.execute(
        "insert into daily_provider_prices values ('2026-03-01', 'p', 'h100-sxm', 'on_demand',"
        " 'scrape', 2.99, 2.99, 1, 0, 0)"
    )
    assert migrate(con) == [v for v, n, _ in migrations() if v >= _version("rollup_shelf_life")]
    state = con.execute(
        "select refreshed_through, refreshed_at is not null, shelf_life_days"
        " from history_rollup_state where rollup = 'daily_provider_prices'"
    ).fetchall()
    assert state == [(None, True, None)]
    assert not con.execute(
        "select column_name from information_schema.columns"
        " where table_name = 'history_rollup_state' and column_name = 'stale_after_days'"
    ).fetchall()
    # the next refresh redoes every day from the first interval, under the new rules
    con.execute(
        "insert into offer_history (offer_id, provider, valid_from, valid_to, instance_type,"
        " region, pricing, gpu_id, gpu_count, price, currency, price_per_hour_usd, source,"
        " serverless, price_per_gpu_hour_usd) values ('o1', 'p', '2026-02-27 00:00+00',"
        " '2026-03-02 00:00+00', 'i', 'global', 'on_demand', 'h100-sxm', 1, 2.99, 'USD', 2.99,"
        " 'import:x', false, 2.99)"
    )
    refresh_rollup(con, now=datetime(2026, 3, 2, tzinfo=UTC))
    rows = con.execute(
        "select day, source, offer_count, matched_offer_count from daily_provider_prices"
        " order by day"
    ).fetchall()
    assert rows == [
        (date(2026, 2, 27), "import:x", 1, 0),
        (date(2026, 2, 28), "import:x", 1, 1),  # an imported interval is observed daily
        (date(2026, 3, 1), "import:x", 1, 1),
    ]
    (built,) = con.execute("select shelf_life_days from history_rollup_state").fetchone() or ("",)
    assert '"on_demand": 180.0' in built


def test_upgrade_backfills_last_seen_coverage_and_units(tmp_path):
    # a 0013 warehouse: lambda scraped three times; its 8x H100 changed at the second scrape and
    # its 1x H100 disappeared at the third; only the newest scrape's observations are kept
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    _migrate_before(con, "history_across_gaps")
    for sid, at in [("s0", "2026-01-09"), ("s1", "2026-02-09"), ("s2", "2026-03-09")]:
        con.execute(
            "insert into scrapes (scrape_id, provider, mode, source, started_at, observed_at,"
            " status) values (?, 'lambda', 'replay', 't', ?, ?, 'success')",
            [sid, at, at],
        )
    con.execute(
        "insert into scrapes (scrape_id, provider, mode, source, started_at, status)"
        " values ('bad', 'lambda', 'live', 'live', '2026-03-10', 'failed')"
    )
    for oid, start, end, price, sid in [
        ("o8", "2026-01-09", "2026-02-09", 20.72, "s0"),
        ("o8", "2026-02-09", None, 2.99, "s1"),
        ("o1", "2026-01-09", "2026-03-09", 3.29, "s0"),
    ]:
        con.execute(
            "insert into offer_history (offer_id, provider, valid_from, valid_to, instance_type,"
            " region, pricing, gpu_count, price, currency, price_per_hour_usd, source,"
            " scrape_id) values (?, 'lambda', ?, ?, 'i', 'global', 'on_demand', 8, ?, 'USD',"
            " ?, 'scrape', ?)",
            [oid, start, end, price, price, sid],
        )
    con.execute(
        "insert into observations (scrape_id, offer_id, provider, instance_type, region,"
        " pricing, gpu_name_provider, gpu_count, price, currency, price_unit, price_per,"
        " serverless, source_url, observed_at, price_per_hour, usd_per_unit,"
        " price_per_hour_usd) values ('s2', 'o8', 'lambda', 'i', 'global', 'on_demand', 'g', 8,"
        " 2.99, 'USD', 'hour', 'gpu', false, 'u', '2026-03-09', 23.92, 1, 23.92)"
    )
    assert migrate(con) == [v for v, n, _ in migrations() if v >= _version("history_across_gaps")]
    assert con.execute(
        "select scrape_id, coverage, coverage_reason is not null from scrapes order by 1"
    ).fetchall() == [
        ("bad", None, False),
        ("s0", "full", True),
        ("s1", "full", True),
        ("s2", "full", True),
    ]
    rows = con.execute(
        "select offer_id, strftime(timezone('UTC', last_seen_at), '%Y-%m-%d'), price_unit,"
        " price_per, price_per_hour from offer_history order by offer_id, valid_from"
    ).fetchall()
    assert rows == [
        ("o1", "2026-02-09", None, None, None),  # seen until the scrape before the one it left
        ("o8", "2026-01-09", None, None, None),  # its observations pruned: unit unknown
        ("o8", "2026-03-09", "hour", "gpu", Decimal("23.920000")),
    ]
