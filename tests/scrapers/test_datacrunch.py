"""DataCrunch scraper: the real products-page capture, and the API on a documentation-shaped body.

No real API capture exists; the API body below follows the response shape in DataCrunch's own
Python SDK (github.com/DataCrunch-io/datacrunch-python: ``instance_types.py`` and its unit test).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest

from scrapers import datacrunch, http
from scrapers.base import (
    FetchError,
    PricePer,
    PriceUnit,
    PricingModel,
    RawResponse,
    SchemaDriftError,
    unknown_row,
)
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

PAGE_2025_08 = SNAPSHOTS / "datacrunch" / "2025-08-08_wayback_products_pricing_excerpt.html"
WHEN = datetime(2026, 1, 2, 3, 4, tzinfo=UTC)


def _page(body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(PAGE_2025_08, url=datacrunch.PRODUCTS_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def _api_items() -> list[dict[str, Any]]:
    """Three instance types in the SDK-documented shape: an 8-GPU node, a CPU node, a 1-GPU node
    without spot or dynamic price."""

    def item(name: str, gpus: int, gpu: str, gpu_mem: int, **prices: Any) -> dict[str, Any]:
        return {
            "id": f"id-{name}",
            "instance_type": name,
            "cpu": {"description": "48 CPU 3.5GHz", "number_of_cores": 48},
            "gpu": {"description": gpu, "number_of_gpus": gpus},
            "memory": {"description": "192GB RAM", "size_in_gigabytes": 192},
            "gpu_memory": {"description": f"{gpu_mem}GB VRAM", "size_in_gigabytes": gpu_mem},
            "storage": {"description": "1800GB NVME", "size_in_gigabytes": 1800},
            "description": "Dedicated Bare metal Server",
            "currency": "usd",
            **prices,
        }

    return [
        item(
            "8V100.48M",
            8,
            "8x Tesla V100 16GB",
            128,
            price_per_hour="5.00",
            spot_price="2.50",
            dynamic_price=0.78,
        ),
        item("CPU.4V.16G", 0, "", 0, price_per_hour="0.03", spot_price="0.01"),
        item(
            "1H100.80S.30V",
            1,
            "1x H100 SXM5 80GB",
            80,
            price_per_hour="2.19",
            spot_price="0",
            dynamic_price=None,
        ),
    ]


def _api(items: Any) -> RawResponse:
    return RawResponse(
        url=f"{datacrunch.INSTANCE_TYPES_URL}?currency=usd",
        method="GET",
        status=200,
        content_type="application/json",
        body=json.dumps(items).encode(),
        fetched_at=WHEN,
    )


def test_2025_08_page_b200_table_read_off_the_page() -> None:
    offers, excluded = datacrunch.parse_with_exclusions([_page()])
    assert excluded == {}
    # 4 instance rows x (on-demand, dynamic, spot).
    assert len(offers) == 12
    by = {(o.instance_type, o.pricing): o for o in offers}
    assert len(by) == len(offers)

    # "8B200.240V | B200 SXM6 180GB | 8 | 240 | 1472 | 1440 | 1.8 TB/s |"
    # " $29.10/h | $21.42/h | $6.43/h"
    b200x8 = by[("8B200.240V", PricingModel.ON_DEMAND)]
    assert b200x8.price == Decimal("29.10")
    assert b200x8.currency == "USD"
    assert b200x8.price_unit is PriceUnit.HOUR
    assert b200x8.price_per is PricePer.INSTANCE
    assert b200x8.gpu_name == "B200 SXM6 180GB"
    assert b200x8.gpu_count == 8
    assert b200x8.vram_gb_reported == 180  # 1440 GB VRAM per instance / 8
    assert b200x8.vcpus == 240
    assert b200x8.ram_gb == 1472
    assert b200x8.storage_gb is None
    assert by[("8B200.240V", PricingModel.DYNAMIC)].price == Decimal("21.42")
    assert by[("8B200.240V", PricingModel.SPOT)].price == Decimal("6.43")

    b200x1 = by[("1B200.30V", PricingModel.ON_DEMAND)]
    assert (b200x1.price, b200x1.gpu_count, b200x1.vcpus, b200x1.ram_gb) == (
        Decimal("3.64"),
        1,
        30,
        184,
    )
    assert by[("1B200.30V", PricingModel.DYNAMIC)].price == Decimal("2.68")
    assert by[("1B200.30V", PricingModel.SPOT)].price == Decimal("0.80")
    assert by[("2B200.60V", PricingModel.ON_DEMAND)].price == Decimal("7.27")
    assert by[("4B200.120V", PricingModel.ON_DEMAND)].price == Decimal("14.55")
    assert by[("4B200.120V", PricingModel.SPOT)].price == Decimal("3.21")
    for offer in offers:
        assert offer.observed_at == datetime(2025, 8, 8, tzinfo=UTC)
        assert offer.source_url == datacrunch.PRODUCTS_URL


def test_renamed_price_column_is_schema_drift() -> None:
    body = PAGE_2025_08.read_bytes().replace(b">On demand price<", b">Price<")
    with pytest.raises(SchemaDriftError, match="columns changed"):
        datacrunch.PROVIDER.parse([_page(body)])


def test_missing_instance_table_is_schema_drift() -> None:
    body = PAGE_2025_08.read_bytes().replace(b">Instance name<", b">Name<")
    with pytest.raises(SchemaDriftError, match="no table headed 'Instance name'"):
        datacrunch.PROVIDER.parse([_page(body)])


def test_removed_price_cell_is_excluded_and_a_removed_cell_is_drift() -> None:
    body = PAGE_2025_08.read_bytes().replace(b">$14.55/h</td>", b"></td>", 1)
    offers, excluded = datacrunch.parse_with_exclusions([_page(body)])
    assert excluded == {"unparsed_price": 1}
    by = {(o.instance_type, o.pricing): o.price for o in offers}
    assert ("4B200.120V", PricingModel.ON_DEMAND) not in by
    # The row's other prices are still read: "$10.71/h" dynamic, "$3.21/h" spot.
    assert by[("4B200.120V", PricingModel.DYNAMIC)] == Decimal("10.71")
    assert by[("4B200.120V", PricingModel.SPOT)] == Decimal("3.21")
    assert len(offers) == 11
    # A row with a cell fewer than its header: the table layout changed.
    body = re.sub(rb"<td[^>]*>\$14\.55/h</td>", b"", PAGE_2025_08.read_bytes())
    with pytest.raises(SchemaDriftError, match="has 9 cells, expected 10"):
        datacrunch.PROVIDER.parse([_page(body)])


def test_unknown_family_row_is_reported_and_the_other_rows_published() -> None:
    body = PAGE_2025_08.read_bytes().replace(b">4B200.120V<", b">4Z9X.120V<")
    offers, excluded = datacrunch.PROVIDER.parse_report([_page(body)])
    assert excluded == {unknown_row("family", "4Z9X.120V"): 1}
    by = {(o.instance_type, o.pricing): o.price for o in offers}
    assert len(by) == 9 and not any(t == "4Z9X.120V" for t, _ in by)
    assert by[("8B200.240V", PricingModel.ON_DEMAND)] == Decimal("29.10")
    assert by[("2B200.60V", PricingModel.SPOT)] == Decimal("1.61")


def test_vram_switched_to_per_gpu_is_excluded_per_row() -> None:
    # 8B200.240V: VRAM 1440 -> 180 (per GPU): 180 / 8 GPUs is not the "180GB" of its model.
    body = PAGE_2025_08.read_bytes().replace(b">1440</td>", b">180</td>")
    offers, excluded = datacrunch.parse_with_exclusions([_page(body)])
    assert excluded == {"vram_mismatch": 1}
    assert {o.instance_type for o in offers} == {"1B200.30V", "2B200.60V", "4B200.120V"}


def test_non_numeric_spec_cell_is_excluded() -> None:
    body = PAGE_2025_08.read_bytes().replace(b">1472</td>", b">1.5 TB</td>")
    offers, excluded = datacrunch.parse_with_exclusions([_page(body)])
    assert excluded == {"unparsed_specs": 1}
    assert "8B200.240V" not in {o.instance_type for o in offers}
    assert len(offers) == 9


def test_price_format_changed_on_most_rows_is_drift() -> None:
    # "$3.64/h" -> "$3.64/hr" in the first three rows (9 cells), only 8B200.240V still read.
    body = PAGE_2025_08.read_bytes().replace(b"/h</td>", b"/hr</td>", 9)
    with pytest.raises(SchemaDriftError, match="unreadable than read: unparsed_price 9"):
        datacrunch.PROVIDER.parse_report([_page(body)])


def test_every_row_unreadable_is_drift() -> None:
    body = re.sub(rb">(\d)B200\.", rb">\1Z9X.", PAGE_2025_08.read_bytes())
    with pytest.raises(
        SchemaDriftError, match=r"no GPU instance prices found \(excluded: unknown_family 1Z9X"
    ):
        datacrunch.PROVIDER.parse_report([_page(body)])


def test_api_instance_types_documented_shape() -> None:
    offers, excluded = datacrunch.parse_with_exclusions([_api(_api_items())])
    assert excluded == {"no_gpu": 1, "no_spot_price": 1, "no_dynamic_price": 1}
    by = {(o.instance_type, o.pricing): o for o in offers}
    assert set(by) == {
        ("8V100.48M", PricingModel.ON_DEMAND),
        ("8V100.48M", PricingModel.SPOT),
        ("8V100.48M", PricingModel.DYNAMIC),
        ("1H100.80S.30V", PricingModel.ON_DEMAND),
    }
    v100 = by[("8V100.48M", PricingModel.ON_DEMAND)]
    assert v100.price == Decimal("5.00")
    assert v100.currency == "USD"
    assert v100.price_per is PricePer.INSTANCE
    assert v100.gpu_name == "Tesla V100 16GB"
    assert v100.gpu_count == 8
    assert v100.vram_gb_reported == 16  # gpu_memory is the instance total (128 GB)
    assert (v100.vcpus, v100.ram_gb, v100.storage_gb) == (48, 192, 1800)
    assert by[("8V100.48M", PricingModel.SPOT)].price == Decimal("2.50")
    assert by[("8V100.48M", PricingModel.DYNAMIC)].price == Decimal("0.78")
    assert by[("1H100.80S.30V", PricingModel.ON_DEMAND)].price == Decimal("2.19")
    assert all(o.observed_at == WHEN for o in offers)


def test_api_unreadable_items_are_excluded_and_the_rest_published() -> None:
    items = _api_items()
    del items[0]["price_per_hour"]
    offers, excluded = datacrunch.parse_with_exclusions([_api(items)])
    assert excluded == {
        "incomplete_instance_type": 1,
        "no_gpu": 1,
        "no_spot_price": 1,
        "no_dynamic_price": 1,
    }
    assert [(o.instance_type, o.price) for o in offers] == [("1H100.80S.30V", Decimal("2.19"))]

    items = _api_items()
    items[0]["price_per_hour"] = "call us"
    items[0]["spot_price"] = "n/a"
    items[2]["gpu"]["description"] = "H100 SXM5 80GB"  # no "<count>x " prefix
    # Every GPU item unreadable: nothing is left, which is drift naming the reasons.
    with pytest.raises(SchemaDriftError, match=r"excluded: unparsed_gpu 1, unparsed_price 1\)"):
        datacrunch.PROVIDER.parse_report([_api(items)])


def test_api_unknown_family_is_reported() -> None:
    items = _api_items()
    items[2]["instance_type"] = "1Z9X.30V"
    items[2]["gpu"]["description"] = "1x Z9X 96GB"
    offers, excluded = datacrunch.PROVIDER.parse_report([_api(items)])
    assert excluded == {"no_gpu": 1, unknown_row("family", "1Z9X.30V"): 1}
    assert {(o.instance_type, o.pricing, o.price) for o in offers} == {
        ("8V100.48M", PricingModel.ON_DEMAND, Decimal("5.00")),
        ("8V100.48M", PricingModel.SPOT, Decimal("2.50")),
        ("8V100.48M", PricingModel.DYNAMIC, Decimal("0.78")),
    }


@pytest.mark.parametrize(
    "name", ["1GB300.32V", "8B300.240V.CC", "1RTXPRO6000.30V", "1RTX6000ADA.10V", "1A100.40S.22V"]
)
def test_api_families_of_the_2026_listing_are_known(name: str) -> None:
    # Instance types of Verda's 2026-09-23 listing (see the module docstring).
    items = _api_items()
    items[2]["instance_type"] = name
    offers, excluded = datacrunch.parse_with_exclusions([_api(items)])
    assert name in {o.instance_type for o in offers}
    assert not [r for r in excluded if r.startswith("unknown")]


def test_api_item_with_dynamic_storage_has_no_storage_size() -> None:
    # Verda's 2026 listing (a third party's recording, see the module docstring) has
    # "storage": {"description": "dynamic"} without a size on most instance types.
    items = _api_items()
    items[2]["storage"] = {"description": "dynamic"}
    offers = datacrunch.PROVIDER.parse([_api(items)])
    h100 = next(o for o in offers if o.instance_type == "1H100.80S.30V")
    assert (h100.price, h100.storage_gb, h100.vram_gb_reported) == (Decimal("2.19"), None, 80)


# --- A wrong price is read as printed (docs/reliability.md: rejected, never dropped) ---------


# A zero or negative amount must reach the loader (``prices_positive`` rejects the scrape) and a
# 100x one the price-jump guard: excluding it as ``unparsed_price`` would publish the rest.
@pytest.mark.parametrize(
    ("printed", "price"),
    [
        ("$-3.64/h", Decimal("-3.64")),
        ("-$3.64/h", Decimal("-3.64")),  # parsing.money would read 3.64 here
        ("$0.00/h", Decimal("0.00")),
        ("$364.00/h", Decimal("364.00")),
        ("$1,234.00/h", Decimal("1234.00")),
    ],
)
def test_page_negative_zero_or_100x_price_is_read_as_printed_not_excluded(
    printed: str, price: Decimal
) -> None:
    body = _page().body.replace(b">$3.64/h<", f">{printed}<".encode())  # 1B200.30V on demand
    offers, excluded = datacrunch.parse_with_exclusions([_page(body)])
    assert excluded == {}
    by = {(o.instance_type, o.pricing): o for o in offers}
    assert by[("1B200.30V", PricingModel.ON_DEMAND)].price == price
    assert by[("1B200.30V", PricingModel.DYNAMIC)].price == Decimal("2.68")
    assert len(offers) == 12


@pytest.mark.parametrize(
    ("field", "value", "pricing", "price"),
    [
        ("price_per_hour", "-5.00", PricingModel.ON_DEMAND, Decimal("-5.00")),
        ("price_per_hour", -5.0, PricingModel.ON_DEMAND, Decimal("-5.0")),
        ("price_per_hour", "0", PricingModel.ON_DEMAND, Decimal("0")),
        ("price_per_hour", "500.00", PricingModel.ON_DEMAND, Decimal("500.00")),
        ("spot_price", "-2.50", PricingModel.SPOT, Decimal("-2.50")),
        ("dynamic_price", -0.78, PricingModel.DYNAMIC, Decimal("-0.78")),
    ],
)
def test_api_negative_zero_or_100x_price_is_read_as_given_not_excluded(
    field: str, value: Any, pricing: PricingModel, price: Decimal
) -> None:
    items = _api_items()
    items[0][field] = value  # 8V100.48M
    offers, excluded = datacrunch.parse_with_exclusions([_api(items)])
    assert excluded == {"no_gpu": 1, "no_spot_price": 1, "no_dynamic_price": 1}
    by = {(o.instance_type, o.pricing): o for o in offers}
    assert by[("8V100.48M", pricing)].price == price
    assert len(offers) == 4


def test_api_price_that_is_not_a_finite_number_is_unparsed() -> None:
    items = _api_items()
    items[0]["spot_price"] = "NaN"
    offers, excluded = datacrunch.parse_with_exclusions([_api(items)])
    assert excluded == {
        "no_gpu": 1,
        "no_spot_price": 1,
        "no_dynamic_price": 1,
        "unparsed_price": 1,
    }
    assert ("8V100.48M", PricingModel.SPOT) not in {(o.instance_type, o.pricing) for o in offers}


def test_api_unexpected_envelope_is_schema_drift() -> None:
    with pytest.raises(SchemaDriftError, match="JSON array"):
        datacrunch.PROVIDER.parse([_api({"instance_types": _api_items()})])


# --- live fetch: which source, in which order ---------------------------------------------------

LISTING_URL = "https://api.verda.com/v1/instance-types?currency=usd"
TOKEN_RESPONSE = {
    "access_token": "access-123",
    "refresh_token": "refresh-456",
    "scope": "cloud-api-v1",
    "token_type": "Bearer",
    "expires_in": 3600,
}


class Server:
    """Answers like Verda: the open listing with ``listing`` (a status, or the items), the OAuth
    token endpoint, the authenticated listing, and the products page."""

    def __init__(self, listing: int | bytes, oauth_status: int = 200) -> None:
        self.listing = listing
        self.oauth_status = oauth_status
        self.seen: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if request.url.path == "/v1/oauth2/token":
            if self.oauth_status != 200:
                return httpx.Response(self.oauth_status, json={"code": "unauthorized_request"})
            return httpx.Response(200, json=TOKEN_RESPONSE)
        if request.url.path == "/v1/instance-types":
            if "authorization" in request.headers:
                return httpx.Response(200, json=_api_items())
            if isinstance(self.listing, int):
                return httpx.Response(self.listing, json={"code": "unauthorized_request"})
            return httpx.Response(200, content=self.listing)
        if str(request.url) == datacrunch.PRODUCTS_URL:
            return httpx.Response(200, content=PAGE_2025_08.read_bytes())
        return httpx.Response(404)

    def requests(self) -> list[tuple[str, str, str | None]]:
        return [(r.method, str(r.url), r.headers.get("authorization")) for r in self.seen]


def _fetch(server: Server, token: str | None) -> list[RawResponse]:
    with http.make_client(httpx.MockTransport(server)) as client:
        return datacrunch.fetch(client, token)


def test_api_host_is_verda() -> None:
    # DataCrunch is now Verda: "Verda Cloud (formerly DataCrunch) API", https://api.verda.com/v1
    assert datacrunch.API_BASE == "https://api.verda.com/v1"
    assert datacrunch.TOKEN_URL == "https://api.verda.com/v1/oauth2/token"
    assert datacrunch.INSTANCE_TYPES_URL == "https://api.verda.com/v1/instance-types"
    assert datacrunch.PROVIDER.token_required is False


@pytest.mark.parametrize("token", [None, "client-id:client-secret"])
def test_fetch_open_listing_first_without_credentials(token: str | None) -> None:
    server = Server(listing=json.dumps(_api_items()).encode())
    responses = _fetch(server, token)
    # One keyless request, even when credentials are set: they are not needed.
    assert server.requests() == [("GET", LISTING_URL, None)]
    assert server.seen[0].headers["User-Agent"] == http.USER_AGENT
    assert b"client-secret" not in server.seen[0].content
    assert [r.url for r in responses] == [LISTING_URL]
    offers = datacrunch.PROVIDER.parse(responses)
    assert len(offers) == 4
    assert {o.source_url for o in offers} == {LISTING_URL}


@pytest.mark.parametrize("refusal", [401, 403, 404, b"<html><body>Log in</body></html>"])
def test_fetch_without_token_falls_back_to_the_products_page(refusal: int | bytes) -> None:
    server = Server(listing=refusal)
    responses = _fetch(server, None)
    assert server.requests() == [
        ("GET", LISTING_URL, None),
        ("GET", datacrunch.PRODUCTS_URL, None),
    ]
    assert [r.url for r in responses] == [datacrunch.PRODUCTS_URL]  # the refusal is not archived
    assert len(datacrunch.PROVIDER.parse(responses)) == 12


@pytest.mark.parametrize("refusal", [401, b"{}"])
def test_fetch_with_token_uses_oauth_when_the_listing_is_not_open(refusal: int | bytes) -> None:
    server = Server(listing=refusal)
    responses = _fetch(server, "client-id:client-secret")

    assert server.requests() == [
        ("GET", LISTING_URL, None),
        ("POST", datacrunch.TOKEN_URL, None),
        ("GET", LISTING_URL, "Bearer access-123"),
    ]
    token_request = server.seen[1]
    assert json.loads(token_request.content) == {
        "grant_type": "client_credentials",
        "client_id": "client-id",
        "client_secret": "client-secret",
    }
    assert all(r.headers["User-Agent"] == http.USER_AGENT for r in server.seen)
    # Only the price data is handed on for archiving, never the token response.
    assert len(responses) == 1
    assert b"access-123" not in responses[0].body
    assert len(datacrunch.PROVIDER.parse(responses)) == 4


def test_fetch_with_rejected_credentials_fails_without_page_fallback() -> None:
    # A configured key that stopped working must be seen, not papered over by the page.
    server = Server(listing=401, oauth_status=401)
    with pytest.raises(FetchError, match="oauth2/token: HTTP 401"):
        _fetch(server, "client-id:client-secret")
    assert [m for m, *_ in server.requests()] == ["GET", "POST"]
    assert datacrunch.PRODUCTS_URL not in {u for _, u, _ in server.requests()}


@pytest.mark.parametrize("token", [None, "client-id:client-secret"])
def test_fetch_listing_outage_is_reported_not_hidden(
    token: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http, "pause", lambda seconds: None)  # retry backoff, not waited for
    server = Server(listing=503)
    with pytest.raises(FetchError, match=f"HTTP 503 after {http.MAX_ATTEMPTS} attempts"):
        _fetch(server, token)
    # Retried on the listing only: neither OAuth nor the page is tried during an outage.
    assert server.requests() == [("GET", LISTING_URL, None)] * http.MAX_ATTEMPTS


def test_fetch_with_malformed_token_or_token_response_fails() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"error": "nope"})

    with http.make_client(httpx.MockTransport(handler)) as client:
        with pytest.raises(FetchError, match="client_id>:<client_secret"):
            datacrunch.fetch(client, "no-colon")
        assert seen == []  # a malformed token fails before any request
        with pytest.raises(FetchError, match="no access_token"):
            datacrunch.fetch(client, "id:secret")


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["datacrunch"])["datacrunch"]
    assert [c.path.name for c in captures] == [PAGE_2025_08.name]
    for capture in captures:
        transport = ReplayTransport(capture)
        with http.make_client(transport) as client:
            offers = datacrunch.PROVIDER.parse(datacrunch.fetch(client, None))
        assert len(offers) == 12
        assert all(o.observed_at == capture.captured_at for o in offers)
        # The page answers the open listing too; it is not an array, so the page is fetched.
        assert [str(r.url) for r in transport.requests] == [LISTING_URL, datacrunch.PRODUCTS_URL]
        assert {o.source_url for o in offers} == {datacrunch.PRODUCTS_URL}
