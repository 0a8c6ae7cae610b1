"""Crusoe scraper on its real captures (2025-05 table, 2025-12 and 2026 lists) and fetch."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from selectolax.lexbor import LexborHTMLParser

from scrapers import crusoe, http
from scrapers.base import Offer, PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.parsing import decimal
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

FOLDER = SNAPSHOTS / "crusoe"
TABLE_2025_05 = FOLDER / "2025-05-21_wayback_cloud-pricing_excerpt.html"
LIST_2025_12 = FOLDER / "2025-12-15_wayback_cloud-pricing_excerpt.html"
PAGE_2026 = FOLDER / "c2026-09_cloud-pricing_page_scripts-stripped.html"
PARSED_2026_02 = FOLDER / "2026-02-11_parsed_pricing_page.json"  # cross-check only


def _raw(path: Path, body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(path, url=crusoe.PRICING_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def _index(offers: list[Offer]) -> dict[tuple[str, PricingModel, int | None], Offer]:
    index = {(o.instance_type, o.pricing, o.reserved_term_months): o for o in offers}
    assert len(index) == len(offers), "one offer per GPU, pricing model and term"
    return index


def test_2025_05_table_prices_read_off_the_page() -> None:
    offers, excluded = crusoe.parse_with_exclusions([_raw(TABLE_2025_05)])
    # 7 GPU rows x 5 columns, minus 5 "Contact Sales" spot cells; the A40 row is cut.
    assert len(offers) == 30
    assert excluded == {"contact sales": 5, "truncated_row": 1}
    by = _index(offers)

    # "NVIDIA H100 80GB SXM: $3.90/hr on-demand, Contact Sales spot, $3.12 / $2.93 / $2.54"
    h100 = by[("NVIDIA H100 80GB SXM", PricingModel.ON_DEMAND, None)]
    assert h100.price == Decimal("3.90")
    assert h100.currency == "USD"
    assert h100.price_unit is PriceUnit.HOUR
    assert h100.price_per is PricePer.GPU
    assert h100.gpu_count == 1
    assert h100.vram_gb_reported == 80
    assert ("NVIDIA H100 80GB SXM", PricingModel.SPOT, None) not in by
    assert by[("NVIDIA H100 80GB SXM", PricingModel.RESERVED, 6)].price == Decimal("3.12")
    assert by[("NVIDIA H100 80GB SXM", PricingModel.RESERVED, 12)].price == Decimal("2.93")
    assert by[("NVIDIA H100 80GB SXM", PricingModel.RESERVED, 36)].price == Decimal("2.54")

    assert by[("NVIDIA H200 141GB SXM", PricingModel.ON_DEMAND, None)].price == Decimal("4.29")
    assert by[("NVIDIA H200 141GB SXM", PricingModel.RESERVED, 36)].price == Decimal("2.79")
    mi300x = by[("AMD MI300X 192GB OAM", PricingModel.SPOT, None)]
    assert mi300x.price == Decimal("0.95")
    assert mi300x.vram_gb_reported == 192
    assert mi300x.gpu_name == "AMD MI300X 192GB OAM"
    # Three A100 variants stay apart by memory and form factor.
    assert by[("NVIDIA A100 80GB SXM", PricingModel.ON_DEMAND, None)].price == Decimal("1.95")
    assert by[("NVIDIA A100 80GB PCIe", PricingModel.ON_DEMAND, None)].price == Decimal("1.65")
    assert by[("NVIDIA A100 40GB PCIe", PricingModel.ON_DEMAND, None)].price == Decimal("1.45")
    assert by[("NVIDIA L40S 48GB PCIe", PricingModel.SPOT, None)].price == Decimal("0.50")
    assert by[("NVIDIA L40S 48GB PCIe", PricingModel.RESERVED, 12)].price == Decimal("0.75")

    assert {o.pricing for o in offers} == {
        PricingModel.ON_DEMAND,
        PricingModel.SPOT,
        PricingModel.RESERVED,
    }
    for offer in offers:
        assert offer.observed_at == datetime(2025, 5, 21, tzinfo=UTC)
        assert offer.source_url == crusoe.PRICING_URL
        assert offer.region == "global"


def test_2025_12_list_prices_read_off_the_page() -> None:
    offers, excluded = crusoe.parse_with_exclusions([_raw(LIST_2025_12)])
    # GB200 and B200: "Contact sales" twice each; H200 spot: "Contact sales"; A100 is cut.
    assert len(offers) == 3
    assert excluded == {"contact sales": 5, "truncated_row": 1}
    by = _index(offers)
    h200 = by[("NVIDIA H200 141GB HGX", PricingModel.ON_DEMAND, None)]  # "$4.29/GPU-hr"
    assert h200.price == Decimal("4.29")
    assert h200.price_per is PricePer.GPU
    assert h200.vram_gb_reported == 141
    assert by[("NVIDIA H100 80GB HGX", PricingModel.ON_DEMAND, None)].price == Decimal("3.90")
    assert by[("NVIDIA H100 80GB HGX", PricingModel.SPOT, None)].price == Decimal("1.60")
    assert all(o.observed_at == datetime(2025, 12, 15, tzinfo=UTC) for o in offers)


def test_2025_12_on_demand_prices_agree_with_the_2026_02_parsed_page() -> None:
    """Cross-check (two months apart, same list layout): another tool's parse of the live page.

    The PARSED file is never parser input; it only confirms the figures we read.
    """
    parsed = json.loads(PARSED_2026_02.read_text(encoding="utf-8"))
    theirs = {(row["product"], row["vram_gb"]): row["price_per_hour_usd"] for row in parsed}
    ours = {
        (o.instance_type.rsplit(" ", 2)[0], int(o.vram_gb_reported or 0)): o.price
        for o in crusoe.PROVIDER.parse([_raw(LIST_2025_12)])
        if o.pricing is PricingModel.ON_DEMAND
    }
    assert ours == {("NVIDIA H200", 141): Decimal("4.29"), ("NVIDIA H100", 80): Decimal("3.90")}
    for key, price in ours.items():
        assert decimal(theirs[key]) == price
    # GPUs we count as "Contact sales" have no price in their parse either.
    assert theirs[("NVIDIA GB200", 186)] is None
    assert theirs[("NVIDIA B200", 180)] is None


def test_renamed_table_heading_is_schema_drift() -> None:
    body = TABLE_2025_05.read_bytes().replace(b">GPU Pricing</th>", b">GPU Prices</th>")
    with pytest.raises(SchemaDriftError, match="unknown Crusoe pricing layout"):
        crusoe.PROVIDER.parse([_raw(TABLE_2025_05, body)])


def test_unknown_price_column_is_schema_drift() -> None:
    body = TABLE_2025_05.read_bytes().replace(b" 3-year reserved ", b" 2-week reserved ")
    with pytest.raises(SchemaDriftError, match="unknown price column"):
        crusoe.PROVIDER.parse([_raw(TABLE_2025_05, body)])


def test_dash_instead_of_a_price_is_counted_and_the_row_on_demand_kept() -> None:
    body = LIST_2025_12.read_bytes().replace(b"<p>$1.60/GPU-hr</p>", b"<p>-</p>")
    offers, excluded = crusoe.parse_with_exclusions([_raw(LIST_2025_12, body)])
    assert excluded == {"contact sales": 5, "truncated_row": 1, "unparsed_price": 1}
    by = _index(offers)
    assert ("NVIDIA H100 80GB HGX", PricingModel.SPOT, None) not in by
    assert by[("NVIDIA H100 80GB HGX", PricingModel.ON_DEMAND, None)].price == Decimal("3.90")


def test_list_heading_gone_is_schema_drift() -> None:
    body = LIST_2025_12.read_bytes().replace(b'class="pricing-table-heading', b'class="x')
    with pytest.raises(SchemaDriftError, match="unknown Crusoe pricing layout"):
        crusoe.PROVIDER.parse([_raw(LIST_2025_12, body)])


def test_price_per_month_instead_of_per_hour_is_an_unknown_unit_row() -> None:
    body = LIST_2025_12.read_bytes().replace(b"$3.90/GPU-hr", b"$2800/GPU-month")
    offers, excluded = crusoe.PROVIDER.parse_report([_raw(LIST_2025_12, body)])
    # The whole H100 row is left out (its $1.60 spot too): its unit is not the list's.
    assert excluded == {
        "contact sales": 5,
        "truncated_row": 1,
        "unknown_unit NVIDIA H100 80GB HGX": 1,
    }
    assert [(o.instance_type, o.pricing, o.price) for o in offers] == [
        ("NVIDIA H200 141GB HGX", PricingModel.ON_DEMAND, Decimal("4.29"))
    ]


def test_2025_05_unknown_gpu_row_is_reported_by_name_and_the_rest_published() -> None:
    body = TABLE_2025_05.read_bytes().replace(b">AMD MI300X</div>", b">AMD MI999X</div>")
    assert body != TABLE_2025_05.read_bytes()
    offers, excluded = crusoe.PROVIDER.parse_report([_raw(TABLE_2025_05, body)])
    assert excluded == {"contact sales": 5, "truncated_row": 1, "unknown_gpu AMD MI999X": 1}
    known = crusoe.PROVIDER.parse([_raw(TABLE_2025_05)])
    assert sorted(o.model_dump_json() for o in offers) == sorted(
        o.model_dump_json() for o in known if o.instance_type != "AMD MI300X 192GB OAM"
    )
    assert len(offers) == 25  # 30 minus MI300X's five prices


def test_2025_05_every_row_unknown_is_schema_drift() -> None:
    body = re.sub(
        rb'(<div class="w-\[10ch\] text-xl">)[^<]+(</div>)',
        rb"\1Z9\2",
        TABLE_2025_05.read_bytes(),
    )
    with pytest.raises(SchemaDriftError, match=r"no GPU prices found.*'unknown_gpu Z9': 7"):
        crusoe.PROVIDER.parse_report([_raw(TABLE_2025_05, body)])


def test_fetch_requests_the_live_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=LIST_2025_12.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = crusoe.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", crusoe.PRICING_URL)]
    assert seen[0].headers["User-Agent"] == http.USER_AGENT
    assert len(crusoe.PROVIDER.parse(responses)) == 3


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["crusoe"])["crusoe"]
    assert [c.path.name for c in captures] == [
        TABLE_2025_05.name,
        LIST_2025_12.name,
        PAGE_2026.name,
    ]
    counts = []
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            offers = crusoe.PROVIDER.parse(crusoe.fetch(client, None))
        assert all(o.observed_at == capture.captured_at for o in offers)
        counts.append(len(offers))
    assert counts == [30, 3, 6]


# --- 2026 whole page: the GPU list beside CPU, storage, Kubernetes and inference lists ---------


def _edited_2026(edit: Callable[[LexborHTMLParser], None]) -> RawResponse:
    raw = _raw(PAGE_2026)
    tree = LexborHTMLParser(raw.body.decode("utf-8"))
    edit(tree)
    body = (tree.html or "").encode("utf-8")
    assert body != raw.body
    return dataclasses.replace(raw, body=body)


def _gpu_list_scope(tree: LexborHTMLParser):
    headers = [
        h
        for h in tree.css(crusoe.LIST_HEADER_ROW)
        if [c.text(strip=True) for c in h.css(crusoe.LIST_HEADER_CELL)][:1] == ["GPU model"]
    ]
    assert len(headers) == 1 and headers[0].parent is not None
    return headers[0].parent


def test_2026_list_prices_read_off_the_page() -> None:
    offers, excluded = crusoe.parse_with_exclusions([_raw(PAGE_2026)])
    # 9 GPUs x (on-demand, spot): GB200, B200 and MI355X say "Contact sales" twice, the other
    # six GPUs have an on-demand price and "Contact sales" for spot.
    assert len(offers) == 6
    assert excluded == {"contact sales": 12}
    by = _index(offers)
    assert {o.pricing for o in offers} == {PricingModel.ON_DEMAND}
    h100 = by[("NVIDIA H100 80GB HGX", PricingModel.ON_DEMAND, None)]  # "$3.90/GPU-hr"
    assert (h100.price, h100.currency, h100.price_per, h100.gpu_count) == (
        Decimal("3.90"),
        "USD",
        PricePer.GPU,
        1,
    )
    assert h100.vram_gb_reported == 80
    assert by[("NVIDIA H200 141GB HGX", PricingModel.ON_DEMAND, None)].price == Decimal("4.29")
    assert by[("NVIDIA A100 80GB SXM", PricingModel.ON_DEMAND, None)].price == Decimal("2.30")
    assert by[("NVIDIA A100 80GB PCIe", PricingModel.ON_DEMAND, None)].price == Decimal("2.00")
    # L40S and MI300X have an empty form-factor tag: label is name and memory only.
    l40s = by[("NVIDIA L40S 48GB", PricingModel.ON_DEMAND, None)]
    assert (l40s.price, l40s.vram_gb_reported) == (Decimal("1.50"), 48)
    mi300x = by[("AMD MI300X 192GB", PricingModel.ON_DEMAND, None)]
    assert (mi300x.price, mi300x.gpu_name) == (Decimal("3.45"), "AMD MI300X 192GB")
    for offer in offers:
        assert offer.observed_at == datetime(2026, 9, 1, tzinfo=UTC)
        assert offer.region == "global"
        assert offer.source_url == crusoe.PRICING_URL


def test_2026_table_of_contents_heading_is_not_taken_for_the_gpu_list() -> None:
    """Regression: "list heading ['Pricing'] does not start with 'GPU model'" on the 2026 page,
    whose first list heading is the table of contents."""
    headers = LexborHTMLParser(PAGE_2026.read_text(encoding="utf-8")).css(crusoe.LIST_HEADER_ROW)
    first = [c.text(strip=True) for c in headers[0].css(crusoe.LIST_HEADER_CELL)]
    assert first == ["Pricing"]
    assert len(crusoe.PROVIDER.parse([_raw(PAGE_2026)])) == 6


def test_2026_cpu_storage_inference_and_self_serve_lists_are_not_gpu_offers() -> None:
    offers = crusoe.PROVIDER.parse([_raw(PAGE_2026)])
    names = {o.instance_type for o in offers}
    assert not [n for n in names if "General-purpose" in n or "disk" in n or "Cluster" in n]
    assert not [n for n in names if "Llama" in n or "DeepSeek" in n or "Qwen" in n]
    # Self-serve deployments list: H100 $5.50, B200 $9.65, MI355x $7.40 per hour.
    assert {Decimal("5.50"), Decimal("9.65"), Decimal("7.40")}.isdisjoint(o.price for o in offers)
    assert Decimal("0.04") not in {o.price for o in offers}  # CPU "$0.04/vCPU-hr"


def test_2026_gpu_list_removed_is_schema_drift() -> None:
    raw = _edited_2026(lambda tree: _gpu_list_scope(tree).decompose())
    with pytest.raises(SchemaDriftError, match="unknown Crusoe pricing layout"):
        crusoe.PROVIDER.parse([raw])


def test_2026_gpu_list_heading_renamed_is_schema_drift() -> None:
    def rename(tree: LexborHTMLParser) -> None:
        scope = _gpu_list_scope(tree)
        scope.css(crusoe.LIST_HEADER_CELL)[0].inner_html = "Accelerator"

    with pytest.raises(SchemaDriftError, match="unknown Crusoe pricing layout"):
        crusoe.PROVIDER.parse([_edited_2026(rename)])


def test_2026_two_gpu_lists_are_schema_drift() -> None:
    def duplicate(tree: LexborHTMLParser) -> None:
        scope = _gpu_list_scope(tree)
        scope.insert_after(scope.clone())

    with pytest.raises(SchemaDriftError, match="2 list headings start with 'GPU model'"):
        crusoe.PROVIDER.parse([_edited_2026(duplicate)])


def test_2026_gpu_item_without_memory_tag_is_an_unparsed_row() -> None:
    def blank(tree: LexborHTMLParser) -> None:
        item = _gpu_list_scope(tree).css(crusoe.LIST_ITEM)[3]  # NVIDIA H100
        item.css(crusoe.LIST_ITEM_TAG)[0].inner_html = ""

    offers, excluded = crusoe.parse_with_exclusions([_edited_2026(blank)])
    # The H100 row is left out whole: its $3.90 and its spot "Contact sales".
    assert excluded == {"contact sales": 11, "unparsed_row": 1}
    assert not [o for o in offers if o.instance_type.startswith("NVIDIA H100")]
    assert len(offers) == 5
    assert _index(offers)[("NVIDIA H200 141GB HGX", PricingModel.ON_DEMAND, None)].price == (
        Decimal("4.29")
    )


# --- A wrong price is read as printed (docs/reliability.md: rejected, never dropped) ---------


# A zero or negative amount must reach the loader (``prices_positive`` rejects the scrape) and a
# 100x one the price-jump guard: excluding it as ``unparsed_price`` would publish the rest.
@pytest.mark.parametrize(
    ("printed", "price"),
    [
        ("$-4.29/GPU-hr", Decimal("-4.29")),
        ("-$4.29/GPU-hr", Decimal("-4.29")),  # parsing.money would read 4.29 here
        ("$0.00/GPU-hr", Decimal("0.00")),
        ("$429.00/GPU-hr", Decimal("429.00")),
        ("$1,234.00/GPU-hr", Decimal("1234.00")),
    ],
)
def test_2026_negative_zero_or_100x_price_is_read_as_printed_not_excluded(
    printed: str, price: Decimal
) -> None:
    body = PAGE_2026.read_bytes().replace(b"<p>$4.29/GPU-hr</p>", f"<p>{printed}</p>".encode())
    offers, excluded = crusoe.parse_with_exclusions([_raw(PAGE_2026, body)])
    assert excluded == {"contact sales": 12}  # nothing more left out
    assert _index(offers)[("NVIDIA H200 141GB HGX", PricingModel.ON_DEMAND, None)].price == price
    assert len(offers) == 6


@pytest.mark.parametrize(
    ("printed", "price"), [(" -4.29", Decimal("-4.29")), (" 429.00", Decimal("429.00"))]
)
def test_2025_05_negative_or_100x_table_price_is_read_as_printed(
    printed: str, price: Decimal
) -> None:
    cell = b'<span class="text-gray-600">$</span> 4.29<'  # H200 on-demand, "$ 4.29 /hr"
    body = TABLE_2025_05.read_bytes().replace(cell, cell.replace(b" 4.29", printed.encode()))
    offers, excluded = crusoe.parse_with_exclusions([_raw(TABLE_2025_05, body)])
    assert excluded == {"contact sales": 5, "truncated_row": 1}
    assert _index(offers)[("NVIDIA H200 141GB SXM", PricingModel.ON_DEMAND, None)].price == price
    assert len(offers) == 30
