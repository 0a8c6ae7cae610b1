"""Vast.ai: the reduced 4-field offer capture, the full documented offer shape, and fetch."""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import vast
from scrapers.base import PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.http import make_client
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

REDUCED = SNAPSHOTS / "vast" / "c2026-09_bundles_offers_reduced_4fields.json"
OBSERVED = datetime(2026, 5, 1, tzinfo=UTC)


def _raw() -> RawResponse:
    return raw_from_capture(REDUCED, url=vast.BUNDLES_URL)


def test_reduced_capture_every_row_is_listed() -> None:
    offers = vast.PROVIDER.parse([_raw()])
    # 138 rows, 119 distinct: identical rows are one offer listed N times
    assert (len(offers), sum(o.listings for o in offers)) == (119, 138)
    assert len({o.instance_type for o in offers}) == 119
    listed: Counter[str] = Counter()
    for offer in offers:
        listed[offer.gpu_name] += offer.listings
    assert listed == {
        "A100 SXM4": 41,
        "L40S": 32,
        "A100 PCIE": 18,
        "H100 SXM": 16,
        "H100 PCIE": 10,
        "B200": 7,
        "H200": 7,
        "H100 NVL": 7,
    }
    assert {(o.region, o.pricing, o.currency, o.price_unit, o.price_per) for o in offers} == {
        ("unknown", PricingModel.ON_DEMAND, "USD", PriceUnit.HOUR, PricePer.INSTANCE)
    }
    assert {o.observed_at for o in offers} == {datetime(2026, 9, 1, tzinfo=UTC)}


def test_reduced_capture_first_offers() -> None:
    offers = vast.PROVIDER.parse([_raw()])
    first = offers[0]
    assert (first.gpu_name, first.gpu_count, first.price) == (
        "B200",
        1,
        Decimal("6.252083333333333"),
    )
    assert first.vram_gb_reported == Decimal("192.3")  # 183359 MiB
    eight = [o for o in offers if o.gpu_name == "B200" and o.gpu_count == 8]
    assert [o.price for o in eight] == [Decimal("65.01041666666667")]
    h100 = [o for o in offers if o.gpu_name == "H100 SXM"]
    assert min(o.price for o in h100 if o.gpu_count == 1) == Decimal("2.099644444444444")
    assert sum(o.gpu_count == 4 for o in h100) == 2


def test_vast_exact_duplicates_collapse_with_listings() -> None:
    """Issue 22: identical host rows (same GPU, count, memory, price; region unknown) were one
    offer each ("reduced-<hex>-1", "-2", ...), 19 offers too many; they are one offer with
    ``listings`` N."""
    offers = vast.PROVIDER.parse([_raw()])
    # the capture's first two rows: 1x B200, 183359 MiB, $6.252083333333333 per hour
    assert (offers[0].gpu_name, offers[0].price, offers[0].listings) == (
        "B200",
        Decimal("6.252083333333333"),
        2,
    )
    assert offers[1].price == Decimal("12.502083333333333")  # the third row: 2x B200, alone
    assert offers[1].listings == 1
    # three rows of 1x L40S at $0.8014814814814815 and of 4x L40S at $1.868148148148148
    l40s = {(o.gpu_count, o.price): o.listings for o in offers if o.gpu_name == "L40S"}
    assert l40s[(Decimal(1), Decimal("0.8014814814814815"))] == 3
    assert l40s[(Decimal(4), Decimal("1.868148148148148"))] == 3
    assert Counter(o.listings for o in offers) == {1: 103, 2: 13, 3: 3}
    assert all(re.fullmatch(r"reduced-[0-9a-f]{12}", o.instance_type) for o in offers)
    # a name stored before listings keys as the collapsed offer (its history continues)
    assert vast.PROVIDER.product_key(offers[0].instance_type + "-1") == offers[0].product_key


def test_reduced_names_do_not_depend_on_order() -> None:
    offers = vast.PROVIDER.parse([_raw()])
    rows = json.loads(_raw().body)
    reversed_raw = dataclasses.replace(_raw(), body=json.dumps(rows[::-1]).encode())
    names = {o.instance_type: o.price for o in offers}
    assert {o.instance_type: o.price for o in vast.PROVIDER.parse([reversed_raw])} == names


def test_reduced_row_without_price_is_counted_and_the_rest_published() -> None:
    raw = _raw()
    body = raw.body.replace(b'"dph_total"', b'"price"', 1)
    offers, excluded = vast.parse_with_exclusions([dataclasses.replace(raw, body=body)])
    assert excluded == {"missing_dph_total": 1}
    assert sum(o.listings for o in offers) == 137
    # The capture's first two rows are the same 1x B200 at 6.252083333333333; one is left.
    twins = [o for o in offers if o.price == Decimal("6.252083333333333")]
    assert [(o.gpu_name, o.gpu_count, o.listings) for o in twins] == [("B200", 1, 1)]
    assert offers[0].price == Decimal("6.252083333333333")
    assert offers[1].price == Decimal("12.502083333333333")  # the third row: 2x B200
    assert min(o.price for o in offers if o.gpu_name == "H100 SXM") == Decimal("2.099644444444444")


