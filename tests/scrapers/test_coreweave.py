"""CoreWeave scraper on its real captures (2023 component table, 2026 instance tables), fetch."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest
from selectolax.lexbor import LexborHTMLParser

from scrapers import coreweave, http
from scrapers.base import Offer, PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture
from warehouse.gpus import resolve

CAPTURE_2023 = SNAPSHOTS / "coreweave" / "2023-09-21_wayback_gpu-cloud-pricing_excerpt.html"
CAPTURE_2026 = SNAPSHOTS / "coreweave" / "c2026-09_pricing_page_scripts-stripped.html"


def _raw(body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(CAPTURE_2023, url=coreweave.PRICING_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def _by_name(offers: list[Offer]) -> dict[str, Offer]:
    by_name = {o.instance_type: o for o in offers}
    assert len(by_name) == len(offers), "instance_type must be unique"
    return by_name


def test_2023_component_table_prices_read_off_the_page() -> None:
    offers, excluded = coreweave.parse_with_exclusions([_raw()])
    by_name = _by_name(offers)
    assert len(offers) == 12
    # The last row (Tesla V100 NVLINK) is cut by the excerpt after its name.
    assert excluded == {"truncated_row": 1}
    assert "Tesla V100 NVLINK" not in by_name

    h100 = by_name["NVIDIA HGX H100"]  # "NVIDIA HGX H100 | 80 | 48 | 256 | $4.76 Reserve Now"
    assert h100.price == Decimal("4.76")
    assert h100.currency == "USD"
    assert h100.price_unit is PriceUnit.HOUR
    assert h100.price_per is PricePer.GPU
    assert h100.gpu_count == 1
    assert h100.vram_gb_reported == 80
    assert h100.pricing is PricingModel.ON_DEMAND
    # Max vCPUs / RAM per GPU are separately billed components, not part of this price.
    assert h100.vcpus is None and h100.ram_gb is None

    assert by_name["NVIDIA H100 PCIe"].price == Decimal("4.25")
    assert by_name["A100 80GB NVLINK"].price == Decimal("2.21")
    assert by_name["A100 40GB PCIe"].price == Decimal("2.06")
    assert by_name["A100 40GB PCIe"].vram_gb_reported == 40
    assert by_name["RTX A5000"].price == Decimal("0.77")
    assert by_name["RTX A5000"].vram_gb_reported == 24
    assert by_name["Quadro RTX 4000"].price == Decimal("0.24")
    assert by_name["Quadro RTX 4000"].vram_gb_reported == 8

    for offer in offers:
        assert offer.provider == "coreweave"
        assert offer.region == "global"
        assert offer.source_url == coreweave.PRICING_URL
        assert offer.observed_at == datetime(2023, 9, 21, tzinfo=UTC)
        assert offer.gpu_name == offer.instance_type


def test_missing_price_heading_is_schema_drift() -> None:
    body = _raw().body.replace(b"GPU Component<br/>Cost Per Hour", b"Hourly")
    with pytest.raises(SchemaDriftError, match="unknown CoreWeave pricing layout"):
        coreweave.PROVIDER.parse([_raw(body)])


def _known_2023_without(*names: str) -> dict[str, Decimal]:
    """Instance type -> price of the unedited 2023 capture, minus ``names``."""
    return {
        o.instance_type: o.price
        for o in coreweave.PROVIDER.parse([_raw()])
        if o.instance_type not in names
    }


def test_removed_price_is_counted_and_the_other_rows_still_published() -> None:
    body = _raw().body.replace(b"<strong>$4.25</strong>", b"")
    assert body != _raw().body
    offers, excluded = coreweave.parse_with_exclusions([_raw(body)])
    assert excluded == {"truncated_row": 1, "unparsed_price": 1}
    by_name = _by_name(offers)
    assert "NVIDIA H100 PCIe" not in by_name
    assert {o.instance_type: o.price for o in offers} == _known_2023_without("NVIDIA H100 PCIe")
    assert by_name["NVIDIA HGX H100"].price == Decimal("4.76")


def test_row_missing_its_cells_mid_table_is_an_unparsed_row_not_truncation() -> None:
    # Drop every value cell of the first row: it is not the end of the document, so not a cut.
    raw = _raw()
    start = raw.body.index(b'<div class="w-col w-col-2"><div>80</div></div>')
    end = raw.body.index(b"</div></div></div>", raw.body.index(b"$4.76")) + len(b"</div></div>")
    offers, excluded = coreweave.parse_with_exclusions([_raw(raw.body[:start] + raw.body[end:])])
    assert excluded == {"truncated_row": 1, "unparsed_row": 1}
    assert "NVIDIA HGX H100" not in _by_name(offers)
    assert _by_name(offers)["NVIDIA H100 PCIe"].price == Decimal("4.25")
    assert len(offers) == 11


def test_contact_sales_price_is_counted_not_parsed() -> None:
    body = _raw().body.replace(b"<strong>$0.24</strong>", b"<strong>Coming soon</strong>")
    offers, excluded = coreweave.parse_with_exclusions([_raw(body)])
    assert len(offers) == 11
    assert excluded == {"truncated_row": 1, "coming soon": 1}


def test_unreadable_price_is_counted_not_fatal() -> None:
    body = _raw().body.replace(b"<strong>$0.24</strong>", b"<strong>TBD</strong>")
    offers, excluded = coreweave.parse_with_exclusions([_raw(body)])
    assert excluded == {"truncated_row": 1, "unparsed_price": 1}
    assert "Quadro RTX 4000" not in _by_name(offers)
    assert _by_name(offers)["Quadro RTX 5000"].price == Decimal("0.57")


def test_2023_unknown_gpu_row_is_reported_by_name_and_the_rest_published() -> None:
    body = _raw().body.replace(b'href="#">A40</a>', b'href="#">Z40</a>')
    assert body != _raw().body
    offers, excluded = coreweave.PROVIDER.parse_report([_raw(body)])
    assert excluded == {"truncated_row": 1, "unknown_gpu Z40": 1}
    assert {o.instance_type: o.price for o in offers} == _known_2023_without("A40")
    assert _by_name(offers)["RTX A6000"].price == Decimal("1.28")  # A40's price twin


def test_2023_every_row_unknown_is_schema_drift() -> None:
    body = re.sub(rb"(<a [^>]*data-product=[^>]*>)[^<]+(</a>)", rb"\1Z9\2", _raw().body)
    with pytest.raises(SchemaDriftError, match=r"no GPU prices found.*'unknown_gpu Z9': 12"):
        coreweave.PROVIDER.parse_report([_raw(body)])


def test_fetch_requests_the_live_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200, content=CAPTURE_2023.read_bytes(), headers={"content-type": "text/html"}
        )

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = coreweave.fetch(client, None)
    assert len(seen) == 1
    assert seen[0].method == "GET"
    assert str(seen[0].url) == coreweave.PRICING_URL
    assert seen[0].headers["User-Agent"] == http.USER_AGENT
    assert len(coreweave.PROVIDER.parse(responses)) == 12


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["coreweave"])["coreweave"]
    # The PARSED json is another tool's output and is never replayed.
    assert [c.path.name for c in captures] == [CAPTURE_2023.name, CAPTURE_2026.name]
    counts = []
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            offers = coreweave.PROVIDER.parse(coreweave.fetch(client, None))
        assert offers and all(o.observed_at == capture.captured_at for o in offers)
        counts.append(len(offers))
    assert counts == [12, 34]


# --- Current instance tables (c2026-09 capture) ----------------------------------------------


def _raw_2026(edit: Callable[[LexborHTMLParser], None] | None = None) -> RawResponse:
    raw = raw_from_capture(CAPTURE_2026, url=coreweave.PRICING_URL)
    if edit is None:
        return raw
    tree = LexborHTMLParser(raw.body.decode("utf-8"))
    edit(tree)
    body = (tree.html or "").encode("utf-8")
    assert body != raw.body
    return dataclasses.replace(raw, body=body)


def _gpu_tables(tree: LexborHTMLParser) -> list:
    return [
        table
        for table in tree.css(coreweave.INSTANCE_TABLE)
        if (first := table.css_first(coreweave.INSTANCE_HEADING)) is not None
        and first.text(strip=True) == "GPU Model"
    ]


def _by_key(offers: list[Offer]) -> dict[tuple[str, str, PricingModel], Offer]:
    by_key = {(o.instance_type, o.region, o.pricing): o for o in offers}
    assert len(by_key) == len(offers), "one offer per instance, region and pricing model"
    return by_key


def test_2026_instance_tables_prices_per_instance_hour_by_region() -> None:
    offers, excluded = coreweave.parse_with_exclusions([_raw_2026()])
    # North America: 12 rows x (On-Demand, Spot, Inference) = 36 cells; Europe: 12 x 2 = 24.
    # 43 are prices, 9 say "Contact sales" and 8 "N/A"; the 9 Inference prices are properties
    # of their row's on-demand offer, so 34 offers.
    assert len(offers) == 34
    assert excluded == {"contact sales": 9, "n/a": 8}
    by = _by_key(offers)
    assert {o.region for o in offers} == {"north-america", "europe"}

    h100 = by[("NVIDIA HGX H100", "north-america", PricingModel.ON_DEMAND)]
    assert (h100.price, h100.currency, h100.price_unit, h100.price_per) == (
        Decimal("49.24"),
        "USD",
        PriceUnit.HOUR,
        PricePer.INSTANCE,
    )
    assert (h100.gpu_name, h100.gpu_count, h100.vram_gb_reported) == ("NVIDIA HGX H100", 8, 80)
    # vCPUs 128, System RAM 2,048 GB, Local Storage 61.44 TB for the whole instance.
    assert (h100.vcpus, h100.ram_gb, h100.storage_gb) == (128, 2048, Decimal("61440"))
    assert by[("NVIDIA HGX H100", "north-america", PricingModel.SPOT)].price == Decimal("19.71")
    assert by[("NVIDIA HGX H100", "europe", PricingModel.ON_DEMAND)].price == Decimal("49.24")
    assert by[("NVIDIA HGX H100", "europe", PricingModel.SPOT)].price == Decimal("19.51")

    assert by[("NVIDIA HGX H200", "north-america", PricingModel.ON_DEMAND)].price == Decimal(
        "50.44"
    )
    assert by[("NVIDIA HGX H200", "north-america", PricingModel.SPOT)].price == Decimal("20.93")
    assert by[("NVIDIA HGX H200", "europe", PricingModel.ON_DEMAND)].price == Decimal("50.44")
    assert by[("NVIDIA HGX H200", "europe", PricingModel.SPOT)].price == Decimal("20.64")
    assert by[("NVIDIA HGX H200", "europe", PricingModel.SPOT)].vram_gb_reported == 141

    for offer in offers:
        assert offer.provider == "coreweave"
        assert offer.source_url == coreweave.PRICING_URL
        assert offer.observed_at == datetime(2026, 9, 1, tzinfo=UTC)
        assert offer.currency == "USD"
        assert offer.reserved_term_months is None


def test_2026_gpu_count_column_with_footnote_marker() -> None:
    by = _by_key(coreweave.PROVIDER.parse([_raw_2026()]))
    # GPU Count "4^1": four GPUs per GB200 NVL72 instance, footnote 1 (unexplained on the page).
    gb200 = by[("NVIDIA GB200 NVL72", "north-america", PricingModel.ON_DEMAND)]
    assert (gb200.gpu_count, gb200.price, gb200.vram_gb_reported) == (4, Decimal("42.00"), 186)
    assert (gb200.vcpus, gb200.ram_gb, gb200.storage_gb) == (144, 960, Decimal("30720"))
    gh200 = by[("NVIDIA GH200", "europe", PricingModel.ON_DEMAND)]
    assert (gh200.gpu_count, gh200.price, gh200.vram_gb_reported) == (1, Decimal("6.50"), 96)
    assert by[("NVIDIA L40", "north-america", PricingModel.ON_DEMAND)].gpu_count == 8
    assert by[("NVIDIA A100", "europe", PricingModel.SPOT)].price == Decimal("9.51")


def test_coreweave_inference_column_is_a_property_not_offers() -> None:
    """Issue 22: the "Inference Single GPU" column was 9 extra 1-GPU offers (8 beside 8- and
    4-GPU instances); it is the North American on-demand offer's ``single_gpu_price``."""
    offers = coreweave.PROVIDER.parse([_raw_2026()])
    by = _by_key(offers)
    assert not [o for o in offers if "Inference" in o.instance_type]
    priced = {o.instance_type: o for o in offers if o.single_gpu_price is not None}
    # North America only: Europe's table has no such column. GB300, HGX B300 and RTX PRO 6000
    # (Standard Memory) say "Contact sales" there.
    assert {(o.region, o.pricing) for o in priced.values()} == {
        ("north-america", PricingModel.ON_DEMAND)
    }
    assert len(priced) == 9
    h100 = by[("NVIDIA HGX H100", "north-america", PricingModel.ON_DEMAND)]
    assert (h100.price, h100.gpu_count, h100.single_gpu_price) == (
        Decimal("49.24"),
        8,
        Decimal("6.16"),
    )
    assert priced["NVIDIA GB200 NVL72"].single_gpu_price == Decimal("10.50")
    assert priced["NVIDIA GH200"].single_gpu_price == Decimal("6.50")  # 1 GPU: the price itself
    # spot and Europe carry none
    assert by[("NVIDIA HGX H100", "north-america", PricingModel.SPOT)].single_gpu_price is None
    assert by[("NVIDIA HGX H100", "europe", PricingModel.ON_DEMAND)].single_gpu_price is None
    # Evidence that On-Demand is per instance: on every row the single-GPU price is the
    # instance price divided by the GPU count, to the cent.
    for model, instance in priced.items():
        assert instance.single_gpu_price is not None
        per_gpu = (instance.price / instance.gpu_count).quantize(Decimal("0.01"))
        assert abs(per_gpu - instance.single_gpu_price) <= Decimal("0.01"), model


