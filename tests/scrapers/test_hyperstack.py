"""Hyperstack: both recorded page layouts, the pricebook API on doc-shaped JSON, and fetch."""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from scrapers import hyperstack
from scrapers.base import Offer, PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.http import make_client
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

TABLE_2024 = SNAPSHOTS / "hyperstack" / "2024-08-22_wayback_gpu-pricing_excerpt.html"
CARDS_2025 = SNAPSHOTS / "hyperstack" / "2025-07-24_wayback_gpu-pricing_excerpt.html"


def _raw(path: Path) -> RawResponse:
    return raw_from_capture(path, url=hyperstack.PRICING_URL)


def _by_key(offers: list[Offer]) -> dict[tuple[str, PricingModel], Offer]:
    return {(o.instance_type, o.pricing): o for o in offers}


def _mutated(path: Path, old: str, new: str) -> RawResponse:
    raw = _raw(path)
    assert old.encode() in raw.body, f"mutation target {old!r} not in capture"
    return dataclasses.replace(raw, body=raw.body.replace(old.encode(), new.encode()))


def test_2024_sortable_table_prices_per_gpu_hour() -> None:
    offers = hyperstack.PROVIDER.parse([_raw(TABLE_2024)])
    assert len(offers) == 9
    assert {o.pricing for o in offers} == {PricingModel.ON_DEMAND}
    h100 = _by_key(offers)[("NVIDIA H100 SXM 80GB", PricingModel.ON_DEMAND)]
    assert h100.price == Decimal("3.75")
    assert (h100.currency, h100.price_unit, h100.price_per) == ("USD", PriceUnit.HOUR, PricePer.GPU)
    assert (h100.gpu_count, h100.vram_gb_reported, h100.vcpus, h100.ram_gb) == (1, 80, 24, 240)
    a4000 = _by_key(offers)[("NVIDIA RTX A4000", PricingModel.ON_DEMAND)]
    assert (a4000.price, a4000.vram_gb_reported, a4000.vcpus, a4000.ram_gb) == (
        Decimal("0.30"),
        16,
        6,
        24,
    )
    # "$ &nbsp;2.20 per Hour": a non-breaking space between symbol and number.
    assert _by_key(offers)[("NVIDIA A100 PCIe 80GB", PricingModel.ON_DEMAND)].price == Decimal(
        "2.20"
    )
    assert h100.source_url == hyperstack.PRICING_URL
    assert h100.observed_at == datetime(2024, 8, 22, tzinfo=UTC)
    # One row for "NVIDIA RTX A6000/A40": the RTX A6000 flavor (PAGE_GPU_NAMES); the row's own
    # name stays the instance type.
    a6000 = _by_key(offers)[("NVIDIA RTX A6000/A40", PricingModel.ON_DEMAND)]
    assert (a6000.gpu_name, a6000.price, a6000.vram_gb_reported) == (
        "NVIDIA RTX A6000",
        Decimal("1.00"),
        48,
    )


def test_2024_reservation_starts_from_prices_are_not_emitted() -> None:
    offers = hyperstack.PROVIDER.parse([_raw(TABLE_2024)])
    assert all(o.reserved_term_months is None for o in offers)
    assert Decimal("0.18") not in {o.price for o in offers}  # "Starts from $0.18/hour"


