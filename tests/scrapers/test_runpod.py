"""RunPod scraper on every real capture (GraphQL with and without envelope, lowestPrice items,
the 2023 __NEXT_DATA__ page, the 2025-09 pricing rows, the 2026-08 ld+json) and the live
GraphQL request shape."""

from __future__ import annotations

import importlib
import json
import re
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest

from scrapers import http, runpod
from scrapers.base import (
    FetchError,
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    RawResponse,
    SchemaDriftError,
)
from scrapers.parsing import offers_from_rows
from tests.conftest import SNAPSHOTS, raw_from_capture

RUNPOD = SNAPSHOTS / "runpod"
NEXT_DATA_2023 = RUNPOD / "2023-09-29_wayback_gpu-instance-pricing_next_data_excerpt.html"
GRAPHQL_2025_06_15_1027 = RUNPOD / "2025-06-15T1027Z_graphql_gpuTypes.json"
GRAPHQL_2025_06_15_1427 = RUNPOD / "2025-06-15T1427Z_graphql_gpuTypes.json"
GRAPHQL_2025_06_19_1914 = RUNPOD / "2025-06-19T1914Z_graphql_gpuTypes.json"
ROWS_2025_09 = RUNPOD / "2025-09-09_wayback_pricing_excerpt.html"
ITEMS_2026_03 = RUNPOD / "2026-03-31_to_04-01_graphql_gpuTypes_items.json"
LD_JSON_2026_08 = RUNPOD / "2026-08-10_wayback_pricing_ld-json_excerpt.html"
ENVELOPE_2026_09 = RUNPOD / "c2026-09_graphql_gpuTypes_response.json"
PARSED_2026_02 = RUNPOD / "2026-02-11_parsed_pricing_page.json"  # another tool's output

H100_SXM = "1x NVIDIA H100 80GB HBM3"  # RunPod's gpu type id for the H100 SXM

ON_DEMAND, SPOT, RESERVED = PricingModel.ON_DEMAND, PricingModel.SPOT, PricingModel.RESERVED
Key = tuple[str, str, PricingModel, int | None]


