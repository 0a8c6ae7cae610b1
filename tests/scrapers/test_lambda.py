"""Lambda scraper on its three real pricing-page captures, the Cloud API parser on a response
shaped like Lambda's API documentation, and the live request shape."""

from __future__ import annotations

import base64
import json
import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from scrapers import http, lambda_cloud
from scrapers.base import Offer, PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from tests.conftest import SNAPSHOTS, raw_from_capture

LAMBDA = SNAPSHOTS / "lambda"
CAPTURE_2023 = LAMBDA / "2023-09-09_wayback_gpu-cloud_pricing_excerpt.html"
CAPTURE_2024 = LAMBDA / "2024-11-03_wayback_gpu-cloud_pricing_excerpt.html"
CAPTURE_2026 = LAMBDA / "2026-01-09_wayback_lambda-ai_pricing_excerpt.html"
PARSED_2026_02 = LAMBDA / "2026-02-11_parsed_pricing_page.json"  # another tool's output

# GiB/TiB as printed on the page, in decimal GB (what Offer.ram_gb / storage_gb hold).
GB_1800_GIB = Decimal("1932.7")
GB_2900_GIB = Decimal("3113.9")
GB_22_TIB = Decimal("24189.3")


def _raw(path: Path, body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(path, url=lambda_cloud.PRICING_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def _by_name(offers: list[Offer]) -> dict[str, Offer]:
    by_name = {o.instance_type: o for o in offers}
    assert len(by_name) == len(offers), "instance_type must be unique per capture"
    return by_name


# --- 2026-01 lambda.ai/pricing (tab panels; the capture holds the 8x panel only) -----------------


def test_2026_01_tab_panel_prices_read_off_the_page() -> None:
    by_name = _by_name(lambda_cloud.PROVIDER.parse([_raw(CAPTURE_2026)]))
    assert len(by_name) == 5

    h100 = by_name["8x NVIDIA H100 SXM (80 GB)"]  # "NVIDIA H100 SXM | 80 GB | 208 | 1800 GiB | ..."
    assert h100.gpu_name == "NVIDIA H100 SXM"
    assert h100.gpu_count == 8
    assert h100.price == Decimal("2.99")
    assert h100.currency == "USD"
    assert h100.price_unit is PriceUnit.HOUR
    assert h100.price_per is PricePer.GPU
    assert h100.pricing is PricingModel.ON_DEMAND
    assert h100.reserved_term_months is None
    assert h100.vram_gb_reported == 80
    assert h100.vcpus == 208
    assert h100.ram_gb == GB_1800_GIB
    assert h100.storage_gb == GB_22_TIB
    assert h100.region == "global"
    assert h100.source_url == "https://lambda.ai/pricing"
    assert h100.observed_at == datetime(2026, 1, 9, tzinfo=UTC)

    b200 = by_name["8x NVIDIA B200 SXM6 (180 GB)"]
    assert (b200.price, b200.vcpus, b200.ram_gb) == (Decimal("4.99"), 208, GB_2900_GIB)
    # The same plan name in two VRAM sizes: kept apart by the instance name.
    assert by_name["8x NVIDIA A100 SXM (80 GB)"].price == Decimal("1.79")
    assert by_name["8x NVIDIA A100 SXM (80 GB)"].vcpus == 240
    assert by_name["8x NVIDIA A100 SXM (80 GB)"].storage_gb == Decimal("21440.5")  # 19.5 TiB
    assert by_name["8x NVIDIA A100 SXM (40 GB)"].price == Decimal("1.29")
    assert by_name["8x NVIDIA A100 SXM (40 GB)"].vcpus == 124
    v100 = by_name["8x NVIDIA Tesla V100 (16 GB)"]
    assert (v100.price, v100.vcpus, v100.ram_gb) == (Decimal("0.55"), 88, Decimal("481.0"))


def test_2026_01_every_tab_panel_present_is_parsed() -> None:
    # The live page ships the 4x/2x/1x panels too; emulate one by relabelling a copy of the 8x
    # panel of the real capture (in memory) as the 4x tab's panel.
    body = CAPTURE_2026.read_bytes()
    start = body.index(b'<div role="tabpanel"')
    end = body.index(b"</table>", start) + len(b"</table>")
    panel_4x = body[start:end].replace(b"tabpanel-0", b"tabpanel-1").replace(b'"tab-0"', b'"tab-1"')
    offers = lambda_cloud.PROVIDER.parse([_raw(CAPTURE_2026, body[:end] + b"</div>" + panel_4x)])
    by_name = _by_name(offers)
    assert len(offers) == 10
    assert by_name["4x NVIDIA H100 SXM (80 GB)"].gpu_count == 4
    assert by_name["8x NVIDIA H100 SXM (80 GB)"].gpu_count == 8


def _with_panel(label_index: int, price_changes: dict[bytes, bytes]) -> bytes:
    """The real 2026-01 page plus a copy of its 8x panel relabelled as another tab's panel
    (in memory), with some of the copy's price cells rewritten."""
    body = CAPTURE_2026.read_bytes()
    start = body.index(b'<div role="tabpanel"')
    end = body.index(b"</table>", start) + len(b"</table>")
    panel = (
        body[start:end]
        .replace(b"tabpanel-0", f"tabpanel-{label_index}".encode())
        .replace(b'"tab-0"', f'"tab-{label_index}"'.encode())
    )
    for old, new in price_changes.items():
        cell = b'<td data-label="PRICE/GPU/HR*">' + old + b"</td>"
        assert panel.count(cell) == 1, old
        panel = panel.replace(cell, b'<td data-label="PRICE/GPU/HR*">' + new + b"</td>")
    return body[:end] + b"</div>" + panel


@pytest.mark.parametrize(
    ("tab", "label", "cell", "rule"),
    [
        (3, "1x", b"", "unpriced_cell"),
        (2, "2x", b" &#8211; ", "unpriced_cell"),
        (1, "4x", b"-", "unpriced_cell"),
        (3, "1x", b"Contact Sales", "contact sales"),
    ],
)
def test_2026_unpriced_cell_in_a_smaller_tab_is_counted_not_drift(
    tab: int, label: str, cell: bytes, rule: str
) -> None:
    # Regression: one unpriced row in the 1x/2x/4x panels failed the whole page.
    body = _with_panel(tab, {b"$2.99": cell})
    offers, excluded = lambda_cloud.parse_with_exclusions([_raw(CAPTURE_2026, body)])
    by_name = _by_name(offers)
    assert excluded == {rule: 1}
    assert len(offers) == 5 + 4
    assert f"{label} NVIDIA H100 SXM (80 GB)" not in by_name
    assert by_name["8x NVIDIA H100 SXM (80 GB)"].price == Decimal("2.99")
    assert by_name[f"{label} NVIDIA B200 SXM6 (180 GB)"].price == Decimal("4.99")
    assert by_name[f"{label} NVIDIA B200 SXM6 (180 GB)"].gpu_count == int(label[0])


def test_2026_other_text_in_a_price_cell_is_counted_not_drift() -> None:
    # One price cell that is no price at all leaves its row out, reported; the page stays up.
    body = _with_panel(3, {b"$2.99": b"from $2"})
    offers, excluded = lambda_cloud.parse_with_exclusions([_raw(CAPTURE_2026, body)])
    by_name = _by_name(offers)
    assert excluded == {"unparsed_price": 1}
    assert "1x NVIDIA H100 SXM (80 GB)" not in by_name
    assert by_name["1x NVIDIA B200 SXM6 (180 GB)"].price == Decimal("4.99")
    assert by_name["8x NVIDIA H100 SXM (80 GB)"].price == Decimal("2.99")


def test_2026_negative_price_is_still_drift() -> None:
    # An impossible price is a broken page, not one odd cell (the fault matrix's negative_price).
    body = _with_panel(3, {b"$2.99": b"$-2.99"})
    with pytest.raises(SchemaDriftError, match="negative price"):
        lambda_cloud.PROVIDER.parse([_raw(CAPTURE_2026, body)])


def _with_row(plan: bytes, new_plan: bytes, body: bytes | None = None) -> bytes:
    """The 2026-01 page with a copy of its ``plan`` row, renamed ``new_plan``, after it."""
    body = CAPTURE_2026.read_bytes() if body is None else body
    start = body.index(b'<tr class="_pricingRow_z1nfw_36" data-plan="' + plan + b'"')
    end = body.index(b"</tr>", start) + len(b"</tr>")
    return body[:end] + body[start:end].replace(plan, new_plan) + body[end:]


def test_2026_row_of_an_unknown_gpu_is_reported_by_name_and_the_rest_published() -> None:
    # Regression (issue 11 §1): a GPU the parser does not know must not hide the known prices.
    body = _with_row(b"NVIDIA H100 SXM", b"NVIDIA B300 SXM6")
    offers, excluded = lambda_cloud.PROVIDER.parse_report([_raw(CAPTURE_2026, body)])
    assert excluded == {"unknown_gpu NVIDIA B300 SXM6": 1}
    by_name = _by_name(offers)
    assert len(by_name) == 5
    assert by_name["8x NVIDIA H100 SXM (80 GB)"].price == Decimal("2.99")
    assert by_name["8x NVIDIA B200 SXM6 (180 GB)"].price == Decimal("4.99")
    assert by_name["8x NVIDIA Tesla V100 (16 GB)"].price == Decimal("0.55")


def test_2026_more_than_half_of_the_rows_unknown_is_drift() -> None:
    body = CAPTURE_2026.read_bytes()
    for plan in (b"NVIDIA H100 SXM", b"NVIDIA A100 SXM", b"NVIDIA Tesla V100"):
        body = body.replace(b">" + plan + b"<", b">NVIDIA Z" + plan[-4:] + b"<")
    with pytest.raises(SchemaDriftError, match="4 of 5 GPU rows are unknown"):
        lambda_cloud.PROVIDER.parse_report([_raw(CAPTURE_2026, body)])


def test_2026_tab_that_is_not_a_gpu_count_is_reported_with_its_rows() -> None:
    body = _with_panel(1, {}).replace(
        b'id="tab-1" class="_tabButton_ywv0y_15 ">4x',
        b'id="tab-1" class="_tabButton_ywv0y_15 ">Clusters',
    )
    offers, excluded = lambda_cloud.parse_with_exclusions([_raw(CAPTURE_2026, body)])
    assert excluded == {"unknown_tab Clusters": 5}
    assert {o.gpu_count for o in offers} == {8}
    assert len(offers) == 5


def test_2026_01_agrees_with_the_2026_02_parsed_page() -> None:
    # Cross-check only: another tool's parse of the same page a month later. The 8x rows are
    # the ones whose vCPU counts match the 8x panel; their per-GPU prices must agree.
    other = json.loads(PARSED_2026_02.read_text())
    theirs: dict[tuple[str, Decimal | None, int], Decimal] = {
        (row["product"], Decimal(str(row["vram_gb"])), row["vcpus"]): Decimal(
            str(row["price_per_hour_usd"])
        )
        for row in other
        if row["price_per_hour_usd"] is not None
    }
    ours = lambda_cloud.PROVIDER.parse([_raw(CAPTURE_2026)])
    assert len(ours) == 5
    for offer in ours:
        key = (offer.gpu_name, offer.vram_gb_reported, int(offer.vcpus or 0))
        assert theirs[key] == offer.price, key


# --- 2024-11 lambdalabs.com/service/gpu-cloud (one flat table) -----------------------------------


def test_2024_11_flat_table_prices_read_off_the_page() -> None:
    offers = lambda_cloud.PROVIDER.parse([_raw(CAPTURE_2024)])
    by_name = _by_name(offers)
    # 18 rows; "Reserved 8x NVIDIA H100 SXM" says CONTACT SALES: no public price, no offer.
    assert len(offers) == 17
    assert lambda_cloud.parse_with_exclusions([_raw(CAPTURE_2024)])[1] == {"contact sales": 1}
    assert all(o.pricing is PricingModel.ON_DEMAND for o in offers)
    assert all(o.source_url == "https://lambdalabs.com/service/gpu-cloud" for o in offers)
    assert all(o.price_per is PricePer.GPU for o in offers)  # "$2.99 / GPU / hr"

    h100 = by_name["8x NVIDIA H100 SXM (80 GB)"]  # "On-demand 8x NVIDIA H100 SXM"
    assert (h100.gpu_name, h100.gpu_count, h100.price) == ("NVIDIA H100 SXM", 8, Decimal("2.99"))
    assert (h100.vcpus, h100.ram_gb) == (208, GB_1800_GIB)
    assert h100.storage_gb == Decimal("28587.3")  # 26 TiB SSD
    assert h100.observed_at == datetime(2024, 11, 3, tzinfo=UTC)
    assert by_name["4x NVIDIA H100 SXM (80 GB)"].price == Decimal("3.09")
    assert by_name["2x NVIDIA H100 SXM (80 GB)"].price == Decimal("3.19")
    assert by_name["1x NVIDIA H100 SXM (80 GB)"].price == Decimal("3.29")
    pcie = by_name["1x NVIDIA H100 PCIe (80 GB)"]
    assert (pcie.price, pcie.storage_gb) == (Decimal("2.49"), Decimal("1099.5"))  # 1 TiB SSD
    assert by_name["1x NVIDIA A100 SXM (40 GB)"].ram_gb == Decimal("236.2")  # 220 GiB
    assert by_name["1x NVIDIA A100 SXM (40 GB)"].storage_gb == Decimal("549.8")  # 512 GiB
    assert by_name["1x NVIDIA A10 (24 GB)"].price == Decimal("0.75")
    assert by_name["1x NVIDIA Quadro RTX 6000 (24 GB)"].price == Decimal("0.50")


# --- 2023-09 lambdalabs.com/service/gpu-cloud (on-demand + reserved tables) ----------------------


def test_2023_09_on_demand_table_is_priced_per_instance() -> None:
    by_name = _by_name(lambda_cloud.PROVIDER.parse([_raw(CAPTURE_2023)]))
    on_demand = [o for o in by_name.values() if o.pricing is PricingModel.ON_DEMAND]
    assert len(on_demand) == 13
    assert all(o.price_per is PricePer.INSTANCE for o in on_demand)  # "$20.72 / hr"

    h100 = by_name["8x NVIDIA H100 SXM (80 GB)"]
    assert (h100.gpu_name, h100.gpu_count, h100.price) == ("NVIDIA H100 SXM", 8, Decimal("20.72"))
    assert (h100.vcpus, h100.ram_gb) == (220, Decimal("1800.0"))  # "1.8 TB"
    assert h100.storage_gb == Decimal("26718.1")  # 24.3 TiB
    pcie = by_name["1x NVIDIA H100 PCIe (80 GB)"]  # "1x NVIDIA H100 PCIe New": badge dropped
    assert (pcie.gpu_name, pcie.price, pcie.vcpus) == ("NVIDIA H100 PCIe", Decimal("1.99"), 26)
    assert by_name["8x NVIDIA A100 (40 GB)"].price == Decimal("8.80")
    assert by_name["8x NVIDIA A100 (80 GB)"].price == Decimal("12.00")
    assert by_name["8x NVIDIA Tesla V100 (16 GB)"].vcpus == 92
    # The page says "NVIDIA A100" for both parts; _2023_GPU_NAMES tells them apart by
    # configuration (Lambda's 2024 page: 1x/2x/4x are PCIe cards, 8x are SXM boards).
    assert {name: by_name[name].gpu_name for name in by_name if "A100" in name} == {
        "1x NVIDIA A100 (40 GB)": "NVIDIA A100 PCIe",
        "2x NVIDIA A100 (40 GB)": "NVIDIA A100 PCIe",
        "4x NVIDIA A100 (40 GB)": "NVIDIA A100 PCIe",
        "8x NVIDIA A100 (40 GB)": "NVIDIA A100 SXM",
        "8x NVIDIA A100 (80 GB)": "NVIDIA A100 SXM",
    }
    assert by_name["1x NVIDIA A100 (40 GB)"].price == Decimal("1.10")


def test_2023_09_reserved_clusters_with_their_terms() -> None:
    offers = lambda_cloud.PROVIDER.parse([_raw(CAPTURE_2023)])
    reserved = {o.instance_type: o for o in offers if o.pricing is PricingModel.RESERVED}
    assert set(reserved) == {"Reserved 8x NVIDIA H100 (80 GB)", "Sprint 8x NVIDIA H100 (80 GB)"}

    three_years = reserved["Reserved 8x NVIDIA H100 (80 GB)"]  # "$1.89/H100/hour", "3-years"
    assert three_years.price == Decimal("1.89")
    assert three_years.price_per is PricePer.GPU
    assert three_years.reserved_term_months == 36
    assert three_years.gpu_name == "H100 SXM"
    assert (three_years.gpu_count, three_years.vcpus) == (8, 200)
    assert three_years.storage_gb == Decimal("20000.0")  # "20 TB NVMe SSD local storage minimum"
    assert three_years.ram_gb is None  # the reserved table has no RAM column

    sprint = reserved["Sprint 8x NVIDIA H100 (80 GB)"]  # "$4.85/H100/hour", "3-months"
    assert (sprint.price, sprint.reserved_term_months, sprint.vcpus) == (Decimal("4.85"), 3, 224)


# --- mutated captures -> SchemaDriftError ---------------------------------------------------------


def test_2026_price_cell_removed_is_drift() -> None:
    body = re.sub(rb'<td data-label="PRICE/GPU/HR\*">\$2\.99</td>', b"", CAPTURE_2026.read_bytes())
    with pytest.raises(SchemaDriftError, match="NVIDIA H100 SXM"):
        lambda_cloud.PROVIDER.parse([_raw(CAPTURE_2026, body)])


def test_2026_price_column_no_longer_per_gpu_is_drift() -> None:
    body = CAPTURE_2026.read_bytes().replace(b"PRICE/GPU/HR*", b"PRICE/HR*")
    with pytest.raises(SchemaDriftError, match="headers changed"):
        lambda_cloud.PROVIDER.parse([_raw(CAPTURE_2026, body)])


def test_2024_price_in_another_unit_is_an_unknown_unit_of_that_row() -> None:
    body = CAPTURE_2024.read_bytes().replace(b"$3.09 / GPU / hr", b"$3.09 / hr")
    offers, excluded = lambda_cloud.parse_with_exclusions([_raw(CAPTURE_2024, body)])
    assert excluded == {"unknown_unit On-demand 4x NVIDIA H100 SXM": 1, "contact sales": 1}
    by_name = _by_name(offers)
    assert len(by_name) == 16
    assert "4x NVIDIA H100 SXM (80 GB)" not in by_name
    assert by_name["2x NVIDIA H100 SXM (80 GB)"].price == Decimal("3.19")


def test_2024_unknown_gpu_and_priced_reserved_rows_are_counted() -> None:
    body = (
        CAPTURE_2024.read_bytes()
        .replace(b"On-demand 1x NVIDIA A10<", b"On-demand 1x NVIDIA Z10<")
        .replace(b"CONTACT SALES", b"$1.99 / GPU / hr")
    )
    offers, excluded = lambda_cloud.parse_with_exclusions([_raw(CAPTURE_2024, body)])
    assert excluded == {"unknown_gpu NVIDIA Z10": 1, "reserved_without_term": 1}
    by_name = _by_name(offers)
    assert len(by_name) == 16
    assert "1x NVIDIA A10 (24 GB)" not in by_name
    assert by_name["1x NVIDIA Quadro RTX 6000 (24 GB)"].price == Decimal("0.50")


def test_2023_renamed_on_demand_header_is_unknown_layout() -> None:
    body = CAPTURE_2023.read_bytes().replace(b"VRAM per GPU", b"GPU memory")
    with pytest.raises(SchemaDriftError, match="unknown layout"):
        lambda_cloud.PROVIDER.parse([_raw(CAPTURE_2023, body)])


def test_2023_a100_configuration_without_a_known_part_is_an_unknown_sku() -> None:
    body = CAPTURE_2023.read_bytes().replace(
        b"<strong>8x NVIDIA A100</strong>", b"<strong>6x NVIDIA A100</strong>", 1
    )
    offers, excluded = lambda_cloud.parse_with_exclusions([_raw(CAPTURE_2023, body)])
    assert excluded == {"unknown_sku 6x NVIDIA A100 (40 GB)": 1}
    by_name = _by_name(offers)
    assert len(by_name) == 14
    assert "8x NVIDIA A100 (40 GB)" not in by_name
    assert by_name["8x NVIDIA A100 (80 GB)"].price == Decimal("12.00")


def test_2023_unknown_reserved_term_is_counted_by_its_text() -> None:
    body = CAPTURE_2023.read_bytes().replace(b"3-years", b"multi-year")
    offers, excluded = lambda_cloud.parse_with_exclusions([_raw(CAPTURE_2023, body)])
    assert excluded == {"unknown_term multi-year": 1}
    reserved = [o for o in offers if o.pricing is PricingModel.RESERVED]
    assert [(o.instance_type, o.price) for o in reserved] == [
        ("Sprint 8x NVIDIA H100 (80 GB)", Decimal("4.85"))
    ]
    assert len(offers) == 14


def test_page_without_pricing_is_unknown_layout() -> None:
    with pytest.raises(SchemaDriftError, match="unknown layout"):
        lambda_cloud.PROVIDER.parse(
            [_raw(CAPTURE_2026, b"<html><body><p>Pricing</p></body></html>")]
        )


# --- Cloud API instance-types ---------------------------------------------------------------------


def _doc_shaped_instance_types() -> dict[str, Any]:
    """NOT a capture: a response built from the shape documented for GET /api/v1/instance-types
    (https://docs-api.lambda.ai/api/cloud#listInstanceTypes): ``data.<name>.instance_type``
    with price_cents_per_hour and specs, plus regions_with_capacity_available. Values are
    illustrative."""

    def entry(
        name: str, description: str, gpu: str, cents: int, specs: dict, regions: list[str]
    ) -> dict[str, Any]:
        return {
            "instance_type": {
                "name": name,
                "description": description,
                "gpu_description": gpu,
                "price_cents_per_hour": cents,
                "specs": specs,
            },
            "regions_with_capacity_available": [
                {"name": r, "description": f"region {r}"} for r in regions
            ],
        }

    return {
        "data": {
            "gpu_8x_h100_sxm5": entry(
                "gpu_8x_h100_sxm5",
                "8x H100 (80 GB SXM5)",
                "H100 (80 GB SXM5)",
                2392,
                {"vcpus": 208, "memory_gib": 1800, "storage_gib": 22528, "gpus": 8},
                ["us-east-1", "us-west-2"],
            ),
            "gpu_1x_a10": entry(
                "gpu_1x_a10",
                "1x A10 (24 GB PCIe)",
                "A10 (24 GB PCIe)",
                75,
                {"vcpus": 30, "memory_gib": 200, "storage_gib": 1400, "gpus": 1},
                [],
            ),
            "cpu_4x_general": entry(
                "cpu_4x_general",
                "4x vCPU",
                "none",
                10,
                {"vcpus": 4, "memory_gib": 16, "storage_gib": 100, "gpus": 0},
                ["us-east-1"],
            ),
        }
    }


def _api_raw(payload: Any) -> RawResponse:
    return RawResponse(
        url=lambda_cloud.API_URL,
        method="GET",
        status=200,
        content_type="application/json",
        body=json.dumps(payload).encode(),
        fetched_at=datetime(2026, 2, 1, tzinfo=UTC),
    )


def test_api_instance_types_one_offer_per_region_with_capacity() -> None:
    offers = lambda_cloud.PROVIDER.parse([_api_raw(_doc_shaped_instance_types())])
    by_key = {(o.instance_type, o.region): o for o in offers}
    assert set(by_key) == {
        ("gpu_8x_h100_sxm5", "us-east-1"),
        ("gpu_8x_h100_sxm5", "us-west-2"),
        ("gpu_1x_a10", "global"),  # no capacity anywhere: its list price, once
    }  # cpu_4x_general has no GPU: excluded by rule
    excluded = lambda_cloud.parse_with_exclusions([_api_raw(_doc_shaped_instance_types())])[1]
    assert excluded == {"no_gpu": 1}
    h100 = by_key[("gpu_8x_h100_sxm5", "us-east-1")]
    assert h100.price == Decimal("23.92")  # 2392 cents per instance-hour
    assert h100.price_per is PricePer.INSTANCE
    assert (h100.gpu_name, h100.gpu_count, h100.vram_gb_reported) == ("H100 (80 GB SXM5)", 8, 80)
    assert (h100.vcpus, h100.ram_gb) == (208, GB_1800_GIB)
    assert h100.source_url == lambda_cloud.API_URL
    a10 = by_key[("gpu_1x_a10", "global")]
    assert (a10.price, a10.ram_gb) == (Decimal("0.75"), Decimal("214.7"))  # 200 GiB


def test_api_instance_type_without_price_is_drift() -> None:
    payload = _doc_shaped_instance_types()
    del payload["data"]["gpu_1x_a10"]["instance_type"]["price_cents_per_hour"]
    with pytest.raises(SchemaDriftError, match="gpu_1x_a10"):
        lambda_cloud.PROVIDER.parse([_api_raw(payload)])


def test_api_without_data_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="'data'"):
        lambda_cloud.PROVIDER.parse([_api_raw({"error": {"code": "global/invalid-api-key"}})])


# --- live fetch: request shape --------------------------------------------------------------------


def _mock_client(requests: list[httpx.Request], api_body: bytes | None = None) -> httpx.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if request.url == lambda_cloud.API_URL and api_body is not None:
            return httpx.Response(200, json=json.loads(api_body))
        return httpx.Response(
            200, headers={"content-type": "text/html"}, content=CAPTURE_2026.read_bytes()
        )

    return http.make_client(httpx.MockTransport(handler))


def test_fetch_without_token_gets_the_pricing_page_only() -> None:
    requests: list[httpx.Request] = []
    with _mock_client(requests) as client:
        responses = lambda_cloud.fetch(client, None)
    assert [(r.method, str(r.url)) for r in requests] == [("GET", "https://lambda.ai/pricing")]
    assert "authorization" not in requests[0].headers
    assert requests[0].headers["user-agent"].startswith("gpuprices/")
    assert len(lambda_cloud.PROVIDER.parse(responses)) == 5


def test_fetch_with_token_adds_the_api_with_basic_auth() -> None:
    requests: list[httpx.Request] = []
    api_body = json.dumps(_doc_shaped_instance_types()).encode()
    with _mock_client(requests, api_body) as client:
        responses = lambda_cloud.fetch(client, "secret_key")
    assert [(r.method, str(r.url)) for r in requests] == [
        ("GET", "https://lambda.ai/pricing"),
        ("GET", "https://cloud.lambdalabs.com/api/v1/instance-types"),
    ]
    expected = "Basic " + base64.b64encode(b"secret_key:").decode()
    assert requests[1].headers["authorization"] == expected
    assert "authorization" not in requests[0].headers
    assert "secret_key" not in responses[1].url
    assert len(lambda_cloud.PROVIDER.parse(responses)) == 5 + 3


def test_replay_with_token_answers_both_requests_with_one_capture() -> None:
    # Replay answers every request with the same capture bytes: parsed once, not twice.
    requests: list[httpx.Request] = []
    with _mock_client(requests) as client:
        responses = lambda_cloud.fetch(client, "secret_key")
    assert len(responses) == 2
    assert len(lambda_cloud.PROVIDER.parse(responses)) == 5
