"""Places: where a provider's region id is (country, continent, city), from two seeds.

``seeds/regions.csv`` lists each provider's region ids as the scraper states them, with the
ISO 3166-1 alpha-2 country, the continent and the city the provider's own region list gives
(``source_url`` per row; ``seeds/PLACES.md``). A ``region`` ending in ``*`` covers every id
that starts with the rest (``FSN1-DC*``: each data centre of one Hetzner park); an exact id
wins. An area of several countries has no country and its continent (CoreWeave's
``europe``); an area of several continents has neither (GCP's ``americas``), and says so by
being listed. ``seeds/countries.csv`` gives every ISO country its continent, so a row that
names its own country (a marketplace host's location, ``observations.country``) has one too.

Region ids that are no place are never seeded: ``PLACELESS_REGIONS`` (one price for the whole
provider, or a host whose location the source does not say).

``current_offers`` joins both (warehouse/models/current_offers.sql);
``tests/warehouse/test_places.py`` checks every region a full replay of the captures stores is
here, so a new region fails the suite instead of serving nulls.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import duckdb

from warehouse.db import bulk_insert

# The continent vocabulary. Middle East is its own (as every large cloud groups its regions
# there, and buyers filter by it): the Gulf states, Iran, Iraq, Israel, Jordan, Lebanon,
# Palestine, Syria, Yemen. Turkey, Cyprus and the Caucasus are not in it.
CONTINENTS = (
    "north-america",
    "south-america",
    "europe",
    "asia",
    "middle-east",
    "africa",
    "oceania",
    "antarctica",
)
# region ids that name no place: one price for anywhere, or a location the source withholds
PLACELESS_REGIONS = frozenset({"global", "unknown"})
REGION_COLUMNS = ("provider", "region", "country", "continent", "city", "source_url")
COUNTRY_COLUMNS = ("country", "name", "continent")
_COUNTRY = re.compile(r"^[A-Z]{2}$")


class PlaceSeedError(ValueError):
    """A row of regions.csv or countries.csv that cannot be loaded (file, line, reason)."""


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _cell(row: dict[str, str], column: str) -> str | None:
    value = (row.get(column) or "").strip()
    return value or None


def country_rows(path: Path) -> list[tuple[str, str, str]]:
    """(country, name, continent) of ``countries.csv``; ``PlaceSeedError`` on a bad row."""
    rows: list[tuple[str, str, str]] = []
    for line, row in enumerate(_rows(path), start=2):
        code, name, continent = (_cell(row, c) for c in COUNTRY_COLUMNS)
        if code is None or not _COUNTRY.match(code) or name is None:
            raise PlaceSeedError(f"{path.name}:{line}: needs an alpha-2 country and a name")
        if continent not in CONTINENTS:
            raise PlaceSeedError(f"{path.name}:{line}: continent {continent!r} not in {CONTINENTS}")
        rows.append((code, name, continent))
    return rows


def region_rows(path: Path, countries: dict[str, str]) -> list[tuple[str | None, ...]]:
    """The rows of ``regions.csv`` in ``REGION_COLUMNS`` order, checked: a known country whose
    continent is the row's, a continent of the vocabulary, an https source, no duplicate and
    no placeless id. ``countries``: country -> continent."""
    rows: list[tuple[str | None, ...]] = []
    seen: set[tuple[str, str]] = set()
    for line, row in enumerate(_rows(path), start=2):
        provider, region, country, continent, city, source = (_cell(row, c) for c in REGION_COLUMNS)
        where = f"{path.name}:{line}"
        if provider is None or region is None:
            raise PlaceSeedError(f"{where}: needs a provider and a region")
        if region.lower() in PLACELESS_REGIONS:
            raise PlaceSeedError(f"{where}: {region!r} names no place; it is not seeded")
        if (provider, region) in seen:
            raise PlaceSeedError(f"{where}: {provider} {region} is listed twice")
        seen.add((provider, region))
        if country is not None and country not in countries:
            raise PlaceSeedError(f"{where}: {country!r} is not in countries.csv")
        if continent is not None and continent not in CONTINENTS:
            raise PlaceSeedError(f"{where}: continent {continent!r} not in {CONTINENTS}")
        if country is not None and continent != countries[country]:
            raise PlaceSeedError(
                f"{where}: {country} is in {countries[country]}, the row says {continent}"
            )
        if source is None or not source.startswith("https://"):
            raise PlaceSeedError(f"{where}: needs an https source_url")
        rows.append((provider, region, country, continent, city, source))
    return rows


def load_places(con: duckdb.DuckDBPyConnection, seeds_dir: Path) -> dict[str, int]:
    """Replace ``countries`` and ``regions`` from ``seeds_dir`` (inside the caller's
    transaction); a file that is absent leaves its table empty. Raises ``PlaceSeedError``."""
    countries_path, regions_path = seeds_dir / "countries.csv", seeds_dir / "regions.csv"
    countries = country_rows(countries_path) if countries_path.is_file() else []
    continent_of = {code: continent for code, _, continent in countries}
    regions = region_rows(regions_path, continent_of) if regions_path.is_file() else []
    con.execute("delete from countries")
    bulk_insert(con, "countries", list(COUNTRY_COLUMNS), [list(r) for r in countries])
    con.execute("delete from regions")
    bulk_insert(con, "regions", list(REGION_COLUMNS), [list(r) for r in regions])
    return {"countries": len(countries), "regions": len(regions)}
