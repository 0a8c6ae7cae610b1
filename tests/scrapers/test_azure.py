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
        azure.PROVIDER.parse([_raw()]), "Standard_ND96isr_H100_v5", "eastus", PricingModel.ON_DEMAND
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
    offers = azure.PROVIDER.parse([_raw()])
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
    offers = azure.PROVIDER.parse([_raw()])
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
    for offer in azure.PROVIDER.parse([_raw()]):
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
    enveloped = azure.PROVIDER.parse([_raw(json.dumps(envelope).encode())])
    assert enveloped == azure.PROVIDER.parse([_raw()])


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


_ABSENT = object()


def _envelope(items: list[dict[str, Any]], next_link: Any = None) -> bytes:
    body = {"BillingCurrency": "USD", "Items": items, "NextPageLink": next_link}
    if next_link is _ABSENT:
        del body["NextPageLink"]
    return json.dumps({**body, "Count": len(items)}).encode()


def _processed_rows() -> list[dict[str, Any]]:
    return json.loads(PROCESSED.read_bytes())


def _processed_linux_prices(sku_name: str, region: str) -> set[Decimal]:
    """Linux pay-as-you-go-or-spot prices another tool recorded for one SKU and region."""
    return {
        decimal(row["pricePerHour"])
        for row in _processed_rows()
        if row["skuName"] == sku_name
        and row["region"] == region
        and "Win" not in row["productName"]
        and "Dedicated Host" not in row["productName"]
    }


def test_fractional_a10_gpu_count() -> None:
    (offer,) = azure.PROVIDER.parse([_raw(_envelope([_item()]))])
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
        (b"[", b'{"Value": [', "neither the retail prices envelope"),
    ],
)
def test_mutated_capture_structure_raises(old: bytes, new: bytes, message: str) -> None:
    body = CAPTURE.read_bytes()
    assert old in body
    mutated = body.replace(old, new, 1) + (b"}" if old == b"[" else b"")
    with pytest.raises(SchemaDriftError, match=message):
        azure.PROVIDER.parse([_raw(mutated)])


def test_unknown_sku_is_excluded_and_the_other_skus_published() -> None:
    body = CAPTURE.read_bytes().replace(b"Standard_ND96isr_H200_v5", b"Standard_ND96isr_X900_v9")
    offers, excluded = azure.PROVIDER.parse_report([_raw(body)])
    # the H200's Linux pay-as-you-go/spot items: usgovvirginia, japaneast, uksouth (spot)
    assert excluded == {
        "windows": 30,
        "low_priority": 10,
        "unknown_sku Standard_ND96isr_X900_v9": 3,
    }
    assert len(offers) == 40
    assert "NVIDIA H200" not in {o.gpu_name for o in offers}
    h100 = _find(offers, "Standard_ND96isr_H100_v5", "eastus", PricingModel.ON_DEMAND)
    assert h100.price == Decimal("98.32")


def _with_changed_h100_eastus(**fields: Any) -> bytes:
    """The capture with the ND96isr H100 v5 eastus pay-as-you-go item ($98.32) changed."""
    items = _items()
    (item,) = [
        i
        for i in items
        if (i["armSkuName"], i["armRegionName"], i["meterName"])
        == ("Standard_ND96isr_H100_v5", "eastus", "ND96isrH100v5")
    ]
    item.update(fields)
    return json.dumps(items).encode()


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"type": "Mystery"}, "unknown_type Mystery"),
        ({"unitOfMeasure": "1/Month"}, "unknown_unit 1/Month"),
        ({"serviceName": "Cloud Services"}, "unknown_service Cloud Services"),
        ({"retailPrice": "98.32"}, "unparsed_price"),
    ],
)
def test_one_unreadable_item_is_excluded_and_the_rest_published(
    fields: dict[str, Any], reason: str
) -> None:
    offers, excluded = azure.PROVIDER.parse_report([_raw(_with_changed_h100_eastus(**fields))])
    assert excluded == {"windows": 30, "low_priority": 10, reason: 1}
    assert len(offers) == 42
    keys = {(o.instance_type, o.region, o.pricing) for o in offers}
    assert ("Standard_ND96isr_H100_v5", "eastus", PricingModel.ON_DEMAND) not in keys
    spot = _find(offers, "Standard_ND96isr_H100_v5", "spaincentral", PricingModel.SPOT)
    assert spot.price == Decimal("23.620397")


