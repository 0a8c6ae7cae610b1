"""FluidStack scraper on its real captures (2023-09 grid, 2025-01 table) and the request shape."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from scrapers import fluidstack, http
from scrapers.base import Offer, PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

FOLDER = SNAPSHOTS / "fluidstack"
GRID_2023_09 = FOLDER / "2023-09-30_wayback_pricing_excerpt.html"
TABLE_2025_01 = FOLDER / "2025-01-09_wayback_pricing_excerpt.html"


def _raw(path: Path, body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(path, url=fluidstack.PRICING_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def _index(offers: list[Offer]) -> dict[tuple[str, PricingModel, int | None], Offer]:
    index = {(o.instance_type, o.pricing, o.reserved_term_months): o for o in offers}
    assert len(index) == len(offers)
    return index


def test_2023_09_grid_prices_read_off_the_page() -> None:
    offers, excluded = fluidstack.parse_with_exclusions([_raw(GRID_2023_09)])
    # 6 GPU rows x (on-demand, 6-month); the A6000 row is cut by the excerpt.
    assert len(offers) == 12
    assert excluded == {"truncated_row": 1}
    by = _index(offers)

    # "NVIDIA HGX H100 | 80 | 48 | 256 | $4.76 | $2.89"
    h100 = by[("NVIDIA HGX H100", PricingModel.ON_DEMAND, None)]
    assert h100.price == Decimal("4.76")
    assert h100.currency == "USD"
    assert h100.price_unit is PriceUnit.HOUR
    assert h100.price_per is PricePer.GPU
    assert h100.gpu_count == 1
    assert h100.vram_gb_reported == 80
    # vCPUs ($0.01/hr) and RAM ($0.005/hr) are billed on top: not part of this offer.
    assert h100.vcpus is None and h100.ram_gb is None
    assert by[("NVIDIA HGX H100", PricingModel.RESERVED, 6)].price == Decimal("2.89")
    assert by[("NVIDIA H100 PCIe", PricingModel.ON_DEMAND, None)].price == Decimal("4.25")
    assert by[("A100 80GB NVLINK", PricingModel.RESERVED, 6)].price == Decimal("1.48")
    assert by[("A100 80GB PCIe", PricingModel.RESERVED, 6)].price == Decimal("1.42")
    assert by[("A100 40GB NVLINK", PricingModel.ON_DEMAND, None)].price == Decimal("1.29")
    assert by[("A100 40GB PCIe", PricingModel.ON_DEMAND, None)].price == Decimal("1.40")
    assert by[("A100 40GB PCIe", PricingModel.ON_DEMAND, None)].vram_gb_reported == 40
    assert all(o.observed_at == datetime(2023, 9, 30, tzinfo=UTC) for o in offers)


def test_2025_01_table_prices_read_off_the_page() -> None:
    offers, excluded = fluidstack.parse_with_exclusions([_raw(TABLE_2025_01)])
    # 5 GPU rows x (on-demand, 1-year), minus the H200 on-demand "n/a".
    assert len(offers) == 9
    assert excluded == {"n/a": 1}
    by = _index(offers)

    # "Nvidia H200 | 141 | 48 | 384 | n/a | $2.45"
    assert ("Nvidia H200", PricingModel.ON_DEMAND, None) not in by
    h200 = by[("Nvidia H200", PricingModel.RESERVED, 12)]
    assert h200.price == Decimal("2.45")
    assert h200.price_per is PricePer.GPU
    assert (h200.vram_gb_reported, h200.vcpus, h200.ram_gb) == (141, 48, 384)
    # "Nvidia H100 PCIe | 80 | 48 | 256 | $2.89 | $2.05"
    assert by[("Nvidia H100 PCIe", PricingModel.ON_DEMAND, None)].price == Decimal("2.89")
    assert by[("Nvidia H100 PCIe", PricingModel.RESERVED, 12)].price == Decimal("2.05")
    assert by[("Nvidia A100 80GB PCIe", PricingModel.ON_DEMAND, None)].price == Decimal("1.80")
    assert by[("Nvidia A100 40GB PCIe", PricingModel.RESERVED, 12)].price == Decimal("1.05")
    l40 = by[("Nvidia L40", PricingModel.ON_DEMAND, None)]
    assert (l40.price, l40.vram_gb_reported, l40.vcpus, l40.ram_gb) == (Decimal("1.25"), 48, 32, 48)
    assert all(o.observed_at == datetime(2025, 1, 9, tzinfo=UTC) for o in offers)
    assert all(o.source_url == fluidstack.PRICING_URL for o in offers)


def test_renamed_grid_heading_is_schema_drift() -> None:
    body = GRID_2023_09.read_bytes().replace(b">GPU Model<", b">Accelerator<")
    with pytest.raises(SchemaDriftError, match="is not one of"):
        fluidstack.parse([_raw(GRID_2023_09, body)])


def test_unknown_price_column_is_schema_drift() -> None:
    body = TABLE_2025_01.read_bytes().replace(b"1 Year price (/hr)", b"Spot price (/hr)")
    with pytest.raises(SchemaDriftError, match="unknown price column"):
        fluidstack.parse([_raw(TABLE_2025_01, body)])


def test_missing_table_is_schema_drift() -> None:
    body = TABLE_2025_01.read_bytes().replace(b"<table", b"<div").replace(b"</table>", b"</div>")
    with pytest.raises(SchemaDriftError, match="unknown FluidStack pricing layout"):
        fluidstack.parse([_raw(TABLE_2025_01, body)])


def test_removed_price_cells_are_schema_drift() -> None:
    body = GRID_2023_09.read_bytes().replace(b'<div class="pricing__text">$1.38</div>', b"")
    with pytest.raises(SchemaDriftError, match="'A100 40GB PCIe' has 4 cells, expected 5"):
        fluidstack.parse([_raw(GRID_2023_09, body)])
    body = TABLE_2025_01.read_bytes().replace(b"<p>$1.25<br/></p>", b"<p>soon</p>")
    with pytest.raises(SchemaDriftError, match="'Nvidia L40' price: expected a price"):
        fluidstack.parse([_raw(TABLE_2025_01, body)])


def test_fetch_requests_the_live_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=TABLE_2025_01.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = fluidstack.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", fluidstack.PRICING_URL)]
    assert seen[0].headers["User-Agent"] == http.USER_AGENT
    assert len(fluidstack.parse(responses)) == 9


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["fluidstack"])["fluidstack"]
    assert [c.path.name for c in captures] == [GRID_2023_09.name, TABLE_2025_01.name]
    counts = []
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            offers = fluidstack.parse(fluidstack.fetch(client, None))
        assert all(o.observed_at == capture.captured_at for o in offers)
        counts.append(len(offers))
    assert counts == [12, 9]
