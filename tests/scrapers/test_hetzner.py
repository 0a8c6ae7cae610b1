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
from scrapers.base import PricePer, PriceUnit, PricingModel, SchemaDriftError
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
    offer = _by_type(hetzner.parse([_raw()]))["auction-2927880"]
    assert offer.region == "FSN1-DC18"
    assert (offer.gpu_name, offer.vram_gb_reported) == ("Nvidia RTX 6000 Ada", 48)
    assert offer.price == Decimal("1.2083")
    assert offer.ram_gb == Decimal("412.3")  # ram_size 384 (GiB)
    assert offer.storage_gb == 3840
    assert offer.source_url == hetzner.AUCTION_URL
    assert offer.observed_at == datetime(2026, 4, 1, 18, tzinfo=UTC)


def test_gtx_1080_servers() -> None:
    offers = _by_type(hetzner.parse([_raw()]))
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
    for offer in hetzner.parse([_raw()]):
        row = rows[f"hetzner-{offer.instance_type.removeprefix('auction-')}"]
        assert Decimal(row["price_hourly"]) == offer.price
        assert row["location"] == offer.region
        assert row["currency"] == offer.currency


def test_live_layout_with_server_key() -> None:
    body = b'{"server": ' + CAPTURE.read_bytes() + b"}"
    assert hetzner.parse([_raw(body)]) == hetzner.parse([_raw()])


def test_monthly_price_when_there_is_no_hourly_price() -> None:
    body = _mutated(lambda server: server.pop("hourly_price"))
    offer = _by_type(hetzner.parse([_raw(body)]))["auction-2927880"]
    assert (offer.price, offer.price_unit) == (Decimal(754), PriceUnit.MONTH)


def _mutated(change) -> bytes:
    servers = json.loads(CAPTURE.read_bytes())
    for server in servers:
        change(server)
    return json.dumps(servers).encode()


def _drop_gpu_lines(server: dict) -> None:
    server["description"] = [d for d in server["description"] if not d.startswith("GPU - ")]


def test_gpu_flag_without_gpu_line_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="GPU flag but no 'GPU - ' line"):
        hetzner.parse([_raw(_mutated(_drop_gpu_lines))])


def test_renamed_description_is_drift() -> None:
    body = CAPTURE.read_bytes().replace(b'"description"', b'"desc"')
    with pytest.raises(SchemaDriftError, match="lacks id/description"):
        hetzner.parse([_raw(body)])


def test_no_gpu_server_is_drift() -> None:
    def drop_gpus(server: dict) -> None:
        _drop_gpu_lines(server)
        server["specials"] = [s for s in server["specials"] if s != "GPU"]

    with pytest.raises(SchemaDriftError, match="no GPU server"):
        hetzner.parse([_raw(_mutated(drop_gpus))])


def test_unknown_layout_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="neither the auction object"):
        hetzner.parse([_raw(b'{"servers": []}')])


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
    assert len(hetzner.parse(responses)) == 23