@pytest.mark.parametrize("price", [0, -98.32])
def test_zero_or_negative_price_is_rejected_not_excluded(price: float) -> None:
    with pytest.raises(SchemaDriftError, match="Standard_ND96isr_H100_v5 in eastus: price"):
        azure.PROVIDER.parse([_raw(_with_changed_h100_eastus(retailPrice=price))])


def test_spot_and_on_demand_items_of_an_unknown_sku_are_one_unknown_row() -> None:
    items = [
        _item(armSkuName="Standard_NZ8_Z100_v1"),
        _item(armSkuName="Standard_NZ8_Z100_v1", meterName="NZ8 Z100 v1 Spot", retailPrice=0.2),
        _item(armSkuName="Standard_NZ8_Z100_v1", armRegionName="westeurope"),
        _item(),
    ]
    offers, excluded = azure.parse_with_exclusions([_raw(_envelope(items))])
    assert excluded == {"unknown_sku Standard_NZ8_Z100_v1": 2}  # eastus and westeurope
    assert [(o.instance_type, o.price) for o in offers] == [
        ("Standard_NV6ads_A10_v5", Decimal("0.454"))
    ]


def test_only_unknown_skus_is_drift_naming_them() -> None:
    items = [_item(armSkuName="Standard_NZ8_Z100_v1")]
    with pytest.raises(SchemaDriftError, match=r"no known Linux GPU VM.*Standard_NZ8_Z100_v1"):
        azure.PROVIDER.parse_report([_raw(_envelope(items))])


def test_conflicting_duplicate_raises_but_identical_duplicate_is_kept_once() -> None:
    items = _items()
    linux = next(i for i in items if i["productName"] == "NCads A100 v4 Series Linux")
    assert len(azure.PROVIDER.parse([_raw(json.dumps([*items, dict(linux)]).encode())])) == 43
    conflicting = dict(linux, retailPrice=linux["retailPrice"] + 1)
    with pytest.raises(SchemaDriftError, match="two different"):
        azure.PROVIDER.parse([_raw(json.dumps([*items, conflicting]).encode())])


def test_only_excluded_rows_raise() -> None:
    windows = [i for i in _items() if "Windows" in i["productName"]]
    with pytest.raises(SchemaDriftError, match="no known Linux GPU VM prices"):
        azure.PROVIDER.parse([_raw(json.dumps(windows).encode())])


def test_not_json_raises() -> None:
    with pytest.raises(SchemaDriftError, match="not JSON"):
        azure.PROVIDER.parse([_raw(b"<html>maintenance</html>")])


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
    offers = azure.PROVIDER.parse(responses)
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

    with _client(handler) as client, pytest.raises(FetchError, match="page cap MAX_PAGES=3 hit"):
        azure.fetch(client, None)
    assert len(calls) == 3


def test_fetch_of_the_bare_capture_is_one_page() -> None:
    """In replay every request gets the bare items capture, which has no NextPageLink."""
    body = CAPTURE.read_bytes()
    with _client(lambda request: httpx.Response(200, content=body)) as client:
        responses = azure.fetch(client, None)
    assert len(responses) == 1
    assert len(azure.PROVIDER.parse(responses)) == 43


@pytest.mark.parametrize(
    ("sku_name", "arm_sku", "region", "price", "specs"),
    [
        # (gpu_name, gpu_count, vram_gb_reported, vcpus, ram_gb)
        (
            "ND128isrNDRGB200v6",
            "Standard_ND128isr_NDR_GB200_v6",
            "eastus",
            "108.16",
            ("NVIDIA GB200", 4, 192, 128, Decimal("966.4")),  # 900 GiB
        ),
        (
            "ND96isH100v5",
            "Standard_ND96is_H100_v5",
            "eastus",
            "88.488",
            ("NVIDIA H100 SXM 80GB", 8, 80, 96, None),
        ),
        (
            "ND96isrfH100v5",
            "Standard_ND96isrf_H100_v5",
            "swedencentral",
            "127.816",
            ("NVIDIA H100 SXM 80GB", 8, 80, 96, None),
        ),
        (
            "ND96amsA100v4",
            "Standard_ND96ams_A100_v4",
            "eastus",
            "32.77",
            ("NVIDIA A100 SXM4 80GB", 8, 80, 96, None),
        ),
        (
            "ND96asr_A100_v4",
            "Standard_ND96asr_A100_v4",
            "westeurope",
            "35.357",
            ("NVIDIA A100 SXM4 40GB", 8, 40, 96, None),
        ),
    ],
)
def test_new_nd_sizes_priced_as_the_processed_capture_records_them(
    sku_name: str, arm_sku: str, region: str, price: str, specs: tuple[Any, ...]
) -> None:
    """The 2025-06 processed table is not a response (it has no armSkuName, meterName or type),
    so each price read off it is put into one documented-shape item for its ARM size name."""
    assert Decimal(price) in _processed_linux_prices(sku_name, region)
    item = _item(
        armSkuName=arm_sku,
        armRegionName=region,
        retailPrice=float(price),
        meterName=sku_name,
        skuName=sku_name,
        productName="Virtual Machines ND Series",
    )
    (offer,) = azure.PROVIDER.parse([_raw(_envelope([item]))])
    assert offer.price == Decimal(price)
    assert offer.pricing is PricingModel.ON_DEMAND
    assert (offer.gpu_name, offer.gpu_count, offer.vram_gb_reported, offer.vcpus, offer.ram_gb) == (
        specs
    )