def test_2026_contact_sales_and_na_cells_are_counted_not_offers() -> None:
    offers, excluded = coreweave.parse_with_exclusions([_raw_2026()])
    by = _by_key(offers)
    assert not [o for o in offers if o.instance_type.startswith("NVIDIA GB300 NVL72")]
    # HGX B300: On-Demand "Contact sales", Spot $35.84 (NA) / $36.70 (EU).
    assert ("NVIDIA HGX B300", "north-america", PricingModel.ON_DEMAND) not in by
    assert by[("NVIDIA HGX B300", "north-america", PricingModel.SPOT)].price == Decimal("35.84")
    assert by[("NVIDIA HGX B300", "europe", PricingModel.SPOT)].price == Decimal("36.70")
    # L40S Spot: $7.88 in North America, "N/A" in Europe.
    assert by[("NVIDIA L40S", "north-america", PricingModel.SPOT)].price == Decimal("7.88")
    assert ("NVIDIA L40S", "europe", PricingModel.SPOT) not in by
    assert excluded["n/a"] == 8


def test_2026_memory_variant_stays_in_the_instance_not_the_gpu_name() -> None:
    by = _by_key(coreweave.PROVIDER.parse([_raw_2026()]))
    high = by[
        (
            "NVIDIA RTX PRO 6000 Blackwell Server Edition (High Memory)",
            "north-america",
            PricingModel.ON_DEMAND,
        )
    ]
    assert (high.price, high.gpu_count, high.ram_gb) == (Decimal("20.00"), 8, 1024)
    assert high.gpu_name == "NVIDIA RTX PRO 6000 Blackwell Server Edition"
    standard = by[
        (
            "NVIDIA RTX PRO 6000 Blackwell Server Edition (Standard Memory)",
            "europe",
            PricingModel.SPOT,
        )
    ]
    assert (standard.price, standard.ram_gb) == (Decimal("9.56"), 512)
    assert standard.gpu_name == high.gpu_name


