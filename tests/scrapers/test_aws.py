"""AWS EC2 on-demand scraper: the merged 7-region capture, mutated copies, the live requests."""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest

from scrapers import aws, http
from scrapers.base import FetchError, PricePer, PriceUnit, PricingModel, SchemaDriftError
from tests.conftest import SNAPSHOTS, raw_from_capture

CAPTURE = SNAPSHOTS / "aws" / "c2026-09_ec2-ondemand-pricing-page_json_gpu_7regions.json"
VIRGINIA = "US East (N. Virginia)"


def _raw(body: bytes | None = None, region: str = VIRGINIA):
    raw = raw_from_capture(CAPTURE, url=aws.region_url(region))
    return raw if body is None else replace(raw, body=body)


def _capture() -> dict[str, Any]:
    return json.loads(CAPTURE.read_bytes())


def _offer(offers, instance_type: str, region: str):
    matches = [o for o in offers if (o.instance_type, o.region) == (instance_type, region)]
    assert len(matches) == 1, (instance_type, region)
    return matches[0]


def test_capture_offer_counts_per_region() -> None:
    offers, excluded = aws.parse_with_exclusions([_raw()])
    assert len(offers) == 51
    assert not excluded
    assert Counter(o.region for o in offers) == {
        "us-east-1": 10,
        "us-east-2": 8,
        "us-west-2": 10,
        "ap-northeast-1": 8,
        "ap-south-1": 8,
        "ap-southeast-2": 3,
        "sa-east-1": 4,
    }


def test_p5_48xlarge_us_east_1() -> None:
    offer = _offer(aws.parse([_raw()]), "p5.48xlarge", "us-east-1")
    assert offer.price == Decimal("55.04")
    assert offer.currency == "USD"
    assert offer.price_unit is PriceUnit.HOUR
    assert offer.price_per is PricePer.INSTANCE
    assert offer.pricing is PricingModel.ON_DEMAND
    assert (offer.gpu_name, offer.gpu_count, offer.vram_gb_reported) == ("NVIDIA H100 SXM", 8, 80)
    assert offer.vcpus == 192
    assert offer.ram_gb == Decimal("2199.0")  # 2048 GiB
    assert offer.storage_gb == 8 * 3840
    assert offer.provider == "aws"
    assert offer.source_url == (
        "https://b0.p.awsstatic.com/pricing/2.0/meteredUnitMaps/ec2/USD/current/"
        "ec2-ondemand-without-sec-sel/US%20East%20(N.%20Virginia)/Linux/index.json"
    )
    assert offer.observed_at == datetime(2026, 9, 1, tzinfo=UTC)


def test_other_prices_read_off_the_capture() -> None:
    offers = aws.parse([_raw()])
    assert _offer(offers, "p4d.24xlarge", "us-east-1").price == Decimal("21.957642")
    assert _offer(offers, "p4d.24xlarge", "us-east-2").price == Decimal("21.95764")
    assert _offer(offers, "p6-b300.48xlarge", "sa-east-1").price == Decimal("281.13")
    assert _offer(offers, "p5en.48xlarge", "ap-northeast-1").price == Decimal("79.12")
    b200 = _offer(offers, "p6-b200.48xlarge", "ap-south-1")
    assert (b200.price, b200.gpu_name, b200.gpu_count) == (Decimal("160.64525"), "NVIDIA B200", 8)
    small = _offer(offers, "g6e.xlarge", "us-east-1")
    assert (small.price, small.gpu_name, small.gpu_count, small.vcpus) == (
        Decimal("1.861"),
        "NVIDIA L40S",
        1,
        4,
    )
    assert small.storage_gb == 250
    single_h100 = _offer(offers, "p5.4xlarge", "us-west-2")
    assert (single_h100.gpu_count, single_h100.price) == (1, Decimal("6.88"))
    a100 = _offer(offers, "p4de.24xlarge", "us-west-2")
    assert (a100.gpu_name, a100.vram_gb_reported, a100.storage_gb) == (
        "NVIDIA A100 SXM4 80GB",
        80,
        8000,
    )
    assert {o.gpu_name for o in offers} == {
        "NVIDIA L40S",
        "NVIDIA A100 SXM4 40GB",
        "NVIDIA A100 SXM4 80GB",
        "NVIDIA H100 SXM",
        "NVIDIA H200",
        "NVIDIA B200",
        "NVIDIA B300",
    }


def test_replay_of_one_capture_per_region_does_not_duplicate() -> None:
    """Replay answers every region's request with the same merged capture."""
    responses = [_raw(region=name) for name in aws.REGIONS]
    offers = aws.parse(responses)
    assert len(offers) == 51
    assert offers == aws.parse([_raw()])


def test_per_region_layout() -> None:
    """The live file: one region under "regions", with a manifest (built from the capture)."""
    per_region = {
        "manifest": {"serviceId": "ec2", "currencyCode": "USD", "source": "ec2"},
        "regions": _capture()[VIRGINIA]["regions"],
    }
    offers = aws.parse([_raw(json.dumps(per_region).encode())])
    assert len(offers) == 10
    assert {o.region for o in offers} == {"us-east-1"}
    assert _offer(offers, "p6-b200.48xlarge", "us-east-1").price == Decimal("113.9328")


