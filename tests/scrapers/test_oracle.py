"""OCI scraper: the 2026-10 price list capture (GPU items), mutated copies, the live request."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest

from scrapers import http, oracle
from scrapers.base import PricePer, PriceUnit, PricingModel, SchemaDriftError
from tests.conftest import SNAPSHOTS, raw_from_capture

CAPTURE = SNAPSHOTS / "oracle" / "2026-10-01_oci_products_api_gpu_items.json"


def _raw(body: bytes | None = None):
    raw = raw_from_capture(CAPTURE, url=oracle.SOURCE_URL)
    return raw if body is None else replace(raw, body=body)


def _capture() -> dict[str, Any]:
    return json.loads(CAPTURE.read_bytes())


def _by_shape(offers):
    shapes = {o.instance_type: o for o in offers}
    assert len(shapes) == len(offers)
    return shapes


def test_capture_counts() -> None:
    offers, excluded = oracle.parse_with_exclusions([_raw()])
    assert len(offers) == 21
    assert excluded == {"not_gpu_hour": 5, "cloud_at_customer": 3, "no_documented_shape": 2}
    assert all(o.region == "global" and o.pricing is PricingModel.ON_DEMAND for o in offers)
    assert all(o.price_per is PricePer.GPU and o.price_unit is PriceUnit.HOUR for o in offers)
    assert all(o.currency == "USD" and o.source_url == oracle.SOURCE_URL for o in offers)
    assert {o.gpu_name for o in offers} == {
        "NVIDIA Tesla P100",
        "NVIDIA Tesla V100",
        "NVIDIA A100 SXM4 40GB",
        "NVIDIA A100 SXM4 80GB",
        "NVIDIA A10",
        "NVIDIA H100 SXM",
        "NVIDIA H200",
        "NVIDIA B200",
        "NVIDIA B300",
        "NVIDIA GB200",
        "NVIDIA GB300",
        "NVIDIA L40S",
        "NVIDIA RTX PRO 6000",
        "AMD MI300X",
        "AMD MI355X",
    }


def test_h100_per_gpu_price() -> None:
    # B98415 "Oracle Cloud Infrastructure - Compute - GPU - H100", GPU Per Hour, $10
    h100 = _by_shape(oracle.parse([_raw()]))["BM.GPU.H100.8"]
    assert h100.price == Decimal(10)
    assert (h100.gpu_name, h100.gpu_count, h100.vram_gb_reported) == ("NVIDIA H100 SXM", 8, 80)
    assert h100.observed_at == datetime(2026, 10, 1, tzinfo=UTC)


def test_other_parts_read_off_the_capture() -> None:
    shapes = _by_shape(oracle.parse([_raw()]))
    assert shapes["BM.GPU.H200.8"].price == Decimal(10)
    assert shapes["BM.GPU.B200.8"].price == Decimal(14)
    assert (shapes["BM.GPU.L40S.4"].price, shapes["BM.GPU.L40S.4"].gpu_count) == (Decimal("3.5"), 4)
    assert shapes["BM.GPU.MI300X.8"].price == Decimal(6)
    assert shapes["BM.GPU.MI355X.8"].price == Decimal("8.6")
    assert shapes["BM.GPU.A100-v2.8"].price == Decimal(4)
    assert shapes["BM.GPU4.8"].price == Decimal("3.05")
    assert shapes["BM.GPU.GB300.4"].price == Decimal(18)
    assert shapes["BM.GPU2.2"].price == Decimal("1.275")
    # one A10 part prices three shapes
    assert {s: (o.gpu_count, o.price) for s, o in shapes.items() if "A10." in s} == {
        "VM.GPU.A10.1": (1, Decimal(2)),
        "VM.GPU.A10.2": (2, Decimal(2)),
        "BM.GPU.A10.4": (4, Decimal(2)),
    }
    assert shapes["BM.GPU.B300.8"].vram_gb_reported is None


def test_unknown_gpu_part_is_drift() -> None:
    body = CAPTURE.read_bytes().replace(b'"B98415"', b'"B99999"')
    with pytest.raises(SchemaDriftError, match="B99999"):
        oracle.parse([_raw(body)])


def test_missing_items_is_drift() -> None:
    body = CAPTURE.read_bytes().replace(b'"items"', b'"products"')
    with pytest.raises(SchemaDriftError, match="items"):
        oracle.parse([_raw(body)])


def test_missing_pay_as_you_go_price_is_drift() -> None:
    body = CAPTURE.read_bytes().replace(b'"PAY_AS_YOU_GO"', b'"MONTHLY_FLEX"')
    with pytest.raises(SchemaDriftError, match="PAY_AS_YOU_GO"):
        oracle.parse([_raw(body)])


def test_no_gpu_hour_items_is_drift() -> None:
    body = CAPTURE.read_bytes().replace(b'"GPU Per Hour"', b'"OCPU Per Hour"')
    with pytest.raises(SchemaDriftError, match="no GPU-hour part"):
        oracle.parse([_raw(body)])


def test_fetch_request_shape() -> None:
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, content=CAPTURE.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = oracle.fetch(client, None)
    assert len(requests) == len(responses) == 1
    request = requests[0]
    assert request.method == "GET"
    assert str(request.url) == oracle.SOURCE_URL
    assert request.url.copy_with(query=None) == httpx.URL(oracle.PRODUCTS_URL)
    assert dict(request.url.params) == {"currencyCode": "USD"}
    assert "authorization" not in request.headers
    assert request.headers["user-agent"] == http.USER_AGENT
    assert len(oracle.parse(responses)) == 21


def test_fetch_follows_ords_next_links() -> None:
    items = _capture()["items"]
    h100 = next(i for i in items if i["partNumber"] == "B98415")
    a10 = next(i for i in items if i["partNumber"] == "B95909")
    next_url = f"{oracle.PRODUCTS_URL}?currencyCode=USD&offset=1"
    pages = {
        oracle.SOURCE_URL: {
            "items": [h100],
            "hasMore": True,
            "links": [
                {"rel": "self", "href": oracle.SOURCE_URL},
                {"rel": "next", "href": next_url},
            ],
        },
        next_url: {"items": [a10], "hasMore": False, "links": []},
    }
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, json=pages[str(request.url)])

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = oracle.fetch(client, None)
    assert [str(r.url) for r in requests] == [oracle.SOURCE_URL, next_url]
    assert sorted(o.instance_type for o in oracle.parse(responses)) == [
        "BM.GPU.A10.4",
        "BM.GPU.H100.8",
        "VM.GPU.A10.1",
        "VM.GPU.A10.2",
    ]


def test_has_more_without_next_link_is_drift() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"items": [], "hasMore": True, "links": []})

    with (
        http.make_client(httpx.MockTransport(handler)) as client,
        pytest.raises(SchemaDriftError, match="no next link"),
    ):
        oracle.fetch(client, None)
