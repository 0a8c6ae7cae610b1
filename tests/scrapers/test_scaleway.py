"""Scaleway scraper on its real captures: the Instance API catalog of fr-par-2, pages 1 and 2
(2026-08-22, filtered by the saver to the GPU types and a few CPU lookalikes)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import http, scaleway
from scrapers.base import FetchError, PricePer, PriceUnit, PricingModel, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

CAPTURES = SNAPSHOTS / "scaleway"
PAGE_1 = CAPTURES / "2026-08-22_instance-products-servers_fr-par-2_page1_filtered.json"
PAGE_2 = CAPTURES / "2026-08-22_instance-products-servers_fr-par-2_page2_filtered.json"
ZONE_URL = "https://api.scaleway.com/instance/v1/zones/fr-par-2/products/servers"


def _raw(path=PAGE_1, body: bytes | None = None, page: int = 1):
    raw = raw_from_capture(path, url=f"{ZONE_URL}?per_page=100&page={page}")
    return raw if body is None else replace(raw, body=body)


def _by_type(offers):
    return {o.instance_type: o for o in offers}


def test_page_1_gpu_types_read_off_the_capture() -> None:
    offers, excluded = scaleway.PROVIDER.parse_report([_raw()])
    # 16 GPU types; BASIC2-A2C-4G and BASIC3-X2C-4G are CPU Instances ("gpu": 0)
    assert len(offers) == 16
    assert excluded == {"no_gpu": 2}
    by = _by_type(offers)

    # "H100-SXM-8-80G": gpu 8, H100-SXM, 128 vCPUs, hourly_price 25.3308 (monthly 18491.484)
    h100 = by["H100-SXM-8-80G"]
    assert (h100.gpu_name, h100.gpu_count, h100.vcpus) == ("H100-SXM", 8, 128)
    assert h100.price == Decimal("25.3308")
    assert h100.vram_gb_reported == Decimal("85.9")  # gpu_memory 85899345920 bytes (80 GiB)
    assert h100.ram_gb == Decimal("1030.8")  # ram 1030792151040 bytes (960 GiB)

    # "B300-SXM-8-288G": 8x B300-SXM, hourly 60.0; "L4-1-24G": 1x L4, 0.7875
    assert (by["B300-SXM-8-288G"].gpu_count, by["B300-SXM-8-288G"].price) == (8, Decimal("60.0"))
    assert by["B300-SXM-8-288G"].vram_gb_reported == Decimal("309.2")  # 288 GiB
    assert (by["L4-1-24G"].gpu_name, by["L4-1-24G"].price) == ("L4", Decimal("0.7875"))
    # "H100-1-80G" is the PCIe card: gpu_info.gpu_name "H100-PCIe", 2.8665 per hour
    assert (by["H100-1-80G"].gpu_name, by["H100-1-80G"].price) == ("H100-PCIe", Decimal("2.8665"))
    assert by["L40S-4-48G"].price == Decimal("5.879664")

    for offer in offers:
        assert offer.region == "fr-par-2"
        assert offer.currency == "EUR"
        assert offer.price_unit is PriceUnit.HOUR
        assert offer.price_per is PricePer.INSTANCE
        assert offer.pricing is PricingModel.ON_DEMAND
        assert offer.available is None  # end_of_service false everywhere
        assert offer.source_url == ZONE_URL
        assert offer.observed_at == datetime(2026, 8, 22, tzinfo=UTC)


def test_page_2_reads_the_p100() -> None:
    offers, excluded = scaleway.PROVIDER.parse_report([_raw(PAGE_2, page=2)])
    # RENDER-S: 1x P100 (16 GiB), 10 vCPUs, hourly_price 1.221; two POP2 CPU types
    assert [(o.instance_type, o.gpu_name, o.gpu_count, o.price) for o in offers] == [
        ("RENDER-S", "P100", 1, Decimal("1.221"))
    ]
    assert offers[0].vcpus == 10 and offers[0].vram_gb_reported == Decimal("17.2")
    assert excluded == {"no_gpu": 2}


def test_both_pages_of_one_scrape_give_every_gpu_type() -> None:
    offers = scaleway.PROVIDER.parse([_raw(), _raw(PAGE_2, page=2)])
    assert len(offers) == 17


def test_a_type_on_two_pages_is_drift() -> None:
    page_2 = json.loads(PAGE_2.read_bytes())
    page_2["servers"]["L4-1-24G"] = json.loads(PAGE_1.read_bytes())["servers"]["L4-1-24G"]
    body = json.dumps(page_2).encode()
    with pytest.raises(SchemaDriftError, match="on two pages"):
        scaleway.PROVIDER.parse([_raw(), _raw(PAGE_2, body=body, page=2)])


def test_end_of_service_mig_and_missing_price() -> None:
    document = json.loads(PAGE_1.read_bytes())
    servers = document["servers"]
    servers["L4-2-24G"]["end_of_service"] = True
    servers["L4-4-24G"]["mig_profile"] = "1g.6gb"
    del servers["L4-8-24G"]["hourly_price"]
    offers, excluded = scaleway.PROVIDER.parse_report([_raw(body=json.dumps(document).encode())])
    by = _by_type(offers)
    assert by["L4-2-24G"].available is False
    assert "L4-4-24G" not in by and "L4-8-24G" not in by
    assert excluded == {"no_gpu": 2, "mig_slice": 1, "unparsed_price": 1}


def test_a_body_without_servers_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="servers"):
        scaleway.PROVIDER.parse([_raw(body=b'{"instances": {}}')])


def _serve(
    pages: dict[int, bytes],
    fail: frozenset[int] = frozenset(),
    *,
    zones: dict[str, dict[int, bytes]] | None = None,
    failing_zones: frozenset[str] = frozenset(),
):
    """Every zone answers ``pages`` (or its own from ``zones``); ``fail``: pages answered 404,
    ``failing_zones``: zones whose every page is answered 404."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        page = int(request.url.params["page"])
        zone = request.url.path.split("/")[4]
        if page in fail or zone in failing_zones:
            return httpx.Response(404, request=request)
        body = (zones or {}).get(zone, pages).get(page, b'{"servers": {}}')
        return httpx.Response(200, content=body, request=request)

    return seen, httpx.MockTransport(handler)


