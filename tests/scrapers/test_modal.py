"""Modal pricing-page scraper: the rendered per-second capture, mutated copies, the request."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import http, modal
from scrapers.base import PricePer, PriceUnit, PricingModel, SchemaDriftError
from tests.conftest import SNAPSHOTS, raw_from_capture

CAPTURE = SNAPSHOTS / "modal" / "2025-06-12_pricing_page_rendered.html"


def _raw(body: bytes | None = None):
    raw = raw_from_capture(CAPTURE, url=modal.PRICING_URL)
    return raw if body is None else replace(raw, body=body)


def _by_type(offers):
    return {o.instance_type: o for o in offers}


def test_one_offer_per_gpu_tier() -> None:
    offers = modal.PROVIDER.parse([_raw()])
    assert [o.gpu_name for o in offers] == [
        "Nvidia B200",
        "Nvidia H200",
        "NVIDIA H100 SXM",  # DEFAULT_GPU_NAMES: the page says "Nvidia H100"
        "NVIDIA A100 SXM4 80GB",  # "Nvidia A100, 80 GB"
        "NVIDIA A100 SXM4 40GB",  # "Nvidia A100, 40 GB"
        "Nvidia L40S",
        "Nvidia A10G",
        "Nvidia L4",
        "Nvidia T4",
    ]
    assert list(_by_type(offers)) == [
        "modal-b200",
        "modal-h200",
        "modal-h100",
        "modal-a100-80gb",
        "modal-a100-40gb",
        "modal-l40s",
        "modal-a10g",
        "modal-l4",
        "modal-t4",
    ]


def test_h100_price_per_gpu_second() -> None:
    h100 = _by_type(modal.PROVIDER.parse([_raw()]))["modal-h100"]
    assert h100.price == Decimal("0.001097")
    assert h100.currency == "USD"
    assert h100.price_unit is PriceUnit.SECOND
    assert h100.price_per is PricePer.GPU
    assert h100.gpu_count == 1
    assert h100.serverless is True
    assert h100.pricing is PricingModel.ON_DEMAND
    assert h100.region == "global"
    assert h100.provider == "modal"
    assert h100.source_url == "https://modal.com/pricing"
    assert h100.observed_at == datetime(2025, 6, 12, tzinfo=UTC)
    assert h100.vram_gb_reported is None  # the page does not state it for the H100


def test_other_tiers_read_off_the_capture() -> None:
    offers = _by_type(modal.PROVIDER.parse([_raw()]))
    assert offers["modal-b200"].price == Decimal("0.001736")
    assert offers["modal-t4"].price == Decimal("0.000164")
    a100 = offers["modal-a100-80gb"]
    assert (a100.price, a100.vram_gb_reported) == (Decimal("0.000694"), 80)
    assert offers["modal-a100-40gb"].vram_gb_reported == 40
    assert all(o.price_unit is PriceUnit.SECOND for o in offers.values())


def test_per_hour_toggle_is_read_as_hourly() -> None:
    body = CAPTURE.read_bytes().replace(b"/ sec</span>", b"/ h</span>")
    offers = _by_type(modal.PROVIDER.parse([_raw(body)]))
    assert len(offers) == 9
    assert offers["modal-h100"].price_unit is PriceUnit.HOUR
    assert offers["modal-h100"].price == Decimal("0.001097")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (b">GPU Tasks<", b">GPU Jobs<", "GPU Tasks"),
        # every row's unit: the whole panel changed unit, nothing is left to publish
        (b"/ sec</span>", b"/ day</span>", r"no priced GPU row .*unknown_unit /day 9"),
        (b'<div class="line-item svelte-1hbrymp">', b'<div class="row">', "no div.line-item"),
    ],
)
def test_mutated_capture_raises(old: bytes, new: bytes, message: str) -> None:
    body = CAPTURE.read_bytes()
    assert old in body
    with pytest.raises(SchemaDriftError, match=message):
        modal.PROVIDER.parse_report([_raw(body.replace(old, new))])


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        (b'class="price svelte-1hbrymp">$0.001097', b'class="cost">$0.001097', "unparsed_row"),
        (b"$0.001097 <span", b"call us <span", "unparsed_price"),
        (
            b'$0.001097 <span class="text-light-green/60">/ sec</span>',
            b"$0.001097",
            "no_price_unit",
        ),
        (
            b'$0.001097 <span class="text-light-green/60">/ sec',
            b"$0.001097 <span>/ day",
            "unknown_unit /day",
        ),
    ],
)
def test_one_unreadable_row_is_excluded_and_the_others_published(
    old: bytes, new: bytes, reason: str
) -> None:
    body = CAPTURE.read_bytes()
    assert body.count(old) == 1  # the H100 row only
    offers, excluded = modal.PROVIDER.parse_report([_raw(body.replace(old, new))])
    assert excluded == {reason: 1}
    by_type = _by_type(offers)
    assert "modal-h100" not in by_type and len(by_type) == 8
    assert by_type["modal-h200"].price == Decimal("0.001261")


def test_negative_price_is_emitted_for_the_loader_to_reject() -> None:
    body = CAPTURE.read_bytes().replace(b"$0.001097 <span", b"$-0.001097 <span")
    assert _by_type(modal.PROVIDER.parse([_raw(body)]))["modal-h100"].price == Decimal("-0.001097")


def test_unknown_gpu_label_is_reported_not_published() -> None:
    body = CAPTURE.read_bytes().replace(b">Nvidia L4<", b">Nvidia L5<")
    offers, excluded = modal.PROVIDER.parse_report([_raw(body)])
    assert excluded == {"unknown_gpu Nvidia L5": 1}
    by_type = _by_type(offers)
    assert "modal-l5" not in by_type and "modal-l4" not in by_type and len(by_type) == 8
    assert by_type["modal-t4"].price == Decimal("0.000164")


def test_tier_names_are_matched_without_regard_to_case_and_spacing() -> None:
    body = CAPTURE.read_bytes().replace(b">Nvidia H100<", b">NVIDIA  H100<")
    h100 = _by_type(modal.PROVIDER.parse([_raw(body)]))["modal-h100"]
    assert (h100.gpu_name, h100.price) == ("NVIDIA H100 SXM", Decimal("0.001097"))


def test_tier_listed_twice_raises() -> None:
    body = CAPTURE.read_bytes().replace(b">Nvidia H200<", b">Nvidia H100<")
    with pytest.raises(SchemaDriftError, match="listed twice"):
        modal.PROVIDER.parse([_raw(body)])


def test_new_tier_labels_rtx_pro_6000_and_a10_are_read() -> None:
    # Modal's GPU docs now list A10 (was A10G) and RTX-PRO-6000; relabel two real rows.
    body = (
        CAPTURE.read_bytes()
        .replace(b">Nvidia A10G<", b">Nvidia A10<")
        .replace(b">Nvidia L40S<", b">Nvidia RTX PRO 6000<")
    )
    offers = _by_type(modal.PROVIDER.parse([_raw(body)]))
    assert len(offers) == 9
    assert (offers["modal-a10"].gpu_name, offers["modal-a10"].price) == (
        "Nvidia A10",
        Decimal("0.000306"),
    )
    pro = offers["modal-rtx-pro-6000"]
    assert (pro.gpu_name, pro.price, pro.vram_gb_reported) == (
        "Nvidia RTX PRO 6000",
        Decimal("0.000542"),
        None,
    )


def _gpu_rows() -> bytes:
    """The real capture's GPU Tasks row list (heading + div), as a block to copy."""
    body = CAPTURE.read_bytes()
    start = body.index(b'<p class="font-medium text-lg mb-2">GPU Tasks</p>')
    end = body.index(b'<hr class="my-5', start)
    return body[start:end]