@pytest.mark.parametrize(
    ("sku", "gpu_name", "share", "vcpus", "ram_gib"),
    [
        ("Standard_NC8ads_A10_v4", "NVIDIA A10", Decimal(1) / 2, 8, 100),
        ("Standard_NC16ads_A10_v4", "NVIDIA A10", Decimal(1), 16, 200),
        ("Standard_NC32ads_A10_v4", "NVIDIA A10", Decimal(2), 32, 400),
        ("Standard_NV4ads_V710_v5", "AMD Radeon PRO V710", Decimal(1) / 6, 4, 16),
        ("Standard_NV8ads_V710_v5", "AMD Radeon PRO V710", Decimal(1) / 3, 8, 32),
        ("Standard_NV12ads_V710_v5", "AMD Radeon PRO V710", Decimal(1) / 2, 12, 64),
        ("Standard_NV28adms_V710_v5", "AMD Radeon PRO V710", Decimal(1), 28, 160),
    ],
)
def test_partitioned_gpu_sizes_count_the_share_of_one_gpu(
    sku: str, gpu_name: str, share: Decimal, vcpus: int, ram_gib: int
) -> None:
    # Neither capture lists these series: documented-shape items, price as a placeholder.
    (offer,) = azure.PROVIDER.parse([_raw(_envelope([_item(armSkuName=sku)]))])
    assert (offer.gpu_name, offer.gpu_count, offer.vcpus) == (gpu_name, share, vcpus)
    assert offer.vram_gb_reported == 24  # of one whole GPU; the share gets its part
    assert offer.ram_gb == azure.gb_from_gib(ram_gib)


def _normalised(name: str) -> str:
    return name.removeprefix("Standard_").replace("_", "").replace(" ", "").lower()


def test_processed_capture_gpu_skus_are_all_known_but_the_pinned_ones() -> None:
    """Lists the SKUs of the 2025-06 capture the size table does not know; new ones fail here."""
    known = {_normalised(sku) for sku in azure._SIZES}
    unknown = {
        row["skuName"]
        for row in _processed_rows()
        if _normalised(row["skuName"]) not in known and "Dedicated Host" not in row["productName"]
    }
    # Abbreviated skuNames whose ARM size names no public source spells out: ND96isf (NDsrf
    # product), ND96isfl (NDsfH100v5: probably ND96is_flex), ND96isnIB (NDsH100v5: probably
    # ND96is_noIB), and a "_NU" listing of ND96asr A100 v4. A live row for them still raises.
    assert unknown == {"ND96isfH100v5", "ND96isflH100v5", "ND96isnIBH100v5", "ND96asrA100v4_NU"}


def test_processed_table_rows_never_become_hourly_offers() -> None:
    """Another tool's table has no ``type`` to tell a reservation total from an hourly price
    (nor armSkuName or meterName), so parsing it raises instead of guessing."""
    with pytest.raises(SchemaDriftError, match="lacks armSkuName"):
        azure.PROVIDER.parse([raw_from_capture(PROCESSED, url=azure.PRICES_URL)])
    # PROVENANCE warns of totals like 551221.0; this copy holds none (largest: ND96isr H200).
    assert max(decimal(r["pricePerHour"]) for r in _processed_rows()) == Decimal("174.016")


def test_reservation_total_with_hourly_unit_is_not_an_hourly_offer() -> None:
    items = [
        _item(armSkuName="Standard_ND96amsr_A100_v4", retailPrice=32.77),
        _item(
            armSkuName="Standard_ND96amsr_A100_v4",
            type="Reservation",
            reservationTerm="3 Years",
            retailPrice=551221.0,
        ),
    ]
    offers, excluded = azure.parse_with_exclusions([_raw(_envelope(items))])
    assert [o.price for o in offers] == [Decimal("32.77")]
    assert excluded == {"reservation": 1}