def test_2026_cpu_storage_and_networking_tables_are_not_gpu_offers() -> None:
    offers = coreweave.PROVIDER.parse([_raw_2026()])
    names = {o.gpu_name for o in offers}
    assert not [n for n in names if "Genoa" in n or "Storage" in n or "NAT" in n or "SUNK" in n]
    assert all(n.startswith("NVIDIA ") for n in names)
    # CPU instance prices ($6.42 for AMD Genoa 9274F) are nowhere among the offers.
    assert Decimal("6.42") not in {o.price for o in offers}


def test_2026_each_row_is_read_once_not_from_the_mobile_card_too() -> None:
    offers = coreweave.PROVIDER.parse([_raw_2026()])
    keys = [(o.instance_type, o.region, o.pricing) for o in offers]
    assert len(keys) == len(set(keys))
    assert len([k for k in keys if k[0] == "NVIDIA HGX H100"]) == 4  # NA + EU, On-Demand + Spot


def test_2026_gpu_tables_removed_is_schema_drift() -> None:
    def remove(tree: LexborHTMLParser) -> None:
        for table in _gpu_tables(tree):
            table.decompose()

    with pytest.raises(SchemaDriftError, match="instance-table layout without a table headed"):
        coreweave.PROVIDER.parse([_raw_2026(remove)])