def test_non_gpu_and_software_entries_are_excluded_and_counted() -> None:
    data = _capture()
    entries = data[VIRGINIA]["regions"][VIRGINIA]
    cpu = dict(entries["p5 48xlarge US East N. Virginia Linux"])
    cpu.update({"Instance Type": "m7i.large", "Instance Family": "General purpose"})
    entries["m7i large US East N. Virginia Linux"] = cpu
    bundle = dict(
        entries["g6e xlarge US East N. Virginia Linux"], **{"Pre Installed S/W": "SQL Web"}
    )
    entries["g6e xlarge US East N. Virginia Linux SQL Web"] = bundle
    offers, excluded = aws.parse_with_exclusions([_raw(json.dumps(data).encode())])
    assert len(offers) == 51
    assert excluded == {"not_gpu": 1, "preinstalled_software": 1}


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (b'"g6e.48xlarge"', b'"g9x.48xlarge"', "unknown GPU instance family 'g9x'"),
        (b'"p5.4xlarge"', b'"p5.2xlarge"', "unknown size p5.2xlarge"),
        (b'"price"', b'"cost"', "lacks 'price'"),
        (b'"Memory": "1536 GiB"', b'"Memory": "1.5 TiB"', "memory"),
        (b'"Storage": "4 x 1900 GB NVMe SSD"', b'"Storage": "lots"', "storage"),
        (b'"regions"', b'"areas"', "no 'regions'"),
        (b'"Location": "US East (Ohio)"', b'"Location": "US East (Columbus)"', "Columbus"),
    ],
)
def test_mutated_capture_raises(old: bytes, new: bytes, message: str) -> None:
    body = CAPTURE.read_bytes()
    assert old in body
    with pytest.raises(SchemaDriftError, match=re.escape(message)):
        aws.parse([_raw(body.replace(old, new, 1))])


def test_unknown_region_raises() -> None:
    data = _capture()
    region = data.pop(VIRGINIA)["regions"].pop(VIRGINIA)
    for entry in region.values():
        entry["Location"] = "Atlantis (Central)"
    data["Atlantis (Central)"] = {"regions": {"Atlantis (Central)": region}}
    with pytest.raises(SchemaDriftError, match="unknown AWS location 'Atlantis"):
        aws.parse([_raw(json.dumps(data).encode())])


def test_other_currency_raises() -> None:
    per_region = {"manifest": {"currencyCode": "EUR"}, "regions": _capture()[VIRGINIA]["regions"]}
    with pytest.raises(SchemaDriftError, match="currency 'EUR'"):
        aws.parse([_raw(json.dumps(per_region).encode())])


def test_conflicting_duplicate_offers_raise() -> None:
    body = CAPTURE.read_bytes()
    changed = body.replace(b'"55.0400000000"', b'"56.0400000000"', 1)
    with pytest.raises(SchemaDriftError, match=r"two different offers for p5\.48xlarge"):
        aws.parse([_raw(body), _raw(changed)])


def test_no_gpu_entries_raise() -> None:
    with pytest.raises(SchemaDriftError, match="no GPU instance"):
        aws.parse([_raw(json.dumps({"manifest": {}, "regions": {VIRGINIA: {}}}).encode())])


def test_fetch_requests_every_region_once() -> None:
    body = CAPTURE.read_bytes()
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = aws.fetch(client, None)

    assert len(requests) == len(responses) == len(aws.REGIONS)
    assert all(r.method == "GET" for r in requests)
    assert [str(r.url) for r in requests] == [aws.region_url(name) for name in aws.REGIONS]
    assert requests[0].url.raw_path == (
        b"/pricing/2.0/meteredUnitMaps/ec2/USD/current/ec2-ondemand-without-sec-sel/"
        b"US%20East%20(N.%20Virginia)/Linux/index.json"
    )
    assert requests[0].url.host == "b0.p.awsstatic.com"
    assert "authorization" not in requests[0].headers
    assert requests[0].headers["user-agent"] == http.USER_AGENT
    assert len(aws.parse(responses)) == 51


# --- new families (entries built from the capture's g6e.xlarge entry) ---------------------


def _with_entries(types: dict[str, tuple[str, str]]) -> bytes:
    """The capture plus one us-east-1 entry per instance type: (vCPU, Memory), price 1.0."""
    data = _capture()
    entries = data[VIRGINIA]["regions"][VIRGINIA]
    template = entries["g6e xlarge US East N. Virginia Linux"]
    for instance_type, (vcpus, memory) in types.items():
        entry = dict(template)
        entry.update(
            {"Instance Type": instance_type, "vCPU": vcpus, "Memory": memory, "price": "1.0"}
        )
        entry["Storage"] = "EBS only"
        entries[f"{instance_type} US East N. Virginia Linux"] = entry
    return json.dumps(data).encode()


