"""Products a provider renamed between captures are one series (issue 21, item 3).

Lambda, FluidStack, Hyperstack, Crusoe and Nebius each listed some product under one spelling
in an older capture and another in a newer one, so it had two offer ids: the history of each
stopped at the rename and a price change across it was in no ``price_changes``. Their scrapers
now declare the renames (``Provider.product_keys``; FluidStack's vendor and case rule
``Provider.product_key_rule``). Every figure below is read off the two captures in
``../shared/snapshots/<provider>`` (prices as printed; Lambda's 2023 page per instance-hour,
every later page per GPU-hour). Only start dates and prices are asserted: where an interval
ends depends on how the history treats a capture that lists part of the page, not on identity.

A warehouse built before the keys (every offer its instance type) is merged on its next
ingest into what a fresh replay holds.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import duckdb
import pytest

from pipelines.ingest import scrape_provider
from scrapers import crusoe, fluidstack, hyperstack, lambda_cloud, nebius
from scrapers.base import Provider
from tests.conftest import SNAPSHOTS
from warehouse.analysis import create_views
from warehouse.paths import Paths
from warehouse.records import offer_id

PROVIDERS = (
    lambda_cloud.PROVIDER,
    fluidstack.PROVIDER,
    hyperstack.PROVIDER,
    crusoe.PROVIDER,
    nebius.PROVIDER,
)


def _unkeyed(provider: Provider) -> Provider:
    """The provider as it was before its keys: every offer keyed by its instance type."""
    return dataclasses.replace(provider, product_keys={}, product_key_rule=None)


def _ingest(paths: Paths, provider: Provider) -> None:
    outcomes = scrape_provider(provider, paths=paths, replay_dir=SNAPSHOTS)
    assert outcomes and all(o.status.value in ("success", "unchanged") for o in outcomes)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Paths:
    paths = Paths(tmp_path_factory.mktemp("renamed-fresh"))
    for provider in PROVIDERS:
        _ingest(paths, provider)
    with duckdb.connect(str(paths.warehouse)) as con:
        create_views(con)
    return paths


def _id(provider: str, key: str, pricing: str = "on_demand", term: int | None = None) -> str:
    return offer_id(provider, key, "global", pricing, term)


def _series(paths: Paths, oid: str) -> list[tuple[str, Decimal]]:
    """(valid_from date, price) of one offer's scraped intervals, oldest first."""
    with duckdb.connect(str(paths.warehouse), read_only=True) as con:
        rows = con.execute(
            "select valid_from::date::varchar, price from offer_history"
            " where offer_id = ? and source = 'scrape' order by valid_from",
            [oid],
        ).fetchall()
    return [(day, Decimal(price).normalize()) for day, price in rows]


def _per_gpu_hour(paths: Paths, oid: str) -> list[float]:
    with duckdb.connect(str(paths.warehouse), read_only=True) as con:
        rows = con.execute(
            "select price_per_gpu_hour_usd from offer_intervals"
            " where offer_id = ? and source = 'scrape' order by valid_from",
            [oid],
        ).fetchall()
    return [round(r[0], 4) for r in rows]


def _changes(paths: Paths, provider: str) -> set[tuple[str, str, Decimal, Decimal]]:
    """(date, instance type, old price, new price) of the provider's ``price_changes``."""
    with duckdb.connect(str(paths.warehouse), read_only=True) as con:
        rows = con.execute(
            "select changed_at::date::varchar, instance_type, old_price, new_price"
            " from price_changes where provider = ? and source = 'scrape'",
            [provider],
        ).fetchall()
    return {(d, it, Decimal(o).normalize(), Decimal(n).normalize()) for d, it, o, n in rows}


def _d(text: str) -> Decimal:
    return Decimal(text).normalize()


def test_lambda_8x_a100_40gb_is_one_series_across_the_sxm_rename(fresh) -> None:
    # 2023-09-09 "8x NVIDIA A100 | 40 GB | 124 | 1800 GiB | 6 TiB | $8.80 / hr";
    # 2024-11-03 "On-demand 8x NVIDIA A100 SXM | 40 GB | 124 | 1800 GiB | 5.8 TiB |
    # $1.29 / GPU / hr"
    oid = _id("lambda", "8x NVIDIA A100 SXM (40 GB)")
    assert _series(fresh, oid) == [("2023-09-09", _d("8.80")), ("2024-11-03", _d("1.29"))]
    assert _per_gpu_hour(fresh, oid) == [1.1, 1.29]  # +17% per GPU-hour
    assert _series(fresh, _id("lambda", "8x NVIDIA A100 (40 GB)")) == []
    # the 80 GB one likewise: $12.00/h (1.50 per GPU-hour) -> $1.79 per GPU-hour
    oid_80 = _id("lambda", "8x NVIDIA A100 SXM (80 GB)")
    assert _series(fresh, oid_80) == [("2023-09-09", _d("12.00")), ("2024-11-03", _d("1.79"))]
    assert _per_gpu_hour(fresh, oid_80) == [1.5, 1.79]


