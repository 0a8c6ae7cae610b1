"""A new SKU never takes a provider down (issue 11 §1), for every registered provider.

Each provider's newest capture gets one made-up row (``tests/scrapers/unknown_rows/<slug>.py``);
the parse must still publish exactly the known offers and report the row as an ``unknown_*``
exclusion that names it. The drift rule itself (``scrapers.base.check_structure``) is tested
at the bottom.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from scrapers.base import (
    Offer,
    PricingModel,
    SchemaDriftError,
    check_structure,
    unknown_row,
    unknown_rows,
)
from scrapers.registry import PROVIDERS
from scrapers.replay import discover
from tests.conftest import SNAPSHOTS, raw_from_capture
from tests.scrapers.examples import examples_for


def _newest(slug: str):
    # the newest real capture; a provider verified by its docs has its newest example instead
    found = discover(SNAPSHOTS, [slug]).get(slug) or examples_for(slug)
    return raw_from_capture(found[-1].path)


@pytest.mark.parametrize("slug", sorted(PROVIDERS))
def test_one_unknown_row_in_the_newest_capture_is_reported_not_fatal(slug):
    provider = PROVIDERS[slug]
    injector = importlib.import_module(f"tests.scrapers.unknown_rows.{slug}")
    response = _newest(slug)
    known, excluded = provider.parse_report([response])

    body, name = injector.inject(response.body)
    assert body != response.body, "the injector must change the capture"
    offers, excluded_after = provider.parse_report([dataclasses.replace(response, body=body)])

    assert sorted(o.model_dump_json() for o in offers) == sorted(o.model_dump_json() for o in known)
    new = {r: n for r, n in unknown_rows(excluded_after).items() if n != excluded.get(r, 0)}
    assert len(new) == 1, f"expected one new unknown_* reason, got {new}"
    assert name in next(iter(new)), f"the reason {next(iter(new))!r} does not name {name!r}"


def _offer(instance_type: str, region: str = "global") -> Offer:
    return Offer(
        provider="example",
        instance_type=instance_type,
        region=region,
        gpu_name="H100",
        gpu_count=Decimal(1),
        pricing=PricingModel.ON_DEMAND,
        price=Decimal("2.00"),
        currency="USD",
        source_url="https://example.invalid/",
        observed_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


def test_unknown_rows_up_to_half_pass_and_more_than_half_is_drift():
    offers = [_offer("a"), _offer("b"), _offer("b", "eu")]  # three known rows
    check_structure(offers, Counter({unknown_row("family", "z9"): 3, "windows": 40}))
    with pytest.raises(SchemaDriftError, match=r"4 of 7 GPU rows are unknown.*unknown_family z9"):
        check_structure(offers, Counter({unknown_row("family", "z9"): 4}))


def test_spot_and_on_demand_prices_of_one_row_count_once():
    spot = _offer("a").model_copy(update={"pricing": PricingModel.SPOT})
    with pytest.raises(SchemaDriftError, match="2 of 3"):
        check_structure([_offer("a"), spot], Counter({unknown_row("sku", "x"): 2}))


def test_no_known_offer_is_drift_and_names_the_unknown_rows():
    with pytest.raises(SchemaDriftError, match=r"no known offer.*unknown_gpu Z100"):
        check_structure([], Counter({unknown_row("gpu", "Z100"): 1}))


def test_unreadable_rows_count_towards_the_half_like_unknown_ones():
    offers = [_offer("a")]
    with pytest.raises(SchemaDriftError, match="2 of 3"):
        check_structure(offers, Counter({"unparsed_price": 1, unknown_row("gpu", "Z100"): 1}))
    check_structure(offers, Counter({"unparsed_price": 1, "contact sales": 9}))
