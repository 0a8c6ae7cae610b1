"""Backfill importers on the real datasets in ../shared/history: values read off the files,
exclusions and unresolved GPU names reported, and importing twice changes nothing."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tests.conftest import HISTORY
from warehouse.db import Warehouse, load_seeds
from warehouse.importers import IMPORTERS, DatasetError, gpu_hunt_site, import_all
from warehouse.load import offer_id

TABLES = ("offer_history", "imported_daily_prices", "market_summaries", "market_summary_providers")


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    path = tmp_path_factory.mktemp("imports") / "w.duckdb"
    with Warehouse(path).connect() as con:
        con.execute("begin transaction")
        load_seeds(con)
        con.execute("commit")
        results = {r.dataset: r for r in import_all(con, HISTORY)}
    return path, results


@pytest.fixture()
def con(imported):
    with Warehouse(imported[0]).connect() as connection:
        yield connection


def _contents(con) -> dict[str, list[tuple]]:
    return {t: con.execute(f"select * from {t} order by all").fetchall() for t in TABLES}


def test_every_dataset_is_imported_with_its_source(imported, con):
    _, results = imported
    assert set(results) == set(IMPORTERS)
    assert all(r.status == "imported" for r in results.values())
    sources = {
        r[0]
        for r in con.execute(
            "select distinct source from offer_history union select distinct source from"
            " imported_daily_prices union select distinct source from market_summaries"
        ).fetchall()
    }
    assert sources == {f"import:{d}" for d in IMPORTERS}


def test_gpuhunt_catalog_rows_become_daily_statistics(imported, con):
    result = imported[1]["gpuhunt-h100-h200-mi300x"]
    assert (result.files, result.rows_read) == (25, 14074)
    # 2025-04-12: 80 lambdalabs H100 rows, $2.49 .. $23.92 per instance-hour
    row = con.execute(
        "select offer_count, min_price_per_hour_usd, max_price_per_hour_usd, gpu_id"
        " from imported_daily_prices where day = '2025-04-12' and provider = 'lambdalabs'"
        " and gpu_name = 'H100'"
    ).fetchone()
    assert row == (80, Decimal("2.49"), Decimal("23.92"), None)
    assert con.execute(
        "select gpu_id from imported_daily_prices where gpu_name = 'MI300X' limit 1"
    ).fetchone() == ("mi300x",)


def test_gpuhunt_family_names_are_reported_not_dropped(imported):
    result = imported[1]["gpuhunt-h100-h200-mi300x"]
    # "H100" / "A100" name a family (SXM, PCIe, NVL, 40/80 GB): kept with gpu_id null, counted
    assert dict(result.unresolved_gpus) == {"H100": 12512, "A100": 788}
    assert "'H100' x12512" in result.summary()


def test_gpu_hunt_site_servers_become_offer_intervals(con):
    oid = offer_id(
        "coreweave", "gpu-hunt-site:coreweave-nvidia_a100_sxm4-8x-80gb", "US", "on_demand", None
    )
    rows = con.execute(
        "select instance_type, gpu_id, gpu_count, price, currency, price_per_hour_usd,"
        " valid_from, valid_to from offer_history where offer_id = ?",
        [oid],
    ).fetchall()
    # seen in every coreweave session from 00:08:59 to the last at 18:12:01, at $16.48/h
    assert rows == [
        (
            "8× A100 SXM4 80GB",
            "a100-80gb-sxm",
            Decimal("8"),
            Decimal("16.48"),
            "USD",
            Decimal("16.48"),
            datetime(2026, 4, 1, 0, 8, 59, 239000, tzinfo=UTC),
            datetime(2026, 4, 1, 18, 12, 1, 228000, tzinfo=UTC),
        )
    ]


def test_gpu_hunt_site_price_change_splits_an_interval(con):
    # a Hetzner auction server (EUR): 0.9599 -> 0.9888 per hour at 11:59:51.675 UTC
    rows = con.execute("""
        select h.price, h.currency, h.valid_from
        from offer_history h
        where h.provider = 'hetzner' and h.region = 'NBG1-DC6' and h.gpu_id = 'rtx-6000-ada'
          and h.offer_id in (select offer_id from offer_history group by offer_id
                             having count(*) > 1)
        order by h.valid_from""").fetchall()
    assert [(r[0], r[1]) for r in rows] == [(Decimal("0.9599"), "EUR"), (Decimal("0.9888"), "EUR")]
    assert rows[1][2] == datetime(2026, 4, 1, 11, 59, 51, 675000, tzinfo=UTC)


def test_gpu_hunt_site_prefers_the_display_name_over_the_lossy_model_column(con):
    # the site files "1× RTX A4000" under gpu_model "NVIDIA A40"
    rows = con.execute(
        "select distinct gpu_id from offer_history where provider = 'vast'"
        " and instance_type like '%RTX A4000'"
    ).fetchall()
    assert rows == [("rtx-a4000",)]


def test_gpu_hunt_site_exclusions_and_unresolved_names_are_counted(imported):
    result = imported[1]["gpu-hunt-site"]
    assert result.rows_read == 12205 + 59  # price_history rows + servers without history
    assert result.excluded["rows of servers without a GPU (CPU-only)"] == 9863
    assert result.unresolved_gpus["NVIDIA A100"] == 151  # 40 or 80 GB, SXM or PCIe: unknown
    assert "NVIDIA A40" not in result.unresolved_gpus
    kept = result.rows_read - sum(result.excluded.values())
    assert kept > 2000 and result.rows_written["offer_history"] > 600


def test_prime_intellect_summaries_keep_every_snapshot(imported, con):
    result = imported[1]["prime-intellect-summary"]
    assert result.rows_read == 6494 == result.rows_written["market_summaries"]
    assert not result.unresolved_gpus
    first = con.execute(
        "select gpu_id, min_usd_per_gpu_hour, median_usd_per_gpu_hour, max_usd_per_gpu_hour,"
        " offers_total, offers_available from market_summaries where market = 'H100_80GB SXM5'"
        " order by observed_at limit 1"
    ).fetchone()
    assert first == ("h100-sxm", Decimal("1"), Decimal("1.99"), Decimal("3.29"), 32, 7)
    runpod = con.execute(
        "select offer_count, min_usd_per_gpu_hour, avg_usd_per_gpu_hour"
        " from market_summary_providers where market = 'H100_80GB SXM5' and provider = 'runpod'"
        " order by observed_at limit 1"
    ).fetchone()
    assert runpod == (4, Decimal("2.69"), Decimal("2.7"))


def test_importing_twice_changes_nothing(imported, con):
    before = _contents(con)
    again = import_all(con, HISTORY)
    assert {r.status for r in again} == {"unchanged"}
    assert _contents(con) == before
    # and a full re-import (as after an importer upgrade) writes exactly the same rows
    con.execute("delete from history_imports")
    again = import_all(con, HISTORY)
    assert {r.status for r in again} == {"imported"}
    assert _contents(con) == before
    recorded = con.execute(
        "select unresolved_gpus from history_imports"
        " where source = 'import:gpuhunt-h100-h200-mi300x'"
    ).fetchone()
    assert json.loads(recorded[0]) == {"A100": 788, "H100": 12512}


def test_imported_history_never_touches_scraped_intervals(con):
    assert con.execute(
        "select count(*) from offer_history where source = 'scrape' or scrape_id is not null"
    ).fetchone() == (0,)


def test_a_file_in_an_unknown_layout_fails_without_writing(tmp_path):
    folder = tmp_path / gpu_hunt_site.DATASET
    folder.mkdir()
    shutil.copy(HISTORY / gpu_hunt_site.DATASET / "2026-04-01T18_servers.csv", folder)
    (folder / "2026-04-02_price_history.csv").write_text("id,server_id,price\n1,x,2\n")
    with Warehouse(tmp_path / "w.duckdb").connect() as con:
        load_seeds(con)
        with pytest.raises(DatasetError, match="missing columns"):
            gpu_hunt_site.import_dataset(con, folder)
        assert con.execute("select count(*) from history_imports").fetchone() == (0,)


def test_unknown_dataset_and_missing_folder_are_errors(tmp_path):
    with Warehouse(tmp_path / "w.duckdb").connect() as con:
        with pytest.raises(KeyError, match="unknown dataset"):
            import_all(con, HISTORY, ["nope"])
        with pytest.raises(DatasetError, match="does not exist"):
            import_all(con, tmp_path, ["gpu-hunt-site"])
