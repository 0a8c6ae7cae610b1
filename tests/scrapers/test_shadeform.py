"""Shadeform scraper on its real capture (the homepage's embedded instance types, 2026-08-22 18:02
UTC, an excerpt of 17 whole types cut inside the 18th) and on the API reference's example."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import http, shadeform
from scrapers.base import PricePer, PriceUnit, PricingModel, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

HOMEPAGE = SNAPSHOTS / "shadeform" / "2026-08-22T18_homepage_instance-types_excerpt_first16000.html"
# The response example of https://docs.shadeform.ai/api-reference/instances/instances-types
# (GET /v1/instances/types), values as the page prints them.
API_EXAMPLE = {
    "instance_types": [
        {
            "cloud": "hyperstack",
            "shade_instance_type": "A6000",
            "cloud_instance_type": "gpu_1x_a6000",
            "configuration": {
                "memory_in_gb": 12, "storage_in_gb": 256, "vcpus": 6, "num_gpus": 1,
                "gpu_type": "A100", "interconnect": "pcie", "vram_per_gpu_in_gb": 48,
                "os_options": ["ubuntu22.04_cuda12.2_shade_os", "ubuntu20.04_cuda12.0_shade_os"],
                "gpu_manufacturer": "nvidia", "nvlink": True,
            },
            "hourly_price": 210,
            "deployment_type": "vm",
            "availability": [
                {"region": "us-central-1", "available": True, "display_name": "US, Wichita, KS"},
                {"region": "us-central-2", "available": False, "display_name": "US, Wichita, KS"},
            ],
            "boot_time": {"min_boot_in_sec": 180, "max_boot_in_sec": 300},
        }
    ]
}  # fmt: skip


def _raw(body: bytes | None = None, url: str = shadeform.HOMEPAGE):
    raw = raw_from_capture(HOMEPAGE, url=url)
    return raw if body is None else replace(raw, body=body)


def _key(offer):
    return (offer.instance_type, offer.cloud_tier, offer.region)


def test_homepage_instance_types_read_off_the_capture() -> None:
    offers, excluded = shadeform.PROVIDER.parse_report([_raw()])
    # 17 whole types, 40 (type, region) pairs; the 18th (crusoe A100_80G) is cut by the excerpt
    assert len(offers) == 40
    assert excluded == {"truncated_row": 1}
    by = {_key(o): o for o in offers}

    # imwt A6000x8 (gpu_8x_a6000): 8x A6000 48 GB, 62 vCPUs, 384 GB, hourly_price 392 (cents)
    a6000 = by[("A6000x8", "imwt", "desmoines-usa-2")]
    assert (a6000.gpu_name, a6000.gpu_count, a6000.vram_gb_reported) == ("A6000", 8, 48)
    assert (a6000.vcpus, a6000.ram_gb, a6000.storage_gb) == (62, 384, 2560)
    assert a6000.price == Decimal("3.92")
    assert (a6000.country, a6000.available) == ("US", False)

    # hyperstack H100_sxm5x8: 2560 cents = $25.60, available in montreal-canada-2 only
    h100 = {o.region: o for o in offers if o.instance_type == "H100_sxm5x8"}
    assert set(h100) == {"houston-usa-3", "montreal-canada-2", "CANADA-2"}
    assert h100["montreal-canada-2"].available is True
    assert h100["houston-usa-3"].available is False
    assert h100["montreal-canada-2"].price == Decimal("25.60")
    assert (h100["montreal-canada-2"].gpu_name, h100["montreal-canada-2"].gpu_form_factor) == (
        "H100",
        "SXM",
    )
    assert h100["CANADA-2"].country is None  # its display_name is "CANADA-2"

    # scaleway L4 ($0.95) in FR, Paris and PL, Warsaw; massedcompute L40 $0.88
    assert by[("L4", "scaleway", "warsaw-poland-1")].price == Decimal("0.95")
    assert by[("L4", "scaleway", "warsaw-poland-1")].country == "PL"
    assert by[("L40", "massedcompute", "desmoines-usa-1")].price == Decimal("0.88")
    # denvr A100_sxm4x8: plain "A100" with 40 GB, sxm4 -> "A100 40GB" SXM, $11.20
    denvr = by[("A100_sxm4x8", "denvr", "calgary-canada-1")]
    assert (denvr.gpu_name, denvr.gpu_form_factor, denvr.price) == (
        "A100 40GB",
        "SXM",
        Decimal("11.20"),
    )
    # crusoe a100-80gb-sxm-ib.8x is listed with interconnect "pcie": no form factor stated
    assert by[("A100_80G_sxm4x8", "crusoe", "culpeper-usa-1")].gpu_form_factor is None
    # hyperstack H100x8_NVLINK: pcie with NVLink (bridged PCIe cards), $20.80
    assert by[("H100x8_NVLINK", "hyperstack", "montreal-canada-2")].gpu_form_factor == "PCIe"

    for offer in offers:
        assert offer.currency == "USD" and offer.price_unit is PriceUnit.HOUR
        assert offer.price_per is PricePer.INSTANCE and offer.pricing is PricingModel.ON_DEMAND
        assert offer.source_url == shadeform.HOMEPAGE
        assert offer.observed_at == datetime(2026, 8, 22, 18, tzinfo=UTC)


def test_api_reference_example_reads_as_the_docs_say() -> None:
    body = json.dumps(API_EXAMPLE).encode()
    offers = shadeform.PROVIDER.parse([_raw(body, url=shadeform.API_URL)])
    assert [(o.region, o.available, o.price, o.cloud_tier) for o in offers] == [
        ("us-central-1", True, Decimal("2.10"), "hyperstack"),
        ("us-central-2", False, Decimal("2.10"), "hyperstack"),
    ]
    assert offers[0].gpu_name == "A100 40GB" and offers[0].source_url == shadeform.API_URL


def test_unknown_gpu_and_unreadable_price_are_counted() -> None:
    document = json.loads(json.dumps(API_EXAMPLE))
    other = json.loads(json.dumps(API_EXAMPLE["instance_types"][0]))
    other["shade_instance_type"], other["hourly_price"] = "A6000x2", "2.10"
    document["instance_types"].append(other)
    third = json.loads(json.dumps(other))
    third["shade_instance_type"], third["configuration"]["gpu_type"] = "Z1", "Z100"
    document["instance_types"].append(third)
    offers, excluded = shadeform.PROVIDER.parse_report([_raw(json.dumps(document).encode())])
    assert len(offers) == 2
    assert excluded == {"unparsed_price": 1, "unknown_gpu Z100": 1}


def test_a_body_without_the_list_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="instance_types"):
        shadeform.PROVIDER.parse([_raw(b'{"types": []}')])


def test_fetch_sends_the_key_to_the_api_or_reads_the_homepage() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = json.dumps(API_EXAMPLE).encode() if "api." in str(request.url) else None
        return httpx.Response(200, content=body or HOMEPAGE.read_bytes(), request=request)

    with http.make_client(httpx.MockTransport(handler)) as client:
        api = shadeform.fetch(client, "key-1")
        page = shadeform.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [
        ("GET", shadeform.API_URL),
        ("GET", shadeform.HOMEPAGE),
    ]
    assert seen[0].headers["X-API-KEY"] == "key-1" and "X-API-KEY" not in seen[1].headers
    assert len(shadeform.PROVIDER.parse(api)) == 2 and len(shadeform.PROVIDER.parse(page)) == 40


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["shadeform"])["shadeform"]
    assert [c.path.name for c in captures] == [HOMEPAGE.name]
    with http.make_client(ReplayTransport(captures[0])) as client:
        offers = shadeform.PROVIDER.parse(shadeform.fetch(client, None))
    assert len(offers) == 40