def _raw(path: Path, body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(path, url=runpod.GRAPHQL_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def _place(offer: Offer) -> str:
    """Where a price is: its tier for a RunPod-wide price (region global), else its data
    centre or country (whose tier the offer carries too)."""
    return offer.cloud_tier or "" if offer.region == "global" else offer.region


def _offers(path: Path, body: bytes | None = None) -> dict[Key, Offer]:
    offers = runpod.PROVIDER.parse([_raw(path, body)])
    by_key = {(o.instance_type, _place(o), o.pricing, o.reserved_term_months): o for o in offers}
    assert len(by_key) == len(offers)
    for offer in offers:
        assert offer.provider == "runpod"
        assert offer.currency == "USD"
        assert offer.price_unit is PriceUnit.HOUR
        assert offer.price > 0
        if " MIG " in offer.instance_type:  # a slice: a share of one GPU, priced per slice
            assert (offer.gpu_count < 1, offer.price_per) == (True, PricePer.INSTANCE)
        else:
            assert (offer.gpu_count, offer.price_per) == (1, PricePer.GPU)
    return by_key


def _price(offers: dict[Key, Offer], name: str, region: str, pricing: PricingModel,
           term: int | None = None) -> Decimal:  # fmt: skip
    return offers[(name, region, pricing, term)].price


def _mix(offers: dict[Key, Offer]) -> Counter[tuple[str, str, int | None]]:
    """Offered prices per (region, pricing, term): flagged placeholders left out."""
    return Counter(
        (region, pricing.value, term)
        for (_, region, pricing, term), offer in offers.items()
        if offer.offered is not False
    )


def _offered(offers: dict[Key, Offer]) -> dict[Key, Offer]:
    return {k: o for k, o in offers.items() if o.offered is not False}


# --- GraphQL gpuTypes arrays without envelope (2025-06) -------------------------------------------


def test_2025_06_15_1027_graphql_array_read_off_the_capture() -> None:
    offers = _offers(GRAPHQL_2025_06_15_1027)
    assert len(_offered(offers)) == 149
    assert len(offers) == 171  # 22 prices in slots flagged as not offered, kept as offered=False
    assert all(o.offered is not None for o in offers.values())  # this query asked for the flags
    assert _mix(offers) == {
        ("secure", "on_demand", None): 23,
        ("community", "on_demand", None): 32,
        ("secure", "spot", None): 19,
        ("community", "spot", None): 29,
        ("secure", "reserved", 3): 23,
        ("secure", "reserved", 6): 23,
    }  # oneMonthPrice and oneWeekPrice are null throughout this capture

    h100 = offers[(H100_SXM, "secure", ON_DEMAND, None)]
    assert h100.price == Decimal("2.99")  # "securePrice": 2.99
    assert h100.gpu_name == "NVIDIA H100 80GB HBM3"
    assert h100.vram_gb_reported == 80
    assert h100.source_url == "https://api.runpod.io/graphql"
    assert h100.observed_at == datetime(2025, 6, 15, 10, 27, tzinfo=UTC)
    assert _price(offers, H100_SXM, "community", ON_DEMAND) == Decimal("2.69")
    assert _price(offers, H100_SXM, "secure", SPOT) == Decimal("1.75")
    assert _price(offers, H100_SXM, "community", SPOT) == Decimal("1.5")
    assert _price(offers, H100_SXM, "secure", RESERVED, 3) == Decimal("2.811")
    assert _price(offers, H100_SXM, "secure", RESERVED, 6) == Decimal("2.601")


def test_2025_06_availability_flags_screen_out_placeholder_prices() -> None:
    offers = _offers(GRAPHQL_2025_06_15_1027)
    mi300x = "1x AMD Instinct MI300X OAM"
    assert _price(offers, mi300x, "secure", ON_DEMAND) == Decimal("2.49")
    assert _price(offers, mi300x, "secure", RESERVED, 6) == Decimal("1.992")
    # communityCloud false, communityPrice 0.5: a placeholder, kept flagged as not offered
    # (the plausibility screen marks it suspect; warehouse/plausibility.py).
    placeholder = offers[(mi300x, "community", ON_DEMAND, None)]
    assert (placeholder.price, placeholder.offered) == (Decimal("0.5"), False)
    assert offers[(mi300x, "secure", ON_DEMAND, None)].offered is True
    # securePrice 0 (and secureCloud false): no price at all, no record.
    assert ("1x NVIDIA GeForce RTX 3070", "secure", ON_DEMAND, None) not in offers
    assert _price(offers, "1x NVIDIA GeForce RTX 3070", "community", ON_DEMAND) == Decimal("0.13")
    # The "unknown" gpu type has only zero prices and no cloud: no offers at all.
    assert not [k for k in offers if k[0] == "1x unknown"]


@pytest.mark.parametrize(
    ("capture", "observed_at"),
    [
        (GRAPHQL_2025_06_15_1427, datetime(2025, 6, 15, 14, 27, tzinfo=UTC)),
        (GRAPHQL_2025_06_19_1914, datetime(2025, 6, 19, 19, 14, tzinfo=UTC)),
    ],
)
def test_2025_06_later_arrays_with_node_group_datacenters(
    capture: Path, observed_at: datetime
) -> None:
    offers = _offers(capture)
    assert len(_offered(offers)) == 149
    h100 = offers[(H100_SXM, "secure", ON_DEMAND, None)]
    assert (h100.price, h100.observed_at) == (Decimal("2.99"), observed_at)
    assert _price(offers, "1x NVIDIA H200", "secure", ON_DEMAND) == Decimal("3.99")
    assert _price(offers, "1x NVIDIA H200", "community", ON_DEMAND) == Decimal("3.59")


# --- GraphQL with envelope, 5-field query (c2026-09) ----------------------------------------------


def test_c2026_09_envelope_read_off_the_capture() -> None:
    offers = _offers(ENVELOPE_2026_09)
    assert len(offers) == 88
    assert _mix(offers) == {("secure", "on_demand", None): 41, ("community", "on_demand", None): 47}
    assert _price(offers, H100_SXM, "secure", ON_DEMAND) == Decimal("3.49")
    assert _price(offers, H100_SXM, "community", ON_DEMAND) == Decimal("2.69")
    b300 = "1x NVIDIA B300 SXM6 AC"
    assert _price(offers, b300, "secure", ON_DEMAND) == Decimal("7.89")
    assert offers[(b300, "community", ON_DEMAND, None)].vram_gb_reported == 288
    # "securePrice": 0 -> not offered.
    assert ("1x NVIDIA A100-SXM4-40GB", "secure", ON_DEMAND, None) not in offers
    assert offers[(H100_SXM, "secure", ON_DEMAND, None)].observed_at == datetime(
        2026, 9, 1, tzinfo=UTC
    )


def test_c2026_09_mig_slices_are_fractions_of_the_full_gpu() -> None:
    # "NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 1g.24gb": memoryInGb 24, securePrice 0.59
    offers = _offers(ENVELOPE_2026_09)
    pro6000 = "NVIDIA RTX PRO 6000 Blackwell Server Edition"
    quarter = offers[(f"1x {pro6000} MIG 1g.24gb", "secure", ON_DEMAND, None)]
    assert (quarter.gpu_name, quarter.gpu_count, quarter.vram_gb_reported) == (pro6000, 0.25, 96)
    assert (quarter.price, quarter.price_per) == (Decimal("0.59"), PricePer.INSTANCE)
    assert quarter.gpu_count * 96 == 24  # count x full VRAM = the slice's memory
    half = offers[(f"1x {pro6000} MIG 2g.48gb", "secure", ON_DEMAND, None)]
    assert (half.gpu_name, half.gpu_count, half.vram_gb_reported) == (pro6000, 0.5, 96)
    assert half.price == Decimal("1.09")
    whole = offers[(f"1x {pro6000}", "secure", ON_DEMAND, None)]
    assert (whole.gpu_name, whole.gpu_count, whole.price) == (pro6000, 1, Decimal("2.09"))
    rtx4500_se = offers[
        ("1x NVIDIA RTX PRO 4500 Blackwell Server Edition", "secure", ON_DEMAND, None)
    ]
    assert (rtx4500_se.price, rtx4500_se.vram_gb_reported) == (Decimal("0.72"), 32)


def test_c2026_09_without_flags_placeholders_cannot_be_screened() -> None:
    # Documented limitation: this query did not ask for secureCloud/communityCloud, so the 0.50
    # community placeholder of the MI300X (community not offered in every flagged capture)
    # passes as an offer. The live query always asks for the flags.
    offers = _offers(ENVELOPE_2026_09)
    assert _price(offers, "1x AMD Instinct MI300X OAM", "community", ON_DEMAND) == Decimal("0.5")


# --- lowestPrice items (2026-03) ------------------------------------------------------------------


def test_2026_03_lowest_price_items_read_off_the_capture() -> None:
    offers = _offers(ITEMS_2026_03)
    assert len(_offered(offers)) == 80
    assert _mix(offers) == {
        ("community", "on_demand", None): 31,
        ("community", "spot", None): 24,
        ("secure", "spot", None): 25,
    }  # no securePrice in this query: no secure on-demand offers
    # lowestPrice {minimumBidPrice: 1.5, uninterruptablePrice: 2.69}, secureSpotPrice 1.75
    assert _price(offers, H100_SXM, "community", ON_DEMAND) == Decimal("2.69")
    assert _price(offers, H100_SXM, "community", SPOT) == Decimal("1.5")
    assert _price(offers, H100_SXM, "secure", SPOT) == Decimal("1.75")
    assert _price(offers, "1x NVIDIA B200", "community", ON_DEMAND) == Decimal("5.98")
    # MI300X: communityCloud false, uninterruptablePrice 0.5 is the placeholder.
    assert offers[("1x AMD Instinct MI300X OAM", "community", ON_DEMAND, None)].offered is False
    assert _price(offers, "1x AMD Instinct MI300X OAM", "secure", SPOT) == Decimal("1.49")
    # secureCloud false: its secureSpotPrice 0.42 is flagged as not offered.
    assert offers[("1x NVIDIA RTX 5000 Ada Generation", "secure", SPOT, None)].offered is False


# --- 2023 __NEXT_DATA__ on www.runpod.io/gpu-instance/pricing -------------------------------------


def test_2023_09_next_data_read_off_the_capture() -> None:
    offers = _offers(NEXT_DATA_2023)
    assert len(_offered(offers)) == 77
    assert all(
        o.source_url == "https://www.runpod.io/gpu-instance/pricing" for o in offers.values()
    )
    assert _price(offers, H100_SXM, "secure", ON_DEMAND) == Decimal("4.49")
    assert _price(offers, H100_SXM, "community", ON_DEMAND) == Decimal("4.09")
    assert _price(offers, H100_SXM, "community", SPOT) == Decimal("2.49")
    a6000 = "1x NVIDIA RTX A6000"
    assert _price(offers, a6000, "secure", RESERVED, 1) == Decimal("0.75")
    assert _price(offers, a6000, "secure", RESERVED, 3) == Decimal("0.71")
    assert _price(offers, a6000, "secure", RESERVED, 6) == Decimal("0.67")
    assert _price(offers, a6000, "secure", SPOT) == Decimal("0.49")
    # L40: communityCloud false with a 0.5 community placeholder -> flagged, not offered.
    assert _price(offers, "1x NVIDIA L40", "secure", ON_DEMAND) == Decimal("1.14")
    l40_community = offers[("1x NVIDIA L40", "community", ON_DEMAND, None)]
    assert (l40_community.price, l40_community.offered) == (Decimal("0.5"), False)
    assert offers[(a6000, "secure", ON_DEMAND, None)].observed_at == datetime(
        2023, 9, 29, tzinfo=UTC
    )


# --- 2025-09 www.runpod.io/pricing rows with data attributes --------------------------------------


def test_2025_09_pricing_rows_read_off_the_capture() -> None:
    offers = _offers(ROWS_2025_09)
    # H200 (its row opener is cut), B200, H100 NVL, H100 PCIe, H100 SXM; A100 PCIe is cut
    # after its name and has no specs or prices in the excerpt.
    assert len(offers) == 10
    h200 = offers[("1x H200", "secure", ON_DEMAND, None)]
    assert (h200.price, h200.vram_gb_reported, h200.ram_gb, h200.vcpus) == (
        Decimal("3.79"), 141, 276, 24,
    )  # fmt: skip
    assert h200.gpu_name == "H200"
    assert h200.source_url == "https://www.runpod.io/pricing"
    assert _price(offers, "1x H200", "community", ON_DEMAND) == Decimal("3.59")
    assert _price(offers, "1x B200", "secure", ON_DEMAND) == Decimal("5.99")
    assert _price(offers, "1x B200", "community", ON_DEMAND) == Decimal("5.98")
    assert _price(offers, "1x H100 NVL", "secure", ON_DEMAND) == Decimal("2.79")
    assert _price(offers, "1x H100 PCIe", "community", ON_DEMAND) == Decimal("1.99")
    sxm = offers[("1x H100 SXM", "community", ON_DEMAND, None)]
    assert (sxm.price, sxm.ram_gb, sxm.vcpus) == (Decimal("2.69"), 125, 20)
    assert not [k for k in offers if "A100" in k[0]]


def test_2025_09_specs_agree_with_the_2026_02_parsed_page() -> None:
    # Cross-check only: another tool's parse of the same page layout five months later. Specs
    # (VRAM, RAM, vCPUs) should agree; prices moved in between, so they are not compared.
    theirs = {row["product"]: row for row in json.loads(PARSED_2026_02.read_text())}
    ours = {o.gpu_name: o for o in _offers(ROWS_2025_09).values()}
    assert set(ours) <= set(theirs)
    for name, offer in ours.items():
        row = theirs[name]
        assert (offer.vram_gb_reported, offer.ram_gb, offer.vcpus) == (
            Decimal(str(row["vram_gb"])), row["system_ram_gb"], row["vcpus"],
        ), name  # fmt: skip


# --- 2026-08 www.runpod.io/pricing ld+json --------------------------------------------------------


def test_2026_08_ld_json_read_off_the_capture() -> None:
    offers = _offers(LD_JSON_2026_08)
    assert len(offers) == 38  # 19 GPU products x (Community, Secure)
    assert _price(offers, "1x H100 SXM", "community", ON_DEMAND) == Decimal("2.69")
    assert _price(offers, "1x H100 SXM", "secure", ON_DEMAND) == Decimal("2.99")
    assert _price(offers, "1x B300", "secure", ON_DEMAND) == Decimal("7.39")
    assert _price(offers, "1x L4", "community", ON_DEMAND) == Decimal("0.44")
    assert _price(offers, "1x L4", "secure", ON_DEMAND) == Decimal("0.39")
    assert _price(offers, "1x RTX Pro 6000", "secure", ON_DEMAND) == Decimal("1.99")
    sxm = offers[("1x H100 SXM", "secure", ON_DEMAND, None)]
    assert sxm.vram_gb_reported is None  # the ld+json carries no specs
    assert sxm.observed_at == datetime(2026, 8, 10, tzinfo=UTC)
    # "A100 PCIe" / "A100 SXM" become RunPod's gpu type ids (DISPLAY_NAME_IDS); the display
    # name stays the instance type.
    a100_pcie = offers[("1x A100 PCIe", "secure", ON_DEMAND, None)]
    assert a100_pcie.gpu_name == "NVIDIA A100 80GB PCIe"
    assert offers[("1x A100 SXM", "secure", ON_DEMAND, None)].gpu_name == "NVIDIA A100-SXM4-80GB"
    assert sxm.gpu_name == "H100 SXM"


# --- mutated captures -> SchemaDriftError ---------------------------------------------------------


def test_renamed_price_key_in_every_item_is_drift() -> None:
    body = GRAPHQL_2025_06_15_1027.read_bytes().replace(b'"securePrice"', b'"secureRate"')
    with pytest.raises(SchemaDriftError, match="no price fields"):
        runpod.PROVIDER.parse([_raw(GRAPHQL_2025_06_15_1027, body)])


def test_price_removed_from_one_item_is_drift() -> None:
    items = json.loads(GRAPHQL_2025_06_15_1027.read_bytes())
    h100 = next(item for item in items if item["id"] == "NVIDIA H100 80GB HBM3")
    del h100["securePrice"]
    with pytest.raises(SchemaDriftError, match="NVIDIA H100 80GB HBM3"):
        runpod.PROVIDER.parse([_raw(GRAPHQL_2025_06_15_1027, json.dumps(items).encode())])


def _parse_report(path: Path, body: bytes) -> tuple[dict[Key, Offer], dict[str, int]]:
    offers, excluded = runpod.PROVIDER.parse_report([_raw(path, body)])
    by_key = {(o.instance_type, _place(o), o.pricing, o.reserved_term_months): o for o in offers}
    return by_key, dict(excluded)


def _c2026_09_with(change: Callable[[list[dict[str, Any]]], None]) -> bytes:
    payload = json.loads(ENVELOPE_2026_09.read_bytes())
    change(payload["data"]["gpuTypes"])
    return json.dumps(payload).encode()


def test_price_that_is_not_a_number_leaves_that_price_out() -> None:
    def change(items: list[dict[str, Any]]) -> None:
        assert items[0]["id"] == "AMD Instinct MI300X OAM"
        items[0]["securePrice"] = "call us"

    offers, excluded = _parse_report(ENVELOPE_2026_09, _c2026_09_with(change))
    assert excluded == {"unparsed_price": 1}
    assert len(offers) == 87
    mi300x = "1x AMD Instinct MI300X OAM"
    assert (mi300x, "secure", ON_DEMAND, None) not in offers
    assert _price(offers, mi300x, "community", ON_DEMAND) == Decimal("0.5")
    assert _price(offers, H100_SXM, "secure", ON_DEMAND) == Decimal("3.49")


def test_negative_price_is_still_drift() -> None:
    # An impossible price is a broken answer, not one odd price (the fault matrix's
    # negative_price): the scrape fails and the last good data stays served.
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["securePrice"] = -2.49

    with pytest.raises(SchemaDriftError, match="negative price"):
        runpod.PROVIDER.parse([_raw(ENVELOPE_2026_09, _c2026_09_with(change))])


def test_c2026_09_item_of_an_unknown_gpu_is_reported_by_name() -> None:
    # Regression (issue 11 §1): a new gpu type must not hide the 88 known prices.
    def change(items: list[dict[str, Any]]) -> None:
        h100 = next(i for i in items if i["id"] == "NVIDIA H100 80GB HBM3")
        items.append({**h100, "id": "NVIDIA B400", "displayName": "B400", "memoryInGb": 384})

    offers, excluded = _parse_report(ENVELOPE_2026_09, _c2026_09_with(change))
    assert excluded == {"unknown_gpu NVIDIA B400": 1}
    assert len(offers) == 88
    assert _price(offers, H100_SXM, "secure", ON_DEMAND) == Decimal("3.49")
    assert _price(offers, "1x NVIDIA B300 SXM6 AC", "secure", ON_DEMAND) == Decimal("7.89")


def test_unknown_gpu_with_only_zero_prices_is_not_reported() -> None:
    # Like the "unknown" placeholder type of the captures: no price, no offer, nothing to name.
    def change(items: list[dict[str, Any]]) -> None:
        items.append({**items[0], "id": "NVIDIA B400", "securePrice": 0, "communityPrice": None})

    offers, excluded = _parse_report(ENVELOPE_2026_09, _c2026_09_with(change))
    assert (len(offers), excluded) == (88, {})


def test_mig_slice_of_an_unknown_gpu_is_reported_by_name() -> None:
    body = ENVELOPE_2026_09.read_bytes().replace(
        b"NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 1g.24gb", b"NVIDIA B300 MIG 1g.36gb"
    )
    offers, excluded = _parse_report(ENVELOPE_2026_09, body)
    assert excluded == {"unknown_gpu NVIDIA B300 MIG 1g.36gb": 1}
    assert len(offers) == 86  # the slice's secure and community prices
    assert _price(offers, "1x NVIDIA B300 SXM6 AC", "secure", ON_DEMAND) == Decimal("7.89")


def test_mig_slice_whose_memory_disagrees_with_its_profile_is_counted() -> None:
    def change(items: list[dict[str, Any]]) -> None:
        next(i for i in items if i["id"].endswith("MIG 2g.48gb"))["memoryInGb"] = 40

    offers, excluded = _parse_report(ENVELOPE_2026_09, _c2026_09_with(change))
    assert excluded == {"mig_memory_mismatch": 1}
    assert not [k for k in offers if k[0].endswith("MIG 2g.48gb")]
    assert len(offers) == 86


def test_more_than_half_of_the_items_unknown_is_drift() -> None:
    def change(items: list[dict[str, Any]]) -> None:
        for item in items:
            if item["id"] != "NVIDIA H100 80GB HBM3":
                item["id"] = "Z " + item["id"]

    with pytest.raises(SchemaDriftError, match="GPU rows are unknown"):
        runpod.PROVIDER.parse_report([_raw(ENVELOPE_2026_09, _c2026_09_with(change))])


def test_graphql_error_envelope_is_drift() -> None:
    # Shape per the GraphQL spec: what the API answers when a queried field no longer exists.
    body = json.dumps(
        {"errors": [{"message": 'Cannot query field "oneWeekPrice" on type "GpuType".'}]}
    ).encode()
    with pytest.raises(SchemaDriftError, match="oneWeekPrice"):
        runpod.PROVIDER.parse([_raw(ENVELOPE_2026_09, body)])


def test_lowest_price_items_without_lowest_price_are_drift() -> None:
    body = ITEMS_2026_03.read_bytes().replace(b'"lowestPrice"', b'"lowPrice"')
    with pytest.raises(SchemaDriftError, match="no price fields"):
        runpod.PROVIDER.parse([_raw(ITEMS_2026_03, body)])


def test_2025_09_row_without_community_price_leaves_that_price_out() -> None:
    body = ROWS_2025_09.read_bytes().replace(b' data-community-cloud-price="5.98"', b"")
    offers, excluded = _parse_report(ROWS_2025_09, body)
    assert excluded == {"missing_price": 1}
    assert ("1x B200", "community", ON_DEMAND, None) not in offers
    assert _price(offers, "1x B200", "secure", ON_DEMAND) == Decimal("5.99")
    assert len(offers) == 9


def test_2025_09_row_of_an_unknown_gpu_is_reported_by_name() -> None:
    body = ROWS_2025_09.read_bytes().replace(b">H100 NVL<", b">H300 NVL<")
    offers, excluded = _parse_report(ROWS_2025_09, body)
    assert excluded == {"unknown_gpu H300 NVL": 1}
    assert len(offers) == 8
    assert _price(offers, "1x H100 PCIe", "community", ON_DEMAND) == Decimal("1.99")


def test_2025_09_spec_tag_renamed_in_every_row_is_drift() -> None:
    body = ROWS_2025_09.read_bytes().replace(b">GB RAM<", b">GB Memory<")
    with pytest.raises(SchemaDriftError, match=r"no offers found.*unknown_spec GB Memory: 5"):
        runpod.PROVIDER.parse([_raw(ROWS_2025_09, body)])


def test_2026_08_unknown_offer_name_is_an_unknown_region_of_that_price() -> None:
    body = LD_JSON_2026_08.read_bytes().replace(b'"name": "Secure Cloud"', b'"name": "Cloud"', 1)
    offers, excluded = _parse_report(LD_JSON_2026_08, body)
    assert excluded == {"unknown_region Cloud": 1}
    assert len(offers) == 37
    assert _price(offers, "1x H100 SXM", "secure", ON_DEMAND) == Decimal("2.99")


def test_unknown_page_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="unknown layout"):
        runpod.PROVIDER.parse([_raw(ROWS_2025_09, b"<html><body><h1>Pricing</h1></body></html>")])


# --- live fetch: request shape --------------------------------------------------------------------


def _recording_client(requests: list[httpx.Request]) -> httpx.Client:
    """Every request answered with the newest capture, as replay answers it: it lists no data
    centres or countries, so the fetch asks no location."""

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(
            200, headers={"content-type": "application/json"}, content=ENVELOPE_2026_09.read_bytes()
        )

    return http.make_client(httpx.MockTransport(handler))


def test_provider_does_not_require_a_key() -> None:
    assert runpod.PROVIDER.token_env == "RUNPOD_API_KEY"
    assert runpod.PROVIDER.token_required is False
    assert runpod.PROVIDER.fetch_with_skips is runpod.fetch_with_skips


@pytest.mark.parametrize("token", [None, ""])
def test_fetch_without_key_posts_the_query_with_no_authorization(token: str | None) -> None:
    # gpuhunt posts its gpuTypes queries to the same endpoint with no credentials.
    requests: list[httpx.Request] = []
    with _recording_client(requests) as client:
        responses = runpod.fetch(client, token)

    assert [(r.method, str(r.url)) for r in requests] == [
        ("POST", "https://api.runpod.io/graphql"),
        ("POST", "https://api.runpod.io/graphql#locations"),  # gpuhunt's locations query
    ]
    for request in requests:
        assert "authorization" not in request.headers
        assert "api_key" not in str(request.url)
        assert request.headers["content-type"] == "application/json"
        assert request.headers["user-agent"] == http.USER_AGENT
    query = json.loads(requests[0].content)["query"]
    assert {"secureCloud", "communityCloud"} <= set(query.split())  # flags for placeholders
    assert json.loads(requests[1].content) == {"query": runpod.LOCATIONS_QUERY, "variables": {}}
    assert len(runpod.PROVIDER.parse(responses)) == 88  # the same body twice: read once


def test_fetch_with_rejected_key_fails_and_does_not_retry_without_it() -> None:
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(401, text="unauthorized")

    with (
        http.make_client(httpx.MockTransport(handler)) as client,
        pytest.raises(FetchError, match="HTTP 401"),
    ):
        runpod.fetch(client, "rp_wrong")
    assert [r.headers.get("authorization") for r in requests] == ["Bearer rp_wrong"]


def test_fetch_with_key_posts_the_gpu_types_query_with_bearer_auth() -> None:
    requests: list[httpx.Request] = []
    with _recording_client(requests) as client:
        responses = runpod.fetch(client, "rp_secret")

    assert len(requests) == 2
    request = requests[0]
    assert (request.method, str(request.url)) == ("POST", "https://api.runpod.io/graphql")
    assert [r.headers["authorization"] for r in requests] == ["Bearer rp_secret"] * 2
    assert request.headers["content-type"] == "application/json"
    assert all("rp_secret" not in r.url for r in responses)  # the key stays out of the URLs
    query = json.loads(request.content)["query"]
    assert "gpuTypes" in query
    assert "lowestPrice(input: {gpuCount: 1})" in query
    for field in ("minimumBidPrice", "uninterruptablePrice"):
        assert field in query
    # Every field name the query asks for is spelled as in the 2025-06 API captures.
    captured_keys = set(json.loads(GRAPHQL_2025_06_15_1027.read_bytes())[0])
    asked = {
        "id", "displayName", "memoryInGb", "maxGpuCount", "secureCloud", "communityCloud",
        "securePrice", "communityPrice", "secureSpotPrice", "communitySpotPrice",
        "oneMonthPrice", "threeMonthPrice", "sixMonthPrice",
    }  # fmt: skip
    assert asked <= captured_keys
    assert all(field in query.split() for field in asked)
    # Not emitted, and not in gpuhunt's keyless queries: not asked for.
    assert "oneWeekPrice" not in query
    assert len(runpod.PROVIDER.parse(responses)) == 88


# --- live fetch: gpuhunt's per-location queries ---------------------------------------------------
#
# gpuhunt (dstackai/gpuhunt src/gpuhunt/providers/runpod.py @ 0272c27a088b) asks RunPod which
# data centres and countries there are, then per location for ``lowestPrice {minVcpu minMemory
# stockStatus}`` beside the prices. We hold no capture of those answers, so they are built here
# from real captures, in the shape gpuhunt's queries ask for and read:
# - the prices and gpu types: the 2025-06-19 API capture's items, unchanged, keeping the fields
#   ``query_pod_types`` asks for (its secureCloud/communityCloud flags go to the locations
#   answer, which asks for them; oneWeekPrice is asked by neither);
# - ``lowestPrice``: the 2023 capture's object for the same gpu type id, verbatim: RunPod's own
#   minVcpu/minMemory/stockStatus of a one-GPU Pod (H100 SXM: 28 vCPUs, 251 GB, "Low"). A gpu
#   type the 2023 capture lacks gets that capture's no-stock object (all null, as its A100 SXM
#   80GB has): no stock there, so no offer there;
# - the locations: data-centre ids from gpuhunt's own RunPod integrity test (EU-RO-1, US-OR-1,
#   EUR-IS-1) and the countries of two of its data centres (CA-MTL-1, EU-RO-1: CA, RO); that
#   EUR-IS-1 is unlisted is made up, to exercise gpuhunt's ``listed`` filter, and the null
#   country code is what gpuhunt's code skips. Every location answers with the same body (the
#   location is in the request, not in the answer); no price is made up.

H100_VCPUS, H100_RAM_GB = 28, 251  # 2023 capture: H100 80GB HBM3 lowestPrice minVcpu, minMemory
DATA_CENTRES = ["EU-RO-1", "US-OR-1"]  # listed
COUNTRIES = ["CA", "RO"]
POD_TYPE_FIELDS = (  # the gpu type fields gpuhunt's query_pod_types asks for, in its order
    "maxGpuCount", "id", "nodeGroupDatacenters", "clusterPrice", "displayName", "memoryInGb",
    "securePrice", "secureSpotPrice", "communityPrice", "communitySpotPrice", "oneMonthPrice",
    "threeMonthPrice", "sixMonthPrice",
)  # fmt: skip
CATALOG_GPU_FIELDS = ("maxGpuCount", "id", "displayName", "memoryInGb", "secureCloud",
                      "communityCloud")  # fmt: skip


def _lowest_prices_2023() -> dict[str, dict[str, Any]]:
    html = NEXT_DATA_2023.read_text(encoding="utf-8")
    script = html.split('<script id="__NEXT_DATA__"', 1)[1].split(">", 1)[1].split("</script>")[0]
    items = json.loads(script)["props"]["pageProps"]["data"]
    return {item["id"]: item["lowestPrice"] for item in items}


def gpuhunt_shaped_answers() -> dict[str, bytes]:
    """URL fragment of the request -> the answer (see the comment above): "" the per-tier query
    (the 2025-06-19 capture itself), "locations", "dataCenterId=<id>", "countryCode=<cc>"."""
    items = json.loads(GRAPHQL_2025_06_19_1914.read_bytes())
    lowest = _lowest_prices_2023()
    no_stock = lowest["NVIDIA A100-SXM4-80GB"]
    assert set(no_stock.values()) == {None, "LowestPrice"}  # every figure null
    pods = [
        {"lowestPrice": lowest.get(item["id"], no_stock), **{k: item[k] for k in POD_TYPE_FIELDS}}
        for item in items
    ]
    catalog = {
        "data": {
            "countryCodes": [*COUNTRIES, None],
            "dataCenters": [
                *({"id": dc, "listed": True} for dc in DATA_CENTRES),
                {"id": "EUR-IS-1", "listed": False},
            ],
            "gpuTypes": [{k: item[k] for k in CATALOG_GPU_FIELDS} for item in items],
        }
    }
    pod_types = json.dumps({"data": {"gpuTypes": pods}}).encode()
    answers = {
        "": GRAPHQL_2025_06_19_1914.read_bytes(),
        "locations": json.dumps(catalog).encode(),
    }
    answers.update({f"dataCenterId={dc}": pod_types for dc in DATA_CENTRES})
    answers.update({f"countryCode={cc}": pod_types for cc in COUNTRIES})
    return answers


def gpuhunt_shaped_transport(
    requests: list[httpx.Request], fail: frozenset[str] = frozenset()
) -> httpx.MockTransport:
    """Answers each request by its URL fragment (``gpuhunt_shaped_answers``); a fragment in
    ``fail`` answers HTTP 404."""
    answers = gpuhunt_shaped_answers()

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if request.url.fragment in fail:
            return httpx.Response(404, text="not found")
        return httpx.Response(
            200, headers={"content-type": "application/json"}, content=answers[request.url.fragment]
        )

    return httpx.MockTransport(handler)


def _fetch_gpuhunt_shaped(
    token: str | None = None, fail: frozenset[str] = frozenset()
) -> tuple[list[httpx.Request], list[RawResponse], dict[str, str]]:
    requests: list[httpx.Request] = []
    with http.make_client(gpuhunt_shaped_transport(requests, fail)) as client:
        responses, skipped = runpod.fetch_with_skips(client, token)
    return requests, responses, skipped


def _undated(offers: dict[Key, Offer]) -> dict[Key, Offer]:
    """The offers with one observation time: a live fetch observes now, a capture then; and
    so as the time decides their availability (a spot offer observed after RunPod's end of spot
    Pods is not available), each read as if observed at that one time."""
    epoch = datetime(2000, 1, 1, tzinfo=UTC)
    return {k: _observed_at(o, epoch) for k, o in offers.items()}


def _observed_at(offer: Offer, when: datetime) -> Offer:
    ended = offer.available_until is not None and offer.observed_at >= offer.available_until
    available = None if ended and offer.offered is not False else offer.available
    return offer.model_copy(update={"observed_at": when, "available": available})


def _tokens(query: str) -> list[str]:
    return re.findall(r"[$\w]+|[^\s\w]", query)


def test_fetch_asks_gpuhunts_queries_per_listed_data_centre_and_country() -> None:
    requests, responses, skipped = _fetch_gpuhunt_shaped()

    assert skipped == {}
    assert [str(r.url) for r in requests] == [
        "https://api.runpod.io/graphql",
        "https://api.runpod.io/graphql#locations",
        "https://api.runpod.io/graphql#dataCenterId=EU-RO-1",
        "https://api.runpod.io/graphql#dataCenterId=US-OR-1",
        "https://api.runpod.io/graphql#countryCode=CA",
        "https://api.runpod.io/graphql#countryCode=RO",
    ]  # EUR-IS-1 is not listed and the null country code is skipped, as gpuhunt does
    assert [r.url for r in responses] == [str(r.url) for r in requests]
    assert all(r.method == "POST" and "authorization" not in r.headers for r in requests)
    # gpuhunt's variables (RunpodProvider._build_query_variables), for gpuCount 1
    secure, community = (json.loads(requests[i].content) for i in (2, 4))
    assert secure == {
        "query": runpod.POD_TYPES_QUERY,
        "variables": {
            "GpuTypeFilter": {"cluster": False},
            "lowestPriceInput": {
                "secureCloud": True,
                "dataCenterId": "EU-RO-1",
                "gpuCount": 1,
                "minDisk": None,
                "minMemoryInGb": None,
                "minVcpuCount": None,
                "minCudaVersion": "12.8",
            },
        },
    }
    assert community["variables"]["lowestPriceInput"] == {
        "secureCloud": False,
        "countryCode": "CA",
        "gpuCount": 1,
        "minDisk": None,
        "minMemoryInGb": None,
        "minVcpuCount": None,
        "minCudaVersion": "12.8",
    }
    # The queries' selections, field by field as in gpuhunt's gpu_types_query/query_pod_types.
    pod_query = _tokens(runpod.POD_TYPES_QUERY)
    head = _tokens(
        "query GpuTypes($lowestPriceInput: GpuLowestPriceInput, $gpuTypesInput: GpuTypeFilter)"
        " { gpuTypes(input: $gpuTypesInput) {"
        " lowestPrice(input: $lowestPriceInput) {"
    )
    assert pod_query[: len(head)] == head
    lowest, rest = " ".join(pod_query[len(head) :]).split(" }", 1)
    assert lowest.split() == [
        "minimumBidPrice", "uninterruptablePrice", "minVcpu", "minMemory", "stockStatus",
        "compliance", "countryCode", "__typename",
    ]  # fmt: skip
    assert [t for t in rest.split() if t not in "{}"] == [
        "maxGpuCount", "id", "nodeGroupDatacenters", "id", "clusterPrice", "displayName",
        "memoryInGb", "securePrice", "secureSpotPrice", "communityPrice", "communitySpotPrice",
        "oneMonthPrice", "threeMonthPrice", "sixMonthPrice", "secureSpotPrice", "__typename",
    ]  # fmt: skip
    assert [t for t in _tokens(runpod.LOCATIONS_QUERY) if t not in "{}"] == [
        "query", "GpuTypes", "countryCodes", "dataCenters", "id", "name", "listed", "__typename",
        "gpuTypes", "maxGpuCount", "maxGpuCount", "maxGpuCountCommunityCloud",
        "maxGpuCountSecureCloud", "minPodGpuCount", "id", "displayName", "memoryInGb",
        "secureCloud", "communityCloud", "__typename",
    ]  # fmt: skip


def test_fetch_sends_the_key_as_bearer_with_every_query() -> None:
    requests, responses, _ = _fetch_gpuhunt_shaped("rp_secret")
    assert len(requests) == 6
    assert {r.headers["authorization"] for r in requests} == {"Bearer rp_secret"}
    assert all("rp_secret" not in r.url for r in responses)


def test_location_answers_give_vcpu_ram_and_the_location_as_region() -> None:
    _, responses, _ = _fetch_gpuhunt_shaped()
    offers, excluded = runpod.parse_with_exclusions(responses)
    fetched_at = {r.url.rpartition("=")[2]: r.fetched_at for r in responses}
    by_key = {(o.instance_type, _place(o), o.pricing, o.reserved_term_months): o for o in offers}
    assert len(by_key) == len(offers)

    # The per-tier offers are the 2025-06-19 capture's, exactly as it parses alone (observed
    # now: a live fetch).
    tiers = {k: o for k, o in by_key.items() if k[1] in ("secure", "community")}
    assert _undated(tiers) == _undated(_offers(GRAPHQL_2025_06_19_1914))
    assert all(o.vcpus is None and o.ram_gb is None for o in tiers.values())

    # Secure Cloud per data centre (securePrice, secureSpotPrice), Community Cloud per country
    # (communityPrice, communitySpotPrice), as gpuhunt reads them, with the Pod's vCPU and RAM.
    for region, on_demand, spot in [
        ("EU-RO-1", "2.99", "1.75"),
        ("US-OR-1", "2.99", "1.75"),
        ("CA", "2.69", "1.5"),
        ("RO", "2.69", "1.5"),
    ]:
        for pricing, price in ((ON_DEMAND, on_demand), (SPOT, spot)):
            offer = by_key[(H100_SXM, region, pricing, None)]
            assert offer.price == Decimal(price)
            assert (offer.vcpus, offer.ram_gb) == (H100_VCPUS, H100_RAM_GB)
            assert offer.offered is True  # secureCloud and communityCloud are true for it
            assert (offer.gpu_name, offer.gpu_count, offer.vram_gb_reported) == (
                "NVIDIA H100 80GB HBM3",
                1,
                80,
            )
            assert offer.observed_at == fetched_at[region]  # when that location answered
    located = [o for k, o in by_key.items() if k not in tiers]
    assert {_place(o) for o in located} == {*DATA_CENTRES, *COUNTRIES}
    assert all(o.vcpus is not None and o.ram_gb is not None for o in located)
    assert all(o.pricing in (ON_DEMAND, SPOT) for o in located)  # savings plans stay per tier
    # No stock there (H200 is not in the 2023 capture: null lowestPrice figures): no offer.
    assert not [o for o in located if o.instance_type == "1x NVIDIA H200"]
    assert ("1x NVIDIA H200", "secure", ON_DEMAND, None) in tiers
    # A40: communityCloud false -> its community price 0.35 (2023: 4 vCPUs, 50 GB, in stock)
    # is kept flagged as not offered per country, as the per-tier placeholder is.
    a40 = by_key[("1x NVIDIA A40", "CA", ON_DEMAND, None)]
    assert (a40.price, a40.offered, a40.vcpus, a40.ram_gb) == (Decimal("0.35"), False, 4, 50)
    assert by_key[("1x NVIDIA A40", "EU-RO-1", ON_DEMAND, None)].offered is True
    # The four locations answer byte for byte alike, and each is read.
    assert Counter(_place(o) for o in located if o.instance_type == H100_SXM) == {
        region: 2 for region in (*DATA_CENTRES, *COUNTRIES)
    }
    assert excluded == runpod.parse_with_exclusions(responses[:1])[1]  # nothing else left out
    # a data centre is a Secure Cloud place, a country a Community Cloud one (and its country)
    assert {(o.region, o.cloud_tier, o.country) for o in located} == {
        *((dc, "secure", None) for dc in DATA_CENTRES),
        *((cc, "community", cc) for cc in COUNTRIES),
    }


def test_a_location_query_that_fails_is_a_skipped_part() -> None:
    requests, responses, skipped = _fetch_gpuhunt_shaped(fail=frozenset({"countryCode=CA"}))
    assert len(requests) == 6
    assert list(skipped) == ["countryCode CA"]
    assert "HTTP 404" in skipped["countryCode CA"]
    regions = {_place(o) for o in runpod.PROVIDER.parse(responses)}
    assert regions == {"secure", "community", *DATA_CENTRES, "RO"}


def test_locations_query_failing_leaves_the_per_tier_offers() -> None:
    requests, responses, skipped = _fetch_gpuhunt_shaped(fail=frozenset({"locations"}))
    assert len(requests) == 2 and list(skipped) == ["locations"]
    offers = {(o.instance_type, _place(o), o.pricing, o.reserved_term_months): o
              for o in runpod.PROVIDER.parse(responses)}  # fmt: skip
    assert _undated(offers) == _undated(_offers(GRAPHQL_2025_06_19_1914))


def test_locations_past_the_bound_are_not_asked_and_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the bound lives beside the requests (``scrapers/runpod/fetch.py``)
    monkeypatch.setattr(importlib.import_module("scrapers.runpod.fetch"), "MAX_LOCATIONS", 3)
    requests, _, skipped = _fetch_gpuhunt_shaped()
    assert len(requests) == 2 + 3
    assert skipped == {"locations past 3": "1 not asked (at most 3 per scrape): RO"}


def test_first_query_failing_fails_the_fetch_before_any_other() -> None:
    requests: list[httpx.Request] = []
    with (
        http.make_client(gpuhunt_shaped_transport(requests, frozenset({""}))) as client,
        pytest.raises(FetchError, match="HTTP 404"),
    ):
        runpod.fetch(client, None)
    assert [str(r.url) for r in requests] == ["https://api.runpod.io/graphql"]


def _location_raw(
    body: bytes, fragment: str = "dataCenterId=EU-RO-1"
) -> tuple[RawResponse, RawResponse]:
    """(a location answer with ``body``, the per-tier answer it comes with)."""
    tier = _raw(GRAPHQL_2025_06_19_1914)
    url = f"{runpod.GRAPHQL_URL}#{fragment}"
    return RawResponse(url, "POST", 200, "application/json", body, tier.fetched_at), tier


def test_location_answer_without_the_stock_fields_is_drift() -> None:
    body = gpuhunt_shaped_answers()["dataCenterId=EU-RO-1"].replace(b'"minVcpu"', b'"vcpus"')
    location, tier = _location_raw(body)
    with pytest.raises(SchemaDriftError, match=r"lacks \['minVcpu'\]"):
        runpod.PROVIDER.parse([tier, location])


def test_location_answer_without_the_tiers_prices_is_drift() -> None:
    body = gpuhunt_shaped_answers()["countryCode=CA"].replace(
        b'"communitySpotPrice"', b'"communitySpot"'
    )
    location, tier = _location_raw(body, "countryCode=CA")
    with pytest.raises(SchemaDriftError, match="communitySpotPrice"):
        runpod.PROVIDER.parse([tier, location])


def test_location_graphql_error_envelope_is_drift() -> None:
    body = json.dumps({"errors": [{"message": 'Unknown argument "minCudaVersion"'}]}).encode()
    location, tier = _location_raw(body)
    with pytest.raises(SchemaDriftError, match=r"EU-RO-1.*minCudaVersion"):
        runpod.PROVIDER.parse([tier, location])


def test_a_vcpu_figure_that_is_not_a_number_leaves_that_item_out() -> None:
    body = gpuhunt_shaped_answers()["dataCenterId=EU-RO-1"].replace(
        b'"minVcpu": 28', b'"minVcpu": "28"'
    )
    location, tier = _location_raw(body)
    offers, excluded = runpod.parse_with_exclusions([tier, location])
    assert excluded["malformed_item"] == 1
    assert not [o for o in offers if o.instance_type == H100_SXM and o.region == "EU-RO-1"]
    assert [o for o in offers if o.instance_type == "1x NVIDIA A40" and o.region == "EU-RO-1"]


# --- every real capture, through the live fetch as replay runs it ---------------------------------


@pytest.mark.parametrize(
    "capture", sorted(p for p in RUNPOD.iterdir() if p != PARSED_2026_02), ids=lambda p: p.name
)
def test_every_capture_replayed_through_fetch_parses_as_before(capture: Path) -> None:
    """Replay answers every request with the capture: none lists data centres or countries, so
    the fetch asks the per-tier and the locations query only, and the offers are the capture's
    alone: per-tier prices (region ``global``, tier secure/community), no vCPU or RAM (except
    the 2025-09 page's rows, which print them)."""
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, content=capture.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses, skipped = runpod.fetch_with_skips(client, None)
    assert len(requests) == 2 and skipped == {}
    stamped = [
        RawResponse(r.url, r.method, r.status, r.content_type, r.body, _raw(capture).fetched_at)
        for r in responses
    ]
    assert runpod.parse_with_exclusions(stamped) == runpod.parse_with_exclusions([_raw(capture)])
    offers = runpod.PROVIDER.parse(stamped)
    assert {_place(o) for o in offers} <= {"secure", "community"}
    if capture != ROWS_2025_09:
        assert all(o.vcpus is None and o.ram_gb is None for o in offers)


# --- offer identity (issue 21) ----------------------------------------------------------------


def _api_names() -> dict[str, set[str]]:
    """gpu type id -> its displayName in the 2026 API captures (items and envelope)."""
    names: dict[str, set[str]] = {}
    for path in (ITEMS_2026_03, ENVELOPE_2026_09):
        payload = json.loads(path.read_bytes())
        items = payload["data"]["gpuTypes"] if isinstance(payload, dict) else payload
        for item in items:
            names.setdefault(item["id"], set()).add(item["displayName"])
    return names


def test_every_page_name_is_the_display_name_of_its_gpu_type_id() -> None:
    names = _api_names()
    for page_name, gpu_id in runpod.PAGE_NAME_IDS.items():
        assert gpu_id in runpod.KNOWN_GPU_TYPE_IDS, gpu_id
        # the page drops the API's form factor suffix of one name (H200 SXM) and writes "Pro"
        shown = {n.casefold() for n in names[gpu_id]}
        shown |= {n.removesuffix(" sxm") for n in shown}
        assert page_name.casefold() in shown, (page_name, gpu_id, names[gpu_id])


def test_runpod_page_and_api_h100_sxm_are_one_offer() -> None:
    page = _offers(LD_JSON_2026_08)[("1x H100 SXM", "secure", ON_DEMAND, None)]
    api = _offers(ENVELOPE_2026_09)[(H100_SXM, "secure", ON_DEMAND, None)]
    assert (page.instance_type, page.product_key) == ("1x H100 SXM", H100_SXM)
    assert api.product_key == H100_SXM
    assert (page.price, api.price) == (Decimal("2.99"), Decimal("3.49"))


def test_every_page_product_is_a_product_of_the_api() -> None:
    api = {o.product_key for o in runpod.PROVIDER.parse([_raw(ENVELOPE_2026_09)])}
    for capture in (ROWS_2025_09, LD_JSON_2026_08):
        page = {o.product_key for o in runpod.PROVIDER.parse([_raw(capture)])}
        assert page <= api, page - api


# --- availability (issue 22): stock fields and the end of spot Pods -------------------------------


def test_runpod_spot_ends_2026_09_11() -> None:
    ends = datetime(2026, 9, 11, tzinfo=UTC)
    offers = _offers(ITEMS_2026_03)  # observed 2026-03-31: before the end, still in stock
    spot = [o for o in offers.values() if o.pricing is SPOT]
    assert len(spot) == 53 and {o.available_until for o in spot} == {ends}  # 49 offered + 4 flagged
    h100 = offers[(H100_SXM, "secure", SPOT, None)]  # secureSpotPrice 1.75
    assert (h100.price, h100.available) == (Decimal("1.75"), None)
    others = [o for o in offers.values() if o.pricing is not SPOT]
    assert others and {o.available_until for o in others} == {None}
    # the same answer read on the day spot Pods end: no spot offer of it is on sale any more
    on_the_day = RawResponse(
        runpod.GRAPHQL_URL, "POST", 200, "application/json", ITEMS_2026_03.read_bytes(), ends
    )
    after = runpod.PROVIDER.parse([on_the_day])
    assert {o.available for o in after if o.pricing is SPOT} == {False}
    assert {o.available for o in after if o.pricing is not SPOT} <= {None, False}


def test_runpod_2023_community_stock_is_availability() -> None:
    offers = _offers(NEXT_DATA_2023)
    # lowestPrice (the Community price) of the H100 SXM: stockStatus "Low" -> in stock
    assert offers[(H100_SXM, "community", ON_DEMAND, None)].available is True
    assert offers[(H100_SXM, "community", SPOT, None)].available is True
    # A100 PCIe 40GB: stockStatus null, community price 0.79 listed -> not available
    a100 = offers[("1x NVIDIA A100-PCIE-40GB", "community", ON_DEMAND, None)]
    assert (a100.price, a100.offered, a100.available) == (Decimal("0.79"), True, False)
    # the secure tier states no stock: unknown; a tier flagged false is not available
    assert offers[(H100_SXM, "secure", ON_DEMAND, None)].available is None
    l40_community = offers[("1x NVIDIA L40", "community", ON_DEMAND, None)]
    assert (l40_community.offered, l40_community.available) == (False, False)


# --- places (issue 22) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "capture", sorted(p for p in RUNPOD.iterdir() if p != PARSED_2026_02), ids=lambda p: p.name
)
def test_runpod_tier_is_not_a_region_in_any_capture(capture: Path) -> None:
    """Until issue 22 every per-tier price had region "secure" or "community" (88 of the
    current offers): the tier is ``cloud_tier`` and such a price, RunPod-wide, is ``global``."""
    offers = runpod.PROVIDER.parse([_raw(capture)])
    assert {o.region for o in offers} == {"global"}
    assert {o.cloud_tier for o in offers} <= {"secure", "community"}
    assert all(o.country is None for o in offers)


