"""The scraper contract, for every registered provider on every real capture (all dates).

Each capture goes through the live code path -- the replay transport answers the requests
``fetch_report`` sends, and ``parse_report`` (the module's parse plus the drift rule) reads
them -- exactly as ``gpuprices ingest --replay`` does. What every scraper promises on the
captures it is meant to read:

- at least one offer, no fetch part skipped, and no row it does not know: no ``unknown_*`` or
  ``unparsed_*`` exclusion (the other reasons name known kinds of non-offer);
- typed records: ``Offer`` instances of this provider, prices ``Decimal`` with a three-letter
  currency code, a positive GPU count, enums for pricing, unit and per-what, the capture's
  timezone-aware observation time, and an https source URL;
- one offer per key (instance type, region, pricing, term), and a pure parse: the same bytes
  give the same offers and exclusions;
- offer identity (issue 21): every offer's ``product_key`` is its provider's key of its instance
  type (``Provider.product_key``, which the ingest also re-keys stored offers by), the offer ids
  the warehouse hashes from it stay unique within one capture (a key never merges two offers
  one capture lists apart), and a provider without ``product_keys`` or ``product_key_rule``
  keys every offer by its instance type, so its ids are the ones it always had.

Provider-specific values (a price a person reads off the capture) live in the per-provider
test modules beside this one; what the pipeline does with the offers lives in tests/pipelines.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta
from decimal import Decimal
from functools import cache
from urllib.parse import urlsplit

import pytest

from scrapers import http
from scrapers.base import (
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    Provider,
    RawResponse,
    unrecognised_rows,
)
from scrapers.registry import PROVIDERS
from scrapers.replay import REPLAY_TOKEN, Capture, ReplayTransport, discover
from tests.conftest import SNAPSHOTS
from tests.scrapers.examples import examples_for
from warehouse.records import identity_key, offer_id

# Providers whose real captures reached ../shared/snapshots (2026-08-22/29) before their scrapers:
# issue 26 builds them. Each one removed from here when its scraper lands; a new folder that is
# neither scraped nor listed fails the test below.
AWAITING_SCRAPER = frozenset(
    {
    }
)  # fmt: skip
# A provider verified against its documentation has no capture: its examples stand in
# (tests/scrapers/examples/<slug>/, the provider's own published example responses).
DOCS_VERIFIED = sorted(slug for slug, p in PROVIDERS.items() if p.verified == "docs")
CAPTURES = [
    capture
    for slug, found in discover(SNAPSHOTS).items()
    if slug not in AWAITING_SCRAPER
    for capture in found
] + [capture for slug in DOCS_VERIFIED for capture in examples_for(slug)]
_CURRENCY = re.compile(r"^[A-Z]{3}$")


def _id(capture: Capture) -> str:
    return f"{capture.provider}/{capture.path.name}"


@cache
def _fetched(capture: Capture) -> tuple[list[RawResponse], dict[str, str]]:
    provider = PROVIDERS[capture.provider]
    token = REPLAY_TOKEN if provider.token_required else None
    with http.make_client(ReplayTransport(capture)) as client:
        return provider.fetch_report(client, token)


@cache
def _parsed(capture: Capture) -> tuple[list[Offer], Counter[str]]:
    responses, _ = _fetched(capture)
    return PROVIDERS[capture.provider].parse_report(responses)


def test_every_provider_folder_with_a_real_response_has_a_scraper():
    captured = {slug for slug, p in PROVIDERS.items() if p.verified == "capture"}
    assert set(discover(SNAPSHOTS)) - AWAITING_SCRAPER == captured
    assert not AWAITING_SCRAPER & set(PROVIDERS), "a scraper landed: drop it from AWAITING_SCRAPER"


def test_a_provider_verified_by_its_docs_has_an_example_and_no_capture():
    captured = discover(SNAPSHOTS)
    for slug in DOCS_VERIFIED:
        assert examples_for(slug), f"tests/scrapers/examples/{slug}/ holds no dated example"
        assert slug not in captured, f"{slug} has a real capture: mark it verified='capture'"


@pytest.mark.parametrize("slug", sorted(PROVIDERS))
def test_the_registry_names_each_provider_by_its_slug(slug):
    provider = PROVIDERS[slug]
    assert isinstance(provider, Provider) and provider.slug == slug
    assert provider.kind in ("cloud", "marketplace", "serverless")
    assert not provider.token_required or provider.token_env, "a required token needs its variable"
    assert urlsplit(provider.homepage).scheme == "https"


@pytest.mark.parametrize("capture", CAPTURES, ids=_id)
def test_every_capture_reads_known_offers_through_the_live_code_path(capture):
    _, skipped = _fetched(capture)
    offers, excluded = _parsed(capture)

    assert offers, "no offer"
    assert skipped == {}, f"fetch parts skipped: {skipped}"
    assert unrecognised_rows(excluded) == {}, "rows this scraper does not know"
    assert all(isinstance(reason, str) and reason for reason in excluded)
    assert all(isinstance(n, int) and n > 0 for n in excluded.values())


@pytest.mark.parametrize("capture", CAPTURES, ids=_id)
def test_every_offer_is_a_typed_record_with_decimal_money_and_its_currency(capture):
    offers, _ = _parsed(capture)
    for offer in offers:
        assert type(offer) is Offer
        assert offer.provider == capture.provider
        assert type(offer.price) is Decimal and offer.price > 0, offer
        assert _CURRENCY.match(offer.currency), offer.currency
        assert type(offer.gpu_count) is Decimal and offer.gpu_count > 0
        for figure in (offer.vram_gb_reported, offer.vcpus, offer.ram_gb, offer.storage_gb):
            assert figure is None or type(figure) is Decimal
        assert isinstance(offer.pricing, PricingModel)
        assert isinstance(offer.price_unit, PriceUnit)
        assert isinstance(offer.price_per, PricePer)
        assert (offer.pricing is PricingModel.RESERVED) == (offer.reserved_term_months is not None)
        assert offer.observed_at.utcoffset() == timedelta(0)


@pytest.mark.parametrize("capture", CAPTURES, ids=_id)
def test_offers_are_observed_at_the_capture_time_with_an_https_source(capture):
    offers, _ = _parsed(capture)
    assert {offer.observed_at for offer in offers} == {capture.captured_at}
    for offer in offers:
        # the page or API the offer was read from (a layout's own page when that is not the
        # URL the replay answered, e.g. a pricing page read in place of the GraphQL API)
        url = urlsplit(offer.source_url)
        assert url.scheme == "https" and url.netloc, offer.source_url


@pytest.mark.parametrize("capture", CAPTURES, ids=_id)
def test_one_offer_per_key_and_the_same_bytes_parse_the_same(capture):
    responses, _ = _fetched(capture)
    offers, excluded = _parsed(capture)
    keys = [
        (o.instance_type, o.region, o.cloud_tier, o.pricing, o.reserved_term_months) for o in offers
    ]
    assert len(keys) == len(set(keys))
    again, excluded_again = PROVIDERS[capture.provider].parse_report(list(responses))
    assert [o.model_dump() for o in again] == [o.model_dump() for o in offers]
    assert excluded_again == excluded


@pytest.mark.parametrize("capture", CAPTURES, ids=_id)
def test_offer_ids_stay_unique_within_one_capture(capture):
    offers, _ = _parsed(capture)
    provider = PROVIDERS[capture.provider]
    ids = Counter(
        offer_id(
            o.provider,
            identity_key(o),
            o.region,
            o.pricing.value,
            o.reserved_term_months,
            o.cloud_tier,
        )
        for o in offers
    )
    assert [i for i, n in ids.items() if n > 1] == []
    for offer in offers:
        assert offer.product_key == provider.product_key(offer.instance_type), offer
        if not provider.product_keys and provider.product_key_rule is None:
            assert offer.product_key == offer.instance_type, offer


def _offer(**changes: object) -> dict[str, object]:
    base: dict[str, object] = {
        "provider": "nebius",
        "instance_type": "NVIDIA HGX H100",
        "gpu_name": "NVIDIA HGX H100",
        "gpu_count": Decimal(1),
        "pricing": PricingModel.ON_DEMAND,
        "price": Decimal("3.85"),
        "currency": "USD",
        "price_per": PricePer.GPU,
        "source_url": "https://nebius.com/prices",
        "observed_at": "2026-09-01T00:00:00Z",
    }
    return {**base, **changes}


def test_an_announced_price_comes_with_its_date_after_the_observation() -> None:
    offer = Offer.model_validate(
        _offer(announced_price=Decimal("4.50"), announced_from="2026-10-01T00:00:00Z")
    )
    assert (offer.announced_price, offer.announced_from.isoformat()) == (  # type: ignore[union-attr]
        Decimal("4.50"),
        "2026-10-01T00:00:00+00:00",
    )
    for wrong in (
        {"announced_price": Decimal("4.50")},  # no date
        {"announced_from": "2026-10-01T00:00:00Z"},  # no price
        {"announced_price": Decimal(0), "announced_from": "2026-10-01T00:00:00Z"},
        {"announced_price": Decimal("-4.50"), "announced_from": "2026-10-01T00:00:00Z"},
        {"announced_price": Decimal("4.50"), "announced_from": "2026-09-01T00:00:00Z"},  # in force
        {"announced_price": Decimal("4.50"), "announced_from": "2026-10-01T00:00:00"},  # naive
    ):
        with pytest.raises(ValueError):
            Offer.model_validate(_offer(**wrong))