def test_lambda_renamed_a100_and_a6000_changes_are_in_price_changes(fresh) -> None:
    changes = _changes(fresh, "lambda")
    assert {
        ("2024-11-03", "8x NVIDIA A100 SXM (40 GB)", _d("8.80"), _d("1.29")),
        ("2024-11-03", "8x NVIDIA A100 SXM (80 GB)", _d("12.00"), _d("1.79")),
        ("2024-11-03", "2x NVIDIA A100 PCIe (40 GB)", _d("2.20"), _d("1.29")),
        ("2024-11-03", "4x NVIDIA A100 PCIe (40 GB)", _d("4.40"), _d("1.29")),
        # per instance-hour -> per GPU-hour at the same $0.80 per GPU-hour
        ("2024-11-03", "2x NVIDIA A6000 (48 GB)", _d("1.60"), _d("0.80")),
        ("2024-11-03", "4x NVIDIA A6000 (48 GB)", _d("3.20"), _d("0.80")),
    } <= changes
    # 1x RTX A6000 $0.80 / hr -> 1x A6000 $0.80 / GPU / hr: one GPU, the same price; the basis
    # changed (per instance -> per GPU), which opens an interval with a 0 % change
    oid = _id("lambda", "1x NVIDIA A6000 (48 GB)")
    assert _series(fresh, oid) == [("2023-09-09", _d("0.80")), ("2024-11-03", _d("0.80"))]
    with duckdb.connect(str(fresh.warehouse), read_only=True) as con:
        [(pct,)] = con.execute(
            "select pct_change from price_changes where offer_id = ?", [oid]
        ).fetchall()
    assert pct == 0


def test_lambda_1x_a100_40gb_is_left_apart_from_both_2024_candidates(fresh) -> None:
    # 2023 "1x NVIDIA A100 | 40 GB | 30 | 200 GiB | 512 GiB"; 2024 lists "1x NVIDIA A100 SXM"
    # (30, 220 GiB, 512 GiB) and "1x NVIDIA A100 PCIe" (30, 225 GiB, 512 GiB): not knowable
    assert _series(fresh, _id("lambda", "1x NVIDIA A100 (40 GB)")) == [("2023-09-09", _d("1.10"))]
    assert _series(fresh, _id("lambda", "1x NVIDIA A100 PCIe (40 GB)")) == [
        ("2024-11-03", _d("1.29"))
    ]


def test_fluidstack_h100_pcie_is_one_series_across_the_vendor_case_change(fresh) -> None:
    # 2023-09-30 grid "NVIDIA H100 PCIe 80 48 256 $4.25 $2.89"; 2025-01-09 table "Nvidia H100
    # PCIe 80 48 256 $2.89 $2.05" (on-demand; the reserved columns are 6 months and 1 year)
    oid = _id("fluidstack", "h100 pcie")
    assert _series(fresh, oid) == [("2023-09-30", _d("4.25")), ("2025-01-09", _d("2.89"))]
    assert {
        ("2025-01-09", "Nvidia H100 PCIe", _d("4.25"), _d("2.89")),
        # "A100 80GB PCIe 80 48 256 $2.21" -> "Nvidia A100 80GB PCIe 80 48 256 $1.80"
        ("2025-01-09", "Nvidia A100 80GB PCIe", _d("2.21"), _d("1.80")),
        # "A100 40GB PCIe 40 32 128 $1.40" -> "Nvidia A100 40GB PCIe 40 32 128 $1.65"
        ("2025-01-09", "Nvidia A100 40GB PCIe", _d("1.40"), _d("1.65")),
    } <= _changes(fresh, "fluidstack")
    # the 6-month and the 1-year reservation are two offers (their terms differ)
    assert _series(fresh, _id("fluidstack", "h100 pcie", "reserved", 6)) == [
        ("2023-09-30", _d("2.89"))
    ]
    assert _series(fresh, _id("fluidstack", "h100 pcie", "reserved", 12)) == [
        ("2025-01-09", _d("2.05"))
    ]


def test_hyperstack_h100_sxm_is_one_series_across_the_80gb_rename(fresh) -> None:
    # 2024-08-22 "NVIDIA H100 SXM 80GB | 80 | 24 | 240 | $ 3.75 Per Hour"; 2025-07-24 "NVIDIA H100
    # SXM | 80 | 24 | 240 | $2.40"; c2026-09 the same row at $3.20
    oid = _id("hyperstack", "NVIDIA H100 SXM")
    assert _series(fresh, oid) == [
        ("2024-08-22", _d("3.75")),
        ("2025-07-24", _d("2.40")),
        ("2026-09-01", _d("3.20")),
    ]
    assert _series(fresh, _id("hyperstack", "NVIDIA H100 SXM 80GB")) == []


