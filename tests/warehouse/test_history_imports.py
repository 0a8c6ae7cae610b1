"""Backfill importers on the real datasets in ../shared/history: values read off the files,
family-only GPU names kept at family level, every row read accounted for once, and importing
twice changes nothing."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from tests.conftest import HISTORY
from tests.support.seeded import seeded_warehouse
from warehouse.analysis import create_views
from warehouse.db import Warehouse
from warehouse.importers import IMPORTERS, DatasetError, common, gpu_hunt_site, import_all
from warehouse.importers.families import FAMILIES_CSV, family_table, members, resolve_family
from warehouse.load import offer_id

TABLES = ("offer_history", "imported_daily_prices", "market_summaries", "market_summary_providers")


@pytest.fixture(scope="module")
def imported(tmp_path_factory, seeded_template):
    path = tmp_path_factory.mktemp("imports") / "w.duckdb"
    with seeded_warehouse(seeded_template, path).connect() as con:
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
        "select offer_count, min_price_per_hour_usd, max_price_per_hour_usd, gpu_id, gpu_family"
        " from imported_daily_prices where day = '2025-04-12' and provider = 'lambdalabs'"
        " and gpu_name_provider = 'H100'"
    ).fetchone()
    assert row == (80, Decimal("2.49"), Decimal("23.92"), None, "h100")
    assert con.execute(
        "select gpu_id from imported_daily_prices where gpu_name_provider = 'MI300X' limit 1"
    ).fetchone() == ("mi300x",)


def test_gpuhunt_family_names_left_95_percent_of_rows_unresolved(imported, con):
    # issue 12 point 8: "H100" x12512 and "A100" x788 never reached history. They name a
    # family (SXM, PCIe, NVL; 40/80 GB), so they are kept at family level: gpu_id null (no
    # variant is claimed), gpu_family set
    result = imported[1]["gpuhunt-h100-h200-mi300x"]
    assert dict(result.rows_to_family) == {"h100": 12512, "a100": 788}
    assert result.rows_to_model == 774  # H200 and MI300X rows
    assert not result.unresolved_gpus and not result.excluded
    assert "13300 to a GPU family only (h100 x12512, a100 x788" in result.summary()
    rows = con.execute(
        "select gpu_family, count(*), sum(offer_count), count(distinct provider),"
        " min(day), max(day), count(gpu_id) from imported_daily_prices"
        " where gpu_family is not null group by gpu_family order by gpu_family"
    ).fetchall()
    assert rows == [
        ("a100", 9, 788, 9, date(2024, 9, 24), date(2024, 9, 24), 0),
        ("h100", 206, 12512, 11, date(2024, 9, 24), date(2025, 4, 12), 0),
    ]
    # a row naming a model never carries a family: gpu_family marks family-level rows only
    assert con.execute(
        "select count(*) from imported_daily_prices where gpu_id is not null"
        " and gpu_family is not null"
    ).fetchone() == (0,)


def test_every_row_read_has_exactly_one_outcome(imported):
    for result in imported[1].values():
        outcomes = (
            result.rows_to_model
            + sum(result.rows_to_family.values())
            + sum(result.unresolved_gpus.values())
            + sum(result.excluded.values())
        )
        assert outcomes == result.rows_read, result.dataset
        assert result.unaccounted() == 0
    site = imported[1]["gpu-hunt-site"]
    assert (site.rows_to_model, sum(site.rows_to_family.values())) == (1968, 351)
    assert (sum(site.unresolved_gpus.values()), sum(site.excluded.values())) == (59, 9886)


def test_family_table_names_families_of_canonical_gpus():
    assert members("h100") == ["h100-nvl", "h100-pcie", "h100-sxm"]
    assert members("a100") == ["a100-40gb-pcie", "a100-40gb-sxm", "a100-80gb-pcie", "a100-80gb-sxm"]
    assert "v100s-32gb-pcie" not in members("v100")  # V100S is its own model
    assert set(family_table(FAMILIES_CSV).values()) == {"h100", "a100", "v100"}
    for spelling, family in [
        ("H100", "h100"),
        ("NVIDIA H100", "h100"),
        ("NVIDIA H100 NVLink", "h100"),
        ("a100", "a100"),
        ("Tesla V100", "v100"),
    ]:
        assert resolve_family(spelling) == family
    assert resolve_family("NVIDIA RTX 6000") is None  # Quadro, Ada or PRO: no common prefix
    assert resolve_family("H100 SXM") is None  # a model, resolved by gpus.resolve


def test_a_family_alias_that_names_a_model_is_rejected(tmp_path):
    bad = tmp_path / "gpu_families.csv"
    bad.write_text("alias,gpu_family\nH100 SXM,h100\n", encoding="utf-8")
    with pytest.raises(ValueError, match="names a model"):
        family_table(bad)
    bad.write_text("alias,gpu_family\nB200,b200\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a family"):
        family_table(bad)


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
    # "NVIDIA A100": 40 or 80 GB, SXM or PCIe: the family, not a model
    assert result.rows_to_family["a100"] == 151 and "NVIDIA A100" not in result.unresolved_gpus
    assert result.unresolved_gpus["NVIDIA RTX 6000"] == 14  # Quadro, Ada or PRO: no family
    assert "NVIDIA A40" not in result.unresolved_gpus
    kept = result.rows_read - sum(result.excluded.values())
    assert kept > 2000 and result.rows_written["offer_history"] > 600


def test_gpu_hunt_site_family_only_servers_become_family_level_intervals(con):
    # datacrunch's "8× A100 80GB" (site model column "NVIDIA A100"): SXM or PCIe is not said
    oid = offer_id("datacrunch", "gpu-hunt-site:datacrunch-8A100.176V", "FI-01", "on_demand", None)
    rows = con.execute(
        "select gpu_name_provider, gpu_id, gpu_family, gpu_count, price from offer_history"
        " where offer_id = ?",
        [oid],
    ).fetchall()
    assert set(rows) == {("NVIDIA A100", None, "a100", Decimal("8"), Decimal("20.48"))}
    families = con.execute(
        "select gpu_family, count(distinct offer_id), count(gpu_id) from offer_history"
        " where gpu_family is not null group by all order by all"
    ).fetchall()
    assert families == [("a100", 17, 0), ("h100", 9, 0), ("v100", 32, 0)]
    # family-level intervals are per GPU-hour prices too, labelled in the per-offer views
    create_views(con)
    assert con.execute(
        "select provider, instance_type, gpu_id, gpu_family, price_per_gpu_hour_usd"
        " from offers_as_of(timestamp '2026-04-01 12:00') where gpu_family = 'h100'"
        " order by price_per_gpu_hour_usd, provider, instance_type limit 1"
    ).fetchone() == ("salad", "1× H100", None, "h100", 2.25)


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
        "select unresolved_gpus, rows_to_family, rows_to_model, rows_by_table from history_imports"
        " where source = 'import:gpuhunt-h100-h200-mi300x'"
    ).fetchone()
    assert json.loads(recorded[0]) == {}
    assert json.loads(recorded[1]) == {"a100": 788, "h100": 12512}
    assert recorded[2] == 774 and json.loads(recorded[3]) == {"imported_daily_prices": 275}


def test_an_unchanged_import_does_not_claim_to_have_written_rows(imported, con):
    # issue 12 point 8: a re-run said "unchanged" and "wrote 275 rows" in one line
    (again,) = import_all(con, HISTORY, ["gpuhunt-h100-h200-mi300x"])
    line = again.summary()
    assert again.status == "unchanged" and not again.wrote
    assert "wrote nothing" in line and "wrote 275" not in line
    assert "keeps that import's 275 imported_daily_prices rows" in line
    assert "it read 14074 rows: 774 to a GPU model, 13300 to a GPU family only" in line
    assert again.imported_at is not None


def test_unresolved_names_are_listed_in_a_stable_order():
    # ties by name, so two runs over the same files print the same line
    result = common.ImportResult("x", rows_read=4)
    for name in ("b", "a", "c", "c"):
        result.count_gpu(name, None, None, 1)
    assert "(kept, gpu_id null: 'c' x2, 'a' x1, 'b' x1)" in result.summary()


def test_a_changed_name_table_changes_the_fingerprint(tmp_path, monkeypatch):
    files = sorted((HISTORY / "gpuhunt-h100-h200-mi300x").glob("*.json"))[:2]
    before = common.fingerprint(files, 1)
    copy = tmp_path / FAMILIES_CSV.name
    copy.write_bytes(FAMILIES_CSV.read_bytes() + b"GH100,h100\n")
    monkeypatch.setattr(common, "NAME_TABLES", (*common.NAME_TABLES[:-1], copy))
    assert common.fingerprint(files, 1) != before


def test_imported_history_never_touches_scraped_intervals(con):
    assert con.execute(
        "select count(*) from offer_history where source = 'scrape' or scrape_id is not null"
    ).fetchone() == (0,)


def test_a_file_in_an_unknown_layout_fails_without_writing(tmp_path, seeded_template):
    folder = tmp_path / gpu_hunt_site.DATASET
    folder.mkdir()
    shutil.copy(HISTORY / gpu_hunt_site.DATASET / "2026-04-01T18_servers.csv", folder)
    (folder / "2026-04-02_price_history.csv").write_text("id,server_id,price\n1,x,2\n")
    with seeded_warehouse(seeded_template, tmp_path / "w.duckdb").connect() as con:
        with pytest.raises(DatasetError, match="missing columns"):
            gpu_hunt_site.import_dataset(con, folder)
        assert con.execute("select count(*) from history_imports").fetchone() == (0,)


def test_unknown_dataset_and_missing_folder_are_errors(tmp_path):
    with Warehouse(tmp_path / "w.duckdb").connect() as con:
        with pytest.raises(KeyError, match="unknown dataset"):
            import_all(con, HISTORY, ["nope"])
        with pytest.raises(DatasetError, match="does not exist"):
            import_all(con, tmp_path, ["gpu-hunt-site"])