def test_reduced_offer_of_an_unknown_gpu_is_reported_by_name() -> None:
    # Regression (issue 11 §1): a GPU name the parser does not know must not hide the others.
    rows = json.loads(_raw().body)
    rows.insert(5, {**rows[0], "gpu_name": "B300"})
    raw = dataclasses.replace(_raw(), body=json.dumps(rows).encode())
    offers, excluded = vast.PROVIDER.parse_report([raw])
    assert excluded == {"unknown_gpu B300": 1}
    assert {o.instance_type: o.price for o in offers} == {
        o.instance_type: o.price for o in vast.PROVIDER.parse([_raw()])
    }


def test_price_renamed_in_every_reduced_row_is_drift() -> None:
    raw = _raw()
    body = raw.body.replace(b'"dph_total"', b'"price"')
    with pytest.raises(SchemaDriftError, match=r"no offers found.*missing_dph_total: 138"):
        vast.PROVIDER.parse([dataclasses.replace(raw, body=body)])


def test_envelope_without_offers_is_drift() -> None:
    raw = dataclasses.replace(_raw(), body=b'{"bundles": []}')
    with pytest.raises(SchemaDriftError, match="neither an 'offers' list"):
        vast.PROVIDER.parse([raw])


# --- the full offer shape, as in the search-offers documentation --------------------------------


def _offer(offer_id: int, **changes: object) -> dict[str, object]:
    offer: dict[str, object] = {
        "id": offer_id,
        "machine_id": 4242,
        "gpu_name": "RTX 4090",
        "num_gpus": 2,
        "gpu_ram": 24564,
        "cpu_cores_effective": 32,
        "cpu_ram": 129024,
        "disk_space": 500.0,
        "dph_base": 0.7,
        "dph_total": 0.8125,
        "min_bid": 0.5,
        "geolocation": "Texas, US",
        "rentable": True,
        "verified": True,
        "reliability2": 0.998,
    }
    offer.update(changes)
    return offer


def _full(*offers: dict[str, object]) -> RawResponse:
    body = json.dumps({"offers": list(offers)}).encode()
    return RawResponse(vast.BUNDLES_URL, "GET", 200, "application/json", body, OBSERVED)


def test_full_offer_on_demand_and_spot() -> None:
    on_demand, spot = vast.PROVIDER.parse([_full(_offer(12345678))])
    assert (on_demand.instance_type, on_demand.region) == ("offer-12345678", "Texas, US")
    assert (on_demand.pricing, on_demand.price) == (PricingModel.ON_DEMAND, Decimal("0.8125"))
    assert (spot.pricing, spot.price, spot.instance_type) == (
        PricingModel.SPOT,
        Decimal("0.5"),
        "offer-12345678",
    )
    assert (on_demand.gpu_name, on_demand.gpu_count, on_demand.vram_gb_reported) == (
        "RTX 4090",
        2,
        Decimal("25.8"),
    )
    assert (on_demand.vcpus, on_demand.ram_gb, on_demand.storage_gb) == (32, Decimal("135.3"), 500)
    assert on_demand.observed_at == OBSERVED


def test_full_offer_without_location_or_bid() -> None:
    (offer,) = vast.PROVIDER.parse([_full(_offer(7, geolocation=None, min_bid=None))])
    assert (offer.region, offer.pricing) == ("unknown", PricingModel.ON_DEMAND)


def test_vast_host_location_gives_country() -> None:
    """Issue 22: every Vast offer was region ``unknown`` or the host's free-text location with
    no country. The search API's ``geolocation`` ("Texas, US") ends in the host's ISO country,
    which the offer now carries; a location without one, or none at all, gives no country.
    (The recorded captures are the reduced 4-field layout, which names no location: there every
    offer stays ``unknown`` with no country, ``test_reduced_rows_name_no_place``.)"""
    offers = vast.PROVIDER.parse(
        [
            _full(
                _offer(1),
                _offer(2, geolocation="Quebec, CA"),
                _offer(3, geolocation="SE"),
                _offer(4, geolocation="Earth"),
                _offer(5, geolocation=None),
            )
        ]
    )
    places = {(o.instance_type, o.region, o.country) for o in offers}
    assert places == {
        ("offer-1", "Texas, US", "US"),
        ("offer-2", "Quebec, CA", "CA"),
        ("offer-3", "SE", "SE"),
        ("offer-4", "Earth", None),
        ("offer-5", "unknown", None),
    }