def test_fractional_l4_families_are_shares_of_one_gpu() -> None:
    body = _with_entries(
        {
            "g6f.large": ("2", "8 GiB"),
            "g6f.2xlarge": ("8", "32 GiB"),
            "g6f.4xlarge": ("16", "64 GiB"),
            "gr6f.4xlarge": ("16", "128 GiB"),
        }
    )
    offers = aws.parse([_raw(body)])
    shares = {
        o.instance_type: (o.gpu_name, o.gpu_count, o.vram_gb_reported)
        for o in offers
        if o.instance_type.startswith(("g6f.", "gr6f."))
    }
    assert shares == {
        "g6f.large": ("NVIDIA L4", Decimal("0.125"), 24),
        "g6f.2xlarge": ("NVIDIA L4", Decimal("0.25"), 24),
        "g6f.4xlarge": ("NVIDIA L4", Decimal("0.5"), 24),
        "gr6f.4xlarge": ("NVIDIA L4", Decimal("0.5"), 24),
    }
    assert all(o.storage_gb is None for o in offers if o.instance_type.startswith("g6f."))


def test_g7_and_g7e_are_rtx_pro_server_editions() -> None:
    body = _with_entries(
        {
            "g7.2xlarge": ("8", "32 GiB"),
            "g7.48xlarge": ("192", "768 GiB"),
            "g7e.12xlarge": ("48", "512 GiB"),
        }
    )
    offers = aws.parse([_raw(body)])
    g7 = _offer(offers, "g7.48xlarge", "us-east-1")
    assert (g7.gpu_name, g7.gpu_count, g7.vram_gb_reported) == (
        "NVIDIA RTX PRO 4500 Blackwell Server Edition",
        8,
        32,
    )
    assert _offer(offers, "g7.2xlarge", "us-east-1").gpu_count == 1
    g7e = _offer(offers, "g7e.12xlarge", "us-east-1")
    assert (g7e.gpu_name, g7e.gpu_count, g7e.vram_gb_reported) == (
        "NVIDIA RTX PRO 6000 Blackwell Server Edition",
        2,
        96,
    )


def test_unknown_size_of_a_new_family_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match=r"unknown size g6f\.8xlarge"):
        aws.parse([_raw(_with_entries({"g6f.8xlarge": ("32", "128 GiB")}))])


# --- multi-region fetch: one region missing or failing ------------------------------------

OHIO = "US East (Ohio)"


def _fetch(handler, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(http, "pause", lambda seconds: None)
    with (
        caplog.at_level(logging.WARNING, logger="scrapers.aws"),
        http.make_client(httpx.MockTransport(handler)) as client,
    ):
        return aws.fetch_with_skips(client, None)


def test_region_answering_404_is_skipped_and_reported(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = CAPTURE.read_bytes()
    missing = aws.region_url(OHIO)

    def handler(request: httpx.Request) -> httpx.Response:
        if str(request.url) == missing:
            return httpx.Response(404, text="Not Found")
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    responses, skipped = _fetch(handler, caplog, monkeypatch)
    assert len(responses) == len(aws.REGIONS) - 1
    assert missing not in {r.url for r in responses}
    assert list(skipped) == ["us-east-2"]
    assert "HTTP 404" in skipped["us-east-2"]
    assert any("us-east-2" in r.getMessage() for r in caplog.records)
    assert len(aws.parse(responses)) == 51  # the other regions' offers are all there


def test_first_region_answering_404_is_skipped_too(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = CAPTURE.read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        if str(request.url) == aws.region_url(VIRGINIA):
            return httpx.Response(404)
        return httpx.Response(200, content=body)

    responses, skipped = _fetch(handler, caplog, monkeypatch)
    assert list(skipped) == ["us-east-1"] and len(responses) == len(aws.REGIONS) - 1


def test_later_region_failing_after_retries_is_skipped(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = CAPTURE.read_bytes()
    calls: Counter[str] = Counter()

    def handler(request: httpx.Request) -> httpx.Response:
        calls[str(request.url)] += 1
        if str(request.url) == aws.region_url(OHIO):
            return httpx.Response(503)
        return httpx.Response(200, content=body)

    responses, skipped = _fetch(handler, caplog, monkeypatch)
    assert calls[aws.region_url(OHIO)] == http.MAX_ATTEMPTS
    assert "HTTP 503" in skipped["us-east-2"] and len(responses) == len(aws.REGIONS) - 1


def test_first_region_failing_fails_the_provider(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: Counter[str] = Counter()

    def handler(request: httpx.Request) -> httpx.Response:
        calls[str(request.url)] += 1
        return httpx.Response(500)

    with pytest.raises(FetchError, match="HTTP 500"):
        _fetch(handler, caplog, monkeypatch)
    assert list(calls.values()) == [http.MAX_ATTEMPTS]  # the host is down: no other region


def test_no_region_answering_fails_the_provider(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(FetchError, match="no region answered"):
        _fetch(lambda request: httpx.Response(404), caplog, monkeypatch)