def test_2026_region_heading_removed_is_schema_drift() -> None:
    def remove(tree: LexborHTMLParser) -> None:
        region = _gpu_tables(tree)[1].prev
        while region is not None and not region.is_element_node:
            region = region.prev
        assert region is not None and region.tag == "h5"
        region.decompose()

    with pytest.raises(SchemaDriftError, match="without a 'REGION: <name>'"):
        coreweave.PROVIDER.parse([_raw_2026(remove)])


def test_2026_unknown_column_is_schema_drift() -> None:
    def rename(tree: LexborHTMLParser) -> None:
        heading = _gpu_tables(tree)[0].css(coreweave.INSTANCE_HEADING)[1]  # "GPU Count"
        heading.inner_html = "GPUs per node"

    with pytest.raises(SchemaDriftError, match="unknown or repeated GPU table column"):
        coreweave.PROVIDER.parse([_raw_2026(rename)])


def _desktop_cells(row) -> list:
    return [
        c
        for c in row.css_first(coreweave.INSTANCE_ROW_GRID).iter()
        if coreweave.INSTANCE_CELL_CLASS in (c.attributes.get("class") or "").split()
    ]


def test_2026_row_missing_a_cell_is_an_unparsed_row_the_rest_published() -> None:
    def drop(tree: LexborHTMLParser) -> None:
        row = _gpu_tables(tree)[1].css(coreweave.INSTANCE_ROW)[7]  # Europe, NVIDIA HGX H100
        _desktop_cells(row)[-1].decompose()  # its Spot price

    offers, excluded = coreweave.parse_with_exclusions([_raw_2026(drop)])
    assert excluded == {"contact sales": 9, "n/a": 8, "unparsed_row": 1}
    by = _by_key(offers)
    assert ("NVIDIA HGX H100", "europe", PricingModel.ON_DEMAND) not in by
    assert ("NVIDIA HGX H100", "europe", PricingModel.SPOT) not in by
    assert by[("NVIDIA HGX H100", "north-america", PricingModel.ON_DEMAND)].price == Decimal(
        "49.24"
    )
    assert by[("NVIDIA HGX H200", "europe", PricingModel.SPOT)].price == Decimal("20.64")
    assert len(offers) == 32


