"""FluidStack scraper on its real captures (2023-09 grid, 2025-01 table) and the request shape."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from scrapers import fluidstack, http
from scrapers.base import (
    FetchError,
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    RawResponse,
    SchemaDriftError,
)
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
        fluidstack.PROVIDER.parse([_raw(GRID_2023_09, body)])


def test_unknown_price_column_is_schema_drift() -> None:
    body = TABLE_2025_01.read_bytes().replace(b"1 Year price (/hr)", b"Spot price (/hr)")
    with pytest.raises(SchemaDriftError, match="unknown price column"):
        fluidstack.PROVIDER.parse([_raw(TABLE_2025_01, body)])


def test_missing_table_is_schema_drift() -> None:
    body = TABLE_2025_01.read_bytes().replace(b"<table", b"<div").replace(b"</table>", b"</div>")
    with pytest.raises(SchemaDriftError, match="unknown FluidStack pricing layout"):
        fluidstack.PROVIDER.parse([_raw(TABLE_2025_01, body)])


def test_row_missing_a_cell_is_an_unparsed_row_the_rest_published() -> None:
    body = GRID_2023_09.read_bytes().replace(b'<div class="pricing__text">$1.38</div>', b"")
    offers, excluded = fluidstack.parse_with_exclusions([_raw(GRID_2023_09, body)])
    assert excluded == {"truncated_row": 1, "unparsed_row": 1}
    by = _index(offers)
    assert ("A100 40GB PCIe", PricingModel.ON_DEMAND, None) not in by
    assert by[("A100 40GB NVLINK", PricingModel.ON_DEMAND, None)].price == Decimal("1.29")
    assert len(offers) == 10


def test_unreadable_price_is_counted_the_row_other_price_kept() -> None:
    body = TABLE_2025_01.read_bytes().replace(b"<p>$1.25<br/></p>", b"<p>soon</p>")
    offers, excluded = fluidstack.parse_with_exclusions([_raw(TABLE_2025_01, body)])
    assert excluded == {"n/a": 1, "unparsed_price": 1}
    by = _index(offers)
    assert ("Nvidia L40", PricingModel.ON_DEMAND, None) not in by
    assert by[("Nvidia L40", PricingModel.RESERVED, 12)].price == Decimal("0.99")
    assert len(offers) == 8


# A zero or negative amount must reach the loader (``prices_positive`` rejects the scrape) and a
# 100x one the price-jump guard: excluding it as ``unparsed_price`` would publish the rest.
@pytest.mark.parametrize(
    ("printed", "price"),
    [
        ("$-2.45", Decimal("-2.45")),
        ("-$2.45", Decimal("-2.45")),  # parsing.money would read 2.45 here
        ("$0.00", Decimal("0.00")),
        ("$245.00", Decimal("245.00")),
        ("$1,234.00", Decimal("1234.00")),
    ],
)
def test_2025_01_negative_zero_or_100x_price_is_read_as_printed_not_excluded(
    printed: str, price: Decimal
) -> None:
    # "Nvidia H200 | 141 | 48 | 384 | n/a | $2.45"
    body = TABLE_2025_01.read_bytes().replace(b"<p>$2.45</p>", f"<p>{printed}</p>".encode())
    offers, excluded = fluidstack.parse_with_exclusions([_raw(TABLE_2025_01, body)])
    assert excluded == {"n/a": 1}  # nothing more left out
    assert _index(offers)[("Nvidia H200", PricingModel.RESERVED, 12)].price == price
    assert len(offers) == 9


def test_2023_09_negative_grid_price_is_read_as_printed() -> None:
    cell = b'<div class="pricing__text">$4.76</div>'  # NVIDIA HGX H100 on-demand
    body = GRID_2023_09.read_bytes().replace(cell, cell.replace(b"$4.76", b"-$4.76"))
    offers, excluded = fluidstack.parse_with_exclusions([_raw(GRID_2023_09, body)])
    assert excluded == {"truncated_row": 1}
    by = _index(offers)
    assert by[("NVIDIA HGX H100", PricingModel.ON_DEMAND, None)].price == Decimal("-4.76")
    assert by[("NVIDIA HGX H100", PricingModel.RESERVED, 6)].price == Decimal("2.89")
    assert len(offers) == 12


def test_2025_01_unknown_gpu_row_is_reported_by_name_and_the_rest_published() -> None:
    known = fluidstack.PROVIDER.parse([_raw(TABLE_2025_01)])
    body = TABLE_2025_01.read_bytes().replace(b"Nvidia L40", b"Nvidia Z40")
    assert body != TABLE_2025_01.read_bytes()
    offers, excluded = fluidstack.PROVIDER.parse_report([_raw(TABLE_2025_01, body)])
    assert excluded == {"n/a": 1, "unknown_gpu Nvidia Z40": 1}
    assert sorted(o.model_dump_json() for o in offers) == sorted(
        o.model_dump_json() for o in known if o.instance_type != "Nvidia L40"
    )
    assert len(offers) == 7  # 9 minus L40's $1.25 and $0.99


def test_2023_09_every_row_unknown_is_schema_drift() -> None:
    body = re.sub(
        rb'(<div class="pricing__headline">)[^<]+(</div>)', rb"\1Z9\2", GRID_2023_09.read_bytes()
    )
    with pytest.raises(SchemaDriftError, match=r"no GPU prices found.*'unknown_gpu Z9': 6"):
        fluidstack.PROVIDER.parse_report([_raw(GRID_2023_09, body)])


# --- cluster-price cards (mid-2025 on): no capture exists; markup built from the evidence ----
# The facts are those of henryzhangpku/gpu-price-index src/gpuidx/backfill/parsers/fluidstack.py
# @ af236fcc41 ("H100 SXM | $2.10 | / GPU / H"); the markup follows the selectors of
# kaito-yanai/gpu-price-harvester providers/fluidstack_handler.py @ aa26d86c67 (<h3> name,
# price <p> in a div[data-framer-name] layer, "On Request"). Nothing else is known of the page.


def _cards_page(price: str = "$2.10", name: str = "H100 SXM", unit: str = "/ GPU / H") -> bytes:
    card = (
        f"<div><h3>{name}</h3>"
        f'<div data-framer-name="{price}"><p>{price}</p></div>'
        f'<div data-framer-name="{unit}"><p>{unit}</p></div></div>'
    )
    return f"<html><body><div>{card}</div></body></html>".encode()


def test_cluster_card_is_read_but_not_published_as_no_term_is_stated() -> None:
    raw = _raw(TABLE_2025_01, _cards_page())
    with pytest.raises(SchemaDriftError) as caught:
        fluidstack.parse_with_exclusions([raw])
    message = str(caught.value)
    assert "'cluster_price_no_term': 1" in message
    assert "not published: H100 SXM $2.10 / GPU / H" in message


def test_cluster_card_on_request_is_counted_under_its_marker() -> None:
    raw = _raw(TABLE_2025_01, _cards_page(price="On Request"))
    with pytest.raises(SchemaDriftError, match=r"no GPU prices found.*'on request': 1"):
        fluidstack.PROVIDER.parse([raw])


def test_cluster_card_without_the_per_gpu_hour_unit_is_an_unknown_unit() -> None:
    raw = _raw(TABLE_2025_01, _cards_page(unit="/ node / month"))
    with pytest.raises(SchemaDriftError, match="'unknown_unit H100 SXM': 1"):
        fluidstack.PROVIDER.parse([raw])


def test_cluster_card_of_an_unknown_gpu_is_named() -> None:
    raw = _raw(TABLE_2025_01, _cards_page(name="Z100"))
    with pytest.raises(SchemaDriftError, match="'unknown_gpu Z100': 1"):
        fluidstack.PROVIDER.parse([raw])


def test_live_page_answering_404_is_a_one_line_fetch_error() -> None:
    """The page is reported to 404 since 2026-08: a clear FetchError, not a traceback."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, content=b"<html>Not Found</html>")

    with (
        http.make_client(httpx.MockTransport(handler)) as client,
        pytest.raises(FetchError) as caught,
    ):
        fluidstack.fetch(client, None)
    assert str(caught.value) == "GET https://www.fluidstack.io/pricing: HTTP 404"


def test_fetch_requests_the_live_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=TABLE_2025_01.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = fluidstack.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", fluidstack.PRICING_URL)]
    assert seen[0].headers["User-Agent"] == http.USER_AGENT
    assert len(fluidstack.PROVIDER.parse(responses)) == 9


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["fluidstack"])["fluidstack"]
    assert [c.path.name for c in captures] == [GRID_2023_09.name, TABLE_2025_01.name]
    counts = []
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            offers = fluidstack.PROVIDER.parse(fluidstack.fetch(client, None))
        assert all(o.observed_at == capture.captured_at for o in offers)
        counts.append(len(offers))
    assert counts == [12, 9]
