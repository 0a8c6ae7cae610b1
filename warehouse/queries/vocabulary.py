"""The values a snapshot knows, for the filters whose values are a closed set: a GPU, a
provider, a region, a country. A value none of them knows answers 400 with the closest known
one (``gpu=h100-sxn``: did you mean 'h100-sxm'?) instead of an empty list that reads as "no
offers".

Known is generous, so no spelling that could match is refused: a provider is any slug the
snapshot names (its offers, ``provider_status``, ``provider_facts``, ``offer_history``); a
region any id any provider's offers have carried (current or past) or the region seed lists;
a country any ISO 3166-1 alpha-2 code (``seeds/countries.csv``) or one an offer carries; a
GPU value any canonical id or family of the snapshot's ``gpus`` table, of its offers or of
the GPU seed, after :func:`warehouse.queries.values.gpu_filter` resolved gpuhunt's and
SkyPilot's spellings. Continents and pricing models are checked by ``OfferFilter.build``
(their sets are fixed).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import duckdb

from warehouse.gpus import SEEDS_DIR
from warehouse.queries.filters import OfferFilter
from warehouse.queries.sql import main_tables
from warehouse.queries.surface import FILTERS
from warehouse.queries.values import (
    FilterError,
    family_terms,
    known_gpu_terms,
    unknown_values_error,
)

# (table, column) pairs read when the snapshot has them (identifiers from this allow-list only)
_PROVIDERS = (
    ("current_offers", "provider"),
    ("provider_status", "provider"),
    ("provider_facts", "provider"),
    ("offer_history", "provider"),
)
_REGIONS = (("current_offers", "region"), ("offer_history", "region"))
_COUNTRIES = (("current_offers", "country"),)
_GPUS = (("gpus", "gpu_id"), ("current_offers", "gpu_id"), ("current_offers", "gpu_family"))


@cache
def _seed_rows(name: str) -> tuple[dict[str, str], ...]:
    """The rows of a seed file (none when the file is absent)."""
    path: Path = SEEDS_DIR / name
    if not path.is_file():
        return ()
    with path.open(newline="", encoding="utf-8") as handle:
        return tuple(csv.DictReader(handle))


def _seed_column(name: str, column: str) -> frozenset[str]:
    """Lowercase values of one column of a seed file."""
    return frozenset(v.strip().lower() for row in _seed_rows(name) if (v := row.get(column)))


@cache
def _country_names() -> dict[str, str]:
    """{lowercase country name: lowercase code}: ``country=germany`` suggests 'de'."""
    return {
        row["name"].strip().lower(): row["country"].strip().lower()
        for row in _seed_rows("countries.csv")
        if row.get("name") and row.get("country")
    }


def _distinct(
    con: duckdb.DuckDBPyConnection, tables: frozenset[str], pairs: Iterable[tuple[str, str]]
) -> frozenset[str]:
    found: set[str] = set()
    for table, column in pairs:
        if table in tables:
            sql = f"select distinct lower({column}) from {table} where {column} is not null"
            found.update(r[0] for r in con.execute(sql).fetchall())
    return frozenset(found)


@dataclass(frozen=True)
class FilterVocabulary:
    """The provider slugs, region ids, countries (lowercase) and GPU ids and filter terms one
    snapshot knows; :meth:`check` refuses a filter value none of them is."""

    providers: frozenset[str]
    regions: frozenset[str]
    countries: frozenset[str]
    gpu_ids: frozenset[str]
    gpu_terms: frozenset[str]

    @classmethod
    def load(cls, con: duckdb.DuckDBPyConnection) -> FilterVocabulary:
        """From ``con`` (a snapshot, or the warehouse) and the seeds. A table the connection
        lacks adds nothing; a connection without ``current_offers`` knows the seeds only."""
        tables = main_tables(con)
        gpu_ids = _distinct(con, tables, _GPUS)
        return cls(
            providers=_distinct(con, tables, _PROVIDERS),
            regions=_distinct(con, tables, _REGIONS) | _seed_column("regions.csv", "region"),
            countries=_distinct(con, tables, _COUNTRIES) | _seed_column("countries.csv", "country"),
            gpu_ids=gpu_ids,
            gpu_terms=family_terms(gpu_ids) | known_gpu_terms(),
        )

    def _known_region(self, value: str) -> bool:
        """An id some offer carried or the seed lists; the seed's ``FSN1-DC*`` covers every
        id starting ``fsn1-dc``."""
        return value in self.regions or any(
            k.endswith("*") and value.startswith(k[:-1]) for k in self.regions
        )

    def _unknown(self, known: str, values: Iterable[str]) -> set[str]:
        if known == "regions":
            return {v for v in values if not self._known_region(v)}
        return set(values) - getattr(self, known)

    def check(self, f: OfferFilter) -> None:
        """Raise ``FilterError`` (each unknown value with the closest known one, ``extra``
        for the 400's body) for a value of a filter whose values this snapshot knows
        (``FilterSpec.known``: GPU, provider, region, country) that it does not know; every
        unknown value of every such filter is named at once."""
        errors: list[FilterError] = []
        for spec in FILTERS.values():
            if spec.known is None or not (values := getattr(f, spec.name)):
                continue
            if unknown := self._unknown(spec.known, values):
                what, valid, names = _KNOWN[spec.known]
                known = getattr(self, spec.known)
                error = unknown_values_error(
                    spec.name,
                    sorted(unknown),
                    getattr(self, valid) if valid else known,
                    what,
                    known,
                    _country_names() if names else None,
                )
                errors.append(error)
        if not errors:
            return
        if len(errors) == 1:
            raise errors[0]
        raise FilterError(
            "; ".join(str(e) for e in errors), [x for e in errors for x in e.extra or []]
        )


# FilterSpec.known -> (what a value is, the set listed as valid when not the known one, whether
# a country's name suggests its code)
_KNOWN: dict[str, tuple[str, str | None, bool]] = {
    "gpu_terms": ("GPU", "gpu_ids", False),
    "providers": ("provider", None, False),
    "regions": ("region", None, False),
    "countries": ("country", None, True),
}