def test_2026_price_that_is_not_a_plain_amount_is_counted_the_row_spot_kept() -> None:
    def per_month(tree: LexborHTMLParser) -> None:
        row = _gpu_tables(tree)[0].css(coreweave.INSTANCE_ROW)[7]  # North America, HGX H100
        _desktop_cells(row)[6].inner_html = "$35,000 / month"

    offers, excluded = coreweave.parse_with_exclusions([_raw_2026(per_month)])
    # the row's single-GPU price ($6.16) has no on-demand offer left to belong to: counted
    assert excluded == {
        "contact sales": 9,
        "n/a": 8,
        "unparsed_price": 1,
        "single_gpu_price_without_on_demand": 1,
    }
    by = _by_key(offers)
    assert ("NVIDIA HGX H100", "north-america", PricingModel.ON_DEMAND) not in by
    assert by[("NVIDIA HGX H100", "north-america", PricingModel.SPOT)].price == Decimal("19.71")
    assert by[("NVIDIA HGX H100", "north-america", PricingModel.SPOT)].single_gpu_price is None
    assert len(offers) == 33


def test_2026_unknown_gpu_row_is_reported_by_name_and_the_rest_published() -> None:
    def rename(tree: LexborHTMLParser) -> None:
        row = _gpu_tables(tree)[1].css(coreweave.INSTANCE_ROW)[8]  # Europe, NVIDIA L40
        _desktop_cells(row)[0].inner_html = "NVIDIA Z100"

    known = coreweave.PROVIDER.parse([_raw_2026()])
    offers, excluded = coreweave.PROVIDER.parse_report([_raw_2026(rename)])
    # Europe's L40 row ($10.00 on-demand, Spot "N/A") is left out whole, its "N/A" with it.
    assert excluded == {"contact sales": 9, "n/a": 7, "unknown_gpu NVIDIA Z100": 1}
    assert sorted(o.model_dump_json() for o in offers) == sorted(
        o.model_dump_json()
        for o in known
        if not (o.instance_type == "NVIDIA L40" and o.region == "europe")
    )
    assert len(offers) == 33


