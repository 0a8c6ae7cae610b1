"""Hetzner Server Auction scraper: the 2026-04-01 capture, mutated copies, the live request."""

from __future__ import annotations

import csv
import json
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import hetzner, http
from scrapers.base import PricePer, PriceUnit, PricingModel, SchemaDriftError, unknown_row
from tests.conftest import HISTORY, SNAPSHOTS, raw_from_capture

CAPTURE = SNAPSHOTS / "hetzner" / "2026-04-01T18_server-auction_live_data_sb_EUR_items.json"
# Another tool's processed table of the same run: a cross-check only, never parsed as input.
GPU_HUNT_SERVERS = HISTORY / "gpu-hunt-site" / "2026-04-01T18_servers.csv"


def _raw(body: bytes | None = None):
    raw = raw_from_capture(CAPTURE, url=hetzner.AUCTION_URL)
    return raw if body is None else replace(raw, body=body)


def _by_type(offers):
    return {o.instance_type: o for o in offers}


def test_capture_counts() -> None:
    offers, excluded = hetzner.parse_with_exclusions([_raw()])
    assert len(offers) == 23
    assert excluded == {"non_gpu": 436}  # 459 servers in the capture
    assert Counter(o.gpu_name for o in offers) == {
        "GeForce GTX 1080": 19,
        "Nvidia RTX 6000 Ada": 4,
    }
    assert all(o.currency == "EUR" and o.price_unit is PriceUnit.HOUR for o in offers)
    assert all(o.price_per is PricePer.INSTANCE and o.gpu_count == 1 for o in offers)
    assert all(o.pricing is PricingModel.ON_DEMAND for o in offers)
    assert hetzner.PROVIDER.kind == "marketplace"


def test_rtx_6000_ada_server() -> None:
    # id 2927880: Xeon Gold 5412U, 6x 64 GB DDR5, 2x 1.92 TB NVMe, "GPU - Nvidia RTX 6000 Ada",
    # FSN1-DC18, price 754 (month), hourly_price 1.2083
    offer = _by_type(hetzner.PROVIDER.parse([_raw()]))["auction-2927880"]
    assert offer.region == "FSN1-DC18"
    assert (offer.gpu_name, offer.vram_gb_reported) == ("Nvidia RTX 6000 Ada", 48)
    assert offer.price == Decimal("1.2083")
    assert offer.ram_gb == Decimal("412.3")  # ram_size 384 (GiB)
    assert offer.storage_gb == 3840
    assert offer.source_url == hetzner.AUCTION_URL
    assert offer.observed_at == datetime(2026, 4, 1, 18, tzinfo=UTC)


def test_gtx_1080_servers() -> None:
    offers = _by_type(hetzner.PROVIDER.parse([_raw()]))
    first = offers["auction-2829494"]  # i7-6700, 4x 16 GB, 2x 500 GB SATA SSD, FSN1-DC6
    assert (first.region, first.gpu_name, first.price) == (
        "FSN1-DC6",
        "GeForce GTX 1080",
        Decimal("0.1795"),
    )
    assert first.vram_gb_reported == 8
    # 2x 16 TB HDD + 2x 512 GB SSD, HEL1-DC2, 167/month, 0.2676/hour
    big_disks = offers["auction-2943892"]
    assert (big_disks.region, big_disks.price, big_disks.storage_gb) == (
        "HEL1-DC2",
        Decimal("0.2676"),
        33024,
    )


def test_matches_gpu_hunt_table_of_the_same_run() -> None:
    with GPU_HUNT_SERVERS.open(newline="", encoding="utf-8") as f:
        rows = {row["id"]: row for row in csv.DictReader(f)}
    for offer in hetzner.PROVIDER.parse([_raw()]):
        row = rows[f"hetzner-{offer.instance_type.removeprefix('auction-')}"]
        assert Decimal(row["price_hourly"]) == offer.price
        assert row["location"] == offer.region
        assert row["currency"] == offer.currency


def test_live_layout_with_server_key() -> None:
    body = b'{"server": ' + CAPTURE.read_bytes() + b"}"
    assert hetzner.PROVIDER.parse([_raw(body)]) == hetzner.PROVIDER.parse([_raw()])


def test_monthly_price_when_there_is_no_hourly_price() -> None:
    body = _mutated(lambda server: server.pop("hourly_price"))
    offer = _by_type(hetzner.PROVIDER.parse([_raw(body)]))["auction-2927880"]
    assert (offer.price, offer.price_unit) == (Decimal(754), PriceUnit.MONTH)


def _mutated(change) -> bytes:
    servers = json.loads(CAPTURE.read_bytes())
    for server in servers:
        change(server)
    return json.dumps(servers).encode()


def _drop_gpu_lines(server: dict) -> None:
    server["description"] = [d for d in server["description"] if not d.startswith("GPU - ")]


def _only(server_id: int, change):
    def apply(server: dict) -> None:
        if server["id"] == server_id:
            change(server)

    return apply


def _rename_gpu(model: str):
    def apply(server: dict) -> None:
        server["description"] = [
            f"GPU - {model}" if d.startswith("GPU - ") else d for d in server["description"]
        ]

    return apply