# Each dated capture is read by the one layout module of its date (``scrapers/runpod/layouts``):
# the first of ``PER_TIER_LAYOUTS`` that detects it, and no location layout.
CAPTURE_LAYOUTS = {
    NEXT_DATA_2023: "next_data",
    GRAPHQL_2025_06_15_1027: "gpu_types_array",
    GRAPHQL_2025_06_15_1427: "gpu_types_array",
    GRAPHQL_2025_06_19_1914: "gpu_types_array",
    ROWS_2025_09: "pricing_rows",
    RUNPOD / "2026-03-31T22_graphql_gpuTypes_items.json": "lowest_price_items",
    ITEMS_2026_03: "lowest_price_items",
    LD_JSON_2026_08: "ld_json",
    ENVELOPE_2026_09: "graphql",
}


def test_every_capture_has_its_dated_layout() -> None:
    assert set(CAPTURE_LAYOUTS) == {p for p in RUNPOD.iterdir() if p != PARSED_2026_02}
    for path, expected in CAPTURE_LAYOUTS.items():
        raw = _raw(path)
        found = [m.__name__.rsplit(".", 1)[-1] for m in runpod.PER_TIER_LAYOUTS if m.detect(raw)]
        assert found[0] == expected, path.name
        # the layout alone reads the capture into the offers the provider publishes
        layout = importlib.import_module(f"scrapers.runpod.layouts.{expected}")
        excluded: Counter[str] = Counter()
        alone = offers_from_rows(
            layout.rows(raw), partial(layout.read_row, excluded=excluded), excluded
        )
        assert (alone, excluded) == runpod.parse_with_exclusions([raw]), path.name
