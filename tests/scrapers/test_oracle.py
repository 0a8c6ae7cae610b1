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
from scrapers.base import FetchError, PricePer, PriceUnit, PricingModel, SchemaDriftError
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
    h100 = _by_shape(oracle.PROVIDER.parse([_raw()]))["BM.GPU.H100.8"]
    assert h100.price == Decimal(10)
    assert (h100.gpu_name, h100.gpu_count, h100.vram_gb_reported) == ("NVIDIA H100 SXM", 8, 80)
    assert h100.observed_at == datetime(2026, 10, 1, tzinfo=UTC)


def test_other_parts_read_off_the_capture() -> None:
    shapes = _by_shape(oracle.PROVIDER.parse([_raw()]))
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


_KNOWN_EXCLUSIONS = {"not_gpu_hour": 5, "cloud_at_customer": 3, "no_documented_shape": 2}


def test_unknown_gpu_part_is_excluded_and_the_other_parts_published() -> None:
    body = CAPTURE.read_bytes().replace(b'"B98415"', b'"B99999"')
    offers, excluded = oracle.PROVIDER.parse_report([_raw(body)])
    assert excluded == {
        **_KNOWN_EXCLUSIONS,
        "unknown_part B99999 Oracle Cloud Infrastructure - Compute - GPU - H100": 1,
    }
    shapes = _by_shape(offers)
    assert len(shapes) == 20 and "BM.GPU.H100.8" not in shapes
    assert shapes["BM.GPU.H200.8"].price == Decimal(10)
    assert shapes["BM.GPU.B200.8"].price == Decimal(14)


def _with_h100(**fields: Any) -> bytes:
    """The capture with the H100 part's item (B98415, $10) changed."""
    data = _capture()
    (h100,) = [i for i in data["items"] if i["partNumber"] == "B98415"]
    h100.update(fields)
    return json.dumps(data).encode()


def _usd(*prices: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"currencyCode": "USD", "prices": list(prices)}]


@pytest.mark.parametrize(
    ("localizations", "reason"),
    [
        ([], "no_usd_price"),
        (_usd({"model": "MONTHLY_FLEX", "value": 9}), "no_pay_as_you_go_price"),
        (_usd({"model": "PAY_AS_YOU_GO", "value": "ten"}), "unparsed_price"),
    ],
    ids=["no-usd", "no-payg", "not-a-number"],
)
def test_unreadable_price_of_one_part_is_excluded(
    localizations: list[dict[str, Any]], reason: str
) -> None:
    body = _with_h100(currencyCodeLocalizations=localizations)
    offers, excluded = oracle.PROVIDER.parse_report([_raw(body)])
    assert excluded == {**_KNOWN_EXCLUSIONS, reason: 1}
    shapes = _by_shape(offers)
    assert len(shapes) == 20 and "BM.GPU.H100.8" not in shapes
    assert shapes["BM.GPU.MI300X.8"].price == Decimal(6)


def test_missing_items_is_drift() -> None:
    body = CAPTURE.read_bytes().replace(b'"items"', b'"products"')
    with pytest.raises(SchemaDriftError, match="items"):
        oracle.PROVIDER.parse([_raw(body)])


@pytest.mark.parametrize("value", [0, -10])
def test_zero_or_negative_price_is_rejected_not_excluded(value: int) -> None:
    localizations = _usd({"model": "PAY_AS_YOU_GO", "value": value})
    with pytest.raises(SchemaDriftError, match=r"B98415: price .* is not positive"):
        oracle.PROVIDER.parse([_raw(_with_h100(currencyCodeLocalizations=localizations))])


def test_no_pay_as_you_go_price_anywhere_is_drift_and_says_so() -> None:
    body = CAPTURE.read_bytes().replace(b'"PAY_AS_YOU_GO"', b'"MONTHLY_FLEX"')
    with pytest.raises(
        SchemaDriftError, match=r"no priced GPU-hour part.*no_pay_as_you_go_price 16"
    ):
        oracle.PROVIDER.parse([_raw(body)])


def test_no_gpu_hour_items_is_drift() -> None:
    body = CAPTURE.read_bytes().replace(b'"GPU Per Hour"', b'"OCPU Per Hour"')
    with pytest.raises(SchemaDriftError, match="no priced GPU-hour part"):
        oracle.PROVIDER.parse([_raw(body)])


def test_only_unknown_parts_is_drift_naming_them() -> None:
    data = _capture()
    for item in data["items"]:
        if item["partNumber"] in oracle.PARTS:
            item["partNumber"] = "Z" + item["partNumber"]
    with pytest.raises(
        SchemaDriftError,
        match=r"no priced GPU-hour part.*unknown_part ZB109479 Compute - GPU - L40S 1",
    ):
        oracle.PROVIDER.parse_report([_raw(json.dumps(data).encode())])


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
    assert len(oracle.PROVIDER.parse(responses)) == 21


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
    assert sorted(o.instance_type for o in oracle.PROVIDER.parse(responses)) == [
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


# --- partial fetches: a failed page after the first ------------------------------------------


def _paged_handler(fail_page: int | None, status: int = 500):
    """Three ORDS pages (offset=0, 1, 2), page n holding the capture's n-th GPU part; page
    ``fail_page`` (1-based) answers ``status``."""
    by_part = {i["partNumber"]: i for i in _capture()["items"]}
    parts = [by_part["B98415"], by_part["B95909"], by_part["B110519"]]  # H100, A10, H200
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        offset = int(request.url.params.get("offset", "0"))
        if offset + 1 == fail_page:
            return httpx.Response(status)
        more = offset < 2
        next_url = f"{oracle.PRODUCTS_URL}?currencyCode=USD&offset={offset + 1}"
        links = [{"rel": "next", "href": next_url}] if more else []
        return httpx.Response(200, json={"items": [parts[offset]], "hasMore": more, "links": links})

    return handler, requests


@pytest.mark.parametrize(("page", "status"), [(2, 500), (3, 404)])
def test_a_failed_page_after_the_first_is_skipped_and_reported(
    page: int, status: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http, "pause", lambda seconds: None)
    handler, _ = _paged_handler(page, status)
    with http.make_client(httpx.MockTransport(handler)) as client:
        responses, skipped = oracle.PROVIDER.fetch_report(client, None)
    assert list(skipped) == [f"page {page}"]
    assert f"HTTP {status}" in skipped[f"page {page}"]
    assert len(responses) == page - 1
    published = {o.instance_type for o in oracle.PROVIDER.parse(responses)}
    assert "BM.GPU.H100.8" in published  # page 1
    assert ("VM.GPU.A10.1" in published) is (page > 2)  # page 2
    assert "BM.GPU.H200.8" not in published  # page 3 is never there


def test_the_first_page_failing_fails_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "pause", lambda seconds: None)
    handler, requests = _paged_handler(1, 502)
    with (
        http.make_client(httpx.MockTransport(handler)) as client,
        pytest.raises(FetchError, match="HTTP 502"),
    ):
        oracle.PROVIDER.fetch_report(client, None)
    assert len(requests) == http.MAX_ATTEMPTS


def test_all_pages_fetched_reports_nothing_skipped() -> None:
    handler, requests = _paged_handler(None)
    with http.make_client(httpx.MockTransport(handler)) as client:
        responses, skipped = oracle.PROVIDER.fetch_report(client, None)
    assert skipped == {} and len(responses) == len(requests) == 3
    assert len(oracle.PROVIDER.parse(responses)) == 5  # H100, three A10 shapes, H200