def _with_after_memory(block: bytes) -> bytes:
    body = CAPTURE.read_bytes()
    at = body.index(b"/ GiB / sec</span></p>")
    at = body.index(b"</div>", at) + len(b"</div>")
    return body[:at] + block + body[at:]


def test_sandbox_section_with_its_own_gpu_tasks_is_excluded_and_counted() -> None:
    # Constructed: a Sandboxes section after the Function prices, with its own "GPU Tasks"
    # list at other prices. The Function offers are unchanged; each Sandbox row is counted.
    sandbox_rows = _gpu_rows().replace(b"$0.00", b"$0.01")
    body = _with_after_memory(b'<h3 class="marketing-h4">Sandboxes</h3> ' + sandbox_rows)
    offers, excluded = modal.parse_with_exclusions([_raw(body)])
    assert excluded == {"sandbox_price": 9}
    assert offers == modal.PROVIDER.parse([_raw()])


def test_sandbox_paragraph_heading_rows_are_excluded_and_counted() -> None:
    rows = _gpu_rows().split(b"</p>", 1)[1].replace(b"$0.00", b"$0.02")
    body = _with_after_memory(b'<p class="font-medium text-lg mb-2">Sandbox GPUs</p>' + rows)
    offers, excluded = modal.parse_with_exclusions([_raw(body)])
    assert excluded == {"sandbox_price": 9}
    assert [o.price for o in offers] == [o.price for o in modal.PROVIDER.parse([_raw()])]


def test_unpriced_gpu_row_is_counted_and_a_second_function_list_is_drift() -> None:
    body = CAPTURE.read_bytes().replace(
        b'$0.001736 <span class="text-light-green/60">/ sec</span>', b"Contact us"
    )
    offers, excluded = modal.parse_with_exclusions([_raw(body)])
    assert excluded == {"contact us": 1}
    assert "modal-b200" not in _by_type(offers) and len(offers) == 8
    # A second GPU Tasks list outside any Sandbox section is not guessed at.
    with pytest.raises(SchemaDriftError, match="expected one 'GPU Tasks' heading, found 2"):
        modal.PROVIDER.parse([_raw(_with_after_memory(_gpu_rows()))])


def test_fetch_gets_the_pricing_page() -> None:
    body = CAPTURE.read_bytes()
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, content=body, headers={"content-type": "text/html"})

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = modal.fetch(client, None)

    (request,) = requests
    assert request.method == "GET"
    assert str(request.url) == "https://modal.com/pricing"
    assert "authorization" not in request.headers
    assert request.headers["user-agent"] == http.USER_AGENT
    assert len(modal.PROVIDER.parse(responses)) == 9
