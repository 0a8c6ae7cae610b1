"""Curated fact seeds: provider facts, serverless platforms and tiers, non-ECB FX rates.

These files are hand-curated from cited public pages (see warehouse/seeds/FACTS.md). The tests
pin their shape and internal consistency: every provider folder under the captures has a row,
cells that must be filled are filled, numbers parse as non-negative Decimals, URLs are https,
and per-second tier prices agree with their hourly equivalents. (FX rows must not repeat a rate
the ECB publishes: tests/warehouse/test_fx_history.py checks that against the ECB's own file.)
"""

from __future__ import annotations

import csv
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from urllib.parse import urlparse

import pytest

from scrapers.registry import PROVIDERS
from tests.conftest import REPO, SNAPSHOTS

SEEDS = REPO / "warehouse" / "seeds"

# Every registered provider has a facts row; so does each curated-only one (facts, no scraper).
CURATED_ONLY = {"denvr"}
PROVIDER_SLUGS = set(PROVIDERS) | CURATED_ONLY
PROVIDER_COLUMNS = [
    "provider", "name", "kind", "verified", "billing_granularity", "billing_granularity_s",
    "minimum_charge_s", "egress_usd_per_gb", "block_storage_usd_per_gb_month", "spot_available",
    "interconnect_notes", "facts_as_of", "source_kind", "observed_basis", "capture_files",
    "source_urls", "notes",
]  # fmt: skip
PLATFORM_COLUMNS = [
    "platform", "name", "deployment", "billing_granularity_s", "minimum_charge_s", "scale_to_zero",
    "idle_charged", "min_replicas_supported", "warm_pool", "cold_start_mitigations",
    "max_request_duration_s", "concurrency_controls", "autoscaling_controls", "persistent_volumes",
    "facts_as_of", "source_kind", "observed_basis", "capture_files", "source_urls", "notes",
]  # fmt: skip
TIER_COLUMNS = [
    "platform", "tier", "gpu_ids", "vram_gb_guaranteed", "gpu_count", "price", "currency",
    "price_unit", "price_per_hour_usd", "source_date", "source_date_basis", "source_kind",
    "observed_basis", "capture_file", "ends_on",
    "source_url", "notes", "always_on",
]  # fmt: skip
FX_COLUMNS = ["rate_date", "currency", "usd_per_unit", "source_url"]
SOURCE_DATE_BASES = {"commit", "page", "capture", "lower_bound", "retrieved"}

# Seconds per billing step; a month is the project's single 730-hour rule.
GRANULARITY_S = {"second": 1, "minute": 60, "hour": 3600, "month": 730 * 3600}
# Canonical ids agreed for warehouse/seeds/gpus.csv; once that seed exists it is the authority.
CANONICAL_GPU_IDS = {
    "h100-sxm", "h100-pcie", "a100-80gb-sxm", "a100-40gb-sxm", "a100-80gb-pcie", "l40s", "l4",
    "a10g", "a10", "t4", "h200", "b200", "rtx-4090", "rtx-a6000", "a40", "l40",
}  # fmt: skip