@pytest.mark.parametrize(
    "last_link", [None, "", "  ", _ABSENT], ids=["null", "empty", "blank", "missing"]
)
def test_fetch_two_pages_ends_on_an_absent_next_page_link(last_link: Any) -> None:
    second_url = f"{azure.PRICES_URL}?api-version=2023-01-01-preview&$skip=1000"
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if request.url.params.get("$skip") == "1000":
            page = _envelope([_item(armRegionName="westeurope", retailPrice=0.5)], last_link)
        else:
            page = _envelope([_item()], second_url)
        return httpx.Response(200, content=page)

    with _client(handler) as client:
        responses = azure.fetch(client, None)
    assert len(requests) == len(responses) == 2
    assert str(requests[1].url) == str(httpx.URL(second_url))
    assert sorted(o.region for o in azure.PROVIDER.parse(responses)) == ["eastus", "westeurope"]


@pytest.mark.parametrize(
    ("second_page", "message"),
    [
        (b'{"BillingCurrency": "USD", "NextPageLink": null, "Count": 0}', "envelope with Items"),
        (b'{"BillingCurrency": "USD", "Items": null, "NextPageLink": null}', "envelope with Items"),
        (_envelope([_item()], 42), "NextPageLink is not a URL"),
        (_envelope([_item()], "https://example.com/prices?$skip=2000"), "leaves the prices API"),
        (_envelope([_item()], "/api/retail/prices?$skip=2000"), "leaves the prices API"),
    ],
    ids=["no-items", "items-null", "link-not-text", "other-host", "relative-link"],
)
def test_fetch_drifted_page_raises(second_page: bytes, message: str) -> None:
    second_url = f"{azure.PRICES_URL}?$skip=1000"

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("$skip") == "1000":
            return httpx.Response(200, content=second_page)
        return httpx.Response(200, content=_envelope([_item()], second_url))

    with _client(handler) as client, pytest.raises(SchemaDriftError, match=message):
        azure.fetch(client, None)


# --- paging: a full page without a link, a failed later page ---------------------------------


def _full_page(next_link: Any = None) -> bytes:
    """1000 items (the API's page size), one region each, as a page that is not the last."""
    return _envelope([_item(armRegionName=f"region{n}") for n in range(1000)], next_link)


@pytest.mark.parametrize("link", [None, "", _ABSENT], ids=["null", "empty", "missing"])
def test_a_full_page_without_a_next_page_link_is_followed_by_skip(link: Any) -> None:
    """The API has sent empty NextPageLinks on pages that were not the last: a full page is
    followed with $skip instead of ending the scrape silently after it."""
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if request.url.params.get("$skip") == "1000":
            return httpx.Response(200, content=_envelope([_item(retailPrice=0.5)], link))
        return httpx.Response(200, content=_full_page(link))

    with _client(handler) as client:
        responses, skipped = azure.PROVIDER.fetch_report(client, None)
    assert len(requests) == len(responses) == 2 and skipped == {}
    second = requests[1].url.params
    assert second["$skip"] == "1000"
    assert second["$filter"] == azure.GPU_FILTER
    assert second["api-version"] == azure.API_VERSION
    assert second["meterRegion"] == "'primary'"
    offers = azure.PROVIDER.parse(responses)
    assert len(offers) == 1001
    assert _find(offers, "Standard_NV6ads_A10_v5", "eastus", PricingModel.ON_DEMAND).price == (
        Decimal("0.5")
    )


def test_a_full_last_page_costs_one_empty_page() -> None:
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if request.url.params.get("$skip") == "1000":
            return httpx.Response(200, content=_envelope([]))
        return httpx.Response(200, content=_full_page())

    with _client(handler) as client:
        responses = azure.fetch(client, None)
    assert len(requests) == len(responses) == 2
    assert len(azure.PROVIDER.parse(responses)) == 1000


def _pages_failing_at(page: int, status: int):
    """Pages linked by NextPageLink ($skip=1, 2, ...); the ``page``-th (1-based) answers
    ``status``, the others one item in region "page<n>"."""
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        number = int(request.url.params.get("$skip", "0")) + 1
        if number == page:
            return httpx.Response(status)
        link = f"{azure.PRICES_URL}?$skip={number}" if number < 5 else None
        return httpx.Response(200, content=_envelope([_item(armRegionName=f"page{number}")], link))

    return handler, requests