def test_reduced_rows_name_no_place() -> None:
    offers = vast.PROVIDER.parse([_raw()])
    assert {(o.region, o.country) for o in offers} == {("unknown", None)}


def test_min_bid_of_zero_keeps_the_offer_and_counts_the_missing_spot_price() -> None:
    # Regression: a min_bid of 0 failed the whole provider ("min_bid is 0"). It is a valid
    # value (no bid floor), not a free spot rental: on-demand stays, spot is counted.
    offers, excluded = vast.parse_with_exclusions(
        [_full(_offer(1, min_bid=0), _offer(2, min_bid=0.0), _offer(3))]
    )
    assert [(o.instance_type, o.pricing) for o in offers] == [
        ("offer-1", PricingModel.ON_DEMAND),
        ("offer-2", PricingModel.ON_DEMAND),
        ("offer-3", PricingModel.ON_DEMAND),
        ("offer-3", PricingModel.SPOT),
    ]
    assert all(o.price > 0 for o in offers)
    assert excluded == {"zero_min_bid": 2}


def test_missing_id_and_unknown_gpu_are_counted_per_offer() -> None:
    offers, excluded = vast.parse_with_exclusions(
        [_full(_offer(3, id=None), _offer(4, gpu_name="Z100"), _offer(5, gpu_ram="n/a"), _offer(6))]
    )
    assert [(o.instance_type, o.pricing, o.price) for o in offers] == [
        ("offer-6", PricingModel.ON_DEMAND, Decimal("0.8125")),
        ("offer-6", PricingModel.SPOT, Decimal("0.5")),
    ]
    assert excluded == {"missing_id": 1, "unknown_gpu Z100": 1, "unparsed_gpu_ram": 1}


def test_negative_min_bid_and_zero_on_demand_price_are_drift() -> None:
    # An impossible value is a broken answer, not one odd offer: the scrape fails and the last
    # good data stays served (tests/pipelines/test_fault_matrix.py, negative/zero_price).
    with pytest.raises(SchemaDriftError, match=r"min_bid is -0\.1"):
        vast.PROVIDER.parse([_full(_offer(1, min_bid=-0.1), _offer(2))])
    with pytest.raises(SchemaDriftError, match="dph_total is 0"):
        vast.PROVIDER.parse([_full(_offer(1, dph_total=0), _offer(2))])


def test_offers_none_of_which_is_usable_are_drift() -> None:
    with pytest.raises(SchemaDriftError, match=r"no offers found \(left out: missing_id: 1\)"):
        vast.PROVIDER.parse([_full(_offer(7, id=None))])
    with pytest.raises(SchemaDriftError, match="more than half"):
        vast.PROVIDER.parse_report(
            [_full(_offer(1, gpu_name="Z1"), _offer(2, gpu_name="Z2"), _offer(3))]
        )


def test_element_that_is_not_an_offer_is_drift() -> None:
    raw = RawResponse(
        vast.BUNDLES_URL, "GET", 200, "application/json", b'{"offers": [1]}', OBSERVED
    )
    with pytest.raises(SchemaDriftError, match="offer is not an object"):
        vast.PROVIDER.parse([raw])


# --- fetch ----------------------------------------------------------------------------------------


def _fetch(token: str | None) -> tuple[httpx.Request, list[RawResponse]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"offers": [_offer(1), _offer(2, num_gpus=8)]})

    with make_client(httpx.MockTransport(handler)) as client:
        responses = vast.fetch(client, token)
    (request,) = seen
    return request, responses


def test_fetch_searches_verified_rentable_on_demand_offers_cheapest_first() -> None:
    request, responses = _fetch(None)
    assert request.method == "GET"
    assert request.url.copy_with(query=None) == vast.BUNDLES_URL
    query = json.loads(request.url.params["q"])
    assert query["verified"] == {"eq": True}
    assert query["rentable"] == {"eq": True}
    assert query["type"] == "on-demand"
    assert query["order"] == [["dph_total", "asc"]]
    assert query["limit"] == vast.LIMIT
    assert "authorization" not in request.headers
    assert len(vast.PROVIDER.parse(responses)) == 4


def test_fetch_sends_the_bearer_token_when_set() -> None:
    request, _ = _fetch("vast-key")
    assert request.headers["authorization"] == "Bearer vast-key"


@pytest.mark.parametrize("token", [None, "key"])
def test_replay_of_every_capture_parses(token: str | None) -> None:
    captures = discover(SNAPSHOTS, ["vast"])["vast"]
    assert [c.path.name for c in captures] == [
        REDUCED.name
    ]  # gpu-stats is AGGREGATED: not replayed
    for capture in captures:
        with make_client(ReplayTransport(capture)) as client:
            offers = vast.PROVIDER.parse(vast.fetch(client, token))
        assert offers and all(o.observed_at == capture.captured_at for o in offers)
