"""DigitalOcean: GPU Droplets pricing page (2025-07 capture), sizes API (doc-shaped), fetch."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest

from scrapers import digitalocean, http
from scrapers.base import (
    FetchError,
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    RawResponse,
    SchemaDriftError,
    unknown_row,
)
from scrapers.http import make_client
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture
from warehouse.gpus import resolve

PAGE_2025_07 = SNAPSHOTS / "digitalocean" / "2025-07-07_wayback_pricing-gpu-droplets_excerpt.html"
API_OBSERVED = datetime(2026, 5, 1, tzinfo=UTC)


def _page(body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(PAGE_2025_07, url=digitalocean.PRICING_URL)
    return raw if body is None else dataclasses.replace(raw, body=body)


def _mutated(old: str, new: str) -> RawResponse:
    body = PAGE_2025_07.read_bytes()
    assert old.encode() in body, f"mutation target {old!r} not in capture"
    return _page(body.replace(old.encode(), new.encode()))


def _index(offers: list[Offer]) -> dict[tuple[str, PricingModel], Offer]:
    index = {(o.instance_type, o.pricing): o for o in offers}
    assert len(index) == len(offers)
    return index


# --- pricing page ----------------------------------------------------------------------------


def test_page_2025_07_nine_prices_from_nine_cards() -> None:
    offers, excluded = digitalocean.parse_with_exclusions([_page()])
    # 2 reserved cards (H100x8, MI300Xx8) + 7 on-demand cards; the H100 card's struck-through
    # former price is not an offer.
    assert len(offers) == 9
    assert excluded == {"struck_through_price": 1}
    assert {(o.currency, o.price_unit, o.price_per, o.region) for o in offers} == {
        ("USD", PriceUnit.HOUR, PricePer.GPU, "global")
    }
    assert {o.observed_at for o in offers} == {datetime(2025, 7, 7, tzinfo=UTC)}
    assert {o.source_url for o in offers} == {digitalocean.PRICING_URL}


def test_h100x8_on_demand_and_reserved() -> None:
    by = _index(digitalocean.PROVIDER.parse([_page()]))
    # "NVIDIA H100x8": $2.99 /GPU/hour On-Demand Price; GPUs per Droplet 8, GPU Memory 640 GB,
    # Droplet Memory 1,920 GiB, Droplet vCPUs 160, Boot Disk 2 TiB NVMe, Scratch Disk 40 TiB NVMe
    h100x8 = by[("NVIDIA H100x8", PricingModel.ON_DEMAND)]
    assert (h100x8.price, h100x8.gpu_count, h100x8.gpu_name) == (
        Decimal("2.99"),
        Decimal(8),
        "NVIDIA H100 SXM",
    )
    assert h100x8.vram_gb_reported == Decimal(80)
    assert (h100x8.vcpus, h100x8.ram_gb) == (Decimal(160), Decimal("2061.6"))  # 1,920 GiB
    assert h100x8.storage_gb == Decimal("2199.0") + Decimal("43980.5")  # 2 TiB + 40 TiB
    # Reserved card: "$1.99 /GPU/hour ... contractual commitment of 12 months"
    reserved = by[("NVIDIA H100x8", PricingModel.RESERVED)]
    assert (reserved.price, reserved.reserved_term_months, reserved.gpu_count) == (
        Decimal("1.99"),
        12,
        Decimal(8),
    )
    assert (reserved.vram_gb_reported, reserved.vcpus, reserved.ram_gb) == (None, None, None)


def test_h100x1_promotional_price_not_the_struck_through_one() -> None:
    by = _index(digitalocean.PROVIDER.parse([_page()]))
    # "NVIDIA H100": $6.74 /GPU/hour struck through, then $3.39 /GPU/hour*
    h100 = by[("NVIDIA H100", PricingModel.ON_DEMAND)]
    assert (h100.price, h100.gpu_count, h100.vram_gb_reported) == (
        Decimal("3.39"),
        Decimal(1),
        Decimal(80),
    )
    assert (h100.vcpus, h100.ram_gb) == (Decimal(20), Decimal("257.7"))  # 240 GiB
    assert not [o for o in by.values() if o.price == Decimal("6.74")]


def test_amd_and_ada_cards() -> None:
    by = _index(digitalocean.PROVIDER.parse([_page()]))
    mi300x8 = by[("AMD Instinct™ MI300Xx8", PricingModel.ON_DEMAND)]
    assert (mi300x8.price, mi300x8.gpu_count, mi300x8.vram_gb_reported) == (
        Decimal("1.99"),
        Decimal(8),
        Decimal(192),  # 1,536 GB / 8
    )
    assert by[("AMD Instinct™ MI300Xx8", PricingModel.RESERVED)].price == Decimal("1.49")
    rtx4000 = by[("NVIDIA RTX 4000 Ada Generation", PricingModel.ON_DEMAND)]
    assert (rtx4000.price, rtx4000.vram_gb_reported, rtx4000.vcpus) == (
        Decimal("0.76"),
        Decimal(20),
        Decimal(8),
    )
    assert rtx4000.storage_gb == Decimal("536.9")  # 500 GiB boot disk, no scratch disk
    assert by[("NVIDIA L40S", PricingModel.ON_DEMAND)].price == Decimal("1.57")


def test_every_page_gpu_name_resolves() -> None:
    offers = digitalocean.PROVIDER.parse([_page()])
    resolved = {o.gpu_name: resolve(o.gpu_name, float(o.vram_gb_reported or 0)) for o in offers}
    assert resolved == {
        "NVIDIA H100 SXM": "h100-sxm",
        "AMD Instinct™ MI300X": "mi300x",
        "NVIDIA RTX 4000 Ada Generation": "rtx-4000-ada",
        "NVIDIA RTX 6000 Ada Generation": "rtx-6000-ada",
        "NVIDIA L40S": "l40s",
    }


def test_unknown_gpu_card_is_reported_and_the_other_cards_published() -> None:
    offers, excluded = digitalocean.PROVIDER.parse_report(
        [_mutated(">NVIDIA L40S</h3>", ">NVIDIA Z9000</h3>")]
    )
    assert excluded == {"struck_through_price": 1, unknown_row("gpu", "NVIDIA Z9000"): 1}
    by = _index(offers)
    assert len(by) == 8 and ("NVIDIA Z9000", PricingModel.ON_DEMAND) not in by
    assert by[("NVIDIA H100x8", PricingModel.ON_DEMAND)].price == Decimal("2.99")
    assert by[("NVIDIA RTX 6000 Ada Generation", PricingModel.ON_DEMAND)].price == Decimal("1.57")


def test_contact_sales_card_is_counted_not_parsed() -> None:
    raw = _mutated(
        '<span><span class="Typographystyles-sc-o7qsl9-0 gXLcEP">$1.49</span>'
        '<span class="Typographystyles-sc-o7qsl9-0 beGzIA">/GPU/hour</span></span>',
        "<span>Contact sales</span>",
    )
    offers, excluded = digitalocean.parse_with_exclusions([raw])
    assert len(offers) == 8
    assert excluded == {"struck_through_price": 1, "contact sales": 1}


@pytest.mark.parametrize(
    ("old", "new", "reason", "missing"),
    [
        # The H100 promotional price, now per month: a unit this scraper has no mapping for.
        (
            "/GPU/hour*",
            "/GPU/month*",
            unknown_row("unit", "/GPU/month (NVIDIA H100)"),
            ("NVIDIA H100", PricingModel.ON_DEMAND),
        ),
        # Both H100x8 cards retitled x4: the on-demand one says "GPUs per Droplet 8".
        ("NVIDIA H100x8", "NVIDIA H100x4", "gpu_count_mismatch", ("NVIDIA H100x4", "on_demand")),
        (
            "H100x8<!-- --> <!-- -->GPU offering if you reserve via a contractual commitment of",
            "H100x8<!-- --> <!-- -->GPU offering if you reserve via a contract of",
            "no_reserved_term",
            ("NVIDIA H100x8", PricingModel.RESERVED),
        ),
    ],
)
def test_one_unreadable_card_is_excluded(
    old: str, new: str, reason: str, missing: tuple[str, str]
) -> None:
    offers, excluded = digitalocean.PROVIDER.parse_report([_mutated(old, new)])
    assert excluded[reason] == 1
    assert sum(excluded.values()) == 1 + (reason != unknown_row("unit", "/GPU/month (NVIDIA H100)"))
    by = {(o.instance_type, o.pricing.value): o.price for o in offers}
    assert (missing[0], PricingModel(missing[1]).value) not in by
    assert len(offers) == 8
    assert by[("NVIDIA L40S", "on_demand")] == Decimal("1.57")


# A zero or negative amount must reach the loader (``prices_positive`` rejects the scrape) and a
# 100x one the price-jump guard: excluding it as ``unparsed_price`` would publish the rest.
@pytest.mark.parametrize(
    ("printed", "price"),
    [
        ("$-2.99", Decimal("-2.99")),
        ("-$2.99", Decimal("-2.99")),
        ("$0.00", Decimal("0.00")),
        ("$299.00", Decimal("299.00")),
        ("$1,234.00", Decimal("1234.00")),
    ],
)
def test_page_negative_zero_or_100x_price_is_read_as_printed_not_excluded(
    printed: str, price: Decimal
) -> None:
    # The H100x8 on-demand card: "$2.99" "/GPU/hour"
    offers, excluded = digitalocean.PROVIDER.parse_report(
        [_mutated('iEAtdB">$2.99</span>', f'iEAtdB">{printed}</span>')]
    )
    assert excluded == {"struck_through_price": 1}  # nothing more left out
    by = _index(offers)
    assert by[("NVIDIA H100x8", PricingModel.ON_DEMAND)].price == price
    assert by[("NVIDIA H100x8", PricingModel.RESERVED)].price == Decimal("1.99")
    assert len(offers) == 9


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('class="CardPricingstyles__StyledCardPricingCard', 'class="v2-Card', "no GPU Droplet"),
        # Every on-demand card relabelled: 7 unknown rows against 2 known (the reserved cards).
        ("On-Demand Price", "Spot Price", "7 of 9 GPU rows are unknown.*unknown_label Spot Price"),
        # A spec renamed on every on-demand card: a changed layout, not 7 slips.
        ("Droplet vCPUs", "Droplet cores", "unreadable than read: incomplete_specs 7"),
    ],
)
def test_broken_page_is_drift(old: str, new: str, message: str) -> None:
    with pytest.raises(SchemaDriftError, match=message):
        digitalocean.PROVIDER.parse_report([_mutated(old, new)])


def test_page_without_cards_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="no GPU Droplet pricing cards"):
        digitalocean.PROVIDER.parse([_page(b"<html><body><h1>GPU Droplets</h1></body></html>")])


# --- sizes API (shape as documented: docs.digitalocean.com/reference/api/reference/sizes/) ----


def _size(slug: str, price: float, **extra: Any) -> dict[str, Any]:
    return {
        "slug": slug,
        "memory": 2048,
        "vcpus": 2,
        "disk": 60,
        "transfer": 3.0,
        "price_monthly": round(price * 672, 2),
        "price_hourly": price,
        "regions": ["nyc1", "tor1"],
        "available": True,
        "description": "Basic",
        "disk_info": [{"type": "local", "size": {"amount": 60, "unit": "gib"}}],
        **extra,
    }


def _gpu_size(slug: str, price: float, count: int, model: str, vram: int, **extra: Any):
    return _size(
        slug,
        price,
        memory=1966080 if count == 8 else 245760,
        vcpus=160 if count == 8 else 20,
        disk=2046 if count == 8 else 720,
        description=f"{model} GPU",
        gpu_info={"count": count, "vram": {"amount": vram, "unit": "gib"}, "model": model},
        disk_info=[
            {"type": "local", "size": {"amount": 2046 if count == 8 else 720, "unit": "gib"}},
            {"type": "scratch", "size": {"amount": 40960 if count == 8 else 5120, "unit": "gib"}},
        ],
        **extra,
    )


def _sizes_page(sizes: list[dict[str, Any]], next_url: str | None = None) -> dict[str, Any]:
    pages = {"next": next_url, "last": next_url} if next_url else {}
    return {"sizes": sizes, "links": {"pages": pages}, "meta": {"total": 4}}


PAGE_1 = _sizes_page(
    [
        _size("s-1vcpu-1gb", 0.00893),
        _gpu_size("gpu-h100x8-640gb", 23.92, 8, "nvidia_h100", 640),
    ],
    next_url=f"{digitalocean.SIZES_URL}?page=2&per_page=200",
)
PAGE_2 = _sizes_page(
    [
        _gpu_size("gpu-mi300x1-192gb", 1.99, 1, "amd_mi300x", 192, available=False),
        _gpu_size("gpu-z9000x1-96gb", 4.2, 1, "nvidia_z9000", 96),
    ]
)


def _api(document: dict[str, Any]) -> RawResponse:
    return RawResponse(
        url=digitalocean.SIZES_URL,
        method="GET",
        status=200,
        content_type="application/json",
        body=json.dumps(document).encode(),
        fetched_at=API_OBSERVED,
    )


def test_sizes_api_gpu_sizes_are_offers_cpu_sizes_counted() -> None:
    offers, excluded = digitalocean.PROVIDER.parse_report([_api(PAGE_1), _api(PAGE_2)])
    # gpu-z9000x1-96gb: a GPU family this scraper does not know is reported, not emitted.
    assert excluded == {"not_a_gpu_size": 1, unknown_row("family", "gpu-z9000x1-96gb"): 1}
    by = {o.instance_type: o for o in offers}
    assert set(by) == {"gpu-h100x8-640gb", "gpu-mi300x1-192gb"}
    h100x8 = by["gpu-h100x8-640gb"]
    assert (h100x8.gpu_name, h100x8.gpu_count, h100x8.price, h100x8.price_per) == (
        "NVIDIA H100 SXM",
        Decimal(8),
        Decimal("23.92"),
        PricePer.INSTANCE,
    )
    assert h100x8.vram_gb_reported == Decimal("85.9")  # 640 gib / 8 GPUs, as decimal GB
    assert (h100x8.vcpus, h100x8.ram_gb) == (Decimal(160), Decimal("2061.6"))  # 1,966,080 MiB
    assert h100x8.storage_gb == Decimal("2196.9") + Decimal("43980.5")  # local + scratch
    assert (h100x8.pricing, h100x8.region, h100x8.offered) == (
        PricingModel.ON_DEMAND,
        "global",
        True,
    )
    assert by["gpu-mi300x1-192gb"].offered is False  # "available": false


H100X1 = _gpu_size("gpu-h100x1-80gb", 3.39, 1, "nvidia_h100", 80)


@pytest.mark.parametrize(
    ("size", "reason"),
    [
        ({**H100X1, "vcpus": None}, "incomplete_size"),
        ({**H100X1, "gpu_info": {"count": 1}}, "incomplete_size"),
        ({**H100X1, "price_hourly": float("nan")}, "unparsed_price"),
        (
            {**H100X1, "gpu_info": {**H100X1["gpu_info"], "vram": {"amount": 80, "unit": "tb"}}},
            unknown_row("unit", "tb (gpu-h100x1-80gb)"),
        ),
        (
            {**H100X1, "slug": "gpu-h100x1-80gb-preview"},
            unknown_row("sku", "gpu-h100x1-80gb-preview"),
        ),
        ({**H100X1, "slug": "h100-1x"}, unknown_row("sku", "h100-1x")),
        ({**H100X1, "slug": "gpu-h100x1-80gb-contracted"}, "contracted"),
    ],
)
def test_one_unreadable_or_unknown_size_is_excluded(size: dict[str, Any], reason: str) -> None:
    h100x8 = _gpu_size("gpu-h100x8-640gb", 23.92, 8, "nvidia_h100", 640)
    offers, excluded = digitalocean.PROVIDER.parse_report(
        [_api(_sizes_page([h100x8, h100x8 | {"slug": "gpu-h100x8-640gb-spot"}, size]))]
    )
    assert excluded == {reason: 1}
    assert {(o.instance_type, o.pricing, o.price) for o in offers} == {
        ("gpu-h100x8-640gb", PricingModel.ON_DEMAND, Decimal("23.92")),
        ("gpu-h100x8-640gb-spot", PricingModel.SPOT, Decimal("23.92")),
    }


@pytest.mark.parametrize("price", [-3.39, 0, 339.0])
def test_sizes_api_negative_zero_or_100x_price_is_read_as_given_not_excluded(price: float) -> None:
    h100x8 = _gpu_size("gpu-h100x8-640gb", 23.92, 8, "nvidia_h100", 640)
    offers, excluded = digitalocean.PROVIDER.parse_report(
        [_api(_sizes_page([h100x8, {**H100X1, "price_hourly": price}]))]
    )
    assert excluded == {}
    assert {o.instance_type: o.price for o in offers} == {
        "gpu-h100x8-640gb": Decimal("23.92"),
        "gpu-h100x1-80gb": Decimal(repr(price)),
    }


def test_spot_sizes_are_spot_offers() -> None:
    # Slugs and prices as in the 2026-10-08 /v2/sizes dump (see the module docstring).
    sizes = [
        _gpu_size("gpu-b300x1-288gb-spot", 8.0, 1, "nvidia_b300", 288),
        _gpu_size("gpu-b300x1-288gb-lc-spot", 8.0, 1, "nvidia_b300", 288),
        _gpu_size("gpu-mi325x1-256gb", 3.8, 1, "amd_mi325x", 256),
    ]
    offers = digitalocean.PROVIDER.parse([_api(_sizes_page(sizes))])
    assert {(o.instance_type, o.pricing, o.price) for o in offers} == {
        ("gpu-b300x1-288gb-spot", PricingModel.SPOT, Decimal("8.0")),
        ("gpu-b300x1-288gb-lc-spot", PricingModel.SPOT, Decimal("8.0")),
        ("gpu-mi325x1-256gb", PricingModel.ON_DEMAND, Decimal("3.8")),
    }


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"droplet_sizes": []}, "no 'sizes' list"),
        ({"sizes": [{"memory": 1024}]}, "size without a slug"),
        (_sizes_page([{**H100X1, "vcpus": None}]), r"no GPU Droplet prices found.*incomplete_size"),
        (_sizes_page([_size("s-1vcpu-1gb", 0.00893)]), "no GPU Droplet prices"),
        # One size read, two not: the fields moved, not two slips.
        (
            _sizes_page(
                [
                    H100X1,
                    {**H100X1, "slug": "gpu-h100x2-160gb", "memory": None},
                    {**H100X1, "slug": "gpu-h100x4-320gb", "memory": None},
                ]
            ),
            "unreadable than read: incomplete_size 2",
        ),
    ],
)
def test_broken_sizes_api_is_drift(document: dict[str, Any], message: str) -> None:
    with pytest.raises(SchemaDriftError, match=message):
        digitalocean.PROVIDER.parse_report([_api(document)])


# --- fetch -----------------------------------------------------------------------------------


class _Api:
    def __init__(self, pages: list[dict[str, Any]]) -> None:
        self.pages = pages
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        page = int(request.url.params.get("page", "1"))
        return httpx.Response(200, json=self.pages[page - 1])


def test_fetch_with_token_follows_next_links_with_bearer_auth() -> None:
    api = _Api([PAGE_1, PAGE_2])
    with make_client(httpx.MockTransport(api)) as client:
        responses = digitalocean.fetch(client, "do-token")
    assert [(r.url.host, r.url.path, dict(r.url.params)) for r in api.requests] == [
        ("api.digitalocean.com", "/v2/sizes", {"per_page": "200"}),
        ("api.digitalocean.com", "/v2/sizes", {"page": "2", "per_page": "200"}),
    ]
    assert {r.headers["authorization"] for r in api.requests} == {"Bearer do-token"}
    assert len(digitalocean.PROVIDER.parse(responses)) == 2  # + gpu-z9000x1-96gb, an unknown family


def test_fetch_never_sends_the_token_off_the_api_host() -> None:
    api = _Api([_sizes_page([], next_url="https://evil.example/v2/sizes?page=2")])
    with (
        make_client(httpx.MockTransport(api)) as client,
        pytest.raises(FetchError, match=r"not on api\.digitalocean\.com"),
    ):
        digitalocean.fetch(client, "do-token")
    assert len(api.requests) == 1


def test_fetch_stops_at_the_page_cap() -> None:
    def endless(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=_sizes_page([], next_url=f"{digitalocean.SIZES_URL}?p=n"))

    with (
        make_client(httpx.MockTransport(endless)) as client,
        pytest.raises(FetchError, match="more than 10 pages"),
    ):
        digitalocean.fetch(client, "do-token")


class _FailingPage2(_Api):
    def __init__(self, pages: list[dict[str, Any]], status: int) -> None:
        super().__init__(pages)
        self.status = status

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.params.get("page") == "2":
            self.requests.append(request)
            return httpx.Response(self.status, json={"id": "server_error"})
        return super().__call__(request)


def test_a_failed_later_page_is_reported_and_the_first_page_published(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(http, "pause", lambda seconds: None)  # retry backoff, not waited for
    api = _FailingPage2([PAGE_1, PAGE_2], status=500)
    with make_client(httpx.MockTransport(api)) as client:
        responses, skipped = digitalocean.PROVIDER.fetch_report(client, "do-token")
    assert list(skipped) == ["page 2"]
    assert f"HTTP 500 after {http.MAX_ATTEMPTS} attempts" in skipped["page 2"]
    assert len(api.requests) == 1 + http.MAX_ATTEMPTS  # page 1, then page 2 retried
    offers, _ = digitalocean.PROVIDER.parse_report(responses)
    assert [(o.instance_type, o.price) for o in offers] == [("gpu-h100x8-640gb", Decimal("23.92"))]
    # The strict fetch (no skips) fails on the same answers.
    with (
        make_client(httpx.MockTransport(_FailingPage2([PAGE_1, PAGE_2], status=500))) as client,
        pytest.raises(FetchError, match=r"page 2: .*HTTP 500"),
    ):
        digitalocean.fetch(client, "do-token")


def test_the_first_page_failing_is_a_fetch_error() -> None:
    def refused(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"id": "unauthorized"})

    with (
        make_client(httpx.MockTransport(refused)) as client,
        pytest.raises(FetchError, match="HTTP 401"),
    ):
        digitalocean.PROVIDER.fetch_report(client, "do-token")


def test_an_off_host_next_link_is_not_followed_but_reported() -> None:
    api = _Api([_sizes_page(PAGE_1["sizes"], next_url="https://evil.example/v2/sizes?page=2")])
    with make_client(httpx.MockTransport(api)) as client:
        responses, skipped = digitalocean.fetch_with_skips(client, "do-token")
    assert len(api.requests) == len(responses) == 1
    assert skipped == {
        "page 2": "GET https://api.digitalocean.com/v2/sizes: next page "
        "'https://evil.example/v2/sizes?page=2' is not on api.digitalocean.com, not read"
    }


def test_pages_past_the_cap_are_reported() -> None:
    seen: list[httpx.Request] = []

    def endless(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=_sizes_page([], next_url=f"{digitalocean.SIZES_URL}?p=n"))

    with make_client(httpx.MockTransport(endless)) as client:
        responses, skipped = digitalocean.fetch_with_skips(client, "do-token")
    assert len(seen) == len(responses) == digitalocean.MAX_PAGES
    assert skipped == {"page 11": f"GET {digitalocean.SIZES_URL}: more than 10 pages, not read"}


def test_fetch_without_token_reads_the_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=PAGE_2025_07.read_bytes())

    with make_client(httpx.MockTransport(handler)) as client:
        responses = digitalocean.fetch(client, None)
    assert [str(r.url) for r in seen] == [digitalocean.PRICING_URL]
    assert "authorization" not in seen[0].headers
    assert len(digitalocean.PROVIDER.parse(responses)) == 9


def test_replay_of_the_capture_parses() -> None:
    [capture] = discover(SNAPSHOTS, ["digitalocean"])["digitalocean"]
    with make_client(ReplayTransport(capture)) as client:
        responses = digitalocean.fetch(client, None)
    assert len(digitalocean.PROVIDER.parse(responses)) == 9