def test_hyperstack_renamed_rows_changes_are_in_price_changes(fresh) -> None:
    assert {
        ("2025-07-24", "NVIDIA H100 SXM", _d("3.75"), _d("2.40")),
        ("2025-07-24", "NVIDIA H100", _d("3.44"), _d("1.90")),  # was "H100 PCIe 80GB"
        ("2025-07-24", "NVIDIA H100 NVLink", _d("3.54"), _d("1.95")),  # "H100 PCIe NVLink 80GB"
        ("2025-07-24", "NVIDIA A100", _d("2.20"), _d("1.35")),  # "A100 PCIe 80GB"
        ("2025-07-24", "NVIDIA A100 NVLink", _d("2.30"), _d("1.40")),  # "A100 80GB PCIe NVLink"
        ("2025-07-24", "NVIDIA A4000", _d("0.30"), _d("0.15")),  # "RTX A4000"
        ("2025-07-24", "NVIDIA A6000", _d("1.00"), _d("0.50")),  # "RTX A6000/A40"
    } <= _changes(fresh, "hyperstack")


def test_crusoe_h100_is_one_series_across_the_sxm_to_hgx_rename(fresh) -> None:
    # 2025-05-21 "NVIDIA H100 80GB SXM $ 3.90 /hr"; 2025-12-15 and c2026-09 "NVIDIA H100 80GB
    # HGX $3.90/GPU-hr": one unchanged price since 2025-05-21
    assert _series(fresh, _id("crusoe", "NVIDIA H100 80GB HGX")) == [("2025-05-21", _d("3.90"))]
    assert _series(fresh, _id("crusoe", "NVIDIA H200 141GB HGX")) == [("2025-05-21", _d("4.29"))]
    assert _series(fresh, _id("crusoe", "NVIDIA H100 80GB SXM")) == []


def test_crusoe_l40s_is_one_series_across_the_pcie_rename(fresh) -> None:
    # 2025-05-21 "NVIDIA L40S 48GB PCIe $ 1.00 /hr"; c2026-09 "NVIDIA L40S 48GB $1.50/GPU-hr"
    # (the 2025-12-15 excerpt is cut before the L40S: a partial capture, which closes nothing)
    oid = _id("crusoe", "NVIDIA L40S 48GB")
    assert _series(fresh, oid) == [("2025-05-21", _d("1.00")), ("2026-09-01", _d("1.50"))]
    # MI300X $3.45 in May 2025 and in September 2026, not in the excerpt between: one interval
    assert _series(fresh, _id("crusoe", "AMD MI300X 192GB")) == [("2025-05-21", _d("3.45"))]


def test_nebius_h100_is_one_series_across_the_hgx_rename(fresh) -> None:
    # 2024-11-15 "1 x H100 SXM | 80 | 200 | 16 | $2.95"; 2026-07-12 "NVIDIA HGX H100 | 16 | 200 |
    # $2.15 | $3.85" (on-demand the second price); H200 $3.50 -> $4.50 the same way
    oid = _id("nebius", "NVIDIA HGX H100")
    assert _series(fresh, oid)[:2] == [("2024-11-15", _d("2.95")), ("2026-07-12", _d("3.85"))]
    assert _series(fresh, _id("nebius", "1x H100 SXM")) == []
    assert {
        ("2026-07-12", "NVIDIA HGX H100", _d("2.95"), _d("3.85")),
        ("2026-07-12", "NVIDIA HGX H200", _d("3.50"), _d("4.50")),
    } <= _changes(fresh, "nebius")
    # the 8-GPU preset is not the 2026 per-GPU row (one GPU): its own series still
    assert _series(fresh, _id("nebius", "8x H100 SXM")) == [("2024-11-15", _d("23.60"))]


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.slug)
def test_warehouse_from_before_the_keys_is_merged_into_the_fresh_history(
    provider: Provider, fresh: Paths, tmp_path
) -> None:
    home = Paths(tmp_path / "old")
    _ingest(home, _unkeyed(provider))
    _ingest(home, provider)  # the same captures: merged before its scrapes load, nothing new

    def history(paths: Paths) -> list[tuple]:
        with duckdb.connect(str(paths.warehouse), read_only=True) as con:
            return con.execute(
                "select * exclude (scrape_id) from offer_history"
                " where provider = ? and source = 'scrape' order by offer_id, valid_from",
                [provider.slug],
            ).fetchall()

    assert history(home) == history(fresh)
    with duckdb.connect(str(home.warehouse), read_only=True) as con:
        merged = con.execute(
            "select count(*) from offer_id_merges where provider = ?", [provider.slug]
        ).fetchone()
    assert merged is not None and merged[0] > 0
