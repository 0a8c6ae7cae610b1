"""Retention measured from a future scrape (issue 15): a successful scrape dated 2099, stored
before the ingest refused such dates, must make neither the observation retention
(``warehouse.history.prune_observations``) nor the raw-archive retention
(``warehouse.retention.prune_raw``) delete what real scrapes still need."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from datetime import UTC, datetime

import duckdb
import pytest

from pipelines.ingest import scrape_provider
from scrapers.registry import PROVIDERS
from tests.conftest import SNAPSHOTS
from tests.support.seeded import seeded_warehouse
from warehouse.db import Warehouse
from warehouse.history import prune_observations
from warehouse.paths import Paths
from warehouse.retention import RawRetention, prune_raw

FUTURE = datetime(2099, 1, 1, tzinfo=UTC)
FUTURE_SHA = "ff" * 32


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory, seeded_template) -> Paths:
    """Every Lambda capture replayed: scrapes observed from 2023 to 2026."""
    paths = Paths(tmp_path_factory.mktemp("retention") / "home")
    seeded_warehouse(seeded_template, paths.warehouse)
    outcomes = scrape_provider(PROVIDERS["lambda"], paths=paths, replay_dir=SNAPSHOTS)
    assert len(outcomes) >= 3 and all(o.status == "success" for o in outcomes)
    return paths


@pytest.fixture
def con(paths: Paths) -> Iterator[duckdb.DuckDBPyConnection]:
    with Warehouse(paths.warehouse).connect() as con:
        con.execute("begin transaction")
        yield con
        con.execute("rollback")


def _store_future_scrape(con: duckdb.DuckDBPyConnection, raw=None) -> None:
    con.execute(
        "insert into scrapes (scrape_id, provider, mode, source, started_at, finished_at,"
        " observed_at, status, offer_count) values ('future', 'lambda', 'replay', 'x', now(),"
        " now(), ?, 'success', 1)",
        [FUTURE],
    )
    con.execute(
        "insert into fetches values ('future', 0, 'GET', 'https://x.invalid/', 200, ?, ?)",
        [FUTURE, FUTURE_SHA],
    )
    if raw is not None:
        (raw / FUTURE_SHA[:2]).mkdir(parents=True, exist_ok=True)
        (raw / FUTURE_SHA[:2] / f"{FUTURE_SHA}.gz").write_bytes(gzip.compress(b"2099"))


def _observations(con: duckdb.DuckDBPyConnection) -> int:
    return con.execute("select count(*) from observations").fetchone()[0]  # type: ignore[index]


def test_history_retention_is_not_measured_from_a_future_scrape(paths: Paths) -> None:
    keep_days = 365  # the captures span 2023-2026: the window drops the oldest only
    with Warehouse(paths.warehouse).connect() as con:
        total = _observations(con)
        con.execute("begin transaction")
        expected = prune_observations(con, keep_days)
        con.execute("rollback")
        assert 0 < expected < total

        con.execute("begin transaction")
        _store_future_scrape(con)
        deleted = prune_observations(con, keep_days)
        left = _observations(con)
        con.execute("rollback")
    assert deleted == expected  # measured from the newest real scrape, not from 2099
    assert left == total - expected


def test_raw_retention_keeps_the_real_current_scrape_beside_a_future_one(
    paths: Paths, con: duckdb.DuckDBPyConnection
) -> None:
    newest_real = con.execute(
        "select arg_max(scrape_id, observed_at) from scrapes where status = 'success'"
    ).fetchone()[0]  # type: ignore[index]
    bodies = {
        sha
        for (sha,) in con.execute(
            "select sha256 from fetches where scrape_id = ?", [newest_real]
        ).fetchall()
    }
    _store_future_scrape(con, paths.raw)
    # the tightest policy there is: only what rule 1 (current scrapes) protects survives
    prune_raw(con, paths.raw, policy=RawRetention(keep_scrapes=1, keep_days=1e-9, max_bytes=1))
    on_disk = {p.name.removesuffix(".gz") for p in paths.raw.glob("*/*.gz")}
    assert bodies and bodies <= on_disk
    assert FUTURE_SHA in on_disk  # the provider's newest: kept (issue 27: never quarantined)


def test_symlinks_in_raw_make_retention_delete_nothing_outside_the_home(
    paths: Paths, con: duckdb.DuckDBPyConnection, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Issue 27 (low): a folder under raw/ linked to another directory had retention (and
    recovery's temp-file sweep) delete the .gz and .tmp files there."""
    from warehouse.recovery import recover

    outside = tmp_path_factory.mktemp("outside")
    for name in ("ee" * 32 + ".gz", "x.tmp1"):
        (outside / name).write_bytes(b"not the archive's")
    (outside / "f").mkdir()
    linked_file = outside / "f" / ("dd" * 32 + ".gz")
    linked_file.write_bytes(b"not the archive's either")
    (paths.raw / "ee").symlink_to(outside, target_is_directory=True)
    (paths.raw / "dd").mkdir(exist_ok=True)
    (paths.raw / "dd" / ("dd" * 32 + ".gz")).symlink_to(linked_file)
    try:
        prune_raw(con, paths.raw, policy=RawRetention(keep_scrapes=1, keep_days=1e-9, max_bytes=1))
        recover(con, paths.raw)
        assert sorted(p.name for p in outside.iterdir()) == sorted(
            ["ee" * 32 + ".gz", "x.tmp1", "f"]
        )
        assert linked_file.read_bytes() == b"not the archive's either"
    finally:
        (paths.raw / "ee").unlink()
        (paths.raw / "dd" / ("dd" * 32 + ".gz")).unlink()