def test_2025_cards_on_demand_and_spot() -> None:
    offers = hyperstack.PROVIDER.parse([_raw(CARDS_2025)])
    assert len(offers) == 13
    by_key = _by_key(offers)
    assert sum(o.pricing is PricingModel.ON_DEMAND for o in offers) == 10
    assert sum(o.pricing is PricingModel.SPOT for o in offers) == 3
    h200 = by_key[("NVIDIA H200 SXM", PricingModel.ON_DEMAND)]
    assert (h200.price, h200.vram_gb_reported, h200.vcpus, h200.ram_gb) == (
        Decimal("3.50"),
        141,
        22,
        225,
    )
    assert by_key[("NVIDIA H100 SXM", PricingModel.ON_DEMAND)].price == Decimal("2.40")
    assert by_key[("NVIDIA A4000", PricingModel.ON_DEMAND)].price == Decimal("0.15")
    # Plain and "NVLink" H100/A100 rows are the PCIe cards (PAGE_GPU_NAMES); SXM rows say so.
    assert {name: by_key[(name, PricingModel.ON_DEMAND)].gpu_name for name in (
        "NVIDIA H100 SXM", "NVIDIA H100 NVLink", "NVIDIA H100",
        "NVIDIA A100 SXM", "NVIDIA A100 NVLink", "NVIDIA A100",
    )} == {
        "NVIDIA H100 SXM": "NVIDIA H100 SXM",
        "NVIDIA H100 NVLink": "NVIDIA H100 PCIe NVLink 80GB",
        "NVIDIA H100": "NVIDIA H100 PCIe 80GB",
        "NVIDIA A100 SXM": "NVIDIA A100 SXM",
        "NVIDIA A100 NVLink": "NVIDIA A100 80GB PCIe NVLink",
        "NVIDIA A100": "NVIDIA A100 PCIe 80GB",
    }  # fmt: skip
    assert by_key[("NVIDIA H100", PricingModel.ON_DEMAND)].price == Decimal("1.90")
    assert by_key[("NVIDIA A100 NVLink", PricingModel.ON_DEMAND)].price == Decimal("1.40")
    spot = by_key[("NVIDIA A100", PricingModel.SPOT)]
    assert spot.gpu_name == "NVIDIA A100 PCIe 80GB"
    assert (spot.price, spot.vram_gb_reported, spot.vcpus, spot.ram_gb) == (
        Decimal("1.08"),
        80,
        None,
        None,
    )
    assert by_key[("NVIDIA L40", PricingModel.SPOT)].price == Decimal("0.80")


def test_2025_reservation_card_is_not_emitted() -> None:
    offers = hyperstack.PROVIDER.parse([_raw(CARDS_2025)])
    assert PricingModel.RESERVED not in {o.pricing for o in offers}
    assert Decimal("2.45") not in {o.price for o in offers}  # H200 reservation "Starting from"


def test_mapped_spelling_with_another_vram_is_an_unknown_gpu_row() -> None:
    raw = _mutated(
        TABLE_2024,
        "<td>NVIDIA RTX A6000/A40</td>\n            <td>48</td>",
        "<td>NVIDIA RTX A6000/A40</td>\n            <td>24</td>",
    )
    offers, excluded = hyperstack.PROVIDER.parse_report([raw])
    # PAGE_GPU_NAMES maps these words to the 48 GB RTX A6000: a 24 GB row is another variant.
    assert excluded == {"unknown_gpu NVIDIA RTX A6000/A40 (24 GB)": 1}
    assert "NVIDIA RTX A6000/A40" not in {o.instance_type for o in offers}
    assert _by_key(offers)[("NVIDIA L40", PricingModel.ON_DEMAND)].price == Decimal("1.15")
    assert len(offers) == 8


def test_2025_unknown_gpu_in_three_cards_is_one_unknown_row() -> None:
    known = hyperstack.PROVIDER.parse([_raw(CARDS_2025)])
    raw = _mutated(CARDS_2025, "<span>NVIDIA A6000</span>", "<span>NVIDIA Z6000</span>")
    offers, excluded = hyperstack.PROVIDER.parse_report([raw])
    assert excluded == {"unknown_gpu NVIDIA Z6000": 1}  # on-demand, reservation and spot rows
    # A6000 on-demand $0.50 and spot $0.40 are left out, nothing else.
    assert sorted(o.model_dump_json() for o in offers) == sorted(
        o.model_dump_json() for o in known if o.instance_type != "NVIDIA A6000"
    )
    assert len(offers) == 11


def test_2024_every_row_unknown_is_drift() -> None:
    raw = _raw(TABLE_2024)
    body = re.sub(rb"<td>NVIDIA [^<]+</td>", b"<td>NVIDIA Z9</td>", raw.body)
    with pytest.raises(SchemaDriftError, match=r"without an on-demand or spot price.*Z9"):
        hyperstack.PROVIDER.parse_report([dataclasses.replace(raw, body=body)])


def test_unknown_column_heading_is_drift() -> None:
    raw = _mutated(TABLE_2024, "<th>Pricing Per <i", "<th>Price Per <i")
    with pytest.raises(SchemaDriftError, match="unknown column"):
        hyperstack.PROVIDER.parse([raw])


