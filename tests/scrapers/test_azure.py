"""Azure Retail Prices scraper: the reduced items capture, mutated copies, and the live request."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest

from scrapers import azure, http
from scrapers.base import FetchError, PricePer, PriceUnit, PricingModel, SchemaDriftError
from scrapers.parsing import decimal
from tests.conftest import SNAPSHOTS, raw_from_capture

CAPTURE = SNAPSHOTS / "azure" / "c2026-10_retail_prices_api_gpu_items_sample.json"
PROCESSED = SNAPSHOTS / "azure" / "2025-06-21_retail_prices_18regions_gpu_processed.json"


def _raw(body: bytes | None = None, url: str = azure.PRICES_URL):
    raw = raw_from_capture(CAPTURE, url=url)
    return raw if body is None else replace(raw, body=body)


def _items() -> list[dict[str, Any]]:
    return json.loads(CAPTURE.read_bytes())


def _find(offers, sku: str, region: str, pricing: PricingModel):
    matches = [
        o for o in offers if (o.instance_type, o.region, o.pricing) == (sku, region, pricing)
    ]
    assert len(matches) == 1, (sku, region, pricing, matches)
    return matches[0]


def test_capture_offer_and_exclusion_counts() -> None:
    offers, excluded = azure.parse_with_exclusions([_raw()])
    # 83 items: 30 Windows, 10 Linux low-priority, 43 Linux (33 pay-as-you-go, 10 Spot).
    assert len(offers) == 43
    assert excluded == {"windows": 30, "low_priority": 10}
    assert sum(o.pricing is PricingModel.SPOT for o in offers) == 10
    assert sum(o.pricing is PricingModel.ON_DEMAND for o in offers) == 33


def test_nd_h100_v5_east_us_price_and_specs() -> None:
    offer = _find(
        azure.parse([_raw()]), "Standard_ND96isr_H100_v5", "eastus", PricingModel.ON_DEMAND
    )
    assert offer.price == Decimal("98.32")
    assert offer.currency == "USD"
    assert offer.price_unit is PriceUnit.HOUR
    assert offer.price_per is PricePer.INSTANCE
    assert offer.gpu_name == "NVIDIA H100 SXM 80GB"
    assert offer.gpu_count == 8
    assert offer.vram_gb_reported == 80
    assert offer.vcpus == 96
    assert offer.ram_gb == Decimal("2040.1")  # 1900 GiB
    assert offer.provider == "azure"
    assert offer.source_url == azure.PRICES_URL
    assert offer.observed_at == datetime(2026, 10, 1, tzinfo=UTC)
    assert not offer.serverless


def test_spot_and_other_series_read_off_the_capture() -> None:
    offers = azure.parse([_raw()])
    spot = _find(offers, "Standard_ND96isr_H100_v5", "spaincentral", PricingModel.SPOT)
    assert spot.price == Decimal("23.620397")
    nvl = _find(offers, "Standard_NC80adis_H100_v5", "eastus", PricingModel.ON_DEMAND)
    assert (nvl.price, nvl.gpu_name, nvl.gpu_count, nvl.vram_gb_reported) == (
        Decimal("13.96"),
        "NVIDIA H100 NVL",
        2,
        94,
    )
    mi300x = _find(offers, "Standard_ND96isr_MI300X_v5", "northeurope", PricingModel.ON_DEMAND)
    assert (mi300x.price, mi300x.gpu_name, mi300x.vram_gb_reported) == (
        Decimal("57.6"),
        "AMD Instinct MI300X",
        192,
    )
    a100_40 = _find(offers, "Standard_ND96asr_v4", "eastus", PricingModel.SPOT)
    assert (a100_40.price, a100_40.gpu_name) == (Decimal("5.904469"), "NVIDIA A100 SXM4 40GB")
    assert {o.gpu_name for o in offers} == {
        "NVIDIA A100 80GB PCIe",
        "NVIDIA A100 SXM4 40GB",
        "NVIDIA A100 SXM4 80GB",
        "NVIDIA H100 NVL",
        "NVIDIA H100 SXM 80GB",
        "NVIDIA H200",
        "AMD Instinct MI300X",
    }


def test_windows_and_low_priority_rows_give_no_offer() -> None:
    offers = azure.parse([_raw()])
    keys = {(o.instance_type, o.region) for o in offers}
    # Only a Windows row exists for NC80adis_H100_v5 in southcentralus, only a Linux
    # low-priority row for it in germanywestcentral.
    assert ("Standard_NC80adis_H100_v5", "southcentralus") not in keys
    assert ("Standard_NC80adis_H100_v5", "germanywestcentral") not in keys
    # eastus2 NC48ads_A100_v4 Linux costs 7.346 (its Windows row, 9.554, is dropped).
    offer = _find(offers, "Standard_NC48ads_A100_v4", "eastus2", PricingModel.ON_DEMAND)
    assert offer.price == Decimal("7.346")


def test_on_demand_prices_agree_with_the_processed_cross_check() -> None:
    """Where the 2025-06 processed file lists the same Linux SKU and region, the price recurs."""
    processed = json.loads(PROCESSED.read_bytes())
    compared = 0
    for offer in azure.parse([_raw()]):
        if offer.pricing is not PricingModel.ON_DEMAND:
            continue
        names = {
            offer.instance_type,
            offer.instance_type.removeprefix("Standard_").replace("_", ""),
        }
        prices = {
            decimal(row["pricePerHour"])
            for row in processed
            if row["region"] == offer.region
            and row["skuName"] in names
            and "Windows" not in row["productName"]
        }
        if prices:
            compared += 1
            assert offer.price in prices, offer
    assert compared >= 20


def test_envelope_layout_gives_the_same_offers() -> None:
    envelope = {
        "BillingCurrency": "USD",
        "CustomerEntityId": "Default",
        "CustomerEntityType": "Retail",
        "Items": _items(),
        "NextPageLink": None,
        "Count": 83,
    }
    enveloped = azure.parse([_raw(json.dumps(envelope).encode())])
    assert enveloped == azure.parse([_raw()])


def _item(**fields: Any) -> dict[str, Any]:
    """One retail price item in the documented shape."""
    item = {
        "currencyCode": "USD",
        "retailPrice": 0.454,
        "unitPrice": 0.454,
        "armRegionName": "eastus",
        "location": "US East",
        "meterName": "NV6ads A10 v5",
        "productName": "Virtual Machines NVadsA10v5 Series",
        "skuName": "NV6ads A10 v5",
        "serviceName": "Virtual Machines",
        "serviceFamily": "Compute",
        "unitOfMeasure": "1 Hour",
        "type": "Consumption",
        "isPrimaryMeterRegion": True,
        "armSkuName": "Standard_NV6ads_A10_v5",
    }
    item.update(fields)
    return item


def _envelope(items: list[dict[str, Any]], next_link: str | None = None) -> bytes:
    return json.dumps(
        {"BillingCurrency": "USD", "Items": items, "NextPageLink": next_link, "Count": len(items)}
    ).encode()


def test_fractional_a10_gpu_count() -> None:
    (offer,) = azure.parse([_raw(_envelope([_item()]))])
    assert offer.gpu_count == Decimal(1) / Decimal(6)
    assert offer.gpu_name == "NVIDIA A10"
    assert offer.vram_gb_reported == 24


def test_reservation_and_dev_test_rows_are_excluded_and_counted() -> None:
    items = [
        _item(),
        _item(type="Reservation", reservationTerm="1 Year", retailPrice=2390.0),
        _item(type="DevTestConsumption", retailPrice=0.3),
        _item(productName="NVadsA10v5 Series Dedicated Host", armSkuName="NVadsA10v5 Type1"),
    ]
    offers, excluded = azure.parse_with_exclusions([_raw(_envelope(items))])
    assert [o.price for o in offers] == [Decimal("0.454")]
    assert excluded == {"reservation": 1, "dev_test": 1, "dedicated_host": 1}


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (b'"retailPrice"', b'"retailPrize"', "lacks retailPrice"),
        (b'"armSkuName"', b'"skuNameArm"', "lacks armSkuName"),
        (b"Standard_ND96isr_H200_v5", b"Standard_ND96isr_X900_v9", "Standard_ND96isr_X900_v9"),
        (b'"type": "Consumption"', b'"type": "Mystery"', "unknown type"),
        (b'"1 Hour"', b'"1/Month"', "1/Month"),
        (b"[", b'{"Value": [', "neither the retail prices envelope"),
    ],
)
def test_mutated_capture_raises(old: bytes, new: bytes, message: str) -> None:
    body = CAPTURE.read_bytes()
    assert old in body
    mutated = body.replace(old, new, 1) + (b"}" if old == b"[" else b"")
    with pytest.raises(SchemaDriftError, match=message):
        azure.parse([_raw(mutated)])


def test_conflicting_duplicate_raises_but_identical_duplicate_is_kept_once() -> None:
    items = _items()
    linux = next(i for i in items if i["productName"] == "NCads A100 v4 Series Linux")
    assert len(azure.parse([_raw(json.dumps([*items, dict(linux)]).encode())])) == 43
    conflicting = dict(linux, retailPrice=linux["retailPrice"] + 1)
    with pytest.raises(SchemaDriftError, match="two different"):
        azure.parse([_raw(json.dumps([*items, conflicting]).encode())])


def test_only_excluded_rows_raise() -> None:
    windows = [i for i in _items() if "Windows" in i["productName"]]
    with pytest.raises(SchemaDriftError, match="no Linux GPU VM prices"):
        azure.parse([_raw(json.dumps(windows).encode())])


def test_not_json_raises() -> None:
    with pytest.raises(SchemaDriftError, match="not JSON"):
        azure.parse([_raw(b"<html>maintenance</html>")])


def _client(handler) -> httpx.Client:
    return http.make_client(httpx.MockTransport(handler))


def test_fetch_follows_next_page_link_until_null() -> None:
    next_link = (
        "https://prices.azure.com/api/retail/prices?api-version=2023-01-01-preview"
        "&$filter=serviceName%20eq%20%27Virtual%20Machines%27&$skip=1000"
    )
    pages = {
        None: _envelope([_item()], next_link),
        "1000": _envelope([_item(armRegionName="westeurope", retailPrice=0.5)]),
    }
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, content=pages[request.url.params.get("$skip")])

    with _client(handler) as client:
        responses = azure.fetch(client, None)

    assert len(requests) == 2
    first, second = requests
    assert first.method == second.method == "GET"
    assert f"{first.url.scheme}://{first.url.host}{first.url.path}" == azure.PRICES_URL
    assert first.url.params["api-version"] == "2023-01-01-preview"
    assert first.url.params["meterRegion"] == "'primary'"
    assert first.url.params["$filter"] == azure.GPU_FILTER
    assert "priceType eq 'Consumption'" in azure.GPU_FILTER
    assert "contains(armSkuName, 'Standard_ND')" in azure.GPU_FILTER
    assert str(second.url) == str(httpx.URL(next_link))
    assert "authorization" not in first.headers
    assert first.headers["user-agent"] == http.USER_AGENT
    offers = azure.parse(responses)
    assert sorted((o.region, o.price) for o in offers) == [
        ("eastus", Decimal("0.454")),
        ("westeurope", Decimal("0.5")),
    ]


def test_fetch_stops_at_the_page_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(azure, "MAX_PAGES", 3)
    calls: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(200, content=_envelope([_item()], f"{azure.PRICES_URL}?$skip=1"))

    with _client(handler) as client, pytest.raises(FetchError, match="after 3 pages"):
        azure.fetch(client, None)
    assert len(calls) == 3


def test_fetch_of_the_bare_capture_is_one_page() -> None:
    """In replay every request gets the bare items capture, which has no NextPageLink."""
    body = CAPTURE.read_bytes()
    with _client(lambda request: httpx.Response(200, content=body)) as client:
        responses = azure.fetch(client, None)
    assert len(responses) == 1
    assert len(azure.parse(responses)) == 43