@pytest.mark.parametrize(("page", "status"), [(2, 500), (3, 404)])
def test_a_failed_later_page_is_skipped_and_the_pages_before_it_published(
    page: int, status: int, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(http, "pause", lambda seconds: None)
    handler, requests = _pages_failing_at(page, status)
    with caplog.at_level("WARNING", logger="scrapers.azure"), _client(handler) as client:
        responses, skipped = azure.PROVIDER.fetch_report(client, None)
    assert list(skipped) == [f"page {page}"]
    assert f"HTTP {status}" in skipped[f"page {page}"]
    assert "the pages after it were not fetched" in skipped[f"page {page}"]
    assert "\n" not in skipped[f"page {page}"]
    assert len(responses) == page - 1
    assert len(requests) == page - 1 + (http.MAX_ATTEMPTS if status == 500 else 1)
    assert sorted(o.region for o in azure.PROVIDER.parse(responses)) == [
        f"page{n}" for n in range(1, page)
    ]
    assert any(f"page {page} failed" in r.getMessage() for r in caplog.records)


def test_a_failed_first_page_fails_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "pause", lambda seconds: None)
    handler, requests = _pages_failing_at(1, 503)
    with _client(handler) as client, pytest.raises(FetchError, match="HTTP 503"):
        azure.PROVIDER.fetch_report(client, None)
    assert len(requests) == http.MAX_ATTEMPTS


def test_all_pages_fetched_reports_no_skipped_part() -> None:
    handler, requests = _pages_failing_at(99, 500)
    with _client(handler) as client:
        responses, skipped = azure.fetch_with_skips(client, None)
    assert skipped == {} and len(responses) == len(requests) == 5


def _processed_nccads_items() -> list[dict[str, Any]]:
    """The 2025-06 processed capture's NCC40adsH100v5 rows as documented-shape items (the table
    has no armSkuName, meterName or type: each row keeps its region, product name and price)."""
    return [
        _item(
            armSkuName="Standard_NCC40ads_H100_v5",
            armRegionName=row["region"],
            retailPrice=row["pricePerHour"],
            meterName="NCC40ads H100 v5",
            skuName="NCC40ads H100 v5",
            productName=row["productName"],
        )
        for row in _processed_rows()
        if row["skuName"] == "NCC40adsH100v5"
    ]


def test_azure_win_abbreviated_product_name_is_a_windows_price_not_a_second_on_demand() -> None:
    """Azure files the Windows prices of NCCads H100 v5 as "Virtual Machines NCCadsv5 Srs Win"
    (no "Windows" in the name). Taken for Linux they gave the SKU two on-demand prices in one
    region (centralus $9.73 and $7.89 beside the Linux $7.89), and the scrape failed whole."""
    items = _processed_nccads_items()
    assert sorted(i["productName"] for i in items) == [
        *["Virtual Machines NCCadsv5 Srs"] * 2,
        *["Virtual Machines NCCadsv5 Srs Win"] * 4,
    ]
    offers, excluded = azure.parse_with_exclusions([_raw(_envelope(items))])
    assert excluded == {"windows": 4}
    prices = {(o.region, o.pricing, o.price) for o in offers}
    assert prices == {
        ("centralus", PricingModel.ON_DEMAND, Decimal("7.89")),
        ("westeurope", PricingModel.ON_DEMAND, Decimal("8.9")),
    }
    assert {o.gpu_name for o in offers} == {"NVIDIA H100 NVL"}


@pytest.mark.parametrize(
    "product",
    ["Virtual Machines NCCadsv5 Srs Win", "NCadsH100v5 Series Windows", "NC Series WIN"],
)
def test_windows_product_names_spelled_out_or_abbreviated_are_excluded(product: str) -> None:
    windows = _item(productName=product, retailPrice=0.9, armRegionName="westus")
    offers, excluded = azure.PROVIDER.parse_report([_raw(_envelope([_item(), windows]))])
    assert excluded == {"windows": 1}
    assert [(o.region, o.price) for o in offers] == [("eastus", Decimal("0.454"))]


def test_a_word_starting_with_win_is_not_windows() -> None:
    assert not azure.WINDOWS_PRODUCT.search("Virtual Machines Winterfell Series")
    assert azure.WINDOWS_PRODUCT.search("Virtual Machines NCCadsv5 Srs Win")