def _full_page() -> bytes:
    """Page 1 padded to ``PER_PAGE`` types with CPU lookalikes: a page that is not the last."""
    document = json.loads(PAGE_1.read_bytes())
    cpu = document["servers"]["BASIC2-A2C-4G"]
    for n in range(scaleway.PER_PAGE - len(document["servers"])):
        document["servers"][f"CPU-{n}"] = cpu
    return json.dumps(document).encode()


def test_fetch_pages_each_gpu_zone_until_a_short_page_and_sends_the_key() -> None:
    seen, transport = _serve({1: _full_page(), 2: PAGE_2.read_bytes()})
    with http.make_client(transport) as client:
        responses = scaleway.fetch(client, "secret-key")
    assert [(r.method, r.url.path, dict(r.url.params)) for r in seen] == [
        ("GET", f"/instance/v1/zones/{zone}/products/servers", {"per_page": "100", "page": page})
        for zone in ("fr-par-2", "fr-par-1", "pl-waw-2")
        for page in ("1", "2")
    ]
    assert all(r.headers["X-Auth-Token"] == "secret-key" for r in seen)
    offers = scaleway.PROVIDER.parse(responses)
    # each zone answered live with the same catalog sells its 17 GPU types, in its own region
    assert Counter(o.region for o in offers) == {"fr-par-2": 17, "fr-par-1": 17, "pl-waw-2": 17}


def test_each_zone_offers_its_own_catalog_with_the_zone_as_region() -> None:
    h100 = json.loads(PAGE_1.read_bytes())
    waw = {"servers": {"H100-1-80G": h100["servers"]["H100-1-80G"]}}
    _, transport = _serve(
        {1: PAGE_1.read_bytes()},
        zones={"pl-waw-2": {1: json.dumps(waw).encode()}, "fr-par-1": {1: b'{"servers": {}}'}},
    )
    with http.make_client(transport) as client:
        offers, excluded = scaleway.PROVIDER.parse_report(scaleway.fetch(client, None))
    by_zone = Counter(o.region for o in offers)
    assert by_zone == {"fr-par-2": 16, "pl-waw-2": 1}
    [waw_h100] = [o for o in offers if o.region == "pl-waw-2"]
    assert (waw_h100.instance_type, waw_h100.price) == ("H100-1-80G", Decimal("2.8665"))
    assert waw_h100.source_url == ZONE_URL.replace("fr-par-2", "pl-waw-2")
    assert excluded == {"no_gpu": 2}


def test_a_later_zone_failing_is_a_skipped_part_and_the_first_failing_fails() -> None:
    _, transport = _serve({1: PAGE_1.read_bytes()}, failing_zones=frozenset({"fr-par-1"}))
    with http.make_client(transport) as client:
        responses, skipped = scaleway.fetch_with_skips(client, None)
    assert list(skipped) == ["fr-par-1 page 1"] and "HTTP 404" in skipped["fr-par-1 page 1"]
    assert {o.region for o in scaleway.PROVIDER.parse(responses)} == {"fr-par-2", "pl-waw-2"}
    seen, transport = _serve({}, failing_zones=frozenset({"fr-par-2"}))
    with http.make_client(transport) as client, pytest.raises(FetchError, match="fr-par-2"):
        scaleway.fetch_with_skips(client, None)
    assert {r.url.path for r in seen} == {ZONE_URL.removeprefix("https://api.scaleway.com")}


def test_fetch_without_a_key_sends_none() -> None:
    seen, transport = _serve({1: PAGE_1.read_bytes()})
    with http.make_client(transport) as client:
        scaleway.fetch(client, None)
    assert len(seen) == 3 and not any("X-Auth-Token" in r.headers for r in seen)


def test_a_later_page_failing_is_a_skipped_part() -> None:
    _, transport = _serve({1: _full_page()}, fail=frozenset({2}))
    with http.make_client(transport) as client:
        responses, skipped = scaleway.fetch_with_skips(client, None)
        assert len(responses) == 3
        assert list(skipped) == [f"{zone} page 2" for zone in ("fr-par-2", "fr-par-1", "pl-waw-2")]
        with pytest.raises(FetchError):
            scaleway.fetch(client, None)


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["scaleway"])["scaleway"]
    assert [c.path.name for c in captures] == [PAGE_1.name, PAGE_2.name]
    counts = []
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            offers = scaleway.PROVIDER.parse(scaleway.fetch(client, None))
        counts.append(len(offers))
        assert all(o.observed_at == capture.captured_at for o in offers)
    assert counts == [16, 1]