def test_2026_every_gpu_row_unknown_is_schema_drift() -> None:
    def rename(tree: LexborHTMLParser) -> None:
        for table in _gpu_tables(tree):
            for index, row in enumerate(table.css(coreweave.INSTANCE_ROW)):
                _desktop_cells(row)[0].inner_html = f"NVIDIA Z{index}00"

    with pytest.raises(SchemaDriftError, match=r"no GPU prices found.*unknown_gpu NVIDIA Z000"):
        coreweave.PROVIDER.parse_report([_raw_2026(rename)])


# --- A wrong price is read as printed (docs/reliability.md: rejected, never dropped) ---------

# A zero or negative amount must reach the loader (``prices_positive`` rejects the scrape) and a
# 100x one the price-jump guard: excluding it as ``unparsed_price`` would publish the rest.
WRONG_PRICES = [
    ("$-49.24", Decimal("-49.24")),
    ("-$49.24", Decimal("-49.24")),
    ("\u2212$49.24", Decimal("-49.24")),
    ("$0.00", Decimal("0.00")),
    ("$4924.00", Decimal("4924.00")),
    ("$4,924.00", Decimal("4924.00")),
]


@pytest.mark.parametrize(("printed", "price"), WRONG_PRICES)
def test_2026_negative_zero_or_100x_price_is_read_as_printed_not_excluded(
    printed: str, price: Decimal
) -> None:
    def misprint(tree: LexborHTMLParser) -> None:
        row = _gpu_tables(tree)[0].css(coreweave.INSTANCE_ROW)[7]  # North America, HGX H100
        _desktop_cells(row)[6].inner_html = printed  # its On-Demand "$49.24"

    offers, excluded = coreweave.parse_with_exclusions([_raw_2026(misprint)])
    assert excluded == {"contact sales": 9, "n/a": 8}  # nothing more left out
    by = _by_key(offers)
    assert by[("NVIDIA HGX H100", "north-america", PricingModel.ON_DEMAND)].price == price
    assert by[("NVIDIA HGX H100", "north-america", PricingModel.SPOT)].price == Decimal("19.71")
    assert len(offers) == 34


