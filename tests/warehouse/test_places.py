"""Places (issue 22): every offer's region is the provider's own id, placed by a documented
seed (warehouse/seeds/regions.csv, countries.csv) into a country and a continent.

Before, 59% of the offers named no place: 197 ``global``, 138 Vast ``unknown`` and 88 RunPod
offers whose "region" was the cloud tier (``secure``/``community``), and the rest only in the
provider's spelling (``us-east-1``, ``eastus``, ``FSN1-DC6``) with no country or continent.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from warehouse.places import (
    CONTINENTS,
    PLACELESS_REGIONS,
    PlaceSeedError,
    country_rows,
    region_rows,
)
from warehouse.publish import current, load_into_memory
from warehouse.queries import FilterError, OfferFilter, OfferQuery, OfferTable, query_offers_sql
from warehouse.seeding import SEEDS_DIR


@pytest.fixture(scope="module")
def con(replayed_home):  # tests/conftest.py: every capture replayed
    paths, _ = replayed_home
    info = current(paths.published)
    assert info is not None
    connection = load_into_memory(info)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def stored(replayed_home) -> set[tuple[str, str, str | None]]:
    """Every (provider, region, country the row names) the replay stored: current and past."""
    paths, _ = replayed_home
    with duckdb.connect(str(paths.warehouse), read_only=True) as wh:
        return set(
            wh.execute(
                "select distinct provider, region, country from observations"
                " union select distinct provider, region, null from offer_history"
                " where source = 'scrape'"
            ).fetchall()
        )


def _seed() -> dict[tuple[str, str], tuple[str | None, ...]]:
    countries = {
        code: continent for code, _, continent in country_rows(SEEDS_DIR / "countries.csv")
    }
    return {(r[0], r[1]): r for r in region_rows(SEEDS_DIR / "regions.csv", countries)}  # type: ignore[index]


def _seeded(seed: dict, provider: str, region: str) -> tuple[str | None, ...] | None:
    """The seed row of a region id: its exact id, else the longest 'PREFIX*' row."""
    exact = {(p, r.lower()): row for (p, r), row in seed.items() if not r.endswith("*")}
    if (provider, region.lower()) in exact:
        return exact[(provider, region.lower())]
    prefixes = [
        row
        for (p, r), row in seed.items()
        if p == provider and r.endswith("*") and region.lower().startswith(r[:-1].lower())
    ]
    return max(prefixes, key=lambda row: len(str(row[1]))) if prefixes else None


def test_every_replayed_region_has_country_and_continent(stored) -> None:
    """Each region a full replay stores is seeded (or names no place, or its row states its own
    country): a region a new capture brings fails here, not as nulls in the answers. A seeded
    region has a continent, and a country unless it is an area (CoreWeave's ``europe``); the
    only ones with neither are the multi-continent billing groups GCP prices (``americas``,
    ``emea``, ``apac``), listed so."""
    seed = _seed()
    missing = sorted(
        (p, r)
        for p, r, country in stored
        if r.lower() not in PLACELESS_REGIONS and country is None and not _seeded(seed, p, r)
    )
    assert missing == []
    placed = [_seeded(seed, p, r) for p, r, _ in stored if r.lower() not in PLACELESS_REGIONS]
    no_continent = sorted(str(row[1]) for row in placed if row is not None and row[3] is None)
    assert no_continent == ["americas", "apac", "emea"]
    # read off the captures' region ids and the providers' region lists
    assert _seeded(seed, "azure", "westeurope")[2:4] == ("NL", "europe")  # type: ignore[index]
    assert _seeded(seed, "hetzner", "FSN1-DC6")[2:5] == ("DE", "europe", "Falkenstein")  # type: ignore[index]
    assert _seeded(seed, "gcp", "me-central1")[2:4] == ("QA", "middle-east")  # type: ignore[index]
    assert _seeded(seed, "ovh", "bhs")[2:4] == ("CA", "north-america")  # type: ignore[index]


def test_runpod_tier_is_not_a_region_in_the_replay(con) -> None:
    rows = con.execute(
        "select region, cloud_tier, count(*) from current_offers where provider = 'runpod'"
        " group by all order by all"
    ).fetchall()
    # c2026-09 API: 47 community and 41 secure on-demand prices, RunPod-wide
    assert rows == [("global", "community", 47), ("global", "secure", 41)]


def test_current_offers_are_placed_from_the_seed(con) -> None:
    rows = con.execute(
        "select provider, region, country, continent, city from current_offers"
        " where (provider, region) in (('azure', 'uaenorth'), ('hetzner', 'HEL1-DC2'),"
        " ('coreweave', 'europe'), ('vast', 'unknown'), ('lambda', 'global'))"
        " group by all order by all"
    ).fetchall()
    assert rows == [
        ("azure", "uaenorth", "AE", "middle-east", "Dubai"),
        ("coreweave", "europe", None, "europe", None),
        ("hetzner", "HEL1-DC2", "FI", "europe", "Helsinki"),
        ("lambda", "global", None, None, None),
        ("vast", "unknown", None, None, None),
    ]


def test_continent_filter_europe(con) -> None:
    """continent=europe&gpu=h100 answers the European H100 offers only, cheapest per GPU-hour
    first, the same by SQL and by the in-memory table."""
    query = OfferQuery(OfferFilter.build(continent=["Europe"], gpu=["h100"]), sort="price_per_gpu")
    items, total = query_offers_sql(con, query)
    assert OfferTable.load(con).query(query) == (items, total)
    assert items and {i["continent"] for i in items} == {"europe"}
    # Scaleway's H100-1-80G in fr-par-2 (Instance API catalog, 2026-08-22): EUR 2.8665/h for one
    # H100 PCIe, the cheapest European H100 per GPU-hour
    first = items[0]
    assert (first["provider"], first["region"], first["gpu_count"]) == ("scaleway", "fr-par-2", 1)
    assert first["instance_type"] == "H100-1-80G" and first["currency"] == "EUR"
    # CoreWeave's "REGION: EUROPE" HGX H100 table (2026-09): $49.24/h for 8 GPUs
    coreweave = next(i for i in items if (i["provider"], i["region"]) == ("coreweave", "europe"))
    assert coreweave["gpu_count"] == 8 and round(coreweave["price_per_gpu_hour_usd"], 3) == 6.155
    assert {(i["provider"], i["country"]) for i in items} >= {("azure", "GB"), ("azure", "NL")}
    _, everywhere = query_offers_sql(con, OfferQuery(OfferFilter.build(gpu=["h100"])))
    assert everywhere > total


def test_country_filter_any_case_and_comma_lists(con) -> None:
    one = query_offers_sql(
        con, OfferQuery(OfferFilter.build(country=["de,FI"], include_expired=True))
    )
    two = query_offers_sql(
        con, OfferQuery(OfferFilter.build(country=["DE", "fi"], include_expired=True))
    )
    assert one == two and one[1] == 23  # Hetzner's 2026-04 auction: 20 in DE, 3 in FI
    assert {i["provider"] for i in one[0]} == {"hetzner"}


def test_unknown_continent_is_a_clear_error() -> None:
    says = "continent: unknown value 'mars'; valid values: africa, antarctica, asia, europe"
    with pytest.raises(FilterError, match=says):
        OfferFilter.build(continent=["mars"])


def test_seed_rows_that_contradict_themselves_fail_loudly(tmp_path: Path) -> None:
    countries = {"DE": "europe", "US": "north-america"}
    path = tmp_path / "regions.csv"
    header = "provider,region,country,continent,city,source_url\n"
    for body, message in [
        ("p,r1,DE,asia,,https://x\n", "DE is in europe"),
        ("p,r1,ZZ,europe,,https://x\n", "'ZZ' is not in countries.csv"),
        ("p,global,,,,https://x\n", "names no place"),
        ("p,r1,,atlantis,,https://x\n", "continent 'atlantis'"),
        ("p,r1,DE,europe,,http://x\n", "https source_url"),
        ("p,r1,DE,europe,,https://x\np,r1,DE,europe,,https://x\n", "listed twice"),
    ]:
        path.write_text(header + body, encoding="utf-8")
        with pytest.raises(PlaceSeedError, match=message):
            region_rows(path, countries)


def test_every_country_has_a_continent_of_the_vocabulary() -> None:
    rows = country_rows(SEEDS_DIR / "countries.csv")
    assert len(rows) == 249 and {c for _, _, c in rows} <= set(CONTINENTS)
    by_code = {code: continent for code, _, continent in rows}
    assert (by_code["US"], by_code["DE"], by_code["AE"], by_code["BR"]) == (
        "north-america",
        "europe",
        "middle-east",
        "south-america",
    )
