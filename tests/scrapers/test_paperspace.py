"""Paperspace: the 2024 on-demand compute cards, their commitment footnotes, and fetch."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import paperspace
from scrapers.base import Offer, PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.http import make_client
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

CARDS_2024 = SNAPSHOTS / "paperspace" / "2024-01-23_wayback_pricing_excerpt.html"


def _raw() -> RawResponse:
    return raw_from_capture(CARDS_2024, url=paperspace.PRICING_URL)


def _mutated(old: str, new: str) -> RawResponse:
    raw = _raw()
    assert old.encode() in raw.body, f"mutation target {old!r} not in capture"
    return dataclasses.replace(raw, body=raw.body.replace(old.encode(), new.encode()))


def _by_key(offers: list[Offer]) -> dict[tuple[str, PricingModel], Offer]:
    return {(o.instance_type, o.pricing): o for o in offers}


def test_cards_prices_per_machine_hour() -> None:
    offers = paperspace.PROVIDER.parse([_raw()])
    assert len(offers) == 13
    by_key = _by_key(offers)
    a4000 = by_key[("A4000", PricingModel.ON_DEMAND)]
    assert (a4000.price, a4000.currency, a4000.price_unit, a4000.price_per) == (
        Decimal("0.76"),
        "USD",
        PriceUnit.HOUR,
        PricePer.INSTANCE,
    )
    assert (a4000.gpu_count, a4000.vcpus, a4000.ram_gb, a4000.vram_gb_reported) == (1, 8, 45, None)
    v100 = by_key[("V100", PricingModel.ON_DEMAND)]
    assert (v100.price, v100.vram_gb_reported, v100.ram_gb) == (Decimal("2.30"), 16, 30)
    assert v100.gpu_name == "NVIDIA Tesla V100 PCIe 16GB"  # CARD_GPU_NAMES
    assert a4000.gpu_name == "A4000"
    assert by_key[("M4000", PricingModel.ON_DEMAND)].price == Decimal("0.45")
    assert by_key[("RTX4000", PricingModel.ON_DEMAND)].price == Decimal("0.56")
    assert a4000.observed_at == datetime(2024, 1, 23, tzinfo=UTC)
    assert a4000.source_url == paperspace.PRICING_URL


def test_starred_prices_are_three_year_commitments() -> None:
    by_key = _by_key(paperspace.PROVIDER.parse([_raw()]))
    h100 = by_key[("H100", PricingModel.RESERVED)]
    assert (h100.price, h100.reserved_term_months, h100.vcpus, h100.ram_gb) == (
        Decimal("2.24"),
        36,
        20,
        256,
    )
    assert h100.gpu_name == "NVIDIA H100 SXM"  # CARD_GPU_NAMES; the card's spec: "HGX H100"
    a100 = by_key[("A100-80G", PricingModel.RESERVED)]
    assert (a100.price, a100.reserved_term_months) == (Decimal("1.15"), 36)
    assert a100.gpu_name == "NVIDIA A100 SXM4 80GB"
    assert ("A100-80G", PricingModel.ON_DEMAND) not in by_key  # no on-demand price printed


def test_footnoted_on_demand_h100_price() -> None:
    h100 = _by_key(paperspace.PROVIDER.parse([_raw()]))[("H100", PricingModel.ON_DEMAND)]
    assert (h100.price, h100.reserved_term_months) == (Decimal("6.00"), None)


def test_hidden_blocks_are_not_read() -> None:
    prices = {o.price for o in paperspace.PROVIDER.parse([_raw()])}
    assert Decimal("3.09") not in prices  # the H100 card's hidden stale price block
    assert Decimal("8.96") not in prices  # the unexplained parenthesised amount


def test_marker_without_its_footnote_leaves_that_card_out() -> None:
    raw = _mutated("**$1.15/hour pricing is for a 3-year commitment.", "")
    offers, excluded = paperspace.parse_with_exclusions([raw])
    assert excluded == {"unexplained_marker": 1}
    by_key = _by_key(offers)
    assert len(by_key) == 12
    assert not [k for k in by_key if k[0] == "A100-80G"]
    assert by_key[("H100", PricingModel.RESERVED)].price == Decimal("2.24")


def test_price_not_per_hour_is_an_unknown_unit_of_that_card() -> None:
    a4000_unit = (
        '<div class="text-block-22">/ hour</div></div>'
        '<ul role="list" class="instance-specs-list-2">'
        '<li><p class="instance-specs-2">NVIDIA A4000 GPU'
    )
    raw = _mutated(a4000_unit, a4000_unit.replace("/ hour", "/ mo"))
    offers, excluded = paperspace.parse_with_exclusions([raw])
    assert excluded == {"unknown_unit A4000": 1}
    by_key = _by_key(offers)
    assert len(by_key) == 12
    assert ("A4000", PricingModel.ON_DEMAND) not in by_key
    assert by_key[("A6000", PricingModel.ON_DEMAND)].price == Decimal("1.89")


def test_negative_price_is_still_drift() -> None:
    raw = _mutated(
        '<h1 class="instance-price-2">0.76</h1>', '<h1 class="instance-price-2">-0.76</h1>'
    )
    with pytest.raises(SchemaDriftError, match="card 'A4000': negative price"):
        paperspace.PROVIDER.parse([raw])


def test_card_of_an_unknown_machine_type_is_reported_by_name() -> None:
    # Regression (issue 11 §1): a new machine type must not hide the known cards' prices. The
    # H100 card renamed: the footnote "On-demand pricing for H100 ..." now names no card.
    raw = _mutated('<h1 class="instance-names">H100</h1>', '<h1 class="instance-names">H200</h1>')
    offers, excluded = paperspace.PROVIDER.parse_report([raw])
    assert excluded == {"unknown_sku H200": 1, "orphan_footnote": 1}
    by_key = _by_key(offers)
    assert len(by_key) == 11
    assert not [k for k in by_key if k[0] in ("H100", "H200")]
    assert by_key[("A100-80G", PricingModel.RESERVED)].price == Decimal("1.15")
    assert by_key[("M4000", PricingModel.ON_DEMAND)].price == Decimal("0.45")


def test_every_card_renamed_is_drift() -> None:
    raw = _raw()
    body = raw.body.replace(b'class="instance-names">', b'class="instance-names">Z')
    with pytest.raises(SchemaDriftError, match=r"no GPU offers found.*unknown_sku ZA4000"):
        paperspace.PROVIDER.parse([dataclasses.replace(raw, body=body)])


def test_missing_card_container_is_drift() -> None:
    raw = _mutated("instance-container-flex", "machine-grid")
    with pytest.raises(SchemaDriftError, match="no on-demand machine cards"):
        paperspace.PROVIDER.parse([raw])


def test_fetch_gets_the_pricing_page() -> None:
    seen: list[httpx.Request] = []
    body = CARDS_2024.read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=body, headers={"content-type": "text/html"})

    with make_client(httpx.MockTransport(handler)) as client:
        responses = paperspace.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", paperspace.PRICING_URL)]
    assert len(paperspace.PROVIDER.parse(responses)) == 13


@pytest.mark.parametrize("token", [None, "unused"])
def test_replay_of_every_capture_parses(token: str | None) -> None:
    captures = discover(SNAPSHOTS, ["paperspace"])["paperspace"]
    assert [c.path.name for c in captures] == [CARDS_2024.name]
    for capture in captures:
        with make_client(ReplayTransport(capture)) as client:
            offers = paperspace.PROVIDER.parse(paperspace.fetch(client, token))
        assert offers and all(o.observed_at == capture.captured_at for o in offers)
