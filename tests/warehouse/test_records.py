"""The write side's records are the tables' shapes: every record's fields are its table's columns
in the migrated schema, and the warehouse's offer record is the scrapers' Offer."""

from __future__ import annotations

import duckdb
import msgspec
import pytest

from scrapers.base import Offer
from warehouse import batch, estimates, facts, history, records
from warehouse.db import migrate

TABLES: dict[str, type[msgspec.Struct]] = {
    "observations": records.Observation,
    "fetches": records.Fetch,
    "scrape_exclusions": records.ScrapeExclusion,
    "scrape_skipped_parts": records.ScrapeSkippedPart,
    "serverless_tiers": records.ServerlessTier,
    "token_estimates": records.TokenEstimate,
    "offer_id_merges": records.OfferIdMerge,
    "announcement_withdrawals": records.AnnouncementWithdrawal,
}


@pytest.fixture(scope="module")
def con():
    c = duckdb.connect()
    migrate(c)
    yield c
    c.close()


def _columns(con, table: str) -> tuple[str, ...]:
    rows = con.execute(
        "select column_name from information_schema.columns where table_name = ?"
        " order by ordinal_position",
        [table],
    ).fetchall()
    return tuple(r[0] for r in rows)


@pytest.mark.parametrize("table", sorted(TABLES))
def test_record_fields_are_the_table_columns_in_order(con, table: str) -> None:
    assert records.columns(TABLES[table]) == _columns(con, table)


def test_history_rows_are_columns_of_observations_and_history(con) -> None:
    assert history.OBSERVED_COLUMNS == records.HISTORY_OBSERVATION_COLUMNS
    assert set(records.HISTORY_OBSERVATION_COLUMNS) <= set(_columns(con, "observations"))
    assert set(records.HISTORY_OBSERVATION_COLUMNS) <= set(_columns(con, "offer_history"))
    assert set(records.ANNOUNCEMENT_COLUMNS) <= set(_columns(con, "observations"))


def test_scraped_offer_is_the_scrapers_offer_with_its_defaults() -> None:
    assert records.columns(records.ScrapedOffer) == tuple(Offer.model_fields)
    for field in msgspec.structs.fields(records.ScrapedOffer):
        info = Offer.model_fields[field.name]
        if info.is_required():
            assert field.required, field.name
        else:  # StrEnum defaults compare equal to their values
            assert field.default == info.default, field.name


def test_column_lists_are_derived_from_records() -> None:
    assert ("scrape_id", *records.columns(records.ScrapedOffer)) == batch.OFFER_COLUMNS
    assert records.columns(records.BatchScrape) == batch.SCRAPE_COLUMNS
    assert records.columns(records.EstimateOffer) == estimates.OFFER_COLUMNS
    assert records.columns(records.TokenEstimate) == estimates.ESTIMATE_COLUMNS
    assert records.columns(records.ServerlessTier) == facts._TIER_COLUMNS
