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
    offer = _offer(aws.PROVIDER.parse([_raw()]), "p5.48xlarge", "us-east-1")
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
    offers = aws.PROVIDER.parse([_raw()])
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
    offers = aws.PROVIDER.parse(responses)
    assert len(offers) == 51
    assert offers == aws.PROVIDER.parse([_raw()])


def test_per_region_layout() -> None:
    """The live file: one region under "regions", with a manifest (built from the capture)."""
    per_region = {
        "manifest": {"serviceId": "ec2", "currencyCode": "USD", "source": "ec2"},
        "regions": _capture()[VIRGINIA]["regions"],
    }
    offers = aws.PROVIDER.parse([_raw(json.dumps(per_region).encode())])
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
        (b'"price"', b'"cost"', "lacks 'price'"),
        (b'"regions"', b'"areas"', "no 'regions'"),
        (b'"Location": "US East (Ohio)"', b'"Location": "US East (Columbus)"', "Columbus"),
    ],
)
def test_mutated_capture_structure_raises(old: bytes, new: bytes, message: str) -> None:
    body = CAPTURE.read_bytes()
    assert old in body
    with pytest.raises(SchemaDriftError, match=re.escape(message)):
        aws.PROVIDER.parse([_raw(body.replace(old, new, 1))])


@pytest.mark.parametrize(
    ("old", "new", "reason", "gone"),
    [
        (b'"g6e.48xlarge"', b'"g9x.48xlarge"', "unknown_family g9x", ("g6e.48xlarge", "us-east-1")),
        (b'"p5.4xlarge"', b'"p5.2xlarge"', "unknown_size p5.2xlarge", ("p5.4xlarge", "us-east-1")),
        (
            b'"Operating System": "Linux"',
            b'"Operating System": "Windows"',
            "unknown_os Windows",
            ("g6e.48xlarge", "us-east-1"),
        ),
        (
            b'"price": "30.1311800000"',
            b'"price": "N/A"',
            "unparsed_price",
            ("g6e.48xlarge", "us-east-1"),
        ),
        (
            b'"Memory": "1536 GiB"',
            b'"Memory": "1.5 TiB"',
            "unparsed_memory",
            ("g6e.48xlarge", "us-east-1"),
        ),
        (
            b'"Storage": "4 x 1900 GB NVMe SSD"',
            b'"Storage": "lots"',
            "unparsed_storage",
            ("g6e.48xlarge", "us-east-1"),
        ),
    ],
)
def test_one_unreadable_entry_is_excluded_and_the_rest_published(
    old: bytes, new: bytes, reason: str, gone: tuple[str, str]
) -> None:
    body = CAPTURE.read_bytes()
    assert old in body
    offers, excluded = aws.parse_with_exclusions([_raw(body.replace(old, new, 1))])
    assert excluded == {reason: 1}
    assert len(offers) == 50
    assert gone not in {(o.instance_type, o.region) for o in offers}
    assert _offer(offers, "p5.48xlarge", "us-east-1").price == Decimal("55.04")
    assert _offer(offers, "p4d.24xlarge", "us-east-2").price == Decimal("21.95764")


def test_unknown_region_is_excluded_and_the_other_regions_published() -> None:
    data = _capture()
    region = data.pop(VIRGINIA)["regions"].pop(VIRGINIA)
    for entry in region.values():
        entry["Location"] = "Atlantis (Central)"
    data["Atlantis (Central)"] = {"regions": {"Atlantis (Central)": region}}
    offers, excluded = aws.parse_with_exclusions([_raw(json.dumps(data).encode())])
    assert excluded == {"unknown_region Atlantis (Central)": 10}  # Virginia's 10 GPU entries
    assert len(offers) == 41
    assert "us-east-1" not in {o.region for o in offers}
    assert _offer(offers, "p6-b300.48xlarge", "sa-east-1").price == Decimal("281.13")


def test_unknown_family_in_replay_is_counted_once_not_once_per_region() -> None:
    """Replay answers all 22 region requests with one body: its rows are counted once."""
    body = CAPTURE.read_bytes().replace(b'"g6e.48xlarge"', b'"g9x.48xlarge"', 1)
    offers, excluded = aws.PROVIDER.parse_report([_raw(body, region=name) for name in aws.REGIONS])
    assert excluded == {"unknown_family g9x": 1}
    assert len(offers) == 50


def test_software_bundles_of_a_new_family_count_as_bundles_not_unknown_rows() -> None:
    data = _capture()
    entries = data[VIRGINIA]["regions"][VIRGINIA]
    new = dict(entries["g6e xlarge US East N. Virginia Linux"], **{"Instance Type": "g9x.xlarge"})
    entries["g9x xlarge US East N. Virginia Linux"] = new
    entries["g9x xlarge US East N. Virginia Linux SQL Web"] = dict(
        new, **{"Pre Installed S/W": "SQL Web"}
    )
    _, excluded = aws.parse_with_exclusions([_raw(json.dumps(data).encode())])
    assert excluded == {"unknown_family g9x": 1, "preinstalled_software": 1}