def test_unknown_gpu_model_is_reported_and_the_other_servers_published() -> None:
    body = _mutated(_only(2927880, _rename_gpu("Nvidia RTX PRO 6000 Blackwell")))
    offers, excluded = hetzner.PROVIDER.parse_report([_raw(body)])
    assert excluded == {"non_gpu": 436, unknown_row("gpu", "Nvidia RTX PRO 6000 Blackwell"): 1}
    by = _by_type(offers)
    assert len(by) == 22 and "auction-2927880" not in by
    assert by["auction-2829494"].price == Decimal("0.1795")


def test_gpu_flag_without_gpu_line_is_reported() -> None:
    offers, excluded = hetzner.PROVIDER.parse_report(
        [_raw(_mutated(_only(2927880, _drop_gpu_lines)))]
    )
    assert excluded == {"non_gpu": 436, unknown_row("gpu", "auction-2927880"): 1}
    assert len(offers) == 22
    # Every GPU server's line gone: no known offer is left.
    with pytest.raises(SchemaDriftError, match=r"no GPU server.*unknown_gpu auction-2829494 1"):
        hetzner.PROVIDER.parse_report([_raw(_mutated(_drop_gpu_lines))])


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda server: server.update(hourly_price="n/a"), "unparsed_price"),
        (lambda server: server.update(hourly_price=None, price=None), "unparsed_price"),
        (lambda server: server.update(ram_size=None), "unparsed_ram"),
        (lambda server: server.pop("serverDiskData"), "unparsed_disks"),
        (lambda server: server.pop("datacenter"), "no_datacenter"),
        (
            lambda server: server["description"].append("GPU - GeForce GTX 1080"),
            "several_gpu_models",
        ),
    ],
)
def test_one_unreadable_gpu_server_is_excluded(change, reason: str) -> None:
    offers, excluded = hetzner.PROVIDER.parse_report([_raw(_mutated(_only(2927880, change)))])
    assert excluded == {"non_gpu": 436, reason: 1}
    assert len(offers) == 22 and "auction-2927880" not in _by_type(offers)


# A zero or negative price must reach the loader (``prices_positive`` rejects the scrape) and a
# 100x one the price-jump guard: excluding it as ``unparsed_price`` would publish the rest.
@pytest.mark.parametrize(
    ("hourly_price", "price"),
    [
        (-0.1795, Decimal("-0.1795")),
        ("-0.1795", Decimal("-0.1795")),
        (0, Decimal(0)),
        (0.0, Decimal("0.0")),
        (17.95, Decimal("17.95")),
    ],
)
def test_negative_zero_or_100x_price_is_read_as_given_not_excluded(
    hourly_price: float | str, price: Decimal
) -> None:
    body = _mutated(_only(2829494, lambda server: server.update(hourly_price=hourly_price)))
    offers, excluded = hetzner.PROVIDER.parse_report([_raw(body)])
    assert excluded == {"non_gpu": 436}  # nothing more left out
    offer = _by_type(offers)["auction-2829494"]
    assert (offer.price, offer.price_unit) == (price, PriceUnit.HOUR)
    assert len(offers) == 23


def test_negative_monthly_price_is_read_as_given_not_excluded() -> None:
    def monthly_only(server: dict) -> None:
        server.pop("hourly_price")
        server["price"] = -112

    offers, excluded = hetzner.PROVIDER.parse_report([_raw(_mutated(_only(2829494, monthly_only)))])
    assert excluded == {"non_gpu": 436}
    offer = _by_type(offers)["auction-2829494"]
    assert (offer.price, offer.price_unit) == (Decimal(-112), PriceUnit.MONTH)


def test_price_that_is_not_a_finite_number_is_unparsed() -> None:
    body = _mutated(_only(2829494, lambda server: server.update(hourly_price=float("nan"))))
    offers, excluded = hetzner.PROVIDER.parse_report([_raw(body)])
    assert excluded == {"non_gpu": 436, "unparsed_price": 1}
    assert "auction-2829494" not in _by_type(offers)


def test_most_gpu_servers_unreadable_is_drift() -> None:
    def break_gtx_prices(server: dict) -> None:
        if "GPU - GeForce GTX 1080" in server["description"]:
            server["hourly_price"] = "0,1795 EUR"

    with pytest.raises(SchemaDriftError, match="unreadable than read: unparsed_price 19"):
        hetzner.PROVIDER.parse([_raw(_mutated(break_gtx_prices))])


def test_renamed_description_is_drift() -> None:
    body = CAPTURE.read_bytes().replace(b'"description"', b'"desc"')
    with pytest.raises(SchemaDriftError, match="lacks id/description"):
        hetzner.PROVIDER.parse([_raw(body)])


def test_no_gpu_server_is_drift() -> None:
    def drop_gpus(server: dict) -> None:
        _drop_gpu_lines(server)
        server["specials"] = [s for s in server["specials"] if s != "GPU"]

    with pytest.raises(SchemaDriftError, match="no GPU server"):
        hetzner.PROVIDER.parse([_raw(_mutated(drop_gpus))])


def test_unknown_layout_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="neither the auction object"):
        hetzner.PROVIDER.parse([_raw(b'{"servers": []}')])


def test_fetch_request_shape() -> None:
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, content=b'{"server": ' + CAPTURE.read_bytes() + b"}")

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = hetzner.fetch(client, None)
    assert len(requests) == len(responses) == 1
    assert requests[0].method == "GET"
    assert str(requests[0].url) == hetzner.AUCTION_URL
    assert not requests[0].url.params
    assert requests[0].headers["user-agent"] == http.USER_AGENT
    assert len(hetzner.PROVIDER.parse(responses)) == 23
