"""Nebius: the 2024 configuration table, the 2026 GPU instances tables (with effective-date
columns from 2026-09), plus fetch."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from selectolax.lexbor import LexborHTMLParser

from scrapers import nebius
from scrapers.base import Offer, PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.http import make_client
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

TABLE_2024 = SNAPSHOTS / "nebius" / "2024-11-15_wayback_prices_excerpt.html"
TABLE_2026 = SNAPSHOTS / "nebius" / "2026-07-12_wayback_prices_excerpt.html"
PAGE_2026_09 = SNAPSHOTS / "nebius" / "c2026-09_prices_page_scripts-stripped.html"
PARSED_2026_02 = SNAPSHOTS / "nebius" / "2026-02-11_parsed_pricing_page.json"  # cross-check only


def _raw(path: Path) -> RawResponse:
    return raw_from_capture(path, url=nebius.PRICING_URL)


def _mutated(path: Path, old: str, new: str) -> RawResponse:
    raw = _raw(path)
    assert old.encode() in raw.body, f"mutation target {old!r} not in capture"
    return dataclasses.replace(raw, body=raw.body.replace(old.encode(), new.encode()))


def _by_key(offers: list[Offer]) -> dict[tuple[str, PricingModel], Offer]:
    return {(o.instance_type, o.pricing): o for o in offers}


def test_2024_configuration_table_prices_per_instance_hour() -> None:
    offers = nebius.PROVIDER.parse([_raw(TABLE_2024)])
    assert len(offers) == 5
    assert {o.pricing for o in offers} == {PricingModel.ON_DEMAND}
    h200x8 = _by_key(offers)[("8x H200 SXM", PricingModel.ON_DEMAND)]
    assert (h200x8.gpu_name, h200x8.gpu_count, h200x8.price) == ("H200 SXM", 8, Decimal("28.00"))
    assert (h200x8.currency, h200x8.price_unit, h200x8.price_per) == (
        "USD",
        PriceUnit.HOUR,
        PricePer.INSTANCE,
    )
    # The table's vRAM is the instance total (1128 GB for eight H200s).
    assert (h200x8.vram_gb_reported, h200x8.vcpus, h200x8.ram_gb) == (141, 128, 1600)
    h100 = _by_key(offers)[("1x H100 SXM", PricingModel.ON_DEMAND)]
    assert (h100.price, h100.vram_gb_reported, h100.vcpus, h100.ram_gb) == (
        Decimal("2.95"),
        80,
        16,
        200,
    )
    assert _by_key(offers)[("1x L40s PCIe", PricingModel.ON_DEMAND)].price == Decimal("1.55")
    assert h100.observed_at == datetime(2024, 11, 15, tzinfo=UTC)
    assert h100.source_url == nebius.PRICING_URL


def test_2024_reserve_column_and_commitment_cards_are_not_emitted() -> None:
    offers = nebius.PROVIDER.parse([_raw(TABLE_2024)])
    prices = {o.price for o in offers}
    assert Decimal("18.40") not in prices  # 8 × H200 "Reserve": no term on the page
    assert Decimal("2.30") not in prices  # H200 commitment card "as low as $2.30"
    assert all(o.reserved_term_months is None for o in offers)


def test_2026_gpu_instances_table_per_gpu_hour() -> None:
    offers = nebius.PROVIDER.parse([_raw(TABLE_2026)])
    assert len(offers) == 14
    by_key = _by_key(offers)
    h100 = by_key[("NVIDIA HGX H100", PricingModel.ON_DEMAND)]
    assert (h100.price, h100.price_per, h100.gpu_count) == (Decimal("3.85"), PricePer.GPU, 1)
    assert (h100.vcpus, h100.ram_gb, h100.vram_gb_reported) == (16, 200, None)
    assert by_key[("NVIDIA HGX H100", PricingModel.SPOT)].price == Decimal("2.15")
    assert by_key[("NVIDIA HGX B300", PricingModel.ON_DEMAND)].price == Decimal("7.85")
    assert by_key[("NVIDIA HGX B300", PricingModel.SPOT)].price == Decimal("4.30")
    assert by_key[("NVIDIA RTX PRO 6000", PricingModel.ON_DEMAND)].price == Decimal("1.80")


def test_2026_contact_us_rows_are_counted_not_offers() -> None:
    offers, excluded = nebius.parse_with_exclusions([_raw(TABLE_2026)])
    names = {o.instance_type for o in offers}
    assert "NVIDIA GB200 NVL72" not in names
    assert "NVIDIA GB300 NVL72" not in names
    # Both NVL72 rows: preemptible "––", on-demand "Contact us".
    assert excluded == {"contact us": 2, "dashes": 2}


def test_2026_unknown_gpu_row_is_reported_by_name_and_the_rest_published() -> None:
    known = nebius.PROVIDER.parse([_raw(TABLE_2026)])
    raw = _mutated(TABLE_2026, "NVIDIA RTX PRO 6000", "NVIDIA Z100")
    offers, excluded = nebius.PROVIDER.parse_report([raw])
    assert excluded == {"contact us": 2, "dashes": 2, "unknown_gpu NVIDIA Z100": 1}
    # RTX PRO 6000 ($1.80 on-demand, $0.95 preemptible) is left out, nothing else.
    assert sorted(o.model_dump_json() for o in offers) == sorted(
        o.model_dump_json() for o in known if o.instance_type != "NVIDIA RTX PRO 6000"
    )
    assert len(offers) == 12


def test_2024_unknown_gpu_row_is_reported_by_name() -> None:
    raw = _mutated(TABLE_2024, "1 × L40s PCIe", "1 × Z40 PCIe")
    offers, excluded = nebius.PROVIDER.parse_report([raw])
    assert excluded == {"unknown_gpu 1 × Z40 PCIe": 1}
    assert {o.instance_type: o.price for o in offers} == {
        "1x H200 SXM": Decimal("3.50"),
        "8x H200 SXM": Decimal("28.00"),
        "1x H100 SXM": Decimal("2.95"),
        "8x H100 SXM": Decimal("23.60"),
    }


def test_2024_unreadable_figure_is_an_unparsed_row() -> None:
    raw = _mutated(TABLE_2024, ">1128<", ">lots<")
    offers, excluded = nebius.parse_with_exclusions([raw])
    assert excluded == {"unparsed_row": 1}
    assert "8x H200 SXM" not in {o.instance_type for o in offers}
    assert len(offers) == 4


def test_2026_every_gpu_row_unknown_is_drift() -> None:
    raw = _raw(TABLE_2026)
    body = raw.body
    for name in ("GB300", "GB200", "B300", "B200", "H200", "H100", "RTX PRO 6000", "L40S"):
        body = body.replace(f"NVIDIA {name}".encode(), b"NVIDIA Z9")
        body = body.replace(f"NVIDIA HGX {name}".encode(), b"NVIDIA Z9")
    with pytest.raises(SchemaDriftError, match=r"no GPU offers found.*unknown_gpu"):
        nebius.PROVIDER.parse_report([dataclasses.replace(raw, body=body)])


def test_2026_from_prices_take_the_smallest_configuration() -> None:
    by_key = _by_key(nebius.PROVIDER.parse([_raw(TABLE_2026)]))
    intel = by_key[("NVIDIA L40S with Intel CPU", PricingModel.ON_DEMAND)]
    assert (intel.price, intel.vcpus, intel.ram_gb) == (Decimal("1.82"), 16, 96)  # "16-192"
    amd = by_key[("NVIDIA L40S with AMD CPU", PricingModel.SPOT)]
    assert (amd.price, amd.vcpus, amd.ram_gb) == (Decimal("0.74"), 8, 32)


def test_2026_l40s_rows_agree_with_another_tools_parse() -> None:
    """Cross-check only: the PARSED file is another scraper's output of the page (Feb 2026).

    Its L40S "from" rows pair the same prices with the same smallest vCPU/RAM configuration
    (its Intel/AMD labels are swapped relative to the July capture, so only the triples are
    compared): evidence that "from $X" belongs to the lower bounds of the ranges.
    """
    parsed = json.loads(PARSED_2026_02.read_text())
    theirs = {
        (Decimal(str(r["price_per_hour_usd"])), r["vcpus"], r["system_ram_gb"])
        for r in parsed
        if "L40S" in r["product"]
    }
    ours = {
        (o.price, o.vcpus, o.ram_gb)
        for o in nebius.PROVIDER.parse([_raw(TABLE_2026)])
        if "L40S" in o.gpu_name and o.pricing is PricingModel.ON_DEMAND
    }
    assert ours == theirs == {(Decimal("1.82"), 16, 96), (Decimal("1.55"), 8, 32)}


def test_2026_renamed_price_column_is_drift() -> None:
    raw = _mutated(TABLE_2026, "<p>On-demand, GPU-hour</p>", "<p>On-demand, hour</p>")
    with pytest.raises(SchemaDriftError, match="unknown GPU table column"):
        nebius.PROVIDER.parse([raw])


def test_2024_renamed_price_column_is_drift() -> None:
    raw = _mutated(TABLE_2024, "<span>On demand</span>", "<span>Pay as you go</span>")
    with pytest.raises(SchemaDriftError, match="unknown GPU table column"):
        nebius.PROVIDER.parse([raw])


def test_page_without_either_table_is_drift() -> None:
    raw = _mutated(TABLE_2026, "pc-highlight-table-block__table", "pc-price-grid")
    with pytest.raises(SchemaDriftError, match="no GPU price table"):
        nebius.PROVIDER.parse([raw])


def test_fetch_gets_the_pricing_page() -> None:
    seen: list[httpx.Request] = []
    body = TABLE_2026.read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=body, headers={"content-type": "text/html"})

    with make_client(httpx.MockTransport(handler)) as client:
        responses = nebius.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", nebius.PRICING_URL)]
    assert "authorization" not in seen[0].headers
    assert len(nebius.PROVIDER.parse(responses)) == 14


@pytest.mark.parametrize("token", [None, "unused"])
def test_replay_of_every_capture_parses(token: str | None) -> None:
    captures = discover(SNAPSHOTS, ["nebius"])["nebius"]
    assert [c.path.name for c in captures] == [
        TABLE_2024.name,
        TABLE_2026.name,
        PAGE_2026_09.name,
    ]  # the PARSED json is not replayed
    for capture in captures:
        with make_client(ReplayTransport(capture)) as client:
            offers = nebius.PROVIDER.parse(nebius.fetch(client, token))
        assert offers and all(o.observed_at == capture.captured_at for o in offers)


# --- 2026-09 whole page: "Effective October 1, 2026" columns and a separate spot table ----------


def _observed(path: Path, when: datetime) -> RawResponse:
    return dataclasses.replace(_raw(path), fetched_at=when)


def _table_cells(tree: LexborHTMLParser, heading: str) -> list:
    """The head cells of every highlight table with a column headed ``heading``."""
    found = []
    for table in tree.css(nebius.HIGHLIGHT_TABLE):
        head = table.css_first(nebius.HIGHLIGHT_HEAD_ROW)
        cells = [] if head is None else head.css(nebius.HIGHLIGHT_CELL)
        if heading in [c.text(separator=" ", strip=True) for c in cells]:
            found.append((table, cells))
    return found


def _edited(path: Path, edit) -> RawResponse:
    raw = _raw(path)
    tree = LexborHTMLParser(raw.body.decode("utf-8"))
    edit(tree)
    body = (tree.html or "").encode("utf-8")
    assert body != raw.body
    return dataclasses.replace(raw, body=body)


def test_2026_09_current_column_in_force_before_the_effective_date() -> None:
    raw = _raw(PAGE_2026_09)
    assert raw.fetched_at == datetime(2026, 9, 1, tzinfo=UTC)  # "c2026-09": month precision
    offers = nebius.PROVIDER.parse([raw])
    assert len(offers) == 9
    by_key = _by_key(offers)
    # "On-demand, GPU-hour" (not "GPU-hour (Effective October 1, 2026)") on 2026-09-01.
    h100 = by_key[("NVIDIA HGX H100", PricingModel.ON_DEMAND)]
    assert (h100.price, h100.currency, h100.price_per, h100.gpu_count) == (
        Decimal("3.85"),
        "USD",
        PricePer.GPU,
        1,
    )
    assert (h100.vcpus, h100.ram_gb) == (16, 200)
    assert by_key[("NVIDIA HGX B300", PricingModel.ON_DEMAND)].price == Decimal("7.85")
    assert by_key[("NVIDIA HGX B200", PricingModel.ON_DEMAND)].price == Decimal("7.15")
    assert by_key[("NVIDIA HGX H200", PricingModel.ON_DEMAND)].price == Decimal("4.50")
    assert by_key[("NVIDIA RTX PRO 6000", PricingModel.ON_DEMAND)].price == Decimal("1.80")
    intel = by_key[("NVIDIA L40S with Intel CPU", PricingModel.ON_DEMAND)]
    assert (intel.price, intel.vcpus, intel.ram_gb) == (Decimal("1.55"), 8, 32)  # "8-40"
    # GB200 / GB300 NVL72: "Contact us" in both columns.
    assert not [o for o in offers if "NVL72" in o.instance_type]
    assert all(o.observed_at == raw.fetched_at for o in offers)


def test_2026_09_effective_column_is_the_announced_price_before_its_date() -> None:
    offers = nebius.PROVIDER.parse([_raw(PAGE_2026_09)])  # observed 2026-09-01
    announced = {
        o.instance_type: (o.price, o.announced_price, o.announced_from)
        for o in offers
        if o.announced_price is not None
    }
    october = datetime(2026, 10, 1, tzinfo=UTC)
    # "On-demand, GPU-hour" -> "GPU-hour (Effective October 1, 2026)", USD per GPU-hour
    assert announced == {
        "NVIDIA HGX H100": (Decimal("3.85"), Decimal("4.50"), october),
        "NVIDIA HGX H200": (Decimal("4.50"), Decimal("5.40"), october),
        "NVIDIA HGX B200": (Decimal("7.15"), Decimal("8.50"), october),
        "NVIDIA HGX B300": (Decimal("7.85"), Decimal("9.50"), october),
    }
    by_key = _by_key(offers)
    h100 = by_key[("NVIDIA HGX H100", PricingModel.ON_DEMAND)]
    assert (h100.currency, h100.price_unit, h100.price_per) == ("USD", PriceUnit.HOUR, PricePer.GPU)
    # RTX PRO 6000 "$1.80" and the L40S rows "from $1.55" / "from $1.82" in both columns: the
    # same price, nothing announced; spot prices have no effective-date column.
    for name in ("NVIDIA RTX PRO 6000", "NVIDIA L40S with Intel CPU", "NVIDIA L40S with AMD CPU"):
        offer = by_key[(name, PricingModel.ON_DEMAND)]
        assert (offer.announced_price, offer.announced_from) == (None, None)
    assert all(o.announced_price is None for o in offers if o.pricing is PricingModel.SPOT)


def test_earlier_captures_announce_nothing() -> None:
    # 2024-11-15 (configuration table) and 2026-07-12 (one price per role): no effective column.
    for path in (TABLE_2024, TABLE_2026):
        offers = nebius.PROVIDER.parse([_raw(path)])
        assert offers and all(o.announced_price is None for o in offers)
        assert all(o.announced_from is None for o in offers)


@pytest.mark.parametrize(
    ("printed", "reason"),
    [
        ("Contact us", "announced contact us"),
        ("––", "announced dashes"),
        ("TBD", "announced_unparsed_price"),
        ("$0.00", "announced_unparsed_price"),
        ("$-4.50", "announced_unparsed_price"),
    ],
)
def test_2026_09_effective_cell_without_a_price_announces_nothing_and_is_counted(
    printed: str, reason: str
) -> None:
    def edit(tree: LexborHTMLParser) -> None:
        [(table, _)] = _table_cells(tree, "GPU-hour (Effective October 1, 2026)")
        row = table.css(nebius.HIGHLIGHT_BODY_ROW)[5]  # NVIDIA HGX H100
        row.css(nebius.HIGHLIGHT_CELL)[-1].inner_html = printed

    offers, excluded = nebius.parse_with_exclusions([_edited(PAGE_2026_09, edit)])
    assert excluded == {"contact us": 2, "dynamic_spot_floor": 5, reason: 1}
    h100 = _by_key(offers)[("NVIDIA HGX H100", PricingModel.ON_DEMAND)]
    assert (h100.price, h100.announced_price, h100.announced_from) == (Decimal("3.85"), None, None)
    assert _by_key(offers)[("NVIDIA HGX H200", PricingModel.ON_DEMAND)].announced_price == Decimal(
        "5.40"
    )
    assert len(offers) == 9


def test_2026_09_second_effective_column_is_announced_after_the_first_date() -> None:
    def add(tree: LexborHTMLParser) -> None:
        # a copy of the effective column, dated a year later, with H100 at $4.95
        [(table, _)] = _table_cells(tree, "GPU-hour (Effective October 1, 2026)")
        head = table.css_first(nebius.HIGHLIGHT_HEAD_ROW)
        assert head is not None
        for row in [head, *table.css(nebius.HIGHLIGHT_BODY_ROW)]:
            last = row.css(nebius.HIGHLIGHT_CELL)[-1]
            copy = LexborHTMLParser(last.html or "").css_first(nebius.HIGHLIGHT_CELL)
            assert copy is not None
            last.insert_after(copy)
        head.css(nebius.HIGHLIGHT_CELL)[-1].inner_html = "GPU-hour (Effective October 1, 2027)"
        h100 = table.css(nebius.HIGHLIGHT_BODY_ROW)[5]
        h100.css(nebius.HIGHLIGHT_CELL)[-1].inner_html = "$4.95"

    page = _edited(PAGE_2026_09, add)
    h100 = _by_key(nebius.PROVIDER.parse([page]))[("NVIDIA HGX H100", PricingModel.ON_DEMAND)]
    # the earliest date to come is the announcement
    assert (h100.price, h100.announced_price) == (Decimal("3.85"), Decimal("4.50"))
    later = dataclasses.replace(page, fetched_at=datetime(2026, 11, 1, tzinfo=UTC))
    h100 = _by_key(nebius.PROVIDER.parse([later]))[("NVIDIA HGX H100", PricingModel.ON_DEMAND)]
    assert (h100.price, h100.announced_price, h100.announced_from) == (
        Decimal("4.50"),
        Decimal("4.95"),
        datetime(2027, 10, 1, tzinfo=UTC),
    )


def test_2026_09_effective_column_in_force_from_its_date() -> None:
    before = _by_key(
        nebius.PROVIDER.parse([_observed(PAGE_2026_09, datetime(2026, 9, 30, 23, 59, tzinfo=UTC))])
    )
    assert before[("NVIDIA HGX H100", PricingModel.ON_DEMAND)].price == Decimal("3.85")
    for when in (datetime(2026, 10, 1, tzinfo=UTC), datetime(2027, 3, 1, tzinfo=UTC)):
        offers = nebius.PROVIDER.parse([_observed(PAGE_2026_09, when)])
        assert len(offers) == 9
        by_key = _by_key(offers)
        # "GPU-hour (Effective October 1, 2026)"
        assert by_key[("NVIDIA HGX H100", PricingModel.ON_DEMAND)].price == Decimal("4.50")
        assert by_key[("NVIDIA HGX B300", PricingModel.ON_DEMAND)].price == Decimal("9.50")
        assert by_key[("NVIDIA HGX B200", PricingModel.ON_DEMAND)].price == Decimal("8.50")
        assert by_key[("NVIDIA HGX H200", PricingModel.ON_DEMAND)].price == Decimal("5.40")
        assert by_key[("NVIDIA RTX PRO 6000", PricingModel.ON_DEMAND)].price == Decimal("1.80")
        assert all(o.observed_at == when for o in offers)
        # the column in force is the price, no longer an announcement
        assert all(o.announced_price is None and o.announced_from is None for o in offers)


def test_2026_09_dynamic_spot_floors_are_not_offers_flat_rate_l40s_is() -> None:
    offers = nebius.PROVIDER.parse([_raw(PAGE_2026_09)])
    spot = {o.instance_type: o for o in offers if o.pricing is PricingModel.SPOT}
    # "from $0.79" for HGX H100 is the floor of a dynamic price; L40S rows (**) are flat rates.
    assert set(spot) == {"NVIDIA L40S with Intel CPU", "NVIDIA L40S with AMD CPU"}
    intel = spot["NVIDIA L40S with Intel CPU"]
    assert (intel.price, intel.vcpus, intel.ram_gb) == (Decimal("0.74"), 8, 32)
    amd = spot["NVIDIA L40S with AMD CPU"]
    assert (amd.price, amd.vcpus, amd.ram_gb, amd.price_per) == (
        Decimal("0.90"),
        16,
        96,
        PricePer.GPU,
    )
    assert Decimal("0.79") not in {o.price for o in offers}
    assert Decimal("0.99") not in {o.price for o in offers}


def test_2026_09_cpu_storage_and_service_tables_are_not_gpu_offers() -> None:
    offers = nebius.PROVIDER.parse([_raw(PAGE_2026_09)])
    assert all(o.gpu_name.startswith("NVIDIA ") for o in offers)
    # CPU-only "AMD EPYC Genoa from $0.10 / from $0.13 (Effective ...)" is not read.
    assert {Decimal("0.10"), Decimal("0.13")}.isdisjoint(o.price for o in offers)


def test_2026_09_gpu_instances_table_removed_is_drift() -> None:
    def remove(tree: LexborHTMLParser) -> None:
        for table, _ in _table_cells(tree, "On-demand, GPU-hour"):
            table.decompose()

    # The preemptible table is still there, but a page without on-demand GPU prices is drift.
    with pytest.raises(SchemaDriftError, match="no GPU table with an on-demand column"):
        nebius.PROVIDER.parse([_edited(PAGE_2026_09, remove)])


def test_2026_09_all_gpu_tables_removed_is_drift() -> None:
    def remove(tree: LexborHTMLParser) -> None:
        for heading in ("On-demand, GPU-hour", "Spot price, GPU-hour*"):
            for table, _ in _table_cells(tree, heading):
                table.decompose()

    with pytest.raises(SchemaDriftError, match="no GPU price table"):
        nebius.PROVIDER.parse([_edited(PAGE_2026_09, remove)])


@pytest.mark.parametrize(
    ("heading", "message"),
    [
        ("Reserved GPU-hour (Effective October 1, 2026)", "unknown GPU table column"),
        ("GPU-hour (Effective Octember 1, 2026)", "unreadable effective date"),
        ("GPU-hour (from October 1, 2026)", "unknown GPU table column"),
    ],
)
def test_2026_09_unreadable_effective_column_is_drift(heading: str, message: str) -> None:
    def rename(tree: LexborHTMLParser) -> None:
        [(_, cells)] = _table_cells(tree, "GPU-hour (Effective October 1, 2026)")
        cells[-1].inner_html = heading

    with pytest.raises(SchemaDriftError, match=message):
        nebius.PROVIDER.parse([_edited(PAGE_2026_09, rename)])


def test_2026_09_plain_price_in_the_dynamic_spot_column_is_counted_not_published() -> None:
    def plain(tree: LexborHTMLParser) -> None:
        [(table, _)] = _table_cells(tree, "Spot price, GPU-hour*")
        row = table.css(nebius.HIGHLIGHT_BODY_ROW)[3]  # NVIDIA HGX H100
        row.css(nebius.HIGHLIGHT_CELL)[-1].inner_html = "$0.79"

    # Neither "from $X" nor a flat rate (**): the column may have changed meaning for that
    # row, so its price is not guessed; the rest of the page is published.
    offers, excluded = nebius.parse_with_exclusions([_edited(PAGE_2026_09, plain)])
    assert excluded == {"contact us": 2, "dynamic_spot_floor": 4, "unparsed_price": 1}
    assert offers == nebius.PROVIDER.parse([_raw(PAGE_2026_09)])


def test_2026_09_exclusions_of_the_page() -> None:
    _, excluded = nebius.parse_with_exclusions([_raw(PAGE_2026_09)])
    # GB300/GB200 NVL72 "Contact us"; five "from $X" dynamic spot floors (B300 ... RTX PRO 6000).
    assert excluded == {"contact us": 2, "dynamic_spot_floor": 5}


def test_2026_09_unknown_gpu_in_both_tables_is_one_unknown_row() -> None:
    raw = _mutated(PAGE_2026_09, "NVIDIA HGX B200", "NVIDIA HGX Z200")
    offers, excluded = nebius.PROVIDER.parse_report([raw])
    assert excluded == {"contact us": 2, "dynamic_spot_floor": 4, "unknown_gpu NVIDIA HGX Z200": 1}
    assert "NVIDIA HGX B200" not in {o.instance_type for o in offers}
    assert len(offers) == 8


# --- A wrong price is read as printed (docs/reliability.md: rejected, never dropped) ---------

# A zero or negative amount must reach the loader (``prices_positive`` rejects the scrape) and a
# 100x one the price-jump guard: excluding it as ``unparsed_price`` would publish the rest.
WRONG_B300_PRICES = [
    ("$-9.50", Decimal("-9.50")),
    ("-$9.50", Decimal("-9.50")),  # parsing.money would read 9.50 here
    ("$0.00", Decimal("0.00")),
    ("$950.00", Decimal("950.00")),
    ("$1,234.00", Decimal("1234.00")),
]


@pytest.mark.parametrize(("printed", "price"), WRONG_B300_PRICES)
def test_2026_09_negative_zero_or_100x_price_is_read_as_printed_not_excluded(
    printed: str, price: Decimal
) -> None:
    # HGX B300 "GPU-hour (Effective October 1, 2026)" $9.50, read from that date on.
    raw = _mutated(PAGE_2026_09, "<p>$9.50</p>", f"<p>{printed}</p>")
    raw = dataclasses.replace(raw, fetched_at=datetime(2026, 10, 1, tzinfo=UTC))
    offers, excluded = nebius.parse_with_exclusions([raw])
    assert excluded == {"contact us": 2, "dynamic_spot_floor": 5}  # nothing more left out
    by_key = _by_key(offers)
    assert by_key[("NVIDIA HGX B300", PricingModel.ON_DEMAND)].price == price
    assert by_key[("NVIDIA HGX H100", PricingModel.ON_DEMAND)].price == Decimal("4.50")
    assert len(offers) == 9


def test_2024_negative_instance_price_is_read_as_printed() -> None:
    raw = _mutated(TABLE_2024, "<span>$28.00</span>", "<span>-$28.00</span>")
    offers, excluded = nebius.parse_with_exclusions([raw])
    assert excluded == {}
    assert _by_key(offers)[("8x H200 SXM", PricingModel.ON_DEMAND)].price == Decimal("-28.00")
    assert len(offers) == 5