@pytest.mark.parametrize("price", [b'"0.0000000000"', b'"-30.1311800000"'])
def test_zero_or_negative_price_is_rejected_not_excluded(price: bytes) -> None:
    body = CAPTURE.read_bytes().replace(b'"30.1311800000"', price, 1)
    with pytest.raises(SchemaDriftError, match=r"g6e\.48xlarge in us-east-1: price"):
        aws.PROVIDER.parse([_raw(body)])


def test_other_currency_raises() -> None:
    per_region = {"manifest": {"currencyCode": "EUR"}, "regions": _capture()[VIRGINIA]["regions"]}
    with pytest.raises(SchemaDriftError, match="currency 'EUR'"):
        aws.PROVIDER.parse([_raw(json.dumps(per_region).encode())])


def test_conflicting_duplicate_offers_raise() -> None:
    body = CAPTURE.read_bytes()
    changed = body.replace(b'"55.0400000000"', b'"56.0400000000"', 1)
    with pytest.raises(SchemaDriftError, match=r"two different offers for p5\.48xlarge"):
        aws.PROVIDER.parse([_raw(body), _raw(changed)])


def test_no_gpu_entries_raise() -> None:
    with pytest.raises(SchemaDriftError, match="no known GPU instance"):
        aws.PROVIDER.parse([_raw(json.dumps({"manifest": {}, "regions": {VIRGINIA: {}}}).encode())])


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
    assert len(aws.PROVIDER.parse(responses)) == 51


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
    offers = aws.PROVIDER.parse([_raw(body)])
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
    offers = aws.PROVIDER.parse([_raw(body)])
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


def test_unknown_size_of_a_new_family_is_excluded() -> None:
    offers, excluded = aws.parse_with_exclusions(
        [_raw(_with_entries({"g6f.8xlarge": ("32", "128 GiB")}))]
    )
    assert excluded == {"unknown_size g6f.8xlarge": 1}
    assert len(offers) == 51


def test_only_unknown_families_is_drift() -> None:
    data = _capture()
    for region in data.values():
        for entries in region["regions"].values():
            for entry in entries.values():
                entry["Instance Type"] = (
                    "z9" + entry["Instance Type"][entry["Instance Type"].index(".") :]
                )
    with pytest.raises(SchemaDriftError, match=r"no known GPU instance.*unknown_family z9"):
        aws.PROVIDER.parse_report([_raw(json.dumps(data).encode())])


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
    assert list(skipped) == ["region us-east-2"]
    assert "HTTP 404" in skipped["region us-east-2"]
    assert any("us-east-2" in r.getMessage() for r in caplog.records)
    assert len(aws.PROVIDER.parse(responses)) == 51  # the other regions' offers are all there


def test_first_region_answering_404_is_skipped_too(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = CAPTURE.read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        if str(request.url) == aws.region_url(VIRGINIA):
            return httpx.Response(404)
        return httpx.Response(200, content=body)

    responses, skipped = _fetch(handler, caplog, monkeypatch)
    assert list(skipped) == ["region us-east-1"] and len(responses) == len(aws.REGIONS) - 1


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
    assert "HTTP 503" in skipped["region us-east-2"] and len(responses) == len(aws.REGIONS) - 1


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


def test_a_404_region_and_a_500_region_are_both_skipped_and_reported(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through ``Provider.fetch_report``, the pipeline's entry: the first region answers, Ohio
    has no price file (404), Oregon fails after retries (500); the rest are published."""
    body = CAPTURE.read_bytes()
    oregon = "US West (Oregon)"

    def handler(request: httpx.Request) -> httpx.Response:
        if str(request.url) == aws.region_url(OHIO):
            return httpx.Response(404, text="Not Found")
        if str(request.url) == aws.region_url(oregon):
            return httpx.Response(500)
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    monkeypatch.setattr(http, "pause", lambda seconds: None)
    with (
        caplog.at_level(logging.WARNING, logger="scrapers.aws"),
        http.make_client(httpx.MockTransport(handler)) as client,
    ):
        responses, skipped = aws.PROVIDER.fetch_report(client, None)
    assert sorted(skipped) == ["region us-east-2", "region us-west-2"]
    assert skipped["region us-east-2"].endswith("HTTP 404")
    assert skipped["region us-west-2"].endswith("HTTP 500 after 4 attempts")
    assert all("\n" not in error for error in skipped.values())
    assert len(responses) == len(aws.REGIONS) - 2
    assert {r.url for r in responses}.isdisjoint({aws.region_url(OHIO), aws.region_url(oregon)})
    assert {"us-east-2", "us-west-2"} <= {
        m for r in caplog.records for m in ("us-east-2", "us-west-2") if m in r.getMessage()
    }


def test_provider_fetch_report_uses_fetch_with_skips() -> None:
    assert aws.PROVIDER.fetch_with_skips is aws.fetch_with_skips