def _read(name: str) -> tuple[list[str], list[dict[str, str]]]:
    with (SEEDS / name).open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def _decimal(text: str, where: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        pytest.fail(f"{where}: {text!r} is not a decimal number")
    assert value.is_finite() and value >= 0, f"{where}: {text!r} must be >= 0"
    return value


def _https_urls(cell: str, where: str) -> list[str]:
    urls = cell.split()
    assert urls, f"{where}: no source URL"
    for url in urls:
        parsed = urlparse(url)
        assert parsed.scheme == "https" and parsed.netloc, f"{where}: not an https URL: {url}"
    return urls


def _as_of(text: str, where: str) -> date:
    day = date.fromisoformat(text)
    assert date(2023, 1, 1) <= day <= date(2027, 12, 31), f"{where}: implausible date {text}"
    return day


@pytest.fixture(scope="module")
def providers() -> list[dict[str, str]]:
    header, rows = _read("provider_facts.csv")
    assert header == PROVIDER_COLUMNS
    return rows


@pytest.fixture(scope="module")
def platforms() -> list[dict[str, str]]:
    header, rows = _read("serverless_platforms.csv")
    assert header == PLATFORM_COLUMNS
    return rows


@pytest.fixture(scope="module")
def tiers() -> list[dict[str, str]]:
    header, rows = _read("serverless_tiers.csv")
    assert header == TIER_COLUMNS
    return rows


@pytest.fixture(scope="module")
def fx_rows() -> list[dict[str, str]]:
    header, rows = _read("fx_rates.csv")
    assert header == FX_COLUMNS
    return rows


def test_every_provider_has_exactly_one_row(providers: list[dict[str, str]]) -> None:
    slugs = [row["provider"] for row in providers]
    assert len(slugs) == len(set(slugs)), "duplicate provider rows"
    assert set(slugs) == PROVIDER_SLUGS


def test_every_captured_provider_folder_has_facts(providers: list[dict[str, str]]) -> None:
    # Captures of providers we do not scrape yet (issue 26: civo, fal, scaleway, ... arrived in
    # ../shared before their scrapers) get their facts row with their scraper; every captured
    # provider we do scrape, or did (denvr: facts, no scraper), has one.
    folders = {p.name for p in SNAPSHOTS.iterdir() if p.is_dir()}
    assert folders & (PROVIDER_SLUGS | set(PROVIDERS)) <= {row["provider"] for row in providers}


def test_provider_rows_are_complete_and_typed(providers: list[dict[str, str]]) -> None:
    for row in providers:
        where = f"provider_facts.csv[{row['provider']}]"
        for column in ("name", "kind", "source_urls"):
            assert row[column].strip(), f"{where}: {column} is empty"
        assert row["kind"] in {"cloud", "marketplace", "serverless"}, where
        assert row["spot_available"] in {"", "true", "false"}, where
        if row["observed_basis"] != "undated":
            _as_of(row["facts_as_of"], where)
        _https_urls(row["source_urls"], where)

        granularity = row["billing_granularity"]
        assert granularity in {"", *GRANULARITY_S}, where
        if granularity:
            seconds = _decimal(row["billing_granularity_s"], where)
            assert seconds == GRANULARITY_S[granularity], f"{where}: granularity seconds mismatch"
        else:
            assert not row["billing_granularity_s"], f"{where}: seconds without a granularity"
        for column in ("minimum_charge_s", "egress_usd_per_gb", "block_storage_usd_per_gb_month"):
            if row[column]:
                _decimal(row[column], f"{where}.{column}")
        # A filled numeric fact with no explanation is hard to audit; every row carries notes.
        assert row["notes"].strip(), f"{where}: notes are empty"


def test_facts_we_rely_on_are_filled_for_the_main_clouds(providers: list[dict[str, str]]) -> None:
    by_slug = {row["provider"]: row for row in providers}
    for slug in ("aws", "gcp", "lambda", "runpod"):
        assert by_slug[slug]["billing_granularity"], slug
        assert by_slug[slug]["egress_usd_per_gb"], slug
        assert by_slug[slug]["spot_available"], slug
    # Values a reader can check against the cited pages.
    assert by_slug["aws"]["minimum_charge_s"] == "60"
    assert by_slug["lambda"]["billing_granularity"] == "minute"
    assert Decimal(by_slug["lambda"]["egress_usd_per_gb"]) == 0
    assert Decimal(by_slug["runpod"]["block_storage_usd_per_gb_month"]) == Decimal("0.10")
    assert by_slug["vast"]["kind"] == "marketplace"
    assert by_slug["modal"]["kind"] == "serverless"


def test_platform_rows_are_complete_and_typed(platforms: list[dict[str, str]]) -> None:
    names = [row["platform"] for row in platforms]
    assert len(names) == len(set(names)), "duplicate platform rows"
    assert len(names) >= 10
    assert {
        "modal", "runpod-serverless", "replicate", "baseten", "beam", "fal", "cerebrium",
        "cloud-run", "hf-endpoints", "koyeb",
    } <= set(names)  # fmt: skip
    for row in platforms:
        where = f"serverless_platforms.csv[{row['platform']}]"
        for column in ("name", "deployment", "source_urls", "notes"):
            assert row[column].strip(), f"{where}: {column} is empty"
        assert row["deployment"] in {"container", "managed_endpoint", "function"}, where
        for column in ("scale_to_zero", "min_replicas_supported"):
            assert row[column] in {"", "true", "false"}, f"{where}.{column}"
        assert row["idle_charged"] in {"", "true", "false", "partial"}, where
        for column in ("billing_granularity_s", "minimum_charge_s", "max_request_duration_s"):
            if row[column]:
                assert _decimal(row[column], f"{where}.{column}") > 0, f"{where}.{column}"
        if row["observed_basis"] != "undated":
            _as_of(row["facts_as_of"], where)
        _https_urls(row["source_urls"], where)


def test_tier_rows_are_typed_and_belong_to_a_platform(
    tiers: list[dict[str, str]], platforms: list[dict[str, str]]
) -> None:
    known_platforms = {row["platform"] for row in platforms}
    gpus_seed = SEEDS / "gpus.csv"
    gpu_ids = _gpu_ids(gpus_seed) if gpus_seed.exists() else CANONICAL_GPU_IDS
    for n, row in enumerate(tiers, start=2):
        where = f"serverless_tiers.csv line {n} ({row['platform']} {row['tier']})"
        assert row["platform"] in known_platforms, where
        assert row["tier"].strip(), where
        candidates = row["gpu_ids"].split()
        assert set(candidates) <= gpu_ids, f"{where}: unknown gpu id in {candidates}"
        assert len(set(candidates)) == len(candidates), f"{where}: repeated gpu id"
        if candidates:
            assert _decimal(row["vram_gb_guaranteed"], where) > 0, where
        assert int(row["gpu_count"]) >= 1, where
        assert _decimal(row["price"], where) > 0, where
        assert row["currency"] == "USD", where
        assert row["price_unit"] in {"second", "hour"}, where
        _decimal(row["price_per_hour_usd"], where)
        if row["observed_basis"] == "undated":
            assert not row["source_date"] and not row["source_date_basis"], where
            continue
        source_date = _as_of(row["source_date"], where)
        assert row["source_date_basis"] in SOURCE_DATE_BASES, where
        if row["ends_on"]:
            assert _as_of(row["ends_on"], where) > source_date, f"{where}: ends before its source"
        _https_urls(row["source_url"], where)
        assert len(row["source_url"].split()) == 1, f"{where}: one URL per tier"
        assert row["always_on"] in {"true", "false"}, f"{where}: always_on must be true/false"


def _gpu_ids(path: Path) -> set[str]:
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        column = "gpu_id" if "gpu_id" in (reader.fieldnames or []) else "id"
        return {row[column] for row in reader}


def test_hourly_equivalents_match_the_quoted_price(tiers: list[dict[str, str]]) -> None:
    for row in tiers:
        price, per_hour = Decimal(row["price"]), Decimal(row["price_per_hour_usd"])
        factor = 3600 if row["price_unit"] == "second" else 1
        assert abs(price * factor - per_hour) <= Decimal("0.000001"), row["tier"]


def test_at_least_eight_platforms_have_a_priced_tier(tiers: list[dict[str, str]]) -> None:
    assert len({row["platform"] for row in tiers if row["price"]}) >= 8


def test_values_read_off_the_cited_pricing_pages(tiers: list[dict[str, str]]) -> None:
    by_key = {(row["platform"], row["tier"]): row for row in tiers}
    replicate_h100 = by_key[("replicate", "gpu-h100 (Nvidia H100 GPU)")]
    assert (replicate_h100["price"], replicate_h100["price_per_hour_usd"]) == ("0.001525", "5.49")
    runpod_h200 = by_key[("runpod-serverless", "flex H200 PRO 141 GB")]
    assert (runpod_h200["gpu_ids"], runpod_h200["price"]) == ("h200", "0.00155")
    hf_l4 = by_key[("hf-endpoints", "aws nvidia-l4 x1")]
    assert (hf_l4["gpu_ids"], hf_l4["price"], hf_l4["price_unit"]) == ("l4", "0.8", "hour")


def test_fx_seed_rows_are_dated_positive_cited_and_unique(fx_rows: list[dict[str, str]]) -> None:
    seen: set[tuple[date, str]] = set()
    for row in fx_rows:
        where = f"fx_rates.csv[{row['rate_date']} {row['currency']}]"
        day = _as_of(row["rate_date"], where)
        assert len(row["currency"]) == 3 and row["currency"].isupper(), where
        assert _decimal(row["usd_per_unit"], where) > 0, where
        _https_urls(row["source_url"], where)
        assert (day, row["currency"]) not in seen, f"{where}: duplicate"
        seen.add((day, row["currency"]))


# --- provenance (issue 22 item 3): source_kind, observed_basis, captures ---------------------

SOURCE_KINDS = {"provider", "third_party"}
OBSERVED_BASES = {"published", "captured", "retrieved", "undated"}


def _provenance_rows(
    providers: list[dict[str, str]], platforms: list[dict[str, str]], tiers: list[dict[str, str]]
) -> list[tuple[str, dict[str, str], str, str]]:
    """(where, row, its date, its capture cell) of every curated row that is dated."""
    return [
        *((f"provider_facts.csv[{r['provider']}]", r, r["facts_as_of"], r["capture_files"])
          for r in providers),
        *((f"serverless_platforms.csv[{r['platform']}]", r, r["facts_as_of"], r["capture_files"])
          for r in platforms),
        *((f"serverless_tiers.csv[{r['platform']} {r['tier']}]", r, r["source_date"],
           r["capture_file"]) for r in tiers),
    ]  # fmt: skip


def test_every_curated_item_says_source_kind_and_observed_basis(
    providers: list[dict[str, str]], platforms: list[dict[str, str]], tiers: list[dict[str, str]]
) -> None:
    for where, row, day, _ in _provenance_rows(providers, platforms, tiers):
        assert row["source_kind"] in SOURCE_KINDS, where
        assert row["observed_basis"] in OBSERVED_BASES, where
        # a third-party page is dated by its own date, never by the day it was read
        assert (row["source_kind"], row["observed_basis"]) != ("third_party", "retrieved"), where
        assert bool(day) == (row["observed_basis"] != "undated"), where


def test_captured_rows_cite_a_stored_capture_of_that_date(
    providers: list[dict[str, str]], platforms: list[dict[str, str]], tiers: list[dict[str, str]]
) -> None:
    provenance = (SNAPSHOTS / "PROVENANCE.md").read_text(encoding="utf-8")
    for where, row, day, captures in _provenance_rows(providers, platforms, tiers):
        names = captures.split()
        assert bool(names) == (row["observed_basis"] == "captured"), where
        for name in names:
            assert (SNAPSHOTS / name).is_file(), f"{where}: no capture {name}"
            assert f"### `{name}`" in provenance, f"{where}: {name} not in PROVENANCE.md"
        if names:  # dated by the capture: its file name starts with the capture day
            assert any(Path(n).name.startswith(day) for n in names), f"{where}: {day} vs {names}"


def test_fal_gpu_prices_are_scraped_not_seeded(
    tiers: list[dict[str, str]], platforms: list[dict[str, str]]
) -> None:
    # fal's page lists its GPUs at their List Price ($4.50/h for the H100; "As low as" $1.89/h
    # is a floor): scrapers/fal.py reads them, so no curated tier repeats a price the page
    # carries, and the platform's billing facts (per-second runners) keep their sources.
    assert "fal" in PROVIDERS
    fal_tiers = {r["tier"] for r in tiers if r["platform"] == "fal"}
    assert fal_tiers == {"GPU-A100"}  # not on the page
    platform = next(r for r in platforms if r["platform"] == "fal")
    assert platform["billing_granularity_s"] == "1" and platform["source_urls"]