def test_renamed_card_grid_class_is_drift() -> None:
    raw = _mutated(CARDS_2025, "page-price_card_main", "page-price_box")
    with pytest.raises(SchemaDriftError, match="GPU Model"):
        hyperstack.PROVIDER.parse([raw])


def test_price_cell_with_a_no_price_marker_is_counted() -> None:
    raw = _mutated(CARDS_2025, "<span> $2.40</span>", "<span>Coming soon</span>")
    offers, excluded = hyperstack.parse_with_exclusions([raw])
    assert excluded == {"coming soon": 1}
    assert ("NVIDIA H100 SXM", PricingModel.ON_DEMAND) not in _by_key(offers)
    assert len(offers) == 12


def test_price_cell_without_price_is_counted_the_rest_published() -> None:
    raw = _mutated(CARDS_2025, "<span> $2.40</span>", "<span>TBD</span>")
    offers, excluded = hyperstack.parse_with_exclusions([raw])
    assert excluded == {"unparsed_price": 1}
    assert _by_key(offers)[("NVIDIA H200 SXM", PricingModel.ON_DEMAND)].price == Decimal("3.50")
    assert len(offers) == 12


# A zero or negative amount must reach the loader (``prices_positive`` rejects the scrape) and a
# 100x one the price-jump guard: excluding it as ``unparsed_price`` would publish the rest.
PAGE_2026_09 = SNAPSHOTS / "hyperstack" / "c2026-09_gpu-pricing_page_scripts-stripped.html"


@pytest.mark.parametrize(
    ("printed", "price"),
    [
        ("$-3.99", Decimal("-3.99")),
        ("-$3.99", Decimal("-3.99")),  # parsing.money would read 3.99 here
        ("$0.00", Decimal("0.00")),
        ("$399.00", Decimal("399.00")),
        ("$1,234.00", Decimal("1234.00")),
    ],
)
def test_2026_negative_zero_or_100x_price_is_read_as_printed_not_excluded(
    printed: str, price: Decimal
) -> None:
    raw = _mutated(PAGE_2026_09, "<span>$3.99</span>", f"<span>{printed}</span>")
    offers, excluded = hyperstack.parse_with_exclusions([raw])
    assert excluded == {}  # nothing left out
    by = _by_key(offers)
    assert by[("NVIDIA H200 SXM", PricingModel.ON_DEMAND)].price == price
    assert by[("NVIDIA H100 SXM", PricingModel.ON_DEMAND)].price == Decimal("3.20")
    assert len(offers) == 18


def test_2024_negative_table_price_is_read_as_printed() -> None:
    raw = _mutated(TABLE_2024, "<td>$ 3.75 per Hour</td>", "<td>$ -3.75 per Hour</td>")
    offers, excluded = hyperstack.parse_with_exclusions([raw])
    assert excluded == {}
    price = _by_key(offers)[("NVIDIA H100 SXM 80GB", PricingModel.ON_DEMAND)].price
    assert price == Decimal("-3.75")


def test_identical_replayed_bodies_are_parsed_once() -> None:
    raw = _raw(CARDS_2025)
    assert len(hyperstack.PROVIDER.parse([raw, raw])) == 13


# --- the Infrahub API, on responses shaped like its documentation ----------------------------

OBSERVED = datetime(2026, 5, 1, 12, tzinfo=UTC)


def _json(url: str, document: object) -> RawResponse:
    return RawResponse(url, "GET", 200, "application/json", json.dumps(document).encode(), OBSERVED)


def _book(name: str, value: float) -> dict[str, object]:
    return {
        "id": 1,
        "name": name,
        "value": value,
        "original_value": value,
        "discount_applied": False,
        "start_time": None,
        "end_time": None,
    }


def _flavor(name: str, region: str, gpu: str, count: int, cpu: int, ram: int) -> dict[str, object]:
    return {
        "id": 7,
        "name": name,
        "region_name": region,
        "cpu": cpu,
        "ram": ram,
        "disk": 100,
        "ephemeral": 750,
        "gpu": gpu,
        "gpu_count": count,
        "stock_available": True,
    }


