"""The one parse loop every scraper reads its rows with (``scrapers.parsing.offers_from_rows``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterator
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from scrapers.base import Offer, PricingModel, SchemaDriftError
from scrapers.parsing import RowExcluded, offers_from_rows


def _offer(name: str) -> Offer:
    return Offer(
        provider="example",
        instance_type=name,
        gpu_name="H100",
        gpu_count=Decimal(1),
        pricing=PricingModel.ON_DEMAND,
        price=Decimal("2.49"),
        currency="USD",
        source_url="https://example.invalid/",
        observed_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


def test_an_excluded_row_is_counted_and_the_rows_after_it_are_still_read():
    def read(name: str) -> Offer | list[Offer] | None:
        if name == "cpu":
            raise RowExcluded("non_gpu")
        if name == "none":
            return None
        return [_offer(f"{name}-a"), _offer(f"{name}-b")] if name == "pair" else _offer(name)

    excluded: Counter[str] = Counter()
    offers = offers_from_rows(["a", "cpu", "pair", "none", "cpu", "b"], read, excluded)
    assert [o.instance_type for o in offers] == ["a", "pair-a", "pair-b", "b"]
    assert excluded == {"non_gpu": 2}


def test_a_row_whose_generator_raises_half_way_gives_no_offer():
    def read(name: str) -> Iterator[Offer]:
        yield _offer(f"{name}-on-demand")
        raise RowExcluded("unparsed_price")

    excluded: Counter[str] = Counter()
    assert offers_from_rows(["x"], read, excluded) == []
    assert excluded == {"unparsed_price": 1}


def test_a_row_met_twice_under_one_once_key_is_counted_once():
    def read(name: str) -> Offer:
        raise RowExcluded("unknown_sku Z100", once=("unknown_sku Z100", name))

    excluded: Counter[str] = Counter()
    seen: set[Hashable] = set()
    offers_from_rows(["eu", "us"], read, excluded, seen=seen)
    offers_from_rows(["eu"], read, excluded, seen=seen)  # a second price list, same row
    assert excluded == {"unknown_sku Z100": 2}


def test_drift_is_not_an_exclusion():
    def read(name: str) -> Offer:
        raise SchemaDriftError("the price column is gone")

    with pytest.raises(SchemaDriftError, match="column is gone"):
        offers_from_rows(["a"], read, Counter())
