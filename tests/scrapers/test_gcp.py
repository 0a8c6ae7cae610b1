"""GCP scraper: the Cloud Billing SKU capture, the GPU pricing page excerpt, mutated copies of
both, and the live request shape (page always, SKU pages with the API key)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest

from scrapers import gcp, http
from scrapers.base import FetchError, Offer, PricePer, PriceUnit, PricingModel, SchemaDriftError
from scrapers.parsing import gb_from_gib
from tests.conftest import SNAPSHOTS, raw_from_capture

SKU_CAPTURE = SNAPSHOTS / "gcp" / "2025-06-17_cloudbilling_compute_skus_gpu_only.json"
PAGE_CAPTURE = SNAPSHOTS / "gcp" / "c2026-10_gpus-pricing_tables_excerpt.html"
API_KEY = "test-key-123"


def _sku_raw(body: bytes | None = None):
    raw = raw_from_capture(SKU_CAPTURE, url=gcp.SKUS_URL)
    return raw if body is None else replace(raw, body=body)


def _page_raw(body: bytes | None = None):
    raw = raw_from_capture(PAGE_CAPTURE, url=gcp.PRICING_PAGE_URL)
    return raw if body is None else replace(raw, body=body)


@pytest.fixture(scope="module")
def sku_parse() -> tuple[list[Offer], Counter[str]]:
    """The 1.3 MB SKU capture, parsed once for the whole module."""
    return gcp.parse_with_exclusions([_sku_raw()])


@pytest.fixture(scope="module")
def page_parse() -> tuple[list[Offer], Counter[str]]:
    return gcp.parse_with_exclusions([_page_raw()])


def _one(offers: list[Offer], instance_type: str, region: str, pricing: PricingModel, term=None):
    matches = [
        o
        for o in offers
        if (o.instance_type, o.region, o.pricing, o.reserved_term_months)
        == (instance_type, region, pricing, term)
    ]
    assert len(matches) == 1, (instance_type, region, pricing, term)
    return matches[0]


# --- Cloud Billing SKU capture -------------------------------------------------------------


def test_sku_capture_counts(sku_parse) -> None:
    offers, excluded = sku_parse
    assert len(offers) == 1142
    assert excluded == {
        "license": 155,
        "dws_calendar": 124,
        "dws_flex_start": 115,
        "reservation_placeholder": 78,
        "zero_price": 18,
    }
    assert len(offers) + sum(excluded.values()) == 1632  # every SKU accounted for
    assert Counter((o.pricing, o.reserved_term_months) for o in offers) == {
        (PricingModel.ON_DEMAND, None): 282,
        (PricingModel.SPOT, None): 290,
        (PricingModel.RESERVED, 12): 285,
        (PricingModel.RESERVED, 36): 285,
    }
    assert {o.gpu_name for o in offers} == {
        "H200 141GB",
        "NVIDIA H100 SXM 80GB",  # the SKUs "Nvidia H100 80GB" and "Nvidia H100 80GB Plus"
        "Nvidia H100 80GB Mega",
        "Nvidia L4",
        "Nvidia Tesla A100",
        "Nvidia Tesla A100 80GB",
        "Nvidia Tesla P100",
        "Nvidia Tesla P4",
        "Nvidia Tesla T4",
        "Nvidia Tesla V100",
    }
    assert all(o.price_per is PricePer.GPU and o.gpu_count == 1 for o in offers)
    assert all(o.currency == "USD" and o.price_unit is PriceUnit.HOUR for o in offers)
    assert all(o.source_url == gcp.SKUS_URL and "key=" not in o.source_url for o in offers)


def test_a100_in_americas_all_pricing_models(sku_parse) -> None:
    offers, _ = sku_parse
    name = "Nvidia Tesla A100 GPU"
    # 039F-D0DA-4055 "Nvidia Tesla A100 GPU running in Americas": units "2", nanos 933908000
    on_demand = _one(offers, name, "americas", PricingModel.ON_DEMAND)
    assert on_demand.price == Decimal("2.933908")
    assert on_demand.gpu_name == "Nvidia Tesla A100"
    assert on_demand.vram_gb_reported is None  # the 40 GB model's SKU name carries no size
    assert on_demand.observed_at == datetime(2025, 6, 17, tzinfo=UTC)
    # 39D4-516A-0317 "... attached to Spot Preemptible VMs running in Americas"
    assert _one(offers, name, "americas", PricingModel.SPOT).price == Decimal("1.1472")
    # E9B0-ED35-1FA7 / AC87-9557-955D "Commitment v1: ... running in Americas for 1/3 Year"
    assert _one(offers, name, "americas", PricingModel.RESERVED, 12).price == Decimal("1.84836204")
    assert _one(offers, name, "americas", PricingModel.RESERVED, 36).price == Decimal("1.0268678")


def test_locations_become_region_ids(sku_parse) -> None:
    offers, _ = sku_parse
    # 0B85-B65B-0812 "Nvidia H100 80GB GPU running in Virginia": 9 + 0.796551
    h100 = _one(offers, "Nvidia H100 80GB GPU", "us-east4", PricingModel.ON_DEMAND)
    assert (h100.price, h100.vram_gb_reported) == (Decimal("9.796551"), Decimal(80))
    assert h100.gpu_name == "NVIDIA H100 SXM 80GB"  # H100 SKUs bill A3 (SXM) machines only
    # 4B50-C79C-9114 "H200 141GB GPU running in Northern Virginia"
    h200 = _one(offers, "H200 141GB GPU", "us-east4", PricingModel.ON_DEMAND)
    assert (h200.price, h200.vram_gb_reported) == (Decimal("9.31174"), Decimal(141))
    # 0008-F633-76AA "Nvidia L4 GPU attached to Spot Preemptible VMs running in Hong Kong"
    l4 = _one(offers, "Nvidia L4 GPU", "asia-east2", PricingModel.SPOT)
    assert l4.price == Decimal("0.2350321")
    # F546-2EEC-E9A7 "Commitment v1: Nvidia Tesla A100 80GB GPU running in Virginia for 3 Years"
    a100 = _one(offers, "Nvidia Tesla A100 80GB GPU", "us-east4", PricingModel.RESERVED, 36)
    assert a100.price == Decimal("3.487689")
    # no public region id: the location is kept, slugged
    phoenix = _one(offers, "Nvidia Tesla A100 GPU", "phoenix", PricingModel.ON_DEMAND)
    assert phoenix.price == Decimal("2.933908")
    regions = {o.region for o in offers}
    assert {"americas", "emea", "apac", "japan"} <= regions
    assert "europe-west4" in regions and "asia-northeast1" in regions


def test_dws_reservation_and_zero_price_skus_are_not_offers(sku_parse) -> None:
    offers, _ = sku_parse
    # 45BF-B232-E095 "Nvidia Tesla V100 GPU running in Jakarta" is a $0 placeholder (its spot
    # SKU has a price and stays)
    jakarta_v100 = {
        o.pricing
        for o in offers
        if (o.gpu_name, o.region) == ("Nvidia Tesla V100", "asia-southeast2")
    }
    assert jakarta_v100 == {PricingModel.SPOT}
    assert all(o.price > 0 for o in offers)
    # "Nvidia H100 Mega 80GB" appears only in DWS and reservation SKUs
    assert "Nvidia H100 Mega 80GB" not in {o.gpu_name for o in offers}


# --- GPU pricing page ----------------------------------------------------------------------


def test_page_counts(page_parse) -> None:
    offers, excluded = page_parse
    assert len(offers) == 104
    assert len({o.instance_type for o in offers}) == 28
    assert excluded == {"page_dws": 23, "page_flex_cud": 30, "page_spot_cell_without_price": 1}
    assert {o.region for o in offers} == {"us-central1"}
    assert all(o.price_per is PricePer.INSTANCE and o.currency == "USD" for o in offers)
    assert {o.gpu_name for o in offers} == {
        "Nvidia B200",
        "Nvidia H200",
        "NVIDIA H100 SXM 80GB",  # A3 High / A3 Mega; the cell says "Nvidia H100"
        "NVIDIA A100 SXM4 40GB",  # A2 Standard; the cell says "Nvidia A100"
        "NVIDIA A100 SXM4 80GB",  # A2 Ultra
        "NVIDIA RTX PRO 6000",
        "NVIDIA L4",
    }


def test_a3_highgpu_8g(page_parse) -> None:
    offers, _ = page_parse
    offer = _one(offers, "a3-highgpu-8g", "us-central1", PricingModel.ON_DEMAND)
    assert offer.price == Decimal("88.490000119")
    assert (offer.gpu_name, offer.gpu_count, offer.vram_gb_reported) == (
        "NVIDIA H100 SXM 80GB",
        8,
        80,
    )
    assert offer.vcpus == 208
    assert offer.ram_gb == gb_from_gib(1871) == Decimal("2009.0")
    assert offer.storage_gb == gb_from_gib(6000)
    assert offer.price_unit is PriceUnit.HOUR
    assert offer.source_url == gcp.PRICING_PAGE_URL
    assert offer.observed_at == datetime(2026, 10, 1, tzinfo=UTC)
    assert _one(offers, "a3-highgpu-8g", "us-central1", PricingModel.SPOT).price == Decimal(
        "52.962296548"
    )
    reserved = {
        o.reserved_term_months: o.price
        for o in offers
        if o.instance_type == "a3-highgpu-8g" and o.pricing is PricingModel.RESERVED
    }
    assert reserved == {12: Decimal("61.383674231"), 36: Decimal("38.864383195")}


def test_page_rows_with_missing_or_odd_cells(page_parse) -> None:
    offers, _ = page_parse
    by_type: dict[str, set[Any]] = {}
    for o in offers:
        by_type.setdefault(o.instance_type, set()).add((o.pricing, o.reserved_term_months))
    # a4-highgpu-8g: on-demand "N/A"; spot $39.6336
    assert (PricingModel.ON_DEMAND, None) not in by_type["a4-highgpu-8g"]
    assert _one(offers, "a4-highgpu-8g", "us-central1", PricingModel.SPOT).price == Decimal(
        "39.6336"
    )
    # a2-ultragpu-2g: CUD columns "N/A"
    assert by_type["a2-ultragpu-2g"] == {(PricingModel.ON_DEMAND, None), (PricingModel.SPOT, None)}
    # g2-standard-24: the spot cell names "g2-standard-24-spot" instead of a price
    assert (PricingModel.SPOT, None) not in by_type["g2-standard-24"]
    # g4-standard-6 is a 1/8 share of an RTX PRO 6000
    g4 = _one(offers, "g4-standard-6", "us-central1", PricingModel.ON_DEMAND)
    assert (g4.gpu_count, g4.price, g4.vram_gb_reported) == (
        Decimal("0.125"),
        Decimal("0.64688"),
        96,
    )
    # A2 Ultra is the 80 GB A100, A2 Standard the 40 GB one
    ultra = _one(offers, "a2-ultragpu-1g", "us-central1", PricingModel.ON_DEMAND)
    assert (ultra.gpu_name, ultra.vram_gb_reported) == ("NVIDIA A100 SXM4 80GB", 80)
    highgpu = _one(offers, "a2-highgpu-1g", "us-central1", PricingModel.ON_DEMAND)
    assert (highgpu.gpu_name, highgpu.vram_gb_reported) == ("NVIDIA A100 SXM4 40GB", 40)
    assert _one(offers, "a2-highgpu-1g", "us-central1", PricingModel.ON_DEMAND).price == Decimal(
        "3.673385"
    )


def test_both_sources_in_one_scrape_and_replayed_duplicates() -> None:
    page, sku = _page_raw(), _sku_raw()
    # replay answers the page request and every SKU request with the same capture
    offers = gcp.PROVIDER.parse([page, page, sku])
    assert len(offers) == 104 + 1142


# --- mutated captures ----------------------------------------------------------------------


_SKU_KNOWN_EXCLUSIONS = {
    "license": 155,
    "dws_calendar": 124,
    "dws_flex_start": 115,
    "reservation_placeholder": 78,
    "zero_price": 18,
}


def test_page_gpu_cell_that_contradicts_the_machine_series_is_excluded() -> None:
    # the first "Nvidia A100" cell is a2-ultragpu-1g's (on-demand, spot, 1 and 3 year CUDs)
    body = PAGE_CAPTURE.read_bytes().replace(b"<p>Nvidia A100</p>", b"<p>Nvidia L4</p>", 1)
    offers, excluded = gcp.PROVIDER.parse_report([_page_raw(body)])
    assert excluded == {
        "unknown_gpu Nvidia L4": 1,
        "page_dws": 22,  # its DWS Flex-start price is no longer counted
        "page_flex_cud": 30,
        "page_spot_cell_without_price": 1,
    }
    assert len(offers) == 100
    assert "a2-ultragpu-1g" not in {o.instance_type for o in offers}
    a3 = _one(offers, "a3-highgpu-8g", "us-central1", PricingModel.ON_DEMAND)
    assert a3.price == Decimal("88.490000119")


def test_page_machine_type_of_an_unknown_form_is_excluded() -> None:
    body = PAGE_CAPTURE.read_bytes().replace(b"<p>a2-ultragpu-1g</p>", b"<p>a2-ultra 1g</p>", 1)
    offers, excluded = gcp.PROVIDER.parse_report([_page_raw(body)])
    assert excluded["unknown_machine_type a2-ultra 1g"] == 1
    assert len(offers) == 100


def test_sku_capture_without_pricing_info_is_drift() -> None:
    body = SKU_CAPTURE.read_bytes().replace(b'"pricingInfo"', b'"pricing"')
    with pytest.raises(SchemaDriftError, match="pricingInfo"):
        gcp.PROVIDER.parse([_sku_raw(body)])


# The first SKU of the capture is 0008-F633-76AA "Nvidia L4 GPU attached to Spot Preemptible
# VMs running in Hong Kong" ($0.2350321): each mutation below drops exactly that offer.
@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        (b"attached to Spot Preemptible VMs", b"attached to Flex VMs", "unknown_vm_kind Flex"),
        (b"running in Hong Kong", b"running in Atlantis", "unknown_region Atlantis"),
        (b'"usageUnit": "h"', b'"usageUnit": "mo"', "unknown_unit mo"),
        (b"Nvidia L4 GPU attached", b"Nvidia L4 GPU Bundle attached", None),
    ],
)
def test_one_unknown_sku_is_excluded_and_the_rest_published(
    old: bytes, new: bytes, reason: str | None
) -> None:
    body = SKU_CAPTURE.read_bytes().replace(old, new, 1)
    offers, excluded = gcp.PROVIDER.parse_report([_sku_raw(body)])
    if reason is None:  # no longer "<GPU> GPU ... in <location>"
        reason = (
            "unknown_sku Nvidia L4 GPU Bundle attached to Spot Preemptible VMs running in Hong Kong"
        )
    assert excluded == {**_SKU_KNOWN_EXCLUSIONS, reason: 1}
    assert len(offers) == 1141
    keys = {(o.instance_type, o.region, o.pricing) for o in offers}
    assert ("Nvidia L4 GPU", "asia-east2", PricingModel.SPOT) not in keys
    assert _one(offers, "Nvidia L4 GPU", "asia-east2", PricingModel.ON_DEMAND).price > 0
    h100 = _one(offers, "Nvidia H100 80GB GPU", "us-east4", PricingModel.ON_DEMAND)
    assert h100.price == Decimal("9.796551")


def test_an_unknown_location_counts_once_per_gpu_not_per_pricing_model() -> None:
    body = SKU_CAPTURE.read_bytes().replace(b"running in Hong Kong", b"running in Atlantis")
    offers, excluded = gcp.PROVIDER.parse_report([_sku_raw(body)])
    # L4, T4, A100, A100 80GB and H100 80GB in Hong Kong: 20 priced SKUs, 5 rows
    assert excluded == {**_SKU_KNOWN_EXCLUSIONS, "unknown_region Atlantis": 5}
    assert len(offers) == 1122
    assert "asia-east2" not in {o.region for o in offers}


def test_reservation_with_a_price_is_excluded_as_unknown() -> None:
    skus = json.loads(SKU_CAPTURE.read_bytes())
    placeholder = next(s for s in skus if s["skuId"] == "2013-37B4-22EA")  # Reserved A100 Americas
    placeholder["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"]["units"] = "1"
    offers, excluded = gcp.PROVIDER.parse_report([_sku_raw(json.dumps(skus).encode())])
    assert excluded == {
        **_SKU_KNOWN_EXCLUSIONS,
        "reservation_placeholder": 77,
        "unknown_reservation Reserved Nvidia Tesla A100 GPU in Americas": 1,
    }
    assert len(offers) == 1142


def test_only_unknown_skus_is_drift_naming_them() -> None:
    skus = [_sku("Nvidia Z100 GPU running in Atlantis", "1", 0, ["us-central1"])]
    del skus[0]["serviceRegions"]
    with pytest.raises(SchemaDriftError, match=r"no known priced GPU SKU.*unknown_region Atlantis"):
        gcp.PROVIDER.parse_report([_sku_raw(json.dumps({"skus": skus}).encode())])


def test_unknown_json_layout_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="neither the GPU pricing page"):
        gcp.PROVIDER.parse([_sku_raw(b'{"services": []}')])


def test_renamed_page_column_is_drift() -> None:
    body = PAGE_CAPTURE.read_bytes().replace(b"Current Spot pricing", b"Spot price today")
    with pytest.raises(SchemaDriftError, match="unknown pricing column 'Spot price today"):
        gcp.PROVIDER.parse([_page_raw(body)])


def test_page_without_machine_type_tables_is_drift() -> None:
    body = PAGE_CAPTURE.read_bytes().replace(b"<p>Machine type</p>", b"<p>Instance</p>")
    with pytest.raises(SchemaDriftError, match="no machine-type prices"):
        gcp.PROVIDER.parse([_page_raw(body)])


@pytest.mark.parametrize("cell", [b"$-88.490000119 / 1 hour", b"-$88.490000119 / 1 hour"])
def test_negative_page_price_is_rejected_not_excluded(cell: bytes) -> None:
    body = PAGE_CAPTURE.read_bytes().replace(b"$88.490000119 / 1 hour", cell)
    with pytest.raises(SchemaDriftError, match=r"a3-highgpu-8g: on_demand price .* is negative"):
        gcp.PROVIDER.parse([_page_raw(body)])


def test_negative_sku_price_is_rejected_not_excluded() -> None:
    skus = [_sku("Nvidia L4 GPU running in Americas", "-1", 0, ["us-central1"])]
    with pytest.raises(SchemaDriftError, match="negative price"):
        gcp.PROVIDER.parse([_sku_raw(json.dumps({"skus": skus}).encode())])


def test_unreadable_price_cell_is_excluded_and_the_rows_other_prices_kept() -> None:
    body = PAGE_CAPTURE.read_bytes().replace(b"$88.490000119 / 1 hour", b"$88.49 per hour")
    offers, excluded = gcp.PROVIDER.parse_report([_page_raw(body)])
    assert excluded["unparsed_price"] == 1
    assert len(offers) == 103
    pricings = {o.pricing for o in offers if o.instance_type == "a3-highgpu-8g"}
    assert pricings == {PricingModel.SPOT, PricingModel.RESERVED}
    spot = _one(offers, "a3-highgpu-8g", "us-central1", PricingModel.SPOT)
    assert spot.price == Decimal("52.962296548")


# --- live request shape --------------------------------------------------------------------


def _sku(description: str, units: str, nanos: int, regions: list[str]) -> dict[str, Any]:
    """A SKU in the documented API shape (services.skus.list)."""
    rate = {
        "startUsageAmount": 0,
        "unitPrice": {"currencyCode": "USD", "units": units, "nanos": nanos},
    }
    return {
        "name": "services/6F81-5844-456A/skus/TEST",
        "skuId": "TEST",
        "description": description,
        "category": {"resourceFamily": "Compute", "resourceGroup": "GPU", "usageType": "OnDemand"},
        "serviceRegions": regions,
        "pricingInfo": [
            {"pricingExpression": {"usageUnit": "h", "displayQuantity": 1, "tieredRates": [rate]}}
        ],
    }


def test_fetch_without_key_gets_the_page_only() -> None:
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, content=PAGE_CAPTURE.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = gcp.fetch(client, None)
    assert [(r.method, str(r.url)) for r in requests] == [("GET", gcp.PRICING_PAGE_URL)]
    assert requests[0].headers["user-agent"] == http.USER_AGENT
    assert len(gcp.PROVIDER.parse(responses)) == 104


def test_fetch_with_key_follows_next_page_token() -> None:
    pages = {
        None: {
            "skus": [
                _sku(
                    "Nvidia L4 GPU running in Americas", "0", 560040200, ["us-central1", "us-east1"]
                ),
                _sku("N2 Instance Core running in Americas", "0", 31611000, ["us-central1"]),
            ],
            "nextPageToken": "page-2",
        },
        "page-2": {
            "skus": [
                _sku(
                    "Nvidia L4 GPU attached to Spot Preemptible VMs running in Americas",
                    "0",
                    223300000,
                    ["us-central1"],
                )
            ],
            "nextPageToken": "",
        },
    }
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if request.url.host == "cloud.google.com":
            return httpx.Response(200, content=PAGE_CAPTURE.read_bytes())
        return httpx.Response(200, json=pages[request.url.params.get("pageToken")])

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = gcp.fetch(client, API_KEY)

    assert len(requests) == len(responses) == 3
    assert all(r.method == "GET" for r in requests)
    first, second = requests[1].url, requests[2].url
    assert first.copy_with(query=None) == httpx.URL(gcp.SKUS_URL)
    # the key travels in the X-Goog-Api-Key header, never in the (archived) URL
    assert dict(first.params) == {"pageSize": "5000"}
    assert dict(second.params) == {"pageSize": "5000", "pageToken": "page-2"}
    assert requests[1].headers["x-goog-api-key"] == requests[2].headers["x-goog-api-key"] == API_KEY
    assert "x-goog-api-key" not in requests[0].headers  # not sent to the pricing page
    # the key never reaches the recorded responses
    assert all(API_KEY not in r.url for r in responses)
    assert responses[2].url == f"{gcp.SKUS_URL}?pageSize=5000&pageToken=page-2"

    offers, excluded = gcp.parse_with_exclusions(responses)
    sku_offers = [o for o in offers if o.price_per is PricePer.GPU]
    assert excluded["non_gpu"] == 1
    assert sorted((o.region, o.pricing.value, o.price) for o in sku_offers) == [
        ("us-central1", "on_demand", Decimal("0.5600402")),
        ("us-central1", "spot", Decimal("0.2233")),
        ("us-east1", "on_demand", Decimal("0.5600402")),
    ]


def test_fetch_stops_at_the_page_cap() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "cloud.google.com":
            return httpx.Response(200, content=b"<html></html>")
        return httpx.Response(200, json={"skus": [], "nextPageToken": "again"})

    with http.make_client(httpx.MockTransport(handler)) as client, pytest.raises(FetchError):
        gcp.fetch(client, API_KEY)


# --- live readiness: the page URL, an empty page beside a good SKU answer ------------------


def test_page_url_is_the_accelerator_optimized_pricing_page() -> None:
    assert gcp.PRICING_PAGE_URL == (
        "https://cloud.google.com/products/compute/pricing/accelerator-optimized"
    )


_L4_SKUS = {
    "skus": [_sku("Nvidia L4 GPU running in Americas", "0", 560040200, ["us-central1"])],
    "nextPageToken": "",
}
_EMPTY_PAGE = b"<!doctype html><html><body><h1>Pricing</h1><p>No tables.</p></body></html>"


def test_empty_page_with_a_good_sku_answer_publishes_the_skus(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "cloud.google.com":
            return httpx.Response(200, content=_EMPTY_PAGE)
        return httpx.Response(200, json=_L4_SKUS)

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = gcp.fetch(client, API_KEY)
    with caplog.at_level("WARNING", logger="scrapers.gcp"):
        offers, excluded = gcp.parse_with_exclusions(responses)
    assert [(o.region, o.price, o.price_per) for o in offers] == [
        ("us-central1", Decimal("0.5600402"), PricePer.GPU)
    ]
    assert excluded["page_without_prices"] == 1
    assert any("no machine-type prices" in r.getMessage() for r in caplog.records)


def test_empty_page_without_sku_answer_is_still_drift() -> None:
    with pytest.raises(SchemaDriftError, match="no machine-type prices"):
        gcp.PROVIDER.parse([_page_raw(_EMPTY_PAGE)])


def test_page_404_with_a_key_keeps_the_sku_prices_and_reports_the_page(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "cloud.google.com":
            return httpx.Response(404, text="Not Found")
        return httpx.Response(200, json=_L4_SKUS)

    with (
        caplog.at_level("WARNING", logger="scrapers.gcp"),
        http.make_client(httpx.MockTransport(handler)) as client,
    ):
        responses, skipped = gcp.PROVIDER.fetch_report(client, API_KEY)
    assert [r.url for r in responses] == [f"{gcp.SKUS_URL}?pageSize=5000"]
    assert skipped == {"pricing page": f"GET {gcp.PRICING_PAGE_URL}: HTTP 404"}
    assert len(gcp.PROVIDER.parse(responses)) == 1
    assert any("HTTP 404" in r.getMessage() for r in caplog.records)


def test_page_404_without_a_key_fails_the_provider() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404)

    with http.make_client(httpx.MockTransport(handler)) as client, pytest.raises(FetchError):
        gcp.fetch(client, None)


# --- partial fetches: a failed SKU page after the first, the page failing -------------------


def _sku_pages_handler(fail_page: int | None, status: int = 500, page_status: int = 200):
    """Three SKU pages (tokens "p2", "p3"), one L4 SKU each in its own region; SKU page
    ``fail_page`` answers ``status``; the pricing page answers ``page_status``."""
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if request.url.host == "cloud.google.com":
            if page_status != 200:
                return httpx.Response(page_status)
            return httpx.Response(200, content=PAGE_CAPTURE.read_bytes())
        token = request.url.params.get("pageToken")
        number = 1 if token is None else int(token[1:])
        if number == fail_page:
            return httpx.Response(status)
        sku = _sku("Nvidia L4 GPU running in Americas", "0", 560040200, [f"region-{number}"])
        return httpx.Response(
            200, json={"skus": [sku], "nextPageToken": f"p{number + 1}" if number < 3 else ""}
        )

    return handler, requests


def _fetch_report(handler, monkeypatch: pytest.MonkeyPatch, token: str | None = API_KEY):
    monkeypatch.setattr(http, "pause", lambda seconds: None)
    with http.make_client(httpx.MockTransport(handler)) as client:
        return gcp.PROVIDER.fetch_report(client, token)


@pytest.mark.parametrize(("page", "status"), [(2, 500), (3, 403)])
def test_a_failed_sku_page_after_the_first_is_skipped_and_reported(
    page: int, status: int, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    handler, _ = _sku_pages_handler(page, status)
    with caplog.at_level("WARNING", logger="scrapers.gcp"):
        responses, skipped = _fetch_report(handler, monkeypatch)
    assert list(skipped) == [f"SKU page {page}"]
    error = skipped[f"SKU page {page}"]
    assert f"HTTP {status}" in error and "the SKU pages after it were not fetched" in error
    assert API_KEY not in error and "\n" not in error
    assert len(responses) == 1 + page - 1  # the pricing page and the SKU pages before it
    offers = gcp.PROVIDER.parse(responses)
    assert sorted({o.region for o in offers if o.price_per is PricePer.GPU}) == [
        f"region-{n}" for n in range(1, page)
    ]
    assert len([o for o in offers if o.price_per is PricePer.INSTANCE]) == 104  # the page
    assert any(f"SKU page {page} failed" in r.getMessage() for r in caplog.records)


def test_a_failed_first_sku_page_fails_the_provider_even_with_the_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    handler, requests = _sku_pages_handler(1, 500)
    with pytest.raises(FetchError, match="HTTP 500"):
        _fetch_report(handler, monkeypatch)
    assert len(requests) == 1 + http.MAX_ATTEMPTS


def test_page_and_first_sku_page_failing_fails_the_provider(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    handler, _ = _sku_pages_handler(1, 500, page_status=503)
    with pytest.raises(
        FetchError, match=r"cloudbilling.*HTTP 500.*the pricing page failed too: .*HTTP 503"
    ):
        _fetch_report(handler, monkeypatch)


def test_page_500_beside_every_sku_page_is_reported_as_the_one_skipped_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    handler, _ = _sku_pages_handler(None, page_status=500)
    responses, skipped = _fetch_report(handler, monkeypatch)
    assert skipped == {"pricing page": f"GET {gcp.PRICING_PAGE_URL}: HTTP 500 after 4 attempts"}
    assert len(responses) == 3
    assert len(gcp.PROVIDER.parse(responses)) == 3


def test_all_parts_fetched_reports_nothing_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    handler, requests = _sku_pages_handler(None)
    responses, skipped = _fetch_report(handler, monkeypatch)
    assert skipped == {} and len(responses) == len(requests) == 4
    assert gcp.PROVIDER.fetch_with_skips is gcp.fetch_with_skips


def test_without_a_key_the_page_failing_is_still_a_fetch_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    handler, requests = _sku_pages_handler(None, page_status=500)
    with pytest.raises(FetchError, match="HTTP 500"):
        _fetch_report(handler, monkeypatch, token=None)
    assert all(r.url.host == "cloud.google.com" for r in requests)