PRICEBOOK = [
    _book("H100-80G-PCIe", 1.9),
    _book("RTX-A6000-spot", 0.4),
    _book("RTX-A6000", 0.5),
    _book("Cloud-SSD", 0.0001),
]
FLAVORS = {
    "status": True,
    "message": "Success",
    "data": [
        {
            "gpu": "H100-80G-PCIe",
            "region_name": "CANADA-1",
            "flavors": [
                _flavor("n3-H100x1", "CANADA-1", "H100-80G-PCIe", 1, 28, 180),
                _flavor("n3-H100x8", "CANADA-1", "H100-80G-PCIe", 8, 192, 1800),
            ],
        },
        {
            "gpu": "RTX-A6000-spot",
            "region_name": "NORWAY-1",
            "flavors": [_flavor("n1-RTX-A6000x1-spot", "NORWAY-1", "RTX-A6000-spot", 1, 28, 58)],
        },
        {
            "gpu": "",
            "region_name": "NORWAY-1",
            "flavors": [_flavor("n1-cpu-small", "NORWAY-1", "", 0, 4, 4)],
        },
    ],
}


def _api_responses() -> list[RawResponse]:
    return [_json(hyperstack.PRICEBOOK_URL, PRICEBOOK), _json(hyperstack.FLAVORS_URL, FLAVORS)]


def test_api_offers_one_per_gpu_flavor_priced_per_gpu_hour() -> None:
    offers = hyperstack.PROVIDER.parse(_api_responses())
    by_key = {(o.instance_type, o.region): o for o in offers}
    assert set(by_key) == {
        ("n3-H100x1", "CANADA-1"),
        ("n3-H100x8", "CANADA-1"),
        ("n1-RTX-A6000x1-spot", "NORWAY-1"),
    }
    h100x8 = by_key[("n3-H100x8", "CANADA-1")]
    assert (h100x8.gpu_name, h100x8.gpu_count, h100x8.price) == ("H100-80G-PCIe", 8, Decimal("1.9"))
    assert (h100x8.price_per, h100x8.pricing) == (PricePer.GPU, PricingModel.ON_DEMAND)
    assert (h100x8.vcpus, h100x8.ram_gb, h100x8.storage_gb) == (192, 1800, 850)
    assert h100x8.source_url == hyperstack.PRICEBOOK_URL
    assert h100x8.observed_at == OBSERVED
    spot = by_key[("n1-RTX-A6000x1-spot", "NORWAY-1")]
    assert (spot.gpu_name, spot.pricing, spot.price) == (
        "RTX-A6000",
        PricingModel.SPOT,
        Decimal("0.4"),
    )


def test_api_exclusions_count_the_cpu_only_flavor() -> None:
    _, excluded = hyperstack.parse_with_exclusions(_api_responses())
    assert excluded == {"non_gpu": 1}


def test_api_flavor_gpu_missing_from_pricebook_is_counted_the_rest_published() -> None:
    book = [entry for entry in PRICEBOOK if entry["name"] != "H100-80G-PCIe"]
    responses = [_json(hyperstack.PRICEBOOK_URL, book), _json(hyperstack.FLAVORS_URL, FLAVORS)]
    offers, excluded = hyperstack.parse_with_exclusions(responses)
    assert excluded == {"non_gpu": 1, "unpriced_gpu": 2}  # n3-H100x1 and n3-H100x8
    assert [(o.instance_type, o.price) for o in offers] == [("n1-RTX-A6000x1-spot", Decimal("0.4"))]


@pytest.mark.parametrize("value", [-1.9, 0, 190.0])
def test_api_negative_zero_or_100x_pricebook_price_is_read_as_given_not_unpriced(
    value: float,
) -> None:
    book = [_book("H100-80G-PCIe", value), *PRICEBOOK[1:]]
    responses = [_json(hyperstack.PRICEBOOK_URL, book), _json(hyperstack.FLAVORS_URL, FLAVORS)]
    offers, excluded = hyperstack.parse_with_exclusions(responses)
    assert excluded == {"non_gpu": 1}  # nothing more left out
    assert {(o.instance_type, o.price) for o in offers} == {
        ("n3-H100x1", Decimal(repr(value))),
        ("n3-H100x8", Decimal(repr(value))),
        ("n1-RTX-A6000x1-spot", Decimal("0.4")),
    }


