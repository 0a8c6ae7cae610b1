"""TensorDock: the scraper on the API reference's example response, and the live request.

The example (``tests/scrapers/examples/tensordock/``) is the response TensorDock publishes for
``GET /api/v2/locations`` at https://dashboard.tensordock.com/api/docs/fetch-hostnodes ("List
Available Locations"), trimmed: its first location with its first two GPU offerings (the
second one's ``pricing`` and ``network_features`` left out). No real capture exists yet: the
provider is ``verified="docs"``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal

import httpx
import pytest

from scrapers import http, tensordock
from scrapers.base import (
    MissingTokenError,
    PricePer,
    PriceUnit,
    PricingModel,
    SchemaDriftError,
    unknown_row,
)
from tests.scrapers.examples import example_response
from warehouse.gpus import resolve

EXAMPLE = example_response("tensordock", url=tensordock.LOCATIONS_URL)


def _with(change) -> list:
    document = json.loads(EXAMPLE.body)
    change(document["data"]["locations"][0]["gpus"])
    return [replace(EXAMPLE, body=json.dumps(document).encode())]


def test_example_prices() -> None:
    # read off the example: H100 SXM5 80GB at 2.2 and RTX 4090 at 0.5 per GPU-hour, up to 8
    # and 4 GPUs, at location loc-uuid-12345 (Austin, Texas)
    offers, excluded = tensordock.parse_with_exclusions([EXAMPLE])
    by_name = {o.instance_type: o for o in offers}
    assert set(by_name) == {"h100-sxm5-80gb", "geforcertx4090-pcie-24gb"}
    assert excluded == {}
    h100, rtx = by_name["h100-sxm5-80gb"], by_name["geforcertx4090-pcie-24gb"]
    assert (h100.gpu_name, h100.gpu_count, h100.price) == ("H100 SXM5 80GB", 1, Decimal("2.2"))
    assert (rtx.gpu_name, rtx.price) == ("NVIDIA GeForce RTX 4090 PCIe 24GB", Decimal("0.5"))
    assert (h100.vram_gb_reported, rtx.vram_gb_reported) == (Decimal(80), Decimal(24))
    assert {o.region for o in offers} == {"loc-uuid-12345"}
    assert (h100.currency, h100.available, rtx.available) == ("USD", True, True)
    assert h100.price_unit is PriceUnit.HOUR and h100.price_per is PricePer.GPU
    assert h100.pricing is PricingModel.ON_DEMAND
    # the GPU's own price: the location's vCPU/RAM/storage maxima are not part of it
    assert (h100.vcpus, h100.ram_gb, h100.storage_gb) == (None, None, None)
    assert h100.observed_at == EXAMPLE.fetched_at
    assert (resolve(h100.gpu_name), resolve(rtx.gpu_name)) == ("h100-sxm", "rtx-4090")


def test_a_gpu_none_of_which_can_be_deployed_is_listed_unavailable() -> None:
    def none_left(gpus: list) -> None:
        gpus[1]["max_count"] = 0

    offers = tensordock.PROVIDER.parse(_with(none_left))
    assert {o.instance_type: o.available for o in offers} == {
        "h100-sxm5-80gb": True,
        "geforcertx4090-pcie-24gb": False,
    }


def test_a_row_of_an_unknown_gpu_is_counted_not_emitted() -> None:
    def rename(gpus: list) -> None:
        gpus[0]["displayName"] = "Z100 SXM 80GB"

    offers, excluded = tensordock.parse_with_exclusions(_with(rename))
    assert [o.instance_type for o in offers] == ["geforcertx4090-pcie-24gb"]
    assert excluded == {unknown_row("gpu", "Z100 SXM 80GB"): 1}


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [("price_per_hr", "2.2", "unparsed_price"), ("max_count", -1, "unparsed_gpu_count")],
)
def test_a_price_or_count_that_is_not_a_number_is_counted(field, value, reason) -> None:
    def spoil(gpus: list) -> None:
        gpus[0][field] = value

    offers, excluded = tensordock.parse_with_exclusions(_with(spoil))
    assert [o.instance_type for o in offers] == ["geforcertx4090-pcie-24gb"]
    assert excluded == {reason: 1}


def test_an_unknown_layout_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match=r"no 'data\.locations' list"):
        tensordock.parse_with_exclusions([replace(EXAMPLE, body=b'{"data": {"gpus": []}}')])
    with pytest.raises(SchemaDriftError, match="has no 'gpus'"):
        tensordock.parse_with_exclusions(
            [replace(EXAMPLE, body=b'{"data": {"locations": [{"id": "x"}]}}')]
        )


def test_the_live_request_sends_the_key_as_a_bearer_token() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=EXAMPLE.body)

    with http.make_client(httpx.MockTransport(answer)) as client:
        responses = tensordock.fetch(client, "secret-key")
    assert [(r.method, str(r.url)) for r in seen] == [("GET", tensordock.LOCATIONS_URL)]
    assert seen[0].headers["authorization"] == "Bearer secret-key"
    assert tensordock.PROVIDER.parse(responses)


def test_without_a_key_the_provider_is_skipped_before_any_request() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"unexpected request {request.url}")

    with (
        http.make_client(httpx.MockTransport(answer)) as client,
        pytest.raises(MissingTokenError, match="TENSORDOCK_API_TOKEN"),
    ):
        tensordock.fetch(client, None)
    assert tensordock.PROVIDER.token_required and tensordock.PROVIDER.verified == "docs"