@pytest.mark.parametrize(
    ("printed", "price"),
    [
        ("$-4.25", Decimal("-4.25")),
        ("-$4.25", Decimal("-4.25")),  # parsing.money would read 4.25 here
        ("$0.00", Decimal("0.00")),
        ("$425.00", Decimal("425.00")),
        ("$1,234.00", Decimal("1234.00")),
    ],
)
def test_2023_negative_zero_or_100x_price_is_read_as_printed_not_excluded(
    printed: str, price: Decimal
) -> None:
    body = _raw().body.replace(b"<strong>$4.25</strong>", f"<strong>{printed}</strong>".encode())
    offers, excluded = coreweave.parse_with_exclusions([_raw(body)])
    assert excluded == {"truncated_row": 1}
    assert _by_name(offers)["NVIDIA H100 PCIe"].price == price
    assert len(offers) == 12


def test_coreweave_2026_a100_row_states_no_form_factor_so_it_is_not_guessed() -> None:
    """The 2026 "NVIDIA A100" rows say 8 GPUs (and a single-GPU inference price) of 80 GB, nothing
    about the bus: the row's product (data-product "nvidia-a100") has an empty spec in the
    page's product modals, and the catalogue's "A100 80GB NVLINK" (SXM4) and "A100 80GB PCIe"
    are other products, not priced rows. 80 GB SXM and 80 GB PCIe both agree with the row, so
    it resolves to no model; the same row stating HGX would be the 80 GB SXM A100."""
    offers = coreweave.PROVIDER.parse([_raw_2026()])
    a100 = {(o.gpu_name, o.gpu_count, o.vram_gb_reported) for o in offers if "A100" in o.gpu_name}
    assert a100 == {("NVIDIA A100", 8, 80)}
    assert resolve("NVIDIA A100", vram_gb=80) is None
    assert resolve("NVIDIA HGX A100", vram_gb=80) == "a100-80gb-sxm"
    assert resolve("NVIDIA A100 PCIe", vram_gb=80) == "a100-80gb-pcie"


def test_coreweave_a100_80gb_hgx_resolves_to_sxm(tmp_path, seeded_template) -> None:
    """The 2026 "NVIDIA A100" rows (8 GPUs x 80 GB; spot $9.65 north-america, $9.51 europe per
    instance-hour) name no bus; CoreWeave documents its A100 nodes as HGX (``DOCUMENTED_FORM_
    FACTORS``), so the rows state SXM beside the name and load as the 80 GB SXM A100, at
    $1.20625 and $1.18875 per GPU-hour."""
    from tests.support.seeded import seeded_warehouse
    from warehouse.load import prepare

    offers = [o for o in coreweave.PROVIDER.parse([_raw_2026()]) if o.gpu_name == "NVIDIA A100"]
    # (the inference price of one GPU is a property of the 8-GPU offer: single_gpu_price)
    assert {(o.gpu_count, o.vram_gb_reported, o.gpu_form_factor) for o in offers} == {
        (8, 80, "SXM"),
    }
    with seeded_warehouse(seeded_template, tmp_path / "w.duckdb").connect() as con:
        rows, validation = prepare(con, offers)
    assert validation.unresolved_gpus == []
    by = {(r.instance_type, r.region, r.pricing): r for r in rows}
    assert len(by) == 4
    assert {(r.gpu_id, r.gpu_family) for r in rows} == {("a100-80gb-sxm", None)}
    na_spot = by[("NVIDIA A100", "north-america", "spot")]
    eu_spot = by[("NVIDIA A100", "europe", "spot")]
    assert (na_spot.price, na_spot.price_per_gpu_hour_usd) == (Decimal("9.65"), Decimal("1.20625"))
    assert (eu_spot.price, eu_spot.price_per_gpu_hour_usd) == (Decimal("9.51"), Decimal("1.18875"))
    # the Inference Single GPU price ($2.70) is the NA on-demand offer's property
    na_on_demand = by[("NVIDIA A100", "north-america", "on_demand")]
    assert na_on_demand.gpu_id == "a100-80gb-sxm"
    assert na_on_demand.single_gpu_price == Decimal("2.70")
    # Another shape of row (a 4-GPU node) is not covered by what CoreWeave documents.
    assert ("NVIDIA A100", 4, 80) not in coreweave.DOCUMENTED_FORM_FACTORS