def test_api_pricebook_value_that_is_not_a_finite_number_is_unparsed() -> None:
    book = [_book("H100-80G-PCIe", float("nan")), *PRICEBOOK[1:]]
    responses = [_json(hyperstack.PRICEBOOK_URL, book), _json(hyperstack.FLAVORS_URL, FLAVORS)]
    offers, excluded = hyperstack.parse_with_exclusions(responses)
    assert excluded == {"non_gpu": 1, "unparsed_pricebook_entry": 1, "unpriced_gpu": 2}
    assert [o.instance_type for o in offers] == ["n1-RTX-A6000x1-spot"]


def test_api_flavor_without_a_field_is_counted() -> None:
    flavors = json.loads(json.dumps(FLAVORS))
    del flavors["data"][0]["flavors"][0]["cpu"]
    responses = [_json(hyperstack.PRICEBOOK_URL, PRICEBOOK), _json(hyperstack.FLAVORS_URL, flavors)]
    offers, excluded = hyperstack.parse_with_exclusions(responses)
    assert excluded == {"non_gpu": 1, "unparsed_flavor": 1}
    assert {o.instance_type for o in offers} == {"n3-H100x8", "n1-RTX-A6000x1-spot"}


def test_api_no_priced_gpu_flavor_is_drift() -> None:
    book = [_book("Cloud-SSD", 0.0001)]
    responses = [_json(hyperstack.PRICEBOOK_URL, book), _json(hyperstack.FLAVORS_URL, FLAVORS)]
    with pytest.raises(SchemaDriftError, match=r"no priced GPU flavor.*'unpriced_gpu': 3"):
        hyperstack.PROVIDER.parse(responses)


def test_api_pricebook_without_flavors_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="flavors"):
        hyperstack.PROVIDER.parse([_json(hyperstack.PRICEBOOK_URL, PRICEBOOK)])


def test_api_flavors_renamed_envelope_is_drift() -> None:
    renamed = {"status": True, "flavours": FLAVORS["data"]}
    with pytest.raises(SchemaDriftError, match="neither a pricebook nor flavors"):
        hyperstack.PROVIDER.parse([_json(hyperstack.PRICEBOOK_URL, PRICEBOOK), _json("x", renamed)])


# --- fetch --------------------------------------------------------------------------------------


def test_fetch_without_key_gets_the_public_page() -> None:
    seen: list[httpx.Request] = []
    body = TABLE_2024.read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=body, headers={"content-type": "text/html"})

    with make_client(httpx.MockTransport(handler)) as client:
        responses = hyperstack.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", hyperstack.PRICING_URL)]
    assert "api_key" not in seen[0].headers
    assert len(hyperstack.PROVIDER.parse(responses)) == 9


def test_fetch_with_key_gets_pricebook_and_flavors_with_api_key_header() -> None:
    seen: list[httpx.Request] = []
    documents = {hyperstack.PRICEBOOK_URL: PRICEBOOK, hyperstack.FLAVORS_URL: FLAVORS}

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=documents[str(request.url)])

    with make_client(httpx.MockTransport(handler)) as client:
        responses = hyperstack.fetch(client, "secret-key")
    assert [(r.method, str(r.url)) for r in seen] == [
        ("GET", hyperstack.PRICEBOOK_URL),
        ("GET", hyperstack.FLAVORS_URL),
    ]
    assert all(r.headers["api_key"] == "secret-key" for r in seen)
    assert len(hyperstack.PROVIDER.parse(responses)) == 3


@pytest.mark.parametrize("token", [None, "key"])
def test_replay_of_every_capture_parses(token: str | None) -> None:
    captures = discover(SNAPSHOTS, ["hyperstack"])["hyperstack"]
    assert [c.path.name for c in captures] == [
        TABLE_2024.name,
        CARDS_2025.name,
        "c2026-09_gpu-pricing_page_scripts-stripped.html",
    ]
    for capture in captures:
        with make_client(ReplayTransport(capture)) as client:
            offers = hyperstack.PROVIDER.parse(hyperstack.fetch(client, token))
        assert offers and all(o.observed_at == capture.captured_at for o in offers)


def test_api_unpriced_non_gpu_pricebook_entry_is_ignored() -> None:
    book = [*PRICEBOOK, _book("Llama-3-70B/input-tokens", 0.0) | {"value": None}]
    responses = [_json(hyperstack.PRICEBOOK_URL, book), _json(hyperstack.FLAVORS_URL, FLAVORS)]
    assert len(hyperstack.PROVIDER.parse(responses)) == 3
